/* test_tui.c - the dashboard's model (timelines, rates, table, log), filter and player. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/unit.h"
#include "tui/connfilter.h"
#include "tui/model.h"
#include "tui/player.h"

#define MS 1000000ll
#define S  1000000000ll

static void addr4(struct dec_addr *a, uint8_t a0, uint8_t a1, uint8_t a2, uint8_t a3)
{
	memset(a, 0, sizeof(*a));
	a->family = 4;
	a->a[0] = a0;
	a->a[1] = a1;
	a->a[2] = a2;
	a->a[3] = a3;
}

static void test_timeline(void)
{
	struct tm_timeline tl = {0};
	uint64_t total = 0;

	/* 1 ms buckets at first; 10 s later they have doubled until 64 cover it. */
	for (int64_t t = 0; t <= 10 * S; t += 7 * MS) {
		tm_timeline_add(&tl, 1000 * S + t, SUM_S2C, 1000, (uint32_t)(t / MS) + 1000, false,
				0);
		total += 1000;
	}
	CHECK(tl.width_ns * TM_BUCKETS > 10 * S);
	CHECK(tl.width_ns * TM_BUCKETS / 2 <= 10 * S);
	CHECK(tl.used <= TM_BUCKETS && tl.used > TM_BUCKETS / 2);
	uint64_t sum = 0;
	uint32_t hi = 0;
	for (unsigned k = 0; k < TM_BUCKETS; k++) {
		sum += tl.b[k].bytes[SUM_S2C];
		CHECK(tl.b[k].bytes[SUM_C2S] == 0);
		if (tl.b[k].seq_hi[SUM_S2C] > hi)
			hi = tl.b[k].seq_hi[SUM_S2C];
	}
	CHECK_EQ_U(sum, total); /* widening merges, never loses bytes */
	CHECK_EQ_U(hi, 10 * S / MS / 7 * 7 + 1000);
	/* Sequence grows, so each used bucket's high mark is above the one before. */
	bool monotonic = true;
	for (unsigned k = 1; k < tl.used; k++)
		if (tl.b[k].seq_hi[SUM_S2C] &&
		    tl.b[k].seq_hi[SUM_S2C] < tl.b[k - 1].seq_hi[SUM_S2C])
			monotonic = false;
	CHECK(monotonic);

	/* A stall mark covers the buckets of its span, and only those. */
	struct tm_timeline t2 = {0};
	tm_timeline_add(&t2, 0, SUM_C2S, 10, 10, false, 0);
	tm_timeline_add(&t2, 60 * MS, SUM_C2S, 10, 20, true, 0);
	tm_timeline_mark(&t2, 20 * MS, 40 * MS, TM_B_VIEW(DET_VIEW_stall));
	CHECK_EQ_U(t2.width_ns, 1 * MS);
	CHECK(!(t2.b[19].flags & TM_B_VIEW(DET_VIEW_stall)));
	CHECK(t2.b[20].flags & TM_B_VIEW(DET_VIEW_stall));
	CHECK(t2.b[40].flags & TM_B_VIEW(DET_VIEW_stall));
	CHECK(!(t2.b[41].flags & TM_B_VIEW(DET_VIEW_stall)));
	CHECK_EQ_U(t2.b[60].retrans[SUM_C2S], 1);
	/* Timestamps going backwards land in the first bucket instead of underflowing. */
	tm_timeline_add(&t2, -5 * S, SUM_C2S, 3, 0, false, 0);
	CHECK_EQ_U(t2.b[0].bytes[SUM_C2S], 13);
}

