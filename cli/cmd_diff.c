/* cmd_diff.c - the `tcpsift diff` verb: two runs (captures or saved reports) compared. */
#include "cli/cmd_diff.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/diff/diff.h"
#include "analyze/diff/diffout.h"
#include "analyze/readback/jsonin.h"
#include "cli/cliopt.h"
#include "cli/cmd_analyze.h"
#include "cli/exit.h"
#include "common/err.h"

/*
 * Each side is a capture or a saved `analyze --json` (or --ndjson) report,
 * told apart by its first bytes. A capture is analysed in this process as
 * `analyze --ndjson -o TMPFILE` would (the analysis options passed
 * through, the same pipeline), so diff compares exactly what analyze
 * reports; NDJSON, so that it is read back a line at a time. Both sides
 * are then read by one reader (jsonin.h) into the comparison (diff.h).
 */

/* SIGINT/SIGTERM: the analysis stops its read (within 100 ms), the
 * temporary files are removed, exit 3 (nothing is written). */
static volatile sig_atomic_t diff_stop;

static void on_signal(int sig)
{
	diff_stop = sig;
}

enum opt_id {
	OPT_JSON = 'j',
	OPT_OUTPUT = 'o',
	OPT_FILTER = 'f',
	OPT_QUIET = 'q',
	OPT_HELP = 'h',
	OPT_MATCH = 256,
	OPT_FAIL_ON,
	OPT_ALL,
	/* Passed through to analyze for the sides that are captures. */
	OPT_THREADS,
	OPT_RTO_MIN,
	OPT_REORDER_WINDOW,
	OPT_STALL_MIN,
	OPT_STALL_RTT_FACTOR,
	OPT_MAX_FLOWS,
	OPT_MAX_MEMORY,
};

static const struct cli_opt diff_opts[] = {
    {"json", OPT_JSON, NULL, "one JSON document (man/tcpsift-diff.schema.json)"},
    {"output", OPT_OUTPUT, "FILE", "write the comparison to FILE instead of stdout"},
    {"match", OPT_MATCH, "auto|tuple|endpoint|order",
     "pair by 4-tuple where it repeats, else by server endpoint and first-packet order (auto, "
     "the default); tuple, endpoint or order: that way only"},
    {"fail-on", OPT_FAIL_ON, "EXPR", "exit 1 when the change matches, e.g. 'stall_time>+10%'"},
    {"all", OPT_ALL, NULL, "text: unchanged metrics and connections too"},
    {"filter", OPT_FILTER, "EXPR", "captures: BPF filter (tcpdump syntax), as analyze -f"},
    {"threads", OPT_THREADS, "N", "captures: analysis threads, as analyze --threads"},
    {"rto-min", OPT_RTO_MIN, "MS", "captures: as analyze --rto-min"},
    {"reorder-window", OPT_REORDER_WINDOW, "MS", "captures: as analyze --reorder-window"},
    {"stall-min", OPT_STALL_MIN, "MS", "captures: as analyze --stall-min"},
    {"stall-rtt-factor", OPT_STALL_RTT_FACTOR, "N", "captures: as analyze --stall-rtt-factor"},
    {"max-flows", OPT_MAX_FLOWS, "N", "captures: as analyze --max-flows"},
    {"max-memory", OPT_MAX_MEMORY, "SIZE", "captures: as analyze --max-memory"},
    {"quiet", OPT_QUIET, NULL, "no warnings on stderr (those of analyze included)"},
    CLI_VERSION_OPT,
    {"help", OPT_HELP, NULL, "this help"},
};

#define N_OPTS	   (sizeof(diff_opts) / sizeof(diff_opts[0]))
#define MAX_PASSED 16 /* analyze arguments passed through: 2 per option */

struct diff_cfg {
	bool json, all, quiet;
	const char *output;
	enum diff_match match;
	const char *fail_on;
	const char *passed[MAX_PASSED]; /* "--filter", "EXPR", ... */
	unsigned npassed;
};

