/* html.c - the report as one self-contained HTML page: a summary, the findings, and the
 * connections in order of trouble, each with its findings as tables and its graphs inline. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/det_view.h"
#include "analyze/report/html_int.h"
#include "analyze/report/markup.h"
#include "analyze/report/report.h"

/*
 * The page analyze --html writes (and --plot DIR leaves as DIR/index.html
 * when --html is not given): one file, nothing fetched (no script, font
 * or image from elsewhere: the graphs are inline SVG, the style and the
 * one script inside), so it can be mailed. From the top:
 *
 *   summary       the inputs, totals, the loss rate, the path's RTT, where
 *                 the capture point sat;
 *   findings      each kind of finding: how many, in which connections
 *                 (links), how long in all;
 *   connections   a table in order of trouble, then a section per
 *                 connection in that order: its findings, a table per
 *                 kind, frames as copyable text; what limited it; its
 *                 graphs;
 *   folded        idle and control connections (at most HTML_IDLE_BYTES of
 *                 payload and a score of 0, like iperf3's control
 *                 connection), in a <details> at the end, then the text
 *                 report's findings as text.
 *
 * The trouble score (tcpsift-analyze(1), HTML REPORT) is 4 per segment
 * lost (retransmissions not proven spurious), 2 per finding (an event
 * that is not a per-frame verdict: a stall, a SACK hole, a zero window,
 * an MTU finding ...) and 1 per 10 ms the findings lasted; ties in id
 * order. Written from the same struct rep_data as the text and JSON
 * reports; the page is bounded (html_int.h), the rest counted.
 */

void html_fmt_count(char *buf, size_t len, uint64_t v)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v);
	size_t w = 0;

	for (int k = 0; k < n && w + 8 < len; k++) {
		if (k && (n - k) % 3 == 0)
			w += (size_t)snprintf(buf + w, len - w, "&#8239;"); /* narrow space */
		buf[w++] = digits[k];
	}
	buf[w] = '\0';
}

void html_frames(FILE *out, const struct rep_run *run, uint32_t input, uint64_t first,
		 uint64_t last)
{
	fputs("<code class=\"fr\" title=\"", out);
	if (last > first)
		fprintf(out,
			"tshark -Y 'frame.number&gt;=%" PRIu64
			" &amp;&amp; frame.number&lt;=%" PRIu64 "'\">",
			first, last);
	else
		fprintf(out, "tshark -Y 'frame.number==%" PRIu64 "'\">", first);
	if (run->ninputs > 1 && input < run->ninputs) {
		mk_escape(out, run->inputs[input]->path);
		fputc(':', out);
	}
	if (last > first)
		fprintf(out, "%" PRIu64 "&ndash;%" PRIu64 "</code>", first, last);
	else
		fprintf(out, "%" PRIu64 "</code>", first);
}

/* Bits per second in SI units, "-" when not measurable. */
static void fmt_rate(char *buf, size_t len, double bps)
{
	static const char *const unit[] = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};
	unsigned u = 0;

	if (!(bps > 0)) {
		snprintf(buf, len, "-");
		return;
	}
	while (bps >= 1000 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		bps /= 1000;
		u++;
	}
	snprintf(buf, len, "%.*f %s", bps < 10 ? 2 : bps < 100 ? 1 : 0, bps, unit[u]);
}

static void fmt_rtt(char *buf, size_t len, const struct sum_conn *c)
{
	const struct sum_rtt *best = rep_best_rtt(c);
	char mn[24], av[24];

	if (best) {
		rep_fmt_dur(mn, sizeof(mn), best->min_ns);
		rep_fmt_dur(av, sizeof(av), best->sum_ns / (int64_t)best->n);
		snprintf(buf, len, "%s / %s", mn, av);
	} else if (c->handshake_rtt_ns >= 0) {
		rep_fmt_dur(buf, len, c->handshake_rtt_ns);
	} else {
		snprintf(buf, len, "-");
	}
}

/* ---- the connections in order of trouble ---- */

