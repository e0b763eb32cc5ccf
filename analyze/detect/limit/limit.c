/* limit.c - detector: what limited each data direction, time-weighted, per connection and slice. */
#include "analyze/detect/limit/limit_int.h"

#include <string.h>

#include "analyze/engine/seq.h"
#include "common/clock.h"

/*
 * Every interval between two consecutive packets of the connection is
 * charged, for each data direction that has started (sender S, receiver
 * R), to one class, decided from the state the previous packet left
 * (T-RAT's idea, Zhang et al. SIGCOMM 2002, on the engine's per-direction
 * state). In order:
 *
 *   a stall the stall detector proved (delayed ACK + Nagle, cork / missing
 *        push, RTO, tail-loss probe, unknown) ended with this packet or
 *        the one before                                        -> stall
 *   loss recovery: from S's retransmission (or R's third duplicate ACK,
 *        RFC 5681 3.2) until snd_una passes what S had sent then (RFC 6582
 *        "recover")                                            -> congestion
 *   R's window below one segment (a zero window)               -> receiver_app
 *   S's FIN out, the rest of its data in flight below R's window: nothing
 *        more to send (only the FIN in flight: the transfer is over, not
 *        charged)                                              -> sender_app;
 *        and on S's FIN, the time since its last new data charged to
 *        sender_buffer below moves there too: that data was all it had
 *   nothing in flight, window open: S's socket had nothing queued (Linux
 *        sends as soon as the window allows, tcp_write_xmit(); data held
 *        by cork / Nagle is the stall detector's)               -> sender_app;
 *        charged only when S sends again: the idle after its last write
 *        is the end of the transfer, not a part of it
 *   in flight >= R's window - 1 segment: S cannot send a segment
 *        (tcp_snd_wnd_test(), Linux's TCP_CHRONO_RWND_LIMITED) -> receiver_app
 *        when the window has shrunk below half of the largest R advertised
 *        (Linux advertises the free receive space, __tcp_select_window():
 *        unread data fills the buffer, the reader is slow), else
 *        receiver_window (the buffer itself, SO_RCVBUF / tcp_rmem, is the
 *        limit)
 *   a loss since the flight last filled R's window: the congestion window
 *        was cut (RFC 5681 3.1, RFC 9438 4.6) and holds the flight below
 *        R's window                                            -> congestion
 *   no loss yet, the flight still growing since the start (a new maximum
 *        within 4 RTTs or 10 ms each time; once it stopped, later maxima
 *        are jitter): the congestion window is opening and is the limit
 *        (slow start doubles it every RTT, RFC 5681 3.1; congestion
 *        avoidance and CUBIC keep growing it)                   -> slow_start
 *   S's sends are not started by ACKs: a cwnd- or buffer-limited sender
 *        answers an ACK within microseconds at its own capture point
 *        (tcp_ack() -> tcp_data_snd_check(), or the writer woken by
 *        tcp_check_space()), an application writing at its own pace does
 *        not (a moving average over the bursts that follow R's packets)
 *                                                              -> sender_app
 *   smoothed RTT above 3 times the minimum and 20 us above it: a queue builds
 *        at the path's bottleneck with a full flight and no loss -> bottleneck
 *   otherwise the flight plateaus below both windows, with no loss, the
 *        sender never idle and not queueing: it had no more data in its
 *        socket though it kept writing: a full SO_SNDBUF (Linux's
 *        TCP_CHRONO_SNDBUF_LIMITED), or an application writing just as fast
 *        as the ACKs free room: packets cannot tell these two apart
 *        (TCP_INFO's tcpi_sndbuf_limited at S can)             -> sender_buffer
 *
 * One exception to "the state the previous packet left": S's new data
 * that follows R's packet within the reaction time plus an RTT
 * (limit_react_wait()) charges the wait since that packet to the class
 * before it. An ACK that opens the window is answered at once by the
 * kernel, but a busy host may process it milliseconds after the capture
 * saw it; that wait belongs to what held S before it, as Linux's chrono
 * keeps counting until S's next send finds no limit.
 *
 * Memory: a fixed block per connection from a pool on the first data
 * segment, and one per data direction when that direction first sends (a
 * larger one when the capture is away from S: limit_far_loop()), and its
 * timeline's when its transfer first leaves the first slice (limit_add());
 * nothing per packet.
 */

