/* view_int.h - internal to the dashboard's view: what its pieces (view*.c) share. */
#ifndef TCPSIFT_TUI_VIEW_INT_H
#define TCPSIFT_TUI_VIEW_INT_H

/*
 * Internal: only tui/view*.c include this; the contract is view.h. One
 * module in several files, one part of the screen (view.h's picture) each:
 *
 *   view.c          the view's life, and tv_draw(): which part goes where
 *   view_fmt.c      numbers for the screen, and the drawing primitives
 *                   (clipped text, colour pairs and tones)
 *   view_table.c    the connection table: columns, sorting, filtering,
 *                   freezing, layout on narrow terminals, rows, selection
 *   view_findings.c the header (source, rates, drops, findings totals) and
 *                   one finding in full
 *   view_log.c      the findings pane: a line per connection and kind,
 *                   expanded to its findings
 *   view_detail.c   the detail of one connection: statistics, sparklines,
 *                   the time-sequence graph
 *   view_keys.c     keys, the help screen and the footer that lists them
 *   view_menu.c     the sort menu (F6)
 *
 * Nothing here is on a packet's path: the view draws a published
 * struct pl_view at the screen's refresh rate.
 */

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/report/det_view.h"
#include "tui/view.h"

/* The dashboard's own columns; the detectors' come from their views
 * (det_view.h) and sit between LOSS% and OOO. */
