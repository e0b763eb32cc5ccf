/* flow.h - the connection table: bidirectional 5-tuple -> struct tcp_conn. */
#ifndef TCPSIFT_FLOW_H
#define TCPSIFT_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analyze/engine/counters.h"
#include "analyze/engine/decode.h"
#include "analyze/engine/tcp.h"

/*
 * The table owns every live struct tcp_conn. Memory grows with live
 * connections, in chunks, up to max_flows; the index is sized for max_flows
 * at creation. Connections are kept in least-recently-used order:
 *
 *   lru head (idle longest) <-> ... <-> tail (packet just seen)
 *
 * so idle expiry and eviction under --max-flows take from the head;
 * closed connections sit on a second such list and go first. A
 * connection leaves the table through the caller's end callback, which
 * gets it one last time (to summarize) before its slot is reused.
 */

struct flow_config {
	uint32_t max_flows;	  /* live connection cap (>= 1) */
	uint32_t remember;	  /* evicted connections remembered (0: FLOW_REMEMBER_MIN or
				     2 x max_flows, whichever is more) */
	int64_t idle_timeout_ns;  /* open connections: <= 0 never expire */
	int64_t closed_linger_ns; /* closed connections: <= 0 never expire */
	int64_t park_after_ns;	  /* open connections idle this long are parked: <= 0 never */
	/* Connections are loaded early (flow_prefetch(), flow_peek()) from
	 * this many live on (0: always): fewer stay in a last-level cache. */
	uint32_t prefetch_live;
};

typedef void flow_end_fn(void *ctx, struct tcp_conn *c, enum flow_end why);
/* An evicted connection's id that can no longer resume: its key was let go
 * (a fuller table, or the tuple started anew). */
typedef void flow_forget_fn(void *ctx, uint64_t id);

struct flow_table;

/* NULL on failure with the reason in errbuf. */
struct flow_table *flow_new(const struct flow_config *cfg, flow_end_fn *end, void *ctx,
			    char *errbuf, size_t errlen);

enum { FLOW_REMEMBER_MIN = 65536 };

/* What flow_lookup() found. */
enum flow_got {
	FLOW_HIT = 0, /* a live connection */
	FLOW_NEW,     /* a new one: the caller initializes it (tcp_conn_init) */
	FLOW_RESUMED, /* an evicted one back: initialize it from struct flow_resume */
	/* (For both, with this packet and its vantage: the connection's
	 * identity is the table's key, tcp_conn.info's endpoints, ports and
	 * vantage; they must not change while it lives.) */
	FLOW_DROPPED, /* NULL: an evicted one, no idle connection to make room */
	FLOW_NOMEM,   /* NULL: out of memory */
};

/* An evicted connection coming back: its id and roles before eviction. */
struct flow_resume {
	uint64_t id;
	bool src_is_client; /* the packet's source was the connection's client */
};

/*
 * The connection a decoded TCP packet seen at a vantage point (see
 * analyze/engine/source.h) belongs to. On a miss, a connection the table
 * evicted earlier (its key remembered, bounded: analyze/engine/evtab.h)
 * resumes with its old id unless the packet is a SYN starting a new one;
 * else a new one is created. A full table (or one under pressure, see
 * flow_set_pressure()) makes room by evicting its least recently used
 * connection, except for a resume: that evicts only a connection idle
 * since before the returning one was evicted (or a closed one), and is
 * otherwise dropped (FLOW_DROPPED, counted), so that a working set larger
 * than the table does not turn every packet into an eviction. *got says
 * which; rs is filled for FLOW_RESUMED. hash: the packet's flow_hash(), or
 * 0 to compute it. The pointer is valid until the next flow_* call that
 * may end connections.
 */
struct tcp_conn *flow_lookup(struct flow_table *t, const struct dec_packet *d, uint32_t vantage,
			     uint32_t hash, enum flow_got *got, struct flow_resume *rs);

/* Under pressure (the engine's --max-memory), a resume counts the table
 * as full: it must evict an older idle connection or be dropped. */
void flow_set_pressure(struct flow_table *t, bool on);

/* Call fn (with flow_new()'s ctx) for each id flow_forget_fn describes. */
void flow_on_forget(struct flow_table *t, flow_forget_fn *fn);

/* Evict the least recently used connection (closed ones first), as a full
 * table does: 0, or -1 when the table is empty. */
int flow_evict_oldest(struct flow_table *t);

/* Bytes the table holds for its live connections, index and evicted-key
 * memory (what --max-memory counts; chunks stay allocated for reuse). */
size_t flow_mem_bytes(const struct flow_table *t);

/* Chunks of entries from now on count in b (pool.h; NULL: none): a chunk
 * beyond its cap is not taken, a new connection takes the place of the
 * least recently used one instead. */
struct pool_budget;
void flow_set_budget(struct flow_table *t, struct pool_budget *b);

/* Connections ended to make room for a new one because the budget had
 * no room for more entries (part of the evictions: memory's, not
 * max_flows'). */
uint64_t flow_budget_evictions(const struct flow_table *t);

/* Bytes of one live connection's entry, and of the chunk of entries
 * taken at a time (for sizing a table under a memory cap). */
size_t flow_entry_bytes(void);
size_t flow_chunk_bytes(void);

/* One endpoint's mix (flow_ends_hash()): its address words and then its
 * port, each a multiply of its own (a port XORed into an address word
 * cancels out when a client's port and address count up together, as a
 * scan's or a generator's do). */
