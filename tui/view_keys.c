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
	    "  F6, o            sort menu: Up/Down and Enter choose a column, r reverses,",
	    "                   Escape closes it unchanged",
	    "  < / > (s)        sort by the column left / right; S or r reverses. A click",
	    "                   on a column's head sorts by it (again: reversed), on a row",
	    "                   selects it",
	    "  t                C>S, S>C: bytes so far (default) or bits/s now",
	    "  Tab              browse the findings, a line per connection and kind: its",
	    "                   count, first frame and worst; Enter or Right lists its",
	    "                   findings (Enter on one: in full, frames and evidence), Left",
	    "                   or Escape folds them; Tab goes back",
	    "  /                filter: a capture filter (\"port 443\", \"host 10.0.0.1\") or",
	    "                   a piece of an address (\"10.0.2.\", \":5201\"); anything else",
	    "                   that does not compile shows libpcap's error. Ctrl-U clears,",
	    "                   arrows and Ctrl-A/E move, Up/Down recall; empty clears it",
	    "  w                write the selected connection's packets to tcpsift-conn-ID.pcapng",
	    "  P                plot its graphs (analyze --plot) into tcpsift-conn-ID-graphs/",
	    "  c                copy its tshark filter (terminal clipboard, OSC 52)",
	    "  f                freeze the row order (new connections go last)",
	    "  p                pause/resume the replay (live: hold the screen)",
	    "  n                paused replay: play one more packet",
	    "  + / -            replay faster / slower      [ / ]  replay 10 s back / on",
	    "  ?                this help (a key shows the next page, then closes it)",
	    "  q                quit (so do Ctrl-C and SIGTERM)",
	    "",
	    "Columns: C>S/S>C payload bytes (t: bits/s over the last second), PKTS packets,",
	    "NOW bits/s both ways over the last second (live: of the wall clock, so it falls",
	    "to 0 when nothing arrives); RTT the smallest measured here, PATH the path's",
	    "end to end; RETR retransmissions, LOSS% segments lost of those sent;",
	    "STALL stalls inside transfers and LOST the time they cost; HOLE SACK holes;",
	    "OOO out-of-order segments; Q RX queues used; MTU ! for a misaligned MTU, a PMTU",
	    "black hole or ICMP too-big. ST idle: no packet for 3 s. Dim rows have ended.",
	    "LIMIT what held the transfer back most (limited_by). Narrow terminals give up",
	    "columns, Q first and HOLE last; 80 keep RETR, STALL, LIMIT (F6 sorts by any).",
	    "Numbers are the same analyze reports (tcpsift-tui(1)).",
	};
	int n = (int)(sizeof(lines) / sizeof(lines[0])), body = rows - 2;
	erase();
	tv_hline_fill(0, 0, cols, tv_pair_attr(v, TV_P_TITLE));
	tv_put(0, 1, cols - 1, lines[0]);
	attrset(A_NORMAL);
	/* Pages on a short terminal: a key shows the next, the last closes. */
	if (v->help_top >= n - 1)
		v->help_top = 0;
	int k;
	for (k = 0; k < body && v->help_top + 1 + k < n; k++)
		tv_put(k + 1, 0, cols, lines[v->help_top + 1 + k]);
	v->help_more = body > 0 && v->help_top + 1 + k < n;
	v->help_page = body > 0 ? body : 1;
	attrset(A_REVERSE);
	tv_put(rows - 1, 0, cols,
	       v->help_more ? " more: any key (Escape closes) " : " any key closes the help ");
	attrset(A_NORMAL);
}

/* ---- the footer ---- */