static void test_rate(void)
{
	struct tm_rate r = {0};
	int64_t t0 = 50 * S;

	/* 1 MB/s for 3 s, in 1 kB pieces every ms. */
	for (int64_t t = 0; t < 3 * S; t += MS)
		tm_rate_add(&r, t0 + t, SUM_C2S, 1000);
	double got = tm_rate_get(&r, t0 + 3 * S, t0, SUM_C2S);
	CHECK(fabs(got - 1e6) < 0.02e6);
	CHECK(tm_rate_get(&r, t0 + 3 * S, t0, SUM_S2C) == 0);
	/* Half a second of silence: about half the rate; two seconds: none. */
	got = tm_rate_get(&r, t0 + 3 * S + S / 2, t0, SUM_C2S);
	CHECK(got > 0.4e6 && got < 0.6e6);
	CHECK(tm_rate_get(&r, t0 + 5 * S + 1, t0, SUM_C2S) == 0);
	/* A 100 ms old connection is measured over its life. */
	struct tm_rate y = {0};
	tm_rate_add(&y, t0, SUM_S2C, 50000);
	tm_rate_add(&y, t0 + 100 * MS, SUM_S2C, 50000);
	got = tm_rate_get(&y, t0 + 100 * MS, t0, SUM_S2C);
	CHECK(fabs(got - 1e6) < 1);
}

static void seg(const struct sum_sink *k, uint64_t conn, int64_t ts, unsigned dir, uint32_t len,
		uint32_t rel, uint8_t flags, int32_t queue)
{
	struct sum_seg s = {.conn = conn,
			    .ts = ts,
			    .len = len,
			    .rel_seq = rel,
			    .wirelen = len + 52,
			    .queue = queue,
			    .dir = (uint8_t)dir,
			    .flags = flags};
	k->segment(k->ctx, &s);
}

static void summary(struct sum_conn *c, uint64_t id, int64_t ts)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	addr4(&c->client, 10, 0, 0, 1);
	addr4(&c->server, 10, 0, 0, 2);
	c->client_port = (uint16_t)(40000 + id);
	c->server_port = 443;
	c->first_ts = ts;
	c->last_ts = ts + S;
	c->handshake_rtt_ns = 2 * MS;
	c->state = SUM_STATE_OPEN;
}

