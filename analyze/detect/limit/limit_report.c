/* limit_report.c - the limit detector's view: JSON, text, the TUI's column and detail line. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/report/det_view.h"
#include "analyze/readback/jsonin.h"
#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"
#include "common/clock.h"

enum {
	LIMIT_TEXT_LINES = 24, /* connection-directions the text report prints */
};

const char *limit_class_name(enum limit_class c)
{
	static const char *const names[LIMIT_COUNT] = {
	    [LIMIT_RECEIVER_WINDOW] = "receiver_window", [LIMIT_CONGESTION] = "congestion",
	    [LIMIT_SENDER_BUFFER] = "sender_buffer",	 [LIMIT_SENDER_APP] = "sender_app",
	    [LIMIT_RECEIVER_APP] = "receiver_app",	 [LIMIT_STALL] = "stall",
	    [LIMIT_SLOW_START] = "slow_start",		 [LIMIT_BOTTLENECK] = "bottleneck",
	};
	return (unsigned)c < LIMIT_COUNT ? names[c] : "none";
}

const char *limit_class_words(enum limit_class c)
{
	static const char *const words[LIMIT_COUNT] = {
	    [LIMIT_RECEIVER_WINDOW] = "receiver window",
	    [LIMIT_CONGESTION] = "congestion",
	    [LIMIT_SENDER_BUFFER] = "sender buffer",
	    [LIMIT_SENDER_APP] = "sending application",
	    [LIMIT_RECEIVER_APP] = "receiving application",
	    [LIMIT_STALL] = "stalls",
	    [LIMIT_SLOW_START] = "slow start",
	    [LIMIT_BOTTLENECK] = "bottleneck",
	};
	return (unsigned)c < LIMIT_COUNT ? words[c] : "none";
}

/* The TUI's short names (the column is 8 wide). */
static const char *limit_class_short(enum limit_class c)
{
	static const char *const s[LIMIT_COUNT] = {
	    [LIMIT_RECEIVER_WINDOW] = "rwnd", [LIMIT_CONGESTION] = "cong",
	    [LIMIT_SENDER_BUFFER] = "sndbuf", [LIMIT_SENDER_APP] = "snd-app",
	    [LIMIT_RECEIVER_APP] = "rcv-app", [LIMIT_STALL] = "stall",
	    [LIMIT_SLOW_START] = "slowstrt",  [LIMIT_BOTTLENECK] = "bneck",
	};
	return (unsigned)c < LIMIT_COUNT ? s[c] : "-";
}

static int64_t limit_total(const struct limit_dir *d)
{
	int64_t t = 0;

	for (unsigned k = 0; k < LIMIT_COUNT; k++)
		t = clock_sat_add(t, d->ns[k]);
	return t;
}

static double limit_share(const struct limit_dir *d, unsigned k)
{
	int64_t t = limit_total(d);

	return t > 0 ? (double)d->ns[k] / (double)t : 0.0;
}

/*
 * A direction as this capture point can tell it. Away from S
 * (limit_dir.sender_hidden: a receiver-side or middle capture) its send
 * buffer, application and congestion window look alike -- data arrives at
 * the rate S sends it, a path away -- so they are one class, "the sender":
 * the view's LIMIT_V_SENDER, after the real classes (LIMIT_NONE is
 * LIMIT_COUNT).
 */
#define LIMIT_V_SENDER (LIMIT_COUNT + 1)
#define LIMIT_V_COUNT  (LIMIT_COUNT + 2)

static int64_t limit_v_ns(const struct limit_dir *d, unsigned k)
{
	if (k == LIMIT_V_SENDER)
		return d->sender_hidden ? clock_sat_add(clock_sat_add(d->ns[LIMIT_SENDER_BUFFER],
								      d->ns[LIMIT_SENDER_APP]),
							d->ns[LIMIT_SLOW_START])
					: 0;
	if (k >= LIMIT_COUNT || (d->sender_hidden && limit_sender_class((enum limit_class)k)))
		return 0;
	return d->ns[k];
}

