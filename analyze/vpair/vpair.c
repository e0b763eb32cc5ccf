/* vpair.c - join two capture points: match each segment with its copy, say what happened between.
 */
#include "analyze/vpair/vpair.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/jsonout.h"
#include "common/hash.h"

/*
 * Vocabulary: a point p is an input (0 or 1); a side is one direction of
 * a pair at one point: side[p][d], d in input 0's direction ids. Every
 * segment a side sees becomes a struct vp_frame in the side's ring, in
 * arrival order; its ring position is its arrival index (idx).
 *
 *   side[0][d].ring   head ... cur ......... tail
 *                     |history|unprocessed   |
 *   frames wait (PENDING) until a copy at the other point covers them
 *   (MATCHED), or the other capture's clock passed them by max_offset or
 *   the ring overflowed (then unmatched: classified, below). The cursor
 *   `cur` walks them in arrival order once resolved: that is where the
 *   order at this point is compared with the order at the other one.
 */

enum vp_state {
	VPS_PENDING = 0,
	VPS_MATCHED,
	VPS_DUP,       /* a second identical copy at this point */
	VPS_UNMATCHED, /* waited out or overflowed, counted */
	VPS_OUTSIDE,   /* before the join or after the other capture ended */
};

#define VPF_IPID 0x01u
#define VPF_TS	 0x02u
#define VPF_SYN	 0x04u
#define VPF_FIN	 0x08u
#define VPF_RST	 0x10u
#define VPF_ACK	 0x20u

struct vp_frame {
	int64_t ts;
	uint64_t frame;
	uint64_t peer; /* matched: idx of the (first) copy at the other point */
	uint32_t seq, len, ack, tsval;
	uint32_t covered; /* payload bytes covered by copies at the other point */
	uint16_t ip_id, mss;
	int16_t queue;
	uint8_t ttl, tos, fl, state;
	uint8_t copies; /* frames at the other point covering it (saturates) */
};

struct vp_ring {
	struct vp_frame *f;
	uint32_t cap;
	uint64_t head, cur, tail, hint;
};

/* Byte ranges a side saw, [lo, hi) absolute, disjoint, sorted from lo. */
#define VP_IVS 64
struct vp_ivset {
	uint32_t lo[VP_IVS], hi[VP_IVS];
	unsigned n;
	bool any;
	uint32_t base; /* ranges are kept relative to the first byte seen */
};

/*
 * Unmatched segments waiting for an ACK to pass them: a run of count
 * back-to-back segments of len bytes each (a starved capture misses a
 * window's worth in a row, hundreds of segments: one entry, judged one
 * segment at a time as the ACK passes them).
 */
#define VP_SUSPECTS 64
struct vp_suspect {
	uint32_t seq, len, count;
	uint32_t ex; /* index + 1 of its first segment's entry in the side's unmatched
		      * examples (the run's are consecutive), 0: none */
};

#define VP_RECENT 256

/* What one side counted (its own point's view). */
struct vp_sidestat {
	uint64_t segments, matched, dup, multi, overflow, waited, outside;
	uint64_t unexplained, unexplained_acks, explained;
	uint64_t reordered, qswitch;
	uint32_t max_extent;
	/* Examples of unmatched segments (explained or not) and reorders. */
	struct vp_example *unm; /* VP_LOST_EXAMPLES */
	uint32_t nunm;
	uint64_t unm_left;
	uint8_t *unm_explained;
	struct vp_example ro[VP_EXAMPLES], dupex[VP_EXAMPLES];
	uint32_t nro, ndup;
};

struct vp_side {
	struct vp_ring ring;
	struct vp_ivset seen;
	uint32_t ack; /* highest ACK of this direction's data seen at this point */
	bool ack_known;
	struct vp_suspect sus[VP_SUSPECTS];
	unsigned nsus;
	/* What the receiver D-SACKed of this data at this point (RFC 2883):
	 * bytes it got twice, so every copy of them passed both points. */
	struct vp_ivset dsacked;
	/* The cursor's walk: the other point's order of what it passed. */
	bool any_done;
	uint64_t max_peer;
	int16_t max_peer_queue;
	uint64_t recent[VP_RECENT];
	unsigned nrecent, recent_at;
	struct vp_sidestat st;
};

/* Timestamp at input 1 minus at input 0, sampled for one direction. */
#define VP_SAMPLES 1024
struct vp_delays {
	uint64_t n;
	int64_t min, max;
	int64_t s[VP_SAMPLES];
	unsigned ns;
	uint64_t stride, skip;
};

struct vp_pdir {
	struct vp_delays d;
	uint64_t changed[VP_CH_COUNT]; /* split/merged: filled at the end */
	bool ttl_norm_known;
	int ttl_norm;
	struct vp_example chex[VP_EXAMPLES];
	uint32_t nch;
	uint64_t chex_left;
};

struct vp_pair {
	uint64_t conn[2];
	bool have[2], ended[2], joined, concluded;
	bool flip;
	struct vp_side side[2][SUM_DIR_COUNT];
	struct vp_pdir pd[SUM_DIR_COUNT];
	char ep[2][2][64];
};

/* conn id -> pair, open addressing (backward-shift deletion). */
struct vp_slot {
	uint64_t id; /* 0: free */
	struct vp_pair *p;
	uint8_t point;
};

/* Fingerprints of segments of connections not joined yet. */
#define VP_FP_SLOTS 16384
struct vp_fp {
	uint64_t conn; /* 0: free */
	uint32_t seq, len, ack, tsval;
	uint16_t ip_id;
	uint8_t fl, dir, point;
	int64_t ts;
};

struct vp_index {
	uint64_t id;
	uint32_t res;
	uint8_t c2s_dir;
};

struct vpair {
	struct vp_config cfg;
	int64_t first_ts[2], last_ts[2]; /* of the segments of each input */
	bool have_ts[2];
	struct vp_slot *map;
	size_t map_cap, map_n;
	struct vp_fp *fp;
	struct vp_pair **done;
	size_t ndone, done_cap;
	struct vp_result *res;
	size_t nres;
	struct vp_index *idx;
	size_t nidx;
	struct vp_totals tot;
	bool finished;
};

/* ---- small helpers ---- */

/* Sequence comparisons modulo 2^32 (RFC 9293 3.4). */
static inline bool sq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}
static inline bool sq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}
static inline uint32_t sq_min(uint32_t a, uint32_t b)
{
	return sq_lt(a, b) ? a : b;
}
static inline uint32_t sq_max(uint32_t a, uint32_t b)
{
	return sq_lt(a, b) ? b : a;
}

