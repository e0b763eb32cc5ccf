/* test_evtab.c - unit tests of the evicted-connection memory: insert, find, overwrite, bound. */
#include <stdlib.h>
#include <string.h>

#include "analyze/engine/evtab.h"
#include "tests/unit/unit.h"

/* A well-mixed 32-bit hash (murmur3's finalizer), as flow.c gives. */
static uint32_t hash_of(uint32_t n)
{
	n ^= n >> 16;
	n *= 0x85ebca6bu;
	n ^= n >> 13;
	n *= 0xc2b2ae35u;
	return n ^ (n >> 16);
}

static void key_of(uint32_t n, uint8_t key[EVT_KEY_BYTES])
{
	memset(key, 0, EVT_KEY_BYTES);
	memcpy(key, &n, sizeof(n));
	key[20] = 7;
}

static void test_put_find_forget(void)
{
	struct evt_table *t = evt_new(4000);
	uint8_t k[EVT_KEY_BYTES];

	CHECK(t != NULL);
	CHECK(evt_capacity(t) >= 4000 && evt_capacity(t) < 8192);
	for (uint32_t n = 1; n <= 500; n++) {
		key_of(n, k);
		evt_put(t, k, hash_of(n), n, 10 * n, n & 1);
	}
	unsigned ok = 0;
	for (uint32_t n = 1; n <= 500; n++) {
		key_of(n, k);
		struct evt_rec *r = evt_find(t, k, hash_of(n));
		ok += r && r->id == n && r->last_ts == 10 * n && r->flags == (n & 1);
	}
	CHECK_EQ_U(ok, 500);
	/* Same hash, other key: no match (keys are compared, not just hashes). */
	key_of(9999, k);
	CHECK(evt_find(t, k, hash_of(1)) == NULL);
	/* A key put again replaces its record. */
	key_of(3, k);
	CHECK_EQ_U(evt_put(t, k, hash_of(3), 333, 1, 0), 3); /* id 3 let go */
	CHECK_EQ_U(evt_put(t, k, hash_of(3), 333, 2, 0), 0); /* the same id */
	CHECK_EQ_U(evt_find(t, k, hash_of(3))->id, 333);
	evt_forget(t, evt_find(t, k, hash_of(3)));
	CHECK(evt_find(t, k, hash_of(3)) == NULL);
	CHECK_EQ_U(evt_counters(t)->forgotten, 0);
	evt_free(t);
	evt_free(NULL);
}

/* One bucket (every key hashes alike): the oldest records go first. */
static void test_overwrite_oldest(void)
{
	struct evt_table *t = evt_new(EVT_WAYS);
	uint8_t k[EVT_KEY_BYTES];

	/* Each put past a full bucket says which id it let go (the workers'
	 * id map drops it: analyze/engine/workers.c). */
	for (uint32_t n = 1; n <= EVT_WAYS + 3; n++) {
		key_of(n, k);
		CHECK_EQ_U(evt_put(t, k, 42, n, n, 0), n > EVT_WAYS ? n - EVT_WAYS : 0);
	}
	CHECK_EQ_U(evt_counters(t)->forgotten, 3);
	for (uint32_t n = 1; n <= EVT_WAYS + 3; n++) {
		key_of(n, k);
		CHECK((evt_find(t, k, 42) != NULL) == (n > 3));
	}
	evt_free(t);
}

/* Many more keys than it holds: its size never changes, recent keys stay. */
static void test_bounded(void)
{
	struct evt_table *t = evt_new(4096);
	size_t bytes = evt_bytes(t);
	uint8_t k[EVT_KEY_BYTES];
	unsigned found = 0;

	for (uint32_t n = 1; n <= 200000; n++) {
		key_of(n, k);
		evt_put(t, k, hash_of(n), n, n, 0);
	}
	CHECK_EQ_U(evt_bytes(t), bytes);
	CHECK(bytes < 4096 * 64 + 4096);
	CHECK_EQ_U(evt_counters(t)->remembered, 200000);
	CHECK(evt_counters(t)->forgotten >= 200000 - evt_capacity(t));
	for (uint32_t n = 1; n <= 200000; n++) {
		key_of(n, k);
		found += evt_find(t, k, hash_of(n)) != NULL;
	}
	CHECK(found <= evt_capacity(t) && found > evt_capacity(t) / 2);
	/* The last 1000 put are all there: each bucket forgets its oldest. */
	found = 0;
	for (uint32_t n = 199001; n <= 200000; n++) {
		key_of(n, k);
		found += evt_find(t, k, hash_of(n)) != NULL;
	}
	CHECK_EQ_U(found, 1000);
	evt_free(t);
}

int main(void)
{
	test_put_find_forget();
	test_overwrite_oldest();
	test_bounded();
	return unit_done("evtab");
}
