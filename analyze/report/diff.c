/* diff.c - tcpsift diff: the metric table, each side's values and totals, --fail-on on the
 * change. */
#include "analyze/report/diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/det_view.h"
#include "analyze/report/diffmatch.h"
#include "analyze/report/report.h"
#include "common/clock.h"
#include "common/err.h"

/* Where a metric's value comes from. */
enum diff_src {
	SRC_FO = 0,	 /* analyze's --fail-on metric (failon.h) */
	SRC_CLASS_COUNT, /* a detector's findings of one class (det_view.event_class) */
	SRC_CLASS_TIME,	 /* ... their total duration */
	SRC_CONNECTIONS,
	SRC_BYTES, /* payload, both directions, retransmissions included */
	SRC_DURATION,
	SRC_THROUGHPUT, /* payload bits over the duration (analyze's throughput_bps, summed) */
	SRC_RTT,	/* data -> covering ACK, both directions: average */
	SRC_RTT_MIN,
	SRC_RTT_MAX,
	SRC_PATH_RTT, /* the path's RTT end to end (sum_path); the run's: the mean */
	SRC_LOSS,     /* sum_loss_rate() over both directions; the run's: all segments */
	SRC_FAST,     /* fast retransmissions */
	SRC_ZW_TIME,
	SRC_UNSEEN, /* bytes ACKed that the capture never saw */
	SRC_DROPS,  /* the capture's own drop counters */
	SRC_COUNT,
};

struct metric {
	struct diff_metric pub;
	enum diff_src src;
	int arg; /* SRC_FO: failon's index; SRC_CLASS_*: the class */
};

/* The rows in the order they are shown; "@classes" stands for every
 * detector's class rows; analyze's metrics not named here follow at the
 * end (a new detector's metric is compared without a line here). */
static const struct {
	const char *name;
	enum diff_src src; /* SRC_FO: looked up by name in failon's table */
	enum diff_unit unit;
	bool run_only;
} diff_order[] = {
    {"connections", SRC_CONNECTIONS, DIFF_UNIT_COUNT, true},
    {"stalls", SRC_FO, DIFF_UNIT_COUNT, false},
    {"stall_time", SRC_FO, DIFF_UNIT_SECONDS, false},
    {"@classes", SRC_CLASS_COUNT, DIFF_UNIT_COUNT, false},
    {"timer_like", SRC_FO, DIFF_UNIT_COUNT, false},
    {"sack_holes", SRC_FO, DIFF_UNIT_COUNT, false},
    {"reneging", SRC_FO, DIFF_UNIT_COUNT, false},
    {"reorder_across_queues", SRC_FO, DIFF_UNIT_COUNT, false},
    {"out_of_order", SRC_FO, DIFF_UNIT_COUNT, false},
    {"retransmissions", SRC_FO, DIFF_UNIT_COUNT, false},
    {"rto", SRC_FO, DIFF_UNIT_COUNT, false},
    {"fast", SRC_FAST, DIFF_UNIT_COUNT, false},
    {"tlp", SRC_FO, DIFF_UNIT_COUNT, false},
    {"spurious", SRC_FO, DIFF_UNIT_COUNT, false},
    {"dsack", SRC_FO, DIFF_UNIT_COUNT, false},
    {"dup_acks", SRC_FO, DIFF_UNIT_COUNT, false},
    {"throughput", SRC_THROUGHPUT, DIFF_UNIT_BPS, false},
    {"rtt", SRC_RTT, DIFF_UNIT_SECONDS, false},
    {"rtt_min", SRC_RTT_MIN, DIFF_UNIT_SECONDS, false},
    {"rtt_max", SRC_RTT_MAX, DIFF_UNIT_SECONDS, false},
    {"path_rtt", SRC_PATH_RTT, DIFF_UNIT_SECONDS, false},
    {"loss_rate", SRC_LOSS, DIFF_UNIT_RATIO, false},
    {"capture_loss", SRC_FO, DIFF_UNIT_COUNT, false},
    {"unseen_bytes", SRC_UNSEEN, DIFF_UNIT_BYTES, false},
    {"capture_drops", SRC_DROPS, DIFF_UNIT_COUNT, true},
    {"lost_upstream", SRC_FO, DIFF_UNIT_COUNT, false},
    {"undecided", SRC_FO, DIFF_UNIT_COUNT, false},
    {"zero_window", SRC_FO, DIFF_UNIT_COUNT, false},
    {"zero_window_time", SRC_ZW_TIME, DIFF_UNIT_SECONDS, false},
    {"bytes", SRC_BYTES, DIFF_UNIT_BYTES, false},
    {"duration", SRC_DURATION, DIFF_UNIT_SECONDS, false},
    {"oversize", SRC_FO, DIFF_UNIT_COUNT, false},
    {"mtu_misaligned", SRC_FO, DIFF_UNIT_COUNT, false},
};

