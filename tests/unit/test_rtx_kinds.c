/* test_rtx_kinds.c - unit tests of retransmission kinds as Linux counts them: TLP, RTO recovery,
 * SACK recovery, D-SACK proofs. */
#include <string.h>

#include "tests/unit/stall_convo.h"
#include "tests/unit/unit.h"

/* The server sends; the client ACKs, with SACK blocks when given. */
static void data(struct convo *v, uint32_t k, int64_t t_us)
{
	send_seg(v, &(struct seg){S2C, A, IRS + 1 + k * 1000, ISS + 1, 1000, 1000, t_us});
}

/* A retransmission of segments [k, k + n). */
static void redata(struct convo *v, uint32_t k, uint32_t n, int64_t t_us)
{
	send_seg(v, &(struct seg){S2C, A, IRS + 1 + k * 1000, ISS + 1, n * 1000, 1000, t_us});
}

/* The client's ACK up to segment k (exclusive), SACKing [l, r) segments
 * (none when l == r), the first block a D-SACK when dsack. */
static void ack_sack(struct convo *v, uint32_t k, uint32_t l, uint32_t r, int64_t t_us)
{
	struct dec_packet d;
	struct pkt p;

	convo_packet(4, C2S, t_us, &v->frame, &d, &p);
	d.tcp.seq = ISS + 1;
	d.tcp.ack = IRS + 1 + k * 1000;
	d.tcp.flags = A;
	d.tcp.window = 60000; /* 240 000 bytes (scale 2): above any flight here */
	d.l3_len = 40;
	if (l != r) {
		d.tcp.opt.has_sack = 1;
		d.tcp.opt.nsack = 1;
		d.tcp.opt.sack[0].left = IRS + 1 + l * 1000;
		d.tcp.opt.sack[0].right = IRS + 1 + r * 1000;
	}
	convo_deliver(&v->c, &v->started, &v->prm, &v->env, &v->sink, CONVO_DETECTORS, NULL, &d,
		      &p);
}

static const struct sum_dir_cold *cold(const struct convo *v)
{
	static const struct sum_dir_cold none;
	return v->c.half[S2C].cold ? &v->c.half[S2C].cold->st : &none;
}

/*
 * Five segments out, all lost; the RTO re-sends the first, and as R's ACKs
 * come back Linux re-sends the rest of the flight (the Loss state): those
 * are counted with the timeout (TcpExtTCPLossFailures / the RTO episode),
 * not as fast retransmissions or "other".
 */
static void test_rto_recovery(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	for (uint32_t k = 0; k < 5; k++)
		data(&v, k, 1000 + k * 10);
	redata(&v, 0, 1, 301000);
	ack_sack(&v, 1, 0, 0, 301200);
	redata(&v, 1, 1, 301210);
	redata(&v, 2, 1, 301220);
	ack_sack(&v, 3, 0, 0, 301400);
	redata(&v, 3, 1, 301410);
	redata(&v, 4, 1, 301420);
	ack_sack(&v, 5, 0, 0, 301600);
	finish(&v);
	CHECK_EQ_U(cold(&v)->retrans, 5);
	CHECK_EQ_U(cold(&v)->rto_retrans, 5);
	CHECK_EQ_U(cold(&v)->fast_retrans, 0);
	CHECK_EQ_U(cold(&v)->tlp_retrans, 0);
}

/*
 * SACK recovery: segments 3 and 10 (the last) lost. R SACKs 4-9, S
 * re-sends 3; R's ACK then reaches 10 with nothing above it to SACK, and
 * S re-sends 10 at once (RACK marked it lost): still inside the recovery
 * episode (up to what S had sent), a fast retransmission, not "other",
 * and no loss probe either.
 */
static void test_sack_recovery(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 200);
	for (uint32_t k = 0; k < 11; k++)
		data(&v, k, 1000 + k * 10);
	for (uint32_t k = 4; k < 10; k++)
		ack_sack(&v, 3, 4, k + 1, 1300 + k * 10);
	redata(&v, 3, 1, 1420);
	ack_sack(&v, 10, 0, 0, 1620);
	redata(&v, 10, 1, 1630);
	ack_sack(&v, 11, 0, 0, 1830);
	finish(&v);
	CHECK_EQ_U(cold(&v)->retrans, 2);
	CHECK_EQ_U(cold(&v)->fast_retrans, 2);
	CHECK_EQ_U(cold(&v)->tlp_retrans, 0);

	/* The episode ends with it: a later tail loss is a probe again. */
	convo_init(&v);
	handshake(&v, 200);
	for (uint32_t k = 0; k < 11; k++)
		data(&v, k, 1000 + k * 10);
	for (uint32_t k = 4; k < 11; k++)
		ack_sack(&v, 3, 4, k + 1, 1300 + k * 10);
	redata(&v, 3, 1, 1420);
	ack_sack(&v, 11, 0, 0, 1620);
	data(&v, 11, 10000);
	data(&v, 12, 10010);
	ack_sack(&v, 12, 0, 0, 10210);
	redata(&v, 12, 1, 30000);
	finish(&v);
	CHECK_EQ_U(cold(&v)->fast_retrans, 1);
	CHECK_EQ_U(cold(&v)->tlp_retrans, 1);
}