/* The view's dominant class, LIMIT_NONE without data-transfer time. */
static unsigned limit_v_dominant(const struct limit_dir *d)
{
	unsigned best = LIMIT_NONE;

	for (unsigned k = 0; k < LIMIT_V_COUNT; k++)
		if (limit_v_ns(d, k) > 0 &&
		    (best == LIMIT_NONE || limit_v_ns(d, k) > limit_v_ns(d, best)))
			best = k;
	return best;
}

static double limit_v_share(const struct limit_dir *d, unsigned k)
{
	int64_t t = limit_total(d);

	return t > 0 ? (double)limit_v_ns(d, k) / (double)t : 0.0;
}

static const char *limit_v_name(unsigned k)
{
	return k == LIMIT_V_SENDER ? "sender" : limit_class_name((enum limit_class)k);
}

static const char *limit_v_words(unsigned k)
{
	return k == LIMIT_V_SENDER ? "the sender (send buffer, application or congestion window: "
				     "not visible from this capture point)"
				   : limit_class_words((enum limit_class)k);
}

static const char *limit_advice(const struct limit_dir *d, unsigned k, const struct sum_dir *sd);

/* ---- JSON ---- */

JO_KEYED void limit_w_sec_or_null(struct jo_writer *w, const char *key, int64_t ns)
{
	if (ns > 0)
		jo_ksec(w, key, ns);
	else
		jo_knull(w, key);
}

/* The classes in name order (a JSON object's keys are sorted; the test
 * builds' writer fails on any other): literal keys, which the writer
 * copies whole instead of measuring and checking each. */
#define LIMIT_BY_NAME(X)                                                                           \
	X("bottleneck", LIMIT_BOTTLENECK)                                                          \
	X("congestion", LIMIT_CONGESTION)                                                          \
	X("receiver_app", LIMIT_RECEIVER_APP)                                                      \
	X("receiver_window", LIMIT_RECEIVER_WINDOW)                                                \
	X("sender_app", LIMIT_SENDER_APP)                                                          \
	X("sender_buffer", LIMIT_SENDER_BUFFER)                                                    \
	X("slow_start", LIMIT_SLOW_START)                                                          \
	X("stall", LIMIT_STALL)
#define LIMIT_ONE(name, k) +1
_Static_assert(0 LIMIT_BY_NAME(LIMIT_ONE) == LIMIT_COUNT, "LIMIT_BY_NAME names every class");
#undef LIMIT_ONE

/* The classes' names as JSON strings, quoted: the timeline writes one a
 * slice (strlen, a scan for escapes and a copy each were 200
 * instructions a name). */
static const struct {
	const char *q;
	uint8_t n;
} limit_qname[LIMIT_COUNT] = {
#define LIMIT_QNAME(name, k) [k] = {"\"" name "\"", sizeof(name) + 1},
    LIMIT_BY_NAME(LIMIT_QNAME)
#undef LIMIT_QNAME
};

