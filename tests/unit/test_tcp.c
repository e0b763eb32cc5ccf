/* test_tcp.c - unit tests of sequence arithmetic and the per-connection TCP engine. */
#include <string.h>

/* Segments below are positional literals; unnamed trailing fields are 0. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "analyze/engine/seq.h"
#include "analyze/engine/tcp.h"
#include "tests/unit/convo.h"
#include "tests/unit/unit.h"

/* A tiny conversation builder: client 10.0.0.1:40000 <-> server 10.0.0.2:80. */
struct convo {
	struct tcp_conn c;
	struct tcp_params prm;
	struct sum_sink sink;
	struct sum_event ev[64];
	unsigned nev;
	struct sum_event fr[64]; /* per-frame verdicts */
	unsigned nfr;
	uint64_t frame;
	bool started;
	int family;
};

struct seg {
	int dir; /* SUM_C2S / SUM_S2C */
	uint8_t flags;
	uint32_t seq, ack, len;
	uint16_t win;
	int64_t t_us;
	int ts; /* 1: carry TSval/TSecr */
	uint32_t tsval, tsecr;
	int ipid; /* -1: 0 */
	uint8_t nsack;
	uint32_t sack[8];
	int mss, wscale, sackok;
};

static void on_event(void *ctx, const struct sum_event *e)
{
	struct convo *v = ctx;
	if (v->nev < 64)
		v->ev[v->nev++] = *e;
}

static void on_frame(void *ctx, const struct sum_event *e)
{
	struct convo *v = ctx;
	if (v->nfr < 64)
		v->fr[v->nfr++] = *e;
}

static void convo_init(struct convo *v, int family)
{
	memset(v, 0, sizeof(*v));
	convo_params(&v->prm, NULL, NULL, &v->sink, on_event, v);
	v->sink.frame = on_frame;
	v->family = family;
}

/* The nth per-frame verdict of type, or NULL. */
static const struct sum_event *nth_frame(const struct convo *v, enum sum_event_type type,
					 unsigned n)
{
	for (unsigned k = 0; k < v->nfr; k++)
		if (v->fr[k].type == type && n-- == 0)
			return &v->fr[k];
	return NULL;
}

static void send_seg(struct convo *v, const struct seg *s)
{
	struct dec_packet d;
	struct pkt p;

	convo_packet(v->family, s->dir, s->t_us, &v->frame, &d, &p);
	d.tcp.seq = s->seq;
	d.tcp.ack = s->ack;
	d.tcp.flags = s->flags;
	d.tcp.window = s->win;
	d.tcp.payload_len = d.tcp.payload_cap = s->len;
	d.l3_len = 40 + s->len;
	d.ip_id = (uint16_t)(s->ipid > 0 ? s->ipid : 0);
	if (s->ts) {
		d.tcp.opt.has_ts = 1;
		d.tcp.opt.tsval = s->tsval;
		d.tcp.opt.tsecr = s->tsecr;
	}
	if (s->mss) {
		d.tcp.opt.has_mss = 1;
		d.tcp.opt.mss = (uint16_t)s->mss;
	}
	if (s->wscale) {
		d.tcp.opt.has_wscale = 1;
		d.tcp.opt.wscale = (uint8_t)(s->wscale - 1); /* wscale field is shift + 1 */
	}
	d.tcp.opt.sack_permitted = s->sackok != 0;
	if (s->nsack) {
		d.tcp.opt.has_sack = 1;
		d.tcp.opt.nsack = s->nsack;
		for (unsigned k = 0; k < s->nsack; k++) {
			d.tcp.opt.sack[k].left = s->sack[2 * k];
			d.tcp.opt.sack[k].right = s->sack[2 * k + 1];
		}
	}
	convo_deliver(&v->c, &v->started, &v->prm, NULL, &v->sink, CONVO_TCP, NULL, &d, &p);
}

enum { S = DEC_TH_SYN, A = DEC_TH_ACK, F = DEC_TH_FIN, P = DEC_TH_PSH, R = DEC_TH_RST };

#define C2S SUM_C2S
#define S2C SUM_S2C
#define ISS 1000u
#define IRS 5000u

/* SYN, SYN/ACK, ACK with MSS 1000, wscale 2 both ways, SACK-permitted. */
static void handshake(struct convo *v, int ts)
{
	send_seg(v, &(struct seg){C2S, S, ISS, 0, 0, 1000, 0, ts, 1, 0, 0, 0, {0}, 1000, 3, 1});
	send_seg(v, &(struct seg){
			S2C, S | A, IRS, ISS + 1, 0, 1000, 100, ts, 100, 1, 0, 0, {0}, 1000, 3, 1});
	send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 0, 1000, 200, ts, 2, 100});
}

