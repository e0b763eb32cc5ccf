/* ackpat.c - detector: how the receiver ACKs a bulk transfer (every segment, delayed, stretch). */
#include "analyze/detect/ackpat/ackpat.h"

#include <string.h>

/*
 * The receiver R of a data direction sends its ACKs by a policy the
 * capture can read back from how much data each ACK newly covers:
 *
 *  - delayed: an ACK for every second full-sized segment (RFC 1122
 *    4.2.3.2, RFC 5681 4.2). Linux: __tcp_ack_snd_check() ACKs at once
 *    when more than one rcv_mss is unacknowledged and the window would
 *    move, else the delayed-ACK timer (TCP_ATO_MIN, 40 ms) does.
 *  - every_segment: one ACK per segment outside quick-ACK phases: the
 *    application sets TCP_QUICKACK after each read, or reads one skb per
 *    call through splice() (each tcp_cleanup_rbuf() sends an ACK: the 2009
 *    netdev "tcp: splice as many packets as possible at once" thread,
 *    +34-48 % throughput once the ACKs halved).
 *  - stretch: one ACK for more than two segments: GRO/LRO merged the
 *    segments before TCP saw them (Linux ACKs per merged skb), ACK
 *    thinning or loss on the way back, or a reader so slow that the
 *    window does not move.
 *
 * Counted: each pure ACK of R that advances the cumulative ACK while the
 * direction is in bulk transfer, by its bytes / the full segment size
 * (rounded, at least 1). The segment size is Linux's rcv_mss as R
 * measures it (tcp_measure_rcv_mss()): the largest payload not above the
 * MSS R announced, so GSO/TSO super-frames at a sender-side capture and
 * GRO-merged frames at a receiver-side one count by their bytes. Not
 * counted (struct ackpat_state.excluded):
 *
 *  - quick-ACK phases, ACKPAT_QUICKACKS ACKs after each way into Linux's
 *    quick-ACK mode the capture shows: the start (R's first advancing
 *    ACKs: tcp_event_data_recv() with no ato yet; there is no state
 *    before them, start()), data after a silence above the RTO (idle), a
 *    retransmission, an out-of-order or gap-filling segment (data below
 *    rcv_nxt or out of order: tcp_enter_quickack_mode()), a duplicate or
 *    SACK ACK of R (its out-of-order queue is not empty: it ACKs at once);
 *  - an ACK of one segment advertising a window larger than any before:
 *    tcp_grow_window() raised rcv_ssthresh and set icsk_ack.quick (while
 *    the receive window opens, Linux ACKs every segment to tell the
 *    sender at once);
 *  - an ACK ending exactly at a short segment (the end of a write: Linux
 *    ACKs a short segment as soon as it is read, ICSK_ACK_PUSHED; its
 *    bytes are no whole segment either);
 *  - an ACK while the data trickles (the last data segment came more than
 *    ACKPAT_SPARSE_NS after the one before: the delayed-ACK timer ACKs
 *    each alone whatever the receiver's policy), after the sender's FIN,
 *    while the capture has a gap in the data (what R got is unknown), or
 *    one carrying data (it follows R's writes, not its ACK policy).
 *
 * An ACK answering a full segment with PSH is counted (Linux ACKs it once
 * it is read, ICSK_ACK_PUSHED, so a sender pushing every segment is ACKed
 * every segment): how many did is kept (push_acks), and the advice says
 * so when they are most.
 *
 * Memory: a fixed block per data direction (DET_COLD), ACKPAT_PHASES
 * phase records in it, taken only once the direction's receiver has sent
 * more than ACKPAT_QUICKACKS advancing ACKs (start()).
 */

const char *ackpat_class_name(enum ackpat_class c)
{
	static const char *const names[ACKPAT_CLASS_COUNT] = {
	    [ACKPAT_NONE] = NULL,	  [ACKPAT_EVERY_SEGMENT] = "every_segment",
	    [ACKPAT_DELAYED] = "delayed", [ACKPAT_STRETCH] = "stretch",
	    [ACKPAT_MIXED] = "mixed",
	};
	return (unsigned)c < ACKPAT_CLASS_COUNT ? names[c] : NULL;
}

