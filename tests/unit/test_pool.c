/* test_pool.c - unit tests of the block pool (analyze/engine/pool.h). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyze/engine/pool.h"
#include "tests/unit/unit.h"

static bool all_zero(const unsigned char *b, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (b[k])
			return false;
	return true;
}

/* Blocks are zeroed, aligned, distinct, and slabs come as needed. */
static void test_get(void)
{
	struct pool *p = pool_new(100, 4);
	unsigned char *b[10];

	CHECK(p != NULL);
	CHECK(pool_stats(p)->block_size >= 100);
	CHECK_EQ_U(pool_stats(p)->block_size, 104); /* a multiple of 8 */
	CHECK_EQ_U(pool_stats(p)->slabs, 0);
	for (int k = 0; k < 10; k++) {
		b[k] = pool_get(p);
		CHECK(b[k] != NULL);
		CHECK(all_zero(b[k], 100));
		CHECK_EQ_U((uintptr_t)b[k] % 8, 0); /* a type of 100 bytes needs at most 4 */
		memset(b[k], 0xa5, 100);
	}
	for (int k = 0; k < 10; k++)
		for (int j = k + 1; j < 10; j++)
			CHECK(b[k] != b[j]);
	CHECK_EQ_U(pool_stats(p)->slabs, 3); /* 4 blocks a slab */
	CHECK_EQ_U(pool_stats(p)->in_use, 10);
	CHECK_EQ_U(pool_stats(p)->max_in_use, 10);
	pool_free(p);
}

/* Blocks of a size that is a multiple of 16 (a type that may need 16)
 * start at multiples of 16; of 24 bytes, 24 apart at multiples of 8. */
static void test_align(void)
{
	static const size_t sizes[] = {16, 24, 32, 40, 48, 160, 20, 12};
	static const size_t block[] = {16, 24, 32, 40, 48, 160, 24, 16};

	for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct pool *p = pool_new(sizes[k], 0);
		size_t want = block[k] % 16 == 0 ? 16 : 8;
		bool ok = true;

		CHECK(p != NULL);
		CHECK_EQ_U(pool_stats(p)->block_size, block[k]);
		for (int n = 0; n < 100; n++)
			ok &= (uintptr_t)pool_get(p) % want == 0;
		CHECK(ok);
		pool_free(p);
	}
}

/* A returned block is reused (zeroed again) before any new slab. */
static void test_reuse(void)
{
	struct pool *p = pool_new(48, 2);
	unsigned char *a = pool_get(p), *b = pool_get(p);

	memset(a, 0xff, 48);
	pool_put(p, a);
	CHECK_EQ_U(pool_stats(p)->in_use, 1);
	unsigned char *c = pool_get(p);
	CHECK(c == a);
	CHECK(all_zero(c, 48));
	CHECK_EQ_U(pool_stats(p)->slabs, 1);
	CHECK_EQ_U(pool_stats(p)->max_in_use, 2);
	/* Many get/put cycles: memory follows the blocks in use. */
	for (int k = 0; k < 10000; k++) {
		void *x = pool_get(p);
		pool_put(p, x);
	}
	CHECK_EQ_U(pool_stats(p)->slabs, 2);
	/* pool_get_raw(): the same blocks, in use the same way. */
	void *r = pool_get_raw(p);
	CHECK(r != NULL);
	CHECK_EQ_U(pool_stats(p)->in_use, 3);
	pool_put(p, r);
	pool_put(p, b);
	pool_put(p, c);
	pool_put(p, NULL);
	CHECK_EQ_U(pool_stats(p)->in_use, 0);
	pool_free(p);
}

/* Tiny blocks still hold the free-list link; the default slab size. */
static void test_sizes(void)
{
	struct pool *p = pool_new(1, 0);

	CHECK(pool_stats(p)->block_size >= sizeof(void *));
	void *x = pool_get(p);
	CHECK(x != NULL);
	pool_put(p, x);
	pool_free(p);
	CHECK(pool_new(0, 0) == NULL);
	pool_free(NULL);
}

int main(void)
{
	test_get();
	test_align();
	test_reuse();
	test_sizes();
	return unit_done("pool");
}
