/* model.h - the dashboard's data: connections, their timelines and findings; no curses here. */
#ifndef TCPSIFT_TUI_MODEL_H
#define TCPSIFT_TUI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/summary.h"
#include "analyze/report/det_view.h"

/*
 * The model is fed by the engine's sink (connections ending, events, and
 * every segment) on the thread that runs the engine, and by
 * tm_update_live() with the summaries of connections still open. It owns:
 *
 *   - one struct tm_conn per connection: the latest summary, tallies of
 *     its findings so far, a throughput estimator and a coarse timeline
 *     (fixed size: TM_BUCKETS buckets whose width doubles as the
 *     connection ages, so a 10 ms transfer and a 10 min one both fill it);
 *   - the last TM_LOG findings, and running totals of every kind;
 *   - the findings grouped by connection and kind, at most TM_GROUPS
 *     groups (the least recently grown go first, counted): each counts
 *     every finding of its kind, not only those still in the log;
 *   - ended connections, at most keep_ended of them (the oldest go first,
 *     counted): memory follows live connections plus that cap.
 *
 * tm_snapshot_fill() copies what a screen needs into a struct
 * tm_snapshot owned by the caller, so the UI thread never touches the
 * model: data flows engine -> model -> snapshot -> view.
 */

#define TM_BUCKETS	  64  /* timeline buckets per connection */
#define TM_QUEUES	  16  /* per-queue packet counts; higher queue ids share the last */
#define TM_LOG		  512 /* findings kept for the log */
#define TM_GROUPS	  256 /* (connection, kind) groups of findings */
#define TM_RATE_WINDOW_NS 1000000000ll /* throughput: bytes over the last second */

/* Bucket flags: a zero window was advertised, or an event of detector
 * view k (det_views[k], its timeline_mark) happened / lasted in it. */
#define TM_B_ZERO_WINDOW 1u
#define TM_B_VIEW(k)	 (1u << (1 + (k)))
_Static_assert(1 + DET_VIEW_COUNT <= 8, "tm_bucket.flags holds a bit per detector view");

struct tm_bucket {
	uint32_t bytes[SUM_DIR_COUNT];	/* payload sent each way, retransmissions included */
	uint32_t seq_hi[SUM_DIR_COUNT]; /* highest relative sequence end reached (0: none) */
	uint16_t retrans[SUM_DIR_COUNT];
	uint8_t flags; /* enum tm_bucket_flag */
};

/* A connection's life in TM_BUCKETS buckets: bucket k covers
 * [t0 + k*width_ns, t0 + (k+1)*width_ns). */
struct tm_timeline {
	int64_t t0, width_ns;
	uint32_t used; /* buckets touched: 1 + the last one written */
	struct tm_bucket b[TM_BUCKETS];
};

/* Bytes in the current and the previous TM_RATE_WINDOW_NS window, per direction. */
struct tm_rate {
	bool started;
	int64_t win_start;
	uint64_t cur[SUM_DIR_COUNT], prev[SUM_DIR_COUNT];
};

/* One line of the connection table: what the view sorts, filters and draws. */
struct tm_row {
	uint64_t id;
	struct dec_addr client, server;
	uint16_t client_port, server_port;
	enum sum_state state;
	bool ended;
	double rate[SUM_DIR_COUNT];	 /* bytes/s over the last second of capture time */
	uint64_t bytes[SUM_DIR_COUNT];	 /* payload, retransmissions included */
	uint64_t packets[SUM_DIR_COUNT]; /* TCP segments */
	int64_t rtt_ns;			 /* smallest RTT measured either way (-1: none) */
	int64_t path_ns;		 /* the path's RTT end to end (sum_path; -1: unknown) */
	uint64_t retrans;
	double loss; /* sum_conn_loss_rate(): 0..1, -1 without data */
	/* The detectors' columns (det_view.h), by view and column. */
	struct det_cell det[DET_VIEW_COUNT][DET_MAX_COLUMNS];
	uint64_t ooo;
	uint32_t queues;      /* distinct RX queues (0: unknown) */
	uint32_t vantage;     /* where it was seen (analyze/engine/source.h), names in pl_header */
	bool vantage_matters; /* the same 4-tuple is in the table from another vantage */
	int64_t first_ts, last_ts;
	/* Where its first and last packets are: input and frame number in it
	 * (its tshark filter, rep_tshark_filter()). */
	uint32_t first_input, last_input;
	uint64_t first_frame, last_frame;
};

