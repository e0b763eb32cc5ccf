/* diff_int.h - the inside of tcpsift diff's comparison, shared by diff.c (values, totals,
 * labels, pairs) and diff_metric.c (the metric table, --fail-on). */
#ifndef TCPSIFT_DIFF_INT_H
#define TCPSIFT_DIFF_INT_H

#include "analyze/diff/diff.h"
#include "analyze/report/det_view.h"
#include "analyze/report/report.h"

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
	SRC_LABEL,  /* a label's class: its share of the run's time (arg: class, lab: label) */
	SRC_COUNT,
};

struct metric {
	struct diff_metric pub;
	enum diff_src src;
	int arg; /* SRC_FO: failon's index; SRC_CLASS_*, SRC_LABEL: the class */
	int lab; /* SRC_LABEL: the label */
};

#define MAX_METRICS 128
#define MAX_LABELS  4

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
	double *vals;		 /* nconns * nmetrics, conns[k].v set by diff_finish() */
	struct diff_label *labs; /* nconns * nlab * SUM_DIR_COUNT, as vals */
	int64_t lab_ns[MAX_LABELS][DET_DIR_CLASSES_MAX]; /* every direction's time */
	struct diff_label run_lab[MAX_LABELS];
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
	int class_base[DET_VIEW_COUNT];		/* the first class row of each view, or -1 */
	const struct det_view *lab[MAX_LABELS]; /* the views with dir classes, by dir_key */
	unsigned nlab;
	struct side s[2];
	struct diff_pair *pairs;
	size_t npairs;
	size_t npairs_by[DIFF_MATCH_COUNT];
};

/* The metric table of a new d: class_base, the labels, the rows. */
void diff_build_metrics(struct diff *d);

#endif
