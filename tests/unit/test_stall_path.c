/* test_stall_path.c - unit tests of the stall detector on real paths: 20-100 ms RTTs, either
 * vantage. */
#include <string.h>

#include "tests/unit/stall_convo.h"
#include "tests/unit/unit.h"

/*
 * The same conversation looks different from each end of a path. The
 * handshake says how far each host is from the capture point: SYN at 0,
 * SYN/ACK loop_s later (the loop to the server and back), the client's ACK
 * loop_c after that. A capture at the client has loop_c ~ 0 and loop_s =
 * the path's RTT; one at the server the opposite.
 */
static void handshake_at(struct convo *v, int64_t loop_s_us, int64_t loop_c_us)
{
	send_seg(v, &(struct seg){C2S, S, ISS, 0, 0, 1000, 0, 1000, 3});
	send_seg(v, &(struct seg){S2C, S | A, IRS, ISS + 1, 0, 1000, loop_s_us, 1000, 3});
	send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 0, 1000, loop_s_us + loop_c_us});
}

enum { MS = 1000, PATH = 20 * MS, NEAR = 50 };

/*
 * Nagle x delayed ACK on a 20 ms path, captured at the client (the
 * sender): send(100); send(100); recv(). The second write waits for the
 * ACK of the first, which the server holds 40 ms: 60 ms of silence here, 20
 * of them the path. Under 4 x the RTT, so the old gate missed all of it.
 */
static void test_nagle_sender_side(void)
{
	struct convo v;

	convo_init(&v);
	handshake_at(&v, PATH, NEAR);
	for (uint32_t n = 0; n < 5; n++) {
		int64_t t0 = 100 * MS + (int64_t)n * 150 * MS, ack = t0 + PATH + 40 * MS;
		uint32_t c = ISS + 1 + n * 200, s = IRS + 1 + n * 500;
		send_seg(&v, &(struct seg){C2S, A | P, c, s, 100, 1000, t0});
		send_seg(&v, &(struct seg){S2C, A, s, c + 100, 0, 1000, ack});
		send_seg(&v, &(struct seg){C2S, A | P, c + 100, s, 100, 1000, ack + NEAR});
		send_seg(&v, &(struct seg){S2C, A | P, s, c + 200, 500, 1000, ack + NEAR + PATH});
	}
	finish(&v);
	CHECK_EQ_U(v.nev, 5);
	for (unsigned k = 0; k < v.nev && k < 5; k++) {
		CHECK_EQ_U(v.ev[k].u.stall.cls, STALL_DELAYED_ACK);
		CHECK(strstr(v.ev[k].u.stall.reason, "Nagle") != NULL);
		CHECK_EQ_U(v.ev[k].duration_ns, 60000000);
		/* The hold at the receiver, not the path's 20 ms with it. */
		CHECK_EQ_U(v.ev[k].u.stall.ack_delay_ns, 40000000);
	}
}

/* The same exchange captured at the server (the receiver): 40 ms between
 * the first write and the ACK, then the path's 20 ms before the second
 * write arrives. */
static void test_nagle_receiver_side(void)
{
	struct convo v;

	convo_init(&v);
	handshake_at(&v, NEAR, PATH);
	for (uint32_t n = 0; n < 5; n++) {
		int64_t t0 = 100 * MS + (int64_t)n * 150 * MS, ack = t0 + 40 * MS;
		uint32_t c = ISS + 1 + n * 200, s = IRS + 1 + n * 500;
		send_seg(&v, &(struct seg){C2S, A | P, c, s, 100, 1000, t0});
		send_seg(&v, &(struct seg){S2C, A, s, c + 100, 0, 1000, ack});
		send_seg(&v, &(struct seg){C2S, A | P, c + 100, s, 100, 1000, ack + PATH});
		send_seg(&v, &(struct seg){S2C, A | P, s, c + 200, 500, 1000, ack + PATH + NEAR});
	}
	finish(&v);
	CHECK_EQ_U(v.nev, 5);
	for (unsigned k = 0; k < v.nev && k < 5; k++) {
		CHECK_EQ_U(v.ev[k].u.stall.cls, STALL_DELAYED_ACK);
		CHECK_EQ_U(v.ev[k].duration_ns, 40000000);
		CHECK_EQ_U(v.ev[k].u.stall.ack_delay_ns, 40000000 - NEAR * 1000);
	}
}

