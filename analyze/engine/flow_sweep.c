/* flow_sweep.c - the connection table's walks: expiry and parking at a sweep, the drain, foreach.
 */
#include "analyze/engine/flow_int.h"
#include "common/err.h"
#include "common/grow.h"

#include <stdlib.h>
#include <string.h>

/* ---- parked entries ---- */

struct tcp_conn *flow_view(const struct flow_table *t, uint32_t idx)
{
	if (!flow_is_parked(t, idx))
		return &entry(t, idx)->conn;
	park_unpack(t->park, entry(t, idx), t->scratch);
	return &t->scratch->conn;
}

struct flow_entry *flow_unpark(struct flow_table *t, uint32_t idx, const struct flow_entry *copy)
{
	void *packed = entry(t, idx);
	struct flow_entry *e = pool_get_raw(t->entries);

	if (!e)
		return NULL;
	memcpy(e, copy, sizeof(*e));
	park_put(t->park, packed);
	t->ref[idx].bits = (uintptr_t)e;
	t->cnt.parked--;
	return e;
}

void flow_park_idle(struct flow_table *t, int64_t now)
{
	if (!t->park)
		return;
	/* The open list is in LRU order and parking takes from its head: the
	 * entries before park_next were considered at earlier sweeps. */
	while (t->park_next != FLOW_NIL) {
		uint32_t idx = t->park_next;
		struct flow_entry *e = entry(t, idx);
		if (now - e->conn.info.last_ts < t->cfg.park_after_ns)
			break;
		t->park_next = e->next;
		void *packed = park_pack(t->park, e); /* NULL: not worth it, or no memory */
		if (!packed)
			continue;
		t->ref[idx].bits = (uintptr_t)packed | 1;
		pool_put(t->entries, e);
		t->cnt.parked++;
		t->cnt.parked_total++;
	}
}

/* ---- in id order ---- */

static int by_id(const void *a, const void *b, void *table)
{
	uint64_t x = entry(table, *(const uint32_t *)a)->conn.info.id;
	uint64_t y = entry(table, *(const uint32_t *)b)->conn.info.id;
	return (x > y) - (x < y);
}

/* Room for n entry indices in t->order; false without memory. */
static bool order_reserve(struct flow_table *t, uint32_t n)
{
	return GROW(t->order, t->order_cap, n, 256) == 0;
}

/* Sort t->order[0, n) by connection id (glibc qsort_r: the table is its context). */
static void order_sort(struct flow_table *t, uint32_t n)
{
	if (n > 1)
		qsort_r(t->order, n, sizeof(*t->order), by_id, t);
}

static void expire_idle(struct flow_table *t, int64_t now)
{
	const int64_t timeout[2] = {t->cfg.idle_timeout_ns, t->cfg.closed_linger_ns};
	uint32_t n = 0;
	bool sorted = true;

	/* The expired connections are the oldest of each LRU list. They end in
	 * id (first-packet) order, not LRU order, so that what one sweep ends
	 * comes out in an order that does not depend on how connections are
	 * spread over tables (workers.c merges N engines' sweeps by id). */
	for (int l = 0; l < 2; l++) {
		if (timeout[l] <= 0)
			continue;
		for (uint32_t idx = t->lru_head[l]; idx != FLOW_NIL; idx = entry(t, idx)->next) {
			if (now - entry(t, idx)->conn.info.last_ts < timeout[l])
				break;
			if (sorted && !order_reserve(t, n + 1))
				sorted = false; /* no memory: LRU order below, still complete */
			if (sorted)
				t->order[n++] = idx;
		}
	}
	if (sorted) {
		order_sort(t, n);
		for (uint32_t k = 0; k < n; k++)
			flow_expire_entry(t, t->order[k]);
		return;
	}
	for (int l = 0; l < 2; l++) {
		if (timeout[l] <= 0)
			continue;
		while (t->lru_head[l] != FLOW_NIL) {
			struct flow_entry *e = entry(t, t->lru_head[l]);
			if (now - e->conn.info.last_ts < timeout[l])
				break;
			flow_expire_entry(t, t->lru_head[l]);
		}
	}
}

void flow_expire(struct flow_table *t, int64_t now)
{
	expire_idle(t, now);
	flow_park_idle(t, now);
}

void flow_foreach(const struct flow_table *t, void (*fn)(void *ctx, const struct tcp_conn *c),
		  void *ctx)
{
	for (int l = 0; l < 2; l++)
		for (uint32_t idx = t->lru_head[l]; idx != FLOW_NIL; idx = entry(t, idx)->next)
			fn(ctx, flow_view(t, idx));
}

void flow_foreach_mut(struct flow_table *t, void (*fn)(void *ctx, struct tcp_conn *c), void *ctx)
{
	for (int l = 0; l < 2; l++)
		for (uint32_t idx = t->lru_head[l]; idx != FLOW_NIL; idx = entry(t, idx)->next)
			fn(ctx, flow_view(t, idx));
}

int flow_drain_start(struct flow_table *t)
{
	uint32_t n = 0;

	t->order_pos = t->order_len = 0;
	t->draining_sorted = order_reserve(t, t->cnt.live);
	if (!t->draining_sorted)
		return ERR_NOMEM;
	for (int l = 0; l < 2; l++)
		for (uint32_t idx = t->lru_head[l]; idx != FLOW_NIL; idx = entry(t, idx)->next)
			t->order[n++] = idx;
	order_sort(t, n);
	t->order_len = n;
	return 0;
}

/* The entry flow_drain_next() ends, FLOW_NIL when none is left. Without
 * memory for the sort, LRU order: still complete. */
static uint32_t drain_peek_idx(const struct flow_table *t)
{
	if (!t->draining_sorted)
		return flow_lru_oldest(t);
	return t->order_pos < t->order_len ? t->order[t->order_pos] : FLOW_NIL;
}

uint64_t flow_drain_peek(const struct flow_table *t)
{
	uint32_t idx = drain_peek_idx(t);
	return idx == FLOW_NIL ? 0 : entry(t, idx)->conn.info.id; /* kept when parked */
}

void flow_drain_next(struct flow_table *t)
{
	uint32_t idx = drain_peek_idx(t);

	if (idx == FLOW_NIL)
		return;
	t->order_pos += t->draining_sorted;
	flow_end_entry(t, idx, FLOW_END_DONE);
}

void flow_drain(struct flow_table *t)
{
	flow_drain_start(t);
	while (drain_peek_idx(t) != FLOW_NIL)
		flow_drain_next(t);
}