/* Other names --fail-on takes: analyze's alias, the JSON report's keys. */
static const struct {
	const char *alias, *name;
} diff_aliases[] = {
    {"stall", "stalls"},
    {"stall_time_s", "stall_time"},
    {"zero_window_time_s", "zero_window_time"},
    {"fast_retransmissions", "fast"},
    {"throughput_bps", "throughput"},
};

#define N_ORDER	    (sizeof(diff_order) / sizeof(diff_order[0]))
#define N_ALIASES   (sizeof(diff_aliases) / sizeof(diff_aliases[0]))
#define MAX_METRICS 128

/* An event's share of one metric of its connection, applied at the end
 * (an NDJSON report may give an event before its connection). */
struct ev_share {
	uint64_t conn;
	unsigned m;
	double x;
};

struct side {
	struct diff_conn *conns;
	size_t nconns, cap;
	double *vals; /* nconns * nmetrics, conns[k].v set by diff_finish() */
	struct ev_share *shares;
	size_t nshares, shares_cap;
	struct rep_totals tot; /* as analyze totals them: its --fail-on values */
	struct sum_rtt rtt;    /* every direction's samples */
	struct sum_rtt path;   /* the connections' path RTTs, those known */
	uint64_t lost, sent;   /* sum_lost_segments(), sum_sent_segments() */
	uint64_t bytes;
	int64_t zw_time_ns;
	struct diff_run run;
	double *totals;
	const struct diff_conn **only;
	size_t nonly;
};

struct diff {
	enum diff_match match;
	struct metric m[MAX_METRICS];
	unsigned nm;
	int class_base[DET_VIEW_COUNT]; /* the first class row of each view, or -1 */
	struct side s[2];
	struct diff_pair *pairs;
	size_t npairs;
	size_t npairs_by[DIFF_MATCH_COUNT];
};

static int add_metric(struct diff *d, const char *name, enum diff_src src, int arg,
		      enum diff_unit unit, bool run_only)
{
	if (d->nm == MAX_METRICS)
		return -1;
	struct metric *m = &d->m[d->nm++];
	snprintf(m->pub.name, sizeof(m->pub.name), "%s", name);
	m->pub.unit = unit;
	m->pub.run_only = run_only;
	m->src = src;
	m->arg = arg;
	return 0;
}

static bool named(const struct diff *d, const char *name)
{
	for (unsigned k = 0; k < d->nm; k++)
		if (!strcmp(d->m[k].pub.name, name))
			return true;
	return false;
}

static void build_metrics(struct diff *d)
{
	for (unsigned v = 0; v < DET_VIEW_COUNT; v++)
		d->class_base[v] = -1;
	for (size_t k = 0; k < N_ORDER; k++) {
		if (diff_order[k].src == SRC_CLASS_COUNT) {
			for (unsigned v = 0; v < DET_VIEW_COUNT; v++) {
				const struct det_view *dv = det_views[v];
				if (!dv->nclasses || !dv->event_class)
					continue;
				d->class_base[v] = (int)d->nm;
				for (unsigned c = 0; c < dv->nclasses; c++) {
					char n[48];
					snprintf(n, sizeof(n), "%s_%s", dv->name,
						 dv->class_name(c));
					add_metric(d, n, SRC_CLASS_COUNT, (int)c, DIFF_UNIT_COUNT,
						   false);
					snprintf(n, sizeof(n), "%s_time_%s", dv->name,
						 dv->class_name(c));
					add_metric(d, n, SRC_CLASS_TIME, (int)c, DIFF_UNIT_SECONDS,
						   false);
				}
			}
			continue;
		}
		int fo = -1;
		if (diff_order[k].src == SRC_FO && (fo = fo_metric_find(diff_order[k].name)) < 0)
			continue; /* that detector is gone */
		add_metric(d, diff_order[k].name, diff_order[k].src, fo, diff_order[k].unit,
			   diff_order[k].run_only);
	}
	for (unsigned f = 0, n = fo_metric_count(); f < n; f++) {
		const char *unit, *name = fo_metric_name(f, &unit);
		bool alias = false;
		for (size_t a = 0; a < N_ALIASES; a++)
			alias |= !strcmp(diff_aliases[a].alias, name);
		if (!alias && !named(d, name))
			add_metric(d, name, SRC_FO, (int)f,
				   unit ? DIFF_UNIT_SECONDS : DIFF_UNIT_COUNT, false);
	}
}