static void usage(FILE *f)
{
	fputs("usage: tcpsift diff [options] A B\n"
	      "\n"
	      "Compare two runs: a capture (anything analyze reads: pcap, pcapng, compressed,\n"
	      "libtrace URIs; analysed by tcpsift analyze with the options below) or a saved\n"
	      "analyze --json / --ndjson report on each side, told apart by content. Prints the\n"
	      "run totals that changed (A, B, delta, relative change), then the metrics that\n"
	      "changed in each pair of connections, then the connections only in A or only in B.\n"
	      "Connections pair by 4-tuple where it is in both runs, the rest by server address\n"
	      "and port and their order of first packet to it (a rerun's new ephemeral ports);\n"
	      "each pair says how, with what limited each direction (limited_by) in A and B.\n"
	      "\n"
	      "Options:\n",
	      f);
	cli_print_options(f, diff_opts, N_OPTS, 28);
	struct diff *d = diff_new(DIFF_MATCH_AUTO, NULL, 0);
	if (d) {
		char names[2048];
		diff_metric_names(d, names, sizeof(names));
		fprintf(f, "\n--fail-on metrics: %s\n", names);
		diff_free(d);
	}
	fputs("\n--fail-on compares the change of the run totals, B - A: 'retransmissions>+5'\n"
	      "(a difference), 'throughput<-20%' (a relative change; from 0 to more is +inf).\n"
	      "\n"
	      "Exit status: 0 ok, 1 --fail-on matched, 2 usage error, 3 a side missing,\n"
	      "unreadable, neither a capture nor a tcpsift report, or not analysed in full.\n"
	      "See tcpsift-diff(1).\n",
	      f);
}

static int pass(struct diff_cfg *cfg, const char *opt, const char *arg)
{
	if (cfg->npassed + 2 > MAX_PASSED) {
		fprintf(stderr, "tcpsift diff: too many analysis options\n");
		return TCPSIFT_EXIT_USAGE;
	}
	cfg->passed[cfg->npassed++] = opt;
	cfg->passed[cfg->npassed++] = arg;
	return CLI_GO_ON;
}

static int on_option(void *ctx, int c, const char *arg)
{
	struct diff_cfg *cfg = ctx;
	unsigned threads;

	switch (c) {
	case OPT_JSON:
		cfg->json = true;
		break;
	case OPT_OUTPUT:
		cfg->output = arg;
		break;
	case OPT_ALL:
		cfg->all = true;
		break;
	case OPT_QUIET:
		cfg->quiet = true;
		break;
	case OPT_MATCH: { /* the table's set is enum diff_match's, in its order */
		int k = cli_choice("diff", diff_opts, N_OPTS, c, arg);
		if (k < 0)
			return TCPSIFT_EXIT_USAGE;
		cfg->match = (enum diff_match)k;
		break;
	}
	case OPT_FAIL_ON:
		cfg->fail_on = arg;
		break;
	case OPT_FILTER:
		return pass(cfg, "--filter", arg);
	case OPT_THREADS:
		if (cli_threads("diff", arg, &threads) < 0)
			return TCPSIFT_EXIT_USAGE;
		return pass(cfg, "--threads", arg);
	case OPT_RTO_MIN:
		return pass(cfg, "--rto-min", arg);
	case OPT_REORDER_WINDOW:
		return pass(cfg, "--reorder-window", arg);
	case OPT_STALL_MIN:
		return pass(cfg, "--stall-min", arg);
	case OPT_STALL_RTT_FACTOR:
		return pass(cfg, "--stall-rtt-factor", arg);
	case OPT_MAX_FLOWS:
		return pass(cfg, "--max-flows", arg);
	case OPT_MAX_MEMORY:
		return pass(cfg, "--max-memory", arg);
	case OPT_HELP:
		usage(stdout);
		return TCPSIFT_EXIT_OK;
	}
	return CLI_GO_ON;
}

/* ---- telling a capture from a report ---- */

enum side_kind {
	SIDE_CAPTURE = 0,
	SIDE_REPORT,
};

static const char *const side_kind_name[] = {"capture", "report"};