enum tv_col {
	TV_COL_ID = 0,
	TV_COL_CLIENT,
	TV_COL_SERVER,
	TV_COL_STATE,
	TV_COL_UP,
	TV_COL_DOWN,
	TV_COL_PKTS,
	TV_COL_RATE,
	TV_COL_RTT,
	TV_COL_PATH,
	TV_COL_RETR,
	TV_COL_LOSS,
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

/* A line of the findings pane: a group (ev < 0) or one of its findings. */
struct tv_logline {
	int32_t group; /* index into the snapshot's groups */
	int32_t ev;    /* index into the snapshot's log; -1: the group's line */
};

#define TV_ADDR_MAX 47 /* "[ffff:...:ffff]:65535" */
#define TV_HIST	    16 /* '/' filters remembered */

struct tv_view {
	struct tv_config cfg;
	struct tv_coldef cols[TV_COL_MAX]; /* in display order */
	int ncols;
	int at[TV_COL_CORE_COUNT]; /* where each of the dashboard's own columns is */
	int drop[TV_COL_MAX];	   /* columns given up on narrow terminals, first first */
	int ndrop;
	int sort; /* a column */
	bool sort_reverse;
	bool sort_menu; /* F6: the sort menu is open, menu_sel its selected column */
	int menu_sel;
	bool rates;	       /* C>S, S>C: bits/s now; else (the default) bytes so far */
	int head_y;	       /* the table head's line at the last draw (-1: none) */
	int col_x[TV_COL_MAX]; /* where each column starts on it (-1: hidden) */
	bool frozen;
	uint64_t *frozen_ids; /* display order kept while frozen */
	uint32_t nfrozen, frozen_cap;
	uint32_t *order; /* indexes into the snapshot's rows, as displayed */
	uint32_t order_cap, norder;
	const struct tm_row *rows; /* of the view being drawn (sorting) */
	uint64_t selected;	   /* connection id */
	uint32_t top;		   /* first displayed row */
	bool detail, help;
	bool help_more;		 /* the help has another page */
	int help_top, help_page; /* its first line shown, lines per page */
	struct cf_filter *filter;
	char filter_text[128];
	/* The '/' prompt, a line editor: the text, the cursor, the old filter
	 * shown selected (typing replaces it), the last compile error, and the
	 * filters accepted before (Up/Down), newest last. */
	bool editing;
	char edit[128];
	size_t edit_len, edit_pos;
	bool edit_selected;
	char edit_err[160];
	char hist[TV_HIST][128];
	int nhist, hist_at; /* hist_at: the entry shown, nhist: the line being typed */
	char hist_typed[128];
	int table_rows; /* rows of the table at the last draw, for paging */
	/* The findings pane: Tab focuses it. Its lines: a group's (connection
	 * and kind), then, under the one group expanded, that group's findings
	 * still in the log. The selected line is followed as new findings
	 * arrive by its group's key (and the finding, log_cur); log_open: the
	 * selected finding is shown in full. Where the pane was drawn. */
	bool log_focus, log_open, log_have_cur;
	struct tv_logline logv[TM_GROUPS + TM_LOG];
	const struct tm_group *groups; /* of the view being drawn */
	uint32_t nlogv, log_sel, log_top;
	uint32_t log_groups;   /* groups shown */
	uint64_t log_findings; /* their findings, all counted */
	bool log_expanded;     /* exp_conn/exp_type's group is */
	uint64_t exp_conn, cur_conn;
	enum sum_event_type exp_type, cur_type;
	bool cur_is_group;
	struct sum_event log_cur;
	int log_y, log_rows;
	bool visible[TV_COL_MAX];
	int width[TV_COL_MAX];
	char msg[128];	  /* one-shot status message */
	char status[512]; /* what an action did ('c', 'w'), above the footer */
	bool held;	  /* 'p' on a live capture: the screen is held, capture goes on */
};

/* ---- view_fmt.c: numbers and drawing primitives ---- */

void tv_fmt_si(char *b, size_t n, double x);	  /* 1.23k, 45.6M: three digits */
void tv_fmt_dur(char *b, size_t n, int64_t ns);	  /* as det_fmt_dur_short() */
void tv_fmt_count(char *b, size_t n, uint64_t x); /* exact below 100000, else as tv_fmt_si() */
void tv_fmt_bytes(char *b, size_t n, uint64_t x); /* 999B, 1.23kB, 45.6MB */
int tv_ucols(const char *s);
int tv_put(int y, int x, int max, const char *s);
int tv_putf(int y, int x, int max, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int tv_piece(int y, int x, int cols, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A live connection is idle once no packet came for TV_IDLE_NS of the
 * header's clock (wall time when capturing live). */
#define TV_IDLE_NS 3000000000ll
bool tv_row_idle(const struct pl_view *pv, const struct tm_row *r);
attr_t tv_pair_attr(const struct tv_view *v, enum tv_pair p);
enum tv_pair tv_tone_pair(enum det_tone t);
attr_t tv_tone_attr(const struct tv_view *v, enum det_tone t);
void tv_hline_fill(int y, int x, int n, attr_t a); /* n blanks in attribute a, which stays set */

/* ---- view_table.c: the connection table ---- */

void tv_build_columns(struct tv_view *v); /* once, by tv_new() */
/* Which columns fit in cols, and how wide each gets (from pv's values). */
void tv_layout(struct tv_view *v, const struct pl_view *pv, int cols);
/* The row of connection id in s (rows are in id order), or UINT32_MAX. */
uint32_t tv_find_row(const struct tm_snapshot *s, uint64_t id);
/* Fill v->order: the rows that pass the filter, sorted (or in frozen order).
 * 0, or ERR_NOMEM. */
int tv_build_order(struct tv_view *v, const struct tm_snapshot *s);
void tv_freeze(struct tv_view *v); /* 'f': keep the row order, or let it go */
/* Keep the selection on a displayed row, and in view of a table of rows
 * rows (rows <= 0: none drawn, leave the scrolling). Returns its position. */
uint32_t tv_settle_selection(struct tv_view *v, int rows);
void tv_draw_table(struct tv_view *v, const struct pl_view *pv, int y, int rows, int cols);

/* ---- view_findings.c: the header and one finding in full ---- */

void tv_draw_header(struct tv_view *v, const struct pl_view *pv, int cols);
void tv_fmt_reltime(char *b, size_t n, const struct pl_header *h, int64_t ts, unsigned input);
/* The selected finding in full (Enter on one of a group's findings). */
void tv_draw_finding(struct tv_view *v, const struct pl_view *pv, int y, int rows, int cols);

/* ---- view_log.c: the findings pane ---- */

enum tv_pair tv_event_pair(const struct sum_event *e); /* an event's colour */
/* The pane's lines: the groups of the filter's connections (or of the
 * open connection's), newest first, and the expanded one's findings. */
void tv_build_log(struct tv_view *v, const struct pl_view *pv);
/* Move the selection by delta lines (with a finding open in full: among
 * its group's findings only). */
void tv_log_move(struct tv_view *v, long delta);
/* Expand the selected line's group (open) or fold it, the selection on
 * the group's line. */
void tv_log_expand(struct tv_view *v, bool open);
bool tv_log_on_group(const struct tv_view *v);	     /* the selected line is a group's */
bool tv_log_group_expanded(const struct tv_view *v); /* ... of the group expanded */
/* The selected finding's place among its group's findings shown: 1-based *pos of *n. */
void tv_log_member_pos(const struct tv_view *v, uint32_t *pos, uint32_t *n);
void tv_draw_log(struct tv_view *v, const struct pl_view *pv, int y, int rows, int cols);

/* ---- view_detail.c: one connection ---- */

void tv_draw_detail(struct tv_view *v, const struct pl_view *pv, int y, int rows, int cols);

/* Sort by column col (a display index): a new one in its natural order,
 * the current one reversed (a click on the head). */
void tv_sort_by(struct tv_view *v, int col);
/* Sort by the next visible column to the left (step -1) or right (+1). */
void tv_sort_step(struct tv_view *v, int step);

/* ---- view_menu.c: the sort menu ---- */

void tv_sort_menu_open(struct tv_view *v);
enum tv_action tv_sort_menu_key(struct tv_view *v, int key); /* while it is open */
void tv_draw_sort_menu(struct tv_view *v, int y, int rows, int cols);

/* ---- view_keys.c: keys, help and footer ---- */

void tv_draw_help(struct tv_view *v, int rows, int cols);
void tv_draw_footer(struct tv_view *v, const struct pl_view *pv, int y, int cols);

#endif