struct diff *diff_new(enum diff_match match, char *errbuf, size_t errlen)
{
	struct diff *d = calloc(1, sizeof(*d));

	if (!d) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	d->match = match;
	build_metrics(d);
	for (int s = 0; s < 2; s++) {
		d->s[s].rtt.min_ns = INT64_MAX;
		d->s[s].path.min_ns = INT64_MAX;
	}
	return d;
}

void diff_free(struct diff *d)
{
	if (!d)
		return;
	for (int s = 0; s < 2; s++) {
		free(d->s[s].conns);
		free(d->s[s].vals);
		free(d->s[s].shares);
		free(d->s[s].totals);
		free(d->s[s].only);
	}
	free(d->pairs);
	free(d);
}

unsigned diff_nmetrics(const struct diff *d)
{
	return d->nm;
}

const struct diff_metric *diff_metric(const struct diff *d, unsigned m)
{
	return &d->m[m].pub;
}

enum diff_match diff_match_kind(const struct diff *d)
{
	return d->match;
}

size_t diff_npairs_by(const struct diff *d, enum diff_match how)
{
	return (unsigned)how < DIFF_MATCH_COUNT ? d->npairs_by[how] : 0;
}

static const char *const match_names[DIFF_MATCH_COUNT] = {"auto", "tuple", "endpoint", "order"};

const char *diff_match_name(enum diff_match m)
{
	return (unsigned)m < DIFF_MATCH_COUNT ? match_names[m] : "?";
}

int diff_match_find(const char *name)
{
	for (unsigned k = 0; k < DIFF_MATCH_COUNT; k++)
		if (!strcmp(name, match_names[k]))
			return (int)k;
	return -1;
}

const char *diff_match_words(enum diff_match m)
{
	static const char *const words[DIFF_MATCH_COUNT] = {
	    "4-tuple, then server endpoint and order", "4-tuple", "server endpoint and order",
	    "first-packet order"};
	return (unsigned)m < DIFF_MATCH_COUNT ? words[m] : "?";
}

int diff_metric_find(const struct diff *d, const char *name, size_t len)
{
	for (size_t a = 0; a < N_ALIASES; a++)
		if (strlen(diff_aliases[a].alias) == len &&
		    !strncmp(diff_aliases[a].alias, name, len))
			return diff_metric_find(d, diff_aliases[a].name,
						strlen(diff_aliases[a].name));
	for (unsigned k = 0; k < d->nm; k++)
		if (strlen(d->m[k].pub.name) == len && !strncmp(d->m[k].pub.name, name, len))
			return (int)k;
	return -1;
}

static const char *const unit_help[DIFF_UNIT_KINDS] = {NULL, "seconds", "bits/s", "bytes",
						       "fraction"};

size_t diff_metric_names(const struct diff *d, char *buf, size_t len)
{
	size_t x = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned k = 0; k < d->nm; k++) {
		const char *u = unit_help[d->m[k].pub.unit];
		int w = snprintf(buf + x, x < len ? len - x : 0, "%s%s%s%s%s", k ? ", " : "",
				 d->m[k].pub.name, u ? " (" : "", u ? u : "", u ? ")" : "");
		if (w > 0)
			x += (size_t)w;
	}
	return x;
}

static void rtt_add(struct sum_rtt *t, const struct sum_rtt *r)
{
	if (!r->n)
		return;
	t->n += r->n;
	t->sum_ns = clock_sat_add(t->sum_ns, r->sum_ns); /* a hostile report's sums */
	if (r->min_ns < t->min_ns)
		t->min_ns = r->min_ns;
	if (r->max_ns > t->max_ns)
		t->max_ns = r->max_ns;
}

