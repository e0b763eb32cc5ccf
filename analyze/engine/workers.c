/* workers.c - --threads N: batches out to N engines, their results merged back in order. */
#include "analyze/engine/workers.h"
#include "analyze/engine/decode.h"
#include "analyze/engine/flow.h"
#include "analyze/engine/shard.h"
#include "analyze/engine/workers_int.h"
#include "common/cpus.h"
#include "common/err.h"
#include "common/grow.h"
#include "common/waitq.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- results ---- */

static void *buf_push(struct wk_worker *me, uint8_t kind, uint64_t id, const void *body, size_t len)
{
	struct wk_buf *b = me->out;
	size_t size = (sizeof(struct wk_rec) + len + 7) & ~(size_t)7;

	if (GROW(b->p, b->cap, b->len + size, 64 * 1024) < 0) {
		me->lost++;
		return NULL;
	}
	struct wk_rec *r = (struct wk_rec *)(b->p + b->len);
	*r = (struct wk_rec){
	    .entry = me->entry, .phase = me->phase, .kind = kind, .size = (uint32_t)size, .id = id};
	if (len)
		memcpy(r + 1, body, len);
	b->len += size;
	return r + 1;
}

static void on_begin(void *ctx, uint64_t id)
{
	buf_push(ctx, WK_BEGIN, id, NULL, 0);
}

static void on_event(void *ctx, const struct sum_event *e)
{
	buf_push(ctx, WK_EVENT, 0, e, sizeof(*e));
}

static void on_segment(void *ctx, const struct sum_seg *g)
{
	buf_push(ctx, WK_SEG, 0, g, sizeof(*g));
}

static void on_conn(void *ctx, const struct sum_conn *c)
{
	buf_push(ctx, WK_CONN, 0, c, sizeof(*c));
}

static void on_forget(void *ctx, uint64_t id)
{
	buf_push(ctx, WK_FORGET, id, NULL, 0);
}

/* ---- threads ---- */

/* The decode of a packet routed here, and the first of the prefetch
 * stages (run_batch): the --shard filter needs the decoded packet. */
static void decode_own(struct wk_worker *me, const struct wk_entry *e, struct wk_dec *x)
{
	const struct eng_config *cfg = &me->pool->cfg;

	x->status = dec_packet(e->p.data, e->p.caplen, e->p.wirelen, e->p.linktype, &x->d);
	if (cfg->shard_n > 1 && shard_of_packet(x->status, &x->d, cfg->shard_n) != cfg->shard_k) {
		x->status = WK_OTHER_SHARD;
		me->other_shards++;
		x->hash = 0;
		return;
	}
	x->hash = eng_prefetch_slot(me->eng, &e->p, x->status, &x->d, e->tcp, e->ends);
}

static void run_batch(struct wk_worker *me, struct wk_slot *s)
{
	const uint32_t *own = s->own + (size_t)me->index * WK_BATCH;
	uint32_t nown = s->nown[me->index], j = 0;
	bool spans = me->pool->cfg.live_spans, deep = eng_prefetch_pays(me->eng);

	me->out = &s->out[me->index];
	for (uint32_t a = 0; a < nown && a < WK_AHEAD_SLOT; a++)
		decode_own(me, &s->e[own[a]], &me->dec[a]);
	/* Its packets and every sweep, merged in packet order; a sweep at a
	 * packet runs before it, as in eng_packet(). */
	for (uint32_t k = 0; k <= s->nsweep; k++) {
		uint32_t until = k < s->nsweep ? s->sweep[k].entry : UINT32_MAX;
		me->phase = WK_OWN;
		for (; j < nown && own[j] < until; j++) {
			struct wk_entry *e = &s->e[own[j]];
			/* Four stages ahead of the packet processed: the entry the
			 * reader wrote on another core, then the connection's index
			 * slot, then the connection itself, then the blocks it
			 * points to (at 200 000 live connections each is a cache
			 * miss). */
			if (j + WK_AHEAD_ENTRY < nown) {
				const char *ahead = (const char *)&s->e[own[j + WK_AHEAD_ENTRY]];
				for (size_t off = 0; off < sizeof(*e); off += 64)
					__builtin_prefetch(ahead + off);
			}
			if (j + WK_AHEAD_SLOT < nown)
				decode_own(me, &s->e[own[j + WK_AHEAD_SLOT]],
					   &me->dec[j + WK_AHEAD_SLOT]);
			if (deep && j + WK_AHEAD_CONN < nown) {
				const struct wk_dec *a = &me->dec[j + WK_AHEAD_CONN];
				eng_prefetch_conn(me->eng, a->status, a->hash);
			}
			if (deep && j + WK_AHEAD_STATE < nown) {
				const struct wk_dec *a = &me->dec[j + WK_AHEAD_STATE];
				eng_prefetch_state(me->eng, a->status, a->hash);
			}
			me->entry = own[j];
			const struct wk_dec *x = &me->dec[j];
			if (x->status == WK_OTHER_SHARD)
				continue;
			if (spans)
				eng_at_packet(me->eng, s->first_packet + own[j]);
			eng_own(me->eng, &e->p, x->status, &x->d, x->hash);
		}
		if (k < s->nsweep) {
			me->phase = WK_SWEEP;
			me->entry = until;
			if (spans)
				eng_at_packet(me->eng, s->first_packet + until);
			eng_sweep(me->eng, s->sweep[k].now);
		}
	}
}

