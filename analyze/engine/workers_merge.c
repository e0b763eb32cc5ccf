/* workers_merge.c - --threads N: the workers' results merged back into one engine's order. */
#include <stdlib.h>
#include <string.h>

#include "analyze/engine/workers_int.h"
#include "common/err.h"
#include "common/hash.h"

/*
 * How the order of one engine is rebuilt. The reader keeps the stream's
 * clock, so it knows before which packets every engine sweeps (idle
 * expiry). A worker tags each result with the packet it was at (its index
 * in the batch) and the phase: the sweep before a packet (eng_sweep), the
 * packet's own processing (eng_own, one worker only), or the final drain.
 * One engine delivers, at packet i, first what its sweep ended, in id order
 * (flow_expire), then what the packet caused. So the merge walks the
 * packets of a batch in order and, at each, interleaves the workers' sweep
 * results connection by connection by id, then copies the owner's results.
 * A connection's results are the events of its end then its summary (a
 * "cluster"); ids are those one engine would have given: a new connection
 * (sum_sink.begin) takes the next id when the merge reaches it, which is in
 * packet order. The drain at the end runs in the caller's thread, engine by
 * engine in id order, so it keeps one connection's results at a time.
 */

/* ---- id map ---- */

uint64_t wk_map_key(unsigned worker, uint64_t id)
{
	return (uint64_t)worker << 56 | id;
}

static int map_grow(struct wk_idmap *m)
{
	size_t cap = m->s ? (m->mask + 1) * 2 : 1024;
	__typeof__(m->s) s = calloc(cap, sizeof(*s));

	if (!s)
		return ERR_NOMEM;
	for (size_t k = 0; m->s && k <= m->mask; k++) {
		if (!m->s[k].key)
			continue;
		size_t j = hash_mix64(m->s[k].key) & (cap - 1);
		while (s[j].key)
			j = (j + 1) & (cap - 1);
		s[j] = m->s[k];
	}
	free(m->s);
	m->s = s;
	m->mask = cap - 1;
	return 0;
}

static int map_put(struct wk_idmap *m, uint64_t key, uint64_t val)
{
	if ((m->n + 1) * 2 > (m->s ? m->mask + 1 : 0) && map_grow(m) < 0)
		return ERR_NOMEM;
	if (!m->s) /* map_grow() allocated it: for the analyzer */
		return ERR_NOMEM;
	size_t j = hash_mix64(key) & m->mask;
	while (m->s[j].key && m->s[j].key != key)
		j = (j + 1) & m->mask;
	m->n += !m->s[j].key;
	m->s[j].key = key;
	m->s[j].val = val;
	return 0;
}

/* The slot of key, or SIZE_MAX. */
static size_t map_find(const struct wk_idmap *m, uint64_t key)
{
	if (!m->s)
		return SIZE_MAX;
	for (size_t j = hash_mix64(key) & m->mask; m->s[j].key; j = (j + 1) & m->mask)
		if (m->s[j].key == key)
			return j;
	return SIZE_MAX;
}

uint64_t wk_map_get(const struct wk_idmap *m, uint64_t key)
{
	size_t j = map_find(m, key);
	return j == SIZE_MAX ? 0 : m->s[j].val;
}

/* Remove by backward shift: linear probing keeps no tombstones. */
static void map_del(struct wk_idmap *m, uint64_t key)
{
	size_t j = map_find(m, key);

	if (j == SIZE_MAX)
		return;
	for (size_t k = (j + 1) & m->mask; m->s[k].key; k = (k + 1) & m->mask) {
		size_t home = hash_mix64(m->s[k].key) & m->mask;
		/* Move k into the hole j unless its home lies cyclically in (j, k]. */
		if (((k - home) & m->mask) >= ((k - j) & m->mask)) {
			m->s[j] = m->s[k];
			j = k;
		}
	}
	m->s[j].key = 0;
	m->n--;
}

/* ---- the merge (caller's thread) ---- */

