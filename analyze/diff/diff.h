/* diff.h - tcpsift diff: two runs' connections paired, their metrics compared, --fail-on on the
 * change. */
#ifndef TCPSIFT_DIFF_H
#define TCPSIFT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/summary.h"
#include "analyze/report/failon.h"

/*
 * No I/O: the verb (cli/cmd_diff.c) reads each side's report and hands
 * its connections, events and run figures to diff_add_*(); diff_finish()
 * totals both sides and pairs their connections; the writers (diffout.h)
 * and --fail-on read the result.
 *
 * A metric is one row of the comparison: analyze's --fail-on metrics
 * (failon.h: counted as analyze counts them, so A's and B's values are
 * those analyze reports), the classes of the detectors that have some
 * (stalls: count and time per class, from their events), and a few of
 * the diff's own (connections, bytes, duration, throughput, RTT, time in
 * zero windows, the capture's drops). Each side keeps a value per metric
 * per connection: memory grows with the connections of the two reports.
 */

enum diff_unit {
	DIFF_UNIT_COUNT = 0, /* a count */
	DIFF_UNIT_SECONDS,
	DIFF_UNIT_BPS,	 /* bits per second */
	DIFF_UNIT_BYTES, /* bytes */
	DIFF_UNIT_RATIO, /* a share, 0..1 (the text writes percent) */
	DIFF_UNIT_KINDS,
};

struct diff_metric {
	char name[48];
	enum diff_unit unit;
	/* A run's figure, not a connection's (connections, capture drops), or
	 * one a pair shows otherwise (the share of a label's class). */
	bool run_only;
};

/*
 * How connections pair (diffmatch.h): a mode of diff_new(), and how each
 * pair was matched (TUPLE, ENDPOINT or ORDER). Two runs of one workload
 * keep the server's address and port but not the client's ephemeral
 * port, so AUTO, the default, pairs by 4-tuple only what recurs.
 */
enum diff_match {
	DIFF_MATCH_AUTO = 0, /* TUPLE for a 4-tuple in both runs, then ENDPOINT */
	DIFF_MATCH_TUPLE,    /* client and server address and port; reuse in order */
	DIFF_MATCH_ENDPOINT, /* server address and port, then k-th by first packet with k-th */
	DIFF_MATCH_ORDER,    /* k-th connection by first packet with k-th */
	DIFF_MATCH_COUNT,
};

/* "auto", "tuple", "endpoint", "order": --match's and the JSON's names. */
const char *diff_match_name(enum diff_match m);
/* A name back: its value, or -1. */
int diff_match_find(const char *name);
/* For people: "4-tuple", "server endpoint and order", "first-packet order". */
const char *diff_match_words(enum diff_match m);

/* A direction's dominant class in a view that splits its time into
 * classes (det_view.h's dir classes: the limit detector's limited_by). */
struct diff_label {
	int cls;      /* the class with the most time (ties: the first); -1: no time */
	double share; /* its share of the time, 0..1 */
};

/* A side's run figures that are not its connections'. */
struct diff_run {
	int64_t first_ts, last_ts; /* ns; the run's first and last packet */
	uint64_t capture_drops;
	bool drops_known; /* some input said how many it dropped */
};

/* One connection as the diff keeps it: who it was, and its values
 * (v[m] for each metric m; NaN: unknown, e.g. no RTT sample). */
struct diff_conn {
	uint64_t id;
	struct dec_addr client, server;
	uint16_t client_port, server_port;
	int64_t first_ts, last_ts;
	double *v;
	const struct diff_label *lab; /* lab[l * SUM_DIR_COUNT + dir]: diff_conn_label() */
};

struct diff_pair {
	const struct diff_conn *a, *b;
	enum diff_match how; /* TUPLE, ENDPOINT or ORDER */
};

struct diff;

/* NULL with a one-line reason in errbuf (out of memory). */
struct diff *diff_new(enum diff_match match, char *errbuf, size_t errlen);
void diff_free(struct diff *d); /* NULL is a no-op */

