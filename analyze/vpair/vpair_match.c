/* vpair_match.c - the two-point joiner's matching: each segment with its copies at the other point.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/vpair/vpair_int.h"
#include "common/err.h"

/* ---- rings ---- */

static int ring_grow(struct vp_ring *r, uint32_t max)
{
	uint32_t ncap = r->cap ? r->cap * 2 : 64;
	if (ncap > max)
		ncap = max;
	if (ncap <= r->cap)
		return ERR_NOMEM;
	struct vp_frame *f = malloc((size_t)ncap * sizeof(*f));
	if (!f)
		return ERR_NOMEM;
	for (uint64_t k = r->head; k < r->tail; k++)
		f[k % ncap] = r->f[k % r->cap];
	free(r->f);
	r->f = f;
	r->cap = ncap;
	return 0;
}

/* ---- byte ranges seen ---- */

void vp_ivs_add(struct vp_ivset *s, uint32_t seq, uint32_t end)
{
	if (!s->any) {
		s->any = true;
		s->base = seq;
	}
	/* Relative to the first byte: a transfer longer than 2 GiB from there
	 * wraps, and its old ranges only look older. */
	uint32_t lo = seq - s->base, hi = end - s->base;
	if (lo > INT32_MAX || hi < lo)
		return;
	unsigned k = 0;
	while (k < s->n && s->hi[k] < lo)
		k++;
	if (k < s->n && s->lo[k] <= hi) {
		/* Overlaps or touches k: widen it over every range it reaches. */
		if (lo < s->lo[k])
			s->lo[k] = lo;
		unsigned j = k;
		while (j + 1 < s->n && s->lo[j + 1] <= hi)
			j++;
		if (s->hi[j] > hi)
			hi = s->hi[j];
		s->hi[k] = hi > s->hi[k] ? hi : s->hi[k];
		unsigned gone = j - k;
		memmove(&s->lo[k + 1], &s->lo[j + 1], (s->n - j - 1) * sizeof(s->lo[0]));
		memmove(&s->hi[k + 1], &s->hi[j + 1], (s->n - j - 1) * sizeof(s->hi[0]));
		s->n -= gone;
		return;
	}
	if (s->n == VP_IVS) {
		/* Full: forget the oldest range (the lowest). */
		memmove(&s->lo[0], &s->lo[1], (VP_IVS - 1) * sizeof(s->lo[0]));
		memmove(&s->hi[0], &s->hi[1], (VP_IVS - 1) * sizeof(s->hi[0]));
		s->n--;
		if (k > 0)
			k--;
	}
	memmove(&s->lo[k + 1], &s->lo[k], (s->n - k) * sizeof(s->lo[0]));
	memmove(&s->hi[k + 1], &s->hi[k], (s->n - k) * sizeof(s->hi[0]));
	s->lo[k] = lo;
	s->hi[k] = hi;
	s->n++;
}

/* Did the side see every byte of [seq, end)? */
static bool ivs_covers(const struct vp_ivset *s, uint32_t seq, uint32_t end)
{
	if (!s->any)
		return false;
	uint32_t lo = seq - s->base, hi = end - s->base;
	if (lo > INT32_MAX || hi < lo)
		return false;
	for (unsigned k = 0; k < s->n; k++)
		if (s->lo[k] <= lo && hi <= s->hi[k])
			return true;
	return false;
}

/* ---- delays ---- */

static void delay_add(struct vp_delays *d, int64_t x)
{
	if (d->n == 0 || x < d->min)
		d->min = x;
	if (d->n == 0 || x > d->max)
		d->max = x;
	d->n++;
	if (d->stride == 0)
		d->stride = 1;
	if (d->skip) {
		d->skip--;
		return;
	}
	if (d->ns == VP_SAMPLES) {
		/* Keep every other sample and take half as many from now on:
		 * an even spread over the connection's life. */
		for (unsigned k = 0; k < VP_SAMPLES / 2; k++)
			d->s[k] = d->s[2 * k];
		d->ns = VP_SAMPLES / 2;
		d->stride *= 2;
	}
	d->s[d->ns++] = x;
	d->skip = d->stride - 1;
}

/* ---- examples ---- */

static void ex_fill(struct vp_example *e, const struct vp_frame *f, unsigned point)
{
	*e = (struct vp_example){.ts = f->ts,
				 .frame = f->frame,
				 .seq = f->seq,
				 .len = f->len,
				 .ip_id = f->ip_id,
				 .point = (uint8_t)point,
				 .flags = (uint8_t)(((f->fl & VPF_IPID) ? VP_EXF_IPID : 0) |
						    (fr_pure_ack(f) ? VP_EXF_PURE_ACK : 0))};
}

