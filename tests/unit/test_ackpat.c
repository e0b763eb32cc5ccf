/* test_ackpat.c - unit tests of the ACK-pattern detector (analyze/detect/ackpat/ackpat.c). */
#include <string.h>

/* Segments below are positional literals; unnamed trailing fields are 0. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "analyze/detect/ackpat/ackpat.h"
#include "analyze/engine/tcp.h"
#include "tests/unit/convo.h"
#include "tests/unit/unit.h"

/* Client 10.0.0.1:40000 -> server 10.0.0.2:80, the client sending bulk
 * data, run through tcp.c and then the ACK-pattern detector alone. */
struct convo {
	struct tcp_conn c;
	struct sum_det res;
	struct tcp_params prm;
	struct det_params dprm;
	struct det_env env;
	struct sum_sink sink;
	struct sum_event ev[16];
	unsigned nev;
	uint64_t frame;
	bool started;
};

struct seg {
	int dir;
	uint8_t flags;
	uint32_t seq, ack, len;
	int64_t t_us;
	uint16_t window;
	uint16_t mss; /* SYN: its MSS option, 0 none */
};

static void on_event(void *ctx, const struct sum_event *e)
{
	struct convo *v = ctx;
	if (v->nev < 16)
		v->ev[v->nev++] = *e;
}

static void convo_init(struct convo *v)
{
	memset(v, 0, sizeof(*v));
	convo_params(&v->prm, &v->dprm, &v->env, &v->sink, on_event, v);
}

static void send_seg(struct convo *v, const struct seg *s)
{
	struct dec_packet d;
	struct pkt p;

	convo_packet(4, s->dir, s->t_us, &v->frame, &d, &p);
	d.tcp.seq = s->seq;
	d.tcp.ack = s->ack;
	d.tcp.flags = s->flags;
	d.tcp.window = s->window ? s->window : 1000;
	d.tcp.payload_len = d.tcp.payload_cap = s->len;
	d.l3_len = 52 + s->len;
	if (s->mss) {
		d.tcp.opt.has_mss = 1;
		d.tcp.opt.mss = s->mss;
	}
	convo_deliver(&v->c, &v->started, &v->prm, &v->env, &v->sink, CONVO_ONE_DETECTOR,
		      ackpat_segment, &d, &p);
}

static const struct ackpat_dir_summary *finish(struct convo *v)
{
	memset(&v->res, 0, sizeof(v->res));
	ackpat_ops.finish(&v->c, &v->env, &v->res);
	return &v->res.ackpat.dir[SUM_C2S];
}

enum { S = DEC_TH_SYN, A = DEC_TH_ACK, P = DEC_TH_PSH };

#define C2S   SUM_C2S
#define S2C   SUM_S2C
#define ISS   1000u
#define IRS   5000u
#define SEG   1000u /* the server announces MSS 1000: full segments of 1000 */
#define DATA0 (ISS + 1)

static void handshake(struct convo *v)
{
	send_seg(v, &(struct seg){C2S, S, ISS, 0, 0, 0, 0, 1000});
	send_seg(v, &(struct seg){S2C, S | A, IRS, ISS + 1, 0, 100, 0, SEG});
	send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 0, 200});
}

/*
 * n full segments from the client, 100 us apart, the server ACKing after
 * every `every` of them (the window it advertises fixed: no window growth).
 */
static void bulk(struct convo *v, uint32_t n, uint32_t every)
{
	int64_t t = 1000;

	for (uint32_t k = 0; k < n; k++, t += 100) {
		send_seg(v, &(struct seg){C2S, A, DATA0 + k * SEG, IRS + 1, SEG, t});
		if ((k + 1) % every == 0)
			send_seg(v,
				 &(struct seg){S2C, A, IRS + 1, DATA0 + (k + 1) * SEG, 0, t + 10});
	}
}

static unsigned count_events(const struct convo *v)
{
	unsigned n = 0;
	for (unsigned k = 0; k < v->nev; k++)
		n += v->ev[k].type == SUM_EV_ACK_PATTERN;
	return n;
}

/* The 75 % majority, and too few ACKs. */
static void test_classify(void)
{
	CHECK_EQ_U(ackpat_classify((const uint32_t[3]){0, 0, 0}), ACKPAT_NONE);
	CHECK_EQ_U(ackpat_classify((const uint32_t[3]){19, 0, 0}), ACKPAT_NONE);
	CHECK_EQ_U(ackpat_classify((const uint32_t[3]){20, 0, 0}), ACKPAT_EVERY_SEGMENT);
	CHECK_EQ_U(ackpat_classify((const uint32_t[3]){75, 25, 0}), ACKPAT_EVERY_SEGMENT);
	CHECK_EQ_U(ackpat_classify((const uint32_t[3]){74, 26, 0}), ACKPAT_MIXED);
	CHECK_EQ_U(ackpat_classify((const uint32_t[3]){5, 90, 5}), ACKPAT_DELAYED);
	CHECK_EQ_U(ackpat_classify((const uint32_t[3]){0, 20, 60}), ACKPAT_STRETCH);
	CHECK_EQ_U(ackpat_classify((const uint32_t[3]){30, 40, 30}), ACKPAT_MIXED);
	CHECK_STR(ackpat_class_name(ACKPAT_DELAYED), "delayed");
	CHECK(ackpat_class_name(ACKPAT_NONE) == NULL);
}