static void test_seq(void)
{
	CHECK(seq_lt(0xfffffff0u, 0x10u));
	CHECK(seq_gt(0x10u, 0xfffffff0u));
	CHECK(seq_le(5, 5) && seq_ge(5, 5));
	CHECK(!seq_lt(5, 5));
	CHECK_EQ_U(seq_max(0xffffff00u, 0x100u), 0x100u);
	CHECK_EQ_U(seq_min(0xffffff00u, 0x100u), 0xffffff00u);
	CHECK(seq_diff(0x100u, 0xffffff00u) == 0x200);
	CHECK(ipid_diff(2, 65534) == 4);
	CHECK(ipid_diff(65534, 2) == -4);
}

static void test_handshake_rtt_unique(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 4);
	handshake(&v, 0);
	send_seg(&v, &(struct seg){C2S, A | P, ISS + 1, IRS + 1, 1000, 1000, 1000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 1000, 1500});
	send_seg(&v, &(struct seg){C2S, A | F, ISS + 1001, IRS + 1, 0, 1000, 2000});
	send_seg(&v, &(struct seg){S2C, A | F, IRS + 1, ISS + 1002, 0, 1000, 2100});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1002, IRS + 2, 0, 1000, 2200});
	tcp_summarize(&v.c, &s);
	CHECK(s.roles_from_syn);
	CHECK_EQ_U(s.client_port, 40000);
	CHECK_EQ_U(s.state, SUM_STATE_CLOSED);
	CHECK_EQ_U(s.handshake_rtt_ns, 200000);
	CHECK_EQ_U(s.dir[C2S].unique_bytes, 1000);
	CHECK_EQ_U(s.dir[C2S].payload_bytes, 1000);
	/* SYN -> SYN/ACK (100 us), data -> ACK (500 us), FIN -> ACK (100 us). */
	CHECK_EQ_U(s.dir[C2S].rtt.n, 3);
	CHECK_EQ_U(s.dir[C2S].rtt.min_ns, 100000);
	CHECK_EQ_U(s.dir[C2S].rtt.max_ns, 500000);
	CHECK_EQ_U(s.dir[C2S].retrans, 0);
	CHECK_EQ_U(s.dir[C2S].mss, 1000);
	CHECK(s.wscale_known);
	CHECK_EQ_U(s.dir[S2C].wscale, 2);
	CHECK(s.sack_permitted);
	/* Window 1000 << 2 once scaled; the SYN's is never scaled (RFC 7323). */
	CHECK_EQ_U(s.dir[S2C].max_window, 4000);
	CHECK_EQ_U(s.dir[S2C].min_window, 1000);
}

/* The RTT rings come from the pools on first need: the sent ring only
 * while something is in flight, the TSval ring from the first TSval on;
 * tcp_conn_release() returns what is left. */
static void test_rings_pooled(void)
{
	struct convo v;
	struct sum_conn s;
	struct tcp_pools *tp = convo_tpools();
	uint64_t sent0 = pool_stats(tp->sent[0])->in_use, ts0 = pool_stats(tp->tsring[0])->in_use;

	convo_init(&v, 4);
	handshake(&v, 1);
	/* Both SYNs ACKed: nothing in flight, the sent rings went back. */
	CHECK(v.c.half[C2S].sent == NULL && v.c.half[S2C].sent == NULL);
	CHECK(v.c.half[C2S].tsring != NULL && v.c.half[S2C].tsring != NULL);
	CHECK_EQ_U(pool_stats(tp->sent[0])->in_use, sent0);
	send_seg(&v, &(struct seg){C2S, A | P, ISS + 1, IRS + 1, 1000, 1000, 1000, 1, 3, 100});
	CHECK(v.c.half[C2S].sent != NULL);
	CHECK_EQ_U(pool_stats(tp->sent[0])->in_use, sent0 + 1);
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 1000, 1400, 1, 101, 3});
	CHECK(v.c.half[C2S].sent == NULL);
	tcp_summarize(&v.c, &s);
	/* SYN -> SYN/ACK, data -> ACK; from the TSecr echoes only the data's
	 * (a TSval seen at capture time 0, the SYN's here, reads as an empty
	 * slot: tcp_no_ts). */
	CHECK_EQ_U(s.dir[C2S].rtt.n, 2);
	CHECK_EQ_U(s.dir[C2S].rtt.max_ns, 400000);
	CHECK_EQ_U(s.dir[C2S].rtt_ts.n, 1);
	CHECK_EQ_U(s.dir[C2S].rtt_ts.max_ns, 400000);
	tcp_conn_release(&v.c, tp);
	CHECK(v.c.half[C2S].tsring == NULL && v.c.half[S2C].tsring == NULL);
	CHECK_EQ_U(pool_stats(tp->sent[0])->in_use, sent0);
	CHECK_EQ_U(pool_stats(tp->tsring[0])->in_use, ts0);
}