/* The sequence space a frame occupies: payload, plus one for SYN or FIN. */
static inline uint32_t fr_end(const struct vp_frame *f)
{
	return f->seq + f->len + ((f->fl & (VPF_SYN | VPF_FIN)) ? 1u : 0u);
}

static inline bool fr_pure_ack(const struct vp_frame *f)
{
	return f->len == 0 && !(f->fl & (VPF_SYN | VPF_FIN));
}

static inline struct vp_frame *ring_at(const struct vp_ring *r, uint64_t idx)
{
	return &r->f[idx % r->cap];
}

/* ---- conn id -> pair ---- */

static struct vp_slot *map_find(const struct vpair *v, uint64_t id)
{
	if (!v->map_cap)
		return NULL;
	size_t mask = v->map_cap - 1;
	for (size_t i = hash_mix64(id) & mask;; i = (i + 1) & mask) {
		if (v->map[i].id == id)
			return &v->map[i];
		if (v->map[i].id == 0)
			return NULL;
	}
}

static int map_put(struct vpair *v, uint64_t id, struct vp_pair *p, unsigned point)
{
	if ((v->map_n + 1) * 2 > v->map_cap) {
		size_t ncap = v->map_cap ? v->map_cap * 2 : 1024;
		struct vp_slot *m = calloc(ncap, sizeof(*m));
		if (!m)
			return -ENOMEM;
		for (size_t k = 0; k < v->map_cap; k++) {
			if (!v->map[k].id)
				continue;
			size_t i = hash_mix64(v->map[k].id) & (ncap - 1);
			while (m[i].id)
				i = (i + 1) & (ncap - 1);
			m[i] = v->map[k];
		}
		free(v->map);
		v->map = m;
		v->map_cap = ncap;
	}
	struct vp_slot *s = map_find(v, id);
	if (!s) {
		size_t mask = v->map_cap - 1, i = hash_mix64(id) & mask;
		while (v->map[i].id)
			i = (i + 1) & mask;
		s = &v->map[i];
		v->map_n++;
	}
	*s = (struct vp_slot){.id = id, .p = p, .point = (uint8_t)point};
	return 0;
}

static void map_del(struct vpair *v, uint64_t id)
{
	struct vp_slot *s = map_find(v, id);
	if (!s)
		return;
	size_t mask = v->map_cap - 1, i = (size_t)(s - v->map), j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (!v->map[j].id)
			break;
		size_t home = hash_mix64(v->map[j].id) & mask;
		/* Move j back to i unless its home lies cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			v->map[i] = v->map[j];
			i = j;
		}
	}
	v->map[i].id = 0;
	v->map[i].p = NULL;
	v->map_n--;
}

/* ---- rings ---- */

static int ring_grow(struct vp_ring *r, uint32_t max)
{
	uint32_t ncap = r->cap ? r->cap * 2 : 64;
	if (ncap > max)
		ncap = max;
	if (ncap <= r->cap)
		return -1;
	struct vp_frame *f = malloc((size_t)ncap * sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (uint64_t k = r->head; k < r->tail; k++)
		f[k % ncap] = r->f[k % r->cap];
	free(r->f);
	r->f = f;
	r->cap = ncap;
	return 0;
}

/* ---- byte ranges seen ---- */

static void ivs_add(struct vp_ivset *s, uint32_t seq, uint32_t end)
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

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
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
static void match_frame(struct vp_pair *P, unsigned d, unsigned p, uint64_t fidx)
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
static bool is_dup(const struct vp_side *s, const struct vp_frame *f, uint64_t fidx)
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
static void unm_judge(struct vp_side *s, bool explained, bool pure_ack)
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
		unm_judge(s, false, true);
		return;
	}
	uint32_t end = fr_end(f);
	if (acked(P, d, end)) {
		bool explained = capture_missed(P, d, q, f->seq, end);
		unm_record(s, f, p, explained, &ex);
		unm_judge(s, explained, false);
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
		unm_judge(s, false, false);
		return;
	}
	s->sus[s->nsus++] = (struct vp_suspect){.seq = f->seq, .len = len, .count = 1, .ex = ex};
}

/* An ACK of direction d's data advanced at some point: judge the suspects
 * of both points it passed, one segment of a run at a time. */
