/* view_findings.c - the dashboard's header (rates, drops, findings totals) and one finding in full.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"
#include "tui/connfilter.h"
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
	if (h->mode == PL_REPLAY && h->seeking) {
		state = "seeking";
	} else if (h->mode == PL_REPLAY && h->state == PL_PLAYING) {
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
			char t[sizeof(tmp) + 128];
			snprintf(t, sizeof(t), "%s%s%s", tmp, tmp[0] && k == 3 ? "  " : "",
				 parts[k]);
			if (tv_ucols(t) + 2 > cols - x || strlen(t) >= sizeof(tmp))
				break;
			snprintf(tmp, sizeof(tmp), "%.159s", t);
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
		char d[96];
		if (h->mode == PL_LIVE && h->kernel_drops + h->our_drops) {
			/* Losing packets: the share first, then the counters that are not 0. */
			int n = snprintf(d, sizeof(d), "  drops %.1f%% (kernel %" PRIu64,
					 h->drop_pct, h->kernel_drops);
			if (h->if_drops && n > 0 && (size_t)n < sizeof(d))
				n += snprintf(d + n, sizeof(d) - (size_t)n, ", if %" PRIu64,
					      h->if_drops);
			if (h->our_drops && n > 0 && (size_t)n < sizeof(d))
				n += snprintf(d + n, sizeof(d) - (size_t)n, ", us %" PRIu64,
					      h->our_drops);
			if (n > 0 && (size_t)n < sizeof(d))
				snprintf(d + n, sizeof(d) - (size_t)n, ")");
		} else if (h->mode == PL_LIVE)
			snprintf(d, sizeof(d),
				 "  drops kernel %" PRIu64 " if %" PRIu64 " us %" PRIu64,
				 h->kernel_drops, h->if_drops, h->our_drops);
		else
			snprintf(d, sizeof(d), "  drops %" PRIu64 " (file)", h->kernel_drops);
		attrset(bad);
		x += tv_piece(1, x, cols, "%s", d);
		attrset(A_NORMAL);
		/* While drops go on, what would help (capture/live/dropwarn.h). */
		if (h->drop_advice[0]) {
			attrset(tv_pair_attr(v, TV_P_WARN));
			x += tv_piece(1, x, cols, "  try %s", h->drop_advice);
			attrset(A_NORMAL);
		}
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
		for (unsigned k = 0; k < DET_VIEW_COUNT; k++) {
			det_views[k]->header(part[n], sizeof(part[n]), &t->det, wide);
			pair[n] = tv_tone_pair(det_views[k]->header_tone);
			n += part[n][0] != '\0'; /* a view without a header part (limit) */
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

/* ---- one finding in full ---- */

/* Words of s that fit in w columns from *at, one line; *at moves on. */
static int wrap_line(const char *s, size_t *at, int w, char *out, size_t outlen)
{
	size_t len = strlen(s), from = *at, end = from, brk = 0;

	while (end < len && (int)(end - from) < w) {
		if (s[end] == ' ')
			brk = end;
		end++;
	}
	if (end < len && brk > from)
		end = brk;
	snprintf(out, outlen, "%.*s", (int)(end - from), s + from);
	while (end < len && s[end] == ' ')
		end++;
	*at = end;
	return (int)(end - from);
}

static void fmt_field(char *b, size_t n, const struct jo_field *f)
{
	switch (f->type) {
	case JO_F_INT:
		snprintf(b, n, "%" PRId64, f->v.i);
		break;
	case JO_F_REAL:
		snprintf(b, n, "%g", f->v.r);
		break;
	case JO_F_SEC:
		snprintf(b, n, "%.9f s", (double)f->v.i / 1e9);
		break;
	case JO_F_STR:
		snprintf(b, n, "%s", f->v.s ? f->v.s : "");
		break;
	case JO_F_BOOL:
		snprintf(b, n, "%s", f->v.b ? "true" : "false");
		break;
	case JO_F_INT_PAIR:
		snprintf(b, n, "%" PRId64 "-%" PRId64, f->v.pair[0], f->v.pair[1]);
		break;
	default:
		snprintf(b, n, "-");
		break;
	}
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct jo_field *)a)->key, ((const struct jo_field *)b)->key);
}

