/* flow.c - open-addressing connection table with LRU order and bounded size. */
#include "analyze/engine/flow.h"
#include "analyze/engine/evtab.h"
#include "analyze/engine/flow_int.h"
#include "analyze/engine/park.h"
#include "analyze/engine/pool.h"
#include "common/err.h"
#include "common/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	/* What flow_prefetch() loads of an entry: its LRU links, the
	 * connection's identity (the key) and hot per-direction state. */
	FLOW_PREFETCH_BYTES = 512,
};

/* Canonical key: the lower (address, port) endpoint first. */
struct flow_key {
	uint8_t a[16], b[16];
	uint16_t pa, pb;
	uint16_t vantage;
	uint8_t family;
	uint8_t zero; /* padding made explicit: the evicted-key memory compares bytes */
};

_Static_assert(sizeof(struct flow_key) == EVT_KEY_BYTES, "a flow key is an evtab key");

enum { FLOW_REM_CLIENT_IS_A = 1 }; /* evt_rec.flags: the client is the key's a */

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* memcmp(a, b, 16) < 0, = 0, > 0 as -1, 0, 1, in two word compares: the
 * bytes in order are the words' big-endian values (a call of memcmp for
 * 16 bytes was some 20 instructions a packet, twice or three times). */
static int addr_cmp(const uint8_t *a, const uint8_t *b)
{
	uint64_t x = __builtin_bswap64(load64(a)), y = __builtin_bswap64(load64(b));

	if (x == y) {
		x = __builtin_bswap64(load64(a + 8));
		y = __builtin_bswap64(load64(b + 8));
	}
	return (x > y) - (x < y);
}

/*
 * A connection between (sa, sp) and (da, dp), either way round, in the
 * key's canonical order: a the lower (address, port) endpoint: the key
 * the evicted-key memory keeps (its hash needs no order, flow.h).
 */
struct flow_ends {
	const uint8_t *a, *b;
	uint16_t pa, pb;
};

static inline __attribute__((always_inline)) struct flow_ends
ends_of(const uint8_t *sa, const uint8_t *da, uint16_t sp, uint16_t dp)
{
	int cmp = addr_cmp(sa, da);

	if (cmp == 0)
		cmp = (int)sp - (int)dp;
	if (cmp <= 0)
		return (struct flow_ends){sa, da, sp, dp};
	return (struct flow_ends){da, sa, dp, sp};
}

static void ends_key(struct flow_ends e, uint8_t family, uint32_t vantage, struct flow_key *k)
{
	memcpy(k->a, e.a, 16);
	memcpy(k->b, e.b, 16);
	k->pa = e.pa;
	k->pb = e.pb;
	k->family = family;
	k->vantage = (uint16_t)vantage;
	k->zero = 0;
}

static inline __attribute__((always_inline)) struct flow_ends pkt_ends(const struct dec_packet *d)
{
	return ends_of(d->src.a, d->dst.a, d->tcp.sport, d->tcp.dport);
}

static inline __attribute__((always_inline)) uint32_t pkt_hash(const struct dec_packet *d,
							       uint32_t vantage)
{
	return flow_slot_hash(flow_ends_hash(d->src.a, d->tcp.sport, d->dst.a, d->tcp.dport),
			      d->src.family, vantage);
}

/* A live connection's ends, as its first packet's were (the roles only
 * order the same two endpoints). */
static struct flow_ends ident_ends(const struct sum_conn_ident *i)
{
	return ends_of(i->client.a, i->server.a, i->client_port, i->server_port);
}

/* A live connection's hash, as its first packet's was. */
static uint32_t ident_hash(const struct sum_conn_ident *i)
{
	return flow_slot_hash(
	    flow_ends_hash(i->client.a, i->client_port, i->server.a, i->server_port),
	    i->client.family, i->vantage);
}

/* Is d a packet of the connection i, either way? (The vantage in 16
 * bits, as the key and the ident keep it: ids are below SRC_MAX_VANTAGES.) */