/* A live direction's blocks (limit_types.h): what an idle connection costs. */
_Static_assert(sizeof(struct limit_dir_state) <= 248, "limit_dir_state grew: reorder its fields");
_Static_assert(LIMIT_DIR_BYTES(1) <= 360, "limit_far_part grew: 360 bytes a far direction");
_Static_assert(LIMIT_RWND_MAX <= UINT32_MAX, "limit_count's windows are 32 bits");

/* The reaction time: S answering R's packet (see above). At a capture
 * near S, microseconds; a capture elsewhere adds its loop to S and back. */
#define LIMIT_REACT_NS	  250000ll
#define LIMIT_CLOCKED_ONE 256u /* an EWMA of 0 and this: at most this (16 bits) */
/* Queueing delay that makes a plateau the path's: the smoothed RTT above
 * three times the minimum (two thirds of the flight wait in a queue: it is
 * three times what the path holds, and a larger buffer would only queue
 * more) and this much above it (timestamp granularity and a host's
 * softirq jitter). On a host-local path, microseconds of minimum RTT, the
 * queue is the hosts' backlogs: the transfer is CPU-bound (the lab's bulk
 * runs). */
#define LIMIT_QUEUE_NS 20000ll
/* The flight counts as still growing this long after its last new maximum
 * (or 4 RTTs when longer): at microsecond RTTs a few RTTs are no time. */
#define LIMIT_GROW_NS 10000000ll
/* A capture this close to S (its loop there and back) sees it react. */
#define LIMIT_NEAR_NS 1000000ll
/* A queue on the path seen from away from S (limit_dir_state.echo_loop):
 * two of TCP's 1 ms timestamp ticks above the handshake's loop, so the
 * ticks cannot make one. */
#define LIMIT_QUEUE_FAR_NS 2000000ll
/* A loop to S this long already hides a segment or two of the flight at a
 * sub-ms path's rate (a capture in the middle of a relay chain). */
#define LIMIT_FAR_MIN_NS 20000ll

static uint32_t limit_mss(const struct tcp_conn *c, enum sum_dir_id dir)
{
	return tcp_send_mss(c, dir, 536); /* RFC 9293 3.7.1: the default send MSS */
}

/* The RTT the slow-start and reaction rules scale with: the direction's
 * own minimum, else the handshake's; 1 ms when none is known. */
static int64_t limit_rtt(const struct tcp_conn *c, enum sum_dir_id dir)
{
	int64_t r = tcp_min_rtt(c, dir);

	if (r <= 0)
		r = c->info.handshake_rtt_ns;
	return r > 0 ? r : 1000000;
}

static int64_t limit_react(const struct tcp_conn *c, enum sum_dir_id dir)
{
	int64_t loop = c->hs_loop_ns[dir];

	return LIMIT_REACT_NS + (loop > 0 ? loop : 0);
}

/*
 * How long S may take to answer R's packet and still be answering it: the
 * reaction time plus one smoothed RTT. A sender blocked by a window or
 * cwnd sends from the ACK's own softirq (tcp_data_snd_check()), but on a
 * busy host that softirq, or the backlog of a socket its writer holds, runs
 * milliseconds after the ACK passed the capture point: Linux's chrono keeps
 * counting the old limit until then (tcp_write_xmit() changes it), and so
 * does this. Longer than an RTT is no longer a reaction.
 */
static int64_t limit_react_wait(const struct tcp_conn *c, enum sum_dir_id dir)
{
	int64_t srtt = c->half[dir].srtt_ns;

	return clock_sat_add(limit_react(c, dir), srtt > 0 ? srtt : limit_rtt(c, dir));
}

/* What R's window and S's segment size are after the segment just
 * processed, read once a direction a packet: limit_observe() and
 * limit_classify() both need them, and the engine's state does not change
 * between the two. */
struct limit_view {
	uint64_t rwnd; /* R's window (tcp_peer_window()), if known */
	uint32_t mss;  /* S's segment size (limit_mss()) */
	bool known;
};

static void limit_view_of(const struct tcp_conn *c, enum sum_dir_id k, struct limit_view *v)
{
	v->rwnd = tcp_peer_window(c, k, &v->known);
	v->mss = limit_mss(c, k);
}

/* The pending idle (sender_app with nothing in flight) up to t: S sent
 * again, so it was a pause between writes. */
