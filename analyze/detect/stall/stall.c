/* stall.c - detector: delayed-ACK, cork and zero-window stalls inside transfers; finding gaps. */
#include "analyze/detect/stall/stall.h"

#include "analyze/detect/stall/stall_int.h"
#include "common/clock.h"

/*
 * Rules (DESIGN.md "Stalls", tcpsift-analyze(1) FINDINGS). A gap is a period with no
 * packet of the connection longer than the path explains: --stall-min (a
 * floor that separates stalls from jitter) plus, when the packet ending it
 * comes from the other side than the last one (it may answer it), the
 * loop from the capture point to that side and back (--stall-rtt-factor
 * times it). A multiple of the minimum RTT was the wrong gate: at 100 ms
 * Linux's first timers (a loss probe after ~2 SRTT, the RTO) fire before 4
 * RTT, and Nagle x delayed ACK costs 20 + 40 ms on a 20 ms path, under 4 x
 * 20; and which loop a gap spans depends on the vantage point (a
 * receiver-side capture sees the path between R's ACK and S's answer, a
 * sender-side one between S's data and R's ACK). It is decided when the packet that ends it
 * arrives; what was true at its start is the per-direction snapshot taken before that packet
 * (struct stall_dir_state). A silence is application think time unless the
 * evidence says TCP held data. For a data direction (sender S, receiver R):
 *
 *   the capture missed packets in it (the packet ending it opens a gap in
 *        S's sequence, or R ACKs bytes never captured): the capture, not
 *        TCP, may have been silent -> no stall, counted as a capture gap;
 *   R's window < 1 segment at the start      -> zero_window, open until R's
 *        window update (Linux probes with 0-byte segments at snd_una - 1 on
 *        the RTO backoff; those and R's zero-window answers do not end it);
 *   S retransmits                            -> rto after an RTO-length
 *        silence, tlp for a tail-loss probe (RFC 8985: the highest segment,
 *        no loss signal), loss_recovery when R's dup ACKs / SACKs asked;
 *   S's last new segment had no PSH, nothing was in flight (all ACKed),
 *        and S sends the rest of the write   -> sender_idle: S held data it
 *        had (TCP_CORK, MSG_MORE, splice without the last-page push: the
 *        2009/2013 MSG_SENDPAGE_NOTLAST threads); not when that pause is
 *        S's pace (full segments on both sides, or the write's short end
 *        after a pause like S's last one between full segments): pacing,
 *        think time;
 *   a pure ACK from R advances snd_una with data in flight and S sends new
 *        data right after it (within the threshold): S waited for that ACK.
 *        In flight filled R's window (usable window < 1 segment) -> rwnd_limited:
 *        a slow reader (Linux withholds the ACK while the window cannot open,
 *        __tcp_ack_snd_check()), where TCP_NODELAY would not help; else
 *        -> delayed_ack: R held the ACK (RFC 1122 4.2.3.2: at most 500 ms;
 *        Linux 40 ms TCP_DELACK_MIN to 200 ms TCP_DELACK_MAX), and when S's
 *        next segment is below the MSS, Nagle (RFC 896) held it. An ACK held
 *        longer than 500 ms is no delayed ACK -> unknown; so is one held
 *        under 30 ms (TCP_DELACK_MIN less a jiffy) for S's only segment in
 *        flight when S then sends full segments: no timer was that quick,
 *        and Nagle held nothing (R's host answered late). If S sends nothing
 *        after the ACK, nobody waited for it: no stall.
 *   all S sent was pushed and ACKed (a turn boundary, or a pause in a
 *        one-way transfer) and S resumes: think time, whatever its length,
 *        unless the pause matches a kernel timer -- the ~200 ms cork /
 *        probe / RTO-minimum timer within a few ms (or the connection's own
 *        RTO estimate when larger), counted from S's last transmission or
 *        from the ACK that emptied its flight: then sender_idle, timer-like, kept apart
 *        from the stalls proven above: an application sleeping 200 ms looks
 *        the same on the wire. Timers repeat, people do not: a pause of
 *        >= ~200 ms within 2 % of one of the last STALL_TIMER_RING such
 *        lengths is flagged recurring.
 *   S sent with data in flight and the last segment pushed, without an ACK
 *        in between: the application wrote again later, think time.
 */