enum ackpat_class ackpat_classify(const uint32_t n[3])
{
	uint64_t total = (uint64_t)n[0] + n[1] + n[2];
	static const enum ackpat_class by_bucket[3] = {ACKPAT_EVERY_SEGMENT, ACKPAT_DELAYED,
						       ACKPAT_STRETCH};

	if (total < ACKPAT_MIN_ACKS)
		return ACKPAT_NONE;
	for (unsigned k = 0; k < 3; k++)
		if ((uint64_t)n[k] * 100u >= total * ACKPAT_MAJORITY_PCT)
			return by_bucket[k];
	return ACKPAT_MIXED;
}

static void tally_add(struct ackpat_tally *t, uint32_t segs, uint32_t bytes,
		      const struct tcp_seg *sg)
{
	if (!t->acks) {
		t->first_ts = sg->ts;
		t->first_frame = sg->frame;
		t->first_input = sg->input;
	}
	t->acks++;
	t->n[segs >= 3 ? 2 : segs - 1]++;
	if (segs > t->max_segs)
		t->max_segs = segs;
	t->bytes += bytes;
	t->last_ts = sg->ts;
	t->last_frame = sg->frame;
	t->last_input = sg->input;
}

/* Join slice s, of pattern cls, to the phases: the last one if it has the
 * same pattern (or cls is ACKPAT_NONE: a short tail), else a new one. */
static void phase_add(struct ackpat_state *ds, const struct ackpat_tally *s, enum ackpat_class cls)
{
	struct ackpat_phase *p;

	if (!s->acks)
		return;
	if (ds->phases_more) { /* past the kept ones: only counted */
		if (cls != ACKPAT_NONE && cls != ds->last_cls) {
			ds->phases_more++;
			ds->last_cls = (uint8_t)cls;
		}
		return;
	}
	if (ds->nphases && (cls == ACKPAT_NONE || ds->phase_cls[ds->nphases - 1] == cls)) {
		p = &ds->phase[ds->nphases - 1];
	} else if (ds->nphases < ACKPAT_PHASES && cls != ACKPAT_NONE) {
		ds->phase_cls[ds->nphases] = (uint8_t)cls;
		p = &ds->phase[ds->nphases++];
		memset(p, 0, sizeof(*p));
		p->first_ts = s->first_ts;
		p->first_frame = s->first_frame;
		p->input = s->first_input;
	} else {
		if (cls != ACKPAT_NONE) {
			ds->phases_more++;
			ds->last_cls = (uint8_t)cls;
		}
		return;
	}
	p->acks += s->acks;
	p->bytes += s->bytes;
	p->last_ts = s->last_ts;
	p->last_frame = s->last_frame;
}

static void close_slice(struct ackpat_state *ds)
{
	phase_add(ds, &ds->slice, ackpat_classify(ds->slice.n));
	memset(&ds->slice, 0, sizeof(ds->slice));
}

/* A data segment of direction dir. */
static void note_data(struct tcp_conn *c, struct ackpat_state *ds, const struct tcp_seg *sg)
{
	uint32_t mss = c->half[!sg->dir].st.mss; /* what R announced */
	uint32_t k = sg->kind;

	/* Ways into Linux's quick-ACK mode the capture shows. */
	if (!ds->seen_data ||
	    (k & (TCP_SEG_RETRANS | TCP_SEG_OOO | TCP_SEG_OPENED_GAP | TCP_SEG_FILLED_GAP |
		  TCP_SEG_UNDECIDED | TCP_SEG_LATE_FOUND)) ||
	    sg->ts - ds->last_data_ts > ACKPAT_IDLE_NS)
		ds->quick_left = ACKPAT_QUICKACKS;
	ds->sparse = ds->seen_data && sg->ts - ds->last_data_ts > ACKPAT_SPARSE_NS;
	ds->seen_data = true;
	ds->last_data_ts = sg->ts;
	if ((!mss || sg->len <= mss) && sg->len > ds->seg_size)
		ds->seg_size = sg->len;
	if (!(k & TCP_SEG_RETRANS) && sg->len < ds->seg_size) {
		ds->short_end = sg->seq + sg->len;
		ds->have_short_end = true;
	}
	if (!(k & TCP_SEG_RETRANS) && sg->d && (sg->d->tcp.flags & DEC_TH_PSH))
		ds->push_end = sg->seq + sg->len;
}

