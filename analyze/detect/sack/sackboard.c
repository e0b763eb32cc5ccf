/* sackboard.c - detector: SACK scoreboard: holes, D-SACK, reneging, recovery episodes. */
#include "analyze/detect/sack/sackboard.h"

#include <string.h>

#include "analyze/detect/sack/sackboard_int.h"
#include "common/clock.h"

/*
 * Rules (DESIGN.md "SACK holes"; tcpsift-analyze(1), FINDINGS). For a data
 * direction (sender S, receiver R), on every ACK from R:
 *
 *  - The scoreboard is rebuilt the way S keeps it (RFC 6675 sec. 3): R's
 *    SACK blocks are merged into the remembered SACKed ranges above snd_una
 *    (R reports only its 3-4 most recent blocks, RFC 2018 sec. 4, so older
 *    ones must be remembered); ranges below the cumulative ACK are dropped.
 *    The first block of an ACK the engine found to be a D-SACK (RFC 2883
 *    sec. 4: below the ACK or inside the second block; tcp.c decides and
 *    emits the "dsack" event) is counted, not merged. Blocks with left >=
 *    right, or more than 16 MiB beyond anything S was seen sending (a
 *    middlebox that rewrote sequence numbers but not SACK blocks), are
 *    ignored like Linux's tcp_is_sackblock_valid() does, and counted.
 *  - A hole is a range R has neither cumulatively ACKed nor SACKed: it
 *    never spans a SACKed range. A gap above every gap seen before is a new
 *    hole; a block that later lands inside a hole (a late original, or a
 *    block R had not reported yet: with more than 3-4 new ranges between
 *    two ACKs some are reported late or never) splits it, each piece a
 *    hole, and one over an edge trims it. The cumulative ACK moving into a
 *    hole does not shrink it: that is the repair's progress. Adjacent
 *    losses make one hole, as S's scoreboard sees them. An omitted block
 *    is remembered, never taken as un-SACKed (RFC 2018 sec. 4: R reports
 *    its most recent ranges first and drops older ones).
 *  - Lost downstream of the capture point only with evidence this point
 *    has: every byte of the hole had been captured (the engine's tcp_half
 *    gaps, beyond snd_nxt, and the hull of gaps it had no room for) when R
 *    first reported it: the bytes passed here and were lost after. Bytes
 *    never captured were lost upstream, or the capture missed them: at a
 *    receiver-side capture a network loss is always that.
 *  - The tables grow (sackboard_tab.c) up to SACKB_MAX_HOLES. Beyond, a
 *    gap is counted, not tracked, and a tracked hole is never changed by
 *    it: a piece of a split hole with no room is counted and dropped, a
 *    SACKed range with no room is forgotten with everything above it (the
 *    horizon, until snd_una reaches it), so no tracked hole can span it.
 *  - A hole closes when snd_una and the blocks cover all of it. It closed
 *    by retransmission if a retransmission of any of its bytes was seen
 *    (tcp.c: TCP_SEG_RETRANS), by reordering if only the late original was
 *    (TCP_SEG_OOO), "undecided" if the filling segment was one tcp.c could
 *    not decide (TCP_SEG_UNDECIDED). ACKed with no filling segment seen:
 *    its bytes had passed the capture point and R got them without a
 *    retransmission. When the capture provably missed nothing of this
 *    direction (its sequence space complete: no gap ever opened, no byte
 *    ACKed unseen), no retransmission was sent either, so the original
 *    was reordered downstream of the capture point: closed by reordering,
 *    downstream. Otherwise "other": reordered after the capture point, or
 *    the capture missed the repair. (A capture that dropped exactly the
 *    retransmissions and no original would fool this; the report says so
 *    when the file counts drops.) At the end, a hole with a filling
 *    segment seen is closed by that segment; one without stays "open".
 *  - Reneging (RFC 2018 sec. 8): the cumulative ACK advances to the start
 *    of (or into) a remembered SACKed range, so R dropped data it had
 *    SACKed, and no ACK passes it within max(SRTT/2, 10 ms). Same test
 *    and wait as Linux's tcp_check_sack_reneging(); like Linux, the whole
 *    scoreboard is then forgotten.
 *  - Recovery episode: from the first hole until the cumulative ACK passes
 *    the highest byte SACKed during the episode.
 *
 * Limitation: a fast retransmission that was spurious (the late original
 * reached R first, the D-SACK tells afterwards) counts as closing the hole
 * by retransmission: the D-SACK is counted separately.
 */

