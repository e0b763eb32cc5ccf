/* vpair_int.h - internal to the two-point joiner: what its pieces (vpair*.c) share. */
#ifndef TCPSIFT_VPAIR_INT_H
#define TCPSIFT_VPAIR_INT_H

/*
 * Internal: only analyze/vpair/vpair*.c include this; the contract is
 * vpair.h. One module in four files:
 *
 *   vpair.c         the sink: the conn id -> pair table, joining two half
 *                   pairs on a segment seen at both points, each segment
 *                   into its side's ring, a pair's end; vp_new(), vp_free()
 *   vpair_match.c   a side's byte ranges, delays and examples; matching a
 *                   segment with its copies at the other point, judging the
 *                   unmatched ones, the cursor that compares the two orders
 *   vpair_result.c  after the run: the clock offset, each joined pair's
 *                   results (struct vp_result), the index by connection id
 *   vpair_out.c     the writers: JSON "between_points" and "vantage_pair",
 *                   NDJSON lines, the text section
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/vpair/vpair.h"

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

/* ---- vpair.c ---- */

/* The slot of conn id, or NULL. */
struct vp_slot *vp_map_find(const struct vpair *v, uint64_t id);
void vp_map_del(struct vpair *v, uint64_t id);
/* A pair is over: resolve everything, free the rings, keep the counts
 * (P moves to v->done, or is freed when that cannot grow). */
void vp_conclude(struct vpair *v, struct vp_pair *P);
/* Free a pair that is in no list (its rings and examples too). */
void vp_free_half(struct vp_pair *P);

/* ---- vpair_match.c ---- */

void vp_ivs_add(struct vp_ivset *s, uint32_t seq, uint32_t end);
/* Match frame fidx of side (p, d) with the other point's pending frames. */
void vp_match_frame(struct vp_pair *P, unsigned d, unsigned p, uint64_t fidx);
bool vp_is_dup(const struct vp_side *s, const struct vp_frame *f, uint64_t fidx);
void vp_unm_judge(struct vp_side *s, bool explained, bool pure_ack);
void vp_suspects_ack(struct vp_pair *P, unsigned d);
void vp_side_advance(struct vpair *v, struct vp_pair *P, unsigned d, unsigned p, bool force);
/* 0, or ERR_NOMEM when the side has no ring at all. */
int vp_side_room(struct vpair *v, struct vp_pair *P, unsigned d, unsigned p);

#endif
