/* test_connstore.c - connection summaries kept by id, in memory and spilled to a file. */
#include <stdlib.h>
#include <string.h>

#include "analyze/report/connstore.h"
#include "common/err.h"
#include "tests/unit/unit.h"

static struct sum_conn conn(uint64_t id)
{
	struct sum_conn c;

	memset(&c, 0, sizeof(c));
	c.id = id;
	c.first_ts = (int64_t)id * 1000;
	c.dir[SUM_C2S].packets = id * 3;
	return c;
}

/* Ids 1..n put in a scrambled order (every id once, or with holes where
 * id % hole == 0), read back in id order. */
static void run(size_t mem_cap, uint64_t n, uint64_t hole, int want_spill)
{
	char err[128];
	struct cs_store *s = cs_new(mem_cap, err, sizeof(err));
	const struct sum_conn *a;
	size_t got;
	uint64_t expect = 0;

	CHECK(s != NULL);
	if (!s)
		return;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t id = (k * 7919) % n + 1; /* 7919 is prime: a permutation of 1..n */
		if (hole && id % hole == 0)
			continue;
		struct sum_conn c = conn(id);
		CHECK(cs_put(s, &c) == 0);
	}
	CHECK_EQ_U(cs_spilled(s) != 0, want_spill);
	CHECK(cs_finish(s, &a, &got) == 0);
	for (uint64_t id = 1; id <= n; id++)
		expect += !(hole && id % hole == 0);
	CHECK_EQ_U(got, expect);
	uint64_t prev = 0, bad = 0;
	for (size_t k = 0; k < got; k++) {
		bad += a[k].id <= prev || (hole && a[k].id % hole == 0) ||
		       a[k].first_ts != (int64_t)a[k].id * 1000 ||
		       a[k].dir[SUM_C2S].packets != a[k].id * 3;
		prev = a[k].id;
		if ((k & 1023) == 1023)
			cs_release(s, 0, k); /* pages dropped behind stay readable */
	}
	CHECK_EQ_U(bad, 0);
	if (got)
		CHECK_EQ_U(a[0].id, 1);
	{
		struct sum_conn c = conn(1);
		CHECK(cs_put(s, &c) == ERR_USAGE); /* after cs_finish */
	}
	cs_free(s);
}

int main(void)
{
	size_t rec = sizeof(struct sum_conn);

	run(64u << 20, 1000, 0, 0);  /* in memory */
	run(64u << 20, 1000, 10, 0); /* in memory, with holes */
	run(100 * rec, 5000, 0, 1);  /* spilled */
	run(100 * rec, 5000, 3, 1);  /* spilled, with holes */
	run(0, 3000, 0, 1);	     /* spilled from the first */
	{
		char err[128];
		struct cs_store *s = cs_new(1 << 20, err, sizeof(err));
		const struct sum_conn *a;
		size_t n;
		struct sum_conn c = conn(0);
		CHECK(cs_put(s, &c) == ERR_USAGE); /* ids start at 1 */
		CHECK(cs_finish(s, &a, &n) == 0 && n == 0);
		cs_free(s);
		cs_free(NULL);
	}
	return unit_done("connstore");
}
