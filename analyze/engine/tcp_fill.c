/* tcp_fill.c - TCP engine: a segment that fills a gap, late original or retransmission. */
#include <string.h>

#include "analyze/engine/tcp_int.h"

/* ---- the sender's clocks (DESIGN.md "Reordering") ---- */

/*
 * Sending order of two segments of one sender: -1 when a was sent before
 * b, 1 after, 0 when no clock tells; *by names the clock that did. All of
 * them only move forward at the sender: its TSval (RFC 7323), the peer's
 * TSval it echoes (ts_recent, which PAWS keeps from going back), its
 * cumulative ACK (rcv_nxt), and on IPv4 the IP ID when it is a
 * per-connection counter (Linux: inet_sk(sk)->inet_id, one per packet).
 */
static int clock_order(const struct tcp_clock *a, const struct tcp_clock *b, bool ipid_counter,
		       uint8_t *by)
{
	uint8_t both = a->have & b->have;
	int32_t d;

	if ((both & TCP_CLK_TSVAL) && (d = seq_diff(a->tsval, b->tsval)) != 0) {
		*by = SUM_BY_TSVAL;
		return d < 0 ? -1 : 1;
	}
	if ((both & TCP_CLK_TSECR) && (d = seq_diff(a->tsecr, b->tsecr)) != 0) {
		*by = SUM_BY_TSECR;
		return d < 0 ? -1 : 1;
	}
	if (ipid_counter && (both & TCP_CLK_IPID)) {
		d = ipid_diff(a->ipid, b->ipid);
		/* A counter wraps at 65536: far apart, the sign means nothing. */
		if (d != 0 && d > -TCP_IPID_ORDER && d < TCP_IPID_ORDER) {
			*by = SUM_BY_IPID;
			return d < 0 ? -1 : 1;
		}
	}
	if ((both & TCP_CLK_ACK) && (d = seq_diff(a->ack, b->ack)) != 0) {
		*by = SUM_BY_ACK;
		return d < 0 ? -1 : 1;
	}
	return 0;
}

/*
 * Are this side's IP IDs a per-connection counter? Learned from the size
 * of successive differences, not their sign: reordering scrambles the
 * sign in arrival order exactly when the ID is needed, while a counter's
 * steps stay small (one per packet, a few with TSO super-frames, a few
 * dozen either way across heavy reordering). Random IDs (OpenBSD, some
 * middleboxes) and zeros step far or not at all.
 */
static bool ipid_trusted(const struct tcp_half *h)
{
	return h->ipid_near >= TCP_IPID_LEARN && h->ipid_far * 8 < h->ipid_near;
}

bool tcp_ipid_counter(const struct tcp_conn *c, enum sum_dir_id dir)
{
	const struct tcp_half *h = &c->half[dir];

	/* Other steps: a few (the handshake's, a loss's own skip) and at most
	 * one in eight. */
	return ipid_trusted(h) && h->ipid_one >= TCP_IPID_LEARN &&
	       h->ipid_near + h->ipid_far - h->ipid_one <= h->ipid_one / 8 + 2;
}

/* ---- path times as seen from the capture point ---- */

