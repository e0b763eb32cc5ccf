/* report.h - reporters: collect connection summaries and events, write text/JSON/NDJSON. */
#ifndef TCPSIFT_REPORT_H
#define TCPSIFT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/engine/counters.h"
#include "analyze/engine/source.h"
#include "analyze/engine/summary.h"
#include "analyze/report/det_view.h"
#include "common/err.h"
#include "common/idset.h"

/*
 * A report owns copies of every connection summary and (up to max_events)
 * event the engine delivered through rep_sink(). It never sees the engine
 * itself: what else it prints (inputs, counters) comes in a struct rep_run
 * filled by the caller at the end. NDJSON streams events and connections
 * as they arrive; text and JSON are written by rep_finish().
 */

enum rep_format {
	REP_TEXT = 0,
	REP_JSON,
	REP_NDJSON,
	REP_HTML, /* one page: --plot DIR's index.html */
	REP_FORMAT_COUNT,
};

/*
 * What the text report's connection part shows (tcpsift(1), TEXT REPORT):
 * the table's order and length, and the long form of connections.
 */
struct rep_text_opts {
	int sort;	/* rep_sort_parse(); 0: first-packet order (id) */
	uint64_t top;	/* table rows; 0: all */
	bool long_form; /* every reported connection in long form (--long; --conn too) */
};

/* A --sort name ("rtt") as its value for rep_text_opts.sort, or -1. */
int rep_sort_parse(const char *name);
/* The --sort names, comma separated, into buf (for --help). */
void rep_sort_names(char *buf, size_t len);

struct rep_config {
	enum rep_format format;
	struct rep_text_opts text;
	FILE *out;	     /* not owned */
	uint32_t max_events; /* events kept beyond this are counted, not stored */
	bool frames;	     /* per-frame verdicts are events too (--frames) */
	FILE *frames_csv;    /* NULL, or where each verdict goes as a CSV row (not owned) */
	/* Input file names by struct pkt.input, for CSV rows (borrowed). */
	const char *const *input_names;
	unsigned ninput_names;
	/* Connection summaries kept in memory for text/JSON beyond this go to a
	 * temporary file (connstore.h); 0: REP_CONN_MEM_DEFAULT. */
	size_t conn_mem;
	/* --conn: only these connections and their events are reported and
	 * counted (borrowed; NULL: all). */
	const struct idset *only;
	/* REP_HTML: where the graphs are (borrowed), and a FILE that gets the
	 * JSON document too (not owned; NULL: none). */
	const char *html_dir;
	FILE *json_out;
};

#define REP_CONN_MEM_DEFAULT (64u << 20)

struct jo_writer;

/*
 * What a module beside the report adds to its JSON and NDJSON
 * (analyze --vantage-pair: analyze/vpair/vpair.h); any callback may be
 * NULL. The report calls them while it writes, never keeps them.
 */
struct rep_extra {
	void *ctx;
	/* JSON: members of connection c, key and value (keys sorting before
	 * "c2s"), or nothing. */
	void (*conn_json)(void *ctx, struct jo_writer *w, const struct sum_conn *c);
	/* JSON: the value of the document's member doc_key (which sorts
	 * between "tcpsift" and "vantages"). */
	const char *doc_key;
	void (*doc_json)(void *ctx, struct jo_writer *w);
	/* NDJSON: lines of its own before the inputs and the summary; 0 or an
	 * enum err_code. */
	int (*ndjson)(void *ctx, struct jo_writer *w);
};

/*
 * capture --analyze: the file a stretch of the live input was written to,
 * from frame first_frame (the capture's count) until the next one's. path
 * NULL: written to no file (-w -). A rotating capture has one per file.
 */
struct rep_written {
	uint64_t first_frame;
	const char *path;
};

