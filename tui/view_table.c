/* view_table.c - the dashboard's connection table: columns, sort, filter, layout, rows. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/report.h"
#include "common/err.h"
#include "tui/connfilter.h"
#include "tui/view_int.h"

/* ---- columns ---- */

/* The dashboard's own columns (enum tv_col); see struct tv_coldef. */
static const struct tv_coldef tv_core_cols[TV_COL_CORE_COUNT] = {
    [TV_COL_ID] = {"#", 3, 0, false, false, TV_COL_ID, 0, 0},
    [TV_COL_CLIENT] = {"CLIENT", 14, 0, false, true, TV_COL_CLIENT, 0, 0},
    [TV_COL_SERVER] = {"SERVER", 14, 0, false, true, TV_COL_SERVER, 0, 0},
    [TV_COL_STATE] = {"ST", 4, 2, false, true, TV_COL_STATE, 0, 0},
    [TV_COL_UP] = {"C>S", 7, 0, true, false, TV_COL_UP, 0, 0},
    [TV_COL_DOWN] = {"S>C", 7, 0, true, false, TV_COL_DOWN, 0, 0},
    [TV_COL_PKTS] = {"PKTS", 6, 3, true, false, TV_COL_PKTS, 0, 0},
    [TV_COL_RATE] = {"NOW", 7, 2, true, false, TV_COL_RATE, 0, 0},
    [TV_COL_RTT] = {"RTT", 6, 3, true, false, TV_COL_RTT, 0, 0},
    [TV_COL_PATH] = {"PATH", 6, 2, true, false, TV_COL_PATH, 0, 0},
    [TV_COL_RETR] = {"RETR", 5, 0, true, false, TV_COL_RETR, 0, 0},
    [TV_COL_LOSS] = {"LOSS%", 5, 2, true, false, TV_COL_LOSS, 0, 0},
    [TV_COL_OOO] = {"OOO", 5, 2, true, false, TV_COL_OOO, 0, 0},
    [TV_COL_QUEUES] = {"Q", 2, 5, true, false, TV_COL_QUEUES, 0, 0},
};

static void add_column(struct tv_view *v, const struct tv_coldef *c)
{
	if (c->core >= 0)
		v->at[c->core] = v->ncols;
	v->cols[v->ncols++] = *c;
}

/* The dashboard's columns up to LOSS%, the detectors' in table order, then
 * OOO and Q; and the order narrow terminals give them up in: highest prio
 * first, right to left among equals, a detector's prio-0 columns last.
 * With today's detectors (their prios in det_view columns):
 *
 *   Q, MTU, LOST, RTT, PKTS, OOO, LOSS%, PATH, NOW, ST, HOLE
 *
 * go in that order, so that 80 columns keep #, the addresses, C>S, S>C,
 * RETR, STALL and LIMIT (what held the transfer back), and 100 add HOLE
 * and ST. RTT (the capture point's own turnaround) goes before PATH (the
 * path's). The sort column is never given up (tv_layout). */
void tv_build_columns(struct tv_view *v)
{
	for (int k = TV_COL_ID; k <= TV_COL_LOSS; k++)
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

/* ---- sorting and filtering ---- */

static int cmp_addr(const struct dec_addr *a, uint16_t pa, const struct dec_addr *b, uint16_t pb)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	int c = memcmp(a->a, b->a, a->family == 6 ? 16 : 4);
	return c ? c : (pa < pb ? -1 : pa > pb);
}

#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y))