/* Everything the detail view shows about one connection. */
struct tm_detail {
	bool valid;
	bool ended;
	struct sum_conn s;
	struct det_totals live; /* its events so far (results some detectors settle at the end) */
	struct tm_timeline tl;
	double rate[SUM_DIR_COUNT];
	uint64_t queue_pkts[TM_QUEUES];
};

/*
 * The findings of one kind on one connection, every one of them since the
 * start (the log keeps the last TM_LOG only): the findings pane's line.
 * worst (tm_event_worse): the longest of a kind that spans time (stalls),
 * else the one of most bytes (the largest SACK hole), then the longest;
 * the first found of equals.
 */
struct tm_group {
	uint64_t conn;
	enum sum_event_type type;
	uint8_t dirs; /* a bit per enum sum_dir_id it was seen in */
	uint64_t count;
	uint32_t first_input;
	uint64_t first_frame;
	int64_t first_ts, last_ts;
	uint64_t last_seq; /* the model's count of findings when it last grew: LRU */
	struct sum_event worst;
};

/* Totals over every connection and event since the start. */
struct tm_totals {
	uint64_t conns, live, ended_dropped;
	uint64_t groups_dropped; /* findings groups evicted at TM_GROUPS */
	uint64_t events[SUM_EV_TYPE_COUNT];
	struct det_totals det; /* the detectors' tallies of their events */
	uint64_t retrans;
};

struct tm_snapshot {
	int64_t now; /* capture time of the latest packet (ns); live: at least the wall time */
	struct tm_totals tot;
	struct tm_row *rows; /* nrows of them, in connection id order */
	uint32_t nrows, cap;
	uint32_t *scratch;	      /* cap indexes, for finding 4-tuples seen twice */
	struct sum_event log[TM_LOG]; /* newest first */
	uint32_t nlog;
	struct tm_group groups[TM_GROUPS]; /* in no order */
	uint32_t ngroups;
	struct tm_detail detail; /* of the id asked for, if it is known */
};

struct tm_config {
	uint32_t keep_ended; /* ended connections kept for the table */
};

struct tm_model;

struct tm_model *tm_new(const struct tm_config *cfg, char *errbuf, size_t errlen);
void tm_free(struct tm_model *m); /* NULL is a no-op */

/* The sink to give the engine: it feeds the model. */
struct sum_sink tm_sink(struct tm_model *m);

/* Live capture: the clock moves on without packets. now (ns, the packets'
 * clock: wall time) becomes the model's time if later, so rates decay to 0
 * and connections age while nothing arrives. Replay never calls it. */
void tm_advance_clock(struct tm_model *m, int64_t now);

/* A live connection's current summary (engine's eng_foreach_live). */
void tm_update_live(void *model, const struct sum_conn *c);

/* Fill s with the table rows, the log, the totals and the detail of
 * detail_id (0: none). Grows s->rows as needed; 0 or ERR_NOMEM. */
int tm_snapshot_fill(const struct tm_model *m, struct tm_snapshot *s, uint64_t detail_id);

void tm_snapshot_free(struct tm_snapshot *s); /* frees rows only */

/* Timeline helpers, exported for the view and the tests. */
void tm_timeline_add(struct tm_timeline *tl, int64_t ts, unsigned dir, uint32_t bytes,
		     uint32_t seq_end, bool retrans, uint8_t flags);
void tm_timeline_mark(struct tm_timeline *tl, int64_t from, int64_t to, uint8_t flags);
void tm_rate_add(struct tm_rate *r, int64_t ts, unsigned dir, uint32_t bytes);
double tm_rate_get(const struct tm_rate *r, int64_t now, int64_t first_ts, unsigned dir);

/* Does this event go to the findings log? (Every event is counted.) */
bool tm_event_logged(const struct sum_event *e);

/* Is a worse than b, the finding a group shows (struct tm_group.worst)? */
bool tm_event_worse(const struct sum_event *a, const struct sum_event *b);

#endif