static void test_model(void)
{
	char err[128];
	struct tm_config cfg = {.keep_ended = 100};
	struct tm_model *m = tm_new(&cfg, err, sizeof(err));
	struct tm_snapshot snap = {0};
	struct sum_conn c;

	CHECK(m != NULL);
	if (!m)
		return;
	struct sum_sink k = tm_sink(m);
	int64_t t0 = 100 * S;

	/* Connection 7: data with two retransmissions and a SACK hole, live. */
	for (int i = 0; i < 10; i++)
		seg(&k, 7, t0 + i * MS, SUM_S2C, 1448, (uint32_t)i * 1448,
		    SUM_SEG_DATA | (i >= 8 ? SUM_SEG_RETRANS : 0), i % 2);
	struct sum_event ev = {.type = SUM_EV_SACK_HOLE, .conn = 7, .ts = t0 + 3 * MS};
	k.event(k.ctx, &ev);
	struct sum_event st = {.type = SUM_EV_STALL, .conn = 7, .ts = t0, .duration_ns = 40 * MS};
	st.u.stall.cls = STALL_DELAYED_ACK;
	k.event(k.ctx, &st);
	summary(&c, 7, t0);
	c.dir[SUM_S2C].retrans = 2;
	c.dir[SUM_S2C].payload_bytes = 14480;
	c.det.stall.count = 1;
	c.det.stall.time_ns = 40 * MS;
	c.queues_known = true;
	c.queue_mask = 3;
	tm_update_live(m, &c);

	CHECK(tm_snapshot_fill(m, &snap, 7) == 0);
	CHECK_EQ_U(snap.nrows, 1);
	CHECK_EQ_U(snap.rows[0].id, 7);
	CHECK_EQ_U(snap.rows[0].retrans, 2);
	CHECK_EQ_U(snap.rows[0].det[DET_VIEW_sack][0].sort, 1); /* live: counted from the events */
	CHECK_EQ_U(snap.rows[0].det[DET_VIEW_stall][0].sort, 1);
	CHECK_EQ_U(snap.rows[0].queues, 2);
	CHECK(!snap.rows[0].ended);
	CHECK(snap.rows[0].rate[SUM_S2C] > 0);
	CHECK_EQ_U(snap.rows[0].rtt_ns, 2 * MS); /* no data RTT: the handshake's */
	CHECK_EQ_U(snap.tot.retrans, 2);
	CHECK_EQ_U(snap.tot.events[SUM_EV_STALL], 1);
	CHECK_EQ_U(snap.tot.det.stall.by_class[STALL_DELAYED_ACK], 1);
	CHECK_EQ_U(snap.tot.live, 1);
	CHECK(snap.detail.valid);
	CHECK_EQ_U(snap.detail.queue_pkts[0], 5);
	CHECK_EQ_U(snap.detail.queue_pkts[1], 5);
	CHECK_EQ_U(snap.nlog, 2);
	CHECK(snap.log[0].type == SUM_EV_STALL); /* newest first */
	CHECK(snap.log[1].type == SUM_EV_SACK_HOLE);

	/* It ends: the final summary's results replace the tallies. */
	c.det.sack.holes = 3;
	c.state = SUM_STATE_CLOSED;
	k.conn(k.ctx, &c);
	CHECK(tm_snapshot_fill(m, &snap, 0) == 0);
	CHECK(snap.rows[0].ended);
	CHECK_EQ_U(snap.rows[0].det[DET_VIEW_sack][0].sort, 3);
	CHECK(snap.rows[0].rate[SUM_S2C] == 0);
	CHECK(!snap.detail.valid);
	CHECK_EQ_U(snap.tot.live, 0);

	/* 5000 more connections end: only keep_ended stay, the rest are counted. */
	for (uint64_t id = 100; id < 5100; id++) {
		seg(&k, id, t0 + (int64_t)id * MS, SUM_C2S, 0, 0, SUM_SEG_SYN, -1);
		summary(&c, id, t0);
		k.conn(k.ctx, &c);
	}
	CHECK(tm_snapshot_fill(m, &snap, 5099) == 0);
	CHECK_EQ_U(snap.nrows, 100);
	CHECK_EQ_U(snap.rows[0].id, 5000); /* the newest 100, in id order */
	CHECK_EQ_U(snap.rows[99].id, 5099);
	CHECK_EQ_U(snap.tot.conns, 5001);
	CHECK_EQ_U(snap.tot.ended_dropped, 4901);
	CHECK(snap.detail.valid && snap.detail.s.id == 5099);

	/* The log keeps the last TM_LOG findings; small reorders are only counted. */
	struct sum_event ro = {.type = SUM_EV_REORDER, .conn = 5099, .extent = 1};
	for (int i = 0; i < 10; i++)
		k.event(k.ctx, &ro);
	ro.queue_switch = 1;
	k.event(k.ctx, &ro);
	for (int i = 0; i < TM_LOG + 5; i++) {
		ev.conn = 5099;
		ev.ts = i;
		k.event(k.ctx, &ev);
	}
	CHECK(tm_snapshot_fill(m, &snap, 0) == 0);
	CHECK_EQ_U(snap.nlog, TM_LOG);
	CHECK_EQ_U(snap.log[0].ts, TM_LOG + 4);
	CHECK_EQ_U(snap.tot.events[SUM_EV_REORDER], 11);
	CHECK_EQ_U(snap.tot.det.reorder.across_queues, 1);
	struct sum_event e3 = {.type = SUM_EV_REORDER, .extent = 3};
	CHECK(tm_event_logged(&e3));
	e3.extent = 2;
	CHECK(!tm_event_logged(&e3));

	tm_snapshot_free(&snap);
	tm_free(m);

	/* The same 4-tuple from two vantage points: only those rows say where. */
	m = tm_new(&cfg, err, sizeof(err));
	CHECK(m != NULL);
	if (!m)
		return;
	for (uint64_t id = 1; id <= 3; id++) {
		summary(&c, id, t0);
		c.client_port = id == 3 ? 40007 : 40001;
		c.vantage = id == 2 ? 1 : 0;
		tm_update_live(m, &c);
	}
	CHECK(tm_snapshot_fill(m, &snap, 0) == 0);
	CHECK_EQ_U(snap.nrows, 3);
	CHECK(snap.rows[0].vantage_matters && snap.rows[1].vantage_matters);
	CHECK(!snap.rows[2].vantage_matters);
	tm_snapshot_free(&snap);
	tm_free(m);
}

/* Findings grouped by (connection, kind): 600 SACK holes are one group
 * that counts all 600 (the log keeps TM_LOG), with the largest hole and
 * the first frame; groups stay at TM_GROUPS, the stalest evicted. */