/*
 * Control: request/response with TCP_NODELAY. The server's pushed,
 * complete 100-byte reply is ACKed 45 ms later by the client's ordinary
 * delayed ACK, and 4 ms after it the next request comes, then its reply.
 * The reply answered the request, not the ACK: nothing was held.
 */
static void test_pushed_reply_delack_control(void)
{
	struct convo v;

	convo_init(&v);
	handshake_at(&v, 200, NEAR);
	for (uint32_t n = 0; n < 4; n++) {
		int64_t t0 = 100 * MS + (int64_t)n * 49 * MS;
		uint32_t c = ISS + 1 + n * 100, s = IRS + 1 + n * 100;
		send_seg(&v, &(struct seg){C2S, A | P, c, s, 100, 1000, t0});
		send_seg(&v, &(struct seg){S2C, A | P, s, c + 100, 100, 1000, t0 + 200});
		send_seg(&v, &(struct seg){C2S, A, c + 100, s + 100, 0, 1000, t0 + 45 * MS});
	}
	finish(&v);
	CHECK_EQ_U(v.nev, 0);
	CHECK_EQ_U(v.res.stall.count, 0);
}

/*
 * Captured at the receiver on a 200 ms path: one full segment, its ACK
 * held 40 ms, and the sender's next segment 162 ms after that ACK. Linux's
 * TSO deferral sent it half an RTT after the first, before the ACK could
 * reach the sender (a loop, 200 ms): it answered nothing, no stall. The
 * same segment a loop after the ACK answered it.
 */
static void test_deferred_send_is_no_answer(void)
{
	for (int answer = 0; answer < 2; answer++) {
		struct convo v;
		int64_t t0 = 300 * MS, ack = t0 + 40 * MS;

		convo_init(&v);
		handshake_at(&v, NEAR, 200 * MS);
		send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, t0});
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 1000, ack});
		send_seg(&v, &(struct seg){C2S, A | P, ISS + 1001, IRS + 1, 1000, 1000,
					   ack + (answer ? 200 * MS + NEAR : 162 * MS)});
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 2001, 0, 1000, ack + 400 * MS});
		finish(&v);
		CHECK_EQ_U(v.nev, answer ? 1 : 0);
	}
}

/* Ten full segments out at 100 ms RTT (capture at the sender); the last
 * is lost. Linux's loss probe re-sends it ~2 SRTT after the last send;
 * 4 x the RTT (400 ms) was above it. With the probe lost too, the RTO. */
static void tail_loss_100ms(struct convo *v, bool probe_lost)
{
	int64_t t = 150 * MS, rtt = 100 * MS;

	handshake_at(v, NEAR, rtt);
	for (uint32_t k = 0; k < 10; k++)
		send_seg(v, &(struct seg){S2C, A | (k == 9 ? P : 0), IRS + 1 + k * 1000, ISS + 1,
					  1000, 1000, t + k * 10});
	for (uint32_t k = 1; k < 9; k += 2)
		send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 1 + (k + 1) * 1000, 0, 1000,
					  t + rtt + k * 10});
	send_seg(v, &(struct seg){S2C, A | P, IRS + 9001, ISS + 1, 1000, 1000, t + 300 * MS});
	if (probe_lost)
		send_seg(v,
			 &(struct seg){S2C, A | P, IRS + 9001, ISS + 1, 1000, 1000, t + 650 * MS});
	send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 10001, 0, 1000,
				  t + (probe_lost ? 750 : 400) * MS});
}

static void test_tlp_100ms(void)
{
	struct convo v;

	convo_init(&v);
	tail_loss_100ms(&v, false);
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_TLP);
	CHECK_EQ_U(v.ev[0].dir, S2C);

	convo_init(&v);
	tail_loss_100ms(&v, true);
	finish(&v);
	CHECK_EQ_U(v.nev, 2);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_TLP);
	CHECK_EQ_U(v.ev[1].u.stall.cls, STALL_RTO);
	CHECK_EQ_U(v.ev[1].duration_ns, 350000000);
}