/* A direction's "limited_by": null when it had no data-transfer time. */
static void limit_json_dir(struct jo_writer *w, const struct sum_conn *c, unsigned dir)
{
	const struct limit_dir *d = &c->det.limit.d[dir % SUM_DIR_COUNT];
	unsigned dom = limit_v_dominant(d);

	if (dom == LIMIT_NONE) {
		jo_w_null(w);
		return;
	}
	jo_w_obj(w);
	const char *advice = limit_advice(d, dom, &c->dir[dir % SUM_DIR_COUNT]);
	if (advice)
		jo_kstr(w, "advice", advice);
	else
		jo_knull(w, "advice");
	jo_kstr(w, "dominant", limit_v_name(dom)); /* (a class, or "sender") */
	jo_ksec(w, "idle_s", d->idle_ns);
	jo_kint(w, "idles", d->idles);
	jo_kint(w, "plateau", d->plateau);
	jo_kint(w, "recoveries", d->recoveries);
	limit_w_sec_or_null(w, "rtt_min_s", d->rtt_min_ns);
	jo_kint(w, "rwnd_max", (int64_t)d->rwnd_max);
	jo_kint(w, "rwnd_min_full", (int64_t)d->rwnd_min_full);
	jo_kbool(w, "sender_visible", d->sender_hidden == 0);
	jo_w_key(w, "shares");
	jo_w_obj(w);
#define LIMIT_SHARE_W(name, k) jo_kreal(w, name, limit_share(d, k));
	LIMIT_BY_NAME(LIMIT_SHARE_W)
#undef LIMIT_SHARE_W
	jo_w_obj_end(w);
	jo_ksec(w, "slice_s", d->width);
	jo_w_key(w, "slices");
	jo_w_arr(w);
	for (unsigned k = 0; k < d->nslices && k < LIMIT_SLICES; k++) {
		if (d->slice[k] < LIMIT_COUNT)
			jo_w_quoted(w, limit_qname[d->slice[k]].q, limit_qname[d->slice[k]].n);
		else
			jo_w_null(w);
	}
	jo_w_arr_end(w);
	limit_w_sec_or_null(w, "srtt_max_s", d->srtt_max_ns);
	jo_kint(w, "stalls", d->stalls);
	jo_ksec(w, "start_ts", d->t0);
	jo_w_key(w, "time_s");
	jo_w_obj(w);
#define LIMIT_TIME_W(name, k) jo_ksec(w, name, d->ns[k]);
	LIMIT_BY_NAME(LIMIT_TIME_W)
#undef LIMIT_TIME_W
	jo_w_obj_end(w);
	jo_ksec(w, "zero_window_s", d->zero_window_ns);
	jo_w_obj_end(w);
}

/* The reader's side (tcpsift merge): the times, slices and evidence. */
static void limit_json_read_dir(struct ji_ctx *x, const json_t *v, struct sum_conn *c, unsigned dir)
{
	struct limit_dir *d = &c->det.limit.d[dir % SUM_DIR_COUNT];
	const char *names[LIMIT_COUNT + 1];
	json_t *t, *sl;

	memset(d, 0, sizeof(*d));
	if (json_is_null(v))
		return;
	for (unsigned k = 0; k < LIMIT_COUNT; k++)
		names[k] = limit_class_name((enum limit_class)k);
	names[LIMIT_COUNT] = NULL;
	d->idle_ns = ji_sec(x, v, "idle_s");
	d->idles = (uint32_t)ji_int(x, v, "idles");
	d->plateau = (uint32_t)ji_int(x, v, "plateau");
	d->recoveries = (uint32_t)ji_int(x, v, "recoveries");
	d->rtt_min_ns = ji_sec_or(x, v, "rtt_min_s", 0);
	d->rwnd_max = (uint64_t)ji_int(x, v, "rwnd_max");
	d->rwnd_min_full = (uint64_t)ji_int(x, v, "rwnd_min_full");
	/* (absent from reports before it was written: visible) */
	d->sender_hidden = json_is_false(json_object_get(v, "sender_visible")) ? 1 : 0;
	d->width = ji_sec(x, v, "slice_s");
	d->srtt_max_ns = ji_sec_or(x, v, "srtt_max_s", 0);
	d->stalls = (uint32_t)ji_int(x, v, "stalls");
	d->t0 = ji_sec(x, v, "start_ts");
	d->zero_window_ns = ji_sec(x, v, "zero_window_s");
	t = ji_get(x, v, "time_s");
	for (unsigned k = 0; t && k < LIMIT_COUNT; k++)
		d->ns[k] = ji_sec(x, t, names[k]);
	sl = ji_get(x, v, "slices");
	if (sl && !json_is_array(sl))
		ji_fail(x, "\"slices\" is not an array");
	for (size_t k = 0; sl && k < json_array_size(sl) && k < LIMIT_SLICES; k++) {
		json_t *e = json_array_get(sl, k);
		unsigned cls = LIMIT_NONE;
		for (unsigned j = 0; json_is_string(e) && j < LIMIT_COUNT; j++)
			if (!strcmp(json_string_value(e), names[j]))
				cls = j;
		d->slice[k] = (uint8_t)cls;
		d->nslices = (uint8_t)(k + 1);
	}
}

