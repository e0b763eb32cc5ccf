/* workers_int.h - internal to --threads N: what its pieces (workers*.c) share. */
#ifndef TCPSIFT_WORKERS_INT_H
#define TCPSIFT_WORKERS_INT_H

/*
 * Internal: only analyze/engine/workers*.c include this; the contract is
 * workers.h. One module in three files:
 *
 *   workers.c        the reader's side: batches, routing each packet to
 *                    its engine, the worker threads, the results they
 *                    record, the pool's life and counters
 *   workers_merge.c  the caller's side: the id map and the merge that
 *                    rebuilds one engine's order from the workers' results
 *   workers_ahead.c  --threads 1: packets decoded a few ahead, their
 *                    connections loaded early
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/decode.h"
#include "analyze/engine/workers.h"
#include "common/waitq.h"

enum {
	WK_BATCH = 512, /* packets a batch: one hand-off per worker (waitq.h) */
	WK_SLOTS = 4,	/* batches in flight (wk_fixed_bytes(): copies, --max-memory) */
	/* ... when the reader keeps the packets in place and no --max-memory
	 * bounds the run (wk_keep()): the reader's stalls (a read(), a page
	 * fault, the host taking the CPU) and the workers' are absorbed by a
	 * deeper queue (--threads 2 0.94x the time, paired medians of 21). */
	WK_SLOTS_DEEP = 16,
	/* A batch's packet bytes: 512 full-size Ethernet frames. (2048-packet
	 * batches cost the reader some 7 % less CPU in wake-ups, but the
	 * results of 4 such batches in flight put --threads 2 35 MiB over one
	 * thread on tests/scale's SYN flood, beyond its bound of 32.) */
	WK_BYTES = 1024 * 1024,
	/* A batch's results can be large (a sweep ending thousands of
	 * connections, 1.6 KB a summary); a buffer grown beyond this goes back
	 * to it once merged, so memory follows live connections, not bursts. */
	WK_OUT_KEEP = 256 * 1024,
	WK_NOBODY = UINT32_MAX,
	/* How far ahead of its packet a worker loads (own packets). */
	WK_AHEAD_ENTRY = 12,
	WK_AHEAD_SLOT = 8,
	WK_AHEAD_CONN = 4,
	WK_AHEAD_STATE = 2,    /* ... the blocks the connection points to */
	WK_AHEAD = 8,	       /* --threads 1: packets decoded ahead (workers_ahead.c) */
	WK_AHEAD_CHECK = 1024, /* ... whether worth it, looked at every so many */
};

enum wk_phase { WK_SWEEP = 0, WK_OWN, WK_END };
enum wk_kind { WK_BEGIN = 0, WK_EVENT, WK_SEG, WK_CONN, WK_FORGET };

/* One result, followed by its struct sum_event, sum_seg or sum_conn. */
struct wk_rec {
	uint32_t entry; /* packet index in the batch */
	uint8_t phase, kind;
	uint32_t size; /* of the whole record, a multiple of 8 */
	uint64_t id;   /* WK_BEGIN, WK_FORGET: the worker's id of the connection */
};

/* Cache lines: what one thread writes for every packet or record never
 * shares a line with what another thread reads or writes (wk_line_alloc()). */
#define WK_LINE 64

struct wk_buf {
	unsigned char *p;
	size_t len, cap;
} __attribute__((aligned(WK_LINE))); /* each worker's out[k], written per record */

/* A packet of a batch, written by the reader only: its owner reads it
 * (lines the owner wrote too would go back and forth between the cores
 * each batch). */
struct wk_entry {
	struct pkt p;  /* data: a copy in the slot's bytes */
	uint64_t ends; /* route()'s flow_ends_hash(), when tcp */
	bool tcp;      /* ends is the connection's if the packet decodes as TCP */
};

/* What the owner makes of its j-th packet of the batch, in its own array:
 * dec_packet()'s status (or WK_OTHER_SHARD), its eng_prefetch_slot(), what
 * it decoded. */
struct wk_dec {
	int32_t status;
	uint32_t hash;
	struct dec_packet d;
};

/* --threads 1's packets decoded ahead (workers_ahead.c): the packet (its
 * bytes where the reader left them), the reader's counter it was read
 * under, what its decode found. */
struct wk_ahead {
	struct pkt p;
	uint64_t gen;
	struct wk_dec x;
};

/* An entry's status when --shard K/N leaves it to another shard. */
#define WK_OTHER_SHARD INT32_MIN

struct wk_sweep {
	uint32_t entry; /* sweep before this packet */
	int64_t now;
};

/* A worker reads only its own packets and the sweeps: not every entry. */
struct wk_slot {
	struct wk_entry *e; /* WK_BATCH */
	uint32_t n;
	unsigned char *bytes; /* the packets' bytes: the reader copies, workers decode */
	size_t used, cap;
	uint32_t *own;		/* worker k's packets: own[k * WK_BATCH + j], j < nown[k] */
	uint32_t *nown;		/* [nthreads] */
	struct wk_sweep *sweep; /* WK_BATCH */
	uint32_t nsweep;
	uint64_t first_packet;	     /* the stream ordinal of e[0] (eng_at_packet) */
	uint64_t done;		     /* workers through it (struct waitq: wk_pool.through) */
	uint64_t first_gen;	     /* wk_keep(): *keep_gen at its first packet */
	struct wk_buf *out;	     /* each worker's results, [nthreads] */
} __attribute__((aligned(WK_LINE))); /* the reader fills one while workers read the others */