static void *worker_main(void *arg)
{
	struct wk_worker *me = arg;
	struct wk_pool *w = me->pool;

	/* Batch b is in its slot once published passes b (waitq.h: the
	 * threads hand each other a batch every few hundred microseconds). */
	for (uint64_t b = 0;; b++) {
		if (!waitq_wait(&w->work, &w->published, b + 1))
			return NULL; /* stop_threads() */
		struct wk_slot *s = &w->slot[b & w->slot_mask];
		run_batch(me, s);
		waitq_add(&w->through, &s->done, w->n);
	}
}

/* wk_keep(): the packets of the batches merged are no longer in use; the
 * oldest in use is the first of the oldest batch in flight, or of the one
 * being filled (batches hold packets in reading order). */
static void keep_release(struct wk_pool *w)
{
	uint64_t oldest = *w->keep_gen;

	if (w->merged < w->filled)
		oldest = w->slot[w->merged & w->slot_mask].first_gen;
	else if (w->cur && w->cur->n)
		oldest = w->cur->first_gen;
	w->keep_release(w->keep_ctx, oldest);
}

/* Merge the oldest batch out; wait for its workers if asked, else only
 * when they are through. Returns whether it merged one. */
static bool merge_oldest(struct wk_pool *w, bool wait)
{
	if (w->merged == w->filled)
		return false;
	struct wk_slot *s = &w->slot[w->merged & w->slot_mask];
	if (wait)
		waitq_wait(&w->through, &s->done, w->n);
	if (waitq_load(&s->done) < w->n)
		return false;
	wk_merge_slot(w, s);
	s->n = s->nsweep = 0;
	s->used = 0;
	memset(s->nown, 0, w->n * sizeof(*s->nown));
	w->merged++;
	if (w->keep_gen)
		keep_release(w);
	return true;
}

/*
 * Hand the batch to the workers, and work through worker 0's share of it
 * here: the reader is worker 0 (N threads on N cores, not a reader beside
 * N workers, each switch a wait on a shared core).
 */
static void publish(struct wk_pool *w)
{
	struct wk_slot *s = w->cur;

	s->done = 0; /* no worker looks at it before published says so */
	w->filled++;
	w->cur = NULL;
	waitq_store(&w->work, &w->published, w->filled);
	run_batch(&w->w[0], s);
	waitq_add(&w->through, &s->done, w->n);
	while (merge_oldest(w, false))
		;
}

/* route()'s hash of p's connection when the inline peek could not tell:
 * false when p belongs to none. */
static bool route_hash(const struct pkt *p, uint64_t *h, uint64_t *ends, bool *tcp)
{
	struct dec_packet d;
	int st = dec_peek_tuple(p->data, p->caplen, p->linktype, &d);

	if (st == DEC_PEEK_NONE)
		return false;
	if (st == DEC_PEEK_UNSURE) {
		st = dec_packet(p->data, p->caplen, p->wirelen, p->linktype, &d);
		if (st == DEC_ICMP && d.icmp.has_inner && d.icmp.inner_proto == 6) {
			*h = flow_ends_hash(d.icmp.inner_src.a, d.icmp.inner_sport,
					    d.icmp.inner_dst.a, d.icmp.inner_dport);
			return true;
		}
		if (st != DEC_TCP)
			return false;
	}
	/* A TCP segment, peeked or decoded: its tuple in d either way. */
	*h = *ends = flow_ends_hash(d.src.a, d.tcp.sport, d.dst.a, d.tcp.dport);
	*tcp = true;
	return true;
}