static int64_t min_known(int64_t a, int64_t b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

/* Smallest sample of r, -1 if none. */
static int64_t rtt_min(const struct sum_rtt *r)
{
	return r->n ? r->min_ns : -1;
}

/*
 * From the capture point to side's host and back: the handshake leg to it,
 * the other side's data ACKed by it, or the other side's TSvals echoed by
 * it; the smallest (each sample is at least the true time). -1 unknown.
 */
int64_t tcp_loop_rtt(const struct tcp_conn *c, enum sum_dir_id side)
{
	const struct tcp_half *o = &c->half[!side];
	int64_t v = c->hs_loop_ns[side];

	v = min_known(v, rtt_min(&o->st.rtt));
	return min_known(v, rtt_min(&o->st.rtt_ts));
}

enum sum_vantage_side tcp_vantage_side(const struct tcp_conn *c, enum sum_dir_id dir)
{
	struct sum_path p = {.rtt_ns = -1};

	for (int side = 0; side < SUM_DIR_COUNT; side++)
		p.loop_ns[side] = tcp_loop_rtt(c, (enum sum_dir_id)side);
	return sum_vantage_side(&p, dir);
}

int64_t tcp_ts_next_sent(const struct tcp_half *h, uint32_t tsval)
{
	unsigned cap = h->tsring_cap;

	if (!h->tsring || !cap)
		return -1;
	unsigned newest = tsring_newest(h);
	/* The common case, a peer that heard the newest: no scan. */
	if (h->tsring[newest].tsval == tsval)
		return -1;
	for (unsigned i = 0; i < cap; i++) {
		const struct tcp_tsrec *r = &h->tsring[i];
		if (r->ts == tcp_no_ts || r->tsval != tsval)
			continue;
		if (i == newest)
			return -1;
		const struct tcp_tsrec *n = &h->tsring[(i + 1) & (cap - 1)];
		return n->ts != tcp_no_ts && n->ts >= r->ts ? n->ts : -1;
	}
	/* Older than the ring: the first newer TSval went out no later than
	 * the oldest kept (a loop longer than the ring's ticks, behind a
	 * queue). Within 2^30 ticks only, as PAWS (RFC 7323 5.2) bounds it. */
	unsigned oldest =
	    h->tsring_head < cap && h->tsring[h->tsring_head].ts != tcp_no_ts ? h->tsring_head : 0;
	const struct tcp_tsrec *o = &h->tsring[oldest];
	int32_t behind = (int32_t)(o->tsval - tsval);
	return o->ts != tcp_no_ts && behind > 0 && behind < (1 << 30) ? o->ts : -1;
}

/* The whole path's RTT (both loops, or the handshake); -1 unknown. */
int64_t tcp_path_rtt(const struct tcp_conn *c)
{
	int64_t a = tcp_loop_rtt(c, SUM_C2S), b = tcp_loop_rtt(c, SUM_S2C);
	int64_t sum = a >= 0 && b >= 0 ? clock_sat_add(a, b) : -1;

	return min_known(sum, c->info.handshake_rtt_ns);
}

/*
 * The earliest a retransmission of hole's bytes could reach the capture
 * point. It needs a loss signal: R's duplicate ACK or SACK for the hole
 * passes here (trigger_ts), reaches S, and the retransmission comes back:
 * trigger + the loop to S. Or a timer: no sooner than the shortest loss
 * probe, 2 RTT + TCP_TLP_MIN after the opener left S. (Only called when R's
 * ACKs are in the capture, so a trigger not seen is one not sent yet.)
 */
static int64_t earliest_retrans(const struct tcp_conn *c, enum sum_dir_id dir,
				const struct tcp_hole *hole)
{
	int64_t rtt = tcp_path_rtt(c);
	int64_t timer = clock_sat_add(clock_sat_add(hole->open_ts, TCP_TLP_MIN_NS),
				      rtt > 0 ? clock_sat_mul(rtt, 2) : 0);

	if (!hole->trigger_ts)
		return timer;
	int64_t up = tcp_loop_rtt(c, dir);
	int64_t signal = clock_sat_add(hole->trigger_ts, up > 0 ? up : 0);
	return signal < timer ? signal : timer;
}

/* ---- deciding a fill ---- */

enum tcp_fill {
	TCP_FILL_LATE = 0, /* the late original */
	TCP_FILL_RETRANS,
	TCP_FILL_UNDECIDED,
};

/* A segment with clock clk, from dir's sender, filled (part of) hole. */
static enum tcp_fill decide_fill(const struct tcp_conn *c, enum sum_dir_id dir,
				 const struct tcp_params *prm, const struct tcp_clock *clk,
				 const struct tcp_hole *hole, int64_t now, uint8_t *by)
{
	const struct tcp_half *h = &c->half[dir], *r = &c->half[!dir];

	if (hole->opener.have) {
		int order = clock_order(clk, &hole->opener, ipid_trusted(h), by);
		if (order)
			return order < 0 ? TCP_FILL_LATE : TCP_FILL_RETRANS;
	}
	if (r->have_last_ack) {
		*by = SUM_BY_CAUSALITY;
		return now < earliest_retrans(c, dir, hole) ? TCP_FILL_LATE : TCP_FILL_UNDECIDED;
	}
	/* R's ACKs are not in the capture: neither a loss signal nor a path
	 * time can be seen. The old rule of thumb, named as such. */
	*by = SUM_BY_TIMING;
	return now - hole->open_ts < prm->reorder_window_ns ? TCP_FILL_LATE : TCP_FILL_RETRANS;
}

/* ---- undecided gap fills ---- */

static void late_emit(const struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_late *l,
		      const struct sum_sink *sink)
{
	struct sum_event e;

	if (!sink || !sink->frame)
		return;
	frame_init(&e, SUM_EV_OUT_OF_ORDER, c, dir, l->ts, l->frame, l->input);
	e.bytes = l->len;
	e.rel_seq = l->rel_seq;
	e.extent = l->extent;
	e.by = l->by;
	sum_emit(sink, &e);
}

/* The segment is the late original: count it and tell the detectors. */
static void note_late(struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_late *l,
		      uint32_t seg_flag, const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];

	tcp_cold(c, h)->out_of_order++;
	tcp_cold(c, h)->ooo_by[l->by < SUM_BY_COUNT ? l->by : SUM_BY_TIMING]++;
	c->tp->seg.kind |= seg_flag;
	c->tp->late = *l;
	late_emit(c, dir, l, sink);
}

