/* view_findings.c - the dashboard's header (rates, drops, findings totals) and findings log. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tui/view_int.h"

/* ---- header ---- */

static void fmt_reltime(char *b, size_t n, int64_t ts, int64_t first)
{
	double s = (double)(ts - first) / 1e9;
	snprintf(b, n, "%.3f s", s < 0 ? 0 : s);
}

void tv_draw_header(struct tv_view *v, const struct pl_view *pv, int cols)
{
	const struct pl_header *h = &pv->h;
	const struct tm_totals *t = &pv->m.tot;
	char a[32], b[32], c[32];
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
	fmt_reltime(b, sizeof(b), h->last_ts, h->first_ts);
	x = tv_putf(0, 0, cols, " tcpsift %s %s  [%s]  t+%s",
		    h->mode == PL_LIVE ? "live" : "replay", v->cfg.source, state,
		    h->packets ? b : "0 s");
	if (h->mode == PL_REPLAY && h->progress >= 0)
		x += tv_putf(0, x, cols - x, "  %.0f%% read", h->progress * 100);
	if (h->mode == PL_LIVE && h->nqueues > 1)
		x += tv_putf(0, x, cols - x, "  %u sockets", h->nqueues);
	snprintf(c, sizeof(c), "%02d:%02d ", (int)h->wall_s / 60, (int)h->wall_s % 60);
	if (cols - x > (int)strlen(c) + 1)
		tv_put(0, cols - (int)strlen(c), (int)strlen(c), c);

	attrset(A_NORMAL);
	tv_fmt_count(a, sizeof(a), h->packets);
	tv_fmt_si(b, sizeof(b), h->pps);
	tv_fmt_si(c, sizeof(c), h->bps);
	x = tv_putf(1, 0, cols, " %s pkts  %s pkt/s  %sb/s  conns %" PRIu64 " (%" PRIu64 " live)",
		    a, b, c, t->conns, t->live);
	if (h->drops_known) {
		x += tv_putf(1, x, cols - x, "  drops ");
		attrset(tv_pair_attr(
		    v, (h->kernel_drops + h->if_drops + h->our_drops) ? TV_P_BAD : TV_P_GOOD));
		if (h->mode == PL_LIVE)
			x +=
			    tv_putf(1, x, cols - x, "kernel %" PRIu64 " if %" PRIu64 " us %" PRIu64,
				    h->kernel_drops, h->if_drops, h->our_drops);
		else
			x += tv_putf(1, x, cols - x, "%" PRIu64 " (file)", h->kernel_drops);
		attrset(A_NORMAL);
	} else if (h->mode == PL_REPLAY) {
		x += tv_putf(1, x, cols - x, "  drops n/a");
	}
	if (h->queue_fill >= 0)
		x += tv_putf(1, x, cols - x, "  queue %.0f%%", h->queue_fill * 100);
	if (h->written)
		x += tv_putf(1, x, cols - x, "  written %" PRIu64, h->written);
	if (h->malformed)
		tv_putf(1, x, cols - x, "  malformed %" PRIu64, h->malformed);

	/* Wide terminals get words, narrow ones the short forms. */
	bool wide = cols >= 110;
	x = tv_put(2, 0, cols, wide ? " findings: " : " ");
	for (unsigned k = 0; k < DET_VIEW_COUNT; k++) {
		char part[96];
		det_views[k]->header(part, sizeof(part), &t->det, wide);
		attrset(tv_tone_attr(v, det_views[k]->header_tone));
		x += tv_putf(2, x, cols - x, "%s%s", k == 0 ? "" : wide ? "  " : " ", part);
	}
	attrset(tv_pair_attr(v, TV_P_BAD));
	x += tv_putf(2, x, cols - x, wide ? "  capture loss %" PRIu64 : " loss %" PRIu64,
		     t->events[SUM_EV_CAPTURE_LOSS]);
	attrset(tv_pair_attr(v, TV_P_WARN));
	x += tv_putf(2, x, cols - x, wide ? "  zero window %" PRIu64 : " 0win %" PRIu64,
		     t->events[SUM_EV_ZERO_WINDOW]);
	attrset(A_NORMAL);
	x += tv_putf(2, x, cols - x, wide ? "  retransmissions %" PRIu64 : " retr %" PRIu64,
		     t->retrans);
	if (t->ended_dropped)
		tv_putf(2, x, cols - x, "  (%" PRIu64 " old rows dropped)", t->ended_dropped);
	attrset(A_NORMAL);
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
		fmt_reltime(t, sizeof(t), e->ts, h->first_ts);
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
