/* plot.c - the graphs' collection: which connections, their bounded series, their files. */
#include "analyze/report/plot.h"
#include "analyze/report/plot_int.h"
#include "analyze/report/report.h"
#include "common/err.h"
#include "common/grow.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const pl_mark_class[PL_MK_COUNT] = {
    [PL_MK_RETRANS] = "retrans",     [PL_MK_OOO] = "ooo",
    [PL_MK_ZWIN] = "zwin",	     [PL_MK_GAP] = "gap",
    [PL_MK_LOSS] = "loss",	     [PL_MK_HOLE] = "hole",
    [PL_MK_ZWIN_SPAN] = "zwin-span", [PL_MK_STALL] = "stall",
};

struct plot {
	struct plot_config cfg;
	/* The connections being collected, by id (ids begin in increasing
	 * order, so appending keeps it sorted; a resumed one is still here). */
	struct pl_conn **live;
	uint32_t nlive, cap_live;
	uint64_t done;	   /* connections with data whose graphs were written */
	uint64_t left_out; /* begun while max_conns were taken */
	int err;	   /* the first write error */
	char errmsg[512];
	char temp_dir[4096]; /* cfg.svg_temp: the directory made (cfg.svg_dir points here) */
};

/* ---- directories and files ---- */

/* mkdir -p path; 0 or -errno of the component that failed. */
static int mkdir_p(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0777) == -1 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(buf, 0777) == -1 && errno != EEXIST)
		return -errno;
	struct stat st;
	if (stat(buf, &st) == -1)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static void file_name(char *buf, size_t len, const struct pl_conn *c, const char *dir,
		      unsigned data_dir, const char *graph, const char *ext)
{
	snprintf(buf, len, "%s/conn-%llu-%s-%s.%s", dir, (unsigned long long)c->id,
		 sum_dir_name(data_dir), graph, ext);
}

FILE *pl_open(const struct pl_conn *c, const char *dir, unsigned data_dir, const char *graph,
	      const char *ext, char *errbuf, size_t errlen)
{
	char path[4200];

	file_name(path, sizeof(path), c, dir, data_dir, graph, ext);
	FILE *f = fopen(path, "w");
	if (!f)
		snprintf(errbuf, errlen, "cannot write %s: %s", path, strerror(errno));
	return f;
}

