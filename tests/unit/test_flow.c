/* test_flow.c - unit tests of the connection table: keying, eviction, expiry, drain order. */
#include <stdlib.h>
#include <string.h>

#include "analyze/engine/flow.h"
#include "tests/unit/unit.h"

struct ended {
	uint64_t ids[4096];
	enum flow_end why[4096];
	unsigned n;
};

static void on_end(void *ctx, struct tcp_conn *c, enum flow_end why)
{
	struct ended *e = ctx;
	if (e->n < 4096) {
		e->ids[e->n] = c->info.id;
		e->why[e->n++] = why;
	}
}

/* 10.0.x.y:port <-> 10.1.0.1:80, in the given direction. */
static void pkt_for(struct dec_packet *d, uint32_t host, uint16_t port, bool reply, int family)
{
	memset(d, 0, sizeof(*d));
	struct dec_addr a = {.family = (uint8_t)family}, b = {.family = (uint8_t)family};
	a.a[0] = 10;
	a.a[2] = (uint8_t)(host >> 8);
	a.a[3] = (uint8_t)host;
	b.a[0] = 10;
	b.a[1] = 1;
	b.a[3] = 1;
	if (family == 6) {
		a.a[15] = 7; /* make v6 keys differ from v4 ones in the tail too */
		b.a[15] = 7;
	}
	d->src = reply ? b : a;
	d->dst = reply ? a : b;
	d->tcp.sport = reply ? 80 : port;
	d->tcp.dport = reply ? port : 80;
	d->src.family = d->dst.family = (uint8_t)family;
}

static struct tcp_conn *get(struct flow_table *t, uint32_t host, uint16_t port, bool reply,
			    int64_t now, uint64_t *next_id, bool *created)
{
	struct dec_packet d;
	struct pkt p = {.ts_ns = now};

	pkt_for(&d, host, port, reply, 4);
	struct tcp_conn *c = flow_lookup(t, &d, 0, created);
	if (c && *created) {
		tcp_conn_init(c, ++*next_id, &d, &p);
	}
	if (c)
		c->info.last_ts = now;
	return c;
}

static void test_keying(void)
{
	struct ended e = {0};
	char err[128];
	struct flow_config cfg = {.max_flows = 100, .idle_timeout_ns = 0};
	struct flow_table *t = flow_new(&cfg, on_end, &e, err, sizeof(err));
	uint64_t id = 0;
	bool created;

	CHECK(t != NULL);
	struct tcp_conn *a = get(t, 1, 1000, false, 1, &id, &created);
	CHECK(created);
	struct tcp_conn *b = get(t, 1, 1000, true, 2, &id, &created);
	CHECK(!created);
	CHECK(a == b);
	struct tcp_conn *c = get(t, 1, 1001, false, 3, &id, &created);
	CHECK(created && c != a);
	/* The same addresses and ports in IPv6 are another flow. */
	struct dec_packet d;
	pkt_for(&d, 1, 1000, false, 6);
	struct tcp_conn *v6 = flow_lookup(t, &d, 0, &created);
	CHECK(created && v6 != a);
	/* The same 4-tuple at another vantage point is another flow. */
	pkt_for(&d, 1, 1000, true, 4);
	struct tcp_conn *far = flow_lookup(t, &d, 1, &created);
	CHECK(created && far != a);
	CHECK(flow_lookup(t, &d, 0, &created) == a && !created);
	CHECK_EQ_U(flow_counters(t)->live, 4);
	flow_free(t);
}

static void test_many_and_eviction(void)
{
	struct ended e = {0};
	char err[128];
	struct flow_config cfg = {.max_flows = 1500, .idle_timeout_ns = 0};
	struct flow_table *t = flow_new(&cfg, on_end, &e, err, sizeof(err));
	uint64_t id = 0;
	bool created;
	unsigned ok = 0;

	/* 1500 flows spread over two chunks, all found again both ways. */
	for (uint32_t h = 0; h < 1500; h++)
		get(t, h, 2000, false, h, &id, &created);
	for (uint32_t h = 0; h < 1500; h++) {
		struct tcp_conn *c = get(t, h, 2000, true, 2000 + h, &id, &created);
		ok += !created && c->info.id == h + 1;
	}
	CHECK_EQ_U(ok, 1500);
	CHECK_EQ_U(e.n, 0);
	/* Full: a new flow evicts the least recently used (host 0, touched at 2000). */
	get(t, 60000, 3000, false, 5000, &id, &created);
	CHECK(created);
	CHECK_EQ_U(e.n, 1);
	CHECK_EQ_U(e.ids[0], 1);
	CHECK_EQ_U(e.why[0], FLOW_END_EVICTED);
	CHECK_EQ_U(flow_counters(t)->ended[FLOW_END_EVICTED], 1);
	/* Every survivor is still reachable after the backward-shift delete. */
	ok = 0;
	for (uint32_t h = 1; h < 1500; h++) {
		struct tcp_conn *c = get(t, h, 2000, false, 6000, &id, &created);
		ok += !created && c->info.id == h + 1;
	}
	CHECK_EQ_U(ok, 1499);
	flow_free(t);
}

static void test_expiry_and_drain(void)
{
	struct ended e = {0};
	char err[128];
	struct flow_config cfg = {.max_flows = 64, .idle_timeout_ns = 100};
	struct flow_table *t = flow_new(&cfg, on_end, &e, err, sizeof(err));
	uint64_t id = 0;
	bool created;

	get(t, 1, 1, false, 10, &id, &created);	 /* id 1 */
	get(t, 2, 1, false, 20, &id, &created);	 /* id 2 */
	get(t, 3, 1, false, 150, &id, &created); /* id 3 */
	get(t, 1, 1, true, 160, &id, &created);	 /* id 1 touched */
	flow_expire(t, 200);			 /* id 2 idle since 20 */
	CHECK_EQ_U(e.n, 1);
	CHECK_EQ_U(e.ids[0], 2);
	CHECK_EQ_U(e.why[0], FLOW_END_IDLE);
	get(t, 4, 1, false, 210, &id, &created); /* id 4 */
	flow_drain(t);
	/* Drain delivers in first-packet (id) order, not LRU order. */
	CHECK_EQ_U(e.n, 4);
	CHECK_EQ_U(e.ids[1], 1);
	CHECK_EQ_U(e.ids[2], 3);
	CHECK_EQ_U(e.ids[3], 4);
	CHECK_EQ_U(flow_counters(t)->live, 0);
	CHECK_EQ_U(flow_counters(t)->max_live, 3);
	flow_free(t);

	CHECK(flow_new(&(struct flow_config){.max_flows = 0}, on_end, &e, err, sizeof(err)) ==
	      NULL);
	CHECK(strstr(err, "max flows") != NULL);
	flow_free(NULL);
}

int main(void)
{
	test_keying();
	test_many_and_eviction();
	test_expiry_and_drain();
	return unit_done("flow");
}
