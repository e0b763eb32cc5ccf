/* tracefile.c - libtrace input (ERF, legacy, TSH, rt, ...) mapped onto struct pkt. */
#include "capture/file/tracefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libtrace.h>

#include "common/clock.h"

#define TF_FCS_LEN 4u

/* LINKTYPE_* values (tcpdump.org/linktypes.html) beyond those in pkt.h. */
enum tf_linktype {
	TF_LINKTYPE_PPP = 9,
	TF_LINKTYPE_ATM_RFC1483 = 100,
	TF_LINKTYPE_C_HDLC = 104,
	TF_LINKTYPE_IEEE802_11 = 105,
	TF_LINKTYPE_PFLOG = 117,
	TF_LINKTYPE_PRISM_HEADER = 119,
	TF_LINKTYPE_IEEE802_11_RADIOTAP = 127,
	TF_LINKTYPE_NONE = 0xFFFFFFFF, /* no LINKTYPE: fall back to the IP header */
};

struct tf_reader {
	libtrace_t *trace;
	libtrace_packet_t *packet;
	uint64_t frame;
	uint64_t skipped;
	int err;
	char msg[320];
};

/* Format names libtrace 3 and 4 register (trace_help() lists a build's). */
static const char *const tf_formats[] = {
    "erf",	 "rawerf",    "dag",	   "pcapfile",	 "pcap",     "pcapint", "pcapng",
    "int",	 "ring",      "bpf",	   "dpdk",	 "dpdkndag", "ndag",	"xdp",
    "legacyatm", "legacyeth", "legacypos", "legacynzix", "tsh",	     "fr+",	"duck",
    "rt",	 "rtclient",  "atmhdr",	   "etsilive",
};

static uint32_t tf_map_linktype(libtrace_linktype_t lt)
{
	switch (lt) {
	case TRACE_TYPE_ETH:
		return PKT_LINKTYPE_ETHERNET;
	case TRACE_TYPE_NONE:
		return PKT_LINKTYPE_RAW;
	case TRACE_TYPE_LINUX_SLL:
		return PKT_LINKTYPE_LINUX_SLL;
	case TRACE_TYPE_OPENBSD_LOOP:
		return PKT_LINKTYPE_LOOP;
	case TRACE_TYPE_PPP:
		return TF_LINKTYPE_PPP;
	case TRACE_TYPE_HDLC_POS:
		return TF_LINKTYPE_C_HDLC;
	case TRACE_TYPE_80211:
		return TF_LINKTYPE_IEEE802_11;
	case TRACE_TYPE_80211_RADIO:
		return TF_LINKTYPE_IEEE802_11_RADIOTAP;
	case TRACE_TYPE_80211_PRISM:
		return TF_LINKTYPE_PRISM_HEADER;
	case TRACE_TYPE_PFLOG:
		return TF_LINKTYPE_PFLOG;
	case TRACE_TYPE_LLCSNAP:
		return TF_LINKTYPE_ATM_RFC1483;
	default:
		/* ATM cells, AAL5, POS, DUCK, meta-data: no LINKTYPE. */
		return TF_LINKTYPE_NONE;
	}
}

static int tf_fail(struct tf_reader *r, int code, const char *what)
{
	libtrace_err_t e = trace_get_err(r->trace);

	snprintf(r->msg, sizeof(r->msg), "%s: %s", what,
		 e.err_num != TRACE_ERR_NOERROR && e.problem[0] ? e.problem : "libtrace error");
	r->err = code;
	return code;
}

struct tf_reader *tf_open(const char *uri, char *errbuf, size_t errlen)
{
	struct tf_reader *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	/* trace_create() always returns a trace; failures are its error state. */
	r->trace = trace_create(uri);
	if (r->trace == NULL) {
		snprintf(errbuf, errlen, "libtrace cannot create a trace for this URI");
		free(r);
		return NULL;
	}
	if (trace_is_err(r->trace)) {
		tf_fail(r, ERR_INPUT, "open");
		goto err;
	}
	if (trace_start(r->trace) == -1) {
		tf_fail(r, ERR_INPUT, "start");
		goto err;
	}
	r->packet = trace_create_packet();
	if (r->packet == NULL) {
		snprintf(r->msg, sizeof(r->msg), "out of memory for a libtrace packet");
		goto err;
	}
	return r;
err:
	snprintf(errbuf, errlen, "%s", r->msg);
	tf_close(r);
	return NULL;
}