static void change_note(struct vp_pdir *pd, enum vp_change ch, const struct vp_frame *f0,
			const struct vp_frame *f1, uint32_t a, uint32_t b)
{
	pd->changed[ch]++;
	if (pd->nch < VP_EXAMPLES) {
		struct vp_example *e = &pd->chex[pd->nch++];
		ex_fill(e, f0, 0);
		e->change = (uint8_t)ch;
		e->a = a;
		e->b = b;
		/* The downstream frame number rides in len's place: the text
		 * names both frames. */
		e->len = (uint32_t)f1->frame;
	} else {
		pd->chex_left++;
	}
}

/* ---- matching ---- */

/* Could a (at one point) and b (at the other) be the same transmission,
 * or pieces of one? The sender's clocks must agree: the TSval (RFC 7323)
 * is copied into every GSO piece, and Linux numbers the pieces' IP IDs
 * on from the super-frame's (tcp_gso_segment(): id + i), which is also
 * the ID GRO keeps for a merge (the first piece's). */
static bool same_tx(const struct vp_frame *a, const struct vp_frame *b)
{
	if ((a->fl & VPF_TS) && (b->fl & VPF_TS) && a->tsval != b->tsval)
		return false;
	if ((a->fl & (VPF_SYN | VPF_FIN | VPF_RST)) != (b->fl & (VPF_SYN | VPF_FIN | VPF_RST)) &&
	    (a->len == 0 || b->len == 0))
		return false;
	bool ids = (a->fl & VPF_IPID) && (b->fl & VPF_IPID);
	if (a->len == 0 || b->len == 0) {
		/* No payload: the whole header must agree. */
		return a->len == b->len && a->seq == b->seq && a->ack == b->ack &&
		       (!ids || a->ip_id == b->ip_id);
	}
	if (a->seq == b->seq) {
		if (ids)
			return a->ip_id == b->ip_id;
		/* IPv6 without timestamps: only the exact same range. */
		return (a->fl & VPF_TS) || a->len == b->len;
	}
	if (!ids && !((a->fl & VPF_TS) && (b->fl & VPF_TS)))
		return false;
	const struct vp_frame *lo = sq_lt(a->seq, b->seq) ? a : b, *hi = lo == a ? b : a;
	/* The later piece's ID is the earlier one's plus the pieces between:
	 * at most 64 KiB / 536 bytes of them. */
	return !ids || (uint16_t)(hi->ip_id - lo->ip_id) <= 128;
}

static uint32_t overlap(const struct vp_frame *a, const struct vp_frame *b)
{
	uint32_t lo = sq_max(a->seq, b->seq), hi = sq_min(a->seq + a->len, b->seq + b->len);
	return sq_lt(lo, hi) ? hi - lo : 0;
}

static bool fully_covered(const struct vp_frame *f)
{
	return f->len == 0 ? f->copies > 0 : f->covered >= f->len;
}

/* f (at point p, direction d) and g (at the other point) are copies of the
 * same bytes: what changed between them, and the delay. */
static void note_match(struct vp_pair *P, unsigned d, unsigned p, const struct vp_frame *f,
		       const struct vp_frame *g)
{
	const struct vp_frame *f0 = p == 0 ? f : g, *f1 = p == 0 ? g : f;
	struct vp_pdir *pd = &P->pd[d];

	delay_add(&pd->d, f1->ts - f0->ts);
	int dttl = (int)f0->ttl - (int)f1->ttl;
	if (!pd->ttl_norm_known) {
		pd->ttl_norm_known = true;
		pd->ttl_norm = dttl;
	} else if (dttl != pd->ttl_norm) {
		change_note(pd, VP_CH_TTL, f0, f1, f0->ttl, f1->ttl);
	}
	if ((f0->tos >> 2) != (f1->tos >> 2))
		change_note(pd, VP_CH_DSCP, f0, f1, f0->tos >> 2u, f1->tos >> 2u);
	if ((f0->fl & VPF_SYN) && f0->mss != f1->mss)
		change_note(pd, VP_CH_MSS, f0, f1, f0->mss, f1->mss);
}

/* Look for the copies of f (point p) among the other point's pending
 * frames; f is in its ring already (fidx). */
