/* cmd_merge.c - the `tcpsift merge` verb: the reports of --shard K/N back into one. */
#include "cli/cmd_merge.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/readback/jsonin.h"
#include "analyze/report/report.h"
#include "cli/cliopt.h"
#include "common/grow.h"

/*
 * Two passes over the shards' reports (tcpsift-merge(1)). The first reads
 * every report through: the shard it says it is, its inputs, and the first
 * packet (time, input, frame) of each connection by the shard's own id.
 * Sorting those gives the one-pass ids (a one-pass run numbers connections
 * in the order of their first packet). The second pass reads the shards
 * again in shard order and hands every connection, renumbered, to the same
 * reporters as analyze, and every event, its "conn" renumbered: the report
 * keeps them in one order (rep_event_cmp()) whatever the order they come.
 */

enum opt_id {
	OPT_JSON = 'j',
	OPT_OUTPUT = 'o',
	OPT_HELP = 'h',
	OPT_NDJSON = 256,
	OPT_MAX_EVENTS,
	OPT_REPORT_MEMORY,
};

static const struct cli_opt merge_opts[] = {
    {"json", OPT_JSON, NULL, "one JSON document, as analyze --json"},
    {"ndjson", OPT_NDJSON, NULL, "one JSON object per line, as analyze --ndjson"},
    {"output", OPT_OUTPUT, "FILE", "write the report to FILE instead of stdout"},
    {"max-events", OPT_MAX_EVENTS, "N", "events kept for the report (default 100000)"},
    {"report-memory", OPT_REPORT_MEMORY, "MIB",
     "connections kept in memory for text/JSON (64); the rest in $TMPDIR"},
    CLI_VERSION_OPT,
    {"help", OPT_HELP, NULL, "this help"},
};

#define N_OPTS (sizeof(merge_opts) / sizeof(merge_opts[0]))

struct merge_cfg {
	enum rep_format format;
	const char *output;
	uint32_t max_events;
	size_t report_memory; /* bytes; SIZE_MAX: the default */
};

static void usage(FILE *f)
{
	fputs("usage: tcpsift merge [options] SHARD_REPORT...\n"
	      "\n"
	      "Combine the --json or --ndjson reports of `tcpsift analyze --shard K/N`,\n"
	      "shards 1 to N each once, into the report one pass over the same inputs\n"
	      "writes: counters summed, connections numbered in first-packet order.\n"
	      "Text and JSON are the one-pass bytes but, unless the shards wrote per-frame\n"
	      "verdicts (analyze --frames), the text's example frames. flows.max_live is\n"
	      "the one-pass peak, found from when each connection was live (reports of\n"
	      "tcpsift before 2026-12 lack that: the shards' peaks summed, a bound).\n"
	      "\n"
	      "Options:\n",
	      f);
	cli_print_options(f, merge_opts, N_OPTS, 26);
	fputs("\nExit status: 0 ok, 2 usage error, 3 a report missing, unreadable, not a\n"
	      "shard's or not of the same run as the others.\n"
	      "See tcpsift-merge(1).\n",
	      f);
}

static int on_option(void *ctx, int c, const char *arg)
{
	struct merge_cfg *cfg = ctx;
	uint64_t v;

	switch (c) {
	case OPT_JSON:
		return cli_report_format("merge", &cfg->format, REP_JSON);
	case OPT_NDJSON:
		return cli_report_format("merge", &cfg->format, REP_NDJSON);
	case OPT_OUTPUT:
		cfg->output = arg;
		break;
	case OPT_MAX_EVENTS:
		if (cli_parse_u64(arg, 0, UINT32_MAX, &v) < 0) {
			cli_bad_value("merge", "max-events", arg, "a count");
			return TCPSIFT_EXIT_USAGE;
		}
		cfg->max_events = (uint32_t)v;
		break;
	case OPT_REPORT_MEMORY:
		if (cli_parse_u64(arg, 0, 1u << 20, &v) < 0) {
			cli_bad_value("merge", "report-memory", arg, "MiB from 0 to 1048576");
			return TCPSIFT_EXIT_USAGE;
		}
		cfg->report_memory = (size_t)v << 20;
		break;
	case OPT_HELP:
		usage(stdout);
		return TCPSIFT_EXIT_OK;
	}
	return CLI_GO_ON;
}