/* ---- text ---- */

/* The evidence for class k of d, in words ("" when there is none to give). */
static void limit_evidence(char *b, size_t n, const struct sum_conn *c, unsigned dir, unsigned k)
{
	const struct limit_dir *d = &c->det.limit.d[dir];
	char who[64], t[32], t2[32];

	if (dir == SUM_C2S)
		rep_format_endpoint(&c->server, c->server_port, who, sizeof(who));
	else
		rep_format_endpoint(&c->client, c->client_port, who, sizeof(who));
	b[0] = '\0';
	switch (k) {
	case LIMIT_RECEIVER_WINDOW:
		snprintf(b, n,
			 "in flight filled the receiver's open window, at least %" PRIu64
			 " B of max %" PRIu64 " B",
			 d->rwnd_min_full, d->rwnd_max);
		break;
	case LIMIT_RECEIVER_APP:
		rep_fmt_dur(t, sizeof(t), d->zero_window_ns);
		if (d->zero_window_ns > 0)
			snprintf(b, n,
				 "the reader at %s is slow: window 0 for %s, or shrunk below half "
				 "of its %" PRIu64 " B while data was ACKed",
				 who, t, d->rwnd_max);
		else
			snprintf(b, n,
				 "the reader at %s is slow: its window shrank below half of its "
				 "%" PRIu64 " B while data was ACKed",
				 who, d->rwnd_max);
		break;
	case LIMIT_CONGESTION:
		snprintf(b, n,
			 "%" PRIu32 " loss-recovery episode%s, in flight below the window after "
			 "them",
			 d->recoveries, rep_plural(d->recoveries));
		break;
	case LIMIT_SENDER_BUFFER:
		snprintf(b, n,
			 "in flight plateau at up to %" PRIu32
			 " B below both windows, no loss, the sender never idle: a full "
			 "SO_SNDBUF, or an application writing just as fast as ACKs free room "
			 "(packets cannot tell; the sender's TCP_INFO tcpi_sndbuf_limited can)",
			 d->plateau);
		break;
	case LIMIT_SENDER_APP:
		snprintf(b, n,
			 "the sender idle with nothing in flight %" PRIu32
			 " time%s, or its sends not started by ACKs: nothing to send",
			 d->idles, rep_plural(d->idles));
		break;
	case LIMIT_STALL:
		snprintf(b, n, "%" PRIu32 " TCP-held stall%s (see stalls)", d->stalls,
			 rep_plural(d->stalls));
		break;
	case LIMIT_SLOW_START:
		snprintf(b, n, "the flight still growing: the first RTTs, or too short to tell");
		break;
	case LIMIT_BOTTLENECK:
		rep_fmt_dur(t, sizeof(t), d->rtt_min_ns);
		rep_fmt_dur(t2, sizeof(t2), d->srtt_max_ns);
		snprintf(b, n,
			 "a full flight with no loss while the RTT rose from %s to %s: a queue at "
			 "the path's bottleneck",
			 t, t2);
		break;
	default:
		break;
	}
}

/* What to do about the dominant limit k (a view class) of d, and nothing
 * else (NULL: none); sd: the direction's counters. A receive window that
 * was filled and then grew past twice that size was still growing (Linux's
 * receive-buffer autotuning, tcp_rcv_space_adjust()): the ramp of a young
 * connection, where an SO_RCVBUF would only stop the growth. */
