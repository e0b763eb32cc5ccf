/* view_detail.c - the dashboard's detail of one connection: statistics and graphs. */
#include <inttypes.h>
#include <stdio.h>

#include "analyze/report/report.h"
#include "tui/view_int.h"

/* ---- graphs over the connection's life (its timeline) ---- */

static const char *const spark_utf8[8] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
static const char spark_ascii[8] = {'.', ',', '-', '~', '=', '+', '*', '#'};

static void sparkline(struct tv_view *v, int y, int x, int w, const struct tm_timeline *tl,
		      unsigned dir)
{
	uint32_t used = tl->used ? tl->used : 1, max = 1;

	for (uint32_t k = 0; k < used; k++)
		max = tl->b[k].bytes[dir] > max ? tl->b[k].bytes[dir] : max;
	for (int c = 0; c < w; c++) {
		/* Column c covers buckets [c*used/w, (c+1)*used/w). */
		uint32_t lo = (uint32_t)((uint64_t)c * used / (uint32_t)w);
		uint32_t hi = (uint32_t)((uint64_t)(c + 1) * used / (uint32_t)w);
		uint64_t sum = 0;
		uint32_t nb = 0;
		for (uint32_t k = lo; k < hi || (k == lo && nb == 0); k++, nb++)
			sum += tl->b[k < TM_BUCKETS ? k : TM_BUCKETS - 1].bytes[dir];
		double avg = nb ? (double)sum / nb : 0;
		if (avg <= 0) {
			tv_put(y, x + c, 1, " ");
			continue;
		}
		int lvl = (int)(avg * 7.999 / max);
		lvl = lvl < 0 ? 0 : lvl > 7 ? 7 : lvl;
		if (v->cfg.utf8) {
			tv_put(y, x + c, 1, spark_utf8[lvl]);
		} else {
			char s[2] = {spark_ascii[lvl], 0};
			tv_put(y, x + c, 1, s);
		}
	}
}

/* The letter for a timeline bucket's flags: a detector's mark that spans
 * time (a stall: S) first, then a zero window (Z), then point marks (a
 * SACK hole: H); the colour its detector gives it. */
static void timeline_mark(uint8_t flags, char *mark, enum tv_pair *pair)
{
	for (int pass = 0; pass < 3 && !mark[0]; pass++) {
		if (pass == 1) {
			if (flags & TM_B_ZERO_WINDOW) {
				mark[0] = 'Z';
				*pair = TV_P_WARN;
			}
			continue;
		}
		for (unsigned k = 0; k < DET_VIEW_COUNT && !mark[0]; k++) {
			const struct det_view *dv = det_views[k];
			if (dv->timeline_mark && dv->timeline_span == (pass == 0) &&
			    (flags & TM_B_VIEW(k))) {
				mark[0] = dv->timeline_mark;
				*pair = tv_tone_pair(dv->header_tone);
			}
		}
	}
}

/* Sequence (y) against time (x) of the data direction, retransmissions as R,
 * the detectors' marks (stalls S, SACK holes H) and zero windows (Z) on the
 * time axis. */
