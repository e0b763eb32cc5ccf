/* flow.c - open-addressing connection table with LRU order and bounded size. */
#include "analyze/engine/flow.h"
#include "analyze/engine/evtab.h"
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
	FLOW_CHUNK = 1024, /* entries allocated at a time: memory follows live flows */
	FLOW_NIL = UINT32_MAX,
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

/*
 * An entry is the connection and its LRU links: 8 bytes before struct
 * tcp_conn (984 bytes in all, a size the compiler indexes by with one
 * multiply; 992 took three instructions at each of entry()'s uses).
 * Neither its key nor the key's hash: the connection's identity
 * (tcp_conn.info: client, server, their ports, the vantage point) is the
 * key: ident_is() compares a packet with it, and its hash (for the slot)
 * and key bytes (for the evicted-key memory) are made again from it
 * (ident_hash()). Which LRU list it is on is its slot's mark
 * (FLOW_SLOT_CLOSED), and a connection's entry index is found through its
 * slot (conn_slot(): when it closes or ends, not for every packet).
 */
struct flow_entry {
	uint32_t prev, next; /* LRU links, entry indices; next: the free list's too */
	struct tcp_conn conn;
};

struct flow_slot {
	uint32_t hash;
	uint32_t idx; /* entry index + 1 (<= 2^30), | FLOW_SLOT_CLOSED; 0 = empty */
};

/* slot.idx: the entry is on the closed list (FIN both ways or RST). */
enum { FLOW_SLOT_CLOSED = 1u << 31 };

static uint32_t slot_entry(const struct flow_slot *s)
{
	return (s->idx & ~(uint32_t)FLOW_SLOT_CLOSED) - 1;
}

static unsigned slot_list(const struct flow_slot *s)
{
	return s->idx >> 31;
}

struct flow_table {
	struct flow_config cfg;
	flow_end_fn *end;
	flow_forget_fn *forget; /* NULL: nobody asked */
	void *ctx;
	struct flow_slot *slots;
	uint32_t slot_mask;
	struct flow_entry **chunks;
	uint32_t nchunks, max_chunks;
	struct pool_budget *budget; /* NULL: chunks are not counted */
	bool refused;		    /* the last alloc_entry() found the budget full */
	uint64_t budget_evicted;    /* connections ended for a new one's place by it */
	uint32_t free_head;	    /* free list through .next */
	/* Entries [fresh, fresh_end) of the last chunk were never used: taken
	 * after the free list, in order, so that a chunk's pages are touched
	 * as its entries are (a free list through all of them wrote each). */
	uint32_t fresh, fresh_end;
	/* Two LRU lists: [0] open connections, [1] closed ones, which expire
	 * sooner (closed_linger_ns) so memory follows live connections. */
	uint32_t lru_head[2], lru_tail[2];
	/* Entry indices to end in id order (expiry, drain), kept between
	 * sweeps so that one costs no allocation once it has grown. */
	uint32_t *order;
	uint32_t order_cap, order_len, order_pos;
	bool draining_sorted;
	struct evt_table *gone; /* evicted keys, allocated at the first eviction */
	bool gone_failed;	/* ... which found no memory */
	bool pressure;		/* flow_set_pressure() */
	struct flow_counters cnt;
};

static struct flow_entry *entry(const struct flow_table *t, uint32_t idx)
{
	return &t->chunks[idx / FLOW_CHUNK][idx % FLOW_CHUNK];
}

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
 * key's canonical order: a the lower (address, port) endpoint. Its hash
 * and key (where the evicted-key memory needs one) both start here.
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

/* A multiply-xorshift mix: fast, and good enough for a power-of-two table.
 * The same value as the key's bytes would give, from the ends' pointers:
 * the packet's hash needs no copy of its addresses. */
