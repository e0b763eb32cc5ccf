/* limit_slices.c - the limit detector's timeline: each direction's time by class, slice by slice.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyze/detect/limit/limit_int.h"
#include "common/clock.h"

/*
 * A direction's time is charged to its totals (limit_count.ns) and to the
 * slice it falls in (limit_types.h). The slices' memory, struct
 * limit_slices, is taken only when the transfer first leaves the first
 * slice: until then that slice's time is the totals themselves, so a
 * direction that sent a request and went quiet (most live connections of a
 * busy server) never holds it.
 */

/* Share of the slice width that acc is, in 255ths (added to a share:
 * capped at 255 there). acc <= width, which may be near INT64_MAX (hostile
 * timestamps): scale in double, never acc * 255 in 64 bits. */
static int64_t limit_255ths(int64_t acc, int64_t width)
{
	return (int64_t)((double)acc * 255.0 / (double)width);
}

/* Fold class k's time in the open slice into its share. */
static void limit_slice_fold(struct limit_slices *sl, uint8_t *sh, unsigned k, int64_t width)
{
	int64_t v = sh[k] + limit_255ths(sl->acc[k], width);
	sh[k] = (uint8_t)(v > 255 ? 255 : v);
	sl->acc[k] = 0;
}

/* Fold the current slice's time into its shares (s->slices taken). */
static void limit_slice_flush(struct limit_dir_state *s)
{
	struct limit_slices *sl = s->slices;

	if (!s->nslices)
		return;
	uint8_t *sh = sl->share[s->nslices - 1];
	for (unsigned k = 0; k < LIMIT_COUNT; k++)
		if (sl->acc[k]) /* most classes in most slices: no division */
			limit_slice_fold(sl, sh, k, s->out.width);
}

/* The transfer outgrew the slices: neighbours merge, the width doubles. */
static void limit_slice_merge(struct limit_dir_state *s)
{
	uint8_t(*share)[LIMIT_COUNT] = s->slices->share;

	limit_slice_flush(s);
	/* Each pair's shares, rounded up, a row of eight bytes at a time: per
	 * byte, (a + b + 1) / 2 == (a | b) - ((a ^ b) >> 1), which never
	 * borrows across bytes. */
	for (unsigned j = 0; j < LIMIT_SLICES / 2; j++) {
		uint64_t a, b, avg;
		memcpy(&a, share[2 * j], sizeof(a));
		memcpy(&b, share[2 * j + 1], sizeof(b));
		avg = (a | b) - (((a ^ b) >> 1) & 0x7f7f7f7f7f7f7f7full);
		memcpy(share[j], &avg, sizeof(avg));
	}
	memset(share[LIMIT_SLICES / 2], 0, sizeof(s->slices->share) / 2);
	s->out.width = clock_sat_mul(s->out.width, 2);
	s->nslices = (uint8_t)((s->nslices + 1) / 2);
}

/* Has the direction been charged any time? (Then, without its slices, it
 * has one slice: the first, its time out.ns; moves keep the sum.) */
static uint8_t limit_first_slices(const struct limit_dir_state *s)
{
	for (unsigned k = 0; k < LIMIT_COUNT; k++)
		if (s->out.ns[k])
			return 1;
	return 0;
}

/*
 * An interval ending at b, the direction without its slices: while b is in
 * the first slice, out.ns is all the timeline needs (false). Past it, take
 * them, the first slice open with out.ns's time, as it would have been
 * (true). No memory (false): out.width 0 marks a direction without a
 * result, as one that found no memory for its block (limit.c's limit_finish()); its
 * slices are not asked for again (counted once, in the pool).
 */
static bool limit_slices_take(struct limit_dir_state *s, const struct det_env *env, int64_t b)
{
	if (!s->out.width || b <= clock_sat_add(s->out.t0, s->out.width))
		return false;
	if (!(s->slices = pool_get(env->pools->limit_slices[0]))) {
		s->out.width = 0;
		return false;
	}
	memcpy(s->slices->acc, s->out.ns, sizeof(s->slices->acc));
	s->nslices = limit_first_slices(s);
	return true;
}

/* limit_add() past the open slice, or without the slices: apart, so that
 * the common case stays a leaf with few registers to save. */
