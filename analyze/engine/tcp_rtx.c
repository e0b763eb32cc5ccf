/* tcp_rtx.c - TCP engine: retransmissions, why they were sent, and their per-frame verdicts. */
#include <stdlib.h>

#include "analyze/engine/tcp_int.h"

/*
 * A retransmission's kind (RTO, TLP, fast) is judged when it arrives, on
 * what R had said so far; whether it was spurious may change later (a
 * D-SACK), so its per-frame verdict waits in the half's ring until
 * rtx_settle() has passed, then tcp_settle() or tcp_finish() pops it.
 */

static enum sum_retrans_kind retrans_kind(uint32_t kind)
{
	if (kind & TCP_SEG_RTO)
		return SUM_RTX_RTO;
	if (kind & TCP_SEG_TLP)
		return SUM_RTX_TLP;
	if (kind & TCP_SEG_FAST)
		return SUM_RTX_FAST;
	return SUM_RTX_OTHER;
}

static void rtx_emit(const struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_rtx *x,
		     const struct sum_sink *sink)
{
	struct sum_event e;

	if (!sink || !sink->frame)
		return;
	frame_init(&e, SUM_EV_RETRANS, c, dir, x->ts, x->frame, x->input);
	e.bytes = x->len;
	e.rel_seq = x->rel_seq;
	e.u.frame.kind = x->kind;
	e.u.frame.spurious = x->spurious;
	e.u.frame.dsack = x->dsack;
	e.u.frame.filled_gap = x->filled_gap;
	sum_emit(sink, &e);
}

/* The oldest remembered retransmission of dir: its verdict is final. */
void tcp_rtx_pop(struct tcp_conn *c, enum sum_dir_id dir, const struct sum_sink *sink)
{
	struct tcp_cold *hc = c->half[dir].cold; /* it has some */

	rtx_emit(c, dir, &hc->rtx[hc->rtx_head], sink);
	hc->rtx_head = (uint8_t)((hc->rtx_head + 1) % hc->cap_rtx);
	hc->rtx_len--;
}

static void rtx_push(struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_rtx *x,
		     const struct sum_sink *sink)
{
	struct tcp_cold *hc = c->half[dir].cold;

	if (!hc) {
		rtx_emit(c, dir, x, sink); /* no memory to wait for a D-SACK */
		return;
	}
	if (hc->rtx_len == hc->cap_rtx && hc->cap_rtx < TCP_RTX_RING) {
		/* Grow the ring (the next size class), its oldest first again. */
		unsigned want = hc->cap_rtx ? 2u * hc->cap_rtx : TCP_RING_MIN;
		struct tcp_rtx *n = pool_get_raw(c->tp->rtx[tcp_cls(want)]);
		if (n) {
			for (unsigned k = 0; k < hc->rtx_len; k++)
				n[k] = hc->rtx[(hc->rtx_head + k) % hc->cap_rtx];
			tcp_table_put(c->tp->rtx, (void **)&hc->rtx, &hc->cap_rtx);
			hc->rtx = n;
			hc->cap_rtx = (uint8_t)want;
			hc->rtx_head = 0;
		} else {
			hc->grow_failed++;
		}
	}
	if (!hc->cap_rtx) {
		rtx_emit(c, dir, x, sink); /* no memory to wait for a D-SACK */
		return;
	}
	if (hc->rtx_len == hc->cap_rtx)
		tcp_rtx_pop(c, dir, sink);
	hc->rtx[(hc->rtx_head + hc->rtx_len) % hc->cap_rtx] = *x;
	hc->rtx_len++;
	settle_at(&c->half[dir], clock_sat_add(x->due, 1));
}

/*
 * R's D-SACK block [left, right) about dir's data: the bytes arrived twice,
 * so the latest retransmission that carried them was not needed (RFC 3708
 * sec. 3) -- if it carried only those: the block names the bytes R had
 * (RFC 2883 sec. 4), and a retransmission that also carried bytes R never
 * had was needed for them (Linux's RTO recovery collapses segments into
 * one retransmission). Counted once per retransmission.
 */