int pl_close(FILE *f, const struct pl_conn *c, const char *dir, unsigned data_dir,
	     const char *graph, const char *ext, char *errbuf, size_t errlen)
{
	char path[4200];
	bool bad = ferror(f) != 0;

	if (fclose(f) != 0)
		bad = true;
	if (!bad)
		return 0;
	file_name(path, sizeof(path), c, dir, data_dir, graph, ext);
	snprintf(errbuf, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
	return ERR_SYSTEM;
}

void pl_endpoints(const struct pl_conn *c, unsigned dir, char *buf, size_t len)
{
	char cl[64], sv[64];

	rep_format_endpoint(&c->ident.client, c->ident.client_port, cl, sizeof(cl));
	rep_format_endpoint(&c->ident.server, c->ident.server_port, sv, sizeof(sv));
	snprintf(buf, len, "%s -> %s", dir == SUM_C2S ? cl : sv, dir == SUM_C2S ? sv : cl);
}

/* ---- the connections collected ---- */

/* Index of id in p->live, or where it would go (*found false). */
static uint32_t live_find(const struct plot *p, uint64_t id, bool *found)
{
	uint32_t lo = 0, hi = p->nlive;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->live[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < p->nlive && p->live[lo]->id == id;
	return lo;
}

static struct pl_conn *live_get(const struct plot *p, uint64_t id)
{
	bool found;
	uint32_t k = live_find(p, id, &found);
	return found ? p->live[k] : NULL;
}

static void conn_free(struct pl_conn *c)
{
	if (!c)
		return;
	free(c->recs);
	free(c->sacks);
	free(c->marks);
	for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
		free(c->col[d]);
		free(c->over[d]);
	}
	free(c);
}

/* ---- cols form ---- */

static void col_clear(struct pl_col *k)
{
	memset(k, 0, sizeof(*k));
	k->queue = -1;
}

static uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static uint32_t max32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* Two neighbouring slices as one. */
static void col_join(struct pl_col *out, const struct pl_col *a, const struct pl_col *b)
{
	struct pl_col m = *a;

#define PL_JOIN(bit, lo, hi)                                                                       \
	if (b->have & (bit)) {                                                                     \
		m.lo = (m.have & (bit)) ? min32(m.lo, b->lo) : b->lo;                              \
		m.hi = (m.have & (bit)) ? max32(m.hi, b->hi) : b->hi;                              \
	}
	PL_JOIN(PL_C_SEQ, seq_lo, seq_hi)
	PL_JOIN(PL_C_ACK, ack_lo, ack_hi)
	PL_JOIN(PL_C_ACK, win_lo, win_hi)
	PL_JOIN(PL_C_INFL, infl_lo, infl_hi)
	PL_JOIN(PL_C_RWND, rwnd_lo, rwnd_hi)
#undef PL_JOIN
	if (b->have & PL_C_RTT) {
		m.rtt_lo = (m.have & PL_C_RTT) && m.rtt_lo < b->rtt_lo ? m.rtt_lo : b->rtt_lo;
		m.rtt_hi = (m.have & PL_C_RTT) && m.rtt_hi > b->rtt_hi ? m.rtt_hi : b->rtt_hi;
		m.rtt_sum += b->rtt_sum;
		m.rtt_n += b->rtt_n;
	}
	m.sack_hi = max32(m.sack_hi, b->sack_hi);
	m.bytes += b->bytes;
	m.good += b->good;
	if (b->have & PL_C_SEQ)
		m.queue = b->queue;
	m.have |= b->have;
	*out = m;
}

static void cols_halve(struct pl_conn *c)
{
	for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
		struct pl_col *s = c->col[d];
		for (unsigned k = 0; k < PL_COLS / 2; k++)
			col_join(&s[k], &s[2 * k], &s[2 * k + 1]);
		for (unsigned k = PL_COLS / 2; k < PL_COLS; k++)
			col_clear(&s[k]);
		struct pl_bin *o = c->over[d];
		if (!o)
			continue;
		/* Slice k's bins: the first of 2k's and 2k+1's, then the second. */
		for (unsigned k = 0; k < PL_COLS / 2; k++)
			for (unsigned m = 0; m < PL_MK_COUNT; m++) {
				struct pl_bin b = o[2 * k * PL_MK_COUNT + m];
				pl_bin_join(&b, &o[(2 * k + 1) * PL_MK_COUNT + m]);
				o[k * PL_MK_COUNT + m] = b;
			}
		memset(&o[PL_COLS / 2 * PL_MK_COUNT], 0, PL_COLS / 2 * PL_MK_COUNT * sizeof(*o));
	}
	c->col_width *= 2;
	c->col_used = (c->col_used + 1) / 2;
}

/* The slice of t (ns from t0), widening the slices until it fits. */
static uint32_t col_index(struct pl_conn *c, int64_t t)
{
	uint64_t dt = t > 0 ? (uint64_t)t : 0;

	while (dt / (uint64_t)c->col_width >= PL_COLS)
		cols_halve(c);
	uint32_t k = (uint32_t)(dt / (uint64_t)c->col_width);
	if (k + 1 > c->col_used)
		c->col_used = k + 1;
	return k;
}

static void col_range(struct pl_col *k, unsigned bit, uint32_t *lo, uint32_t *hi, uint32_t a,
		      uint32_t b)
{
	if (!(k->have & bit)) {
		*lo = a;
		*hi = b;
		k->have |= (uint8_t)bit;
		return;
	}
	*lo = min32(*lo, a);
	*hi = max32(*hi, b);
}