/* Everything about the run that is not a connection or an event. */
struct rep_run {
	const char *version;
	const char *filter;
	unsigned ninputs;
	const struct src_input *const *inputs;
	uint64_t filtered_out;
	struct eng_counters eng;
	struct flow_counters flows;
	unsigned nvantages;
	const char *const *vantage_names; /* by sum_conn.vantage */
	bool detectors;			  /* the detectors ran (else their findings are unknown) */
	uint32_t shard_k, shard_n;	  /* --shard K/N; shard_n 0: not sharded */
	uint64_t events_dropped;	  /* dropped before the report (merge: by the shards) */
	int stopped_by;			  /* the signal that ended the read early, or 0 */
	const struct rep_extra *extra;	  /* NULL: none */
	unsigned threads;		  /* that may write the report (0, 1: the caller's) */
	/* Input 0 is a live capture written to these files, in order (the
	 * tshark lines name them, not the interface); NULL: the inputs are
	 * the files. */
	const struct rep_written *written;
	size_t nwritten;
};

/* One thing that kept the report from covering all of its input (the
 * report's "errors", tcpsift-json(5)). */
struct rep_error {
	int input;	  /* index into rep_run.inputs, or -1: the run's own */
	int code;	  /* enum err_code: err_reason_name() names it */
	const char *path; /* the input's (borrowed from the run), or NULL */
	char message[320];
};

typedef void rep_error_fn(void *ctx, const struct rep_error *e);

/* Call fn (unless NULL) on each error of run in order: each input that
 * failed (its reader's error) or holds packets of no link type tcpsift
 * decodes, then the run's interruption. Returns how many there are. */
unsigned rep_each_error(const struct rep_run *run, rep_error_fn *fn, void *ctx);

struct report;

struct report *rep_new(const struct rep_config *cfg, char *errbuf, size_t errlen);

/* The sink to give the engine; valid while the report lives. */
struct sum_sink rep_sink(struct report *r);

/* Write the report (text/JSON) or the closing lines (NDJSON). 0, or an
 * enum err_code with one line in errbuf (a write error, memory). */
int rep_finish(struct report *r, const struct rep_run *run, char *errbuf, size_t errlen);

void rep_free(struct report *r); /* NULL is a no-op */

/* Totals over what was delivered so far (for --fail-on). */
const struct rep_totals *rep_get_totals(const struct report *r);
/* Connections the report took so far: all of them, or those --conn names
 * that the input holds. */
uint64_t rep_selected(const struct report *r);

/* ---- shared by the writers (report_*.c) ---- */

/* Totals over all connections and events, computed once for every writer. */
struct rep_totals {
	uint64_t retrans, fast, rto, spurious, ooo, dup_acks, zero_windows, zw_episodes;
	uint64_t window_full, keepalives, acked_unseen, unseen_bytes, capture_loss_segments;
	uint64_t dsack, oversize, lost_segments, lost_upstream, ack_reordering;
	uint64_t conns_with_retrans, conns_with_ooo, conns_with_loss, conns_evicted;
	uint64_t conns_resumed; /* parts of connections that resumed after an eviction */
	int64_t zw_time_ns;
	uint64_t ooo_by[SUM_BY_COUNT], lost_upstream_by[SUM_BY_COUNT];
	uint64_t tlp, tlp_new_data, spurious_dsack, fills_undecided;
	struct det_totals det; /* from the detectors (sum_conn.det), through their views */
};

/* Add one connection / one event to t, as the report adds every one it is
 * given (the totals analyze's text, JSON and --fail-on show). */
void rep_totals_add_conn(struct rep_totals *t, const struct sum_conn *c);
void rep_totals_add_event(struct rep_totals *t, const struct sum_event *e);

/* The earliest few frames of one kind of per-frame verdict (by time,
 * input, frame: not the order verdicts were decided in, so that a merge of
 * shards finds the same), for the text findings: real frame numbers a user
 * can look up, not connection spans. */
#define REP_FRAME_EXAMPLES 8

struct rep_frame_list {
	uint64_t count;
	unsigned n;
	struct {
		int64_t ts;
		uint64_t frame, conn;
		uint32_t input;
	} ex[REP_FRAME_EXAMPLES];
};