void tv_draw_footer(struct tv_view *v, const struct pl_view *pv, int y, int cols)
{
	tv_hline_fill(y, 0, cols, tv_pair_attr(v, TV_P_HEAD));
	if (v->editing) {
		/* The text scrolls so that the cursor stays on the screen. */
		int x0 = tv_put(y, 0, cols, " filter: ");
		int room = cols - x0 - 1;
		size_t from = 0;
		if (room < 1) {
			attrset(A_NORMAL);
			return;
		}
		if (v->edit_pos > (size_t)room)
			from = v->edit_pos - (size_t)room;
		if (v->edit_selected)
			attrset(A_NORMAL | A_UNDERLINE);
		tv_put(y, x0, room, v->edit + from);
		attrset(A_NORMAL);
		move(y, x0 + (int)(v->edit_pos - from));
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
	/* The keys, as many whole ones as fit. */
	static const char *const keys_utf8[] = {"q quit",  "? help",   "↑↓ move",	 "⏎ detail",
						"F6 sort", "/ filter", "Tab findings",	 "w write",
						"P plot",  "c copy",   "t totals/rates", "p pause"};
	static const char *const keys_ascii[] = {
	    "q quit",	    "? help",  "j/k move", "Enter detail", "o sort",	     "/ filter",
	    "Tab findings", "w write", "P plot",   "c copy",	   "t totals/rates", "p pause"};
	const char *const *keys = v->cfg.utf8 ? keys_utf8 : keys_ascii;
	int x = 0, room = cols - n - 1;
	for (size_t k = 0; k < sizeof(keys_utf8) / sizeof(keys_utf8[0]) && x <= room; k++)
		x += tv_piece(y, x, room, "%s%s", k ? "  " : " ", keys[k]);
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
	if (v->log_rows > 0 && y >= v->log_y && y <= v->log_y + v->log_rows) {
		v->log_focus = true;
		if (y > v->log_y) {
			uint32_t pos = v->log_top + (uint32_t)(y - v->log_y - 1);
			if (pos < v->nlogv)
				tv_log_move(v, (long)pos - (long)v->log_sel);
		}
		return TV_REDRAW;
	}
	if (v->head_y >= 0 && y > v->head_y && y <= v->head_y + v->table_rows) {
		v->log_focus = false;
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

/* ---- the '/' prompt: a line editor ---- */

static void edit_set(struct tv_view *v, const char *text)
{
	snprintf(v->edit, sizeof(v->edit), "%s", text);
	v->edit_len = v->edit_pos = strlen(v->edit);
	v->edit_selected = false;
}

static void edit_start(struct tv_view *v)
{
	v->editing = true;
	edit_set(v, v->filter_text);
	v->edit_selected = v->edit_len > 0; /* typing replaces the old filter */
	v->edit_err[0] = '\0';
	v->hist_at = v->nhist;
	curs_set(1);
}

static void edit_stop(struct tv_view *v)
{
	v->editing = false;
	v->edit_err[0] = '\0';
	curs_set(0);
}

static void hist_add(struct tv_view *v, const char *text)
{
	if (!*text || (v->nhist && strcmp(v->hist[v->nhist - 1], text) == 0))
		return;
	if (v->nhist == TV_HIST) {
		memmove(v->hist[0], v->hist[1], sizeof(v->hist[0]) * (TV_HIST - 1));
		v->nhist--;
	}
	snprintf(v->hist[v->nhist++], sizeof(v->hist[0]), "%s", text);
}

/* Up (-1) / Down (+1) through the history; below the newest, the line typed. */
static void hist_move(struct tv_view *v, int step)
{
	int at = v->hist_at + step;

	if (at < 0 || at > v->nhist)
		return;
	if (v->hist_at == v->nhist)
		snprintf(v->hist_typed, sizeof(v->hist_typed), "%s", v->edit);
	v->hist_at = at;
	edit_set(v, at == v->nhist ? v->hist_typed : v->hist[at]);
}

static void edit_insert(struct tv_view *v, char c)
{
	if (v->edit_len + 1 >= sizeof(v->edit))
		return;
	memmove(v->edit + v->edit_pos + 1, v->edit + v->edit_pos, v->edit_len - v->edit_pos + 1);
	v->edit[v->edit_pos++] = c;
	v->edit_len++;
}

/* Delete n bytes from at. */
static void edit_delete(struct tv_view *v, size_t at, size_t n)
{
	if (at > v->edit_len)
		return;
	if (n > v->edit_len - at)
		n = v->edit_len - at;
	memmove(v->edit + at, v->edit + at + n, v->edit_len - at - n + 1);
	v->edit_len -= n;
	if (v->edit_pos > at + n)
		v->edit_pos -= n;
	else if (v->edit_pos > at)
		v->edit_pos = at;
}

#define CTRL(c) ((c)&0x1f)

static enum tv_action edit_key(struct tv_view *v, int key)
{
	bool was_selected = v->edit_selected;

	v->edit_selected = false;
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		char err[sizeof(v->edit_err) - 16];
		if (tv_set_filter(v, v->edit, err, sizeof(err)) < 0) {
			/* Stay in the prompt with libpcap's reason: fix it or Escape. */
			snprintf(v->edit_err, sizeof(v->edit_err), "not a filter: %s", err);
			return TV_REDRAW;
		}
		hist_add(v, v->edit);
		edit_stop(v);
		return TV_REDRAW;
	}
	v->edit_err[0] = '\0';
	switch (key) {
	case 27: /* Escape: keep the old filter */
		edit_stop(v);
		break;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (was_selected)
			edit_set(v, "");
		else if (v->edit_pos)
			edit_delete(v, v->edit_pos - 1, 1);
		break;
	case KEY_DC:
	case CTRL('d'):
		if (was_selected)
			edit_set(v, "");
		else
			edit_delete(v, v->edit_pos, 1);
		break;
	case CTRL('u'): /* the whole line, as the prompt holds one thing */
		edit_set(v, "");
		break;
	case CTRL('k'):
		edit_delete(v, v->edit_pos, v->edit_len - v->edit_pos);
		break;
	case CTRL('w'): { /* the word before the cursor */
		size_t p = v->edit_pos;
		while (p && v->edit[p - 1] == ' ')
			p--;
		while (p && v->edit[p - 1] != ' ')
			p--;
		edit_delete(v, p, v->edit_pos - p);
		break;
	}
	case KEY_LEFT:
	case CTRL('b'):
		if (v->edit_pos && !was_selected)
			v->edit_pos--;
		break;
	case KEY_RIGHT:
	case CTRL('f'):
		if (v->edit_pos < v->edit_len)
			v->edit_pos++;
		break;
	case KEY_HOME:
	case CTRL('a'):
		v->edit_pos = 0;
		break;
	case KEY_END:
	case CTRL('e'):
		v->edit_pos = v->edit_len;
		break;
	case KEY_UP:
		hist_move(v, -1);
		break;
	case KEY_DOWN:
		hist_move(v, 1);
		break;
	default:
		if (key >= 32 && key < 127) {
			if (was_selected)
				edit_set(v, "");
			edit_insert(v, (char)key);
		} else {
			v->edit_selected = was_selected; /* a key the prompt ignores */
		}
		break;
	}
	return TV_REDRAW;
}

/* A key that moves through a list (the table, the findings): how far, in
 * a list of n with pages of page entries; false for any other key. */
static bool nav_delta(int key, long page, long n, long *delta)
{
	switch (key) {
	case KEY_UP:
	case 'k':
		*delta = -1;
		return true;
	case KEY_DOWN:
	case 'j':
		*delta = 1;
		return true;
	case KEY_PPAGE:
		*delta = -page;
		return true;
	case KEY_NPAGE:
	case ' ':
		*delta = page;
		return true;
	case KEY_HOME:
	case 'g':
		*delta = -n;
		return true;
	case KEY_END:
	case 'G':
		*delta = n;
		return true;
	default:
		return false;
	}
}

/* Keys of the findings pane, focused (Tab) or one finding open (Enter):
 * TV_NONE hands the key on to the table's. Enter or Right expands a
 * group, Left or Escape folds it; Enter on a finding shows it in full. */
static enum tv_action log_key(struct tv_view *v, int key)
{
	long page = v->log_rows > 1 ? v->log_rows - 1 : 1;

	switch (key) {
	case '\t':
	case KEY_BTAB:
		v->log_focus = v->log_open = false;
		return TV_REDRAW;
	case 27:
		if (v->log_open)
			v->log_open = false;
		else if (v->log_expanded)
			tv_log_expand(v, false);
		else
			v->log_focus = false;
		return TV_REDRAW;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (tv_log_on_group(v))
			tv_log_expand(v, !tv_log_group_expanded(v));
		else
			v->log_open = !v->log_open && v->nlogv > 0;
		return TV_REDRAW;
	case KEY_RIGHT:
		if (tv_log_on_group(v))
			tv_log_expand(v, true);
		return TV_REDRAW;
	case KEY_LEFT:
		tv_log_expand(v, false);
		return TV_REDRAW;
	default: {
		long delta;
		if (!nav_delta(key, page, TM_GROUPS + TM_LOG, &delta))
			return TV_NONE;
		tv_log_move(v, delta);
		return TV_REDRAW;
	}
	}
}

/* The table's sort keys: a step left or right, the menu, reverse. */
static enum tv_action sort_key(struct tv_view *v, int key)
{
	switch (key) {
	case 's':
	case '>':
	case '<':
		tv_sort_step(v, key == '<' ? -1 : 1);
		if (v->frozen)
			snprintf(v->msg, sizeof(v->msg), "(unfreeze to sort)");
		return TV_REDRAW;
	case KEY_F(6):
	case 'o':
		if (v->detail)
			return TV_NONE; /* the table's order: sort it there */
		tv_sort_menu_open(v);
		return TV_REDRAW;
	case 'S':
	case 'r':
		v->sort_reverse = !v->sort_reverse;
		return TV_REDRAW;
	default:
		return TV_NONE;
	}
}

enum tv_action tv_key(struct tv_view *v, int key)
{
	v->msg[0] = '\0';
	v->status[0] = '\0';
	if (v->editing)
		return edit_key(v, key);
	if (v->help) {
		if (key == 'q')
			return TV_QUIT; /* as everywhere */
		if (v->help_more && key != 27 && key != KEY_RESIZE) {
			v->help_top += v->help_page;
			return TV_REDRAW;
		}
		if (key == KEY_RESIZE)
			return TV_REDRAW;
		v->help = false;
		v->help_top = 0;
		return TV_REDRAW;
	}
	if (v->sort_menu) {
		enum tv_action a = tv_sort_menu_key(v, key);
		return a == TV_NONE && key == KEY_RESIZE ? TV_REDRAW : a;
	}
	if (v->log_focus || v->log_open) {
		enum tv_action a = log_key(v, key);
		if (a != TV_NONE)
			return a;
	}
	long page = v->table_rows > 1 ? v->table_rows - 1 : 1, delta;
	if (nav_delta(key, page, v->norder, &delta)) {
		move_selection(v, delta);
		return TV_REDRAW;
	}
	enum tv_action sa = sort_key(v, key);
	if (sa != TV_NONE || key == KEY_F(6) || key == 'o')
		return sa;
	switch (key) {
	case 'q':
	case 'Q':
		return TV_QUIT;
	case '\n':
	case '\r':
	case KEY_ENTER:
		v->detail = !v->detail && v->selected;
		return TV_REDRAW;
	case 27: /* Escape closes the detail */
		v->detail = false;
		return TV_REDRAW;
	case '\t':
	case KEY_BTAB:
		v->log_focus = true;
		return TV_REDRAW;
	case 'c':
		return v->selected ? TV_COPY : TV_NONE;
	case '[':
		return TV_SEEK_BACK;
	case ']':
		return TV_SEEK_FORWARD;
	case 'w':
		return v->selected ? TV_WRITE : TV_NONE;
	case 'P':
		return v->selected ? TV_GRAPHS : TV_NONE;
	case 't':
		v->rates = !v->rates;
		snprintf(v->msg, sizeof(v->msg),
			 v->rates ? "C>S, S>C: bits/s now" : "C>S, S>C: bytes so far");
		return TV_REDRAW;
	case 'f':
		tv_freeze(v);
		return TV_REDRAW;
	case '/':
		edit_start(v);
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
