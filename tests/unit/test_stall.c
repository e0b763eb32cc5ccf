/* test_stall.c - unit tests of the stall detector: classes, think time, timers, thresholds. */
#include <stdlib.h>
#include <string.h>

#include "tests/unit/stall_convo.h"
#include "tests/unit/unit.h"

/* Write-write-read with Nagle on: the second 100 bytes wait for the ACK of
 * the first, which the server delays 40 ms; they pass the capture point
 * answer_us after the ACK (the loop to the client). */
static void nagle_round_at(struct convo *v, int64_t t0, uint32_t n, int64_t delay_us,
			   int64_t answer_us)
{
	uint32_t c = ISS + 1 + n * 200, s = IRS + 1 + n * 500;
	int64_t t = t0 + delay_us + answer_us;

	send_seg(v, &(struct seg){C2S, A | P, c, s, 100, 1000, t0});
	send_seg(v, &(struct seg){S2C, A, s, c + 100, 0, 1000, t0 + delay_us});
	send_seg(v, &(struct seg){C2S, A | P, c + 100, s, 100, 1000, t});
	send_seg(v, &(struct seg){S2C, A | P, s, c + 200, 500, 1000, t + 50});
}

static void nagle_round(struct convo *v, int64_t t0, uint32_t n, int64_t delay_us)
{
	nagle_round_at(v, t0, n, delay_us, 50);
}

static void test_delayed_ack_nagle(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	nagle_round(&v, 1000, 0, 40000);
	nagle_round(&v, 45000, 1, 40000);
	finish(&v);
	CHECK_EQ_U(v.nev, 2);
	const struct stall_event *s = &v.ev[0].u.stall;
	CHECK_EQ_U(s->cls, STALL_DELAYED_ACK);
	CHECK_EQ_U(v.ev[0].dir, C2S);
	CHECK_EQ_U(v.ev[0].duration_ns, 40000000);
	/* The ACK delay is the hold at R: the gap less the loop from the
	 * capture point to R and back (100 us in the handshake). */
	CHECK_EQ_U(s->ack_delay_ns, 39900000);
	CHECK_EQ_U(s->in_flight, 100);
	CHECK_EQ_U(s->rwnd, 4000);
	CHECK_EQ_U(v.ev[0].frame_first, 4); /* the first 100 bytes */
	CHECK_EQ_U(v.ev[0].frame_last, 5);  /* the delayed ACK */
	CHECK(strstr(s->reason, "Nagle") != NULL);
	const struct stall_summary *sum = &v.res.stall;
	CHECK_EQ_U(sum->count, 2);
	CHECK_EQ_U(sum->by_class[STALL_DELAYED_ACK], 2);
	CHECK_EQ_U(sum->hist[STALL_HIST_DELACK40], 2);
	CHECK_EQ_U(sum->time_ns, 80000000);
	CHECK_EQ_U(sum->ack_delay_n, 2);
}

/* The server's response is ACKed 40 ms late, but the client has nothing
 * more to send: a delayed ACK nobody waited for. */
static void test_delayed_ack_nobody_waited(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	send_seg(&v, &(struct seg){C2S, A | P, ISS + 1, IRS + 1, 200, 1000, 1000});
	send_seg(&v, &(struct seg){S2C, A | P, IRS + 1, ISS + 201, 500, 1000, 1100});
	send_seg(&v, &(struct seg){C2S, A, ISS + 201, IRS + 501, 0, 1000, 41100});
	/* ... and the server answers the ACK with nothing; the next request
	 * comes 100 ms later (think time, not a timer's length). */
	send_seg(&v, &(struct seg){C2S, A | P, ISS + 201, IRS + 501, 200, 1000, 141100});
	send_seg(&v, &(struct seg){S2C, A | P, IRS + 501, ISS + 401, 500, 1000, 141200});
	finish(&v);
	CHECK_EQ_U(v.nev, 0);
}

