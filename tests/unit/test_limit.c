/* test_limit.c - unit tests of the limit detector: what limited a direction, shares and slices. */
#include <string.h>

/* Segments below are positional literals; unnamed trailing fields are 0. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <stdlib.h>

#include "analyze/detect/detect.h"
#include "analyze/engine/tcp.h"
#include "tests/unit/convo.h"
#include "tests/unit/unit.h"

/* Client 10.0.0.1:40000 <-> server 10.0.0.2:80, run through tcp_segment()
 * and then every detector, as the engine does. */
struct convo {
	struct tcp_conn c;
	struct sum_det res;
	struct tcp_params prm;
	struct det_params det;
	struct det_env env;
	struct sum_sink sink;
	uint64_t frame;
	bool started;
};

struct seg {
	int dir;
	uint8_t flags;
	uint32_t seq, ack, len;
	uint16_t win;
	int64_t t_us;
	int mss, wscale;
};

static void on_event(void *ctx, const struct sum_event *e)
{
	(void)ctx, (void)e;
}

static void convo_init(struct convo *v)
{
	memset(v, 0, sizeof(*v));
	convo_params(&v->prm, &v->det, &v->env, &v->sink, on_event, v);
}

static void send_seg(struct convo *v, const struct seg *s)
{
	struct dec_packet d;
	struct pkt p;

	convo_packet(4, s->dir, s->t_us, &v->frame, &d, &p);
	d.tcp.seq = s->seq;
	d.tcp.ack = s->ack;
	d.tcp.flags = s->flags;
	d.tcp.window = s->win;
	d.tcp.payload_len = d.tcp.payload_cap = s->len;
	d.l3_len = 40 + s->len;
	if (s->mss) {
		d.tcp.opt.has_mss = 1;
		d.tcp.opt.mss = (uint16_t)s->mss;
	}
	if (s->wscale) {
		d.tcp.opt.has_wscale = 1;
		d.tcp.opt.wscale = (uint8_t)(s->wscale - 1); /* field is shift + 1 */
	}
	convo_deliver(&v->c, &v->started, &v->prm, &v->env, &v->sink, CONVO_DETECTORS, NULL, &d,
		      &p);
}

enum { S = DEC_TH_SYN, A = DEC_TH_ACK, P = DEC_TH_PSH };

#define C2S SUM_C2S
#define S2C SUM_S2C
#define ISS 1000u
#define IRS 5000u

/* MSS 1000 both ways, window shift 2: a raw window of 1000 is 4000 bytes;
 * the SYN/ACK comes rtt_us after the SYN. */
/* A capture next to the client, the sender of most cases: its ACK of the
 * SYN/ACK leaves 1 us after that arrived. */
static void handshake_rtt(struct convo *v, int64_t rtt_us)
{
	send_seg(v, &(struct seg){C2S, S, ISS, 0, 0, 1000, 0, 1000, 3});
	send_seg(v, &(struct seg){S2C, S | A, IRS, ISS + 1, 0, 1000, rtt_us, 1000, 3});
	send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 0, 1000, rtt_us + 1});
}

static void handshake(struct convo *v)
{
	handshake_rtt(v, 100);
}

static const struct limit_dir *c2s(struct convo *v)
{
	det_finish(&v->c, &v->env, &v->res);
	return &v->res.limit.d[C2S];
}

static double share(const struct limit_dir *d, unsigned k)
{
	int64_t t = 0;

	for (unsigned j = 0; j < LIMIT_COUNT; j++)
		t += d->ns[j];
	return t ? (double)d->ns[k] / (double)t : 0;
}

/*
 * The client fills the server's 4000-byte window (4 segments) every round;
 * the server ACKs them all 1 ms later with the same window, and the
 * client answers at once: the receiver's window, fully open, is the limit.
 * Rounds go on for t_end us; returns the client's next sequence.
 */
static uint32_t window_rounds(struct convo *v, int64_t t0, int64_t t_end, uint16_t win,
			      uint32_t seq)
{
	for (int64_t t = t0; t < t_end; t += 1000) {
		for (int k = 0; k < 4; k++)
			send_seg(v, &(struct seg){C2S, A, seq + 1000u * (uint32_t)k, IRS + 1, 1000,
						  1000, t + 10 * k});
		seq += 4000;
		send_seg(v, &(struct seg){S2C, A, IRS + 1, seq, 0, win, t + 1000 - 5});
	}
	return seq;
}

