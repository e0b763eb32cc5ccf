/* stall_classify.c - stall detector: what a gap was, its evidence and advice, the summary. */
#include <string.h>

#include "analyze/detect/stall/stall_int.h"
#include "common/clock.h"

/* The rules are in stall.c (and DESIGN.md "Stalls"). */

enum {
	STALL_TIMER_LO_NS = 196000000,	/* the ~200 ms timer, one jiffy early ... */
	STALL_TIMER_HI_NS = 216000000,	/* ... to 4 jiffies late at HZ=250 (TCP_CORK: 204-209 ms) */
	STALL_JIFFY_NS = 4000000,	/* HZ=250: timers fire on 4 ms ticks */
	STALL_TIMER_LATE_NS = 12000000, /* a timer fires up to 3 jiffies late */
	STALL_IPID_SKIP_MAX = 64,	/* IDs further apart: not the same burst */
	STALL_ANSWER_SLACK_NS = 1000000, /* an answer a loop away, less this at most */
	STALL_CORK_THINK_NS = 50000000,	 /* think time before a corked write, at most */
};

/* RFC 1122 4.2.3.2: an ACK is delayed by less than 0.5 s. */
#define STALL_DELACK_MAX_NS (500ll * 1000000ll)
/* The shortest delayed-ACK timer: Linux's TCP_DELACK_MIN / TCP_ATO_MIN
 * (HZ/25, 40 ms), armed at jiffies + ato, so up to a jiffy early in wall
 * time (10 ms at HZ=100); BSD, macOS and Windows wait longer. */
#define STALL_DELACK_MIN_NS (30ll * 1000000ll)

/* A silence that was the application's (or S's own rate): think time. */
static void stall_add_think(struct stall_state *cold, int64_t ns)
{
	cold->sum.think_time++;
	cold->sum.think_time_ns = clock_sat_add(cold->sum.think_time_ns, ns);
}

static const int64_t stall_hist_edges_ms[STALL_HIST_BUCKETS] = STALL_HIST_EDGES_MS;

/* ---- a stall found: the summary and the event ---- */

static unsigned stall_bucket(int64_t ns)
{
	unsigned k = 0;

	while (k + 1 < STALL_HIST_BUCKETS && ns >= stall_hist_edges_ms[k + 1] * 1000000)
		k++;
	return k;
}

static void stall_emit(struct tcp_conn *c, const struct det_env *env, const struct stall_found *f)
{
	struct stall_state *cold = DET_COLD_GET(c, env, stall);
	struct stall_summary lost = {0}, *s = cold ? &cold->sum : &lost; /* no memory: uncounted */
	struct sum_event e;

	det_event_init(&e, SUM_EV_STALL, c, f->dir, f->start, f->frame_before, f->input);
	e.duration_ns = f->duration;
	e.frame_last = f->frame_after;
	e.bytes = f->in_flight;
	e.rel_seq = f->rel_una;
	e.u.stall.cls = (uint8_t)f->cls;
	e.u.stall.reason = f->reason;
	e.u.stall.evidence = f->evidence;
	e.u.stall.advice = f->advice;
	e.u.stall.in_flight = f->in_flight;
	e.u.stall.rwnd = f->rwnd;
	e.u.stall.ack_delay_ns = f->cls == STALL_DELAYED_ACK ? f->ack_delay : -1;
	e.u.stall.timer_like = f->timer_like;
	if (f->recurring)
		e.u.stall.recurring = true; /* (already remembered) */
	else if ((f->cls == STALL_SENDER_IDLE || f->cls == STALL_UNKNOWN) &&
		 f->duration >= STALL_TIMER_MIN_NS)
		e.u.stall.recurring = cold && stall_recurs(cold, f->duration);

	s->hist[stall_bucket(f->duration)]++;
	s->recurring += e.u.stall.recurring;
	if (f->timer_like) {
		/* Ambiguous: apart from the stalls the evidence proves. */
		s->timer_like++;
		s->timer_like_ns = clock_sat_add(s->timer_like_ns, f->duration);
		det_emit(env, &e);
		return;
	}
	s->count++;
	s->time_ns = clock_sat_add(s->time_ns, f->duration);
	s->by_class[f->cls]++;
	if (f->duration > s->max_ns)
		s->max_ns = f->duration;
	if (f->cls == STALL_DELAYED_ACK && f->ack_delay >= 0) {
		if (!s->ack_delay_n || f->ack_delay < s->ack_delay_min_ns)
			s->ack_delay_min_ns = f->ack_delay;
		if (!s->ack_delay_n || f->ack_delay > s->ack_delay_max_ns)
			s->ack_delay_max_ns = f->ack_delay;
		s->ack_delay_sum_ns = clock_sat_add(s->ack_delay_sum_ns, f->ack_delay);
		s->ack_delay_n++;
	}
	det_emit(env, &e);
}