static inline __attribute__((always_inline)) uint32_t ends_hash(struct flow_ends e, uint8_t family,
								uint32_t vantage)
{
	const uint64_t m = 0x9E3779B97F4A7C15ull;
	uint64_t h = load64(e.a) * m;

	/* Ports in a step of their own: XORed into the same word as the
	 * addresses, a client's port and address counting up together (a
	 * scan, a generator) cancel out, and thousands of keys share a hash. */
	h = (h ^ load64(e.a + 8)) * m;
	h = (h ^ load64(e.b)) * m;
	h = (h ^ load64(e.b + 8)) * m;
	h = (h ^ ((uint64_t)e.pa << 16 ^ e.pb ^ (uint64_t)family << 32 ^
		  (uint64_t)(uint16_t)vantage << 40)) *
	    m;
	h ^= h >> 29;
	return (uint32_t)(h ^ (h >> 32));
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
	return ends_hash(pkt_ends(d), d->src.family, vantage);
}

/* A live connection's ends, as its first packet's were (the roles only
 * order the same two endpoints), and its key's hash. */
static struct flow_ends ident_ends(const struct sum_conn_ident *i)
{
	return ends_of(i->client.a, i->server.a, i->client_port, i->server_port);
}

static uint32_t ident_hash(const struct sum_conn_ident *i)
{
	return ends_hash(ident_ends(i), i->client.family, i->vantage);
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
	t->max_chunks = (cfg->max_flows + FLOW_CHUNK - 1) / FLOW_CHUNK;
	/* An array of pointers: sizeof a pointer is right. */
	t->chunks = calloc(t->max_chunks, sizeof(*t->chunks)); // NOLINT(bugprone-sizeof-expression)
	if (!t->slots || !t->chunks)
		goto nomem;
	t->free_head = FLOW_NIL;
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
	for (uint32_t k = 0; t->chunks && k < t->nchunks; k++)
		free(t->chunks[k]);
	if (t->budget)
		t->budget->used -= (size_t)t->nchunks * FLOW_CHUNK * sizeof(struct flow_entry);
	free(t->order);
	free(t->chunks);
	free(t->slots);
	evt_free(t->gone);
	free(t);
}

const struct flow_counters *flow_counters(const struct flow_table *t)
{
	return &t->cnt;
}

/* Take idx out of LRU list l (0 open, 1 closed). */
static void lru_unlink(struct flow_table *t, uint32_t idx, unsigned l)
{
	struct flow_entry *e = entry(t, idx);

	if (e->prev != FLOW_NIL)
		entry(t, e->prev)->next = e->next;
	else
		t->lru_head[l] = e->next;
	if (e->next != FLOW_NIL)
		entry(t, e->next)->prev = e->prev;
	else
		t->lru_tail[l] = e->prev;
}

static void lru_append(struct flow_table *t, uint32_t idx, unsigned l)
{
	struct flow_entry *e = entry(t, idx);

	e->prev = t->lru_tail[l];
	e->next = FLOW_NIL;
	if (t->lru_tail[l] != FLOW_NIL)
		entry(t, t->lru_tail[l])->next = idx;
	else
		t->lru_head[l] = idx;
	t->lru_tail[l] = idx;
}

/* The least recently used connection, closed ones first. */
static uint32_t lru_oldest(const struct flow_table *t)
{
	return t->lru_head[1] != FLOW_NIL ? t->lru_head[1] : t->lru_head[0];
}

