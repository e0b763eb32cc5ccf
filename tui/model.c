/* model.c - connections, timelines and findings for the dashboard, fed by the engine's sink. */
#include "tui/model.h"

#include "common/err.h"
#include "common/grow.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tm_conn {
	uint64_t id; /* 0: free slot */
	bool have_summary;
	bool ended;
	struct sum_conn s;
	struct det_totals live; /* its detector events so far */
	struct tm_timeline tl;
	struct tm_rate rate;
	uint64_t queue_pkts[TM_QUEUES];
	uint32_t next_free;
};

#define TM_NIL UINT32_MAX

struct tm_model {
	struct tm_config cfg;
	struct tm_conn *conns; /* slots; grows when a connection is new, never per packet */
	uint32_t nconns, cap, free_head, used;
	uint32_t *index; /* open addressing, linear probing: slot + 1, 0 empty */
	uint32_t index_mask;
	uint64_t *ended; /* ids of ended connections, oldest first (a ring) */
	uint32_t ended_head, ended_n;
	struct sum_event log[TM_LOG]; /* a ring; log_head is the next to write */
	uint32_t log_head, log_n;
	struct tm_group groups[TM_GROUPS]; /* in no order; ngroups used */
	uint32_t ngroups;
	uint64_t nlogged; /* findings logged since the start: the groups' clock */
	struct tm_totals tot;
	int64_t now;
};

static uint32_t id_hash(uint64_t id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	return (uint32_t)id;
}

struct tm_model *tm_new(const struct tm_config *cfg, char *errbuf, size_t errlen)
{
	struct tm_model *m = calloc(1, sizeof(*m));

	if (!m)
		goto err;
	m->cfg = *cfg;
	if (m->cfg.keep_ended == 0)
		m->cfg.keep_ended = 1;
	m->ended = calloc(m->cfg.keep_ended, sizeof(*m->ended));
	m->index_mask = 1023;
	m->index = calloc(m->index_mask + 1, sizeof(*m->index));
	m->free_head = TM_NIL;
	if (!m->ended || !m->index)
		goto err;
	return m;
err:
	snprintf(errbuf, errlen, "out of memory");
	if (m) {
		free(m->ended);
		free(m->index);
		free(m);
	}
	return NULL;
}

void tm_free(struct tm_model *m)
{
	if (!m)
		return;
	free(m->conns);
	free(m->index);
	free(m->ended);
	free(m);
}

static uint32_t *index_find(const struct tm_model *m, uint64_t id)
{
	for (uint32_t k = id_hash(id) & m->index_mask;; k = (k + 1) & m->index_mask) {
		uint32_t v = m->index[k];
		if (v == 0 || m->conns[v - 1].id == id)
			return &m->index[k];
	}
}

static struct tm_conn *conn_find(const struct tm_model *m, uint64_t id)
{
	uint32_t v = *index_find(m, id);
	return v ? &m->conns[v - 1] : NULL;
}

static int index_grow(struct tm_model *m)
{
	uint32_t nmask = m->index_mask * 2 + 1;
	uint32_t *n = calloc((size_t)nmask + 1, sizeof(*n));

	if (!n)
		return ERR_NOMEM;
	free(m->index);
	m->index = n;
	m->index_mask = nmask;
	/* The analyzer's null conns with nconns > 0 cannot be: both grow together. */
	for (uint32_t k = 0; k < m->nconns; k++)
		if (m->conns[k].id) /* NOLINT(clang-analyzer-core.NullDereference) */
			*index_find(m, m->conns[k].id) = k + 1;
	return 0;
}