/* A stall starting at the last packet before the gap and ending at seg. */
static void stall_found_init(struct stall_found *f, const struct stall_hot *st,
			     const struct tcp_seg *seg, enum sum_dir_id dir, enum stall_class cls,
			     const char *reason, const char *evidence, const char *advice)
{
	const struct stall_dir_state *d = &st->d[dir];

	memset(f, 0, sizeof(*f));
	f->dir = dir;
	f->cls = cls;
	f->reason = reason;
	f->evidence = evidence;
	f->advice = advice;
	f->start = st->last_ts;
	f->duration = seg->ts - st->last_ts;
	f->frame_before = st->last_frame;
	f->frame_after = seg->frame;
	f->input = st->last_input;
	f->in_flight = d->in_flight;
	f->rel_una = d->rel_una;
	f->rwnd = d->rwnd;
	f->ack_delay = -1;
}

/* ---- what a gap was ---- */

static bool stall_window_closed(const struct stall_dir_state *d)
{
	return d->rwnd_known && d->rwnd < d->mss;
}

/*
 * R limited S at the gap's start: in flight reached R's window, less than
 * one segment of it left (S could not send). A window that had only shrunk
 * (unread data in R's buffer) while the flight stayed below it limited
 * nothing yet: 12 000 bytes in flight under a 32 896-byte window wait for
 * the congestion window or the path, not for R.
 */
static bool stall_receiver_limited(const struct stall_dir_state *d)
{
	if (!d->rwnd_known || d->in_flight == 0)
		return false;
	return (uint64_t)d->in_flight + d->mss > d->rwnd;
}

/*
 * S's retransmission timeout as Linux computes it: SRTT + max(4 RTTVAR,
 * TCP_RTO_MIN) (tcp_set_rto(): rttvar is never below tcp_rto_min, 200 ms),
 * with S's SRTT the whole path's when this capture point sees less of it
 * (a receiver-side capture measures microseconds of the loop to R). It is
 * also the probe timer that releases corked data (tcp_check_probe_timer(),
 * tcp_probe0_base(): max(RTO, TCP_RTO_MIN)): 224 ms on a 20 ms path.
 */
static int64_t stall_rto(const struct tcp_conn *c, enum sum_dir_id dir)
{
	const struct tcp_half *h = &c->half[dir];
	int64_t srtt = h->srtt_ns, path = tcp_path_rtt(c), var = clock_sat_mul(h->rttvar_ns, 4);

	if (path > srtt)
		srtt = path;
	return clock_sat_add(srtt,
			     var > STALL_TIMER_LO_NS + 4000000 ? var : STALL_TIMER_LO_NS + 4000000);
}

/*
 * How late a timer of this length fires at most: Linux's timer wheel
 * rounds a timeout up to its level's granularity (kernel/time/timer.c:
 * 1 jiffy below 63 jiffies, 8 above, 64 from 512 on; 4, 32 and 256 ms at
 * HZ=250), and the softirq may run a jiffy or two later still.
 */
static int64_t stall_timer_late(int64_t timeout)
{
	if (timeout < 63 * STALL_JIFFY_NS)
		return STALL_TIMER_LATE_NS;
	if (timeout < 511 * STALL_JIFFY_NS)
		return 8 * STALL_JIFFY_NS + STALL_TIMER_LATE_NS;
	return 64 * STALL_JIFFY_NS + STALL_TIMER_LATE_NS;
}

/*
 * Does a silence of S of this length match a kernel timer: the ~200 ms one
 * (TCP_CORK's ceiling, the probe timer, TCP_RTO_MIN) or the connection's
 * own RTO (stall_rto()), from one jiffy early to stall_timer_late() late?
 */
static bool stall_timer_like(const struct tcp_conn *c, enum sum_dir_id dir, int64_t pause)
{
	int64_t rto = stall_rto(c, dir);

	if (pause >= STALL_TIMER_LO_NS && pause <= STALL_TIMER_HI_NS)
		return true;
	return pause >= rto - STALL_JIFFY_NS && pause <= clock_sat_add(rto, stall_timer_late(rto));
}

