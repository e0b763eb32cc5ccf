/* test_engine.c - unit tests of the engine's eviction: resume with id and roles, --max-memory. */
#include <stdlib.h>
#include <string.h>

#include "analyze/engine/engine.h"
#include "tests/unit/unit.h"

enum { ETH_IP_TCP = 14 + 20 + 20 };

/* A frame 10.0.h/256.h%256:port <-> 192.0.2.1:80 (reply: from the server). */
static void frame(uint8_t *b, uint32_t host, uint16_t port, bool reply, uint8_t flags, uint32_t seq,
		  uint32_t ack)
{
	uint8_t cli[4] = {10, 0, (uint8_t)(host >> 8), (uint8_t)host}, srv[4] = {192, 0, 2, 1};
	uint8_t *ip = b + 14, *tcp = ip + 20;
	uint16_t sp = reply ? 80 : port, dp = reply ? port : 80;

	memset(b, 0, ETH_IP_TCP);
	b[12] = 0x08;
	ip[0] = 0x45;
	ip[3] = 40;
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, reply ? srv : cli, 4);
	memcpy(ip + 16, reply ? cli : srv, 4);
	tcp[0] = (uint8_t)(sp >> 8), tcp[1] = (uint8_t)sp;
	tcp[2] = (uint8_t)(dp >> 8), tcp[3] = (uint8_t)dp;
	for (int k = 0; k < 4; k++) {
		tcp[4 + k] = (uint8_t)(seq >> (24 - 8 * k));
		tcp[8 + k] = (uint8_t)(ack >> (24 - 8 * k));
	}
	tcp[12] = 5 << 4;
	tcp[13] = flags;
	tcp[14] = 0xff;
}

struct got {
	struct sum_conn c[8];
	unsigned n;
};

static void on_conn(void *ctx, const struct sum_conn *c)
{
	struct got *g = ctx;
	if (g->n < 8)
		g->c[g->n] = *c;
	g->n++;
}

static void feed(struct engine *e, uint32_t host, bool reply, uint8_t flags, uint32_t seq,
		 uint32_t ack, int64_t ts)
{
	uint8_t b[ETH_IP_TCP];
	struct pkt p = {.ts_ns = ts,
			.data = b,
			.caplen = sizeof(b),
			.wirelen = sizeof(b),
			.linktype = PKT_LINKTYPE_ETHERNET,
			.frame = (uint64_t)ts};

	frame(b, host, (uint16_t)(2000 + host), reply, flags, seq, ack);
	eng_packet(e, &p);
}

/* --max-flows 1: a connection pushed out by another comes back with its
 * id and roles (its server speaks first), marked, and both parts end. */
static void test_resume(void)
{
	struct eng_config cfg;
	struct got g = {0};
	struct sum_sink sink = {.conn = on_conn, .ctx = &g};
	char err[128];

	eng_config_defaults(&cfg);
	cfg.flow.max_flows = 1;
	struct engine *e = eng_new(&cfg, &sink, err, sizeof(err));
	CHECK(e != NULL);
	feed(e, 1, false, 0x02, 100, 0, 1);   /* id 1: SYN */
	feed(e, 1, true, 0x12, 900, 101, 2);  /* SYN/ACK */
	feed(e, 1, false, 0x10, 101, 901, 3); /* ACK */
	feed(e, 2, false, 0x02, 500, 0, 4);   /* id 2: a new one evicts id 1 */
	CHECK_EQ_U(g.n, 1);
	CHECK(g.n >= 1 && g.c[0].id == 1 && g.c[0].evicted && !g.c[0].evicted_and_resumed);
	/* id 2 is half-open: it gives way to id 1's server. */
	feed(e, 1, true, 0x10, 901, 101, 5);
	CHECK_EQ_U(g.n, 2);
	CHECK(g.n >= 2 && g.c[1].id == 2 && g.c[1].evicted);
	eng_finish(e);
	CHECK_EQ_U(g.n, 3);
	const struct sum_conn *r = &g.c[2];
	CHECK(r->id == 1 && r->evicted_and_resumed && !r->evicted);
	CHECK(r->client.a[3] == 1 && r->client_port == 2001 && r->server_port == 80);
	CHECK_EQ_U(r->dir[SUM_S2C].packets, 1);
	CHECK_EQ_U(r->dir[SUM_C2S].packets, 0);
	const struct flow_counters *f = eng_flow_counters(e);
	CHECK_EQ_U(f->created, 2);
	CHECK_EQ_U(f->resumed, 1);
	CHECK_EQ_U(f->ended[FLOW_END_EVICTED], 2);
	eng_free(e);
}