static void col_add(struct pl_conn *c, const struct pl_rec *r, const uint32_t (*sack)[2])
{
	unsigned own = r->dir % SUM_DIR_COUNT, other = !own;
	uint32_t k = col_index(c, r->t);

	if (r->flags & PL_R_DATA) {
		struct pl_col *o = &c->col[own][k];
		col_range(o, PL_C_SEQ, &o->seq_lo, &o->seq_hi, r->seq, r->seq + r->len);
		col_range(o, PL_C_INFL, &o->infl_lo, &o->infl_hi, r->inflight, r->inflight);
		o->bytes += r->len;
		if (r->flags & PL_R_NEW)
			o->good += r->len;
		o->queue = r->queue;
	}
	if (r->flags & PL_R_ACK) {
		struct pl_col *a = &c->col[other][k];
		uint32_t win = r->ack + r->win;
		/* The window line shares the ACK's bit. */
		if (!(a->have & PL_C_ACK)) {
			a->win_lo = a->win_hi = win;
		} else {
			a->win_lo = min32(a->win_lo, win);
			a->win_hi = max32(a->win_hi, win);
		}
		col_range(a, PL_C_ACK, &a->ack_lo, &a->ack_hi, r->ack, r->ack);
		col_range(a, PL_C_RWND, &a->rwnd_lo, &a->rwnd_hi, r->win, r->win);
		for (unsigned b = 0; b < r->nsack; b++)
			a->sack_hi = max32(a->sack_hi, sack[b][1]);
		if (r->flags & PL_R_RTT) {
			if (!(a->have & PL_C_RTT)) {
				a->rtt_lo = a->rtt_hi = r->rtt_ns;
				a->have |= PL_C_RTT;
			}
			a->rtt_lo = r->rtt_ns < a->rtt_lo ? r->rtt_ns : a->rtt_lo;
			a->rtt_hi = r->rtt_ns > a->rtt_hi ? r->rtt_ns : a->rtt_hi;
			a->rtt_sum += r->rtt_ns;
			a->rtt_n++;
		}
	}
}

/* From raw form to cols form: every packet so far into the slices, the
 * packets freed. ERR_NOMEM (still raw) when out of memory. */
static int fold(struct pl_conn *c)
{
	for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
		c->col[d] = malloc(PL_COLS * sizeof(*c->col[d]));
		if (!c->col[d])
			return ERR_NOMEM;
		for (unsigned k = 0; k < PL_COLS; k++)
			col_clear(&c->col[d][k]);
	}
	c->col_width = PL_COL_NS0;
	c->col_used = 0;
	for (uint32_t k = 0; k < c->nrecs; k++)
		col_add(c, &c->recs[k], c->sacks ? &c->sacks[c->recs[k].sack] : NULL);
	free(c->recs);
	free(c->sacks);
	c->recs = NULL;
	c->sacks = NULL;
	c->nrecs = c->cap_recs = c->nsacks = c->cap_sacks = 0;
	c->raw = false;
	return 0;
}

/* ---- marks ---- */

void pl_bin_add(struct pl_bin *b, const struct pl_mark *m)
{
	struct pl_bin one = {.n = 1,
			     .seq_lo = m->seq,
			     .seq_hi = m->seq + m->len,
			     .t_lo = m->t,
			     .t_hi = m->t,
			     .t_end = m->t + (m->dur > 0 ? m->dur : 0),
			     .frame = m->frame};
	pl_bin_join(b, &one);
}

void pl_bin_join(struct pl_bin *b, const struct pl_bin *a)
{
	if (!a->n)
		return;
	if (!b->n) {
		*b = *a;
		return;
	}
	b->seq_lo = min32(b->seq_lo, a->seq_lo);
	b->seq_hi = max32(b->seq_hi, a->seq_hi);
	/* The first frame is the earliest mark's (marks come in time order
	 * within a kind, but a bin may join slices out of order). */
	if (a->t_lo < b->t_lo || (a->t_lo == b->t_lo && a->frame < b->frame))
		b->frame = a->frame;
	b->t_lo = a->t_lo < b->t_lo ? a->t_lo : b->t_lo;
	b->t_hi = a->t_hi > b->t_hi ? a->t_hi : b->t_hi;
	b->t_end = a->t_end > b->t_end ? a->t_end : b->t_end;
	b->n = a->n > UINT32_MAX - b->n ? UINT32_MAX : b->n + a->n;
}

static void mark_add(struct pl_conn *c, const struct pl_mark *m)
{
	if (c->nmarks < PL_MARKS_MAX &&
	    GROW_MAX(c->marks, c->cap_marks, (size_t)c->nmarks + 1, 64, PL_MARKS_MAX) == 0) {
		c->marks[c->nmarks++] = *m;
		return;
	}
	/* Beyond the cap: into the bin of its slice and kind (cols form). */
	unsigned dir = m->dir % SUM_DIR_COUNT;
	if (c->raw && fold(c) < 0)
		return;
	if (!c->over[dir] &&
	    !(c->over[dir] = calloc((size_t)PL_COLS * PL_MK_COUNT, sizeof(*c->over[dir]))))
		return; /* out of memory: not drawn */
	uint32_t k = col_index(c, m->t);
	pl_bin_add(&c->over[dir][k * PL_MK_COUNT + m->kind], m);
	c->marks_over++;
}

