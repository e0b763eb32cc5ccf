/* html_conn.c - one connection of the HTML report: its findings, what limited it, its graphs. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/report/det_view.h"
#include "analyze/report/html_int.h"
#include "analyze/report/jsonout.h"
#include "analyze/report/markup.h"
#include "analyze/report/report.h"
#include "common/err.h"

static const char *const graph_names[] = {"tseq", "tput", "rtt", "inflight", "rwnd"};
static const char *const graph_titles[] = {"time-sequence", "throughput", "RTT", "in flight",
					   "receive window"};
#define N_GRAPHS (sizeof(graph_names) / sizeof(graph_names[0]))
static const char *const dir_labels[SUM_DIR_COUNT] = {"c&gt;s", "s&gt;c"};

static const char *tone_class(enum det_tone t)
{
	static const char *const names[] = {"", "warn", "bad", "order", "mtu"};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "";
}

/* A graph's file under the --plot directory: 0, or ERR_USAGE when that
 * directory's name leaves no room for it (the graph is then left out). */
static int graph_path(char *path, size_t len, const char *dir, uint64_t id, unsigned d,
		      const char *graph)
{
	int n =
	    snprintf(path, len, "%s/conn-%" PRIu64 "-%s-%s.svg", dir, id, sum_dir_name(d), graph);
	return n > 0 && (size_t)n < len ? 0 : ERR_USAGE;
}

bool html_graph_exists(const char *graph_dir, uint64_t id, unsigned dir, const char *graph)
{
	char path[PATH_MAX];

	return graph_dir && graph_path(path, sizeof(path), graph_dir, id, dir, graph) == 0 &&
	       access(path, R_OK) == 0;
}

/* The graph file into the page as inline SVG: without its XML
 * declaration, and without its style when an earlier graph brought it
 * (the graphs' style is one and the same; a page keeps it once). */