struct cs_store;

struct rep_data {
	const struct sum_conn *conns; /* sorted by id: read them with rep_conn_at() */
	size_t nconns;
	const struct cs_store *store;	/* where conns live (NULL: plain memory) */
	const struct sum_event *events; /* in canonical order (rep_event_cmp) */
	size_t nevents;
	uint64_t events_dropped;
	struct rep_totals tot;
	/* By per-frame verdict type (SUM_EV_RETRANS ..), the others empty. */
	const struct rep_frame_list *frames;
	const struct rep_text_opts *text; /* the text report's choices (NULL: defaults) */
	/* The text's long form: the per-frame verdicts of its connections,
	 * in rep_event_cmp order (up to max_events; the rest counted). */
	const struct sum_event *verdicts;
	size_t nverdicts;
	uint64_t verdicts_dropped;
};

/* The order of events in text and JSON: by time, then connection id, type,
 * direction, input and frames; ties keep the order found. One order a
 * one-pass run and `tcpsift merge` of its shards both give (the order
 * found depends on how connections interleave). <0, 0, >0 as strcmp. */
int rep_event_cmp(const struct sum_event *a, const struct sum_event *b);

/*
 * A list of events grouped by connection, each group in the list's order:
 * the indexes of ev sorted by connection id, walked in increasing ids by
 * rep_events_of(). The HTML report and the text's long form use it.
 */
struct rep_conn_events {
	const struct sum_event *ev; /* borrowed */
	uint32_t *idx;		    /* owned */
	size_t n, at;		    /* at: the walk's cursor */
};

enum rep_ev_pick {
	REP_EV_ALL = 0,
	REP_EV_VERDICTS, /* only per-frame verdicts (sum_event_is_frame()) */
	REP_EV_OTHERS,	 /* all but them */
};

/* Group the events of ev[n] that pick selects. 0 or ERR_NOMEM. */
int rep_group_events(struct rep_conn_events *g, const struct sum_event *ev, size_t n,
		     enum rep_ev_pick pick);
/* Connection id's events: g->idx[*first, return). Ids are asked in
 * increasing order (set g->at = 0 to walk again). */
size_t rep_events_of(struct rep_conn_events *g, uint64_t id, size_t *first);
void rep_conn_events_free(struct rep_conn_events *g);

/* Connection k of d (k < d->nconns). Loops walking the connections in
 * order read them through this: every 1024 it lets the store drop the
 * stretch well behind k (a pointer kept from there stays valid), so a
 * spilled million-connection report is walked in bounded memory. */
const struct sum_conn *rep_conn_at(const struct rep_data *d, size_t k);

/* "    frames 12, 57, 98 ...\n    tshark -r FILE -Y 'frame.number in {12,57,98}'\n"
 * for the examples of l (one tshark line per input they come from). */
void rep_text_frames(FILE *out, const struct rep_frame_list *l, const struct rep_run *run);

/* A frame as the text names it: "123" with one input (or run NULL),
 * "b.pcap:#123" (the input's path as given) with several, or with a live
 * input written to several files (run->written) the file's and its number
 * there. */
void rep_fmt_frame(char *buf, size_t len, const struct rep_run *run, uint32_t input,
		   uint64_t frame);

/* The file holding frame of input, as tshark -r takes it: the input's
 * path, or with run->written the file the capture wrote it to (NULL: none,
 * -w -), *local (unless NULL) its frame number there. */
const char *rep_frame_file(const struct rep_run *run, uint32_t input, uint64_t frame,
			   uint64_t *local);

/* "" for one, "s" for any other count: plurals in the text. */
static inline const char *rep_plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* "850 us", "40.1 ms", "1.36 s": durations in the text findings. */
void rep_fmt_dur(char *buf, size_t len, int64_t ns);
/* The same, "unknown" for a negative ns (a path's round trips, -1). */
void rep_fmt_dur_known(char *buf, size_t len, int64_t ns);
/* "2.4", "<0.1" (some lost), "0": a loss rate (0..1, sum_loss_rate()) in
 * percent, "-" when negative (no data): the tables' cell (text, TUI). */
