/* connfilter.c - match connections against a BPF expression or an address substring. */
#include "tui/connfilter.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/report.h"

struct cf_filter {
	bool bpf;
	struct bpf_program prog;
	char text[256]; /* the substring, lower case */
};

struct cf_filter *cf_new(const char *expr, char *errbuf, size_t errlen)
{
	struct cf_filter *f = calloc(1, sizeof(*f));

	if (!f) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	snprintf(f->text, sizeof(f->text), "%s", expr);
	for (char *s = f->text; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
	/* Raw IP (v4 and v6 by the version nibble), as a capture file could hold. */
	pcap_t *dead = pcap_open_dead(DLT_RAW, 128);
	if (!dead) {
		snprintf(errbuf, errlen, "out of memory");
		free(f);
		return NULL;
	}
	f->bpf = pcap_compile(dead, &f->prog, expr, 1, PCAP_NETMASK_UNKNOWN) == 0;
	if (!f->bpf && !cf_looks_like_address(expr)) {
		snprintf(errbuf, errlen, "%s", pcap_geterr(dead));
		pcap_close(dead);
		free(f);
		return NULL;
	}
	pcap_close(dead);
	return f;
}

bool cf_looks_like_address(const char *expr)
{
	if (!*expr)
		return false;
	for (const char *s = expr; *s; s++)
		if (!strchr("0123456789abcdefABCDEF.:[]", *s))
			return false;
	return true;
}

bool cf_is_bpf(const struct cf_filter *f)
{
	return f->bpf;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A minimal IP + TCP (ACK) header from src to dst; returns its length. */
static unsigned synth(uint8_t *pkt, const struct dec_addr *src, uint16_t sport,
		      const struct dec_addr *dst, uint16_t dport)
{
	unsigned ip;

	memset(pkt, 0, 60);
	if (src->family == 6) {
		pkt[0] = 0x60;
		put16(pkt + 4, 20);
		pkt[6] = 6;  /* next header: TCP */
		pkt[7] = 64; /* hop limit */
		memcpy(pkt + 8, src->a, 16);
		memcpy(pkt + 24, dst->a, 16);
		ip = 40;
	} else {
		pkt[0] = 0x45;
		put16(pkt + 2, 40);
		pkt[8] = 64; /* TTL */
		pkt[9] = 6;  /* TCP */
		memcpy(pkt + 12, src->a, 4);
		memcpy(pkt + 16, dst->a, 4);
		ip = 20;
	}
	put16(pkt + ip, sport);
	put16(pkt + ip + 2, dport);
	pkt[ip + 12] = 0x50; /* data offset: 5 words */
	pkt[ip + 13] = 0x10; /* ACK */
	return ip + 20;
}

static bool bpf_either_way(const struct cf_filter *f, const struct tm_row *r)
{
	uint8_t pkt[60];
	struct pcap_pkthdr h = {0};

	h.caplen = h.len = synth(pkt, &r->client, r->client_port, &r->server, r->server_port);
	if (pcap_offline_filter(&f->prog, &h, pkt))
		return true;
	h.caplen = h.len = synth(pkt, &r->server, r->server_port, &r->client, r->client_port);
	return pcap_offline_filter(&f->prog, &h, pkt) != 0;
}

bool cf_match(const struct cf_filter *f, const struct tm_row *r)
{
	if (f->bpf)
		return bpf_either_way(f, r);
	char a[64], b[64], line[140];
	rep_format_endpoint(&r->client, r->client_port, a, sizeof(a));
	rep_format_endpoint(&r->server, r->server_port, b, sizeof(b));
	snprintf(line, sizeof(line), "%s %s", a, b);
	for (char *s = line; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
	return strstr(line, f->text) != NULL;
}

void cf_free(struct cf_filter *f)
{
	if (!f)
		return;
	if (f->bpf)
		pcap_freecode(&f->prog);
	free(f);
}

void cf_tshark_filter(char *buf, size_t len, const struct tm_row *r, const struct pl_header *h)
{
	struct sum_conn_ident c = {.client = r->client,
				   .server = r->server,
				   .client_port = r->client_port,
				   .server_port = r->server_port,
				   .first_input = r->first_input,
				   .last_input = r->last_input,
				   .first_frame = r->first_frame,
				   .last_frame = r->last_frame};
	/* Names of more vantages than the header keeps are not known here. */
	const char *iface =
	    h->nvantages > 1 && r->vantage < h->nvantages && r->vantage < PL_MAX_VANTAGES
		? h->vantage[r->vantage]
		: NULL;

	rep_tshark_filter(buf, len, &c, iface);
}
