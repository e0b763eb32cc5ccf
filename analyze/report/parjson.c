/* parjson.c - report items rendered by several threads (JSON values, text lines), written in order.
 */
#include "analyze/report/parjson.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "analyze/report/jsonout.h"

/* Fewer items than this are not worth a thread. */
enum { PJ_MIN_ITEMS = 64 };

/* A round: items fetched on the caller's thread, worked on by several. */
struct pj_round {
	pj_work_fn *work;
	void *ctx;
	const void **items; /* PJ_ROUND */
	size_t base, n;	    /* items [base, base + n) of the sequence */
	size_t next;	    /* the next to take: taken atomically */
};

struct pj_thread {
	struct pj_round *r;
	unsigned index;
	pthread_t id;
};

/* Items one at a time, whichever is next: items differ in size by far
 * (a connection with a thousand stalls beside one with none). */
static void take(struct pj_round *r, unsigned t)
{
	for (;;) {
		size_t j = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED);
		if (j >= r->n)
			return;
		r->work(r->ctx, t, r->base + j, r->items[j]);
	}
}

static void *thread_main(void *arg)
{
	struct pj_thread *th = arg;

	take(th->r, th->index);
	return NULL;
}

/* One round on nthreads threads, the caller's among them. A thread that
 * cannot start leaves its share to the others. */
static void round_run(struct pj_round *r, unsigned nthreads)
{
	struct pj_thread th[PJ_MAX_THREADS];
	bool started[PJ_MAX_THREADS] = {false};

	r->next = 0;
	for (unsigned t = 1; t < nthreads; t++) {
		th[t] = (struct pj_thread){.r = r, .index = t};
		started[t] = pthread_create(&th[t].id, NULL, thread_main, &th[t]) == 0;
	}
	take(r, 0);
	for (unsigned t = 1; t < nthreads; t++)
		if (started[t])
			pthread_join(th[t].id, NULL);
}

static unsigned threads_for(size_t n, unsigned nthreads)
{
	if (n < PJ_MIN_ITEMS || nthreads <= 1)
		return 1;
	return nthreads > PJ_MAX_THREADS ? PJ_MAX_THREADS : nthreads;
}

/* ---- pj_for ---- */

unsigned pj_for(size_t n, unsigned nthreads, pj_item_fn *item, pj_work_fn *work, void *ctx)
{
	struct pj_round r = {.work = work, .ctx = ctx};

	nthreads = threads_for(n, nthreads);
	if (nthreads > 1 && !(r.items = malloc(PJ_ROUND * sizeof(*r.items))))
		nthreads = 1;
	if (nthreads == 1) {
		for (size_t k = 0; k < n; k++)
			work(ctx, 0, k, item(ctx, k));
		return 1;
	}
	for (r.base = 0; r.base < n; r.base += r.n) {
		r.n = n - r.base < PJ_ROUND ? n - r.base : PJ_ROUND;
		for (size_t j = 0; j < r.n; j++)
			r.items[j] = item(ctx, r.base + j);
		round_run(&r, nthreads);
	}
	free(r.items);
	return nthreads;
}

/* ---- pj_write ---- */

/* Where item k of a round went: its thread's buffer, from off. */
struct pj_out {
	size_t off, len; /* len: up to its writer's error, if any */
	int err;
	unsigned thread;
};

struct pj_render {
	pj_render_fn *render;
	void *ctx;
	size_t base;	     /* the round's first item */
	struct pj_out *out;  /* PJ_ROUND */
	struct jo_writer *w; /* one a thread */
};

static void render_one(void *ctx, unsigned t, size_t k, const void *item)
{
	struct pj_render *x = ctx;
	struct jo_writer *w = &x->w[t];
	size_t off = w->b.len;

	x->render(x->ctx, w, item);
	x->out[k - x->base] = (struct pj_out){
	    .off = off, .len = (w->err ? w->err_at : w->b.len) - off, .err = w->err, .thread = t};
	/* An item's error is its own: the next starts clean, as it would
	 * after the caller's writer stopped. */
	w->err = 0;
	w->err_at = 0;
}

static int sequential(struct jo_writer *w, size_t n, const char *sep, pj_item_fn *item,
		      pj_render_fn *render, void *ctx)
{
	for (size_t k = 0; k < n && !w->err; k++) {
		render(ctx, w, item(ctx, k));
		if (k + 1 < n)
			jo_w_raw(w, sep);
		jo_w_commit(w);
	}
	return w->err;
}

/* A round's items into w, in order, up to the first error. */
static void splice(struct jo_writer *w, const struct pj_render *x, size_t m, size_t n,
		   const char *sep)
{
	for (size_t j = 0; j < m && !w->err; j++) {
		const struct pj_out *o = &x->out[j];
		jo_w_splice(w, x->w[o->thread].b.p + o->off, o->len, o->err);
		if (w->err)
			break;
		if (x->base + j + 1 < n)
			jo_w_raw(w, sep);
		jo_w_commit(w);
	}
}

int pj_write(struct jo_writer *w, size_t n, unsigned nthreads, const char *sep, pj_item_fn *item,
	     pj_render_fn *render, void *ctx)
{
	struct pj_render x = {.render = render, .ctx = ctx};
	struct pj_round r = {.work = render_one, .ctx = &x};

	nthreads = threads_for(n, nthreads);
	if (nthreads == 1 || w->err)
		return sequential(w, n, sep, item, render, ctx);
	r.items = malloc(PJ_ROUND * sizeof(*r.items));
	x.out = malloc(PJ_ROUND * sizeof(*x.out));
	x.w = calloc(nthreads, sizeof(*x.w));
	if (!r.items || !x.out || !x.w) {
		free(r.items);
		free(x.out);
		free(x.w);
		return sequential(w, n, sep, item, render, ctx);
	}
	for (unsigned t = 0; t < nthreads; t++)
		jo_w_init(&x.w[t], NULL, 0, w->indent);
	for (r.base = 0; r.base < n && !w->err; r.base += r.n) {
		r.n = n - r.base < PJ_ROUND ? n - r.base : PJ_ROUND;
		for (size_t j = 0; j < r.n; j++)
			r.items[j] = item(ctx, r.base + j);
		for (unsigned t = 0; t < nthreads; t++)
			x.w[t].b.len = 0;
		x.base = r.base;
		round_run(&r, nthreads);
		splice(w, &x, r.n, n, sep);
	}
	for (unsigned t = 0; t < nthreads; t++)
		jo_w_free(&x.w[t]);
	free(r.items);
	free(x.out);
	free(x.w);
	return w->err;
}