/* A 150 ms pause between request/response turns: think time. */
static void test_think_time(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	for (uint32_t n = 0; n < 3; n++) {
		int64_t t = 1000 + (int64_t)n * 150000;
		uint32_t c = ISS + 1 + n * 200, s = IRS + 1 + n * 500;
		send_seg(&v, &(struct seg){C2S, A | P, c, s, 200, 1000, t});
		send_seg(&v, &(struct seg){S2C, A | P, s, c + 200, 500, 1000, t + 100});
		send_seg(&v, &(struct seg){C2S, A, c + 200, s + 500, 0, 1000, t + 200});
	}
	finish(&v);
	CHECK_EQ_U(v.nev, 0);
	CHECK_EQ_U(v.res.stall.think_time, 2);
}

/* Turn-boundary pauses of 204 ms ending with a small pushed segment: a
 * kernel timer's signature; the second and third repeat the length. */
static void test_timer_like_turn_boundary(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	for (uint32_t n = 0; n < 3; n++) {
		int64_t t = 1000 + (int64_t)n * 204300;
		uint32_t c = ISS + 1 + n * 200, s = IRS + 1 + n * 500;
		send_seg(&v, &(struct seg){C2S, A | P, c, s, 200, 1000, t});
		send_seg(&v, &(struct seg){S2C, A | P, s, c + 200, 500, 1000, t + 100});
		send_seg(&v, &(struct seg){C2S, A, c + 200, s + 500, 0, 1000, t + 300});
	}
	finish(&v);
	CHECK_EQ_U(v.nev, 2);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_SENDER_IDLE);
	CHECK(v.ev[0].u.stall.timer_like);
	CHECK_STR(v.ev[0].u.stall.reason, "timer-like pause at a turn boundary");
	CHECK_EQ_U(v.ev[0].dir, C2S);
	CHECK_EQ_U(v.ev[0].duration_ns, 204000000);
	CHECK(!v.ev[0].u.stall.recurring);
	CHECK(v.ev[1].u.stall.recurring);
	CHECK_EQ_U(v.res.stall.timer_like, 2);
	CHECK_EQ_U(v.res.stall.recurring, 1);
	CHECK_EQ_U(v.res.stall.hist[STALL_HIST_TIMER200], 2);
}

/* The seed's pattern (netdev 2013, splice + SPLICE_F_MORE): a full segment
 * without PSH, ACKed at once, 200 ms of silence, then the rest pushed. */
static void test_sender_idle_cork(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	send_seg(&v, &(struct seg){C2S, A | P, ISS + 1, IRS + 1, 100, 1000, 1000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 101, 1000, 1000, 1100});
	send_seg(&v, &(struct seg){C2S, A, ISS + 101, IRS + 1001, 0, 1000, 1200});
	send_seg(&v, &(struct seg){S2C, A | P, IRS + 1001, ISS + 101, 300, 1000, 201200});
	send_seg(&v, &(struct seg){C2S, A, ISS + 101, IRS + 1301, 0, 1000, 201300});
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	const struct stall_event *s = &v.ev[0].u.stall;
	CHECK_EQ_U(s->cls, STALL_SENDER_IDLE);
	CHECK(!s->timer_like);
	CHECK_EQ_U(v.ev[0].dir, S2C);
	CHECK_EQ_U(s->in_flight, 0);
	CHECK_EQ_U(s->rwnd, 4000);
	CHECK_EQ_U(v.ev[0].duration_ns, 200000000);
	CHECK_EQ_U(v.ev[0].frame_first, 6);
	CHECK_EQ_U(v.ev[0].frame_last, 7);
	CHECK_EQ_U(s->ack_delay_ns, (uint64_t)-1);
}

/* A paced sender (SO_MAX_PACING_RATE): full segments of one write, each
 * ACKed before the next leaves 12 ms later. Neither Nagle nor a cork holds
 * a full segment: S's own rate, think time, no held write. The sub-MSS
 * tail after the same silence is that rate too (Linux paces a write's last
 * skb like the others: tests/exact's paced-tail); after a longer one it
 * stays a held write (the control). */
