/* view.c - the dashboard's screens: header, connection table, findings log, detail, help. */
#include "tui/view.h"

#include <curses.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/det_view.h"
#include "analyze/report/report.h"
#include "tui/connfilter.h"

/* The dashboard's own columns; the detectors' come from their views
 * (det_view.h) and sit between RETR and OOO. */
enum tv_col {
	TV_COL_ID = 0,
	TV_COL_CLIENT,
	TV_COL_SERVER,
	TV_COL_STATE,
	TV_COL_UP,
	TV_COL_DOWN,
	TV_COL_RTT,
	TV_COL_RETR,
	TV_COL_OOO,
	TV_COL_QUEUES,
	TV_COL_CORE_COUNT,
};

/* Every column there can be, in display order. */
#define TV_COL_MAX (TV_COL_CORE_COUNT + DET_VIEW_COUNT * DET_MAX_COLUMNS)

/* Colour pairs; without colours each maps to a plain attribute. */
enum tv_pair {
	TV_P_TITLE = 1,
	TV_P_HEAD,
	TV_P_WARN,  /* stalls, zero windows */
	TV_P_BAD,   /* SACK holes, reneging, capture loss */
	TV_P_ORDER, /* reordering, D-SACK */
	TV_P_MTU,   /* MTU, PMTU, super-frames */
	TV_P_GOOD,
	TV_P_DIM,
	TV_P_COUNT,
};

/*
 * A column. prio: the narrower the terminal, the more columns go, highest
 * prio first (the detail view shows them all anyway; a dashboard column of
 * prio 0 stays, a detector's goes last); desc: sorted biggest first when
 * chosen.
 */
struct tv_coldef {
	const char *head;
	int width;
	int prio;
	bool desc;
	bool left;
	int core;	    /* enum tv_col, or -1: a detector's */
	uint8_t view, vcol; /* the detector's view and column */
};

static const struct tv_coldef tv_core_cols[TV_COL_CORE_COUNT] = {
    [TV_COL_ID] = {"#", 3, 0, false, false, TV_COL_ID, 0, 0},
    [TV_COL_CLIENT] = {"CLIENT", 14, 0, false, true, TV_COL_CLIENT, 0, 0},
    [TV_COL_SERVER] = {"SERVER", 14, 0, false, true, TV_COL_SERVER, 0, 0},
    [TV_COL_STATE] = {"ST", 4, 1, false, true, TV_COL_STATE, 0, 0},
    [TV_COL_UP] = {"C>S", 7, 0, true, false, TV_COL_UP, 0, 0},
    [TV_COL_DOWN] = {"S>C", 7, 0, true, false, TV_COL_DOWN, 0, 0},
    [TV_COL_RTT] = {"RTT", 6, 1, true, false, TV_COL_RTT, 0, 0},
    [TV_COL_RETR] = {"RETR", 5, 0, true, false, TV_COL_RETR, 0, 0},
    [TV_COL_OOO] = {"OOO", 5, 1, true, false, TV_COL_OOO, 0, 0},
    [TV_COL_QUEUES] = {"Q", 2, 4, true, false, TV_COL_QUEUES, 0, 0},
};

#define TV_ADDR_MAX 47 /* "[ffff:...:ffff]:65535" */

struct tv_view {
	struct tv_config cfg;
	struct tv_coldef cols[TV_COL_MAX]; /* in display order */
	int ncols;
	int at[TV_COL_CORE_COUNT]; /* where each of the dashboard's own columns is */
	int drop[TV_COL_MAX];	   /* columns given up on narrow terminals, first first */
	int ndrop;
	int sort; /* a column */
	bool sort_reverse;
	bool frozen;
	uint64_t *frozen_ids; /* display order kept while frozen */
	uint32_t nfrozen, frozen_cap;
	uint32_t *order; /* indexes into the snapshot's rows, as displayed */
	uint32_t order_cap, norder;
	const struct tm_row *rows; /* of the view being drawn (sorting) */
	uint64_t selected;	   /* connection id */
	uint32_t top;		   /* first displayed row */
	bool detail, help;
	struct cf_filter *filter;
	char filter_text[128];
	bool editing;
	char edit[128];
	size_t edit_len;
	int table_rows; /* rows of the table at the last draw, for paging */
	bool visible[TV_COL_MAX];
	int width[TV_COL_MAX];
	char msg[128]; /* one-shot status message */
	bool held;     /* 'p' on a live capture: the screen is held, capture goes on */
};

static void add_column(struct tv_view *v, const struct tv_coldef *c)
{
	if (c->core >= 0)
		v->at[c->core] = v->ncols;
	v->cols[v->ncols++] = *c;
}

/* The dashboard's columns up to RETR, the detectors' in table order, then
 * OOO and Q; and the order narrow terminals give them up in: highest prio
 * first, right to left among equals, a detector's prio-0 columns last. */
static void build_columns(struct tv_view *v)
{
	for (int k = TV_COL_ID; k <= TV_COL_RETR; k++)
		add_column(v, &tv_core_cols[k]);
	for (unsigned k = 0; k < DET_VIEW_COUNT; k++)
		for (unsigned j = 0; j < det_views[k]->ncolumns && j < DET_MAX_COLUMNS; j++) {
			const struct det_column *dc = &det_views[k]->columns[j];
			struct tv_coldef c = {dc->head, dc->width, dc->prio,   dc->desc,
					      false,	-1,	   (uint8_t)k, (uint8_t)j};
			add_column(v, &c);
		}
	add_column(v, &tv_core_cols[TV_COL_OOO]);
	add_column(v, &tv_core_cols[TV_COL_QUEUES]);
	v->ndrop = 0;
	for (int prio = 9; prio >= 0; prio--)
		for (int k = v->ncols - 1; k >= 0; k--)
			if (v->cols[k].prio == prio && (prio > 0 || v->cols[k].core < 0))
				v->drop[v->ndrop++] = k;
}

struct tv_view *tv_new(const struct tv_config *cfg, char *errbuf, size_t errlen)
{
	struct tv_view *v = calloc(1, sizeof(*v));

	if (!v) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	v->cfg = *cfg;
	build_columns(v);
	v->sort = v->at[TV_COL_ID];
	return v;
}

void tv_free(struct tv_view *v)
{
	if (!v)
		return;
	cf_free(v->filter);
	free(v->frozen_ids);
	free(v->order);
	free(v);
}

uint64_t tv_detail_id(const struct tv_view *v)
{
	return v->detail ? v->selected : 0;
}

