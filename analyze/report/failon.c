/* failon.c - parse and evaluate --fail-on comparisons against report totals. */
#include "analyze/report/failon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

enum fo_op { FO_GT = 0, FO_GE, FO_LT, FO_LE, FO_EQ, FO_NE };

/*
 * The engine's metrics; each detector's come from its view (det_view.h).
 * A metric is named by its index: the engine's first, then the views' in
 * table order.
 */
struct fo_metric {
	const char *name;
	double (*get)(const struct rep_totals *t);
};

#define FO_COUNT(fn, field)                                                                        \
	static double fn(const struct rep_totals *t)                                               \
	{                                                                                          \
		return (double)t->field;                                                           \
	}

FO_COUNT(m_dsack, dsack)
FO_COUNT(m_ooo, ooo)
FO_COUNT(m_retrans, retrans)
FO_COUNT(m_rto, rto)
FO_COUNT(m_spurious, spurious)
FO_COUNT(m_oversize, oversize)
FO_COUNT(m_capture_loss, capture_loss_segments)
FO_COUNT(m_zero_window, zw_episodes)
FO_COUNT(m_dup_acks, dup_acks)
FO_COUNT(m_lost_upstream, lost_upstream)
FO_COUNT(m_undecided, fills_undecided)

static double m_tlp(const struct rep_totals *t)
{
	return (double)(t->tlp + t->tlp_new_data);
}

static const struct fo_metric fo_metrics[] = {
    {"dsack", m_dsack},
    {"out_of_order", m_ooo},
    {"retransmissions", m_retrans},
    {"rto", m_rto},
    {"spurious", m_spurious},
    {"oversize", m_oversize},
    {"capture_loss", m_capture_loss},
    {"zero_window", m_zero_window},
    {"dup_acks", m_dup_acks},
    {"lost_upstream", m_lost_upstream},
    {"tlp", m_tlp},
    {"undecided", m_undecided},
};

#define FO_NCORE ((unsigned)(sizeof(fo_metrics) / sizeof(fo_metrics[0])))

/* How many metrics: the engine's, then each view's in table order. */
static unsigned fo_count(void)
{
	unsigned n = FO_NCORE;

	for (unsigned k = 0; k < DET_VIEW_COUNT; k++)
		n += det_views[k]->nmetrics;
	return n;
}

/* Metric m (>= FO_NCORE) among the views' metrics, or NULL past the end. */
static const struct det_metric *fo_det_metric(unsigned m)
{
	m -= FO_NCORE;
	for (unsigned k = 0; k < DET_VIEW_COUNT; k++) {
		if (m < det_views[k]->nmetrics)
			return &det_views[k]->metrics[m];
		m -= det_views[k]->nmetrics;
	}
	return NULL;
}

static const char *fo_name(unsigned m, const char **unit)
{
	const struct det_metric *dm = m < FO_NCORE ? NULL : fo_det_metric(m);

	*unit = dm ? dm->unit : NULL;
	if (m < FO_NCORE)
		return fo_metrics[m].name;
	return dm ? dm->name : "";
}

static double fo_value(unsigned m, const struct rep_totals *t)
{
	const struct det_metric *dm;

	if (m < FO_NCORE)
		return fo_metrics[m].get(t);
	dm = fo_det_metric(m);
	return dm ? dm->get(&t->det) : 0;
}

size_t fo_names(char *buf, size_t len)
{
	size_t x = 0;

	if (len)
		buf[0] = '\0';
	/* The detectors' first: they are what --fail-on is mostly for. */
	for (unsigned i = 0, n = fo_count(); i < n; i++) {
		unsigned m = (i + FO_NCORE) % n;
		const char *unit, *name = fo_name(m, &unit);
		int w = snprintf(buf + x, x < len ? len - x : 0, "%s%s%s%s%s", i ? ", " : "", name,
				 unit ? " (" : "", unit ? unit : "", unit ? ")" : "");
		if (w > 0)
			x += (size_t)w;
	}
	return x;
}

static const char *const op_text[] = {">", ">=", "<", "<=", "==", "!="};

/* analyze's metrics by name: the grammar's lookup for fo_parse(). */
static int fo_lookup(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	for (unsigned m = 0, nm = fo_count(); m < nm; m++) {
		const char *unit, *mname = fo_name(m, &unit);
		if (strlen(mname) == len && !strncmp(mname, name, len))
			return (int)m;
	}
	return -1;
}