/* --max-memory: 20 000 SYNs under a 4 MiB cap: what the engine holds
 * (chunks of entries, slabs, the index, the evicted-key memory) stays
 * under it, every connection beyond what fits evicts the oldest, and each
 * eviction is memory's. */
static void test_max_memory(void)
{
	struct eng_config cfg;
	struct got g = {0};
	struct sum_sink sink = {.conn = on_conn, .ctx = &g};
	char err[128];
	const uint64_t cap = 4 << 20;

	eng_config_defaults(&cfg);
	cfg.flow.max_flows = 4096; /* index 64 KiB */
	cfg.max_memory = cap;
	struct engine *e = eng_new(&cfg, &sink, err, sizeof(err));
	CHECK(e != NULL);
	for (uint32_t k = 0; k < 20000; k++)
		feed(e, k, false, 0x02, k, 0, 1000 + k);
	const struct eng_counters *n = eng_counters(e);
	const struct flow_counters *f = eng_flow_counters(e);
	CHECK(n->mem_peak > cap / 2 && n->mem_peak <= cap);
	CHECK(n->mem_evictions > 10000);
	CHECK_EQ_U(f->ended[FLOW_END_EVICTED], n->mem_evictions);
	CHECK(f->max_live < 4096);
	CHECK_EQ_U(f->created, 20000);
	CHECK_EQ_U(f->resumed, 0);
	eng_finish(e);
	CHECK_EQ_U(g.n, 20000);
	eng_free(e);
}

/* Times at the ends of the range and beyond: a negative time is taken as
 * 0 and counted with the readers' clamped ones; RTTs and gaps of 2^62 ns
 * and more stay defined (UBSan in the sanitizer tree says so). */
static void test_time_ends(void)
{
	struct eng_config cfg;
	struct got g = {0};
	struct sum_sink sink = {.conn = on_conn, .ctx = &g};
	char err[128];

	eng_config_defaults(&cfg);
	struct engine *e = eng_new(&cfg, &sink, err, sizeof(err));
	CHECK(e != NULL);
	feed(e, 1, false, 0x02, 100, 0, INT64_MIN);  /* SYN before 1970 */
	feed(e, 1, true, 0x12, 900, 101, INT64_MAX); /* SYN/ACK at the end of time */
	feed(e, 1, false, 0x10, 101, 901, (int64_t)1 << 62);
	feed(e, 1, false, 0x18, 101, 901, INT64_MAX - 1); /* data */
	feed(e, 1, true, 0x10, 901, 111, -1);		  /* its ACK, before 1970 */
	feed(e, 1, false, 0x18, 111, 901, INT64_MAX);
	feed(e, 1, true, 0x10, 901, 121, 0);
	eng_finish(e);
	const struct eng_counters *n = eng_counters(e);
	CHECK_EQ_U(n->ts_clamped, 2);
	CHECK_EQ_U(n->first_ts, 0);
	CHECK_EQ_U((uint64_t)n->last_ts, (uint64_t)INT64_MAX);
	CHECK(g.n >= 1); /* the jumps may end it idle and start it again */
	eng_free(e);
}

int main(void)
{
	test_resume();
	test_max_memory();
	test_time_ends();
	return unit_done("engine");
}