/*
 * How long an answer from side's host takes at this capture point: the
 * loop to it and back (tcp_loop_rtt()), else the whole path's RTT, else 0
 * (nothing known: the floor alone).
 */
int64_t stall_answer_time(const struct tcp_conn *c, enum sum_dir_id side)
{
	int64_t v = tcp_loop_rtt(c, side);

	if (v < 0)
		v = tcp_path_rtt(c);
	return v > 0 ? v : 0;
}

/* The gap threshold for a silence from a packet of last's sender to one of
 * dir's (see the rules above). */
int64_t stall_threshold(const struct tcp_conn *c, const struct det_params *prm,
			enum sum_dir_id last, enum sum_dir_id dir)
{
	int64_t thr = prm->stall_min_ns;

	if (dir != last)
		thr = clock_sat_add(
		    thr, clock_sat_mul(stall_answer_time(c, dir), prm->stall_rtt_factor));
	return thr;
}

/* Segment size of dir's data (tcp_send_mss()); 1 when nothing is known
 * (then only a zero window counts as closed). */
static uint32_t stall_mss(const struct tcp_conn *c, enum sum_dir_id dir)
{
	return tcp_send_mss(c, dir, 1);
}

static void stall_track_flight(const struct tcp_conn *c, struct stall_dir_state *d,
			       enum sum_dir_id dir)
{
	d->in_flight = tcp_in_flight(c, dir);
	d->rel_una = tcp_rel_seq(c, dir, c->half[dir].snd_una);
}

static void stall_track_rwnd(const struct tcp_conn *c, struct stall_dir_state *d,
			     enum sum_dir_id dir)
{
	bool known;

	d->rwnd = tcp_peer_window(c, dir, &known);
	/* Without both SYNs the scale is unknown and a raw window says
	 * nothing about bytes, except that 0 is closed at any scale. */
	d->rwnd_known = known && (c->info.wscale_known || d->rwnd == 0);
}

static void stall_snapshot(struct tcp_conn *c)
{
	struct stall_hot *st = &c->dhot.stall;
	const struct tcp_seg *seg = &c->tp->seg;
	bool data = (seg->kind & TCP_SEG_DATA) && !(seg->kind & TCP_SEG_KEEPALIVE);

	st->d[seg->dir].last_tx_ts = seg->ts;
	if (data || (seg->kind & TCP_SEG_FIN)) {
		struct stall_dir_state *s = &st->d[seg->dir];
		if (seg->kind & TCP_SEG_NEW_DATA) {
			/* A FIN ends S's writes as a push does. */
			s->last_push = (seg->kind & (TCP_SEG_PUSH | TCP_SEG_FIN)) != 0;
			s->has_data = s->has_data || data;
			if (data)
				s->last_len = seg->len;
		}
		if (data) {
			/* Does S's next IP ID follow at +1? (A super-frame took
			 * one per segment it carries.) */
			s->ipid_single = seg->len <= s->mss;
			s->last_data_ts = seg->ts;
			s->r_answered = false;
			st->d[!seg->dir].r_answered = true;
		}
	}
	/*
	 * S's segment size only changes with what tcp.c learns from a SYN
	 * (MSS, timestamps) and with S's largest payload, which only a segment
	 * longer than the size can raise above it (stall_mss()): refreshed
	 * then only. (In flight, snd_una and R's window are taken by
	 * stall_before(), for the packets that may end a gap.)
	 */
	enum sum_dir_id pd = seg->dir, od = (enum sum_dir_id) !pd;
	if (!st->have_last || (seg->kind & TCP_SEG_SYN)) {
		st->d[pd].mss = stall_mss(c, pd);
		st->d[od].mss = stall_mss(c, od);
	} else if (seg->len > st->d[pd].mss) {
		st->d[pd].mss = stall_mss(c, pd);
	}
}

/*
 * The packet at ts may end a gap (the threshold is never below
 * --stall-min): keep what the connection looked like at the gap's start,
 * as the previous packet left it, for stall_gap(). Taken here, before
 * tcp.c changes it, rather than after every packet: most packets end no
 * gap, and only stall_gap() reads these fields.
 */
