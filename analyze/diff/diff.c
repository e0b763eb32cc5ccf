/* diff.c - tcpsift diff: each side's values and labels, their totals, the pairs. */
#include "analyze/diff/diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff/diff_int.h"
#include "analyze/diff/diffmatch.h"
#include "common/clock.h"
#include "common/err.h"
#include "common/grow.h"

struct diff *diff_new(enum diff_match match, char *errbuf, size_t errlen)
{
	struct diff *d = calloc(1, sizeof(*d));

	if (!d) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	d->match = match;
	diff_build_metrics(d);
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
		free(d->s[s].labs);
		free(d->s[s].shares);
		free(d->s[s].totals);
		free(d->s[s].only);
	}
	free(d->pairs);
	free(d);
}

enum diff_match diff_match_kind(const struct diff *d)
{
	return d->match;
}

size_t diff_npairs_by(const struct diff *d, enum diff_match how)
{
	return (unsigned)how < DIFF_MATCH_COUNT ? d->npairs_by[how] : 0;
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
		case SRC_LABEL:
			v[m] = NAN;
			break;
		default: /* events add them */
			v[m] = 0;
			break;
		}
	}
}

/* The dominant class of ns[0..n) and its share; -1 without time (a
 * hostile report's negative times count as none). */
static struct diff_label dominant(const int64_t *ns, unsigned n)
{
	struct diff_label r = {-1, 0};
	int64_t t = 0;

	for (unsigned k = 0; k < n; k++) {
		if (ns[k] <= 0)
			continue;
		t = clock_sat_add(t, ns[k]);
		if (r.cls < 0 || ns[k] > ns[r.cls])
			r.cls = (int)k;
	}
	if (r.cls >= 0)
		r.share = (double)ns[r.cls] / (double)t;
	return r;
}

/* A connection's labels (lab[l * SUM_DIR_COUNT + dir]), its time added
 * to the run's. */
static void conn_labels(const struct diff *d, struct side *s, const struct sum_conn *c,
			struct diff_label *lab)
{
	int64_t ns[DET_DIR_CLASSES_MAX];

	for (unsigned l = 0; l < d->nlab; l++) {
		unsigned n = d->lab[l]->ndir_classes;
		for (unsigned dir = 0; dir < SUM_DIR_COUNT; dir++) {
			d->lab[l]->dir_class_ns(c, dir, ns);
			lab[l * SUM_DIR_COUNT + dir] = dominant(ns, n);
			for (unsigned k = 0; k < n; k++)
				if (ns[k] > 0)
					s->lab_ns[l][k] = clock_sat_add(s->lab_ns[l][k], ns[k]);
		}
	}
}

/* Room for one more connection in the three arrays s->cap counts (nm
 * values and nl labels a connection): each is grown before the capacity
 * says so, so a failure leaves them all at least the old one. */
static int grow(struct diff *d, struct side *s)
{
	size_t cap = grow_cap(s->cap, s->nconns + 1, 64, SIZE_MAX),
	       nl = d->nlab ? d->nlab * SUM_DIR_COUNT : 1;

	if (!cap || GROW_RESIZE(s->conns, cap, 1) < 0 || GROW_RESIZE(s->vals, cap, d->nm) < 0 ||
	    GROW_RESIZE(s->labs, cap, nl) < 0)
		return ERR_NOMEM;
	s->cap = cap;
	return 0;
}

int diff_add_conn(struct diff *d, int side, const struct sum_conn *c)
{
	struct side *s = &d->s[side];

	if (s->nconns == s->cap && grow(d, s) < 0)
		return ERR_NOMEM;
	struct diff_conn *x = &s->conns[s->nconns];
	*x = (struct diff_conn){.id = c->id,
				.client = c->client,
				.server = c->server,
				.client_port = c->client_port,
				.server_port = c->server_port,
				.first_ts = c->first_ts,
				.last_ts = c->last_ts};
	conn_values(d, c, s->vals + s->nconns * d->nm);
	conn_labels(d, s, c, s->labs + s->nconns * d->nlab * SUM_DIR_COUNT);
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
	if (GROW(s->shares, s->shares_cap, s->nshares + 1, 256) < 0)
		return ERR_NOMEM;
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

/* Class k's share of the time in ns[0..n), NaN without time. */
static double label_share(const int64_t *ns, unsigned n, unsigned k)
{
	int64_t t = 0;

	for (unsigned j = 0; j < n; j++)
		t = clock_sat_add(t, ns[j]);
	return t > 0 ? (double)ns[k] / (double)t : NAN;
}

/* Connections in id order (first-packet order), values attached, the
 * events' shares added; then the side's totals. */
static int finish_side(struct diff *d, struct side *s)
{
	for (size_t k = 0; k < s->nconns; k++) {
		s->conns[k].v = s->vals + k * d->nm;
		s->conns[k].lab = s->labs + k * d->nlab * SUM_DIR_COUNT;
	}
	for (unsigned l = 0; l < d->nlab; l++)
		s->run_lab[l] = dominant(s->lab_ns[l], d->lab[l]->ndir_classes);
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
		case SRC_LABEL:
			tot[m] = label_share(s->lab_ns[x->lab], d->lab[x->lab]->ndir_classes,
					     (unsigned)x->arg);
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

unsigned diff_nlabels(const struct diff *d)
{
	return d->nlab;
}

const char *diff_label_key(const struct diff *d, unsigned l)
{
	return d->lab[l]->dir_key;
}

const char *diff_label_class(const struct diff *d, unsigned l, int cls)
{
	if (cls < 0 || (unsigned)cls >= d->lab[l]->ndir_classes)
		return "none";
	return d->lab[l]->dir_class_name((unsigned)cls);
}

const struct diff_label *diff_conn_label(const struct diff *d, const struct diff_conn *c,
					 unsigned l, unsigned dir)
{
	(void)d; /* in the signature for a layout that may need it */
	return &c->lab[l * SUM_DIR_COUNT + dir % SUM_DIR_COUNT];
}

const struct diff_label *diff_run_label(const struct diff *d, int side, unsigned l)
{
	return &d->s[side].run_lab[l];
}

bool diff_label_changed(const struct diff_label *a, const struct diff_label *b)
{
	return a->cls != b->cls || diff_changed(a->share, b->share);
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