int tf_next(struct tf_reader *r, struct pkt *p)
{
	if (r->err)
		return r->err;
	for (;;) {
		libtrace_linktype_t lt;
		uint32_t rem = 0, caplen, wire, linktype;
		const uint8_t *buf;
		struct timespec ts;
		int n = trace_read_packet(r->trace, r->packet);

		if (n == 0)
			return 0;
		if (n < 0)
			return tf_fail(r, ERR_INPUT, "read");
		buf = trace_get_packet_buffer(r->packet, &lt, &rem);
		linktype = tf_map_linktype(lt);
		caplen = (uint32_t)trace_get_capture_length(r->packet);
		wire = (uint32_t)trace_get_wire_length(r->packet);
		if (buf == NULL || lt == TRACE_TYPE_METADATA || lt == TRACE_TYPE_NONDATA) {
			r->skipped++;
			continue;
		}
		if (rem < caplen)
			caplen = rem;
		if (linktype == TF_LINKTYPE_NONE) {
			uint16_t ethertype = 0;
			uint32_t l3rem = 0;
			const uint8_t *l3 = trace_get_layer3(r->packet, &ethertype, &l3rem);
			uint32_t hdr;

			if (l3 == NULL || (ethertype != 0x0800 && ethertype != 0x86DD) ||
			    l3 < buf || l3 > buf + caplen) {
				r->skipped++;
				continue;
			}
			hdr = (uint32_t)(l3 - buf);
			buf = l3;
			caplen = l3rem < caplen - hdr ? l3rem : caplen - hdr;
			wire = wire > hdr ? wire - hdr : caplen;
			linktype = PKT_LINKTYPE_RAW;
		} else if (lt == TRACE_TYPE_ETH) {
			wire = wire >= TF_FCS_LEN ? wire - TF_FCS_LEN : wire;
			if (caplen > wire)
				caplen = wire;
		}
		ts = trace_get_timespec(r->packet);
		p->ts_ns = (int64_t)((uint64_t)ts.tv_sec * CLOCK_NS_PER_S + (uint64_t)ts.tv_nsec);
		p->data = buf;
		p->caplen = caplen;
		p->wirelen = wire < caplen ? caplen : wire;
		p->linktype = linktype;
		p->iface = 0;
		p->queue = 0;
		p->epb_flags = 0;
		p->dropcount = 0;
		p->have = 0;
		p->frame = ++r->frame;
		return 1;
	}
}

const char *tf_error(const struct tf_reader *r)
{
	return r->err ? r->msg : "";
}

uint64_t tf_skipped(const struct tf_reader *r)
{
	return r->skipped;
}

void tf_close(struct tf_reader *r)
{
	if (r == NULL)
		return;
	if (r->packet != NULL)
		trace_destroy_packet(r->packet);
	if (r->trace != NULL)
		trace_destroy(r->trace);
	free(r);
}

int tf_is_uri(const char *arg)
{
	const char *colon = strchr(arg, ':');
	size_t n;

	if (colon == NULL || colon == arg || colon[1] == '\0')
		return 0;
	n = (size_t)(colon - arg);
	for (size_t i = 0; i < sizeof(tf_formats) / sizeof(tf_formats[0]); i++) {
		if (strlen(tf_formats[i]) == n && strncmp(arg, tf_formats[i], n) == 0)
			return access(arg, F_OK) != 0;
	}
	return 0;
}

int tf_uri_is_live(const char *uri)
{
	static const char *const live[] = {"int",  "ring", "pcapint",  "bpf",
					   "dag",  "dpdk", "xdp",      "dpdkndag",
					   "ndag", "rt",   "rtclient", "etsilive"};
	const char *colon = strchr(uri, ':');
	size_t n = colon != NULL ? (size_t)(colon - uri) : 0;

	for (size_t i = 0; n > 0 && i < sizeof(live) / sizeof(live[0]); i++)
		if (strlen(live[i]) == n && strncmp(uri, live[i], n) == 0)
			return 1;
	return 0;
}