static void limit_idle_commit(struct limit_dir_state *s, const struct det_env *env, int64_t t)
{
	if (!s->idle_since)
		return;
	limit_add(s, env, LIMIT_SENDER_APP, s->idle_since, t);
	if (t > s->idle_since)
		s->out.idle_ns = clock_sat_add(s->out.idle_ns, t - s->idle_since);
	s->out.idles++;
	s->idle_since = 0;
}

/* Charge the interval [a, b) of one direction to class k. */
static void limit_charge(struct limit_dir_state *s, const struct det_env *env, unsigned k,
			 bool idle, int64_t a, int64_t b)
{
	if (idle) {
		if (!s->idle_since)
			s->idle_since = a;
		return;
	}
	limit_idle_commit(s, env, a);
	limit_add(s, env, k, a, b);
	if (k == LIMIT_SENDER_BUFFER)
		s->tail_ns = clock_sat_add(s->tail_ns, b - a);
	s->prev_iv = s->last_iv;
	s->prev_iv_cls = s->last_iv_cls;
	s->last_iv = b - a;
	s->last_iv_cls = (uint8_t)k;
}

/* ---- the rules ---- */

/* The stall classes that are this detector's stall time: TCP held data.
 * (zero_window and rwnd_limited are the receiver's, loss_recovery the
 * congestion's, by the rules above.) */
static uint32_t limit_stall_count(const struct stall_summary *s)
{
	return s->by_class[STALL_DELAYED_ACK] + s->by_class[STALL_SENDER_IDLE] +
	       s->by_class[STALL_RTO] + s->by_class[STALL_TLP] + s->by_class[STALL_UNKNOWN];
}

/*
 * Did the stall detector (earlier in the table) decide a stall of the
 * stall classes with this packet? Its duration, else 0. It decides a gap
 * at the packet ending it, a delayed ACK at S's packet after that.
 */
static int64_t limit_new_stall(struct tcp_conn *c, struct limit_state *st)
{
	const struct stall_summary *s;
	int64_t dt;
	uint32_t n, total;

	if (!c->det.stall)
		return 0;
	s = &c->det.stall->sum;
	if (s->count == st->stall_total)
		return 0; /* no new stall: its count, time and classes move together */
	n = limit_stall_count(s);
	total = s->count;
	dt = s->time_ns - st->stall_time;
	/* Only when every new stall is of those classes: a zero-window stall
	 * closing at the same packet keeps its time the receiver's. */
	bool ours = n > st->stall_counted && total - st->stall_total == n - st->stall_counted;
	st->stall_time = s->time_ns;
	st->stall_total = total;
	st->stall_counted = n;
	return ours && dt > 0 ? dt : 0;
}

/* The loop from the capture point to S and back when the capture is away
 * from S (struct limit_far_part), else 0: the handshake's leg, decided once
 * when S's transfer starts (limit_start()), not for every packet. */
static int64_t limit_far_loop(const struct tcp_conn *c, enum sum_dir_id k)
{
	int64_t loop = c->hs_loop_ns[k], to_r = c->hs_loop_ns[!k];

	/* Under a millisecond, S's own capture sees its handshake answer
	 * take tens of us on a busy host, a fair part of a short path's
	 * loop: there, away from S takes half the loop to R. */
	if (loop < LIMIT_NEAR_NS && loop <= to_r / 2)
		return 0;
	return loop > LIMIT_FAR_MIN_NS && loop > to_r / 4 ? loop : 0;
}

/* R's ACK and window, a sample every quarter loop (R's packets only). */
static void limit_far_note(struct tcp_conn *c, struct limit_dir_state *s, enum sum_dir_id k,
			   int64_t now, int64_t loop, const struct limit_view *v)
{
	unsigned h = s->far_head;
	struct limit_far *ring = s->far->ring;
	const struct limit_far *last = &ring[h ? h - 1 : LIMIT_FAR_RING - 1];
	bool known = v->known;
	uint64_t win = v->rwnd;

	/* A window that opens from below a segment is kept whatever the
	 * spacing: S answers it at once, and must be judged against it. */
	uint32_t mss = v->mss;
	bool opens = s->far_n && last->win < mss && win >= mss;
	if (!known || !c->half[k].have_una || (s->far_n && now - last->ts < loop / 4 && !opens))
		return;
	ring[h] = (struct limit_far){now, c->half[k].snd_una,
				     win > UINT32_MAX ? UINT32_MAX : (uint32_t)win};
	if (s->far_then == h)
		s->far_then = LIMIT_FAR_NONE; /* overwritten: the oldest */
	s->far_head = (uint8_t)(h + 1 == LIMIT_FAR_RING ? 0 : h + 1);
	if (s->far_n < LIMIT_FAR_RING)
		s->far_n++;
}

