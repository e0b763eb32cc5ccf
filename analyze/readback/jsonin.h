/* jsonin.h - the report reader: a --json document or --ndjson stream back into summaries. */
#ifndef TCPSIFT_JSONIN_H
#define TCPSIFT_JSONIN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/counters.h"
#include "analyze/engine/source.h"
#include "analyze/engine/summary.h"

/*
 * Reads what the JSON writer (json.c) wrote, parsed with Jansson, back
 * into the engine's own types: struct sum_conn (each detector's part
 * through its view's json_read_conn, det_view.h), struct sum_event, the
 * run's counters and inputs. What the writer derives (rates, averages,
 * duration_s, summary.counts and findings) is not read: the reporters
 * derive it again. A struct sum_rtt comes back with sum_ns = avg * n, so
 * its average is the one written. Times are exact: before Jansson parses a
 * piece, every real number in it is turned into a string (jsonin.c), read
 * back digit by digit into nanoseconds.
 *
 * A --json document is read whole; an --ndjson stream one line at a time
 * (json_loadb per line), so a big stream is read in the memory of its
 * longest line. A file owns everything it hands out (strings, interfaces):
 * valid until ji_close().
 */

/* The reading context of one piece: the first error sticks (enum
 * err_code, a one-line reason naming the member), later reads of a failed
 * context return zeroes. Strings read are interned in pool (static-like
 * pointers: equal strings, equal pointers, as the detectors' reasons). */
struct ji_pool;

struct ji_ctx {
	int err;
	char msg[200];
	struct ji_pool *pool;
};

/* Member key of o: NULL and an error if missing (or o is no object). */
json_t *ji_get(struct ji_ctx *x, const json_t *o, const char *key);
/* An integer member (0 and an error if not one). */
int64_t ji_int(struct ji_ctx *x, const json_t *o, const char *key);
/* An integer member, or null: dflt. */
int64_t ji_int_or(struct ji_ctx *x, const json_t *o, const char *key, int64_t dflt);
/* Seconds as the writer writes them (jo_w_sec): nanoseconds, exactly. */
int64_t ji_sec(struct ji_ctx *x, const json_t *o, const char *key);
int64_t ji_sec_or(struct ji_ctx *x, const json_t *o, const char *key, int64_t dflt);
bool ji_bool(struct ji_ctx *x, const json_t *o, const char *key);
/* A string, interned (NULL for null when nullable, else an error). */
const char *ji_str(struct ji_ctx *x, const json_t *o, const char *key, bool nullable);
/* A string naming one of names[0..n): its index (0 and an error if none). */
unsigned ji_enum(struct ji_ctx *x, const json_t *o, const char *key, const char *const *names,
		 unsigned n);
/* An object {names[k]: count} (as jo_w_named_counts writes it) into v[n]. */
void ji_named_counts(struct ji_ctx *x, const json_t *o, const char *key, const char *const *names,
		     uint64_t *v, unsigned n);
/* An array of exactly n integers. */
void ji_ints(struct ji_ctx *x, const json_t *o, const char *key, int64_t *v, unsigned n);
/* avg * n, a sum the writer wrote as its average (failing x when out of
 * range, so a hostile file cannot overflow it). */
int64_t ji_avg_sum(struct ji_ctx *x, int64_t avg, int64_t n, const char *key);
/* Fail x (if it has not failed yet) with a printf-style reason. */
void ji_fail(struct ji_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One piece of a report back into the engine's types. 0 or ERR_INPUT
 * with the reason in x. */
int ji_conn(struct ji_ctx *x, const json_t *o, struct sum_conn *c);
int ji_event(struct ji_ctx *x, const json_t *o, struct sum_event *e);

/* The run's summary: what struct rep_run carries but its inputs. */
struct ji_summary {
	struct eng_counters eng;
	struct flow_counters flows;
	uint64_t filtered_out, events_dropped;
	bool detectors;		   /* summary.findings of the detectors not null */
	uint32_t shard_k, shard_n; /* summary.shard; n 0: none */
	int schema;		   /* tcpsift.schema */
	const char *version;	   /* tcpsift.version */
	const char *filter;	   /* --json: the document's filter; NULL: none (or NDJSON) */
	const char **vantages;	   /* malloc'd; from ji_next(): the file frees them */
	unsigned nvantages;
};

int ji_input(struct ji_ctx *x, const json_t *o, struct src_input *in);
/* summary: the summary object; tool and vantages: the document's
 * "tcpsift" and "vantages" (NDJSON: members of the summary line). */
int ji_summary(struct ji_ctx *x, const json_t *s, const json_t *tool, const json_t *vantages,
	       struct ji_summary *out);

/* ---- files ---- */

enum ji_kind {
	JI_END = 0,
	JI_CONN,
	JI_EVENT,
	JI_INPUT,
	JI_SUMMARY, /* the last piece: NDJSON's last line, a document's summary */
};

struct ji_item {
	enum ji_kind kind;
	struct sum_conn conn;
	struct sum_event event;
	struct src_input input; /* strings and interfaces owned by the file */
	struct ji_summary summary;
};

struct ji_file;

/* Strings read (interned), shared by files that pass one pool to ji_open:
 * what is read from a file may then outlive it. */
struct ji_pool *ji_pool_new(void);    /* NULL: out of memory */
void ji_pool_free(struct ji_pool *p); /* NULL is a no-op */

/* Open a --json or --ndjson report (told apart by its first line); its
 * strings go to pool (borrowed, must outlive the file), or with NULL to a
 * pool of its own. NULL with a one-line reason in errbuf (naming the file). */
struct ji_file *ji_open(const char *path, struct ji_pool *pool, char *errbuf, size_t errlen);

/* The next piece: its kind (JI_END after the summary), or ERR_INPUT /
 * ERR_SYSTEM / ERR_NOMEM with a one-line reason in errbuf ("FILE: line N:
 * ..."). A stream that ends without its summary line is an error
 * (truncated). Pieces come in the file's order: a document's connections,
 * events, inputs, then its summary. */
int ji_next(struct ji_file *f, struct ji_item *it, char *errbuf, size_t errlen);

bool ji_is_ndjson(const struct ji_file *f);
void ji_close(struct ji_file *f); /* NULL is a no-op */

/* Turn the real numbers of the JSON text in[0, n) into strings
 * ("1.5" -> "\"1.5\""), leaving strings and integers: into a buffer the
 * caller frees (*out, *outn), or NULL (out of memory). For exact times. */
char *ji_quote_reals(const char *in, size_t n, size_t *outn);

#endif
