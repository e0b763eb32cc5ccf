/* test_sack.c - unit tests of the SACK scoreboard detector (holes, D-SACK, reneging). */
#include <string.h>

/* Segments below are positional literals; unnamed trailing fields are 0. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "analyze/detect/detect.h"
#include "analyze/engine/seq.h"
#include "analyze/engine/tcp.h"
#include "tests/unit/convo.h"
#include "tests/unit/unit.h"

/*
 * Client 10.0.0.1:40000 sends data to server 10.0.0.2:80; the server's ACKs
 * carry SACK blocks. Every segment goes through tcp_segment() and then
 * det_segment(), as the engine does. Sequence numbers below are relative to
 * the client's ISN + 1 (the first data byte is 0).
 */
#define EV_MAX 256

struct convo {
	struct tcp_conn c;
	struct tcp_params prm;
	struct det_params dprm;
	struct det_env env;
	struct sum_sink sink;
	struct sum_event ev[EV_MAX];
	unsigned nev;
	uint64_t frame;
	uint32_t iss, irs;
	uint32_t srv_tsval;
	bool started;
};

static void on_event(void *ctx, const struct sum_event *e)
{
	struct convo *v = ctx;
	if (v->nev < EV_MAX)
		v->ev[v->nev++] = *e;
}

struct seg {
	int dir;
	uint8_t flags;
	uint32_t seq, ack, len;
	int64_t t_us;
	uint32_t tsval;
	uint8_t nsack;
	const uint32_t *sack; /* absolute left, right pairs */
	int syn_opts;
};

static void send_seg(struct convo *v, const struct seg *s)
{
	struct dec_packet d;
	struct pkt p;

	convo_packet(4, s->dir, s->t_us, &v->frame, &d, &p);
	d.tcp.seq = s->seq;
	d.tcp.ack = s->ack;
	d.tcp.flags = s->flags;
	d.tcp.window = 1000;
	d.tcp.payload_len = d.tcp.payload_cap = s->len;
	d.l3_len = 52 + s->len;
	d.tcp.opt.has_ts = 1;
	d.tcp.opt.tsval = s->tsval;
	if (s->syn_opts) {
		d.tcp.opt.has_mss = 1;
		d.tcp.opt.mss = 1000;
		d.tcp.opt.has_wscale = 1;
		d.tcp.opt.wscale = 2;
		d.tcp.opt.sack_permitted = 1;
	}
	if (s->nsack) {
		d.tcp.opt.has_sack = 1;
		d.tcp.opt.nsack = s->nsack;
		for (unsigned k = 0; k < s->nsack; k++) {
			d.tcp.opt.sack[k].left = s->sack[2 * k];
			d.tcp.opt.sack[k].right = s->sack[2 * k + 1];
		}
	}
	convo_deliver(&v->c, &v->started, &v->prm, &v->env, &v->sink, CONVO_DETECTORS, NULL, &d,
		      &p);
}

enum { S = DEC_TH_SYN, A = DEC_TH_ACK };

static void convo_init(struct convo *v, uint32_t iss)
{
	memset(v, 0, sizeof(*v));
	convo_params(&v->prm, &v->dprm, &v->env, &v->sink, on_event, v);
	v->iss = iss;
	v->irs = 5000;
	v->srv_tsval = 100;
	send_seg(v, &(struct seg){SUM_C2S, S, iss, 0, 0, 0, 1, 0, NULL, 1});
	send_seg(v,
		 &(struct seg){SUM_S2C, S | A, v->irs, iss + 1, 0, 100, v->srv_tsval, 0, NULL, 1});
	send_seg(v, &(struct seg){SUM_C2S, A, iss + 1, v->irs + 1, 0, 200, 2});
}

/* Client data at relative sequence rel. */
static void data(struct convo *v, uint32_t rel, uint32_t len, int64_t t_us, uint32_t tsval)
{
	send_seg(v, &(struct seg){SUM_C2S, A, v->iss + 1 + rel, v->irs + 1, len, t_us, tsval});
}

