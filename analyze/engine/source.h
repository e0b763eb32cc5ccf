/* source.h - the analyzer's packet source: input files merged by time, filtered. */
#ifndef TCPSIFT_SOURCE_H
#define TCPSIFT_SOURCE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/pkt.h"

/*
 * A source owns its inputs: capture files read by our own reader
 * (capture/savefile: pcap, pcapng, gzip/bzip2/xz-compressed) and
 * libtrace URIs (capture/tracefile: erf:, legacyeth:, ...). Several inputs
 * are merged by timestamp; a BPF filter compiled by libpcap drops packets
 * exactly as tcpdump would. An input that fails mid-file stops there: its
 * packets so far count and the error is kept in its struct src_input.
 *
 * Vantage points: one capture file may hold the same connection seen at
 * several places (dumpcap -i a -i b on both sides of a router). Each packet
 * gets a vantage id from its interface's name (pcapng if_name), shared
 * across inputs, so queues of one NIC (same name, or one file per queue)
 * form one connection while distinct interfaces give distinct ones. An
 * interface without a name is "#k", k its rank among its input's unnamed
 * interfaces: single-interface files all share vantage "#0".
 */

#define SRC_MAX_VANTAGES 256 /* distinct names; beyond it they share the last */

struct src_config {
	const char *filter;  /* BPF expression or NULL */
	bool queue_per_file; /* tag packets with their input index as queue id */
	/* Each input is a vantage point of its own, named by its path, whatever
	 * its interfaces are called (analyze --vantage-pair: two captures of
	 * the same connection must stay two connections). */
	bool vantage_per_input;
	/* An input that cannot be opened ends at once with its error in its
	 * struct src_input, the others are read (else src_open() fails). */
	bool keep_going;
	/* A signal handler's flag (handler without SA_RESTART), or NULL: once
	 * non-zero, every wait for input ends within SF_STOP_POLL_MS and
	 * src_next() returns 0; src_stopped() then says so. */
	const volatile sig_atomic_t *stop;
};

struct src_iface {
	uint32_t linktype;
	char name[64];
	uint64_t ifrecv, ifdrop, osdrop, epb_drops;
	bool have_ifrecv, have_ifdrop, have_osdrop, have_epb_drops;
};

struct src_input {
	const char *path;
	const char *format; /* "pcap", "pcap-ns", "pcapng", "libtrace:<fmt>" */
	bool compressed;
	uint32_t linktype; /* of the first interface */
	uint64_t packets;  /* read from the file (before the filter) */
	uint64_t wire_bytes;
	int64_t first_ts, last_ts;
	bool drops_known; /* the file carries drop counters */
	uint64_t drops;	  /* ISB ifdrop + osdrop, else sum of epb_dropcount */
	unsigned nifaces;
	struct src_iface *ifaces; /* nifaces entries, valid after the input ended */
	int error;		  /* 0, or the reader's negative error */
	char errmsg[256];	  /* "offset N: reason" when error != 0 */
};

struct source;

/*
 * Open every input: 0 with the source in *out (the caller owns it), or,
 * with *out NULL and a one-line reason in errbuf (naming the file), a
 * negative enum err_code (common/err.h): ERR_USAGE for a filter that does
 * not compile or a live libtrace URI (int:eth0, rt:host ...: `tcpsift
 * capture` reads those) or a libtrace URI on a pipe, FIFO or device (its
 * reads could not be interrupted), ERR_INPUT (or the reader's code) for an
 * input that cannot be opened or is no capture (unless cfg->keep_going),
 * ERR_SYSTEM, ERR_NOMEM. A stop while opening leaves the inputs not opened
 * yet ended, without an error.
 */
int src_open(const char *const *paths, unsigned n, const struct src_config *cfg,
	     struct source **out, char *errbuf, size_t errlen);

/*
 * Next packet in timestamp order that passes the filter: 1, or 0 when every
 * input has ended (cleanly or not: see src_input()). p->data is borrowed
 * until the next call.
 */
int src_next(struct source *s, struct pkt *p);
/* The same, without the copy: *p is the reader's own, valid until the
 * next call (copying it right after the reader wrote it field by field
 * stalled on every packet: wide loads over narrow stores). */
int src_next_ref(struct source *s, const struct pkt **p);

unsigned src_count(const struct source *s);
bool src_stopped(const struct source *s); /* the stop flag ended the read early */

/*
 * From now on a packet's bytes stay in place after src_next_ref() until
 * src_release() (sf_keep()), for a reader that hands packets to other
 * threads without copying them. Returns the counter a packet is read
 * under (it grows as the inputs refill their buffers), or NULL when an
 * input is read through libtrace (its packets must be copied).
 */
const uint64_t *src_keep(struct source *s);
/* No packet read while the counter was below gen is in use any more. */
void src_release(struct source *s, uint64_t gen);
const struct src_input *src_input(const struct source *s, unsigned i);
uint64_t src_filtered_out(const struct source *s); /* packets the filter dropped */

/* Fraction of input bytes consumed, or -1 when sizes are unknown (stdin, compressed). */
double src_progress(const struct source *s);

/* Bytes consumed so far and in all (*done, *total) over the inputs: 0, or -1
 * when a size is unknown (stdin, compressed, libtrace), with *done still the
 * bytes read of the inputs tcpsift's own reader reads and *total 0. */
int src_bytes(const struct source *s, uint64_t *done, uint64_t *total);

void src_close(struct source *s); /* NULL is a no-op */

/* Vantage points seen so far and their names ("eth0", "#0", ...). */
unsigned src_vantage_count(const struct source *s);
const char *src_vantage_name(const struct source *s, unsigned v);

/* A short name for a LINKTYPE_* value ("EN10MB", "LINUX_SLL2", ...). */
const char *src_linktype_name(uint32_t linktype);

#endif