static void suspects_ack(struct vp_pair *P, unsigned d)
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
				unm_judge(s, explained, false);
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
static void side_advance(struct vpair *v, struct vp_pair *P, unsigned d, unsigned p, bool force)
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
static int side_room(struct vpair *v, struct vp_pair *P, unsigned d, unsigned p)
{
	struct vp_side *s = &P->side[p][d];
	struct vp_ring *r = &s->ring;

	if (r->tail - r->head < r->cap)
		return 0;
	if (ring_grow(r, v->cfg.window) == 0)
		return 0;
	if (!r->cap)
		return -ENOMEM;
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

/* ---- joining ---- */

static struct vp_fp *fp_slot(struct vpair *v, const struct vp_frame *f, unsigned d)
{
	uint64_t h = hash_mix64(((uint64_t)f->seq << 32 | f->len) ^
				hash_mix64((uint64_t)f->ip_id << 40 ^ (uint64_t)f->tsval << 8 ^
					   (uint64_t)(f->fl & 0x1c) ^ (uint64_t)d << 63));
	(void)d;
	return &v->fp[h % VP_FP_SLOTS];
}

static bool fp_same(const struct vp_fp *e, const struct vp_frame *f)
{
	return e->seq == f->seq && e->len == f->len && e->ip_id == f->ip_id &&
	       e->tsval == f->tsval && (e->fl & 0x1c) == (f->fl & 0x1c) &&
	       (f->len > 0 || e->ack == f->ack);
}

/* Move side[1][*] of b (a half pair of point 1) into a (a half pair of
 * point 0), oriented by a's directions. */
static void join(struct vpair *v, struct vp_pair *a, struct vp_pair *b, bool flip)
{
	a->flip = flip;
	a->conn[1] = b->conn[1];
	a->have[1] = true;
	a->ended[1] = b->ended[1];
	memcpy(a->ep[1], b->ep[1], sizeof(a->ep[1]));
	for (unsigned d = 0; d < SUM_DIR_COUNT; d++)
		a->side[1][d] = b->side[1][flip ? !d : d];
	a->joined = true;
	map_put(v, a->conn[1], a, 1);
	free(b);
	v->tot.joined++;
}

/* ---- the sink ---- */

static struct vp_pair *pair_new(struct vpair *v, uint64_t id, unsigned point)
{
	struct vp_pair *P = calloc(1, sizeof(*P));
	if (!P)
		return NULL;
	P->conn[point] = id;
	P->have[point] = true;
	if (map_put(v, id, P, point) < 0) {
		free(P);
		return NULL;
	}
	return P;
}

static void frame_of(struct vp_frame *f, const struct sum_seg *s)
{
	*f = (struct vp_frame){.ts = s->ts,
			       .frame = s->frame,
			       .seq = s->seq,
			       .len = s->len,
			       .ack = (s->flags & SUM_SEG_TH_ACK) ? s->seq_ack : 0,
			       .tsval = (s->flags & SUM_SEG_TSVAL) ? s->tsval : 0,
			       .ip_id = (s->flags & SUM_SEG_IPV4) ? s->ip_id : 0,
			       .mss = s->mss_opt,
			       .queue =
				   (int16_t)(s->queue >= 0 && s->queue < INT16_MAX ? s->queue : -1),
			       .ttl = s->ttl,
			       .tos = s->tos,
			       .state = VPS_PENDING};
	f->fl = (uint8_t)(((s->flags & SUM_SEG_IPV4) ? VPF_IPID : 0) |
			  ((s->flags & SUM_SEG_TSVAL) ? VPF_TS : 0) |
			  ((s->flags & SUM_SEG_SYN) ? VPF_SYN : 0) |
			  ((s->flags & SUM_SEG_FIN) ? VPF_FIN : 0) |
			  ((s->flags & SUM_SEG_RST) ? VPF_RST : 0) |
			  ((s->flags & SUM_SEG_TH_ACK) ? VPF_ACK : 0));
}

/* Try to join the half pair P (point p) on frame f (its direction dc). */
static struct vp_pair *try_join(struct vpair *v, struct vp_pair *P, unsigned p, unsigned dc,
				const struct vp_frame *f)
{
	if (fr_pure_ack(f) && !(f->fl & VPF_IPID))
		return P; /* pure ACKs without an IP ID repeat: no fingerprint */
	struct vp_fp *e = fp_slot(v, f, 0);
	if (e->conn && e->point != p && fp_same(e, f)) {
		struct vp_slot *o = map_find(v, e->conn);
		if (o && !o->p->joined && o->point != p) {
			struct vp_pair *a = p == 0 ? P : o->p, *b = p == 0 ? o->p : P;
			unsigned d0 = p == 0 ? dc : e->dir, d1 = p == 0 ? e->dir : dc;
			e->conn = 0;
			join(v, a, b, d0 != d1);
			/* What each point saw before the joining segment gets no
			 * verdict when unmatched: the other capture may not have
			 * run yet. What it did see is matched now. */
			for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
				struct vp_ring *r1 = &a->side[1][d].ring;
				for (uint64_t k = r1->head; k < r1->tail; k++)
					if (ring_at(r1, k)->state == VPS_PENDING)
						match_frame(a, d, 1, k);
			}
			return a;
		}
	}
	if (e->conn && e->conn != P->conn[p])
		v->tot.join_table_evicted++;
	*e = (struct vp_fp){.conn = P->conn[p],
			    .seq = f->seq,
			    .len = f->len,
			    .ack = f->ack,
			    .tsval = f->tsval,
			    .ip_id = f->ip_id,
			    .fl = f->fl,
			    .dir = (uint8_t)dc,
			    .point = (uint8_t)p,
			    .ts = f->ts};
	return P;
}

/* Keep the D-SACK segment s carries (RFC 2883: its first block, below the
 * ACK or inside its second block) about side rev's data, whose ACK is ack. */
static void dsack_note(struct vp_side *rev, const struct sum_seg *s, uint32_t ack)
{
	if (!(s->flags & SUM_SEG_ACK) || s->nsack == 0)
		return;
	/* sack[] is relative to the data's base as rel_ack is. */
	uint32_t lo = ack + (s->sack[0][0] - s->rel_ack), hi = ack + (s->sack[0][1] - s->rel_ack);
	bool dup = sq_lt(lo, ack) || (s->nsack > 1 && sq_le(s->sack[1][0], s->sack[0][0]) &&
				      sq_le(s->sack[0][1], s->sack[1][1]));
	if (!dup || !sq_lt(lo, hi))
		return;
	ivs_add(&rev->dsacked, lo, hi);
}

static void on_segment(void *ctx, const struct sum_seg *s)
{
	struct vpair *v = ctx;
	if (s->input > 1 || s->dir >= SUM_DIR_COUNT)
		return;
	unsigned p = s->input;
	if (!v->have_ts[p] || s->ts > v->last_ts[p])
		v->last_ts[p] = s->ts;
	if (!v->have_ts[p] || s->ts < v->first_ts[p])
		v->first_ts[p] = s->ts;
	v->have_ts[p] = true;

	struct vp_slot *slot = map_find(v, s->conn);
	struct vp_pair *P = slot ? slot->p : pair_new(v, s->conn, p);
	if (!P)
		return;
	struct vp_frame f;
	frame_of(&f, s);
	bool was_joined = P->joined;
	if (!was_joined)
		P = try_join(v, P, p, s->dir, &f);
	/* In input 0's direction ids. */
	unsigned d = p == 1 && P->flip ? !s->dir : s->dir;
	struct vp_side *me = &P->side[p][d];

	/* The ACK this segment carries is about the other direction's data,
	 * as this point saw it. */
	if (f.fl & VPF_ACK) {
		struct vp_side *rev = &P->side[p][!d];
		dsack_note(rev, s, f.ack);
		if (!rev->ack_known || sq_lt(rev->ack, f.ack)) {
			rev->ack = f.ack;
			rev->ack_known = true;
			if (P->joined)
				suspects_ack(P, !d);
		}
	}
	if (!fr_pure_ack(&f))
		ivs_add(&me->seen, f.seq, fr_end(&f));

	if (side_room(v, P, d, p) < 0)
		return;
	struct vp_ring *r = &me->ring;
	uint64_t fidx = r->tail++;
	*ring_at(r, fidx) = f;
	if (P->joined) {
		match_frame(P, d, p, fidx);
		struct vp_frame *fr = ring_at(r, fidx);
		if (fr->state == VPS_PENDING && fr->copies == 0 && is_dup(me, fr, fidx))
			fr->state = VPS_DUP;
		for (unsigned dd = 0; dd < SUM_DIR_COUNT; dd++) {
			side_advance(v, P, dd, 0, false);
			side_advance(v, P, dd, 1, false);
		}
	} else {
		/* Not joined: nothing to wait for; the cursor keeps pace. */
		side_advance(v, P, d, p, false);
	}
}

