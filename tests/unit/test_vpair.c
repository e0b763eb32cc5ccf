/* test_vpair.c - joining two capture points: matching, split/merged frames, duplicates, loss,
 * offset. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/vpair/vpair.h"
#include "tests/unit/unit.h"

/*
 * Each case builds the segments of one connection as two captures would
 * hold them (input 0 on the server's side, input 1 on the client's), in
 * memory, and hands them to the joiner's sink in time order as the engine
 * would: the server's data (s2c) passes input 0 first, the client's ACKs
 * (c2s) input 1 first, DELAY apart; input 1's clock runs `offset` ahead.
 */

#define MS    1000000LL
#define DELAY (1 * MS)
#define ISN_C 1000u
#define ISN_S 50000u
#define MSS   1000u

struct ev {
	struct sum_seg s;
};

struct scen {
	struct ev ev[1024];
	unsigned n;
	uint64_t frames[2];
	int64_t offset;
	uint64_t conn[2]; /* ids at input 0, 1 */
	bool flip;	  /* input 1's connection has the roles the other way */
};

/* One segment as seen at input `in`; dir is the real direction (c2s/s2c). */
static struct sum_seg *add(struct scen *sc, unsigned in, unsigned dir, int64_t ts, uint32_t seq,
			   uint32_t len, uint32_t ack, uint16_t ip_id, uint32_t tsval,
			   uint16_t extra)
{
	struct sum_seg *s = &sc->ev[sc->n++].s;
	memset(s, 0, sizeof(*s));
	s->conn = sc->conn[in];
	s->input = in;
	s->dir = (uint8_t)(in == 1 && sc->flip ? !dir : dir);
	s->ts = ts + (in == 1 ? sc->offset : 0);
	s->seq = seq;
	s->len = len;
	s->seq_ack = ack;
	s->ip_id = ip_id;
	s->tsval = tsval;
	s->ttl = in == 0 ? 64 : 63;
	s->queue = -1;
	s->frame = ++sc->frames[in];
	s->flags = (uint16_t)(SUM_SEG_TH_ACK | SUM_SEG_TSVAL | SUM_SEG_IPV4 | extra |
			      (len ? SUM_SEG_DATA : 0));
	return s;
}

/* Both copies of one segment: upstream first, DELAY later downstream. */
static void both(struct scen *sc, unsigned dir, int64_t ts, uint32_t seq, uint32_t len,
		 uint32_t ack, uint16_t ip_id, uint32_t tsval)
{
	unsigned up = dir == SUM_S2C ? 0 : 1;
	add(sc, up, dir, ts, seq, len, ack, ip_id, tsval, 0);
	add(sc, !up, dir, ts + DELAY, seq, len, ack, ip_id, tsval, 0);
}

static void init(struct scen *sc, int64_t offset, bool flip)
{
	memset(sc, 0, sizeof(*sc));
	sc->offset = offset;
	sc->conn[0] = 1;
	sc->conn[1] = 2;
	sc->flip = flip;
	/* Handshake: SYN (client: passes input 1 first), SYN/ACK. */
	add(sc, 1, SUM_C2S, 0, ISN_C, 0, 0, 1, 100, SUM_SEG_SYN)->flags &= ~SUM_SEG_TH_ACK;
	add(sc, 0, SUM_C2S, DELAY, ISN_C, 0, 0, 1, 100, SUM_SEG_SYN)->flags &= ~SUM_SEG_TH_ACK;
	add(sc, 0, SUM_S2C, 3 * MS, ISN_S, 0, ISN_C + 1, 7, 900, SUM_SEG_SYN);
	add(sc, 1, SUM_S2C, 3 * MS + DELAY, ISN_S, 0, ISN_C + 1, 7, 900, SUM_SEG_SYN);
	both(sc, SUM_C2S, 6 * MS, ISN_C + 1, 0, ISN_S + 1, 2, 101);
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->s.ts != y->s.ts)
		return x->s.ts < y->s.ts ? -1 : 1;
	return x->s.input < y->s.input ? -1 : x->s.input > y->s.input;
}

