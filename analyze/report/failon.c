/* failon.c - parse and evaluate --fail-on comparisons against report totals. */
#include "analyze/report/failon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int fo_parse(const char *s, struct fo_expr *e, char *errbuf, size_t errlen)
{
	const char *p = s;

	e->n = 0;
	while (*p) {
		const char *name = p;
		while (*p == '_' || (*p >= 'a' && *p <= 'z'))
			p++;
		size_t nlen = (size_t)(p - name);
		unsigned m;
		const char *unit, *mname;
		unsigned nm = fo_count();
		for (m = 0; m < nm; m++) {
			mname = fo_name(m, &unit);
			if (strlen(mname) == nlen && !strncmp(mname, name, nlen))
				break;
		}
		if (m == nm) {
			char names[512];
			fo_names(names, sizeof(names));
			snprintf(errbuf, errlen, "unknown metric '%.*s' (known: %s)", (int)nlen,
				 name, names);
			return -1;
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
			return -1;
		}
		char *end;
		errno = 0;
		double v = strtod(p, &end);
		if (end == p || errno || (*end && *end != ',')) {
			snprintf(errbuf, errlen, "expected a number after '%.*s%s'", (int)nlen,
				 name, op_text[op]);
			return -1;
		}
		if (e->n == FO_MAX_TERMS) {
			snprintf(errbuf, errlen, "more than %d comparisons", FO_MAX_TERMS);
			return -1;
		}
		e->t[e->n++] = (struct fo_term){m, op, v};
		p = end;
		if (*p == ',')
			p++;
	}
	if (e->n == 0) {
		snprintf(errbuf, errlen, "empty expression (e.g. stall>0,capture_loss>0)");
		return -1;
	}
	return 0;
}

bool fo_match(const struct fo_expr *e, const struct rep_totals *t, char *which, size_t len)
{
	for (unsigned k = 0; k < e->n; k++) {
		const struct fo_term *x = &e->t[k];
		double v = fo_value(x->metric, t);
		bool hit = false;
		switch (x->op) {
		case FO_GT:
			hit = v > x->value;
			break;
		case FO_GE:
			hit = v >= x->value;
			break;
		case FO_LT:
			hit = v < x->value;
			break;
		case FO_LE:
			hit = v <= x->value;
			break;
		case FO_EQ:
			hit = v == x->value;
			break;
		default:
			hit = v != x->value;
			break;
		}
		if (hit) {
			const char *unit;
			snprintf(which, len, "%s%s%g (is %g)", fo_name(x->metric, &unit),
				 op_text[x->op], x->value, v);
			return true;
		}
	}
	return false;
}