/* Linear-probing deletion by backward shift: no tombstones to age. */
static void index_remove(struct tm_model *m, uint64_t id)
{
	uint32_t hole = (uint32_t)(index_find(m, id) - m->index);

	if (m->index[hole] == 0)
		return;
	m->index[hole] = 0;
	for (uint32_t k = (hole + 1) & m->index_mask; m->index[k]; k = (k + 1) & m->index_mask) {
		uint32_t home = id_hash(m->conns[m->index[k] - 1].id) & m->index_mask;
		/* Move k into the hole unless its home lies cyclically in (hole, k]. */
		bool stays = hole <= k ? (home > hole && home <= k) : (home > hole || home <= k);
		if (!stays) {
			m->index[hole] = m->index[k];
			m->index[k] = 0;
			hole = k;
		}
	}
}

static struct tm_conn *conn_get(struct tm_model *m, uint64_t id)
{
	struct tm_conn *c = conn_find(m, id);
	uint32_t slot;

	if (c)
		return c;
	if ((m->used + 1) * 2 > m->index_mask && index_grow(m) < 0)
		return NULL;
	if (m->free_head != TM_NIL) {
		slot = m->free_head;
		/* A free slot means conns exists (the analyzer cannot tell). */
		m->free_head =
		    m->conns[slot].next_free; /* NOLINT(clang-analyzer-core.NullDereference) */
	} else {
		if (GROW(m->conns, m->cap, (size_t)m->nconns + 1, 256) < 0)
			return NULL;
		slot = m->nconns++;
	}
	c = &m->conns[slot];
	memset(c, 0, sizeof(*c)); /* NOLINT(clang-analyzer-core.NonNullParamChecker): as above */
	c->id = id;
	*index_find(m, id) = slot + 1;
	m->used++;
	m->tot.conns++;
	m->tot.live++;
	return c;
}

static void conn_drop(struct tm_model *m, struct tm_conn *c)
{
	uint32_t slot = (uint32_t)(c - m->conns);

	index_remove(m, c->id);
	c->id = 0;
	c->next_free = m->free_head;
	m->free_head = slot;
	m->used--;
}

/* ---- timelines and rates ---- */

static void timeline_halve(struct tm_timeline *tl)
{
	for (unsigned k = 0; k < TM_BUCKETS / 2; k++) {
		const struct tm_bucket *a = &tl->b[2 * k], *b = &tl->b[2 * k + 1];
		struct tm_bucket m = {.flags = a->flags | b->flags};
		for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
			uint64_t by = (uint64_t)a->bytes[d] + b->bytes[d];
			uint32_t r = (uint32_t)a->retrans[d] + b->retrans[d];
			m.bytes[d] = by > UINT32_MAX ? UINT32_MAX : (uint32_t)by;
			m.retrans[d] = r > UINT16_MAX ? UINT16_MAX : (uint16_t)r;
			m.seq_hi[d] = a->seq_hi[d] > b->seq_hi[d] ? a->seq_hi[d] : b->seq_hi[d];
		}
		tl->b[k] = m;
	}
	memset(&tl->b[TM_BUCKETS / 2], 0, sizeof(tl->b) / 2);
	tl->width_ns *= 2;
	tl->used = (tl->used + 1) / 2;
}

/*
 * later - earlier, 0 when later is not after it. Capture timestamps are
 * whatever the file says (merged files go backwards, a bad clock jumps by
 * years): differences are taken in unsigned arithmetic, never overflowing.
 */
static uint64_t since(int64_t later, int64_t earlier)
{
	return later > earlier ? (uint64_t)later - (uint64_t)earlier : 0;
}

/* Bucket of ts, widening the buckets until it fits. */
static unsigned timeline_bucket(struct tm_timeline *tl, int64_t ts)
{
	if (tl->width_ns == 0) {
		tl->t0 = ts;
		tl->width_ns = 1000000; /* 1 ms: 64 ms before the first doubling */
	}
	uint64_t dt = since(ts, tl->t0); /* earlier than t0: the first bucket */
	while (dt / (uint64_t)tl->width_ns >= TM_BUCKETS)
		timeline_halve(tl);
	unsigned k = (unsigned)(dt / (uint64_t)tl->width_ns);
	if (k + 1 > tl->used)
		tl->used = k + 1;
	return k;
}