static void paced_write(struct convo *v, int64_t tail_at)
{
	convo_init(v);
	handshake(v, 200);
	send_seg(v, &(struct seg){C2S, A | P, ISS + 1, IRS + 1, 100, 1000, 1000});
	for (uint32_t n = 0; n < 3; n++) {
		int64_t t = 1100 + (int64_t)n * 12000;
		uint32_t s = IRS + 1 + n * 1000;
		send_seg(v, &(struct seg){S2C, A, s, ISS + 101, 1000, 1000, t});
		send_seg(v, &(struct seg){C2S, A, ISS + 101, s + 1000, 0, 1000, t + 100});
	}
	send_seg(v, &(struct seg){S2C, A | P, IRS + 3001, ISS + 101, 300, 1000, tail_at});
	send_seg(v, &(struct seg){C2S, A, ISS + 101, IRS + 3301, 0, 1000, tail_at + 100});
	finish(v);
}

static void test_paced_full_segments(void)
{
	struct convo v;

	paced_write(&v, 37100);
	CHECK_EQ_U(v.nev, 0);
	CHECK_EQ_U(v.res.stall.think_time, 3);

	paced_write(&v, 55100);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_SENDER_IDLE);
	CHECK_STR(
	    v.ev[0].u.stall.reason,
	    "the sender held part of a write (no PSH on its last segment), then sent the rest");
	CHECK_EQ_U(v.ev[0].frame_first, 10);
	CHECK_EQ_U(v.res.stall.think_time, 2);
}

/* The receiver's window closes; the sender probes; the window update ends
 * one zero_window stall however many probes lie inside it. */
static void test_zero_window(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, 1000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 0, 1100});
	/* Linux's zero-window probe: no byte, sequence snd_una - 1. */
	send_seg(&v, &(struct seg){C2S, A, ISS + 1000, IRS + 1, 0, 1000, 201100});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 0, 201150});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1000, IRS + 1, 0, 1000, 601100});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 0, 601150});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 1000, 900000});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1001, IRS + 1, 1000, 1000, 900100});
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_ZERO_WINDOW);
	CHECK_EQ_U(v.ev[0].dir, C2S);
	CHECK_EQ_U(v.ev[0].u.stall.rwnd, 0);
	CHECK_EQ_U(v.ev[0].frame_first, 5);
	CHECK_EQ_U(v.ev[0].frame_last, 10);
	CHECK_EQ_U(v.ev[0].duration_ns, 898900000);
}

/* A window that never reopens is reported when the connection ends. */
static void test_zero_window_open_at_end(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, 1000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 0, 1100});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1000, IRS + 1, 0, 1000, 201100});
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_ZERO_WINDOW);
	CHECK_EQ_U(v.ev[0].duration_ns, 200000000);
	CHECK(strstr(v.ev[0].u.stall.reason, "still closed") != NULL);
}

/* Data in flight, no ACK, the same bytes again 250 ms later (the loss
 * probe, RFC 8985: with one segment out Linux's probe timer reaches the
 * RTO), then again 500 ms after that (the RTO, backed off). */
static void test_rto(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	send_seg(&v, &(struct seg){S2C, A | P, IRS + 1, ISS + 1, 1000, 1000, 1000});
	send_seg(&v, &(struct seg){S2C, A | P, IRS + 1, ISS + 1, 1000, 1000, 251000});
	send_seg(&v, &(struct seg){S2C, A | P, IRS + 1, ISS + 1, 1000, 1000, 751000});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1001, 0, 1000, 751200});
	finish(&v);
	CHECK_EQ_U(v.nev, 2);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_TLP);
	CHECK_EQ_U(v.ev[1].u.stall.cls, STALL_RTO);
	CHECK_EQ_U(v.ev[1].dir, S2C);
	CHECK_EQ_U(v.ev[1].u.stall.in_flight, 1000);
	CHECK_EQ_U(v.ev[1].duration_ns, 500000000);
}

/* The segment after the gap starts beyond anything captured: the capture
 * lost packets in it, so the silence may be the capture's: no stall, a
 * capture gap. */
static void test_unknown_capture_loss(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1, 1000, 1000, 1000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 3001, ISS + 1, 1000, 1000, 60000});
	finish(&v);
	CHECK_EQ_U(v.nev, 0);
	CHECK_EQ_U(v.res.stall.capture_gaps, 1);
	CHECK_EQ_U(v.res.stall.count, 0);
}