/* A connection's first packet: the one-pass id order. */
struct conn_key {
	int64_t ts;
	uint64_t frame;
	uint32_t input;
	uint32_t shard; /* index into the shard table */
	uint64_t old_id;
};

static int key_cmp(const void *pa, const void *pb)
{
	const struct conn_key *a = pa, *b = pb;

	/* One input is read in its file's order, timestamps going backwards
	 * or not; inputs are merged by time, ties to the lower input. */
	if (a->input == b->input && a->frame != b->frame)
		return a->frame < b->frame ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->input != b->input)
		return a->input < b->input ? -1 : 1;
	if (a->frame != b->frame)
		return a->frame < b->frame ? -1 : 1;
	if (a->shard != b->shard)
		return a->shard < b->shard ? -1 : 1;
	return a->old_id < b->old_id ? -1 : a->old_id > b->old_id;
}

struct shard {
	const char *path;
	uint32_t k, n;
	uint64_t *new_id; /* by the shard's id - 1 */
	uint64_t nids;	  /* its highest id */
	uint64_t nconns;  /* its connections: ids are 1..nconns */
	uint64_t fingerprint;
	uint64_t filter;  /* the filter's hash; only a JSON report says it */
	bool says_filter; /* ... and this one does */
	bool detectors;
	unsigned scanned; /* its place on the command line (conn_key.shard) */
};

struct merge {
	struct merge_cfg cfg;
	struct shard *sh; /* in shard order after pass 1 */
	unsigned n;
	struct conn_key *keys;
	size_t nkeys, keys_cap;
	/* When each connection was in its shard's table (sum_conn live_from,
	 * live_until: packets of the stream, which every shard counts alike);
	 * no_spans: some report lacks them. */
	uint64_t *span_from, *span_until;
	size_t nspans, spans_cap;
	bool no_spans;
	uint32_t max_live; /* from the spans: one pass's peak */
	bool peak_known;
	bool frames;	      /* the shards wrote per-frame verdicts (--frames) */
	struct ji_pool *pool; /* pass 2's strings: events keep theirs to the end */
};

/* FNV-1a over what says two reports came from one run: the inputs as
 * read, the vantages, the version (and apart, the filter). */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t k = 0; k < n; k++)
		h = (h ^ b[k]) * 0x100000001b3ull;
	return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
	return s ? fnv(h, s, strlen(s) + 1) : fnv(h, "", 1);
}

static int push_key(struct merge *m, const struct conn_key *k)
{
	if (GROW(m->keys, m->keys_cap, m->nkeys + 1, 1024) < 0)
		return ERR_NOMEM;
	m->keys[m->nkeys++] = *k;
	return 0;
}

static int push_span(struct merge *m, const struct sum_conn *c)
{
	if (!c->live_from) {
		m->no_spans = true;
		return 0;
	}
	if (m->no_spans)
		return 0;
	if (m->nspans == m->spans_cap) {
		/* Both arrays to the new capacity before it is stored. */
		size_t cap = grow_cap(m->spans_cap, m->nspans + 1, 1024, SIZE_MAX);
		if (!cap || GROW_RESIZE(m->span_from, cap, 1) < 0 ||
		    GROW_RESIZE(m->span_until, cap, 1) < 0)
			return ERR_NOMEM;
		m->spans_cap = cap;
	}
	m->span_from[m->nspans] = c->live_from;
	m->span_until[m->nspans++] = c->live_until;
	return 0;
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return (a > b) - (a < b);
}

