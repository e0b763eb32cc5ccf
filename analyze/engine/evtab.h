/* evtab.h - the evicted-connection memory: tuples the flow table let go, bounded. */
#ifndef TCPSIFT_EVTAB_H
#define TCPSIFT_EVTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * When the flow table evicts a live connection (--max-flows, --max-memory)
 * it remembers the connection's key here, so that a later packet of it
 * resumes the same connection (same id) instead of starting a new one per
 * packet. The table never grows: its capacity is fixed at creation and a
 * full bucket overwrites its oldest record. Buckets of EVT_WAYS records,
 * one cache line a record:
 *
 *   bucket[hash & mask]: [rec|rec|rec|rec|rec|rec|rec|rec]   next: oldest
 *
 * Keys are opaque EVT_KEY_BYTES bytes compared with memcmp (the caller
 * zeroes any padding) with the caller's 32-bit hash of them.
 */

enum {
	EVT_KEY_BYTES = 40,
	EVT_WAYS = 8,
};

struct evt_rec {
	uint8_t key[EVT_KEY_BYTES];
	uint64_t id;	 /* the connection's id; 0: empty */
	int64_t last_ts; /* its last packet (ns) */
	uint32_t hash;
	uint32_t flags; /* the caller's (flow.c: roles) */
};

struct evt_counters {
	uint64_t remembered; /* records put */
	uint64_t forgotten;  /* records overwritten before their tuple came back */
};

struct evt_table;

/* A table of at least capacity records (rounded up to a power of two
 * buckets); NULL when out of memory. */
struct evt_table *evt_new(uint32_t capacity);

/* Remember key (hash h) as connection id, last seen at last_ts; a record
 * of the same key is replaced, else a full bucket forgets its oldest.
 * Returns the id of the record it let go (it can never resume), else 0. */
uint64_t evt_put(struct evt_table *t, const void *key, uint32_t h, uint64_t id, int64_t last_ts,
		 uint32_t flags);

/* The record of key, or NULL; valid until the next evt_put() or evt_forget(). */
struct evt_rec *evt_find(struct evt_table *t, const void *key, uint32_t h);

/* Drop a record from evt_find() (its connection resumed or restarted). */
void evt_forget(struct evt_table *t, struct evt_rec *r);

uint32_t evt_capacity(const struct evt_table *t);
size_t evt_bytes(const struct evt_table *t); /* memory it holds, all allocated at evt_new() */
const struct evt_counters *evt_counters(const struct evt_table *t);

void evt_free(struct evt_table *t); /* NULL is a no-op */

#endif