static inline __attribute__((always_inline)) bool
ident_is(const struct sum_conn_ident *i, const struct dec_packet *d, uint32_t vantage)
{
	if (i->vantage != (uint16_t)vantage || i->client.family != d->src.family)
		return false;
	if (d->tcp.sport == i->client_port && d->tcp.dport == i->server_port &&
	    dec_addr_eq(d->src.a, i->client.a) && dec_addr_eq(d->dst.a, i->server.a))
		return true;
	return d->tcp.sport == i->server_port && d->tcp.dport == i->client_port &&
	       dec_addr_eq(d->src.a, i->server.a) && dec_addr_eq(d->dst.a, i->client.a);
}

struct flow_table *flow_new(const struct flow_config *cfg, flow_end_fn *end, void *ctx,
			    char *errbuf, size_t errlen)
{
	struct flow_table *t = calloc(1, sizeof(*t));
	uint64_t nslots = 16;

	if (!t)
		goto nomem;
	if (cfg->max_flows == 0 || cfg->max_flows > (1u << 30)) {
		snprintf(errbuf, errlen, "max flows must be between 1 and %u", 1u << 30);
		free(t);
		return NULL;
	}
	t->cfg = *cfg;
	t->end = end;
	t->ctx = ctx;
	/* Load factor <= 1/2 at the cap keeps linear probes short. */
	while (nslots < 2ull * cfg->max_flows)
		nslots <<= 1;
	t->slots = calloc(nslots, sizeof(*t->slots));
	t->slot_mask = (uint32_t)(nslots - 1);
	t->ref = calloc(cfg->max_flows, sizeof(*t->ref));
	t->entries = pool_new(sizeof(struct flow_entry), FLOW_SLAB_ENTRIES);
	t->scratch = malloc(sizeof(*t->scratch));
	if (!t->slots || !t->ref || !t->entries || !t->scratch)
		goto nomem;
	if (cfg->park_after_ns > 0 &&
	    !(t->park = park_new(sizeof(struct flow_entry), FLOW_PARK_KEEP, FLOW_PARK_BASE)))
		goto nomem;
	t->free_head = t->park_next = FLOW_NIL;
	for (int l = 0; l < 2; l++)
		t->lru_head[l] = t->lru_tail[l] = FLOW_NIL;
	return t;
nomem:
	snprintf(errbuf, errlen, "out of memory for a table of %u flows", cfg->max_flows);
	flow_free(t);
	return NULL;
}

void flow_free(struct flow_table *t)
{
	if (!t)
		return;
	pool_free(t->entries);
	park_free(t->park);
	free(t->scratch);
	free(t->ref);
	free(t->order);
	free(t->slots);
	evt_free(t->gone);
	free(t);
}

const struct flow_counters *flow_counters(const struct flow_table *t)
{
	return &t->cnt;
}

/* Take idx out of LRU list l (0 open, 1 closed). */
void flow_lru_unlink(struct flow_table *t, uint32_t idx, unsigned l)
{
	struct flow_entry *e = entry(t, idx);

	if (idx == t->park_next)
		t->park_next = e->next;
	if (e->prev != FLOW_NIL)
		entry(t, e->prev)->next = e->next;
	else
		t->lru_head[l] = e->next;
	if (e->next != FLOW_NIL)
		entry(t, e->next)->prev = e->prev;
	else
		t->lru_tail[l] = e->prev;
}

void flow_lru_append(struct flow_table *t, uint32_t idx, unsigned l)
{
	struct flow_entry *e = entry(t, idx);

	e->prev = t->lru_tail[l];
	e->next = FLOW_NIL;
	if (t->lru_tail[l] != FLOW_NIL)
		entry(t, t->lru_tail[l])->next = idx;
	else
		t->lru_head[l] = idx;
	t->lru_tail[l] = idx;
	if (l == 0 && t->park_next == FLOW_NIL)
		t->park_next = idx;
}

/* The least recently used connection, closed ones first. */
uint32_t flow_lru_oldest(const struct flow_table *t)
{
	return t->lru_head[1] != FLOW_NIL ? t->lru_head[1] : t->lru_head[0];
}

