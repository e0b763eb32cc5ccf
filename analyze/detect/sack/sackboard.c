/* sackboard.c - detector: SACK scoreboard: holes, D-SACK, reneging, recovery episodes. */
#include "analyze/detect/sack/sackboard.h"

#include <string.h>

#include "analyze/engine/seq.h"
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
 *  - A hole is a gap between snd_una and the first block or between two
 *    blocks. A gap above every gap seen before is a new hole (its extent as
 *    first seen); a gap inside an older one is what is left of that hole.
 *    Adjacent losses therefore make one hole, as S's scoreboard sees them.
 *  - Passed the capture point: the engine knows which bytes of S it never
 *    captured (tcp_half holes, beyond snd_nxt). A hole most of whose bytes
 *    were captured was lost downstream of the capture point; otherwise it
 *    was lost upstream of it (or the capture dropped it).
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

/* Bytes of [start, end) the capture never saw from dir's sender. */
static uint32_t unseen_bytes(const struct tcp_conn *c, enum sum_dir_id dir, uint32_t start,
			     uint32_t end)
{
	const struct tcp_half *h = &c->half[dir];
	uint32_t n = 0;

	if (!h->have_nxt)
		return end - start;
	if (seq_gt(end, h->snd_nxt)) {
		uint32_t lo = seq_max(start, h->snd_nxt);
		n += end - lo;
		end = lo;
	}
	for (unsigned k = 0; k < h->nholes && seq_lt(start, end); k++) {
		const struct tcp_hole *o = &h->holes[k];
		uint32_t lo = seq_max(start, o->start), hi = seq_min(end, o->end);
		if (seq_lt(lo, hi))
			n += hi - lo;
	}
	return n;
}

/* Refresh the hot summary of dir's scoreboard. sack_ack() is the only
 * place that changes what it reads while segments still arrive. */
static void sackb_note_active(struct tcp_conn *c, enum sum_dir_id dir)
{
	const struct sackb_dir *sd = &c->det.sack->dir[dir];

	c->dhot.sack.active[dir] =
	    sd->nblocks || sd->nholes || sd->renege_pending || sd->in_recovery;
}

/* Merge [l, r) into the sorted, disjoint, non-adjacent blocks. */
static void blocks_insert(struct sackb_dir *sd, struct sackb_summary *sum, uint32_t l, uint32_t r)
{
	struct sackb_block *b = sd->blocks;
	uint32_t n = sd->nblocks, i = 0, j;

	while (i < n && seq_lt(b[i].right, l))
		i++;
	for (j = i; j < n && seq_le(b[j].left, r); j++) {
		l = seq_min(l, b[j].left);
		r = seq_max(r, b[j].right);
	}
	if (j > i) {
		b[i].left = l;
		b[i].right = r;
		memmove(&b[i + 1], &b[j], (n - j) * sizeof(b[0]));
		sd->nblocks = n - (j - i - 1);
		return;
	}
	if (n == SACKB_MAX_BLOCKS) {
		sum->block_overflow++;
		return;
	}
	memmove(&b[i + 1], &b[i], (n - i) * sizeof(b[0]));
	b[i].left = l;
	b[i].right = r;
	sd->nblocks = n + 1;
}

/* Forget SACKed ranges the cumulative ACK passed. */
static void blocks_prune(struct sackb_dir *sd, uint32_t una)
{
	uint32_t k = 0;

	while (k < sd->nblocks && seq_le(sd->blocks[k].right, una))
		k++;
	if (k) {
		memmove(&sd->blocks[0], &sd->blocks[k], (sd->nblocks - k) * sizeof(sd->blocks[0]));
		sd->nblocks -= k;
	}
	if (sd->nblocks && seq_lt(sd->blocks[0].left, una))
		sd->blocks[0].left = una;
}

/* Do snd_una and the blocks cover all of [start, end)? */
static bool covered(const struct sackb_dir *sd, uint32_t una, uint32_t start, uint32_t end)
{
	uint32_t pos = seq_max(start, una);

	for (uint32_t k = 0; k < sd->nblocks && seq_lt(pos, end); k++) {
		const struct sackb_block *b = &sd->blocks[k];
		if (seq_gt(b->left, pos))
			return false;
		if (seq_gt(b->right, pos))
			pos = b->right;
	}
	return seq_ge(pos, end);
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
	const struct sum_dir_cold *k = h->cold; /* NULL: all its counts 0 */

	return !(k && (k->lost_segments || k->acked_unseen)) && !h->nholes && !h->hole_overflow;
}

static void hole_emit(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir,
		      const struct sackb_hole *o, enum sackb_closed_by by, int64_t ts,
		      uint64_t frame)
{
	struct sackb_summary *sum = &c->det.sack->sum;
	struct sum_event e;
	uint32_t mss = mss_est(c, dir), bytes = o->end - o->start;
	bool downstream = false;
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
		if (o->passed_capture && dir_complete(c, dir)) {
			by = SACKB_CLOSED_REORDER;
			downstream = true;
			reason = sackb_r_downstream;
			sum->reordered_downstream++;
		} else {
			reason = sackb_r_other;
		}
		break;
	}
	sum->by_closed[by]++;
	if (o->passed_capture)
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
	e.u.hole.passed_capture = o->passed_capture;
	e.u.hole.downstream = downstream;
	e.u.hole.reason = reason;
	det_emit(env, &e);
}