/* Server ACK of relative ack with n blocks of relative [l, r) pairs. */
static void ack(struct convo *v, uint32_t rel, int64_t t_us, unsigned n, const uint32_t *rb)
{
	uint32_t abs[2 * DEC_MAX_SACK];

	for (unsigned k = 0; k < 2 * n && k < 2 * DEC_MAX_SACK; k++)
		abs[k] = v->iss + 1 + rb[k];
	send_seg(v, &(struct seg){SUM_S2C, A, v->irs + 1, v->iss + 1 + rel, 0, t_us, ++v->srv_tsval,
				  (uint8_t)n, abs});
}

static void finish(struct convo *v, struct sum_conn *s)
{
	tcp_finish(&v->c, &v->sink);
	det_finish(&v->c, &v->env, &s->det);
	tcp_summarize(&v->c, s);
}

static unsigned count_ev(const struct convo *v, enum sum_event_type t)
{
	unsigned n = 0;
	for (unsigned k = 0; k < v->nev; k++)
		n += v->ev[k].type == t;
	return n;
}

static const struct sum_event *nth_ev(const struct convo *v, enum sum_event_type t, unsigned nth)
{
	for (unsigned k = 0; k < v->nev; k++)
		if (v->ev[k].type == t && nth-- == 0)
			return &v->ev[k];
	return NULL;
}

/* Receiver-side capture: the original of [1000, 2000) never arrives; the
 * retransmission (a later TSval) fills the gap: lost upstream. */
static void test_retrans_upstream(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 1000);
	data(&v, 0, 1000, 1000, 10);
	data(&v, 2000, 1000, 1010, 12);
	data(&v, 3000, 1000, 1020, 13);
	ack(&v, 1000, 1030, 0, NULL);
	ack(&v, 1000, 1040, 1, (const uint32_t[]){2000, 3000}); /* frame 8: hole seen */
	ack(&v, 1000, 1050, 1, (const uint32_t[]){2000, 4000});
	data(&v, 1000, 1000, 30000, 40); /* fast retransmission */
	ack(&v, 4000, 30100, 0, NULL);	 /* frame 11: closes it */
	finish(&v, &s);

	const struct sackb_summary *k = &s.det.sack;
	CHECK_EQ_U(k->holes, 1);
	CHECK_EQ_U(k->by_closed[SACKB_CLOSED_RETRANS], 1);
	CHECK_EQ_U(k->lost_upstream, 1);
	CHECK_EQ_U(k->lost_downstream, 0);
	CHECK_EQ_U(k->max_hole_bytes_outstanding, 1000);
	CHECK_EQ_U(k->recoveries, 1);
	CHECK_EQ_U(k->recovery_time_ns, (30100 - 1040) * 1000);
	CHECK_EQ_U(count_ev(&v, SUM_EV_SACK_HOLE), 1);
	const struct sum_event *e = nth_ev(&v, SUM_EV_SACK_HOLE, 0);
	if (e) {
		CHECK_EQ_U(e->bytes, 1000);
		CHECK_EQ_U(e->segments, 1);
		CHECK_EQ_U(e->u.hole.closed_by, SACKB_CLOSED_RETRANS);
		CHECK_EQ_U(e->u.hole.passed_capture, 0);
		CHECK_EQ_U(e->frame_first, 8);
		CHECK_EQ_U(e->frame_last, 11);
		CHECK_EQ_U(e->ts, 1040000);
		CHECK_EQ_U(e->duration_ns, (30100 - 1040) * 1000);
		CHECK_EQ_U(e->rel_seq, 1001); /* relative to the ISN */
		CHECK_EQ_U(e->dir, SUM_C2S);
	}
}

/* Sender-side capture: the original passed the capture point and was lost
 * after it; the retransmission re-sends bytes the capture had seen. */