void wk_emit(struct wk_pool *w, unsigned worker, struct wk_rec *r)
{
	switch (r->kind) {
	case WK_BEGIN: {
		/* A connection evicted earlier that comes back (flow.h) keeps its
		 * id: the map still has it. */
		uint64_t key = wk_map_key(worker, r->id), id = wk_map_get(&w->map, key);
		if (!id) {
			if (map_put(&w->map, key, w->next_id + 1) < 0) {
				w->lost++;
				return;
			}
			id = ++w->next_id;
		}
		if (++w->live > w->max_live)
			w->max_live = w->live;
		if (w->sink.begin)
			w->sink.begin(w->sink.ctx, id);
		return;
	}
	case WK_EVENT: {
		struct sum_event *e = (struct sum_event *)(r + 1);
		e->conn = wk_map_get(&w->map, wk_map_key(worker, e->conn));
		sum_emit(&w->sink, e);
		return;
	}
	case WK_SEG: {
		struct sum_seg *g = (struct sum_seg *)(r + 1);
		g->conn = wk_map_get(&w->map, wk_map_key(worker, g->conn));
		w->sink.segment(w->sink.ctx, g);
		return;
	}
	case WK_CONN: {
		struct sum_conn *c = (struct sum_conn *)(r + 1);
		uint64_t key = wk_map_key(worker, c->id);
		c->id = wk_map_get(&w->map, key);
		/* An evicted one may resume with its id: its entry stays until
		 * its engine lets the key go (WK_FORGET), so the map holds no
		 * more than live connections and the engines' evtab records. */
		if (!c->evicted)
			map_del(&w->map, key);
		w->live--;
		if (w->sink.conn)
			w->sink.conn(w->sink.ctx, c);
		return;
	}
	case WK_FORGET:
		/* Its summary came before, from the same worker (it was
		 * evicted, then its key was let go). */
		map_del(&w->map, wk_map_key(worker, r->id));
		return;
	}
}

struct wk_rec *wk_cur_rec(const struct wk_cursor *c)
{
	return c->pos < c->b->len ? (struct wk_rec *)(c->b->p + c->pos) : NULL;
}

static bool cur_at(const struct wk_cursor *c, uint32_t entry, uint8_t phase)
{
	const struct wk_rec *r = wk_cur_rec(c);
	return r && r->entry == entry && r->phase == phase;
}

/* The run's id of the connection whose cluster starts at c. */
static uint64_t cluster_id(const struct wk_pool *w, unsigned worker, const struct wk_cursor *c)
{
	for (size_t pos = c->pos; pos < c->b->len;) {
		const struct wk_rec *r = (const struct wk_rec *)(c->b->p + pos);
		if (r->kind == WK_CONN)
			return wk_map_get(
			    &w->map, wk_map_key(worker, ((const struct sum_conn *)(r + 1))->id));
		pos += r->size;
	}
	return UINT64_MAX;
}

/* Emit worker's records at c up to and including its next summary. */
static void emit_cluster(struct wk_pool *w, unsigned worker, struct wk_cursor *c, uint32_t entry,
			 uint8_t phase)
{
	while (cur_at(c, entry, phase)) {
		struct wk_rec *r = wk_cur_rec(c);
		c->pos += r->size;
		wk_emit(w, worker, r);
		if (r->kind == WK_CONN)
			return;
	}
}

/* What the workers' sweeps ended before packet entry: by id, as one
 * engine's flow_expire() ends them. */
static void merge_sweep(struct wk_pool *w, struct wk_cursor *c, uint32_t entry)
{
	for (;;) {
		unsigned best = WK_NOBODY;
		uint64_t best_id = UINT64_MAX;
		for (unsigned k = 0; k < w->n; k++) {
			if (!cur_at(&c[k], entry, WK_SWEEP))
				continue;
			uint64_t id = cluster_id(w, k, &c[k]);
			if (best == WK_NOBODY || id < best_id) {
				best = k;
				best_id = id;
			}
		}
		if (best == WK_NOBODY)
			return;
		emit_cluster(w, best, &c[best], entry, WK_SWEEP);
	}
}

void wk_merge_slot(struct wk_pool *w, struct wk_slot *s)
{
	struct wk_cursor c[WK_MAX];

	for (unsigned k = 0; k < w->n; k++)
		c[k] = (struct wk_cursor){&s->out[k], 0};
	/* Results are few next to packets: walk them, not the batch. */
	for (;;) {
		unsigned first = WK_NOBODY;
		const struct wk_rec *fr = NULL;
		for (unsigned k = 0; k < w->n; k++) {
			const struct wk_rec *r = wk_cur_rec(&c[k]);
			if (r && (!fr || r->entry < fr->entry ||
				  (r->entry == fr->entry && r->phase < fr->phase))) {
				first = k;
				fr = r;
			}
		}
		if (!fr)
			break;
		uint32_t entry = fr->entry;
		if (fr->phase == WK_SWEEP) {
			merge_sweep(w, c, entry);
			continue;
		}
		/* A packet's own results: one worker's. */
		while (cur_at(&c[first], entry, WK_OWN)) {
			struct wk_rec *r = wk_cur_rec(&c[first]);
			c[first].pos += r->size;
			wk_emit(w, first, r);
		}
	}
	for (unsigned k = 0; k < w->n; k++) {
		struct wk_buf *b = &s->out[k];
		b->len = 0;
		if (b->cap > WK_OUT_KEEP) {
			free(b->p);
			*b = (struct wk_buf){0};
		}
	}
}