/* A pair is over: resolve everything, free the rings, keep the counts. */
static void conclude(struct vpair *v, struct vp_pair *P)
{
	for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
		for (unsigned p = 0; p < 2; p++) {
			side_advance(v, P, d, p, true);
			struct vp_side *s = &P->side[p][d];
			/* Suspects whose ACK never came: not explained. */
			for (unsigned k = 0; k < s->nsus; k++)
				for (uint32_t i = 0; i < s->sus[k].count; i++)
					unm_judge(s, false, false);
			s->nsus = 0;
			free(s->ring.f);
			s->ring = (struct vp_ring){0};
		}
	}
	P->concluded = true;
	for (unsigned p = 0; p < 2; p++)
		if (P->have[p])
			map_del(v, P->conn[p]);
	if (v->ndone == v->done_cap) {
		size_t ncap = v->done_cap ? v->done_cap * 2 : 16;
		struct vp_pair **n = realloc(v->done, ncap * sizeof(*n));
		if (!n) {
			/* Out of memory: the pair's result is lost, its memory not. */
			for (unsigned p = 0; p < 2; p++)
				for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
					free(P->side[p][d].st.unm);
					free(P->side[p][d].st.unm_explained);
				}
			free(P);
			return;
		}
		v->done = n;
		v->done_cap = ncap;
	}
	v->done[v->ndone++] = P;
}

static void free_half(struct vp_pair *P)
{
	for (unsigned p = 0; p < 2; p++)
		for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
			free(P->side[p][d].ring.f);
			free(P->side[p][d].st.unm);
			free(P->side[p][d].st.unm_explained);
		}
	free(P);
}

static void on_conn(void *ctx, const struct sum_conn *c)
{
	struct vpair *v = ctx;
	struct vp_slot *slot = map_find(v, c->id);
	if (!slot)
		return;
	struct vp_pair *P = slot->p;
	unsigned p = slot->point;
	P->ended[p] = true;
	rep_format_endpoint(&c->client, c->client_port, P->ep[p][0], sizeof(P->ep[p][0]));
	rep_format_endpoint(&c->server, c->server_port, P->ep[p][1], sizeof(P->ep[p][1]));
	if (!P->joined) {
		/* Never seen at the other point (as far as a join could tell). */
		v->tot.not_joined[p]++;
		map_del(v, c->id);
		free_half(P);
		return;
	}
	if (P->ended[0] && P->ended[1])
		conclude(v, P);
}

struct sum_sink vp_sink(struct vpair *v)
{
	return (struct sum_sink){.segment = on_segment, .conn = on_conn, .ctx = v};
}

