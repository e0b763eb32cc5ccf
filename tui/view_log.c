/* view_log.c - the findings pane: a line per connection and kind, expanded to its findings. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/report.h"
#include "tui/connfilter.h"
#include "tui/view_int.h"

/*
 * A capture with 500 SACK holes on one connection gives one line here, not
 * 500: the model groups every finding by (connection, kind) with its
 * count, worst and first frame (struct tm_group), and the pane lists the
 * groups, newest first. Enter or Right on a group lists its findings
 * under it (those the log still holds, TM_LOG in all), one group at a
 * time; Left or Escape folds it. Enter on a finding shows it in full.
 */

/* An event's colour: its detector's tone, or the engine's events'. */
enum tv_pair tv_event_pair(const struct sum_event *e)
{
	const struct det_view *dv = det_view_of_event(e->type);

	if (dv)
		return tv_tone_pair(dv->event_tone(e));
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

static bool same_event(const struct sum_event *a, const struct sum_event *b)
{
	return a->conn == b->conn && a->type == b->type && a->ts == b->ts &&
	       a->frame_first == b->frame_first && a->input == b->input && a->dir == b->dir;
}

/* Does the pane show connection id's findings: the open connection's
 * only, else those the '/' filter lets through (a connection no longer in
 * the table cannot be matched: with a filter, its findings go)? */
static bool conn_shown(const struct tv_view *v, const struct tm_snapshot *m, uint64_t id)
{
	if (v->detail)
		return id == v->selected;
	if (!v->filter)
		return true;
	uint32_t i = tv_find_row(m, id);
	return i != UINT32_MAX && cf_match(v->filter, &m->rows[i]);
}

/* Groups newest first (their latest finding), then by connection and kind. */
static int by_recent(const void *pa, const void *pb, void *ctx)
{
	const struct tm_group *g = ctx;
	const struct tm_group *a = &g[*(const uint32_t *)pa], *b = &g[*(const uint32_t *)pb];

	if (a->last_ts != b->last_ts)
		return a->last_ts > b->last_ts ? -1 : 1;
	if (a->conn != b->conn)
		return a->conn < b->conn ? -1 : 1;
	return (a->type > b->type) - (a->type < b->type);
}

static void add_line(struct tv_view *v, uint32_t group, int32_t ev)
{
	if (v->nlogv < sizeof(v->logv) / sizeof(v->logv[0]))
		v->logv[v->nlogv++] = (struct tv_logline){(int32_t)group, ev};
}

/* Is line k the one selected before this build (its group's key, and the
 * finding for a finding's line)? */
static bool is_cur(const struct tv_view *v, const struct tm_snapshot *m, uint32_t k)
{
	const struct tm_group *g = &m->groups[v->logv[k].group];

	if (g->conn != v->cur_conn || g->type != v->cur_type)
		return false;
	if (v->logv[k].ev < 0)
		return v->cur_is_group;
	return !v->cur_is_group && same_event(&m->log[v->logv[k].ev], &v->log_cur);
}

void tv_build_log(struct tv_view *v, const struct pl_view *pv)
{
	const struct tm_snapshot *m = &pv->m;
	uint32_t order[TM_GROUPS], n = 0;
	bool expanded = false;

	for (uint32_t k = 0; k < m->ngroups; k++)
		if (conn_shown(v, m, m->groups[k].conn))
			order[n++] = k;
	qsort_r(order, n, sizeof(order[0]), by_recent, (void *)m->groups);
	v->groups = m->groups;
	v->nlogv = 0;
	v->log_groups = n;
	v->log_findings = 0;
	for (uint32_t k = 0; k < n; k++) {
		const struct tm_group *g = &m->groups[order[k]];
		v->log_findings += g->count;
		add_line(v, order[k], -1);
		if (!v->log_expanded || g->conn != v->exp_conn || g->type != v->exp_type)
			continue;
		expanded = true;
		for (uint32_t j = 0; j < m->nlog; j++)
			if (m->log[j].conn == g->conn && m->log[j].type == g->type)
				add_line(v, order[k], (int32_t)j);
	}
	v->log_expanded = expanded;
	if (v->log_have_cur)
		for (uint32_t k = 0; k < v->nlogv; k++)
			if (is_cur(v, m, k)) {
				v->log_sel = k;
				break;
			}
	if (v->log_sel >= v->nlogv)
		v->log_sel = v->nlogv ? v->nlogv - 1 : 0;
	v->log_have_cur = v->nlogv > 0;
	if (!v->log_have_cur) {
		v->log_open = false;
		return;
	}
	const struct tv_logline *l = &v->logv[v->log_sel];
	v->cur_conn = m->groups[l->group].conn;
	v->cur_type = m->groups[l->group].type;
	v->cur_is_group = l->ev < 0;
	if (l->ev >= 0)
		v->log_cur = m->log[l->ev];
	else
		v->log_open = false; /* its finding left the log */
}

bool tv_log_on_group(const struct tv_view *v)
{
	return v->log_sel < v->nlogv && v->logv[v->log_sel].ev < 0;
}

bool tv_log_group_expanded(const struct tv_view *v)
{
	if (v->log_sel >= v->nlogv || !v->log_expanded)
		return false;
	const struct tm_group *g = &v->groups[v->logv[v->log_sel].group];
	return g->conn == v->exp_conn && g->type == v->exp_type;
}

void tv_log_move(struct tv_view *v, long delta)
{
	long lo = 0, hi = (long)v->nlogv - 1, s = (long)v->log_sel + delta;

	if (!v->nlogv)
		return;
	if (v->log_open) { /* among the open finding's group's findings */
		int32_t g = v->logv[v->log_sel].group;
		for (lo = (long)v->log_sel;
		     lo > 0 && v->logv[lo - 1].ev >= 0 && v->logv[lo - 1].group == g;)
			lo--;
		for (hi = (long)v->log_sel; hi + 1 < (long)v->nlogv && v->logv[hi + 1].group == g;)
			hi++;
	}
	s = s < lo ? lo : s > hi ? hi : s;
	v->log_sel = (uint32_t)s;
	v->log_have_cur = false; /* the next build keeps the index */
}

void tv_log_expand(struct tv_view *v, bool open)
{
	if (v->log_sel >= v->nlogv)
		return;
	const struct tm_group *g = &v->groups[v->logv[v->log_sel].group];
	while (v->log_sel > 0 && v->logv[v->log_sel].ev >= 0)
		v->log_sel--; /* to the group's line */
	v->log_expanded = open;
	v->exp_conn = v->cur_conn = g->conn;
	v->exp_type = v->cur_type = g->type;
	v->cur_is_group = true;
	v->log_have_cur = true; /* the next build finds the group's line */
	v->log_open = false;
}

void tv_log_member_pos(const struct tv_view *v, uint32_t *pos, uint32_t *n)
{
	*pos = *n = 0;
	if (v->log_sel >= v->nlogv)
		return;
	int32_t g = v->logv[v->log_sel].group;
	for (uint32_t k = 0; k < v->nlogv; k++)
		if (v->logv[k].group == g && v->logv[k].ev >= 0) {
			++*n;
			if (k == v->log_sel)
				*pos = *n;
		}
}

/* "c>s", "s>c", or "<->" for a group seen both ways. */
static const char *dir_name(unsigned dirs)
{
	if (dirs == 1u << SUM_C2S)
		return "c>s";
	if (dirs == 1u << SUM_S2C)
		return "s>c";
	return "<->";
}

/* A group: when it began, where, what, how many, its first frame and its worst. */
static void draw_group(struct tv_view *v, const struct pl_view *pv, const struct tm_group *g,
		       int ly, int cols, bool sel)
{
	char t[32], n[32], what[256];
	bool open = v->log_expanded && g->conn == v->exp_conn && g->type == v->exp_type;
	const char *mark = v->cfg.utf8 ? (open ? "▾" : "▸") : (open ? "-" : "+");

	tv_fmt_reltime(t, sizeof(t), &pv->h, g->first_ts, g->first_input);
	tv_fmt_count(n, sizeof(n), g->count);
	int x =
	    tv_putf(ly, 0, cols, " %s%10s #%-4" PRIu64 " %s ", mark, t, g->conn, dir_name(g->dirs));
	attrset(sel ? A_REVERSE : tv_pair_attr(v, tv_event_pair(&g->worst)));
	x += tv_putf(ly, x, cols - x, "%-13s", sum_event_name(g->type));
	attrset(sel ? A_REVERSE : A_NORMAL);
	x += tv_putf(ly, x, cols - x, " %5s%s first [%" PRIu64 "] ", n, v->cfg.utf8 ? "×" : "x",
		     g->first_frame);
	det_describe_event(what, sizeof(what), &g->worst);
	x += tv_put(ly, x, cols - x, g->count > 1 ? "worst: " : "");
	if (tv_put(ly, x, cols - x, what) < tv_ucols(what) && cols > 1)
		tv_put(ly, cols - 1, 1, v->cfg.utf8 ? "…" : ">"); /* Enter lists them */
}

/* One of the expanded group's findings, under it. */
static void draw_member(struct tv_view *v, const struct pl_view *pv, const struct sum_event *e,
			int ly, int cols, bool sel)
{
	char t[32], what[256];

	tv_fmt_reltime(t, sizeof(t), &pv->h, e->ts, e->input);
	det_describe_event(what, sizeof(what), e);
	/* The frames before the words: those are what a long line loses. */
	int x = tv_putf(ly, 0, cols, "  %s%10s #%-4" PRIu64 " %s ", v->cfg.utf8 ? "└" : "`", t,
			e->conn, e->dir == SUM_C2S ? "c>s" : "s>c");
	if (e->frame_first == e->frame_last)
		x += tv_putf(ly, x, cols - x, "[%" PRIu64 "] ", e->frame_first);
	else
		x += tv_putf(ly, x, cols - x, "[%" PRIu64 "-%" PRIu64 "] ", e->frame_first,
			     e->frame_last);
	attrset(sel ? A_REVERSE : tv_pair_attr(v, tv_event_pair(e)));
	if (tv_put(ly, x, cols - x, what) < tv_ucols(what) && cols > 1)
		tv_put(ly, cols - 1, 1, v->cfg.utf8 ? "…" : ">"); /* Enter shows it all */
}

void tv_draw_log(struct tv_view *v, const struct pl_view *pv, int y, int rows, int cols)
{
	v->log_y = y;
	v->log_rows = rows - 1;
	tv_hline_fill(y, 0, cols, tv_pair_attr(v, TV_P_HEAD));
	char gone[48] = "";
	if (pv->m.tot.groups_dropped) /* TM_GROUPS reached: the stalest went */
		snprintf(gone, sizeof(gone), ", %" PRIu64 " older groups gone",
			 pv->m.tot.groups_dropped);
	int x = tv_putf(y, 1, cols - 1,
			"%sFINDINGS%s by connection and kind, newest first (%" PRIu32
			" groups, %" PRIu64 " found%s)",
			v->log_focus ? "> " : "",
			v->detail   ? " of this connection"
			: v->filter ? " (filter)"
				    : "",
			v->log_groups, v->log_findings, gone);
	if (v->log_focus)
		tv_piece(y, x + 1, cols,
			 v->cfg.utf8 ? "  ↑↓ select  ⏎/→ expand  ← fold  Tab back"
				     : "  Enter/Right expand  Left fold  Tab back");
	else
		tv_piece(y, x + 1, cols, "  Tab: browse");
	attrset(A_NORMAL);
	int n = rows - 1;
	if (n <= 0)
		return;
	/* Scroll so that the selection stays in view. */
	if (v->log_sel < v->log_top)
		v->log_top = v->log_sel;
	if (v->log_sel >= v->log_top + (uint32_t)n)
		v->log_top = v->log_sel - (uint32_t)n + 1;
	if (v->log_top + (uint32_t)n > v->nlogv)
		v->log_top = v->nlogv > (uint32_t)n ? v->nlogv - (uint32_t)n : 0;
	for (int k = 0; k < n && v->log_top + (uint32_t)k < v->nlogv; k++) {
		uint32_t i = v->log_top + (uint32_t)k;
		const struct tv_logline *l = &v->logv[i];
		bool sel = v->log_focus && i == v->log_sel;
		if (sel)
			tv_hline_fill(y + 1 + k, 0, cols, A_REVERSE);
		if (l->ev < 0)
			draw_group(v, pv, &pv->m.groups[l->group], y + 1 + k, cols, sel);
		else
			draw_member(v, pv, &pv->m.log[l->ev], y + 1 + k, cols, sel);
		attrset(A_NORMAL);
	}
	if (!v->nlogv) {
		attrset(tv_pair_attr(v, TV_P_DIM));
		tv_put(y + 1, 2, cols - 2, "no findings");
		attrset(A_NORMAL);
	}
}
