/* view_keys.c - the dashboard's keys, its help screen and the footer that lists them. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tui/connfilter.h"
#include "tui/view_int.h"

/* ---- help ---- */

void tv_draw_help(struct tv_view *v, int rows, int cols)
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
	tv_hline_fill(0, 0, cols, tv_pair_attr(v, TV_P_TITLE));
	tv_put(0, 1, cols - 1, lines[0]);
	attrset(A_NORMAL);
	for (int k = 1; k < (int)(sizeof(lines) / sizeof(lines[0])) && k < rows; k++)
		tv_put(k + 1, 0, cols, lines[k]);
}

/* ---- the footer ---- */

void tv_draw_footer(struct tv_view *v, const struct pl_view *pv, int y, int cols)
{
	tv_hline_fill(y, 0, cols, tv_pair_attr(v, TV_P_HEAD));
	if (v->editing) {
		int x = tv_putf(y, 0, cols, " filter: %s", v->edit);
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
	tv_put(y, cols - n, n, right);
	tv_put(y, 0, cols - n - 1,
	       v->cfg.utf8
		   ? " q quit  ↑↓ move  ⏎ detail  s sort  / filter  p pause  f freeze  ? help"
		   : " q quit  j/k move  Enter detail  s sort  / filter  p pause  f freeze  ? "
		     "help");
	attrset(A_NORMAL);
}

/* ---- keys ---- */

enum tv_action tv_mouse(struct tv_view *v, int y, int x)
{
	v->msg[0] = '\0';
	if (v->editing || v->help)
		return TV_NONE;
	if (v->head_y >= 0 && y == v->head_y) {
		/* The column under x: the last one starting at or left of it. */
		int col = -1;
		for (int k = 0; k < v->ncols; k++)
			if (v->col_x[k] >= 0 && v->col_x[k] <= x &&
			    (col < 0 || v->col_x[k] > v->col_x[col]))
				col = k;
		if (col < 0)
			return TV_NONE;
		tv_sort_by(v, col);
		if (v->frozen)
			snprintf(v->msg, sizeof(v->msg), "(unfreeze to sort)");
		return TV_REDRAW;
	}
	if (v->head_y >= 0 && y > v->head_y && y <= v->head_y + v->table_rows) {
		uint32_t pos = v->top + (uint32_t)(y - v->head_y - 1);
		if (pos < v->norder)
			v->selected = v->rows[v->order[pos]].id;
		return TV_REDRAW;
	}
	return TV_NONE;
}

static void move_selection(struct tv_view *v, long delta)
{
	uint32_t pos = tv_settle_selection(v, -1);
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
	case '>':
	case '<':
		tv_sort_step(v, key == '<' ? -1 : 1);
		if (v->frozen)
			snprintf(v->msg, sizeof(v->msg), "(unfreeze to sort)");
		return TV_REDRAW;
	case 't':
		v->rates = !v->rates;
		snprintf(v->msg, sizeof(v->msg),
			 v->rates ? "C>S, S>C: bits/s now" : "C>S, S>C: bytes so far");
		return TV_REDRAW;
	case 'S':
		v->sort_reverse = !v->sort_reverse;
		return TV_REDRAW;
	case 'f':
		tv_freeze(v);
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