/* A free entry index with a full entry, or FLOW_NIL: max_flows are live,
 * or no memory (t->refused: the budget's). */
static uint32_t alloc_entry(struct flow_table *t)
{
	if (t->free_head == FLOW_NIL && t->fresh == t->cfg.max_flows)
		return FLOW_NIL;
	struct flow_entry *e = pool_get_raw(t->entries);
	t->refused = !e && t->budget;
	if (!e)
		return FLOW_NIL;
	uint32_t idx = t->free_head;
	if (idx == FLOW_NIL)
		idx = t->fresh++;
	else
		t->free_head = t->ref[idx].next_free;
	t->ref[idx].bits = (uintptr_t)e;
	return idx;
}

/* Give entry idx's block back and its index to the free list. */
static void free_entry(struct flow_table *t, uint32_t idx)
{
	if (flow_is_parked(t, idx)) {
		park_put(t->park, entry(t, idx));
		t->cnt.parked--;
	} else {
		pool_put(t->entries, entry(t, idx));
	}
	t->ref[idx].next_free = t->free_head;
	t->free_head = idx;
}

/* The slot of entry idx, whose key hashes to h. */
static uint32_t slot_of(const struct flow_table *t, uint32_t idx, uint32_t h)
{
	uint32_t i = h & t->slot_mask;

	while (slot_entry(&t->slots[i]) != idx)
		i = (i + 1) & t->slot_mask;
	return i;
}

/* The slot of a live connection c, or FLOW_NIL (c is no live entry's). */
static uint32_t conn_slot(const struct flow_table *t, const struct tcp_conn *c)
{
	const struct flow_entry *e =
	    (const struct flow_entry *)((const char *)c - offsetof(struct flow_entry, conn));
	uint32_t h = ident_hash(&c->info);

	for (uint32_t i = h & t->slot_mask; t->slots[i].idx; i = (i + 1) & t->slot_mask)
		if (t->slots[i].hash == h && entry(t, slot_entry(&t->slots[i])) == e)
			return i;
	return FLOW_NIL;
}

/* Empty slot i; backward-shift deletion keeps probes intact. */
static void index_remove(struct flow_table *t, uint32_t i)
{
	for (;;) {
		uint32_t j = i;
		t->slots[i].idx = 0;
		for (;;) {
			j = (j + 1) & t->slot_mask;
			if (t->slots[j].idx == 0)
				return;
			uint32_t home = t->slots[j].hash & t->slot_mask;
			/* Move j back into the hole at i unless its home lies
			 * cyclically in (i, j]. */
			if ((i <= j) ? (home <= i || home > j) : (home <= i && home > j))
				break;
		}
		t->slots[i] = t->slots[j];
		i = j;
	}
}

/* Remember an evicted connection's key k (hash h), id and roles for its return. */
static void remember(struct flow_table *t, const struct sum_conn_ident *i, const struct flow_key *k,
		     uint32_t h)
{

	if (!t->gone && !t->gone_failed) {
		uint32_t cap = t->cfg.remember;
		if (!cap)
			cap = t->cfg.max_flows > FLOW_REMEMBER_MIN / 2 ? 2 * t->cfg.max_flows
								       : FLOW_REMEMBER_MIN;
		t->gone = evt_new(cap);
		t->gone_failed = !t->gone;
	}
	if (!t->gone) {
		t->cnt.remember_failed++;
		return;
	}
	uint32_t flags =
	    i->client_port == k->pa && dec_addr_eq(i->client.a, k->a) ? FLOW_REM_CLIENT_IS_A : 0;
	uint64_t gone = evt_put(t->gone, k, h, i->id, i->last_ts, flags);
	if (gone && t->forget)
		t->forget(t->ctx, gone);
	t->cnt.forgotten = evt_counters(t->gone)->forgotten;
}

/* End the connection in slot s, c its connection (flow_view(): a parked
 * one ends from a copy, no full entry is taken for it). */
