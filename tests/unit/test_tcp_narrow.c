/* test_tcp_narrow.c - unit tests of struct tcp_stats' 32-bit counters: folded
 * into the cold block before any can wrap, exact in the summary. */
#include <string.h>

#include "tests/unit/stall_convo.h"
#include "tests/unit/unit.h"

/* A server sends data segments of len bytes, window raw win (scale 2). */
static void data(struct convo *v, uint32_t *seq, uint32_t len, uint16_t win, int64_t t_us)
{
	send_seg(v, &(struct seg){S2C, A, *seq, ISS + 1, len, win, t_us});
	*seq += len;
}

/*
 * The server's packets reach TCP_FOLD_AT at its third data segment: the
 * counters start again from 0 there, and the summary still adds up. The
 * first-packet tests (min_window, min_payload) must not take the count
 * after a fold for a first packet.
 */
static void test_fold(void)
{
	static struct sum_conn out;
	struct convo v;
	uint32_t seq = IRS + 1;

	convo_init(&v);
	handshake(&v, 200);
	struct tcp_half *h = &v.c.half[S2C];
	CHECK_EQ_U(h->st.packets, 1);
	h->st.packets += TCP_FOLD_AT - 4; /* as if that many more had come */
	h->st.syn += 7;
	data(&v, &seq, 1000, 1000, 1000);
	data(&v, &seq, 1000, 1000, 1010);
	CHECK(h->cold == NULL);
	data(&v, &seq, 500, 1000, 1020); /* the fold */
	CHECK(h->cold != NULL);
	CHECK_EQ_U(h->st.packets, 0);
	CHECK_EQ_U(h->st.data_packets, 1);
	data(&v, &seq, 800, 2000, 1030);
	finish(&v);
	tcp_summarize(&v.c, &out);
	const struct sum_dir *d = &out.dir[S2C];
	CHECK_EQ_U(d->packets, (uint64_t)TCP_FOLD_AT + 1);
	CHECK_EQ_U(d->data_packets, 4);
	CHECK_EQ_U(d->syn, 8);
	CHECK_EQ_U(d->payload_bytes, 3300);
	CHECK_EQ_U(d->min_payload, 500);
	CHECK_EQ_U(d->max_payload, 1000);
	CHECK_EQ_U(d->min_window, 1000); /* the SYN/ACK's, never scaled */
	CHECK_EQ_U(d->max_window, 8000);
	CHECK_EQ_U(d->isn, IRS);
	CHECK(d->isn_known);
	CHECK_EQ_U(out.dir[C2S].isn, ISS);
	CHECK_EQ_U(out.dir[C2S].packets, 2);
}

int main(void)
{
	test_fold();
	return unit_done("tcp_narrow");
}