void tm_timeline_add(struct tm_timeline *tl, int64_t ts, unsigned dir, uint32_t bytes,
		     uint32_t seq_end, bool retrans, uint8_t flags)
{
	struct tm_bucket *b = &tl->b[timeline_bucket(tl, ts)];
	uint64_t by = (uint64_t)b->bytes[dir] + bytes;

	b->bytes[dir] = by > UINT32_MAX ? UINT32_MAX : (uint32_t)by;
	if (retrans && b->retrans[dir] < UINT16_MAX)
		b->retrans[dir]++;
	if (seq_end > b->seq_hi[dir])
		b->seq_hi[dir] = seq_end;
	b->flags |= flags;
}

void tm_timeline_mark(struct tm_timeline *tl, int64_t from, int64_t to, uint8_t flags)
{
	/* to first: it sets an empty timeline's t0 and widens it to fit, which
	 * moves the indexes; then from, then to's index after all that. */
	(void)timeline_bucket(tl, to);
	unsigned first = timeline_bucket(tl, from);
	unsigned last = timeline_bucket(tl, to);
	for (unsigned k = first; k <= last && k < TM_BUCKETS; k++)
		tl->b[k].flags |= flags;
}

void tm_rate_add(struct tm_rate *r, int64_t ts, unsigned dir, uint32_t bytes)
{
	if (!r->started) {
		r->started = true;
		r->win_start = ts;
	}
	uint64_t d = since(ts, r->win_start); /* older than the window: counted in it */
	if (d >= (uint64_t)TM_RATE_WINDOW_NS) {
		bool adjacent = d < 2 * (uint64_t)TM_RATE_WINDOW_NS;
		for (unsigned k = 0; k < SUM_DIR_COUNT; k++) {
			r->prev[k] = adjacent ? r->cur[k] : 0;
			r->cur[k] = 0;
		}
		r->win_start = adjacent ? r->win_start + TM_RATE_WINDOW_NS : ts;
	}
	r->cur[dir] += bytes;
}

/*
 * Bytes per second over the last TM_RATE_WINDOW_NS before now: the current
 * window plus the part of the previous one still inside the last second
 * (assumed spread evenly). A connection younger than that is measured
 * over its own life.
 */
double tm_rate_get(const struct tm_rate *r, int64_t now, int64_t first_ts, unsigned dir)
{
	const double w = (double)TM_RATE_WINDOW_NS;
	uint64_t in_window = since(now, r->win_start), life = since(now, first_ts);

	if (!r->started || in_window >= 2 * (uint64_t)TM_RATE_WINDOW_NS)
		return 0;
	if (life < (uint64_t)TM_RATE_WINDOW_NS) {
		double l = life < 1000000 ? 1e6 : (double)life;
		return (double)(r->cur[dir] + r->prev[dir]) * 1e9 / l;
	}
	if (in_window >= (uint64_t)TM_RATE_WINDOW_NS) {
		double f = (double)(in_window - (uint64_t)TM_RATE_WINDOW_NS) / w;
		return (double)r->cur[dir] * (1 - f) * 1e9 / w;
	}
	double f = (double)in_window / w;
	return ((double)r->prev[dir] * (1 - f) + (double)r->cur[dir]) * 1e9 / w;
}

/* ts + d, saturated: an event's end even when a clock jumped. */
static int64_t ts_plus(int64_t ts, int64_t d)
{
	if (d <= 0)
		return ts;
	return ts > INT64_MAX - d ? INT64_MAX : ts + d;
}

/* ---- the sink ---- */

/* Every event is counted; a detector's view may keep routine ones out of
 * the log (det_view.event_logged). */
bool tm_event_logged(const struct sum_event *e)
{
	const struct det_view *v = det_view_of_event(e->type);

	return !v || !v->event_logged || v->event_logged(e);
}