static void test_retransmission_seen_bytes(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 4);
	handshake(&v, 0);
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, 1000});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1001, IRS + 1, 1000, 1000, 1010});
	/* The same bytes again soon after: seen before, so a retransmission
	 * whatever the timing says. */
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, 1020});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].retrans, 1);
	CHECK_EQ_U(s.dir[C2S].out_of_order, 0);
	CHECK_EQ_U(s.dir[C2S].unique_bytes, 2000);
	CHECK_EQ_U(s.dir[C2S].payload_bytes, 3000);
}

static void test_reorder_by_tsval(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 4);
	handshake(&v, 1);
	/* Segment 2 overtakes segment 1; segment 1 carries the older TSval. It
	 * comes 50 ms later, far beyond any RTT: timing alone would say
	 * retransmission, the sender's clock says out of order. */
	send_seg(&v, &(struct seg){C2S, A, ISS + 1001, IRS + 1, 1000, 1000, 1000, 1, 11, 100});
	send_seg(&v, &(struct seg){C2S, A, ISS + 2001, IRS + 1, 1000, 1000, 1010, 1, 11, 100});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, 51000, 1, 10, 100});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].out_of_order, 1);
	CHECK_EQ_U(s.dir[C2S].retrans, 0);
	CHECK_EQ_U(s.dir[C2S].lost_segments, 1);
	/* The engine's decision is in c.tp->seg; the event is the reorder
	 * detector's (reorder.c, tests/unit/test_reorder.c). */
	CHECK(v.nev == 0);
	CHECK((v.c.tp->seg.kind & TCP_SEG_OOO) && tcp_seg_late(&v.c)->by == SUM_BY_TSVAL);
	CHECK_EQ_U(tcp_seg_late(&v.c)->extent, 2);
	CHECK_EQ_U(v.c.tp->seg.rel_seq, 1);
	CHECK_EQ_U(tcp_seg_late(&v.c)->rel_seq, 1);
	CHECK_EQ_U(tcp_seg_late(&v.c)->gap_ts, 1000000);
	CHECK_EQ_U(tcp_seg_late(&v.c)->data_no, 3);

	/* A later TSval for the gap filler: a retransmission of bytes lost
	 * before the capture point, even if it comes quickly. */
	convo_init(&v, 4);
	handshake(&v, 1);
	send_seg(&v, &(struct seg){C2S, A, ISS + 1001, IRS + 1, 1000, 1000, 1000, 1, 11, 100});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, 1001, 1, 12, 100});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].out_of_order, 0);
	CHECK_EQ_U(s.dir[C2S].retrans, 1);
}

static void test_reorder_by_ipid_and_timing(void)
{
	struct convo v;
	struct sum_conn s;
	int64_t t = 1000;
	uint32_t seq = ISS + 1;
	int id = 100;

	convo_init(&v, 4);
	handshake(&v, 0);
	for (int k = 0; k < 10; k++, seq += 100, t += 10)
		send_seg(&v, &(struct seg){C2S, A, seq, IRS + 1, 100, 1000, t, 0, 0, 0, id++});
	/* Skip one segment (id 110, seq), send the next (id 111), then the
	 * skipped one late with its lower id. */
	send_seg(&v, &(struct seg){C2S, A, seq + 100, IRS + 1, 100, 1000, t, 0, 0, 0, 111});
	send_seg(&v, &(struct seg){C2S, A, seq, IRS + 1, 100, 1000, t + 100000, 0, 0, 0, 110});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].out_of_order, 1);
	CHECK((v.c.tp->seg.kind & TCP_SEG_OOO) && tcp_seg_late(&v.c)->by == SUM_BY_IPID);

	/* IPv6, no timestamps, no dup ACK or SACK seen: causality. The path
	 * RTT is 200 us (handshake); a retransmission needs a loss signal or
	 * a loss-probe timer (>= 2 ms + 2 RTT after the gap opened). 50 us
	 * after the gap: the late original. 10 ms after: it could be a probe,
	 * nothing decides. */
	convo_init(&v, 6);
	handshake(&v, 0);
	send_seg(&v, &(struct seg){C2S, A, ISS + 101, IRS + 1, 100, 1000, 1000});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 100, 1000, 1050});
	CHECK((v.c.tp->seg.kind & TCP_SEG_OOO) && tcp_seg_late(&v.c)->by == SUM_BY_CAUSALITY);
	send_seg(&v, &(struct seg){C2S, A, ISS + 301, IRS + 1, 100, 1000, 2000});
	send_seg(&v, &(struct seg){C2S, A, ISS + 201, IRS + 1, 100, 1000, 12000});
	CHECK(v.c.tp->seg.kind & TCP_SEG_UNDECIDED);
	tcp_finish(&v.c, &v.sink);
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].out_of_order, 1);
	CHECK_EQ_U(s.dir[C2S].ooo_by[SUM_BY_CAUSALITY], 1);
	CHECK_EQ_U(s.dir[C2S].retrans, 0);
	CHECK_EQ_U(s.dir[C2S].fills_undecided, 1);
}