static void test_retrans_downstream(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 1000);
	for (uint32_t k = 0; k < 4; k++)
		data(&v, k * 1000, 1000, 1000 + 10 * k, 10 + k);
	ack(&v, 1000, 1100, 0, NULL);
	ack(&v, 1000, 1110, 1, (const uint32_t[]){2000, 3000});
	ack(&v, 1000, 1120, 1, (const uint32_t[]){2000, 4000});
	data(&v, 1000, 1000, 1130, 20);
	ack(&v, 4000, 1230, 0, NULL);
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.holes, 1);
	CHECK_EQ_U(s.det.sack.by_closed[SACKB_CLOSED_RETRANS], 1);
	CHECK_EQ_U(s.det.sack.lost_downstream, 1);
	CHECK_EQ_U(s.det.sack.lost_upstream, 0);
	const struct sum_event *e = nth_ev(&v, SUM_EV_SACK_HOLE, 0);
	CHECK(e && e->u.hole.passed_capture == 1);
}

/* The original arrives late (its TSval is lower than the highest's). */
static void test_late_original(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 1000);
	data(&v, 0, 1000, 1000, 10);
	data(&v, 2000, 1000, 1010, 12);
	ack(&v, 1000, 1020, 1, (const uint32_t[]){2000, 3000});
	data(&v, 1000, 1000, 1100, 11); /* sent before frame 5: out of order */
	ack(&v, 3000, 1110, 0, NULL);
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.holes, 1);
	CHECK_EQ_U(s.det.sack.by_closed[SACKB_CLOSED_REORDER], 1);
	CHECK_EQ_U(s.det.sack.by_closed[SACKB_CLOSED_RETRANS], 0);
	CHECK_EQ_U(s.det.sack.lost_upstream, 1);
	const struct sum_event *e = nth_ev(&v, SUM_EV_SACK_HOLE, 0);
	CHECK(e && e->duration_ns == 90000);
}

/* Never closed: "open" at the end; ACKed with nothing seen in a capture
 * that missed nothing of the direction: reordered downstream. */
static void test_open_and_other(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 1000);
	for (uint32_t k = 0; k < 4; k++)
		data(&v, k * 1000, 1000, 1000 + 10 * k, 10 + k);
	ack(&v, 1000, 1100, 1, (const uint32_t[]){2000, 3000});
	ack(&v, 3000, 1200, 0, NULL); /* R got [1000, 2000): reordered after the capture */
	ack(&v, 3000, 1300, 1, (const uint32_t[]){3500, 4000}); /* [3000, 3500) missing */
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.holes, 2);
	CHECK_EQ_U(s.det.sack.by_closed[SACKB_CLOSED_OTHER], 0);
	CHECK_EQ_U(s.det.sack.by_closed[SACKB_CLOSED_REORDER], 1);
	CHECK_EQ_U(s.det.sack.reordered_downstream, 1);
	CHECK_EQ_U(s.det.sack.by_closed[SACKB_CLOSED_OPEN], 1);
	CHECK_EQ_U(s.det.sack.lost_downstream, 2);
	CHECK_EQ_U(s.det.sack.recoveries, 2);
	CHECK_EQ_U(s.det.sack.open_at_end_dirs, 1);
	const struct sum_event *e = nth_ev(&v, SUM_EV_SACK_HOLE, 1);
	if (e) {
		CHECK_EQ_U(e->u.hole.closed_by, SACKB_CLOSED_OPEN);
		CHECK_EQ_U(e->bytes, 500);
		CHECK_EQ_U(e->segments, 1);
		CHECK_EQ_U(e->duration_ns, 0); /* open since the last packet */
	}
}

/* The same closure in a capture that lost a segment of the direction:
 * the capture may have missed the repair too, so it stays "acked". */
static void test_acked_capture_loss(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 1000);
	for (uint32_t k = 0; k < 3; k++)
		data(&v, k * 1000, 1000, 1000 + 10 * k, 10 + k);
	data(&v, 4000, 1000, 1040, 14); /* [3000, 4000) never captured */
	ack(&v, 1000, 1100, 1, (const uint32_t[]){2000, 3000});
	ack(&v, 5000, 1200, 0, NULL);
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.holes, 1);
	CHECK_EQ_U(s.det.sack.by_closed[SACKB_CLOSED_OTHER], 1);
	CHECK_EQ_U(s.det.sack.reordered_downstream, 0);
	const struct sum_event *e = nth_ev(&v, SUM_EV_SACK_HOLE, 0);
	CHECK(e && e->u.hole.reason && strstr(e->u.hole.reason, "missed the repair"));
}

