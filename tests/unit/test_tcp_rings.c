/* test_tcp_rings.c - unit tests of the RTT rings' size classes and the cold counters (tcp_int.h).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/engine/tcp_int.h"
#include "tests/unit/unit.h"

static uint64_t in_use(const struct pool *p)
{
	return pool_stats(p)->in_use;
}

/* The sent ring doubles 4 -> 8 -> 16 -> 32 only when full, keeps its FIFO
 * order across each move, forgets the oldest only at 32, goes back to its
 * class's pool when drained and starts the next flight at that class. */
static void test_sent_classes(void)
{
	struct tcp_pools tp;
	struct tcp_half h;

	CHECK(tcp_pools_init(&tp) == 0);
	memset(&h, 0, sizeof(h));
	h.sent_cap = TCP_RING_MIN; /* as tcp_conn_init() */
	h.tsring_cap = TCP_TS_MIN;
	for (unsigned k = 1; k <= 20; k++) {
		sent_push(&h, &tp, 100 * k, 1000 * k);
		unsigned want = k <= 4 ? 4 : k <= 8 ? 8 : k <= 16 ? 16 : 32;
		CHECK_EQ_U(h.sent_cap, want);
	}
	CHECK_EQ_U(h.sent_len, 20);
	CHECK_EQ_U(in_use(tp.sent[3]), 1);
	CHECK_EQ_U(in_use(tp.sent[0]) + in_use(tp.sent[1]) + in_use(tp.sent[2]), 0);
	/* Karn: everything ending beyond 1050 was retransmitted. */
	sent_mark_retrans(&h, 1050);
	sent_acked(&h, &tp, 1000, 30000); /* pops 10 segments: sample from the 10th */
	CHECK_EQ_U(h.st.rtt.n, 1);
	CHECK_EQ_U(h.st.rtt.min_ns, 30000 - 10000);
	CHECK_EQ_U(h.sent_len, 10);
	sent_acked(&h, &tp, 2000, 40000); /* all retransmitted: no sample, ring back */
	CHECK_EQ_U(h.st.rtt.n, 1);
	CHECK(h.sent == NULL);
	CHECK_EQ_U(in_use(tp.sent[3]), 0);
	CHECK_EQ_U(h.sent_cap, 32);
	/* The next flight takes the size the last one needed; at 32 the
	 * oldest goes: acking it gives no sample, the next one does. */
	for (unsigned k = 1; k <= 40; k++)
		sent_push(&h, &tp, 5000 + 10 * k, 100000 + k);
	CHECK_EQ_U(h.sent_cap, 32);
	CHECK_EQ_U(h.sent_len, 32);
	sent_acked(&h, &tp, 5000 + 10 * 8, 200000); /* the 8 oldest were forgotten */
	CHECK_EQ_U(h.st.rtt.n, 1);
	sent_acked(&h, &tp, 5000 + 10 * 9, 200000);
	CHECK_EQ_U(h.st.rtt.n, 2);
	CHECK_EQ_U(h.st.rtt.max_ns, 200000 - 100009);
	tcp_pools_free(&tp);
}

/* The TSval ring keeps every slot where the largest ring would have it:
 * it grows 2 -> 4 -> 8 -> 16 at the 3rd, 5th and 9th distinct TSval, a repeated
 * TSval takes no slot, and only at 16 does the oldest get overwritten. */
static void test_tsring_classes(void)
{
	struct tcp_pools tp;
	struct tcp_half h;

	CHECK(tcp_pools_init(&tp) == 0);
	memset(&h, 0, sizeof(h));
	h.sent_cap = TCP_RING_MIN; /* as tcp_conn_init() */
	h.tsring_cap = TCP_TS_MIN;
	for (unsigned k = 1; k <= 4; k++) {
		if (k == 3)
			CHECK_EQ_U(h.tsring_cap, 2);
		tsring_add(&h, &tp, 10 * k, 1000 * k);
		tsring_add(&h, &tp, 10 * k, 1000 * k + 1); /* same tick: ignored */
	}
	CHECK_EQ_U(h.tsring_cap, 4);
	CHECK_EQ_U(h.tsring_head, 4);
	/* When the next TSval went out: the loop's lower bound (tcp_fill.c). */
	CHECK(tcp_ts_next_sent(&h, 20) == 3000);
	CHECK(tcp_ts_next_sent(&h, 40) == -1);	/* the newest: no bound */
	CHECK(tcp_ts_next_sent(&h, 5) == 1000); /* older than the ring: its oldest */
	CHECK(tcp_ts_next_sent(&h, 45) == -1);	/* never sent */
	tsring_echo(&h, 20, 5000);		/* sample 5000 - 2000 */
	CHECK_EQ_U(h.st.rtt_ts.n, 1);
	CHECK_EQ_U(h.st.rtt_ts.max_ns, 3000);
	tsring_add(&h, &tp, 50, 5000);
	CHECK_EQ_U(h.tsring_cap, 8);
	CHECK_EQ_U(in_use(tp.tsring[0]) + in_use(tp.tsring[1]), 0);
	CHECK_EQ_U(h.tsring[1].tsval, 20);
	CHECK(h.tsring_echoed == 1u << 1); /* its slot kept its place */
	tsring_echo(&h, 20, 9000);	   /* echoed before: no second sample */
	CHECK_EQ_U(h.st.rtt_ts.n, 1);
	for (unsigned k = 6; k <= 17; k++)
		tsring_add(&h, &tp, 10 * k, 1000 * k);
	CHECK_EQ_U(h.tsring_cap, 16);
	CHECK_EQ_U(h.tsring_head, 1);		   /* the 17th went to slot 0 */
	CHECK(tcp_ts_next_sent(&h, 160) == 17000); /* across the wrap */
	CHECK(tcp_ts_next_sent(&h, 170) == -1);
	CHECK(tcp_ts_next_sent(&h, 10) == 2000); /* overwritten: the oldest kept, 20 */
	tsring_echo(&h, 10, 20000);		 /* overwritten: no sample */
	CHECK_EQ_U(h.st.rtt_ts.n, 1);
	tsring_echo(&h, 170, 20000);
	CHECK_EQ_U(h.st.rtt_ts.n, 2);
	CHECK_EQ_U(h.st.rtt_ts.min_ns, 3000);
	tsring_echo(&h, 160, 20000);
	CHECK_EQ_U(h.st.rtt_ts.max_ns, 4000);
	CHECK_EQ_U(in_use(tp.tsring[3]), 1);
	pool_put(tp.tsring[tcp_ts_cls(h.tsring_cap)], h.tsring);
	tcp_pools_free(&tp);
}