static const char *limit_advice(const struct limit_dir *d, unsigned k, const struct sum_dir *sd)
{
	switch (k) {
	case LIMIT_V_SENDER:
		return "a capture at the sender, or its TCP_INFO (ss -ti: tcpi_sndbuf_limited, "
		       "tcpi_busy_time), decides between its send buffer, its application and its "
		       "congestion window";
	case LIMIT_RECEIVER_WINDOW:
		if (d->rwnd_min_full && d->rwnd_min_full * 2 <= d->rwnd_max)
			return NULL;
		return "raise the receiver's buffer (SO_RCVBUF, net.ipv4.tcp_rmem); nothing at the "
		       "sender would help";
	case LIMIT_RECEIVER_APP:
		return "the receiving application (or its CPU) reads too slowly: read more per "
		       "call or more often; a larger buffer only delays the full window";
	case LIMIT_CONGESTION:
		/* RFC 3708: a retransmission D-SACKed was not needed. */
		if (sd->retrans && sd->spurious_dsack * 2 >= sd->retrans)
			return "most retransmissions were spurious (the receiver's D-SACKs: the "
			       "data "
			       "had arrived, reordered on the path), so reordering, not loss, held "
			       "the "
			       "congestion window down: a path that keeps order, or a wider "
			       "reordering "
			       "window (RACK, net.ipv4.tcp_recovery) at the sender";
		return "loss on the path holds the congestion window down: find the loss "
		       "(retransmissions above); buffer sizes would not help";
	case LIMIT_SENDER_BUFFER:
		return "if the sender's TCP_INFO confirms (tcpi_sndbuf_limited, ss -ti), raise "
		       "SO_SNDBUF / net.ipv4.tcp_wmem there";
	case LIMIT_BOTTLENECK:
		return "the path's capacity is the limit: nothing to tune at the ends";
	default:
		return NULL;
	}
}

/* "receiver window 71 % (evidence), congestion 12 %": the classes of at
 * least 1 %, largest first, the dominant with its evidence. */
static void limit_line(char *b, size_t n, const struct sum_conn *c, unsigned dir, bool evidence)
{
	const struct limit_dir *d = &c->det.limit.d[dir];
	bool done[LIMIT_V_COUNT] = {false};
	size_t x = 0;

	b[0] = '\0';
	done[LIMIT_NONE] = true;
	for (unsigned i = 0; i < LIMIT_V_COUNT && x < n; i++) {
		unsigned best = LIMIT_NONE;
		for (unsigned k = 0; k < LIMIT_V_COUNT; k++)
			if (!done[k] &&
			    (best == LIMIT_NONE || limit_v_ns(d, k) > limit_v_ns(d, best)))
				best = k;
		if (best == LIMIT_NONE)
			break;
		done[best] = true;
		double s = limit_v_share(d, best);
		if (s < 0.01 && i)
			break;
		x += (size_t)snprintf(b + x, n - x, "%s%s %.0f %%", i ? ", " : "",
				      limit_v_words(best), s * 100.0);
		if (!i && evidence && x < n) {
			char ev[320];
			limit_evidence(ev, sizeof(ev), c, dir, best);
			if (ev[0])
				x += (size_t)snprintf(b + x, n - x, " (%s)", ev);
		}
	}
}

