/* failon.c - parse and evaluate --fail-on comparisons against report totals. */
#include "analyze/report/failon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fo_op { FO_GT = 0, FO_GE, FO_LT, FO_LE, FO_EQ, FO_NE };

struct fo_metric {
	const char *name;
	double (*get)(const struct rep_totals *t);
};

/* Each metric reads one total; stall_time is in seconds. */
#define FO_COUNT(fn, field)                                                                        \
	static double fn(const struct rep_totals *t)                                               \
	{                                                                                          \
		return (double)t->field;                                                           \
	}
FO_COUNT(m_stalls, stalls)
FO_COUNT(m_sack_holes, sack_holes)
FO_COUNT(m_dsack, dsack)
FO_COUNT(m_reneging, reneging)
FO_COUNT(m_ooo, ooo)
FO_COUNT(m_queue_reorders, queue_reorders)
FO_COUNT(m_retrans, retrans)
FO_COUNT(m_rto, rto)
FO_COUNT(m_spurious, spurious)
FO_COUNT(m_mtu, mtu_misaligned)
FO_COUNT(m_oversize, oversize)
FO_COUNT(m_capture_loss, capture_loss_segments)
FO_COUNT(m_zero_window, zw_episodes)
FO_COUNT(m_dup_acks, dup_acks)
FO_COUNT(m_lost_upstream, lost_upstream)
FO_COUNT(m_undecided, fills_undecided)
FO_COUNT(m_timer_like, stall_timer_like)

static double m_tlp(const struct rep_totals *t)
{
	return (double)(t->tlp + t->tlp_new_data);
}

static double m_stall_time(const struct rep_totals *t)
{
	return (double)t->stall_ns / 1e9;
}

static const struct fo_metric fo_metrics[] = {
    {"stall", m_stalls},
    {"stalls", m_stalls},
    {"stall_time", m_stall_time},
    {"sack_holes", m_sack_holes},
    {"dsack", m_dsack},
    {"reneging", m_reneging},
    {"out_of_order", m_ooo},
    {"reorder_across_queues", m_queue_reorders},
    {"retransmissions", m_retrans},
    {"rto", m_rto},
    {"spurious", m_spurious},
    {"mtu_misaligned", m_mtu},
    {"oversize", m_oversize},
    {"capture_loss", m_capture_loss},
    {"zero_window", m_zero_window},
    {"dup_acks", m_dup_acks},
    {"lost_upstream", m_lost_upstream},
    {"tlp", m_tlp},
    {"undecided", m_undecided},
    {"timer_like", m_timer_like},
};

#define FO_NMETRICS (sizeof(fo_metrics) / sizeof(fo_metrics[0]))

const char *fo_names(void)
{
	return "stall(s), stall_time (seconds), sack_holes, dsack, reneging, out_of_order, "
	       "reorder_across_queues, retransmissions, rto, spurious, mtu_misaligned, oversize, "
	       "capture_loss, zero_window, dup_acks, lost_upstream";
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
		for (m = 0; m < FO_NMETRICS; m++)
			if (strlen(fo_metrics[m].name) == nlen &&
			    !strncmp(fo_metrics[m].name, name, nlen))
				break;
		if (m == FO_NMETRICS) {
			snprintf(errbuf, errlen, "unknown metric '%.*s' (known: %s)", (int)nlen,
				 name, fo_names());
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
		double v = fo_metrics[x->metric].get(t);
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
			snprintf(which, len, "%s%s%g (is %g)", fo_metrics[x->metric].name,
				 op_text[x->op], x->value, v);
			return true;
		}
	}
	return false;
}