/*
 * Tail loss seen from the receiver: a response of 12 segments on a 20 ms
 * path, the 13th (the write's last, with PSH) lost before the capture
 * point at the client. The probe re-sends it ~2 SRTT later; here it is
 * new data continuing a write whose last segment seen had no PSH -- it
 * looked like corking. The server's IP IDs (a per-connection counter)
 * skip exactly where the lost segment went (ipid_lost_probe: and its first
 * probe too, then the RTO).
 */
static void upstream_tail_loss(struct convo *v, bool probe_lost)
{
	int64_t t = 200 * MS, gap = probe_lost ? 260 * MS : 45 * MS;
	uint16_t id = 100;

	handshake_at(v, PATH, NEAR);
	for (uint32_t k = 0; k < 12; k++) {
		send_seg(v, &(struct seg){S2C, A, IRS + 1 + k * 1000, ISS + 1, 1000, 1000,
					  t + k * 100, 0, 0, id++});
		if (k & 1)
			send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 1 + (k + 1) * 1000, 0,
						  1000, t + k * 100 + NEAR, 0, 0, 7});
	}
	id += probe_lost ? 2 : 1; /* the lost segment (and probe) took theirs */
	send_seg(v, &(struct seg){S2C, A | P, IRS + 12001, ISS + 1, 1000, 1000, t + 1100 + gap, 0,
				  0, id});
	send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 13001, 0, 1000, t + 1100 + gap + NEAR});
}

static void test_upstream_tail_loss_receiver_side(void)
{
	struct convo v;

	convo_init(&v);
	upstream_tail_loss(&v, false);
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_TLP);
	CHECK(strstr(v.ev[0].u.stall.reason, "lost before this capture point") != NULL);
	CHECK(strstr(v.ev[0].u.stall.evidence, "IP ID") != NULL);

	convo_init(&v);
	upstream_tail_loss(&v, true);
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_RTO);
}

/*
 * The server's SYN/ACK advertises window 0 and opens it 200 ms later; the
 * client's first data leaves at once after the update: a zero-window stall
 * from the first packet on, though the client had sent nothing before.
 * Control: the same window update with no data after it (the client had
 * nothing to send) is no stall.
 */
static void zero_window_syn(struct convo *v, bool data_after)
{
	send_seg(v, &(struct seg){C2S, S, ISS, 0, 0, 1000, 0, 1000, 3});
	send_seg(v, &(struct seg){S2C, S | A, IRS, ISS + 1, 0, 0, PATH, 1000, 3});
	send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 0, 1000, PATH + NEAR});
	send_seg(v, &(struct seg){S2C, A, IRS + 1, ISS + 1, 0, 1000, PATH + 200 * MS});
	if (data_after)
		send_seg(v, &(struct seg){C2S, A | P, ISS + 1, IRS + 1, 500, 1000,
					  PATH + 200 * MS + 300});
	else
		send_seg(v,
			 &(struct seg){C2S, A | P, ISS + 1, IRS + 1, 500, 1000, PATH + 900 * MS});
}

static void test_zero_window_from_handshake(void)
{
	struct convo v;

	convo_init(&v);
	zero_window_syn(&v, true);
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_ZERO_WINDOW);
	CHECK_EQ_U(v.ev[0].dir, C2S);
	CHECK_EQ_U(v.ev[0].duration_ns, 200 * MS * 1000 - NEAR * 1000);

	convo_init(&v);
	zero_window_syn(&v, false);
	finish(&v);
	CHECK_EQ_U(v.nev, 0);
}

/*
 * A congestion-window-limited sender: 12 000 bytes in flight under a
 * 32 896-byte window that had been 65 792. The flight never reached the
 * window, so whatever the wait was, it was not the receiver's window.
 */