/* Deliver in time order, end both connections, finish. */
static struct vpair *run_ends(struct scen *sc, int64_t max_offset, bool end)
{
	char err[128];
	struct vp_config cfg = {.names = {"srv.pcap", "cli.pcap"}, .max_offset_ns = max_offset};
	struct vpair *v = vp_new(&cfg, err, sizeof(err));
	if (!v)
		return NULL;
	struct sum_sink k = vp_sink(v);
	qsort(sc->ev, sc->n, sizeof(sc->ev[0]), cmp_ev);
	for (unsigned i = 0; i < sc->n; i++)
		k.segment(k.ctx, &sc->ev[i].s);
	for (unsigned in = 0; in < 2 && end; in++) {
		struct sum_conn c;
		memset(&c, 0, sizeof(c));
		c.id = sc->conn[in];
		c.client.family = c.server.family = 4;
		c.client_port = 40000;
		c.server_port = 80;
		k.conn(k.ctx, &c);
	}
	vp_finish(v);
	return v;
}

static struct vpair *run(struct scen *sc, int64_t max_offset)
{
	return run_ends(sc, max_offset, true);
}

static const struct vp_dir_result *dir_of(const struct vpair *v, unsigned dir)
{
	const struct vp_result *r = vp_result_of(v, 1, NULL);
	return r ? &r->dir[dir] : NULL;
}

/* n data segments of MSS bytes from the server, segment k at 10 ms + k ms,
 * IP ID 10 + k, TSval 1000 + k; skip: one not seen downstream (-1: none). */
static void data(struct scen *sc, unsigned n, int skip)
{
	for (unsigned k = 0; k < n; k++) {
		int64_t ts = 10 * MS + (int64_t)k * MS;
		uint32_t seq = ISN_S + 1 + k * MSS;
		if ((int)k == skip)
			add(sc, 0, SUM_S2C, ts, seq, MSS, ISN_C + 1, (uint16_t)(10 + k), 1000 + k,
			    0);
		else
			both(sc, SUM_S2C, ts, seq, MSS, ISN_C + 1, (uint16_t)(10 + k), 1000 + k);
	}
}

static void test_clean(void)
{
	struct scen sc;
	init(&sc, 0, false);
	data(&sc, 10, -1);
	both(&sc, SUM_C2S, 30 * MS, ISN_C + 1, 0, ISN_S + 1 + 10 * MSS, 3, 102);
	struct vpair *v = run(&sc, 0);
	CHECK(v != NULL);
	const struct vp_dir_result *s2c = dir_of(v, SUM_S2C), *c2s = dir_of(v, SUM_C2S);
	CHECK(s2c && c2s);
	CHECK_EQ_U(vp_get_totals(v)->joined, 1);
	CHECK_EQ_U(s2c->upstream, 0);
	CHECK_EQ_U(c2s->upstream, 1);
	CHECK_EQ_U(s2c->lost + c2s->lost, 0);
	CHECK_EQ_U(s2c->reordered + s2c->duplicated, 0);
	CHECK_EQ_U(s2c->segments[0], 11);
	CHECK_EQ_U(s2c->segments[1], 11);
	CHECK_EQ_U(s2c->changed[VP_CH_TTL], 0); /* one hop both ways: the norm */
	CHECK(vp_get_totals(v)->offset_known);
	CHECK_EQ_U(vp_get_totals(v)->offset_ns, 0);
	CHECK(s2c->have_owd && s2c->owd_min_ns == DELAY);
	vp_free(v);
}

/* A segment lost between the points and its retransmission (a new IP ID
 * and TSval) seen at both: one lost, not capture loss. */