static int cmp_col(const struct tv_coldef *col, bool rates, const struct tm_row *a,
		   const struct tm_row *b)
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
	case TV_COL_DOWN: {
		unsigned d = col->core == TV_COL_UP ? SUM_C2S : SUM_S2C;
		return rates ? CMP(a->rate[d], b->rate[d]) : CMP(a->bytes[d], b->bytes[d]);
	}
	case TV_COL_PKTS:
		return CMP(a->packets[0] + a->packets[1], b->packets[0] + b->packets[1]);
	case TV_COL_RATE:
		return CMP(a->rate[0] + a->rate[1], b->rate[0] + b->rate[1]);
	case TV_COL_RTT:
		return CMP(a->rtt_ns, b->rtt_ns);
	case TV_COL_PATH:
		return CMP(a->path_ns, b->path_ns);
	case TV_COL_RETR:
		return CMP(a->retrans, b->retrans);
	case TV_COL_LOSS:
		return CMP(a->loss, b->loss);
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
	int c = cmp_col(&v->cols[v->sort], v->rates, a, b);

	if (v->cols[v->sort].desc)
		c = -c;
	if (v->sort_reverse)
		c = -c;
	return c ? c : CMP(a->id, b->id); /* stable: ties in id order */
}

uint32_t tv_find_row(const struct tm_snapshot *s, uint64_t id)
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
int tv_build_order(struct tv_view *v, const struct tm_snapshot *s)
{
	/* First: out of memory leaves an empty table, not the last frame's
	 * order over rows the snapshot may have moved since. */
	v->rows = s->rows;
	v->norder = 0;
	if (v->order_cap < s->nrows) {
		uint32_t *n = realloc(v->order, (size_t)s->nrows * sizeof(*n));
		if (!n)
			return ERR_NOMEM;
		v->order = n;
		v->order_cap = s->nrows;
	}
	if (v->frozen && v->frozen_ids) {
		/* The frozen order first, then connections that are new since. */
		uint32_t n = 0;
		for (uint32_t k = 0; k < v->nfrozen; k++) {
			uint32_t i = tv_find_row(s, v->frozen_ids[k]);
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
					return ERR_NOMEM;
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

void tv_freeze(struct tv_view *v)
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

void tv_sort_by(struct tv_view *v, int col)
{
	if (col < 0 || col >= v->ncols)
		return;
	if (col == v->sort) {
		v->sort_reverse = !v->sort_reverse;
	} else {
		v->sort = col;
		v->sort_reverse = false;
	}
}

void tv_sort_step(struct tv_view *v, int step)
{
	int col = v->sort;

	for (int n = 0; n < v->ncols; n++) {
		col = (col + step + v->ncols) % v->ncols;
		if (v->visible[col])
			break;
	}
	v->sort = col;
	v->sort_reverse = false;
}

/* ---- the connection table ---- */

static const char *head_of(const struct tv_view *v, int k);
static enum tv_pair cell_text(const struct tv_view *v, const struct pl_view *pv,
			      const struct tm_row *r, int k, char *b, size_t n);

/* Which columns fit in cols, and how wide each is (the detail view shows
 * everything a dropped column would). A column is as wide as the widest of
 * its head (with the sort arrow, so that they never run into the next),
 * its usual width and every value it has in pv's rows (not only those on
 * the screen, so that scrolling moves nothing): a 5-digit HOLE widens HOLE
 * instead of pushing the columns after it. The address columns share what
 * is left. Columns go in v->drop's order until the addresses get 14; the
 * sort column stays. */
void tv_layout(struct tv_view *v, const struct pl_view *pv, int cols)
{
	int client = v->at[TV_COL_CLIENT], server = v->at[TV_COL_SERVER];
	char b[96];

	for (int k = 0; k < v->ncols; k++) {
		v->visible[k] = true;
		v->width[k] = v->cols[k].width;
		int head = tv_ucols(head_of(v, k)) + (k == v->sort);
		if (v->width[k] < head && k != client && k != server)
			v->width[k] = head;
	}
	for (uint32_t i = 0; i < pv->m.nrows; i++)
		for (int k = 0; k < v->ncols; k++) {
			if (k == client || k == server)
				continue;
			cell_text(v, pv, &pv->m.rows[i], k, b, sizeof(b));
			int w = tv_ucols(b);
			if (w > v->width[k])
				v->width[k] = w;
		}
	for (int drop = 0;; drop++) {
		int used = 2; /* margins */
		for (int k = 0; k < v->ncols; k++)
			if (v->visible[k] && k != client && k != server)
				used += v->width[k] + 1;
		int addr = (cols - used - 2) / 2;
		if (addr >= 14 || drop == v->ndrop) {
			addr = addr > TV_ADDR_MAX ? TV_ADDR_MAX : addr < 8 ? 8 : addr;
			v->width[client] = v->width[server] = addr;
			break;
		}
		if (v->drop[drop] != v->sort)
			v->visible[v->drop[drop]] = false;
	}
}

struct tv_row_ctx {
	struct tv_view *v;
	int y, cols;
};

/* Column col (a display index) of the row at *x. */
static void cell(const struct tv_row_ctx *ctx, int *x, int col, const char *s)
{
	const struct tv_view *v = ctx->v;
	int w = v->width[col], n = tv_ucols(s);

	if (!v->visible[col] || *x >= ctx->cols)
		return;
	if (n > w && (col == v->at[TV_COL_CLIENT] || col == v->at[TV_COL_SERVER])) {
		/* Keep the port: cut the address in the middle. */
		char b[96];
		int keep = w - 1;
		int head = keep / 2, tail = keep - head;
		snprintf(b, sizeof(b), "%.*s%s%s", head, s, v->cfg.utf8 ? "…" : "~",
			 s + strlen(s) - tail);
		tv_put(ctx->y, *x, ctx->cols - *x, b);
	} else if (v->cols[col].left) {
		tv_put(ctx->y, *x, w < ctx->cols - *x ? w : ctx->cols - *x, s);
	} else {
		int pad = w > n ? w - n : 0;
		tv_put(ctx->y, *x + pad, ctx->cols - *x - pad, s);
	}
	*x += w + 1;
}

/* A column's head: C>S and S>C say which of bytes or bits/s they show. */
static const char *head_of(const struct tv_view *v, int k)
{
	if (v->rates && k == v->at[TV_COL_UP])
		return "C>S/s";
	if (v->rates && k == v->at[TV_COL_DOWN])
		return "S>C/s";
	return v->cols[k].head;
}

static void draw_table_head(struct tv_view *v, int y, int cols)
{
	struct tv_row_ctx ctx = {v, y, cols};
	int x = 1;

	v->head_y = y;
	tv_hline_fill(y, 0, cols, tv_pair_attr(v, TV_P_HEAD));
	for (int k = 0; k < v->ncols; k++) {
		char b[32];
		if (k == v->sort) {
			bool down = v->cols[k].desc != v->sort_reverse;
			snprintf(b, sizeof(b), "%s%s", head_of(v, k),
				 v->cfg.utf8 ? (down ? "▼" : "▲") : (down ? "v" : "^"));
		} else {
			snprintf(b, sizeof(b), "%s", head_of(v, k));
		}
		v->col_x[k] = v->visible[k] && x < cols ? x : -1;
		cell(&ctx, &x, k, b);
	}
	attrset(A_NORMAL);
}

/* Column k (a display index) of row r as text into b, and its colour
 * (TV_P_COUNT: the row's own): what draw_row draws and tv_layout measures. */
static enum tv_pair cell_text(const struct tv_view *v, const struct pl_view *pv,
			      const struct tm_row *r, int k, char *b, size_t n)
{
	const struct tv_coldef *c = &v->cols[k];

	b[0] = '\0';
	if (c->core < 0) {
		const struct det_cell *dc = &r->det[c->view][c->vcol];
		if (dc->text[0])
			snprintf(b, n, "%s", dc->text);
		else
			tv_fmt_count(b, n, (uint64_t)dc->sort);
		return dc->tone != DET_TONE_NONE ? tv_tone_pair(dc->tone) : TV_P_COUNT;
	}
	switch ((enum tv_col)c->core) {
	case TV_COL_ID:
		snprintf(b, n, "%" PRIu64, r->id);
		break;
	case TV_COL_CLIENT:
		rep_format_endpoint(&r->client, r->client_port, b, n);
		if (pv->h.nvantages > 1 && r->vantage_matters) { /* seen at two places: say where */
			size_t len = strlen(b);
			snprintf(b + len, n - len, "@%s",
				 pv->h.vantage[r->vantage < PL_MAX_VANTAGES ? r->vantage
									    : PL_MAX_VANTAGES - 1]);
		}
		break;
	case TV_COL_SERVER:
		rep_format_endpoint(&r->server, r->server_port, b, n);
		break;
	case TV_COL_STATE:
		snprintf(b, n, "%s", tv_row_idle(pv, r) ? "idle" : sum_state_label(r->state, 4));
		break;
	case TV_COL_UP:
	case TV_COL_DOWN: {
		unsigned d = c->core == TV_COL_UP ? SUM_C2S : SUM_S2C;
		if (v->rates)
			tv_fmt_si(b, n, r->rate[d] * 8);
		else
			tv_fmt_bytes(b, n, r->bytes[d]);
		break;
	}
	case TV_COL_PKTS:
		tv_fmt_count(b, n, r->packets[0] + r->packets[1]);
		break;
	case TV_COL_RATE:
		tv_fmt_si(b, n, (r->rate[0] + r->rate[1]) * 8);
		break;
	case TV_COL_RTT:
		tv_fmt_dur(b, n, r->rtt_ns);
		break;
	case TV_COL_PATH:
		tv_fmt_dur(b, n, r->path_ns);
		break;
	case TV_COL_RETR:
		tv_fmt_count(b, n, r->retrans);
		return r->retrans ? TV_P_BAD : TV_P_COUNT;
	case TV_COL_LOSS:
		rep_fmt_loss(b, n, r->loss);
		return r->loss > 0 ? TV_P_BAD : TV_P_COUNT;
	case TV_COL_OOO:
		tv_fmt_count(b, n, r->ooo);
		return r->ooo ? TV_P_ORDER : TV_P_COUNT;
	case TV_COL_QUEUES:
		if (r->queues)
			snprintf(b, n, "%" PRIu32, r->queues);
		else
			snprintf(b, n, "-");
		break;
	default:
		break;
	}
	return TV_P_COUNT;
}

static void draw_row(struct tv_view *v, int y, int cols, const struct pl_view *pv,
		     const struct tm_row *r, bool selected)
{
	struct tv_row_ctx ctx = {v, y, cols};
	char b[96];
	int x = 1;

	attr_t a = selected ? A_REVERSE : r->ended ? tv_pair_attr(v, TV_P_DIM) : A_NORMAL;
	tv_hline_fill(y, 0, cols, a);
	for (int k = 0; k < v->ncols; k++) {
		enum tv_pair p = cell_text(v, pv, r, k, b, sizeof(b));
		if (p != TV_P_COUNT && !selected)
			attrset(tv_pair_attr(v, p));
		cell(&ctx, &x, k, b);
		attrset(a);
	}
	attrset(A_NORMAL);
}

/* Keep the selection on a displayed row and in view. Returns its position. */
uint32_t tv_settle_selection(struct tv_view *v, int rows)
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

void tv_draw_table(struct tv_view *v, const struct pl_view *pv, int y, int rows, int cols)
{
	draw_table_head(v, y, cols);
	rows--;
	v->table_rows = rows;
	tv_settle_selection(v, rows);
	for (int k = 0; k < rows; k++) {
		uint32_t i = v->top + (uint32_t)k;
		if (i >= v->norder)
			break;
		const struct tm_row *r = &pv->m.rows[v->order[i]];
		draw_row(v, y + 1 + k, cols, pv, r, r->id == v->selected);
	}
	if (v->norder == 0) {
		attrset(tv_pair_attr(v, TV_P_DIM));
		tv_put(y + 1, 2, cols - 2,
		       pv->m.nrows ? "no connection matches the filter" : "no TCP connection yet");
		attrset(A_NORMAL);
	}
}
