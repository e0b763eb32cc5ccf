/* pipe.c - builds and runs an analysis: the source, the workers, the report and its companions. */
#include "analyze/pipeline/pipe.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/annotate/annot.h"
#include "analyze/engine/workers.h"
#include "analyze/report/plot.h"
#include "analyze/vpair/vpair.h"
#include "common/err.h"

/* The report, the graphs, the page, the vantage pair, the annotations
 * and the caller's sinks: each one more tee in the chain. */
#define PIPE_MAX_TEES (5 + PIPE_MAX_SINKS)

/* --plot DIR's page and report: DIR/index.html (the graphs inlined) and
 * DIR/report.json, written by a report of their own fed the same results. */
struct plot_index {
	FILE *html, *json;
	struct report *rep;
};

struct pipeline {
	struct pipe_config cfg;
	struct source *src;
	struct wk_pool *wk;
	struct report *rep;
	FILE *out, *csv; /* owned when not stdout and opened here */
	bool own_out, own_csv;
	const char **names; /* the inputs' paths, for the report's CSV and the pair */
	struct plot *plot;
	struct plot_index ix;
	struct vpair *vp;
	struct rep_extra vpx;
	struct ann_set *ann;
	struct sum_sink sink; /* the head of the chain */
	struct sum_tee tees[PIPE_MAX_TEES];
	unsigned ntees;
	bool chained; /* sink holds a consumer */
	bool stopped;
	bool finished;
	/* What pipe_finish() gives the report. */
	struct rep_run run;
	unsigned nthreads; /* the engine's, and the report's writers */
	const struct src_input **inputs;
	const char **vantages;
	struct src_input live;
	const char *live_vantage;
};

/* ---- the --plot page ---- */

static FILE *plot_index_file(const char *dir, const char *name, char *err, size_t errlen)
{
	char path[4096];
	FILE *f = NULL;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) < sizeof(path))
		f = fopen(path, "w");
	if (!f)
		snprintf(err, errlen, "cannot write %s/%s: %s", dir, name, strerror(errno));
	return f;
}

static void plot_index_close(struct plot_index *ix)
{
	rep_free(ix->rep);
	if (ix->html)
		fclose(ix->html);
	if (ix->json)
		fclose(ix->json);
	*ix = (struct plot_index){0};
}

static int plot_index_open(struct plot_index *ix, const char *dir, const struct rep_config *base,
			   char *err, size_t errlen)
{
	struct rep_config rc = *base;

	ix->html = plot_index_file(dir, "index.html", err, errlen);
	ix->json = ix->html ? plot_index_file(dir, "report.json", err, errlen) : NULL;
	if (ix->json) {
		rc.format = REP_HTML;
		rc.out = ix->html;
		rc.json_out = ix->json;
		rc.html_dir = dir;
		rc.frames_csv = NULL;
		ix->rep = rep_new(&rc, err, errlen);
	}
	if (!ix->rep) {
		plot_index_close(ix);
		return ERR_SYSTEM;
	}
	return 0;
}

/* ---- putting it together ---- */

/* Feed s after what the chain feeds now. */
static void chain(struct pipeline *p, struct sum_sink s)
{
	if (!p->chained) {
		p->sink = s; /* the first: no tee, no indirection */
		p->chained = true;
		return;
	}
	p->tees[p->ntees] = (struct sum_tee){.a = p->sink, .b = s};
	p->sink = sum_tee_sink(&p->tees[p->ntees++]);
}

/* A report file: path "-" is stdout; NULL keeps *f. */
static int open_file(const char *path, FILE **f, bool *own, char *errbuf, size_t errlen)
{
	if (!path)
		return 0;
	if (strcmp(path, "-") == 0) {
		*f = stdout;
		return 0;
	}
	*f = fopen(path, "w");
	if (!*f) {
		snprintf(errbuf, errlen, "cannot write %s: %s", path, strerror(errno));
		return ERR_SYSTEM;
	}
	*own = true;
	return 0;
}