/* The newest sample at least a loop old: what S knew when it sent what
 * arrives now. NULL: none yet. Time only moves on, so the answer only
 * moves towards the newest: from the last one found, a step or two. */
static const struct limit_far *limit_far_then(struct limit_dir_state *s, int64_t now, int64_t loop)
{
	unsigned i = s->far_then, head = s->far_head;
	const struct limit_far *ring = s->far->ring;

	if (!s->far_n)
		return NULL;
	if (i == LIMIT_FAR_NONE) {
		i = s->far_n < LIMIT_FAR_RING ? 0 : head; /* the oldest */
		if (now - ring[i].ts < loop)
			return NULL;
	}
	for (;;) {
		unsigned nx = i + 1 == LIMIT_FAR_RING ? 0 : i + 1;
		if (nx == head || now - ring[nx].ts < loop)
			break;
		i = nx;
	}
	s->far_then = (uint8_t)i;
	return &ring[i];
}

/* What the segment just processed says about direction k's limits. */
static void limit_observe(struct tcp_conn *c, struct limit_dir_state *s, enum sum_dir_id k,
			  int64_t now, const struct limit_view *v)
{
	const struct tcp_seg *seg = &c->tp->seg;
	const struct tcp_half *h = &c->half[k];

	if (seg->dir == (enum sum_dir_id)k) {
		/* S's segment. Its FIN: what it sent since its last new data
		 * was all it had, whatever held the flight below the windows
		 * (Linux marks such a flight application-limited: an empty
		 * write queue, tcp_rate_check_app_limited()). */
		if ((seg->kind & TCP_SEG_NEW_DATA) && seg->len) /* (a FIN alone is new too) */
			s->tail_ns = 0;
		if ((seg->kind & TCP_SEG_FIN) && s->tail_ns) {
			limit_move(s, LIMIT_SENDER_BUFFER, LIMIT_SENDER_APP, s->tail_ns);
			s->tail_ns = 0;
		}
		if ((seg->kind & TCP_SEG_NEW_DATA) && s->after_ack && seg->len >= v->mss) {
			/* A burst after R's packet: did that packet start it? Full
			 * segments only: Nagle (RFC 896) releases a write's short
			 * tail on an ACK whoever paces the writes. */
			uint32_t x = now - s->ack_ts <= limit_react(c, k) ? LIMIT_CLOCKED_ONE : 0;
			s->clocked = (uint16_t)(((int64_t)s->clocked * 7 + x) / 8);
		}
		if ((seg->kind & TCP_SEG_RETRANS) && !(seg->kind & TCP_SEG_TLP)) {
			/* A loss (a tail-loss probe is not one yet, RFC 8985 7.3). */
			if (!s->recovering)
				s->out.recoveries++;
			s->recovering = true;
			s->recover = h->snd_nxt;
			s->cut = true;
			s->ss_over = true;
		}
		if (s->far_loop && seg->d->tcp.opt.has_ts) {
			/* The smaller of two in a row: a queue stands, a segment
			 * held alone (reordered) does not make one. */
			int64_t next = tcp_ts_next_sent(&c->half[!k], seg->d->tcp.opt.tsecr);
			int64_t echo = next > 0 && now > next ? now - next : 0;
			s->far->echo_loop = echo < s->far->echo_last ? echo : s->far->echo_last;
			s->far->echo_last = echo;
		}
		s->after_ack = false;
		return;
	}
	/* R's segment: its ACK and window. */
	if (!s->after_ack) {
		s->react_cls = s->cls;
		s->react_t0 = now;
		s->react_ns = 0;
	}
	s->after_ack = true;
	s->ack_ts = now;
	if (s->far_loop)
		limit_far_note(c, s, k, now, s->far_loop, v);
	if (c->half[!k].dupack_run >= 3 && !s->recovering && tcp_in_flight(c, k)) {
		/* RFC 5681 3.2: the third duplicate ACK starts recovery. */
		s->out.recoveries++;
		s->recovering = true;
		s->recover = h->snd_nxt;
		s->cut = true;
	}
	if (s->recovering && h->have_una && seq_ge(h->snd_una, s->recover))
		s->recovering = false;
}

