/* fuzz_analyze.c - libFuzzer target: arbitrary packets through the whole engine and reporters. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/engine/engine.h"
#include "analyze/report/report.h"
#include "common/clock.h"
#include "tui/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Input: one byte choosing the link type (low 6 bits, an index into
 * linktypes[]), then records of [2-byte length][1-byte time step][bytes],
 * all big endian. With the top bit of byte 0 set each record carries a
 * 2-byte wire extra after the time step: [length][step][extra][bytes],
 * wirelen = length + extra, so snaplen-cut frames keep a wire length that
 * their IP length fits in (a fixed extra cannot cover 1500-byte segments
 * cut to 128 bytes and 64 KiB GSO frames alike). A tiny flow table (8) forces
 * eviction and port-reuse paths; time steps of up to 254 ms with a 1 s
 * idle timeout exercise expiry; a step of 255 is a clock jump of 2^50 ns
 * (days). With bit 6 of byte 0 set (the link type index is the low 6
 * bits), a step of 255 instead sets the time to the 8 bytes after the step
 * (and wire extra): any int64, so the whole range reaches the engine,
 * negative times included (it takes those as 0: engine.h), and the ms steps
 * after a time near CLOCK_TS_MAX saturate as a reader's times do
 * (common/clock.h). The report is written to /dev/null as JSON and text, so reporters
 * see whatever the engine produced, and the dashboard's model (tui/model.c)
 * is fed the same results and snapshotted, as the TUI does.
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
static const uint32_t linktypes[] = {
    PKT_LINKTYPE_ETHERNET, PKT_LINKTYPE_RAW,  PKT_LINKTYPE_LINUX_SLL, PKT_LINKTYPE_LINUX_SLL2,
    PKT_LINKTYPE_NULL,	   PKT_LINKTYPE_IPV4, PKT_LINKTYPE_IPV6,
};

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

	for (int fmt = REP_TEXT; fmt <= REP_JSON; fmt++) {
		/* --frames and --frames-csv too, so the per-frame verdicts
		 * and their report paths are fuzzed with the rest. */
		struct rep_config rc = {.format = (enum rep_format)fmt,
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
		uint32_t lt =
		    linktypes[(data[0] & 0x3f) % (sizeof(linktypes) / sizeof(linktypes[0]))];
		bool wide = data[0] & 0x40;
		size_t rec_hdr = data[0] & 0x80 ? 5 : 3;
		size_t off = 1;
		uint64_t frame = 0;
		int64_t ts = 1000000000000ll;

		while (off + rec_hdr <= size) {
			size_t len = (size_t)data[off] << 8 | data[off + 1];
			uint32_t extra =
			    rec_hdr == 5 ? (uint32_t)data[off + 3] << 8 | data[off + 4] : 0;
			uint8_t step = data[off + 2];

			off += rec_hdr;
			if (step == 255 && wide) {
				uint64_t v = 0;

				for (int k = 0; k < 8 && off < size; k++)
					v = v << 8 | data[off++];
				ts = (int64_t)v;
			} else if (step == 255) {
				ts = clock_sat_add(ts, (int64_t)1 << 50);
			} else {
				ts = clock_sat_add(ts, (int64_t)step * 1000000);
			}
			if (len > size - off)
				len = size - off;
			struct pkt p = {.ts_ns = ts,
					.data = data + off,
					.caplen = (uint32_t)len,
					.wirelen = (uint32_t)len + extra,
					.linktype = lt,
					.frame = ++frame};
			eng_packet(eng, &p);
			off += len;
			if ((frame & 15) == 0) { /* a live snapshot now and then */
				eng_foreach_live(eng, tm_update_live, model);
				tm_snapshot_fill(model, &snap, frame / 16);
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