struct vpair *vp_new(const struct vp_config *cfg, char *errbuf, size_t errlen)
{
	struct vpair *v = calloc(1, sizeof(*v));
	if (v)
		v->fp = calloc(VP_FP_SLOTS, sizeof(*v->fp));
	if (!v || !v->fp) {
		free(v);
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	v->cfg = *cfg;
	if (v->cfg.max_offset_ns <= 0)
		v->cfg.max_offset_ns = VP_MAX_OFFSET_DEFAULT_NS;
	if (v->cfg.window < 64)
		v->cfg.window = cfg->window ? 64 : VP_WINDOW_DEFAULT;
	return v;
}

/* ---- results ---- */

/* The q quantile of the n sorted samples (nearest rank). */
static int64_t quantile(const int64_t *s, unsigned n, double q)
{
	unsigned k = (unsigned)(q * (double)n + 0.999999);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return s[k - 1];
}

/* Which direction of pair P passes input 0 first, from its delays alone:
 * the direction whose copies reach input 1 later (relative to input 0)
 * than the other direction's does. -1: cannot tell (one direction). */
static int a_first_dir(const struct vp_pair *P)
{
	const struct vp_delays *c = &P->pd[0].d, *s = &P->pd[1].d;
	if (!c->n || !s->n)
		return -1;
	/* D = owd + offset where input 0 is upstream, offset - owd where it
	 * is downstream: the upstream-at-0 direction has the larger D. */
	return (c->min + c->max) / 2 >= (s->min + s->max) / 2 ? 0 : 1;
}

static void fill_dir(struct vpair *v, const struct vp_pair *P, unsigned d, struct vp_dir_result *o,
		     int afirst)
{
	const struct vp_pdir *pd = &P->pd[d];
	const struct vp_delays *dl = &pd->d;
	unsigned up;

	o->delays_absolute = v->tot.offset_known;
	int64_t off = v->tot.offset_known ? v->tot.offset_ns : 0;
	if (afirst >= 0) {
		up = (unsigned)afirst == d ? 0 : 1;
		o->upstream_known = true;
	} else if (dl->n) {
		/* One direction only: the sign of its delay after the offset
		 * (0 when unknown: the delays are relative, the captures'
		 * clocks taken as one). */
		up = dl->min - off >= 0 || dl->max - off >= 0 ? 0 : 1;
		o->upstream_known = true;
	} else {
		up = 0;
	}
	o->upstream = (uint8_t)up;
	const struct vp_side *U = &P->side[up][d], *D = &P->side[!up][d];
	o->segments[0] = P->side[0][d].st.segments;
	o->segments[1] = P->side[1][d].st.segments;
	o->matched = D->st.matched;
	o->lost = U->st.unexplained + U->st.unexplained_acks;
	o->lost_pure_acks = U->st.unexplained_acks;
	o->capture_loss_down = U->st.explained;
	o->capture_loss_up = D->st.explained + D->st.unexplained + D->st.unexplained_acks;
	o->reordered = D->st.reordered;
	o->queue_switch_reorders = D->st.qswitch;
	o->max_extent = D->st.max_extent;
	o->duplicated = D->st.dup > U->st.dup ? D->st.dup - U->st.dup : 0;
	for (unsigned k = 0; k < VP_CH_COUNT; k++)
		o->changed[k] = pd->changed[k];
	o->changed[VP_CH_SPLIT] = U->st.multi;
	o->changed[VP_CH_MERGED] = D->st.multi;
	o->outside = U->st.outside + D->st.outside;
	o->window_overflow = U->st.overflow + D->st.overflow;
	o->waited_out = U->st.waited + D->st.waited;
	if (dl->ns) {
		int64_t s[VP_SAMPLES];
		memcpy(s, dl->s, dl->ns * sizeof(s[0]));
		/* One-way delay: D - offset when input 0 is upstream, offset - D
		 * when input 1 is. */
		for (unsigned k = 0; k < dl->ns; k++)
			s[k] = up == 0 ? s[k] - off : off - s[k];
		/* Growth: the samples are in time order (delay_add() thins
		 * them evenly), so the median of the last quarter minus that
		 * of the first is how much queueing between the points built
		 * up over the connection (negative: it drained). */
		unsigned q = dl->ns / 4 ? dl->ns / 4 : 1;
		int64_t first[VP_SAMPLES / 4 + 1], last[VP_SAMPLES / 4 + 1];
		memcpy(first, s, q * sizeof(s[0]));
		memcpy(last, s + dl->ns - q, q * sizeof(s[0]));
		qsort(first, q, sizeof(first[0]), cmp_i64);
		qsort(last, q, sizeof(last[0]), cmp_i64);
		o->owd_growth_ns = quantile(last, q, 0.5) - quantile(first, q, 0.5);
		qsort(s, dl->ns, sizeof(s[0]), cmp_i64);
		o->have_owd = true;
		o->owd_min_ns = up == 0 ? dl->min - off : off - dl->max;
		o->owd_median_ns = quantile(s, dl->ns, 0.5);
		o->owd_p99_ns = quantile(s, dl->ns, 0.99);
	}
	/* Examples: lost and capture loss from the unmatched lists. */
	for (unsigned w = 0; w < 2; w++) {
		const struct vp_side *S = w == 0 ? U : D;
		for (uint32_t k = 0; k < S->st.nunm; k++) {
			bool expl = S->st.unm_explained && S->st.unm_explained[k];
			enum vp_ex_kind kind = w == 0 && !expl ? VP_EX_LOST : VP_EX_CAPTURE_LOSS;
			uint32_t cap = kind == VP_EX_LOST ? VP_LOST_EXAMPLES : VP_EXAMPLES;
			if (!o->ex[kind])
				o->ex[kind] = calloc(cap, sizeof(struct vp_example));
			if (o->ex[kind] && o->nex[kind] < cap)
				o->ex[kind][o->nex[kind]++] = S->st.unm[k];
			else
				o->ex_left_out[kind]++;
		}
		if (w == 0)
			o->ex_left_out[VP_EX_LOST] += S->st.unm_left;
	}
	const struct vp_example *src[3] = {D->st.ro, D->st.dupex, pd->chex};
	const uint32_t nsrc[3] = {D->st.nro, 0, pd->nch};
	const enum vp_ex_kind kinds[3] = {VP_EX_REORDERED, VP_EX_DUPLICATED, VP_EX_CHANGED};
	for (unsigned k = 0; k < 3; k++) {
		if (!nsrc[k])
			continue;
		o->ex[kinds[k]] = calloc(nsrc[k], sizeof(struct vp_example));
		if (!o->ex[kinds[k]])
			continue;
		memcpy(o->ex[kinds[k]], src[k], nsrc[k] * sizeof(struct vp_example));
		o->nex[kinds[k]] = nsrc[k];
	}
	o->ex_left_out[VP_EX_REORDERED] = o->reordered - o->nex[VP_EX_REORDERED];
	o->ex_left_out[VP_EX_CHANGED] = pd->chex_left;
}

static int cmp_index(const void *a, const void *b)
{
	const struct vp_index *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

void vp_finish(struct vpair *v)
{
	if (v->finished)
		return;
	v->finished = true;
	/* Pairs still open (a side never ended: the engine always ends them,
	 * but be safe), and half pairs never joined: taken out of the table
	 * first, as ending them changes it. */
	size_t nopen = v->map_n, got = 0;
	struct vp_slot *open = nopen ? malloc(nopen * sizeof(*open)) : NULL;
	for (size_t k = 0; open && k < v->map_cap; k++)
		if (v->map[k].id && got < nopen)
			open[got++] = v->map[k];
	for (size_t k = 0; k < got; k++) {
		struct vp_slot *s = map_find(v, open[k].id);
		if (!s || s->p != open[k].p)
			continue; /* the other side of a pair ended above */
		struct vp_pair *P = s->p;
		if (P->joined) {
			conclude(v, P);
		} else {
			v->tot.not_joined[s->point]++;
			map_del(v, open[k].id);
			free_half(P);
		}
	}
	free(open);

	/* The offset: every direction where input 0 is upstream bounds it
	 * from above (D = owd + offset, owd >= 0), every other from below;
	 * the middle assumes the same minimum delay both ways. */
	bool have_hi = false, have_lo = false;
	int64_t hi = 0, lo = 0;
	for (size_t k = 0; k < v->ndone; k++) {
		const struct vp_pair *P = v->done[k];
		int af = a_first_dir(P);
		if (af < 0)
			continue;
		const struct vp_delays *up0 = &P->pd[af].d, *up1 = &P->pd[!af].d;
		if (!have_hi || up0->min < hi)
			hi = up0->min;
		if (!have_lo || up1->max > lo)
			lo = up1->max;
		have_hi = have_lo = true;
	}
	if (have_hi && have_lo) {
		v->tot.offset_known = true;
		v->tot.offset_ns = lo + (hi - lo) / 2;
	}

	v->res = calloc(v->ndone ? v->ndone : 1, sizeof(*v->res));
	v->idx = calloc(v->ndone ? 2 * v->ndone : 1, sizeof(*v->idx));
	if (!v->res || !v->idx)
		return;
	for (size_t k = 0; k < v->ndone; k++) {
		const struct vp_pair *P = v->done[k];
		struct vp_result *R = &v->res[v->nres];
		int af = a_first_dir(P);
		R->conn[0] = P->conn[0];
		R->conn[1] = P->conn[1];
		R->flip = P->flip;
		memcpy(R->ep, P->ep, sizeof(R->ep));
		for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
			fill_dir(v, P, d, &R->dir[d], af);
			const struct vp_dir_result *o = &R->dir[d];
			int64_t reach =
			    (o->have_owd ? o->owd_p99_ns : 0) +
			    (v->tot.offset_ns < 0 ? -v->tot.offset_ns : v->tot.offset_ns);
			if (reach > v->cfg.max_offset_ns)
				v->tot.max_offset_exceeded = true;
		}
		v->idx[v->nidx++] = (struct vp_index){.id = P->conn[0], .res = (uint32_t)v->nres};
		v->idx[v->nidx++] = (struct vp_index){
		    .id = P->conn[1], .res = (uint32_t)v->nres, .c2s_dir = (uint8_t)P->flip};
		v->nres++;
	}
	qsort(v->idx, v->nidx, sizeof(*v->idx), cmp_index);
}

const struct vp_result *vp_result_of(const struct vpair *v, uint64_t conn_id, unsigned *c2s_dir)
{
	size_t lo = 0, hi = v->nidx;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->idx[mid].id < conn_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == v->nidx || v->idx[lo].id != conn_id)
		return NULL;
	if (c2s_dir)
		*c2s_dir = v->idx[lo].c2s_dir;
	return &v->res[v->idx[lo].res];
}

