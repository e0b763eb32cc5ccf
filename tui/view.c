/* view.c - the dashboard's view: its life, and which part of the screen goes where. */
#include "tui/view.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/err.h"
#include "tui/connfilter.h"
#include "tui/view_int.h"

struct tv_view *tv_new(const struct tv_config *cfg, char *errbuf, size_t errlen)
{
	struct tv_view *v = calloc(1, sizeof(*v));

	if (!v) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	v->cfg = *cfg;
	tv_build_columns(v);
	v->sort = v->at[TV_COL_ID];
	v->head_y = -1;
	return v;
}

void tv_init_colors(void)
{
	start_color();
	use_default_colors();
	init_pair(1, COLOR_WHITE, COLOR_BLUE); /* title */
	init_pair(2, COLOR_BLACK, COLOR_CYAN); /* table head */
	init_pair(3, COLOR_YELLOW, -1);	       /* stalls */
	init_pair(4, COLOR_RED, -1);	       /* holes, loss */
	init_pair(5, COLOR_CYAN, -1);	       /* reordering */
	init_pair(6, COLOR_MAGENTA, -1);       /* mtu */
	init_pair(7, COLOR_GREEN, -1);	       /* good */
	init_pair(8, COLOR_BLUE, -1);	       /* dim (ended rows) */
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

bool tv_selected_row(const struct tv_view *v, struct tm_row *out)
{
	for (uint32_t k = 0; k < v->norder && v->rows; k++)
		if (v->rows[v->order[k]].id == v->selected) {
			*out = v->rows[v->order[k]];
			return true;
		}
	return false;
}

void tv_status(struct tv_view *v, const char *text)
{
	snprintf(v->status, sizeof(v->status), "%s", text);
}

uint64_t tv_detail_id(const struct tv_view *v)
{
	return v->detail ? v->selected : 0;
}

int tv_set_filter(struct tv_view *v, const char *expr, char *errbuf, size_t errlen)
{
	struct cf_filter *f = NULL;

	if (expr && *expr) {
		f = cf_new(expr, errbuf, errlen);
		if (!f)
			return ERR_USAGE;
	}
	cf_free(v->filter);
	v->filter = f;
	snprintf(v->filter_text, sizeof(v->filter_text), "%s", f ? expr : "");
	v->top = 0;
	return 0;
}

void tv_draw(struct tv_view *v, const struct pl_view *pv)
{
	int rows, cols;

	getmaxyx(stdscr, rows, cols);
	erase();
	v->head_y = -1; /* until the table draws its head */
	if (v->help) {
		tv_draw_help(v, rows, cols);
		return;
	}
	if (rows < 8 || cols < 40) {
		tv_put(0, 0, cols, "tcpsift tui: terminal too small (40x8 at least)");
		return;
	}
	tv_layout(v, pv, cols);
	tv_build_order(v, &pv->m);
	if (v->detail)
		tv_settle_selection(v, 0);
	tv_build_log(v, pv);
	tv_draw_header(v, pv, cols);
	int body = rows - 4; /* header 3, footer 1 */
	v->log_rows = 0;
	if (v->log_open) {
		tv_draw_finding(v, pv, 3, body, cols);
	} else if (v->detail) {
		/* The connection's own findings below its detail, when there is room. */
		int log = body >= 24 ? (int)(v->nlogv + 1 < 8 ? v->nlogv + 1 : 8) : 0;
		if (log == 1)
			log = 2;
		tv_draw_detail(v, pv, 3, body - log, cols);
		if (log)
			tv_draw_log(v, pv, 3 + body - log, log, cols);
	} else {
		/* The table takes what its rows need, between 5 lines and all
		 * but 4; the findings log the rest. */
		int table = (int)(v->norder < (uint32_t)body ? v->norder : (uint32_t)body) + 1;
		table = table < 5 ? 5 : table > body - 4 ? body - 4 : table;
		if (table < body / 2 && v->norder >= (uint32_t)body / 2)
			table = body / 2;
		int log = body - table;
		tv_draw_table(v, pv, 3, table, cols);
		tv_draw_log(v, pv, 3 + body - log, log, cols);
		if (v->sort_menu) /* over both: the columns may outnumber the rows */
			tv_draw_sort_menu(v, 3, body, cols);
	}
	if (v->editing && v->edit_err[0]) {
		tv_hline_fill(rows - 2, 0, cols, tv_pair_attr(v, TV_P_BAD) | A_REVERSE);
		tv_putf(rows - 2, 0, cols, " %s (Escape: keep the old filter)", v->edit_err);
		attrset(A_NORMAL);
	} else if (v->status[0]) {
		tv_hline_fill(rows - 2, 0, cols, A_NORMAL);
		tv_putf(rows - 2, 0, cols, " %s", v->status);
	} else if (pv->h.error[0]) {
		tv_hline_fill(rows - 2, 0, cols, tv_pair_attr(v, TV_P_BAD) | A_REVERSE);
		tv_putf(rows - 2, 0, cols, " error: %s", pv->h.error);
		attrset(A_NORMAL);
	}
	tv_draw_footer(v, pv, rows - 1, cols); /* it puts the prompt's cursor */
	if (!v->editing)
		move(rows - 1, cols - 1);
}
