/* ring.h - live capture: libpcap TPACKET_V3 sockets, fanout, reader threads, hand-off queues. */
#ifndef TCPSIFT_RING_H
#define TCPSIFT_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/pkt.h"

/*
 * One capture = N libpcap handles on one interface (TPACKET_V3 ring each,
 * joined into one PACKET_FANOUT group when N > 1), one reader thread per
 * handle, and one bounded single-producer/single-consumer byte queue per
 * reader. The consumer (the writer, one thread) merges the queues by
 * timestamp:
 *
 *   kernel                     reader threads            consumer
 *   ------                     --------------            --------
 *   fanout --> sock 0 ring --> reader 0 --> queue 0 --+
 *          --> sock 1 ring --> reader 1 --> queue 1 --+--> ring_next() -> pw_write()
 *          --> ...                                    |    (smallest ts first)
 *          --> sock N-1    --> reader N-1 -> queue N-1+
 *
 * Readers never block on the consumer: a packet that does not fit in its
 * queue is counted (queue_drops) and discarded. Each queue is a byte ring
 * of variable-size records (one memcpy per packet, no malloc):
 *
 *   +-----------+-----------+----------------+-----------+-------+
 *   | ts_ns (8) | caplen(4) | wirelen(4)     | len(4) pad| data  |  len = 8-aligned total
 *   +-----------+-----------+----------------+-----------+-------+
 *
 * A record never wraps: when it does not fit before the end of the buffer
 * the producer writes a skip record (caplen RING_SKIP) or, with fewer than
 * a header's worth of bytes left, both sides skip the tail implicitly.
 */

enum ring_fanout {
	RING_FANOUT_QM = 0, /* PACKET_FANOUT_QM: socket = skb queue_mapping % N */
	RING_FANOUT_CPU,    /* PACKET_FANOUT_CPU: socket = receiving CPU % N */
	RING_FANOUT_HASH,   /* PACKET_FANOUT_HASH | DEFRAG: socket = flow hash % N */
	RING_FANOUT_COUNT,
};

#define RING_MAX_SOCKETS 64

struct ring_config {
	const char *iface;     /* interface name, as for pcap_create() */
	const char *filter;    /* BPF expression (tcpdump syntax), NULL for all */
	uint32_t snaplen;      /* bytes kept per packet */
	uint64_t buffer_bytes; /* kernel ring per socket (pcap_set_buffer_size) */
	unsigned nsockets;     /* 1..RING_MAX_SOCKETS; > 1 joins a fanout group */
	enum ring_fanout mode; /* fanout mode when nsockets > 1 */
	uint64_t queue_bytes;  /* user-space hand-off queues, total over all readers */
	int block_timeout_ms;  /* TPACKET_V3 block retire timeout (pcap_set_timeout) */
};

/* Counters of one socket, cumulative since ring_open(). */
struct ring_sock_stats {
	uint64_t captured;	 /* packets the reader took from the kernel ring */
	uint64_t captured_bytes; /* their bytes as kept (caplen), queue drops included */
	uint64_t queue_drops;	 /* of those, dropped because the queue was full */
	uint64_t kernel_recv;	 /* pcap_stats ps_recv: passed the filter (incl. drops) */
	uint64_t kernel_drops;	 /* pcap_stats ps_drop: TPACKET ring full (tp_drops) */
	uint64_t if_drops;	 /* pcap_stats ps_ifdrop: interface rx_dropped delta */
	uint64_t queue_used;	 /* bytes waiting in the hand-off queue now */
	uint64_t queue_size;	 /* its capacity */
	int64_t cpu_ns;		 /* the reader thread's CPU time so far; -1 unknown (not running) */
	/* Packets the kernel handed over stamped before what this socket had
	 * already vouched for (its watermark, or its own last packet): the
	 * merge may have written newer ones from other sockets first. */
	uint64_t late;
	int64_t late_max_ns; /* the most one was earlier than that */
	int64_t hold_ns;     /* how much longer the merge waits for it since */
};

/* Returned by ring_next() when every reader has ended and every queue is empty. */
#define RING_END (-1)

struct ring;

/*
 * Open cfg->nsockets handles on cfg->iface, activate them, set the filter,
 * join the fanout group and allocate the queues; no thread runs yet (so the
 * caller can drop privileges before ring_start()). 0 with the ring in *out,
 * which the caller owns; or, with *out NULL and a one-line reason in
 * errbuf, a negative enum err_code (common/err.h): ERR_USAGE when the
 * request cannot work on any interface (a filter that does not compile, a
 * queue too small for the snaplen, a bad socket count or fanout mode),
 * ERR_SYSTEM when the system refuses (no such interface, no permission,
 * the interface is down, a socket option), ERR_NOMEM.
 */