/*
 * S's new data reaching past a closed window of the sample found (sent a
 * loop ago) proves S had a newer one: S never sends past the window it
 * knows (RFC 9293 3.8.6; a zero-window probe is no new data). (Past an
 * open window the samples, a quarter loop apart, are merely coarse.) An
 * update S answers faster than the handshake's loop
 * (its softirq sends at once; the handshake's answer took longer) would
 * otherwise leave S judged against R's zero window. The first newer
 * sample that admits the data, else the newest.
 */
static const struct limit_far *limit_far_admit(struct limit_dir_state *s, uint32_t snd_nxt)
{
	unsigned i = s->far_then;

	for (;;) {
		const struct limit_far *f = &s->far->ring[i];
		int32_t flight = (int32_t)(snd_nxt - f->una);
		unsigned nx = i + 1 == LIMIT_FAR_RING ? 0 : i + 1;
		if (flight <= 0 || (uint32_t)flight <= f->win || nx == s->far_head)
			break;
		i = nx;
	}
	s->far_then = (uint8_t)i;
	return &s->far->ring[i];
}

/*
 * Away from S, behind a bottleneck, S's sends arrive at its pace, not an
 * ACK's, and what S has in flight waits in the queue, unseen here: neither
 * an empty flight nor R's ACKs clocking S can be seen. But a standing
 * queue between S and here (the loop S's TSecr shows, far above the
 * handshake's) is a sender that fills the path, which one held by its
 * application would not (it sends below the path's rate: nothing queues).
 */
static bool limit_far_queued(const struct limit_dir_state *s)
{
	return s->far_loop && s->far->echo_loop > clock_sat_mul(s->far_loop, 3) &&
	       s->far->echo_loop - s->far_loop > LIMIT_QUEUE_FAR_NS;
}

/* The class of the interval that starts now, for direction k; LIMIT_IDLE:
 * sender_app with nothing in flight. */