/* Full segment size of the direction the ACK is for; 0 unknown. */
static uint32_t seg_size(const struct tcp_conn *c, const struct ackpat_state *ds,
			 enum sum_dir_id data_dir)
{
	uint32_t mss = c->half[!data_dir].st.mss;

	if (ds->seg_size >= mss / 2 || !mss)
		return ds->seg_size;
	/* Only super-frames (or small segments) so far: the MSS less the
	 * timestamp option (RFC 7323), as a full segment carries. */
	return c->info.timestamps && mss > 12 ? mss - 12 : mss;
}

/* An ACK from R about direction data_dir's data. */
static void note_ack(struct tcp_conn *c, struct ackpat_state *ds, enum sum_dir_id data_dir,
		     const struct tcp_seg *sg)
{
	uint32_t k = sg->kind, seg;

	if (k & (TCP_SEG_DUP_ACK | TCP_SEG_SACK)) {
		/* R has out-of-order data: it ACKs at once until the hole fills. */
		ds->quick_left = ACKPAT_QUICKACKS;
		return;
	}
	if (!(k & TCP_SEG_ACK_ADVANCED) || !(k & TCP_SEG_PURE_ACK) || !ds->seen_data ||
	    !sg->acked || c->half[data_dir].fin_seen)
		return;
	/* The window R advertises passed its largest yet: Linux's
	 * tcp_grow_window() raised rcv_ssthresh (which only grows) and set
	 * icsk_ack.quick, an ACK at once to tell the sender (every segment
	 * while the receive window opens). A window that only comes back
	 * after the reader freed space is no new largest. */
	bool grew = ds->have_win && sg->window > ds->max_win;
	if (!ds->have_win || sg->window > ds->max_win)
		ds->max_win = sg->window;
	ds->have_win = true;
	seg = seg_size(c, ds, data_dir);
	if (!seg)
		return;
	uint32_t n = (sg->acked + seg / 2) / seg;
	if (!n)
		n = 1;
	/* ... which matters only for an ACK of one segment: one of two or
	 * more the usual rule sends anyway. */
	if (ds->quick_left || (grew && n == 1)) {
		if (ds->quick_left)
			ds->quick_left--;
		ds->excluded++;
		return;
	}
	if ((ds->have_short_end && sg->ack == ds->short_end) || ds->sparse ||
	    tcp_nholes(&c->half[data_dir])) {
		ds->excluded++;
		return;
	}
	ds->push_acks += sg->ack == ds->push_end;
	tally_add(&ds->all, n, sg->acked, sg);
	tally_add(&ds->slice, n, sg->acked, sg);
	if (ds->slice.acks == ACKPAT_SLICE)
		close_slice(ds);
}

/*
 * The state of data direction d starts with the first advancing pure ACK
 * of its receiver R past the quick-ACK phase of the start (R's
 * ACKPAT_QUICKACKS first advancing ACKs, which are never counted): most
 * connections never get that far, and a live connection holds nothing for
 * this detector until then (bytes per live connection, tests/scale). What
 * came before is read from the engine's counters.
 */
