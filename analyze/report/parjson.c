/* parjson.c - report items (JSON values, text lines) rendered by several threads, in order. */
#include "analyze/report/parjson.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "analyze/report/jsonout.h"
#include "common/waitq.h"

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

/*
 * The threads of one pj_for() / pj_write() call, started once and handed
 * each round: rounds are short (a round's buffers stay in the caches;
 * rendering into megabytes of buffer missed them and cost three times
 * the instructions' time), so a thread a round would cost more than the
 * round.
 */
struct pj_pool {
	/* Rounds follow each other within microseconds: the threads wait
	 * by looking before they sleep (common/waitq.h). */
	struct waitq go, done;
	struct pj_round *r;
	uint64_t gen;	  /* rounds handed out (go) */
	uint64_t through; /* rounds finished by a started thread, all rounds (done) */
	unsigned n;	  /* threads started, the caller's not counted */
	bool ready;	  /* go and done are initialised */
	pthread_t id[PJ_MAX_THREADS];
};

struct pj_arg {
	struct pj_pool *p;
	unsigned index;
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
	struct pj_pool *p = ((struct pj_arg *)arg)->p;
	unsigned t = ((struct pj_arg *)arg)->index;
	uint64_t seen = 0;

	for (;;) {
		if (!waitq_wait(&p->go, &p->gen, seen + 1))
			return NULL; /* pool_stop() */
		seen++;
		take(p->r, t);
		waitq_add(&p->done, &p->through, seen * p->n);
	}
}

/* Up to nthreads - 1 threads beside the caller's; how many threads in all
 * take part (1: none could start, or no memory). */
static unsigned pool_start(struct pj_pool *p, struct pj_arg *args, unsigned nthreads)
{
	*p = (struct pj_pool){0};
	if (waitq_init(&p->go, nthreads) < 0)
		return 1;
	if (waitq_init(&p->done, nthreads) < 0) {
		waitq_destroy(&p->go);
		return 1;
	}
	p->ready = true;
	for (unsigned t = 1; t < nthreads; t++) {
		args[p->n] = (struct pj_arg){.p = p, .index = p->n + 1};
		if (pthread_create(&p->id[p->n], NULL, thread_main, &args[p->n]) != 0)
			break;
		p->n++;
	}
	return p->n + 1;
}

static void pool_stop(struct pj_pool *p)
{
	if (!p->ready)
		return;
	waitq_quit(&p->go);
	for (unsigned t = 0; t < p->n; t++)
		pthread_join(p->id[t], NULL);
	waitq_destroy(&p->done);
	waitq_destroy(&p->go);
}

/* One round on the pool's threads and the caller's. */
static void round_run(struct pj_pool *p, struct pj_round *r)
{
	r->next = 0;
	p->r = r; /* published by the store of gen */
	waitq_store(&p->go, &p->gen, p->gen + 1);
	take(r, 0);
	waitq_wait(&p->done, &p->through, p->gen * p->n);
}

static unsigned threads_for(size_t n, unsigned nthreads)
{
	if (n < PJ_MIN_ITEMS || nthreads <= 1)
		return 1;
	return nthreads > PJ_MAX_THREADS ? PJ_MAX_THREADS : nthreads;
}

/* Threads for n items: the pool started and the round's items array; how
 * many threads take part, 1 when none (too few items, one asked for, no
 * memory): then nothing is held and the caller loops alone. */
static unsigned rounds_open(struct pj_pool *p, struct pj_arg *args, struct pj_round *r, size_t n,
			    unsigned nthreads)
{
	nthreads = threads_for(n, nthreads);
	if (nthreads == 1 || !(r->items = malloc(PJ_ROUND * sizeof(*r->items))))
		return 1;
	if ((nthreads = pool_start(p, args, nthreads)) == 1) {
		pool_stop(p);
		free(r->items);
		r->items = NULL;
	}
	return nthreads;
}

static void rounds_close(struct pj_pool *p, struct pj_round *r)
{
	pool_stop(p);
	free(r->items);
}