enum {
	SACKB_FAR_BEYOND = 1 << 24, /* bytes beyond snd_nxt a valid block may reach */
	SACKB_MAX_SPAN = 1 << 30,   /* a block or a distance to snd_una above this is bogus */
	SACKB_DEFAULT_MSS = 1460,   /* segment estimate when nothing better is known */
};

#define SACKB_RENEGE_MIN_WAIT_NS (10ll * 1000000ll) /* Linux: max(SRTT/2, 10 ms) */

/* Segment size to estimate a hole's segments: the largest payload seen,
 * unless it exceeds R's MSS (GSO/TSO/GRO super-frames). */
static uint32_t mss_est(const struct tcp_conn *c, enum sum_dir_id dir)
{
	uint32_t mp = c->half[dir].st.max_payload, pm = tcp_peer_mss(c, dir);

	if (mp && (!pm || mp <= pm))
		return mp;
	return pm ? pm : SACKB_DEFAULT_MSS;
}

/*
 * The hull of the bytes of [start, end) this capture has not seen from
 * dir's sender: beyond snd_nxt, in a gap of the engine's table, or in the
 * hull of gaps it had no room for (it cannot tell those: counted unseen).
 */
static struct sackb_range unseen_hull(const struct tcp_conn *c, enum sum_dir_id dir, uint32_t start,
				      uint32_t end)
{
	const struct tcp_half *h = &c->half[dir];
	struct sackb_range r = {0, 0};

	if (!h->have_nxt)
		return (struct sackb_range){start, end};
	if (seq_gt(end, h->snd_nxt))
		sackb_range_add(&r, seq_max(start, h->snd_nxt), end);
	const struct tcp_cold *hc = h->cold; /* NULL: no gaps */
	if (!hc)
		return r;
	for (unsigned k = 0; k < hc->nholes; k++) {
		const struct tcp_hole *o = &hc->holes[k];
		uint32_t lo = seq_max(start, o->start), hi = seq_min(end, o->end);
		if (seq_lt(lo, hi))
			sackb_range_add(&r, lo, hi);
	}
	if (hc->have_hull) {
		uint32_t lo = seq_max(start, hc->hull_lo), hi = seq_min(end, hc->hull_hi);
		if (seq_lt(lo, hi))
			sackb_range_add(&r, lo, hi);
	}
	return r;
}

/* Refresh the hot summary of dir's scoreboard. sack_ack() is the only
 * place that changes what it reads while segments still arrive. */
static void sackb_note_active(struct tcp_conn *c, enum sum_dir_id dir)
{
	const struct sackb_dir *sd = &c->det.sack->dir[dir];

	c->dhot.sack.active[dir] =
	    sd->nblocks || sd->nholes || sd->renege_pending || sd->in_recovery;
}

static const char sackb_r_retrans[] = "a retransmission of its bytes was seen";
static const char sackb_r_original[] = "the late original was seen at the capture point";
static const char sackb_r_downstream[] =
    "ACKed with no retransmission, and the capture missed nothing of this direction: reordered "
    "downstream of the capture point";
static const char sackb_r_other[] =
    "ACKed with no filling segment captured: reordered after the capture point, or the capture "
    "missed the repair (it lost packets of this direction)";
static const char sackb_r_undecided[] =
    "filled by a segment that could be the late original or a retransmission (undecided)";
static const char sackb_r_open[] = "still open when the connection ended";

/* Did the capture see all of dir's sequence space (no gap, nothing ACKed
 * unseen, nothing beyond the hole table)? */
static bool dir_complete(const struct tcp_conn *c, enum sum_dir_id dir)
{
	const struct tcp_half *h = &c->half[dir];
	const struct tcp_cold *k = h->cold; /* NULL: all its counts 0 */

	return !(k && (k->lost_segments || k->acked_unseen || k->nholes || k->hole_overflow));
}

/* What closed o, from the segments that filled it (none: "other"). */
static enum sackb_closed_by closed_by_fills(const struct sackb_hole *o)
{
	if (!sackb_range_empty(o->fill[SACKB_FILL_RETRANS]))
		return SACKB_CLOSED_RETRANS;
	if (!sackb_range_empty(o->fill[SACKB_FILL_ORIGINAL]))
		return SACKB_CLOSED_REORDER;
	if (!sackb_range_empty(o->fill[SACKB_FILL_UNDECIDED]))
		return SACKB_CLOSED_UNDECIDED;
	return SACKB_CLOSED_OTHER;
}