/* D-SACK blocks are counted (the engine emits the event), never merged. */
static void test_dsack(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 1000);
	data(&v, 0, 1000, 1000, 10);
	data(&v, 1000, 1000, 1010, 11);
	ack(&v, 2000, 1100, 0, NULL);
	data(&v, 0, 1000, 1200, 12); /* spurious retransmission */
	ack(&v, 2000, 1300, 1, (const uint32_t[]){0, 1000});
	/* A D-SACK inside the second block (RFC 2883 sec. 4.2). */
	data(&v, 3000, 1000, 1400, 13);
	data(&v, 3000, 1000, 1500, 14);
	ack(&v, 2000, 1600, 2, (const uint32_t[]){3000, 4000, 3000, 4000});
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.dsack, 2);
	CHECK_EQ_U(s.dir[SUM_S2C].dsack_blocks, 2);
	CHECK_EQ_U(count_ev(&v, SUM_EV_DSACK), 2); /* tcp.c's, not doubled */
	CHECK_EQ_U(s.det.sack.holes, 1);	   /* [2000, 3000), from the second block */
	CHECK_EQ_U(s.det.sack.by_closed[SACKB_CLOSED_OPEN], 1);
}

/* Reneging: the ACK advances to a SACKed range and stays there. */
static void test_reneging(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 1000);
	for (uint32_t k = 0; k < 4; k++)
		data(&v, k * 1000, 1000, 1000 + 10 * k, 10 + k);
	ack(&v, 1000, 1100, 1, (const uint32_t[]){2000, 4000});
	data(&v, 1000, 1000, 1200, 20);
	ack(&v, 2000, 1300, 0, NULL);	 /* should have been 4000 */
	ack(&v, 2000, 25000, 0, NULL);	 /* still there 23.7 ms later: confirmed */
	data(&v, 2000, 2000, 26000, 30); /* S re-sends what R dropped */
	ack(&v, 4000, 26100, 0, NULL);
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.reneging, 1);
	CHECK_EQ_U(s.det.sack.reneged_bytes, 2000);
	CHECK_EQ_U(count_ev(&v, SUM_EV_RENEGING), 1);
	const struct sum_event *e = nth_ev(&v, SUM_EV_RENEGING, 0);
	CHECK(e && e->frame_first == 10 && e->bytes == 2000);
	CHECK_EQ_U(s.det.sack.holes, 1);
	CHECK_EQ_U(s.det.sack.by_closed[SACKB_CLOSED_RETRANS], 1);

	/* Transient: a block starting at the ACK, passed a microsecond later
	 * (seen in real captures): no reneging. */
	convo_init(&v, 1000);
	for (uint32_t k = 0; k < 4; k++)
		data(&v, k * 1000, 1000, 1000 + 10 * k, 10 + k);
	ack(&v, 1000, 1100, 1, (const uint32_t[]){2000, 4000});
	data(&v, 1000, 1000, 1200, 20);
	ack(&v, 2000, 1300, 1, (const uint32_t[]){2000, 4000});
	ack(&v, 4000, 1301, 0, NULL);
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.reneging, 0);
	CHECK_EQ_U(count_ev(&v, SUM_EV_RENEGING), 0);
}

/* Several holes and blocks: segments 1 and 2 (adjacent: one hole), 5 and
 * 7 lost among 0..9; R's blocks arrive most recent first (RFC 2018). */