static void test_dupacks_fast_and_rto(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 6);
	handshake(&v, 0);
	for (uint32_t k = 0; k < 5; k++)
		send_seg(&v,
			 &(struct seg){C2S, A, ISS + 1 + k * 100, IRS + 1, 100, 1000, 1000 + k});
	/* Segment 0 was seen, yet the receiver says it is missing: three
	 * duplicates of the ACK the SYN/ACK carried. */
	for (int k = 0; k < 3; k++)
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1, 0, 1000, 2000 + k});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 100, 1000, 2010});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[S2C].dup_acks, 3);
	CHECK_EQ_U(s.dir[C2S].retrans, 1);
	CHECK_EQ_U(s.dir[C2S].fast_retrans, 1);
	CHECK_EQ_U(s.dir[C2S].rto_retrans, 0);

	/* After 300 ms of silence: RTO-like. */
	send_seg(&v, &(struct seg){C2S, A, ISS + 101, IRS + 1, 100, 1000, 310000});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].rto_retrans, 1);
	CHECK_EQ_U(s.dir[C2S].retrans, 2);
}

static void test_capture_loss_and_spurious(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 4);
	handshake(&v, 0);
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, 1000});
	/* 1000 bytes never captured, then the next segment. */
	send_seg(&v, &(struct seg){C2S, A, ISS + 2001, IRS + 1, 1000, 1000, 1100});
	/* The receiver ACKs everything: it got the bytes we missed. */
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 3001, 0, 1000, 1500});
	/* ...and ACKs 500 bytes more than were ever sent in the capture. */
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 3501, 0, 1000, 1600});
	/* A retransmission of bytes already cumulatively ACKed: spurious. */
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, 1700});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].lost_segments, 1);
	/* Both ACKs cover bytes never captured: the gap, then beyond snd_nxt. */
	CHECK_EQ_U(s.dir[C2S].acked_unseen, 2);
	CHECK_EQ_U(s.dir[C2S].unseen_bytes, 1500);
	CHECK_EQ_U(s.dir[C2S].retrans, 1);
	CHECK_EQ_U(s.dir[C2S].spurious_retrans, 1);
	unsigned loss = 0;
	for (unsigned k = 0; k < v.nev; k++)
		loss += v.ev[k].type == SUM_EV_CAPTURE_LOSS;
	CHECK_EQ_U(loss, 2);
}

static void test_wrap(void)
{
	struct convo v;
	struct sum_conn s;
	uint32_t iss = 0xfffff000u;

	convo_init(&v, 4);
	send_seg(&v, &(struct seg){C2S, S, iss, 0, 0, 1000, 0});
	send_seg(&v, &(struct seg){S2C, S | A, IRS, iss + 1, 0, 1000, 100});
	send_seg(&v, &(struct seg){C2S, A, iss + 1, IRS + 1, 0, 1000, 200});
	uint32_t seq = iss + 1;
	for (int k = 0; k < 10; k++, seq += 1000) {
		send_seg(&v, &(struct seg){C2S, A, seq, IRS + 1, 1000, 1000, 1000 + 100 * k});
		send_seg(&v, &(struct seg){S2C, A, IRS + 1, seq + 1000, 0, 1000, 1050 + 100 * k});
	}
	tcp_summarize(&v.c, &s);
	CHECK(seq_lt(iss, seq) && seq < iss); /* it did cross 2^32 */
	CHECK_EQ_U(s.dir[C2S].unique_bytes, 10000);
	CHECK_EQ_U(s.dir[C2S].retrans, 0);
	CHECK_EQ_U(s.dir[C2S].out_of_order, 0);
	CHECK_EQ_U(s.dir[C2S].rtt.n, 11); /* the SYN's and ten segments' */
	CHECK_EQ_U(s.dir[S2C].dup_acks, 0);
	CHECK_EQ_U(s.dir[C2S].max_in_flight, 1000);
}