/* A 30 ms delayed ACK with the capture midway on a 10 ms path (5 ms loop
 * to the server): the threshold is the 10 ms floor plus the factor times
 * that loop: 10, 15, 40 ms for the factors 0, 1 (the default), 6. */
static void test_threshold_rtt_factor(void)
{
	static const unsigned factors[] = {0, 1, 6};

	for (unsigned k = 0; k < 3; k++) {
		struct convo v;

		convo_init(&v);
		v.det.stall_rtt_factor = factors[k];
		handshake(&v, 10000);
		nagle_round_at(&v, 20000, 0, 30000, 5000);
		finish(&v);
		CHECK_EQ_U(v.nev, k == 2 ? 0 : 1);
	}
	/* --stall-min above the gap: nothing. */
	struct convo v;
	convo_init(&v);
	v.det.stall_min_ns = 50000000;
	handshake(&v, 200);
	nagle_round(&v, 1000, 0, 40000);
	finish(&v);
	CHECK_EQ_U(v.nev, 0);
}

/* A 1000-byte segment sent after the delayed ACK (window-limited sender,
 * not Nagle) is still a delayed_ack stall, with the other reason. */
static void test_delayed_ack_full_segment(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1, 1000, 1000, 1000});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1001, 0, 1000, 201000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1001, ISS + 1, 1000, 1000, 201050});
	send_seg(&v, &(struct seg){S2C, A | P, IRS + 2001, ISS + 1, 1000, 1000, 201060});
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_DELAYED_ACK);
	CHECK_EQ_U(v.ev[0].u.stall.ack_delay_ns, 199900000); /* less the 100 us loop to R */
	CHECK(strstr(v.ev[0].u.stall.reason, "Nagle") == NULL);
	CHECK_EQ_U(v.res.stall.hist[STALL_HIST_TIMER200], 1);
}

/* A bulk sender's last, pushed sub-MSS segment (all before it ACKed), an
 * ACK 15 ms later, then full segments: sooner than any delayed-ACK timer,
 * and full segments were never held for it (the lab's bulk-200m, frames
 * 208543-208545: the writer was in write() for 10.9 ms). */
static void early_ack(struct convo *v)
{
	send_seg(v, &(struct seg){S2C, A | P, IRS + 1, ISS + 1, 500, 1000, 1000});
	send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 501, 0, 1000, 16000});
	send_seg(v, &(struct seg){S2C, A, IRS + 501, ISS + 1, 1000, 1000, 16050});
	finish(v);
}

/* Seen from the middle (handshake loops 100 us each way): unknown, and the
 * advice asks for a capture at the receiver. */
static void test_early_ack_not_delayed(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	early_ack(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_UNKNOWN);
	CHECK(strstr(v.ev[0].u.stall.reason, "sooner than any delayed-ACK timer") != NULL);
	CHECK_EQ_U(v.res.stall.by_class[STALL_DELAYED_ACK], 0);
	CHECK(strstr(v.ev[0].u.stall.advice, "a capture at the receiver decides") != NULL);
}

/* The same beside the receiver (the client: its loop 10 us, the server's
 * 200 us): the capture saw the data arrive and the ACK leave, so the
 * advice names R's host; in the middle (above) it asks for that capture. */
static void test_early_ack_at_receiver(void)
{
	struct convo v;

	convo_init(&v);
	send_seg(&v, &(struct seg){C2S, S, ISS, 0, 0, 1000, 0, 1000, 3});
	send_seg(&v, &(struct seg){S2C, S | A, IRS, ISS + 1, 0, 1000, 200, 1000, 3});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 0, 1000, 210});
	early_ack(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_UNKNOWN);
	CHECK(strstr(v.ev[0].u.stall.advice, "beside the receiver") != NULL);
}

/* The first response of a connection held ~200 ms after the request (S
 * had sent nothing before): a turn boundary with a timer's signature too,
 * whatever the response's size; kept apart from proven stalls. */