void vp_match_frame(struct vp_pair *P, unsigned d, unsigned p, uint64_t fidx)
{
	struct vp_side *me = &P->side[p][d], *other = &P->side[!p][d];
	struct vp_ring *r = &other->ring;
	struct vp_frame *f = ring_at(&me->ring, fidx);

	if (r->tail == r->head)
		return;
	uint64_t start = r->hint < r->head || r->hint >= r->tail ? r->head : r->hint;
	uint64_t n = r->tail - r->head;
	for (uint64_t k = 0; k < n && !fully_covered(f); k++) {
		uint64_t gi = start + k;
		if (gi >= r->tail)
			gi -= n;
		struct vp_frame *g = ring_at(r, gi);
		if (g->state != VPS_PENDING || !same_tx(f, g))
			continue;
		if (f->len == 0 || g->len == 0) {
			if (f->len != g->len)
				continue;
		} else {
			uint32_t ov = overlap(f, g);
			if (ov == 0)
				continue;
			f->covered += ov;
			g->covered += ov;
		}
		if (f->copies == 0)
			f->peer = gi;
		if (g->copies == 0)
			g->peer = fidx;
		if (f->copies < 255)
			f->copies++;
		if (g->copies < 255)
			g->copies++;
		note_match(P, d, p, f, g);
		if (fully_covered(g)) {
			g->state = VPS_MATCHED;
			other->st.matched++;
			if (g->copies > 1)
				other->st.multi++;
		}
		r->hint = gi + 1;
	}
	if (fully_covered(f)) {
		f->state = VPS_MATCHED;
		me->st.matched++;
		if (f->copies > 1)
			me->st.multi++;
	}
}

/* A second copy of a frame this point already matched: the same header. */
bool vp_is_dup(const struct vp_side *s, const struct vp_frame *f, uint64_t fidx)
{
	const struct vp_ring *r = &s->ring;
	for (uint64_t k = fidx; k-- > r->head;) {
		const struct vp_frame *g = ring_at(r, k);
		if (g->state == VPS_MATCHED && g->seq == f->seq && g->len == f->len &&
		    g->ack == f->ack && g->fl == f->fl &&
		    (!(f->fl & VPF_IPID) || g->ip_id == f->ip_id) &&
		    (!(f->fl & VPF_TS) || g->tsval == f->tsval))
			return true;
		if (fidx - k > VP_RECENT)
			break;
	}
	return false;
}

/* ---- unmatched frames: whose capture missed them ---- */

static void unm_record(struct vp_side *s, const struct vp_frame *f, unsigned p, bool explained,
		       uint32_t *ex_out)
{
	struct vp_sidestat *st = &s->st;
	*ex_out = 0;
	if (!st->unm) {
		st->unm = calloc(VP_LOST_EXAMPLES, sizeof(*st->unm));
		st->unm_explained = calloc(VP_LOST_EXAMPLES, 1);
		if (!st->unm || !st->unm_explained) {
			free(st->unm);
			free(st->unm_explained);
			st->unm = NULL;
			st->unm_explained = NULL;
		}
	}
	if (st->unm && st->nunm < VP_LOST_EXAMPLES) {
		ex_fill(&st->unm[st->nunm], f, p);
		st->unm_explained[st->nunm] = explained;
		*ex_out = ++st->nunm;
	} else {
		st->unm_left++;
	}
}

/* Unmatched frame f of side (p, d) judged: explained means the other
 * point's receiver ACKed its bytes while that capture never saw them. */
void vp_unm_judge(struct vp_side *s, bool explained, bool pure_ack)
{
	if (explained)
		s->st.explained++;
	else if (pure_ack)
		s->st.unexplained_acks++;
	else
		s->st.unexplained++;
}

/*
 * f (point p, direction d) has no copy at the other point q. Once the
 * receiver has ACKed its bytes (an ACK seen at either point: a receiver
 * cannot ACK what did not reach it, so what it ACKed passed both points),
 * q's capture either saw some copy of them (then this copy was lost
 * between the points, the receiver got another, unless it D-SACKed them:
 * a spurious retransmission) or none (q's capture missed them). Until
 * an ACK passes them it is a suspect. A pure ACK leaves no such trace:
 * not explained.
 */
static bool acked(const struct vp_pair *P, unsigned d, uint32_t end)
{
	for (unsigned p = 0; p < 2; p++)
		if (P->side[p][d].ack_known && sq_le(end, P->side[p][d].ack))
			return true;
	return false;
}

