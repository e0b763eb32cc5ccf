/* sackboard_int.h - the SACK scoreboard's internals, shared by sackboard.c and sackboard_tab.c. */
#ifndef TCPSIFT_SACKBOARD_INT_H
#define TCPSIFT_SACKBOARD_INT_H

#include "analyze/detect/sack/sackboard.h"
#include "analyze/engine/seq.h"

static inline bool sackb_range_empty(struct sackb_range r)
{
	return r.lo == r.hi;
}

/* r widened to hold [lo, hi) (non-empty). */
static inline void sackb_range_add(struct sackb_range *r, uint32_t lo, uint32_t hi)
{
	if (sackb_range_empty(*r)) {
		r->lo = lo;
		r->hi = hi;
		return;
	}
	r->lo = seq_min(r->lo, lo);
	r->hi = seq_max(r->hi, hi);
}

/* The part of r inside [lo, hi), empty if none. */
static inline struct sackb_range sackb_range_clamp(struct sackb_range r, uint32_t lo, uint32_t hi)
{
	struct sackb_range o = {0, 0};

	if (sackb_range_empty(r))
		return o;
	lo = seq_max(lo, r.lo);
	hi = seq_min(hi, r.hi);
	if (seq_lt(lo, hi)) {
		o.lo = lo;
		o.hi = hi;
	}
	return o;
}

/* ---- sackboard_tab.c: the tables ---- */

/* Room for one more hole or block in sd (grown from env's pools up to the
 * cap); false when full at the cap or out of memory (the pool counts it). */
bool sackb_room(struct sackb_dir *sd, const struct det_env *env, uint16_t n);
/* Give back sd's table. */
void sackb_tab_put(struct sackb_dir *sd, const struct det_env *env);
/* Merge R's block [l, r) into the remembered ones; true if they changed. */
bool sackb_blocks_insert(struct sackb_dir *sd, const struct det_env *env, struct sackb_summary *sum,
			 uint32_t l, uint32_t r);
/* Forget SACKed ranges the cumulative ACK passed; true if they changed. */
bool sackb_blocks_prune(struct sackb_dir *sd, uint32_t una);
/* Index of the first block ending after seq (nblocks if none). */
uint32_t sackb_block_after(const struct sackb_dir *sd, uint32_t seq);
/* Do snd_una and the blocks cover all of [start, end)? */
bool sackb_covered(const struct sackb_dir *sd, uint32_t una, uint32_t start, uint32_t end);
void sackb_hole_remove(struct sackb_dir *sd, uint32_t k);

#endif