void tv_set_filter(struct tv_view *v, const char *expr)
{
	char err[64];

	cf_free(v->filter);
	v->filter = NULL;
	v->filter_text[0] = '\0';
	if (expr && *expr) {
		v->filter = cf_new(expr, err, sizeof(err));
		if (v->filter)
			snprintf(v->filter_text, sizeof(v->filter_text), "%s", expr);
	}
	v->top = 0;
}

/* ---- formatting ---- */

static void fmt_si(char *b, size_t n, double x)
{
	static const char sfx[] = " kMGTP";
	int k = 0;

	while (x >= 999.5 && k < 5) {
		x /= 1000;
		k++;
	}
	if (k == 0)
		snprintf(b, n, "%.0f", x);
	else
		snprintf(b, n, x < 9.995 ? "%.2f%c" : x < 99.95 ? "%.1f%c" : "%.0f%c", x, sfx[k]);
}

static void fmt_dur(char *b, size_t n, int64_t ns)
{
	det_fmt_dur_short(b, n, ns);
}

static void fmt_count(char *b, size_t n, uint64_t x)
{
	if (x < 100000)
		snprintf(b, n, "%" PRIu64, x);
	else
		fmt_si(b, n, (double)x);
}

/* Display columns of a UTF-8 string (every character we print is one column). */
static int ucols(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Print at most max columns of s at (y, x); returns the columns printed. */
static int put(int y, int x, int max, const char *s)
{
	int cols = 0;
	const char *e = s;

	if (max <= 0)
		return 0;
	while (*e) {
		const char *c = e + 1;
		while (((unsigned char)*c & 0xc0) == 0x80)
			c++;
		if (cols + 1 > max)
			break;
		cols++;
		e = c;
	}
	mvaddnstr(y, x, s, (int)(e - s));
	return cols;
}

static int putf(int y, int x, int max, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int putf(int y, int x, int max, const char *fmt, ...)
{
	char b[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	return put(y, x, max, b);
}

static attr_t pair_attr(const struct tv_view *v, enum tv_pair p)
{
	if (v->cfg.color && has_colors())
		return COLOR_PAIR(p) | (p == TV_P_TITLE || p == TV_P_HEAD ? A_BOLD : 0);
	switch (p) {
	case TV_P_TITLE:
	case TV_P_HEAD:
		return A_REVERSE;
	case TV_P_BAD:
		return A_BOLD;
	case TV_P_DIM:
		return A_DIM;
	default:
		return A_NORMAL;
	}
}

/* A detector's tone (det_view.h) as the colour pair it maps to. */
static enum tv_pair tone_pair(enum det_tone t)
{
	switch (t) {
	case DET_TONE_WARN:
		return TV_P_WARN;
	case DET_TONE_BAD:
		return TV_P_BAD;
	case DET_TONE_ORDER:
		return TV_P_ORDER;
	case DET_TONE_MTU:
		return TV_P_MTU;
	default:
		return TV_P_DIM;
	}
}

static attr_t tone_attr(const struct tv_view *v, enum det_tone t)
{
	return t == DET_TONE_NONE ? A_NORMAL : pair_attr(v, tone_pair(t));
}

static void hline_fill(int y, int x, int n, attr_t a)
{
	attrset(a);
	mvhline(y, x, ' ', n);
}

/* ---- sorting and filtering ---- */

static int cmp_addr(const struct dec_addr *a, uint16_t pa, const struct dec_addr *b, uint16_t pb)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	int c = memcmp(a->a, b->a, a->family == 6 ? 16 : 4);
	return c ? c : (pa < pb ? -1 : pa > pb);
}

#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y))

static int cmp_col(const struct tv_coldef *col, const struct tm_row *a, const struct tm_row *b)
{
	if (col->core < 0)
		return CMP(a->det[col->view][col->vcol].sort, b->det[col->view][col->vcol].sort);
	switch ((enum tv_col)col->core) {
	case TV_COL_CLIENT:
		return cmp_addr(&a->client, a->client_port, &b->client, b->client_port);
	case TV_COL_SERVER:
		return cmp_addr(&a->server, a->server_port, &b->server, b->server_port);
	case TV_COL_STATE:
		return CMP(a->state, b->state);
	case TV_COL_UP:
		return CMP(a->rate[SUM_C2S], b->rate[SUM_C2S]);
	case TV_COL_DOWN:
		return CMP(a->rate[SUM_S2C], b->rate[SUM_S2C]);
	case TV_COL_RTT:
		return CMP(a->rtt_ns, b->rtt_ns);
	case TV_COL_RETR:
		return CMP(a->retrans, b->retrans);
	case TV_COL_OOO:
		return CMP(a->ooo, b->ooo);
	case TV_COL_QUEUES:
		return CMP(a->queues, b->queues);
	default:
		return 0;
	}
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct tv_view *v = ctx;
	const struct tm_row *a = &v->rows[*(const uint32_t *)pa],
			    *b = &v->rows[*(const uint32_t *)pb];
	int c = cmp_col(&v->cols[v->sort], a, b);

	if (v->cols[v->sort].desc)
		c = -c;
	if (v->sort_reverse)
		c = -c;
	return c ? c : CMP(a->id, b->id); /* stable: ties in id order */
}

static uint32_t find_row(const struct tm_snapshot *s, uint64_t id)
{
	uint32_t lo = 0, hi = s->nrows;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->rows[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nrows && s->rows[lo].id == id ? lo : UINT32_MAX;
}

/* Fill v->order: the rows that pass the filter, sorted (or in frozen order). */
static int build_order(struct tv_view *v, const struct tm_snapshot *s)
{
	if (v->order_cap < s->nrows) {
		uint32_t *n = realloc(v->order, (size_t)s->nrows * sizeof(*n));
		if (!n)
			return -1;
		v->order = n;
		v->order_cap = s->nrows;
	}
	v->rows = s->rows;
	v->norder = 0;
	if (v->frozen && v->frozen_ids) {
		/* The frozen order first, then connections that are new since. */
		uint32_t n = 0;
		for (uint32_t k = 0; k < v->nfrozen; k++) {
			uint32_t i = find_row(s, v->frozen_ids[k]);
			if (i != UINT32_MAX && (!v->filter || cf_match(v->filter, &s->rows[i])))
				v->order[v->norder++] = i;
			if (i != UINT32_MAX)
				v->frozen_ids[n++] = v->frozen_ids[k];
		}
		v->nfrozen = n;
		uint64_t last = 0;
		for (uint32_t k = 0; k < v->nfrozen; k++)
			last = v->frozen_ids[k] > last ? v->frozen_ids[k] : last;
		for (uint32_t i = 0; i < s->nrows; i++) {
			if (s->rows[i].id <= last)
				continue;
			if (v->nfrozen == v->frozen_cap) {
				uint32_t ncap = v->frozen_cap * 2 + 64;
				uint64_t *f = realloc(v->frozen_ids, ncap * sizeof(*f));
				if (!f)
					return -1;
				v->frozen_ids = f;
				v->frozen_cap = ncap;
			}
			v->frozen_ids[v->nfrozen++] = s->rows[i].id;
			if (!v->filter || cf_match(v->filter, &s->rows[i]))
				v->order[v->norder++] = i;
		}
		return 0;
	}
	for (uint32_t i = 0; i < s->nrows; i++)
		if (!v->filter || cf_match(v->filter, &s->rows[i]))
			v->order[v->norder++] = i;
	if (v->norder > 1)
		qsort_r(v->order, v->norder, sizeof(*v->order), cmp_rows, v);
	return 0;
}

static void freeze(struct tv_view *v)
{
	v->frozen = !v->frozen;
	if (!v->frozen || !v->rows)
		return;
	uint64_t *f = realloc(v->frozen_ids, (v->norder + 64) * sizeof(*f));
	if (!f) {
		v->frozen = false;
		return;
	}
	v->frozen_ids = f;
	v->frozen_cap = v->norder + 64;
	v->nfrozen = 0;
	for (uint32_t k = 0; k < v->norder; k++)
		v->frozen_ids[v->nfrozen++] = v->rows[v->order[k]].id;
}

/* ---- header ---- */

static void fmt_reltime(char *b, size_t n, int64_t ts, int64_t first)
{
	double s = (double)(ts - first) / 1e9;
	snprintf(b, n, "%.3f s", s < 0 ? 0 : s);
}

static void draw_header(struct tv_view *v, const struct pl_view *pv, int cols)
{
	const struct pl_header *h = &pv->h;
	const struct tm_totals *t = &pv->m.tot;
	char a[32], b[32], c[32];
	int x;

	hline_fill(0, 0, cols, pair_attr(v, TV_P_TITLE));
	const char *state = pl_state_name(h->state);
	if (h->mode == PL_REPLAY && h->state == PL_PLAYING) {
		if (h->speed > 0)
			snprintf(a, sizeof(a), "playing %gx", h->speed);
		else
			snprintf(a, sizeof(a), "playing max");
		state = a;
	} else if (h->mode == PL_LIVE && h->state == PL_PLAYING) {
		state = "capturing";
	}
	fmt_reltime(b, sizeof(b), h->last_ts, h->first_ts);
	x = putf(0, 0, cols, " tcpsift %s %s  [%s]  t+%s", h->mode == PL_LIVE ? "live" : "replay",
		 v->cfg.source, state, h->packets ? b : "0 s");
	if (h->mode == PL_REPLAY && h->progress >= 0)
		x += putf(0, x, cols - x, "  %.0f%% read", h->progress * 100);
	if (h->mode == PL_LIVE && h->nqueues > 1)
		x += putf(0, x, cols - x, "  %u sockets", h->nqueues);
	snprintf(c, sizeof(c), "%02d:%02d ", (int)h->wall_s / 60, (int)h->wall_s % 60);
	if (cols - x > (int)strlen(c) + 1)
		put(0, cols - (int)strlen(c), (int)strlen(c), c);

	attrset(A_NORMAL);
	fmt_count(a, sizeof(a), h->packets);
	fmt_si(b, sizeof(b), h->pps);
	fmt_si(c, sizeof(c), h->bps);
	x = putf(1, 0, cols, " %s pkts  %s pkt/s  %sb/s  conns %" PRIu64 " (%" PRIu64 " live)", a,
		 b, c, t->conns, t->live);
	if (h->drops_known) {
		x += putf(1, x, cols - x, "  drops ");
		attrset(pair_attr(v, h->kernel_drops + h->if_drops + h->our_drops ? TV_P_BAD
										  : TV_P_GOOD));
		if (h->mode == PL_LIVE)
			x += putf(1, x, cols - x, "kernel %" PRIu64 " if %" PRIu64 " us %" PRIu64,
				  h->kernel_drops, h->if_drops, h->our_drops);
		else
			x += putf(1, x, cols - x, "%" PRIu64 " (file)", h->kernel_drops);
		attrset(A_NORMAL);
	} else if (h->mode == PL_REPLAY) {
		x += putf(1, x, cols - x, "  drops n/a");
	}
	if (h->queue_fill >= 0)
		x += putf(1, x, cols - x, "  queue %.0f%%", h->queue_fill * 100);
	if (h->written)
		x += putf(1, x, cols - x, "  written %" PRIu64, h->written);
	if (h->malformed)
		putf(1, x, cols - x, "  malformed %" PRIu64, h->malformed);

	/* Wide terminals get words, narrow ones the short forms. */
	bool wide = cols >= 110;
	x = put(2, 0, cols, wide ? " findings: " : " ");
	for (unsigned k = 0; k < DET_VIEW_COUNT; k++) {
		char part[96];
		det_views[k]->header(part, sizeof(part), &t->det, wide);
		attrset(tone_attr(v, det_views[k]->header_tone));
		x += putf(2, x, cols - x, "%s%s", k == 0 ? "" : wide ? "  " : " ", part);
	}
	attrset(pair_attr(v, TV_P_BAD));
	x += putf(2, x, cols - x, wide ? "  capture loss %" PRIu64 : " loss %" PRIu64,
		  t->events[SUM_EV_CAPTURE_LOSS]);
	attrset(pair_attr(v, TV_P_WARN));
	x += putf(2, x, cols - x, wide ? "  zero window %" PRIu64 : " 0win %" PRIu64,
		  t->events[SUM_EV_ZERO_WINDOW]);
	attrset(A_NORMAL);
	x += putf(2, x, cols - x, wide ? "  retransmissions %" PRIu64 : " retr %" PRIu64,
		  t->retrans);
	if (t->ended_dropped)
		putf(2, x, cols - x, "  (%" PRIu64 " old rows dropped)", t->ended_dropped);
	attrset(A_NORMAL);
}

/* ---- the connection table ---- */

/* Which columns fit in cols, and how wide the address columns get (the
 * detail view shows everything a dropped column would). */
static void layout(struct tv_view *v, int cols)
{
	int client = v->at[TV_COL_CLIENT], server = v->at[TV_COL_SERVER];

	for (int k = 0; k < v->ncols; k++) {
		v->visible[k] = true;
		v->width[k] = v->cols[k].width;
	}
	for (int drop = 0;; drop++) {
		int used = 2; /* margins */
		for (int k = 0; k < v->ncols; k++)
			if (v->visible[k] && k != client && k != server)
				used += v->cols[k].width + 1;
		int addr = (cols - used - 2) / 2;
		if (addr >= 14 || drop == v->ndrop) {
			addr = addr > TV_ADDR_MAX ? TV_ADDR_MAX : addr < 8 ? 8 : addr;
			v->width[client] = v->width[server] = addr;
			break;
		}
		v->visible[v->drop[drop]] = false;
	}
	if (!v->visible[v->sort])
		v->sort = v->at[TV_COL_ID];
}

struct tv_row_ctx {
	struct tv_view *v;
	int y, cols;
};

/* Column col (a display index) of the row at *x. */
static void cell(const struct tv_row_ctx *ctx, int *x, int col, const char *s)
{
	const struct tv_view *v = ctx->v;
	int w = v->width[col], n = ucols(s);

	if (!v->visible[col] || *x >= ctx->cols)
		return;
	if (n > w && (col == v->at[TV_COL_CLIENT] || col == v->at[TV_COL_SERVER])) {
		/* Keep the port: cut the address in the middle. */
		char b[96];
		int keep = w - 1;
		int head = keep / 2, tail = keep - head;
		snprintf(b, sizeof(b), "%.*s%s%s", head, s, v->cfg.utf8 ? "…" : "~",
			 s + strlen(s) - tail);
		put(ctx->y, *x, ctx->cols - *x, b);
	} else if (v->cols[col].left) {
		put(ctx->y, *x, w < ctx->cols - *x ? w : ctx->cols - *x, s);
	} else {
		int pad = w > n ? w - n : 0;
		put(ctx->y, *x + pad, ctx->cols - *x - pad, s);
	}
	*x += w + 1;
}

static void draw_table_head(struct tv_view *v, int y, int cols)
{
	struct tv_row_ctx ctx = {v, y, cols};
	int x = 1;

	hline_fill(y, 0, cols, pair_attr(v, TV_P_HEAD));
	for (int k = 0; k < v->ncols; k++) {
		char b[32];
		if (k == v->sort) {
			bool down = v->cols[k].desc != v->sort_reverse;
			snprintf(b, sizeof(b), "%s%s", v->cols[k].head,
				 v->cfg.utf8 ? (down ? "▼" : "▲") : (down ? "v" : "^"));
		} else {
			snprintf(b, sizeof(b), "%s", v->cols[k].head);
		}
		cell(&ctx, &x, k, b);
	}
	attrset(A_NORMAL);
}

static void draw_row(struct tv_view *v, int y, int cols, const struct tm_row *r, bool selected,
		     unsigned nvantages, const char (*vantages)[32])
{
	struct tv_row_ctx ctx = {v, y, cols};
	char b[96];
	int x = 1;

	attr_t a = selected ? A_REVERSE : r->ended ? pair_attr(v, TV_P_DIM) : A_NORMAL;
	hline_fill(y, 0, cols, a);
	snprintf(b, sizeof(b), "%" PRIu64, r->id);
	cell(&ctx, &x, v->at[TV_COL_ID], b);
	rep_format_endpoint(&r->client, r->client_port, b, sizeof(b));
	if (nvantages > 1 && r->vantage_matters) { /* seen at two places: say where */
		size_t n = strlen(b);
		snprintf(b + n, sizeof(b) - n, "@%s",
			 vantages[r->vantage < PL_MAX_VANTAGES ? r->vantage : PL_MAX_VANTAGES - 1]);
	}
	cell(&ctx, &x, v->at[TV_COL_CLIENT], b);
	rep_format_endpoint(&r->server, r->server_port, b, sizeof(b));
	cell(&ctx, &x, v->at[TV_COL_SERVER], b);
	cell(&ctx, &x, v->at[TV_COL_STATE], sum_state_label(r->state, 4));
	for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
		fmt_si(b, sizeof(b), r->rate[d] * 8);
		cell(&ctx, &x, v->at[d == SUM_C2S ? TV_COL_UP : TV_COL_DOWN], b);
	}
	fmt_dur(b, sizeof(b), r->rtt_ns);
	cell(&ctx, &x, v->at[TV_COL_RTT], b);
	fmt_count(b, sizeof(b), r->retrans);
	if (r->retrans && !selected)
		attrset(pair_attr(v, TV_P_BAD));
	cell(&ctx, &x, v->at[TV_COL_RETR], b);
	attrset(a);
	for (int k = v->at[TV_COL_RETR] + 1; k < v->at[TV_COL_OOO]; k++) {
		const struct det_cell *dc = &r->det[v->cols[k].view][v->cols[k].vcol];
		if (dc->text[0])
			snprintf(b, sizeof(b), "%s", dc->text);
		else
			fmt_count(b, sizeof(b), (uint64_t)dc->sort);
		if (dc->tone != DET_TONE_NONE && !selected)
			attrset(tone_attr(v, dc->tone));
		cell(&ctx, &x, k, b);
		attrset(a);
	}
	fmt_count(b, sizeof(b), r->ooo);
	if (r->ooo && !selected)
		attrset(pair_attr(v, TV_P_ORDER));
	cell(&ctx, &x, v->at[TV_COL_OOO], b);
	attrset(a);
	if (r->queues)
		snprintf(b, sizeof(b), "%" PRIu32, r->queues);
	else
		snprintf(b, sizeof(b), "-");
	cell(&ctx, &x, v->at[TV_COL_QUEUES], b);
	attrset(A_NORMAL);
}

/* Keep the selection on a displayed row and in view. Returns its position. */
static uint32_t settle_selection(struct tv_view *v, int rows)
{
	uint32_t pos = 0;
	bool found = false;

	for (uint32_t k = 0; k < v->norder; k++)
		if (v->rows[v->order[k]].id == v->selected) {
			pos = k;
			found = true;
			break;
		}
	if (!found) {
		pos = 0;
		v->selected = v->norder ? v->rows[v->order[0]].id : 0;
	}
	if (rows > 0) {
		if (pos < v->top)
			v->top = pos;
		if (pos >= v->top + (uint32_t)rows)
			v->top = pos - (uint32_t)rows + 1;
		if (v->norder <= (uint32_t)rows)
			v->top = 0;
	}
	return pos;
}

static void draw_table(struct tv_view *v, const struct pl_view *pv, int y, int rows, int cols)
{
	draw_table_head(v, y, cols);
	rows--;
	v->table_rows = rows;
	settle_selection(v, rows);
	for (int k = 0; k < rows; k++) {
		uint32_t i = v->top + (uint32_t)k;
		if (i >= v->norder)
			break;
		const struct tm_row *r = &pv->m.rows[v->order[i]];
		draw_row(v, y + 1 + k, cols, r, r->id == v->selected, pv->h.nvantages,
			 (const char(*)[32])pv->h.vantage);
	}
	if (v->norder == 0) {
		attrset(pair_attr(v, TV_P_DIM));
		put(y + 1, 2, cols - 2,
		    pv->m.nrows ? "no connection matches the filter" : "no TCP connection yet");
		attrset(A_NORMAL);
	}
}

/* ---- the findings log ---- */

/* An event's colour: its detector's tone, or the engine's events'. */
static enum tv_pair event_pair(const struct sum_event *e)
{
	const struct det_view *dv = det_view_of_event(e->type);

	if (dv)
		return tone_pair(dv->event_tone(e));
	switch (e->type) {
	case SUM_EV_ZERO_WINDOW:
		return TV_P_WARN;
	case SUM_EV_CAPTURE_LOSS:
		return TV_P_BAD;
	case SUM_EV_DSACK:
		return TV_P_ORDER;
	default:
		return TV_P_MTU;
	}
}

/* One line of what an event says: its detector's words, or the engine's. */
static void describe_event(char *b, size_t n, const struct sum_event *e)
{
	const struct det_view *dv = det_view_of_event(e->type);
	char d[32];

	if (dv) {
		dv->event_line(b, n, e);
		return;
	}
	fmt_dur(d, sizeof(d), e->duration_ns);
	switch (e->type) {
	case SUM_EV_ZERO_WINDOW:
		snprintf(b, n, "zero window for %s", d);
		break;
	case SUM_EV_CAPTURE_LOSS:
		snprintf(b, n, "capture missed %" PRIu64 " B (~%" PRIu32 " segments)", e->bytes,
			 e->segments);
		break;
	case SUM_EV_DSACK:
		snprintf(b, n, "D-SACK: %" PRIu64 " B received twice", e->bytes);
		break;
	case SUM_EV_OVERSIZE:
		snprintf(b, n,
			 "segment of %" PRIu64 " B above the MSS (GSO/TSO/GRO at the capture)",
			 e->bytes);
		break;
	default:
		snprintf(b, n, "%s", sum_event_name(e->type));
		break;
	}
}

static void draw_log(struct tv_view *v, const struct pl_view *pv, int y, int rows, int cols)
{
	char t[32], what[256];
	const struct pl_header *h = &pv->h;

	hline_fill(y, 0, cols, pair_attr(v, TV_P_HEAD));
	putf(y, 1, cols - 1, "FINDINGS, newest first (%" PRIu32 " shown)", pv->m.nlog);
	attrset(A_NORMAL);
	for (int k = 0; k + 1 < rows && (uint32_t)k < pv->m.nlog; k++) {
		const struct sum_event *e = &pv->m.log[k];
		fmt_reltime(t, sizeof(t), e->ts, h->first_ts);
		describe_event(what, sizeof(what), e);
		int x = putf(y + 1 + k, 0, cols, " %10s #%-4" PRIu64 " %s ", t, e->conn,
			     e->dir == SUM_C2S ? "c>s" : "s>c");
		attrset(pair_attr(v, event_pair(e)));
		x += putf(y + 1 + k, x, cols - x, "%-12s", sum_event_name(e->type));
		attrset(A_NORMAL);
		x += put(y + 1 + k, x, cols - x, " ");
		x += put(y + 1 + k, x, cols - x, what);
		if (cols - x > 20)
			putf(y + 1 + k, x, cols - x, "  [frames %" PRIu64 "-%" PRIu64 "]",
			     e->frame_first, e->frame_last);
	}
}

/* ---- the detail view ---- */

static const char *const spark_utf8[8] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
static const char spark_ascii[8] = {'.', ',', '-', '~', '=', '+', '*', '#'};

static void sparkline(struct tv_view *v, int y, int x, int w, const struct tm_timeline *tl,
		      unsigned dir)
{
	uint32_t used = tl->used ? tl->used : 1, max = 1;

	for (uint32_t k = 0; k < used; k++)
		max = tl->b[k].bytes[dir] > max ? tl->b[k].bytes[dir] : max;
	for (int c = 0; c < w; c++) {
		/* Column c covers buckets [c*used/w, (c+1)*used/w). */
		uint32_t lo = (uint32_t)((uint64_t)c * used / (uint32_t)w);
		uint32_t hi = (uint32_t)((uint64_t)(c + 1) * used / (uint32_t)w);
		uint64_t sum = 0;
		uint32_t nb = 0;
		for (uint32_t k = lo; k < hi || (k == lo && nb == 0); k++, nb++)
			sum += tl->b[k < TM_BUCKETS ? k : TM_BUCKETS - 1].bytes[dir];
		double avg = nb ? (double)sum / nb : 0;
		if (avg <= 0) {
			put(y, x + c, 1, " ");
			continue;
		}
		int lvl = (int)(avg * 7.999 / max);
		lvl = lvl < 0 ? 0 : lvl > 7 ? 7 : lvl;
		if (v->cfg.utf8) {
			put(y, x + c, 1, spark_utf8[lvl]);
		} else {
			char s[2] = {spark_ascii[lvl], 0};
			put(y, x + c, 1, s);
		}
	}
}

/* The letter for a timeline bucket's flags: a detector's mark that spans
 * time (a stall: S) first, then a zero window (Z), then point marks (a
 * SACK hole: H); the colour its detector gives it. */
static void timeline_mark(uint8_t flags, char *mark, enum tv_pair *pair)
{
	for (int pass = 0; pass < 3 && !mark[0]; pass++) {
		if (pass == 1) {
			if (flags & TM_B_ZERO_WINDOW) {
				mark[0] = 'Z';
				*pair = TV_P_WARN;
			}
			continue;
		}
		for (unsigned k = 0; k < DET_VIEW_COUNT && !mark[0]; k++) {
			const struct det_view *dv = det_views[k];
			if (dv->timeline_mark && dv->timeline_span == (pass == 0) &&
			    (flags & TM_B_VIEW(k))) {
				mark[0] = dv->timeline_mark;
				*pair = tone_pair(dv->header_tone);
			}
		}
	}
}

/* Sequence (y) against time (x) of the data direction, retransmissions as R,
 * the detectors' marks (stalls S, SACK holes H) and zero windows (Z) on the
 * time axis. */
static void seqgraph(struct tv_view *v, int y, int x, int h, int w, const struct tm_timeline *tl,
		     unsigned dir)
{
	uint32_t used = tl->used ? tl->used : 1, top = 1;

	for (uint32_t k = 0; k < used; k++)
		top = tl->b[k].seq_hi[dir] > top ? tl->b[k].seq_hi[dir] : top;
	attrset(pair_attr(v, TV_P_DIM));
	for (int r = 0; r < h; r++)
		put(y + r, x, 1, v->cfg.utf8 ? "│" : "|");
	attrset(A_NORMAL);
	uint32_t reached = 0;
	for (int c = 0; c < w - 1; c++) {
		uint32_t lo = (uint32_t)((uint64_t)c * used / (uint32_t)(w - 1));
		uint32_t hi = (uint32_t)((uint64_t)(c + 1) * used / (uint32_t)(w - 1));
		uint32_t seq = 0, retr = 0;
		uint8_t flags = 0;
		for (uint32_t k = lo; (k < hi || k == lo) && k < TM_BUCKETS; k++) {
			const struct tm_bucket *b = &tl->b[k];
			seq = b->seq_hi[dir] > seq ? b->seq_hi[dir] : seq;
			retr += b->retrans[dir];
			flags |= b->flags;
		}
		if (seq > reached)
			reached = seq;
		int col = x + 1 + c;
		if (seq) {
			int row = (int)((double)seq * (h - 1) / top + 0.5);
			row = row > h - 1 ? h - 1 : row;
			if (retr) {
				attrset(pair_attr(v, TV_P_BAD) | A_BOLD);
				put(y + h - 1 - row, col, 1, "R");
			} else {
				put(y + h - 1 - row, col, 1, v->cfg.utf8 ? "•" : "*");
			}
			attrset(A_NORMAL);
		} else if (reached) {
			/* Nothing sent: the line stays flat at what was reached. */
			int row = (int)((double)reached * (h - 1) / top + 0.5);
			row = row > h - 1 ? h - 1 : row;
			attrset(pair_attr(v, TV_P_DIM));
			put(y + h - 1 - row, col, 1, v->cfg.utf8 ? "·" : ".");
			attrset(A_NORMAL);
		}
		char mark[2] = {0, 0};
		enum tv_pair mark_pair = TV_P_WARN;
		timeline_mark(flags, mark, &mark_pair);
		if (mark[0]) {
			attrset(pair_attr(v, mark_pair));
			put(y + h, col, 1, mark);
			attrset(A_NORMAL);
		} else {
			attrset(pair_attr(v, TV_P_DIM));
			put(y + h, col, 1, v->cfg.utf8 ? "─" : "-");
			attrset(A_NORMAL);
		}
	}
	attrset(pair_attr(v, TV_P_DIM));
	put(y + h, x, 1, v->cfg.utf8 ? "└" : "+");
	attrset(A_NORMAL);
}

static void stat_line(int y, int cols, const char *name, const char *c2s, const char *s2c)
{
	putf(y, 0, cols, "  %-22s %18s %18s", name, c2s, s2c);
}

#define U64(b, x) (snprintf((b), sizeof(b), "%" PRIu64, (uint64_t)(x)), (b))

static void draw_detail(struct tv_view *v, const struct pl_view *pv, int y, int rows, int cols)
{
	const struct tm_detail *dt = &pv->m.detail;
	const struct sum_conn *s = &dt->s;
	char a[64], b[64], c[24], d[24];
	int end = y + rows;

	hline_fill(y, 0, cols, pair_attr(v, TV_P_HEAD));
	if (!dt->valid || s->id != v->selected) {
		putf(y, 1, cols - 1, "CONNECTION #%" PRIu64 " (loading)", v->selected);
		attrset(A_NORMAL);
		return;
	}
	rep_format_endpoint(&s->client, s->client_port, a, sizeof(a));
	rep_format_endpoint(&s->server, s->server_port, b, sizeof(b));
	const struct pl_header *h = &pv->h;
	putf(y, 1, cols - 1, "CONNECTION #%" PRIu64 "  %s %s %s  %s%s  seen at %s", s->id, a,
	     v->cfg.utf8 ? "→" : "->", b, sum_state_name(s->state), dt->ended ? ", ended" : "",
	     h->nvantages
		 ? h->vantage[s->vantage < PL_MAX_VANTAGES ? s->vantage : PL_MAX_VANTAGES - 1]
		 : "?");
	attrset(A_NORMAL);
	y++;
	fmt_dur(a, sizeof(a), s->handshake_rtt_ns);
	fmt_dur(b, sizeof(b), s->last_ts - s->first_ts);
	putf(y++, 0, cols,
	     "  duration %s  handshake RTT %s  SACK %s  timestamps %s  frames %" PRIu64 "-%" PRIu64,
	     b, s->handshake_rtt_ns >= 0 ? a : "-", s->sack_permitted ? "yes" : "no",
	     s->timestamps ? "yes" : "no", s->first_frame, s->last_frame);
	attrset(A_BOLD);
	stat_line(y++, cols, "", "client>server", "server>client");
	attrset(A_NORMAL);

	const struct sum_dir *c2s = &s->dir[SUM_C2S], *s2c = &s->dir[SUM_S2C];
	/* name, then the same field each way */
	struct {
		const char *name;
		uint64_t x[2];
	} lines[] = {
	    {"packets", {c2s->packets, s2c->packets}},
	    {"payload bytes", {c2s->payload_bytes, s2c->payload_bytes}},
	    {"retransmissions", {c2s->retrans, s2c->retrans}},
	    {"  fast / rto", {0, 0}},
	    {"out of order", {c2s->out_of_order, s2c->out_of_order}},
	    {"lost before capture", {c2s->lost_segments, s2c->lost_segments}},
	    {"dup ACKs sent", {c2s->dup_acks, s2c->dup_acks}},
	    {"zero windows sent", {c2s->zero_windows, s2c->zero_windows}},
	};
	int budget = rows - 3;
	/* Below the table: rtt, mss, throughput, sparkline 2, graph >= 4, stalls, queues. */
	int want_below = 3 + 2 + 6 + 2;
	int nlines = (int)(sizeof(lines) / sizeof(lines[0]));
	if (budget - want_below < nlines)
		nlines = budget - want_below > 3 ? budget - want_below : 3;
	for (int k = 0; k < nlines && y < end; k++) {
		if (k == 3) {
			snprintf(a, sizeof(a), "%" PRIu64 " / %" PRIu64, c2s->fast_retrans,
				 c2s->rto_retrans);
			snprintf(b, sizeof(b), "%" PRIu64 " / %" PRIu64, s2c->fast_retrans,
				 s2c->rto_retrans);
			stat_line(y++, cols, lines[k].name, a, b);
			continue;
		}
		stat_line(y++, cols, lines[k].name, U64(a, lines[k].x[0]), U64(b, lines[k].x[1]));
	}
	for (unsigned dd = 0; dd < 2; dd++) {
		const struct sum_rtt *r = &s->dir[dd].rtt;
		char *o = dd ? b : a;
		if (r->n) {
			fmt_dur(c, sizeof(c), r->min_ns);
			fmt_dur(d, sizeof(d), r->sum_ns / (int64_t)r->n);
			snprintf(o, 64, "%s / %s", c, d);
		} else {
			snprintf(o, 64, "-");
		}
	}
	if (y < end)
		stat_line(y++, cols, "RTT min / avg", a, b);
	snprintf(a, sizeof(a), "%" PRIu32 " / %d", c2s->mss, c2s->wscale);
	snprintf(b, sizeof(b), "%" PRIu32 " / %d", s2c->mss, s2c->wscale);
	if (y < end)
		stat_line(y++, cols, "MSS / wscale", a, b);
	fmt_si(c, sizeof(c), dt->rate[SUM_C2S] * 8);
	fmt_si(d, sizeof(d), dt->rate[SUM_S2C] * 8);
	snprintf(a, sizeof(a), "%sb/s", c);
	snprintf(b, sizeof(b), "%sb/s", d);
	if (y < end)
		stat_line(y++, cols, "throughput now", a, b);

	/* Sparklines over the connection's life. */
	int gw = cols - 22 > 8 ? cols - 22 : 8;
	if (gw > 120)
		gw = 120;
	fmt_dur(a, sizeof(a), dt->tl.width_ns * (int64_t)(dt->tl.used ? dt->tl.used : 1));
	for (unsigned dd = 0; dd < 2 && y < end; dd++) {
		putf(y, 0, cols, "  %-18s", dd == 0 ? "client>server tput" : "server>client tput");
		sparkline(v, y, 21, gw < cols - 21 ? gw : cols - 21, &dt->tl, dd);
		y++;
	}
	/* Time-sequence graph of the direction that sent more. */
	unsigned data_dir = s->dir[SUM_S2C].payload_bytes > s->dir[SUM_C2S].payload_bytes;
	int gh = end - y - 3;
	if (gh > 12)
		gh = 12;
	if (gh >= 3) {
		putf(y, 0, cols, "  seq %s", data_dir ? "s>c" : "c>s");
		seqgraph(v, y, 21, gh, gw < cols - 21 ? gw : cols - 21, &dt->tl, data_dir);
		putf(y + gh, 2, 18, "0 .. %s", a);
		char legend[64] = "";
		size_t ln = 0;
		for (unsigned k = 0; k < DET_VIEW_COUNT && ln < sizeof(legend); k++)
			if (det_views[k]->timeline_mark)
				ln += (size_t)snprintf(legend + ln, sizeof(legend) - ln, "%s%c %s",
						       ln ? " " : "", det_views[k]->timeline_mark,
						       det_views[k]->name);
		putf(y + 1, 2, 18, "R retrans Z 0-win");
		putf(y + 2, 2, 18, "%s", legend);
		y += gh + 1;
	}
	/* Queue distribution. */
	if (y < end) {
		uint64_t total = 0;
		for (unsigned k = 0; k < TM_QUEUES; k++)
			total += dt->queue_pkts[k];
		int x = putf(y, 0, cols, "  queues:");
		if (!total)
			putf(y, x, cols - x, " unknown (no queue ids in this capture)");
		for (unsigned k = 0; k < TM_QUEUES && total; k++)
			if (dt->queue_pkts[k])
				x += putf(y, x, cols - x, " q%u%s %.0f%%", k,
					  k == TM_QUEUES - 1 ? "+" : "",
					  100.0 * (double)dt->queue_pkts[k] / (double)total);
		y++;
	}
	/* Each detector's line (stall histogram, holes, MTU ...). */
	for (unsigned k = 0; k < DET_VIEW_COUNT && y < end; k++) {
		char line[256];
		if (!det_views[k]->detail)
			continue;
		line[0] = '\0';
		det_views[k]->detail(line, sizeof(line), s, &dt->live, dt->ended);
		if (line[0])
			putf(y++, 0, cols, "  %s", line);
	}
}

/* ---- help ---- */

static void draw_help(struct tv_view *v, int rows, int cols)
{
	static const char *const lines[] = {
	    "tcpsift tui: keys",
	    "",
	    "  Up/Down, j/k     move the selection      PgUp/PgDn, g/G  page, first, last",
	    "  Enter            open/close the selected connection's detail",
	    "  s / S            sort by the next column / reverse the order",
	    "  /                filter: a capture filter (\"port 443\", \"host 10.0.0.1\")",
	    "                   or a substring of the addresses; empty clears it",
	    "  f                freeze the row order (new connections go last)",
	    "  p                pause/resume the replay (live: hold the screen)",
	    "  n                paused replay: play one more packet",
	    "  + / -            replay faster / slower",
	    "  ?                this help (any key closes it)",
	    "  q                quit (so do Ctrl-C and SIGTERM)",
	    "",
	    "Columns: C>S/S>C throughput in bits/s over the last second of capture time;",
	    "RTT the smallest measured; RETR retransmissions; STALL stalls inside transfers",
	    "and LOST the time they cost; HOLE SACK holes; OOO out-of-order segments; Q RX",
	    "queues used; MTU ! for a misaligned MTU, a PMTU black hole or ICMP too-big.",
	    "Dim rows have ended. Numbers are the same analyze reports (tcpsift(1)).",
	};
	erase();
	hline_fill(0, 0, cols, pair_attr(v, TV_P_TITLE));
	put(0, 1, cols - 1, lines[0]);
	attrset(A_NORMAL);
	for (int k = 1; k < (int)(sizeof(lines) / sizeof(lines[0])) && k < rows; k++)
		put(k + 1, 0, cols, lines[k]);
}

/* ---- the footer ---- */

static void draw_footer(struct tv_view *v, const struct pl_view *pv, int y, int cols)
{
	hline_fill(y, 0, cols, pair_attr(v, TV_P_HEAD));
	if (v->editing) {
		int x = putf(y, 0, cols, " filter: %s", v->edit);
		move(y, x < cols ? x : cols - 1);
		attrset(A_NORMAL);
		return;
	}
	char right[200];
	int n = snprintf(right, sizeof(right), "%s%s%s%s%s%s %" PRIu32 "/%" PRIu32 " ", v->msg,
			 pv->h.mode == PL_LIVE && v->held ? " HELD (p)" : "",
			 v->frozen ? " frozen" : "", v->filter_text[0] ? " filter: " : "",
			 v->filter_text, v->filter && !cf_is_bpf(v->filter) ? " (substring)" : "",
			 v->norder, pv->m.nrows);
	if (n > cols / 2)
		n = cols / 2;
	put(y, cols - n, n, right);
	put(y, 0, cols - n - 1,
	    v->cfg.utf8 ? " q quit  ↑↓ move  ⏎ detail  s sort  / filter  p pause  f freeze  ? help"
			: " q quit  j/k move  Enter detail  s sort  / filter  p pause  f freeze  ? "
			  "help");
	attrset(A_NORMAL);
}

void tv_draw(struct tv_view *v, const struct pl_view *pv)
{
	int rows, cols;

	getmaxyx(stdscr, rows, cols);
	erase();
	if (v->help) {
		draw_help(v, rows, cols);
		return;
	}
	if (rows < 8 || cols < 40) {
		put(0, 0, cols, "tcpsift tui: terminal too small (40x8 at least)");
		return;
	}
	layout(v, cols);
	build_order(v, &pv->m);
	draw_header(v, pv, cols);
	int body = rows - 4; /* header 3, footer 1 */
	if (v->detail) {
		settle_selection(v, 0);
		draw_detail(v, pv, 3, body, cols);
	} else {
		/* The table takes what its rows need, between 5 lines and all
		 * but 4; the findings log the rest. */
		int table = (int)(v->norder < (uint32_t)body ? v->norder : (uint32_t)body) + 1;
		table = table < 5 ? 5 : table > body - 4 ? body - 4 : table;
		if (table < body / 2 && v->norder >= (uint32_t)body / 2)
			table = body / 2;
		int log = body - table;
		draw_table(v, pv, 3, table, cols);
		draw_log(v, pv, 3 + body - log, log, cols);
	}
	if (pv->h.error[0]) {
		hline_fill(rows - 2, 0, cols, pair_attr(v, TV_P_BAD) | A_REVERSE);
		putf(rows - 2, 0, cols, " error: %s", pv->h.error);
		attrset(A_NORMAL);
	}
	draw_footer(v, pv, rows - 1, cols);
	if (!v->editing)
		move(rows - 1, cols - 1);
}

/* ---- keys ---- */

static void move_selection(struct tv_view *v, long delta)
{
	uint32_t pos = settle_selection(v, -1);
	long np = (long)pos + delta;

	if (v->norder == 0)
		return;
	if (np < 0)
		np = 0;
	if (np >= (long)v->norder)
		np = (long)v->norder - 1;
	v->selected = v->rows[v->order[np]].id;
}

static enum tv_action edit_key(struct tv_view *v, int key)
{
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		v->editing = false;
		tv_set_filter(v, v->edit);
		curs_set(0);
	} else if (key == 27) { /* Escape: keep the old filter */
		v->editing = false;
		curs_set(0);
	} else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (v->edit_len)
			v->edit[--v->edit_len] = '\0';
	} else if (key >= 32 && key < 127 && v->edit_len + 1 < sizeof(v->edit)) {
		v->edit[v->edit_len++] = (char)key;
		v->edit[v->edit_len] = '\0';
	}
	return TV_REDRAW;
}

