/* text_conn.c - one connection in long form (--conn, --long): tcptrace -l's block, both ways. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/report/dirjson.h"
#include "analyze/report/text_int.h"

/*
 * Per connection: who and when, the options its SYNs carried, a tshark
 * line selecting exactly its frames, then every per-direction counter the
 * JSON has (dirjson.h drives both, so the two never drift apart), under
 * the JSON's names, client>server and server>client side by side with
 * their unit, then the detectors' lines and its events with their frames.
 */

enum { LONG_CELL = 48 };

struct long_row {
	const char *key;
	char v[SUM_DIR_COUNT][LONG_CELL];
	const char *unit;
};

/* A counter's unit from its JSON name: bytes, or none (a count). */
static const char *count_unit(const char *key)
{
	static const char *const bytes[] = {"_bytes", "_payload", "_window", "in_flight", "mss"};

	for (size_t k = 0; k < sizeof(bytes) / sizeof(bytes[0]); k++) {
		size_t n = strlen(key), m = strlen(bytes[k]);
		if (n >= m && strcmp(key + n - m, bytes[k]) == 0)
			return "B";
	}
	return "";
}

static void cell_u64(char *b, uint64_t v)
{
	snprintf(b, LONG_CELL, "%" PRIu64, v);
}

static void cell_known(char *b, bool known, uint64_t v)
{
	if (known)
		cell_u64(b, v);
	else
		snprintf(b, LONG_CELL, "-");
}

/* "tsval 6 ip_id 14": the rules that decided, "0" when none did. */
static void cell_by(char *b, const uint64_t by[SUM_BY_COUNT])
{
	size_t n = 0;

	b[0] = '\0';
	for (unsigned k = 0; k < SUM_BY_COUNT && n < LONG_CELL; k++)
		if (by[k])
			n += (size_t)snprintf(b + n, LONG_CELL - n, "%s%s %" PRIu64, n ? " " : "",
					      sum_reorder_by_name((enum sum_reorder_by)k), by[k]);
	if (!n)
		snprintf(b, LONG_CELL, "0");
}

/* "0.011/0.021/0.042 (3)": min/avg/max in ms and the samples. */
static void cell_rtt(char *b, const struct sum_rtt *r)
{
	if (!r->n) {
		snprintf(b, LONG_CELL, "-");
		return;
	}
	snprintf(b, LONG_CELL, "%.3f/%.3f/%.3f (%" PRIu64 ")", (double)r->min_ns / 1e6,
		 (double)(r->sum_ns / (int64_t)r->n) / 1e6, (double)r->max_ns / 1e6, r->n);
}

static void cell_rate(char *b, uint64_t bytes, int64_t dur_ns)
{
	if (dur_ns <= 0)
		snprintf(b, LONG_CELL, "-");
	else
		txt_human((uint64_t)((double)bytes * 8.0 / ((double)dur_ns / 1e9)), b, LONG_CELL);
}

/* The rows, one per member of dirjson.h, written as json.c writes them
 * (null: "-"); times relative to the connection's first packet. */
#define DJ_U64_T(key, m) cell_u64(v, d->m);
#define DJ_BY_T(key, m)	 cell_by(v, d->m);
#define DJ_RTT_T(key, m) cell_rtt(v, &d->m);
#define DJ_TS_T(key, m)                                                                            \
	if (d->packets)                                                                            \
		snprintf(v, LONG_CELL, "%.6f", (double)(d->m - c->first_ts) / 1e9);                \
	else                                                                                       \
		snprintf(v, LONG_CELL, "-");
/* Where the JSON writes null, "-". */
#define DJ_U64_PKT_T(key, m)  cell_known(v, d->packets, d->m);
#define DJ_U32_DATA_T(key, m) cell_known(v, d->data_packets, d->m);
#define DJ_U32_NZ_T(key, m)   cell_known(v, d->m, d->m);
#define DJ_ISN_T(key, m)      cell_known(v, d->isn_known, d->m);
#define DJ_WSCALE_T(key, m)   cell_known(v, d->m >= 0, (uint64_t)d->m);
#define DJ_AVG_PAYLOAD_T(key, m)                                                                   \
	if (d->data_packets)                                                                       \
		snprintf(v, LONG_CELL, "%.1f",                                                     \
			 (double)d->payload_bytes / (double)d->data_packets);                      \
	else                                                                                       \
		snprintf(v, LONG_CELL, "-");