/* A retransmission ended the gap: which kind of wait it was. */
static void stall_retrans(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir)
{
	const struct tcp_seg *seg = &c->tp->seg;
	struct stall_found f;

	if (seg->kind & TCP_SEG_RTO)
		stall_found_init(&f, &c->dhot.stall, seg, dir, STALL_RTO, stall_r_rto, stall_e_rto,
				 stall_a_loss);
	else if ((seg->kind & TCP_SEG_TLP) && stall_receiver_limited(&c->dhot.stall.d[dir]))
		stall_found_init(&f, &c->dhot.stall, seg, dir, STALL_RWND_LIMITED,
				 stall_r_rwnd_probe, stall_e_rwnd_probe, stall_a_rwnd);
	else if (seg->kind & TCP_SEG_TLP)
		stall_found_init(&f, &c->dhot.stall, seg, dir, STALL_TLP, stall_r_tlp, stall_e_tlp,
				 stall_a_tlp);
	else
		stall_found_init(&f, &c->dhot.stall, seg, dir, STALL_LOSS_RECOVERY,
				 stall_r_recovery, stall_e_recovery, stall_a_loss);
	stall_emit(c, env, &f);
}

/* S sent new data after a gap with two or more full segments in flight
 * and nothing from R: its probe timer, not its application, ended it --
 * unless more new data follows at once (stall_probe_resolve()). */
static void stall_probe_new(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir)
{
	struct stall_rare *rare = stall_rare_get(c, env);
	const struct tcp_seg *seg = &c->tp->seg;
	struct stall_found f;

	if (stall_receiver_limited(&c->dhot.stall.d[dir]))
		stall_found_init(&f, &c->dhot.stall, seg, dir, STALL_RWND_LIMITED,
				 stall_r_rwnd_probe, stall_e_rwnd_probe, stall_a_rwnd);
	else
		stall_found_init(&f, &c->dhot.stall, seg, dir, STALL_TLP, stall_r_tlp_new,
				 stall_e_tlp_new, stall_a_tlp);
	if (!rare) {
		stall_emit(c, env, &f); /* nowhere to wait: as before the burst rule */
		return;
	}
	rare->probe = f;
	c->dhot.stall.probe_open = true;
}

/* The packet after a probe-like gap end: S's new data again (a burst, its
 * application's write) makes the gap think time, anything else the probe. */
__attribute__((noinline)) void stall_probe_resolve(struct tcp_conn *c, const struct det_env *env,
						   bool burst)
{
	struct stall_state *cold = c->det.stall; /* allocated with probe_open */

	c->dhot.stall.probe_open = false;
	if (burst) {
		stall_add_think(cold, cold->rare->probe.duration);
		return;
	}
	stall_emit(c, env, &cold->rare->probe);
}

/*
 * New data from S ended the gap, but S's IP ID skipped: S sent packets
 * this capture point never saw (Linux numbers a connection's packets with
 * one counter, inet_id, data and ACKs alike). Its data continued where the
 * capture had it, so what went missing were its last segments, lost before
 * this point, and its timer re-sent them: a loss probe after ~2 RTT, or
 * the RTO. Only decided when S's previous packet was a single segment (a
 * super-frame takes one ID per segment it carries).
 */
static bool stall_upstream_loss(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir)
{
	const struct stall_hot *st = &c->dhot.stall;
	const struct stall_dir_state *d = &st->d[dir];
	const struct tcp_seg *seg = &c->tp->seg;
	struct stall_found f;
	int skip;

	if (!d->has_data || !d->ipid_single || seg->d->src.family != 4 || !tcp_ipid_counter(c, dir))
		return false;
	skip = (int)(uint16_t)(seg->d->ip_id - d->last_ipid);
	if (skip < 2 || skip > STALL_IPID_SKIP_MAX)
		return false;
	/* The timer ran at S from R's last packet's arrival there: a loop to
	 * S after it passed here (a receiver-side capture sees the path). */
	if (clock_sat_add(seg->ts - st->last_ts, -stall_answer_time(c, dir)) >=
	    stall_rto(c, dir) - STALL_JIFFY_NS)
		stall_found_init(&f, st, seg, dir, STALL_RTO, stall_r_rto_upstream,
				 stall_e_upstream, stall_a_upstream);
	else
		stall_found_init(&f, st, seg, dir, STALL_TLP, stall_r_tlp_upstream,
				 stall_e_upstream, stall_a_upstream);
	stall_emit(c, env, &f);
	return true;
}

/*
 * Everything pushed and ACKed, and S resumes a little after its RTO,
 * repeating a recent pause within 2 %: corked data (MSG_MORE, TCP_CORK)
 * waits for the probe timer from the moment it was written, so an
 * application that thinks before each corked write leaves think + RTO of
 * silence, the same each time. One such pause cannot be told from an
 * application sleeping that long; the repeat can (timers repeat, people
 * do not). Timer-like, kept apart from the proven stalls as every
 * timer-like pause is. Only a short think (STALL_CORK_THINK_NS): the parts
 * of one message are written close together.
 */
