/* cmd_analyze.c - the `tcpsift analyze` verb: options to a pipeline, progress, messages, exit
 * codes. */
#include "cli/cmd_analyze.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "analyze/annotate/annot.h"
#include "analyze/engine/decode.h"
#include "analyze/pipeline/pipe.h"
#include "analyze/report/failon.h"
#include "analyze/report/plot.h"
#include "analyze/report/report.h"
#include "cli/analyze_opts.h"
#include "cli/bpfhint.h"
#include "cli/cliopt.h"
#include "common/clock.h"
#include "common/idset.h"

/* Set by SIGINT/SIGTERM to the signal: stop reading (every wait for input
 * watches it: src_config.stop), report what was read, exit 3. */
static volatile sig_atomic_t analyze_stop;

static void on_signal(int sig)
{
	analyze_stop = sig;
}

/*
 * The progress line on stderr (a terminal, or --progress): one line
 * rewritten in place with \r at most PROGRESS_EVERY_S apart, erased at the
 * end, never part of the report:
 *
 *   42.1% 1.23 GiB/2.92 GiB  12345678 pkts 1.52 Mpkt/s  20315 live  RSS 183 MiB  ETA 0:12
 *
 * Percent, total and ETA need every input's size (not stdin, not compressed).
 */
struct progress {
	bool on, drawn;
	double start, last;
	uint64_t last_packets;
	int width; /* the terminal's columns; 0 when not a terminal */
};

#define PROGRESS_EVERY_S 0.25

static void progress_start(struct progress *pr, bool on)
{
	struct winsize ws;

	pr->on = on;
	pr->start = clock_now_s();
	pr->last = pr->start - PROGRESS_EVERY_S; /* the first check draws */
	if (on && isatty(2) && ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		pr->width = ws.ws_col;
}

/* "12.3 M" style: v in units of 1000 (packets) or 1024 (bytes, "Ki" ...). */
static void fmt_units(char *buf, size_t len, double v, bool binary, const char *unit)
{
	static const char *const dec[] = {"", "k", "M", "G", "T"};
	static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti"};
	double step = binary ? 1024 : 1000;
	unsigned k = 0;

	while (v >= step * 0.9995 && k < 4) {
		v /= step;
		k++;
	}
	if (k == 0)
		snprintf(buf, len, "%.0f %s", v, unit);
	else
		snprintf(buf, len, "%.*f %s%s",
			 v < 9.95   ? 2
			 : v < 99.5 ? 1
				    : 0,
			 v, binary ? bin[k] : dec[k], unit);
}

/* Resident memory now (/proc/self/statm, pages), or 0 when unknown. */
static uint64_t rss_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	char line[128], *end;
	long page = sysconf(_SC_PAGESIZE);

	if (!f)
		return 0;
	bool got = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!got || page <= 0)
		return 0;
	/* "size resident ...": the second field, in pages. */
	const char *p = strchr(line, ' ');
	if (!p)
		return 0;
	errno = 0;
	unsigned long long resident = strtoull(p + 1, &end, 10);
	return errno == 0 && end != p + 1 ? (uint64_t)resident * (uint64_t)page : 0;
}