/*
 * The one-pass peak of live connections from the shards' spans: a
 * one-pass table holds exactly the union of the shards' (every shard runs
 * the stream's clock, so connections end at the same packets), and counts
 * its peak as a connection enters; one leaving before packet p is gone
 * when one enters at p.
 */
static void live_peak(struct merge *m)
{
	uint32_t peak = 0;

	if (m->no_spans || m->nspans != m->nkeys)
		return;
	m->max_live = 0;
	m->peak_known = true;
	if (!m->nspans) /* no connection at all (qsort() takes no NULL) */
		return;
	qsort(m->span_from, m->nspans, sizeof(uint64_t), u64_cmp);
	qsort(m->span_until, m->nspans, sizeof(uint64_t), u64_cmp);
	for (size_t i = 0, j = 0; i < m->nspans; i++) {
		while (j < m->nspans && m->span_until[j] <= m->span_from[i])
			j++;
		uint64_t live = i + 1 - j;
		if (live > peak)
			peak = live > UINT32_MAX ? UINT32_MAX : (uint32_t)live;
	}
	m->max_live = peak;
	m->peak_known = true;
}

/* Pass 1 over shard s: its summary, its inputs' fingerprint, its keys. */
static int scan(struct merge *m, unsigned s, char *err, size_t errlen)
{
	struct shard *sh = &m->sh[s];
	struct ji_file *f = ji_open(sh->path, NULL, err, errlen);
	struct ji_item *it = malloc(sizeof(*it));
	uint64_t h = 0xcbf29ce484222325ull;
	int rc = f && it ? 0 : f ? ERR_NOMEM : ERR_INPUT;

	int kind = 1;

	while (rc == 0 && (kind = ji_next(f, it, err, errlen)) > 0) {
		if (it->kind == JI_CONN) {
			struct conn_key k = {.ts = it->conn.first_ts,
					     .frame = it->conn.first_frame,
					     .input = it->conn.first_input,
					     .shard = s,
					     .old_id = it->conn.id};
			if (it->conn.id > sh->nids)
				sh->nids = it->conn.id;
			sh->nconns++;
			rc = push_key(m, &k);
			if (rc == 0)
				rc = push_span(m, &it->conn);
		} else if (it->kind == JI_INPUT) {
			const struct src_input *in = &it->input;
			h = fnv_str(h, in->path);
			h = fnv(h, &in->packets, sizeof(in->packets));
			h = fnv(h, &in->wire_bytes, sizeof(in->wire_bytes));
		} else if (it->kind == JI_EVENT) {
			m->frames |= sum_event_is_frame(it->event.type);
		} else if (it->kind == JI_SUMMARY) {
			const struct ji_summary *su = &it->summary;
			if (!su->shard_n) {
				snprintf(err, errlen,
					 "%s: not a shard's report (no summary.shard: written by "
					 "analyze --shard K/N)",
					 sh->path);
				rc = ERR_INPUT;
				break;
			}
			sh->k = su->shard_k;
			sh->n = su->shard_n;
			sh->detectors = su->detectors;
			sh->says_filter = !ji_is_ndjson(f);
			sh->filter = fnv_str(0xcbf29ce484222325ull, su->filter);
			h = fnv_str(h, su->version);
			for (unsigned v = 0; v < su->nvantages; v++)
				h = fnv_str(h, su->vantages[v]);
		}
	}
	if (rc == 0 && kind < 0)
		rc = kind;
	if (rc == 0 && sh->nids != sh->nconns) { /* each shard numbers its own from 1 */
		snprintf(err, errlen, "%s: connection ids are not 1 to %" PRIu64, sh->path,
			 sh->nconns);
		rc = ERR_INPUT;
	}
	if (rc == ERR_NOMEM)
		snprintf(err, errlen, "out of memory");
	sh->fingerprint = h;
	free(it);
	ji_close(f);
	return rc < 0 ? rc : 0;
}

