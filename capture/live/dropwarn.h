/* dropwarn.h - a live capture's drops as they happen: when to warn, and what would help. */
#ifndef TCPSIFT_DROPWARN_H
#define TCPSIFT_DROPWARN_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/live/ring.h"

/*
 * The exit summary counts every drop, but at the end: a capture that loses
 * most of its packets should say so while it runs, and say what to change.
 * A verb calls dw_check() about once a second (more often is fine: it looks
 * at most once a second). The first time the capture's own drops grow
 * (the kernel ring full, or tcpsift's hand-off queue full: not the
 * interface's, which no capture option changes) it returns a warning; while
 * drops go on, one every DW_EVERY_S seconds at most, each with the count and
 * share over the interval it covers; after DW_EVERY_S seconds without a
 * drop the next drop warns at once again.
 *
 * The advice follows what the capture saw over that interval:
 *   kernel drops, payload kept at a snaplen above DW_HEADER_SNAPLEN
 *                     -> -s DW_HEADER_SNAPLEN (every copy shrinks)
 *   kernel drops, a reader not saturated or a ring holding under a
 *   second of the traffic (bursts)
 *                     -> -B four times larger, or holding 250 ms of the
 *                        traffic (within 2047 MiB a socket)
 *   kernel drops, a reader thread busy DW_BUSY of a CPU, CPUs to spare
 *                     -> --fanout N (and hash mode when qm has one RX queue)
 *   tcpsift's queue full -> the output or --analyze is slower than the traffic
 */

#define DW_HEADER_SNAPLEN 128u /* Ethernet + VLAN + IPv6 + TCP with options: all tcpsift reads */
#define DW_EVERY_S	  5.0  /* at most one warning this often while drops go on */
#define DW_BUSY		  0.7  /* a reader using this share of a CPU is saturated */

/* What the capture was asked for, and the machine it runs on. */
struct dw_config {
	uint32_t snaplen;
	uint64_t buffer_bytes; /* kernel ring per socket */
	unsigned nsockets;
	enum ring_fanout mode;
	unsigned ncpus;	    /* CPUs this process may run on */
	unsigned rx_queues; /* the interface's RX queues; 0: unknown */
	bool queue_option;  /* the verb has --queue-mib (capture; not the tui) */
};

/* The counters at one look. */
struct dw_counts {
	double t; /* seconds, the caller's clock */
	uint64_t recv, kernel, ours, captured, bytes;
	int64_t cpu[RING_MAX_SOCKETS]; /* each reader's CPU time, ns; -1 unknown */
};

/* A warner: the caller's, no allocation (dw_init fills it). */
struct dw_state {
	struct dw_config cfg;
	struct dw_counts last; /* at the previous look */
	struct dw_counts base; /* where the next warning counts from */
	double last_warn;      /* when the last warning was given */
	bool active;	       /* drops warned of and not over yet */
	unsigned warnings;     /* given so far */
};

/* One warning: numbers over its interval, and the text to print. */
struct dw_warning {
	uint64_t dropped, received, kernel, ours;
	double seconds, pct;
	/* "41822 of 51003 packets dropped (82.0 %) in the last 1.0 s, the
	 * kernel ring full: try -s 128 (...); --fanout 2 (...)" */
	char text[512];
	/* The options advised, "-s 128 --fanout 2": the dashboard's short form. */
	char options[80];
};

/* A warner for the ring r opened from cfg, started at now (seconds). */
void dw_init(struct dw_state *s, const struct ring_config *cfg, const struct ring *r, double now,
	     bool queue_option);

/*
 * Look at r's counters at now: 1 with *out filled when a warning is due,
 * else 0. With final (the capture has ended), drops never warned of in a
 * capture that gave no warning yet are one now (a capture shorter than a
 * look still gets its advice).
 */
int dw_check(struct dw_state *s, const struct ring *r, double now, bool final,
	     struct dw_warning *out);

/* dw_init and dw_check on counters of the caller's (a test's): dw_start
 * from cfg and the counters at the start; dw_step with the counters at a
 * look, at least a second after the previous one. */
void dw_start(struct dw_state *s, const struct dw_config *cfg, const struct dw_counts *now);
int dw_step(struct dw_state *s, const struct dw_counts *cur, bool final, struct dw_warning *out);

/* Are drops going on (a warning given, DW_EVERY_S not yet quiet)? */
static inline bool dw_active(const struct dw_state *s)
{
	return s->active;
}

#endif