struct page {
	struct html_conn *hc; /* by rank: troubled first, then the others, then the folded */
	size_t n, nfolded, ntrouble, nlossy; /* nlossy: connections that lost segments */
	uint64_t lost, sent, payload;
	uint64_t vantage[SUM_VANTAGE_COUNT]; /* directions with data, by where the capture sat */
	int64_t *rtt;			     /* the paths' RTTs known, sorted */
	size_t nrtt;
	struct rep_conn_events g;
	/* Events: by type (not verdicts), count, connections, time. */
	uint64_t ev_n[SUM_EV_TYPE_COUNT], ev_conns[SUM_EV_TYPE_COUNT];
	int64_t ev_ns[SUM_EV_TYPE_COUNT];
};

static int by_rank(const void *pa, const void *pb)
{
	const struct html_conn *a = pa, *b = pb;

	if (a->folded != b->folded)
		return a->folded ? 1 : -1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->k < b->k ? -1 : a->k > b->k;
}

static int by_ns(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return a < b ? -1 : a > b;
}

/* A connection's score and its share of the page's totals. */
static void score_conn(struct page *pg, struct html_conn *h, const struct sum_conn *c,
		       const struct rep_data *d)
{
	uint64_t nev = 0, payload = 0;
	int64_t ns = 0;
	bool seen[SUM_EV_TYPE_COUNT] = {false};

	for (unsigned dir = 0; dir < SUM_DIR_COUNT; dir++) {
		h->lost += sum_lost_segments(&c->dir[dir]);
		pg->sent += sum_sent_segments(&c->dir[dir]);
		payload += c->dir[dir].payload_bytes;
		if (c->dir[dir].payload_bytes)
			pg->vantage[sum_vantage_side(&c->path, dir)]++;
	}
	for (size_t e = h->ev_first; e < h->ev_end; e++) {
		const struct sum_event *ev = &d->events[pg->g.idx[e]];
		unsigned t = ev->type < SUM_EV_TYPE_COUNT ? ev->type : 0;
		pg->ev_n[t]++;
		pg->ev_conns[t] += !seen[t];
		seen[t] = true;
		if (ev->duration_ns > 0)
			pg->ev_ns[t] += ev->duration_ns;
		if (sum_event_is_frame(ev->type))
			continue;
		nev++;
		ns += ev->duration_ns > 0 ? ev->duration_ns : 0;
	}
	pg->lost += h->lost;
	pg->nlossy += h->lost > 0;
	pg->payload += payload;
	h->score = 4 * h->lost + 2 * nev + (uint64_t)(ns / 10000000);
	h->folded = payload <= HTML_IDLE_BYTES && h->score == 0;
	pg->nfolded += h->folded;
	pg->ntrouble += h->score > 0;
	if (c->path.rtt_ns >= 0)
		pg->rtt[pg->nrtt++] = c->path.rtt_ns;
}

/* Score every connection (one walk in id order) and rank them. */
static int page_rank(struct page *pg, const struct rep_data *d)
{
	if (rep_group_events(&pg->g, d->events, d->nevents, REP_EV_ALL) < 0)
		return ERR_NOMEM;
	pg->n = d->nconns;
	pg->hc = calloc(d->nconns ? d->nconns : 1, sizeof(*pg->hc));
	pg->rtt = calloc(d->nconns ? d->nconns : 1, sizeof(*pg->rtt));
	if (!pg->hc || !pg->rtt)
		return ERR_NOMEM;
	for (size_t k = 0; k < d->nconns; k++) {
		const struct sum_conn *c = rep_conn_at(d, k);
		struct html_conn *h = &pg->hc[k];

		h->k = k;
		h->ev_end = rep_events_of(&pg->g, c->id, &h->ev_first);
		score_conn(pg, h, c, d);
	}
	qsort(pg->hc, pg->n, sizeof(*pg->hc), by_rank);
	qsort(pg->rtt, pg->nrtt, sizeof(*pg->rtt), by_ns);
	return 0;
}

static void page_free(struct page *pg)
{
	free(pg->hc);
	free(pg->rtt);
	rep_conn_events_free(&pg->g);
}