void rep_fmt_loss(char *buf, size_t len, double rate);
/* snprintf(buf, len, "%.*f%s", prec, v, suffix), the number written
 * without printf where jo_fmt_fixed() can (prec 0..3): the same bytes. */
void rep_fmt_fixed(char *buf, size_t len, double v, int prec, const char *suffix);

/* The direction's RTT with the most samples (data/ACK, else TSval/TSecr),
 * or NULL when neither direction has any: the tables' RTT (text, HTML). */
const struct sum_rtt *rep_best_rtt(const struct sum_conn *c);

/* Payload of both directions, retransmissions included, over the
 * connection's duration, bit/s; -1 when it lasted no time. The tables'
 * throughput (text, HTML): the sum of the JSON's per-direction
 * throughput_bps, which has the same definition. */
double rep_conn_throughput(const struct sum_conn *c);

/* "1.2.3.4:80" or "[2001:db8::1]:443". */
void rep_format_endpoint(const struct dec_addr *a, uint16_t port, char *buf, size_t len);
/* s[0..n) into buf as snprintf(buf, len, "%s") would cut it (len 0: nothing). */
void rep_copy_cut(char *buf, size_t len, const char *s, size_t n);

/* Room for any rep_tshark_filter(): four IPv6 addresses, the frame span
 * and an interface name. */
#define REP_TSHARK_FILTER_LEN 512

/*
 * The Wireshark/tshark display filter selecting exactly connection c's
 * frames: each direction's addresses and ports (tcp.stream numbers are
 * Wireshark's own), not ICMP (whose errors quote TCP headers that tshark
 * matches too), the frame span when the connection lies in one input (a
 * port reused later is another connection; frame numbers count within a
 * file) and, with iface (the vantage's name when there are several; NULL
 * otherwise), the interface. The text's long form prints it per input and
 * the dashboard's 'c' copies it: one builder, so they never differ.
 */
void rep_tshark_filter(char *buf, size_t len, const struct sum_conn_ident *c, const char *iface);

int rep_write_text(FILE *out, const struct rep_data *d, const struct rep_run *run);
/* The text report without its connection table: the run and the findings. */
int rep_write_text_findings(FILE *out, const struct rep_data *d, const struct rep_run *run);
/* The report as one HTML page (html.c): graph_dir is where --plot wrote the
 * connections' graphs, linked when present (NULL: none). */
int rep_write_html(FILE *out, const struct rep_data *d, const struct rep_run *run,
		   const char *graph_dir);
int rep_write_json(FILE *out, const struct rep_data *d, const struct rep_run *run, char *errbuf,
		   size_t errlen);
/* errbuf gets the line for a write failure code (sys_errno: its errno). */
void rep_write_error(int code, int sys_errno, char *errbuf, size_t errlen);

struct jo_writer;
struct jo_fields;

/* NDJSON pieces, one line each, through w (compact, handed to its FILE a
 * line at a time). 0 or an enum err_code. */
int rep_ndjson_conn(struct jo_writer *w, const struct sum_conn *c);
int rep_ndjson_event(struct jo_writer *w, const struct sum_event *e);
int rep_ndjson_tail(struct jo_writer *w, const struct rep_data *d, const struct rep_run *run);

/* One connection or event as a JSON object written into w. kind: NULL, or
 * the "kind" member of an NDJSON line. */
void rep_jw_conn(struct jo_writer *w, const struct sum_conn *c, const char *kind);
void rep_jw_event(struct jo_writer *w, const struct sum_event *e, const char *kind);
/* The members rep_jw_event() writes for e (no "kind"), into f (reset first):
 * the TUI shows them as a finding's evidence. */
void rep_event_fields(struct jo_fields *f, const struct sum_event *e);

#endif