static int shard_cmp(const void *pa, const void *pb)
{
	const struct shard *a = pa, *b = pb;
	return (a->k > b->k) - (a->k < b->k);
}

/* Shards 1..N of one N, each once, of one run. */
static int check_set(struct merge *m, char *err, size_t errlen)
{
	uint32_t n = m->sh[0].n;

	for (unsigned s = 1; s < m->n; s++)
		if (m->sh[s].n != n) {
			snprintf(err, errlen, "%s is shard %u of %u, %s of %u: not one job",
				 m->sh[0].path, m->sh[0].k, n, m->sh[s].path, m->sh[s].n);
			return ERR_INPUT;
		}
	qsort(m->sh, m->n, sizeof(*m->sh), shard_cmp);
	for (unsigned s = 1; s < m->n; s++)
		if (m->sh[s].k == m->sh[s - 1].k) {
			snprintf(err, errlen, "%s and %s are both shard %u of %u",
				 m->sh[s - 1].path, m->sh[s].path, m->sh[s].k, n);
			return ERR_INPUT;
		}
	for (uint32_t k = 1, s = 0; k <= n; k++, s++)
		if (s >= m->n || m->sh[s].k != k) {
			snprintf(err, errlen, "shard %u of %u is missing", k, n);
			return ERR_INPUT;
		}
	for (unsigned s = 1; s < m->n; s++)
		if (m->sh[s].fingerprint != m->sh[0].fingerprint ||
		    m->sh[s].detectors != m->sh[0].detectors ||
		    (m->sh[s].says_filter && m->sh[0].says_filter &&
		     m->sh[s].filter != m->sh[0].filter)) {
			snprintf(err, errlen,
				 "%s and %s are not of one run (inputs, filter, vantages, version "
				 "or --no-detectors differ)",
				 m->sh[0].path, m->sh[s].path);
			return ERR_INPUT;
		}
	return 0;
}

/* The one-pass ids: connections by first packet, numbered from 1. */
static int number(struct merge *m, char *err, size_t errlen)
{
	unsigned *at = calloc(m->n, sizeof(*at)); /* command-line place -> shard table */

	if (!at)
		goto nomem;
	for (unsigned s = 0; s < m->n; s++) {
		at[m->sh[s].scanned] = s;
		m->sh[s].new_id = calloc(m->sh[s].nids ? m->sh[s].nids : 1, sizeof(uint64_t));
		if (!m->sh[s].new_id)
			goto nomem;
	}
	live_peak(m);
	free(m->span_from);
	free(m->span_until);
	m->span_from = m->span_until = NULL;
	if (m->nkeys)
		qsort(m->keys, m->nkeys, sizeof(*m->keys), key_cmp);
	for (size_t k = 0; k < m->nkeys; k++) {
		struct shard *sh = &m->sh[at[m->keys[k].shard]];
		uint64_t *slot = &sh->new_id[m->keys[k].old_id - 1];
		if (*slot) {
			snprintf(err, errlen, "%s: connection id %" PRIu64 " given twice", sh->path,
				 m->keys[k].old_id);
			free(at);
			return ERR_INPUT;
		}
		*slot = k + 1;
	}
	free(at);
	free(m->keys); /* the ids are all that is needed of them */
	m->keys = NULL;
	m->nkeys = m->keys_cap = 0;
	return 0;
nomem:
	free(at);
	snprintf(err, errlen, "out of memory");
	return ERR_NOMEM;
}

/* What the merged run says: shard 1's inputs, clock and vantages, a JSON
 * report's filter, every count summed. */
struct merged_run {
	struct rep_run run;
	struct src_input *inputs;
	const struct src_input **input_ptrs;
	unsigned ninputs;
};