static void test_zero_window_keepalive_dsack(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 4);
	handshake(&v, 0);
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, 1000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 0, 1100, 0, 0, 0, 0});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 0, 101100});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 500, 201100});
	/* Keep-alive: one byte at snd_nxt - 1. */
	send_seg(&v, &(struct seg){C2S, A, ISS + 1000, IRS + 1, 1, 1000, 300000});
	/* D-SACK: a block below the cumulative ACK. */
	send_seg(&v, &(struct seg){S2C,
				   A,
				   IRS + 1,
				   ISS + 1001,
				   0,
				   500,
				   300100,
				   0,
				   0,
				   0,
				   0,
				   1,
				   {ISS + 1000, ISS + 1001}});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[S2C].zero_windows, 2);
	CHECK_EQ_U(s.dir[C2S].keepalives, 1);
	CHECK_EQ_U(s.dir[C2S].retrans, 0);
	CHECK_EQ_U(s.dir[S2C].dsack_blocks, 1);
	CHECK_EQ_U(s.dir[S2C].sack_acks, 1);
	bool zw = false;
	for (unsigned k = 0; k < v.nev; k++)
		if (v.ev[k].type == SUM_EV_ZERO_WINDOW) {
			zw = true;
			CHECK_EQ_U(v.ev[k].duration_ns, 200000000);
			CHECK_EQ_U(v.ev[k].dir, C2S);
		}
	CHECK(zw);
}

/* zero-window.pcap frames 44/46: Linux's probe is a bare ACK at snd_nxt - 1. */
static void test_bare_keepalive(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 4);
	handshake(&v, 0);
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, 1000});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 1000, 1100});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1000, IRS + 1, 0, 1000, 300000});
	/* The answer repeats the last ACK by design: not a duplicate ACK. */
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 1000, 300100});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].keepalives, 1);
	CHECK_EQ_U(s.dir[C2S].retrans, 0);
	CHECK_EQ_U(s.dir[C2S].pure_acks, 2);
	CHECK_EQ_U(s.dir[S2C].dup_acks, 0);
}

/* zero-window.pcap frame 38: a tail loss probe re-sends the segment that
 * filled the window; it reaches the right edge again. */
static void test_window_full_retransmission(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 4);
	handshake(&v, 0);
	/* Window 1000 << 2 = 4000 bytes from ISS + 1. */
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1, 0, 1000, 300});
	for (uint32_t k = 0; k < 4; k++)
		send_seg(&v,
			 &(struct seg){C2S, A, ISS + 1 + k * 1000, IRS + 1, 1000, 1000, 1000 + k});
	send_seg(&v, &(struct seg){C2S, A, ISS + 3001, IRS + 1, 1000, 1000, 8000});
	/* Not window full: the end is below the edge. */
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, 300000});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].retrans, 2);
	CHECK_EQ_U(s.dir[C2S].window_full, 2);
}

static void test_new_instance(void)
{
	struct convo v;
	struct dec_packet d;

	convo_init(&v, 4);
	handshake(&v, 0);
	memset(&d, 0, sizeof(d));
	d.src = v.c.info.client;
	d.dst = v.c.info.server;
	d.tcp.sport = 40000;
	d.tcp.dport = 80;
	d.tcp.flags = DEC_TH_SYN;
	d.tcp.seq = ISS; /* retransmitted SYN: same connection */
	CHECK(!tcp_is_new_instance(&v.c, &d));
	d.tcp.seq = ISS + 123456; /* new ISN: port reuse */
	CHECK(tcp_is_new_instance(&v.c, &d));
	d.tcp.flags = DEC_TH_SYN | DEC_TH_ACK;
	CHECK(!tcp_is_new_instance(&v.c, &d));
}

static void test_midstream_roles(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 4);
	/* First packet from port 80: the server side, by the port rule. */
	send_seg(&v, &(struct seg){S2C, A, 777, 888, 100, 1000, 0});
	tcp_summarize(&v.c, &s);
	CHECK(!s.roles_from_syn);
	CHECK_EQ_U(s.server_port, 80);
	CHECK_EQ_U(s.dir[S2C].unique_bytes, 100);
	CHECK(!s.wscale_known);
	CHECK_EQ_U(s.state, SUM_STATE_OPEN);
}