const struct vp_totals *vp_get_totals(const struct vpair *v)
{
	return &v->tot;
}

void vp_free(struct vpair *v)
{
	if (!v)
		return;
	for (size_t k = 0; k < v->map_cap; k++)
		if (v->map[k].id && v->map[k].p) {
			struct vp_pair *P = v->map[k].p;
			/* A joined pair sits in the table twice. */
			for (size_t j = k + 1; j < v->map_cap; j++)
				if (v->map[j].p == P)
					v->map[j].p = NULL;
			free_half(P);
		}
	for (size_t k = 0; k < v->ndone; k++) {
		struct vp_pair *P = v->done[k];
		for (unsigned p = 0; p < 2; p++)
			for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
				free(P->side[p][d].st.unm);
				free(P->side[p][d].st.unm_explained);
			}
		free(P);
	}
	for (size_t k = 0; k < v->nres; k++)
		for (unsigned d = 0; d < SUM_DIR_COUNT; d++)
			for (unsigned e = 0; e < VP_EX_KIND_COUNT; e++)
				free(v->res[k].dir[d].ex[e]);
	free(v->res);
	free(v->idx);
	free(v->done);
	free(v->map);
	free(v->fp);
	free(v);
}

/* ---- writers ---- */

static const char *const change_names[VP_CH_COUNT] = {"ttl", "dscp", "mss", "split", "merged"};

static const char *point_name(const struct vpair *v, unsigned p)
{
	return v->cfg.names[p] ? v->cfg.names[p] : p ? "B" : "A";
}

static void jw_examples(struct jo_writer *w, const struct vp_dir_result *o, enum vp_ex_kind kind)
{
	jo_w_arr(w);
	for (uint32_t k = 0; k < o->nex[kind]; k++) {
		const struct vp_example *e = &o->ex[kind][k];
		jo_w_obj(w);
		if (kind == VP_EX_CHANGED) {
			jo_kint(w, "downstream_frame", e->len);
			jo_kint(w, "frame", (int64_t)e->frame);
			jo_kint(w, "from", e->a);
			jo_kint(w, "to", e->b);
			jo_ksec(w, "ts", e->ts);
			jo_kstr(w, "what", change_names[e->change % VP_CH_COUNT]);
			jo_w_obj_end(w);
			continue;
		}
		if (kind == VP_EX_REORDERED)
			jo_kint(w, "extent", e->a);
		jo_kint(w, "frame", (int64_t)e->frame);
		jo_kint(w, "input", e->point);
		if (e->flags & VP_EXF_IPID)
			jo_kint(w, "ip_id", e->ip_id);
		else
			jo_knull(w, "ip_id");
		jo_kint(w, "len", e->len);
		jo_kbool(w, "pure_ack", (e->flags & VP_EXF_PURE_ACK) != 0);
		if (kind == VP_EX_REORDERED) {
			if (e->b == 2)
				jo_knull(w, "queue_switch");
			else
				jo_kbool(w, "queue_switch", e->b == 1);
		}
		jo_kint(w, "seq", e->seq);
		jo_ksec(w, "ts", e->ts);
		jo_w_obj_end(w);
	}
	jo_w_arr_end(w);
}

static void jw_dir(const struct vpair *v, struct jo_writer *w, const struct vp_dir_result *o)
{
	unsigned up = o->upstream;
	jo_w_obj(w);
	jo_w_key(w, "capture_loss_at");
	jo_w_obj(w);
	jo_kint(w, "downstream", (int64_t)o->capture_loss_down);
	jo_kint(w, "upstream", (int64_t)o->capture_loss_up);
	jo_w_obj_end(w);
	jo_w_key(w, "changed");
	jo_w_obj(w);
	jo_kint(w, "dscp", (int64_t)o->changed[VP_CH_DSCP]);
	jo_kint(w, "merged", (int64_t)o->changed[VP_CH_MERGED]);
	jo_kint(w, "mss", (int64_t)o->changed[VP_CH_MSS]);
	jo_kint(w, "split", (int64_t)o->changed[VP_CH_SPLIT]);
	jo_kint(w, "ttl", (int64_t)o->changed[VP_CH_TTL]);
	jo_w_obj_end(w);
	jo_kstr(w, "downstream", point_name(v, !up));
	jo_kint(w, "duplicated", (int64_t)o->duplicated);
	jo_w_key(w, "examples");
	jo_w_obj(w);
	static const char *const ex_keys[VP_EX_KIND_COUNT] = {[VP_EX_LOST] = "lost",
							      [VP_EX_CAPTURE_LOSS] = "capture_loss",
							      [VP_EX_REORDERED] = "reordered",
							      [VP_EX_DUPLICATED] = "duplicated",
							      [VP_EX_CHANGED] = "changed"};
	static const enum vp_ex_kind order[VP_EX_KIND_COUNT] = {
	    VP_EX_CAPTURE_LOSS, VP_EX_CHANGED, VP_EX_DUPLICATED, VP_EX_LOST, VP_EX_REORDERED};
	for (unsigned k = 0; k < VP_EX_KIND_COUNT; k++) {
		jo_w_key(w, ex_keys[order[k]]);
		jw_examples(w, o, order[k]);
		if (order[k] == VP_EX_LOST) /* "lost" < "lost_left_out" < "reordered" */
			jo_kint(w, "lost_left_out", (int64_t)o->ex_left_out[VP_EX_LOST]);
	}
	jo_w_obj_end(w);
	jo_kint(w, "lost", (int64_t)o->lost);
	jo_kint(w, "lost_pure_acks", (int64_t)o->lost_pure_acks);
	jo_kint(w, "matched", (int64_t)o->matched);
	jo_kint(w, "max_extent", o->max_extent);
	jo_w_key(w, "one_way_delay_s");
	if (o->have_owd) {
		jo_w_obj(w);
		jo_ksec(w, "growth", o->owd_growth_ns);
		jo_ksec(w, "median", o->owd_median_ns);
		jo_ksec(w, "min", o->owd_min_ns);
		jo_ksec(w, "p99", o->owd_p99_ns);
		jo_w_obj_end(w);
	} else {
		jo_w_null(w);
	}
	jo_kint(w, "outside", (int64_t)o->outside);
	jo_kint(w, "reordered", (int64_t)o->reordered);
	jo_kint(w, "reordered_queue_switch", (int64_t)o->queue_switch_reorders);
	jo_w_key(w, "segments");
	jo_w_obj(w);
	jo_kint(w, "downstream", (int64_t)o->segments[!up]);
	jo_kint(w, "upstream", (int64_t)o->segments[up]);
	jo_w_obj_end(w);
	jo_kstr(w, "upstream", point_name(v, up));
	jo_kbool(w, "upstream_known", o->upstream_known);
	jo_kint(w, "waited_out", (int64_t)o->waited_out);
	jo_kint(w, "window_overflow", (int64_t)o->window_overflow);
	jo_w_obj_end(w);
}