static void pending_remove(struct tcp_cold *hc, unsigned k)
{
	memmove(&hc->pending[k], &hc->pending[k + 1],
		(hc->npending - k - 1) * sizeof(hc->pending[0]));
	hc->npending--;
}

/* Pending fill k of dir stays undecided: nothing more can tell. */
void tcp_pending_undecided(struct tcp_conn *c, enum sum_dir_id dir, unsigned k,
			   const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];
	struct tcp_cold *hc = h->cold; /* it has some */
	const struct tcp_late *l = &hc->pending[k].late;

	tcp_cold(c, h)->fills_undecided++;
	if (sink && sink->frame) {
		struct sum_event e;
		frame_init(&e, SUM_EV_FILL_UNDECIDED, c, dir, l->ts, l->frame, l->input);
		e.bytes = l->len;
		e.rel_seq = l->rel_seq;
		e.extent = l->extent;
		e.by = SUM_BY_CAUSALITY;
		sum_emit(sink, &e);
	}
	pending_remove(hc, k);
}

static void pending_add(struct tcp_conn *c, enum sum_dir_id dir, uint32_t start, uint32_t end,
			const struct tcp_late *l, const struct tcp_clock *clk, uint32_t why,
			const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];
	struct tcp_cold *hc = tcp_cold_state(h, c->tp);

	if (!hc) {
		tcp_cold(c, h)->fills_undecided++; /* no memory to wait for a second copy */
		return;
	}
	if (hc->npending == TCP_PENDING)
		tcp_pending_undecided(c, dir, 0, sink);
	if (!tcp_room(c->tp->pending, (void **)&hc->pending, hc->npending, &hc->cap_pending,
		      sizeof(*hc->pending), TCP_PENDING, &hc->grow_failed)) {
		tcp_cold(c, h)->fills_undecided++; /* no memory to wait for a second copy */
		return;
	}
	struct tcp_pending *q = &hc->pending[hc->npending++];
	q->start = start;
	q->end = end;
	q->late = *l;
	q->clk = *clk;
	q->why = why;
	q->acked_ts = 0;
}

/*
 * A second copy of bytes of an undecided fill arrived (from dir's sender,
 * clock clk): one of the two is the original, the other a retransmission,
 * and the sending order tells which. Returns true when this segment turned
 * out to be the late original (then it is no retransmission).
 */
