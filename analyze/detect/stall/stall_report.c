/* stall_report.c - the stall detector's view: JSON, text, --fail-on metrics, TUI parts. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/det_view.h"
#include "analyze/readback/jsonin.h"
#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"
#include "common/clock.h"

const char *stall_class_name(enum stall_class c)
{
	static const char *const names[STALL_CLASS_COUNT] = {
	    [STALL_DELAYED_ACK] = "delayed_ack",
	    [STALL_SENDER_IDLE] = "sender_idle",
	    [STALL_ZERO_WINDOW] = "zero_window",
	    [STALL_RTO] = "rto",
	    [STALL_UNKNOWN] = "unknown",
	    [STALL_RWND_LIMITED] = "rwnd_limited",
	    [STALL_TLP] = "tlp",
	    [STALL_LOSS_RECOVERY] = "loss_recovery",
	};
	return (unsigned)c < STALL_CLASS_COUNT ? names[c] : "unknown";
}

static const int64_t stall_edges_ms[STALL_HIST_BUCKETS] = STALL_HIST_EDGES_MS;

enum {
	REP_STALL_MAX_GROUPS = 64, /* (conn, dir, class, reason) lines considered */
	REP_STALL_MAX_LINES = 12,  /* ... and printed */
	REP_STALL_FRAMES = 3,	   /* example frame pairs per line */
};

/* The connection's "stalls" object. */
static void stall_json_conn(struct jo_writer *w, const struct sum_conn *c)
{
	const struct stall_summary *s = &c->det.stall;
	const char *names[STALL_CLASS_COUNT];
	uint64_t by_class[STALL_CLASS_COUNT];

	for (unsigned k = 0; k < STALL_CLASS_COUNT; k++) {
		names[k] = stall_class_name((enum stall_class)k);
		by_class[k] = s->by_class[k];
	}
	jo_w_obj(w);
	jo_w_key(w, "ack_delay");
	if (s->ack_delay_n) {
		jo_w_obj(w);
		jo_ksec(w, "avg_s", s->ack_delay_sum_ns / (int64_t)s->ack_delay_n);
		jo_ksec(w, "max_s", s->ack_delay_max_ns);
		jo_ksec(w, "min_s", s->ack_delay_min_ns);
		jo_kint(w, "n", (int64_t)s->ack_delay_n);
		jo_w_obj_end(w);
	} else {
		jo_w_null(w);
	}
	jo_w_key(w, "by_class");
	jo_w_named_counts(w, names, by_class, STALL_CLASS_COUNT);
	jo_kint(w, "capture_gaps", s->capture_gaps);
	jo_w_key(w, "clusters");
	jo_w_obj(w);
	jo_kint(w, "delack_40ms", (int64_t)s->hist[STALL_HIST_DELACK40]);
	jo_kint(w, "timer_200ms", (int64_t)s->hist[STALL_HIST_TIMER200]);
	jo_w_obj_end(w);
	jo_kint(w, "count", s->count);
	jo_w_key(w, "histogram");
	jo_w_arr(w);
	for (unsigned k = 0; k < STALL_HIST_BUCKETS; k++)
		jo_w_int(w, s->hist[k]);
	jo_w_arr_end(w);
	jo_w_key(w, "histogram_edges_ms");
	jo_w_arr(w);
	for (unsigned k = 0; k < STALL_HIST_BUCKETS; k++)
		jo_w_int(w, stall_edges_ms[k]);
	jo_w_arr_end(w);
	jo_ksec(w, "max_s", s->max_ns);
	jo_kint(w, "recurring", s->recurring);
	jo_kint(w, "think_time", s->think_time);
	jo_ksec(w, "think_time_s", s->think_time_ns);
	jo_ksec(w, "time_s", s->time_ns);
	jo_kint(w, "timer_like", s->timer_like);
	jo_ksec(w, "timer_like_time_s", s->timer_like_ns);
	jo_w_obj_end(w);
}

