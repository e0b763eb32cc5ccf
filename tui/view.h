/* view.h - draw the dashboard with curses and turn keys into actions. */
#ifndef TCPSIFT_TUI_VIEW_H
#define TCPSIFT_TUI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/pl_view.h"

/*
 * The view owns what the user chose (sort column and order, frozen order,
 * filter, selection, which screen) and draws a published struct pl_view on
 * curses' stdscr; it never touches the player's or the engine's state.
 * The caller owns curses (initscr/endwin) and the player.
 *
 *   +-------------------------------------------------------------+
 *   | header: source, state, capture time, packets/s, bits/s,     |
 *   |         drops (kernel / interface / ours), queue fill       |
 *   | findings totals                                             |
 *   | connection table (sortable, filterable)  | or the detail of |
 *   | findings log, newest first               | one connection   |
 *   | key help / filter prompt                                    |
 *   +-------------------------------------------------------------+
 */

enum tv_action {
	TV_NONE = 0,
	TV_QUIT,
	TV_PAUSE,
	TV_STEP,
	TV_FASTER,
	TV_SLOWER,
	TV_REDRAW,	 /* the screen must be redrawn now (a key changed the view) */
	TV_COPY,	 /* 'c': copy the selected connection's tshark filter */
	TV_SEEK_BACK,	 /* '[': replay 10 s of capture time back */
	TV_SEEK_FORWARD, /* ']': 10 s on */
	TV_WRITE,	 /* 'w': write the selected connection's packets to a file */
	TV_GRAPHS,	 /* 'P': write the selected connection's graphs (analyze --plot) */
	TV_ACTION_COUNT,
};

struct tv_config {
	bool color;	    /* use colours (the terminal has them and NO_COLOR is unset) */
	bool utf8;	    /* block characters and arrows; else ASCII */
	const char *source; /* "file.pcapng", "eth0" */
};

struct tv_view;

struct tv_view *tv_new(const struct tv_config *cfg, char *errbuf, size_t errlen);
void tv_free(struct tv_view *v); /* NULL is a no-op */

/* The colour pairs the view draws with: once, after newterm(), when the
 * terminal has colours and tv_config.color is set. */
void tv_init_colors(void);

/* Draw v's screen for pv on stdscr (the caller calls doupdate/refresh). */
void tv_draw(struct tv_view *v, const struct pl_view *pv);

/* A key from getch()/wget_wch (KEY_* or a character). */
enum tv_action tv_key(struct tv_view *v, int key);

/* A mouse click at (y, x) on the screen drawn last: on the table's head,
 * sort by that column (again: reverse); on a row, select it. */
enum tv_action tv_mouse(struct tv_view *v, int y, int x);

/* The selected connection's row, as last drawn, into *out: false when
 * none is selected. Valid between tv_draw() and the next pl_latest(). */
bool tv_selected_row(const struct tv_view *v, struct tm_row *out);

/* A line on the status line until the next key (what an action did). */
void tv_status(struct tv_view *v, const char *text);

/* The connection the detail view shows (0: none open). */
uint64_t tv_detail_id(const struct tv_view *v);

/* Set the '/' filter as if typed (for --conn-filter at start): 0, or
 * ERR_USAGE with the reason in errbuf (a capture filter that does not compile,
 * connfilter.h; the filter is then unchanged). */
int tv_set_filter(struct tv_view *v, const char *expr, char *errbuf, size_t errlen);

#endif