/* One finding in full: when and where, its words whole, its frames, and the
 * evidence: every member the JSON report gives it (tcpsift-json(5)). */
void tv_draw_finding(struct tv_view *v, const struct pl_view *pv, int y, int rows, int cols)
{
	const struct sum_event *e = &v->log_cur;
	const struct pl_header *h = &pv->h;
	char a[64], b[64], what[512];
	int end = y + rows;

	uint32_t pos, n;

	tv_log_member_pos(v, &pos, &n);
	tv_hline_fill(y, 0, cols, tv_pair_attr(v, TV_P_HEAD));
	int x = tv_putf(y, 1, cols - 1, "FINDING %" PRIu32 " of %" PRIu32 ": %s on #%" PRIu64, pos,
			n, sum_event_name(e->type), e->conn);
	tv_piece(y, x + 1, cols, "  ↑↓ previous/next  ⏎/Esc back");
	attrset(A_NORMAL);
	y++;
	tv_fmt_reltime(a, sizeof(a), h, e->ts, e->input);
	if (y < end)
		tv_putf(y++, 0, cols, "  time        t+%s of input %" PRIu32, a, e->input);
	uint32_t i = tv_find_row(&pv->m, e->conn);
	if (i != UINT32_MAX && y < end) {
		const struct tm_row *r = &pv->m.rows[i];
		rep_format_endpoint(&r->client, r->client_port, a, sizeof(a));
		rep_format_endpoint(&r->server, r->server_port, b, sizeof(b));
		tv_putf(y++, 0, cols, "  connection  #%" PRIu64 " %s %s %s, data %s", e->conn, a,
			v->cfg.utf8 ? "→" : "->", b,
			e->dir == SUM_C2S ? "client to server" : "server to client");
	}
	if (y < end) {
		if (e->frame_first == e->frame_last)
			tv_putf(y++, 0, cols, "  frame       %" PRIu64, e->frame_first);
		else
			tv_putf(y++, 0, cols, "  frames      %" PRIu64 " to %" PRIu64,
				e->frame_first, e->frame_last);
	}
	det_describe_event(what, sizeof(what), e);
	attrset(tv_pair_attr(v, tv_event_pair(e)));
	for (size_t at = 0, first = 1; at < strlen(what) && y < end; first = 0) {
		char line[512];
		wrap_line(what, &at, cols - 15 > 10 ? cols - 15 : 10, line, sizeof(line));
		tv_putf(y++, 0, cols, "  %-11s %s", first ? "what" : "", line);
	}
	attrset(A_NORMAL);
	struct jo_fields f;
	rep_event_fields(&f, e);
	qsort(f.f, f.n, sizeof(f.f[0]), by_key);
	if (y < end)
		tv_put(y++, 0, cols, "  evidence (as analyze --json writes it):");
	/* Short members in two columns when they fit, then the long ones
	 * (the detectors' reasons and advice) wrapped, whole. */
	int colw = cols >= 100 ? (cols - 4) / 2 : cols - 4;
	int ncol = colw < cols - 4 ? 2 : 1, c = 0;
	for (unsigned k = 0; k < f.n && y < end; k++) {
		char val[512];
		fmt_field(val, sizeof(val), &f.f[k]);
		if (23 + tv_ucols(val) > colw - 1)
			continue;
		tv_putf(y, 4 + c * colw, colw - 1, "%-22s %s", f.f[k].key, val);
		if (++c == ncol) {
			c = 0;
			y++;
		}
	}
	if (c)
		y++;
	for (unsigned k = 0; k < f.n && y < end; k++) {
		char val[512], line[512];
		fmt_field(val, sizeof(val), &f.f[k]);
		if (23 + tv_ucols(val) <= colw - 1)
			continue;
		for (size_t at = 0, first = 1; at < strlen(val) && y < end; first = 0) {
			wrap_line(val, &at, cols - 28 > 10 ? cols - 28 : 10, line, sizeof(line));
			tv_putf(y++, 0, cols, "    %-22s %s", first ? f.f[k].key : "", line);
		}
	}
}