/* Items [0, n) to r->work, a round of PJ_ROUND at a time: item() for each
 * on the caller's thread, then the round on every thread; after(actx)
 * once a round is through, false to stop (NULL: go on). */
static void rounds_run(struct pj_pool *p, struct pj_round *r, size_t n, pj_item_fn *item,
		       void *ictx, bool (*after)(void *actx), void *actx)
{
	for (r->base = 0; r->base < n; r->base += r->n) {
		r->n = n - r->base < PJ_ROUND ? n - r->base : PJ_ROUND;
		for (size_t j = 0; j < r->n; j++)
			r->items[j] = item(ictx, r->base + j);
		round_run(p, r);
		if (after && !after(actx))
			return;
	}
}

/* ---- pj_for ---- */

unsigned pj_for(size_t n, unsigned nthreads, pj_item_fn *item, pj_work_fn *work, void *ctx)
{
	struct pj_round r = {.work = work, .ctx = ctx};
	struct pj_pool pool;
	struct pj_arg args[PJ_MAX_THREADS];
	unsigned used = rounds_open(&pool, args, &r, n, nthreads);

	if (used == 1) {
		for (size_t k = 0; k < n; k++)
			work(ctx, 0, k, item(ctx, k));
		return 1;
	}
	rounds_run(&pool, &r, n, item, ctx, NULL, NULL);
	rounds_close(&pool, &r);
	return used;
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
	const struct pj_round *r; /* the round: its first item, its size */
	struct pj_out *out;	  /* PJ_ROUND */
	struct jo_writer *w;	  /* one a thread */
	unsigned nthreads;
	struct jo_writer *dst; /* the caller's: where the items go, in order */
	size_t n;	       /* items in all */
	const char *sep;
};

static void render_one(void *ctx, unsigned t, size_t k, const void *item)
{
	struct pj_render *x = ctx;
	struct jo_writer *w = &x->w[t];
	size_t off = w->b.len;

	x->render(x->ctx, w, item);
	x->out[k - x->r->base] = (struct pj_out){
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

/* A round's items into the caller's writer, in order, up to the first
 * error; the threads' buffers emptied for the next. Whether to go on. */
static bool splice(void *ctx)
{
	struct pj_render *x = ctx;
	struct jo_writer *w = x->dst;

	for (size_t j = 0; j < x->r->n && !w->err; j++) {
		const struct pj_out *o = &x->out[j];
		jo_w_splice(w, x->w[o->thread].b.p + o->off, o->len, o->err);
		if (w->err)
			break;
		if (x->r->base + j + 1 < x->n)
			jo_w_raw(w, x->sep);
		jo_w_commit(w);
	}
	for (unsigned t = 0; t < x->nthreads; t++)
		x->w[t].b.len = 0;
	return !w->err;
}

int pj_write(struct jo_writer *w, size_t n, unsigned nthreads, const char *sep, pj_item_fn *item,
	     pj_render_fn *render, void *ctx)
{
	struct pj_render x = {.render = render, .ctx = ctx, .dst = w, .n = n, .sep = sep};
	struct pj_round r = {.work = render_one, .ctx = &x};
	struct pj_pool pool;
	struct pj_arg args[PJ_MAX_THREADS];
	unsigned used = w->err ? 1 : rounds_open(&pool, args, &r, n, nthreads);

	if (used > 1) {
		x.out = malloc(PJ_ROUND * sizeof(*x.out));
		x.w = calloc(used, sizeof(*x.w));
		if (!x.out || !x.w) {
			free(x.out);
			free(x.w);
			rounds_close(&pool, &r);
			used = 1;
		}
	}
	if (used == 1)
		return sequential(w, n, sep, item, render, ctx);
	x.r = &r;
	x.nthreads = used;
	for (unsigned t = 0; t < used; t++)
		jo_w_init(&x.w[t], NULL, 0, w->indent);
	rounds_run(&pool, &r, n, item, ctx, splice, &x);
	rounds_close(&pool, &r);
	for (unsigned t = 0; t < used; t++)
		jo_w_free(&x.w[t]);
	free(x.out);
	free(x.w);
	return w->err;
}