static void test_several_holes(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 1000);
	for (uint32_t k = 0; k < 10; k++)
		if (k != 1 && k != 2 && k != 5 && k != 7)
			data(&v, k * 1000, 1000, 1000 + 10 * k, 10 + k);
	ack(&v, 1000, 1190, 0, NULL);
	/* The scoreboard is cold state: nothing SACKed yet, none allocated. */
	CHECK(v.c.det.sack == NULL);
	ack(&v, 1000, 1200, 1, (const uint32_t[]){3000, 4000});
	CHECK(v.c.det.sack != NULL);
	ack(&v, 1000, 1210, 1, (const uint32_t[]){3000, 5000});
	ack(&v, 1000, 1220, 2, (const uint32_t[]){6000, 7000, 3000, 5000});
	ack(&v, 1000, 1230, 3, (const uint32_t[]){8000, 9000, 6000, 7000, 3000, 5000});
	/* Only three blocks fit: the oldest one drops out of the option. */
	ack(&v, 1000, 1240, 3, (const uint32_t[]){8000, 10000, 6000, 7000, 3000, 5000});
	CHECK_EQ_U(v.c.det.sack->dir[SUM_C2S].nblocks, 3);
	CHECK_EQ_U(v.c.det.sack->dir[SUM_C2S].nholes, 3);
	for (uint32_t k = 1; k < 8; k++)
		if (k == 1 || k == 2 || k == 5 || k == 7)
			data(&v, k * 1000, 1000, 20000 + 10 * k, 30 + k);
	ack(&v, 3000, 20100, 3, (const uint32_t[]){8000, 10000, 6000, 7000, 3000, 5000});
	ack(&v, 6000, 20110, 1, (const uint32_t[]){8000, 10000});
	ack(&v, 10000, 20120, 0, NULL);
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.holes, 3);
	CHECK_EQ_U(s.det.sack.by_closed[SACKB_CLOSED_RETRANS], 3);
	CHECK_EQ_U(s.det.sack.max_hole_bytes_outstanding, 4000);
	CHECK_EQ_U(s.det.sack.hole_bytes, 4000);
	CHECK_EQ_U(s.det.sack.recoveries, 1);
	const struct sum_event *e = nth_ev(&v, SUM_EV_SACK_HOLE, 0);
	CHECK(e && e->bytes == 2000 && e->segments == 2 && e->u.hole.passed_capture == 0);
	CHECK_EQ_U(s.det.sack.invalid_blocks, 0);
}

/* Sequence numbers crossing 2^32 inside a hole; a bogus block is ignored. */
static void test_wrap(void)
{
	struct convo v;
	struct sum_conn s;
	uint32_t iss = 0xffffffffu - 1500; /* data byte 1500 is sequence 0 */

	convo_init(&v, iss);
	data(&v, 0, 1000, 1000, 10);
	data(&v, 2000, 1000, 1010, 12);
	/* 0x40000000 bytes away: a middlebox-rewritten block (invalid). */
	ack(&v, 1000, 1020, 2, (const uint32_t[]){2000, 3000, 0x40000000u, 0x40001000u});
	data(&v, 1000, 1000, 30000, 40);
	ack(&v, 3000, 30100, 0, NULL);
	finish(&v, &s);
	CHECK(seq_lt(iss + 1 + 1000, iss + 1 + 2000) && iss + 1 + 2000 < iss);
	CHECK_EQ_U(s.det.sack.holes, 1);
	CHECK_EQ_U(s.det.sack.invalid_blocks, 1);
	CHECK_EQ_U(s.det.sack.by_closed[SACKB_CLOSED_RETRANS], 1);
	const struct sum_event *e = nth_ev(&v, SUM_EV_SACK_HOLE, 0);
	CHECK(e && e->bytes == 1000 && e->rel_seq == 1001 && e->u.hole.passed_capture == 0);
}

/* Two losses with a block R SACKed between them (issue "Truth on real
 * paths", item 4): [2000, 3000) and [6000, 7000) lost upstream of a
 * receiver-side capture; [3000, 6000) overtaken by [7000, 10000), so R
 * SACKs it after the first gap was seen. Two holes of one segment, each
 * repaired by a retransmission: never one hole spanning the block. */