static void test_lost(void)
{
	struct scen sc;
	init(&sc, 0, false);
	data(&sc, 10, 4);
	both(&sc, SUM_C2S, 16 * MS, ISN_C + 1, 0, ISN_S + 1 + 4 * MSS, 3, 102);
	both(&sc, SUM_S2C, 25 * MS, ISN_S + 1 + 4 * MSS, MSS, ISN_C + 1, 40, 1040);
	both(&sc, SUM_C2S, 30 * MS, ISN_C + 1, 0, ISN_S + 1 + 10 * MSS, 4, 103);
	struct vpair *v = run(&sc, 0);
	const struct vp_dir_result *s2c = dir_of(v, SUM_S2C);
	CHECK(s2c != NULL);
	CHECK_EQ_U(s2c->lost, 1);
	CHECK_EQ_U(s2c->capture_loss_down, 0);
	CHECK_EQ_U(s2c->nex[VP_EX_LOST], 1);
	CHECK_EQ_U(s2c->ex[VP_EX_LOST][0].ip_id, 14);
	CHECK_EQ_U(s2c->ex[VP_EX_LOST][0].seq, ISN_S + 1 + 4 * MSS);
	vp_free(v);
}

/* The client's capture missed a segment the client ACKed: its capture's
 * loss, not the network's. */
static void test_capture_loss(void)
{
	struct scen sc;
	init(&sc, 0, false);
	data(&sc, 10, 4);
	both(&sc, SUM_C2S, 30 * MS, ISN_C + 1, 0, ISN_S + 1 + 10 * MSS, 3, 102);
	struct vpair *v = run(&sc, 0);
	const struct vp_dir_result *s2c = dir_of(v, SUM_S2C);
	CHECK(s2c != NULL);
	CHECK_EQ_U(s2c->lost, 0);
	CHECK_EQ_U(s2c->capture_loss_down, 1);
	CHECK_EQ_U(s2c->capture_loss_up, 0);
	vp_free(v);
}

/* The client's capture missed a segment, the server retransmitted it
 * spuriously and that copy was seen at both points; the client's D-SACK of
 * it (RFC 2883: got it twice) proves the first copy reached the client:
 * capture loss, not a loss between the points (make check: a loaded host's
 * starved tcpdump). Without the D-SACK it is lost. */
static void spurious_case(bool with_dsack)
{
	struct scen sc;
	init(&sc, 0, false);
	data(&sc, 10, 4);
	both(&sc, SUM_S2C, 25 * MS, ISN_S + 1 + 4 * MSS, MSS, ISN_C + 1, 40, 1040);
	uint32_t una = ISN_S + 1 + 10 * MSS;
	for (unsigned in = 0; in < 2; in++) {
		struct sum_seg *a = add(&sc, in, SUM_C2S, 27 * MS + (in == 0 ? DELAY : 0),
					ISN_C + 1, 0, una, 3, 102, with_dsack ? SUM_SEG_ACK : 0);
		a->rel_ack = una - ISN_S;
		if (with_dsack) {
			a->nsack = 1;
			a->sack[0][0] = 1 + 4 * MSS;
			a->sack[0][1] = 1 + 5 * MSS;
		}
	}
	struct vpair *v = run(&sc, 0);
	const struct vp_dir_result *s2c = dir_of(v, SUM_S2C);
	CHECK(s2c != NULL);
	CHECK_EQ_U(s2c->lost, with_dsack ? 0 : 1);
	CHECK_EQ_U(s2c->capture_loss_down, with_dsack ? 1 : 0);
	vp_free(v);
}

static void test_capture_loss_dsacked(void)
{
	spurious_case(true);
	spurious_case(false);
}

/* A starved capture at the client's point misses 300 segments in a row,
 * more than the joiner holds suspects, before the client's ACKs (one in
 * the middle of the run) pass them: every one is that capture's loss. */
