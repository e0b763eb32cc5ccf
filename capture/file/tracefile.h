/* tracefile.h - packets from any libtrace URI (erf:, legacyeth:, tsh:, rt:, ...) as struct pkt. */
#ifndef TCPSIFT_TRACEFILE_H
#define TCPSIFT_TRACEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/pkt.h"

/*
 * The same shape as savefile.h, for the formats only libtrace reads. pcap
 * and pcapng files should go through sf_* (faster, zero-copy, pcapng
 * options); this is for "format:path" arguments.
 *
 * Link types: libtrace's own link types are mapped to LINKTYPE_* where one
 * exists (Ethernet, raw IP, Linux SLL, OpenBSD loopback, PPP, Cisco HDLC,
 * 802.11 variants, pflog, LLC/SNAP). Packets whose link layer has no
 * LINKTYPE (ATM cells, AAL5, POS, and anything unknown) are handed out from
 * their IP header as PKT_LINKTYPE_RAW when libtrace can find one, and
 * skipped (counted by tf_skipped) when it cannot, as are libtrace's
 * meta-data and non-data records.
 *
 * Lengths: libtrace counts the 4-byte Ethernet FCS in the wire length of
 * every Ethernet packet (its documented convention: it adds 4 to a pcap
 * record's len, and ERF's wlen includes the FCS the card saw). tf_* takes
 * the 4 bytes off again so wirelen means what it means in pcap, and cuts
 * caplen to that, dropping FCS bytes an ERF capture may hold at the end.
 */

struct tf_reader;

/*
 * Open and start a libtrace input URI in a child process (forked here:
 * call it before starting threads). Returns NULL on failure with a
 * one-line reason in errbuf (no trailing newline). The caller owns the
 * reader; tf_close() ends the child.
 */
struct tf_reader *tf_open(const char *uri, char *errbuf, size_t errlen);

/*
 * Read the next packet into *p. Returns 1 for a packet, 0 at the end of the
 * trace, or a negative enum err_code (common/err.h): ERR_INPUT when
 * libtrace reports an error reading the trace, or when it died (libtrace
 * runs in a child process of tf_open()'s, so its asserts and crashes end
 * the input, not tcpsift: tracefile.c), ERR_NOMEM; tf_error() then says
 * what, in one line. Times outside pkt.ts_ns's range are saturated and
 * flagged (PKT_HAVE_TS_CLAMPED). p->data is borrowed until the next tf_next()/tf_close().
 * p->input is left for the caller; p->frame counts packets handed out,
 * from 1; p->iface is 0.
 */
int tf_next(struct tf_reader *r, struct pkt *p);

/* The last error, valid until the next call; "" when there was none. */
const char *tf_error(const struct tf_reader *r);

/* Records read but not handed out (meta-data, non-IP on unmapped links). */
uint64_t tf_skipped(const struct tf_reader *r);

void tf_close(struct tf_reader *r); /* NULL is a no-op */

/*
 * 1 when arg looks like a libtrace URI: "name:rest" where name is a
 * libtrace format name (erf, pcapfile, legacyeth, tsh, rt, dag, ...) and
 * arg is not an existing file (a file called "erf:x" is still a file).
 */
int tf_is_uri(const char *arg);

/*
 * 1 when uri names a live source rather than a file: an interface or
 * device (int:, ring:, pcapint:, bpf:, dag:, dpdk:, xdp: ...) or a network
 * feed (rt:, ndag:, etsilive: ...). Such a trace never ends by itself.
 */
int tf_uri_is_live(const char *uri);

#endif