void stall_before(struct tcp_conn *c, int64_t ts, const struct det_env *env)
{
	struct stall_hot *st = &c->dhot.stall;

	/* c->info.last_ts is st->last_ts (the latest packet time, the same
	 * rule, since the first packet) on a cache line the TCP engine reads
	 * first anyway: most packets stop here without waiting for ours. */
	if (ts - c->info.last_ts <= env->prm->stall_min_ns || !st->have_last)
		return;
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		stall_track_flight(c, &st->d[k], (enum sum_dir_id)k);
		stall_track_rwnd(c, &st->d[k], (enum sum_dir_id)k);
		/* The IP ID of each side's last packet, before tcp.c takes
		 * this one's: stall_upstream_loss() compares. */
		st->d[k].last_ipid = c->half[k].last_ipid;
	}
}

void stall_segment(struct tcp_conn *c, const struct det_env *env)
{
	struct stall_hot *st = &c->dhot.stall;
	const struct tcp_seg *seg = &c->tp->seg;
	bool gap = false;

	/* The threshold is never below --stall-min: most packets follow the
	 * last one sooner than that and need no RTT lookup. */
	if (st->have_last && seg->ts - st->last_ts > env->prm->stall_min_ns)
		gap = seg->ts - st->last_ts >
		      stall_threshold(c, env->prm, (enum sum_dir_id)st->last_dir, seg->dir);
	if (st->probe_open) {
		/* A loss probe is one segment: S's new data again, with
		 * nothing from R between, was its application's write. */
		bool burst = !gap && seg->dir == c->det.stall->rare->probe.dir &&
			     (seg->kind & TCP_SEG_NEW_DATA) && (seg->kind & TCP_SEG_DATA) &&
			     !(seg->kind & TCP_SEG_KEEPALIVE);
		stall_probe_resolve(c, env, burst);
	}
	if (st->zw_wait_open)
		stall_zw_wait_resolve(c, env);
	if (st->dack_open) {
		if (gap)
			st->dack_open = false; /* a new gap: nobody waited for that ACK */
		else
			stall_dack_resolve(c, env);
	}
	if (gap)
		stall_gap(c, env);

	/* R's window update ends an open zero-window stall. */
	enum sum_dir_id sd = (enum sum_dir_id) !seg->dir;
	struct stall_dir_state *d = &st->d[sd];
	if (d->zw_open && !(seg->kind & (TCP_SEG_SYN | TCP_SEG_RST)) &&
	    seg->window >= stall_mss(c, sd))
		stall_zw_close(c, env, sd, seg->ts, seg->frame, false);

	stall_snapshot(c);
	/* Capture timestamps can go backwards: a gap is measured from the
	 * latest packet seen. */
	if (!st->have_last || seg->ts >= st->last_ts) {
		st->last_ts = seg->ts;
		st->last_frame = seg->frame;
		st->last_input = seg->input;
		st->last_dir = (uint8_t)seg->dir;
		st->have_last = true;
	}
}

static void stall_finish(struct tcp_conn *c, const struct det_env *env, struct sum_det *out)
{
	struct stall_hot *st = &c->dhot.stall;

	/* A pending delayed ACK that S did not follow with data: no stall. */
	st->dack_open = false;
	st->zw_wait_open = false; /* S sent nothing after the window opened */
	/* A probe-like end of a gap was the connection's last packet. */
	if (st->probe_open)
		stall_probe_resolve(c, env, false);
	for (int k = 0; k < SUM_DIR_COUNT; k++)
		if (st->d[k].zw_open)
			stall_zw_close(c, env, (enum sum_dir_id)k, st->last_ts, st->last_frame,
				       true);
	if (c->det.stall)
		out->stall = c->det.stall->sum;
}

static void stall_release(struct tcp_conn *c, const struct det_env *env)
{
	struct stall_state *st = c->det.stall;

	if (st && st->rare) {
		pool_put(env->pools->stall_rare[0], st->rare);
		st->rare = NULL;
	}
}

struct stall_rare *stall_rare_get(struct tcp_conn *c, const struct det_env *env)
{
	struct stall_state *cold = DET_COLD_GET(c, env, stall);

	if (cold && !cold->rare)
		cold->rare = pool_get(env->pools->stall_rare[0]);
	return cold ? cold->rare : NULL;
}

const struct det_ops stall_ops = {
    .name = "stall",
    .finish = stall_finish,
    .release = stall_release,
};