static void hole_remove(struct sackb_dir *sd, uint32_t k)
{
	memmove(&sd->holes[k], &sd->holes[k + 1], (sd->nholes - k - 1) * sizeof(sd->holes[0]));
	sd->nholes--;
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

/* Open a hole for the gap [start, end) first seen in this ACK. */
static void hole_open(struct tcp_conn *c, enum sum_dir_id dir, uint32_t start, uint32_t end)
{
	struct sackb_dir *sd = &c->det.sack->dir[dir];
	struct sackb_summary *sum = &c->det.sack->sum;
	const struct tcp_seg *sg = &c->tp->seg;

	if (sd->nholes == SACKB_MAX_HOLES) {
		sum->overflow++;
		return;
	}
	struct sackb_hole *o = &sd->holes[sd->nholes++];
	memset(o, 0, sizeof(*o));
	o->start = start;
	o->end = end;
	o->first_ts = sg->ts;
	o->first_frame = sg->frame;
	o->first_input = sg->input;
	/* Majority of the bytes: a hole spanning both kinds is rare. */
	o->passed_capture = 2 * unseen_bytes(c, dir, start, end) < end - start;
	sum->holes++;
	sum->hole_bytes += end - start;
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

	if (!h->have_una)
		return;
	if (sg->kind & TCP_SEG_DSACK)
		sum->dsack++;
	if (opt->has_sack) {
		unsigned first = (sg->kind & TCP_SEG_DSACK) ? 1 : 0;
		for (unsigned k = first; k < opt->nsack && k < DEC_MAX_SACK; k++) {
			const struct dec_sack_block *b = &opt->sack[k];
			if (!block_valid(c, dir, una, b))
				sum->invalid_blocks++;
			else if (seq_gt(b->right, una))
				blocks_insert(sd, sum, b->left, b->right);
		}
	}
	blocks_prune(sd, una);
	renege_check(c, env, dir, una);

	/* Holes now covered by the cumulative ACK and the blocks. */
	for (uint32_t k = 0; k < sd->nholes;) {
		struct sackb_hole *o = &sd->holes[k];
		if (!covered(sd, una, o->start, o->end)) {
			k++;
			continue;
		}
		enum sackb_closed_by by = o->retrans_seen     ? SACKB_CLOSED_RETRANS
					  : o->original_seen  ? SACKB_CLOSED_REORDER
					  : o->undecided_seen ? SACKB_CLOSED_UNDECIDED
							      : SACKB_CLOSED_OTHER;
		hole_emit(c, env, dir, o, by, sg->ts, sg->frame);
		hole_remove(sd, k);
	}

	/* Gaps: new holes above every gap seen so far; bytes missing now. */
	uint64_t missing = 0;
	uint32_t pos = una;
	if (!sd->have_gap_high || seq_lt(sd->gap_high, una)) {
		sd->gap_high = una;
		sd->have_gap_high = true;
	}
	for (uint32_t k = 0; k < sd->nblocks; k++) {
		const struct sackb_block *b = &sd->blocks[k];
		if (seq_gt(b->left, pos)) {
			missing += b->left - pos;
			if (seq_ge(pos, sd->gap_high)) {
				hole_open(c, dir, pos, b->left);
				sd->gap_high = b->left;
			}
		}
		pos = seq_max(pos, b->right);
	}
	if (missing > sum->max_hole_bytes_outstanding)
		sum->max_hole_bytes_outstanding = missing;

	/* Recovery episodes. */
	if (sd->nblocks) {
		uint32_t high = sd->blocks[sd->nblocks - 1].right;
		if (!sd->in_recovery) {
			sd->in_recovery = true;
			sd->recovery_start = sg->ts;
			sd->recovery_high = high;
		} else {
			sd->recovery_high = seq_max(sd->recovery_high, high);
		}
	}
	if (sd->in_recovery && seq_ge(una, sd->recovery_high)) {
		int64_t d = sg->ts - sd->recovery_start;
		if (d < 0)
			d = 0; /* capture timestamps went backwards */
		sd->in_recovery = false;
		sum->recoveries++;
		sum->recovery_time_ns = clock_sat_add(sum->recovery_time_ns, d);
		if (d > sum->recovery_max_ns)
			sum->recovery_max_ns = d;
	}
	sackb_note_active(c, dir);
}

/* A data segment from dir's sender: does it fill an open hole? */
static void sack_data(struct tcp_conn *c, enum sum_dir_id dir)
{
	struct sackb_dir *sd = &c->det.sack->dir[dir];
	const struct tcp_seg *sg = &c->tp->seg;
	uint32_t seq = sg->seq, end = sg->seq + sg->len;
	bool retrans = sg->kind & TCP_SEG_RETRANS;

	/* An original reaching beyond snd_nxt can fall in a hole only when R
	 * SACKed bytes the capture missed: it arrived after them, like a late
	 * original. */
	if (!(sg->kind & (TCP_SEG_RETRANS | TCP_SEG_OOO | TCP_SEG_NEW_DATA | TCP_SEG_UNDECIDED)))
		return;
	for (uint32_t k = 0; k < sd->nholes; k++) {
		struct sackb_hole *o = &sd->holes[k];
		if (seq_ge(seq, o->end) || seq_le(end, o->start))
			continue;
		if (!o->retrans_seen && !o->original_seen && !o->undecided_seen) {
			o->fill_ts = sg->ts;
			o->fill_frame = sg->frame;
		}
		if (retrans)
			o->retrans_seen = 1;
		else if (sg->kind & TCP_SEG_UNDECIDED)
			o->undecided_seen = 1;
		else
			o->original_seen = 1;
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
			if (o->retrans_seen || o->original_seen || o->undecided_seen)
				hole_emit(c, env, (enum sum_dir_id)dir, o,
					  o->retrans_seen    ? SACKB_CLOSED_RETRANS
					  : o->original_seen ? SACKB_CLOSED_REORDER
							     : SACKB_CLOSED_UNDECIDED,
					  o->fill_ts, o->fill_frame);
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

const struct det_ops sackb_ops = {
    .name = "sackboard",
    .finish = sackb_finish,
};
