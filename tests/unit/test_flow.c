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

static struct tcp_conn *get_flags(struct flow_table *t, uint32_t host, uint16_t port, bool reply,
				  uint8_t flags, int64_t now, uint64_t *next_id, enum flow_got *got)
{
	struct dec_packet d;
	struct pkt p = {.ts_ns = now};
	struct flow_resume rs;

	pkt_for(&d, host, port, reply, 4);
	d.tcp.flags = flags;
	struct tcp_conn *c = flow_lookup(t, &d, 0, 0, got, &rs);
	if (c && *got == FLOW_NEW)
		tcp_conn_init(c, ++*next_id, &d, &p);
	else if (c && *got == FLOW_RESUMED)
		tcp_conn_resume(c, rs.id, &d, &p, rs.src_is_client);
	if (c)
		c->info.last_ts = now;
	return c;
}

static struct tcp_conn *get(struct flow_table *t, uint32_t host, uint16_t port, bool reply,
			    int64_t now, uint64_t *next_id, enum flow_got *got)
{
	return get_flags(t, host, port, reply, 0, now, next_id, got);
}

static void test_keying(void)
{
	struct ended e = {0};
	char err[128];
	struct flow_config cfg = {.max_flows = 100, .idle_timeout_ns = 0};
	struct flow_table *t = flow_new(&cfg, on_end, &e, err, sizeof(err));
	uint64_t id = 0;
	enum flow_got created;
	struct flow_resume rs;

	CHECK(t != NULL);
	struct tcp_conn *a = get(t, 1, 1000, false, 1, &id, &created);
	CHECK(created == FLOW_NEW);
	struct tcp_conn *b = get(t, 1, 1000, true, 2, &id, &created);
	CHECK(created == FLOW_HIT);
	CHECK(a == b);
	struct tcp_conn *c = get(t, 1, 1001, false, 3, &id, &created);
	CHECK(created == FLOW_NEW && c != a);
	/* The same addresses and ports in IPv6 are another flow. */
	struct dec_packet d;
	pkt_for(&d, 1, 1000, false, 6);
	struct tcp_conn *v6 = flow_lookup(t, &d, 0, 0, &created, &rs);
	CHECK(created == FLOW_NEW && v6 != a);
	/* The same 4-tuple at another vantage point is another flow. */
	pkt_for(&d, 1, 1000, true, 4);
	struct tcp_conn *far = flow_lookup(t, &d, 1, 0, &created, &rs);
	CHECK(created == FLOW_NEW && far != a);
	CHECK(flow_lookup(t, &d, 0, 0, &created, &rs) == a && created == FLOW_HIT);
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
	enum flow_got created;
	unsigned ok = 0;

	/* 1500 flows over many slabs of entries, all found again both ways. */
	for (uint32_t h = 0; h < 1500; h++)
		get(t, h, 2000, false, h, &id, &created);
	for (uint32_t h = 0; h < 1500; h++) {
		struct tcp_conn *c = get(t, h, 2000, true, 2000 + h, &id, &created);
		ok += created == FLOW_HIT && c->info.id == h + 1;
	}
	CHECK_EQ_U(ok, 1500);
	CHECK_EQ_U(e.n, 0);
	/* Full: a new flow evicts the least recently used (host 0, touched at 2000). */
	get(t, 60000, 3000, false, 5000, &id, &created);
	CHECK(created == FLOW_NEW);
	CHECK_EQ_U(e.n, 1);
	CHECK_EQ_U(e.ids[0], 1);
	CHECK_EQ_U(e.why[0], FLOW_END_EVICTED);
	CHECK_EQ_U(flow_counters(t)->ended[FLOW_END_EVICTED], 1);
	/* Every survivor is still reachable after the backward-shift delete. */
	ok = 0;
	for (uint32_t h = 1; h < 1500; h++) {
		struct tcp_conn *c = get(t, h, 2000, false, 6000, &id, &created);
		ok += created == FLOW_HIT && c->info.id == h + 1;
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
	enum flow_got created;

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

/* An evicted connection comes back with its id and roles, once; a SYN on
 * its tuple is a new connection; a working set larger than the table does
 * not churn. */
static void test_resume(void)
{
	struct ended e = {0};
	char err[128];
	struct flow_config cfg = {.max_flows = 2, .idle_timeout_ns = 0};
	struct flow_table *t = flow_new(&cfg, on_end, &e, err, sizeof(err));
	uint64_t id = 0;
	enum flow_got got;

	get_flags(t, 1, 5000, false, DEC_TH_SYN, 10, &id, &got); /* id 1, client 10.0.0.1 */
	get_flags(t, 2, 5000, false, DEC_TH_SYN, 20, &id, &got); /* id 2 */
	get_flags(t, 3, 5000, false, DEC_TH_SYN, 30, &id, &got); /* id 3 evicts id 1 */
	CHECK_EQ_U(e.n, 1);
	CHECK_EQ_U(e.ids[0], 1);
	/* id 1's server answers: id 2 (idle since 20) was idle before id 1
	 * (last seen 10) went? No: so this packet is dropped, not a churn. */
	CHECK(get_flags(t, 1, 5000, true, DEC_TH_ACK, 40, &id, &got) == NULL);
	CHECK_EQ_U(got, FLOW_DROPPED);
	CHECK_EQ_U(flow_counters(t)->evicted_packets, 1);
	CHECK_EQ_U(e.n, 1);
	/* id 2 closes: its place goes to id 1, which resumes with its id and
	 * its roles (the packet comes from the server). */
	struct dec_packet d;
	pkt_for(&d, 2, 5000, false, 4);
	flow_set_closed(t, flow_find(t, &d, 0));
	struct tcp_conn *c = get_flags(t, 1, 5000, true, DEC_TH_ACK, 50, &id, &got);
	CHECK(c != NULL && got == FLOW_RESUMED);
	CHECK_EQ_U(c->info.id, 1);
	CHECK(c->info.evicted_and_resumed);
	CHECK_EQ_U(c->info.client.a[3], 1);
	CHECK_EQ_U(c->info.client_port, 5000);
	CHECK_EQ_U(flow_counters(t)->resumed, 1);
	CHECK_EQ_U(flow_counters(t)->created, 3);
	CHECK_EQ_U(id, 3);
	/* Its next packet is a hit. */
	get_flags(t, 1, 5000, false, DEC_TH_ACK, 60, &id, &got);
	CHECK_EQ_U(got, FLOW_HIT);
	/* id 3 is evicted by a new connection (id 4); a SYN on id 3's tuple
	 * later starts a new connection (id 5), not a resume. */
	get_flags(t, 4, 5000, false, DEC_TH_SYN, 70, &id, &got);
	CHECK_EQ_U(e.ids[e.n - 1], 3);
	c = get_flags(t, 3, 5000, false, DEC_TH_SYN, 80, &id, &got);
	CHECK(c != NULL && got == FLOW_NEW && c->info.id == 5);
	CHECK_EQ_U(flow_counters(t)->resumed, 1);
	flow_free(t);

	/* 100 connections sending in turn through a table of 10: each is
	 * created once and the packets of the evicted ones are dropped, not
	 * each one an eviction. */
	memset(&e, 0, sizeof(e));
	cfg.max_flows = 10;
	t = flow_new(&cfg, on_end, &e, err, sizeof(err));
	id = 0;
	for (int round = 0; round < 20; round++)
		for (uint32_t h = 0; h < 100; h++)
			get_flags(t, h, 6000, round & 1, round ? DEC_TH_ACK : DEC_TH_SYN,
				  round * 1000 + h, &id, &got);
	CHECK_EQ_U(flow_counters(t)->created, 100);
	CHECK_EQ_U(e.n, 90);
	CHECK_EQ_U(flow_counters(t)->evicted_packets, 19 * 90);
	flow_free(t);
}

/* An IPv4 packet a.b.c.d:sport -> e.f.g.h:dport (addresses as 32-bit values). */
static void pkt4(struct dec_packet *d, uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport,
		 uint8_t flags)
{
	memset(d, 0, sizeof(*d));
	d->src.family = d->dst.family = 4;
	for (int k = 0; k < 4; k++) {
		d->src.a[k] = (uint8_t)(src >> (24 - 8 * k));
		d->dst.a[k] = (uint8_t)(dst >> (24 - 8 * k));
	}
	d->tcp.sport = sport;
	d->tcp.dport = dport;
	d->tcp.flags = flags;
}

/* The table finds a connection by its identity (client, server, ports,
 * vantage) whichever way its packets go and whichever endpoint is the
 * lower: roles from a SYN or guessed from ports, equal ports, and after an
 * eviction (the key rebuilt from the identity) with the roles it had. */
static void test_ident_roles(void)
{
	struct ended e = {0};
	char err[128];
	struct flow_config cfg = {.max_flows = 8, .idle_timeout_ns = 0};
	struct flow_table *t = flow_new(&cfg, on_end, &e, err, sizeof(err));
	struct {
		uint32_t src, dst;
		uint16_t sport, dport;
		uint8_t flags;
		uint32_t client;
		uint16_t client_port;
	} cs[] = {
	    /* mid-stream, first seen from the server (higher address) */
	    {0x0a090001, 0x0a000005, 443, 50000, DEC_TH_ACK, 0x0a000005, 50000},
	    /* mid-stream, from the server (lower address) */
	    {0x0a000009, 0x0a050001, 80, 40000, DEC_TH_ACK, 0x0a050001, 40000},
	    /* a SYN from the higher address */
	    {0x0a070001, 0x0a000002, 40001, 8080, DEC_TH_SYN, 0x0a070001, 40001},
	    /* a SYN/ACK: its receiver is the client */
	    {0x0a000003, 0x0a060001, 22, 50001, DEC_TH_SYN | DEC_TH_ACK, 0x0a060001, 50001},
	    /* equal ports, guessed (the source), from the higher address */
	    {0x0a000021, 0x0a000011, 7000, 7000, DEC_TH_ACK, 0x0a000021, 7000},
	};
	enum { N = sizeof(cs) / sizeof(cs[0]) };
	struct tcp_conn *c[N];
	struct dec_packet d, r;
	struct pkt p = {.ts_ns = 1, .vantage = 3}; /* the vantage looked up */
	struct flow_resume rs;
	enum flow_got got;
	uint64_t id = 0;

	CHECK(t != NULL);
	for (unsigned k = 0; k < N; k++) {
		pkt4(&d, cs[k].src, cs[k].sport, cs[k].dst, cs[k].dport, cs[k].flags);
		c[k] = flow_lookup(t, &d, 3, 0, &got, &rs);
		CHECK(c[k] != NULL && got == FLOW_NEW);
		tcp_conn_init(c[k], ++id, &d, &p);
		uint32_t cl = (uint32_t)c[k]->info.client.a[0] << 24 |
			      (uint32_t)c[k]->info.client.a[1] << 16 |
			      (uint32_t)c[k]->info.client.a[2] << 8 | c[k]->info.client.a[3];
		CHECK_EQ_U(cl, cs[k].client);
		CHECK_EQ_U(c[k]->info.client_port, cs[k].client_port);
	}
	for (unsigned k = 0; k < N; k++) {
		pkt4(&d, cs[k].src, cs[k].sport, cs[k].dst, cs[k].dport, DEC_TH_ACK);
		pkt4(&r, cs[k].dst, cs[k].dport, cs[k].src, cs[k].sport, DEC_TH_ACK);
		CHECK(flow_lookup(t, &d, 3, 0, &got, &rs) == c[k] && got == FLOW_HIT);
		CHECK(flow_lookup(t, &r, 3, 0, &got, &rs) == c[k] && got == FLOW_HIT);
		CHECK(flow_find(t, &r, 3) == c[k] && flow_find(t, &d, 3) == c[k]);
		CHECK(flow_find(t, &d, 4) == NULL); /* another vantage point */
		/* a port or an address off by one is another connection */
		pkt4(&r, cs[k].src, (uint16_t)(cs[k].sport + 1), cs[k].dst, cs[k].dport, 0);
		CHECK(flow_find(t, &r, 3) == NULL);
		pkt4(&r, cs[k].src + 1, cs[k].sport, cs[k].dst, cs[k].dport, 0);
		CHECK(flow_find(t, &r, 3) == NULL);
	}
	/* All evicted, then each back from the side its first packet was not
	 * from: the same id and client. */
	while (flow_evict_oldest(t) == 0)
		;
	CHECK_EQ_U(e.n, N);
	for (unsigned k = 0; k < N; k++) {
		pkt4(&r, cs[k].dst, cs[k].dport, cs[k].src, cs[k].sport, DEC_TH_ACK);
		struct tcp_conn *b = flow_lookup(t, &r, 3, 0, &got, &rs);
		CHECK(b != NULL && got == FLOW_RESUMED);
		CHECK_EQ_U(rs.id, k + 1);
		tcp_conn_resume(b, rs.id, &r, &p, rs.src_is_client);
		CHECK_EQ_U(b->info.client_port, cs[k].client_port);
		CHECK_EQ_U(b->info.client.a[3], (uint8_t)cs[k].client);
		CHECK_EQ_U(b->info.client.a[1], (uint8_t)(cs[k].client >> 16));
		pkt4(&d, cs[k].src, cs[k].sport, cs[k].dst, cs[k].dport, DEC_TH_ACK);
		CHECK(flow_lookup(t, &d, 3, 0, &got, &rs) == b && got == FLOW_HIT);
	}
	flow_free(t);
}

/* Parked connections (idle park_after_ns at a sweep) are whole again when
 * found: every byte as it was; the walks see them unpacked, evictions and
 * the drain end them whole (the end callback checks a mark in each). */
struct park_seen {
	unsigned n, bad;
};

static void mark_conn(struct tcp_conn *c, uint32_t h)
{
	c->half[0].st.packets = (uint32_t)c->info.id * 3;
	c->half[1].snd_una = 0xdeadbeefu ^ h;
	c->half[1].st.max_window = 65535;
	c->syn_ts = 12345 + (int64_t)h;
}

static bool marked(const struct tcp_conn *c)
{
	return c->half[0].st.packets == (uint32_t)c->info.id * 3 &&
	       c->half[1].st.max_window == 65535 &&
	       c->syn_ts == 12345 + (int64_t)(c->half[1].snd_una ^ 0xdeadbeefu);
}

static void park_end(void *ctx, struct tcp_conn *c, enum flow_end why)
{
	struct park_seen *p = ctx;

	(void)why;
	p->n++;
	p->bad += !marked(c);
}

static void park_look(void *ctx, const struct tcp_conn *c)
{
	struct park_seen *p = ctx;

	p->n++;
	p->bad += !marked(c);
}

static void test_park(void)
{
	struct park_seen seen = {0}, ended = {0};
	char err[128];
	struct flow_config cfg = {.max_flows = 300, .idle_timeout_ns = 0, .park_after_ns = 100};
	struct flow_table *t = flow_new(&cfg, park_end, &ended, err, sizeof(err));
	static struct tcp_conn copy[200];
	uint64_t id = 0;
	enum flow_got got;
	unsigned same = 0;

	CHECK(t != NULL);
	for (uint32_t h = 0; h < 200; h++) {
		struct tcp_conn *c = get(t, h, 3000, false, h, &id, &got);
		mark_conn(c, h);
		memcpy(&copy[h], c, sizeof(*c));
	}
	flow_expire(t, 250); /* idle since 150 or before: hosts 0-150 */
	CHECK_EQ_U(flow_counters(t)->parked, 151);
	CHECK_EQ_U(flow_counters(t)->parked_total, 151);
	flow_expire(t, 250); /* a sweep considers each one once */
	CHECK_EQ_U(flow_counters(t)->parked_total, 151);
	flow_foreach(t, park_look, &seen);
	CHECK_EQ_U(seen.n, 200);
	CHECK_EQ_U(seen.bad, 0);
	/* Found by a packet: whole, every byte. */
	for (uint32_t h = 0; h < 200; h++) {
		struct dec_packet d;
		pkt_for(&d, h, 3000, true, 4);
		struct tcp_conn *c = flow_find(t, &d, 0);
		same += c && memcmp(c, &copy[h], sizeof(*c)) == 0;
	}
	CHECK_EQ_U(same, 200);
	CHECK_EQ_U(flow_counters(t)->parked, 0);
	CHECK_EQ_U(ended.n, 0);

	/* A packet of each of the first 100 later: they park again at a
	 * sweep, as do hosts 151-199, not considered before. Hosts 100-150
	 * were, and flow_find() left them where they were in LRU order: they
	 * stay whole until their next packet. One made too dense to pack
	 * stays whole too. */
	for (uint32_t h = 0; h < 100; h++) {
		struct tcp_conn *c = get(t, h, 3000, false, 300 + h, &id, &got);
		CHECK(got == FLOW_HIT);
		if (h == 50) /* bytes none zero, no word like another */
			for (size_t k = sizeof(c->info); k < sizeof(*c); k++)
				((unsigned char *)c)[k] = (unsigned char)(k * 7 + 1 + k / 251);
		else
			mark_conn(c, h);
	}
	flow_expire(t, 500);
	CHECK_EQ_U(flow_counters(t)->parked, 49 + 99);
	/* Evicted (host 100, the least recently used) and drained: whole. */
	CHECK(flow_evict_oldest(t) == 0);
	CHECK_EQ_U(ended.n, 1);
	flow_drain(t);
	CHECK_EQ_U(ended.n, 200);
	CHECK_EQ_U(ended.bad, 1); /* the one made dense */
	CHECK_EQ_U(flow_counters(t)->live, 0);
	CHECK_EQ_U(flow_counters(t)->parked, 0);
	flow_free(t);
}

/* The hash a --threads reader routes by and the table finds a connection
 * by: the same both ways round, never 0, its vantage and family in it, and
 * a scan's keys (address and port counting up together) spread over the
 * slots; a hash given to flow_lookup() finds what the table's own finds. */
static void test_hash(void)
{
	struct dec_packet d, r;
	enum { N = 4096, SLOTS = 8192 };
	static uint16_t used[SLOTS];
	unsigned busiest = 0;

	for (uint32_t k = 0; k < N; k++) {
		pkt_for(&d, k, (uint16_t)(1024 + k), false, 4);
		pkt_for(&r, k, (uint16_t)(1024 + k), true, 4);
		uint64_t e = flow_ends_hash(d.src.a, d.tcp.sport, d.dst.a, d.tcp.dport);
		CHECK(e == flow_ends_hash(r.src.a, r.tcp.sport, r.dst.a, r.tcp.dport));
		uint32_t h = flow_slot_hash(e, 4, 0);
		CHECK(h != 0);
		CHECK(h != flow_slot_hash(e, 4, 1) && h != flow_slot_hash(e, 6, 0));
		unsigned n = ++used[h & (SLOTS - 1)];
		busiest = n > busiest ? n : busiest;
	}
	CHECK(busiest <= 6); /* a random function's: 4 or 5, rarely 6 */

	struct flow_config cfg = {.max_flows = 64, .idle_timeout_ns = 0};
	char err[128];
	struct ended ended = {0};
	struct flow_table *t = flow_new(&cfg, on_end, &ended, err, sizeof(err));
	CHECK(t != NULL);
	enum flow_got got;
	struct flow_resume rs;
	pkt_for(&d, 7, 4000, false, 4);
	pkt_for(&r, 7, 4000, true, 4);
	uint64_t e = flow_ends_hash(r.src.a, r.tcp.sport, r.dst.a, r.tcp.dport);
	struct tcp_conn *c = flow_lookup(t, &d, 2, 0, &got, &rs);
	CHECK(c && got == FLOW_NEW);
	CHECK(flow_lookup(t, &r, 2, flow_hash_ends(t, e, 4, 2), &got, &rs) == c && got == FLOW_HIT);
	CHECK(flow_hash(t, &r, 2) == flow_hash_ends(t, e, 4, 2));
	flow_free(t);
}

int main(void)
{
	test_keying();
	test_hash();
	test_ident_roles();
	test_many_and_eviction();
	test_expiry_and_drain();
	test_resume();
	test_park();
	return unit_done("flow");
}