static void test_timer_like_first_response(void)
{
	for (uint32_t len = 300; len <= 1000; len += 700) {
		struct convo v;

		convo_init(&v);
		handshake(&v, 200);
		send_seg(&v, &(struct seg){C2S, A | P, ISS + 1, IRS + 1, 200, 1000, 1000});
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 201, 0, 1000, 1100});
		send_seg(&v, &(struct seg){S2C, A | P, IRS + 1, ISS + 201, len, 1000, 208100});
		finish(&v);
		CHECK_EQ_U(v.nev, 1);
		CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_SENDER_IDLE);
		CHECK(v.ev[0].u.stall.timer_like);
		CHECK_EQ_U(v.ev[0].dir, S2C);
		CHECK(v.ev[0].u.stall.evidence != NULL);
		CHECK_EQ_U(v.res.stall.count, 0);
		CHECK_EQ_U(v.res.stall.timer_like, 1);
	}
}

/* Think time: request/response turns with pauses of every length but the
 * timer's, TCP_NODELAY style (everything pushed and ACKed): no stall at
 * all, each pause counted as think time. 3 s included (iperf3's control
 * connection). */
static void test_think_time_sweep(void)
{
	/* The last round ends the connection: its pause never ends. */
	static const int64_t think_ms[] = {40, 50, 100, 120, 180, 230, 400, 1000, 3000, 0};
	struct convo v;
	int64_t t = 1000;
	uint32_t cs = ISS + 1, ss = IRS + 1;

	convo_init(&v);
	handshake(&v, 200);
	for (unsigned k = 0; k < sizeof(think_ms) / sizeof(think_ms[0]); k++) {
		send_seg(&v, &(struct seg){C2S, A | P, cs, ss, 200, 1000, t});
		cs += 200;
		send_seg(&v, &(struct seg){S2C, A | P, ss, cs, 500, 1000, t + 100});
		ss += 500;
		send_seg(&v, &(struct seg){C2S, A, cs, ss, 0, 1000, t + 150});
		t += 150 + think_ms[k] * 1000;
	}
	finish(&v);
	CHECK_EQ_U(v.nev, 0);
	CHECK_EQ_U(v.res.stall.count, 0);
	CHECK_EQ_U(v.res.stall.think_time, 9);
}

/* A slow reader: in flight fills the receiver's window; it ACKs (opening
 * the window) 40 ms later and the sender at once sends full segments: the
 * receiver's window, not a delayed ACK. */
static void test_rwnd_limited(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	/* Window 1000 << 2 = 4000 bytes: four 1000-byte segments fill it. */
	for (uint32_t k = 0; k < 4; k++)
		send_seg(&v,
			 &(struct seg){S2C, A, IRS + 1 + 1000 * k, ISS + 1, 1000, 1000, 1000 + k});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 4001, 0, 1000, 41000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 4001, ISS + 1, 1000, 1000, 41050});
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_RWND_LIMITED);
	CHECK(strstr(v.ev[0].u.stall.advice, "TCP_NODELAY would not help") != NULL);
	CHECK_EQ_U(v.res.stall.by_class[STALL_RWND_LIMITED], 1);
	CHECK_EQ_U(v.res.stall.by_class[STALL_DELAYED_ACK], 0);
}

/* A tail-loss probe ends a 30 ms gap: its own class, not rto. */
static void test_tlp(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1, 1000, 1000, 1000});
	send_seg(&v, &(struct seg){S2C, A | P, IRS + 1001, ISS + 1, 1000, 1000, 1010});
	send_seg(&v, &(struct seg){S2C, A | P, IRS + 1001, ISS + 1, 1000, 1000, 31010});
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_TLP);
	CHECK_EQ_U(v.res.stall.by_class[STALL_RTO], 0);
}

/* A receiver's ACK comes late with two full segments unacknowledged
 * (RFC 1122 asks for one at least every second full segment): no delayed
 * ACK, and not the receiver's window either, which the flight (2000 of
 * 4000 bytes) never reached: held on the path or in R's host, unknown. */
