/* diff_metric.c - tcpsift diff's metric table (names, units, aliases, the labels' rows),
 * the matching modes' names, and --fail-on on the change. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "analyze/diff/diff_int.h"
#include "analyze/report/failon.h"
#include "common/err.h"

/* The rows in the order they are shown; "@classes" stands for every
 * detector's class rows, "@labels" for every label's class shares;
 * analyze's metrics not named here follow at the end (a new detector's
 * metric is compared without a line here). */
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
    {"@labels", SRC_LABEL, DIFF_UNIT_RATIO, true},
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

#define N_ORDER	  (sizeof(diff_order) / sizeof(diff_order[0]))
#define N_ALIASES (sizeof(diff_aliases) / sizeof(diff_aliases[0]))

static int add_metric(struct diff *d, const char *name, enum diff_src src, int arg,
		      enum diff_unit unit, bool run_only)
{
	if (d->nm == MAX_METRICS)
		return ERR_NOMEM;
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

/* The views with dir classes, in dir_key order (the JSON's keys are sorted). */
static void find_labels(struct diff *d)
{
	for (unsigned v = 0; v < DET_VIEW_COUNT; v++) {
		const struct det_view *dv = det_views[v];
		if (!dv->ndir_classes || dv->ndir_classes > DET_DIR_CLASSES_MAX || !dv->dir_key ||
		    !dv->dir_class_ns || d->nlab == MAX_LABELS)
			continue;
		unsigned j = d->nlab++;
		for (; j > 0 && strcmp(d->lab[j - 1]->dir_key, dv->dir_key) > 0; j--)
			d->lab[j] = d->lab[j - 1];
		d->lab[j] = dv;
	}
}

/* "limited_by_congestion", ...: each label's classes, their share of the run. */
static void add_label_rows(struct diff *d)
{
	for (unsigned l = 0; l < d->nlab; l++)
		for (unsigned k = 0; k < d->lab[l]->ndir_classes; k++) {
			char n[48];
			snprintf(n, sizeof(n), "%s_%s", d->lab[l]->dir_key,
				 d->lab[l]->dir_class_name(k));
			if (add_metric(d, n, SRC_LABEL, (int)k, DIFF_UNIT_RATIO, true) == 0)
				d->m[d->nm - 1].lab = (int)l;
		}
}

void diff_build_metrics(struct diff *d)
{
	for (unsigned v = 0; v < DET_VIEW_COUNT; v++)
		d->class_base[v] = -1;
	find_labels(d);
	for (size_t k = 0; k < N_ORDER; k++) {
		if (diff_order[k].src == SRC_LABEL) {
			add_label_rows(d);
			continue;
		}
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

unsigned diff_nmetrics(const struct diff *d)
{
	return d->nm;
}

const struct diff_metric *diff_metric(const struct diff *d, unsigned m)
{
	return &d->m[m].pub;
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