static double rtt_value(enum diff_src src, const struct sum_rtt *r)
{
	if (!r->n)
		return NAN;
	if (src == SRC_RTT_MIN)
		return (double)r->min_ns / 1e9;
	if (src == SRC_RTT_MAX)
		return (double)r->max_ns / 1e9;
	return (double)r->sum_ns / (double)r->n / 1e9;
}

/* Seconds from a to b: exact in nanoseconds, in doubles only where a
 * hostile report's times would overflow them. */
static double span_s(int64_t a, int64_t b)
{
	int64_t ns;

	if (__builtin_sub_overflow(b, a, &ns))
		return ((double)b - (double)a) / 1e9;
	return (double)ns / 1e9;
}

static double rate(uint64_t bytes, double dur_s)
{
	return dur_s > 0 ? (double)bytes * 8.0 / dur_s : NAN;
}

/* A connection's own values; its events' shares come later. */
static void conn_values(const struct diff *d, const struct sum_conn *c, double *v)
{
	struct rep_totals t = {0};
	struct sum_rtt rtt = {.min_ns = INT64_MAX};
	uint64_t bytes = 0;
	double dur = span_s(c->first_ts, c->last_ts);

	rep_totals_add_conn(&t, c);
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		bytes += c->dir[k].payload_bytes;
		rtt_add(&rtt, &c->dir[k].rtt);
	}
	for (unsigned m = 0; m < d->nm; m++) {
		const struct metric *x = &d->m[m];
		switch (x->src) {
		case SRC_FO:
			v[m] = fo_metric_value((unsigned)x->arg, &t);
			break;
		case SRC_CONNECTIONS:
			v[m] = 1;
			break;
		case SRC_BYTES:
			v[m] = (double)bytes;
			break;
		case SRC_DURATION:
			v[m] = dur;
			break;
		case SRC_THROUGHPUT:
			v[m] = rate(bytes, dur);
			break;
		case SRC_RTT:
		case SRC_RTT_MIN:
		case SRC_RTT_MAX:
			v[m] = rtt_value(x->src, &rtt);
			break;
		case SRC_PATH_RTT:
			v[m] = c->path.rtt_ns >= 0 ? (double)c->path.rtt_ns / 1e9 : NAN;
			break;
		case SRC_LOSS:
			v[m] = sum_conn_loss_rate(c) >= 0 ? sum_conn_loss_rate(c) : NAN;
			break;
		case SRC_FAST:
			v[m] = (double)t.fast;
			break;
		case SRC_UNSEEN:
			v[m] = (double)t.unseen_bytes;
			break;
		case SRC_DROPS:
			v[m] = NAN;
			break;
		default: /* events add them */
			v[m] = 0;
			break;
		}
	}
}

int diff_add_conn(struct diff *d, int side, const struct sum_conn *c)
{
	struct side *s = &d->s[side];

	if (s->nconns == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct diff_conn *n = realloc(s->conns, cap * sizeof(*n));
		if (!n)
			return ERR_NOMEM;
		s->conns = n;
		double *v = realloc(s->vals, cap * d->nm * sizeof(*v));
		if (!v)
			return ERR_NOMEM;
		s->vals = v;
		s->cap = cap;
	}
	struct diff_conn *x = &s->conns[s->nconns];
	*x = (struct diff_conn){.id = c->id,
				.client = c->client,
				.server = c->server,
				.client_port = c->client_port,
				.server_port = c->server_port,
				.first_ts = c->first_ts,
				.last_ts = c->last_ts};
	conn_values(d, c, s->vals + s->nconns * d->nm);
	s->nconns++;
	rep_totals_add_conn(&s->tot, c);
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		s->bytes += c->dir[k].payload_bytes;
		rtt_add(&s->rtt, &c->dir[k].rtt);
		s->lost += sum_lost_segments(&c->dir[k]);
		s->sent += sum_sent_segments(&c->dir[k]);
	}
	if (c->path.rtt_ns >= 0)
		rtt_add(&s->path,
			&(struct sum_rtt){1, c->path.rtt_ns, c->path.rtt_ns, c->path.rtt_ns});
	return 0;
}