/* A kind whose events are spans of time (a stall: det_view.timeline_span)
 * is worst by duration; any other by bytes (a SACK hole, a D-SACK, capture
 * loss; a zero window has none: its duration decides), then duration. */
bool tm_event_worse(const struct sum_event *a, const struct sum_event *b)
{
	const struct det_view *v = det_view_of_event(a->type);
	bool span = v && v->timeline_span;

	if (span && a->duration_ns != b->duration_ns)
		return a->duration_ns > b->duration_ns;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes;
	if (a->duration_ns != b->duration_ns)
		return a->duration_ns > b->duration_ns;
	return a->segments > b->segments;
}

/* e into its (connection, kind) group: a new one takes a free slot, else
 * that of the group grown least recently (counted). A linear search: a
 * finding is rare next to packets, and TM_GROUPS is small. */
static void group_add(struct tm_model *m, const struct sum_event *e)
{
	struct tm_group *g = NULL, *lru = NULL;

	m->nlogged++;
	for (uint32_t k = 0; k < m->ngroups && !g; k++) {
		struct tm_group *c = &m->groups[k];
		if (c->conn == e->conn && c->type == e->type)
			g = c;
		else if (!lru || c->last_seq < lru->last_seq)
			lru = c;
	}
	if (!g) {
		if (m->ngroups < TM_GROUPS) {
			g = &m->groups[m->ngroups++];
		} else {
			g = lru;
			m->tot.groups_dropped++;
		}
		*g = (struct tm_group){.conn = e->conn,
				       .type = e->type,
				       .first_input = e->input,
				       .first_frame = e->frame_first,
				       .first_ts = e->ts,
				       .last_ts = e->ts,
				       .worst = *e};
	}
	g->count++;
	g->dirs |= (uint8_t)(1u << (e->dir & 7));
	g->last_seq = m->nlogged;
	if (e->ts > g->last_ts)
		g->last_ts = e->ts;
	/* Events come in the order found, not always of their frames (a stall
	 * is known at its end): the first is the earliest frame (0: unknown). */
	if (e->frame_first && (!g->first_frame || e->input < g->first_input ||
			       (e->input == g->first_input && e->frame_first < g->first_frame))) {
		g->first_input = e->input;
		g->first_frame = e->frame_first;
		g->first_ts = e->ts;
	}
	if (tm_event_worse(e, &g->worst))
		g->worst = *e;
}

static void on_event(void *ctx, const struct sum_event *e)
{
	struct tm_model *m = ctx;
	struct tm_conn *c = conn_get(m, e->conn);

	m->tot.events[e->type]++;
	det_totals_add_event(&m->tot.det, e);
	if (c) {
		int k = det_view_index_of_event(e->type);
		const struct det_view *v = k < 0 ? NULL : det_views[k];
		det_totals_add_event(&c->live, e);
		if (v && v->timeline_mark) {
			tm_timeline_mark(&c->tl, e->ts,
					 v->timeline_span ? ts_plus(e->ts, e->duration_ns) : e->ts,
					 (uint8_t)TM_B_VIEW(k));
		} else if (e->type == SUM_EV_ZERO_WINDOW) {
			tm_timeline_mark(&c->tl, e->ts, ts_plus(e->ts, e->duration_ns),
					 TM_B_ZERO_WINDOW);
		}
	}
	if (!tm_event_logged(e))
		return;
	group_add(m, e);
	m->log[m->log_head] = *e;
	m->log_head = (m->log_head + 1) % TM_LOG;
	if (m->log_n < TM_LOG)
		m->log_n++;
}

