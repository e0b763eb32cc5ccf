/* view_findings.c - the dashboard's header (rates, drops, findings totals) and findings log. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tui/view_int.h"

/* ---- header ---- */

/* ts relative to the first packet of its input (merged captures may be
 * years apart: each counts from its own start). */
void tv_fmt_reltime(char *b, size_t n, const struct pl_header *h, int64_t ts, unsigned input)
{
	int64_t first = h->input_first_ts[input < PL_MAX_INPUTS ? input : PL_MAX_INPUTS - 1];
	if (!first)
		first = h->first_ts;
	double s = ts > first ? ((double)ts - (double)first) / 1e9 : 0;
	snprintf(b, n, "%.3f s", s);
}

/* Capture (or wall) time of day, UTC: "10:00:12.345". */
static void fmt_clock(char *b, size_t n, int64_t ts, bool date)
{
	time_t t = (time_t)(ts / 1000000000);
	struct tm tm;

	if (!gmtime_r(&t, &tm)) {
		snprintf(b, n, "?");
		return;
	}
	if (date)
		snprintf(b, n, "%04d-%02d-%02d %02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	else
		snprintf(b, n, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* The live connections that got no packet for TV_IDLE_NS of now_ts. */
static uint64_t count_idle(const struct pl_view *pv)
{
	uint64_t n = 0;

	for (uint32_t k = 0; k < pv->m.nrows; k++)
		n += tv_row_idle(pv, &pv->m.rows[k]);
	return n;
}

static void draw_title(struct tv_view *v, const struct pl_view *pv, int cols)
{
	const struct pl_header *h = &pv->h;
	char a[32], b[96], c[48], d[48];
	int x;

	tv_hline_fill(0, 0, cols, tv_pair_attr(v, TV_P_TITLE));
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
	/* Replay: capture time; live: the wall clock, which runs without packets. */
	tv_fmt_reltime(b, sizeof(b), h, h->now_ts, h->cur_input);
	x = tv_putf(0, 0, cols, " tcpsift %s %s  [%s]", h->mode == PL_LIVE ? "live" : "replay",
		    v->cfg.source, state);
	x += tv_piece(0, x, cols, "  t+%s", h->packets ? b : "0 s");
	if (h->mode == PL_REPLAY && h->progress >= 0)
		x += tv_piece(0, x, cols, "  %.0f%% read", h->progress * 100);
	if (h->mode == PL_LIVE && h->nqueues > 1)
		x += tv_piece(0, x, cols, "  %u sockets", h->nqueues);

	/* Right: the capture time, then (live) how old the last packet is, the
	 * wall clock, and how long the dashboard has run; what does not fit goes,
	 * the run time last. */
	char right[160];
	int n = 0;
	snprintf(d, sizeof(d), "run %02d:%02d ", (int)h->wall_s / 60, (int)h->wall_s % 60);
	if (h->packets) {
		fmt_clock(c, sizeof(c), h->last_ts, cols - x >= 60);
		snprintf(b, sizeof(b), "%s %s UTC", h->mode == PL_LIVE ? "last packet" : "capture",
			 c);
	} else {
		b[0] = '\0';
	}
	if (h->mode == PL_LIVE) {
		char ago[32] = "";
		if (h->packets && h->now_ts - h->last_ts >= 1000000000ll)
			snprintf(ago, sizeof(ago), " (%.0f s ago)",
				 ((double)h->now_ts - (double)h->last_ts) / 1e9);
		fmt_clock(c, sizeof(c), h->now_ts, false);
		/* the parts, most important first */
		const char *parts[4] = {b, ago, "", d};
		char wall[64];
		snprintf(wall, sizeof(wall), "  wall %s", c);
		parts[2] = wall;
		char tmp[160] = "";
		for (unsigned k = 0; k < 4; k++) {
			char t[160];
			snprintf(t, sizeof(t), "%s%s%s", tmp, tmp[0] && k == 3 ? "  " : "",
				 parts[k]);
			if (tv_ucols(t) + 2 > cols - x)
				break;
			snprintf(tmp, sizeof(tmp), "%s", t);
		}
		n = snprintf(right, sizeof(right), "%s", tmp);
	} else {
		char t[160];
		snprintf(t, sizeof(t), "%s%s%s", b, b[0] ? "  " : "", d);
		n = snprintf(right, sizeof(right), "%s",
			     tv_ucols(t) + 2 <= cols - x   ? t
			     : tv_ucols(b) + 3 <= cols - x ? b
			     : tv_ucols(d) + 2 <= cols - x ? d
							   : "");
	}
	if (n > 0 && right[n - 1] != ' ' && cols - x > n + 2)
		right[n++] = ' ', right[n] = '\0';
	if (n > 0 && n + 2 <= cols - x)
		tv_put(0, cols - n, n, right);
	attrset(A_NORMAL);
}

static void draw_rates(struct tv_view *v, const struct pl_view *pv, int cols)
{
	const struct pl_header *h = &pv->h;
	const struct tm_totals *t = &pv->m.tot;
	char a[32], b[32], c[32];
	int x = 0;

	tv_fmt_count(a, sizeof(a), h->packets);
	tv_fmt_si(b, sizeof(b), h->pps);
	tv_fmt_si(c, sizeof(c), h->bps);
	x += tv_piece(1, x, cols, " %s pkts", a);
	x += tv_piece(1, x, cols, "  %s pkt/s", b);
	x += tv_piece(1, x, cols, "  %sb/s", c);
	uint64_t idle = count_idle(pv);
	if (idle)
		x +=
		    tv_piece(1, x, cols, "  conns %" PRIu64 " (%" PRIu64 " live, %" PRIu64 " idle)",
			     t->conns, t->live, idle);
	else
		x += tv_piece(1, x, cols, "  conns %" PRIu64 " (%" PRIu64 " live)", t->conns,
			      t->live);
	if (h->drops_known) {
		attr_t bad = tv_pair_attr(
		    v, (h->kernel_drops + h->if_drops + h->our_drops) ? TV_P_BAD : TV_P_GOOD);
		if (h->mode == PL_LIVE)
			snprintf(c, sizeof(c),
				 "  drops kernel %" PRIu64 " if %" PRIu64 " us %" PRIu64,
				 h->kernel_drops, h->if_drops, h->our_drops);
		else
			snprintf(c, sizeof(c), "  drops %" PRIu64 " (file)", h->kernel_drops);
		attrset(bad);
		x += tv_piece(1, x, cols, "%s", c);
		attrset(A_NORMAL);
	} else if (h->mode == PL_REPLAY) {
		x += tv_piece(1, x, cols, "  drops n/a");
	}
	if (h->queue_fill >= 0)
		x += tv_piece(1, x, cols, "  queue %.0f%%", h->queue_fill * 100);
	if (h->written)
		x += tv_piece(1, x, cols, "  written %" PRIu64, h->written);
	if (h->malformed)
		tv_piece(1, x, cols, "  malformed %" PRIu64, h->malformed);
}

/* The findings totals: in words when the whole line fits, else the short
 * forms; a part that does not fit whole is left out, never cut. */
static void draw_totals(struct tv_view *v, const struct pl_view *pv, int cols)
{
	const struct tm_totals *t = &pv->m.tot;
	char part[DET_VIEW_COUNT + 4][96];
	enum tv_pair pair[DET_VIEW_COUNT + 4];
	bool wide = true;

	for (int pass = 0; pass < 2; pass++) {
		unsigned n = 0;
		int width = wide ? 11 : 1;
		for (unsigned k = 0; k < DET_VIEW_COUNT; k++, n++) {
			det_views[k]->header(part[n], sizeof(part[n]), &t->det, wide);
			pair[n] = tv_tone_pair(det_views[k]->header_tone);
		}
		snprintf(part[n], sizeof(part[n]), wide ? "capture loss %" PRIu64 : "loss %" PRIu64,
			 t->events[SUM_EV_CAPTURE_LOSS]);
		pair[n++] = TV_P_BAD;
		snprintf(part[n], sizeof(part[n]), wide ? "zero window %" PRIu64 : "0win %" PRIu64,
			 t->events[SUM_EV_ZERO_WINDOW]);
		pair[n++] = TV_P_WARN;
		snprintf(part[n], sizeof(part[n]),
			 wide ? "retransmissions %" PRIu64 : "retr %" PRIu64, t->retrans);
		pair[n++] = TV_P_COUNT; /* plain */
		if (t->ended_dropped) {
			snprintf(part[n], sizeof(part[n]), "(%" PRIu64 " old rows dropped)",
				 t->ended_dropped);
			pair[n++] = TV_P_COUNT;
		}
		for (unsigned k = 0; k < n; k++)
			width += tv_ucols(part[k]) + (wide ? 2 : 1);
		if (wide && width > cols) {
			wide = false;
			continue;
		}
		int x = tv_put(2, 0, cols, wide ? " findings:" : "");
		for (unsigned k = 0; k < n; k++) {
			attrset(pair[k] == TV_P_COUNT ? A_NORMAL : tv_pair_attr(v, pair[k]));
			x += tv_piece(2, x, cols, "%s%s", wide && k ? "  " : " ", part[k]);
			attrset(A_NORMAL);
			if (x > cols)
				break;
		}
		break;
	}
	attrset(A_NORMAL);
}

void tv_draw_header(struct tv_view *v, const struct pl_view *pv, int cols)
{
	draw_title(v, pv, cols);
	draw_rates(v, pv, cols);
	draw_totals(v, pv, cols);
}

/* ---- the findings log ---- */

/* An event's colour: its detector's tone, or the engine's events'. */
static enum tv_pair event_pair(const struct sum_event *e)
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

void tv_draw_log(struct tv_view *v, const struct pl_view *pv, int y, int rows, int cols)
{
	char t[32], what[256];
	const struct pl_header *h = &pv->h;

	tv_hline_fill(y, 0, cols, tv_pair_attr(v, TV_P_HEAD));
	tv_putf(y, 1, cols - 1, "FINDINGS, newest first (%" PRIu32 " shown)", pv->m.nlog);
	attrset(A_NORMAL);
	for (int k = 0; k + 1 < rows && (uint32_t)k < pv->m.nlog; k++) {
		const struct sum_event *e = &pv->m.log[k];
		tv_fmt_reltime(t, sizeof(t), h, e->ts, e->input);
		det_describe_event(what, sizeof(what), e);
		int x = tv_putf(y + 1 + k, 0, cols, " %10s #%-4" PRIu64 " %s ", t, e->conn,
				e->dir == SUM_C2S ? "c>s" : "s>c");
		attrset(tv_pair_attr(v, event_pair(e)));
		x += tv_putf(y + 1 + k, x, cols - x, "%-12s", sum_event_name(e->type));
		attrset(A_NORMAL);
		x += tv_put(y + 1 + k, x, cols - x, " ");
		x += tv_put(y + 1 + k, x, cols - x, what);
		if (cols - x > 20)
			tv_putf(y + 1 + k, x, cols - x, "  [frames %" PRIu64 "-%" PRIu64 "]",
				e->frame_first, e->frame_last);
	}
}