static void add_counts(struct rep_run *r, const struct ji_summary *s, bool first)
{
	struct eng_counters *e = &r->eng;
	const struct eng_counters *x = &s->eng;

	if (!r->filter)
		r->filter = s->filter; /* only JSON reports carry it */
	if (first) {
		r->version = s->version;
		r->nvantages = s->nvantages;
		r->vantage_names = s->vantages;
		r->detectors = s->detectors;
		e->first_ts = x->first_ts; /* every shard's clock runs on every packet */
		e->last_ts = x->last_ts;
	}
	eng_counters_add(e, x);
	/* other_shards: 0, as in one pass (no shard left anything to another) */
	e->other_shards = 0;
	flow_counters_add(&r->flows, &s->flows);
	/* The peak of separate tables: their sum bounds the one-pass peak
	 * (run_merge() puts the exact one from the spans in its place). */
	r->flows.max_live += s->flows.max_live;
	r->filtered_out += s->filtered_out;
	r->events_dropped += s->events_dropped;
}

/* Pass 2 over shard s: connections renumbered into the report, events
 * kept, the counts added. Shard 1's file stays open (f1): its strings and
 * inputs are the merged run's. */
static int feed(struct merge *m, unsigned s, const struct sum_sink *sink, struct merged_run *mr,
		struct ji_file **f1, char *err, size_t errlen)
{
	struct shard *sh = &m->sh[s];
	struct ji_file *f = ji_open(sh->path, m->pool, err, errlen);
	struct ji_item *it = malloc(sizeof(*it));
	int rc = f && it ? 0 : f ? ERR_NOMEM : ERR_INPUT;

	int kind = 1;

	while (rc == 0 && (kind = ji_next(f, it, err, errlen)) > 0) {
		switch (it->kind) {
		case JI_CONN:
			if (it->conn.id == 0 || it->conn.id > sh->nids) {
				snprintf(err, errlen, "%s: changed since it was read", sh->path);
				rc = ERR_INPUT;
				break;
			}
			it->conn.id = sh->new_id[it->conn.id - 1];
			it->conn.live_from = 0; /* a one-pass report says no spans */
			it->conn.live_until = 0;
			sink->conn(sink->ctx, &it->conn);
			break;
		case JI_EVENT:
			if (it->event.conn == 0 || it->event.conn > sh->nids ||
			    !sh->new_id[it->event.conn - 1]) {
				snprintf(err, errlen,
					 "%s: an event of connection %" PRIu64
					 ", which is not in the report",
					 sh->path, it->event.conn);
				rc = ERR_INPUT;
				break;
			}
			/* The report sorts what it keeps (rep_event_cmp) and keeps
			 * the earliest example frames whatever the order they come. */
			it->event.conn = sh->new_id[it->event.conn - 1];
			sum_emit(sink, &it->event);
			break;
		case JI_INPUT:
			if (s == 0) {
				struct src_input *n =
				    realloc(mr->inputs, (mr->ninputs + 1) * sizeof(*n));
				if (!n) {
					snprintf(err, errlen, "out of memory");
					rc = ERR_NOMEM;
					break;
				}
				mr->inputs = n;
				mr->inputs[mr->ninputs++] = it->input;
			}
			break;
		case JI_SUMMARY:
			add_counts(&mr->run, &it->summary, s == 0);
			break;
		default:
			break;
		}
	}
	if (rc == 0 && kind < 0)
		rc = kind;
	free(it);
	if (s == 0 && rc == 0)
		*f1 = f;
	else
		ji_close(f);
	return rc < 0 ? rc : 0;
}