static void test_cwnd_limited_is_not_rwnd(void)
{
	struct convo v;

	convo_init(&v);
	handshake_at(&v, 200, NEAR);
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1, 0, 16448, 1 * MS});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1, 0, 8224, 2 * MS});
	for (uint32_t k = 0; k < 12; k++)
		send_seg(&v, &(struct seg){C2S, A, ISS + 1 + k * 1000, IRS + 1, 1000, 1000,
					   3 * MS + k * 10});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 2001, 0, 8224, 40 * MS});
	send_seg(&v, &(struct seg){C2S, A, ISS + 12001, IRS + 1, 1000, 1000, 40 * MS + NEAR});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 13001, 0, 8224, 41 * MS});
	finish(&v);
	for (unsigned k = 0; k < v.nev; k++)
		CHECK(v.ev[k].u.stall.cls != STALL_RWND_LIMITED);
}

/*
 * Corked data on a 20 ms path, captured at the sender (the client): all
 * pushed and ACKed, then 40 bytes released by the probe timer, the
 * connection's RTO (20 ms + TCP_RTO_MIN + a jiffy: 224 ms), outside the
 * fixed 196-216 ms window. With 20 ms of think time before each corked
 * write the pause is 244 ms each time: the first is think time (one pause
 * cannot be told from an application's), the rest repeat it.
 */
static void corked_rounds(struct convo *v, int64_t pause_us, unsigned rounds)
{
	int64_t t = 100 * MS;
	uint32_t c = ISS + 1, s = IRS + 1;

	handshake_at(v, PATH, NEAR);
	for (unsigned n = 0; n < rounds; n++) {
		send_seg(v, &(struct seg){C2S, A | P, c, s, 40, 1000, t});
		send_seg(v, &(struct seg){S2C, A | P, s, c + 40, 100, 1000, t + PATH});
		send_seg(v, &(struct seg){C2S, A, c + 40, s + 100, 0, 1000, t + PATH + NEAR});
		c += 40;
		s += 100;
		t += PATH + NEAR + pause_us;
	}
}

static void test_cork_held_by_rto(void)
{
	struct convo v;

	convo_init(&v);
	corked_rounds(&v, 224 * MS, 3);
	finish(&v);
	CHECK_EQ_U(v.nev, 2);
	for (unsigned k = 0; k < v.nev && k < 2; k++) {
		CHECK_EQ_U(v.ev[k].u.stall.cls, STALL_SENDER_IDLE);
		CHECK(v.ev[k].u.stall.timer_like);
	}

	convo_init(&v);
	corked_rounds(&v, 244 * MS, 10);
	finish(&v);
	CHECK_EQ_U(v.nev, 8);
	CHECK_EQ_U(v.res.stall.timer_like, 8);
	CHECK_EQ_U(v.res.stall.recurring, 8);
	CHECK_EQ_U(v.res.stall.think_time, 1);

	/* Control: 300 ms of think time each round is no timer. */
	convo_init(&v);
	corked_rounds(&v, 300 * MS, 6);
	finish(&v);
	CHECK_EQ_U(v.nev, 0);
	CHECK_EQ_U(v.res.stall.think_time, 5);
}

/*
 * TCP_CORK held 500 ms on a 200 ms path (the server's RTO, 420 ms, would
 * release it later than the uncork): each 3 000-byte response leaves as
 * two full segments, the second with PSH (Linux 6.x marks the part it
 * sends), and its 104-byte remainder after the uncork, the client silent
 * between. From the client (loop_c ~ 0: the gap is the whole hold there)
 * and from the server (loop_s ~ 0). Controls: a remainder after a write
 * that did not end on a full segment, and data the client asked for.
 */
