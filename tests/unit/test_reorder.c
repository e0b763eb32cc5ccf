/* test_reorder.c - unit tests of the reordering / queue detector
 * (analyze/detect/reorder/reorder.c). */
#include <jansson.h>
#include <string.h>

/* Segments below are positional literals; unnamed trailing fields are 0. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "analyze/detect/reorder/reorder.h"
#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"
#include "analyze/engine/tcp.h"
#include "tests/unit/convo.h"
#include "tests/unit/unit.h"

/* Client 10.0.0.1:40000 <-> server 10.0.0.2:80, run through tcp.c and then
 * the reorder detector alone (the other detectors are not this test's). */
struct convo {
	struct tcp_conn c;
	struct sum_det res; /* the detectors' results, from finish() */
	struct tcp_params prm;
	struct det_params dprm;
	struct det_env env;
	struct sum_sink sink;
	struct sum_event ev[64];
	unsigned nev;
	uint64_t frame;
	bool started;
};

struct seg {
	int dir;
	uint8_t flags;
	uint32_t seq, ack, len;
	int64_t t_us;
	int queue; /* -1: no queue id */
	uint32_t tsval;
};

static void on_event(void *ctx, const struct sum_event *e)
{
	struct convo *v = ctx;
	if (v->nev < 64)
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
	d.tcp.window = 1000;
	d.tcp.payload_len = d.tcp.payload_cap = s->len;
	d.l3_len = 52 + s->len;
	d.tcp.opt.has_ts = 1;
	d.tcp.opt.tsval = s->tsval;
	if (s->queue >= 0) {
		p.have |= PKT_HAVE_QUEUE;
		p.queue = (uint32_t)s->queue;
	}
	convo_deliver(&v->c, &v->started, &v->prm, &v->env, &v->sink, CONVO_ONE_DETECTOR,
		      reorder_segment, &d, &p);
}

static const struct reorder_summary *finish(struct convo *v)
{
	reorder_ops.finish(&v->c, &v->env, &v->res);
	return &v->res.reorder;
}

enum { S = DEC_TH_SYN, A = DEC_TH_ACK };

#define C2S   SUM_C2S
#define S2C   SUM_S2C
#define ISS   1000u
#define IRS   5000u
#define MSS   100u
#define DATA0 (ISS + 1)

static void handshake(struct convo *v, int queue)
{
	send_seg(v, &(struct seg){C2S, S, ISS, 0, 0, 0, queue, 1});
	send_seg(v, &(struct seg){S2C, S | A, IRS, ISS + 1, 0, 100, queue, 1});
	send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 0, 200, queue, 2});
}

/* Data segment k (0-based) of the client, sent at TSval 10 + k. */
static void data(struct convo *v, uint32_t k, int64_t t_us, int queue)
{
	send_seg(v, &(struct seg){C2S, A, DATA0 + k * MSS, IRS + 1, MSS, t_us, queue, 10 + k});
}

static unsigned count_type(const struct convo *v, enum sum_event_type type)
{
	unsigned n = 0;
	for (unsigned k = 0; k < v->nev; k++)
		n += v->ev[k].type == type;
	return n;
}

/* In order, on queues 0 0 1 1 0 3: three switches, three queues, nothing late. */
static void test_queue_switches(void)
{
	static const int q[] = {0, 0, 1, 1, 0, 3};
	struct convo v;

	convo_init(&v);
	handshake(&v, 0);
	for (uint32_t k = 0; k < 6; k++)
		data(&v, k, 1000 + k * 10, q[k]);
	/* ACKs on another queue switch nothing: only data segments count. */
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, DATA0 + 600, 0, 2000, 2, 20});
	const struct reorder_summary *s = finish(&v);
	CHECK(s->queues_known);
	CHECK_EQ_U(s->queue_switches, 3);
	CHECK_EQ_U(s->queues_used, 3);
	CHECK_EQ_U(s->queue_min, 0);
	CHECK_EQ_U(s->queue_max, 3);
	CHECK_EQ_U(s->events, 0);
	CHECK_EQ_U(s->reorder_on_queue_switch, 0);
	CHECK_EQ_U(v.nev, 0);
}