static bool stall_held_after_think(struct tcp_conn *c, const struct det_env *env,
				   enum sum_dir_id dir, int64_t since_ack)
{
	int64_t rto = stall_rto(c, dir);
	int64_t last =
	    clock_sat_add(clock_sat_add(rto, stall_timer_late(rto)), STALL_CORK_THINK_NS);
	struct stall_state *cold;
	struct stall_found f;

	/* Only a sub-segment remainder waits (full ones leave at once). */
	if (since_ack < rto - STALL_JIFFY_NS || since_ack > last ||
	    c->tp->seg.len >= c->dhot.stall.d[dir].mss || !(cold = DET_COLD_GET(c, env, stall)) ||
	    !stall_recurs(cold, since_ack))
		return false;
	stall_found_init(&f, &c->dhot.stall, &c->tp->seg, dir, STALL_SENDER_IDLE,
			 stall_r_timer_think, stall_e_timer_think, stall_a_timer);
	f.timer_like = true;
	f.recurring = true;
	stall_emit(c, env, &f);
	return true;
}

/* Full segments, all ACKed, then after the gap less than one more, R
 * silent: a remainder TCP_CORK / MSG_MORE held (full segments leave at
 * once, tcp_nagle_check(); Nagle sends it with the emptying ACK), released
 * by the uncork before the probe timer (a long path). Linux 6.x may set PSH
 * on the part sent. Only with the handshake's MSS and an open window. */
static bool stall_held_remainder(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir)
{
	const struct stall_dir_state *d = &c->dhot.stall.d[dir];
	const struct tcp_seg *seg = &c->tp->seg;
	struct stall_found f;

	if (d->in_flight || d->r_answered || !d->has_data || !tcp_peer_mss(c, dir) ||
	    d->mss > tcp_peer_mss(c, dir) || d->last_len != d->mss || seg->len >= d->mss ||
	    d->rwnd < d->mss || stall_repeats_pace(c->det.stall, dir, seg->ts - d->last_tx_ts))
		return false;
	stall_found_init(&f, &c->dhot.stall, seg, dir, STALL_SENDER_IDLE, stall_r_remainder,
			 stall_e_remainder, stall_a_held);
	stall_emit(c, env, &f);
	return true;
}

/*
 * R's window update ends a gap in which its window was closed to dir's
 * sender, who held nothing visible (all it sent pushed and ACKed, or
 * nothing sent yet: a window closed from the handshake on). A zero-window
 * stall if S's new data follows at once (stall_zw_wait_resolve()).
 */
static void stall_zw_update(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir)
{
	struct stall_rare *rare = stall_rare_get(c, env);

	if (!rare)
		return;
	stall_found_init(&rare->zw_wait, &c->dhot.stall, &c->tp->seg, dir, STALL_ZERO_WINDOW,
			 stall_r_zw, stall_e_zw_wait, stall_a_zw);
	rare->zw_wait_ts = c->tp->seg.ts;
	c->dhot.stall.zw_wait_open = true;
}

/* The gap began with R's window closed to a sender that held something:
 * a zero-window stall opens (or the gap is inside one, or R's update ends a
 * wait). true: the gap is dealt with. */
static bool stall_gap_zero_window(struct tcp_conn *c, const struct det_env *env, bool data)
{
	struct stall_hot *st = &c->dhot.stall;
	const struct tcp_seg *seg = &c->tp->seg;
	enum sum_dir_id pd = seg->dir;

	/* Zero window: R's window closed at the start, for a sender that
	 * still had something to send (unpushed or unacknowledged data), or
	 * that is probing now. The window update closes it (stall_segment). */
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		struct stall_dir_state *d = &st->d[k];
		bool mine = pd == (enum sum_dir_id)k;
		bool probing = (seg->kind & TCP_SEG_KEEPALIVE) && mine;
		/* Everything pushed and ACKed, yet S resumes with exactly the
		 * sub-segment window: Linux's persist timer sending what fits
		 * (tcp_write_wakeup()); an application writing afresh would
		 * have been sent at once, whatever its size. */
		bool probe_data = mine && data && (seg->kind & TCP_SEG_NEW_DATA) &&
				  (uint64_t)d->in_flight + seg->len == d->rwnd;
		if (d->zw_open)
			return true; /* a gap inside an open zero-window stall */
		/* S held something: unacknowledged or unpushed data, or it
		 * probes now. Else it may have had nothing to send (or sent
		 * nothing yet: a window closed from the handshake on): then
		 * only S's data right after R's window update says it waited. */
		bool held =
		    d->in_flight > 0 || (d->has_data && !d->last_push) || probing || probe_data;
		if (!stall_window_closed(d))
			continue;
		if (!held || !d->has_data) {
			if (!mine && seg->window >= d->mss)
				stall_zw_update(c, env, (enum sum_dir_id)k);
			continue;
		}
		struct stall_rare *rare = stall_rare_get(c, env);
		if (!rare)
			return true;
		struct stall_zw *zw = &rare->zw[k];
		d->zw_open = true;
		zw->start = st->last_ts;
		zw->frame = st->last_frame;
		zw->input = st->last_input;
		zw->in_flight = d->in_flight;
		zw->rel_una = d->rel_una;
		zw->rwnd = d->rwnd;
		zw->probe_data = probe_data && d->in_flight == 0 && d->last_push;
		return true;
	}
	return false;
}