static void test_ack_held_two_segments(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1, 1000, 1000, 1000});
	send_seg(&v, &(struct seg){S2C, A | P, IRS + 1001, ISS + 1, 1000, 1000, 1001});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 2001, 0, 1000, 31000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 2001, ISS + 1, 1000, 1000, 31050});
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_UNKNOWN);
	CHECK(strstr(v.ev[0].u.stall.reason, "two or more full segments") != NULL);
}

/* S's write of three full segments from seq, 1 us apart from t_us, the
 * last one pushed. */
static void three_out(struct convo *v, uint32_t seq, int64_t t_us)
{
	for (uint32_t k = 0; k < 3; k++)
		send_seg(v, &(struct seg){S2C, A | (k == 2 ? P : 0), seq + 1000 * k, ISS + 1, 1000,
					  1000, t_us + k});
}

/* Three full segments out, a 30 ms gap, then an ACK of only the first and
 * new data at once: no delayed-ACK timer waits while the receiver holds a
 * second full segment (RFC 1122 4.2.3.2), so the data or the ACK was held
 * on the path or in the receiver's host: unknown, not delayed_ack. */
static void test_late_ack_not_delayed(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	three_out(&v, IRS + 1, 1000);
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1001, 0, 1000, 31000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 3001, ISS + 1, 1000, 1000, 31050});
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_UNKNOWN);
	CHECK(strstr(v.ev[0].u.stall.reason, "no delayed-ACK timer") != NULL);
	CHECK_EQ_U(v.res.stall.by_class[STALL_DELAYED_ACK], 0);
}

/* The same late ACK offering a smaller window than the one before (4000
 * -> 3600 bytes: the receiving application did not read): Linux holds the
 * ACK of a second full segment while its window would shrink, so this is
 * its delayed-ACK timer, the receiver's application's doing. */
static void test_late_ack_window_shrank(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	three_out(&v, IRS + 1, 1000);
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1001, 0, 900, 31000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 3001, ISS + 1, 1000, 1000, 31050});
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_DELAYED_ACK);
	CHECK(strstr(v.ev[0].u.stall.reason, "not reading") != NULL);
	CHECK(strstr(v.ev[0].u.stall.advice, "TCP_NODELAY on the sender would not help") != NULL);
}

/* Three full segments out, no ACK for 30 ms, then new data: the sender's
 * loss probe carried new data (RFC 8985 sec. 7.3), not its application. */
static void test_probe_with_new_data(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	three_out(&v, IRS + 1, 1000);
	send_seg(&v, &(struct seg){S2C, A, IRS + 3001, ISS + 1, 1000, 1000, 31000});
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_TLP);
	CHECK_EQ_U(v.c.half[S2C].cold->tlp_new_data, 1);
	CHECK_EQ_U(v.res.stall.think_time, 0);
}

/* The same silence, but S then sends three segments at once with nothing
 * from R between: a probe is one segment (tcp_send_loss_probe()), so this
 * was S's application writing again (while the path held the ACKs):
 * think time, no stall. The lab's app-limited sender behind a stalled
 * relay. */
static void test_probe_like_burst(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	three_out(&v, IRS + 1, 1000);
	three_out(&v, IRS + 3001, 31000);
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 6001, 0, 1000, 31500});
	finish(&v);
	CHECK_EQ_U(v.nev, 0);
	CHECK_EQ_U(v.res.stall.count, 0);
	CHECK_EQ_U(v.res.stall.think_time, 1);
}

/* The same probe after segments without PSH (a write larger than the
 * window): the probe timer ended the silence, not a held write. */
static void test_probe_after_unpushed(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	for (uint32_t k = 0; k < 3; k++)
		send_seg(&v,
			 &(struct seg){S2C, A, IRS + 1 + 1000 * k, ISS + 1, 1000, 1000, 1000 + k});
	send_seg(&v, &(struct seg){S2C, A, IRS + 3001, ISS + 1, 1000, 1000, 31000});
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_TLP);
}

/* Everything ACKed with a window below one segment (500 bytes), then, a
 * persist-timer later, exactly 500 bytes: a window probe carrying data, so
 * the receiver's window held the sender (zero_window until the update).
 * Control: 300 bytes 300 ms later fit the window and would have gone at
 * once: the application wrote late, think time. */