/* Did the receiver D-SACK all of [seq, end) at either point? Then it got
 * these bytes twice: a copy the other capture lacks reached it, and a copy
 * that capture has is the other one. */
static bool dsacked(const struct vp_pair *P, unsigned d, uint32_t seq, uint32_t end)
{
	for (unsigned p = 0; p < 2; p++)
		if (ivs_covers(&P->side[p][d].dsacked, seq, end))
			return true;
	return false;
}

/* Unmatched bytes [seq, end) the receiver ACKed: passed the other point
 * unseen by its capture (explained), or lost between the points when that
 * capture saw another copy the receiver did not get twice. */
static bool capture_missed(const struct vp_pair *P, unsigned d, const struct vp_side *other,
			   uint32_t seq, uint32_t end)
{
	return !ivs_covers(&other->seen, seq, end) || dsacked(P, d, seq, end);
}

static void unmatched(struct vp_pair *P, unsigned d, unsigned p, struct vp_frame *f)
{
	struct vp_side *s = &P->side[p][d], *q = &P->side[!p][d];
	uint32_t ex;

	f->state = VPS_UNMATCHED;
	if (fr_pure_ack(f)) {
		unm_record(s, f, p, false, &ex);
		vp_unm_judge(s, false, true);
		return;
	}
	uint32_t end = fr_end(f);
	if (acked(P, d, end)) {
		bool explained = capture_missed(P, d, q, f->seq, end);
		unm_record(s, f, p, explained, &ex);
		vp_unm_judge(s, explained, false);
		return;
	}
	unm_record(s, f, p, false, &ex);
	uint32_t len = end - f->seq;
	if (s->nsus > 0 && len > 0) {
		struct vp_suspect *last = &s->sus[s->nsus - 1];
		/* Extends the newest run: contiguous, the same size, and its
		 * example entry (if any) the next one after the run's. */
		if (last->len == len && last->seq + last->len * last->count == f->seq &&
		    last->count < UINT32_MAX / len &&
		    (last->ex ? ex == last->ex + last->count : ex == 0)) {
			last->count++;
			return;
		}
	}
	if (s->nsus == VP_SUSPECTS) {
		/* No room to wait: judged now, as not explained. */
		vp_unm_judge(s, false, false);
		return;
	}
	s->sus[s->nsus++] = (struct vp_suspect){.seq = f->seq, .len = len, .count = 1, .ex = ex};
}

/* An ACK of direction d's data advanced at some point: judge the suspects
 * of both points it passed, one segment of a run at a time. */
void vp_suspects_ack(struct vp_pair *P, unsigned d)
{
	for (unsigned p = 0; p < 2; p++) {
		struct vp_side *s = &P->side[p][d], *o = &P->side[!p][d];
		unsigned k = 0;
		while (k < s->nsus) {
			struct vp_suspect *x = &s->sus[k];
			while (x->count > 0 && acked(P, d, x->seq + x->len)) {
				bool explained = capture_missed(P, d, o, x->seq, x->seq + x->len);
				if (x->ex) {
					if (s->st.unm_explained)
						s->st.unm_explained[x->ex - 1] = explained;
					x->ex++; /* the run's next segment's entry */
				}
				vp_unm_judge(s, explained, false);
				x->seq += x->len;
				x->count--;
			}
			if (x->count > 0) {
				k++;
				continue;
			}
			/* Kept in arrival order: the newest run is the one to extend. */
			memmove(&s->sus[k], &s->sus[k + 1], (--s->nsus - k) * sizeof(s->sus[0]));
		}
	}
}

/* ---- the cursor: order at this point against the other's ---- */

static void process_one(struct vp_side *s, struct vp_frame *f, unsigned p)
{
	if (f->state != VPS_MATCHED)
		return;
	if (s->any_done && f->peer < s->max_peer) {
		uint32_t extent = 0;
		for (unsigned k = 0; k < s->nrecent; k++)
			extent += s->recent[k] > f->peer;
		s->st.reordered++;
		if (extent > s->st.max_extent)
			s->st.max_extent = extent;
		unsigned qs = 2;
		if (f->queue >= 0 && s->max_peer_queue >= 0) {
			qs = f->queue != s->max_peer_queue;
			s->st.qswitch += qs;
		}
		if (s->st.nro < VP_EXAMPLES) {
			struct vp_example *e = &s->st.ro[s->st.nro++];
			ex_fill(e, f, p);
			e->a = extent;
			e->b = qs;
		}
	} else if (!s->any_done || f->peer > s->max_peer) {
		s->max_peer = f->peer;
		s->max_peer_queue = f->queue;
		s->any_done = true;
	}
	s->recent[s->recent_at] = f->peer;
	s->recent_at = (s->recent_at + 1) % VP_RECENT;
	if (s->nrecent < VP_RECENT)
		s->nrecent++;
}