/* Full segments on both sides of a silence shorter than any of S's timers,
 * inside one write: Linux held whole segments, which neither Nagle nor a
 * cork does (tcp_nagle_check() holds only a partial skb), so S's own rate
 * did: pacing (SO_MAX_PACING_RATE, fq, BBR), its qdisc or its host. Counted
 * with think time (the sender's own rate limit), not a held write. */
static bool stall_paced(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id pd)
{
	const struct stall_hot *st = &c->dhot.stall;
	const struct stall_dir_state *d = &st->d[pd];
	const struct tcp_seg *seg = &c->tp->seg;
	struct stall_state *cold;
	int64_t gap = seg->ts - st->last_ts, pause = seg->ts - d->last_tx_ts;

	if (!d->mss || d->last_len < d->mss || stall_timer_like(c, pd, pause) ||
	    stall_timer_like(c, pd, gap))
		return false;
	/* A shorter segment after it: the write's end, at S's pace or held. */
	if (seg->len < d->mss && !stall_repeats_pace(c->det.stall, pd, pause))
		return false;
	if ((cold = DET_COLD_GET(c, env, stall))) {
		stall_add_think(cold, gap);
		stall_note_pace(cold, d, seg, pd);
	}
	return true;
}

/* S's data ended the gap: a held write, a retransmission, a probe, a
 * timer-like pause, or think time. */
static void stall_gap_data(struct tcp_conn *c, const struct det_env *env)
{
	struct stall_hot *st = &c->dhot.stall;
	struct stall_state *cold;
	const struct tcp_seg *seg = &c->tp->seg;
	enum sum_dir_id pd = seg->dir;
	const struct stall_dir_state *d = &st->d[pd];
	struct stall_found f;

	/* S's first data: a turn boundary only if R asked for it, or
	 * held by a timer (a corked first write). */
	if (!d->has_data && !d->r_answered && !stall_timer_like(c, pd, seg->ts - st->last_ts)) {
		/* (remembered: corked writes after a think repeat) */
		stall_held_after_think(c, env, pd, seg->ts - st->last_ts);
		return;
	}
	if (seg->kind & TCP_SEG_RETRANS) {
		if (d->has_data)
			stall_retrans(c, env, pd);
		return;
	}
	if (!(seg->kind & TCP_SEG_NEW_DATA))
		return;
	if (stall_upstream_loss(c, env, pd))
		return;
	/* A probe first: its timer fires whether or not the last
	 * segment carried PSH. */
	if (seg->kind & TCP_SEG_TLP) {
		stall_probe_new(c, env, pd);
		return;
	}
	/* Held part of a write: S had sent all it had so far and it was
	 * ACKed (nothing in flight), its last segment without PSH,
	 * yet the rest waited. With data in flight the wait is S's
	 * pacing or congestion window (BBR spaces the segments of one
	 * write tens of ms apart on a long path): no stall. */
	if (d->has_data && !d->last_push) {
		if (d->in_flight || stall_paced(c, env, pd))
			return;
		stall_found_init(&f, st, seg, pd, STALL_SENDER_IDLE, stall_r_held, stall_e_held,
				 stall_a_held);
		stall_emit(c, env, &f);
		return;
	}
	/* Pushed with data in flight and no ACK since: the application
	 * wrote again later. All pushed and ACKed: a turn boundary (R
	 * answered since) or a pause in a one-way transfer; think time
	 * unless the pause has a kernel timer's length, counted from
	 * where Linux arms one: S's last transmission (TCP_CORK, the RTO)
	 * or the ACK that emptied the flight (the probe timer, armed by
	 * tcp_ack() -> tcp_push_pending_frames() -> tcp_check_probe_timer()
	 * when the queued data stays corked: the 2013 seed's pauses). */
	int64_t pause = seg->ts - d->last_tx_ts, since_ack = seg->ts - st->last_ts;
	/* The ACK that emptied the flight reached S, and armed its
	 * timer, one loop to S after it passed here (a receiver-side
	 * capture sees the path on both sides of the timer). */
	int64_t at_s = clock_sat_add(since_ack, -stall_answer_time(c, pd));
	if (d->in_flight ||
	    !(stall_timer_like(c, pd, pause) || stall_timer_like(c, pd, since_ack) ||
	      (st->last_dir != pd && stall_timer_like(c, pd, at_s)))) {
		if (!d->in_flight && (stall_held_after_think(c, env, pd, since_ack) ||
				      stall_held_remainder(c, env, pd)))
			return;
		if ((cold = DET_COLD_GET(c, env, stall))) {
			stall_add_think(cold, seg->ts - st->last_ts);
			stall_note_pace(cold, d, seg, pd);
		}
		return;
	}
	stall_found_init(&f, st, seg, pd, STALL_SENDER_IDLE,
			 d->r_answered ? stall_r_timer_turn : stall_r_timer_oneway, stall_e_timer,
			 stall_a_timer);
	f.timer_like = true;
	stall_emit(c, env, &f);
}

