/* evtab.c - evicted connections' keys in fixed buckets, oldest overwritten. */
#include "analyze/engine/evtab.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct evt_rec) == 64, "one cache line a record");

struct evt_table {
	struct evt_rec *recs; /* nbuckets * EVT_WAYS */
	uint8_t *next;	      /* per bucket: the way to overwrite when full (FIFO) */
	uint32_t mask;	      /* nbuckets - 1 */
	unsigned shift;	      /* 32 - log2(nbuckets) */
	struct evt_counters cnt;
};

struct evt_table *evt_new(uint32_t capacity)
{
	struct evt_table *t = calloc(1, sizeof(*t));
	uint32_t nb = 1;

	if (!t)
		return NULL;
	t->shift = 32;
	while ((uint64_t)nb * EVT_WAYS < capacity && nb < (1u << 26)) {
		nb <<= 1;
		t->shift--;
	}
	t->mask = nb - 1;
	t->recs = calloc((size_t)nb * EVT_WAYS, sizeof(*t->recs));
	t->next = calloc(nb, 1);
	if (!t->recs || !t->next) {
		evt_free(t);
		return NULL;
	}
	return t;
}

void evt_free(struct evt_table *t)
{
	if (!t)
		return;
	free(t->recs);
	free(t->next);
	free(t);
}

static struct evt_rec *bucket(const struct evt_table *t, uint32_t h)
{
	/* Fibonacci hashing: the top bits of the product depend on all of h
	 * (the flow index uses its low bits; the two must not correlate). */
	uint32_t b = t->shift < 32 ? (h * 0x9E3779B1u) >> t->shift : 0;
	return &t->recs[(size_t)b * EVT_WAYS];
}

struct evt_rec *evt_find(struct evt_table *t, const void *key, uint32_t h)
{
	struct evt_rec *b = bucket(t, h);

	for (int w = 0; w < EVT_WAYS; w++)
		if (b[w].id && b[w].hash == h && memcmp(b[w].key, key, EVT_KEY_BYTES) == 0)
			return &b[w];
	return NULL;
}

uint64_t evt_put(struct evt_table *t, const void *key, uint32_t h, uint64_t id, int64_t last_ts,
		 uint32_t flags)
{
	struct evt_rec *b = bucket(t, h), *r = evt_find(t, key, h);

	for (int w = 0; !r && w < EVT_WAYS; w++)
		if (!b[w].id)
			r = &b[w];
	if (!r) {
		/* Full: the records went in in FIFO order, so next is the oldest. */
		uint8_t *nx = &t->next[(b - t->recs) / EVT_WAYS];
		r = &b[*nx];
		*nx = (uint8_t)((*nx + 1) % EVT_WAYS);
		t->cnt.forgotten++;
	}
	uint64_t gone = r->id != id ? r->id : 0;
	memcpy(r->key, key, EVT_KEY_BYTES);
	r->id = id;
	r->last_ts = last_ts;
	r->hash = h;
	r->flags = flags;
	t->cnt.remembered++;
	return gone;
}

void evt_forget(struct evt_table *t, struct evt_rec *r)
{
	(void)t;
	r->id = 0;
}

uint32_t evt_capacity(const struct evt_table *t)
{
	return (t->mask + 1) * EVT_WAYS;
}

size_t evt_bytes(const struct evt_table *t)
{
	return sizeof(*t) + (size_t)(t->mask + 1) * (EVT_WAYS * sizeof(struct evt_rec) + 1);
}

const struct evt_counters *evt_counters(const struct evt_table *t)
{
	return &t->cnt;
}