/*
 * The worker of a packet, before anyone decoded it: by the hash of the
 * tuple dec_peek_eth4() or dec_peek_tuple() reads (flow_ends_hash(): both
 * directions, one worker; kept in the entry, the owner's flow table needs
 * it too), or of what dec_packet() says when the peek is unsure (ICMP
 * quoting a TCP segment goes to that connection's worker). A packet of no
 * connection goes to worker 0; the --shard filter is the owner's, after
 * its decode.
 */
static uint32_t route(const struct wk_pool *w, struct wk_entry *e)
{
	const struct pkt *p = &e->p;
	uint8_t a[4], b[4];
	uint16_t pa, pb;
	uint64_t h;

	e->tcp = false;
	if (dec_peek_eth4(p->data, p->caplen, p->linktype, a, b, &pa, &pb)) {
		h = e->ends = flow_ends_hash4(a, pa, b, pb);
		e->tcp = true;
	} else if (!route_hash(p, &h, &e->ends, &e->tcp)) {
		return 0;
	}
	/* The hash's top 16 bits against the workers' shares: no division. */
	uint32_t u = (uint32_t)(h >> 48);
	if (u < w->reader_cut)
		return 0;
	uint32_t k = 1 + (uint32_t)(((uint64_t)(u - w->reader_cut) * w->route_mult) >> 32);
	return k < w->n ? k : w->n - 1;
}

/*
 * Worker 0's share of the connections, in 65536ths. The reader is worker
 * 0, and reading, routing and merging cost about a fifth of what the
 * analysis of the packets does (callgrind, --threads 2, 1 000 connections:
 * 99 M instructions of the reader's against 494 M of analysis), so each
 * thread's work is even when worker 0 takes (1.2 / N - 0.2) of the
 * connections: 40 % of two, 20 % of three; at least a quarter of an even
 * share (the reader alone is not a thread's work).
 */
static uint32_t reader_share(unsigned n)
{
	int64_t even = 65536 / n, s = (6 - (int64_t)n) * 65536 / (5 * (int64_t)n);

	return (uint32_t)(s > even / 4 ? s : even / 4);
}

/* A worker's part of a whole (its share of the connections): its table's
 * and its memory's, so no worker fills before the others would. */
static uint64_t worker_part(const struct wk_pool *w, unsigned k, uint64_t whole)
{
	uint64_t share = k == 0 ? w->reader_cut : (65536 - w->reader_cut) / (w->n - 1);

	return whole ? (whole * share + 65535) / 65536 : 0;
}

/* Whether a sweep is due before p: the clock needs only to know whether p
 * decodes, and asks the decoder only when a sweep is due (once a second of
 * capture). */
static bool clock_step(struct wk_pool *w, const struct pkt *p)
{
	bool own_stream = w->cfg.shard_n <= 1 || w->cfg.shard_k == 1;
	struct dec_packet d;

	if (!eng_clock_tick(&w->clock, &w->cnt, p, own_stream) ||
	    dec_packet(p->data, p->caplen, p->wirelen, p->linktype, &d) < 0)
		return false;
	w->clock.last_sweep = p->ts_ns;
	return true;
}

/* A slot's bytes hold at least one packet of any size: grown (rarely, and
 * only empty) to the largest packet seen. */
static int slot_room(struct wk_slot *s, uint32_t caplen)
{
	return GROW(s->bytes, s->cap, caplen, WK_BYTES);
}