static void end_at(struct flow_table *t, uint32_t s, struct tcp_conn *c, enum flow_end why)
{
	uint32_t idx = slot_entry(&t->slots[s]), h = t->slots[s].hash;
	unsigned l = slot_list(&t->slots[s]);
	const struct sum_conn_ident *i = &c->info;
	/* Before the callback: the key as the table found it. */
	struct flow_key k;

	if (why == FLOW_END_EVICTED)
		ends_key(ident_ends(i), i->client.family, i->vantage, &k);
	t->end(t->ctx, c, why);
	if (why == FLOW_END_EVICTED)
		remember(t, i, &k, h);
	t->cnt.ended[why]++;
	index_remove(t, s);
	flow_lru_unlink(t, idx, l);
	free_entry(t, idx);
	t->cnt.live--;
}

/* End entry idx: its slot found from its identity, unpacked once. */
static void end_idx(struct flow_table *t, uint32_t idx, enum flow_end why, bool expired)
{
	struct tcp_conn *c = flow_view(t, idx);
	uint32_t s = slot_of(t, idx, ident_hash(&c->info));

	if (expired && slot_list(&t->slots[s]))
		why = FLOW_END_CLOSED;
	end_at(t, s, c, why);
}

void flow_end_entry(struct flow_table *t, uint32_t idx, enum flow_end why)
{
	end_idx(t, idx, why, false);
}

void flow_expire_entry(struct flow_table *t, uint32_t idx)
{
	end_idx(t, idx, FLOW_END_IDLE, true);
}

void flow_end(struct flow_table *t, struct tcp_conn *c, enum flow_end why)
{
	uint32_t s = conn_slot(t, c);

	if (s != FLOW_NIL)
		end_at(t, s, c, why);
}

void flow_set_closed(struct flow_table *t, struct tcp_conn *c)
{
	uint32_t s = conn_slot(t, c);

	if (s == FLOW_NIL || slot_list(&t->slots[s]))
		return;
	uint32_t idx = slot_entry(&t->slots[s]);
	flow_lru_unlink(t, idx, 0);
	t->slots[s].idx |= FLOW_SLOT_CLOSED;
	flow_lru_append(t, idx, 1);
}

static inline __attribute__((always_inline)) struct flow_entry *
find_entry(struct flow_table *t, const struct dec_packet *d, uint32_t vantage, uint32_t h,
	   uint32_t *slot)
{
	uint32_t i = h & t->slot_mask;

	for (; t->slots[i].idx; i = (i + 1) & t->slot_mask) {
		if (t->slots[i].hash != h)
			continue;
		uint32_t idx = slot_entry(&t->slots[i]);
		struct flow_entry *e = entry(t, idx);
		/* (A parked entry keeps no more of its identity than its id and
		 * times: the rest is unpacked to compare.) */
		const struct sum_conn_ident *id = __builtin_expect(flow_is_parked(t, idx), 0)
						      ? &flow_view(t, idx)->info
						      : &e->conn.info;
		if (ident_is(id, d, vantage)) {
			*slot = i;
			return e;
		}
	}
	*slot = i; /* the empty slot that ended the probe */
	return NULL;
}

struct tcp_conn *flow_find(struct flow_table *t, const struct dec_packet *d, uint32_t vantage)
{
	uint32_t slot;
	struct flow_entry *e = find_entry(t, d, vantage, pkt_hash(d, vantage), &slot);

	/* (find_entry() left a parked one's copy in the scratch entry.) */
	if (e && flow_is_parked(t, slot_entry(&t->slots[slot])))
		e = flow_unpark(t, slot_entry(&t->slots[slot]), t->scratch);
	return e ? &e->conn : NULL;
}

uint32_t flow_hash(const struct flow_table *t, const struct dec_packet *d, uint32_t vantage)
{
	uint32_t h = pkt_hash(d, vantage);
	__builtin_prefetch(&t->slots[h & t->slot_mask]);
	return h;
}

uint32_t flow_hash_ends(const struct flow_table *t, uint64_t ends, uint8_t family, uint32_t vantage)
{
	uint32_t h = flow_slot_hash(ends, family, vantage);
	__builtin_prefetch(&t->slots[h & t->slot_mask]);
	return h;
}