static int open_graphs(struct pipeline *p, char *errbuf, size_t errlen)
{
	const struct pipe_config *c = &p->cfg;

	/* --html inlines the graphs: from --plot DIR, or from a temporary
	 * directory the plot removes. */
	bool html = c->rep.format == REP_HTML;
	if (!c->plot_dir && !c->xplot_dir && !html)
		return 0;
	struct plot_config pc = {.svg_dir = c->plot_dir,
				 .xpl_dir = c->xplot_dir,
				 .only = c->rep.only,
				 .max_conns = c->plot_max ? c->plot_max : PLOT_MAX_DEFAULT,
				 .svg_temp = html};
	p->plot = plot_new(&pc, errbuf, errlen);
	return p->plot ? 0 : ERR_SYSTEM;
}

/* The report and the consumers that go with it, in the chain's order. */
static int open_report(struct pipeline *p, char *errbuf, size_t errlen)
{
	const struct pipe_config *c = &p->cfg;
	unsigned n = p->src ? src_count(p->src) : 0; /* live: no files */
	int rc;

	p->out = c->rep.out ? c->rep.out : stdout;
	p->csv = c->rep.frames_csv;
	if ((rc = open_file(c->out_path, &p->out, &p->own_out, errbuf, errlen)) < 0 ||
	    (rc = open_file(c->frames_csv_path, &p->csv, &p->own_csv, errbuf, errlen)) < 0)
		return rc;
	p->names = calloc(n ? n : 1, sizeof(*p->names)); // NOLINT(bugprone-sizeof-expression)
	for (unsigned k = 0; p->names && k < n; k++)
		p->names[k] = src_input(p->src, k)->path;
	struct rep_config rcfg = c->rep;
	rcfg.out = p->out;
	rcfg.frames_csv = p->csv;
	rcfg.input_names = p->names;
	rcfg.ninput_names = p->names ? n : 0;
	bool html = rcfg.format == REP_HTML;
	if (html)
		rcfg.html_dir = plot_svg_dir(p->plot);
	if (!(p->rep = rep_new(&rcfg, errbuf, errlen)))
		return ERR_SYSTEM;
	/* --plot DIR without --html: the page as DIR/index.html (one page:
	 * with --html, the page goes where -o says, and DIR holds the graphs). */
	if (c->plot_dir && !html && plot_index_open(&p->ix, c->plot_dir, &rcfg, errbuf, errlen) < 0)
		return ERR_SYSTEM;
	chain(p, rep_sink(p->rep));
	if (p->plot)
		chain(p, plot_sink(p->plot));
	if (p->ix.rep)
		chain(p, rep_sink(p->ix.rep));
	if (c->vantage_pair) {
		struct vp_config vc = {
		    .names = {p->names ? p->names[0] : "A", p->names ? p->names[1] : "B"},
		    .max_offset_ns = c->vantage_max_offset_ns,
		    .window = c->vantage_window};
		if (!(p->vp = vp_new(&vc, errbuf, errlen)))
			return ERR_NOMEM;
		chain(p, vp_sink(p->vp));
	}
	if (c->annotate) {
		if (!(p->ann = ann_new(c->rep.only, errbuf, errlen)))
			return ERR_NOMEM;
		chain(p, ann_sink(p->ann));
	}
	return 0;
}

static void keep_release(void *ctx, uint64_t gen)
{
	src_release(ctx, gen);
}