void wk_packet(struct wk_pool *w, const struct pkt *p)
{
	if (w->single) {
		if (w->keep_gen && (w->ahead_on || w->ahead_n)) {
			wk_ahead_packet(w, p);
			return;
		}
		eng_packet(w->single, p);
		if (w->keep_gen &&
		    (*w->keep_gen != w->released || (++w->ahead_seen & (WK_AHEAD_CHECK - 1)) == 0))
			wk_ahead_passed(w);
		return;
	}
	if (w->cur && w->cur->cap - w->cur->used < p->caplen)
		publish(w);
	if (!w->cur) {
		/* The slot of batch `filled` held batch filled - slots. */
		if (w->filled - w->merged == w->slot_mask + 1)
			merge_oldest(w, true);
		w->cur = &w->slot[w->filled & w->slot_mask];
		if (slot_room(w->cur, p->caplen) < 0) {
			/* Not analysed: counted as one engine out of memory counts. */
			w->lost++;
			w->cur = NULL;
			return;
		}
	}
	struct wk_slot *s = w->cur;
	uint32_t i = s->n++;
	if (i == 0) {
		s->first_packet = w->clock.seen + 1;
		s->first_gen = w->keep_gen ? *w->keep_gen : 0;
	}
	struct wk_entry *e = &s->e[i];
	e->p = *p;
	if (p->ts_ns < 0) /* as eng_packet() */
		eng_ts_clamp(p, &e->p);
	/* The bytes where the reader left them (wk_keep()), or a copy; either
	 * way a batch holds at most its slot's bytes. */
	if (!w->keep_gen) {
		e->p.data = s->bytes + s->used;
		memcpy(s->bytes + s->used, p->data, p->caplen);
	}
	/* 8-aligned copies: the decoder loads a few bytes at a time */
	s->used += (p->caplen + 7) & ~(size_t)7;
	if (s->used > s->cap)
		s->used = s->cap;
	if (clock_step(w, &e->p))
		s->sweep[s->nsweep++] = (struct wk_sweep){i, p->ts_ns};
	uint32_t o = route(w, e);
	s->own[(size_t)o * WK_BATCH + s->nown[o]++] = i;
	if (s->n == WK_BATCH)
		publish(w);
}

/* Zeroed memory of whole cache lines (WK_LINE), NULL if none. */
static void *wk_line_alloc(size_t bytes)
{
	size_t round = (bytes + WK_LINE - 1) & ~(size_t)(WK_LINE - 1);
	void *p = aligned_alloc(WK_LINE, round);

	if (p)
		memset(p, 0, round);
	return p;
}

/* Slots [from, to): their batch's entries, bytes and results (0, or
 * ERR_NOMEM: wk_free() frees what was taken). */
static int slots_alloc(struct wk_pool *w, unsigned from, unsigned to)
{
	for (unsigned s = from; s < to; s++) {
		struct wk_slot *sl = &w->slot[s];
		sl->e = malloc(WK_BATCH * sizeof(*sl->e));
		sl->out = wk_line_alloc(w->n * sizeof(*sl->out));
		sl->own = malloc((size_t)w->n * WK_BATCH * sizeof(*sl->own));
		sl->nown = wk_line_alloc(w->n * sizeof(*sl->nown));
		sl->sweep = malloc(WK_BATCH * sizeof(*sl->sweep));
		sl->cap = WK_BYTES;
		sl->bytes = malloc(WK_BYTES);
		if (!sl->e || !sl->bytes || !sl->out || !sl->own || !sl->nown || !sl->sweep)
			return ERR_NOMEM;
	}
	return 0;
}

void wk_keep(struct wk_pool *w, const uint64_t *gen, void (*release)(void *ctx, uint64_t g),
	     void *ctx)
{
	w->keep_gen = gen;
	w->keep_release = release;
	w->keep_ctx = ctx;
	if (w->single)
		wk_ahead_start(w); /* (no memory: one at a time, released as read) */
	else if (!w->cfg.max_memory && !w->filled && !w->cur &&
		 slots_alloc(w, WK_SLOTS, WK_SLOTS_DEEP) == 0)
		w->slot_mask = WK_SLOTS_DEEP - 1; /* nothing copied: a deeper queue */
}

void wk_flush(struct wk_pool *w)
{
	if (w->single)
		wk_ahead_flush(w);
	if (w->single || w->finished)
		return;
	if (w->cur && w->cur->n)
		publish(w); /* merges what is through */
	else
		while (merge_oldest(w, false))
			;
}

void wk_sync(struct wk_pool *w)
{
	if (w->single)
		wk_ahead_flush(w);
	if (w->single || w->finished)
		return;
	if (w->cur && w->cur->n)
		publish(w);
	while (merge_oldest(w, true))
		;
}

struct live_map {
	const struct wk_pool *w;
	unsigned worker;
	void (*fn)(void *ctx, const struct sum_conn *c);
	void *ctx;
};

static void live_mapped(void *ctx, const struct sum_conn *c)
{
	const struct live_map *m = ctx;
	struct sum_conn s = *c;

	s.id = wk_map_get(&m->w->map, wk_map_key(m->worker, c->id));
	m->fn(m->ctx, &s);
}