static void test_receiver_window(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v);
	window_rounds(&v, 1000, 51000, 1000, ISS + 1);
	const struct limit_dir *d = c2s(&v);
	CHECK_EQ_U(limit_dominant(d), LIMIT_RECEIVER_WINDOW);
	CHECK(share(d, LIMIT_RECEIVER_WINDOW) > 0.9);
	CHECK_EQ_U(d->rwnd_max, 4000);
	CHECK_EQ_U(d->rwnd_min_full, 4000);
	CHECK_EQ_U(d->zero_window_ns, 0);
	/* The server sent no data: no verdict for its direction. */
	CHECK(!limit_dir_known(&v.res.limit.d[S2C]));
	/* 50 ms: 16 slices of 1 ms doubled twice to 4 ms, 13 of them used. */
	CHECK_EQ_U(d->width, 4000000);
	CHECK(d->nslices > 10 && d->nslices <= LIMIT_SLICES);
	CHECK_EQ_U(d->slice[0], LIMIT_RECEIVER_WINDOW);
	CHECK_EQ_U(d->slice[d->nslices - 1], LIMIT_RECEIVER_WINDOW);
}

/* The window full, R's ACK frees half of it and S answers 600 us later:
 * a host that processed the ACK late (more than the reaction time, less
 * than an RTT). Linux's chrono keeps counting rwnd_limited until S sends:
 * the wait is the receiver window's, not a plateau below it. */
static void test_receiver_window_late_answer(void)
{
	struct convo v;
	uint32_t seq = ISS + 1;

	convo_init(&v);
	handshake_rtt(&v, 1000);
	for (int k = 0; k < 4; k++)
		send_seg(&v, &(struct seg){C2S, A, seq + 1000u * (uint32_t)k, IRS + 1, 1000, 1000,
					   2000 + k});
	seq += 4000;
	for (int64_t t = 3000; t < 103000; t += 1000) {
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq - 2000, 0, 1000, t - 600});
		for (int k = 0; k < 2; k++)
			send_seg(&v, &(struct seg){C2S, A, seq + 1000u * (uint32_t)k, IRS + 1, 1000,
						   1000, t + k});
		seq += 2000;
	}
	const struct limit_dir *d = c2s(&v);
	CHECK_EQ_U(limit_dominant(d), LIMIT_RECEIVER_WINDOW);
	CHECK(share(d, LIMIT_RECEIVER_WINDOW) > 0.9);
	CHECK(share(d, LIMIT_SENDER_BUFFER) < 0.05);
}

/* The window shrinks to 1000 bytes (of 16000) while data is ACKed, then
 * closes for 100 ms: the reader is slow. */
static void test_receiver_app(void)
{
	struct convo v;
	uint32_t seq = ISS + 1;

	convo_init(&v);
	handshake(&v);
	/* A 16000-byte window first: 4 segments do not fill it. */
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 4000, 300});
	for (int64_t t = 1000; t < 21000; t += 1000) {
		send_seg(&v, &(struct seg){C2S, A, seq, IRS + 1, 1000, 1000, t});
		seq += 1000;
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 250, t + 995});
	}
	/* Closed for 100 ms, then reopened. */
	send_seg(&v, &(struct seg){C2S, A, seq, IRS + 1, 1000, 1000, 21000});
	seq += 1000;
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 0, 21500});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 250, 121500});
	send_seg(&v, &(struct seg){C2S, A, seq, IRS + 1, 1000, 1000, 121510});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq + 1000, 0, 250, 122000});
	const struct limit_dir *d = c2s(&v);
	CHECK_EQ_U(limit_dominant(d), LIMIT_RECEIVER_APP);
	CHECK(share(d, LIMIT_RECEIVER_APP) > 0.9);
	CHECK_EQ_U(d->rwnd_max, 16000);
	CHECK_EQ_U(d->zero_window_ns, 100000000);
}

/* One segment every 20 ms, ACKed at once: the sender had nothing to send;
 * the pause after its last write is not part of the transfer. */