/* demo-http-loss.pcapng cut after the request (editcap -r ... 10-2148): the
 * client only ACKs, yet its 46 duplicate ACKs need its snd_nxt. */
static void test_midstream_pure_ack_dupacks(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 4);
	send_seg(&v, &(struct seg){S2C, A, 777, 888, 100, 1000, 0});
	send_seg(&v, &(struct seg){C2S, A, 888, 877, 0, 1000, 100});
	/* 877..977 is lost: two segments above it, each answered by a dup ACK. */
	send_seg(&v, &(struct seg){S2C, A, 977, 888, 100, 1000, 200});
	send_seg(&v, &(struct seg){C2S, A, 888, 877, 0, 1000, 300});
	send_seg(&v, &(struct seg){S2C, A, 1077, 888, 100, 1000, 400});
	send_seg(&v, &(struct seg){C2S, A, 888, 877, 0, 1000, 500});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].dup_acks, 2);
	CHECK_EQ_U(s.dir[C2S].unique_bytes, 0);
	CHECK_EQ_U(s.dir[C2S].keepalives, 0);
	CHECK_EQ_U(s.dir[C2S].lost_segments, 0);
	CHECK_EQ_U(s.dir[S2C].lost_segments, 1);
}

/* Heavy reordering scrambles the IP IDs in arrival order (blocks of four
 * arrive backwards): the IDs are still learned to be a per-connection
 * counter from the size of their steps, and decide. */
static void test_ipid_learned_under_reordering(void)
{
	struct convo v;
	struct sum_conn s;
	int64_t t = 1000;

	convo_init(&v, 4);
	handshake(&v, 0);
	for (uint32_t blk = 0; blk < 10; blk++)
		for (int k = 3; k >= 0; k--) {
			uint32_t n = blk * 4 + (uint32_t)k;
			send_seg(&v, &(struct seg){C2S, A, ISS + 1 + n * 100, IRS + 1, 100, 1000,
						   t++, 0, 0, 0, (int)(1000 + n)});
		}
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].out_of_order, 30);
	CHECK_EQ_U(s.dir[C2S].retrans, 0);
	/* The handshake's zero IDs delay trust: four blocks decided by
	 * causality (microseconds late), the rest by the IP ID. */
	CHECK(s.dir[C2S].ooo_by[SUM_BY_IPID] >= 15);
	CHECK_EQ_U(s.dir[C2S].ooo_by[SUM_BY_IPID] + s.dir[C2S].ooo_by[SUM_BY_CAUSALITY], 30);
	/* A fill 50 ms after its gap opened, with a later ID than the opener:
	 * sent after it, a retransmission of bytes lost upstream. */
	send_seg(&v, &(struct seg){C2S, A, ISS + 1 + 41 * 100, IRS + 1, 100, 1000, t + 10, 0, 0, 0,
				   1041});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1 + 40 * 100, IRS + 1, 100, 1000, t + 50000, 0, 0,
				   0, 1042});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].retrans, 1);
	CHECK_EQ_U(s.dir[C2S].lost_upstream, 1);
	CHECK_EQ_U(s.dir[C2S].lost_upstream_by[SUM_BY_IPID], 1);

	/* Random IDs step far: never trusted, the IP ID decides nothing. */
	convo_init(&v, 4);
	handshake(&v, 0);
	uint32_t x = 12345;
	for (uint32_t n = 0; n < 20; n++) {
		x = x * 1103515245u + 12345u;
		send_seg(&v, &(struct seg){C2S, A, ISS + 1 + (n ^ 1) * 100, IRS + 1, 100, 1000,
					   1000 + n, 0, 0, 0, (int)(x >> 16) | 1});
	}
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].ooo_by[SUM_BY_IPID], 0);
	CHECK_EQ_U(s.dir[C2S].out_of_order, 10); /* causality: microseconds late */
}

/* IPv6, TSvals tied (a ms clock at line rate): causality against R's
 * first SACK for the gap plus the loop to the sender (100 us from the
 * handshake); later than that, undecided until a second copy comes. */