/*
 * Segments 1 and 2 go to queue 1 and overtake segment 0 on queue 0 (the
 * ATR case: the flow moved queue, the new queue's CPU delivered first).
 */
static void test_reorder_on_switch(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 0);
	data(&v, 1, 1000, 1); /* frame 4 opens the gap */
	data(&v, 2, 1010, 1);
	data(&v, 0, 1050, 0); /* TSval 10 < 12: sent first */
	data(&v, 3, 1060, 0);
	const struct reorder_summary *s = finish(&v);
	CHECK_EQ_U(count_type(&v, SUM_EV_REORDER), 1);
	const struct sum_event *e = &v.ev[0];
	CHECK_EQ_U(e->type, SUM_EV_REORDER);
	CHECK_EQ_U(e->queue_switch, 1);
	CHECK_EQ_U(e->extent, 2);
	CHECK_EQ_U(e->by, SUM_BY_TSVAL);
	CHECK_EQ_U(e->frame_first, 4);
	CHECK_EQ_U(e->frame_last, 6);
	CHECK_EQ_U(e->duration_ns, 50000);
	CHECK_EQ_U(e->rel_seq, 1);
	CHECK_EQ_U(e->bytes, MSS);
	CHECK_EQ_U(e->dir, C2S);
	CHECK_EQ_U(s->events, 1);
	CHECK_EQ_U(s->max_extent, 2);
	CHECK_EQ_U(s->reorder_on_queue_switch, 1);
	CHECK_EQ_U(s->queue_switches, 1); /* 1 -> 0; the first data segment has no predecessor */
	CHECK_EQ_U(s->queues_used, 2);
}

/*
 * Overtaken by segments of its own queue: reordered before the queues (a
 * relay, a bonded link), not across them, even though the flow did switch
 * queue right before.
 */
static void test_reorder_same_queue(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 0);
	data(&v, 0, 1000, 1);
	data(&v, 2, 1010, 2);
	data(&v, 3, 1020, 2);
	data(&v, 1, 1030, 2);
	const struct reorder_summary *s = finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].queue_switch, 0);
	CHECK_EQ_U(v.ev[0].extent, 2);
	CHECK_EQ_U(s->reorder_on_queue_switch, 0);
	CHECK_EQ_U(s->queue_switches, 1);
	CHECK_EQ_U(s->switch_unknown, 0);

	/* Two overtakers, only the first on another queue: still across queues. */
	convo_init(&v);
	handshake(&v, 0);
	data(&v, 1, 1000, 1);
	data(&v, 2, 1010, 0);
	data(&v, 0, 1020, 0);
	s = finish(&v);
	CHECK_EQ_U(v.ev[0].queue_switch, 1);
	CHECK_EQ_U(s->reorder_on_queue_switch, 1);
}

/* Without queue ids the question stays open: -1, null in JSON. */
static void test_unknown_queues(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, -1);
	data(&v, 1, 1000, -1);
	data(&v, 0, 1010, -1);
	const struct reorder_summary *s = finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK(v.ev[0].queue_switch == -1);
	CHECK(!s->queues_known);
	CHECK_EQ_U(s->queues_used, 0);
	CHECK_EQ_U(s->queue_switches, 0);
	CHECK_EQ_U(s->events, 1);
	CHECK_EQ_U(s->max_extent, 1);
	/* The JSON says unknown, not 0, read back with Jansson. */
	struct jo_writer w;
	struct sum_conn sc = {0};
	sc.det.reorder = *s;
	jo_w_init(&w, NULL, 0, 0);
	reorder_view.json_conn(&w, &sc);
	json_t *o = json_loadb(w.b.p, w.b.len, 0, NULL);
	jo_w_free(&w);
	CHECK(o != NULL);
	CHECK(json_is_null(json_object_get(o, "queue_switches")));
	CHECK(json_is_null(json_object_get(o, "reorder_on_queue_switch")));
	CHECK_EQ_U(json_integer_value(json_object_get(o, "events")), 1);
	json_decref(o);

	/* The late segment has a queue id, its overtaker not: nothing to compare. */
	convo_init(&v);
	handshake(&v, 0);
	data(&v, 1, 1000, -1);
	data(&v, 0, 1010, 0);
	s = finish(&v);
	CHECK(v.ev[0].queue_switch == -1);
	CHECK_EQ_U(s->switch_unknown, 1);
	/* An unknown queue breaks the chain: no switch counted across it. */
	CHECK_EQ_U(s->queue_switches, 0);
}