static void hole_emit(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir,
		      const struct sackb_hole *o, enum sackb_closed_by by, int64_t ts,
		      uint64_t frame)
{
	struct sackb_summary *sum = &c->det.sack->sum;
	struct sum_event e;
	uint32_t mss = mss_est(c, dir), bytes = o->end - o->start;
	bool downstream = false, passed = sackb_range_empty(o->unseen);
	const char *reason;

	switch (by) {
	case SACKB_CLOSED_RETRANS:
		reason = sackb_r_retrans;
		break;
	case SACKB_CLOSED_REORDER:
		reason = sackb_r_original;
		break;
	case SACKB_CLOSED_UNDECIDED:
		reason = sackb_r_undecided;
		break;
	case SACKB_CLOSED_OPEN:
		reason = sackb_r_open;
		break;
	default:
		if (passed && dir_complete(c, dir)) {
			by = SACKB_CLOSED_REORDER;
			downstream = true;
			reason = sackb_r_downstream;
			sum->reordered_downstream++;
		} else {
			reason = sackb_r_other;
		}
		break;
	}
	sum->holes++;
	sum->hole_bytes += bytes;
	sum->by_closed[by]++;
	if (passed)
		sum->lost_downstream++;
	else
		sum->lost_upstream++;
	det_event_init(&e, SUM_EV_SACK_HOLE, c, dir, o->first_ts, o->first_frame, o->first_input);
	e.frame_last = frame;
	e.duration_ns = ts > o->first_ts ? ts - o->first_ts : 0;
	e.bytes = bytes;
	e.segments = (bytes + mss - 1) / mss;
	e.rel_seq = tcp_rel_seq(c, dir, o->start);
	e.u.hole.segments = e.segments;
	e.u.hole.closed_by = (uint8_t)by;
	e.u.hole.passed_capture = passed;
	e.u.hole.downstream = downstream;
	e.u.hole.reason = reason;
	det_emit(env, &e);
}

static bool block_valid(const struct tcp_conn *c, enum sum_dir_id dir, uint32_t una,
			const struct dec_sack_block *b)
{
	const struct tcp_half *h = &c->half[dir];

	if (!seq_lt(b->left, b->right) || b->right - b->left > SACKB_MAX_SPAN)
		return false;
	if (seq_diff(b->right, una) > SACKB_MAX_SPAN || seq_diff(b->left, una) < -SACKB_MAX_SPAN)
		return false;
	if (h->have_nxt && seq_gt(b->right, h->snd_nxt) &&
	    (uint32_t)(b->right - h->snd_nxt) > SACKB_FAR_BEYOND)
		return false;
	return true;
}

/* How long a suspected reneging waits for an ACK that clears it. */
static int64_t renege_wait(const struct tcp_conn *c, enum sum_dir_id dir)
{
	int64_t w = c->half[dir].srtt_ns / 2;
	return w > SACKB_RENEGE_MIN_WAIT_NS ? w : SACKB_RENEGE_MIN_WAIT_NS;
}

/* RFC 2018 sec. 8: R un-SACKed data; forget the scoreboard as Linux does. */
static void renege_confirm(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir)
{
	struct sackb_dir *sd = &c->det.sack->dir[dir];
	struct sackb_summary *sum = &c->det.sack->sum;
	struct sum_event e;

	sum->reneging++;
	sum->reneged_bytes += sd->renege_bytes;
	det_event_init(&e, SUM_EV_RENEGING, c, dir, sd->renege_ts, sd->renege_frame,
		       sd->renege_input);
	e.bytes = sd->renege_bytes;
	e.rel_seq = tcp_rel_seq(c, dir, sd->renege_una);
	det_emit(env, &e);
	sd->renege_pending = false;
	sd->nblocks = 0;
	sd->capped = false;
	sd->have_gap_high = false; /* the ranges may become holes again */
}

/*
 * The cumulative ACK advanced to a SACKed range (tcp_check_sack_reneging()).
 * Linux gives R max(SRTT/2, 10 ms) to send more ACKs before it believes
 * it: transient scoreboard oddities (a block starting at the ACK, then the
 * ACK past it a microsecond later) are common in real captures.
 */
