/* cliopt.h - one option table per verb drives getopt_long, --help and value parsing. */
#ifndef TCPSIFT_CLIOPT_H
#define TCPSIFT_CLIOPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/report/metrics.h"
#include "analyze/report/report.h"
#include "capture/live/ring.h"

/*
 * Shared by the verbs (cli/cmd_capture.c, cli/cmd_analyze.c); it
 * sits in capture/ because analyze/ may include capture/ and not the
 * reverse. A verb keeps its table; tests/docs/run.sh checks that the man
 * page documents every option --help prints from it.
 */
struct cli_opt {
	const char *name; /* long name */
	int id;		  /* short option character, or >= 256 for long only */
	const char *arg;  /* argument name, NULL: no argument */
	const char *help;
};

/* Fill getopt_long's tables: longopts has n + 1 entries, shortopts 2n + 2. */
void cli_getopt_tables(const struct cli_opt *opts, size_t n, struct option *longopts,
		       char *shortopts);

/* "  -x, --name ARG   help" lines, the left column width wide. */
void cli_print_options(FILE *f, const struct cli_opt *opts, size_t n, int width);

/* What the verbs' parsing steps return to go on: no exit code (those are
 * >= 0, cli/exit.h), so `rc >= 0` means stop with rc. */
#define CLI_GO_ON (-1)

/*
 * The getopt loop of every verb: each option of opts goes to on_opt(ctx, id,
 * arg), which returns CLI_GO_ON or an exit code to stop (--help: 0); with
 * ring, the live-capture options (CLI_RING_OPTS) are parsed into it first.
 * An unknown option or a missing value gets one line on stderr and exit
 * code 2. Returns CLI_GO_ON when every option was taken (optind is then at
 * the first argument), else the exit code.
 */
struct cli_ring_opts;
#define CLI_MAX_OPTS 64
typedef int cli_opt_fn(void *ctx, int id, const char *arg);
int cli_parse(const char *verb, const struct cli_opt *opts, size_t n, int argc, char **argv,
	      struct cli_ring_opts *ring, cli_opt_fn *on_opt, void *ctx);

/*
 * An option whose value is one of a fixed set names the set in its table
 * entry's arg, "qm|cpu|hash": --help prints it, the bash completion offers
 * it (completion/tcpsift.bash reads --help), and the verb parses the value
 * with this, so the three cannot drift. The index of arg in the set (the
 * verb's enum follows its order), or ERR_USAGE when it is none of them, after one
 * line on stderr listing them ("bad value 'x' for --fanout-mode: qm, cpu or
 * hash"). id is the option's id in opts.
 */
int cli_choice(const char *verb, const struct cli_opt *opts, size_t n, int id, const char *arg);

/* A whole decimal number in [min, max]; 0, or ERR_USAGE when it is not one. */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A size in bytes: digits with an optional K, M, G or T (binary: 512M is
 * 512 MiB; a bare number is MiB, as --report-memory counts); 0 or ERR_USAGE
 * when malformed or outside [min, max] bytes. */
int cli_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A file mode: octal permission bits, 1 to 0777 (leading 0 optional); 0 or ERR_USAGE. */
int cli_parse_mode(const char *s, unsigned *out);

/*
 * priv_drop() (capture/live/privs.h) for a verb that captures live: the
 * failure, or staying root without -Z because no tcpdump user exists, gets
 * one line on stderr (the warning unless quiet). *dropped: now another
 * user. CLI_GO_ON, else the exit code.
 */
int cli_priv_drop(const char *verb, const char *user, bool quiet, bool *dropped);

/* "tcpsift VERB: bad value 'VAL' for --OPT: WANT" on stderr, one line. */
void cli_bad_value(const char *verb, const char *opt, const char *val, const char *want);
/* The same line on f (analyze run for diff says it on the stream diff reads). */
void cli_bad_value_to(FILE *f, const char *verb, const char *opt, const char *val,
		      const char *want);

/* --threads N of analyze, tui and capture --analyze (workers.h): 0 with
 * *out set, or ERR_USAGE once cli_bad_value() said why. */
int cli_threads(const char *verb, const char *arg, unsigned *out);

/*
 * --metrics ADDR:PORT and --metrics-top N (capture, tui): the two lines of
 * a verb's table (more: the verb's words after the help), and their
 * parsing: --metrics's syntax is checked here (httpd_check_addr()), its
 * name looked up when the server starts. cli_metrics_option() takes the
 * value of --metrics (top false) or --metrics-top (top true) into m
 * (MX_OPTS_INIT first): 0, or ERR_USAGE once it said why.
 */
#define CLI_METRICS_OPTS(metrics_id, top_id, more)                                                 \
	{"metrics", metrics_id, "ADDR:PORT",                                                       \
	 "serve live totals at http://ADDR:PORT/metrics (Prometheus, OpenMetrics)" more},          \
	{                                                                                          \
		"metrics-top", top_id, "N",                                                        \
		    "--metrics: the N live connections with most trouble as a gauge (default "     \
		    "10, at most 100)"                                                             \
	}
