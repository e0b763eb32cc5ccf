/* workers.h - one reader, N engines on N threads, one result stream as from one engine. */
#ifndef TCPSIFT_WORKERS_H
#define TCPSIFT_WORKERS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/counters.h"
#include "analyze/engine/engine.h"
#include "analyze/engine/summary.h"
#include "common/pkt.h"

/*
 * --threads N. The caller's thread copies each packet's bytes into a batch
 * for N worker threads, each with its own engine (engine.h), that decode
 * and analyse them; a connection's packets all go to one worker, chosen by a
 * symmetric hash of the 4-tuple (read by dec_peek_tuple(), a full decode
 * only when it is unsure). The reader keeps the stream's clock and
 * has every worker sweep where one engine would (eng_clock_step), so
 * connections end idle exactly when they would in one engine. What the workers deliver is merged
 * back in the order one engine would have delivered it, with the ids one engine would have given
 * (first-packet order), so the sink sees the same calls with the same
 * arguments whatever N is -- as long as no connection is evicted: each
 * worker's table holds max_flows / N connections, and which connection an
 * over-full table evicts depends on the table.
 *
 * The pool owns the threads, their engines and the batches in flight
 * (WK_BATCH packets x 4 batches, 16 with wk_keep(), their bytes, and the
 * results of those batches); the sink is called from the caller's thread only, inside
 * wk_packet(), wk_flush(), wk_sync() and wk_finish(). With N == 1 there is
 * no thread: packets go straight to one engine.
 *
 * Live views (the TUI, capture --analyze): packets wait in a batch until
 * it is full; wk_flush() hands a partial one over (a slow capture's
 * latency), wk_sync() also waits for the workers, after which the sink has
 * had every result up to the last packet and the live connections and
 * counters are those one engine would show there.
 */

struct wk_pool;

/* NULL with a one-line reason in errbuf (memory, threads, an engine). */
struct wk_pool *wk_new(const struct eng_config *cfg, unsigned nthreads, const struct sum_sink *sink,
		       char *errbuf, size_t errlen);

/* As eng_packet(): p and its bytes are only borrowed for the call (but
 * see wk_keep()). */
void wk_packet(struct wk_pool *w, const struct pkt *p);

/*
 * The packets' bytes stay in place until release(ctx, g) says no packet
 * read while *gen was below g is in use (src_keep()): the workers read
 * them there, nobody copies them. The reader calls release as batches are
 * merged; without --max-memory (eng_config.max_memory) 16 batches are
 * then in flight, not 4. With one thread, packets then
 * wait a few deep (workers_ahead.c: decoded, their connections loaded
 * early, when many are live).
 */
void wk_keep(struct wk_pool *w, const uint64_t *gen, void (*release)(void *ctx, uint64_t g),
	     void *ctx);

/* End of input: every packet handed in is analysed, every connection
 * delivered; the threads are gone after it. */
void wk_finish(struct wk_pool *w);

/* Hand the batch being filled to the workers now; deliver the results of
 * those that are through, without waiting. */
void wk_flush(struct wk_pool *w);

/* wk_flush(), then wait for every batch handed over and deliver its results. */
void wk_sync(struct wk_pool *w);

/* Summaries of the connections live now (eng_foreach_live(), with the
 * run's ids), after wk_sync(); called in the caller's thread. */
void wk_foreach_live(const struct wk_pool *w, void (*fn)(void *ctx, const struct sum_conn *c),
		     void *ctx);

/* The run's counters, as one engine's (after wk_sync() or wk_finish()). */
void wk_counters(const struct wk_pool *w, struct eng_counters *eng, struct flow_counters *flows);

/* Connections live now, as far as the results merged so far tell. */
uint32_t wk_live_connections(const struct wk_pool *w);

void wk_free(struct wk_pool *w); /* NULL is a no-op; stops the threads */

/* What nthreads reading threads hold whatever the traffic: the batches
 * in flight and the results buffers kept between them (0 for one thread,
 * which has none). For --max-memory (cli/membudget.h). */
size_t wk_fixed_bytes(unsigned nthreads);

/* --threads 0: the number of CPUs this process may run on, at most WK_MAX. */
unsigned wk_default_threads(void);

#define WK_MAX 64

#endif