__attribute__((noinline)) void tcp_rtx_dsack(struct tcp_conn *c, enum sum_dir_id dir, uint32_t left,
					     uint32_t right)
{
	struct tcp_half *h = &c->half[dir];
	struct tcp_cold *hc = h->cold; /* it has some */

	for (unsigned k = hc->rtx_len; k-- > 0;) {
		struct tcp_rtx *x = &hc->rtx[(hc->rtx_head + k) % hc->cap_rtx];
		if (seq_ge(x->start, right) || seq_le(x->end, left))
			continue;
		x->dsack = true;
		if (!x->spurious && seq_le(left, x->start) && seq_ge(right, x->end)) {
			x->spurious = x->dsack = true;
			tcp_cold(c, h)->spurious_retrans++;
			tcp_cold(c, h)->spurious_dsack++;
		}
		return;
	}
}

/*
 * How long a retransmission's verdict waits for R's D-SACK. R sends it as
 * soon as the duplicate arrives (RFC 2883 sec. 4), so it passes here about
 * a path RTT after the retransmission did -- unless R withholds ACKs while
 * its window cannot open (a slow reader: until the application reads or a
 * window probe comes, hundreds of ms). A second covers that; the ring's
 * size bounds what waits.
 */
static int64_t rtx_settle(const struct tcp_conn *c)
{
	int64_t rtt = tcp_path_rtt(c), wait = 1000000000;

	return rtt > 0 && clock_sat_mul(rtt, 4) > wait ? clock_sat_mul(rtt, 4) : wait;
}

/* Was any of [seq, end) retransmitted recently (the ring)? */
static bool rtx_seen(const struct tcp_cold *hc, uint32_t seq, uint32_t end)
{
	if (!hc)
		return false;
	for (unsigned k = 0; k < hc->rtx_len; k++) {
		const struct tcp_rtx *x = &hc->rtx[(hc->rtx_head + k) % hc->cap_rtx];
		if (seq_lt(x->start, end) && seq_gt(x->end, seq))
			return true;
	}
	return false;
}

/*
 * Why dir's sender re-sent [seq, end) after gap ns of silence, as kind bits
 * (TCP_SEG_RTO, TCP_SEG_TLP, TCP_SEG_FAST; none: other), judged on what R
 * had said so far.
 */
uint32_t tcp_retrans_why(const struct tcp_conn *c, enum sum_dir_id dir,
			 const struct tcp_params *prm, uint32_t seq, uint32_t end, int64_t gap,
			 bool unseen)
{
	const struct tcp_half *h = &c->half[dir], *r = &c->half[!dir];
	uint8_t recov = h->cold ? h->cold->recov_kind : TCP_RECOV_NONE;
	int64_t rto = h->srtt_ns ? clock_sat_add(h->srtt_ns, clock_sat_mul(h->rttvar_ns, 4)) : 0;

	if (rto < prm->rto_min_ns)
		rto = prm->rto_min_ns;
	/*
	 * RFC 8985 sec. 7: with nothing from R asking, the probe timeout (2
	 * SRTT, Linux + 2 jiffies, or + TCP_RTO_MIN with one segment out,
	 * capped at the RTO: tcp_schedule_loss_probe()) re-sends the highest
	 * segment, once; a later re-send of the same bytes is the RTO. Our
	 * SRTT is the capture point's, so only SRTT + 2 ms is required. When
	 * S sent packets this capture point never saw (unseen: its IP ID
	 * skipped), the highest segment seen was not S's highest: an RTO
	 * re-sending the head of its queue, not a probe.
	 */
	if (!unseen && !r->dupack_run && !r->sacking && !recov && end == h->snd_nxt &&
	    gap >= clock_sat_add(h->srtt_ns, TCP_TLP_MIN_NS) && !rtx_seen(h->cold, seq, end))
		return TCP_SEG_TLP;
	if (gap >= rto)
		return TCP_SEG_RTO;
	/* Inside a recovery episode every retransmission is of its kind:
	 * after an RTO Linux re-sends the rest of the flight as ACKs return
	 * (the Loss state, counted with the timeout), in SACK recovery what
	 * RACK or the scoreboard marks lost (the Recovery state), until the
	 * cumulative ACK passes the recovery point (tcp_try_undo_recovery(),
	 * high_seq), whatever R's latest ACK said. */
	if (recov && seq_lt(seq, h->cold->recov_high))
		return recov == TCP_RECOV_RTO ? TCP_SEG_RTO : TCP_SEG_FAST;
	if (r->dupack_run >= 3 || r->sacking)
		return TCP_SEG_FAST;
	return 0;
}