static void limit_text(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	unsigned lines = 0;
	uint64_t more = 0, app_only = 0, short_only = 0;

	(void)run;
	for (size_t i = 0; i < d->nconns; i++) {
		const struct sum_conn *c = rep_conn_at(d, i);
		for (unsigned dir = 0; dir < SUM_DIR_COUNT; dir++) {
			const struct limit_dir *ld = &c->det.limit.d[dir];
			enum limit_class dom = limit_dominant(ld);
			char line[768], dur[32];
			if (dom == LIMIT_NONE)
				continue;
			/* A direction that only ever waited for its own
			 * application (requests, the turns of an interactive
			 * exchange): nothing in TCP to explain; counted. */
			if (dom == LIMIT_SENDER_APP && limit_share(ld, dom) >= 0.995) {
				app_only++;
				continue;
			}
			/* One that ended in its first round trips (a request in
			 * a segment or two): too short to tell; counted. */
			if (dom == LIMIT_SLOW_START && limit_share(ld, dom) >= 0.995) {
				short_only++;
				continue;
			}
			if (lines == LIMIT_TEXT_LINES) {
				more++;
				continue;
			}
			if (!lines++)
				fputs("  what limited the transfers (share of each direction's "
				      "data-transfer time):\n",
				      out);
			limit_line(line, sizeof(line), c, dir, true);
			rep_fmt_dur(dur, sizeof(dur), limit_total(ld));
			fprintf(out, "    conn %" PRIu64 " %s, %s: %s\n", c->id,
				dir == SUM_C2S ? "c>s" : "s>c", dur, line);
			const char *a = limit_advice(ld, limit_v_dominant(ld), &c->dir[dir]);
			if (a)
				fprintf(out, "      advice: %s\n", a);
		}
	}
	if (more)
		fprintf(out, "    ... and %" PRIu64 " more directions (see --json)\n", more);
	if (lines) {
		if (app_only)
			fprintf(out,
				"    %" PRIu64 " more direction%s only waited for the sending "
				"application (see --json)\n",
				app_only, rep_plural(app_only));
		if (short_only)
			fprintf(
			    out,
			    "    %" PRIu64 " more direction%s ended in %s first round trips, too "
			    "short to tell (see --json)\n",
			    short_only, rep_plural(short_only), short_only == 1 ? "its" : "their");
		return;
	}
	if (app_only)
		fprintf(out,
			"  what limited the transfers: only the sending application (%" PRIu64
			" direction%s%s; see --json)\n",
			app_only, rep_plural(app_only),
			short_only ? ", and directions too short to tell" : "");
	else if (short_only)
		fprintf(out,
			"  what limited the transfers: too short to tell (%" PRIu64
			" direction%s ended in %s first round trips; see --json)\n",
			short_only, rep_plural(short_only), short_only == 1 ? "its" : "their");
}

/* The long form's cell: the dominant limit and its share. */
static void limit_dir_cell(char *b, size_t n, const struct sum_conn *c, unsigned dir)
{
	const struct limit_dir *d = &c->det.limit.d[dir % SUM_DIR_COUNT];
	unsigned dom = limit_v_dominant(d);

	if (dom == LIMIT_NONE)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%s(%.0f%%)", limit_v_name(dom), 100.0 * limit_v_share(d, dom));
}

/* ---- totals, the TUI ---- */

static void limit_add_conn(struct det_totals *dt, const struct sum_conn *c)
{
	struct limit_totals *t = &dt->limit;

	for (unsigned dir = 0; dir < SUM_DIR_COUNT; dir++) {
		const struct limit_dir *d = &c->det.limit.d[dir];
		enum limit_class dom = limit_dominant(d);
		if (dom == LIMIT_NONE)
			continue;
		t->dirs[dom]++;
		for (unsigned k = 0; k < LIMIT_COUNT; k++)
			t->ns[k] = clock_sat_add(t->ns[k], d->ns[k]);
	}
}

/* Limits are not findings: "none" stays true of a clean capture. */
static bool limit_any(const struct det_totals *t)
{
	(void)t;
	return false;
}

static void limit_json_findings(struct jo_fields *f, const struct det_totals *t, bool known)
{
	(void)f, (void)t, (void)known;
}

/* The direction with more data-transfer time: the connection's transfer. */
static unsigned limit_main_dir(const struct sum_conn *s)
{
	return limit_total(&s->det.limit.d[SUM_S2C]) > limit_total(&s->det.limit.d[SUM_C2S])
		   ? SUM_S2C
		   : SUM_C2S;
}

/* LIMIT: the dominant limit of the main direction (only at the end: the
 * results are made when the connection ends). */