static void mark_point(struct pl_conn *c, enum pl_mark_kind kind, unsigned dir, int64_t t,
		       uint64_t frame, uint32_t seq, uint32_t len, int16_t queue)
{
	struct pl_mark m = {.t = t,
			    .dur = -1,
			    .frame = frame,
			    .seq = seq,
			    .len = len,
			    .kind = (uint8_t)kind,
			    .dir = (uint8_t)dir,
			    .queue = queue};
	mark_add(c, &m);
}

/* ---- the sink ---- */

/* a after b in sequence space (RFC 9293 modular comparison). */
static bool seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

static void on_begin(void *ctx, uint64_t id)
{
	struct plot *p = ctx;
	bool found;
	uint32_t at = live_find(p, id, &found);

	if (found || (p->cfg.only && !idset_has(p->cfg.only, id)))
		return; /* a resumed connection keeps what it had */
	if (p->done + p->nlive >= p->cfg.max_conns) {
		p->left_out++;
		return;
	}
	struct pl_conn *c = calloc(1, sizeof(*c));
	if (!c || GROW(p->live, p->cap_live, (size_t)p->nlive + 1, 64) < 0) {
		free(c);
		p->left_out++;
		return;
	}
	c->id = id;
	sum_path_unknown(&c->path);
	c->raw = true;
	memmove(&p->live[at + 1], &p->live[at], (p->nlive - at) * sizeof(*p->live));
	p->live[at] = c;
	p->nlive++;
}