static void stall_json_event(struct jo_fields *f, const struct sum_event *e)
{
	const struct stall_event *s = &e->u.stall;

	if (s->ack_delay_ns >= 0)
		jo_f_sec(f, "ack_delay_s", s->ack_delay_ns);
	else
		jo_f_null(f, "ack_delay_s");
	if (s->advice)
		jo_f_str(f, "advice", s->advice);
	else
		jo_f_null(f, "advice");
	jo_f_str(f, "class", stall_class_name((enum stall_class)s->cls));
	jo_f_str(f, "evidence", s->evidence ? s->evidence : "");
	jo_f_int(f, "in_flight", s->in_flight);
	jo_f_str(f, "reason", s->reason ? s->reason : "");
	jo_f_bool(f, "recurring", s->recurring);
	jo_f_int(f, "rwnd", (int64_t)s->rwnd);
	jo_f_bool(f, "timer_like", s->timer_like);
}

/* The reader's side of stall_json_conn() (tcpsift merge). */
static void stall_json_read_conn(struct ji_ctx *x, const json_t *v, struct sum_conn *c)
{
	struct stall_summary *s = &c->det.stall;
	const char *names[STALL_CLASS_COUNT];
	uint64_t by_class[STALL_CLASS_COUNT];
	int64_t hist[STALL_HIST_BUCKETS];
	json_t *ad = ji_get(x, v, "ack_delay");

	for (unsigned k = 0; k < STALL_CLASS_COUNT; k++)
		names[k] = stall_class_name((enum stall_class)k);
	if (ad && !json_is_null(ad)) {
		s->ack_delay_n = (uint32_t)ji_int(x, ad, "n");
		s->ack_delay_sum_ns =
		    ji_avg_sum(x, ji_sec(x, ad, "avg_s"), s->ack_delay_n, "ack_delay");
		s->ack_delay_max_ns = ji_sec(x, ad, "max_s");
		s->ack_delay_min_ns = ji_sec(x, ad, "min_s");
	}
	ji_named_counts(x, v, "by_class", names, by_class, STALL_CLASS_COUNT);
	for (unsigned k = 0; k < STALL_CLASS_COUNT; k++)
		s->by_class[k] = (uint32_t)by_class[k];
	s->capture_gaps = (uint32_t)ji_int(x, v, "capture_gaps");
	s->count = (uint32_t)ji_int(x, v, "count");
	ji_ints(x, v, "histogram", hist, STALL_HIST_BUCKETS);
	for (unsigned k = 0; k < STALL_HIST_BUCKETS; k++)
		s->hist[k] = (uint32_t)hist[k];
	s->max_ns = ji_sec(x, v, "max_s");
	s->recurring = (uint32_t)ji_int(x, v, "recurring");
	s->think_time = (uint32_t)ji_int(x, v, "think_time");
	s->think_time_ns = ji_sec(x, v, "think_time_s");
	s->time_ns = ji_sec(x, v, "time_s");
	s->timer_like = (uint32_t)ji_int(x, v, "timer_like");
	s->timer_like_ns = ji_sec(x, v, "timer_like_time_s");
}

/* The reader's side of stall_json_event(). */
static void stall_json_read_event(struct ji_ctx *x, const json_t *o, struct sum_event *e)
{
	struct stall_event *s = &e->u.stall;
	const char *names[STALL_CLASS_COUNT];

	for (unsigned k = 0; k < STALL_CLASS_COUNT; k++)
		names[k] = stall_class_name((enum stall_class)k);
	s->ack_delay_ns = ji_sec_or(x, o, "ack_delay_s", -1);
	s->advice = ji_str(x, o, "advice", true);
	s->cls = (uint8_t)ji_enum(x, o, "class", names, STALL_CLASS_COUNT);
	s->evidence = ji_str(x, o, "evidence", false);
	s->in_flight = (uint32_t)ji_int(x, o, "in_flight");
	s->reason = ji_str(x, o, "reason", false);
	s->recurring = ji_bool(x, o, "recurring");
	s->rwnd = (uint64_t)ji_int(x, o, "rwnd");
	s->timer_like = ji_bool(x, o, "timer_like");
}

static int stall_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* One text line: the stall events of one connection, direction, class and
 * reason (reasons are static strings: compared by address). */