int pipe_open(const struct pipe_config *cfg, struct pipeline **out, char *errbuf, size_t errlen)
{
	struct pipeline *p = calloc(1, sizeof(*p));
	int rc = ERR_NOMEM;

	*out = NULL;
	if (!p) {
		snprintf(errbuf, errlen, "out of memory");
		return ERR_NOMEM;
	}
	p->cfg = *cfg;
	if (p->cfg.nsinks > PIPE_MAX_SINKS)
		p->cfg.nsinks = PIPE_MAX_SINKS;
	/* The graphs' directories before any input is read: a bad one is
	 * known at once, as an output file that cannot be written. */
	if ((rc = open_graphs(p, errbuf, errlen)) < 0)
		goto err;
	if (cfg->npaths &&
	    (rc = src_open(cfg->paths, cfg->npaths, &cfg->src, &p->src, errbuf, errlen)) < 0)
		goto err;
	if (cfg->report && (rc = open_report(p, errbuf, errlen)) < 0)
		goto err;
	for (unsigned k = 0; k < p->cfg.nsinks; k++)
		chain(p, p->cfg.sinks[k]);
	p->nthreads = cfg->threads ? cfg->threads : wk_default_threads();
	if (!(p->wk = wk_new(&cfg->eng, p->nthreads, &p->sink, errbuf, errlen))) {
		rc = ERR_SYSTEM;
		goto err;
	}
	/* The workers read the packets where the inputs' own reader left them,
	 * not a copy (libtrace's are copied); one thread reads a few ahead. */
	const uint64_t *gen;
	if (p->src && (gen = src_keep(p->src)))
		wk_keep(p->wk, gen, keep_release, p->src);
	*out = p;
	return 0;
err:
	pipe_free(p);
	return rc;
}

/* ---- packets ---- */

int pipe_next(struct pipeline *p, struct pkt *pk)
{
	return p->src ? src_next(p->src, pk) : 0;
}

void pipe_packet(struct pipeline *p, const struct pkt *pk)
{
	wk_packet(p->wk, pk);
}

void pipe_run(struct pipeline *p, pipe_tick_fn *tick, void *ctx)
{
	const volatile sig_atomic_t *stop = p->cfg.src.stop;
	uint64_t count = p->cfg.count, n = 0;
	const struct pkt *pk;

	if (!p->src)
		return;
	for (;;) {
		if (stop && *stop) {
			p->stopped = true;
			break;
		}
		if ((count && n == count) || src_next_ref(p->src, &pk) <= 0)
			break;
		wk_packet(p->wk, pk);
		if ((++n & 0x3ff) == 0 && tick)
			tick(ctx, p, n);
	}
}

void pipe_flush(struct pipeline *p)
{
	wk_flush(p->wk);
}

void pipe_sync(struct pipeline *p)
{
	wk_sync(p->wk);
}

void pipe_foreach_live(const struct pipeline *p, void (*fn)(void *ctx, const struct sum_conn *c),
		       void *ctx)
{
	wk_foreach_live(p->wk, fn, ctx);
}

void pipe_counters(const struct pipeline *p, struct eng_counters *eng, struct flow_counters *flows)
{
	wk_counters(p->wk, eng, flows);
}

uint32_t pipe_live_connections(const struct pipeline *p)
{
	return wk_live_connections(p->wk);
}

const struct source *pipe_source(const struct pipeline *p)
{
	return p->src;
}

/* ---- the end ---- */

/* The files' inputs and vantage points, as the source has them. */
static void run_files(struct pipeline *p, struct rep_run *run)
{
	unsigned n = src_count(p->src), nv = src_vantage_count(p->src);
	const volatile sig_atomic_t *stop = p->cfg.src.stop;

	p->inputs = calloc(n ? n : 1, sizeof(*p->inputs)); // NOLINT(bugprone-sizeof-expression)
	p->vantages =
	    calloc(nv ? nv : 1, sizeof(*p->vantages)); // NOLINT(bugprone-sizeof-expression)
	for (unsigned v = 0; p->vantages && v < nv; v++)
		p->vantages[v] = src_vantage_name(p->src, v);
	for (unsigned k = 0; p->inputs && k < n; k++)
		p->inputs[k] = src_input(p->src, k);
	run->ninputs = p->inputs ? n : 0;
	run->inputs = p->inputs;
	run->filtered_out = src_filtered_out(p->src);
	run->nvantages = p->vantages ? nv : 0;
	run->vantage_names = p->vantages;
	if (p->stopped || src_stopped(p->src))
		run->stopped_by = stop && *stop ? *stop : SIGTERM;
	/* Packets the BPF filter dropped belong to no connection: shard 1's. */
	if (p->cfg.eng.shard_n > 1 && p->cfg.eng.shard_k != 1)
		run->filtered_out = 0;
}