/* A pure ACK from R ended the gap: maybe a delayed ACK S waited for. */
static void stall_gap_ack(struct tcp_conn *c, const struct det_env *env)
{
	struct stall_hot *st = &c->dhot.stall;
	struct stall_state *cold;
	const struct tcp_seg *seg = &c->tp->seg;
	enum sum_dir_id pd = seg->dir, od = (enum sum_dir_id) !pd;

	/* A pure ACK from R covering new data of a sender with data in flight:
	 * a stall if S then sends new data at once (stall_dack_resolve()). */
	const struct stall_dir_state *d = &st->d[od];
	if ((seg->kind & TCP_SEG_PURE_ACK) && (seg->kind & TCP_SEG_ACK_ADVANCED) &&
	    d->in_flight > 0 && d->has_data) {
		/* An ACK no later than the path explains after S's last data
		 * (R's own packet began the silence, e.g. a window update
		 * just before): R held nothing. */
		if (d->last_data_ts &&
		    seg->ts - d->last_data_ts <= stall_threshold(c, env->prm, od, pd))
			return;
		if (!(cold = DET_COLD_GET(c, env, stall)))
			return;
		st->dack_open = true;
		cold->dack_dir = (uint8_t)od;
		cold->dack_in_flight = d->in_flight;
		cold->dack_rel_una = d->rel_una;
		cold->dack_last_len = d->last_len;
		cold->dack_acked = seg->acked;
		cold->dack_rwnd = stall_receiver_limited(d) ? d->rwnd : UINT64_MAX;
		/* d->rwnd is R's window before this ACK (stall_before()). */
		bool known;
		uint64_t win = tcp_peer_window(c, od, &known);
		cold->dack_win_drop =
		    known && c->info.wscale_known && d->rwnd_known && win < d->rwnd ? d->rwnd - win
										    : 0;
		cold->dack_start = st->last_ts;
		cold->dack_ack_ts = seg->ts;
		/* How long R held it: since S's last data passed here, less
		 * the loop from here to R and back (the path, not R). */
		cold->dack_delay = -1;
		if (d->last_data_ts) {
			int64_t held =
			    clock_sat_add(seg->ts - d->last_data_ts, -stall_answer_time(c, pd));
			cold->dack_delay = held > 0 ? held : 0;
		}
		cold->dack_frame_before = st->last_frame;
		cold->dack_frame_ack = seg->frame;
		cold->dack_input = st->last_input;
	}
}

/* The packet seg ended a gap of the connection: classify it. Out of line
 * (as the other rare paths of stall_segment()): inlined, their register
 * saves would cost every segment. */
__attribute__((noinline)) void stall_gap(struct tcp_conn *c, const struct det_env *env)
{
	struct stall_state *cold; /* (stall.def) allocated at the first gap counted */
	const struct tcp_seg *seg = &c->tp->seg;
	bool data = (seg->kind & TCP_SEG_DATA) && !(seg->kind & TCP_SEG_KEEPALIVE);

	/* The packet shows the capture missed some of the connection: the
	 * silence may be the capture's, not TCP's. */
	if (seg->kind & (TCP_SEG_OPENED_GAP | TCP_SEG_ACKED_UNSEEN)) {
		if ((cold = DET_COLD_GET(c, env, stall)))
			cold->sum.capture_gaps++;
		return;
	}

	if (stall_gap_zero_window(c, env, data))
		return;
	if (data)
		stall_gap_data(c, env);
	else
		stall_gap_ack(c, env);
}

