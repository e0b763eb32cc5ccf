/* pcapwriter_enc.h - pcapng blocks and pcap records encoded into a buffer, for the writer. */
#ifndef TCPSIFT_PCAPWRITER_ENC_H
#define TCPSIFT_PCAPWRITER_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/file/pcapng_format.h"
#include "capture/file/pcapwriter.h"
#include "common/clock.h"
#include "common/pkt.h"

/*
 * Pure encoding: each function writes whole blocks or records (layouts in
 * pcapng_format.h), little-endian, at a pointer the caller has reserved
 * room at, and returns how many bytes it wrote. No I/O, no state: the
 * rotation half (pcapwriter.c, pcapwriter_rotate.c) decides what goes in
 * which file and when it reaches the disk.
 */

/* The most any one packet's EPB options take: epb_flags (4 + 4),
 * epb_dropcount (4 + 8), epb_queue (4 + 4) and opt_endofopt (4). */
#define PW_ENC_EPB_MAX_OPTS (8u + 12u + 8u + PCAPNG_OPT_HDR_LEN)
/* The most one ISB takes: five 8-byte options, opt_endofopt and the trailer. */
#define PW_ENC_ISB_MAX                                                                             \
	(PCAPNG_ISB_OPTIONS + 5u * (PCAPNG_OPT_HDR_LEN + 8u) + PCAPNG_OPT_HDR_LEN +                \
	 PCAPNG_BLK_TRAILER_LEN)

/* One IDB as the writer keeps it (strings owned by the writer). */
struct pw_enc_iface {
	char *name;
	char *desc; /* "eth0 queue 3" for a per-queue IDB, else NULL */
	uint32_t linktype;
};

/* What every file of a writer starts with: the pcap header, or the SHB and
 * one IDB per interface. */
struct pw_enc_hdr {
	enum pw_format format;
	uint32_t snaplen;
	const char *comment; /* shb_comment, NULL for none */
	const char *os;	     /* shb_os */
	const struct pw_enc_iface *ifs;
	unsigned nifaces;
};

/* Bytes of the file header for h; pw_enc_hdr() writes exactly as many. */
size_t pw_enc_hdr_size(const struct pw_enc_hdr *h);
size_t pw_enc_hdr(const struct pw_enc_hdr *h, uint8_t *b);

/* The most a packet record of caplen bytes (after clamping) takes, options
 * from p->have included. */
size_t pw_enc_pkt_size(enum pw_format f, uint32_t caplen, const struct pkt *p);

/*
 * One packet as an EPB on interface iface (pcapng) or a pcap record, with
 * caplen and wirelen already clamped by the caller (caplen <= snaplen,
 * wirelen >= caplen); p->queue, p->epb_flags and p->dropcount go into EPB
 * options as p->have says.
 */
size_t pw_enc_pkt(enum pw_format f, uint8_t *b, unsigned iface, const struct pkt *p,
		  uint32_t caplen, uint32_t wirelen);

/*
 * An ISB for interface iface taken at ts (ns): the span of the file's
 * packets when there were any (first_ns <= last_ns), and the counters st
 * says it has. At most PW_ENC_ISB_MAX bytes.
 */
size_t pw_enc_isb(uint8_t *b, unsigned iface, uint64_t ts, const struct pw_ifstats *st,
		  bool have_span, int64_t first_ns, int64_t last_ns);

/*
 * The length of the record that starts at rec (a block, or a pcap record
 * with its header), from its own length field; *is_packet says whether it
 * carries a packet. Only for records this module wrote.
 */
size_t pw_enc_record_len(enum pw_format f, const uint8_t *rec, bool *is_packet);

/* a / b rounded down, for times before 1970 too. */
static inline int64_t pw_floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

#endif