static void test_sender_app(void)
{
	struct convo v;
	uint32_t seq = ISS + 1;

	convo_init(&v);
	handshake(&v);
	for (int k = 0; k < 10; k++) {
		int64_t t = 1000 + 20000 * k;
		send_seg(&v, &(struct seg){C2S, A | P, seq, IRS + 1, 1000, 1000, t});
		seq += 1000;
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 1000, t + 200});
	}
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 1000, 900000}); /* much later */
	const struct limit_dir *d = c2s(&v);
	CHECK_EQ_U(limit_dominant(d), LIMIT_SENDER_APP);
	CHECK(share(d, LIMIT_SENDER_APP) > 0.95);
	CHECK_EQ_U(d->idles, 9);
	CHECK_EQ_U(d->idle_ns, 9 * 19800000ll);
	int64_t total = 0;
	for (unsigned k = 0; k < LIMIT_COUNT; k++)
		total += d->ns[k];
	CHECK_EQ_U(total, 9 * 20000000ll + 200000); /* not the 700 ms at the end */
}

/* A retransmission: recovery, then a flight held below the window by the
 * cut congestion window (2 segments of a 4000-byte window). */
static void test_congestion(void)
{
	struct convo v;
	uint32_t seq = ISS + 1;

	convo_init(&v);
	handshake(&v);
	for (int k = 0; k < 4; k++)
		send_seg(&v, &(struct seg){C2S, A, seq + 1000u * (uint32_t)k, IRS + 1, 1000, 1000,
					   1000 + 10 * k});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq + 1000, 0, 1000, 2000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq + 1000, 0, 1000, 2010});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq + 1000, 0, 1000, 2020});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq + 1000, 0, 1000, 2030});
	send_seg(&v, &(struct seg){C2S, A, seq + 1000, IRS + 1, 1000, 1000, 2040}); /* again */
	seq += 4000;
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 1000, 3000});
	for (int64_t t = 3010; t < 40000; t += 1000) {
		send_seg(&v, &(struct seg){C2S, A, seq, IRS + 1, 1000, 1000, t});
		send_seg(&v, &(struct seg){C2S, A, seq + 1000, IRS + 1, 1000, 1000, t + 10});
		seq += 2000;
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 1000, t + 990});
	}
	const struct limit_dir *d = c2s(&v);
	CHECK_EQ_U(limit_dominant(d), LIMIT_CONGESTION);
	CHECK(share(d, LIMIT_CONGESTION) > 0.8);
	CHECK_EQ_U(d->recoveries, 1);
}

/* A flight that doubles every RTT and a transfer too short to see more:
 * slow start. Then the same flight, flat, ACK-clocked, below the window,
 * without loss or queueing for 100 ms: the sender's buffer. */
static void test_slow_start_then_sender_buffer(void)
{
	struct convo v;
	uint32_t seq = ISS + 1;
	int64_t t = 2000;

	convo_init(&v);
	handshake_rtt(&v, 950); /* the path's RTT: no queueing below */
	/* A 40000-byte window. */
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 10000, 1100});
	for (uint32_t n = 1; n <= 8; n *= 2, t += 1000) {
		for (uint32_t k = 0; k < n; k++)
			send_seg(&v, &(struct seg){C2S, A, seq + 1000 * k, IRS + 1, 1000, 1000,
						   t + 5 * k});
		seq += 1000 * n;
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 10000, t + 995});
	}
	struct limit_summary early;
	{
		struct sum_det r;
		det_finish(&v.c, &v.env, &r);
		early = r.limit;
	}
	CHECK_EQ_U(limit_dominant(&early.d[C2S]), LIMIT_SLOW_START);
	for (; t < 200000; t += 1000) {
		for (uint32_t k = 0; k < 8; k++)
			send_seg(&v, &(struct seg){C2S, A, seq + 1000 * k, IRS + 1, 1000, 1000,
						   t + 5 * k});
		seq += 8000;
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 10000, t + 995});
	}
	const struct limit_dir *d = c2s(&v);
	CHECK_EQ_U(limit_dominant(d), LIMIT_SENDER_BUFFER);
	CHECK(share(d, LIMIT_SENDER_BUFFER) > 0.8);
	CHECK_EQ_U(d->plateau, 8000);
	CHECK_EQ_U(d->recoveries, 0);
}

/*
 * The end of a transfer, at the sender, 20 ms path: full 4-segment rounds
 * into a 4000-byte window (the receiver's), then a last round of two
 * segments, ACKed 20 ms later; the FIN after that, ACKed 20 ms later
 * again. The last round's wait was the sender having nothing more (its FIN
 * says so: Linux marks that flight application-limited), not a buffer; the
 * FIN's own round trip is no data transfer. Control: without the FIN the
 * tail stays the residual class (the capture cannot tell).
 */