struct wk_worker {
	struct wk_pool *pool;
	unsigned index;
	struct engine *eng;
	struct wk_dec *dec; /* WK_BATCH: its packets of the batch it works on */
	pthread_t thread;
	bool started;
	/* Where its sink writes now, and the tag of what it writes. */
	struct wk_buf *out;
	uint32_t entry;
	uint8_t phase;
	uint64_t lost;		     /* results dropped: no memory to keep them */
	uint64_t other_shards;	     /* --shard K/N: packets it decoded to another shard */
} __attribute__((aligned(WK_LINE))); /* entry, out: written by its thread per packet */

/* A worker's id of a live connection -> the run's id. */
struct wk_idmap {
	struct {
		uint64_t key; /* worker << 56 | its id; 0 empty */
		uint64_t val;
	} * s;
	size_t mask, n;
};

struct wk_pool {
	unsigned n;
	/* route(): hashes below reader_cut (of 65536) go to worker 0, the
	 * rest spread over the others by route_mult. */
	uint32_t reader_cut;
	uint64_t route_mult;
	struct eng_config cfg;
	struct sum_sink sink;
	struct engine *single; /* n == 1: no threads */
	struct wk_worker *w;
	struct wk_slot slot[WK_SLOTS_DEEP];
	uint32_t slot_mask; /* batches in flight - 1: WK_SLOTS or WK_SLOTS_DEEP */
	/* The reader's own, from a line of their own: cur and clock change
	 * with every packet, while the workers read the fields above. */
	struct wk_slot *cur __attribute__((aligned(WK_LINE))); /* being filled */
	uint64_t filled;				       /* batches handed out */
	uint64_t merged; /* batches whose results went to the sink */
	/* Batches handed out, published once the slot is ready (filled,
	 * moved through work: workers wait on it), and each slot's done
	 * (through: the merge waits on it). */
	uint64_t published __attribute__((aligned(WK_LINE))); /* a line of its own: */
	struct waitq work __attribute__((aligned(WK_LINE)));  /* waiters read them */
	struct waitq through __attribute__((aligned(WK_LINE)));
	bool sync_init, finished;
	/* wk_keep(): packets not copied, released as batches are merged. */
	const uint64_t *keep_gen;
	void (*keep_release)(void *ctx, uint64_t g);
	void *keep_ctx;
	/* --threads 1 with wk_keep(): packets waiting, ahead[ahead_head] the
	 * oldest; the counter last released. */
	struct wk_ahead *ahead;
	unsigned ahead_head, ahead_n;
	bool ahead_on; /* many live: packets wait (ahead is there) */
	uint32_t ahead_seen;
	uint64_t released;
	struct wk_idmap map;
	struct wk_buf drain; /* one connection's results at the end */
	uint64_t next_id;
	uint32_t live, max_live;
	struct eng_clock clock;	 /* the stream's, kept here for every engine */
	struct eng_counters cnt; /* its fields: first_ts, last_ts, ts_backwards */
	uint64_t lost;		 /* results the merge could not map (a bug if ever) */
};

/* A walk through one worker's results. */
struct wk_cursor {
	struct wk_buf *b;
	size_t pos;
};

/* ---- workers_merge.c ---- */

uint64_t wk_map_key(unsigned worker, uint64_t id);
/* The run's id of key, 0 if none. */
uint64_t wk_map_get(const struct wk_idmap *m, uint64_t key);
/* Hand one result of worker to the sink, its connection id mapped. */
void wk_emit(struct wk_pool *w, unsigned worker, struct wk_rec *r);
/* The record at the cursor, NULL at the end. */
struct wk_rec *wk_cur_rec(const struct wk_cursor *c);
/* Every worker is through slot s: its results to the sink, in order. */
void wk_merge_slot(struct wk_pool *w, struct wk_slot *s);

/* ---- workers_ahead.c: --threads 1 ---- */

/* Take the look-ahead (w->single, keep_gen set); without memory for it
 * packets go straight to the engine, their buffers released as read. */
void wk_ahead_start(struct wk_pool *w);
/* p to wait with the packets waiting (ahead_on, or some wait), the oldest
 * to the engine when WK_AHEAD wait. */
void wk_ahead_packet(struct wk_pool *w, const struct pkt *p);
/* Packets went straight to the engine (wk_packet() calls it when the
 * reader's counter moved, and every WK_AHEAD_CHECK packets): the buffers
 * of those read before released, and whether packets should wait now. */
void wk_ahead_passed(struct wk_pool *w);
/* Every waiting packet to the engine. */
void wk_ahead_flush(struct wk_pool *w);

#endif
