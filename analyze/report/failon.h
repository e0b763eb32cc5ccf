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
	bool percent; /* the value ended in '%' (a grammar with .percent only) */
};

struct fo_expr {
	unsigned n;
	struct fo_term t[FO_MAX_TERMS];
};

/* Parse; 0, or ERR_USAGE with a one-line reason in errbuf. */
int fo_parse(const char *s, struct fo_expr *e, char *errbuf, size_t errlen);

/*
 * The same grammar over another table of metrics (tcpsift diff's): lookup
 * names a metric (its index, or -1 when none has that name); known writes
 * the names for the error (as fo_names()); with percent a value may end in
 * '%' (fo_term.percent). example: an expression for the "empty" error.
 */
struct fo_grammar {
	int (*lookup)(void *ctx, const char *name, size_t len);
	size_t (*known)(void *ctx, char *buf, size_t len);
	void *ctx;
	bool percent;
	const char *example;
};

int fo_parse_with(const char *s, const struct fo_grammar *g, struct fo_expr *e, char *errbuf,
		  size_t errlen);

/* Does term t hold for the value v (t's operator against its value)? */
bool fo_holds(const struct fo_term *t, double v);

/* "stall_time>+10%": the term as a user writes it, its metric called name. */
void fo_term_text(const struct fo_term *t, const char *name, char *buf, size_t len);

/* Does any term hold for these totals? *which names the first that did. */
bool fo_match(const struct fo_expr *e, const struct rep_totals *t, char *which, size_t len);

/* "stall, stalls, stall_time (seconds), ...": every metric, for help and
 * errors, into buf (truncated to len); the length it needed. */
size_t fo_names(char *buf, size_t len);

/* analyze's metrics one by one, m < fo_metric_count(): the name (*unit:
 * NULL for a count, else "seconds" ...) and the value in totals t.
 * fo_metric_find: the index of a name, or -1. */
unsigned fo_metric_count(void);
const char *fo_metric_name(unsigned m, const char **unit);
double fo_metric_value(unsigned m, const struct rep_totals *t);
int fo_metric_find(const char *name);

#endif