/* The entry of the first slot with hash h, nearly always the connection
 * (a hint's guess: no key compared), or FLOW_NIL. */
static uint32_t first_with_hash(const struct flow_table *t, uint32_t h)
{
	for (uint32_t i = h & t->slot_mask; t->slots[i].idx; i = (i + 1) & t->slot_mask)
		if (t->slots[i].hash == h)
			return slot_entry(&t->slots[i]);
	return FLOW_NIL;
}

void flow_prefetch(const struct flow_table *t, uint32_t h)
{
	/* (The slots are in cache by now: flow_hash().) */
	uint32_t idx = flow_prefetch_pays(t) ? first_with_hash(t, h) : FLOW_NIL;

	if (idx == FLOW_NIL)
		return;
	const char *e = (const char *)entry(t, idx);
	for (unsigned off = 0; off < FLOW_PREFETCH_BYTES; off += 64)
		__builtin_prefetch(e + off);
}

bool flow_prefetch_pays(const struct flow_table *t)
{
	return t->cnt.live >= t->cfg.prefetch_live;
}

const struct tcp_conn *flow_peek(const struct flow_table *t, uint32_t h)
{
	uint32_t idx = flow_prefetch_pays(t) ? first_with_hash(t, h) : FLOW_NIL;

	return idx == FLOW_NIL || flow_is_parked(t, idx) ? NULL : &entry(t, idx)->conn;
}

void flow_set_pressure(struct flow_table *t, bool on)
{
	t->pressure = on;
}

void flow_on_forget(struct flow_table *t, flow_forget_fn *fn)
{
	t->forget = fn;
}

int flow_evict_oldest(struct flow_table *t)
{
	uint32_t victim = flow_lru_oldest(t);

	if (victim == FLOW_NIL)
		return -1;
	flow_end_entry(t, victim, FLOW_END_EVICTED);
	return 0;
}

uint64_t flow_budget_evictions(const struct flow_table *t)
{
	return t->budget_evicted;
}

size_t flow_entry_bytes(void)
{
	return sizeof(struct flow_entry);
}

size_t flow_chunk_bytes(void)
{
	return FLOW_SLAB_ENTRIES * sizeof(struct flow_entry);
}

void flow_set_budget(struct flow_table *t, struct pool_budget *b)
{
	t->budget = b;
	pool_set_budget(t->entries, b);
	if (t->park)
		park_set_budget(t->park, b);
}

size_t flow_mem_bytes(const struct flow_table *t)
{
	return pool_stats(t->entries)->in_use * sizeof(struct flow_entry) +
	       (t->park ? park_bytes(t->park) : 0) +
	       (size_t)(t->slot_mask + 1) * sizeof(*t->slots) + (size_t)t->fresh * sizeof(*t->ref) +
	       (t->gone ? evt_bytes(t->gone) : 0);
}

/*
 * May a returning evicted connection, last seen at gone_ts, take a place?
 * A free one, yes (unless under pressure); else only the place of a closed
 * connection, of a half-open one (a SYN flood must not lock out the
 * connections it pushed out) or of one idle since before gone_ts:
 * otherwise, with more connections sending than the table holds, each
 * packet would evict one and resume another (one summary a packet: the
 * churn this prevents).
 */
static bool room_to_resume(struct flow_table *t, int64_t gone_ts)
{
	if (!t->pressure && (t->free_head != FLOW_NIL || t->fresh < t->cfg.max_flows))
		return true;
	if (t->lru_head[1] != FLOW_NIL)
		return true;
	uint32_t victim = t->lru_head[0];
	if (victim == FLOW_NIL)
		return false;
	const struct tcp_conn *v = flow_view(t, victim);
	return v->info.last_ts <= gone_ts || tcp_is_half_open(v);
}

