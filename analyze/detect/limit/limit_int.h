/* limit_int.h - internal to the limit detector: what limit.c and limit_slices.c share. */
#ifndef TCPSIFT_LIMIT_INT_H
#define TCPSIFT_LIMIT_INT_H

/*
 * Internal: only analyze/detect/limit/limit.c and limit_slices.c (not
 * limit_report.c) include this. The detector is one module (limit.h) in
 * two files:
 *
 *   limit.c         the rules: per packet, each direction's class and
 *                   what it is charged
 *   limit_slices.c  where the charged time goes: the totals and the
 *                   slices of the timeline, taken on first need
 */

#include <stdint.h>

#include "analyze/detect/limit/limit.h"

/* Charge [a, b) of s's transfer to class k, in the totals and the slices,
 * taken from env's pools when the transfer first leaves the first one (no
 * memory: out.width becomes 0, the direction gives no result). */
void limit_add(struct limit_dir_state *s, const struct det_env *env, unsigned k, int64_t a,
	       int64_t b);
/* Move up to ns of the time charged to class from over to class to (a stall
 * the stall detector decided after its time was charged). */
void limit_move(struct limit_dir_state *s, unsigned from, unsigned to, int64_t ns);
/* o's slices (nslices, slice[]) from s's timeline, its open slice closed. */
void limit_slices_fill(struct limit_dir *o, struct limit_dir_state *s);

#endif