static void test_causality_and_second_copy(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 6);
	send_seg(&v, &(struct seg){C2S, S, ISS, 0, 0, 1000, 0, 1, 1, 0, 0, 0, {0}, 1000, 3, 1});
	send_seg(&v, &(struct seg){
			 S2C, S | A, IRS, ISS + 1, 0, 1000, 100, 1, 5, 1, 0, 0, {0}, 1000, 3, 1});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 0, 1000, 200, 1, 2, 5});
	/* Gap [1, 1001) opened at 1000 us; the client SACKs at 1010 us. */
	send_seg(&v, &(struct seg){S2C, A, IRS + 1001, ISS + 1, 1000, 1000, 1000, 1, 10, 2});
	send_seg(
	    &v,
	    &(struct seg){
		C2S, A, ISS + 1, IRS + 1, 0, 1000, 1010, 1, 3, 10, 0, 1, {IRS + 1001, IRS + 2001}});
	/* 40 us later than a retransmission could have come back: undecided. */
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1, 1000, 1000, 1150, 1, 10, 2});
	CHECK(v.c.tp->seg.kind & TCP_SEG_UNDECIDED);
	/* A second copy, sent a tick later: the first was the late original. */
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1, 1000, 1000, 1300, 1, 11, 2});
	CHECK(v.c.tp->seg.kind & TCP_SEG_RETRANS);
	CHECK(v.c.tp->seg.kind & TCP_SEG_LATE_FOUND);
	CHECK_EQ_U(tcp_seg_late(&v.c)->by, SUM_BY_SECOND_COPY);
	CHECK_EQ_U(tcp_seg_late(&v.c)->frame, 6);
	/* The client D-SACKs the second copy: the retransmission was spurious. */
	send_seg(
	    &v,
	    &(struct seg){
		C2S, A, ISS + 1, IRS + 2001, 0, 1000, 1310, 1, 4, 11, 0, 1, {IRS + 1, IRS + 1001}});
	/* Gap [2001, 3001) opened at 2000 us, filled 50 us later: sooner than
	 * the SACK (2010 us) plus 100 us: the late original, by causality. */
	send_seg(&v, &(struct seg){S2C, A, IRS + 3001, ISS + 1, 1000, 1000, 2000, 1, 12, 4});
	send_seg(&v, &(struct seg){C2S,
				   A,
				   ISS + 1,
				   IRS + 2001,
				   0,
				   1000,
				   2010,
				   1,
				   5,
				   12,
				   0,
				   1,
				   {IRS + 3001, IRS + 4001}});
	send_seg(&v, &(struct seg){S2C, A, IRS + 2001, ISS + 1, 1000, 1000, 2050, 1, 12, 4});
	CHECK((v.c.tp->seg.kind & TCP_SEG_OOO) && tcp_seg_late(&v.c)->by == SUM_BY_CAUSALITY);
	tcp_finish(&v.c, &v.sink);
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[S2C].out_of_order, 2);
	CHECK_EQ_U(s.dir[S2C].ooo_by[SUM_BY_SECOND_COPY], 1);
	CHECK_EQ_U(s.dir[S2C].ooo_by[SUM_BY_CAUSALITY], 1);
	CHECK_EQ_U(s.dir[S2C].retrans, 1);
	CHECK_EQ_U(s.dir[S2C].spurious_retrans, 1);
	CHECK_EQ_U(s.dir[S2C].spurious_dsack, 1);
	CHECK_EQ_U(s.dir[S2C].fills_undecided, 0);
	const struct sum_event *r = nth_frame(&v, SUM_EV_RETRANS, 0);
	CHECK(r && r->frame_first == 7 && r->u.frame.spurious && r->u.frame.dsack);
	const struct sum_event *o = nth_frame(&v, SUM_EV_OUT_OF_ORDER, 0);
	CHECK(o && o->frame_first == 6 && o->by == SUM_BY_SECOND_COPY);
	CHECK(nth_frame(&v, SUM_EV_CAPTURE_GAP, 1) != NULL);
}

/* TSvals tied; the TSecr the sender echoes (the receiver's clock) moved on:
 * a fill echoing an older TSecr than its gap's opener was sent before it. */
static void test_tsecr_decides(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 6);
	handshake(&v, 1);
	send_seg(&v, &(struct seg){C2S, A, ISS + 1001, IRS + 1, 1000, 1000, 1000, 1, 50, 101});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 1000, 1000, 60000, 1, 50, 100});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].out_of_order, 1);
	CHECK_EQ_U(s.dir[C2S].ooo_by[SUM_BY_TSECR], 1);
}

/* A capture next to the server of a 20 ms path: the server's SYN/ACK
 * comes 50 us after the SYN, the client's ACK 20 ms later. The summary
 * carries the path and both loops, the data's RTT only the server's. */