static void test_window_probe_with_data(void)
{
	for (int control = 0; control <= 1; control++) {
		struct convo v;
		uint32_t len = control ? 300 : 500;
		int64_t t = control ? 301500 : 201500;

		convo_init(&v);
		handshake(&v, 200);
		for (uint32_t k = 0; k < 3; k++)
			send_seg(&v, &(struct seg){S2C, A | (k == 2 ? P : 0), IRS + 1 + 1000 * k,
						   ISS + 1, 1000, 1000, 1000 + k});
		send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 3001, 0, 125, 1500});
		send_seg(&v, &(struct seg){S2C, A | P, IRS + 3001, ISS + 1, len, 1000, t});
		send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 3001 + len, 0, 0, t + 200});
		send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 3001 + len, 0, 1000, 400000});
		/* (In the control the next write comes 50 ms after the window
		 * update: nobody waited for it either.) */
		send_seg(&v, &(struct seg){S2C, A | P, IRS + 3001 + len, ISS + 1, 1000, 1000,
					   control ? 450000 : 400100});
		finish(&v);
		if (control) {
			CHECK_EQ_U(v.nev, 0);
			CHECK_EQ_U(v.res.stall.think_time, 2); /* both late writes */
			continue;
		}
		CHECK_EQ_U(v.nev, 1);
		CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_ZERO_WINDOW);
		CHECK_EQ_U(v.ev[0].duration_ns, (400000 - 1500) * 1000);
		CHECK(strstr(v.ev[0].u.stall.evidence, "window probe carrying data") != NULL);
	}
}

/* The text findings: one line per (connection, direction, class, reason)
 * with example frames, the median ACK delay and the timer it points at. */
static void test_text_report(void)
{
	struct convo v;
	struct sum_conn conn;
	struct rep_data d;
	char *buf = NULL;
	size_t len = 0;

	convo_init(&v);
	handshake(&v, 200);
	nagle_round(&v, 1000, 0, 40000);
	nagle_round(&v, 45000, 1, 41000);
	finish(&v);
	tcp_summarize(&v.c, &conn);
	conn.det = v.res;
	memset(&d, 0, sizeof(d));
	d.conns = &conn;
	d.nconns = 1;
	d.events = v.ev;
	d.nevents = v.nev;
	det_totals_add_conn(&d.tot.det, &conn);
	FILE *out = open_memstream(&buf, &len);
	CHECK(out != NULL);
	if (!out)
		return;
	stall_view.text(out, &d, NULL);
	fclose(out);
	CHECK(strstr(buf, "stalls: 2 idle gaps where TCP held data, 0.081 s lost (delayed_ack 2; "
			  "2 near 40 ms, 0 near 200 ms)") != NULL);
	CHECK(strstr(buf, "conn 1 c2s: 2 delayed_ack stalls, median 40.5 ms (frames 4-5, 8-9)") !=
	      NULL);
	CHECK(strstr(buf, "median ACK delay 40.4 ms: Nagle") != NULL);
	CHECK(strstr(buf, "TCP_DELACK_MIN") != NULL);
	CHECK(strstr(buf, "evidence: in flight was below the receiver's window") != NULL);
	CHECK(strstr(buf, "advice: sender: TCP_NODELAY") != NULL);
	free(buf);
}

int main(void)
{
	test_delayed_ack_nagle();
	test_delayed_ack_nobody_waited();
	test_think_time();
	test_timer_like_turn_boundary();
	test_sender_idle_cork();
	test_paced_full_segments();
	test_zero_window();
	test_zero_window_open_at_end();
	test_rto();
	test_unknown_capture_loss();
	test_threshold_rtt_factor();
	test_delayed_ack_full_segment();
	test_early_ack_not_delayed();
	test_early_ack_at_receiver();
	test_timer_like_first_response();
	test_think_time_sweep();
	test_rwnd_limited();
	test_tlp();
	test_ack_held_two_segments();
	test_late_ack_not_delayed();
	test_late_ack_window_shrank();
	test_probe_with_new_data();
	test_probe_like_burst();
	test_probe_after_unpushed();
	test_window_probe_with_data();
	test_text_report();
	return unit_done("stall");
}