static void test_capture_loss_run(void)
{
	struct scen sc;
	init(&sc, 0, false);
	for (unsigned k = 0; k < 400; k++) {
		int64_t ts = 10 * MS + (int64_t)k * MS;
		uint32_t seq = ISN_S + 1 + k * MSS;
		if (k >= 50 && k < 350)
			add(&sc, 0, SUM_S2C, ts, seq, MSS, ISN_C + 1, (uint16_t)(10 + k), 1000 + k,
			    0);
		else
			both(&sc, SUM_S2C, ts, seq, MSS, ISN_C + 1, (uint16_t)(10 + k), 1000 + k);
	}
	both(&sc, SUM_C2S, 500 * MS, ISN_C + 1, 0, ISN_S + 1 + 200 * MSS, 3, 102);
	both(&sc, SUM_C2S, 700 * MS, ISN_C + 1, 0, ISN_S + 1 + 400 * MSS, 4, 103);
	struct vpair *v = run(&sc, 0);
	const struct vp_dir_result *s2c = dir_of(v, SUM_S2C);
	CHECK(s2c != NULL);
	CHECK_EQ_U(s2c->lost, 0);
	CHECK_EQ_U(s2c->capture_loss_down, 300);
	CHECK_EQ_U(s2c->capture_loss_up, 0);
	vp_free(v);
}

/* A 4000-byte TSO frame at the server's point, four MSS pieces with IP IDs
 * on from its own at the client's (tcp_gso_segment()): split, not lost. */
static void test_split_and_merged(void)
{
	for (unsigned merge = 0; merge < 2; merge++) {
		struct scen sc;
		init(&sc, 0, false);
		uint32_t seq = ISN_S + 1;
		unsigned big = merge ? 1 : 0; /* the input holding the 4000-byte frame */
		add(&sc, big, SUM_S2C, 10 * MS + (big ? DELAY : 0), seq, 4 * MSS, ISN_C + 1, 50,
		    2000, 0);
		for (unsigned k = 0; k < 4; k++)
			add(&sc, !big, SUM_S2C, 10 * MS + (big ? 0 : DELAY) + k, seq + k * MSS, MSS,
			    ISN_C + 1, (uint16_t)(50 + k), 2000, 0);
		both(&sc, SUM_C2S, 30 * MS, ISN_C + 1, 0, seq + 4 * MSS, 3, 102);
		struct vpair *v = run(&sc, 0);
		const struct vp_dir_result *s2c = dir_of(v, SUM_S2C);
		CHECK(s2c != NULL);
		CHECK_EQ_U(s2c->lost + s2c->capture_loss_down + s2c->capture_loss_up, 0);
		CHECK_EQ_U(s2c->changed[VP_CH_SPLIT], merge ? 0 : 1);
		CHECK_EQ_U(s2c->changed[VP_CH_MERGED], merge ? 1 : 0);
		vp_free(v);
	}
}

/* A second copy downstream: duplicated; swapped order downstream: reordered. */
static void test_dup_and_reorder(void)
{
	struct scen sc;
	init(&sc, 0, false);
	for (unsigned k = 0; k < 6; k++) {
		int64_t ts = 10 * MS + (int64_t)k * MS;
		uint32_t seq = ISN_S + 1 + k * MSS;
		add(&sc, 0, SUM_S2C, ts, seq, MSS, ISN_C + 1, (uint16_t)(10 + k), 1000 + k, 0);
		/* Segment 2 reaches the client's point after segment 3. */
		int64_t at = ts + DELAY + (k == 2 ? 3 * MS / 2 : 0);
		/* Segment 3, the overtaker, came in on another RX queue. */
		add(&sc, 1, SUM_S2C, at, seq, MSS, ISN_C + 1, (uint16_t)(10 + k), 1000 + k, 0)
		    ->queue = k == 3 ? 1 : 0;
		if (k == 4)
			add(&sc, 1, SUM_S2C, at + 100, seq, MSS, ISN_C + 1, 14, 1004, 0);
	}
	both(&sc, SUM_C2S, 30 * MS, ISN_C + 1, 0, ISN_S + 1 + 6 * MSS, 3, 102);
	struct vpair *v = run(&sc, 0);
	const struct vp_dir_result *s2c = dir_of(v, SUM_S2C);
	CHECK(s2c != NULL);
	CHECK_EQ_U(s2c->duplicated, 1);
	CHECK_EQ_U(s2c->reordered, 1);
	CHECK_EQ_U(s2c->max_extent, 1);
	CHECK_EQ_U(s2c->queue_switch_reorders, 1);
	CHECK_EQ_U(s2c->nex[VP_EX_REORDERED], 1);
	CHECK_EQ_U(s2c->ex[VP_EX_REORDERED][0].b, 1); /* queue switch */
	CHECK_EQ_U(s2c->lost, 0);
	vp_free(v);
}