__attribute__((noinline)) bool tcp_pending_second_copy(struct tcp_conn *c, enum sum_dir_id dir,
						       const struct pkt *p, uint32_t seq,
						       uint32_t end, const struct tcp_clock *clk,
						       const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];
	struct tcp_cold *hc = h->cold; /* it has some */

	for (unsigned k = 0; k < hc->npending; k++) {
		struct tcp_pending *q = &hc->pending[k];
		uint8_t by = SUM_BY_SECOND_COPY;
		if (seq_ge(seq, q->end) || seq_le(end, q->start))
			continue;
		int order = clock_order(clk, &q->clk, ipid_trusted(h), &by);
		if (order > 0) {
			/* This one was sent after: the first was the original. */
			struct tcp_late l = q->late;
			l.by = SUM_BY_SECOND_COPY;
			note_late(c, dir, &l, TCP_SEG_LATE_FOUND, sink);
			pending_remove(hc, k);
			return false;
		}
		if (order < 0) {
			/* This one was sent first: it is the original, late even
			 * for its own retransmission, which filled the gap. */
			struct tcp_pending q0 = *q;
			struct pkt p0 = {
			    .ts_ns = q0.late.ts, .frame = q0.late.frame, .input = q0.late.input};
			uint32_t kind = c->tp->seg.kind;
			pending_remove(hc, k);
			struct tcp_gapfill gf = {.by = SUM_BY_SECOND_COPY};
			tcp_note_retrans(c, dir, &p0, q0.start, q0.end, q0.late.len, q0.why, &gf,
					 sink);
			/* tcp_note_retrans() marked this segment; it is not the
			 * retransmission, the earlier one was. */
			c->tp->seg.kind = kind;
			struct tcp_late l = q0.late;
			l.by = SUM_BY_SECOND_COPY;
			l.ts = p->ts_ns;
			l.frame = p->frame;
			l.input = p->input;
			l.data_no = TCP_COUNT(h, data_packets);
			l.extent += (uint32_t)(TCP_COUNT(h, data_packets) - q0.late.data_no);
			note_late(c, dir, &l, TCP_SEG_OOO, sink);
			return true;
		}
		return false; /* the clocks tie again */
	}
	return false;
}

/*
 * How long a pending fill of dir waits once R ACKed it: any retransmission
 * of its bytes left S before S got that ACK, so it would have passed here
 * within the loop to S and back (twice that, plus 2 ms, for queues).
 */
static int64_t pending_wait(const struct tcp_conn *c, enum sum_dir_id dir)
{
	int64_t up = tcp_loop_rtt(c, dir);

	return up >= 0 ? clock_sat_add(clock_sat_mul(up, 2), TCP_TLP_MIN_NS) : 200000000;
}

/* R's cumulative ACK reached ack: pending fills of dir below it wait no
 * longer for a retransmission S would send. */
__attribute__((noinline)) void tcp_pending_acked(struct tcp_conn *c, enum sum_dir_id dir,
						 uint32_t ack, int64_t now)
{
	struct tcp_cold *hc = c->half[dir].cold; /* it has some */

	for (unsigned k = 0; k < hc->npending; k++)
		if (!hc->pending[k].acked_ts && seq_ge(ack, hc->pending[k].end)) {
			hc->pending[k].acked_ts = now;
			settle_at(&c->half[dir],
				  clock_sat_add(now, clock_sat_add(pending_wait(c, dir), 1)));
		}
}

/* Verdicts that waited and can wait no longer (both directions); then when
 * the next may be final. */