static void on_segment(void *ctx, const struct sum_seg *s)
{
	struct tm_model *m = ctx;
	struct tm_conn *c = conn_get(m, s->conn);

	if (s->ts > m->now)
		m->now = s->ts;
	if (s->flags & SUM_SEG_RETRANS)
		m->tot.retrans++;
	if (!c)
		return;
	unsigned dir = s->dir % SUM_DIR_COUNT;
	uint8_t flags = (s->flags & SUM_SEG_ZERO_WINDOW) ? TM_B_ZERO_WINDOW : 0;
	tm_timeline_add(&c->tl, s->ts, dir, s->len, s->len ? s->rel_seq + s->len : 0,
			(s->flags & SUM_SEG_RETRANS) != 0, flags);
	tm_rate_add(&c->rate, s->ts, dir, s->len);
	if (s->queue >= 0)
		c->queue_pkts[s->queue < TM_QUEUES ? s->queue : TM_QUEUES - 1]++;
}

static void on_conn(void *ctx, const struct sum_conn *s)
{
	struct tm_model *m = ctx;
	struct tm_conn *c = conn_get(m, s->id);

	if (!c)
		return;
	c->s = *s;
	c->have_summary = true;
	if (c->ended)
		return;
	c->ended = true;
	m->tot.live--;
	if (m->ended_n == m->cfg.keep_ended) {
		/* Full: the oldest ended connection leaves the table. */
		struct tm_conn *old = conn_find(m, m->ended[m->ended_head]);
		if (old && old->ended)
			conn_drop(m, old);
		m->ended_head = (m->ended_head + 1) % m->cfg.keep_ended;
		m->ended_n--;
		m->tot.ended_dropped++;
	}
	m->ended[(m->ended_head + m->ended_n) % m->cfg.keep_ended] = s->id;
	m->ended_n++;
}

struct sum_sink tm_sink(struct tm_model *m)
{
	return (struct sum_sink){
	    .conn = on_conn, .event = on_event, .segment = on_segment, .ctx = m};
}

void tm_advance_clock(struct tm_model *m, int64_t now)
{
	if (now > m->now)
		m->now = now;
}

void tm_update_live(void *model, const struct sum_conn *s)
{
	struct tm_model *m = model;
	struct tm_conn *c = conn_get(m, s->id);

	if (!c || c->ended)
		return;
	c->s = *s;
	c->have_summary = true;
}

/* ---- snapshots ---- */

static int64_t smallest_rtt(const struct sum_conn *s)
{
	int64_t best = -1;

	for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
		const struct sum_rtt *r[2] = {&s->dir[d].rtt, &s->dir[d].rtt_ts};
		for (unsigned k = 0; k < 2; k++)
			if (r[k]->n && (best < 0 || r[k]->min_ns < best))
				best = r[k]->min_ns;
	}
	if (best < 0 && s->handshake_rtt_ns >= 0)
		best = s->handshake_rtt_ns;
	return best;
}

static void row_fill(const struct tm_model *m, const struct tm_conn *c, struct tm_row *r)
{
	const struct sum_conn *s = &c->s;

	memset(r, 0, sizeof(*r));
	r->id = c->id;
	r->client = s->client;
	r->server = s->server;
	r->client_port = s->client_port;
	r->server_port = s->server_port;
	r->state = s->state;
	r->ended = c->ended;
	for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
		r->rate[d] = c->ended ? 0 : tm_rate_get(&c->rate, m->now, s->first_ts, d);
		r->bytes[d] = s->dir[d].payload_bytes;
		r->packets[d] = s->dir[d].packets;
		r->retrans += s->dir[d].retrans;
		r->ooo += s->dir[d].out_of_order;
	}
	r->rtt_ns = smallest_rtt(s);
	r->path_ns = s->path.rtt_ns;
	r->loss = sum_conn_loss_rate(s);
	for (unsigned k = 0; k < DET_VIEW_COUNT; k++)
		if (det_views[k]->cells)
			det_views[k]->cells(r->det[k], s, &c->live, c->ended);
	r->vantage = s->vantage;
	r->queues = s->queues_known ? (uint32_t)__builtin_popcountll(s->queue_mask) : 0;
	r->first_ts = s->first_ts;
	r->last_ts = s->last_ts;
	r->first_input = s->first_input;
	r->last_input = s->last_input;
	r->first_frame = s->first_frame;
	r->last_frame = s->last_frame;
}