/* Starts with a capture's or a compressor's magic number? */
static bool capture_magic(const unsigned char *b, size_t n)
{
	static const struct {
		unsigned char m[6];
		size_t n;
	} magics[] = {
	    {{0xd4, 0xc3, 0xb2, 0xa1}, 4}, /* pcap, little-endian, us */
	    {{0xa1, 0xb2, 0xc3, 0xd4}, 4}, /* ... big-endian */
	    {{0x4d, 0x3c, 0xb2, 0xa1}, 4}, /* pcap, ns */
	    {{0xa1, 0xb2, 0x3c, 0x4d}, 4},
	    {{0x0a, 0x0d, 0x0d, 0x0a}, 4},	   /* pcapng section header */
	    {{0x1f, 0x8b}, 2},			   /* gzip */
	    {{'B', 'Z', 'h'}, 3},		   /* bzip2 */
	    {{0xfd, '7', 'z', 'X', 'Z', 0x00}, 6}, /* xz */
	};

	for (size_t k = 0; k < sizeof(magics) / sizeof(magics[0]); k++)
		if (n >= magics[k].n && !memcmp(b, magics[k].m, magics[k].n))
			return true;
	return false;
}

/* "erf:trace.erf": a libtrace URI (a scheme of letters, then a colon). */
static bool looks_like_uri(const char *s)
{
	const char *c = strchr(s, ':');

	if (!c || c == s)
		return false;
	for (const char *p = s; p < c; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

/* 0 with *kind, or the exit code with one line in err. */
static int classify(const char *path, enum side_kind *kind, char *err, size_t errlen)
{
	struct stat st;
	unsigned char head[512];

	if (!strcmp(path, "-")) {
		snprintf(err, errlen, "standard input cannot be a side: give a file");
		return TCPSIFT_EXIT_USAGE;
	}
	if (stat(path, &st) < 0) {
		if (errno == ENOENT && looks_like_uri(path)) {
			*kind = SIDE_CAPTURE; /* libtrace's, read by analyze */
			return 0;
		}
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return TCPSIFT_EXIT_INPUT;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return TCPSIFT_EXIT_INPUT;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return TCPSIFT_EXIT_INPUT;
	}
	size_t n = fread(head, 1, sizeof(head), f);
	int rerr = ferror(f) ? errno : 0;
	fclose(f);
	if (rerr) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(rerr));
		return TCPSIFT_EXIT_INPUT;
	}
	if (capture_magic(head, n)) {
		*kind = SIDE_CAPTURE;
		return 0;
	}
	size_t k = 0;
	while (k < n && strchr(" \t\r\n", head[k]))
		k++;
	if (k < n && head[k] == '{') {
		*kind = SIDE_REPORT;
		return 0;
	}
	snprintf(err, errlen, "%s: %s", path,
		 n ? "neither a capture (pcap, pcapng, gzip, bzip2, xz) nor a tcpsift JSON report"
		   : "empty: neither a capture nor a tcpsift JSON report");
	return TCPSIFT_EXIT_INPUT;
}

/* ---- analysing a capture ---- */

/* A temporary file's name (the file created empty, 0600): 0, or
 * ERR_SYSTEM with err set. */
static int temp_name(char *buf, size_t len, const char *what, char *err, size_t errlen)
{
	const char *dir = getenv("TMPDIR");

	snprintf(buf, len, "%s/tcpsift-diff-%s-XXXXXX", dir && *dir ? dir : "/tmp", what);
	int fd = mkstemp(buf);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a temporary file in %s: %s",
			 dir && *dir ? dir : "/tmp", strerror(errno));
		buf[0] = '\0';
		return ERR_SYSTEM;
	}
	close(fd);
	return 0;
}

/* The first line of text that says something, into buf. */
static void first_line(const char *text, char *buf, size_t len)
{
	buf[0] = '\0';
	while (text && *text) {
		size_t n = strcspn(text, "\r\n");
		if (n) {
			snprintf(buf, len, "%.*s", (int)n, text);
			return;
		}
		text++;
	}
}

/* `tcpsift analyze --ndjson -o report ...passed... -- capture`, run in this
 * process (cmd_analyze.h) with its messages kept: on success they are
 * its warnings (said unless --quiet), on failure the first one says why.
 * 0, or the exit code with one line in err (analyze's own first line). */
