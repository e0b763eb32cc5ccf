/* flow_int.h - the connection table's insides, shared by flow.c and flow_sweep.c only. */
#ifndef TCPSIFT_FLOW_INT_H
#define TCPSIFT_FLOW_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/flow.h"
#include "analyze/engine/park.h"
#include "analyze/engine/pool.h"

enum {
	FLOW_NIL = UINT32_MAX,
	/* Entries a slab of the entry pool holds: memory follows live
	 * connections 64 at a time. */
	FLOW_SLAB_ENTRIES = 64,
};

/*
 * An entry is the connection and its LRU links: 8 bytes before struct
 * tcp_conn. Neither its key nor the key's hash: the connection's identity
 * (tcp_conn.info: client, server, their ports, the vantage point) is the
 * key: ident_is() compares a packet with it, and its hash (for the slot)
 * and key bytes (for the evicted-key memory) are made again from it
 * (ident_hash()). Which LRU list it is on is its slot's mark
 * (FLOW_SLOT_CLOSED), and a connection's entry index is found through its
 * slot (conn_slot(): when it closes or ends, not for every packet).
 *
 * A parked entry (idle for flow_config.park_after_ns) is packed by the
 * table's park (park.h): its links, id and times, the first FLOW_PARK_KEEP
 * bytes, stay in place, so lists, sweeps and sorts read it as they read a
 * full one; anything more of it (its endpoints, for a probe whose hash
 * matched) is unpacked first: flow_unpark(), or a copy in the table's
 * scratch entry for a reader that only looks (flow_view()).
 */
struct flow_entry {
	uint32_t prev, next; /* LRU links, entry indices */
	struct tcp_conn conn;
};

/* What a parked entry keeps as it is: its links, id and times (what LRU
 * walks, sweeps and sorts read), the start of struct tcp_conn. */
#define FLOW_PARK_KEEP                                                                             \
	(offsetof(struct flow_entry, conn) + offsetof(struct sum_conn_ident, last_ts) +            \
	 sizeof(int64_t))
/* The word the others are packed against: the first packet's time, near
 * every timestamp a connection keeps. */
#define FLOW_PARK_BASE                                                                             \
	(offsetof(struct flow_entry, conn) + offsetof(struct sum_conn_ident, first_ts))
_Static_assert(offsetof(struct tcp_conn, info) == 0 &&
		   offsetof(struct sum_conn_ident, id) < offsetof(struct sum_conn_ident, last_ts) &&
		   offsetof(struct sum_conn_ident, first_ts) <
		       offsetof(struct sum_conn_ident, last_ts),
	       "a parked entry keeps its id and times");
_Static_assert(FLOW_PARK_KEEP % 8 == 0 && sizeof(struct flow_entry) % 8 == 0,
	       "park packs whole words");

/* An entry index's block: the entry (bit 0 set: parked, packed) or, for
 * an index not in use, the next free one. */
union flow_ref {
	uintptr_t bits;
	uint32_t next_free;
};

struct flow_slot {
	uint32_t hash;
	uint32_t idx; /* entry index + 1 (<= 2^30), | FLOW_SLOT_CLOSED; 0 = empty */
};

/* slot.idx: the entry is on the closed list (FIN both ways or RST). */
enum { FLOW_SLOT_CLOSED = 1u << 31 };

static inline uint32_t slot_entry(const struct flow_slot *s)
{
	return (s->idx & ~(uint32_t)FLOW_SLOT_CLOSED) - 1;
}

static inline unsigned slot_list(const struct flow_slot *s)
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
	union flow_ref *ref;	    /* by entry index, cfg.max_flows of them */
	struct pool *entries;	    /* full entries */
	struct park *park;	    /* parked ones; NULL: parking off */
	struct flow_entry *scratch; /* a parked entry unpacked for a reader that only looks */
	struct pool_budget *budget; /* NULL: entries are not counted */
	bool refused;		    /* the last alloc_entry() found the budget full */
	uint64_t budget_evicted;    /* connections ended for a new one's place by it */
	uint32_t free_head;	    /* free entry indices, through ref[].next_free */
	uint32_t fresh;		    /* indices from here on were never used */
	/* Two LRU lists: [0] open connections, [1] closed ones, which expire
	 * sooner (closed_linger_ns) so memory follows live connections. */
	uint32_t lru_head[2], lru_tail[2];
	/* The open list is [considered for parking][not yet]: the first entry
	 * of the second part (FLOW_NIL: none). Entries are parked from the
	 * head, oldest first, so no sweep walks those it parked before. */
	uint32_t park_next;
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

/* Entry idx's block: full, or parked (flow_is_parked()). */
static inline struct flow_entry *entry(const struct flow_table *t, uint32_t idx)
{
	return (struct flow_entry *)(t->ref[idx].bits & ~(uintptr_t)1);
}

static inline bool flow_is_parked(const struct flow_table *t, uint32_t idx)
{
	return t->ref[idx].bits & 1;
}

/* Entry idx's connection to read: its own, or a parked one's unpacked in
 * the table's scratch entry (valid until the next such view). */
struct tcp_conn *flow_view(const struct flow_table *t, uint32_t idx);

/* Parked entry idx made a full entry again from copy, its unpacked copy
 * (the view a probe just compared: flow_view()), not unpacked twice; it
 * stays where it is on its list. NULL when no memory for one (the entry
 * stays parked). */
struct flow_entry *flow_unpark(struct flow_table *t, uint32_t idx, const struct flow_entry *copy);

/* Park the open connections idle since before now - cfg.park_after_ns. */
void flow_park_idle(struct flow_table *t, int64_t now);

/* The table's LRU lists and endings (flow.c). */
void flow_lru_unlink(struct flow_table *t, uint32_t idx, unsigned l);
void flow_lru_append(struct flow_table *t, uint32_t idx, unsigned l);
uint32_t flow_lru_oldest(const struct flow_table *t);
void flow_end_entry(struct flow_table *t, uint32_t idx, enum flow_end why);
/* The same for an expired one: FLOW_END_CLOSED on the closed list, else
 * FLOW_END_IDLE. */
void flow_expire_entry(struct flow_table *t, uint32_t idx);

#endif