/* A cumulative ACK that goes backwards: the receiver's ACKs were reordered. */
static void test_ack_reordering(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 0);
	for (uint32_t k = 0; k < 4; k++)
		data(&v, k, 1000 + k, 0);
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, DATA0 + 200, 0, 1500, 0, 20});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, DATA0 + 400, 0, 1510, 0, 21});
	send_seg(&v, &(struct seg){S2C, A, IRS + 1, DATA0 + 300, 0, 1520, 0, 21});
	const struct reorder_summary *s = finish(&v);
	CHECK_EQ_U(s->ack_reordering, 1);
	CHECK_EQ_U(s->events, 0);
	CHECK_EQ_U(v.nev, 0);
}

/* A retransmission (later TSval) is no reorder event, on any queue. */
static void test_retransmission_not_reorder(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 0);
	data(&v, 1, 1000, 0);
	send_seg(&v, &(struct seg){C2S, A, DATA0, IRS + 1, MSS, 300000, 1, 99});
	const struct reorder_summary *s = finish(&v);
	CHECK_EQ_U(s->events, 0);
	CHECK_EQ_U(v.nev, 0);
	CHECK_EQ_U(s->queue_switches, 1);
}

/* Extent beyond the ring: only the last REORDER_QRING - 1 overtakers are
 * compared, and the answer is still known. */
static void test_long_extent(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 0);
	for (uint32_t k = 1; k <= 100; k++)
		data(&v, k, 1000 + k, 1);
	data(&v, 0, 2000, 0);
	const struct reorder_summary *s = finish(&v);
	CHECK_EQ_U(v.nev, 1);
	CHECK_EQ_U(v.ev[0].extent, 100);
	CHECK_EQ_U(v.ev[0].queue_switch, 1);
	CHECK_EQ_U(s->max_extent, 100);
}

/*
 * A bare FIN filling a gap (contrived: a 1-byte gap before a later data
 * segment): an out-of-order segment that is not a data segment. tcp.c does
 * not count it as one, so its extent is corrected here: 1 overtaker.
 */
static void test_fin_fills_gap(void)
{
	struct convo v;

	convo_init(&v);
	handshake(&v, 0);
	data(&v, 0, 1000, 0);
	send_seg(&v, &(struct seg){C2S, A, DATA0 + MSS + 1, IRS + 1, MSS, 1010, 1, 12});
	send_seg(&v, &(struct seg){C2S, A | DEC_TH_FIN, DATA0 + MSS, IRS + 1, 0, 1020, 0, 10});
	const struct reorder_summary *s = finish(&v);
	CHECK_EQ_U(count_type(&v, SUM_EV_REORDER), 1);
	CHECK_EQ_U(s->events, v.c.half[C2S].cold->out_of_order);
	CHECK_EQ_U(s->max_extent, 1);
	CHECK_EQ_U(v.ev[0].extent, 1);
	CHECK_EQ_U(v.ev[0].queue_switch, 1);
	CHECK_EQ_U(s->queue_switches, 1); /* 0 -> 1; the FIN is not a data segment */
}

int main(void)
{
	test_queue_switches();
	test_reorder_on_switch();
	test_reorder_same_queue();
	test_unknown_queues();
	test_ack_reordering();
	test_retransmission_not_reorder();
	test_long_extent();
	test_fin_fills_gap();
	return unit_done("reorder");
}