static void seqgraph(struct tv_view *v, int y, int x, int h, int w, const struct tm_timeline *tl,
		     unsigned dir)
{
	uint32_t used = tl->used ? tl->used : 1, top = 1;

	for (uint32_t k = 0; k < used; k++)
		top = tl->b[k].seq_hi[dir] > top ? tl->b[k].seq_hi[dir] : top;
	attrset(tv_pair_attr(v, TV_P_DIM));
	for (int r = 0; r < h; r++)
		tv_put(y + r, x, 1, v->cfg.utf8 ? "│" : "|");
	attrset(A_NORMAL);
	uint32_t reached = 0;
	for (int c = 0; c < w - 1; c++) {
		uint32_t lo = (uint32_t)((uint64_t)c * used / (uint32_t)(w - 1));
		uint32_t hi = (uint32_t)((uint64_t)(c + 1) * used / (uint32_t)(w - 1));
		uint32_t seq = 0, retr = 0;
		uint8_t flags = 0;
		for (uint32_t k = lo; (k < hi || k == lo) && k < TM_BUCKETS; k++) {
			const struct tm_bucket *b = &tl->b[k];
			seq = b->seq_hi[dir] > seq ? b->seq_hi[dir] : seq;
			retr += b->retrans[dir];
			flags |= b->flags;
		}
		if (seq > reached)
			reached = seq;
		int col = x + 1 + c;
		if (seq) {
			int row = (int)((double)seq * (h - 1) / top + 0.5);
			row = row > h - 1 ? h - 1 : row;
			if (retr) {
				attrset(tv_pair_attr(v, TV_P_BAD) | A_BOLD);
				tv_put(y + h - 1 - row, col, 1, "R");
			} else {
				tv_put(y + h - 1 - row, col, 1, v->cfg.utf8 ? "•" : "*");
			}
			attrset(A_NORMAL);
		} else if (reached) {
			/* Nothing sent: the line stays flat at what was reached. */
			int row = (int)((double)reached * (h - 1) / top + 0.5);
			row = row > h - 1 ? h - 1 : row;
			attrset(tv_pair_attr(v, TV_P_DIM));
			tv_put(y + h - 1 - row, col, 1, v->cfg.utf8 ? "·" : ".");
			attrset(A_NORMAL);
		}
		char mark[2] = {0, 0};
		enum tv_pair mark_pair = TV_P_WARN;
		timeline_mark(flags, mark, &mark_pair);
		if (mark[0]) {
			attrset(tv_pair_attr(v, mark_pair));
			tv_put(y + h, col, 1, mark);
			attrset(A_NORMAL);
		} else {
			attrset(tv_pair_attr(v, TV_P_DIM));
			tv_put(y + h, col, 1, v->cfg.utf8 ? "─" : "-");
			attrset(A_NORMAL);
		}
	}
	attrset(tv_pair_attr(v, TV_P_DIM));
	tv_put(y + h, x, 1, v->cfg.utf8 ? "└" : "+");
	attrset(A_NORMAL);
}

/* ---- the detail view ---- */

static void stat_line(int y, int cols, const char *name, const char *c2s, const char *s2c)
{
	tv_putf(y, 0, cols, "  %-22s %18s %18s", name, c2s, s2c);
}

#define U64(b, x) (snprintf((b), sizeof(b), "%" PRIu64, (uint64_t)(x)), (b))

/* The path's round trip and its two loops as this capture point sees them:
 * the RTT rows below are one loop only (microseconds at a receiver). */
static void path_line(int y, int cols, const struct sum_conn *s)
{
	char p[24], lc[24], ls[24];

	tv_fmt_dur(p, sizeof(p), s->path.rtt_ns);
	tv_fmt_dur(lc, sizeof(lc), s->path.loop_ns[SUM_C2S]);
	tv_fmt_dur(ls, sizeof(ls), s->path.loop_ns[SUM_S2C]);
	tv_putf(y, 0, cols,
		"  path RTT %s  capture->client->capture %s  capture->server->capture %s", p, lc,
		ls);
}

/* The rows after the counters, up to end: RTT at the capture point, the
 * loss rate and where the capture point sits, each way. Returns the next
 * line. */
static int path_rows(int y, int end, int cols, const struct sum_conn *s)
{
	char v[2][64], c[24], d[24]; /* v: each direction's cell */

	for (unsigned dd = 0; dd < 2; dd++) {
		const struct sum_rtt *r = &s->dir[dd].rtt;
		if (r->n) {
			tv_fmt_dur(c, sizeof(c), r->min_ns);
			tv_fmt_dur(d, sizeof(d), r->sum_ns / (int64_t)r->n);
			snprintf(v[dd], sizeof(v[dd]), "%s / %s", c, d);
		} else {
			snprintf(v[dd], sizeof(v[dd]), "-");
		}
	}
	if (y < end)
		stat_line(y++, cols, "RTT min / avg (here)", v[0], v[1]);
	for (unsigned dd = 0; dd < 2; dd++) {
		rep_fmt_loss(c, sizeof(c), sum_loss_rate(&s->dir[dd]));
		snprintf(v[dd], sizeof(v[dd]), "%s%s", c, c[0] == '-' ? "" : " %");
	}
	if (y < end)
		stat_line(y++, cols, "loss rate", v[0], v[1]);
	if (y < end)
		stat_line(y++, cols, "capture point",
			  sum_vantage_name(sum_vantage_side(&s->path, SUM_C2S)),
			  sum_vantage_name(sum_vantage_side(&s->path, SUM_S2C)));
	return y;
}

