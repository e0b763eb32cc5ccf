/* reorder.c - detector: reordering extent and reordering across NIC queues. */
#include "analyze/detect/reorder/reorder.h"

#include <stdint.h>

/*
 * What the TCP engine already decided (tcp.c): a data segment that fills a
 * gap below snd_nxt and was sent before the segment that opened the gap
 * (TSval, then IPv4 IP ID, then timing) is out of order (TCP_SEG_OOO), with
 * its extent: the data segments of the direction that arrived between the
 * gap and it. This detector turns that into findings:
 *
 *  - one SUM_EV_REORDER event per out-of-order segment, with extent and
 *    decided_by, and per connection the maximum extent. The extent is the
 *    RFC 5236 "reorder extent" (how many later packets overtook it) and is
 *    what Linux's per-socket `reordering` metric estimates in packets
 *    (tcp_check_sack_reordering(): initially 3 = TCP_FASTRETRANS_THRESH,
 *    capped by net.ipv4.tcp_max_reordering, 300): a sender whose duplicate
 *    threshold is below the extent retransmits spuriously.
 *  - ACK reordering: cumulative ACKs going backwards (TCP_SEG_ACK_REORDERED),
 *    the receiver's ACKs overtaking each other on the way back.
 *  - when packets carry a queue id (pcapng epb_queue, PACKET_FANOUT_QM, or
 *    one file per queue with --queue-per-file): the queues a connection's
 *    data arrived on, the queue switches (two consecutive data segments of
 *    one direction on different queues), and for each out-of-order segment
 *    whether a segment that overtook it came on another queue. That is
 *    "reordering across queues": one flow spread over several RX queues (the
 *    ixgbe ATR case: Flow Director follows the sending CPU, so when the
 *    scheduler migrates the sender the flow's RX queue changes and the new
 *    queue's CPU delivers before the old one drained; RSS/RPS
 *    misconfiguration does the same). Each queue is served in order, so
 *    reordering between two segments of the same queue happened before the
 *    NIC; across two queues, the queues are the first suspect. It also
 *    defeats GRO, which only merges within one queue's NAPI batch.
 */

/* Queue + 1 of a segment, 0 when unknown or too large for the ring. */
static uint32_t seg_qtag(const struct tcp_seg *sg)
{
	if (sg->queue < 0 || sg->queue >= UINT16_MAX)
		return 0;
	return (uint32_t)sg->queue + 1;
}

static void note_queue(struct reorder_state *st, int32_t q)
{
	if (q < 0)
		return;
	if (!st->queues_known || q < st->queue_min)
		st->queue_min = q;
	if (!st->queues_known || q > st->queue_max)
		st->queue_max = q;
	st->queues_known = true;
	if ((uint32_t)q < REORDER_QMASK_MAX)
		st->queue_mask |= 1ull << q;
	else
		st->queues_overflow = true;
}

/*
 * 1: one of the `extent` data segments before data segment n (those that
 * overtook it) came on another queue than qtag; 0: all known ones on the
 * same queue; -1: nothing known to compare. Only the last REORDER_QRING - 1
 * overtakers are remembered.
 */
static int8_t overtaken_across_queues(const struct reorder_dir_state *ds, uint64_t n,
				      uint32_t extent, uint32_t qtag)
{
	bool known = false;

	if (!qtag)
		return -1;
	if (extent > REORDER_QRING - 1)
		extent = REORDER_QRING - 1;
	for (uint32_t k = 1; k <= extent && k < n; k++) {
		uint32_t other = ds->qring[(n - k) % REORDER_QRING];
		if (!other)
			continue;
		if (other != qtag)
			return 1;
		known = true;
	}
	return known ? 0 : -1;
}

/* The event for an original that arrived late (struct tcp_late: this
 * segment, or an earlier one the engine could only decide now). */
