/* failon.h - --fail-on EXPR: gate a run's exit status on its findings. */
#ifndef TCPSIFT_FAILON_H
#define TCPSIFT_FAILON_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/report/report.h"

/*
 * EXPR is one or more comparisons separated by commas, any of which
 * matching fails the run: "stall>0", "sack_holes>10,capture_loss>0",
 * "stall_time>=0.5". Operators: > >= < <= == !=. Names: see fo_names().
 */
#define FO_MAX_TERMS 16

struct fo_term {
	unsigned metric; /* index into the name table */
	int op;
	double value;
};

struct fo_expr {
	unsigned n;
	struct fo_term t[FO_MAX_TERMS];
};

/* Parse; 0, or -1 with a one-line reason in errbuf. */
int fo_parse(const char *s, struct fo_expr *e, char *errbuf, size_t errlen);

/* Does any term hold for these totals? *which names the first that did. */
bool fo_match(const struct fo_expr *e, const struct rep_totals *t, char *which, size_t len);

/* "stall, stalls, stall_time (seconds), ...": every metric, for help and
 * errors, into buf (truncated to len); the length it needed. */
size_t fo_names(char *buf, size_t len);

#endif