static unsigned limit_classify(struct tcp_conn *c, struct limit_dir_state *s, enum sum_dir_id k,
			       int64_t now, const struct limit_view *v)
{
	uint32_t flight = tcp_in_flight(c, k), mss = v->mss;
	bool known = v->known;
	uint64_t rwnd = v->rwnd;
	const struct limit_far *then = s->far_loop ? limit_far_then(s, now, s->far_loop) : NULL;
	bool queued = limit_far_queued(s);

	s->far_idle_at = 0;
	/* R's window closed: from R's closing ACK to its update, as R sent
	 * them (away from S, S lives the same span a loop later; judging it
	 * against the window a handshake loop old would stretch it to R's
	 * next packet when S answers the update sooner). */
	uint64_t zwin = rwnd;
	if (then && c->half[k].have_nxt) {
		/* Away from S: its flight and R's window as S knew them. An
		 * ACK that emptied the flight here reaches S and shows in what
		 * arrives a loop later: from then on S had nothing in flight -
		 * unless S's flight waits in a queue between it and here, or
		 * that ACK closed R's window (S is blocked, not idle). */
		const struct tcp_seg *seg = &c->tp->seg;
		if (seg->dir == (enum sum_dir_id)k && (seg->kind & TCP_SEG_NEW_DATA) &&
		    then->win < mss)
			then = limit_far_admit(s, c->half[k].snd_nxt);
		int32_t f = (int32_t)(c->half[k].snd_nxt - then->una);
		bool open = !known || rwnd >= mss;
		if (!flight && f > 0 && seg->dir != (enum sum_dir_id)k && !queued && open)
			s->far_idle_at = clock_sat_add(now, s->far_loop);
		flight = f > 0 ? (uint32_t)f : 0;
		rwnd = then->win;
	}

	s->zero_window = false;
	/* Without both SYNs the scale is unknown: only 0 is sure (stall.c). */
	bool zknown = known && (c->info.wscale_known || zwin == 0);
	known = known && (c->info.wscale_known || rwnd == 0);
	/* A window is LIMIT_RWND_MAX at most: 32 bits hold it. */
	if (known && (uint32_t)rwnd > s->out.rwnd_max)
		s->out.rwnd_max = (uint32_t)rwnd;
	/* S is done: nothing but its FIN (a sequence number) in flight. */
	if (c->half[k].fin_seen && flight <= 1)
		return LIMIT_NONE;
	if (s->recovering)
		return LIMIT_CONGESTION;
	if (zknown && zwin < mss) {
		s->zero_window = true;
		return LIMIT_RECEIVER_APP;
	}
	if (!flight && !queued)
		return LIMIT_IDLE;
	/* A new largest flight by a segment or more (less is the jitter of
	 * ACKs arriving in bunches). */
	if (flight >= s->ss_max + mss) {
		s->ss_max = flight;
		s->ss_max_ts = now;
	}
	if (known && (uint64_t)flight + mss > rwnd) {
		s->cut = false;
		if (!s->out.rwnd_min_full || rwnd < s->out.rwnd_min_full)
			s->out.rwnd_min_full = (uint32_t)rwnd;
		return rwnd * 2 < s->out.rwnd_max ? LIMIT_RECEIVER_APP : LIMIT_RECEIVER_WINDOW;
	}
	if (s->cut)
		return LIMIT_CONGESTION;
	/* S's FIN is out: the rest of its data is in flight and nothing
	 * follows it, below R's window: nothing more to send. */
	if (c->half[k].fin_seen)
		return LIMIT_SENDER_APP;
	/* Still growing: a new largest flight lately. Without loss the
	 * congestion window opens every RTT (slow start doubles it, RFC 5681
	 * 3.1; congestion avoidance and CUBIC keep growing it, RFC 9438) while
	 * it is the limit; a flight held by anything else stays flat. */
	int64_t grow = clock_sat_mul(limit_rtt(c, k), 4);
	if (grow < LIMIT_GROW_NS)
		grow = LIMIT_GROW_NS;
	if (now - s->ss_max_ts > grow)
		s->ss_over = true; /* stopped growing once: later maxima are jitter */
	if (!s->ss_over)
		return LIMIT_SLOW_START;
	if (queued) {
		if (flight > s->out.plateau)
			s->out.plateau = flight;
		return LIMIT_BOTTLENECK;
	}
	if (s->clocked < LIMIT_CLOCKED_ONE / 2)
		return LIMIT_SENDER_APP;
	if (flight > s->out.plateau)
		s->out.plateau = flight;
	/* At R (away from S, within a millisecond's loop of R and four
	 * times nearer it than S) the RTT is R's own turnaround, microseconds
	 * of host jitter: no queue lies between here and R. One before here
	 * shows in S's echoes (limit_far_queued()). */
	int64_t to_r = c->hs_loop_ns[!k];
	if (s->far_loop && to_r <= LIMIT_NEAR_NS && clock_sat_mul(to_r, 4) < s->far_loop)
		return LIMIT_SENDER_BUFFER;
	int64_t srtt = c->half[k].srtt_ns, min = tcp_min_rtt(c, k);
	if (min > 0 && srtt > clock_sat_mul(min, 3) && srtt - min > LIMIT_QUEUE_NS)
		return LIMIT_BOTTLENECK;
	return LIMIT_SENDER_BUFFER;
}

/* The evidence of the queue rule: S's smallest RTT and largest smoothed
 * one so far. They move only with a sample of S's data, which only R's
 * segments give (TCP_SEG_RTT, TCP_SEG_TS_RTT): looked at then, and when
 * the direction starts. */
static void limit_note_rtt(const struct tcp_conn *c, struct limit_dir_state *s, enum sum_dir_id k)
{
	int64_t rtt = c->half[k].srtt_ns, min = tcp_min_rtt(c, k);

	if (min > 0 && (!s->out.rtt_min_ns || min < s->out.rtt_min_ns))
		s->out.rtt_min_ns = min;
	if (rtt > s->out.srtt_max_ns)
		s->out.srtt_max_ns = rtt;
}

/* S's first data at ts: its block, of the class its capture point needs
 * (NULL: no memory). */
static struct limit_dir_state *limit_start(struct tcp_conn *c, const struct det_env *env,
					   enum sum_dir_id dir, int64_t ts)
{
	int64_t far_loop = limit_far_loop(c, dir);
	struct limit_dir_state *s = pool_get(env->pools->limit_dir[far_loop != 0]);

	if (!s)
		return NULL;
	s->far_loop = far_loop;
	s->far_then = LIMIT_FAR_NONE;
	s->out.t0 = ts;
	s->out.width = LIMIT_SLICE_MIN_NS;
	s->clocked = LIMIT_CLOCKED_ONE;
	s->ss_max_ts = ts;
	s->cls = LIMIT_NONE;
	limit_note_rtt(c, s, dir);
	return s;
}