static int share(struct side *s, uint64_t conn, unsigned m, double x)
{
	if (s->nshares == s->shares_cap) {
		size_t cap = s->shares_cap ? s->shares_cap * 2 : 256;
		struct ev_share *n = realloc(s->shares, cap * sizeof(*n));
		if (!n)
			return ERR_NOMEM;
		s->shares = n;
		s->shares_cap = cap;
	}
	s->shares[s->nshares++] = (struct ev_share){conn, m, x};
	return 0;
}

int diff_add_event(struct diff *d, int side, const struct sum_event *e)
{
	struct side *s = &d->s[side];
	struct rep_totals t = {0};
	int rc = 0;

	/* What analyze's totals take from events (zero windows, capture
	 * loss), through the same function, into the metrics that read them. */
	rep_totals_add_event(&t, e);
	rep_totals_add_event(&s->tot, e);
	if (t.zw_episodes || t.capture_loss_segments) {
		for (unsigned m = 0; m < d->nm && rc == 0; m++) {
			double x = 0;
			if (d->m[m].src == SRC_FO)
				x = fo_metric_value((unsigned)d->m[m].arg, &t);
			else if (d->m[m].src == SRC_ZW_TIME)
				x = (double)t.zw_time_ns / 1e9;
			if (x != 0)
				rc = share(s, e->conn, m, x);
		}
		s->zw_time_ns += t.zw_time_ns;
	}
	int v = det_view_index_of_event(e->type);
	if (rc == 0 && v >= 0 && d->class_base[v] >= 0) {
		int c = det_views[v]->event_class(e);
		if (c >= 0) {
			unsigned m = (unsigned)(d->class_base[v] + 2 * c);
			rc = share(s, e->conn, m, 1);
			if (rc == 0)
				rc = share(s, e->conn, m + 1,
					   e->duration_ns > 0 ? (double)e->duration_ns / 1e9 : 0);
		}
	}
	return rc;
}

void diff_set_run(struct diff *d, int side, const struct diff_run *r)
{
	d->s[side].run = *r;
}

static int conn_id_cmp(const void *pa, const void *pb)
{
	const struct diff_conn *a = pa, *b = pb;
	return (a->id > b->id) - (a->id < b->id);
}

static struct diff_conn *find_conn(struct side *s, uint64_t id)
{
	struct diff_conn key = {.id = id};
	return bsearch(&key, s->conns, s->nconns, sizeof(key), conn_id_cmp);
}

/* Connections in id order (first-packet order), values attached, the
 * events' shares added; then the side's totals. */
static int finish_side(struct diff *d, struct side *s)
{
	for (size_t k = 0; k < s->nconns; k++)
		s->conns[k].v = s->vals + k * d->nm;
	/* Each keeps its v when sorted: ids are first-packet order. */
	bool sorted = true;
	for (size_t k = 1; k < s->nconns; k++)
		sorted &= s->conns[k - 1].id < s->conns[k].id;
	if (!sorted)
		qsort(s->conns, s->nconns, sizeof(*s->conns), conn_id_cmp);

	s->totals = calloc(d->nm, sizeof(double));
	if (!s->totals)
		return ERR_NOMEM;
	double *tot = s->totals;
	for (size_t k = 0; k < s->nshares; k++) {
		const struct ev_share *x = &s->shares[k];
		struct diff_conn *c = find_conn(s, x->conn);
		if (c)
			c->v[x->m] += x->x;
		if (d->m[x->m].src == SRC_CLASS_COUNT || d->m[x->m].src == SRC_CLASS_TIME)
			tot[x->m] += x->x;
	}
	double dur = span_s(s->run.first_ts, s->run.last_ts);
	for (unsigned m = 0; m < d->nm; m++) {
		const struct metric *x = &d->m[m];
		switch (x->src) {
		case SRC_FO:
			tot[m] = fo_metric_value((unsigned)x->arg, &s->tot);
			break;
		case SRC_CONNECTIONS:
			tot[m] = (double)s->nconns;
			break;
		case SRC_BYTES:
			tot[m] = (double)s->bytes;
			break;
		case SRC_DURATION:
			tot[m] = dur > 0 ? dur : 0;
			break;
		case SRC_THROUGHPUT:
			tot[m] = rate(s->bytes, dur);
			break;
		case SRC_RTT:
		case SRC_RTT_MIN:
		case SRC_RTT_MAX:
			tot[m] = rtt_value(x->src, &s->rtt);
			break;
		case SRC_PATH_RTT:
			tot[m] = rtt_value(SRC_RTT, &s->path);
			break;
		case SRC_LOSS:
			tot[m] = s->sent ? (double)(s->lost < s->sent ? s->lost : s->sent) /
					       (double)s->sent
					 : NAN;
			break;
		case SRC_FAST:
			tot[m] = (double)s->tot.fast;
			break;
		case SRC_UNSEEN:
			tot[m] = (double)s->tot.unseen_bytes;
			break;
		case SRC_ZW_TIME:
			tot[m] = (double)s->tot.zw_time_ns / 1e9;
			break;
		case SRC_DROPS:
			tot[m] = s->run.drops_known ? (double)s->run.capture_drops : NAN;
			break;
		default: /* the classes: summed above */
			break;
		}
	}
	return 0;
}