static void progress_tick(void *ctx, const struct pipeline *p, uint64_t packets)
{
	struct progress *pr = ctx;
	const struct source *src = pipe_source(p);
	double t = clock_now_s();
	if (t - pr->last < PROGRESS_EVERY_S)
		return;

	char line[256], done_s[32], total_s[32], rate_s[32], rss_s[32];
	double since = pr->drawn ? pr->last : pr->start;
	double rate = t > since ? (double)(packets - pr->last_packets) / (t - since) : 0;
	uint64_t done, total;
	bool sized = src_bytes(src, &done, &total) == 0;
	int len = 0;

	fmt_units(done_s, sizeof(done_s), (double)done, true, "B");
	fmt_units(rate_s, sizeof(rate_s), rate, false, "pkt/s");
	fmt_units(rss_s, sizeof(rss_s), (double)rss_bytes(), true, "B");
	if (sized) {
		fmt_units(total_s, sizeof(total_s), (double)total, true, "B");
		len = snprintf(line, sizeof(line), "%5.1f%% %s/%s  ",
			       100.0 * (double)done / (double)total, done_s, total_s);
	} else {
		len = snprintf(line, sizeof(line), "%s  ", done_s);
	}
	len += snprintf(line + len, sizeof(line) - (size_t)len,
			"%" PRIu64 " pkts %s  %" PRIu32 " live  RSS %s", packets, rate_s,
			pipe_live_connections(p), rss_s);
	/* ETA from the average byte rate since the start: steadier than the last tick's. */
	double secs = t - pr->start;
	if (sized && done > 0 && secs > 0 && (size_t)len < sizeof(line)) {
		double eta = (double)(total - done) / ((double)done / secs);
		unsigned long e = eta < 360000 ? (unsigned long)(eta + 0.5) : 359999;
		if (e >= 3600)
			snprintf(line + len, sizeof(line) - (size_t)len, "  ETA %lu:%02lu:%02lu",
				 e / 3600, e / 60 % 60, e % 60);
		else
			snprintf(line + len, sizeof(line) - (size_t)len, "  ETA %lu:%02lu", e / 60,
				 e % 60);
	}
	/* Wider than the terminal would wrap, and \r would rewrite only the last row. */
	if (pr->width > 0 && strlen(line) >= (size_t)pr->width)
		line[pr->width - 1] = '\0';
	fprintf(stderr, "\r%s\033[K", line);
	pr->drawn = true;
	pr->last = t;
	pr->last_packets = packets;
}

/* Erase the line: the report, not the progress, is what stays. */
static void progress_end(const struct progress *pr)
{
	if (pr->drawn)
		fputs("\r\033[K", stderr);
}

static void print_error(void *ctx, const struct rep_error *e)
{
	FILE *msg = ctx;

	if (e->path)
		fprintf(msg, "tcpsift analyze: %s: %s\n", e->path, e->message);
	else
		fprintf(msg, "tcpsift analyze: %s\n", e->message);
}

/*
 * No report to write: no input could be read at all (their errors are
 * already on stderr; text only: a JSON document always comes, with its
 * errors), or --conn names no connection the input holds (said here, a
 * usage error). An empty report would only look like a capture in which
 * nothing went wrong. 0: write the report; else the exit status.
 */
static int nothing_to_report(const struct analyze_cfg *cfg, const struct rep_run *run,
			     const struct pipeline *p)
{
	bool none_read = run->ninputs > 0 && cfg->format == REP_TEXT; /* JSON: errors[] */

	for (unsigned k = 0; k < run->ninputs && none_read; k++)
		none_read = run->inputs[k] && run->inputs[k]->error && !run->inputs[k]->packets;
	if (none_read)
		return TCPSIFT_EXIT_INPUT;
	if (!cfg->conn_list || rep_selected(pipe_rep(p)) || run->stopped_by)
		return 0;
	if (run->flows.created)
		fprintf(cfg->msg,
			"tcpsift analyze: --conn %s: no such connection (the input holds %" PRIu64
			": ids 1 to %" PRIu64 ")\n",
			cfg->conn_list, run->flows.created, run->flows.created);
	else
		fprintf(cfg->msg,
			"tcpsift analyze: --conn %s: no such connection (the input holds none)\n",
			cfg->conn_list);
	return TCPSIFT_EXIT_USAGE;
}

/* --annotate / tcpsift annotate: the capture again, with the verdicts;
 * what could not be written is said. 0; ann_write()'s code when it
 * failed; ERR_INPUT when verdicts were lost (the file does not carry all
 * of the analysis: exit 3, as an input the report does not cover). */