/* The packet of a remembered connection: resume it (0) or drop it (-1). */
static int may_resume(struct flow_table *t, const struct flow_key *k, uint32_t h,
		      const struct dec_packet *d, struct flow_resume *rs)
{
	struct evt_rec *r = t->gone ? evt_find(t->gone, k, h) : NULL;

	if (!r)
		return 1;
	/* A SYN starts a new instance (tcp_is_new_instance(), without the
	 * old one's ISN to compare: a retransmitted SYN is rare here). */
	if ((d->tcp.flags & (DEC_TH_SYN | DEC_TH_ACK)) == DEC_TH_SYN) {
		uint64_t gone = r->id;
		evt_forget(t->gone, r);
		if (t->forget)
			t->forget(t->ctx, gone);
		return 1;
	}
	if (!room_to_resume(t, r->last_ts)) {
		t->cnt.evicted_packets++;
		return -1;
	}
	bool src_is_a = d->tcp.sport == k->pa && dec_addr_eq(d->src.a, k->a);
	rs->id = r->id;
	rs->src_is_client = src_is_a == ((r->flags & FLOW_REM_CLIENT_IS_A) != 0);
	evt_forget(t->gone, r);
	return 0;
}

struct tcp_conn *flow_lookup(struct flow_table *t, const struct dec_packet *d, uint32_t vantage,
			     uint32_t hash, enum flow_got *got, struct flow_resume *rs)
{
	uint32_t h = hash ? hash : pkt_hash(d, vantage);
	uint32_t i;

	*got = FLOW_HIT;
	struct flow_entry *found = find_entry(t, d, vantage, h, &i);
	if (found) {
		uint32_t idx = slot_entry(&t->slots[i]);
		unsigned l = slot_list(&t->slots[i]);
		bool parked = flow_is_parked(t, idx);
		/* (find_entry() left a parked one's copy in the scratch entry.) */
		if (__builtin_expect(parked, 0) && !(found = flow_unpark(t, idx, t->scratch))) {
			*got = FLOW_NOMEM; /* it stays parked, the packet is counted lost */
			return NULL;
		}
		/* (Unparked, it is one to consider again even if it was the
		 * tail: appending makes it so.) */
		if (t->lru_tail[l] != idx || parked) {
			flow_lru_unlink(t, idx, l);
			flow_lru_append(t, idx, l);
		}
		return &found->conn;
	}

	/* The miss path: only here is the evicted-key memory consulted. */
	struct flow_key k;
	ends_key(pkt_ends(d), d->src.family, vantage, &k);
	int rc = may_resume(t, &k, h, d, rs);
	if (rc < 0) {
		*got = FLOW_DROPPED;
		return NULL;
	}
	*got = rc == 0 ? FLOW_RESUMED : FLOW_NEW;
	/* A resume under pressure replaces the victim room_to_resume() chose. */
	uint32_t idx = rc == 0 && t->pressure ? FLOW_NIL : alloc_entry(t);
	if (idx == FLOW_NIL) {
		uint32_t victim = flow_lru_oldest(t);
		if (victim != FLOW_NIL) {
			t->budget_evicted += t->refused;
			flow_end_entry(t, victim, FLOW_END_EVICTED);
		}
		idx = alloc_entry(t);
		if (idx == FLOW_NIL) {
			*got = FLOW_NOMEM; /* out of memory with nothing to evict */
			return NULL;
		}
		/* Eviction may have shifted slots: find the free one again. */
		for (i = h & t->slot_mask; t->slots[i].idx; i = (i + 1) & t->slot_mask)
			;
	}
	struct flow_entry *e = entry(t, idx);
	struct sum_conn_ident *id = &e->conn.info;
	/* The identity is the key: found from now on, before the caller's
	 * tcp_conn_init() sets it again with the roles. */
	id->client = d->src;
	id->server = d->dst;
	id->client_port = d->tcp.sport;
	id->server_port = d->tcp.dport;
	id->vantage = vantage;
	t->slots[i].hash = h;
	t->slots[i].idx = idx + 1;
	flow_lru_append(t, idx, 0);
	if (*got == FLOW_RESUMED)
		t->cnt.resumed++;
	else
		t->cnt.created++;
	if (++t->cnt.live > t->cnt.max_live)
		t->cnt.max_live = t->cnt.live;
	return &e->conn;
}
