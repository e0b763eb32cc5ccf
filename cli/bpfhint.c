/* bpfhint.c - tell a Wireshark display filter given where BPF is taken, and its BPF. */
#include "cli/bpfhint.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Protocols whose fields display filters name as PROTO.FIELD (Wireshark's
 * own abbreviations): the ones a TCP capture's user is likely to type. */
static const char *const df_protos[] = {
    "frame",  "eth", "vlan", "sll", "ip",  "ipv6", "tcp",  "udp",  "icmp",
    "icmpv6", "arp", "http", "tls", "ssl", "dns",  "quic", "sctp",
};

/* A lone FIELD == VALUE that BPF says in words: the BPF before the value. */
static const struct {
	const char *field, *bpf;
} df_fields[] = {
    {"tcp.port", "tcp port"},
    {"tcp.srcport", "tcp src port"},
    {"tcp.dstport", "tcp dst port"},
    {"udp.port", "udp port"},
    {"udp.srcport", "udp src port"},
    {"udp.dstport", "udp dst port"},
    {"ip.addr", "host"},
    {"ip.host", "host"},
    {"ip.src", "src host"},
    {"ip.dst", "dst host"},
    {"ipv6.addr", "host"},
    {"ipv6.src", "src host"},
    {"ipv6.dst", "dst host"},
};

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

/* Is [w, w + n) PROTO.FIELD for a protocol of df_protos? */
static bool is_field(const char *w, size_t n)
{
	for (size_t k = 0; k < sizeof(df_protos) / sizeof(df_protos[0]); k++) {
		size_t p = strlen(df_protos[k]);
		if (n > p + 1 && strncmp(w, df_protos[k], p) == 0 && w[p] == '.' &&
		    isalpha((unsigned char)w[p + 1]))
			return true;
	}
	return false;
}

/* expr is exactly FIELD ==|eq VALUE (spaces optional around ==): the BPF. */
static bool translate(const char *expr, char *out, size_t len)
{
	const char *p = expr;

	while (isspace((unsigned char)*p))
		p++;
	const char *f = p;
	while (word_char(*p) && *p != '-')
		p++;
	size_t fn = (size_t)(p - f);
	while (isspace((unsigned char)*p))
		p++;
	if (strncmp(p, "==", 2) == 0)
		p += 2;
	else if (strncmp(p, "eq", 2) == 0 && isspace((unsigned char)p[2]))
		p += 2;
	else
		return false;
	while (isspace((unsigned char)*p))
		p++;
	const char *v = p;
	while (*p && (isalnum((unsigned char)*p) || *p == '.' || *p == ':'))
		p++;
	size_t vn = (size_t)(p - v);
	while (isspace((unsigned char)*p))
		p++;
	if (*p || !vn || vn > 64)
		return false;
	for (size_t k = 0; k < sizeof(df_fields) / sizeof(df_fields[0]); k++)
		if (strlen(df_fields[k].field) == fn && strncmp(f, df_fields[k].field, fn) == 0) {
			snprintf(out, len, "%s %.*s", df_fields[k].bpf, (int)vn, v);
			return true;
		}
	return false;
}

bool bpfhint_is_display_filter(const char *expr, char *example, size_t len)
{
	bool found = false;

	for (const char *p = expr; *p && !found;) {
		if (!word_char(*p)) {
			p++;
			continue;
		}
		const char *w = p;
		while (word_char(*p))
			p++;
		found = is_field(w, (size_t)(p - w));
	}
	if (found && !translate(expr, example, len))
		snprintf(example, len, "tcp port 80");
	return found;
}

bool bpfhint_report(const char *verb, const char *filter)
{
	return bpfhint_report_to(stderr, verb, filter);
}

bool bpfhint_report_to(FILE *f, const char *verb, const char *filter)
{
	char ex[96];

	if (!filter || !bpfhint_is_display_filter(filter, ex, sizeof(ex)))
		return false;
	fprintf(f,
		"tcpsift %s: bad filter '%s': that looks like a Wireshark display filter; "
		"tcpsift takes BPF (tcpdump syntax), e.g. '%s'\n",
		verb, filter, ex);
	return true;
}
