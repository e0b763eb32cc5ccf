/* pkt.h - the packet view every packet source yields to the analyzer. */
#ifndef TCPSIFT_PKT_H
#define TCPSIFT_PKT_H

#include <stdint.h>

/*
 * A source fills a struct pkt per packet without allocating: data points
 * into the source's own buffer and is borrowed until the next read from that
 * source. Fields a format cannot supply stay at their "unknown" value.
 */

/* LINKTYPE_* values (tcpdump.org/linktypes.html) the decoder understands. */
enum pkt_linktype {
	PKT_LINKTYPE_NULL = 0, /* BSD loopback: 4-byte host-order AF */
	PKT_LINKTYPE_ETHERNET = 1,
	PKT_LINKTYPE_RAW = 101,	 /* raw IPv4/IPv6, version nibble decides */
	PKT_LINKTYPE_LOOP = 108, /* OpenBSD loopback: network-order AF */
	PKT_LINKTYPE_LINUX_SLL = 113,
	PKT_LINKTYPE_IPV4 = 228,
	PKT_LINKTYPE_IPV6 = 229,
	PKT_LINKTYPE_LINUX_SLL2 = 276,
	PKT_LINKTYPE_DLT_RAW_OLD = 12, /* DLT_RAW on most BSDs/Linux savefiles */
	PKT_LINKTYPE_DLT_RAW_OLD2 = 14,
};

/* Which optional fields of struct pkt are valid. */
enum pkt_have {
	PKT_HAVE_QUEUE = 1u << 0,      /* pcapng epb_queue, or --queue-per-file */
	PKT_HAVE_FLAGS = 1u << 1,      /* pcapng epb_flags */
	PKT_HAVE_DROPCOUNT = 1u << 2,  /* pcapng epb_dropcount */
	PKT_HAVE_TS_CLAMPED = 1u << 3, /* the file's time was outside ts_ns's range: saturated */
};

/* epb_flags bits 0-1 (pcapng spec, section "Enhanced Packet Block"). */
enum pkt_dir {
	PKT_DIR_UNKNOWN = 0,
	PKT_DIR_INBOUND = 1,
	PKT_DIR_OUTBOUND = 2,
};

struct pkt {
	int64_t ts_ns;	     /* capture time, ns since the Unix epoch, in [0, CLOCK_TS_MAX] */
	const uint8_t *data; /* caplen bytes, borrowed until the next read */
	uint32_t caplen;     /* bytes present at data */
	uint32_t wirelen;    /* original length on the wire (>= caplen) */
	uint32_t linktype;   /* LINKTYPE_* of the interface it came from */
	uint32_t iface;	     /* interface index within its input (pcapng IDB) */
	uint32_t queue;	     /* RX/TX queue id when PKT_HAVE_QUEUE */
	uint32_t epb_flags;  /* raw epb_flags when PKT_HAVE_FLAGS */
	uint64_t dropcount;  /* epb_dropcount when PKT_HAVE_DROPCOUNT */
	uint32_t have;	     /* enum pkt_have bits */
	uint32_t input;	     /* index of the input file (merge order) */
	uint32_t vantage;    /* observation point: flows are keyed by it (see source.h) */
	uint64_t frame;	     /* 1-based frame number within its input */
};

#endif