static int analyse(const struct diff_cfg *cfg, const char *capture, const char *report, char *err,
		   size_t errlen)
{
	const char *argv[MAX_PASSED + 12];
	unsigned n = 0;
	char *said = NULL;
	size_t said_len = 0;

	argv[n++] = "analyze";
	argv[n++] = "--ndjson"; /* read a line at a time: memory of the longest line */
	argv[n++] = "--no-progress";
	argv[n++] = "-o";
	argv[n++] = report;
	for (unsigned k = 0; k < cfg->npassed; k++)
		argv[n++] = cfg->passed[k];
	argv[n++] = "--";
	argv[n++] = capture;
	argv[n] = NULL;

	FILE *msg = open_memstream(&said, &said_len);
	if (!msg) {
		snprintf(err, errlen, "out of memory");
		return TCPSIFT_EXIT_INPUT;
	}
	/* getopt permutes argv: a copy of its own. */
	int code = analyze_inproc((int)n, (char **)argv, msg, &diff_stop);
	fclose(msg);
	if (diff_stop) {
		snprintf(err, errlen, "interrupted by %s",
			 diff_stop == SIGINT ? "SIGINT" : "SIGTERM");
		free(said);
		return TCPSIFT_EXIT_INPUT;
	}
	if (code == 0) {
		if (!cfg->quiet && said)
			fputs(said, stderr);
		free(said);
		return 0;
	}
	char line[400] = "";
	first_line(said, line, sizeof(line));
	free(said);
	/* "tcpsift analyze: X" -> "X": the line names the capture already. */
	const char *why = strncmp(line, "tcpsift analyze: ", 17) ? line : line + 17;
	size_t clen = strlen(capture);
	if (!strncmp(why, capture, clen) && !strncmp(why + clen, ": ", 2))
		why += clen + 2; /* the line below names it */
	if (code == TCPSIFT_EXIT_USAGE)
		snprintf(err, errlen, "%s", why[0] ? why : "tcpsift analyze: usage error");
	else
		snprintf(err, errlen, "%s: not analysed in full: %s", capture,
			 why[0] ? why : "tcpsift analyze failed");
	return code == TCPSIFT_EXIT_USAGE ? TCPSIFT_EXIT_USAGE : TCPSIFT_EXIT_INPUT;
}

/* ---- reading a report into the comparison ---- */

static int read_side(struct diff *d, int side, const char *path, bool quiet, char *err,
		     size_t errlen)
{
	struct ji_file *f = ji_open(path, NULL, err, errlen);
	struct ji_item *it = malloc(sizeof(*it));
	struct diff_run run = {0};
	int rc = f && it ? 0 : f ? ERR_NOMEM : ERR_INPUT;
	int kind = 1;
	bool summary = false;

	while (rc == 0 && (kind = ji_next(f, it, err, errlen)) > 0) {
		switch (it->kind) {
		case JI_CONN:
			rc = diff_add_conn(d, side, &it->conn);
			break;
		case JI_EVENT:
			rc = diff_add_event(d, side, &it->event);
			break;
		case JI_INPUT:
			run.drops_known |= it->input.drops_known;
			run.capture_drops += it->input.drops;
			break;
		case JI_SUMMARY:
			run.first_ts = it->summary.eng.first_ts;
			run.last_ts = it->summary.eng.last_ts;
			summary = true;
			/* The class rows come from the events (diff.h). */
			if (it->summary.events_dropped && !quiet)
				fprintf(stderr,
					"tcpsift diff: warning: %s: %" PRIu64
					" events not in the report (analyze --max-events): the "
					"stall class rows lack theirs\n",
					path, it->summary.events_dropped);
			break;
		default:
			break;
		}
	}
	if (rc == 0 && kind < 0)
		rc = kind;
	if (rc == 0 && !summary) {
		snprintf(err, errlen, "%s: no summary: not a whole tcpsift report", path);
		rc = ERR_INPUT;
	}
	if (rc == ERR_NOMEM)
		snprintf(err, errlen, "out of memory");
	diff_set_run(d, side, &run);
	free(it);
	ji_close(f);
	return rc;
}