/* The connection's head line and its duration, handshake and options. */
static void detail_head(struct tv_view *v, const struct pl_view *pv, int y, int cols)
{
	const struct tm_detail *dt = &pv->m.detail;
	const struct sum_conn *s = &dt->s;
	const struct pl_header *h = &pv->h;
	char a[64], b[64], idle[48] = "";

	rep_format_endpoint(&s->client, s->client_port, a, sizeof(a));
	rep_format_endpoint(&s->server, s->server_port, b, sizeof(b));
	if (!dt->ended && h->now_ts > s->last_ts &&
	    (uint64_t)h->now_ts - (uint64_t)s->last_ts >= (uint64_t)TV_IDLE_NS)
		snprintf(idle, sizeof(idle), ", idle %.0f s",
			 ((double)h->now_ts - (double)s->last_ts) / 1e9);
	tv_putf(y, 1, cols - 1, "CONNECTION #%" PRIu64 "  %s %s %s  %s%s%s  seen at %s", s->id, a,
		v->cfg.utf8 ? "→" : "->", b, sum_state_name(s->state), dt->ended ? ", ended" : "",
		idle,
		h->nvantages
		    ? h->vantage[s->vantage < PL_MAX_VANTAGES ? s->vantage : PL_MAX_VANTAGES - 1]
		    : "?");
	attrset(A_NORMAL);
	tv_fmt_dur(a, sizeof(a), s->handshake_rtt_ns);
	tv_fmt_dur(b, sizeof(b), s->last_ts - s->first_ts);
	tv_putf(y + 1, 0, cols,
		"  duration %s  handshake RTT %s  SACK %s  timestamps %s  frames %" PRIu64
		"-%" PRIu64,
		b, s->handshake_rtt_ns >= 0 ? a : "-", s->sack_permitted ? "yes" : "no",
		s->timestamps ? "yes" : "no", s->first_frame, s->last_frame);
}

/* The statistics each way, as many lines as leave room for what follows
 * (rows: the detail's); returns the next line. */
static int detail_stats(const struct tm_detail *dt, int y, int end, int rows, int cols)
{
	const struct sum_conn *s = &dt->s;
	const struct sum_dir *c2s = &s->dir[SUM_C2S], *s2c = &s->dir[SUM_S2C];
	char a[64], b[64], c[24], d[24];
	/* name, then the same field each way */
	struct {
		const char *name;
		uint64_t x[2];
	} lines[] = {
	    {"packets", {c2s->packets, s2c->packets}},
	    {"payload bytes", {c2s->payload_bytes, s2c->payload_bytes}},
	    {"retransmissions", {c2s->retrans, s2c->retrans}},
	    {"  fast / rto", {0, 0}},
	    {"out of order", {c2s->out_of_order, s2c->out_of_order}},
	    {"lost before capture", {c2s->lost_segments, s2c->lost_segments}},
	    {"dup ACKs sent", {c2s->dup_acks, s2c->dup_acks}},
	    {"zero windows sent", {c2s->zero_windows, s2c->zero_windows}},
	};
	int budget = rows - 4;
	/* Below the table: rtt, loss, capture point, mss, throughput, sparkline 2,
	 * graph >= 4, stalls, queues. */
	int want_below = 5 + 2 + 6 + 2;
	int nlines = (int)(sizeof(lines) / sizeof(lines[0]));
	if (budget - want_below < nlines)
		nlines = budget - want_below > 3 ? budget - want_below : 3;
	for (int k = 0; k < nlines && y < end; k++) {
		if (k == 3) {
			snprintf(a, sizeof(a), "%" PRIu64 " / %" PRIu64, c2s->fast_retrans,
				 c2s->rto_retrans);
			snprintf(b, sizeof(b), "%" PRIu64 " / %" PRIu64, s2c->fast_retrans,
				 s2c->rto_retrans);
			stat_line(y++, cols, lines[k].name, a, b);
			continue;
		}
		stat_line(y++, cols, lines[k].name, U64(a, lines[k].x[0]), U64(b, lines[k].x[1]));
	}
	y = path_rows(y, end, cols, s);
	snprintf(a, sizeof(a), "%" PRIu32 " / %d", c2s->mss, c2s->wscale);
	snprintf(b, sizeof(b), "%" PRIu32 " / %d", s2c->mss, s2c->wscale);
	if (y < end)
		stat_line(y++, cols, "MSS / wscale", a, b);
	tv_fmt_si(c, sizeof(c), dt->rate[SUM_C2S] * 8);
	tv_fmt_si(d, sizeof(d), dt->rate[SUM_S2C] * 8);
	snprintf(a, sizeof(a), "%sb/s", c);
	snprintf(b, sizeof(b), "%sb/s", d);
	if (y < end)
		stat_line(y++, cols, "throughput now", a, b);
	return y;
}