static void test_block_between(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 1000);
	data(&v, 0, 1000, 1000, 10);
	data(&v, 1000, 1000, 1010, 11);
	ack(&v, 2000, 1020, 0, NULL);
	for (uint32_t k = 7; k < 10; k++) {
		data(&v, k * 1000, 1000, 1000 + 10 * k, 10 + k);
		ack(&v, 2000, 1005 + 10 * k, 1, (const uint32_t[]){7000, k * 1000 + 1000});
	}
	for (uint32_t k = 3; k < 6; k++) { /* sent before 7: out of order */
		data(&v, k * 1000, 1000, 1200 + 10 * k, 10 + k);
		ack(&v, 2000, 1205 + 10 * k, 2,
		    (const uint32_t[]){3000, k * 1000 + 1000, 7000, 10000});
	}
	data(&v, 2000, 1000, 30000, 40);
	ack(&v, 6000, 30005, 1, (const uint32_t[]){7000, 10000});
	data(&v, 6000, 1000, 30010, 41);
	ack(&v, 10000, 30015, 0, NULL);
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.holes, 2);
	CHECK_EQ_U(s.det.sack.hole_bytes, 2000);
	CHECK_EQ_U(s.det.sack.by_closed[SACKB_CLOSED_RETRANS], 2);
	CHECK_EQ_U(s.det.sack.lost_upstream, 2);
	for (unsigned k = 0; k < 2; k++) {
		const struct sum_event *e = nth_ev(&v, SUM_EV_SACK_HOLE, k);
		CHECK(e && e->bytes == 1000 && e->segments == 1 &&
		      e->u.hole.closed_by == SACKB_CLOSED_RETRANS && !e->u.hole.passed_capture);
		CHECK(e && e->rel_seq == (k ? 6001u : 2001u));
	}
}

enum { U = 1000 }; /* the segment size of lossy_run() */

/*
 * n losses: segment 0 arrives, then segment 1 + per * i is lost and the
 * per - 1 after it arrive, each ACKed with R's three most recent blocks,
 * the newest first (RFC 2018 sec. 4: older ones drop out of the option).
 * Then every loss is retransmitted in order, each ACKed with the top three
 * blocks above the new cumulative ACK. sender_side: the capture saw every
 * original (lost after it); else only what reached R. cap: the table's.
 */
static void lossy_run(struct convo *v, unsigned n, unsigned per, bool sender_side, uint32_t cap)
{
	uint32_t blk[6], tsv = 10;
	int64_t t = 1000;

	convo_init(v, 1000);
	v->dprm.sack_max_holes = cap;
	data(v, 0, U, t, tsv++);
	ack(v, U, ++t, 0, NULL);
	for (unsigned i = 0; i < n; i++) {
		uint32_t lost = 1 + per * i;
		if (sender_side)
			data(v, lost * U, U, t += 10, tsv);
		tsv++;
		for (uint32_t seg = lost + 1; seg < lost + per; seg++) {
			unsigned nb = 0;
			data(v, seg * U, U, t += 10, tsv++);
			blk[2 * nb] = (lost + 1) * U, blk[2 * nb++ + 1] = (seg + 1) * U;
			for (unsigned j = i; j-- > 0 && nb < 3;)
				blk[2 * nb] = (2 + per * j) * U,
					blk[2 * nb++ + 1] = (1 + per * (j + 1)) * U;
			ack(v, U, ++t, nb, blk);
		}
	}
	for (unsigned i = 0; i < n; i++) {
		uint32_t una = (1 + per * (i + 1)) * U;
		unsigned nb = 0;
		data(v, (1 + per * i) * U, U, t += 1000, tsv++); /* a later TSval: retransmission */
		for (unsigned j = n; j-- > i + 1 && nb < 3;)
			blk[2 * nb] = (2 + per * j) * U,
				blk[2 * nb++ + 1] = (1 + per * (j + 1)) * U;
		ack(v, una, ++t, nb, blk);
	}
}

/* Every hole event of v: one segment, closed by retransmission, passed
 * the capture point or not. */
static void check_single_holes(const struct convo *v, unsigned n, bool passed)
{
	CHECK_EQ_U(count_ev(v, SUM_EV_SACK_HOLE), n);
	for (unsigned k = 0; k < n; k++) {
		const struct sum_event *e = nth_ev(v, SUM_EV_SACK_HOLE, k);
		CHECK(e && e->bytes == U && e->segments == 1);
		CHECK(e && e->u.hole.closed_by == SACKB_CLOSED_RETRANS);
		CHECK(e && e->u.hole.passed_capture == passed);
	}
}

/* Receiver-side capture: bytes lost upstream never appear, so no hole is
 * "downstream", even one whose neighbours R SACKed (the capture saw those)
 * or one in the engine's gaps beyond its table (TCP_MAX_HOLES). */