enum tv_action tv_key(struct tv_view *v, int key)
{
	v->msg[0] = '\0';
	if (v->editing)
		return edit_key(v, key);
	if (v->help) {
		v->help = false;
		return key == 'q' ? TV_QUIT : TV_REDRAW;
	}
	int page = v->table_rows > 1 ? v->table_rows - 1 : 1;
	switch (key) {
	case 'q':
	case 'Q':
		return TV_QUIT;
	case KEY_UP:
	case 'k':
		move_selection(v, -1);
		return TV_REDRAW;
	case KEY_DOWN:
	case 'j':
		move_selection(v, 1);
		return TV_REDRAW;
	case KEY_PPAGE:
		move_selection(v, -page);
		return TV_REDRAW;
	case KEY_NPAGE:
	case ' ':
		move_selection(v, page);
		return TV_REDRAW;
	case KEY_HOME:
	case 'g':
		move_selection(v, -(long)v->norder);
		return TV_REDRAW;
	case KEY_END:
	case 'G':
		move_selection(v, (long)v->norder);
		return TV_REDRAW;
	case '\n':
	case '\r':
	case KEY_ENTER:
		v->detail = !v->detail && v->selected;
		return TV_REDRAW;
	case 27: /* Escape closes the detail */
		v->detail = false;
		return TV_REDRAW;
	case 's':
		do
			v->sort = (v->sort + 1) % v->ncols;
		while (!v->visible[v->sort]);
		v->sort_reverse = false;
		if (v->frozen)
			snprintf(v->msg, sizeof(v->msg), "(unfreeze to sort)");
		return TV_REDRAW;
	case 'S':
		v->sort_reverse = !v->sort_reverse;
		return TV_REDRAW;
	case 'f':
		freeze(v);
		return TV_REDRAW;
	case '/':
		v->editing = true;
		snprintf(v->edit, sizeof(v->edit), "%s", v->filter_text);
		v->edit_len = strlen(v->edit);
		curs_set(1);
		return TV_REDRAW;
	case '?':
	case 'h':
		v->help = true;
		return TV_REDRAW;
	case 'p':
		v->held = !v->held;
		return TV_PAUSE;
	case 'n':
		return TV_STEP;
	case '+':
		return TV_FASTER;
	case '-':
		return TV_SLOWER;
	case KEY_RESIZE:
		return TV_REDRAW;
	default:
		return TV_NONE;
	}
}
