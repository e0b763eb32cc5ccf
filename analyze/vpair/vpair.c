/* vpair.c - join two capture points: match each segment with its copy, say what happened between.
 */
#include "analyze/vpair/vpair.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/vpair/vpair_int.h"
#include "common/err.h"
#include "common/grow.h"
#include "common/hash.h"

/* ---- conn id -> pair ---- */

struct vp_slot *vp_map_find(const struct vpair *v, uint64_t id)
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
			return ERR_NOMEM;
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
	struct vp_slot *s = vp_map_find(v, id);
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

void vp_map_del(struct vpair *v, uint64_t id)
{
	struct vp_slot *s = vp_map_find(v, id);
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
		struct vp_slot *o = vp_map_find(v, e->conn);
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
						vp_match_frame(a, d, 1, k);
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
	vp_ivs_add(&rev->dsacked, lo, hi);
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

	struct vp_slot *slot = vp_map_find(v, s->conn);
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
				vp_suspects_ack(P, !d);
		}
	}
	if (!fr_pure_ack(&f))
		vp_ivs_add(&me->seen, f.seq, fr_end(&f));

	if (vp_side_room(v, P, d, p) < 0)
		return;
	struct vp_ring *r = &me->ring;
	uint64_t fidx = r->tail++;
	*ring_at(r, fidx) = f;
	if (P->joined) {
		vp_match_frame(P, d, p, fidx);
		struct vp_frame *fr = ring_at(r, fidx);
		if (fr->state == VPS_PENDING && fr->copies == 0 && vp_is_dup(me, fr, fidx))
			fr->state = VPS_DUP;
		for (unsigned dd = 0; dd < SUM_DIR_COUNT; dd++) {
			vp_side_advance(v, P, dd, 0, false);
			vp_side_advance(v, P, dd, 1, false);
		}
	} else {
		/* Not joined: nothing to wait for; the cursor keeps pace. */
		vp_side_advance(v, P, d, p, false);
	}
}

/* A pair is over: resolve everything, free the rings, keep the counts. */
void vp_conclude(struct vpair *v, struct vp_pair *P)
{
	for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
		for (unsigned p = 0; p < 2; p++) {
			vp_side_advance(v, P, d, p, true);
			struct vp_side *s = &P->side[p][d];
			/* Suspects whose ACK never came: not explained. */
			for (unsigned k = 0; k < s->nsus; k++)
				for (uint32_t i = 0; i < s->sus[k].count; i++)
					vp_unm_judge(s, false, false);
			s->nsus = 0;
			free(s->ring.f);
			s->ring = (struct vp_ring){0};
		}
	}
	P->concluded = true;
	for (unsigned p = 0; p < 2; p++)
		if (P->have[p])
			vp_map_del(v, P->conn[p]);
	if (GROW(v->done, v->done_cap, v->ndone + 1, 16) < 0) {
		/* Out of memory: the pair's result is lost, its memory not. */
		for (unsigned p = 0; p < 2; p++)
			for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
				free(P->side[p][d].st.unm);
				free(P->side[p][d].st.unm_explained);
			}
		free(P);
		return;
	}
	v->done[v->ndone++] = P;
}

void vp_free_half(struct vp_pair *P)
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
	struct vp_slot *slot = vp_map_find(v, c->id);
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
		vp_map_del(v, c->id);
		vp_free_half(P);
		return;
	}
	if (P->ended[0] && P->ended[1])
		vp_conclude(v, P);
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
			vp_free_half(P);
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