/*
 * After an RTO Linux may collapse segments into one retransmission
 * (tcp_retrans_try_collapse()). A D-SACK for part of it proves only that
 * part arrived twice: the rest was needed, so it is not spurious. A
 * D-SACK of all of it is.
 */
static void test_dsack_partial(void)
{
	struct convo v;

	for (int whole = 0; whole < 2; whole++) {
		convo_init(&v);
		handshake(&v, 200);
		for (uint32_t k = 0; k < 3; k++)
			data(&v, k, 1000 + k * 10);
		redata(&v, 0, 3, 301000);
		/* R had segment 0 (its ACK was lost), not 1 and 2. */
		ack_sack(&v, 3, 0, whole ? 3 : 1, 301200);
		finish(&v);
		CHECK_EQ_U(cold(&v)->retrans, 1);
		CHECK_EQ_U(cold(&v)->spurious_retrans, whole ? 1 : 0);
	}
}

/*
 * A loss probe with new data after a recovery that cut the window: 20
 * segments out at first, then segment 20 lost and repaired, then a flight
 * of 6 (the cut window) unanswered for SRTT + 2 ms and a 37th segment:
 * Linux's probe (the window held it back). Control: the same 6 with no
 * recovery before, 6 of a window of 20: a write, no probe.
 */
static void test_probe_after_cut(void)
{
	for (int cut = 0; cut < 2; cut++) {
		struct convo v;
		uint32_t k = 0;

		convo_init(&v);
		handshake(&v, 200);
		for (; k < 20; k++)
			data(&v, k, 1000 + k);
		ack_sack(&v, 20, 0, 0, 1300);
		if (cut) {
			for (; k < 30; k++)
				data(&v, k, 2000 + k);
			for (uint32_t n = 22; n <= 24; n++)
				ack_sack(&v, 20, 21, n, 2300 + n);
			redata(&v, 20, 1, 2400);
			ack_sack(&v, 30, 0, 0, 2600); /* the recovery is over */
		} else {
			for (; k < 30; k++)
				data(&v, k, 2000 + k);
			ack_sack(&v, 30, 0, 0, 2300);
		}
		for (uint32_t n = 0; n < 6; n++, k++)
			data(&v, k, 3000 + n);
		data(&v, k, 3000 + 5 + 2500); /* past SRTT + 2 ms, nothing from R */
		finish(&v);
		CHECK_EQ_U(cold(&v)->tlp_new_data, cut ? 1 : 0);
	}
}

/*
 * A probe that crossed R's late ACK: ten segments out, R silent for 40 ms
 * (a busy host), then its ACK of all ten, and 15 us later an 11th segment
 * whose TSecr still echoes R's TSval from before the silence: S sent it
 * before the ACK reached it, on its probe timer. Control: the same
 * segment echoing the ACK's TSval answers the ACK (nothing was in flight
 * then): no probe.
 */
static void test_probe_crossing_ack(void)
{
	for (int heard = 0; heard < 2; heard++) {
		struct convo v;
		uint32_t k = 0;

		convo_init(&v);
		handshake(&v, 200);
		for (; k < 10; k++)
			send_seg(&v, &(struct seg){S2C, A, IRS + 1 + k * 1000, ISS + 1, 1000, 1000,
						   1000 + k, .tsval = 100, .tsecr = 50});
		send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1 + k * 1000, 0, 1000, 41000,
					   .tsval = 90, .tsecr = 100});
		send_seg(&v, &(struct seg){S2C, A, IRS + 1 + k * 1000, ISS + 1, 1000, 1000, 41015,
					   .tsval = 140, .tsecr = heard ? 90 : 50});
		finish(&v);
		CHECK_EQ_U(cold(&v)->tlp_new_data, heard ? 0 : 1);
	}
}

int main(void)
{
	test_rto_recovery();
	test_sack_recovery();
	test_dsack_partial();
	test_probe_after_cut();
	test_probe_crossing_ack();
	return unit_done("rtx_kinds");
}