unsigned diff_nmetrics(const struct diff *d);
const struct diff_metric *diff_metric(const struct diff *d, unsigned m);
/* A metric by name (or an alias: stall, stall_time_s ...), or -1. */
int diff_metric_find(const struct diff *d, const char *name, size_t len);
/* "connections, stalls, stall_time (seconds), ...": for help and errors;
 * the length it needed (as snprintf). */
size_t diff_metric_names(const struct diff *d, char *buf, size_t len);

/* Side 0 (A) or 1 (B): a connection, an event, the run. 0 or ERR_NOMEM.
 * Nothing passed is kept (copied). Events may come before or after
 * their connection. */
int diff_add_conn(struct diff *d, int side, const struct sum_conn *c);
int diff_add_event(struct diff *d, int side, const struct sum_event *e);
void diff_set_run(struct diff *d, int side, const struct diff_run *r);

/* Totals and pairs, once everything was added: 0 or ERR_NOMEM. */
int diff_finish(struct diff *d);

/* After diff_finish(): a side's totals (its values for every metric). */
const double *diff_totals(const struct diff *d, int side);
size_t diff_nconns(const struct diff *d, int side);
/* Matched pairs, in A's first-packet order. */
size_t diff_npairs(const struct diff *d);
const struct diff_pair *diff_pair_at(const struct diff *d, size_t k);
/* A side's connections the other has no match for, in first-packet order. */
size_t diff_nonly(const struct diff *d, int side);
const struct diff_conn *diff_only_at(const struct diff *d, int side, size_t k);
/* The mode diff_new() was given, and how many pairs were matched how. */
enum diff_match diff_match_kind(const struct diff *d);
size_t diff_npairs_by(const struct diff *d, enum diff_match how);

/*
 * Labels: each view with dir classes (det_view.h) gives every direction
 * its dominant class and that class's share of the direction's time; the
 * run's label is the same over the time of every direction of the run.
 * The classes' shares of the run's time are metrics too ("limited_by_"
 * class, run totals only: a pair shows its directions' labels).
 */
unsigned diff_nlabels(const struct diff *d);
/* Its key: the view's dir_key ("limited_by"); labels in key order. */
const char *diff_label_key(const struct diff *d, unsigned l);
/* A class's name ("congestion"); "none" for -1. */
const char *diff_label_class(const struct diff *d, unsigned l, int cls);
/* After diff_finish(): a connection's label l for direction dir (enum
 * sum_dir_id), and a run's. */
const struct diff_label *diff_conn_label(const struct diff *d, const struct diff_conn *c,
					 unsigned l, unsigned dir);
const struct diff_label *diff_run_label(const struct diff *d, int side, unsigned l);
/* Another dominant class, or another share (as diff_changed())? */
bool diff_label_changed(const struct diff_label *a, const struct diff_label *b);

/* Did a metric change from a to b (beyond the rounding of a report)? */
bool diff_changed(double a, double b);
/* b - a (NaN if either is unknown) and the relative change in percent
 * (NaN when a is unknown, 0 or b unknown; 0 when both are 0). */
double diff_delta(double a, double b);
double diff_pct(double a, double b);

/*
 * --fail-on on the change of the run totals: failon.h's grammar over the
 * diff's metrics, a value compared with b - a, or with a '%' with the
 * relative change ('stall_time>+10%', 'retransmissions>+5',
 * 'throughput<-20%'). A relative term holds from 0 to anything above 0
 * as +infinity. 0, or ERR_USAGE with a one-line reason in errbuf.
 */
int diff_fail_parse(const struct diff *d, const char *s, struct fo_expr *e, char *errbuf,
		    size_t errlen);
/* After diff_finish(): does a term hold? which: the first that did,
 * with the values ("stall_time>+10% (0.244 -> 0.513 s, +110%)"). */
bool diff_fail_match(const struct diff *d, const struct fo_expr *e, char *which, size_t len);

#endif