/* A live capture's one input, counted by the engine. */
static void run_live(struct pipeline *p, struct rep_run *run, const struct src_input *live)
{
	p->live = *live;
	p->live.packets = run->eng.packets;
	p->live.wire_bytes = run->eng.wire_bytes;
	p->live.first_ts = run->eng.first_ts;
	p->live.last_ts = run->eng.last_ts;
	p->inputs = calloc(1, sizeof(*p->inputs)); // NOLINT(bugprone-sizeof-expression)
	if (p->inputs)
		p->inputs[0] = &p->live;
	p->live_vantage = p->live.path;
	run->ninputs = p->inputs ? 1 : 0;
	run->inputs = p->inputs;
	run->nvantages = 1;
	run->vantage_names = &p->live_vantage;
}

struct rep_run *pipe_finish(struct pipeline *p, const struct src_input *live)
{
	struct rep_run *run = &p->run;

	if (p->finished)
		return run;
	p->finished = true;
	wk_finish(p->wk);
	if (p->vp) {
		vp_finish(p->vp);
		p->vpx = vp_extra(p->vp);
	}
	*run = (struct rep_run){.version = TCPSIFT_VERSION,
				.filter = p->cfg.src.filter,
				.detectors = p->cfg.eng.detectors,
				.shard_k = p->cfg.eng.shard_k,
				.shard_n = p->cfg.eng.shard_n,
				.extra = p->vp ? &p->vpx : NULL,
				.threads = p->nthreads};
	wk_counters(p->wk, &run->eng, &run->flows);
	if (p->src)
		run_files(p, run);
	else if (live)
		run_live(p, run, live);
	return run;
}

int pipe_report(struct pipeline *p, char *errbuf, size_t errlen)
{
	int rc = rep_finish(p->rep, &p->run, errbuf, errlen);

	if (rc == 0 && p->vp && p->cfg.rep.format == REP_TEXT && vp_write_text(p->vp, p->out) < 0) {
		snprintf(errbuf, errlen, "cannot write the report: %s", strerror(errno));
		rc = ERR_SYSTEM;
	}
	return rc;
}

int pipe_plot_index(struct pipeline *p, char *errbuf, size_t errlen)
{
	struct plot_index *ix = &p->ix;

	if (!ix->rep)
		return 0;
	int rc = rep_finish(ix->rep, &p->run, errbuf, errlen);
	if (rc == 0 && (fflush(ix->json) != 0 || ferror(ix->json) || fflush(ix->html) != 0 ||
			ferror(ix->html))) {
		snprintf(errbuf, errlen, "cannot write the --plot page and report: %s",
			 strerror(errno));
		rc = ERR_SYSTEM;
	}
	return rc;
}

struct plot *pipe_plot(struct pipeline *p)
{
	return p->plot;
}

struct ann_set *pipe_annotations(struct pipeline *p)
{
	return p->ann;
}

const struct report *pipe_rep(const struct pipeline *p)
{
	return p->rep;
}

int pipe_close_files(struct pipeline *p, char *errbuf, size_t errlen)
{
	int rc = 0;

	if (p->own_csv && fclose(p->csv) != 0) {
		snprintf(errbuf, errlen, "cannot write %s: %s", p->cfg.frames_csv_path,
			 strerror(errno));
		rc = -EIO;
	}
	if (p->own_out && fclose(p->out) != 0 && rc == 0) {
		snprintf(errbuf, errlen, "cannot write %s: %s", p->cfg.out_path, strerror(errno));
		rc = -EIO;
	}
	p->own_csv = p->own_out = false;
	return rc;
}

void pipe_free(struct pipeline *p)
{
	if (!p)
		return;
	free(p->inputs);
	free(p->vantages);
	vp_free(p->vp);
	ann_free(p->ann);
	wk_free(p->wk);
	rep_free(p->rep);
	plot_index_close(&p->ix);
	src_close(p->src);
	free(p->names);
	plot_free(p->plot);
	if (p->own_csv)
		fclose(p->csv);
	if (p->own_out)
		fclose(p->out);
	free(p);
}