void wk_foreach_live(const struct wk_pool *w, void (*fn)(void *ctx, const struct sum_conn *c),
		     void *ctx)
{
	if (w->single) {
		eng_foreach_live(w->single, fn, ctx);
		return;
	}
	/* The workers are idle (wk_sync): their engines are read from here. */
	for (unsigned k = 0; k < w->n; k++) {
		struct live_map m = {w, k, fn, ctx};
		eng_foreach_live(w->w[k].eng, live_mapped, &m);
	}
}

static void stop_threads(struct wk_pool *w)
{
	waitq_quit(&w->work);
	for (unsigned k = 0; k < w->n; k++)
		if (w->w[k].started)
			pthread_join(w->w[k].thread, NULL);
	for (unsigned k = 0; k < w->n; k++)
		w->w[k].started = false;
}

void wk_finish(struct wk_pool *w)
{
	if (w->finished)
		return;
	w->finished = true;
	if (w->single) {
		wk_ahead_flush(w);
		eng_finish(w->single);
		return;
	}
	if (w->cur && w->cur->n)
		publish(w);
	while (merge_oldest(w, true))
		;
	stop_threads(w);
	/* The drain, here, engine by engine in id order (the threads are gone). */
	for (unsigned k = 0; k < w->n; k++) {
		eng_drain_start(w->w[k].eng);
		w->w[k].out = &w->drain;
		w->w[k].phase = WK_END;
		w->w[k].entry = 0;
	}
	for (;;) {
		unsigned best = WK_NOBODY;
		uint64_t best_id = UINT64_MAX;
		for (unsigned k = 0; k < w->n; k++) {
			uint64_t local = eng_drain_peek(w->w[k].eng);
			if (!local)
				continue;
			uint64_t id = wk_map_get(&w->map, wk_map_key(k, local));
			if (best == WK_NOBODY || id < best_id) {
				best = k;
				best_id = id;
			}
		}
		if (best == WK_NOBODY)
			break;
		eng_drain_next(w->w[best].eng);
		struct wk_cursor c = {&w->drain, 0};
		for (struct wk_rec *r; (r = wk_cur_rec(&c));) {
			c.pos += r->size;
			wk_emit(w, best, r);
		}
		w->drain.len = 0;
	}
}

void wk_counters(const struct wk_pool *w, struct eng_counters *eng, struct flow_counters *flows)
{
	if (w->single) {
		*eng = *eng_counters(w->single);
		*flows = *eng_flow_counters(w->single);
		return;
	}
	memset(eng, 0, sizeof(*eng));
	memset(flows, 0, sizeof(*flows));
	for (unsigned k = 0; k < w->n; k++) {
		eng_counters_add(eng, eng_counters(w->w[k].eng));
		flow_counters_add(flows, eng_flow_counters(w->w[k].eng));
		eng->no_memory += w->w[k].lost;
		eng->other_shards += w->w[k].other_shards;
	}
	/* The stream's clock is the reader's (workers never see it). */
	eng->first_ts = w->cnt.first_ts;
	eng->last_ts = w->cnt.last_ts;
	eng->ts_backwards = w->cnt.ts_backwards;
	eng->ts_clamped = w->cnt.ts_clamped;
	eng->no_memory += w->lost;
	flows->max_live = w->max_live;
}

uint32_t wk_live_connections(const struct wk_pool *w)
{
	return w->single ? eng_live_connections(w->single) : w->live;
}

size_t wk_fixed_bytes(unsigned nthreads)
{
	if (nthreads <= 1)
		return 0;
	/* A batch's results: when every packet ends a connection (a flood
	 * evicting one a packet), a summary each, in a buffer that doubles. */
	size_t out = 64 * 1024;
	while (out < WK_BATCH * (sizeof(struct wk_rec) + sizeof(struct sum_conn)))
		out *= 2;
	size_t slot = WK_BYTES +
		      WK_BATCH * (sizeof(struct wk_entry) + sizeof(struct wk_sweep) +
				  nthreads * sizeof(uint32_t)) +
		      (size_t)nthreads * out;
	return WK_SLOTS * slot + (size_t)nthreads * WK_BATCH * sizeof(struct wk_dec);
}

unsigned wk_default_threads(void)
{
	unsigned n = cpus_usable();
	return n > WK_MAX ? WK_MAX : n;
}

/* Worker k's engine, with its share of the tables and memory; the --shard
 * filter is the workers' (decode_own). The merge's id map holds up to
 * 3 x 32 bytes a live connection (a half-full table, while it doubles): a
 * sixteenth of theirs. */
