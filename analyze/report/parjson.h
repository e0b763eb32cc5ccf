/* parjson.h - report items (JSON values, text lines) rendered by several threads, in order. */
#ifndef TCPSIFT_PARJSON_H
#define TCPSIFT_PARJSON_H

#include <stddef.h>

struct jo_writer;

/* Item k of the sequence (called on the caller's thread, in order). */
typedef const void *pj_item_fn(void *ctx, size_t k);
/* An item as one top-level value into w. Called from any of the threads at
 * once: it may read ctx and the item, never change them, and its bytes
 * must not depend on the writer (a fresh one at depth 0 writes the same). */
typedef void pj_render_fn(void *ctx, struct jo_writer *w, const void *item);

/*
 * Items [0, n) through w, sep between two, exactly as the loop
 *
 *   for (k = 0; k < n && !w->err; k++) {
 *       render(ctx, w, item(ctx, k));
 *       if (k + 1 < n) jo_w_raw(w, sep);
 *       jo_w_commit(w);
 *   }
 *
 * writes them, an error included: the report's connections and events,
 * the most of its time. With nthreads > 1 a round of PJ_ROUND items is
 * taken (item() for each, so a window of items may be all that is in
 * memory), rendered by up to nthreads threads, each item into the buffer
 * of the thread that took it, and spliced into w in order. Returns w's
 * error (0: none).
 */
enum { PJ_ROUND = 64, PJ_MAX_THREADS = 16 };
int pj_write(struct jo_writer *w, size_t n, unsigned nthreads, const char *sep, pj_item_fn *item,
	     pj_render_fn *render, void *ctx);

/* Item k's work on thread `thread` (< nthreads, at most PJ_MAX_THREADS):
 * what it keeps goes to the thread's own place (a sum, a maximum). */
typedef void pj_work_fn(void *ctx, unsigned thread, size_t k, const void *item);

/* work() on items [0, n), in rounds of PJ_ROUND as pj_write() takes them,
 * by up to nthreads threads; in no order. Returns how many threads took
 * part (the places to fold): 1 when nthreads <= 1 or n is small. */
unsigned pj_for(size_t n, unsigned nthreads, pj_item_fn *item, pj_work_fn *work, void *ctx);

#endif