static void limit_cells(struct det_cell *cell, const struct sum_conn *s,
			const struct det_totals *live, bool ended)
{
	unsigned dir = limit_main_dir(s);
	unsigned dom = limit_v_dominant(&s->det.limit.d[dir]);

	(void)live, (void)ended;
	cell[0].sort = dom == LIMIT_NONE ? -1 : (int64_t)dom;
	snprintf(cell[0].text, sizeof(cell[0].text), "%s",
		 dom == LIMIT_V_SENDER ? "sender" : limit_class_short((enum limit_class)dom));
	cell[0].tone = dom == LIMIT_RECEIVER_APP || dom == LIMIT_CONGESTION || dom == LIMIT_STALL
			   ? DET_TONE_WARN
			   : DET_TONE_NONE;
}

/* "limited by: s>c receiver window 71 %, ...; c>s ...". */
static void limit_detail(char *b, size_t n, const struct sum_conn *s, const struct det_totals *live,
			 bool ended)
{
	size_t x = 0;

	(void)live, (void)ended;
	b[0] = '\0';
	for (unsigned i = 0; i < SUM_DIR_COUNT && x < n; i++) {
		unsigned dir = i ? !limit_main_dir(s) : limit_main_dir(s);
		char line[512];
		if (limit_dominant(&s->det.limit.d[dir]) == LIMIT_NONE)
			continue;
		limit_line(line, sizeof(line), s, dir, x == 0);
		x += (size_t)snprintf(b + x, n - x, "%s%s: %s", x ? "; " : "limited by ",
				      dir == SUM_C2S ? "c>s" : "s>c", line);
	}
}

static void limit_header(char *b, size_t n, const struct det_totals *t, bool wide)
{
	(void)t, (void)wide;
	if (n)
		b[0] = '\0';
}

static void limit_event_line(char *b, size_t n, const struct sum_event *e)
{
	(void)e;
	if (n)
		b[0] = '\0';
}

static enum det_tone limit_event_tone(const struct sum_event *e)
{
	(void)e;
	return DET_TONE_NONE;
}

static const char *limit_view_class_name(unsigned k)
{
	return limit_class_name((enum limit_class)k);
}

static int limit_event_class(const struct sum_event *e)
{
	(void)e;
	return -1;
}

/* tcpsift diff: the view's classes (a hidden sender's are one), "sender"
 * after the real ones, so ties go to the same class as in the JSON's
 * "dominant" (limit_v_dominant()). */
#define LIMIT_DIFF_CLASSES (LIMIT_COUNT + 1)

static unsigned limit_diff_v(unsigned k)
{
	return k < LIMIT_COUNT ? k : LIMIT_V_SENDER;
}

static const char *limit_dir_class_name(unsigned k)
{
	return limit_v_name(limit_diff_v(k));
}

static void limit_dir_class_ns(const struct sum_conn *c, unsigned dir, int64_t *ns)
{
	const struct limit_dir *d = &c->det.limit.d[dir % SUM_DIR_COUNT];

	for (unsigned k = 0; k < LIMIT_DIFF_CLASSES; k++)
		ns[k] = limit_v_ns(d, limit_diff_v(k));
}

const struct det_view limit_view = {
    .name = "limit",
    .conn_key = NULL,
    .dir_key = "limited_by",
    .json_dir = limit_json_dir,
    .dir_cell = limit_dir_cell,
    .json_findings = limit_json_findings,
    .json_read_dir = limit_json_read_dir,
    .add_conn = limit_add_conn,
    .any = limit_any,
    .text = limit_text,
    .event_line = limit_event_line,
    .event_tone = limit_event_tone,
    .header_tone = DET_TONE_NONE,
    .header = limit_header,
    .ncolumns = 1,
    .columns = {{"LIMIT", 8, 0, false}},
    .cells = limit_cells,
    .detail = limit_detail,
    .nclasses = 0,
    .class_name = limit_view_class_name,
    .event_class = limit_event_class,
    .ndir_classes = LIMIT_DIFF_CLASSES,
    .dir_class_name = limit_dir_class_name,
    .dir_class_ns = limit_dir_class_ns,
};