static void renege_check(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir,
			 uint32_t una)
{
	struct sackb_dir *sd = &c->det.sack->dir[dir];
	const struct tcp_seg *sg = &c->tp->seg;

	if (sd->renege_pending) {
		if (seq_gt(una, sd->renege_una))
			sd->renege_pending = false;
		else if (sg->ts - sd->renege_ts >= renege_wait(c, dir))
			renege_confirm(c, env, dir);
		return;
	}
	if (!(sg->kind & TCP_SEG_ACK_ADVANCED) || !sd->nblocks || sd->blocks[0].left != una)
		return;
	sd->renege_pending = true;
	sd->renege_una = una;
	sd->renege_bytes = 0;
	for (uint32_t k = 0; k < sd->nblocks; k++)
		sd->renege_bytes += sd->blocks[k].right - sd->blocks[k].left;
	sd->renege_ts = sg->ts;
	sd->renege_frame = sg->frame;
	sd->renege_input = sg->input;
}

/* Open a hole for the gap [start, end) first seen in this ACK, or count it
 * when the table is full. */
static void hole_open(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir,
		      uint32_t start, uint32_t end)
{
	struct sackb_dir *sd = &c->det.sack->dir[dir];
	const struct tcp_seg *sg = &c->tp->seg;

	if (!sackb_room(sd, env, sd->nholes)) {
		c->det.sack->sum.overflow++;
		return;
	}
	struct sackb_hole *o = &sd->holes[sd->nholes++];
	memset(o, 0, sizeof(*o));
	o->start = start;
	o->end = end;
	o->first_ts = sg->ts;
	o->first_frame = sg->frame;
	o->first_input = sg->input;
	o->unseen = unseen_hull(c, dir, start, end);
}

/* The piece [start, end) of h: its own part of the hulls. */
static struct sackb_hole hole_piece(const struct sackb_hole *h, uint32_t start, uint32_t end)
{
	struct sackb_hole p = *h;

	p.start = start;
	p.end = end;
	p.unseen = sackb_range_clamp(h->unseen, start, end);
	for (unsigned f = 0; f < SACKB_FILL_COUNT; f++)
		p.fill[f] = sackb_range_clamp(h->fill[f], start, end);
	return p;
}

/*
 * Hole k against the blocks and snd_una (RFC 6675 sec. 3: the holes are
 * what is neither ACKed nor SACKed): covered, it closes; else each piece
 * between the blocks inside it is a hole, closed if the ACK passed it. The
 * first open piece stays at k, more are added (counted when there is no
 * room). Returns the index of the next hole to look at.
 */
static uint32_t hole_settle(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir,
			    uint32_t k, uint32_t una)
{
	struct sackb_dir *sd = &c->det.sack->dir[dir];
	const struct tcp_seg *sg = &c->tp->seg;
	const struct sackb_hole h = sd->holes[k]; /* the table may move below */
	uint32_t pos = h.start, b = sackb_block_after(sd, h.start);
	bool kept = false;

	if (sackb_covered(sd, una, h.start, h.end)) {
		hole_emit(c, env, dir, &h, closed_by_fills(&h), sg->ts, sg->frame);
		sackb_hole_remove(sd, k);
		return k;
	}
	if (b == sd->nblocks || seq_ge(sd->blocks[b].left, h.end))
		return k + 1; /* no block inside: the common case */
	for (;;) {
		/* The piece [pos, end) ends at the next block inside, or the hole's end. */
		bool inside = b < sd->nblocks && seq_lt(sd->blocks[b].left, h.end);
		uint32_t end = inside ? seq_max(pos, sd->blocks[b].left) : h.end;
		uint32_t next = inside ? seq_min(sd->blocks[b].right, h.end) : h.end;
		if (seq_lt(pos, end)) {
			struct sackb_hole p = hole_piece(&h, pos, end);
			if (seq_le(end, una))
				hole_emit(c, env, dir, &p, closed_by_fills(&p), sg->ts, sg->frame);
			else if (!kept)
				sd->holes[k] = p, kept = true;
			else if (sackb_room(sd, env, sd->nholes))
				sd->holes[sd->nholes++] = p;
			else
				c->det.sack->sum.overflow++;
		}
		if (seq_ge(next, h.end))
			break;
		pos = next;
		b++;
	}
	if (!kept) {
		sackb_hole_remove(sd, k);
		return k;
	}
	return k + 1;
}

/* New gaps (their part above every gap seen before) become holes; returns
 * the bytes missing now, between snd_una and the highest block. */
static uint64_t gaps_scan(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir,
			  uint32_t una)
{
	struct sackb_dir *sd = &c->det.sack->dir[dir];
	uint64_t missing = 0;
	uint32_t pos = una;

	for (uint32_t k = 0; k < sd->nblocks; k++) {
		uint32_t left = sd->blocks[k].left, right = sd->blocks[k].right;
		if (seq_gt(left, pos)) {
			missing += left - pos;
			if (seq_gt(left, sd->gap_high)) {
				hole_open(c, env, dir, seq_max(pos, sd->gap_high), left);
				sd->gap_high = left;
			}
		}
		pos = seq_max(pos, right);
	}
	return missing;
}