/* between_points of a result, oriented so that c2s is input 0's direction c2s_dir. */
static void jw_between(const struct vpair *v, struct jo_writer *w, const struct vp_result *R,
		       unsigned c2s_dir, uint64_t peer)
{
	const struct vp_dir_result *c2s = &R->dir[c2s_dir], *s2c = &R->dir[!c2s_dir];
	jo_w_obj(w);
	jo_w_key(w, "c2s");
	jw_dir(v, w, c2s);
	jo_kstr(w, "delays", v->tot.offset_known ? "absolute" : "relative");
	jo_kstr(w, "downstream", point_name(v, !c2s->upstream));
	if (v->tot.offset_known)
		jo_ksec(w, "offset_s", v->tot.offset_ns);
	else
		jo_knull(w, "offset_s");
	jo_kint(w, "peer", (int64_t)peer);
	jo_w_key(w, "s2c");
	jw_dir(v, w, s2c);
	jo_kstr(w, "upstream", point_name(v, c2s->upstream));
	jo_w_obj_end(w);
}

static void x_conn_json(void *ctx, struct jo_writer *w, const struct sum_conn *c)
{
	const struct vpair *v = ctx;
	unsigned c2s_dir;
	const struct vp_result *R = vp_result_of(v, c->id, &c2s_dir);
	if (!R)
		return;
	jo_w_key(w, "between_points");
	jw_between(v, w, R, c2s_dir, R->conn[0] == c->id ? R->conn[1] : R->conn[0]);
}

#define VP_ASSUMPTION                                                                              \
	"the shortest one-way delay between the points is the same both ways: offset = (min D(c) " \
	"+ max D(s)) / 2, D the timestamp at the second input minus the first, c the directions "  \
	"passing the first input first"

static void jw_doc(const struct vpair *v, struct jo_writer *w)
{
	const struct vp_totals *t = &v->tot;
	jo_w_obj(w);
	jo_kstr(w, "delays", t->offset_known ? "absolute" : "relative");
	jo_w_key(w, "inputs");
	jo_w_arr(w);
	jo_w_str(w, point_name(v, 0));
	jo_w_str(w, point_name(v, 1));
	jo_w_arr_end(w);
	jo_kint(w, "joined", (int64_t)t->joined);
	jo_kbool(w, "max_offset_exceeded", t->max_offset_exceeded);
	jo_ksec(w, "max_offset_s", v->cfg.max_offset_ns);
	jo_w_key(w, "not_joined");
	jo_w_arr(w);
	jo_w_int(w, (int64_t)t->not_joined[0]);
	jo_w_int(w, (int64_t)t->not_joined[1]);
	jo_w_arr_end(w);
	jo_kstr(w, "offset_assumption", VP_ASSUMPTION);
	if (t->offset_known)
		jo_ksec(w, "offset_s", t->offset_ns);
	else
		jo_knull(w, "offset_s");
	jo_kint(w, "window", v->cfg.window);
	jo_w_obj_end(w);
}

static void x_doc_json(void *ctx, struct jo_writer *w)
{
	jw_doc(ctx, w);
}

static int x_ndjson(void *ctx, struct jo_writer *w)
{
	const struct vpair *v = ctx;
	int rc = 0;
	for (size_t k = 0; k < v->nres && rc == 0; k++) {
		const struct vp_result *R = &v->res[k];
		jo_w_obj(w);
		jo_w_key(w, "between_points");
		jw_between(v, w, R, SUM_C2S, R->conn[1]);
		jo_kint(w, "conn", (int64_t)R->conn[0]);
		jo_kstr(w, "kind", "between_points");
		jo_w_obj_end(w);
		jo_w_raw(w, "\n");
		rc = jo_w_flush(w);
	}
	if (rc == 0) {
		jo_w_obj(w);
		jo_kstr(w, "kind", "vantage_pair");
		jo_w_key(w, "vantage_pair");
		jw_doc(v, w);
		jo_w_obj_end(w);
		jo_w_raw(w, "\n");
		rc = jo_w_flush(w);
	}
	return rc;
}

struct rep_extra vp_extra(struct vpair *v)
{
	return (struct rep_extra){.ctx = v,
				  .conn_json = x_conn_json,
				  .doc_key = "vantage_pair",
				  .doc_json = x_doc_json,
				  .ndjson = x_ndjson};
}

/* "1.2 ms" from ns, signed. */
static void fmt_ns(char *buf, size_t len, int64_t ns)
{
	if (ns < 0) {
		buf[0] = '-';
		rep_fmt_dur(buf + 1, len - 1, -ns);
	} else {
		rep_fmt_dur(buf, len, ns);
	}
}