static void on_segment(void *ctx, const struct sum_seg *s)
{
	struct plot *p = ctx;
	struct pl_conn *c = p->nlive ? live_get(p, s->conn) : NULL;

	if (!c)
		return;
	if (!c->have_t0) {
		c->t0 = s->ts;
		c->have_t0 = true;
	}
	unsigned own = s->dir % SUM_DIR_COUNT, other = !own;
	struct pl_dirstate *d = &c->d[own], *o = &c->d[other];
	int64_t t = s->ts > c->t0 ? s->ts - c->t0 : 0;
	struct pl_rec r = {.t = t,
			   .frame = s->frame,
			   .seq = s->rel_seq,
			   .len = s->len,
			   .dir = (uint8_t)own,
			   .queue = (int16_t)(s->queue < 0	 ? -1
					      : s->queue > 32767 ? 32767
								 : s->queue)};

	if (t > c->t_end)
		c->t_end = t;
	uint32_t end =
	    s->rel_seq + s->len + !!(s->flags & SUM_SEG_SYN) + !!(s->flags & SUM_SEG_FIN);
	if (end != s->rel_seq) {
		if (s->flags & SUM_SEG_GAP && d->have_nxt && seq_after(s->rel_seq, d->snd_nxt))
			mark_point(c, PL_MK_GAP, own, t, s->frame, d->snd_nxt,
				   s->rel_seq - d->snd_nxt, r.queue);
		if (!d->have_nxt || seq_after(end, d->snd_nxt)) {
			d->snd_nxt = end;
			d->have_nxt = true;
		}
		if (seq_after(end, d->seq_max))
			d->seq_max = end;
	}
	if (s->len) {
		r.flags |= PL_R_DATA;
		d->data_packets++;
		d->bytes += s->len;
		d->t_last = t;
		if (s->queue >= 0 && s->queue < 64)
			d->queues_seen |= 1ull << s->queue;
		r.inflight =
		    d->have_una && seq_after(d->snd_nxt, d->snd_una) ? d->snd_nxt - d->snd_una : 0;
		if (s->flags & SUM_SEG_NEW_DATA && !(s->flags & SUM_SEG_RETRANS))
			r.flags |= PL_R_NEW;
		if (s->flags & SUM_SEG_RETRANS) {
			r.flags |= PL_R_RETRANS;
			mark_point(c, PL_MK_RETRANS, own, t, s->frame, s->rel_seq, s->len, r.queue);
		}
		if (s->flags & SUM_SEG_OOO) {
			r.flags |= PL_R_OOO;
			mark_point(c, PL_MK_OOO, own, t, s->frame, s->rel_seq, s->len, r.queue);
		}
	}
	r.flags |= (s->flags & SUM_SEG_SYN ? PL_R_SYN : 0) |
		   (s->flags & SUM_SEG_FIN ? PL_R_FIN : 0) |
		   (s->flags & SUM_SEG_RST ? PL_R_RST : 0);
	if (s->flags & SUM_SEG_ACK) {
		r.flags |= PL_R_ACK;
		r.ack = s->rel_ack;
		r.win = s->window > UINT32_MAX ? UINT32_MAX : (uint32_t)s->window;
		if (!o->have_una || seq_after(s->rel_ack, o->snd_una)) {
			o->snd_una = s->rel_ack;
			o->have_una = true;
		}
		uint64_t edge = (uint64_t)s->rel_ack + r.win;
		if (edge > o->win_max)
			o->win_max = edge;
		if (s->flags & SUM_SEG_RTT) {
			r.flags |= PL_R_RTT;
			r.rtt_ns = s->rtt_ns;
		}
		if (s->flags & SUM_SEG_ZERO_WINDOW) {
			r.flags |= PL_R_ZWIN;
			mark_point(c, PL_MK_ZWIN, other, t, s->frame, s->rel_ack, 0, -1);
		}
		r.nsack = s->nsack > SUM_SEG_SACK_MAX ? SUM_SEG_SACK_MAX : s->nsack;
	}

	if (c->raw && c->nrecs < PL_RAW_MAX &&
	    GROW_MAX(c->recs, c->cap_recs, (size_t)c->nrecs + 1, 64, PL_RAW_MAX) == 0 &&
	    GROW_MAX(c->sacks, c->cap_sacks, (size_t)c->nsacks + r.nsack, 64,
		     PL_RAW_MAX * SUM_SEG_SACK_MAX) == 0) {
		r.sack = c->nsacks;
		for (unsigned b = 0; b < r.nsack; b++) {
			c->sacks[c->nsacks][0] = s->sack[b][0];
			c->sacks[c->nsacks][1] = s->sack[b][1];
			c->nsacks++;
		}
		c->recs[c->nrecs++] = r;
		return;
	}
	if (c->raw && fold(c) < 0)
		return; /* out of memory: this packet is not drawn */
	col_add(c, &r, (const uint32_t(*)[2])s->sack);
}

static void on_event(void *ctx, const struct sum_event *e)
{
	struct plot *p = ctx;
	struct pl_conn *c = p->nlive ? live_get(p, e->conn) : NULL;
	struct pl_mark m = {.dur = e->duration_ns,
			    .frame = e->frame_first,
			    .seq = e->rel_seq,
			    .len = (uint32_t)(e->bytes > UINT32_MAX ? UINT32_MAX : e->bytes),
			    .dir = (uint8_t)(e->dir % SUM_DIR_COUNT),
			    .queue = -1};

	if (!c || !c->have_t0)
		return;
	switch (e->type) {
	case SUM_EV_STALL:
		m.kind = PL_MK_STALL;
		m.cls = e->u.stall.cls;
		m.timer_like = e->u.stall.timer_like;
		break;
	case SUM_EV_SACK_HOLE:
		m.kind = PL_MK_HOLE;
		break;
	case SUM_EV_ZERO_WINDOW:
		m.kind = PL_MK_ZWIN_SPAN;
		break;
	case SUM_EV_CAPTURE_LOSS:
		m.kind = PL_MK_LOSS;
		break;
	default:
		return;
	}
	m.t = e->ts > c->t0 ? e->ts - c->t0 : 0;
	if (m.dur < 0)
		m.dur = 0;
	if (m.t + m.dur > c->t_end)
		c->t_end = m.t + m.dur;
	mark_add(c, &m);
}