/* What this packet says about direction k, and its class until the next. */
static void limit_after(struct tcp_conn *c, struct limit_dir_state *s, enum sum_dir_id k,
			int64_t now)
{
	struct limit_view v;

	limit_view_of(c, k, &v);
	limit_observe(c, s, k, now, &v);
	s->cls = (uint8_t)limit_classify(c, s, k, now, &v);
	const struct tcp_seg *seg = &c->tp->seg;
	if (seg->dir != k && (seg->kind & (TCP_SEG_RTT | TCP_SEG_TS_RTT)))
		limit_note_rtt(c, s, k);
}

void limit_segment(struct tcp_conn *c, const struct det_env *env)
{
	const struct tcp_seg *seg = &c->tp->seg;
	struct limit_state *st = c->det.limit;
	bool data = (seg->kind & TCP_SEG_DATA) && !(seg->kind & TCP_SEG_KEEPALIVE);

	if (!st) {
		/* Nothing to account before the first data segment. */
		if (!data || !(st = DET_COLD_GET(c, env, limit)))
			return;
		st->last_ts = seg->ts;
		st->last_data_dir = (uint8_t)seg->dir;
	}
	/* Capture time can go backwards: intervals end at the latest time. */
	int64_t now = seg->ts > st->last_ts ? seg->ts : st->last_ts;
	int64_t stall = limit_new_stall(c, st);

	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		struct limit_dir_state *s = st->d[k];
		int64_t iv = now - st->last_ts;
		if (!s)
			continue;
		if (s->cls == LIMIT_NONE) {
			if (seg->dir == (enum sum_dir_id)k && data)
				limit_idle_commit(s, env, st->last_ts);
			continue;
		}
		unsigned cls = s->cls; /* idle: charged to no class, or replaced below */
		bool idle = cls == LIMIT_IDLE;
		/* An ACK that left nothing in flight (LIMIT_IDLE) leaves S nothing
		 * it was blocked on: only an immediate send is its answer. */
		bool reacting =
		    s->after_ack && seg->dir == (enum sum_dir_id)k && data &&
		    (seg->kind & TCP_SEG_NEW_DATA) && s->react_cls < LIMIT_NONE &&
		    s->react_cls != LIMIT_SENDER_APP &&
		    now - s->react_t0 <= (idle ? limit_react(c, (enum sum_dir_id)k)
					       : limit_react_wait(c, (enum sum_dir_id)k));
		if (reacting) {
			/* S answering R's packet: see above; the wait since that
			 * packet is the old limit's. */
			cls = s->react_cls;
			idle = false;
			if (s->react_ns > 0 && s->react_ns_cls != LIMIT_NONE &&
			    s->react_ns_cls != cls)
				limit_move(s, s->react_ns_cls, cls, s->react_ns);
			s->react_ns = 0;
		}
		if (stall && (unsigned)k == st->last_data_dir && clock_sat_mul(iv, 2) >= stall) {
			cls = LIMIT_STALL;
			idle = false;
			s->out.stalls++;
			stall = 0;
		}
		if (s->far_idle_at && !idle && cls != LIMIT_STALL && now > s->far_idle_at &&
		    s->far_idle_at > st->last_ts) {
			/* S learnt of the ACK that emptied its flight (above) */
			limit_charge(s, env, cls, false, st->last_ts, s->far_idle_at);
			limit_charge(s, env, LIMIT_SENDER_APP, true, s->far_idle_at, now);
		} else {
			limit_charge(s, env, cls, idle, st->last_ts, now);
		}
		if (s->after_ack && !reacting && !idle && iv > 0) {
			/* S still waits: the time it may yet turn out to owe
			 * the limit before R's packet (one class only). */
			if (!s->react_ns)
				s->react_ns_cls = (uint8_t)cls;
			else if (s->react_ns_cls != cls)
				s->react_ns_cls = LIMIT_NONE;
			if (cls == LIMIT_STALL)
				s->react_ns_cls = LIMIT_NONE;
			s->react_ns = clock_sat_add(s->react_ns, iv);
		}
		if (s->zero_window) /* the evidence: how long R's window was closed */
			s->out.zero_window_ns = clock_sat_add(s->out.zero_window_ns, iv);
		if (stall && (unsigned)k == st->last_data_dir && s->prev_iv_cls != LIMIT_NONE) {
			/* A delayed ACK is decided at S's packet after it. */
			int64_t moved = stall < s->prev_iv ? stall : s->prev_iv;
			limit_move(s, s->prev_iv_cls, LIMIT_STALL, moved);
			if (s->prev_iv_cls == LIMIT_SENDER_BUFFER)
				s->tail_ns = s->tail_ns > moved ? s->tail_ns - moved : 0;
			s->out.stalls++;
		}
	}
	if (data && !st->d[seg->dir])
		st->d[seg->dir] = limit_start(c, env, seg->dir, seg->ts);
	if (data)
		st->last_data_dir = (uint8_t)seg->dir;
	for (int k = 0; k < SUM_DIR_COUNT; k++)
		if (st->d[k])
			limit_after(c, st->d[k], (enum sum_dir_id)k, now);
	st->last_ts = now;
}