static const struct limit_dir *ending(struct convo *v, bool fin)
{
	uint32_t seq = ISS + 1;
	int64_t t = 1000;

	convo_init(v);
	handshake_rtt(v, 20000);
	for (int r = 0; r < 30; r++, t += 20000, seq += 4000) {
		for (uint32_t k = 0; k < 4; k++)
			send_seg(v, &(struct seg){C2S, A, seq + 1000 * k, IRS + 1, 1000, 1000,
						  t + 5 * k});
		send_seg(v, &(struct seg){S2C, A, IRS + 1, seq + 4000, 0, 1000, t + 20000});
	}
	send_seg(v, &(struct seg){C2S, A, seq, IRS + 1, 1000, 1000, t});
	send_seg(v, &(struct seg){C2S, A | P, seq + 1000, IRS + 1, 1000, 1000, t + 5});
	send_seg(v, &(struct seg){S2C, A, IRS + 1, seq + 2000, 0, 1000, t + 20000});
	if (fin) {
		send_seg(
		    v, &(struct seg){C2S, A | DEC_TH_FIN, seq + 2000, IRS + 1, 0, 1000, t + 20100});
		send_seg(v, &(struct seg){S2C, A, IRS + 1, seq + 2001, 0, 1000, t + 40100});
	}
	return c2s(v);
}

static void test_ending(void)
{
	struct convo v;
	const struct limit_dir *d = ending(&v, true);
	int64_t total = 0;

	for (unsigned k = 0; k < LIMIT_COUNT; k++)
		total += d->ns[k];
	int64_t buffer = d->ns[LIMIT_SENDER_BUFFER]; /* (inside the bursts: us) */
	CHECK_EQ_U(limit_dominant(d), LIMIT_RECEIVER_WINDOW);
	/* the last round: 20 ms, less the 5 us the second segment took */
	CHECK_EQ_U(d->ns[LIMIT_SENDER_APP], 20000000 - 5000);
	/* up to the ACK of the last data: the FIN's wait (100 us after that
	 * ACK: no reaction, it carries no data) and round trip are not counted */
	CHECK_EQ_U(total, 31 * 20000000ll);

	d = ending(&v, false);
	CHECK_EQ_U(d->ns[LIMIT_SENDER_APP], 0);
	CHECK_EQ_U(d->ns[LIMIT_SENDER_BUFFER], buffer + 20000000 - 5000);
}

/* A capture next to the server, the receiver: its SYN/ACK leaves at once,
 * the client's ACK comes loop_us later (the path to the sender and back). */
static void handshake_far(struct convo *v, int64_t loop_us)
{
	send_seg(v, &(struct seg){C2S, S, ISS, 0, 0, 1000, 0, 1000, 3});
	send_seg(v, &(struct seg){S2C, S | A, IRS, ISS + 1, 0, 1000, 1, 1000, 3});
	send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 0, 1000, 1 + loop_us});
}

/*
 * From the receiver on a 100 us path: the sender fills the 4000-byte window
 * each round trip, the receiver ACKs each segment at once. Here its flight
 * looks empty after every ACK; as the sender knew it (the ACKs a loop old)
 * it is the whole window: receiver_window. Control: one segment every
 * 500 us, ACKed at once, is a sender with nothing to send, from the ACK's
 * arrival there on (a loop after it passed here).
 */
static void test_far_from_sender(void)
{
	struct convo v;
	uint32_t seq = ISS + 1;

	convo_init(&v);
	handshake_far(&v, 100);
	for (int64_t t = 1000; t < 21000; t += 100) {
		for (int k = 0; k < 4; k++) {
			send_seg(&v, &(struct seg){C2S, A, seq, IRS + 1, 1000, 1000, t + k});
			seq += 1000;
			send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 1000, t + k + 1});
		}
	}
	const struct limit_dir *d = c2s(&v);
	CHECK_EQ_U(limit_dominant(d), LIMIT_RECEIVER_WINDOW);
	CHECK(share(d, LIMIT_RECEIVER_WINDOW) > 0.9);

	convo_init(&v);
	handshake_far(&v, 100);
	seq = ISS + 1;
	for (int64_t t = 1000; t < 21000; t += 500) {
		send_seg(&v, &(struct seg){C2S, A | P, seq, IRS + 1, 1000, 1000, t});
		seq += 1000;
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq, 0, 1000, t + 1});
	}
	d = c2s(&v);
	CHECK_EQ_U(limit_dominant(d), LIMIT_SENDER_APP);
	CHECK(share(d, LIMIT_SENDER_APP) > 0.75);
}