static size_t fo_known(void *ctx, char *buf, size_t len)
{
	(void)ctx;
	return fo_names(buf, len);
}

int fo_parse(const char *s, struct fo_expr *e, char *errbuf, size_t errlen)
{
	const struct fo_grammar g = {.lookup = fo_lookup, .known = fo_known};

	return fo_parse_with(s, &g, e, errbuf, errlen);
}

int fo_parse_with(const char *s, const struct fo_grammar *g, struct fo_expr *e, char *errbuf,
		  size_t errlen)
{
	const char *p = s;

	e->n = 0;
	while (*p) {
		const char *name = p;
		while (*p == '_' || (*p >= 'a' && *p <= 'z'))
			p++;
		size_t nlen = (size_t)(p - name);
		int m = g->lookup(g->ctx, name, nlen);
		if (m < 0) {
			char names[1024];
			g->known(g->ctx, names, sizeof(names));
			snprintf(errbuf, errlen, "unknown metric '%.*s' (known: %s)", (int)nlen,
				 name, names);
			return ERR_USAGE;
		}
		int op;
		if (p[0] == '>' && p[1] == '=')
			op = FO_GE, p += 2;
		else if (p[0] == '<' && p[1] == '=')
			op = FO_LE, p += 2;
		else if (p[0] == '=' && p[1] == '=')
			op = FO_EQ, p += 2;
		else if (p[0] == '!' && p[1] == '=')
			op = FO_NE, p += 2;
		else if (p[0] == '>')
			op = FO_GT, p += 1;
		else if (p[0] == '<')
			op = FO_LT, p += 1;
		else {
			snprintf(errbuf, errlen, "expected > >= < <= == or != after '%.*s'",
				 (int)nlen, name);
			return ERR_USAGE;
		}
		char *end;
		errno = 0;
		double v = strtod(p, &end);
		bool percent = g->percent && end != p && *end == '%';
		if (percent)
			end++;
		if (end == p || errno || (*end && *end != ',')) {
			snprintf(errbuf, errlen, "expected a number%s after '%.*s%s'",
				 g->percent ? " (or a percentage)" : "", (int)nlen, name,
				 op_text[op]);
			return ERR_USAGE;
		}
		if (e->n == FO_MAX_TERMS) {
			snprintf(errbuf, errlen, "more than %d comparisons", FO_MAX_TERMS);
			return ERR_USAGE;
		}
		e->t[e->n++] = (struct fo_term){(unsigned)m, op, v, percent};
		p = end;
		if (*p == ',')
			p++;
	}
	if (e->n == 0) {
		snprintf(errbuf, errlen, "empty expression (e.g. %s)",
			 g->example ? g->example : "stall>0,capture_loss>0");
		return ERR_USAGE;
	}
	return 0;
}

bool fo_holds(const struct fo_term *x, double v)
{
	switch (x->op) {
	case FO_GT:
		return v > x->value;
	case FO_GE:
		return v >= x->value;
	case FO_LT:
		return v < x->value;
	case FO_LE:
		return v <= x->value;
	case FO_EQ:
		return v == x->value;
	default:
		return v != x->value;
	}
}

void fo_term_text(const struct fo_term *x, const char *name, char *buf, size_t len)
{
	/* %+g: a limit on a change says its sign, as it was given. */
	snprintf(buf, len, x->percent ? "%s%s%+g%%" : "%s%s%g", name, op_text[x->op], x->value);
}

bool fo_match(const struct fo_expr *e, const struct rep_totals *t, char *which, size_t len)
{
	for (unsigned k = 0; k < e->n; k++) {
		const struct fo_term *x = &e->t[k];
		double v = fo_value(x->metric, t);
		if (fo_holds(x, v)) {
			const char *unit;
			snprintf(which, len, "%s%s%g (is %g)", fo_name(x->metric, &unit),
				 op_text[x->op], x->value, v);
			return true;
		}
	}
	return false;
}

unsigned fo_metric_count(void)
{
	return fo_count();
}

const char *fo_metric_name(unsigned m, const char **unit)
{
	return fo_name(m, unit);
}

double fo_metric_value(unsigned m, const struct rep_totals *t)
{
	return fo_value(m, t);
}

int fo_metric_find(const char *name)
{
	return fo_lookup(NULL, name, strlen(name));
}