static void test_groups(void)
{
	char err[128];
	struct tm_config cfg = {.keep_ended = 10};
	struct tm_model *m = tm_new(&cfg, err, sizeof(err));
	struct tm_snapshot *snap = calloc(1, sizeof(*snap));

	CHECK(m != NULL && snap != NULL);
	if (!m || !snap) {
		tm_free(m);
		free(snap);
		return;
	}
	struct sum_sink k = tm_sink(m);
	CHECK(tm_snapshot_fill(m, snap, 0) == 0);
	CHECK_EQ_U(snap->ngroups, 0); /* nothing found: no group */
	for (uint32_t i = 0; i < 600; i++) {
		struct sum_event h = {.type = SUM_EV_SACK_HOLE,
				      .conn = 3,
				      .dir = SUM_S2C,
				      .ts = (int64_t)i * MS,
				      .duration_ns = -1,
				      .frame_first = 100 + i,
				      .frame_last = 104 + i,
				      .bytes = i == 417 ? 14480 : 1448,
				      .segments = i == 417 ? 10 : 1};
		k.event(k.ctx, &h);
	}
	struct sum_event st = {.type = SUM_EV_STALL, .conn = 3, .ts = 5 * MS, .frame_first = 90};
	st.duration_ns = 40 * MS;
	k.event(k.ctx, &st);
	st.duration_ns = 900 * MS;
	st.frame_first = 300;
	k.event(k.ctx, &st);
	CHECK(tm_snapshot_fill(m, snap, 0) == 0);
	CHECK_EQ_U(snap->nlog, TM_LOG);
	CHECK_EQ_U(snap->ngroups, 2);
	for (uint32_t i = 0; i < snap->ngroups; i++) {
		const struct tm_group *g = &snap->groups[i];
		CHECK_EQ_U(g->conn, 3);
		if (g->type == SUM_EV_SACK_HOLE) {
			CHECK_EQ_U(g->count, 600);
			CHECK_EQ_U(g->worst.bytes, 14480); /* the largest hole */
			CHECK_EQ_U(g->worst.frame_first, 517);
			CHECK_EQ_U(g->first_frame, 100);
			CHECK_EQ_U(g->dirs, 1u << SUM_S2C);
		} else {
			CHECK(g->type == SUM_EV_STALL);
			CHECK_EQ_U(g->count, 2);
			CHECK_EQ_U(g->worst.duration_ns, 900 * MS); /* the longest */
			CHECK_EQ_U(g->first_frame, 90);
		}
	}
	/* More (connection, kind) pairs than TM_GROUPS: bounded, counted. */
	for (uint64_t c = 10; c < 10 + TM_GROUPS + 20; c++) {
		struct sum_event z = {.type = SUM_EV_ZERO_WINDOW, .conn = c, .frame_first = 1};
		k.event(k.ctx, &z);
	}
	CHECK(tm_snapshot_fill(m, snap, 0) == 0);
	CHECK_EQ_U(snap->ngroups, TM_GROUPS);
	CHECK_EQ_U(snap->tot.groups_dropped, 22);
	tm_snapshot_free(snap);
	free(snap);
	tm_free(m);
}

/* Live: the model's clock follows the wall clock without packets, so a
 * connection's rate falls to 0 within 2 s of its last packet; a clock
 * that goes back is ignored. */
static void test_wall_clock(void)
{
	char err[128];
	struct tm_config cfg = {.keep_ended = 10};
	struct tm_model *m = tm_new(&cfg, err, sizeof(err));
	struct tm_snapshot snap = {0};
	struct sum_conn c;
	int64_t t0 = 1000 * S;

	CHECK(m != NULL);
	if (!m)
		return;
	struct sum_sink k = tm_sink(m);
	for (int64_t t = 0; t < 2 * S; t += 10 * MS)
		seg(&k, 1, t0 + t, SUM_S2C, 1000, (uint32_t)(t / MS), SUM_SEG_DATA, -1);
	summary(&c, 1, t0);
	c.last_ts = t0 + 2 * S - 10 * MS;
	tm_update_live(m, &c);
	CHECK(tm_snapshot_fill(m, &snap, 0) == 0 && snap.nrows == 1);
	CHECK(snap.nrows == 1 && snap.rows[0].rate[SUM_S2C] > 90000);
	tm_advance_clock(m, t0 + 5 * S / 2); /* half a second on: fading */
	tm_snapshot_fill(m, &snap, 0);
	CHECK(snap.nrows == 1 && snap.rows[0].rate[SUM_S2C] > 0 &&
	      snap.rows[0].rate[SUM_S2C] < 90000);
	tm_advance_clock(m, t0 + 4 * S); /* 2 s after it: nothing */
	tm_snapshot_fill(m, &snap, 0);
	CHECK(snap.nrows == 1 && snap.rows[0].rate[SUM_S2C] == 0);
	CHECK(snap.now == t0 + 4 * S);
	tm_advance_clock(m, t0); /* backwards: the clock stays */
	tm_snapshot_fill(m, &snap, 0);
	CHECK(snap.now == t0 + 4 * S);
	tm_snapshot_free(&snap);
	tm_free(m);
}