/*
 * How long (of the other capture's clock) a frame at point p waits for its
 * copy: --vantage-max-offset until the pair has shown its delays, then
 * the largest delay seen that way plus a margin for queueing (a copy
 * slower than that is taken as lost; the offset between the clocks is
 * part of the delays, so it needs no estimate of its own here).
 */
#define VP_MARGIN_NS	  200000000LL
#define VP_DELAYS_TRUSTED 16

static int64_t wait_for(const struct vpair *v, const struct vp_pair *P, unsigned d, unsigned p)
{
	const struct vp_delays *dl = &P->pd[d].d;
	if (dl->n < VP_DELAYS_TRUSTED)
		return v->cfg.max_offset_ns;
	int64_t w = (p == 0 ? dl->max : -dl->min) + VP_MARGIN_NS;
	if (w < VP_MARGIN_NS)
		w = VP_MARGIN_NS;
	return w < v->cfg.max_offset_ns ? w : v->cfg.max_offset_ns;
}

/* A frame leaves the unprocessed part of its ring: count it. */
static void side_count(struct vp_side *s, const struct vp_frame *f, unsigned p)
{
	if (f->state == VPS_OUTSIDE)
		return;
	s->st.segments++;
	if (f->state == VPS_DUP) {
		s->st.dup++;
		if (s->st.ndup < VP_EXAMPLES)
			ex_fill(&s->st.dupex[s->st.ndup++], f, p);
	}
}

/*
 * Resolve what can be resolved at side (p, d): frames the other capture's
 * clock has passed by more than max_offset are unmatched (force: every
 * pending one, the pair is over); then walk the cursor and let the ring
 * forget what lies well behind it.
 */
void vp_side_advance(struct vpair *v, struct vp_pair *P, unsigned d, unsigned p, bool force)
{
	struct vp_side *s = &P->side[p][d];
	struct vp_ring *r = &s->ring;
	int64_t other_now = v->last_ts[!p];
	int64_t wait = wait_for(v, P, d, p);

	while (r->cur < r->tail) {
		struct vp_frame *f = ring_at(r, r->cur);
		if (f->state == VPS_PENDING) {
			if (!force && !(v->have_ts[!p] && other_now - f->ts > wait))
				break;
			if (f->covered > 0 || f->copies > 0) {
				/* Part of a super-frame came through: matched. */
				f->state = VPS_MATCHED;
				s->st.matched++;
			} else if (!P->joined || f->ts < v->first_ts[!p] ||
				   (force && (!v->have_ts[!p] || f->ts > other_now))) {
				/* Not seen at both points (as far as a join
				 * tells), or before the other capture's first
				 * segment or after its last (the clocks taken
				 * as one within the offset): no verdict. */
				f->state = VPS_OUTSIDE;
				s->st.outside += P->joined;
			} else {
				s->st.waited++;
				unmatched(P, d, p, f);
			}
		}
		side_count(s, f, p);
		process_one(s, f, p);
		r->cur++;
	}
	while (r->head < r->cur && r->cur - r->head > VP_RECENT)
		r->head++;
}

/* Make room for one more frame at side (p, d). */
int vp_side_room(struct vpair *v, struct vp_pair *P, unsigned d, unsigned p)
{
	struct vp_side *s = &P->side[p][d];
	struct vp_ring *r = &s->ring;

	if (r->tail - r->head < r->cap)
		return 0;
	if (ring_grow(r, v->cfg.window) == 0)
		return 0;
	if (!r->cap)
		return ERR_NOMEM;
	/* At the cap: the oldest frame is resolved now, whatever it waits for. */
	if (r->head == r->cur) {
		struct vp_frame *f = ring_at(r, r->cur);
		if (f->state == VPS_PENDING) {
			s->st.overflow++;
			if (P->joined && f->ts >= v->first_ts[!p])
				unmatched(P, d, p, f);
			else
				f->state = VPS_OUTSIDE;
		}
		side_count(s, f, p);
		process_one(s, f, p);
		r->cur++;
	}
	r->head++;
	return 0;
}