static int run_diff(const struct diff_cfg *cfg, char *const paths[2], char *err, size_t errlen)
{
	enum side_kind kind[2];
	char report[2][4096] = {"", ""};
	struct fo_expr expr;
	struct diff *d = diff_new(cfg->match, err, errlen);
	int code = d ? 0 : TCPSIFT_EXIT_INPUT;
	FILE *out = stdout;

	char why[800];
	if (code == 0 && cfg->fail_on &&
	    diff_fail_parse(d, cfg->fail_on, &expr, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "bad value for --fail-on: %s", why);
		code = TCPSIFT_EXIT_USAGE;
	}
	for (int s = 0; s < 2 && code == 0; s++)
		code = classify(paths[s], &kind[s], err, errlen);
	for (int s = 0; s < 2 && code == 0; s++) {
		const char *from = paths[s];
		if (kind[s] == SIDE_CAPTURE) {
			if (temp_name(report[s], sizeof(report[s]), "report", err, errlen) < 0)
				code = TCPSIFT_EXIT_INPUT;
			else
				code = analyse(cfg, paths[s], report[s], err, errlen);
			from = report[s];
		}
		if (code == 0 && read_side(d, s, from, cfg->quiet, err, errlen) < 0)
			code = TCPSIFT_EXIT_INPUT;
		if (code == 0 && diff_stop) {
			snprintf(err, errlen, "interrupted by %s",
				 diff_stop == SIGINT ? "SIGINT" : "SIGTERM");
			code = TCPSIFT_EXIT_INPUT;
		}
	}
	for (int s = 0; s < 2; s++)
		if (report[s][0])
			unlink(report[s]);
	if (code == 0 && diff_finish(d) < 0) {
		snprintf(err, errlen, "out of memory");
		code = TCPSIFT_EXIT_INPUT;
	}
	char matched[400] = "";
	bool hit = code == 0 && cfg->fail_on && diff_fail_match(d, &expr, matched, sizeof(matched));
	if (code == 0 && cfg->output && strcmp(cfg->output, "-") != 0) {
		out = fopen(cfg->output, "w");
		if (!out) {
			snprintf(err, errlen, "cannot write %s: %s", cfg->output, strerror(errno));
			code = TCPSIFT_EXIT_INPUT;
		}
	}
	if (code == 0) {
		const struct diffout_info info = {
		    .version = TCPSIFT_VERSION,
		    .path = {paths[0], paths[1]},
		    .kind = {side_kind_name[kind[0]], side_kind_name[kind[1]]},
		    .fail_on = cfg->fail_on,
		    .matched = hit ? matched : NULL,
		    .all = cfg->all,
		};
		int rc = cfg->json ? diffout_json(out, d, &info, err, errlen)
				   : diffout_text(out, d, &info, err, errlen);
		if (rc < 0)
			code = TCPSIFT_EXIT_INPUT;
	}
	if (out && out != stdout && fclose(out) != 0 && code == 0) {
		snprintf(err, errlen, "cannot write %s: %s", cfg->output, strerror(errno));
		code = TCPSIFT_EXIT_INPUT;
	}
	if (code == 0 && hit) {
		fprintf(stderr, "tcpsift diff: --fail-on matched: %s\n", matched);
		code = TCPSIFT_EXIT_FINDINGS;
	}
	diff_free(d);
	return code;
}

int diff_main(int argc, char **argv)
{
	struct diff_cfg cfg = {.match = DIFF_MATCH_AUTO};
	char err[1024] = "";
	int rc = cli_parse("diff", diff_opts, N_OPTS, argc, argv, NULL, on_option, &cfg);

	if (rc >= 0)
		return rc;
	if (argc - optind != 2) {
		fprintf(stderr,
			"tcpsift diff: give two runs, A and B (captures or reports); %d given\n",
			argc - optind);
		return TCPSIFT_EXIT_USAGE;
	}
	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: a wait ends at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = run_diff(&cfg, argv + optind, err, sizeof(err));
	if (rc != TCPSIFT_EXIT_OK && rc != TCPSIFT_EXIT_FINDINGS)
		fprintf(stderr, "tcpsift diff: %s\n", err);
	return rc;
}

size_t diff_option_names(const char **names, size_t max)
{
	size_t k;
	for (k = 0; k < N_OPTS && k < max; k++)
		names[k] = diff_opts[k].name;
	return k;
}