static int run_merge(struct merge *m, FILE *out, char *err, size_t errlen)
{
	struct rep_config rcfg = {.format = m->cfg.format,
				  .out = out,
				  .max_events = m->cfg.max_events,
				  .frames = m->frames,
				  .conn_mem = m->cfg.report_memory == SIZE_MAX ? 0
					      : m->cfg.report_memory ? m->cfg.report_memory
								     : 1};
	struct merged_run mr = {0};
	struct ji_file *f1 = NULL;
	struct report *rep = rep_new(&rcfg, err, errlen);
	int rc = rep ? 0 : ERR_NOMEM;

	m->pool = ji_pool_new();
	if (rc == 0 && !m->pool) {
		snprintf(err, errlen, "out of memory");
		rc = ERR_NOMEM;
	}

	if (rc == 0) {
		struct sum_sink sink = rep_sink(rep);
		for (unsigned s = 0; s < m->n && rc == 0; s++)
			rc = feed(m, s, &sink, &mr, &f1, err, errlen);
	}
	if (rc == 0) {
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
		mr.input_ptrs = calloc(mr.ninputs ? mr.ninputs : 1, sizeof(*mr.input_ptrs));
		rc = mr.input_ptrs ? 0 : ERR_NOMEM;
		if (rc < 0)
			snprintf(err, errlen, "out of memory");
	}
	if (rc == 0) {
		for (unsigned k = 0; k < mr.ninputs; k++)
			mr.input_ptrs[k] = &mr.inputs[k];
		if (m->peak_known)
			mr.run.flows.max_live = m->max_live;
		mr.run.ninputs = mr.ninputs;
		mr.run.inputs = mr.input_ptrs;
		rc = rep_finish(rep, &mr.run, err, errlen);
	}
	free(mr.inputs);
	free(mr.input_ptrs);
	ji_close(f1);
	rep_free(rep);
	ji_pool_free(m->pool);
	m->pool = NULL;
	return rc;
}

int merge_main(int argc, char **argv)
{
	struct merge m = {
	    .cfg = {.format = REP_TEXT, .max_events = 100000, .report_memory = SIZE_MAX}};
	char err[512] = "";
	int rc = cli_parse("merge", merge_opts, N_OPTS, argc, argv, NULL, on_option, &m.cfg);

	if (rc >= 0)
		return rc;
	if (optind >= argc) {
		fputs("tcpsift merge: no report given (the shards' --json or --ndjson reports)\n",
		      stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	m.n = (unsigned)(argc - optind);
	m.sh = calloc(m.n, sizeof(*m.sh));
	if (!m.sh) {
		fputs("tcpsift merge: out of memory\n", stderr);
		return TCPSIFT_EXIT_INPUT;
	}
	for (unsigned s = 0; s < m.n; s++) {
		m.sh[s].path = argv[optind + (int)s];
		m.sh[s].scanned = s;
	}
	rc = 0;
	for (unsigned s = 0; s < m.n && rc == 0; s++)
		rc = scan(&m, s, err, sizeof(err));
	if (rc == 0)
		rc = check_set(&m, err, sizeof(err));
	if (rc == 0)
		rc = number(&m, err, sizeof(err));
	FILE *out = stdout;
	if (rc == 0 && m.cfg.output && strcmp(m.cfg.output, "-") != 0) {
		out = fopen(m.cfg.output, "w");
		if (!out) {
			snprintf(err, sizeof(err), "cannot write %s: %s", m.cfg.output,
				 strerror(errno));
			rc = ERR_SYSTEM;
		}
	}
	if (rc == 0)
		rc = run_merge(&m, out, err, sizeof(err));
	if (out && out != stdout && fclose(out) != 0 && rc == 0) {
		snprintf(err, sizeof(err), "cannot write %s: %s", m.cfg.output, strerror(errno));
		rc = ERR_SYSTEM;
	}
	if (rc < 0)
		fprintf(stderr, "tcpsift merge: %s\n", err);
	for (unsigned s = 0; s < m.n; s++)
		free(m.sh[s].new_id);
	free(m.sh);
	free(m.keys);
	free(m.span_from);
	free(m.span_until);
	return rc < 0 ? TCPSIFT_EXIT_INPUT : TCPSIFT_EXIT_OK;
}

size_t merge_option_names(const char **names, size_t max)
{
	size_t k;
	for (k = 0; k < N_OPTS && k < max; k++)
		names[k] = merge_opts[k].name;
	return k;
}