int ring_open(const struct ring_config *cfg, struct ring **out, char *errbuf, size_t errlen);

/* Start the reader threads. 0 or ERR_SYSTEM (errbuf filled). */
int ring_start(struct ring *r, char *errbuf, size_t errlen);

/*
 * Ask the readers to stop. Each keeps reading for two block timeouts (so the
 * TPACKET_V3 block being filled is retired and handed over), then detaches
 * its socket from traffic, drains the kernel ring into its queue, takes the
 * final pcap_stats and ends. Safe to call more than once; returns at once.
 */
void ring_request_stop(struct ring *r);

/*
 * Take the packet with the smallest timestamp among the queue heads,
 * waiting up to timeout_ms for one. Returns 1 with *p filled (p->iface and
 * *sock = the socket index; p->queue with PKT_HAVE_QUEUE in QM fanout mode),
 * 0 on timeout, or RING_END. p->data is borrowed until the next ring_next()
 * or ring_close(). Only one thread may call it.
 */
int ring_next(struct ring *r, struct pkt *p, unsigned *sock, int timeout_ms);

/* Counters of socket sock (< ring_nsockets()); readable from any thread. */
void ring_stats(const struct ring *r, unsigned sock, struct ring_sock_stats *out);

/* The counters of every socket together, as a capture reports them. */
struct ring_totals {
	uint64_t captured, kernel_recv, kernel_drops, queue_drops; /* sums over the sockets */
	uint64_t captured_bytes;				   /* the same */
	uint64_t if_drops;   /* the interface's, carried by socket 0 (not a sum) */
	double queue_fill;   /* the fullest hand-off queue now: used / size, 0..1 */
	uint64_t late;	     /* ring_sock_stats.late summed */
	int64_t late_max_ns; /* ... late_max_ns and hold_ns, the largest */
	int64_t hold_ns;
};

/* ring_stats() of every socket into *out; readable from any thread. */
void ring_stats_sum(const struct ring *r, struct ring_totals *out);

unsigned ring_nsockets(const struct ring *r);
uint32_t ring_linktype(const struct ring *r);		 /* LINKTYPE_* of the interface */
int32_t ring_queue(const struct ring *r, unsigned sock); /* queue id of a socket, or -1 */
bool ring_loopback(const struct ring *r);		 /* PACKET_IGNORE_OUTGOING was applied */

struct pw_ifstats;

/*
 * The pcapng ISB counters of socket sock (a pw_stats_fn for
 * capture/pcapwriter; ctx is the ring). isb_ifrecv = ps_recv (passed the
 * filter, drops included); isb_osdrop = ps_drop (tp_drops: the TPACKET
 * ring was full) + the packets dropped because the hand-off queue was full:
 * both "the capturing host could not keep it"; isb_ifdrop = ps_ifdrop, the
 * interface's rx_dropped since the start, carried by socket 0 only (it is
 * per interface, so summing IDBs stays right). So isb_ifrecv - isb_osdrop
 * reached the writer.
 */
void ring_isb(void *ctx, unsigned sock, struct pw_ifstats *out);

struct pw_config;
struct pw_writer;

/*
 * Open a capture/pcapwriter output for what r captures: one IDB per socket
 * (the interface's name and link type, the queue id in QM fanout mode) and
 * ISBs from ring_isb(). cfg says the rest (path, format, snaplen, rotation,
 * comment). NULL with a reason in errbuf, as pw_open(). The caller owns the
 * writer, and must close it before ring_close(r).
 */
struct pw_writer *ring_pw_open(struct ring *r, const struct pw_config *cfg, char *errbuf,
			       size_t errlen);

/* The first reader error ("eth0: The interface went down"), or NULL. */
const char *ring_error(const struct ring *r);

/* Stop and join the readers, close the handles, free. NULL is a no-op. */
void ring_close(struct ring *r);

/* "qm", "cpu", "hash"; ring_fanout_parse returns RING_FANOUT_COUNT if unknown. */
const char *ring_fanout_name(enum ring_fanout m);
enum ring_fanout ring_fanout_parse(const char *s);

/* Default kernel buffer, total over all sockets: min(256 MiB, MemAvailable / 8). */
uint64_t ring_default_buffer_bytes(void);

#endif