int cli_metrics_option(const char *verb, bool top, const char *arg, struct mx_opts *m);

/* getopt_long returned ':' (a value is missing) or '?': say which, one line. */
void cli_getopt_error(const char *verb, int c, char **argv, const struct cli_opt *opts, size_t n);

/* The candidate nearest word by edit distance (a swap of neighbours counts
 * one), when that is at most a third of word's length and at least 1;
 * NULL when none is that near: "did you mean" for verbs and options. */
const char *cli_nearest(const char *word, const char *const *cands, size_t n);

/* argv[from..argc) joined by spaces, as tcpdump takes a filter; malloc'd. */
char *cli_join_args(int argc, char **argv, int from);

/*
 * A filter expression given after the other arguments, as tcpdump takes
 * one: argv[from..argc) joined into *owned (malloc'd, the caller frees) and
 * *filter. Nothing to join leaves both alone. A filter already given with
 * -f is a usage error: one line on stderr, ERR_USAGE (ERR_NOMEM when the
 * join finds no memory). 0 otherwise.
 */
int cli_trailing_filter(const char *verb, int argc, char **argv, int from, const char **filter,
			char **owned);

/*
 * Where the inputs of a verb that reads captures end and a trailing filter
 * begins: argv[from] is an input when first (no -r gave one), else while
 * each names an existing file, '-' or a libtrace URI (tf_is_uri()). The
 * index of the first argument that is not, argc when all are.
 */
int cli_inputs_end(int argc, char **argv, int from, bool first_is_input);

/* -V, --version in a verb's table: cli_parse() prints the version, exit 0. */
#define CLI_OPT_VERSION 'V'
#define CLI_VERSION_OPT                                                                            \
	{                                                                                          \
		"version", CLI_OPT_VERSION, NULL, "print tcpsift's version and exit"               \
	}

/* --json, --ndjson or --html (want) onto *fmt, REP_TEXT until one is given: a
 * second, different one is a usage error (one line). CLI_GO_ON, else
 * the exit code. */
int cli_report_format(const char *verb, enum rep_format *fmt, enum rep_format want);

/* The option that asks for fmt ("--json"; "text" for the default). */
const char *cli_format_option(enum rep_format fmt);

/* "tcpsift VERSION" on f: what -V prints for every verb. */
void cli_print_version(FILE *f);

/* Two options that cannot go together (--json and --ndjson): one line on
 * stderr naming both; returns the usage exit code. */
int cli_conflict(const char *verb, const char *a, const char *b);

/*
 * The options of the verbs that capture live (capture, tui): one set of
 * names, meanings and limits. Put CLI_RING_OPTS in the verb's table and
 * give every option getopt returns to cli_ring_option() first.
 */
enum cli_ring_opt_id {
	CLI_OPT_SNAPLEN = 's',
	CLI_OPT_BUFFER = 'B',
	CLI_OPT_FANOUT = 400,
	CLI_OPT_FANOUT_MODE,
};

#define CLI_RING_OPTS(prefix)                                                                      \
	{"snaplen", CLI_OPT_SNAPLEN, "BYTES",                                                      \
	 prefix "bytes kept per packet (default and 0: 262144)"},                                  \
	    {"buffer-size", CLI_OPT_BUFFER, "MiB",                                                 \
	     prefix "kernel ring, total over the sockets (default min(256, MemAvailable/8))"},     \
	    {"fanout", CLI_OPT_FANOUT, "N",                                                        \
	     prefix "N sockets in one PACKET_FANOUT group, a reader each (1)"},                    \
	{                                                                                          \
		"fanout-mode", CLI_OPT_FANOUT_MODE, "qm|cpu|hash",                                 \
		    prefix "spread over the sockets by RX queue (default; recorded), CPU or hash"  \
	}

struct cli_ring_opts {
	uint32_t snaplen;
	uint64_t buffer_mib; /* 0: ring_default_buffer_bytes() */
	unsigned fanout;
	enum ring_fanout mode;
};

void cli_ring_opts_defaults(struct cli_ring_opts *o);

/* 1: opt is one of them and arg is good; 0: not one of them; ERR_USAGE: a bad
 * value (cli_bad_value said so). */
int cli_ring_option(const char *verb, int opt, const char *arg, struct cli_ring_opts *o);

/* Limits across options; 0, or ERR_USAGE with one line on stderr. */
int cli_ring_check(const char *verb, const struct cli_ring_opts *o);

/* The interface an -i argument names, a name or (as tcpdump) its number in
 * `capture -D` (capture/iflist), into out; 0, or ERR_USAGE with one line on stderr. */
int cli_ring_iface(const char *verb, const char *arg, char *out, size_t len);

/* A ring_config for iface from the options (queue_bytes left 0). */
void cli_ring_config(const struct cli_ring_opts *o, const char *iface, const char *filter,
		     int block_timeout_ms, struct ring_config *out);

#endif