static void uncorked_rounds(struct convo *v, int64_t loop_s, int64_t loop_c, uint32_t first,
			    bool ask)
{
	int64_t t = loop_s + loop_c + 10 * MS, rtt = loop_s + loop_c;
	uint32_t c = ISS + 1, s = IRS + 1;

	for (unsigned n = 0; n < 4; n++) {
		send_seg(v, &(struct seg){C2S, A | P, c, s, 200, 1000, t});
		c += 200;
		send_seg(v, &(struct seg){S2C, A, s, c, 1000, 1000, t + loop_s});
		send_seg(v, &(struct seg){S2C, A | P, s + 1000, c, first, 1000, t + loop_s});
		s += 1000 + first;
		send_seg(v, &(struct seg){C2S, A, c, s, 0, 1000, t + rtt});
		if (ask) {
			send_seg(v, &(struct seg){C2S, A | P, c, s, 10, 1000, t + rtt + 100 * MS});
			c += 10;
		}
		send_seg(v, &(struct seg){S2C, A | P, s, c, 104, 1000, t + loop_s + 500 * MS});
		s += 104;
		send_seg(v, &(struct seg){C2S, A, c, s, 0, 1000, t + rtt + 500 * MS});
		t += rtt + 600 * MS;
	}
}

/* Stalls not timer-like: the controls' pauses may match a timer's length,
 * which stays ambiguous (timer-like), never a proven held write. */
static unsigned proven_stalls(const struct convo *v)
{
	unsigned n = 0;

	for (unsigned k = 0; k < v->nev; k++)
		n += !v->ev[k].u.stall.timer_like;
	return n;
}

static void test_uncorked_remainder_200ms(void)
{
	struct convo v;

	for (int side = 0; side < 2; side++) {
		int64_t ls = side ? NEAR : 200 * MS, lc = side ? 200 * MS : NEAR;
		convo_init(&v);
		handshake_at(&v, ls, lc);
		uncorked_rounds(&v, ls, lc, 1000, false);
		finish(&v);
		/* (at the server the first pause may match the RTO of a
		 * single sample: timer-like, still sender_idle) */
		CHECK_EQ_U(v.nev, 4);
		CHECK(proven_stalls(&v) >= 3);
		for (unsigned k = 0; k < v.nev && k < 4; k++) {
			CHECK_EQ_U(v.ev[k].u.stall.cls, STALL_SENDER_IDLE);
			CHECK_EQ_U(v.ev[k].dir, SUM_S2C);
		}

		convo_init(&v); /* 1 000 + 900: the write ended on its own */
		handshake_at(&v, ls, lc);
		uncorked_rounds(&v, ls, lc, 900, false);
		finish(&v);
		CHECK_EQ_U(proven_stalls(&v), 0);

		convo_init(&v); /* the client asked for the rest */
		handshake_at(&v, ls, lc);
		uncorked_rounds(&v, ls, lc, 1000, true);
		finish(&v);
		CHECK_EQ_U(proven_stalls(&v), 0);
	}
}

/*
 * A paced sender on an 80 ms path (BBR spaces the segments of one write
 * 35 ms apart), captured at the sender: silences longer than the floor
 * between its own segments, none pushed, data in flight. Its pacing, not a
 * held write: no stall.
 */
static void test_paced_write(void)
{
	struct convo v;

	convo_init(&v);
	handshake_at(&v, 80 * MS, NEAR);
	for (uint32_t k = 0; k < 6; k++)
		send_seg(&v, &(struct seg){C2S, A | (k == 5 ? P : 0), ISS + 1 + k * 1000, IRS + 1,
					   1000, 1000, 100 * MS + (int64_t)k * 35 * MS});
	for (uint32_t k = 0; k < 6; k++)
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1 + (k + 1) * 1000, 0, 1000,
					   180 * MS + (int64_t)k * 35 * MS});
	finish(&v);
	CHECK_EQ_U(v.nev, 0);
}

/*
 * A sender paced to one 1 000-byte segment every 36 ms on a 20 ms path,
 * captured at the sender, each segment ACKed before the next leaves, then
 * the write's 300-byte end: Linux paces the last skb like the others
 * (tcp_update_skb_after_send()), so it follows its full segment after the
 * same pause: the sender's rate, no held remainder (tests/exact's
 * paced-tail; a lab capture at 2 MB/s). pushed: PSH on every segment (the
 * end of each write) or only on the last. Control: the same end after
 * three times the pace was held (a cork released late): a stall.
 */