/* What held the ACK that ended a gap, S having answered it with seg: the
 * class, its words and advice into f (stall_dack_resolve()). */
static void stall_dack_class(const struct tcp_conn *c, const struct stall_state *st,
			     const struct tcp_seg *seg, bool full, struct stall_found *f)
{
	const struct stall_hot *hot = &c->dhot.stall;
	uint32_t mss = hot->d[st->dack_dir].mss;
	bool late = mss && (st->dack_acked >= 2 * mss || st->dack_in_flight >= 2 * (uint64_t)mss);

	if (full) {
		f->cls = STALL_RWND_LIMITED;
		f->reason = stall_r_rwnd;
		f->evidence = stall_e_rwnd;
		f->advice = stall_a_rwnd;
	} else if (late && st->dack_win_drop && st->dack_delay <= STALL_DELACK_MAX_NS) {
		/* Linux ACKs a second full segment at once only if the window
		 * it would offer is no smaller than the one it offered
		 * (tcp_input.c __tcp_ack_snd_check(): __tcp_select_window() >=
		 * rcv_wnd); an application that does not read shrinks it, and
		 * the delayed-ACK timer sends the ACK. This ACK's smaller
		 * window is that evidence (nstat: TcpExtDelayedACKs at R). */
		f->cls = STALL_DELAYED_ACK;
		f->reason = stall_r_dack_noread;
		f->evidence = stall_e_dack_noread;
		f->advice = stall_a_dack_noread;
	} else if (late) {
		/* RFC 1122 4.2.3.2: an ACK at least every second full segment;
		 * Linux ACKs at once when more than one full segment is
		 * unacknowledged (__tcp_ack_snd_check()), holding it only while
		 * its window cannot advance -- and a flight below the window
		 * (the case above) says it could: the data or its ACK was held
		 * on the path (a bottleneck's queue) or in R's host. */
		f->cls = STALL_UNKNOWN;
		f->reason = stall_r_late_ack;
		f->evidence = stall_e_late_ack;
		f->advice = stall_a_late_ack;
	} else if (st->dack_delay > STALL_DELACK_MAX_NS) {
		/* (dack_delay: the hold after the path's loop to R.) */
		f->cls = STALL_UNKNOWN;
		f->reason = stall_r_slow_ack;
		f->evidence = stall_e_slow_ack;
	} else if (st->dack_delay >= 0 && st->dack_delay < STALL_DELACK_MIN_NS && seg->len >= mss &&
		   st->dack_in_flight <= st->dack_last_len) {
		/* R had ACKed all but S's last segment, and an ACK cancels
		 * R's delayed-ACK timer (tcp_event_ack_sent()): a timer for
		 * that segment alone fires no sooner than TCP_DELACK_MIN.
		 * An ACK held less than that was sent by R's host (its reader
		 * draining a pushed segment, tcp_cleanup_rbuf(), or its
		 * softirq running late), and S's full segments after it were
		 * not held for it (Nagle holds only a partial one). */
		f->cls = STALL_UNKNOWN;
		f->reason = stall_r_early_ack;
		f->evidence = stall_e_early_ack;
		/* Beside R (the report's vantage_side), the data is seen to
		 * arrive and the ACK to leave: the hold is R's host's. */
		f->advice =
		    tcp_vantage_side(c, (enum sum_dir_id)st->dack_dir) == SUM_VANTAGE_RECEIVER
			? stall_a_early_ack_here
			: stall_a_late_ack;
	} else if (seg->len < mss) {
		/* Nagle (RFC 896) holds a segment below the MSS while data is
		 * unacknowledged: the segment S sends after the ACK says so. */
		f->cls = STALL_DELAYED_ACK;
		f->reason = stall_r_nagle;
		f->evidence = stall_e_nagle;
		f->advice = stall_a_nagle;
	} else {
		f->cls = STALL_DELAYED_ACK;
		f->reason = stall_r_dack;
		f->evidence = stall_e_dack;
		f->advice = stall_a_dack;
	}
}

/*
 * A packet after the ACK that ended a gap: did S wait for that ACK? S's
 * answer passes here one loop to S after the ACK did (from a receiver-side
 * capture, a whole path RTT): new data from S in that window, with nothing
 * but R's ACKs between, answered it. Sooner, S sent it before the ACK
 * reached it; later, or after R's own data (a new request, which S's data
 * then answers: the ACK of a pushed, complete reply held nothing), nobody
 * waited for the ACK.
 */