static int pair_up(struct diff *d)
{
	struct diffmatch_out o;
	struct side *sa = &d->s[0], *sb = &d->s[1];
	int rc = diffmatch_pair(d->match, sa->conns, sa->nconns, sb->conns, sb->nconns, &o);

	if (rc < 0)
		return rc;
	d->pairs = o.pairs;
	d->npairs = o.npairs;
	sa->only = o.only[0];
	sa->nonly = o.nonly[0];
	sb->only = o.only[1];
	sb->nonly = o.nonly[1];
	for (size_t k = 0; k < d->npairs; k++)
		d->npairs_by[d->pairs[k].how]++;
	return 0;
}

int diff_finish(struct diff *d)
{
	for (int s = 0; s < 2; s++) {
		int rc = finish_side(d, &d->s[s]);
		if (rc < 0)
			return rc;
	}
	return pair_up(d);
}

const double *diff_totals(const struct diff *d, int side)
{
	return d->s[side].totals;
}

size_t diff_nconns(const struct diff *d, int side)
{
	return d->s[side].nconns;
}

size_t diff_npairs(const struct diff *d)
{
	return d->npairs;
}

const struct diff_pair *diff_pair_at(const struct diff *d, size_t k)
{
	return &d->pairs[k];
}

size_t diff_nonly(const struct diff *d, int side)
{
	return d->s[side].nonly;
}

const struct diff_conn *diff_only_at(const struct diff *d, int side, size_t k)
{
	return d->s[side].only[k];
}

bool diff_changed(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) != isnan(b);
	/* A report writes reals to about 15 digits: a capture and its own
	 * saved report may differ in the last of them, never more. */
	return fabs(b - a) > 1e-12 * fmax(fabs(a), fabs(b));
}

double diff_delta(double a, double b)
{
	return b - a; /* NaN when either is */
}

double diff_pct(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == 0)
		return b == 0 ? 0 : NAN;
	return (b - a) / fabs(a) * 100.0;
}

static int grammar_lookup(void *ctx, const char *name, size_t len)
{
	return diff_metric_find(ctx, name, len);
}

static size_t grammar_known(void *ctx, char *buf, size_t len)
{
	return diff_metric_names(ctx, buf, len);
}

int diff_fail_parse(const struct diff *d, const char *s, struct fo_expr *e, char *errbuf,
		    size_t errlen)
{
	const struct fo_grammar g = {.lookup = grammar_lookup,
				     .known = grammar_known,
				     .ctx = (void *)(uintptr_t)d,
				     .percent = true,
				     .example = "stall_time>+10%,retransmissions>+5"};

	return fo_parse_with(s, &g, e, errbuf, errlen);
}

bool diff_fail_match(const struct diff *d, const struct fo_expr *e, char *which, size_t len)
{
	for (unsigned k = 0; k < e->n; k++) {
		const struct fo_term *t = &e->t[k];
		double a = d->s[0].totals[t->metric], b = d->s[1].totals[t->metric];
		double x;
		if (!t->percent)
			x = diff_delta(a, b);
		else if (!isnan(a) && !isnan(b) && a == 0 && b != 0)
			x = b > 0 ? INFINITY : -INFINITY; /* from nothing to something */
		else
			x = diff_pct(a, b);
		if (isnan(x) || !fo_holds(t, x))
			continue;
		char term[96];
		fo_term_text(t, d->m[t->metric].pub.name, term, sizeof(term));
		snprintf(which, len, "%s (A %.6g, B %.6g: %+.6g%s)", term, a, b, x,
			 t->percent ? "%" : "");
		return true;
	}
	return false;
}