static void test_filter(void)
{
	char err[64];
	struct tm_row r4 = {0}, r6 = {0};

	addr4(&r4.client, 10, 0, 2, 1);
	addr4(&r4.server, 10, 0, 1, 1);
	r4.client_port = 40080;
	r4.server_port = 80;
	r6.client.family = r6.server.family = 6;
	r6.client.a[0] = 0x20;
	r6.client.a[1] = 0x01;
	r6.client.a[2] = 0x0d;
	r6.client.a[3] = 0xb8;
	r6.client.a[15] = 1;
	memcpy(r6.server.a, r6.client.a, 16);
	r6.server.a[15] = 2;
	r6.client_port = 5000;
	r6.server_port = 443;

	static const struct {
		const char *expr;
		bool bpf, m4, m6;
	} cases[] = {
	    {"port 80", true, true, false},
	    {"src port 80", true, true, false}, /* either direction counts */
	    {"host 10.0.1.1", true, true, false},
	    {"net 10.0.0.0/16 and tcp", true, true, false},
	    {"ip6", true, false, true},
	    {"tcp port 443", true, false, true},
	    {"udp", true, false, false},
	    /* libpcap's tcp[] reads IPv4 only, in a capture filter as here */
	    {"tcp[13] & 16 != 0", true, true, false},
	    {"10.0.2", false, true, false},
	    {":443", false, false, true},
	    {"2001:DB8::2", false, false, true}, /* substrings ignore case */
	    {"192.168", false, false, false},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct cf_filter *f = cf_new(cases[k].expr, err, sizeof(err));
		CHECK(f != NULL);
		if (!f)
			continue;
		if (cf_is_bpf(f) != cases[k].bpf || cf_match(f, &r4) != cases[k].m4 ||
		    cf_match(f, &r6) != cases[k].m6) {
			fprintf(stderr, "filter '%s': bpf %d v4 %d v6 %d\n", cases[k].expr,
				cf_is_bpf(f), cf_match(f, &r4), cf_match(f, &r6));
			CHECK(0);
		} else {
			CHECK(1);
		}
		cf_free(f);
	}
	/* What looks like a capture filter but does not compile is refused
	 * with libpcap's reason, never taken as a substring. */
	static const char *const refused[] = {"prot 80", "host 10.0.0.999", "port", "tcp and",
					      "10.0.0.1 or x y"};
	for (size_t k = 0; k < sizeof(refused) / sizeof(refused[0]); k++) {
		err[0] = '\0';
		struct cf_filter *f = cf_new(refused[k], err, sizeof(err));
		if (f || !err[0])
			fprintf(stderr, "filter '%s': accepted, or refused without a reason\n",
				refused[k]);
		CHECK(!f && err[0]);
		cf_free(f);
	}
}

/* The player, without a screen: a replay as fast as possible ends with the
 * numbers analyze reports for the same file (tests/golden). */