/* ---- the page ---- */

static void write_head(FILE *out, const struct rep_run *run)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>tcpsift: ",
	      out);
	for (unsigned k = 0; k < run->ninputs && k < 3; k++) {
		fputs(k ? ", " : "", out);
		mk_escape(out, run->inputs[k]->path);
	}
	if (run->ninputs > 3)
		fputs(", ...", out);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", html_style);
}

static void write_inputs(FILE *out, const struct rep_run *run)
{
	fputs("<table>\n<tr><th class=\"l\">input</th><th class=\"l\">format</th>"
	      "<th>packets</th><th>duration</th><th>capture drops</th></tr>\n",
	      out);
	for (unsigned k = 0; k < run->ninputs; k++) {
		const struct src_input *in = run->inputs[k];
		char n[64], dur[32];

		html_fmt_count(n, sizeof(n), in->packets);
		rep_fmt_dur(dur, sizeof(dur), in->last_ts - in->first_ts);
		fputs("<tr><td class=\"l\">", out);
		mk_escape(out, in->path);
		fputs("</td><td class=\"l\">", out);
		mk_escape(out, in->format ? in->format : "-");
		fprintf(out, "</td><td>%s</td><td>%s</td><td>", n, dur);
		if (in->drops_known)
			fprintf(out, "%" PRIu64, in->drops);
		else
			fputs("<span class=\"muted\">unknown</span>", out);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void write_summary(FILE *out, const struct page *pg, const struct rep_data *d,
			  const struct rep_run *run)
{
	char pk[64], by[64], a[32], b[32], m[32];
	const struct rep_totals *t = &d->tot;

	html_fmt_count(pk, sizeof(pk), run->eng.packets);
	html_fmt_count(by, sizeof(by), pg->payload);
	fputs("<h1>tcpsift report</h1>\n<p class=\"muted\">tcpsift ", out);
	mk_escape(out, run->version);
	fputs("</p>\n<h2 id=\"summary\">Summary</h2>\n<table class=\"kv\">\n", out);
	fprintf(out,
		"<tr><th>connections</th><td>%zu: %zu with findings or loss, %zu idle or control "
		"(folded)</td></tr>\n<tr><th>packets</th><td>%s</td></tr>\n"
		"<tr><th>payload</th><td>%s bytes</td></tr>\n",
		d->nconns, pg->ntrouble, pg->nfolded, pk, by);
	fputs("<tr><th>loss rate</th><td id=\"loss\">", out);
	if (pg->sent)
		fprintf(out, "%.2f %% (%" PRIu64 " of %" PRIu64 " data segments lost)",
			100.0 * (double)pg->lost / (double)pg->sent, pg->lost, pg->sent);
	else
		fputs("- (no data)", out);
	fputs("</td></tr>\n<tr><th>path RTT</th><td>", out);
	if (pg->nrtt) {
		rep_fmt_dur(a, sizeof(a), pg->rtt[0]);
		rep_fmt_dur(m, sizeof(m), pg->rtt[pg->nrtt / 2]);
		rep_fmt_dur(b, sizeof(b), pg->rtt[pg->nrtt - 1]);
		fprintf(out, "min %s, median %s, max %s (end to end, %zu connection%s)", a, m, b,
			pg->nrtt, rep_plural(pg->nrtt));
	} else {
		fputs("unknown (no connection showed both ends' loops)", out);
	}
	fputs("</td></tr>\n<tr><th>capture vantage</th><td>", out);
	bool any = false;
	for (unsigned v = 0; v < SUM_VANTAGE_COUNT; v++)
		if (pg->vantage[v]) {
			fprintf(out, "%s%s %" PRIu64, any ? ", " : "",
				sum_vantage_name((enum sum_vantage_side)v), pg->vantage[v]);
			any = true;
		}
	fprintf(out, "%s</td></tr>\n", any ? " (directions with data)" : "-");
	fprintf(out,
		"<tr><th>retransmissions</th><td>%" PRIu64 " (fast %" PRIu64 ", RTO %" PRIu64
		", spurious %" PRIu64 ")</td></tr>\n<tr><th>duplicate ACKs</th><td>%" PRIu64
		"</td></tr>\n<tr><th>out of order</th><td>%" PRIu64 "</td></tr>\n",
		t->retrans, t->fast, t->rto, t->spurious, t->dup_acks, t->ooo);
	if (run->nvantages > 1) {
		fputs("<tr><th>vantage points</th><td>", out);
		for (unsigned v = 0; v < run->nvantages; v++) {
			fprintf(out, "%s@%u=", v ? ", " : "", v);
			mk_escape(out, run->vantage_names[v]);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	write_inputs(out, run);
}

/* Up to 12 links to the connections (most trouble first) that lost
 * segments (type < 0) or have an event of type; " ..." when more do. */
static void write_links(FILE *out, const struct page *pg, const struct rep_data *d, int type,
			uint64_t nconns)
{
	unsigned linked = 0;

	for (size_t r = 0; r < pg->n && r < HTML_MAX_DETAILS && linked < 12; r++) {
		const struct html_conn *h = &pg->hc[r];
		bool has = type < 0 && h->lost > 0;
		for (size_t e = h->ev_first; e < h->ev_end && !has && type >= 0; e++)
			has = d->events[pg->g.idx[e]].type == (unsigned)type;
		if (has)
			fprintf(out, "%s<a href=\"#c%" PRIu64 "\">#%" PRIu64 "</a>",
				linked++ ? " " : "", rep_conn_at(d, h->k)->id,
				rep_conn_at(d, h->k)->id);
	}
	fputs(nconns > linked ? " ...</td></tr>\n" : "</td></tr>\n", out);
}

/* Segments lost, then each kind of finding: count, connections (the first
 * few linked), time. */
static void write_findings(FILE *out, const struct page *pg, const struct rep_data *d)
{
	fputs("<h2 id=\"findings\">Findings</h2>\n<table class=\"findings\">\n<tr><th "
	      "class=\"l\">finding</th><th>count</th><th>connections</th><th>time in all</th><th "
	      "class=\"l\">in (most trouble first)</th></tr>\n",
	      out);
	fprintf(out,
		"<tr data-type=\"lost\"><td class=\"l\">segments lost (retransmissions not proven "
		"spurious)</td><td>%" PRIu64 "</td><td>%zu</td><td>-</td><td class=\"l\">",
		pg->lost, pg->nlossy);
	write_links(out, pg, d, -1, pg->nlossy);
	for (unsigned type = 0; type < SUM_EV_TYPE_COUNT; type++) {
		char dur[32];

		if (!pg->ev_n[type])
			continue;
		if (pg->ev_ns[type] > 0)
			rep_fmt_dur(dur, sizeof(dur), pg->ev_ns[type]);
		else
			snprintf(dur, sizeof(dur), "-");
		fprintf(out,
			"<tr data-type=\"%s\"><td class=\"l\">%s</td><td>%" PRIu64
			"</td><td>%" PRIu64 "</td><td>%s</td><td class=\"l\">",
			sum_event_name(type), sum_event_name(type), pg->ev_n[type],
			pg->ev_conns[type], dur);
		write_links(out, pg, d, (int)type, pg->ev_conns[type]);
	}
	fputs("</table>\n", out);
	if (d->events_dropped)
		fprintf(out,
			"<p class=\"bad\">%" PRIu64
			" events beyond --max-events were counted, not kept: the tables below miss "
			"them.</p>\n",
			d->events_dropped);
}

/* The table's head: fixed columns, then each detector view's columns. */
static void write_table_head(FILE *out)
{
	fputs("<table class=\"conns\">\n<tr><th>id</th><th>score</th><th class=\"l\">client</th>"
	      "<th class=\"l\">server</th><th>duration</th><th>bytes c&gt;s</th><th>bytes s&gt;c"
	      "</th><th>throughput</th><th>retr</th><th>loss %</th><th>RTT</th><th>path RTT</th>",
	      out);
	for (unsigned v = 0; v < DET_VIEW_COUNT; v++)
		for (unsigned k = 0; k < det_views[v]->ncolumns; k++) {
			fputs("<th>", out);
			mk_escape(out, det_views[v]->columns[k].head);
			fputs("</th>", out);
		}
	fputs("<th class=\"l\">state</th></tr>\n", out);
}

static const char *tone_class(enum det_tone t)
{
	static const char *const names[] = {"", "warn", "bad", "order", "mtu"};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "";
}

static void write_row(FILE *out, const struct sum_conn *c, const struct html_conn *h,
		      const struct page *pg, const struct rep_data *d, bool linked)
{
	char cl[64], sv[64], dur[32], up[64], down[64], rate[32], rtt[64], loss[16], path[32];
	struct det_totals live = {0};

	for (size_t e = h->ev_first; e < h->ev_end; e++)
		det_totals_add_event(&live, &d->events[pg->g.idx[e]]);
	rep_format_endpoint(&c->client, c->client_port, cl, sizeof(cl));
	rep_format_endpoint(&c->server, c->server_port, sv, sizeof(sv));
	rep_fmt_dur(dur, sizeof(dur), c->last_ts - c->first_ts);
	html_fmt_count(up, sizeof(up), c->dir[SUM_C2S].payload_bytes);
	html_fmt_count(down, sizeof(down), c->dir[SUM_S2C].payload_bytes);
	fmt_rate(rate, sizeof(rate), rep_conn_throughput(c));
	fmt_rtt(rtt, sizeof(rtt), c);
	rep_fmt_loss(loss, sizeof(loss), sum_conn_loss_rate(c));
	if (c->path.rtt_ns >= 0)
		rep_fmt_dur(path, sizeof(path), c->path.rtt_ns);
	else
		snprintf(path, sizeof(path), "-");
	if (linked)
		fprintf(out, "<tr><td><a href=\"#c%" PRIu64 "\">%" PRIu64 "</a></td>", c->id,
			c->id);
	else
		fprintf(out, "<tr><td>%" PRIu64 "</td>", c->id);
	fprintf(out, "<td>%" PRIu64 "</td><td class=\"l\">", h->score);
	mk_escape(out, cl);
	fputs("</td><td class=\"l\">", out);
	mk_escape(out, sv);
	fprintf(out,
		"</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%" PRIu64
		"</td><td>%s</td><td>%s</td><td>%s</td>",
		dur, up, down, rate, c->dir[0].retrans + c->dir[1].retrans, loss, rtt, path);
	for (unsigned v = 0; v < DET_VIEW_COUNT; v++) {
		const struct det_view *dv = det_views[v];
		struct det_cell cells[DET_MAX_COLUMNS] = {0};

		if (!dv->ncolumns)
			continue;
		dv->cells(cells, c, &live, true);
		for (unsigned k = 0; k < dv->ncolumns; k++) {
			fprintf(out, "<td class=\"%s\">", tone_class(cells[k].tone));
			if (cells[k].text[0])
				mk_escape(out, cells[k].text);
			else
				fprintf(out, "%" PRId64, cells[k].sort);
			fputs("</td>", out);
		}
	}
	fprintf(out, "<td class=\"l\">%s%s</td></tr>\n", sum_state_label(c->state, 12),
		c->evicted ? " (evicted)" : "");
}

/* Does rank r get a section? The first HTML_MAX_DETAILS not folded; a
 * folded one only with findings or graphs, within the same bound. */
static bool has_section(const struct page *pg, size_t r, const struct sum_conn *c,
			const char *graph_dir)
{
	const struct html_conn *h = &pg->hc[r];

	if (r >= HTML_MAX_DETAILS)
		return false;
	return !h->folded || h->ev_end > h->ev_first ||
	       html_graph_exists(graph_dir, c->id, SUM_C2S, "tseq") ||
	       html_graph_exists(graph_dir, c->id, SUM_S2C, "tseq");
}

/* Ranks [from, to): the table (up to the page's rows), then the sections. */
static void write_part(FILE *out, const struct page *pg, const struct rep_data *d,
		       const struct rep_run *run, size_t from, size_t to, const char *graph_dir,
		       bool *styled)
{
	write_table_head(out);
	for (size_t r = from; r < to && r < HTML_MAX_ROWS; r++) {
		const struct sum_conn *c = rep_conn_at(d, pg->hc[r].k);
		write_row(out, c, &pg->hc[r], pg, d, has_section(pg, r, c, graph_dir));
	}
	fputs("</table>\n", out);
	if (to > HTML_MAX_ROWS && from < to)
		fprintf(out,
			"<p class=\"muted\">%zu more connections not listed: <code>tcpsift analyze "
			"--json</code>, or <code>--conn ID</code>.</p>\n",
			to - (from > HTML_MAX_ROWS ? from : HTML_MAX_ROWS));
	for (size_t r = from; r < to && r < HTML_MAX_DETAILS; r++) {
		const struct sum_conn *c = rep_conn_at(d, pg->hc[r].k);
		if (has_section(pg, r, c, graph_dir))
			html_conn_section(out, c, &pg->hc[r], d, run,
					  pg->g.idx + pg->hc[r].ev_first, graph_dir, styled);
	}
}

/* A stream that escapes what is written to it into out (for the text report). */
static ssize_t esc_write(void *cookie, const char *buf, size_t n)
{
	FILE *out = cookie;

	for (size_t k = 0; k < n; k++) {
		char one[2] = {buf[k], '\0'};

		if (buf[k] != '\0')
			mk_escape(out, one);
	}
	return ferror(out) ? -1 : (ssize_t)n;
}

static void write_text(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	fputs("<details id=\"text\"><summary>The findings as the text report words them</summary>"
	      "\n<pre>",
	      out);
	fflush(out);
	FILE *esc = fopencookie(out, "w", (cookie_io_functions_t){.write = esc_write});
	if (esc) {
		rep_write_text_findings(esc, d, run);
		fclose(esc);
	} else {
		fputs("(out of memory)", out);
	}
	fputs("</pre>\n</details>\n", out);
}

int rep_write_html(FILE *out, const struct rep_data *d, const struct rep_run *run,
		   const char *graph_dir)
{
	struct page pg = {0};
	bool styled = false;

	if (page_rank(&pg, d) < 0) {
		page_free(&pg);
		return ERR_NOMEM;
	}
	size_t shown = pg.n - pg.nfolded;
	write_head(out, run);
	write_summary(out, &pg, d, run);
	write_findings(out, &pg, d);
	fprintf(out,
		"<h2 id=\"connections\">Connections, most trouble first</h2>\n<p class=\"muted\">"
		"Trouble score: 4 per segment lost (retransmissions not proven spurious), 2 per "
		"finding, 1 per 10 ms the findings lasted. Bytes are payload; loss: segments lost "
		"of those sent; RTT min / average at the capture point, path RTT end to end. "
		"Graphs: the wheel zooms the time axis, a drag pans, a double click resets (+ - "
		"and the arrows when a graph has the focus; #t=A-B in the address opens them on "
		"A to B seconds).</p>\n");
	if (shown)
		write_part(out, &pg, d, run, 0, shown, graph_dir, &styled);
	else
		fputs("<p class=\"muted\">None: every connection is idle (below).</p>\n", out);
	if (pg.nfolded) {
		fprintf(
		    out,
		    "<details id=\"idle\"><summary>%zu idle or control connection%s (at most %u "
		    "bytes of payload, nothing wrong)</summary>\n",
		    pg.nfolded, rep_plural(pg.nfolded), (unsigned)HTML_IDLE_BYTES);
		write_part(out, &pg, d, run, shown, pg.n, graph_dir, &styled);
		fputs("</details>\n", out);
	}
	write_text(out, d, run);
	fprintf(out,
		"<p class=\"muted\">Written by tcpsift analyze; the findings are explained in "
		"tcpsift-analyze(1).</p>\n<script>\n%s</script>\n</body>\n</html>\n",
		html_script);
	page_free(&pg);
	return ferror(out) ? ERR_SYSTEM : 0;
}
