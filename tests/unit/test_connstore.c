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
 * id % hole == 0), read back in id order. run > 1: runs of that many
 * consecutive ids, the runs scrambled (n a multiple of run), each run's
 * ids put twice (the second replaces): a spilled store gathers them. */
static void run_in(size_t mem_cap, uint64_t n, uint64_t hole, int want_spill, uint64_t run)
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
		/* 7919 is prime: a permutation of 1..n (of the n / run runs) */
		uint64_t id =
		    run > 1 ? (k / run * 7919) % (n / run) * run + k % run + 1 : (k * 7919) % n + 1;
		if (hole && id % hole == 0)
			continue;
		struct sum_conn c = conn(id);
		if (run > 1) {
			struct sum_conn first = c;
			first.dir[SUM_C2S].packets = 1; /* replaced below */
			CHECK(cs_put(s, &first) == 0);
		}
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

/* A connection evicted and resumed: its second part joins the first, in
 * memory and spilled; an id given again without the mark replaces. */
static void test_resumed(size_t mem_cap)
{
	char err[128];
	struct cs_store *s = cs_new(mem_cap, err, sizeof(err));
	const struct sum_conn *a;
	size_t n;

	for (uint64_t id = 1; id <= 300; id++) {
		struct sum_conn c = conn(id);
		c.evicted = true;
		c.last_ts = c.first_ts + 10;
		c.first_frame = id;
		c.last_frame = id + 1;
		c.dir[SUM_C2S].mss = 1460;
		c.dir[SUM_C2S].rtt =
		    (struct sum_rtt){.n = 2, .min_ns = 50, .max_ns = 70, .sum_ns = 120};
		c.dir[SUM_S2C].data_packets = 1;
		c.dir[SUM_S2C].min_payload = c.dir[SUM_S2C].max_payload = 500;
		CHECK(cs_put(s, &c) == 0);
	}
	for (uint64_t id = 2; id <= 300; id += 2) {
		struct sum_conn c = conn(id);
		c.evicted_and_resumed = true;
		c.state = SUM_STATE_CLOSED;
		c.first_ts = (int64_t)id * 1000 + 100;
		c.last_ts = c.first_ts + 50;
		c.first_frame = 1000 + id;
		c.last_frame = 2000 + id;
		c.dir[SUM_C2S].rtt =
		    (struct sum_rtt){.n = 1, .min_ns = 30, .max_ns = 30, .sum_ns = 30};
		c.dir[SUM_S2C].data_packets = 2;
		c.dir[SUM_S2C].min_payload = 100;
		c.dir[SUM_S2C].max_payload = 900;
		CHECK(cs_put(s, &c) == 0);
	}
	struct sum_conn r = conn(3); /* not resumed: replaces */
	CHECK(cs_put(s, &r) == 0);
	CHECK(cs_finish(s, &a, &n) == 0 && n == 300);
	unsigned ok = 0;
	for (size_t k = 0; k < n; k++) {
		const struct sum_conn *c = &a[k];
		uint64_t id = c->id;
		const struct sum_dir *d = &c->dir[SUM_C2S], *e = &c->dir[SUM_S2C];
		if (id == 3)
			ok += !c->evicted && !c->evicted_and_resumed && c->last_ts == 0;
		else if (id % 2)
			ok += c->evicted && !c->evicted_and_resumed && d->packets == id * 3;
		else
			ok += !c->evicted && c->evicted_and_resumed && d->packets == id * 6 &&
			      c->first_ts == (int64_t)id * 1000 &&
			      c->last_ts == (int64_t)id * 1000 + 150 && c->first_frame == id &&
			      c->last_frame == 2000 + id && c->state == SUM_STATE_CLOSED &&
			      d->mss == 1460 && d->rtt.n == 3 && d->rtt.min_ns == 30 &&
			      d->rtt.max_ns == 70 && d->rtt.sum_ns == 150 && e->data_packets == 3 &&
			      e->min_payload == 100 && e->max_payload == 900;
	}
	CHECK_EQ_U(ok, 300);
	cs_free(s);
}

static void run(size_t mem_cap, uint64_t n, uint64_t hole, int want_spill)
{
	run_in(mem_cap, n, hole, want_spill, 1);
}

/* Spilled: a connection resumes while its first part still waits to be
 * written with its neighbours: the join finds that part. */
static void test_resumed_pending(void)
{
	char err[128];
	struct cs_store *s = cs_new(0, err, sizeof(err));
	const struct sum_conn *a;
	size_t n;

	for (uint64_t id = 1; id <= 10; id++) {
		struct sum_conn c = conn(id);
		c.evicted = true;
		CHECK(cs_put(s, &c) == 0);
	}
	struct sum_conn r = conn(9);
	r.evicted_and_resumed = true;
	CHECK(cs_put(s, &r) == 0);
	CHECK(cs_finish(s, &a, &n) == 0 && n == 10);
	CHECK(n == 10 && a[8].id == 9 && a[8].dir[SUM_C2S].packets == 9 * 6 &&
	      a[8].evicted_and_resumed && a[7].dir[SUM_C2S].packets == 8 * 3);
	cs_free(s);
}

int main(void)
{
	size_t rec = sizeof(struct sum_conn);

	run_in(100 * rec, 5000, 0, 1, 50);  /* spilled, runs of ids (the end's drain) */
	run_in(100 * rec, 5000, 7, 1, 200); /* ... longer than a write gathers, holes */

	run(64u << 20, 1000, 0, 0);  /* in memory */
	run(64u << 20, 1000, 10, 0); /* in memory, with holes */
	run(100 * rec, 5000, 0, 1);  /* spilled */
	run(100 * rec, 5000, 3, 1);  /* spilled, with holes */
	run(0, 3000, 0, 1);	     /* spilled from the first */
	test_resumed(64u << 20);
	test_resumed(0);
	test_resumed_pending();
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
