/* ring_int.h - the live capture's state, shared by its setup, reader, merge and stats parts. */
#ifndef TCPSIFT_RING_INT_H
#define TCPSIFT_RING_INT_H

#include <net/if.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "capture/live/ring.h"
#include "common/clock.h"
#include "common/err.h"

/*
 * The capture in five parts, one per role (the picture is in ring.h):
 *
 *   ring.c         the lifecycle: checks, queues, open -> start -> stop -> close
 *   ring_socket.c  one libpcap handle (create -> set -> activate -> filter) and fanout
 *   ring_reader.c  the producer: a reader thread per socket, kernel ring -> queue
 *   ring_merge.c   the consumer: queues -> ring_next() in time order, and the wake-up
 *   ring_stats.c   the counters: pcap_stats into 64-bit sums, per socket and as ISBs
 *
 * A queue word is written by one side only: head, the records and the
 * counters by the reader thread; tail by the consumer.
 */

/* Queue record header (see the picture in ring.h). */
struct ring_rec {
	int64_t ts_ns;
	uint32_t caplen; /* RING_SKIP: skip len bytes to the buffer's end */
	uint32_t wirelen;
	uint32_t len; /* whole record, header included, multiple of 8 */
	uint32_t dir; /* enum pkt_dir, PKT_DIR_UNKNOWN when it cannot be told */
};

#define RING_REC_HDR   ((uint64_t)sizeof(struct ring_rec))
#define RING_SKIP      UINT32_MAX
#define RING_ALIGN8(x) (((x) + 7u) & ~(uint64_t)7u)

/* A busy reader (or consumer) naps this long when it finds nothing, up to
 * RING_BUSY_NAPS times in a row before sleeping until woken. */
#define RING_NAP_NS    1000000l
#define RING_BUSY_NAPS 20
/* The most a socket's late packets lengthen the merge's wait
 * (ring_reader_late()): the other sockets' queues hold that much more. */
#define RING_HOLD_MAX_NS (100 * 1000000LL)

/*
 * One socket, its reader thread and its queue. The producer-owned and
 * consumer-owned words sit on separate cache lines so the two threads do
 * not bounce one line per packet.
 */
struct ring_reader {
	struct ring *r;
	unsigned idx;
	pcap_t *h;
	int fd;
	bool nano; /* timestamps in ns (PCAP_TSTAMP_PRECISION_NANO took) */
	pthread_t thread;
	bool started;
	uint8_t *buf; /* queue storage, size bytes (a power of two) */
	uint64_t size, mask;

	/* Producer (reader thread) side. */
	_Alignas(64) _Atomic uint64_t head; /* bytes ever written */
	uint64_t phead;			    /* private copy of head */
	uint64_t tail_seen;		    /* last tail read from the consumer */
	uint64_t n_captured, n_qdrops, n_capbytes;
	uint64_t n_early;		   /* skipped: stamped before start_ns */
	int64_t last_ts;		   /* timestamp of the last packet queued */
	int64_t high_ts;		   /* ... the latest one queued */
	int64_t margin_ns;		   /* the watermark's margin learned from late packets */
	uint64_t n_late;		   /* packets below what the socket had vouched for */
	int64_t n_late_max;		   /* ... by up to this many ns */
	bool overflow;			   /* the last wait for room timed out */
	struct pcap_stat last;		   /* previous pcap_stats, for 32-bit wrap */
	uint64_t k_recv, k_drop, k_ifdrop; /* 64-bit sums of the deltas */

	/* Consumer (ring_next) side. */
	_Alignas(64) _Atomic uint64_t tail; /* bytes ever consumed */
	uint64_t ctail;			    /* private copy of tail */
	uint64_t head_seen;

	/* Published counters, read by ring_stats() from any thread. */
	_Alignas(64) _Atomic uint64_t captured, queue_drops, kernel_recv, kernel_drops, if_drops;
	_Atomic uint64_t captured_bytes;
	_Atomic uint64_t late;
	_Atomic int64_t late_max_ns, hold_ns;
	_Atomic int done; /* set (release) after the last record and the final stats */
	/* Capture time (ns) before which this socket will deliver nothing more
	 * (see ring_reader_watermark); stored (release) after the records. */
	_Atomic int64_t watermark;
	char err[PCAP_ERRBUF_SIZE + IFNAMSIZ + 8];
};

struct ring {
	struct ring_config cfg;
	char iface[IFNAMSIZ + 1];
	unsigned n;
	uint32_t linktype;
	bool loopback;
	bool qm;       /* QM fanout with N > 1: socket index = queue id */
	bool have_mac; /* Ethernet: the interface's own address, for direction */
	uint8_t mac[6];
	int64_t base_ns;  /* when the counters' baseline was taken */
	int64_t start_ns; /* packets stamped earlier predate the fanout group: dropped */
	_Atomic int stop;
	/* Consumer wake-up: it sleeps on `wake` (a futex word) when every queue
	 * is empty, with `sleeping` set; a reader that queued packets bumps
	 * `wake` and wakes it (see ring_wait_for_packets). */
	_Atomic uint32_t wake;
	_Atomic int sleeping;
	unsigned naps;		/* consumer: empty looks in a row (ring_wait_for_packets) */
	struct ring_reader *rd; /* n readers, 64-byte aligned */
	int pending;		/* reader whose head record ring_next handed out, or -1 */
	uint64_t pending_len;
	uint64_t frames;
};

/* ---- ring_socket.c ------------------------------------------------------------ */

/* create -> set -> activate rd's handle on r->cfg.iface (libpcap's order),
 * then r->cfg.filter. 0, or with errbuf filled ERR_USAGE (the filter does
 * not compile) or ERR_SYSTEM. */
int ring_open_handle(struct ring *r, struct ring_reader *rd, char *errbuf, size_t errlen);

/* Join every socket of r to one fanout group. 0, or ERR_SYSTEM with errbuf filled. */
int ring_join_fanout(struct ring *r, char *errbuf, size_t errlen);

/* The interface's own Ethernet address into mac; false if it has none. */
bool ring_own_mac(int fd, const char *iface, uint8_t mac[6]);

/* LINKTYPE_* for a DLT_*. */
uint32_t ring_dlt_to_linktype(int dlt);

/* ---- ring_reader.c ------------------------------------------------------------ */

/* A reader thread (pthread_create's start routine; arg is its struct ring_reader). */
void *ring_reader_main(void *arg);

/* ---- ring_merge.c ------------------------------------------------------------- */

/* After a reader queued packets (or ended): wake the consumer if it sleeps. */
void ring_wake_consumer(struct ring *r);

/* ---- ring_stats.c ------------------------------------------------------------- */

/* Refresh rd's kernel counters from pcap_stats() and publish them (reader thread). */
void ring_reader_stats(struct ring_reader *rd);

#endif