static uint32_t alloc_entry(struct flow_table *t)
{
	if (t->free_head == FLOW_NIL && t->fresh == t->fresh_end) {
		t->refused = t->nchunks < t->max_chunks &&
			     !pool_budget_take(t->budget, FLOW_CHUNK * sizeof(struct flow_entry));
		if (t->nchunks == t->max_chunks || t->refused)
			return FLOW_NIL;
		struct flow_entry *c = malloc(FLOW_CHUNK * sizeof(*c));
		if (!c) {
			if (t->budget)
				t->budget->used -= FLOW_CHUNK * sizeof(*c);
			return FLOW_NIL;
		}
		t->chunks[t->nchunks] = c;
		t->fresh = t->nchunks * FLOW_CHUNK;
		t->fresh_end = t->fresh + FLOW_CHUNK;
		if (t->fresh_end > t->cfg.max_flows)
			t->fresh_end = t->cfg.max_flows;
		t->nchunks++;
	}
	if (t->free_head == FLOW_NIL)
		return t->fresh++;
	uint32_t idx = t->free_head;
	t->free_head = entry(t, idx)->next;
	return idx;
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

/* End the connection in slot s. */
static void end_slot(struct flow_table *t, uint32_t s, enum flow_end why)
{
	uint32_t idx = slot_entry(&t->slots[s]), h = t->slots[s].hash;
	unsigned l = slot_list(&t->slots[s]);
	struct flow_entry *e = entry(t, idx);
	const struct sum_conn_ident *i = &e->conn.info;
	/* Before the callback: the key as the table found it. */
	struct flow_key k;

	if (why == FLOW_END_EVICTED)
		ends_key(ident_ends(i), i->client.family, i->vantage, &k);
	t->end(t->ctx, &e->conn, why);
	if (why == FLOW_END_EVICTED)
		remember(t, i, &k, h);
	t->cnt.ended[why]++;
	index_remove(t, s);
	lru_unlink(t, idx, l);
	e->next = t->free_head;
	t->free_head = idx;
	t->cnt.live--;
}

/* The slot of live entry idx. */
static uint32_t entry_slot(const struct flow_table *t, uint32_t idx)
{
	return slot_of(t, idx, ident_hash(&entry(t, idx)->conn.info));
}

static void end_entry(struct flow_table *t, uint32_t idx, enum flow_end why)
{
	end_slot(t, entry_slot(t, idx), why);
}

void flow_end(struct flow_table *t, struct tcp_conn *c, enum flow_end why)
{
	uint32_t s = conn_slot(t, c);

	if (s != FLOW_NIL)
		end_slot(t, s, why);
}

void flow_set_closed(struct flow_table *t, struct tcp_conn *c)
{
	uint32_t s = conn_slot(t, c);

	if (s == FLOW_NIL || slot_list(&t->slots[s]))
		return;
	uint32_t idx = slot_entry(&t->slots[s]);
	lru_unlink(t, idx, 0);
	t->slots[s].idx |= FLOW_SLOT_CLOSED;
	lru_append(t, idx, 1);
}

static inline __attribute__((always_inline)) struct flow_entry *
find_entry(struct flow_table *t, const struct dec_packet *d, uint32_t vantage, uint32_t h,
	   uint32_t *slot)
{
	uint32_t i = h & t->slot_mask;

	for (; t->slots[i].idx; i = (i + 1) & t->slot_mask) {
		if (t->slots[i].hash != h)
			continue;
		struct flow_entry *e = entry(t, slot_entry(&t->slots[i]));
		if (ident_is(&e->conn.info, d, vantage)) {
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
	return e ? &e->conn : NULL;
}

uint32_t flow_hash(const struct flow_table *t, const struct dec_packet *d, uint32_t vantage)
{
	uint32_t h = pkt_hash(d, vantage);
	__builtin_prefetch(&t->slots[h & t->slot_mask]);
	return h;
}

void flow_prefetch(const struct flow_table *t, uint32_t h)
{
	/* The slots are in cache by now (flow_hash); the first one with this
	 * hash is nearly always the connection. */
	for (uint32_t i = h & t->slot_mask; t->slots[i].idx; i = (i + 1) & t->slot_mask) {
		if (t->slots[i].hash != h)
			continue;
		const char *e = (const char *)entry(t, slot_entry(&t->slots[i]));
		for (unsigned off = 0; off < FLOW_PREFETCH_BYTES; off += 64)
			__builtin_prefetch(e + off);
		return;
	}
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
	uint32_t victim = lru_oldest(t);

	if (victim == FLOW_NIL)
		return -1;
	end_entry(t, victim, FLOW_END_EVICTED);
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
	return FLOW_CHUNK * sizeof(struct flow_entry);
}

void flow_set_budget(struct flow_table *t, struct pool_budget *b)
{
	t->budget = b;
}

size_t flow_mem_bytes(const struct flow_table *t)
{
	return (size_t)t->cnt.live * sizeof(struct flow_entry) +
	       (size_t)(t->slot_mask + 1) * sizeof(*t->slots) +
	       t->max_chunks * sizeof(struct flow_entry *) + (t->gone ? evt_bytes(t->gone) : 0);
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
	if (!t->pressure &&
	    (t->free_head != FLOW_NIL || t->fresh < t->fresh_end || t->nchunks < t->max_chunks))
		return true;
	if (t->lru_head[1] != FLOW_NIL)
		return true;
	uint32_t victim = t->lru_head[0];
	if (victim == FLOW_NIL)
		return false;
	const struct tcp_conn *v = &entry(t, victim)->conn;
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
			     enum flow_got *got, struct flow_resume *rs)
{
	struct flow_ends ends = pkt_ends(d);
	uint32_t h = ends_hash(ends, d->src.family, vantage);
	uint32_t i;

	*got = FLOW_HIT;
	struct flow_entry *found = find_entry(t, d, vantage, h, &i);
	if (found) {
		uint32_t idx = slot_entry(&t->slots[i]);
		unsigned l = slot_list(&t->slots[i]);
		if (t->lru_tail[l] != idx) {
			lru_unlink(t, idx, l);
			lru_append(t, idx, l);
		}
		return &found->conn;
	}

	/* The miss path: only here is the evicted-key memory consulted. */
	struct flow_key k;
	ends_key(ends, d->src.family, vantage, &k);
	int rc = may_resume(t, &k, h, d, rs);
	if (rc < 0) {
		*got = FLOW_DROPPED;
		return NULL;
	}
	*got = rc == 0 ? FLOW_RESUMED : FLOW_NEW;
	/* A resume under pressure replaces the victim room_to_resume() chose. */
	uint32_t idx = rc == 0 && t->pressure ? FLOW_NIL : alloc_entry(t);
	if (idx == FLOW_NIL) {
		uint32_t victim = lru_oldest(t);
		if (victim != FLOW_NIL) {
			t->budget_evicted += t->refused;
			end_entry(t, victim, FLOW_END_EVICTED);
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
	lru_append(t, idx, 0);
	if (*got == FLOW_RESUMED)
		t->cnt.resumed++;
	else
		t->cnt.created++;
	if (++t->cnt.live > t->cnt.max_live)
		t->cnt.max_live = t->cnt.live;
	return &e->conn;
}

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

void flow_expire(struct flow_table *t, int64_t now)
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
		for (uint32_t k = 0; k < n; k++) {
			uint32_t s = entry_slot(t, t->order[k]);
			end_slot(t, s, slot_list(&t->slots[s]) ? FLOW_END_CLOSED : FLOW_END_IDLE);
		}
		return;
	}
	for (int l = 0; l < 2; l++) {
		if (timeout[l] <= 0)
			continue;
		while (t->lru_head[l] != FLOW_NIL) {
			struct flow_entry *e = entry(t, t->lru_head[l]);
			if (now - e->conn.info.last_ts < timeout[l])
				break;
			end_entry(t, t->lru_head[l], l ? FLOW_END_CLOSED : FLOW_END_IDLE);
		}
	}
}

void flow_foreach(const struct flow_table *t, void (*fn)(void *ctx, const struct tcp_conn *c),
		  void *ctx)
{
	for (int l = 0; l < 2; l++)
		for (uint32_t idx = t->lru_head[l]; idx != FLOW_NIL; idx = entry(t, idx)->next)
			fn(ctx, &entry(t, idx)->conn);
}

void flow_foreach_mut(struct flow_table *t, void (*fn)(void *ctx, struct tcp_conn *c), void *ctx)
{
	for (int l = 0; l < 2; l++)
		for (uint32_t idx = t->lru_head[l]; idx != FLOW_NIL; idx = entry(t, idx)->next)
			fn(ctx, &entry(t, idx)->conn);
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
		return lru_oldest(t);
	return t->order_pos < t->order_len ? t->order[t->order_pos] : FLOW_NIL;
}

const struct tcp_conn *flow_drain_peek(const struct flow_table *t)
{
	uint32_t idx = drain_peek_idx(t);
	return idx == FLOW_NIL ? NULL : &entry(t, idx)->conn;
}

void flow_drain_next(struct flow_table *t)
{
	uint32_t idx = drain_peek_idx(t);

	if (idx == FLOW_NIL)
		return;
	t->order_pos += t->draining_sorted;
	end_entry(t, idx, FLOW_END_DONE);
}

void flow_drain(struct flow_table *t)
{
	flow_drain_start(t);
	while (drain_peek_idx(t) != FLOW_NIL)
		flow_drain_next(t);
}
