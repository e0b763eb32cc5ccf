/* pipe.h - the one place an analysis is put together: source -> workers -> report and sinks. */
#ifndef TCPSIFT_PIPE_H
#define TCPSIFT_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/counters.h"
#include "analyze/engine/engine.h"
#include "analyze/engine/source.h"
#include "analyze/engine/summary.h"
#include "analyze/report/report.h"
#include "common/pkt.h"

/*
 * Every verb that analyses packets builds its run here (analyze, annotate,
 * diff's captures, capture --analyze, the TUI's replay and live views), so
 * the engine, its threads and its consumers are wired one way:
 *
 *   files (source.h) ──┐
 *                      ├─> workers (N engines) ─> report ─> plot ─> --plot page
 *   live: pipe_packet ─┘                          ─> vantage pair ─> annotations
 *                                                 ─> cfg.sinks[] (model, metrics)
 *
 * Each consumer is fed in that order through one chain of sum_tees. A
 * pipeline owns its source, workers, report, graphs, vantage pair,
 * annotations and the report files it opened; cfg.sinks are the caller's.
 */

#define PIPE_MAX_SINKS 4

struct pipe_config {
	/* Files merged by time, read by pipe_run() or pipe_next(); npaths 0:
	 * live, the caller hands packets in with pipe_packet(). Borrowed
	 * until pipe_free(). */
	const char *const *paths;
	unsigned npaths;
	struct src_config src; /* filter, queue per file, stop flag ... */
	uint64_t count;	       /* pipe_run(): stop after this many packets; 0 all */
	struct eng_config eng;
	unsigned threads; /* 0: wk_default_threads() */

	/* The report: rep's format, options and `only` (also the graphs' and
	 * annotations' selection). out_path, opened here ("-": stdout), is
	 * where it goes, else rep.out as given (NULL: stdout); frames_csv_path
	 * likewise ("-": stdout). input_names are set here from the inputs. */
	bool report;
	struct rep_config rep;
	const char *out_path;
	const char *frames_csv_path;

	/* --plot DIR (SVG and DIR/index.html, DIR/report.json), --xplot DIR */
	const char *plot_dir, *xplot_dir;
	uint32_t plot_max; /* 0: PLOT_MAX_DEFAULT */
	/* --vantage-pair: two inputs, two capture points */
	bool vantage_pair;
	int64_t vantage_max_offset_ns;
	uint32_t vantage_window;
	/* Keep every verdict for ann_write() (pipe_annotations()). */
	bool annotate;
	/* Other consumers, fed after those above (borrowed). */
	struct sum_sink sinks[PIPE_MAX_SINKS];
	unsigned nsinks;
};

struct pipeline;

/*
 * Build it all: 0 with the pipeline in *out (the caller owns it), or, with
 * *out NULL and one line in errbuf, a negative enum err_code: the
 * source's (src_open(): ERR_USAGE for a filter that does not compile, the
 * only usage error here), ERR_SYSTEM for a graph directory or a report
 * file that cannot be written, ERR_NOMEM, ERR_SYSTEM for threads. The
 * graphs' directories are made first, before any input is opened.
 */
int pipe_open(const struct pipe_config *cfg, struct pipeline **out, char *errbuf, size_t errlen);

/* Files: the next packet of the source (borrowed until the next call),
 * not yet analysed (a caller that paces, the TUI's replay): 1, or 0 at
 * the end of every input. */
int pipe_next(struct pipeline *p, struct pkt *pk);

/* Analyse one packet (borrowed for the call): live, or one pipe_next() gave. */
void pipe_packet(struct pipeline *p, const struct pkt *pk);

typedef void pipe_tick_fn(void *ctx, const struct pipeline *p, uint64_t packets);

/* Files: read and analyse every packet (cfg.count at most) until the
 * inputs end or the stop flag is set; tick (or NULL) every 1024 packets. */
void pipe_run(struct pipeline *p, pipe_tick_fn *tick, void *ctx);

/* Live views (workers.h): hand over the batch being filled; also wait
 * for the workers; the connections live now; the counters so far. */
void pipe_flush(struct pipeline *p);
void pipe_sync(struct pipeline *p);
void pipe_foreach_live(const struct pipeline *p, void (*fn)(void *ctx, const struct sum_conn *c),
		       void *ctx);
void pipe_counters(const struct pipeline *p, struct eng_counters *eng, struct flow_counters *flows);
uint32_t pipe_live_connections(const struct pipeline *p);

/* The file source (NULL live): its inputs, vantage points, progress. */
const struct source *pipe_source(const struct pipeline *p);

/*
 * End of input: every connection ends and is delivered, the vantage pair
 * is matched; the report's data is returned (owned by the pipeline, valid
 * until pipe_free(); the caller may still set what only it knows, such as
 * `written`). live (NULL for files) is the one input of a live capture,
 * copied, its packet counts and times taken from the engine. Call once.
 */
struct rep_run *pipe_finish(struct pipeline *p, const struct src_input *live);

/* Write the report (and the vantage pair's text): 0 or a negative
 * err_code with one line in errbuf. */
int pipe_report(struct pipeline *p, char *errbuf, size_t errlen);

/* --plot: DIR/index.html and DIR/report.json, after the graphs (0 without). */
int pipe_plot_index(struct pipeline *p, char *errbuf, size_t errlen);

/* Parts a verb reports on itself (NULL when not built). */
struct plot *pipe_plot(struct pipeline *p);
struct ann_set *pipe_annotations(struct pipeline *p);
const struct report *pipe_rep(const struct pipeline *p); /* totals, selection */

/* Close the report files it opened: 0, or -EIO naming the first that
 * failed (frames CSV, then the report) in errbuf. */
int pipe_close_files(struct pipeline *p, char *errbuf, size_t errlen);

void pipe_free(struct pipeline *p); /* NULL is a no-op; closes what is still open */

#endif