bool tcp_ipid_skipped(const struct tcp_conn *c, const struct tcp_half *h,
		      const struct dec_packet *d)
{
	int skip;

	if (d->src.family != 4 || !h->have_ipid ||
	    !tcp_ipid_counter(c, (enum sum_dir_id)(h - c->half)))
		return false;
	skip = (int)(uint16_t)(d->ip_id - h->last_ipid);
	return skip >= 2 && skip <= TCP_IPID_SKIP_MAX;
}

/* Account a retransmission of [seq, end) (len payload bytes) sent for the
 * reason why (tcp_retrans_why()); p is the frame that carried it; fill: the gap
 * it filled, if it filled one. */
__attribute__((noinline)) void tcp_note_retrans(struct tcp_conn *c, enum sum_dir_id dir,
						const struct pkt *p, uint32_t seq, uint32_t end,
						uint32_t len, uint32_t why,
						const struct tcp_gapfill *fill,
						const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];
	const struct tcp_half *r = &c->half[!dir];
	struct tcp_rtx x = {
	    .start = seq,
	    .end = end,
	    .ts = p->ts_ns,
	    .due = clock_sat_add(c->tp->seg.ts, rtx_settle(c)),
	    .frame = p->frame,
	    .input = p->input,
	    .len = len,
	    .rel_seq = seq - h->base,
	    .filled_gap = fill != NULL,
	};

	if (fill) {
		x.by = fill->by;
		if (fill->clk)
			x.clk = *fill->clk;
		if (fill->hole) {
			x.gap_ts = fill->hole->open_ts;
			x.gap_frame = fill->hole->open_frame;
			x.gap_data_pkts = fill->hole->open_data_pkts;
		}
	}
	tcp_cold(c, h)->retrans++;
	tcp_cold(c, h)->retrans_bytes += len;
	c->tp->seg.kind |= TCP_SEG_RETRANS | why;
	if (r->have_last_ack && h->have_una && seq_le(end, h->snd_una)) {
		tcp_cold(c, h)->spurious_retrans++;
		c->tp->seg.kind |= TCP_SEG_SPURIOUS;
		x.spurious = true;
	}
	if (why & TCP_SEG_RTO)
		tcp_cold(c, h)->rto_retrans++;
	else if (why & TCP_SEG_TLP)
		tcp_cold(c, h)->tlp_retrans++;
	else if (why & TCP_SEG_FAST)
		tcp_cold(c, h)->fast_retrans++;
	x.kind = (uint8_t)retrans_kind(why);
	/* A recovery episode starts (or an RTO takes over a fast one): up to
	 * what S had sent (Linux's high_seq). */
	struct tcp_cold *hc = tcp_cold_state(h, c->tp);
	if (hc && ((x.kind == SUM_RTX_RTO && hc->recov_kind != TCP_RECOV_RTO) ||
		   (x.kind == SUM_RTX_FAST && hc->recov_kind == TCP_RECOV_NONE))) {
		hc->recov_kind = x.kind == SUM_RTX_RTO ? TCP_RECOV_RTO : TCP_RECOV_FAST;
		hc->recov_high = h->snd_nxt;
	}
	sent_mark_retrans(h, seq);
	rtx_push(c, dir, &x, sink);
}
