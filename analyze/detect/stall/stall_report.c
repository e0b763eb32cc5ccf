/* stall_report.c - JSON and text for the stall detector's results. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"

static const int64_t stall_edges_ms[STALL_HIST_BUCKETS] = STALL_HIST_EDGES_MS;

enum {
	REP_STALL_MAX_GROUPS = 64, /* (conn, dir, class, reason) lines considered */
	REP_STALL_MAX_LINES = 12,  /* ... and printed */
	REP_STALL_FRAMES = 3,	   /* example frame pairs per line */
};

/* The connection's "stalls" object. */
void rep_jw_stall(struct jo_writer *w, const struct stall_summary *s)
{
	const char *names[STALL_CLASS_COUNT];
	uint64_t by_class[STALL_CLASS_COUNT];

	for (unsigned k = 0; k < STALL_CLASS_COUNT; k++) {
		names[k] = sum_stall_class_name((enum stall_class)k);
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

void rep_jw_stall_event(struct jo_fields *f, const struct sum_event *e)
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
	jo_f_str(f, "class", sum_stall_class_name((enum stall_class)s->cls));
	jo_f_str(f, "evidence", s->evidence ? s->evidence : "");
	jo_f_int(f, "in_flight", s->in_flight);
	jo_f_str(f, "reason", s->reason ? s->reason : "");
	jo_f_bool(f, "recurring", s->recurring);
	jo_f_int(f, "rwnd", (int64_t)s->rwnd);
	jo_f_bool(f, "timer_like", s->timer_like);
}

/* "850 us", "40.1 ms", "1.36 s". */
static void stall_fmt_dur(char *buf, size_t len, int64_t ns)
{
	if (ns < 1000000)
		snprintf(buf, len, "%" PRId64 " us", ns / 1000);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
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
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* What one printed line needs from its group's events, gathered for all
 * lines in one pass over the events (they can be 100000). */
struct stall_line {
	int64_t *dur, *ack; /* durations and ACK delays >= 0, in event order */
	size_t ndur, nack;
	unsigned nframes;
	uint64_t frames[REP_STALL_FRAMES][2]; /* first and last frame of the first events */
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
static void stall_write_group(FILE *out, const struct stall_group *g, struct stall_line *l)
{
	char dur[32], ack[32];

	stall_fmt_dur(dur, sizeof(dur), stall_median(l->dur, l->ndur));
	fprintf(out, "    conn %" PRIu64 " %s: %" PRIu32 " %s%s%s, %s%s (frames ", g->conn,
		g->dir == SUM_C2S ? "c2s" : "s2c", g->n,
		g->timer_like ? "timer-like pause" : sum_stall_class_name((enum stall_class)g->cls),
		g->timer_like ? "" : " stall", g->n == 1 ? "" : "s", g->n == 1 ? "" : "median ",
		dur);
	for (unsigned k = 0; k < l->nframes; k++)
		fprintf(out, "%s%" PRIu64 "-%" PRIu64, k ? ", " : "", l->frames[k][0],
			l->frames[k][1]);
	fprintf(out, "%s)\n", g->n > l->nframes ? ", ..." : "");
	if (g->cls == STALL_DELAYED_ACK) {
		int64_t m = stall_median(l->ack, l->nack);
		stall_fmt_dur(ack, sizeof(ack), m);
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

/* Sums over the connections: the 40/200 ms clusters, and what was not a stall. */
struct stall_tally {
	uint64_t c40, c200, timer_like, think, capture_gaps;
	int64_t timer_like_ns, think_ns;
};

static void stall_tally(const struct rep_data *d, struct stall_tally *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t k = 0; k < d->nconns; k++) {
		const struct stall_summary *s = &d->conns[k].det.stall;
		t->c40 += s->hist[STALL_HIST_DELACK40];
		t->c200 += s->hist[STALL_HIST_TIMER200];
		t->timer_like += s->timer_like;
		t->timer_like_ns += s->timer_like_ns;
		t->think += s->think_time;
		t->think_ns += s->think_time_ns;
		t->capture_gaps += s->capture_gaps;
	}
}

void rep_text_stall(FILE *out, const struct rep_data *d)
{
	const struct rep_totals *t = &d->tot;
	struct stall_group g[REP_STALL_MAX_GROUPS];
	struct stall_line line[REP_STALL_MAX_LINES];
	unsigned ng = 0, nlines;
	uint64_t more = 0;
	size_t nvals = 0;
	struct stall_tally sum;

	stall_tally(d, &sum);
	if (!t->stalls && !sum.timer_like && !sum.think && !sum.capture_gaps)
		return;
	if (t->stalls) {
		fprintf(out, "  stalls: %" PRIu64 " idle gap%s where TCP held data, %.3f s lost (",
			t->stalls, t->stalls == 1 ? "" : "s", (double)t->stall_ns / 1e9);
		for (unsigned k = 0, n = 0; k < STALL_CLASS_COUNT; k++)
			if (t->stall_by_class[k])
				fprintf(out, "%s%s %" PRIu64, n++ ? ", " : "",
					sum_stall_class_name((enum stall_class)k),
					t->stall_by_class[k]);
		fprintf(out, "; %" PRIu64 " near 40 ms, %" PRIu64 " near 200 ms)\n", sum.c40,
			sum.c200);
	}
	if (sum.timer_like)
		fprintf(
		    out,
		    "  timer-like pauses: %" PRIu64 ", %.3f s, where everything was pushed and "
		    "ACKed but the pause matches the ~200 ms kernel timer (not counted as stalls: "
		    "ambiguous on the wire)\n",
		    sum.timer_like, (double)sum.timer_like_ns / 1e9);

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
				more++;
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
			l->nframes++;
		}
	}
	for (unsigned j = 0; j < nlines; j++)
		stall_write_group(out, &g[j], &line[j]);
	free(buf);
	if (more)
		fprintf(out, "    ... and %" PRIu64 " more stalls (see --json)\n", more);
	if (sum.think || sum.capture_gaps) {
		fputs("  not stalls:", out);
		if (sum.think)
			fprintf(out,
				" %" PRIu64
				" pause%s with everything sent pushed and ACKed (%.3f s "
				"of application think time, or a sender's own rate limit such as "
				"pacing)%s",
				sum.think, sum.think == 1 ? "" : "s", (double)sum.think_ns / 1e9,
				sum.capture_gaps ? ";" : "");
		if (sum.capture_gaps)
			fprintf(out,
				" %" PRIu64 " silence%s with packets missing from the capture (not "
				"judged)",
				sum.capture_gaps, sum.capture_gaps == 1 ? "" : "s");
		fputc('\n', out);
	}
}