/* The pools' blocks in use (limit.def): directions near S and away from
 * it, and timelines. */
static uint64_t in_use(struct pool *p)
{
	return pool_stats(p)->in_use;
}

/*
 * A direction's timeline is taken when its transfer first leaves the first
 * 1 ms slice; until then the totals are that slice. A request and its ACK
 * within a millisecond (the idle connection of the scale suite): a near
 * direction's block, no timeline, one slice of the dominant class. The
 * same again 2 ms later: the timeline, the pause charged across the first
 * two slices, the third as the first was. Released: all blocks back.
 */
static void test_slices_late(void)
{
	struct det_pools pools;
	struct convo v;

	CHECK_EQ_U(det_pools_init(&pools), 0);
	convo_init(&v);
	v.env.pools = &pools;
	handshake(&v);
	send_seg(&v, &(struct seg){C2S, A | P, ISS + 1, IRS + 1, 100, 1000, 1000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 101, 0, 1000, 1100});
	CHECK_EQ_U(in_use(pools.limit_dir[0]), 1);
	CHECK_EQ_U(in_use(pools.limit_dir[1]), 0);
	CHECK_EQ_U(in_use(pools.limit_slices[0]), 0);
	const struct limit_dir *d = c2s(&v);
	CHECK_EQ_U(d->nslices, 1);
	CHECK(limit_dominant(d) != LIMIT_NONE);
	CHECK_EQ_U(d->slice[0], limit_dominant(d));
	CHECK_EQ_U(d->slice[1], LIMIT_NONE);
	CHECK_EQ_U(d->width, LIMIT_SLICE_MIN_NS);
	uint8_t first = d->slice[0];

	send_seg(&v, &(struct seg){C2S, A | P, ISS + 101, IRS + 1, 100, 1000, 3000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 201, 0, 1000, 3100});
	CHECK_EQ_U(in_use(pools.limit_slices[0]), 1);
	d = c2s(&v);
	CHECK_EQ_U(d->nslices, 3);
	CHECK_EQ_U(d->slice[0], LIMIT_SENDER_APP); /* 0.9 ms of the pause now */
	CHECK_EQ_U(d->slice[1], LIMIT_SENDER_APP);
	CHECK_EQ_U(d->slice[2], first);
	det_release(&v.c, &v.env);
	CHECK_EQ_U(in_use(pools.limit_dir[0]) + in_use(pools.limit_slices[0]), 0);
	CHECK_EQ_U(det_pools_failed(&pools), 0);
	det_pools_free(&pools);
}

/* No memory for the timeline: the direction gives no result, as one that
 * found none for its block; the failure is counted once. The block of a
 * capture away from S is the larger class. */
static void test_slices_nomem(void)
{
	struct det_pools pools;
	struct pool_budget none = {.used = 0, .cap = 1};
	struct convo v;

	CHECK_EQ_U(det_pools_init(&pools), 0);
	pool_set_budget(pools.limit_slices[0], &none);
	convo_init(&v);
	v.env.pools = &pools;
	handshake_far(&v, 100);
	window_rounds(&v, 1000, 11000, 1000, ISS + 1);
	CHECK_EQ_U(in_use(pools.limit_dir[0]), 0);
	CHECK_EQ_U(in_use(pools.limit_dir[1]), 1);
	CHECK_EQ_U(in_use(pools.limit_slices[0]), 0);
	CHECK_EQ_U(det_pools_failed(&pools), 1);
	const struct limit_dir *d = c2s(&v);
	CHECK_EQ_U(limit_dominant(d), LIMIT_NONE);
	CHECK_EQ_U(d->nslices, 0);
	CHECK_EQ_U(d->t0, 0);
	det_release(&v.c, &v.env);
	CHECK_EQ_U(in_use(pools.limit_dir[1]), 0);
	det_pools_free(&pools);
}

int main(void)
{
	test_receiver_window();
	test_receiver_window_late_answer();
	test_receiver_app();
	test_sender_app();
	test_ending();
	test_congestion();
	test_slow_start_then_sender_buffer();
	test_far_from_sender();
	test_slices_late();
	test_slices_nomem();
	return unit_done("limit");
}