/* Recovery episodes: from the first hole until the ACK passes the highest
 * byte SACKed during the episode. */
static void recovery_update(struct sackb_dir *sd, struct sackb_summary *sum, uint32_t una,
			    int64_t ts)
{
	if (sd->nblocks) {
		uint32_t high = sd->blocks[sd->nblocks - 1].right;
		if (!sd->in_recovery) {
			sd->in_recovery = true;
			sd->recovery_start = ts;
			sd->recovery_high = high;
		} else {
			sd->recovery_high = seq_max(sd->recovery_high, high);
		}
	}
	if (sd->in_recovery && seq_ge(una, sd->recovery_high)) {
		int64_t d = ts - sd->recovery_start;
		if (d < 0)
			d = 0; /* capture timestamps went backwards */
		sd->in_recovery = false;
		sum->recoveries++;
		sum->recovery_time_ns = clock_sat_add(sum->recovery_time_ns, d);
		if (d > sum->recovery_max_ns)
			sum->recovery_max_ns = d;
	}
}

/* An ACK from R about dir's data: update the scoreboard. */
static void sack_ack(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir)
{
	struct sackb_dir *sd = &c->det.sack->dir[dir];
	struct sackb_summary *sum = &c->det.sack->sum;
	const struct tcp_seg *sg = &c->tp->seg;
	const struct dec_tcp_opts *opt = &sg->d->tcp.opt;
	const struct tcp_half *h = &c->half[dir];
	uint32_t una = h->snd_una;
	bool changed = sg->kind & TCP_SEG_ACK_ADVANCED;

	if (!h->have_una)
		return;
	if (!sd->have_gap_high || seq_lt(sd->gap_high, una)) {
		sd->gap_high = una;
		sd->have_gap_high = true;
	}
	if (sg->kind & TCP_SEG_DSACK)
		sum->dsack++;
	if (opt->has_sack) {
		unsigned first = (sg->kind & TCP_SEG_DSACK) ? 1 : 0;
		for (unsigned k = first; k < opt->nsack && k < DEC_MAX_SACK; k++) {
			const struct dec_sack_block *b = &opt->sack[k];
			if (!block_valid(c, dir, una, b))
				sum->invalid_blocks++;
			else if (seq_gt(b->right, una))
				changed |= sackb_blocks_insert(sd, env, sum, b->left, b->right);
		}
	}
	changed |= sackb_blocks_prune(sd, una);
	renege_check(c, env, dir, una);

	/* Holes covered now close; blocks inside them split them. Nothing to
	 * do when neither the blocks nor snd_una moved. */
	for (uint32_t k = 0; changed && k < sd->nholes;)
		k = hole_settle(c, env, dir, k, una);

	uint64_t missing = gaps_scan(c, env, dir, una);
	if (missing > sum->max_hole_bytes_outstanding)
		sum->max_hole_bytes_outstanding = missing;
	recovery_update(sd, sum, una, sg->ts);
	sackb_note_active(c, dir);
	/* Nothing open and nothing SACKed above snd_una: the table goes
	 * back to its pool, so memory follows the live scoreboards, not
	 * every connection that ever SACKed. */
	if (sd->holes && !sd->nholes && !sd->nblocks && !sd->capped && !sd->renege_pending)
		sackb_tab_put(sd, env);
}

/* A data segment from dir's sender: does it fill an open hole? */
static void sack_data(struct tcp_conn *c, enum sum_dir_id dir)
{
	struct sackb_dir *sd = &c->det.sack->dir[dir];
	const struct tcp_seg *sg = &c->tp->seg;
	uint32_t seq = sg->seq, end = sg->seq + sg->len;
	enum sackb_fill kind = (sg->kind & TCP_SEG_RETRANS)	? SACKB_FILL_RETRANS
			       : (sg->kind & TCP_SEG_UNDECIDED) ? SACKB_FILL_UNDECIDED
								: SACKB_FILL_ORIGINAL;

	/* An original reaching beyond snd_nxt can fall in a hole only when R
	 * SACKed bytes the capture missed: it arrived after them, like a late
	 * original. */
	if (!(sg->kind & (TCP_SEG_RETRANS | TCP_SEG_OOO | TCP_SEG_NEW_DATA | TCP_SEG_UNDECIDED)))
		return;
	for (uint32_t k = 0; k < sd->nholes; k++) {
		struct sackb_hole *o = &sd->holes[k];
		if (seq_ge(seq, o->end) || seq_le(end, o->start))
			continue;
		if (closed_by_fills(o) == SACKB_CLOSED_OTHER) {
			o->fill_ts = sg->ts;
			o->fill_frame = sg->frame;
		}
		sackb_range_add(&o->fill[kind], seq_max(seq, o->start), seq_min(end, o->end));
	}
}