/* " (frames 12, 57 at a.pcap)" for up to 4 examples of a kind. */
static void text_frames(FILE *out, const struct vpair *v, const struct vp_dir_result *o,
			enum vp_ex_kind kind)
{
	uint32_t n = o->nex[kind];

	if (n == 0)
		return;
	if (n > 4)
		n = 4;
	fputs(" (", out);
	for (uint32_t k = 0; k < n; k++) {
		const struct vp_example *e = &o->ex[kind][k];
		fprintf(out, "%s%s:#%" PRIu64, k ? ", " : "", point_name(v, e->point), e->frame);
		if (kind == VP_EX_REORDERED)
			fprintf(out, " overtaken by %" PRIu32, e->a);
	}
	fprintf(out, "%s)", o->nex[kind] + o->ex_left_out[kind] > n ? ", ..." : "");
}

static void text_dir(FILE *out, const struct vpair *v, const struct vp_dir_result *o,
		     const char *name)
{
	unsigned up = o->upstream;
	fprintf(out, "  %s: ", name);
	if (!o->upstream_known) {
		fprintf(out, "no segment seen at both points.\n");
		return;
	}
	fprintf(out,
		"passes %s first (upstream), then %s. %" PRIu64 " segment%s upstream, %" PRIu64
		" downstream.\n",
		point_name(v, up), point_name(v, !up), o->segments[up], rep_plural(o->segments[up]),
		o->segments[!up]);
	fprintf(out, "    %" PRIu64 " lost between the points", o->lost);
	if (o->lost_pure_acks)
		fprintf(out, " (%" PRIu64 " of them pure ACKs)", o->lost_pure_acks);
	text_frames(out, v, o, VP_EX_LOST);
	fprintf(out, "; %" PRIu64 " reordered, max extent %" PRIu32, o->reordered, o->max_extent);
	if (o->queue_switch_reorders)
		fprintf(out, ", %" PRIu64 " at a queue change", o->queue_switch_reorders);
	text_frames(out, v, o, VP_EX_REORDERED);
	fprintf(out, "; %" PRIu64 " duplicated", o->duplicated);
	text_frames(out, v, o, VP_EX_DUPLICATED);
	fputs(".\n", out);
	uint64_t ch = 0;
	for (unsigned k = 0; k < VP_CH_COUNT; k++)
		ch += o->changed[k];
	if (ch) {
		fputs("    Changed in flight:", out);
		for (unsigned k = 0, first = 1; k < VP_CH_COUNT; k++)
			if (o->changed[k]) {
				fprintf(out, "%s %s %" PRIu64, first ? "" : ",", change_names[k],
					o->changed[k]);
				first = 0;
			}
		if (o->nex[VP_EX_CHANGED]) {
			const struct vp_example *e = &o->ex[VP_EX_CHANGED][0];
			fprintf(out, " (e.g. %s %" PRIu32 " -> %" PRIu32 ", %s:#%" PRIu64 ")",
				change_names[e->change % VP_CH_COUNT], e->a, e->b, point_name(v, 0),
				e->frame);
		}
		fputs(".\n", out);
	} else {
		fputs("    Nothing changed in flight (TTL, DSCP, MSS, segmentation).\n", out);
	}
	if (o->have_owd) {
		char a[32], b[32], c[32], g[32];
		fmt_ns(a, sizeof(a), o->owd_min_ns);
		fmt_ns(b, sizeof(b), o->owd_median_ns);
		fmt_ns(c, sizeof(c), o->owd_p99_ns);
		fmt_ns(g, sizeof(g), o->owd_growth_ns);
		fprintf(out,
			"    One-way delay%s: min %s, median %s, p99 %s; growth %s (median of the "
			"last quarter minus the first: queueing when positive).\n",
			v->tot.offset_known ? "" : " (relative: clock offset unknown)", a, b, c, g);
	}
	fprintf(out,
		"    Missed by the captures themselves: %" PRIu64 " at %s (upstream), %" PRIu64
		" at %s (downstream)",
		o->capture_loss_up, point_name(v, up), o->capture_loss_down, point_name(v, !up));
	text_frames(out, v, o, VP_EX_CAPTURE_LOSS);
	fputs(".\n", out);
	if (o->window_overflow)
		fprintf(out,
			"    %" PRIu64
			" segments overflowed the matching window (--vantage-window):"
			" their verdicts may be wrong.\n",
			o->window_overflow);
}

int vp_write_text(const struct vpair *v, FILE *out)
{
	const struct vp_totals *t = &v->tot;
	fprintf(out, "\nBetween the capture points %s and %s:\n", point_name(v, 0),
		point_name(v, 1));
	fprintf(out,
		"  %" PRIu64 " connection%s joined; not joined: %" PRIu64
		" seen only at %s, %" PRIu64 " only at %s.\n",
		t->joined, rep_plural(t->joined), t->not_joined[0], point_name(v, 0),
		t->not_joined[1], point_name(v, 1));
	if (t->offset_known) {
		char a[32];
		fmt_ns(a, sizeof(a), t->offset_ns);
		fprintf(out,
			"  Clock of %s minus clock of %s: %s (assuming the shortest one-way delay "
			"is the same both ways).\n",
			point_name(v, 1), point_name(v, 0), a);
	} else {
		fputs("  Clock offset unknown (no connection carried segments both ways): "
		      "delays are relative.\n",
		      out);
	}
	if (t->max_offset_exceeded)
		fputs("  Warning: offset plus delay exceed --vantage-max-offset: segments may have "
		      "been judged lost before their copy came.\n",
		      out);
	for (size_t k = 0; k < v->nres; k++) {
		const struct vp_result *R = &v->res[k];
		fprintf(out,
			"\nConnection %" PRIu64 " at %s = connection %" PRIu64 " at %s: %s > %s",
			R->conn[0], point_name(v, 0), R->conn[1], point_name(v, 1), R->ep[0][0],
			R->ep[0][1]);
		if (strcmp(R->ep[0][0], R->ep[1][R->flip]) ||
		    strcmp(R->ep[0][1], R->ep[1][!R->flip]))
			fprintf(out, " (at %s: %s > %s)", point_name(v, 1), R->ep[1][R->flip],
				R->ep[1][!R->flip]);
		fputs("\n", out);
		text_dir(out, v, &R->dir[SUM_C2S], "c2s");
		text_dir(out, v, &R->dir[SUM_S2C], "s2c");
	}
	return ferror(out) ? -EIO : 0;
}
