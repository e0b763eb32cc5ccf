/* vpair_result.c - the two-point joiner's results: the clock offset and each joined pair's counts.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/vpair/vpair_int.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
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
		struct vp_slot *s = vp_map_find(v, open[k].id);
		if (!s || s->p != open[k].p)
			continue; /* the other side of a pair ended above */
		struct vp_pair *P = s->p;
		if (P->joined) {
			vp_conclude(v, P);
		} else {
			v->tot.not_joined[s->point]++;
			vp_map_del(v, open[k].id);
			vp_free_half(P);
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