/* An ACK for every segment: every_segment, 1.0 segments an ACK, an event;
 * the first 16 ACKs (Linux's quick-ACK mode at the start) not counted. */
static void test_every_segment(void)
{
	struct convo v;
	const struct ackpat_dir_summary *s;

	convo_init(&v);
	handshake(&v);
	bulk(&v, 200, 1);
	s = finish(&v);
	CHECK_EQ_U(s->cls, ACKPAT_EVERY_SEGMENT);
	CHECK_EQ_U(s->all.acks, 200 - ACKPAT_QUICKACKS);
	CHECK_EQ_U(s->excluded, ACKPAT_QUICKACKS);
	CHECK_EQ_U(s->all.n[0], 200 - ACKPAT_QUICKACKS);
	CHECK_EQ_U(s->all.bytes, (200 - ACKPAT_QUICKACKS) * SEG);
	CHECK_EQ_U(s->seg_size, SEG);
	CHECK_EQ_U(s->nphases, 1);
	CHECK_EQ_U(s->phase_cls[0], ACKPAT_EVERY_SEGMENT);
	CHECK_EQ_U(count_events(&v), 1);
	CHECK_EQ_U(v.ev[0].u.ackpat.cls, ACKPAT_EVERY_SEGMENT);
	CHECK_EQ_U(v.ev[0].u.ackpat.phase_acks, 200 - ACKPAT_QUICKACKS);
	CHECK(v.ev[0].u.ackpat.advice != NULL);
}

/* Every second segment: delayed, no event. */
static void test_delayed(void)
{
	struct convo v;
	const struct ackpat_dir_summary *s;

	convo_init(&v);
	handshake(&v);
	bulk(&v, 200, 2);
	s = finish(&v);
	CHECK_EQ_U(s->cls, ACKPAT_DELAYED);
	CHECK_EQ_U(s->all.acks, 100 - ACKPAT_QUICKACKS);
	CHECK_EQ_U(s->all.n[1], 100 - ACKPAT_QUICKACKS);
	CHECK_EQ_U(s->all.max_segs, 2);
	CHECK_EQ_U(count_events(&v), 0);
}

/* One ACK for 8 segments: stretch, an event. */
static void test_stretch(void)
{
	struct convo v;
	const struct ackpat_dir_summary *s;

	convo_init(&v);
	handshake(&v);
	bulk(&v, 8 * 60, 8);
	s = finish(&v);
	CHECK_EQ_U(s->cls, ACKPAT_STRETCH);
	CHECK_EQ_U(s->all.acks, 60 - ACKPAT_QUICKACKS);
	CHECK_EQ_U(s->all.max_segs, 8);
	CHECK_EQ_U(count_events(&v), 1);
	CHECK_EQ_U(v.ev[0].u.ackpat.cls, ACKPAT_STRETCH);
}

/* Too few ACKs after the quick-ACK phase: no pattern, no event. */
static void test_short(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v);
	bulk(&v, 30, 1);
	CHECK_EQ_U(finish(&v)->cls, ACKPAT_NONE);
	CHECK_EQ_U(count_events(&v), 0);
}

/* Single-segment ACKs that open the window (a new largest each: Linux's
 * tcp_grow_window() quick ACKs) are left out; ACKs of two are counted. */
static void test_window_growth(void)
{
	struct convo v;
	const struct ackpat_dir_summary *s;
	int64_t t = 1000;

	convo_init(&v);
	handshake(&v);
	for (uint32_t k = 0; k < 100; k++, t += 100) {
		send_seg(&v, &(struct seg){C2S, A, DATA0 + k * SEG, IRS + 1, SEG, t});
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, DATA0 + (k + 1) * SEG, 0, t + 10,
					   (uint16_t)(1000 + k)});
	}
	s = finish(&v);
	CHECK_EQ_U(s->cls, ACKPAT_NONE);
	CHECK_EQ_U(s->all.acks, 1); /* the first after the start's quick-ACK phase */
	CHECK_EQ_U(s->excluded, 99);
	CHECK_EQ_U(count_events(&v), 0);
}

/* A pattern of a few ACKs between quick-ACK phases is no finding: 100
 * single-segment ACKs opening the window (left out), then 25 ACKs of 8. */