__attribute__((noinline)) void tcp_settle(struct tcp_conn *c, int64_t now,
					  const struct sum_sink *sink)
{
	/* Both cleared first (they were one value for the connection): what
	 * one direction's verdicts set in the other's stays. */
	for (int dir = 0; dir < SUM_DIR_COUNT; dir++) {
		if (c->half[dir].cold)
			c->half[dir].cold->settle = 0;
		c->half[dir].settle_wait = false;
	}
	for (int dir = 0; dir < SUM_DIR_COUNT; dir++) {
		struct tcp_cold *hc = c->half[dir].cold;
		if (!hc)
			continue; /* nothing waits */
		int64_t wait = pending_wait(c, (enum sum_dir_id)dir);
		for (unsigned k = 0; k < hc->npending;) {
			const struct tcp_pending *q = &hc->pending[k];
			if (q->acked_ts && now - q->acked_ts > wait) {
				tcp_pending_undecided(c, (enum sum_dir_id)dir, k, sink);
				continue;
			}
			if (q->acked_ts)
				settle_at(&c->half[dir],
					  clock_sat_add(q->acked_ts, clock_sat_add(wait, 1)));
			k++;
		}
		while (hc->rtx_len && now > hc->rtx[hc->rtx_head].due)
			tcp_rtx_pop(c, (enum sum_dir_id)dir, sink);
		if (hc->rtx_len)
			settle_at(&c->half[dir], clock_sat_add(hc->rtx[hc->rtx_head].due, 1));
	}
}

/* ---- the end of a waiting episode ---- */

/* dir's side advertised a zero window since the cold block's zw_start;
 * at p it ends (a window update, or the end of the connection). */
void tcp_zw_close(struct tcp_conn *c, enum sum_dir_id dir, const struct pkt *p,
		  const struct sum_sink *sink)
{
	struct tcp_cold *hc = c->half[dir].cold;
	struct sum_event e;

	/* The event belongs to the data direction the zero window stopped. */
	event_init(&e, SUM_EV_ZERO_WINDOW, c, (enum sum_dir_id) !dir, p);
	e.ts = hc->zw_start;
	e.duration_ns = p->ts_ns - hc->zw_start;
	e.frame_first = hc->zw_frame;
	e.input = hc->zw_input;
	sum_emit(sink, &e);
	hc->in_zero_window = false;
}

void tcp_finish(struct tcp_conn *c, const struct sum_sink *sink)
{
	for (int dir = 0; dir < SUM_DIR_COUNT; dir++) {
		struct tcp_cold *hc = c->half[dir].cold;
		if (!hc)
			continue;
		while (hc->npending)
			tcp_pending_undecided(c, (enum sum_dir_id)dir, 0, sink);
		while (hc->rtx_len)
			tcp_rtx_pop(c, (enum sum_dir_id)dir, sink);
		if (hc->in_zero_window) {
			struct pkt p = {.ts_ns = c->info.last_ts, .frame = c->info.last_frame};
			tcp_zw_close(c, (enum sum_dir_id)dir, &p, sink);
		}
	}
}

/* ---- segments below snd_nxt that tcp_segment() hands over ---- */

/*
 * Below snd_nxt, in the hull of gaps the table had no room for: whether
 * its bytes were seen before is not known, so neither a retransmission nor
 * a late original is claimed.
 */
__attribute__((noinline)) void tcp_hull_fill(struct tcp_conn *c, enum sum_dir_id dir,
					     const struct pkt *p, uint32_t seq, uint32_t len,
					     const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];

	tcp_cold(c, h)->fills_undecided++;
	c->tp->seg.kind |= TCP_SEG_UNDECIDED;
	if (sink && sink->frame) {
		struct sum_event e;
		event_init(&e, SUM_EV_FILL_UNDECIDED, c, dir, p);
		e.bytes = len;
		e.rel_seq = seq - h->base;
		sum_emit(sink, &e);
	}
}

/*
 * Bytes seen before, from a segment (clock clk) that was sent before the
 * retransmission which filled their gap: it is that retransmission's
 * original, overtaken by it -- late, not lost upstream, and no
 * retransmission itself. Returns true when so (the segment is then
 * accounted as out of order).
 */
