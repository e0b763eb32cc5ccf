/* parjson.c - a sequence of JSON values rendered by several threads, written in order. */
#include "analyze/report/parjson.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "analyze/report/jsonout.h"

enum {
	PJ_MAX_THREADS = 16,
	/* Fewer items than this are not worth a thread. */
	PJ_MIN_ITEMS = 64,
};

/* Where item k of a round went: its thread's buffer, from off. */
struct pj_out {
	size_t off, len; /* len: up to its writer's error, if any */
	int err;
	unsigned thread;
};

struct pj_round {
	pj_render_fn *render;
	void *ctx;
	const void **items; /* PJ_ROUND */
	struct pj_out *out; /* PJ_ROUND */
	size_t n;
	size_t next;	     /* the next item to take: taken atomically */
	struct jo_writer *w; /* one a thread; index 0 is the caller's */
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
	struct jo_writer *w = &r->w[t];

	for (;;) {
		size_t k = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED);
		if (k >= r->n)
			return;
		size_t off = w->b.len;
		r->render(r->ctx, w, r->items[k]);
		r->out[k] = (struct pj_out){.off = off,
					    .len = (w->err ? w->err_at : w->b.len) - off,
					    .err = w->err,
					    .thread = t};
		/* An item's error is its own: the next starts clean, as it
		 * would after the caller's writer stopped. */
		w->err = 0;
		w->err_at = 0;
	}
}

static void *thread_main(void *arg)
{
	struct pj_thread *th = arg;

	take(th->r, th->index);
	return NULL;
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

/* One round: items [base, base + r->n) rendered, then spliced in order. */
static void round_run(struct jo_writer *w, struct pj_round *r, struct pj_thread *th,
		      unsigned nthreads, size_t base, size_t n, const char *sep)
{
	bool started[PJ_MAX_THREADS] = {false};

	r->next = 0;
	for (unsigned t = 0; t < nthreads; t++)
		r->w[t].b.len = 0;
	/* A thread that cannot start leaves its share to the others. */
	for (unsigned t = 1; t < nthreads; t++) {
		th[t] = (struct pj_thread){.r = r, .index = t};
		started[t] = pthread_create(&th[t].id, NULL, thread_main, &th[t]) == 0;
	}
	take(r, 0);
	for (unsigned t = 1; t < nthreads; t++)
		if (started[t])
			pthread_join(th[t].id, NULL);
	for (size_t j = 0; j < r->n && !w->err; j++) {
		const struct pj_out *o = &r->out[j];
		jo_w_splice(w, r->w[o->thread].b.p + o->off, o->len, o->err);
		if (w->err)
			break;
		if (base + j + 1 < n)
			jo_w_raw(w, sep);
		jo_w_commit(w);
	}
}

int pj_write(struct jo_writer *w, size_t n, unsigned nthreads, const char *sep, pj_item_fn *item,
	     pj_render_fn *render, void *ctx)
{
	struct pj_round r = {.render = render, .ctx = ctx};
	struct pj_thread th[PJ_MAX_THREADS];

	if (nthreads > PJ_MAX_THREADS)
		nthreads = PJ_MAX_THREADS;
	if (nthreads <= 1 || n < PJ_MIN_ITEMS || w->err)
		return sequential(w, n, sep, item, render, ctx);
	r.items = malloc(PJ_ROUND * sizeof(*r.items));
	r.out = malloc(PJ_ROUND * sizeof(*r.out));
	r.w = calloc(nthreads, sizeof(*r.w));
	if (!r.items || !r.out || !r.w) {
		free(r.items);
		free(r.out);
		free(r.w);
		return sequential(w, n, sep, item, render, ctx);
	}
	for (unsigned t = 0; t < nthreads; t++)
		jo_w_init(&r.w[t], NULL, 0, w->indent);
	for (size_t base = 0; base < n && !w->err; base += r.n) {
		r.n = n - base < PJ_ROUND ? n - base : PJ_ROUND;
		for (size_t j = 0; j < r.n; j++)
			r.items[j] = item(ctx, base + j);
		round_run(w, &r, th, nthreads, base, n, sep);
	}
	for (unsigned t = 0; t < nthreads; t++)
		jo_w_free(&r.w[t]);
	free(r.items);
	free(r.out);
	free(r.w);
	return w->err;
}
