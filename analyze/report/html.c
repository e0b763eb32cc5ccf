/* html.c - the report as one self-contained HTML page: the run and its findings in the text
 * report's words, every connection in a table, each one's events and graphs. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/report/det_view.h"
#include "analyze/report/markup.h"
#include "analyze/report/report.h"

/*
 * The page `tcpsift analyze --plot DIR` leaves as DIR/index.html, the
 * report a user mails to a colleague: no script, no external file but the
 * graphs beside it (conn-ID-DIR-GRAPH.svg, linked only when present) and
 * report.json. It is written from the same struct rep_data as the text and
 * JSON reports, walking the connections once in id order (rep_conn_at), so
 * a spilled million-connection report stays in bounded memory; the page
 * itself is bounded: HTML_MAX_ROWS rows, HTML_MAX_DETAILS detailed
 * connections, HTML_MAX_CONN_EVENTS events each, the rest counted and left
 * to report.json (every connection and event is there).
 */
enum {
	HTML_MAX_ROWS = 5000,
	HTML_MAX_DETAILS = 500,
	HTML_MAX_CONN_EVENTS = 200,
};

static const char *const graph_names[] = {"tseq", "tput", "rtt", "inflight", "rwnd"};
static const char *const graph_titles[] = {"time-sequence", "throughput", "RTT", "in flight",
					   "receive window"};
#define N_GRAPHS (sizeof(graph_names) / sizeof(graph_names[0]))
static const char *const dir_names[SUM_DIR_COUNT] = {"c2s", "s2c"};
static const char *const dir_labels[SUM_DIR_COUNT] = {"c&gt;s", "s&gt;c"};

/* A stream that escapes what is written to it into out (for the text report). */
static ssize_t esc_write(void *cookie, const char *buf, size_t n)
{
	FILE *out = cookie;

	for (size_t k = 0; k < n; k++) {
		char one[2] = {buf[k], '\0'};

		if (buf[k] == '\0')
			continue;
		mk_escape(out, one);
	}
	return ferror(out) ? -1 : (ssize_t)n;
}

static const char *tone_class(enum det_tone t)
{
	static const char *const names[] = {"", "warn", "bad", "order", "mtu"};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "";
}

/* "12 345 678" bytes: exact, grouped by thousands. */
static void fmt_bytes(char *buf, size_t len, uint64_t v)
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

static bool graph_exists(const char *dir, uint64_t id, unsigned d, unsigned g)
{
	char path[PATH_MAX];

	if (!dir)
		return false;
	int n = snprintf(path, sizeof(path), "%s/conn-%" PRIu64 "-%s-%s.svg", dir, id, dir_names[d],
			 graph_names[g]);
	return n > 0 && (size_t)n < sizeof(path) && access(path, R_OK) == 0;
}

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
	fputs("</title>\n<style>\n"
	      "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1400px;"
	      "padding:0 1em;color:#1a1a1a;background:#fff}\n"
	      "h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.2em;margin:1.6em 0 .4em;"
	      "border-bottom:1px solid #ccc}h3{font-size:1.05em;margin:1.4em 0 .3em}\n"
	      "pre{background:#f6f6f4;padding:.8em;overflow-x:auto;font-size:12.5px;"
	      "border:1px solid #e2e2dc}\n"
	      "table{border-collapse:collapse;font-size:13px}"
	      "th,td{padding:.2em .55em;text-align:right;white-space:nowrap}"
	      "th{background:#2b4a6f;color:#fff;position:sticky;top:0}\n"
	      "td.l,th.l{text-align:left}tr:nth-child(even) td{background:#f3f5f8}\n"
	      ".warn{color:#a35200;font-weight:600}.bad{color:#c01818;font-weight:600}"
	      ".order{color:#0b5cad;font-weight:600}.mtu{color:#8a1f8a;font-weight:600}\n"
	      ".muted{color:#777}.graphs img{max-width:100%;border:1px solid #ddd;margin:.3em 0}\n"
	      "a{color:#0b5cad}\n"
	      "</style>\n</head>\n<body>\n",
	      out);
}