static int worker_init(struct wk_pool *w, unsigned k, const struct eng_config *cfg, char *errbuf,
		       size_t errlen)
{
	struct wk_worker *me = &w->w[k];
	struct eng_config ecfg = *cfg;

	ecfg.shard_k = ecfg.shard_n = 0;
	ecfg.flow.max_flows = (uint32_t)worker_part(w, k, cfg->flow.max_flows);
	ecfg.max_memory = worker_part(w, k, cfg->max_memory) / 16 * 15;
	struct sum_sink ws = {
	    .begin = on_begin,
	    .conn = on_conn,
	    .forget = on_forget,
	    .event = w->sink.event ? on_event : NULL,
	    .frame = w->sink.frame ? on_event : NULL,
	    .segment = w->sink.segment ? on_segment : NULL,
	    .ctx = me,
	};
	me->pool = w;
	me->index = k;
	if (!(me->dec = malloc(WK_BATCH * sizeof(*me->dec)))) {
		snprintf(errbuf, errlen, "out of memory");
		return ERR_NOMEM;
	}
	if (!(me->eng = eng_new(&ecfg, &ws, errbuf, errlen)))
		return ERR_NOMEM;
	return 0;
}

struct wk_pool *wk_new(const struct eng_config *cfg, unsigned nthreads, const struct sum_sink *sink,
		       char *errbuf, size_t errlen)
{
	struct wk_pool *w = wk_line_alloc(sizeof(*w));

	if (!w) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	if (nthreads < 1 || nthreads > WK_MAX) {
		snprintf(errbuf, errlen, "threads must be between 1 and %d", WK_MAX);
		free(w);
		return NULL;
	}
	w->n = nthreads;
	w->cfg = *cfg;
	if (sink)
		w->sink = *sink;
	if (nthreads == 1) {
		w->single = eng_new(cfg, sink, errbuf, errlen);
		if (!w->single) {
			free(w);
			return NULL;
		}
		return w;
	}
	if (waitq_init(&w->work, nthreads) < 0)
		goto nomem;
	if (waitq_init(&w->through, nthreads) < 0) {
		waitq_destroy(&w->work);
		goto nomem;
	}
	w->sync_init = true;
	w->w = wk_line_alloc(nthreads * sizeof(*w->w));
	if (!w->w)
		goto nomem;
	w->slot_mask = WK_SLOTS - 1;
	if (slots_alloc(w, 0, WK_SLOTS) < 0)
		goto nomem;
	w->reader_cut = reader_share(nthreads);
	w->route_mult = ((uint64_t)(nthreads - 1) << 32) / (65536 - w->reader_cut);
	for (unsigned k = 0; k < nthreads; k++) {
		if (worker_init(w, k, cfg, errbuf, errlen) < 0) {
			wk_free(w);
			return NULL;
		}
	}
	for (unsigned k = 1; k < nthreads; k++) { /* worker 0 is the reader (publish()) */
		if (pthread_create(&w->w[k].thread, NULL, worker_main, &w->w[k]) != 0) {
			snprintf(errbuf, errlen, "cannot start worker thread %u of %u", k + 1,
				 nthreads);
			wk_free(w);
			return NULL;
		}
		w->w[k].started = true;
		char name[32];
		snprintf(name, sizeof(name), "tcpsift-wk%u", k);
		name[15] = '\0';			  /* the kernel's limit, TASK_COMM_LEN */
		pthread_setname_np(w->w[k].thread, name); /* top -H, perf: best effort */
	}
	return w;
nomem:
	snprintf(errbuf, errlen, "out of memory");
	wk_free(w);
	return NULL;
}

void wk_free(struct wk_pool *w)
{
	if (!w)
		return;
	eng_free(w->single);
	free(w->ahead);
	if (w->w) {
		stop_threads(w);
		for (unsigned k = 0; k < w->n; k++) {
			eng_free(w->w[k].eng);
			free(w->w[k].dec);
		}
	}
	for (unsigned s = 0; s < WK_SLOTS_DEEP; s++) {
		free(w->slot[s].e);
		for (unsigned k = 0; w->slot[s].out && k < w->n; k++)
			free(w->slot[s].out[k].p);
		free(w->slot[s].out);
		free(w->slot[s].own);
		free(w->slot[s].nown);
		free(w->slot[s].sweep);
		free(w->slot[s].bytes);
	}
	if (w->sync_init) {
		waitq_destroy(&w->through);
		waitq_destroy(&w->work);
	}
	free(w->drain.p);
	free(w->map.s);
	free(w->w);
	free(w);
}