static int annotate_finish(const struct analyze_cfg *cfg, struct ann_set *ann,
			   const char *const *paths, unsigned n)
{
	const char *verb = cfg->annotate_verb ? "annotate" : "analyze";
	struct ann_stats st;
	char err[512];
	int rc = ann_write(ann, paths, n, cfg->annotate, &st, err, sizeof(err));

	if (rc < 0) {
		fprintf(cfg->msg, "tcpsift %s: %s\n", verb, err);
		return rc;
	}
	if (!cfg->quiet)
		fprintf(cfg->msg,
			"tcpsift %s: wrote %s: %" PRIu64 " packets, %" PRIu64
			" comments on %" PRIu64 " of them (tshark -r '%s' -Y 'frame.comment "
			"contains \"tcpsift\"')\n",
			verb, cfg->annotate, st.packets, st.comments, st.annotated, cfg->annotate);
	if (st.not_epb)
		fprintf(cfg->msg,
			"tcpsift %s: warning: %" PRIu64
			" verdicts not written: their packets are simple or obsolete packet "
			"blocks, which have no room for comments\n",
			verb, st.not_epb);
	if (st.dropped || st.unmatched)
		fprintf(cfg->msg,
			"tcpsift %s: %s is partial: %" PRIu64 " verdicts not written (%" PRIu64
			" beyond %u kept, %" PRIu64 " on frames not found)\n",
			verb, cfg->annotate, st.dropped + st.unmatched, st.dropped, ANN_MAX_NOTES,
			st.unmatched);
	return st.dropped || st.unmatched ? ERR_INPUT : 0;
}

/* One analysis between its steps (analyze_run). */
struct analyze_job {
	struct analyze_cfg *cfg;
	struct idset *only; /* --conn */
	struct pipeline *pipe;
	struct rep_run *run;
	bool input_error;    /* an input failed, held nothing, or a stop */
	uint64_t unanalysed; /* packets no connection could take */
	int plot_rc, ann_rc;
};

/* Before anything is opened: --conn's list, one standard input, where
 * --annotate writes, the signals. CLI_GO_ON to go on, else the exit status. */
static int job_prepare(struct analyze_job *j)
{
	struct analyze_cfg *cfg = j->cfg;
	char err[512];
	unsigned stdin_count = 0;

	if (cfg->conn_list && !(j->only = idset_parse(cfg->conn_list, err, sizeof(err)))) {
		fprintf(cfg->msg, "tcpsift analyze: --conn %s\n", err);
		return TCPSIFT_EXIT_USAGE;
	}
	for (unsigned k = 0; k < cfg->nreads; k++)
		stdin_count += strcmp(cfg->reads[k], "-") == 0;
	if (stdin_count > 1) {
		fputs("tcpsift analyze: standard input ('-') given more than once\n", cfg->msg);
		return TCPSIFT_EXIT_USAGE;
	}
	if (cfg->annotate &&
	    ann_check(cfg->reads, cfg->nreads, cfg->annotate, err, sizeof(err)) < 0) {
		fprintf(cfg->msg, "tcpsift %s: %s\n",
			cfg->annotate_verb ? "annotate" : "analyze: --annotate", err);
		return TCPSIFT_EXIT_USAGE;
	}
	if (cfg->stop)
		return CLI_GO_ON; /* the caller's flag and handler */
	/* Before the inputs open: a FIFO's writer is waited for there. No
	 * SA_RESTART: the signal ends a wait in poll(2) at once. */
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	cfg->stop = &analyze_stop;
	return CLI_GO_ON;
}

/* The options as the pipeline's config. */
static void job_config(const struct analyze_job *j, struct pipe_config *pc)
{
	struct analyze_cfg *cfg = j->cfg;

	/* --conn: the selected connections in long form too. */
	cfg->text.long_form |= j->only != NULL;
	*pc = (struct pipe_config){
	    .paths = cfg->reads,
	    .npaths = cfg->nreads,
	    .src = {.filter = cfg->filter,
		    .queue_per_file = cfg->queue_per_file,
		    .vantage_per_input = cfg->vantage_pair,
		    .keep_going = true,
		    .stop = cfg->stop},
	    .count = cfg->count,
	    .eng = cfg->eng,
	    .threads = cfg->threads,
	    .report = true,
	    .rep = {.format = cfg->format,
		    .text = cfg->text,
		    .max_events = cfg->max_events,
		    .frames = cfg->frames,
		    .only = j->only,
		    /* 0 MiB asked: spill every connection (1 byte is below one) */
		    .conn_mem = cfg->report_memory == SIZE_MAX ? 0
				: cfg->report_memory	       ? cfg->report_memory
							       : 1},
	    .out_path = cfg->output,
	    .frames_csv_path = cfg->frames_csv,
	    .plot_dir = cfg->plot_dir,
	    .xplot_dir = cfg->xplot_dir,
	    .plot_max = cfg->plot_max,
	    .vantage_pair = cfg->vantage_pair,
	    .vantage_max_offset_ns = cfg->vantage_max_offset_ns,
	    .vantage_window = cfg->vantage_window,
	    .annotate = cfg->annotate != NULL,
	};
}