static void inline_graph(FILE *out, const char *graph_dir, uint64_t id, unsigned dir, unsigned g,
			 bool *styled)
{
	char path[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	bool in_style = false;

	if (graph_path(path, sizeof(path), graph_dir, id, dir, graph_names[g]) < 0)
		return;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	fprintf(out, "<figure class=\"graph\" id=\"g-%" PRIu64 "-%s-%s\" data-graph=\"%s\">\n", id,
		sum_dir_name(dir), graph_names[g], graph_names[g]);
	for (ssize_t n; (n = getline(&line, &cap, f)) > 0;) {
		if (strncmp(line, "<?xml", 5) == 0)
			continue;
		if (*styled && strncmp(line, "<style>", 7) == 0)
			in_style = true;
		if (!in_style)
			fwrite(line, 1, (size_t)n, out);
		else if (strncmp(line, "</style>", 8) == 0)
			in_style = false;
	}
	*styled = true;
	free(line);
	fclose(f);
	fputs("</figure>\n", out);
}

/* Direction dir's graphs: the time-sequence graph shown, the others
 * folded under it. */
static void write_graphs(FILE *out, const struct sum_conn *c, unsigned dir, const char *graph_dir,
			 bool *styled)
{
	if (!html_graph_exists(graph_dir, c->id, dir, graph_names[0]))
		return;
	fprintf(out, "<h4>Graphs %s</h4>\n", dir_labels[dir]);
	inline_graph(out, graph_dir, c->id, dir, 0, styled);
	fputs("<details><summary>", out);
	for (unsigned g = 1; g < N_GRAPHS; g++)
		fprintf(out, "%s%s", g > 1 ? ", " : "", graph_titles[g]);
	fprintf(out, " (%s)</summary>\n", dir_labels[dir]);
	for (unsigned g = 1; g < N_GRAPHS; g++)
		if (html_graph_exists(graph_dir, c->id, dir, graph_names[g]))
			inline_graph(out, graph_dir, c->id, dir, g, styled);
	fputs("</details>\n", out);
}

/* One row: what limited direction dir by view dv's classes (each one's
 * share of the time, largest first); nothing when it has no time. */
static void write_limit_dir(FILE *out, const struct det_view *dv, const struct sum_conn *c,
			    unsigned dir)
{
	int64_t ns[DET_DIR_CLASSES_MAX] = {0}, all = 0;
	unsigned n = dv->ndir_classes;
	bool done[DET_DIR_CLASSES_MAX] = {false};

	if (n > DET_DIR_CLASSES_MAX)
		n = DET_DIR_CLASSES_MAX;
	dv->dir_class_ns(c, dir, ns);
	for (unsigned k = 0; k < n; k++)
		all += ns[k] > 0 ? ns[k] : 0;
	if (all <= 0)
		return;
	fprintf(out, "<tr><th>%s %s</th><td class=\"limited\" data-dir=\"%s\">",
		dv->dir_key ? dv->dir_key : dv->name, dir_labels[dir], sum_dir_name(dir));
	/* Largest first: the largest left, n times at most. */
	for (unsigned shown = 0; shown < n; shown++) {
		unsigned best = n;
		for (unsigned k = 0; k < n; k++)
			if (!done[k] && ns[k] > 0 && (best == n || ns[k] > ns[best]))
				best = k;
		if (best == n)
			break;
		done[best] = true;
		fprintf(out, "%s%s %.1f %%%s", shown ? ", " : "<b>", dv->dir_class_name(best),
			100.0 * (double)ns[best] / (double)all, shown ? "" : "</b>");
	}
	fputs("</td></tr>\n", out);
}

/* What limited each direction (the views that split a direction's time
 * into classes), and the views' detail lines. */
static void write_limits(FILE *out, const struct sum_conn *c, const struct rep_run *run)
{
	if (!run->detectors)
		return;
	fputs("<table class=\"kv\">\n", out);
	for (unsigned v = 0; v < DET_VIEW_COUNT; v++)
		for (unsigned dir = 0; det_views[v]->ndir_classes && dir < SUM_DIR_COUNT; dir++)
			if (c->dir[dir].payload_bytes)
				write_limit_dir(out, det_views[v], c, dir);
	struct det_totals none = {0};
	for (unsigned v = 0; v < DET_VIEW_COUNT; v++) {
		char line[512] = "";
		if (det_views[v]->detail)
			det_views[v]->detail(line, sizeof(line), c, &none, true);
		size_t len = strlen(line);
		if (!len || line[len - 1] == ':') /* nothing, or a heading and nothing after it */
			continue;
		fprintf(out, "<tr><th>%s</th><td>", det_views[v]->name);
		mk_escape(out, line);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* The reason, evidence and advice an event carries (its JSON members). */
static void write_why(FILE *out, const struct sum_event *e)
{
	static const char *const keys[] = {"reason", "evidence", "advice"};
	struct jo_fields f;

	rep_event_fields(&f, e);
	for (unsigned k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		for (unsigned j = 0; j < f.n; j++)
			if (f.f[j].type == JO_F_STR && strcmp(f.f[j].key, keys[k]) == 0 &&
			    f.f[j].v.s && f.f[j].v.s[0]) {
				fprintf(out, "<div class=\"%s\"><b>%s</b> ", keys[k], keys[k]);
				mk_escape(out, f.f[j].v.s);
				fputs("</div>", out);
			}
}

static void write_event_row(FILE *out, const struct sum_conn *c, const struct sum_event *e,
			    const struct rep_run *run, const char *graph_dir)
{
	const struct det_view *dv = det_view_of_event(e->type);
	char t[32], dur[32], what[320];
	unsigned dir = e->dir < SUM_DIR_COUNT ? e->dir : 0;

	rep_fmt_dur(t, sizeof(t), e->ts - c->first_ts);
	if (html_graph_exists(graph_dir, c->id, dir, "tseq"))
		fprintf(out, "<tr><td><a href=\"#g-%" PRIu64 "-%s-tseq\">+%s</a></td>", c->id,
			sum_dir_name(dir), t);
	else
		fprintf(out, "<tr><td>+%s</td>", t);
	fprintf(out, "<td class=\"l\">%s</td><td class=\"l\">", dir_labels[dir]);
	html_frames(out, run, e->input, e->frame_first, e->frame_last);
	if (e->duration_ns > 0)
		rep_fmt_dur(dur, sizeof(dur), e->duration_ns);
	else
		snprintf(dur, sizeof(dur), "-");
	det_describe_event(what, sizeof(what), e);
	fprintf(out, "</td><td>%s</td><td class=\"w %s\">", dur,
		dv ? tone_class(dv->event_tone(e)) : "");
	mk_escape(out, what);
	fputs("</td><td class=\"w why\">", out);
	write_why(out, e);
	fputs("</td></tr>\n", out);
}

/* The connection's findings: a table per kind of event, each in time
 * order, its first HTML_MAX_CONN_EVENTS rows (the rest counted). */
static void write_findings(FILE *out, const struct sum_conn *c, const struct html_conn *hc,
			   const struct rep_data *d, const struct rep_run *run, const uint32_t *idx,
			   const char *graph_dir)
{
	size_t n = hc->ev_end - hc->ev_first;

	if (!n) {
		fputs("<p class=\"muted\">No findings.</p>\n", out);
		return;
	}
	for (unsigned type = 0; type < SUM_EV_TYPE_COUNT; type++) {
		size_t count = 0, shown = 0;
		for (size_t k = 0; k < n; k++)
			count += d->events[idx[k]].type == type;
		if (!count)
			continue;
		fprintf(out,
			"<h4>%s <span class=\"muted\">(%zu)</span></h4>\n<table class=\"ev\" "
			"data-type=\"%s\">\n<tr><th>time</th><th class=\"l\">dir</th><th "
			"class=\"l\">frames</th><th>duration</th><th class=\"l\">what</th><th "
			"class=\"l\">reason, evidence, advice</th></tr>\n",
			sum_event_name(type), count, sum_event_name(type));
		for (size_t k = 0; k < n && shown < HTML_MAX_CONN_EVENTS; k++)
			if (d->events[idx[k]].type == type) {
				write_event_row(out, c, &d->events[idx[k]], run, graph_dir);
				shown++;
			}
		fputs("</table>\n", out);
		if (count > shown)
			fprintf(out,
				"<p class=\"muted\">%zu more: <code>tcpsift analyze --json --conn "
				"%" PRIu64 "</code>.</p>\n",
				count - shown, c->id);
	}
}

void html_conn_section(FILE *out, const struct sum_conn *c, const struct html_conn *hc,
		       const struct rep_data *d, const struct rep_run *run, const uint32_t *idx,
		       const char *graph_dir, bool *styled)
{
	char cl[64], sv[64], dur[32], tshark[REP_TSHARK_FILTER_LEN];

	rep_format_endpoint(&c->client, c->client_port, cl, sizeof(cl));
	rep_format_endpoint(&c->server, c->server_port, sv, sizeof(sv));
	rep_fmt_dur(dur, sizeof(dur), c->last_ts - c->first_ts);
	fprintf(out,
		"<section class=\"conn\" id=\"c%" PRIu64 "\" data-score=\"%" PRIu64
		"\">\n<h3>#%" PRIu64 " ",
		c->id, hc->score, c->id);
	mk_escape(out, cl);
	fputs(" &rarr; ", out);
	mk_escape(out, sv);
	fprintf(out, " <span class=\"muted\">(%s, %s%s; trouble score %" PRIu64 ")</span></h3>\n",
		dur, sum_state_label(c->state, 12), c->evicted ? ", evicted" : "", hc->score);
	rep_tshark_filter(tshark, sizeof(tshark), &c->ident,
			  run->nvantages > 1 && c->vantage < run->nvantages
			      ? run->vantage_names[c->vantage]
			      : NULL);
	fputs("<p class=\"muted\">Its frames: <code class=\"fr\">", out);
	mk_escape(out, tshark);
	fputs("</code></p>\n", out);
	write_limits(out, c, run);
	write_findings(out, c, hc, d, run, idx, graph_dir);
	for (unsigned dir = 0; dir < SUM_DIR_COUNT; dir++)
		write_graphs(out, c, dir, graph_dir, styled);
	fputs("</section>\n", out);
}