static struct ackpat_state *start(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id d,
				  const struct tcp_seg *sg)
{
	const struct tcp_half *h = &c->half[d], *r = &c->half[!d];
	uint32_t mss = r->st.mss;
	struct ackpat_state *st;

	if (!(sg->kind & TCP_SEG_ACK_ADVANCED) || !(sg->kind & TCP_SEG_PURE_ACK) ||
	    TCP_COUNT(r, new_acks) <= ACKPAT_QUICKACKS || !TCP_COUNT(h, data_packets))
		return NULL;
	st = d == SUM_C2S ? DET_COLD_GET(c, env, ackpat_c2s) : DET_COLD_GET(c, env, ackpat_s2c);
	if (!st)
		return NULL;
	st->seen_data = true;
	st->last_data_ts = h->st.last_data_ts;
	st->excluded = (uint32_t)(TCP_COUNT(r, new_acks) - 1); /* the start's quick-ACK phase */
	if (!mss || h->st.max_payload <= mss)
		st->seg_size = h->st.max_payload;
	/* Loss or reordering before: R may still be in quick-ACK mode. */
	if ((h->cold && (h->cold->retrans || h->cold->out_of_order || h->cold->lost_segments)) ||
	    TCP_COUNT(r, dup_acks) || TCP_COUNT(r, sack_acks))
		st->quick_left = ACKPAT_QUICKACKS;
	return st;
}

void ackpat_segment(struct tcp_conn *c, const struct det_env *env)
{
	const struct tcp_seg *sg = &c->tp->seg;
	uint32_t k = sg->kind;
	struct ackpat_state *st;

	if (!(k & (TCP_SEG_DATA | TCP_SEG_ACK_ADVANCED | TCP_SEG_DUP_ACK | TCP_SEG_SACK)) ||
	    (k & TCP_SEG_KEEPALIVE))
		return;
	if (k & TCP_SEG_DATA) {
		st = sg->dir == SUM_C2S ? c->det.ackpat_c2s : c->det.ackpat_s2c;
		if (st)
			note_data(c, st, sg);
	}
	if (k & (TCP_SEG_ACK_ADVANCED | TCP_SEG_DUP_ACK | TCP_SEG_SACK)) {
		enum sum_dir_id d = (enum sum_dir_id) !sg->dir;
		st = d == SUM_C2S ? c->det.ackpat_c2s : c->det.ackpat_s2c;
		if (!st)
			st = start(c, env, d, sg);
		if (st)
			note_ack(c, st, d, sg);
	}
}

static const char advice_every[] =
    "the receiver ACKs every segment outside quick-ACK phases: an application setting "
    "TCP_QUICKACK after each read, or splice() reading one skb per call (the 2009 netdev "
    "thread), or delayed ACKs off; twice the ACKs of delayed ACKing cost the sender CPU "
    "(each ACK is processed) and the path packets";
static const char advice_every_push[] =
    "the receiver ACKs every segment outside quick-ACK phases, and most of these ACKs answer a "
    "segment the sender pushed (PSH: the end of each write): Linux ACKs a pushed full segment as "
    "soon as the application has read it (ICSK_ACK_PUSHED); writes of several segments on the "
    "sender (or MSG_MORE) would halve the ACKs, which cost the sender CPU";
static const char advice_stretch[] =
    "one ACK for more than two segments: GRO/LRO merged segments at the receiver (Linux ACKs "
    "per merged skb), ACKs thinned or lost on the way back, or a reader too slow to move the "
    "window; a capture at the receiver decides: merged frames (larger than the MSS) with one "
    "ACK each there mean GRO/LRO, every-second-segment ACKs there that are missing here mean "
    "thinning on the path";
static const char advice_stretch_merged[] =
    "one ACK for more than two segments, and this capture shows frames larger than the MSS: "
    "taken where segments are merged (GRO/LRO at the receiver: Linux ACKs per merged skb) or "
    "sent as super-frames (TSO/GSO at the sender, where a stretch ACK is GRO at the receiver "
    "or thinning on the path); a capture at the receiver showing merged frames means GRO";