/* The slot the old whole-ring scan took: the lowest with tsecr. */
static int tsring_lowest(const struct tcp_half *h, uint32_t tsecr)
{
	for (unsigned i = 0; i < h->tsring_cap; i++)
		if (h->tsring[i].tsval == tsecr && h->tsring[i].ts != 0)
			return (int)i;
	return -1;
}

static uint64_t rings_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * tsring_find() walks from the last match in a ring in order: the slot it
 * finds is the one the whole-ring scan finds, for every echo (recent, old,
 * overwritten, never sent, 2^31 away) after every add, in streams of
 * small steps with repeats, reordered and wild TSvals, samples at time 0
 * and rings that could not grow; the samples taken are the same too.
 */
static void test_tsring_find(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned checked = 0, ordered = 0, bad = 0;

	for (unsigned run = 0; run < 400; run++) {
		struct tcp_pools tp;
		struct tcp_half h;
		uint32_t tsval = (uint32_t)rings_rand(&seed), sent[64];
		unsigned nsent = 0, odd = (unsigned)(rings_rand(&seed) % 4);

		CHECK(tcp_pools_init(&tp) == 0);
		memset(&h, 0, sizeof(h));
		h.tsring_cap = TCP_TS_MIN;
		for (unsigned k = 0; k < 200; k++) {
			uint64_t r = rings_rand(&seed);
			if (odd && r % 16 == 0) /* a reordered or repeated TSval */
				tsval -= (uint32_t)(r >> 8) % 4;
			else if (odd > 1 && r % 64 == 1) /* a jump */
				tsval += (uint32_t)(r >> 8);
			else
				tsval += (uint32_t)(r >> 8) % 3;
			int64_t ts = odd > 2 && r % 50 == 2 ? 0 : 1000 + k;
			if (run % 7 == 3 && h.tsring_cap == 8 && h.tsring_head == 8)
				h.tsring_head = 0; /* as if growing found no memory */
			tsring_add(&h, &tp, tsval, ts);
			sent[nsent++ % 64] = tsval;
			for (unsigned q = 0; q < 6; q++) {
				uint64_t x = rings_rand(&seed);
				uint32_t e =
				    q < 4    ? sent[(nsent - 1 - (unsigned)(x % 24) % nsent) % 64]
				    : q == 4 ? tsval + 1 + (uint32_t)(x % 3)
					     : tsval + (1u << 31) + (uint32_t)(x % 3);
				int want = tsring_lowest(&h, e), got = tsring_find(&h, e);
				bad += want != got;
				checked++;
				ordered += h.ts_mixed == 0;
				if (want >= 0 && x % 3 == 0) { /* an echo: the hint moves */
					uint32_t n = h.st.rtt_ts.n;
					bool first = !(h.tsring_echoed & (1u << want));
					CHECK(tsring_echo(&h, e, 5000 + k) == first);
					CHECK_EQ_U(h.st.rtt_ts.n, n + first);
				}
			}
		}
		pool_put(tp.tsring[tcp_ts_cls(h.tsring_cap)], h.tsring);
		tcp_pools_free(&tp);
	}
	CHECK_EQ_U(bad, 0);
	/* Both ways taken, each for a good part (about 44 % in order). */
	CHECK(ordered > checked / 4 && checked - ordered > checked / 4);
}

/* Cold counters: a block on first use, none before; returned by release. */
static void test_cold_counters(void)
{
	struct tcp_pools tp;
	struct tcp_conn *c = calloc(1, sizeof(*c));

	CHECK(c != NULL && tcp_pools_init(&tp) == 0);
	c->tp = &tp;
	CHECK(c->half[0].cold == NULL);
	tcp_cold(c, &c->half[1])->keepalives++;
	tcp_cold(c, &c->half[1])->keepalives++;
	CHECK(c->half[0].cold == NULL && c->half[1].cold != NULL);
	CHECK_EQ_U(c->half[1].cold->keepalives, 2);
	CHECK_EQ_U(in_use(tp.cold), 1);

	struct sum_conn s;
	tcp_summarize(c, &s);
	CHECK_EQ_U(s.dir[1].keepalives, 2);
	CHECK_EQ_U(s.dir[0].keepalives, 0);
	tcp_conn_release(c, &tp);
	CHECK(c->half[1].cold == NULL);
	CHECK_EQ_U(in_use(tp.cold), 0);
	CHECK_EQ_U(tcp_pools_failed(&tp), 0);
	tcp_pools_free(&tp);
	free(c);
}

int main(void)
{
	test_sent_classes();
	test_tsring_classes();
	test_tsring_find();
	test_cold_counters();
	return unit_done("tcp_rings");
}
