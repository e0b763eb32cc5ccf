/* metrics.h - live totals for --metrics and their exposition text (Prometheus, OpenMetrics). */
#ifndef TCPSIFT_METRICS_H
#define TCPSIFT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/counters.h"
#include "analyze/engine/summary.h"

/*
 * A reporter for a scrape: it takes the engine's sink like the report
 * does and keeps only totals, so a live run's memory does not grow with
 * it. What a scrape shows is
 *
 *   counters  connections that ended (their summaries, as the report adds
 *             them: rep_totals_add_conn) + the live ones as they stand at
 *             the scrape (mx_live_conn), and findings counted as their
 *             events arrive: the numbers the report prints at exit;
 *   gauges    live connections, and the top_n of them with the most
 *             trouble (lost segments, stalls, SACK holes so far): bounded
 *             label cardinality, MX_TOP_MAX at most;
 *   a histogram of path round trips (struct sum_path), one observation a
 *             connection when it ends (a counter cannot take it back).
 *
 * The caller (the verb driving the engine) feeds the sink, and for each
 * scrape calls mx_live_begin(), mx_live_conn() for every live connection,
 * mx_set_counters() (and mx_set_capture() when it captures), then
 * mx_render(). All on one thread; nothing here is called per packet.
 */

#define MX_TOP_DEFAULT 10
#define MX_TOP_MAX     100
#define MX_MAX_CLASSES 16 /* classes of a view's findings counted (det_view.nclasses) */

/* --metrics ADDR:PORT and --metrics-top N, as a verb hands them on. */
struct mx_opts {
	const char *addr; /* NULL: no --metrics */
	unsigned top;	  /* the trouble gauge's connections */
};
#define MX_OPTS_INIT                                                                               \
	{                                                                                          \
		.addr = NULL, .top = MX_TOP_DEFAULT                                                \
	}

/* The capture's own drops (tcpsift capture's ring), when there is one. */
struct mx_capture {
	bool known;
	uint64_t kernel_drops, if_drops, our_drops;
};

struct mx_acc;

/* top_n: connections in the trouble gauge (0..MX_TOP_MAX). NULL with
 * errbuf filled when out of memory. */
struct mx_acc *mx_new(unsigned top_n, char *errbuf, size_t errlen);
void mx_free(struct mx_acc *m); /* NULL is a no-op */

/* Start again from nothing (a replay that starts over: its counters reset,
 * as Prometheus reads a restarted exporter's). */
void mx_reset(struct mx_acc *m);

/* The sink to give the engine (valid while m lives). */
struct sum_sink mx_sink(struct mx_acc *m);

/* A scrape: forget the last pass over live connections, then add each
 * (the engine's eng_foreach_live / wk_foreach_live callback: ctx is m). */
void mx_live_begin(struct mx_acc *m);
void mx_live_conn(void *m, const struct sum_conn *c);

void mx_set_counters(struct mx_acc *m, const struct eng_counters *eng,
		     const struct flow_counters *flows);
void mx_set_capture(struct mx_acc *m, const struct mx_capture *cap);

/*
 * The exposition text into a buffer m owns and reuses: OpenMetrics 1.0
 * (openmetrics) or the Prometheus text format 0.0.4. *body is valid until
 * the next call. 0 or ERR_NOMEM.
 */
int mx_render(struct mx_acc *m, bool openmetrics, const char **body, size_t *len);

/* The Content-Type of that text. */
const char *mx_content_type(bool openmetrics);

/*
 * --metrics ADDR:PORT: the totals behind GET /metrics (common/httpd.h),
 * for a verb that drives an engine (capture --analyze, tui). It owns an
 * acc (mx_server_acc(): give the engine its sink) and the server.
 */
struct mx_server;

/* Listen on addr: 0, or a negative enum err_code with errbuf filled
 * (httpd_new()'s, or ERR_NOMEM). */
int mx_server_new(const char *addr, unsigned top_n, struct mx_server **out, char *errbuf,
		  size_t errlen);
struct mx_acc *mx_server_acc(struct mx_server *s);
const char *mx_server_addr(const struct mx_server *s); /* "127.0.0.1:9464" */

/* Answer the scrapes waiting, without waiting for any (call it every
 * 100 ms or so). Before each answer refresh(ctx, acc) brings the live part
 * up to date: mx_live_begin(), mx_live_conn() for each live connection,
 * mx_set_counters(), mx_set_capture(). Returns the scrapes answered. */
int mx_server_poll(struct mx_server *s, void (*refresh)(void *ctx, struct mx_acc *m), void *ctx);

void mx_server_free(struct mx_server *s); /* NULL is a no-op */

#endif