static void test_receiver_never_seen(void)
{
	static struct convo v;
	struct sum_conn s;

	lossy_run(&v, 20, 4, false, 0);
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.holes, 20);
	CHECK_EQ_U(s.det.sack.lost_downstream, 0);
	CHECK_EQ_U(s.det.sack.lost_upstream, 20);
	check_single_holes(&v, 20, false);

	lossy_run(&v, TCP_MAX_HOLES + 6, 2, false, 0);
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.holes, TCP_MAX_HOLES + 6);
	CHECK_EQ_U(s.det.sack.lost_downstream, 0);
	CHECK_EQ_U(s.det.sack.overflow, 0);
}

/* Sender-side capture: every lost byte was captured before R reported the
 * hole: lost downstream of the capture point, each hole on its own. */
static void test_sender_downstream(void)
{
	static struct convo v;
	struct sum_conn s;

	lossy_run(&v, 20, 3, true, 0);
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.holes, 20);
	CHECK_EQ_U(s.det.sack.lost_downstream, 20);
	CHECK_EQ_U(s.det.sack.lost_upstream, 0);
	check_single_holes(&v, 20, true);
}

/* More holes than the first table (SACKB_TAB_MIN): all tracked up to the
 * cap, the rest counted; the tracked ones' verdicts are those of a run with
 * the full table. */
static void test_table_cap(void)
{
	static struct convo big, small;
	struct sum_conn sb, ss;
	const unsigned n = 40;

	lossy_run(&big, n, 2, false, 0);
	finish(&big, &sb);
	CHECK_EQ_U(sb.det.sack.holes, n);
	CHECK_EQ_U(sb.det.sack.overflow, 0);
	check_single_holes(&big, n, false);

	lossy_run(&small, n, 2, false, 16);
	finish(&small, &ss);
	CHECK(ss.det.sack.holes >= 16 && ss.det.sack.holes < n);
	CHECK_EQ_U(ss.det.sack.holes + ss.det.sack.overflow, n);
	for (unsigned k = 0; k < ss.det.sack.holes; k++) {
		const struct sum_event *e = nth_ev(&small, SUM_EV_SACK_HOLE, k), *f = NULL;
		for (unsigned j = 0; e && j < n && !f; j++) {
			const struct sum_event *g = nth_ev(&big, SUM_EV_SACK_HOLE, j);
			if (g && g->rel_seq == e->rel_seq)
				f = g;
		}
		CHECK(e && f);
		if (!e || !f)
			continue;
		CHECK_EQ_U(e->bytes, f->bytes);
		CHECK_EQ_U(e->segments, f->segments);
		CHECK_EQ_U(e->u.hole.closed_by, f->u.hole.closed_by);
		CHECK_EQ_U(e->u.hole.passed_capture, f->u.hole.passed_capture);
		CHECK_EQ_U(e->frame_first, f->frame_first);
		CHECK_EQ_U(e->frame_last, f->frame_last);
	}
}

/* Blocks that drop out of R's option (only three fit) stay SACKed: a gap
 * never reopens over them, however many there are. */
static void test_omitted_blocks(void)
{
	static struct convo v;
	struct sum_conn s;

	lossy_run(&v, 20, 2, false, 0);
	CHECK_EQ_U(v.c.det.sack->dir[SUM_C2S].nholes, 0);
	finish(&v, &s);
	CHECK_EQ_U(s.det.sack.holes, 20);
	CHECK_EQ_U(s.det.sack.hole_bytes, 20 * U);
	CHECK_EQ_U(s.det.sack.overflow, 0);
	CHECK_EQ_U(s.det.sack.block_overflow, 0);
	check_single_holes(&v, 20, false);
}

int main(void)
{
	test_retrans_upstream();
	test_retrans_downstream();
	test_late_original();
	test_open_and_other();
	test_acked_capture_loss();
	test_dsack();
	test_reneging();
	test_several_holes();
	test_wrap();
	test_block_between();
	test_receiver_never_seen();
	test_sender_downstream();
	test_table_cap();
	test_omitted_blocks();
	return unit_done("sack");
}
