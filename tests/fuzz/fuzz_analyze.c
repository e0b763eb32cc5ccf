/* fuzz_analyze.c - libFuzzer target: arbitrary packets through the whole engine and reporters. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/engine/engine.h"
#include "analyze/report/plot.h"
#include "analyze/report/report.h"
#include "tests/fuzz/fuzz_records.h"
#include "tui/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Input: the packet records of fuzz_records.h. A tiny flow table (8)
 * forces eviction and port-reuse paths; time steps of up to 254 ms with a
 * 1 s idle timeout exercise expiry. The report is written to /dev/null as
 * JSON, text and HTML, so reporters see whatever the engine produced, and the
 * dashboard's model (tui/model.c) is fed the same results and snapshotted,
 * as the TUI does (fuzz_tui also draws it and presses keys). With the text
 * report the graphs are drawn too (--plot and --xplot), into a directory
 * of the process's own under $TMPDIR, removed after each input.
 */

/* Remove dir and the files in it (the graphs: no subdirectories). */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1024];

	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	struct eng_config cfg;
	FILE *null = fopen("/dev/null", "w");

	if (!null || size < 1) {
		if (null)
			fclose(null);
		return 0;
	}
	eng_config_defaults(&cfg);
	cfg.flow.max_flows = 8;
	cfg.flow.idle_timeout_ns = 1000000000;
	cfg.flow.closed_linger_ns = 500000000;

	static const enum rep_format formats[] = {REP_TEXT, REP_JSON, REP_HTML};

	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		/* Graphs beside the text report (files) and inside the HTML
		 * page (a temporary directory, inlined), written before it;
		 * --frames and --frames-csv too, so the per-frame verdicts
		 * and their report paths are fuzzed with the rest. */
		struct plot *plot = NULL;
		char dir[512]; /* borrowed by the plot */
		if (f == 0) {
			const char *tmp = getenv("TMPDIR");
			snprintf(dir, sizeof(dir), "%s/tcpsift-fuzz-plot-%ld", tmp ? tmp : "/tmp",
				 (long)getpid());
			struct plot_config pc = {.svg_dir = dir, .xpl_dir = dir, .max_conns = 4};
			plot = plot_new(&pc, err, sizeof(err));
		} else if (formats[f] == REP_HTML) {
			struct plot_config pc = {.svg_temp = true, .max_conns = 4};
			plot = plot_new(&pc, err, sizeof(err));
		}
		struct rep_config rc = {.format = formats[f],
					.out = null,
					.max_events = 64,
					.frames = true,
					.frames_csv = null,
					.html_dir =
					    formats[f] == REP_HTML ? plot_svg_dir(plot) : NULL};
		struct report *rep = rep_new(&rc, err, sizeof(err));
		struct tm_config mc = {.keep_ended = 4};
		struct tm_model *model = tm_new(&mc, err, sizeof(err));
		struct tm_snapshot snap = {0};
		struct sum_tee tee = {.a = rep_sink(rep), .b = tm_sink(model)};
		struct sum_sink sink = sum_tee_sink(&tee);
		struct sum_tee tee2 = {.a = sink,
				       .b = plot ? plot_sink(plot) : (struct sum_sink){0}};
		struct sum_sink sink2 = sum_tee_sink(&tee2);
		struct engine *eng = eng_new(&cfg, &sink2, err, sizeof(err));
		struct fz_records in;
		struct pkt p;

		fz_records_init(&in, data, size);
		while (fz_records_next(&in, &p)) {
			eng_packet(eng, &p);
			if ((p.frame & 15) == 0) { /* a live snapshot now and then */
				eng_foreach_live(eng, tm_update_live, model);
				tm_snapshot_fill(model, &snap, p.frame / 16);
			}
		}
		eng_finish(eng);
		tm_snapshot_fill(model, &snap, 1);
		tm_snapshot_free(&snap);
		tm_free(model);
		struct rep_run run = {
		    .version = "fuzz", .eng = *eng_counters(eng), .flows = *eng_flow_counters(eng)};
		/* A write may fail (a full $TMPDIR): it must say why. */
		err[0] = '\0';
		if (plot && plot_finish(plot, err, sizeof(err)) != 0 && err[0] == '\0')
			__builtin_trap();
		/* A failure must say why (to /dev/null nothing should fail). */
		err[0] = '\0';
		if (rep_finish(rep, &run, err, sizeof(err)) != 0 && err[0] == '\0')
			__builtin_trap();
		if (f == 0 && plot)
			remove_dir(dir);
		plot_free(plot);
		eng_free(eng);
		rep_free(rep);
	}
	fclose(null);
	return 0;
}