__attribute__((noinline)) bool tcp_late_after_retrans(struct tcp_conn *c, enum sum_dir_id dir,
						      const struct pkt *p, uint32_t seq,
						      uint32_t end, const struct tcp_clock *clk,
						      const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];
	struct tcp_cold *hc = h->cold; /* it has some */

	for (unsigned k = hc->rtx_len; k-- > 0;) {
		struct tcp_rtx *x = &hc->rtx[(hc->rtx_head + k) % hc->cap_rtx];
		uint8_t by = SUM_BY_SECOND_COPY;
		if (!x->filled_gap || seq_ge(seq, x->end) || seq_le(end, x->start))
			continue;
		if (clock_order(clk, &x->clk, ipid_trusted(h), &by) >= 0)
			return false;
		x->filled_gap = false;
		tcp_cold(c, h)->lost_upstream--;
		tcp_cold(c, h)->lost_upstream_by[x->by < SUM_BY_COUNT ? x->by : SUM_BY_TIMING]--;
		struct tcp_late l = {
		    .ts = p->ts_ns,
		    .gap_ts = x->gap_ts,
		    .frame = p->frame,
		    .gap_frame = x->gap_frame,
		    .data_no = TCP_COUNT(h, data_packets),
		    .input = p->input,
		    .len = c->tp->seg.len,
		    .extent = (uint32_t)(TCP_COUNT(h, data_packets) - 1 - x->gap_data_pkts),
		    .rel_seq = seq - h->base,
		    .queue = c->tp->seg.queue,
		    .by = by,
		};
		note_late(c, dir, &l, TCP_SEG_OOO, sink);
		return true;
	}
	return false;
}

/*
 * [seq, seq + span) of the segment p (end: its end, len: its payload) filled
 * hole, bytes never captured before: decide whether it is the late
 * original (the reorder detector reports it), a retransmission of an
 * original lost upstream of the capture point, or neither yet.
 */
__attribute__((noinline)) void tcp_fill_gap(struct tcp_conn *c, enum sum_dir_id dir,
					    const struct tcp_params *prm, const struct pkt *p,
					    const struct tcp_clock *clk,
					    const struct tcp_hole *hole, uint32_t seq, uint32_t end,
					    uint32_t span, uint32_t len, uint32_t why,
					    const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];
	uint8_t by = SUM_BY_TIMING;
	/* A bare FIN is no data segment: its overtakers are all the data
	 * segments since the gap, numbers up to the next one. */
	struct tcp_late l = {
	    .ts = p->ts_ns,
	    .gap_ts = hole->open_ts,
	    .frame = p->frame,
	    .gap_frame = hole->open_frame,
	    .data_no = TCP_COUNT(h, data_packets) + (len ? 0 : 1),
	    .input = p->input,
	    .len = len,
	    .extent = (uint32_t)(TCP_COUNT(h, data_packets) - (len ? 1 : 0) - hole->open_data_pkts),
	    .rel_seq = seq - h->base,
	    .queue = c->tp->seg.queue,
	};

	c->tp->seg.kind |= TCP_SEG_FILLED_GAP;
	switch (decide_fill(c, dir, prm, clk, hole, p->ts_ns, &by)) {
	case TCP_FILL_LATE:
		l.by = by;
		note_late(c, dir, &l, TCP_SEG_OOO, sink);
		break;
	case TCP_FILL_RETRANS:
		/* The original never passed the capture point: lost upstream of
		 * it (or dropped by the capture, which ACKs of the gap would
		 * have shown instead). */
		tcp_note_retrans(c, dir, p, seq, end, len, why,
				 &(struct tcp_gapfill){.by = by, .clk = clk, .hole = hole}, sink);
		tcp_cold(c, h)->lost_upstream++;
		tcp_cold(c, h)->lost_upstream_by[by < SUM_BY_COUNT ? by : SUM_BY_TIMING]++;
		break;
	case TCP_FILL_UNDECIDED:
		c->tp->seg.kind |= TCP_SEG_UNDECIDED;
		pending_add(c, dir, seq, seq + span, &l, clk, why, sink);
		break;
	}
}