static void emit_reorder(struct tcp_conn *c, const struct det_env *env,
			 const struct reorder_dir_state *ds, const struct tcp_late *l)
{
	const struct tcp_seg *sg = &c->tp->seg;
	struct reorder_state *st = c->det.reorder;
	struct sum_event e;
	struct tcp_seg q = {.queue = l->queue};

	det_event_init(&e, SUM_EV_REORDER, c, sg->dir, l->ts, l->frame, l->input);
	e.frame_first = l->gap_frame;
	e.frame_last = l->frame;
	e.duration_ns = l->ts - l->gap_ts;
	e.bytes = l->len;
	e.rel_seq = l->rel_seq;
	e.extent = l->extent;
	e.by = l->by;
	e.queue_switch = overtaken_across_queues(ds, l->data_no, l->extent, seg_qtag(&q));
	st->events++;
	if (l->extent > st->max_extent)
		st->max_extent = l->extent;
	if (e.queue_switch > 0)
		st->on_switch++;
	else if (e.queue_switch < 0)
		st->switch_unknown++;
	det_emit(env, &e);
}

/* Out of line: inlined, its register saves would cost every segment. */
__attribute__((noinline)) static void reorder_note(struct tcp_conn *c, const struct det_env *env)
{
	const struct tcp_seg *sg = &c->tp->seg;
	/* Cold state (reorder.def): most connections never reorder and carry
	 * no queue ids. */
	struct reorder_state *st = DET_COLD_GET(c, env, reorder);

	if (!st)
		return;
	if (sg->kind & TCP_SEG_ACK_REORDERED)
		st->ack_reordering++;

	struct reorder_dir_state *ds = &st->dir[sg->dir];
	uint64_t n =
	    TCP_COUNT(&c->half[sg->dir], data_packets); /* this segment's number, 1-based */
	uint32_t qtag = seg_qtag(sg);
	/* Keep-alives are not data segments (tcp.c does not count them). */
	bool data = (sg->kind & TCP_SEG_DATA) && !(sg->kind & TCP_SEG_KEEPALIVE);

	if (sg->kind & (TCP_SEG_OOO | TCP_SEG_LATE_FOUND))
		emit_reorder(c, env, ds, tcp_seg_late(c));
	/* No packet of the connection carried a queue id (tcp.c): every ring
	 * entry is still 0, unknown, and stays so; nothing to record. */
	if (!data || !c->info.queues_known)
		return;
	note_queue(st, sg->queue);
	if (qtag && ds->last_queue && qtag != ds->last_queue)
		ds->queue_switches++;
	ds->qring[n % REORDER_QRING] = (uint16_t)qtag;
	ds->last_queue = qtag;
}

void reorder_segment(struct tcp_conn *c, const struct det_env *env)
{
	/* The common segment: in order, and no queue ids to record. */
	if ((c->tp->seg.kind & (TCP_SEG_ACK_REORDERED | TCP_SEG_OOO | TCP_SEG_LATE_FOUND)) ||
	    c->info.queues_known)
		reorder_note(c, env);
}

static void reorder_finish(struct tcp_conn *c, const struct det_env *env, struct sum_det *out)
{
	static const struct reorder_state none; /* never needed: as zeroed */
	const struct reorder_state *st = c->det.reorder ? c->det.reorder : &none;
	struct reorder_summary *s = &out->reorder;

	(void)env;
	s->events = st->events;
	s->max_extent = st->max_extent;
	s->ack_reordering = st->ack_reordering;
	s->queues_known = st->queues_known;
	/* Queue ids >= 64 are not told apart: counted once, as "more". */
	s->queues_used = (uint32_t)__builtin_popcountll(st->queue_mask) + st->queues_overflow;
	s->queue_switches = st->dir[0].queue_switches + st->dir[1].queue_switches;
	s->reorder_on_queue_switch = st->on_switch;
	s->switch_unknown = st->switch_unknown;
	s->queue_min = st->queues_known ? st->queue_min : -1;
	s->queue_max = st->queues_known ? st->queue_max : -1;
}

const struct det_ops reorder_ops = {
    .name = "reorder",
    .finish = reorder_finish,
};