/* Build the pipeline; CLI_GO_ON to go on, else the exit status (said). */
static int job_open(struct analyze_job *j)
{
	const struct analyze_cfg *cfg = j->cfg;
	struct pipe_config pc;
	char err[512];

	job_config(j, &pc);
	int rc = pipe_open(&pc, &j->pipe, err, sizeof(err));
	if (rc == 0)
		return CLI_GO_ON;
	/* A trailing argument that is no file was taken for a filter: when
	 * that does not compile, it may have been a file after all. */
	if (err_is_usage(rc) && bpfhint_report_to(cfg->msg, "analyze", cfg->filter)) {
		/* a display filter: the hint's line says it all */
	} else if (cfg->filter_args && err_is_usage(rc))
		fprintf(cfg->msg,
			"tcpsift analyze: %s (the arguments from '%s' on were taken as a "
			"filter: no file, URI or - of that name)\n",
			err, cfg->filter_first);
	else
		fprintf(cfg->msg, "tcpsift analyze: %s\n", err);
	/* A filter that does not compile is a usage error, not bad input. */
	return exit_for_error(rc);
}

/* Every connection has ended: the verdicts and the graphs are written. */
static void job_finish(struct analyze_job *j)
{
	const struct analyze_cfg *cfg = j->cfg;
	struct ann_set *ann = pipe_annotations(j->pipe);
	struct plot *plot = pipe_plot(j->pipe);

	j->run = pipe_finish(j->pipe, NULL);
	if (ann)
		j->ann_rc = annotate_finish(cfg, ann, cfg->reads, cfg->nreads);
	if (plot) {
		char perr[512] = "";
		j->plot_rc = plot_finish(plot, perr, sizeof(perr));
		if (j->plot_rc < 0)
			fprintf(cfg->msg, "tcpsift analyze: %s\n", perr);
		if (!cfg->quiet && plot_left_out(plot))
			fprintf(cfg->msg,
				"tcpsift analyze: graphs for %" PRIu64 " connections; %" PRIu64
				" more were not plotted (--plot-max %" PRIu32
				"): pick them with --conn\n",
				plot_written(plot), plot_left_out(plot),
				cfg->plot_max ? cfg->plot_max : PLOT_MAX_DEFAULT);
	}
}

/* What the report does not cover, said before it is written. */
static void job_diagnose(struct analyze_job *j)
{
	const struct analyze_cfg *cfg = j->cfg;
	const struct rep_run *run = j->run;

	/* Inputs that failed, or hold nothing tcpsift decodes, or a stop:
	 * named here and in the report's errors, exit 3. */
	j->input_error = rep_each_error(run, print_error, cfg->msg) > 0;
	if (!cfg->quiet && !j->input_error && run->eng.malformed[-DEC_ERR_LINKTYPE])
		fprintf(cfg->msg,
			"tcpsift analyze: warning: %" PRIu64
			" packets of a link type tcpsift cannot decode\n",
			run->eng.malformed[-DEC_ERR_LINKTYPE]);
	/* Packets no connection could take (--max-flows, --max-memory): the
	 * report does not cover them; the counts say which, exit 3 says so. */
	j->unanalysed = run->eng.no_memory + run->flows.evicted_packets;
	if (j->unanalysed)
		fprintf(cfg->msg,
			"tcpsift analyze: the report is partial: %" PRIu64
			" packets not analysed, no memory for their connection (summary.no_memory, "
			"flows.evicted_packets_dropped; a larger --max-memory or --max-flows)\n",
			j->unanalysed);
	if (!cfg->quiet && run->eng.ts_clamped)
		fprintf(cfg->msg,
			"tcpsift analyze: warning: %" PRIu64
			" packets timed before 1970 or after 2262 (not 64-bit nanoseconds): "
			"taken as the nearest end (summary.timestamps_clamped)\n",
			run->eng.ts_clamped);
}