static void write_run(FILE *out, const struct rep_data *d, const struct rep_run *run,
		      const char *graph_dir)
{
	char pk[64];

	fmt_bytes(pk, sizeof(pk), run->eng.packets);
	fputs("<h1>tcpsift report</h1>\n<p>tcpsift ", out);
	mk_escape(out, run->version);
	fprintf(out, " &middot; %s packets &middot; %zu connection%s", pk, d->nconns,
		d->nconns == 1 ? "" : "s");
	if (graph_dir)
		fputs(
		    " &middot; every connection and event: <a href=\"report.json\">report.json</a> "
		    "(tcpsift-json(5))",
		    out);
	fputs("</p>\n<table>\n<tr><th class=\"l\">input</th><th class=\"l\">format</th>"
	      "<th>packets</th><th>duration</th><th>capture drops</th></tr>\n",
	      out);
	for (unsigned k = 0; k < run->ninputs; k++) {
		const struct src_input *in = run->inputs[k];
		char n[64], dur[32];

		fmt_bytes(n, sizeof(n), in->packets);
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

static void write_findings(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	fputs("<h2 id=\"findings\">Findings</h2>\n<pre>", out);
	fflush(out);
	FILE *esc = fopencookie(out, "w", (cookie_io_functions_t){.write = esc_write});
	if (esc) {
		rep_write_text_findings(esc, d, run);
		fclose(esc);
	} else {
		fputs("(out of memory)", out);
	}
	fputs("</pre>\n", out);
}

/* The table's head: fixed columns, then each detector view's columns. */
static void write_table_head(FILE *out)
{
	fputs("<h2 id=\"connections\">Connections</h2>\n<p class=\"muted\">First-packet order; "
	      "bytes are payload; throughput: payload of both directions over the duration (as the "
	      "text table); loss: segments the network lost of those sent; RTT min / average "
	      "at the capture point, path RTT end to end. Click an id for its events and "
	      "graphs.</p>\n"
	      "<table>\n<tr><th>id</th><th class=\"l\">client</th><th class=\"l\">server</th>"
	      "<th>duration</th><th>bytes c&gt;s</th><th>bytes s&gt;c</th><th>throughput</th>"
	      "<th>retr</th><th>loss %</th><th>ooo</th><th>RTT</th><th>path RTT</th>",
	      out);
	for (unsigned v = 0; v < DET_VIEW_COUNT; v++)
		for (unsigned k = 0; k < det_views[v]->ncolumns; k++) {
			fputs("<th>", out);
			mk_escape(out, det_views[v]->columns[k].head);
			fputs("</th>", out);
		}
	fputs("<th class=\"l\">state</th><th class=\"l\">graphs</th></tr>\n", out);
}

static bool has_graphs(const char *graph_dir, uint64_t id)
{
	for (unsigned dir = 0; dir < SUM_DIR_COUNT; dir++)
		for (unsigned g = 0; g < N_GRAPHS; g++)
			if (graph_exists(graph_dir, id, dir, g))
				return true;
	return false;
}

static void write_row(FILE *out, const struct sum_conn *c, const struct det_totals *live,
		      bool detailed, const char *graph_dir)
{
	char cl[64], sv[64], dur[32], up[64], down[64], rate[32], rtt[64], loss[16], path[32];
	double r = rep_conn_throughput(c);
	rep_format_endpoint(&c->client, c->client_port, cl, sizeof(cl));
	rep_format_endpoint(&c->server, c->server_port, sv, sizeof(sv));
	rep_fmt_dur(dur, sizeof(dur), c->last_ts - c->first_ts);
	fmt_bytes(up, sizeof(up), c->dir[SUM_C2S].payload_bytes);
	fmt_bytes(down, sizeof(down), c->dir[SUM_S2C].payload_bytes);
	fmt_rate(rate, sizeof(rate), r);
	fmt_rtt(rtt, sizeof(rtt), c);
	rep_fmt_loss(loss, sizeof(loss), sum_conn_loss_rate(c));
	if (c->path.rtt_ns >= 0)
		rep_fmt_dur(path, sizeof(path), c->path.rtt_ns);
	else
		snprintf(path, sizeof(path), "-");
	if (detailed)
		fprintf(out, "<tr><td><a href=\"#c%" PRIu64 "\">%" PRIu64 "</a></td>", c->id,
			c->id);
	else
		fprintf(out, "<tr><td>%" PRIu64 "</td>", c->id);
	fputs("<td class=\"l\">", out);
	mk_escape(out, cl);
	fputs("</td><td class=\"l\">", out);
	mk_escape(out, sv);
	fprintf(out,
		"</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%" PRIu64
		"</td><td>%s</td><td>%" PRIu64 "</td><td>%s</td><td>%s</td>",
		dur, up, down, rate, c->dir[0].retrans + c->dir[1].retrans, loss,
		c->dir[0].out_of_order + c->dir[1].out_of_order, rtt, path);
	for (unsigned v = 0; v < DET_VIEW_COUNT; v++) {
		const struct det_view *dv = det_views[v];
		struct det_cell cells[DET_MAX_COLUMNS] = {0};

		if (!dv->ncolumns)
			continue;
		dv->cells(cells, c, live, true);
		for (unsigned k = 0; k < dv->ncolumns; k++) {
			fprintf(out, "<td class=\"%s\">", tone_class(cells[k].tone));
			if (cells[k].text[0])
				mk_escape(out, cells[k].text);
			else
				fprintf(out, "%" PRId64, cells[k].sort);
			fputs("</td>", out);
		}
	}
	fprintf(out, "<td class=\"l\">%s%s</td><td class=\"l\">", sum_state_label(c->state, 12),
		c->evicted ? " (evicted)" : "");
	for (unsigned dir = 0; dir < SUM_DIR_COUNT; dir++)
		if (graph_exists(graph_dir, c->id, dir, 0))
			fprintf(out, "<a href=\"conn-%" PRIu64 "-%s-tseq.svg\">%s</a> ", c->id,
				dir_names[dir], dir_labels[dir]);
	fputs("</td></tr>\n", out);
}

static void write_detail(FILE *out, const struct sum_conn *c, const struct rep_data *d,
			 const struct rep_run *run, const uint32_t *idx, size_t n,
			 const char *graph_dir)
{
	char cl[64], sv[64], dur[32];

	rep_format_endpoint(&c->client, c->client_port, cl, sizeof(cl));
	rep_format_endpoint(&c->server, c->server_port, sv, sizeof(sv));
	rep_fmt_dur(dur, sizeof(dur), c->last_ts - c->first_ts);
	fprintf(out, "<h3 id=\"c%" PRIu64 "\">#%" PRIu64 " ", c->id, c->id);
	mk_escape(out, cl);
	fputs(" &rarr; ", out);
	mk_escape(out, sv);
	fprintf(out, " <span class=\"muted\">(%s, %s)</span></h3>\n", dur,
		sum_state_label(c->state, 12));
	/* The detectors' lines about it, as the text's long form prints them
	 * (what limited it, its stalls ...). */
	if (run->detectors) {
		struct det_totals none = {0};
		for (unsigned v = 0; v < DET_VIEW_COUNT; v++) {
			char line[512] = "";
			if (det_views[v]->detail)
				det_views[v]->detail(line, sizeof(line), c, &none, true);
			size_t len = strlen(line);
			if (len && line[len - 1] == ':') /* a heading and nothing after it */
				continue;
			if (!len)
				continue;
			fputs("<p class=\"muted\">", out);
			mk_escape(out, line);
			fputs("</p>\n", out);
		}
	}
	fputs("<div class=\"graphs\">\n", out);
	for (unsigned dir = 0; dir < SUM_DIR_COUNT; dir++) {
		bool any = false;

		for (unsigned g = 0; g < N_GRAPHS; g++) {
			if (!graph_exists(graph_dir, c->id, dir, g))
				continue;
			if (!any)
				fprintf(out, "<p>%s: ", dir_labels[dir]);
			fprintf(out, "%s<a href=\"conn-%" PRIu64 "-%s-%s.svg\">%s</a>",
				any ? " &middot; " : "", c->id, dir_names[dir], graph_names[g],
				graph_titles[g]);
			any = true;
		}
		if (!any)
			continue;
		fputs("</p>\n", out);
		if (graph_exists(graph_dir, c->id, dir, 0))
			fprintf(out,
				"<a href=\"conn-%" PRIu64 "-%s-tseq.svg\"><img src=\"conn-%" PRIu64
				"-%s-tseq.svg\" alt=\"time-sequence graph, %s\" "
				"loading=\"lazy\"></a>\n",
				c->id, dir_names[dir], c->id, dir_names[dir], dir_names[dir]);
	}
	fputs("</div>\n", out);
	if (!n) {
		fputs("<p class=\"muted\">No events.</p>\n", out);
		return;
	}
	fputs("<table>\n<tr><th>time</th><th class=\"l\">dir</th><th class=\"l\">event</th>"
	      "<th class=\"l\">what</th><th class=\"l\">frames</th></tr>\n",
	      out);
	for (size_t k = 0; k < n && k < HTML_MAX_CONN_EVENTS; k++) {
		const struct sum_event *e = &d->events[idx[k]];
		const struct det_view *dv = det_view_of_event(e->type);
		char t[32], what[320];

		rep_fmt_dur(t, sizeof(t), e->ts - c->first_ts);
		det_describe_event(what, sizeof(what), e);
		fprintf(out, "<tr><td>+%s</td><td class=\"l\">%s</td><td class=\"l %s\">%s</td>", t,
			dir_labels[e->dir < SUM_DIR_COUNT ? e->dir : 0],
			dv ? tone_class(dv->event_tone(e)) : "", sum_event_name(e->type));
		fputs("<td class=\"l\">", out);
		mk_escape(out, what);
		fputs("</td><td class=\"l\">", out);
		if (run->ninputs > 1 && e->input < run->ninputs) {
			mk_escape(out, run->inputs[e->input]->path);
			fputc(':', out);
		}
		if (e->frame_last > e->frame_first)
			fprintf(out, "%" PRIu64 "&ndash;%" PRIu64, e->frame_first, e->frame_last);
		else
			fprintf(out, "%" PRIu64, e->frame_first);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	if (n > HTML_MAX_CONN_EVENTS)
		fprintf(out, "<p class=\"muted\">%zu more events: in report.json.</p>\n",
			n - HTML_MAX_CONN_EVENTS);
}

int rep_write_html(FILE *out, const struct rep_data *d, const struct rep_run *run,
		   const char *graph_dir)
{
	struct rep_conn_events g;

	if (rep_group_events(&g, d->events, d->nevents, REP_EV_ALL) < 0)
		return ERR_NOMEM;
	write_head(out, run);
	write_run(out, d, run, graph_dir);
	write_findings(out, d, run);

	/* The table first, then the details of the connections that have
	 * events or graphs: two walks, each in id order. */
	size_t ndetails = 0;
	write_table_head(out);
	for (size_t k = 0; k < d->nconns && k < HTML_MAX_ROWS; k++) {
		const struct sum_conn *c = rep_conn_at(d, k);
		struct det_totals live = {0};
		size_t first, end = rep_events_of(&g, c->id, &first);

		for (size_t e = first; e < end; e++)
			det_totals_add_event(&live, &d->events[g.idx[e]]);
		bool detailed =
		    ndetails < HTML_MAX_DETAILS && (end > first || has_graphs(graph_dir, c->id));
		ndetails += detailed;
		write_row(out, c, &live, detailed, graph_dir);
	}
	fputs("</table>\n", out);
	if (d->nconns > HTML_MAX_ROWS)
		fprintf(out,
			"<p class=\"muted\">%zu more connections not listed: in report.json, or "
			"<code>tcpsift analyze --conn ID</code>.</p>\n",
			d->nconns - HTML_MAX_ROWS);

	fputs("<h2 id=\"details\">Connections in detail</h2>\n", out);
	g.at = 0;
	ndetails = 0;
	for (size_t k = 0; k < d->nconns && k < HTML_MAX_ROWS && ndetails < HTML_MAX_DETAILS; k++) {
		const struct sum_conn *c = rep_conn_at(d, k);
		size_t first, end = rep_events_of(&g, c->id, &first);

		if (end == first && !has_graphs(graph_dir, c->id))
			continue;
		write_detail(out, c, d, run, g.idx + first, end - first, graph_dir);
		ndetails++;
	}
	if (!ndetails)
		fputs("<p class=\"muted\">No connection has events or graphs.</p>\n", out);
	fputs("<p class=\"muted\">Written by tcpsift analyze; the findings are explained in "
	      "tcpsift-analyze(1).</p>\n</body>\n</html>\n",
	      out);
	rep_conn_events_free(&g);
	return ferror(out) ? ERR_SYSTEM : 0;
}