/* The segment has work (see sackb_segment()). Out of line: inlined, its
 * register saves would cost every segment. */
__attribute__((noinline)) static void sackb_work(struct tcp_conn *c, const struct det_env *env,
						 bool data, bool ack)
{
	const struct tcp_seg *sg = &c->tp->seg;

	/* The scoreboard is cold state (sack.def): allocated by the first
	 * segment that has work for it, an ACK with SACK blocks or a D-SACK
	 * (data counts only once a scoreboard holds something). */
	if (!DET_COLD_GET(c, env, sack))
		return;
	if (data && c->det.sack->dir[sg->dir].nholes)
		sack_data(c, sg->dir);
	if (ack)
		sack_ack(c, env, (enum sum_dir_id) !sg->dir);
}

void sackb_segment(struct tcp_conn *c, const struct det_env *env)
{
	const struct tcp_seg *sg = &c->tp->seg;
	const struct dec_packet *d = sg->d;
	enum sum_dir_id rd = (enum sum_dir_id) !sg->dir; /* the data its ACK is about */
	/* Data of a direction whose scoreboard holds something: may fill a hole. */
	bool data = sg->len && c->dhot.sack.active[sg->dir];
	/* An ACK with nothing SACKed and nothing pending costs nothing (and
	 * does not touch the scoreboard's cache lines): the common one. */
	bool ack = d && (d->tcp.flags & DEC_TH_ACK) && !(sg->kind & TCP_SEG_RST) &&
		   (d->tcp.opt.has_sack || (sg->kind & TCP_SEG_DSACK) || c->dhot.sack.active[rd]);

	if (data || ack)
		sackb_work(c, env, data, ack);
}

static void sackb_finish(struct tcp_conn *c, const struct det_env *env, struct sum_det *out)
{
	if (!c->det.sack)
		return; /* never SACKed: the summary stays zero */

	struct sackb_summary *sum = &c->det.sack->sum;

	for (int dir = 0; dir < SUM_DIR_COUNT; dir++) {
		struct sackb_dir *sd = &c->det.sack->dir[dir];
		for (uint32_t k = 0; k < sd->nholes; k++) {
			const struct sackb_hole *o = &sd->holes[k];
			enum sackb_closed_by by = closed_by_fills(o);
			if (by != SACKB_CLOSED_OTHER)
				hole_emit(c, env, (enum sum_dir_id)dir, o, by, o->fill_ts,
					  o->fill_frame);
			else
				hole_emit(c, env, (enum sum_dir_id)dir, o, SACKB_CLOSED_OPEN,
					  c->info.last_ts, c->info.last_frame);
		}
		sd->nholes = 0;
		if (sd->renege_pending && c->half[dir].have_una &&
		    seq_le(c->half[dir].snd_una, sd->renege_una) &&
		    c->info.last_ts - sd->renege_ts >= renege_wait(c, (enum sum_dir_id)dir))
			renege_confirm(c, env, (enum sum_dir_id)dir);
		if (sd->in_recovery) {
			int64_t d = c->info.last_ts - sd->recovery_start;
			if (d < 0)
				d = 0;
			sd->in_recovery = false;
			sum->recoveries++;
			sum->recovery_time_ns = clock_sat_add(sum->recovery_time_ns, d);
			if (d > sum->recovery_max_ns)
				sum->recovery_max_ns = d;
			sum->open_at_end_dirs++;
		}
	}
	out->sack = *sum;
}

/* The tables go back to the pools before the cold state does (det_release()). */
static void sackb_release(struct tcp_conn *c, const struct det_env *env)
{
	if (!c->det.sack)
		return;
	for (int dir = 0; dir < SUM_DIR_COUNT; dir++)
		sackb_tab_put(&c->det.sack->dir[dir], env);
}

const struct det_ops sackb_ops = {
    .name = "sackboard",
    .finish = sackb_finish,
    .release = sackb_release,
};
