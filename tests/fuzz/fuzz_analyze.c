/* fuzz_analyze.c - libFuzzer target: arbitrary packets through the whole engine and reporters. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/engine/engine.h"
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
 * as the TUI does (fuzz_tui also draws it and presses keys).
 */

/* Both sinks: the report's and the model's. */
struct tee {
	struct sum_sink a, b;
};

static void tee_conn(void *ctx, const struct sum_conn *c)
{
	const struct tee *t = ctx;
	t->a.conn(t->a.ctx, c);
	t->b.conn(t->b.ctx, c);
}

static void tee_event(void *ctx, const struct sum_event *e)
{
	const struct tee *t = ctx;
	t->a.event(t->a.ctx, e);
	t->b.event(t->b.ctx, e);
}

static void tee_frame(void *ctx, const struct sum_event *e)
{
	const struct tee *t = ctx;
	if (t->a.frame)
		t->a.frame(t->a.ctx, e);
}

static void tee_segment(void *ctx, const struct sum_seg *s)
{
	const struct tee *t = ctx;
	t->b.segment(t->b.ctx, s);
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
		/* --frames and --frames-csv too, so the per-frame verdicts
		 * and their report paths are fuzzed with the rest. */
		struct rep_config rc = {.format = formats[f],
					.out = null,
					.max_events = 64,
					.frames = true,
					.frames_csv = null};
		struct report *rep = rep_new(&rc, err, sizeof(err));
		struct tm_config mc = {.keep_ended = 4};
		struct tm_model *model = tm_new(&mc, err, sizeof(err));
		struct tm_snapshot snap = {0};
		struct tee tee = {.a = rep_sink(rep), .b = tm_sink(model)};
		struct sum_sink sink = {.conn = tee_conn,
					.event = tee_event,
					.frame = tee_frame,
					.segment = tee_segment,
					.ctx = &tee};
		struct engine *eng = eng_new(&cfg, &sink, err, sizeof(err));
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
		/* A failure must say why (to /dev/null nothing should fail). */
		err[0] = '\0';
		if (rep_finish(rep, &run, err, sizeof(err)) != 0 && err[0] == '\0')
			__builtin_trap();
		eng_free(eng);
		rep_free(rep);
	}
	fclose(null);
	return 0;
}