static void test_few_counted(void)
{
	struct convo v;
	const struct ackpat_dir_summary *s;
	int64_t t = 1000;
	uint32_t seq = DATA0;

	convo_init(&v);
	handshake(&v);
	for (uint32_t k = 0; k < 100; k++, t += 100, seq += SEG) {
		send_seg(&v, &(struct seg){C2S, A, seq, IRS + 1, SEG, t});
		send_seg(
		    &v, &(struct seg){S2C, A, IRS + 1, seq + SEG, 0, t + 10, (uint16_t)(1000 + k)});
	}
	for (uint32_t a = 0; a < 25; a++) {
		for (uint32_t k = 0; k < 8; k++, t += 100, seq += SEG)
			send_seg(&v, &(struct seg){C2S, A, seq, IRS + 1, SEG, t});
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, t + 10, 1100});
	}
	s = finish(&v);
	CHECK_EQ_U(s->cls, ACKPAT_STRETCH);
	CHECK_EQ_U(s->all.acks, 26);
	CHECK_EQ_U(count_events(&v), 0);
}

/* A retransmission puts the receiver back in quick-ACK mode: the 16 ACKs
 * after it are not counted. */
static void test_quick_after_retransmission(void)
{
	struct convo v;
	const struct ackpat_dir_summary *s;
	uint32_t end = DATA0 + 100 * SEG;

	convo_init(&v);
	handshake(&v);
	bulk(&v, 100, 1);
	/* The last segment again, then 50 more, each ACKed. */
	send_seg(&v, &(struct seg){C2S, A, end - SEG, IRS + 1, SEG, 20000});
	for (uint32_t k = 0; k < 50; k++) {
		send_seg(&v, &(struct seg){C2S, A, end + k * SEG, IRS + 1, SEG, 20100 + k * 100});
		send_seg(&v,
			 &(struct seg){S2C, A, IRS + 1, end + (k + 1) * SEG, 0, 20110 + k * 100});
	}
	s = finish(&v);
	CHECK_EQ_U(s->excluded, 2 * ACKPAT_QUICKACKS);
	CHECK_EQ_U(s->all.acks, 150 - 2 * ACKPAT_QUICKACKS);
	CHECK_EQ_U(s->cls, ACKPAT_EVERY_SEGMENT);
}

/* Data 30 ms apart is no bulk transfer: the delayed-ACK timer ACKs each. */
static void test_sparse(void)
{
	struct convo v;
	int64_t t = 1000;

	convo_init(&v);
	handshake(&v);
	for (uint32_t k = 0; k < 60; k++, t += 30000) {
		send_seg(&v, &(struct seg){C2S, A | P, DATA0 + k * SEG, IRS + 1, SEG, t});
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, DATA0 + (k + 1) * SEG, 0, t + 10});
	}
	CHECK_EQ_U(finish(&v)->cls, ACKPAT_NONE);
	CHECK_EQ_U(count_events(&v), 0);
}

/* More than ACKPAT_PHASES phases: the first kept, the others counted. */
static void test_phases(void)
{
	struct convo v;
	const struct ackpat_dir_summary *s;
	int64_t t = 1000;
	uint32_t seq = DATA0;

	convo_init(&v);
	handshake(&v);
	/* 16 quick ACKs, then 6 slices of 64 ACKs alternating 1 and 2 segments. */
	for (uint32_t slice = 0; slice < 7; slice++) {
		uint32_t every = slice == 0 ? 1 : (slice % 2 ? 1 : 2);
		uint32_t acks = slice == 0 ? ACKPAT_QUICKACKS : ACKPAT_SLICE;
		for (uint32_t a = 0; a < acks; a++) {
			for (uint32_t k = 0; k < every; k++, t += 100, seq += SEG)
				send_seg(&v, &(struct seg){C2S, A, seq, IRS + 1, SEG, t});
			send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, t + 10});
		}
	}
	s = finish(&v);
	CHECK_EQ_U(s->all.acks, 6 * ACKPAT_SLICE);
	CHECK_EQ_U(s->nphases, ACKPAT_PHASES);
	CHECK_EQ_U(s->phases_more, 2);
	CHECK_EQ_U(s->phase_cls[0], ACKPAT_EVERY_SEGMENT);
	CHECK_EQ_U(s->phase_cls[1], ACKPAT_DELAYED);
	CHECK_EQ_U(s->phase[0].acks, ACKPAT_SLICE);
	CHECK_EQ_U(s->cls, ACKPAT_MIXED);
}

int main(void)
{
	test_classify();
	test_every_segment();
	test_delayed();
	test_stretch();
	test_short();
	test_window_growth();
	test_few_counted();
	test_quick_after_retransmission();
	test_sparse();
	test_phases();
	return unit_done("ackpat");
}