static void test_path_at_receiver(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 4);
	send_seg(&v, &(struct seg){C2S, S, ISS, 0, 0, 1000, 0, 0, 0, 0, 0, 0, {0}, 1000, 3, 1});
	send_seg(&v, &(struct seg){
			 S2C, S | A, IRS, ISS + 1, 0, 1000, 50, 0, 0, 0, 0, 0, {0}, 1000, 3, 1});
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 0, 1000, 20050});
	send_seg(&v, &(struct seg){C2S, A | P, ISS + 1, IRS + 1, 1000, 1000, 20060});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1001, 0, 1000, 20090});
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.path.loop_ns[C2S], 20000000);
	CHECK_EQ_U(s.path.loop_ns[S2C], 30000); /* data -> ACK beats the SYN/ACK */
	CHECK_EQ_U(s.path.rtt_ns, 20030000);
	CHECK_EQ_U(s.dir[C2S].rtt.min_ns, 30000);
	CHECK_EQ_U(sum_vantage_side(&s.path, C2S), SUM_VANTAGE_RECEIVER);
	CHECK_EQ_U(sum_vantage_side(&s.path, S2C), SUM_VANTAGE_SENDER);
}

/* The highest segment again after 20 ms of silence, nothing from the
 * receiver asking: a tail-loss probe (RFC 8985), not an RTO. */
static void test_tail_loss_probe(void)
{
	struct convo v;
	struct sum_conn s;

	convo_init(&v, 4);
	handshake(&v, 0);
	send_seg(&v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 100, 1000, 1000});
	send_seg(&v, &(struct seg){C2S, A | P, ISS + 101, IRS + 1, 100, 1000, 1010});
	send_seg(&v, &(struct seg){C2S, A | P, ISS + 101, IRS + 1, 100, 1000, 21010});
	tcp_finish(&v.c, &v.sink);
	tcp_summarize(&v.c, &s);
	CHECK_EQ_U(s.dir[C2S].retrans, 1);
	CHECK_EQ_U(s.dir[C2S].tlp_retrans, 1);
	CHECK_EQ_U(s.dir[C2S].rto_retrans, 0);
	const struct sum_event *r = nth_frame(&v, SUM_EV_RETRANS, 0);
	CHECK(r && r->u.frame.kind == SUM_RTX_TLP && r->frame_first == 6 && !r->u.frame.spurious);
}

/* Three full segments out, nothing from the receiver for 30 ms, then new
 * data: a loss probe sent as new data (RFC 8985 sec. 7.3), named by frame.
 * The same with the receiver's ACK in between is the sender writing again. */
static void test_probe_new_data_frame(void)
{
	for (int acked = 0; acked <= 1; acked++) {
		struct convo v;
		struct sum_conn s;

		convo_init(&v, 4);
		handshake(&v, 0);
		for (uint32_t k = 0; k < 3; k++)
			send_seg(&v, &(struct seg){C2S, A, ISS + 1 + 1000 * k, IRS + 1, 1000, 1000,
						   1000 + k});
		if (acked)
			send_seg(&v, &(struct seg){S2C, A, IRS + 1, ISS + 1 + 2000, 0, 1000, 1500});
		send_seg(&v, &(struct seg){C2S, A | P, ISS + 3001, IRS + 1, 1000, 1000, 31000});
		tcp_finish(&v.c, &v.sink);
		tcp_summarize(&v.c, &s);
		CHECK_EQ_U(s.dir[C2S].retrans, 0);
		CHECK_EQ_U(s.dir[C2S].tlp_new_data, acked ? 0 : 1);
		const struct sum_event *e = nth_frame(&v, SUM_EV_TLP_NEW_DATA, 0);
		if (acked) {
			CHECK(e == NULL);
		} else {
			CHECK(e && e->frame_first == 7 && e->bytes == 1000 && e->rel_seq == 3001);
		}
	}
}

int main(void)
{
	test_seq();
	test_handshake_rtt_unique();
	test_rings_pooled();
	test_retransmission_seen_bytes();
	test_reorder_by_tsval();
	test_reorder_by_ipid_and_timing();
	test_dupacks_fast_and_rto();
	test_capture_loss_and_spurious();
	test_wrap();
	test_zero_window_keepalive_dsack();
	test_bare_keepalive();
	test_window_full_retransmission();
	test_new_instance();
	test_midstream_roles();
	test_midstream_pure_ack_dupacks();
	test_ipid_learned_under_reordering();
	test_causality_and_second_copy();
	test_tsecr_decides();
	test_tail_loss_probe();
	test_probe_new_data_frame();
	test_path_at_receiver();
	return unit_done("tcp");
}