/* Sparklines over the connection's life, then the time-sequence graph of
 * the direction that sent more; returns the next line. */
static int detail_graphs(struct tv_view *v, const struct tm_detail *dt, int y, int end, int cols)
{
	const struct sum_conn *s = &dt->s;
	char a[64];
	int gw = cols - 22 > 8 ? cols - 22 : 8;

	if (gw > 120)
		gw = 120;
	tv_fmt_dur(a, sizeof(a), dt->tl.width_ns * (int64_t)(dt->tl.used ? dt->tl.used : 1));
	for (unsigned dd = 0; dd < 2 && y < end; dd++) {
		tv_putf(y, 0, cols, "  %-18s",
			dd == 0 ? "client>server tput" : "server>client tput");
		sparkline(v, y, 21, gw < cols - 21 ? gw : cols - 21, &dt->tl, dd);
		y++;
	}
	unsigned data_dir = s->dir[SUM_S2C].payload_bytes > s->dir[SUM_C2S].payload_bytes;
	int gh = end - y - 3;
	if (gh > 12)
		gh = 12;
	if (gh < 3)
		return y;
	tv_putf(y, 0, cols, "  seq %s", data_dir ? "s>c" : "c>s");
	seqgraph(v, y, 21, gh, gw < cols - 21 ? gw : cols - 21, &dt->tl, data_dir);
	tv_putf(y + gh, 2, 18, "0 .. %s", a);
	char legend[64] = "";
	size_t ln = 0;
	for (unsigned k = 0; k < DET_VIEW_COUNT && ln < sizeof(legend); k++)
		if (det_views[k]->timeline_mark)
			ln += (size_t)snprintf(legend + ln, sizeof(legend) - ln, "%s%c %s",
					       ln ? " " : "", det_views[k]->timeline_mark,
					       det_views[k]->name);
	tv_putf(y + 1, 2, 18, "R retrans Z 0-win");
	tv_putf(y + 2, 2, 18, "%s", legend);
	return y + gh + 1;
}

/* The share of packets per RX queue. */
static void detail_queues(const struct tm_detail *dt, int y, int cols)
{
	uint64_t total = 0;

	for (unsigned k = 0; k < TM_QUEUES; k++)
		total += dt->queue_pkts[k];
	int x = tv_putf(y, 0, cols, "  queues:");
	if (!total)
		tv_putf(y, x, cols - x, " unknown (no queue ids in this capture)");
	for (unsigned k = 0; k < TM_QUEUES && total; k++)
		if (dt->queue_pkts[k])
			x += tv_putf(y, x, cols - x, " q%u%s %.0f%%", k,
				     k == TM_QUEUES - 1 ? "+" : "",
				     100.0 * (double)dt->queue_pkts[k] / (double)total);
}

void tv_draw_detail(struct tv_view *v, const struct pl_view *pv, int y, int rows, int cols)
{
	const struct tm_detail *dt = &pv->m.detail;
	int end = y + rows;

	tv_hline_fill(y, 0, cols, tv_pair_attr(v, TV_P_HEAD));
	if (!dt->valid || dt->s.id != v->selected) {
		tv_putf(y, 1, cols - 1, "CONNECTION #%" PRIu64 " (loading)", v->selected);
		attrset(A_NORMAL);
		return;
	}
	detail_head(v, pv, y, cols);
	y += 2;
	path_line(y++, cols, &dt->s);
	attrset(A_BOLD);
	stat_line(y++, cols, "", "client>server", "server>client");
	attrset(A_NORMAL);
	y = detail_stats(dt, y, end, rows, cols);
	y = detail_graphs(v, dt, y, end, cols);
	if (y < end)
		detail_queues(dt, y++, cols);
	/* Each detector's line (stall histogram, holes, MTU ...). */
	for (unsigned k = 0; k < DET_VIEW_COUNT && y < end; k++) {
		char line[256];
		if (!det_views[k]->detail)
			continue;
		line[0] = '\0';
		det_views[k]->detail(line, sizeof(line), &dt->s, &dt->live, dt->ended);
		if (line[0])
			tv_putf(y++, 0, cols, "  %s", line);
	}
}