__attribute__((noinline)) static void limit_add_slices(struct limit_dir_state *s,
						       const struct det_env *env, unsigned k,
						       int64_t a, int64_t b)
{
	if (!s->slices && !limit_slices_take(s, env, b)) {
		s->out.ns[k] = clock_sat_add(s->out.ns[k], b - a); /* the first slice's */
		return;
	}
	s->out.ns[k] = clock_sat_add(s->out.ns[k], b - a);
	/* The first slice's index takes a division; each next one is the one
	 * after it, unless the slices merged. Once the first crossing flushed
	 * the open slice, the slices the interval crosses hold only k's time. */
	int64_t idx = (a - s->out.t0) / s->out.width;
	bool only_k = false;
	while (a < b) {
		if (idx >= LIMIT_SLICES) {
			do {
				limit_slice_merge(s);
				idx = (a - s->out.t0) / s->out.width;
			} while (idx >= LIMIT_SLICES);
			only_k = false;
		}
		if (idx + 1 != s->nslices) {
			if (!only_k)
				limit_slice_flush(s);
			else if (s->slices->acc[k])
				limit_slice_fold(s->slices, s->slices->share[s->nslices - 1], k,
						 s->out.width);
			s->nslices = (uint8_t)(idx + 1);
			only_k = true;
		}
		int64_t end = clock_sat_add(s->out.t0, clock_sat_mul(s->out.width, idx + 1));
		int64_t e = b < end ? b : end;
		s->slices->acc[k] += e - a;
		a = e;
		idx++;
	}
}

void limit_add(struct limit_dir_state *s, const struct det_env *env, unsigned k, int64_t a,
	       int64_t b)
{
	if (a < s->out.t0)
		a = s->out.t0;
	if (b <= a)
		return;
	if (s->nslices) {
		/* Most intervals fall in the open slice: no division. */
		int64_t hi = clock_sat_add(s->out.t0, clock_sat_mul(s->out.width, s->nslices));
		if (b <= hi && a >= hi - s->out.width) {
			s->out.ns[k] = clock_sat_add(s->out.ns[k], b - a);
			s->slices->acc[k] += b - a;
			return;
		}
	}
	limit_add_slices(s, env, k, a, b);
}

void limit_move(struct limit_dir_state *s, unsigned from, unsigned to, int64_t ns)
{
	if (ns > s->out.ns[from])
		ns = s->out.ns[from];
	s->out.ns[from] -= ns;
	s->out.ns[to] += ns;
	if (!s->slices)
		return; /* the first slice's time is out.ns */
	int64_t *acc = s->slices->acc;
	if (ns > acc[from])
		ns = acc[from];
	acc[from] -= ns;
	acc[to] += ns;
}

/* A slice's dominant class: the largest share (ties: the lower class),
 * LIMIT_NONE if all are 0. */
static uint8_t limit_slice_class(const uint8_t sh[LIMIT_COUNT])
{
	unsigned best = LIMIT_NONE;

	for (unsigned i = 0; i < LIMIT_COUNT; i++)
		if (sh[i] && (best == LIMIT_NONE || sh[i] > sh[best]))
			best = i;
	return (uint8_t)best;
}

void limit_slices_fill(struct limit_dir *o, struct limit_dir_state *s)
{
	uint8_t first[LIMIT_COUNT] = {0};

	memset(o->slice, LIMIT_NONE, sizeof(o->slice));
	if (s->slices) {
		limit_slice_flush(s);
		o->nslices = s->nslices;
		for (unsigned j = 0; j < o->nslices && j < LIMIT_SLICES; j++)
			o->slice[j] = limit_slice_class(s->slices->share[j]);
		return;
	}
	/* Still in the first slice: its shares, as limit_slice_flush()
	 * would have made them from the same time. */
	o->nslices = limit_first_slices(s);
	for (unsigned k = 0; k < LIMIT_COUNT; k++) {
		int64_t v = s->out.ns[k] ? limit_255ths(s->out.ns[k], s->out.width) : 0;
		first[k] = (uint8_t)(v > 255 ? 255 : v);
	}
	if (o->nslices)
		o->slice[0] = limit_slice_class(first);
}