static int by_tuple(const void *a, const void *b, void *ctx)
{
	const struct tm_row *rows = ctx;
	const struct tm_row *x = &rows[*(const uint32_t *)a], *y = &rows[*(const uint32_t *)b];
	int c = memcmp(&x->client, &y->client, sizeof(x->client));
	if (!c)
		c = memcmp(&x->server, &y->server, sizeof(x->server));
	if (!c)
		c = (int)x->client_port - (int)y->client_port;
	if (!c)
		c = (int)x->server_port - (int)y->server_port;
	return c;
}

/* Mark rows whose 4-tuple is also in the table from another vantage point
 * (the same connection captured on two interfaces): only those need to say
 * where they were seen. */
static void mark_vantages(struct tm_snapshot *s)
{
	for (uint32_t k = 0; k < s->nrows; k++)
		s->scratch[k] = k;
	if (s->nrows > 1)
		qsort_r(s->scratch, s->nrows, sizeof(*s->scratch), by_tuple, s->rows);
	for (uint32_t k = 0; k + 1 < s->nrows; k++) {
		struct tm_row *a = &s->rows[s->scratch[k]], *b = &s->rows[s->scratch[k + 1]];
		if (a->vantage != b->vantage &&
		    by_tuple(&s->scratch[k], &s->scratch[k + 1], s->rows) == 0)
			a->vantage_matters = b->vantage_matters = true;
	}
}

static int by_row_id(const void *a, const void *b)
{
	uint64_t x = ((const struct tm_row *)a)->id, y = ((const struct tm_row *)b)->id;
	return x < y ? -1 : x > y;
}

int tm_snapshot_fill(const struct tm_model *m, struct tm_snapshot *s, uint64_t detail_id)
{
	if (s->cap < m->used) {
		uint32_t ncap = m->used + m->used / 2 + 16;
		struct tm_row *n = realloc(s->rows, (size_t)ncap * sizeof(*n));
		if (!n)
			return ERR_NOMEM;
		s->rows = n;
		uint32_t *t = realloc(s->scratch, (size_t)ncap * sizeof(*t));
		if (!t)
			return ERR_NOMEM;
		s->scratch = t;
		s->cap = ncap;
	}
	s->now = m->now;
	s->tot = m->tot;
	s->nrows = 0;
	for (uint32_t k = 0; k < m->nconns; k++) {
		const struct tm_conn *c = &m->conns[k];
		if (c->id && c->have_summary)
			row_fill(m, c, &s->rows[s->nrows++]);
	}
	if (s->nrows)
		qsort(s->rows, s->nrows, sizeof(*s->rows), by_row_id);
	mark_vantages(s);

	s->nlog = m->log_n;
	for (uint32_t k = 0; k < m->log_n; k++)
		s->log[k] = m->log[(m->log_head + TM_LOG - 1 - k) % TM_LOG];
	s->ngroups = m->ngroups;
	memcpy(s->groups, m->groups, (size_t)m->ngroups * sizeof(*s->groups));

	const struct tm_conn *c = detail_id ? conn_find(m, detail_id) : NULL;
	s->detail.valid = c && c->have_summary;
	if (s->detail.valid) {
		struct tm_detail *d = &s->detail;
		d->ended = c->ended;
		d->s = c->s;
		d->live = c->live;
		d->tl = c->tl;
		for (unsigned k = 0; k < SUM_DIR_COUNT; k++)
			d->rate[k] = c->ended ? 0 : tm_rate_get(&c->rate, m->now, c->s.first_ts, k);
		memcpy(d->queue_pkts, c->queue_pkts, sizeof(d->queue_pkts));
	}
	return 0;
}

void tm_snapshot_free(struct tm_snapshot *s)
{
	free(s->rows);
	free(s->scratch);
	s->rows = NULL;
	s->scratch = NULL;
	s->cap = s->nrows = 0;
}