/* Write c's files and let it go (it leaves p->live). */
static void conn_done(struct plot *p, uint32_t at)
{
	struct pl_conn *c = p->live[at];
	char why[512];
	bool data = pl_has_data(c, SUM_C2S) || pl_has_data(c, SUM_S2C);

	if (data && c->ended) {
		int rc = 0;
		if (p->cfg.svg_dir)
			rc = pl_svg_write(c, p->cfg.svg_dir, why, sizeof(why));
		if (rc == 0 && p->cfg.xpl_dir)
			rc = pl_xpl_write(c, p->cfg.xpl_dir, why, sizeof(why));
		if (rc < 0 && !p->err) {
			p->err = rc;
			snprintf(p->errmsg, sizeof(p->errmsg), "%s", why);
		}
	}
	/* Without data it gives its place back (SYN scans do not use up --plot-max). */
	p->done += data;
	memmove(&p->live[at], &p->live[at + 1], (p->nlive - at - 1) * sizeof(*p->live));
	p->nlive--;
	conn_free(c);
}

static void on_conn(void *ctx, const struct sum_conn *s)
{
	struct plot *p = ctx;
	bool found;
	uint32_t at = p->nlive ? live_find(p, s->id, &found) : 0;

	if (!p->nlive || !found)
		return;
	struct pl_conn *c = p->live[at];
	/* An evicted connection may resume with its id: its graphs wait for
	 * the rest (or the end of the run). */
	if (!c->ended || !s->evicted_and_resumed)
		c->ident = s->ident;
	else
		c->ident.last_ts = s->last_ts;
	c->path = s->path; /* the resumed part's summary has both parts' */
	c->ended = true;
	for (unsigned k = 0; k < SUM_DIR_COUNT; k++)
		c->limit[k] = s->det.limit.d[k];
	if (!s->evicted)
		conn_done(p, at);
}

struct plot *plot_new(const struct plot_config *cfg, char *errbuf, size_t errlen)
{
	const char *dirs[2] = {cfg->svg_dir, cfg->xpl_dir};

	for (unsigned k = 0; k < 2; k++) {
		int rc = dirs[k] ? mkdir_p(dirs[k]) : 0;
		if (rc < 0) {
			snprintf(errbuf, errlen, "%s %s: %s", k ? "--xplot" : "--plot", dirs[k],
				 strerror(-rc));
			return NULL;
		}
	}
	struct plot *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	p->cfg = *cfg;
	if (!cfg->svg_dir && cfg->svg_temp) {
		const char *tmp = getenv("TMPDIR");
		snprintf(p->temp_dir, sizeof(p->temp_dir), "%s/tcpsift-graphs-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(p->temp_dir)) {
			snprintf(errbuf, errlen, "cannot make a directory for the graphs in %s: %s",
				 tmp && *tmp ? tmp : "/tmp", strerror(errno));
			free(p);
			return NULL;
		}
		p->cfg.svg_dir = p->temp_dir;
	}
	if (!p->cfg.max_conns)
		p->cfg.max_conns = PLOT_MAX_DEFAULT;
	return p;
}

struct sum_sink plot_sink(struct plot *p)
{
	return (struct sum_sink){
	    .begin = on_begin, .conn = on_conn, .event = on_event, .segment = on_segment, .ctx = p};
}

int plot_finish(struct plot *p, char *errbuf, size_t errlen)
{
	/* Evicted and never resumed, or never summarized (no end came). */
	while (p->nlive) {
		p->live[0]->ended = true;
		conn_done(p, 0);
	}
	if (p->err)
		snprintf(errbuf, errlen, "%s", p->errmsg);
	return p->err;
}

uint64_t plot_written(const struct plot *p)
{
	return p->done;
}

uint64_t plot_left_out(const struct plot *p)
{
	return p->left_out;
}

const char *plot_svg_dir(const struct plot *p)
{
	return p ? p->cfg.svg_dir : NULL;
}

/* The temporary directory and the files written in it (no subdirectories). */
static void temp_remove(const char *dir)
{
	DIR *dh = opendir(dir);
	char path[4200];

	for (struct dirent *e; dh && (e = readdir(dh));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (dh)
		closedir(dh);
	rmdir(dir);
}

void plot_free(struct plot *p)
{
	if (!p)
		return;
	if (p->temp_dir[0])
		temp_remove(p->temp_dir);
	for (uint32_t k = 0; k < p->nlive; k++)
		conn_free(p->live[k]);
	free(p->live);
	free(p);
}