#define DJ_GOODPUT_T(key, m)	cell_rate(v, d->unique_bytes, dur_ns);
#define DJ_THROUGHPUT_T(key, m) cell_rate(v, d->payload_bytes, dur_ns);
#define DJ_SEG_PER_ACK_T(key, m)                                                                   \
	if (peer->new_acks)                                                                        \
		snprintf(v, LONG_CELL, "%.2f", (double)d->data_packets / (double)peer->new_acks);  \
	else                                                                                       \
		snprintf(v, LONG_CELL, "-");
/* "1.74 (34/1957)": percent, the lost and the sent segments. */
#define DJ_LOSS_RATE_T(key, m)                                                                     \
	if (sum_loss_rate(d) >= 0)                                                                 \
		snprintf(v, LONG_CELL, "%.2f (%" PRIu64 "/%" PRIu64 ")", 100 * sum_loss_rate(d),   \
			 sum_lost_segments(d), sum_sent_segments(d));                              \
	else                                                                                       \
		snprintf(v, LONG_CELL, "-");
#define DJ_VANTAGE_T(key, m)                                                                       \
	snprintf(v, LONG_CELL, "%s", sum_vantage_name(sum_vantage_side(&c->path, (unsigned)k)));

static const char *kind_unit(const char *key, const char *kind)
{
	if (strcmp(kind, "DJ_RTT") == 0)
		return "ms (samples)";
	if (strcmp(kind, "DJ_TS") == 0)
		return "s";
	if (strcmp(kind, "DJ_GOODPUT") == 0 || strcmp(kind, "DJ_THROUGHPUT") == 0)
		return "bit/s";
	if (strcmp(kind, "DJ_AVG_PAYLOAD") == 0)
		return "B";
	if (strcmp(kind, "DJ_LOSS_RATE") == 0)
		return "% (lost/sent)";
	return count_unit(key);
}