static void paced_rounds(struct convo *v, bool pushed, int64_t tail_after)
{
	int64_t t = 100 * MS;
	uint32_t c = ISS + 1;

	for (uint32_t k = 0; k < 8; k++, t += 36 * MS, c += 1000) {
		send_seg(v, &(struct seg){C2S, A | (pushed ? P : 0), c, IRS + 1, 1000, 1000, t});
		send_seg(v, &(struct seg){S2C, A, IRS + 1, c + 1000, 0, 1000, t + PATH});
	}
	t += tail_after - 36 * MS;
	send_seg(v, &(struct seg){C2S, A | P, c, IRS + 1, 300, 1000, t});
	send_seg(v, &(struct seg){S2C, A, IRS + 1, c + 300, 0, 1000, t + PATH});
}

static void test_paced_tail(void)
{
	struct convo v;

	for (int pushed = 0; pushed < 2; pushed++) {
		convo_init(&v);
		handshake_at(&v, PATH, NEAR);
		paced_rounds(&v, pushed, 36 * MS + 200);
		finish(&v);
		CHECK_EQ_U(v.nev, 0);
		CHECK_EQ_U(v.res.stall.think_time, 8);

		convo_init(&v);
		handshake_at(&v, PATH, NEAR);
		paced_rounds(&v, pushed, 3 * 36 * MS);
		finish(&v);
		CHECK_EQ_U(v.nev, 1);
		CHECK_EQ_U(v.nev ? v.ev[0].u.stall.cls : 0, STALL_SENDER_IDLE);
	}
}

/*
 * At the receiver of a 40 ms path (a 5/35 ms one), the initial window of
 * ten segments: the receiver ACKs six before the last four pass here, and
 * the sender's next segment comes a loop after that ACK, echoing its TSval:
 * the ACK clocked it (slow start), though four segments were out. No probe.
 * Control: the same segment echoing an older TSval was sent without that
 * ACK: a tail-loss probe (RFC 8985 7.3).
 */
static void iw_answered(struct convo *v, uint32_t echo)
{
	uint32_t s = IRS + 1;
	int64_t t = 2 * 40 * MS;

	send_seg(v, &(struct seg){C2S, S, ISS, 0, 0, 20000, 0, 1000, 3, 0, 100, 0});
	send_seg(v,
		 &(struct seg){S2C, S | A, IRS, ISS + 1, 0, 1000, 40 * MS, 1000, 3, 0, 500, 100});
	send_seg(
	    v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 0, 20000, 40 * MS + 40, 0, 0, 0, 140, 500});
	for (uint32_t k = 0; k < 10; k++) {
		send_seg(v, &(struct seg){S2C, A, s + 1000 * k, ISS + 1, 1000, 1000, t + 4 * k, 0,
					  0, 0, 540, 140});
		if (k == 5)
			send_seg(v, &(struct seg){C2S, A, ISS + 1, s + 6000, 0, 20000, t + 22, 0, 0,
						  0, 181, 540});
	}
	send_seg(v, &(struct seg){S2C, A, s + 10000, ISS + 1, 1000, 1000, t + 40 * MS + 200, 0, 0,
				  0, 581, echo});
}

static void test_ack_clocked_after_last_segment(void)
{
	struct convo v;

	convo_init(&v);
	iw_answered(&v, 181);
	finish(&v);
	for (unsigned k = 0; k < v.nev; k++)
		CHECK(v.ev[k].u.stall.cls != STALL_TLP);

	convo_init(&v);
	iw_answered(&v, 140);
	finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].u.stall.cls, STALL_TLP);
}

int main(void)
{
	test_paced_write();
	test_paced_tail();
	test_nagle_sender_side();
	test_nagle_receiver_side();
	test_pushed_reply_delack_control();
	test_tlp_100ms();
	test_upstream_tail_loss_receiver_side();
	test_zero_window_from_handshake();
	test_cwnd_limited_is_not_rwnd();
	test_cork_held_by_rto();
	test_uncorked_remainder_200ms();
	test_deferred_send_is_no_answer();
	test_ack_clocked_after_last_segment();
	return unit_done("stall_path");
}