struct stall_group {
	uint64_t conn;
	uint8_t dir, cls;
	bool timer_like;
	const char *reason, *evidence, *advice;
	uint32_t n, recurring;
};

static bool stall_in_group(const struct sum_event *e, const struct stall_group *g)
{
	return e->type == SUM_EV_STALL && e->conn == g->conn && e->dir == g->dir &&
	       e->u.stall.cls == g->cls && e->u.stall.reason == g->reason &&
	       e->u.stall.evidence == g->evidence;
}

/* Median of n values (sorted in place); -1 if none. */
static int64_t stall_median(int64_t *v, size_t n)
{
	if (!n)
		return -1;
	qsort(v, n, sizeof(*v), stall_cmp_i64);
	/* Halfway without the sum: two spans near INT64_MAX would overflow it. */
	return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* What one printed line needs from its group's events, gathered for all
 * lines in one pass over the events (they can be 100000). */
struct stall_line {
	int64_t *dur, *ack; /* durations and ACK delays >= 0, in event order */
	size_t ndur, nack;
	unsigned nframes;
	uint64_t frames[REP_STALL_FRAMES][2]; /* first and last frame of the first events */
	uint32_t input[REP_STALL_FRAMES];     /* ... and their input */
};

/* Which timer a median delay points at (the histogram's named clusters). */
static const char *stall_timer_note(int64_t ns)
{
	unsigned b = 0;

	while (b + 1 < STALL_HIST_BUCKETS && ns >= stall_edges_ms[b + 1] * 1000000)
		b++;
	if (b == STALL_HIST_DELACK40)
		return " (40 ms: the Linux delayed-ACK minimum, TCP_DELACK_MIN)";
	if (b == STALL_HIST_TIMER200)
		return " (200 ms: the Linux delayed-ACK maximum / RTO minimum / cork ceiling)";
	return "";
}

/* One group: what happened, what decided it, and the advice if any. */
static void stall_write_group(FILE *out, const struct stall_group *g, struct stall_line *l,
			      const struct rep_run *run)
{
	char dur[32], ack[32];

	rep_fmt_dur(dur, sizeof(dur), stall_median(l->dur, l->ndur));
	fprintf(out, "    conn %" PRIu64 " %s: %" PRIu32 " %s%s%s, %s%s (frames ", g->conn,
		sum_dir_name(g->dir), g->n,
		g->timer_like ? "timer-like pause" : stall_class_name((enum stall_class)g->cls),
		g->timer_like ? "" : " stall", g->n == 1 ? "" : "s", g->n == 1 ? "" : "median ",
		dur);
	for (unsigned k = 0; k < l->nframes; k++) {
		char f[PATH_MAX + 32];
		rep_fmt_frame(f, sizeof(f), run, l->input[k], l->frames[k][0]);
		fprintf(out, "%s%s-%" PRIu64, k ? ", " : "", f, l->frames[k][1]);
	}
	fprintf(out, "%s)\n", g->n > l->nframes ? ", ..." : "");
	if (g->cls == STALL_DELAYED_ACK) {
		int64_t m = stall_median(l->ack, l->nack);
		rep_fmt_dur(ack, sizeof(ack), m);
		fprintf(out, "      %sACK delay %s: %s%s\n", g->n == 1 ? "" : "median ", ack,
			g->reason, stall_timer_note(m));
	} else {
		fprintf(out, "      %s\n", g->reason);
	}
	if (g->evidence)
		fprintf(out, "      evidence: %s\n", g->evidence);
	if (g->advice)
		fprintf(out, "      %s: %s\n", g->timer_like ? "to decide" : "advice", g->advice);
	if (g->recurring)
		fprintf(out,
			"      %" PRIu32 " of them repeat a recent pause length within 2 %%: a "
			"kernel timer rather than a person\n",
			g->recurring);
}

/* The totals' lines: stalls by class, timer-like pauses. */
static void stall_text_totals(FILE *out, const struct stall_totals *t)
{
	if (t->count) {
		fprintf(out, "  stalls: %" PRIu64 " idle gap%s where TCP held data, %.3f s lost (",
			t->count, t->count == 1 ? "" : "s", (double)t->time_ns / 1e9);
		for (unsigned k = 0, n = 0; k < STALL_CLASS_COUNT; k++)
			if (t->by_class[k])
				fprintf(out, "%s%s %" PRIu64, n++ ? ", " : "",
					stall_class_name((enum stall_class)k), t->by_class[k]);
		fprintf(out, "; %" PRIu64 " near 40 ms, %" PRIu64 " near 200 ms)\n", t->c40,
			t->c200);
	}
	if (t->timer_like)
		fprintf(
		    out,
		    "  timer-like pauses: %" PRIu64 ", %.3f s, where everything was pushed and "
		    "ACKed but the pause matches the ~200 ms kernel timer (not counted as stalls: "
		    "ambiguous on the wire)\n",
		    t->timer_like, (double)t->timer_like_ns / 1e9);
}

/* The stall events grouped by connection, direction, class and words into
 * g[] (REP_STALL_MAX_GROUPS); those beyond it counted in *more. Returns how
 * many groups. */
static unsigned stall_group_events(const struct rep_data *d, struct stall_group *g, uint64_t *more)
{
	unsigned ng = 0;

	for (size_t k = 0; k < d->nevents; k++) {
		const struct sum_event *e = &d->events[k];
		unsigned j;
		if (e->type != SUM_EV_STALL)
			continue;
		for (j = 0; j < ng; j++)
			if (stall_in_group(e, &g[j]))
				break;
		if (j == ng) {
			if (ng == REP_STALL_MAX_GROUPS) {
				(*more)++;
				continue;
			}
			g[ng++] = (struct stall_group){.conn = e->conn,
						       .dir = e->dir,
						       .cls = e->u.stall.cls,
						       .timer_like = e->u.stall.timer_like,
						       .reason = e->u.stall.reason,
						       .evidence = e->u.stall.evidence,
						       .advice = e->u.stall.advice};
		}
		g[j].n++;
		g[j].recurring += e->u.stall.recurring;
	}
	return ng;
}

/* Each printed group's durations, ACK delays and frames into line[]. */
static void stall_fill_lines(const struct rep_data *d, const struct stall_group *g, unsigned nlines,
			     struct stall_line *line)
{
	for (size_t k = 0; k < d->nevents && nlines; k++) {
		const struct sum_event *e = &d->events[k];
		unsigned j;
		if (e->type != SUM_EV_STALL)
			continue;
		for (j = 0; j < nlines && !stall_in_group(e, &g[j]); j++)
			;
		if (j == nlines)
			continue;
		struct stall_line *l = &line[j];
		if (e->duration_ns >= 0)
			l->dur[l->ndur++] = e->duration_ns;
		if (e->u.stall.ack_delay_ns >= 0)
			l->ack[l->nack++] = e->u.stall.ack_delay_ns;
		if (l->nframes < REP_STALL_FRAMES) {
			l->frames[l->nframes][0] = e->frame_first;
			l->frames[l->nframes][1] = e->frame_last;
			l->input[l->nframes] = e->input;
			l->nframes++;
		}
	}
}

/* What looked like stalls and is not: think time, the capture's silences. */
static void stall_text_not(FILE *out, const struct stall_totals *t)
{
	if (t->think || t->capture_gaps) {
		fputs("  not stalls:", out);
		if (t->think)
			fprintf(out,
				" %" PRIu64
				" pause%s with everything sent pushed and ACKed (%.3f s "
				"of application think time, or a sender's own rate limit such as "
				"pacing)%s",
				t->think, t->think == 1 ? "" : "s", (double)t->think_ns / 1e9,
				t->capture_gaps ? ";" : "");
		if (t->capture_gaps)
			fprintf(out,
				" %" PRIu64 " silence%s with packets missing from the capture (not "
				"judged)",
				t->capture_gaps, t->capture_gaps == 1 ? "" : "s");
		fputc('\n', out);
	}
}

static void stall_text(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	const struct stall_totals *t = &d->tot.det.stall;
	struct stall_group g[REP_STALL_MAX_GROUPS];
	struct stall_line line[REP_STALL_MAX_LINES];
	unsigned ng, nlines;
	uint64_t more = 0;
	size_t nvals = 0;

	if (!t->count && !t->timer_like && !t->think && !t->capture_gaps)
		return;
	stall_text_totals(out, t);

	ng = stall_group_events(d, g, &more);
	/* The first groups are printed, the rest counted. */
	nlines = ng < REP_STALL_MAX_LINES ? ng : REP_STALL_MAX_LINES;
	for (unsigned j = nlines; j < ng; j++)
		more += g[j].n;
	for (unsigned j = 0; j < nlines; j++)
		nvals += 2 * (size_t)g[j].n;
	int64_t *buf = nvals ? malloc(nvals * sizeof(*buf)) : NULL;
	if (nvals && !buf)
		return;
	size_t off = 0;
	for (unsigned j = 0; j < nlines; j++) {
		line[j] = (struct stall_line){.dur = buf + off, .ack = buf + off + g[j].n};
		off += 2 * (size_t)g[j].n;
	}
	stall_fill_lines(d, g, nlines, line);
	for (unsigned j = 0; j < nlines; j++)
		stall_write_group(out, &g[j], &line[j], run);
	free(buf);
	if (more)
		fprintf(out, "    ... and %" PRIu64 " more stalls (see --json)\n", more);
	stall_text_not(out, t);
}

/* ---- totals, --fail-on, the TUI ---- */

static void stall_add_conn(struct det_totals *dt, const struct sum_conn *c)
{
	const struct stall_summary *s = &c->det.stall;
	struct stall_totals *t = &dt->stall;

	t->count += s->count;
	t->time_ns = clock_sat_add(t->time_ns, s->time_ns);
	t->conns += s->count != 0;
	for (unsigned k = 0; k < STALL_CLASS_COUNT; k++)
		t->by_class[k] += s->by_class[k];
	t->timer_like += s->timer_like;
	t->timer_like_ns = clock_sat_add(t->timer_like_ns, s->timer_like_ns);
	t->think += s->think_time;
	t->think_ns = clock_sat_add(t->think_ns, s->think_time_ns);
	t->capture_gaps += s->capture_gaps;
	t->c40 += s->hist[STALL_HIST_DELACK40];
	t->c200 += s->hist[STALL_HIST_TIMER200];
}

/* Timer-like pauses are counted apart from the stalls, as in analyze. */
static void stall_add_event(struct det_totals *dt, const struct sum_event *e)
{
	struct stall_totals *t = &dt->stall;

	if (e->u.stall.timer_like) {
		t->timer_like++;
		t->timer_like_ns = clock_sat_add(t->timer_like_ns, e->duration_ns);
		return;
	}
	t->count++;
	t->by_class[e->u.stall.cls % STALL_CLASS_COUNT]++;
	t->time_ns = clock_sat_add(t->time_ns, e->duration_ns);
}

static bool stall_any(const struct det_totals *t)
{
	return t->stall.count != 0;
}

static void stall_json_findings(struct jo_fields *f, const struct det_totals *t, bool known)
{
	if (!known) {
		jo_f_null(f, "stall_time_s");
		jo_f_null(f, "stalls");
		jo_f_null(f, "timer_like_pauses");
		return;
	}
	jo_f_sec(f, "stall_time_s", t->stall.time_ns);
	jo_f_int(f, "stalls", (int64_t)t->stall.count);
	jo_f_int(f, "timer_like_pauses", (int64_t)t->stall.timer_like);
}

static double stall_m_count(const struct det_totals *t)
{
	return (double)t->stall.count;
}

static double stall_m_time(const struct det_totals *t)
{
	return (double)t->stall.time_ns / 1e9;
}

static double stall_m_timer_like(const struct det_totals *t)
{
	return (double)t->stall.timer_like;
}

static const char *stall_view_class_name(unsigned k)
{
	return stall_class_name((enum stall_class)k);
}

/* A timer-like pause is not a stall (stall_add_event). */
static int stall_event_class(const struct sum_event *e)
{
	if (e->type != SUM_EV_STALL || e->u.stall.timer_like)
		return -1;
	return e->u.stall.cls % STALL_CLASS_COUNT;
}

static const struct det_metric stall_metrics[] = {
    {"stall", NULL, stall_m_count},
    {"stalls", NULL, stall_m_count},
    {"stall_time", "seconds", stall_m_time},
    {"timer_like", NULL, stall_m_timer_like},
};

static void stall_event_line(char *b, size_t n, const struct sum_event *e)
{
	char d[32];

	det_fmt_dur_short(d, sizeof(d), e->duration_ns);
	snprintf(b, n, "%s %s: %s",
		 e->u.stall.timer_like ? "timer-like pause"
				       : stall_class_name((enum stall_class)e->u.stall.cls),
		 d, e->u.stall.reason ? e->u.stall.reason : "");
}

static enum det_tone stall_event_tone(const struct sum_event *e)
{
	(void)e;
	return DET_TONE_WARN;
}

static void stall_header(char *b, size_t n, const struct det_totals *t, bool wide)
{
	char d[32];

	det_fmt_dur_short(d, sizeof(d), t->stall.time_ns);
	snprintf(b, n, wide ? "stalls %" PRIu64 " (%s)" : "stall %" PRIu64 "/%s", t->stall.count,
		 d);
}

/* STALL: how many; LOST: how long ("-" without any). */
static void stall_cells(struct det_cell *cell, const struct sum_conn *s,
			const struct det_totals *live, bool ended)
{
	const struct stall_summary *st = &s->det.stall;

	(void)live, (void)ended;
	cell[0].sort = st->count;
	cell[0].tone = st->count ? DET_TONE_WARN : DET_TONE_NONE;
	cell[1].sort = st->time_ns;
	if (st->count)
		det_fmt_dur_short(cell[1].text, sizeof(cell[1].text), st->time_ns);
	else
		snprintf(cell[1].text, sizeof(cell[1].text), "-");
	cell[1].tone = DET_TONE_NONE;
}

/* The histogram with the Linux timer clusters named, then the classes. */
static void stall_detail(char *b, size_t n, const struct sum_conn *s, const struct det_totals *live,
			 bool ended)
{
	static const char *const names[STALL_HIST_BUCKETS] = {
	    "<30ms", "40ms dack", "60-150ms", "200ms tmr", "250-500ms", "0.5-1s", "1-3s", ">3s"};
	const struct stall_summary *st = &s->det.stall;
	char d[32];
	size_t x;

	(void)live, (void)ended;
	det_fmt_dur_short(d, sizeof(d), st->time_ns);
	x = (size_t)snprintf(b, n, "stalls %" PRIu32 " (%s lost):", st->count, d);
	for (unsigned k = 0; k < STALL_HIST_BUCKETS && x < n; k++)
		if (st->hist[k])
			x += (size_t)snprintf(b + x, n - x, " %s %" PRIu32, names[k], st->hist[k]);
	for (unsigned k = 0, i = 0; k < STALL_CLASS_COUNT && x < n; k++)
		if (st->by_class[k])
			x += (size_t)snprintf(b + x, n - x, "%s%s %" PRIu32, i++ ? "  " : "  | ",
					      stall_class_name((enum stall_class)k),
					      st->by_class[k]);
}

const struct det_view stall_view = {
    .name = "stall",
    .conn_key = "stalls",
    .json_conn = stall_json_conn,
    .json_event = stall_json_event,
    .json_findings = stall_json_findings,
    .json_read_conn = stall_json_read_conn,
    .json_read_event = stall_json_read_event,
    .add_conn = stall_add_conn,
    .add_event = stall_add_event,
    .any = stall_any,
    .text = stall_text,
    .metrics = stall_metrics,
    .nmetrics = sizeof(stall_metrics) / sizeof(stall_metrics[0]),
    .event_line = stall_event_line,
    .event_tone = stall_event_tone,
    .header_tone = DET_TONE_WARN,
    .header = stall_header,
    .ncolumns = 2,
    .columns = {{"STALL", 5, 0, true}, {"LOST", 6, 3, true}},
    .cells = stall_cells,
    .detail = stall_detail,
    .timeline_mark = 'S',
    .timeline_span = true,
    .nclasses = STALL_CLASS_COUNT,
    .class_name = stall_view_class_name,
    .event_class = stall_event_class,
};