/* The report, the --plot page, --fail-on, the files closed: the exit status. */
static int job_write(struct analyze_job *j)
{
	const struct analyze_cfg *cfg = j->cfg;
	char werr[256] = "";
	int rc = 0;

	int none = j->run->inputs ? nothing_to_report(cfg, j->run, j->pipe) : 0;
	if (!none && (rc = pipe_report(j->pipe, werr, sizeof(werr))) < 0)
		fprintf(cfg->msg, "tcpsift analyze: %s\n", werr);
	/* After the graphs, which the page links where they exist. */
	if (!none && pipe_plot_index(j->pipe, werr, sizeof(werr)) < 0) {
		fprintf(cfg->msg, "tcpsift analyze: %s\n", werr);
		if (rc == 0)
			rc = ERR_SYSTEM;
	}
	char matched[128] = "";
	bool failed = cfg->fail_on && fo_match(&cfg->fail_expr, rep_get_totals(pipe_rep(j->pipe)),
					       matched, sizeof(matched));
	if (failed && !cfg->quiet)
		fprintf(cfg->msg, "tcpsift analyze: --fail-on matched: %s\n", matched);
	int crc = pipe_close_files(j->pipe, werr, sizeof(werr));
	if (crc < 0 && rc == 0) {
		fprintf(cfg->msg, "tcpsift analyze: %s\n", werr);
		rc = crc;
	}
	if (none == TCPSIFT_EXIT_USAGE)
		return none;
	if (rc < 0 || j->input_error || j->plot_rc < 0 || j->ann_rc < 0 || j->unanalysed)
		return TCPSIFT_EXIT_INPUT;
	return failed ? TCPSIFT_EXIT_FINDINGS : TCPSIFT_EXIT_OK;
}

/* The analysis once the arguments are parsed: a straight line of steps. */
static int analyze_run(struct analyze_cfg *cfg)
{
	struct analyze_job j = {.cfg = cfg};
	int rc = job_prepare(&j);

	if (rc < 0)
		rc = job_open(&j);
	if (rc < 0) {
		struct progress pr = {0};
		progress_start(&pr, cfg->progress == 1 || (cfg->progress < 0 && isatty(2)));
		pipe_run(j.pipe, pr.on ? progress_tick : NULL, &pr);
		progress_end(&pr);
		job_finish(&j);
		job_diagnose(&j);
		rc = job_write(&j);
	}
	pipe_free(j.pipe);
	idset_free(j.only);
	return rc;
}

/* analyze, or annotate (the analysis for its verdicts only: -o is the
 * annotated capture and the report itself goes nowhere). */
static int analyze_verb(int argc, char **argv, bool annotate, FILE *msg,
			const volatile sig_atomic_t *stop)
{
	struct analyze_cfg cfg;
	int rc;

	if (aopt_init(&cfg, argc, annotate, msg) < 0) {
		fprintf(msg, "tcpsift %s: out of memory\n", annotate ? "annotate" : "analyze");
		return TCPSIFT_EXIT_INPUT;
	}
	cfg.stop = stop;
	rc = aopt_parse(argc, argv, &cfg);
	if (annotate)
		cfg.output = "/dev/null";
	if (rc < 0)
		rc = analyze_run(&cfg);
	aopt_free(&cfg);
	return rc;
}

int analyze_main(int argc, char **argv)
{
	return analyze_verb(argc, argv, false, stderr, NULL);
}

int annotate_main(int argc, char **argv)
{
	return analyze_verb(argc, argv, true, stderr, NULL);
}

int analyze_inproc(int argc, char **argv, FILE *msg, const volatile sig_atomic_t *stop)
{
	return analyze_verb(argc, argv, false, msg, stop);
}

size_t annotate_option_names(const char **names, size_t max)
{
	static const char *const own[] = {"output", "version", "help"};
	size_t k;

	for (k = 0; k < sizeof(own) / sizeof(own[0]) && k < max; k++)
		names[k] = own[k];
	return k;
}

size_t analyze_option_names(const char **names, size_t max)
{
	return aopt_names(names, max);
}