__attribute__((noinline)) void stall_dack_resolve(struct tcp_conn *c, const struct det_env *env)
{
	struct stall_hot *hot = &c->dhot.stall;
	const struct stall_state *st = c->det.stall; /* allocated with dack_open */
	const struct tcp_seg *seg = &c->tp->seg;
	enum sum_dir_id sd = (enum sum_dir_id)st->dack_dir;
	int64_t since = seg->ts - st->dack_ack_ts;

	if (since > stall_threshold(c, env->prm, (enum sum_dir_id) !sd, sd)) {
		hot->dack_open = false; /* nothing came soon: nobody waited */
		return;
	}
	if (seg->dir != sd) {
		/* R again: more ACKs keep the wait; its data ends it. */
		if ((seg->kind & TCP_SEG_DATA) && !(seg->kind & TCP_SEG_KEEPALIVE))
			hot->dack_open = false;
		return;
	}
	hot->dack_open = false;
	/* An eighth and a millisecond of slack (the loop is a minimum over
	 * samples with the hosts' processing); a quarter took Linux's TSO
	 * deferral (half an RTT) for an answer at 200 ms. */
	int64_t loop = stall_answer_time(c, sd);
	if (since < loop - loop / 8 - STALL_ANSWER_SLACK_NS)
		return; /* sent before the ACK could have reached S */
	if (!(seg->kind & TCP_SEG_NEW_DATA) || !(seg->kind & TCP_SEG_DATA) ||
	    (seg->kind & TCP_SEG_KEEPALIVE))
		return;

	/* dack_rwnd is UINT64_MAX unless R limited S (stall_gap()). */
	bool full = st->dack_rwnd != UINT64_MAX;
	struct stall_found f = {
	    .dir = (enum sum_dir_id)st->dack_dir,
	    .start = st->dack_start,
	    .duration = st->dack_ack_ts - st->dack_start,
	    .ack_delay = st->dack_delay,
	    .frame_before = st->dack_frame_before,
	    .frame_after = st->dack_frame_ack,
	    .input = st->dack_input,
	    .in_flight = st->dack_in_flight,
	    .rel_una = st->dack_rel_una,
	    .rwnd = full ? st->dack_rwnd : hot->d[st->dack_dir].rwnd,
	};
	stall_dack_class(c, st, seg, full, &f);
	stall_emit(c, env, &f);
}

void stall_zw_close(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir, int64_t end,
		    uint64_t frame, bool conn_end)
{
	const struct stall_zw *zw = &c->det.stall->rare->zw[dir]; /* allocated with zw_open */
	struct stall_found f = {
	    .dir = dir,
	    .cls = STALL_ZERO_WINDOW,
	    .reason = conn_end ? stall_r_zw_end : stall_r_zw,
	    .evidence = zw->probe_data ? stall_e_zw_probe : stall_e_zw,
	    .advice = stall_a_zw,
	    .start = zw->start,
	    .duration = end - zw->start,
	    .ack_delay = -1,
	    .frame_before = zw->frame,
	    .frame_after = frame,
	    .input = zw->input,
	    .in_flight = zw->in_flight,
	    .rel_una = zw->rel_una,
	    .rwnd = zw->rwnd,
	};

	c->dhot.stall.d[dir].zw_open = false;
	stall_emit(c, env, &f);
}

/* A packet after R's window update ended a gap in which R's window was
 * closed and S held nothing visible (stall_zw_update()): S's new data
 * within one loop to S says it was waiting for the window. */
__attribute__((noinline)) void stall_zw_wait_resolve(struct tcp_conn *c, const struct det_env *env)
{
	struct stall_rare *rare = c->det.stall->rare; /* allocated with zw_wait_open */
	const struct tcp_seg *seg = &c->tp->seg;
	enum sum_dir_id sd = (enum sum_dir_id)rare->zw_wait.dir;
	int64_t since = seg->ts - rare->zw_wait_ts;

	if (since > stall_threshold(c, env->prm, (enum sum_dir_id) !sd, sd)) {
		c->dhot.stall.zw_wait_open = false;
		return;
	}
	if (seg->dir != sd)
		return; /* R again */
	c->dhot.stall.zw_wait_open = false;
	if ((seg->kind & TCP_SEG_NEW_DATA) && (seg->kind & TCP_SEG_DATA))
		stall_emit(c, env, &rare->zw_wait);
}