/* The client's capture clock 5 s ahead, roles swapped there (NAT or a
 * capture started mid-stream): the offset is found, nothing is lost. */
static void test_offset_and_flip(void)
{
	struct scen sc;
	init(&sc, 5000 * MS, true);
	data(&sc, 10, -1);
	both(&sc, SUM_C2S, 30 * MS, ISN_C + 1, 0, ISN_S + 1 + 10 * MSS, 3, 102);
	struct vpair *v = run(&sc, 10000 * MS);
	const struct vp_totals *t = vp_get_totals(v);
	CHECK_EQ_U(t->joined, 1);
	CHECK(t->offset_known);
	CHECK_EQ_U(t->offset_ns, 5000 * MS);
	const struct vp_result *r = vp_result_of(v, 2, NULL);
	CHECK(r && r->flip);
	const struct vp_dir_result *s2c = dir_of(v, SUM_S2C);
	CHECK(s2c != NULL);
	CHECK_EQ_U(s2c->lost, 0);
	CHECK_EQ_U(s2c->matched, 11);
	CHECK(s2c->have_owd && s2c->owd_min_ns == DELAY);
	vp_free(v);
}

/* Connections the engine never ended (vp_finish ends them): the same. */
static void test_unended(void)
{
	struct scen sc;
	init(&sc, 0, false);
	data(&sc, 10, 4);
	both(&sc, SUM_C2S, 30 * MS, ISN_C + 1, 0, ISN_S + 1 + 10 * MSS, 3, 102);
	struct vpair *v = run_ends(&sc, 0, false);
	const struct vp_dir_result *s2c = dir_of(v, SUM_S2C);
	CHECK(s2c != NULL);
	CHECK_EQ_U(vp_get_totals(v)->joined, 1);
	CHECK_EQ_U(s2c->capture_loss_down, 1);
	vp_free(v);
}

/* Hostile input: segments of inputs beyond the pair, directions out of
 * range, and a connection seen at one point only. */
static void test_hostile(void)
{
	char err[64];
	struct vp_config cfg = {0};
	struct vpair *v = vp_new(&cfg, err, sizeof(err));
	CHECK(v != NULL);
	struct sum_sink k = vp_sink(v);
	struct sum_seg s;
	memset(&s, 0, sizeof(s));
	s.conn = 9;
	s.input = 7;
	k.segment(k.ctx, &s);
	s.input = 0;
	s.dir = 200;
	k.segment(k.ctx, &s);
	s.dir = 0;
	for (unsigned i = 0; i < 5000; i++) {
		s.seq = i * 7919u;
		s.len = i % 3 ? 0xffffffffu - i : 0;
		s.ts = (int64_t)i;
		k.segment(k.ctx, &s);
	}
	struct sum_conn c;
	memset(&c, 0, sizeof(c));
	c.id = 9;
	k.conn(k.ctx, &c);
	vp_finish(v);
	CHECK_EQ_U(vp_get_totals(v)->joined, 0);
	CHECK_EQ_U(vp_get_totals(v)->not_joined[0], 1);
	vp_free(v);
}

int main(void)
{
	test_clean();
	test_lost();
	test_capture_loss();
	test_capture_loss_run();
	test_capture_loss_dsacked();
	test_split_and_merged();
	test_dup_and_reorder();
	test_offset_and_flip();
	test_unended();
	test_hostile();
	return unit_done("vpair");
}