#define DJ_T(name, kind, m)                                                                        \
	if (n < max) {                                                                             \
		rows[n].key = name;                                                                \
		rows[n].unit = kind_unit(name, #kind);                                             \
		for (int k = 0; k < SUM_DIR_COUNT; k++) {                                          \
			const struct sum_dir *d = &c->dir[k], *peer = &c->dir[!k];                 \
			char *v = rows[n].v[k];                                                    \
			(void)peer, (void)d;                                                       \
			kind##_T(name, m)                                                          \
		}                                                                                  \
		n++;                                                                               \
	}

static size_t dir_rows(const struct sum_conn *c, struct long_row *rows, size_t max)
{
	int64_t dur_ns = c->last_ts - c->first_ts;
	size_t n = 0;

	SUM_DIR_JSON(DJ_T)
	/* The detectors' members of the directions (their views' dir_key). */
	for (unsigned j = 0; j < DET_VIEW_COUNT && n < max; j++) {
		const struct det_view *dv = det_views[j];
		if (!dv->dir_key || !dv->dir_cell)
			continue;
		rows[n].key = dv->dir_key;
		rows[n].unit = "";
		for (unsigned k = 0; k < SUM_DIR_COUNT; k++)
			dv->dir_cell(rows[n].v[k], LONG_CELL, c, k);
		n++;
	}
	return n;
}

/* "2026-12-02 10:00:00.123456789": a capture time, UTC. */
static void fmt_utc(char *b, size_t len, int64_t ns)
{
	time_t s = (time_t)(ns / 1000000000);
	int64_t frac = ns % 1000000000;
	struct tm tm;

	if (frac < 0) {
		frac += 1000000000;
		s--;
	}
	if (!gmtime_r(&s, &tm)) {
		snprintf(b, len, "%.9f", (double)ns / 1e9);
		return;
	}
	size_t n = strftime(b, len, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(b + n, len - n, ".%09" PRId64 " UTC", frac);
}

/* The display filter of the connection's frames (rep_tshark_filter), as a
 * tshark command per input it spans. */
static void tshark_filter(FILE *out, const struct sum_conn *c, const struct rep_run *run)
{
	char f[REP_TSHARK_FILTER_LEN];
	const char *iface = run->nvantages > 1 && c->vantage < run->nvantages
				? run->vantage_names[c->vantage]
				: NULL;
	uint32_t lo = c->first_input < c->last_input ? c->first_input : c->last_input;
	uint32_t hi = c->first_input < c->last_input ? c->last_input : c->first_input;

	rep_tshark_filter(f, sizeof(f), &c->ident, iface);
	/* Frame numbers count within a file: one line per file it spans
	 * (inputs merged by time: its first file may come after its last). */
	for (uint32_t in = lo; in <= hi && in < run->ninputs; in++) {
		/* A live input: the file its first frame was written to. */
		const char *file = rep_frame_file(run, in, c->first_frame, NULL);
		if (file)
			fprintf(out, "  tshark -r '%s' -Y '%s'\n", file, f);
	}
}

/*
 * The path's round trip and the two loops it is made of, as seen from
 * here, and where that puts the capture point: the RTT rows below are
 * the capture point's own turnaround, microseconds at a receiver.
 */
static void write_path(FILE *out, const struct sum_conn *c)
{
	char p[32], lc[32], ls[32];
	const int64_t *loop = c->path.loop_ns;
	enum sum_vantage_side v = sum_vantage_side(&c->path, SUM_C2S);
	static const char *const where[SUM_VANTAGE_COUNT] = {
	    [SUM_VANTAGE_UNKNOWN] = "unknown (a loop is unknown)",
	    [SUM_VANTAGE_SENDER] = "next to the client",
	    [SUM_VANTAGE_RECEIVER] = "next to the server",
	    [SUM_VANTAGE_MIDDLE] = "in the middle",
	};

	rep_fmt_dur_known(p, sizeof(p), c->path.rtt_ns);
	rep_fmt_dur_known(lc, sizeof(lc), loop[SUM_C2S]);
	rep_fmt_dur_known(ls, sizeof(ls), loop[SUM_S2C]);
	fprintf(out,
		"  path RTT %s (capture -> client -> capture %s, capture -> server -> capture %s);"
		" capture point %s\n",
		p, lc, ls, where[v]);
}

static void write_head(FILE *out, const struct sum_conn *c, const struct rep_run *run)
{
	char cl[64], sv[64], t0[64], f0[PATH_MAX + 32], f1[PATH_MAX + 32], hs[32], dur[32];

	rep_format_endpoint(&c->client, c->client_port, cl, sizeof(cl));
	rep_format_endpoint(&c->server, c->server_port, sv, sizeof(sv));
	fprintf(out, "\nConnection %" PRIu64 ": %s > %s (client > server: %s)\n", c->id, cl, sv,
		c->roles_from_syn ? "who sent the SYN" : "guessed from the ports, no SYN seen");
	fmt_utc(t0, sizeof(t0), c->first_ts);
	rep_fmt_frame(f0, sizeof(f0), run, c->first_input, c->first_frame);
	rep_fmt_frame(f1, sizeof(f1), run, c->last_input, c->last_frame);
	rep_fmt_dur(dur, sizeof(dur), c->last_ts - c->first_ts);
	fprintf(out, "  first packet %s (frame %s), last frame %s, %.6f s (%s), state %s%s%s\n", t0,
		f0, f1, (double)(c->last_ts - c->first_ts) / 1e9, dur, sum_state_name(c->state),
		c->evicted ? ", evicted (statistics cover part of it)" : "",
		c->evicted_and_resumed ? ", evicted and resumed" : "");
	if (c->handshake_rtt_ns >= 0)
		rep_fmt_dur(hs, sizeof(hs), c->handshake_rtt_ns);
	else
		snprintf(hs, sizeof(hs), "unknown");
	fprintf(out, "  handshake RTT %s; SACK %s; timestamps %s; window scale %s", hs,
		c->sack_permitted ? "permitted" : "not permitted", c->timestamps ? "yes" : "no",
		c->wscale_known ? "known" : "unknown (windows unscaled)");
	if (c->queues_known) {
		fputs("; queues", out);
		for (unsigned q = 0; q < 64; q++)
			if (c->queue_mask & (1ull << q))
				fprintf(out, " %u", q);
		if (c->queues_overflow)
			fputs(" and some above 63", out);
	}
	if (run->nvantages > 1 && c->vantage < run->nvantages)
		fprintf(out, "; seen at @%u=%s", c->vantage, run->vantage_names[c->vantage]);
	fputs("\n", out);
	write_path(out, c);
	tshark_filter(out, c, run);
}

static void write_dirs(FILE *out, const struct sum_conn *c)
{
	struct long_row rows[64];
	size_t n = dir_rows(c, rows, sizeof(rows) / sizeof(rows[0]));
	int wk = 0, wv[SUM_DIR_COUNT] = {3, 3};

	for (size_t k = 0; k < n; k++) {
		int w = (int)strlen(rows[k].key);
		wk = w > wk ? w : wk;
		for (int j = 0; j < SUM_DIR_COUNT; j++) {
			w = (int)strlen(rows[k].v[j]);
			wv[j] = w > wv[j] ? w : wv[j];
		}
	}
	fprintf(out, "  %-*s  %*s  %*s\n", wk, "", wv[0], "c>s", wv[1], "s>c");
	for (size_t k = 0; k < n; k++) {
		fprintf(out, "  %-*s  %*s  %*s", wk, rows[k].key, wv[0], rows[k].v[0], wv[1],
			rows[k].v[1]);
		if (rows[k].unit[0])
			fprintf(out, "  %s", rows[k].unit);
		fputc('\n', out);
	}
}

/* The detectors' lines about it (the TUI's detail view), when they ran. */
static void write_detectors(FILE *out, const struct sum_conn *c, const struct rep_run *run)
{
	struct det_totals none = {0};
	char line[512];

	if (!run->detectors)
		return;
	for (unsigned k = 0; k < DET_VIEW_COUNT; k++) {
		const struct det_view *v = det_views[k];
		line[0] = '\0';
		if (v->detail)
			v->detail(line, sizeof(line), c, &none, true);
		size_t n = strlen(line);
		if (n && line[n - 1] == ':') /* "stalls 0 (0us lost):" and no more */
			line[--n] = '\0';
		if (n)
			fprintf(out, "  %s\n", line);
	}
}

static void write_event(FILE *out, const struct sum_conn *c, const struct sum_event *e,
			const struct rep_run *run)
{
	char f[PATH_MAX + 32], what[512];

	rep_fmt_frame(f, sizeof(f), run, e->input, e->frame_first);
	if (e->frame_last > e->frame_first) {
		size_t n = strlen(f);
		snprintf(f + n, sizeof(f) - n, "-%" PRIu64, e->frame_last);
	}
	det_describe_event(what, sizeof(what), e);
	fprintf(out, "    %+.6f  %-9s %s  %s\n", (double)(e->ts - c->first_ts) / 1e9, f,
		e->dir == SUM_C2S ? "c>s" : "s>c", what);
}

/* Its events and verdicts, merged in time order (rep_event_cmp). */
static void write_events(FILE *out, const struct sum_conn *c, struct rep_conn_events *ev,
			 struct rep_conn_events *vd, const struct rep_run *run)
{
	size_t i, iend = rep_events_of(ev, c->id, &i);
	size_t j, jend = rep_events_of(vd, c->id, &j);

	if (i == iend && j == jend) {
		fputs("  events: none\n", out);
		return;
	}
	fputs("  events (seconds since its first packet, frame, data direction):\n", out);
	while (i < iend || j < jend) {
		const struct sum_event *a = i < iend ? &ev->ev[ev->idx[i]] : NULL;
		const struct sum_event *b = j < jend ? &vd->ev[vd->idx[j]] : NULL;
		if (!b || (a && rep_event_cmp(a, b) <= 0)) {
			write_event(out, c, a, run);
			i++;
		} else {
			write_event(out, c, b, run);
			j++;
		}
	}
}

void txt_write_long(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	struct rep_conn_events ev, vd = {0};

	if (!d->text || !d->text->long_form)
		return;
	if (rep_group_events(&ev, d->events, d->nevents, REP_EV_OTHERS) < 0 ||
	    rep_group_events(&vd, d->verdicts, d->nverdicts, REP_EV_VERDICTS) < 0) {
		rep_conn_events_free(&ev);
		fputs("\n(out of memory for the long form)\n", out);
		return;
	}
	for (size_t k = 0; k < d->nconns; k++) {
		const struct sum_conn *c = rep_conn_at(d, k);
		write_head(out, c, run);
		write_dirs(out, c);
		write_detectors(out, c, run);
		write_events(out, c, &ev, &vd, run);
	}
	if (d->events_dropped || d->verdicts_dropped)
		fprintf(out,
			"\n(%" PRIu64 " events and %" PRIu64
			" per-frame verdicts not kept: --max-events; the lists above miss them)\n",
			d->events_dropped, d->verdicts_dropped);
	rep_conn_events_free(&ev);
	rep_conn_events_free(&vd);
}