/* The event of a direction whose pattern is every_segment or stretch:
 * timed and framed by the longest phase of that pattern (else the
 * counted ACKs' span). */
static void emit_event(struct tcp_conn *c, const struct det_env *env, enum sum_dir_id dir,
		       const struct ackpat_dir_summary *s)
{
	const struct ackpat_phase *best = NULL;
	struct sum_event e;
	struct ackpat_event *a = &e.u.ackpat;

	for (unsigned k = 0; k < s->nphases; k++)
		if (s->phase_cls[k] == s->cls && (!best || s->phase[k].acks > best->acks))
			best = &s->phase[k];
	if (best) {
		det_event_init(&e, SUM_EV_ACK_PATTERN, c, dir, best->first_ts, best->first_frame,
			       best->input);
		e.frame_last = best->last_frame;
		e.duration_ns = best->last_ts - best->first_ts;
		e.bytes = best->bytes;
		a->phase_acks = best->acks;
	} else {
		det_event_init(&e, SUM_EV_ACK_PATTERN, c, dir, s->all.first_ts, s->all.first_frame,
			       s->all.first_input);
		e.frame_last = s->all.last_frame;
		e.duration_ns = s->all.last_ts - s->all.first_ts;
		e.bytes = s->all.bytes;
		a->phase_acks = s->all.acks;
	}
	a->cls = s->cls;
	a->acks = s->all.acks;
	memcpy(a->n, s->all.n, sizeof(a->n));
	a->seg_size = s->seg_size;
	a->max_segs = s->all.max_segs;
	a->oversize = TCP_COUNT(&c->half[dir], oversize);
	e.segments = a->phase_acks;
	a->push_acks = s->push_acks;
	if (s->cls == ACKPAT_EVERY_SEGMENT)
		a->advice =
		    2 * (uint64_t)s->push_acks >= s->all.acks ? advice_every_push : advice_every;
	else
		a->advice = a->oversize ? advice_stretch_merged : advice_stretch;
	det_emit(env, &e);
}

static void ackpat_finish(struct tcp_conn *c, const struct det_env *env, struct sum_det *out)
{
	for (unsigned d = 0; d < 2; d++) {
		struct ackpat_state *ds = d == SUM_C2S ? c->det.ackpat_c2s : c->det.ackpat_s2c;
		struct ackpat_dir_summary *s = &out->ackpat.dir[d];

		if (!ds)
			continue;
		/* The last slice: a pattern of its own when long enough, else
		 * part of the phase before it. */
		if (ds->slice.acks)
			phase_add(ds, &ds->slice,
				  ds->slice.acks >= ACKPAT_MIN_ACKS ? ackpat_classify(ds->slice.n)
								    : ACKPAT_NONE);
		memset(&ds->slice, 0, sizeof(ds->slice));
		s->cls = (uint8_t)ackpat_classify(ds->all.n);
		s->all = ds->all;
		s->seg_size = seg_size(c, ds, (enum sum_dir_id)d);
		s->excluded = ds->excluded;
		s->push_acks = ds->push_acks;
		s->nphases = s->cls == ACKPAT_NONE ? 0 : ds->nphases;
		s->phases_more = ds->phases_more;
		memcpy(s->phase, ds->phase, sizeof(s->phase));
		memcpy(s->phase_cls, ds->phase_cls, sizeof(s->phase_cls));
		/* A finding only when bulk transfer held a fair share of the
		 * ACKs: a pattern of the few ACKs left between quick-ACK
		 * phases says little about the receiver. */
		if ((s->cls == ACKPAT_EVERY_SEGMENT || s->cls == ACKPAT_STRETCH) &&
		    (uint64_t)s->all.acks * ACKPAT_EVENT_SHARE >=
			(uint64_t)s->all.acks + s->excluded)
			emit_event(c, env, (enum sum_dir_id)d, s);
	}
}

const struct det_ops ackpat_ops = {
    .name = "ackpat",
    .finish = ackpat_finish,
};