static inline uint64_t flow_end_mix(const uint8_t *addr, uint16_t port)
{
	const uint64_t m = 0x9E3779B97F4A7C15ull;
	uint64_t lo, hi;

	memcpy(&lo, addr, 8);
	memcpy(&hi, addr + 8, 8);
	uint64_t h = (lo * m ^ hi) * m;
	h = (h ^ port) * m;
	return h ^ (h >> 29);
}

/*
 * A connection's hash from one packet's endpoints (dec_addr.a), the same
 * either way round: the sum of the two endpoints' mixes, so no comparison
 * puts them in order first. The --threads reader routes a packet by it and
 * the table's slot hash is made from it (flow_slot_hash()): a worker given
 * the reader's does not hash again.
 */
static inline uint64_t flow_ends_hash(const uint8_t *a, uint16_t pa, const uint8_t *b, uint16_t pb)
{
	return flow_end_mix(a, pa) + flow_end_mix(b, pb);
}

/* flow_ends_hash() of two IPv4 endpoints (struct dec_addr holds such an
 * address in its first 4 bytes, the rest zero), from their 4 bytes. */
static inline uint64_t flow_ends_hash4(const uint8_t a[4], uint16_t pa, const uint8_t b[4],
				       uint16_t pb)
{
	uint8_t wa[16] = {0}, wb[16] = {0};

	memcpy(wa, a, 4);
	memcpy(wb, b, 4);
	return flow_ends_hash(wa, pa, wb, pb);
}

/* The index's hash of a connection: its ends' hash with the address family
 * and vantage (flows are keyed by it), never 0 (flow_lookup(): unknown). */
static inline uint32_t flow_slot_hash(uint64_t ends, uint8_t family, uint32_t vantage)
{
	uint64_t h = (ends ^ ((uint64_t)family << 32 ^ (uint64_t)(uint16_t)vantage << 40)) *
		     0x9E3779B97F4A7C15ull;
	h ^= h >> 29;
	uint32_t v = (uint32_t)(h ^ (h >> 32));
	return v ? v : 1; /* (not v | 1: the low bits choose the slot) */
}

/*
 * Hints for a caller that knows the packets coming (a batch): flow_hash()
 * returns the key's slot hash (or flow_hash_ends() from its ends' hash,
 * family and vantage) and starts loading its index slot; some packets
 * later flow_prefetch() starts loading the entry the slot names, so that
 * flow_lookup() (given that hash) finds both in cache. They change nothing.
 */
uint32_t flow_hash(const struct flow_table *t, const struct dec_packet *d, uint32_t vantage);
uint32_t flow_hash_ends(const struct flow_table *t, uint64_t ends, uint8_t family,
			uint32_t vantage);
void flow_prefetch(const struct flow_table *t, uint32_t hash);
/* ... and a few packets later still, the connection the hash most likely
 * names (the first with it), to load what it points to: a hint, NULL when
 * none or parked. Both do nothing below cfg.prefetch_live live
 * (flow_prefetch_pays()): their probe alone costs 60 instructions. */
const struct tcp_conn *flow_peek(const struct flow_table *t, uint32_t hash);
bool flow_prefetch_pays(const struct flow_table *t);

/* The live connection of a 4-tuple at a vantage point, or NULL; no creation. */
struct tcp_conn *flow_find(struct flow_table *t, const struct dec_packet *d, uint32_t vantage);

/* End c now (why is passed to the callback) and forget it. */
void flow_end(struct flow_table *t, struct tcp_conn *c, enum flow_end why);

/* c has closed (FIN both ways or RST): it now expires after closed_linger. */
void flow_set_closed(struct flow_table *t, struct tcp_conn *c);

/*
 * End connections idle since before now - idle_timeout (closed_linger), in
 * id order; then park the open ones idle since before now - park_after:
 * their entry packed without its zero bytes (analyze/engine/park.h), a
 * third of its size or less, until their next packet unpacks it. Nobody
 * outside the table sees a parked connection as such: flow_lookup() and
 * flow_find() unpack it, the walks below show an unpacked copy.
 */
void flow_expire(struct flow_table *t, int64_t now);

/* End every live connection in first-packet order (end of input). */
void flow_drain(struct flow_table *t);

/* The same one connection at a time (workers.c interleaves N tables by id):
 * flow_drain_start() once (0, or ERR_NOMEM: then LRU order), then
 * flow_drain_peek() is the id of the connection flow_drain_next() ends, 0
 * when none is left. Nothing else may change the table in between. */
int flow_drain_start(struct flow_table *t);
uint64_t flow_drain_peek(const struct flow_table *t);
void flow_drain_next(struct flow_table *t);

/* Call fn for every live connection, LRU order (open ones first); fn must not
 * change the table. */
void flow_foreach(const struct flow_table *t, void (*fn)(void *ctx, const struct tcp_conn *c),
		  void *ctx);

/* The same, for fn that changes the connections but not the table (to
 * release what they hold before flow_free()): a parked one's changes are
 * made to its copy and not kept. */
void flow_foreach_mut(struct flow_table *t, void (*fn)(void *ctx, struct tcp_conn *c), void *ctx);

const struct flow_counters *flow_counters(const struct flow_table *t);

void flow_free(struct flow_table *t); /* NULL is a no-op; does not call end */

#endif