enum limit_class limit_dominant(const struct limit_dir *d)
{
	unsigned best = LIMIT_NONE;

	for (unsigned k = 0; k < LIMIT_COUNT; k++)
		if (d->ns[k] > 0 && (best == LIMIT_NONE || d->ns[k] > d->ns[best]))
			best = k;
	return (enum limit_class)best;
}

bool limit_dir_known(const struct limit_dir *d)
{
	return limit_dominant(d) != LIMIT_NONE;
}

bool limit_sender_class(enum limit_class k)
{
	return k == LIMIT_SENDER_BUFFER || k == LIMIT_SENDER_APP || k == LIMIT_SLOW_START;
}

/*
 * Is the capture point away from dir's sender? From a receiver-side (or
 * middle) capture S's buffer refills, its application's pauses and its
 * congestion window all look the same: data arrives at the rate S sends
 * it, a path away. Away: the loop to S and back is above LIMIT_NEAR_NS and
 * above a quarter of the loop to R (on a host-local path both loops are
 * microseconds: near enough to see S react).
 */
static bool limit_sender_hidden(const struct tcp_conn *c, enum sum_dir_id dir)
{
	int64_t to_s = tcp_loop_rtt(c, dir), to_r = tcp_loop_rtt(c, (enum sum_dir_id) !dir);

	return to_s > LIMIT_NEAR_NS && (to_r < 0 || to_s > to_r / 4);
}

/* o from s's counts and timeline; the idle after S's last write ends its
 * transfer: not charged. */
static void limit_fill(struct limit_dir *o, struct limit_dir_state *s)
{
	const struct limit_count *n = &s->out;

	memcpy(o->ns, n->ns, sizeof(o->ns));
	o->t0 = n->t0;
	o->width = n->width;
	o->idle_ns = n->idle_ns;
	o->zero_window_ns = n->zero_window_ns;
	o->rwnd_max = n->rwnd_max;
	o->rwnd_min_full = n->rwnd_min_full;
	o->rtt_min_ns = n->rtt_min_ns;
	o->srtt_max_ns = n->srtt_max_ns;
	o->recoveries = n->recoveries;
	o->idles = n->idles;
	o->stalls = n->stalls;
	o->plateau = n->plateau;
	limit_slices_fill(o, s);
}

static void limit_finish(struct tcp_conn *c, const struct det_env *env, struct sum_det *out)
{
	struct limit_state *st = c->det.limit;

	(void)env;
	if (!st)
		return;
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		struct limit_dir_state *s = st->d[k];
		struct limit_dir *o = &out->limit.d[k];
		/* S sent no data, or found no memory (for its slices: out.width
		 * 0, limit_slices_take()): its result stays zeroed */
		if (!s || !s->out.width)
			continue;
		limit_fill(o, s);
		o->sender_hidden = limit_sender_hidden(c, (enum sum_dir_id)k) ? 1 : 0;
	}
}

/* The directions' parts go back before the state does (det_release()). */
static void limit_release(struct tcp_conn *c, const struct det_env *env)
{
	struct limit_state *st = c->det.limit;

	if (!st)
		return;
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		struct limit_dir_state *s = st->d[k];
		if (!s)
			continue;
		pool_put(env->pools->limit_slices[0], s->slices);
		pool_put(env->pools->limit_dir[s->far_loop != 0], s);
		st->d[k] = NULL;
	}
}

const struct det_ops limit_ops = {
    .name = "limit",
    .finish = limit_finish,
    .release = limit_release,
};