static void test_player(void)
{
	static const struct {
		const char *path;
		uint64_t packets, conns, stalls, holes, retrans;
	} files[] = {
	    {"samples/rr-nagle-delack.pcap", 107, 1, 19, 0, 0},
	    {"samples/demo-http-loss.pcapng", 2148, 1, 0, 34, 34},
	    {"samples/reorder-relay.pcap", 126, 1, 0, 6, 0},
	};
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		const char *paths[1] = {files[k].path};
		struct pl_config cfg = {.mode = PL_REPLAY,
					.paths = paths,
					.npaths = 1,
					.speed = 0,
					.model = {.keep_ended = 1000},
					.publish_ns = 10 * MS};
		char err[256];
		eng_config_defaults(&cfg.eng);
		struct player *p;
		CHECK_EQ_U(pl_new(&cfg, &p, err, sizeof(err)), 0);
		if (!p) {
			fprintf(stderr, "%s\n", err);
			continue;
		}
		const struct pl_view *v = pl_latest(p, 1); /* ask for #1's detail first */
		CHECK(pl_start(p, err, sizeof(err)) == 0);
		for (int i = 0; i < 500 && (v->h.state != PL_ENDED || !v->m.detail.valid); i++) {
			struct timespec ts = {0, 10 * MS};
			nanosleep(&ts, NULL);
			v = pl_latest(p, 1);
		}
		CHECK(v->h.state == PL_ENDED);
		CHECK_EQ_U(v->h.packets, files[k].packets);
		CHECK_EQ_U(v->m.tot.conns, files[k].conns);
		CHECK_EQ_U(v->m.tot.events[SUM_EV_STALL], files[k].stalls);
		CHECK_EQ_U(v->m.tot.events[SUM_EV_SACK_HOLE], files[k].holes);
		CHECK_EQ_U(v->m.tot.retrans, files[k].retrans);
		CHECK(v->m.nrows == 1 && v->m.rows[0].ended);
		CHECK_EQ_U(v->m.rows[0].retrans, files[k].retrans);
		CHECK_EQ_U(v->m.rows[0].det[DET_VIEW_sack][0].sort, files[k].holes);
		CHECK_EQ_U(v->m.rows[0].det[DET_VIEW_stall][0].sort, files[k].stalls);
		CHECK(v->m.detail.valid && v->m.detail.s.id == 1);
		pl_free(p);
	}

	/* Paused: nothing is played until a step, then exactly one packet per step. */
	const char *paths[1] = {"samples/rr-nagle-delack.pcap"};
	struct pl_config cfg = {.mode = PL_REPLAY,
				.paths = paths,
				.npaths = 1,
				.speed = 1,
				.start_paused = true,
				.model = {.keep_ended = 10},
				.publish_ns = 5 * MS};
	char err[256];
	eng_config_defaults(&cfg.eng);
	struct player *p;
	CHECK_EQ_U(pl_new(&cfg, &p, err, sizeof(err)), 0);
	CHECK(p && pl_start(p, err, sizeof(err)) == 0);
	if (!p)
		return;
	struct timespec ts = {0, 60 * MS};
	nanosleep(&ts, NULL);
	CHECK_EQ_U(pl_latest(p, 0)->h.packets, 0);
	CHECK(pl_latest(p, 0)->h.state == PL_PAUSED);
	for (int i = 0; i < 3; i++)
		pl_step(p);
	nanosleep(&ts, NULL);
	CHECK_EQ_U(pl_latest(p, 0)->h.packets, 3);
	pl_free(p);

	/* A file that is not a capture: a clear error, no player. */
	const char *bad[1] = {"samples/README.md"};
	cfg.paths = bad;
	CHECK_EQ_U((uint64_t)(int64_t)pl_new(&cfg, &p, err, sizeof(err)),
		   (uint64_t)(int64_t)ERR_INPUT);
	CHECK(p == NULL);
	CHECK(strstr(err, "samples/README.md") != NULL);

	/* A filter that does not compile: a usage error, whatever the message says. */
	cfg.paths = (const char *const[]){"samples/demo-http-loss.pcapng"};
	cfg.filter = "tcp and (";
	CHECK_EQ_U((uint64_t)(int64_t)pl_new(&cfg, &p, err, sizeof(err)),
		   (uint64_t)(int64_t)ERR_USAGE);
	CHECK(p == NULL);
}

int main(void)
{
	/* Run from the repository root (tests/run_unit.sh does), for samples/. */
	test_timeline();
	test_rate();
	test_model();
	test_groups();
	test_wall_clock();
	test_filter();
	test_player();
	return unit_done("test_tui");
}
