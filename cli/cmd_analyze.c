/* cmd_analyze.c - the `tcpsift analyze` verb: options, the read loop, progress, exit codes. */
#include "common/clock.h"
#include "cli/bpfhint.h"
#include "cli/cliopt.h"
#include "cli/membudget.h"
#include "cli/cmd_analyze.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/annotate/annot.h"
#include "analyze/engine/decode.h"
#include "analyze/engine/engine.h"
#include "analyze/engine/shard.h"
#include "analyze/engine/workers.h"
#include "analyze/report/failon.h"
#include "analyze/report/plot.h"
#include "analyze/report/report.h"
#include "analyze/report/vpair.h"
#include "common/idset.h"
#include "analyze/engine/source.h"

/* Set by SIGINT/SIGTERM to the signal: stop reading (every wait for input
 * watches it: src_config.stop), report what was read, exit 3. */
static volatile sig_atomic_t analyze_stop;

enum opt_id {
	OPT_FILTER = 'f',
	OPT_READ = 'r',
	OPT_JSON = 'j',
	OPT_OUTPUT = 'o',
	OPT_QUIET = 'q',
	OPT_HELP = 'h',
	OPT_COUNT = 'c',
	OPT_NUMERIC = 'n',
	OPT_NDJSON = 256,
	OPT_QUEUE_PER_FILE,
	OPT_MAX_FLOWS,
	OPT_IDLE_TIMEOUT,
	OPT_RTO_MIN,
	OPT_REORDER_WINDOW,
	OPT_MAX_EVENTS,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_FAIL_ON,
	OPT_NO_DETECTORS,
	OPT_STALL_MIN,
	OPT_STALL_RTT_FACTOR,
	OPT_FRAMES,
	OPT_FRAMES_CSV,
	OPT_REPORT_MEMORY,
	OPT_MAX_MEMORY,
	OPT_SHARD,
	OPT_THREADS,
	OPT_CONN,
	OPT_HTML,
	OPT_PLOT,
	OPT_XPLOT,
	OPT_PLOT_MAX,
	OPT_LONG,
	OPT_SORT,
	OPT_TOP,
	OPT_VANTAGE_PAIR,
	OPT_VANTAGE_MAX_OFFSET,
	OPT_VANTAGE_WINDOW,
	OPT_ANNOTATE,
};

/* One table drives getopt_long, --help and the man-page test. */
static const struct cli_opt analyze_opts[] = {
    {"read", OPT_READ, "FILE", "an input (as tcpdump -r); may be repeated, and FILE... follow too"},
    {"count", OPT_COUNT, "N", "stop after N packets (as tcpdump -c; those the filter keeps)"},
    {"numeric", OPT_NUMERIC, NULL, "accepted for tcpdump's -n: tcpsift never resolves names"},
    {"filter", OPT_FILTER, "EXPR",
     "BPF filter (tcpdump syntax, compiled by libpcap); also taken after the inputs"},
    {"json", OPT_JSON, NULL, "one JSON document (schema 2, see tcpsift-json(5))"},
    {"ndjson", OPT_NDJSON, NULL, "one JSON object per line: events and connections as found"},
    {"html", OPT_HTML, NULL,
     "the report as one self-contained HTML page with the graphs inline (-o FILE.html)"},
    {"output", OPT_OUTPUT, "FILE", "write the report to FILE instead of stdout"},
    {"queue-per-file", OPT_QUEUE_PER_FILE, NULL,
     "tag each input's packets with its index as queue id"},
    {"max-flows", OPT_MAX_FLOWS, "N", "live connections kept (default 262144); LRU evicted"},
    {"max-memory", OPT_MAX_MEMORY, "SIZE",
     "cap on the whole process, e.g. 512M (none): peak RSS within it + 10 % + 16 MiB"},
    {"idle-timeout", OPT_IDLE_TIMEOUT, "SEC",
     "end an open connection idle this long (default 930; 0 never)"},
    {"rto-min", OPT_RTO_MIN, "MS", "floor of the RTO estimate for RTO-like retransmits (200)"},
    {"reorder-window", OPT_REORDER_WINDOW, "MS",
     "out-of-order by timing when RTT unknown and no TSval/IP ID (3)"},
    {"max-events", OPT_MAX_EVENTS, "N", "events kept for the report (default 100000)"},
    {"report-memory", OPT_REPORT_MEMORY, "MIB",
     "ended connections kept in memory for text/JSON (64); the rest in $TMPDIR"},
    {"frames", OPT_FRAMES, NULL,
     "per-frame verdicts as events too: retransmission, dup_ack, out_of_order, ..."},
    {"frames-csv", OPT_FRAMES_CSV, "FILE", "the per-frame verdicts as CSV rows into FILE"},
    {"annotate", OPT_ANNOTATE, "FILE",
     "the inputs again as pcapng FILE, each verdict a comment on its packet (tcpsift annotate)"},
    {"fail-on", OPT_FAIL_ON, "EXPR", "exit 1 when a finding matches, e.g. 'stall>0,sack_holes>10'"},
    {"stall-min", OPT_STALL_MIN, "MS", "shortest gap that can be a stall (default 10)"},
    {"stall-rtt-factor", OPT_STALL_RTT_FACTOR, "N",
     "plus N times the loop to the answering host (1)"},
    {"no-detectors", OPT_NO_DETECTORS, NULL,
     "skip the detectors (stalls, SACK, queues, MTU): their findings null"},
    {"shard", OPT_SHARD, "K/N",
     "only the connections of shard K of N (a 4-tuple hash, see SHARDS)"},
    {"conn", OPT_CONN, "LIST",
     "only these connections, by the report's ids: 3, 1,4-9 or 7- (the summary counts them)"},
    {"plot", OPT_PLOT, "DIR",
     "SVG graphs of each direction that carried data: "
     "DIR/conn-ID-{c2s,s2c}-{tseq,tput,rtt,inflight,rwnd}.svg (tcpsift-analyze(1), GRAPHS)"},
    {"xplot", OPT_XPLOT, "DIR",
     "the same as tcptrace xplot files: DIR/conn-ID-{c2s,s2c}-{tseq,tput,rtt,inflight}.xpl"},
    {"plot-max", OPT_PLOT_MAX, "N",
     "graphs for the first N connections that carry data (100); the rest: --conn"},
    {"long", OPT_LONG, NULL,
     "text: every connection in long form (--conn: the selected ones always are)"},
    {"sort", OPT_SORT, "COLUMN",
     "text: order the connection table by COLUMN, biggest first (names below)"},
    {"top", OPT_TOP, "N", "text: only the first N rows of the connection table"},
    {"vantage-pair", OPT_VANTAGE_PAIR, NULL,
     "two inputs, two capture points: what happened between them (VANTAGE PAIR)"},
    {"vantage-max-offset", OPT_VANTAGE_MAX_OFFSET, "MS",
     "--vantage-pair: longest wait for a segment's copy (offset + delay; 2000)"},
    {"vantage-window", OPT_VANTAGE_WINDOW, "N",
     "--vantage-pair: segments kept per connection, direction, point (16384)"},
    {"threads", OPT_THREADS, "N",
     "analysis threads (default: the CPUs it may use, at most 64); 1: no threads"},
    {"progress", OPT_PROGRESS, NULL, "show progress on stderr even when it is not a terminal"},
    {"no-progress", OPT_NO_PROGRESS, NULL, "never show progress"},
    {"quiet", OPT_QUIET, NULL, "no warnings on stderr"},
    CLI_VERSION_OPT,
    {"help", OPT_HELP, NULL, "this help"},
};

#define N_OPTS (sizeof(analyze_opts) / sizeof(analyze_opts[0]))

struct analyze_cfg {
	const char *filter;
	const char *output;
	uint64_t count; /* -c: packets to read, 0 all */
	enum rep_format format;
	bool queue_per_file;
	int progress; /* -1 auto (terminal), 0 off, 1 on */
	bool quiet;
	uint32_t max_events;
	size_t report_memory; /* bytes; SIZE_MAX: the default */
	struct eng_config eng;
	bool fail_on;
	struct fo_expr fail_expr;
	bool frames;
	const char *frames_csv;
	unsigned threads;      /* 0: wk_default_threads() */
	const char *conn_list; /* --conn */
	const char *plot_dir;  /* --plot */
	const char *xplot_dir; /* --xplot */
	uint32_t plot_max;     /* --plot-max */
	const char **reads;    /* -r FILE, in order (argc slots) */
	unsigned nreads;
	char *filter_args;	   /* a filter joined from the trailing arguments (owned) */
	const char *filter_first;  /* its first word, for the error when it does not compile */
	struct rep_text_opts text; /* --long, --sort, --top */
	const char *text_opt;	   /* the last text-only option given, for a conflict */
	bool vantage_pair;	   /* --vantage-pair */
	int64_t vantage_max_offset_ns;
	uint32_t vantage_window;
	const char *vantage_opt; /* a --vantage-* option given (needs --vantage-pair) */
	const char *annotate;	 /* --annotate FILE, or tcpsift annotate's -o */
	bool annotate_verb;	 /* tcpsift annotate: no report, -o is the capture */
};

static void usage(FILE *f)
{
	fputs("usage: tcpsift analyze [options] [-r] FILE|URI|- ... [FILTER...]\n"
	      "\n"
	      "Reconstruct every TCP connection in the captures and report retransmissions,\n"
	      "reordering, capture loss, zero windows and per-connection statistics.\n"
	      "\n"
	      "Inputs (several are merged by timestamp):\n"
	      "  FILE     pcap (us/ns, either byte order) or pcapng, read by tcpsift's own\n"
	      "           reader; gzip, bzip2 and xz content is detected and decoded (a cut\n"
	      "           file keeps every packet before the cut); a FIFO waits for its writer\n"
	      "  -        the same from standard input (tcpdump -w - | tcpsift analyze -)\n"
	      "  URI      other trace formats through libtrace: erf:FILE, legacyeth:FILE,\n"
	      "           legacypos:FILE, legacyatm:FILE, tsh:FILE, duck:FILE ... (regular\n"
	      "           files; pcapfile:FILE and pcapng:FILE are read as FILE, by the reader\n"
	      "           above). Live URIs (int:, ring:, pcapint:, dpdk:, rt: ...) are refused:\n"
	      "           tcpsift capture -i IFACE --analyze analyses live traffic\n"
	      "  FILTER   a BPF filter after the inputs, as tcpdump takes one (same as -f):\n"
	      "           the first argument is an input (unless -r gave one), the next ones\n"
	      "           too while each is an existing file, a URI or -; the rest is the filter\n"
	      "\n"
	      "Options:\n",
	      f);
	cli_print_options(f, analyze_opts, N_OPTS, 26);
	char names[512];
	fo_names(names, sizeof(names));
	fprintf(f, "\n--fail-on metrics: %s\n", names);
	rep_sort_names(names, sizeof(names));
	fprintf(f, "--sort columns: %s\n", names);
	fputs("\nExit status: 0 ok, 1 --fail-on matched, 2 usage error (also a live URI),\n"
	      "3 the report does not cover all of the input: an input unreadable, empty,\n"
	      "invalid or cut short, SIGINT/SIGTERM ended the read (any wait for input\n"
	      "ends within 100 ms), or packets found no memory for their connection\n"
	      "(--max-flows, --max-memory). The report is still written for what could be\n"
	      "read, with its errors listed (JSON \"errors\"). See tcpsift-analyze(1).\n",
	      f);
}

static void annotate_usage(FILE *f)
{
	fputs("usage: tcpsift annotate [options] FILE... -o OUT.pcapng [FILTER...]\n"
	      "\n"
	      "Analyze the captures as tcpsift analyze does and write them again as one\n"
	      "pcapng file, each verdict and finding a comment on the packet it names\n"
	      "(tshark -r OUT.pcapng -Y 'frame.comment contains \"tcpsift\"'). A pcapng\n"
	      "input keeps every block byte for byte but the annotated packets' (their\n"
	      "options gain the comments); a pcap input becomes a pcapng section. Inputs\n"
	      "are read twice: files only, not standard input.\n"
	      "\n"
	      "Options:\n"
	      "  -o, --output FILE   the annotated capture (pcapng; needed)\n"
	      "  -V, --version       print the version and exit\n"
	      "  -h, --help          this help\n"
	      "and every option of tcpsift analyze (tcpsift analyze --help) but its report's.\n"
	      "See tcpsift-annotate(1).\n",
	      f);
}

static int parse_ms(const char *s, double max_ms, int64_t *out_ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || v > max_ms)
		return -1;
	*out_ns = (int64_t)(v * 1e6);
	return 0;
}

/* "K/N" of --shard: 1 <= K <= N <= SHARD_MAX. */
static int parse_shard(const char *s, uint32_t *k, uint32_t *n)
{
	char kbuf[16];
	const char *slash = strchr(s, '/');
	uint64_t kv, nv;

	if (!slash || (size_t)(slash - s) >= sizeof(kbuf))
		return -1;
	memcpy(kbuf, s, (size_t)(slash - s));
	kbuf[slash - s] = '\0';
	if (cli_parse_u64(slash + 1, 1, SHARD_MAX, &nv) < 0 || cli_parse_u64(kbuf, 1, nv, &kv) < 0)
		return -1;
	*k = (uint32_t)kv;
	*n = (uint32_t)nv;
	return 0;
}

static int bad_value(const char *opt, const char *val, const char *want)
{
	cli_bad_value("analyze", opt, val, want);
	return TCPSIFT_EXIT_USAGE;
}

/* One option of the table (cli_parse): -1 to go on, else an exit code. */
static int on_option(void *ctx, int c, const char *arg)
{
	struct analyze_cfg *cfg = ctx;
	uint64_t v;
	int64_t ns_val;

	switch (c) {
	case OPT_FILTER:
		cfg->filter = arg;
		break;
	case OPT_READ:
		cfg->reads[cfg->nreads++] = arg;
		break;
	case OPT_COUNT:
		if (cli_parse_u64(arg, 1, UINT64_MAX, &cfg->count) < 0) {
			cli_bad_value("analyze", "count", arg, "a number of packets from 1");
			return TCPSIFT_EXIT_USAGE;
		}
		break;
	case OPT_NUMERIC:
		break; /* names are never resolved */
	case OPT_JSON:
		return cli_report_format("analyze", &cfg->format, REP_JSON);
	case OPT_NDJSON:
		return cli_report_format("analyze", &cfg->format, REP_NDJSON);
	case OPT_LONG:
		cfg->text.long_form = true;
		cfg->text_opt = "--long";
		break;
	case OPT_SORT: {
		int k = rep_sort_parse(arg);
		char names[256];
		if (k < 0) {
			rep_sort_names(names, sizeof(names));
			return bad_value("sort", arg, names);
		}
		cfg->text.sort = k;
		cfg->text_opt = "--sort";
		break;
	}
	case OPT_TOP:
		if (cli_parse_u64(arg, 1, UINT64_MAX, &v) < 0)
			return bad_value("top", arg, "a count, 1 or more");
		cfg->text.top = v;
		cfg->text_opt = "--top";
		break;
	case OPT_HTML:
		return cli_report_format("analyze", &cfg->format, REP_HTML);
	case OPT_OUTPUT:
		*(cfg->annotate_verb ? &cfg->annotate : &cfg->output) = arg;
		break;
	case OPT_QUEUE_PER_FILE:
		cfg->queue_per_file = true;
		break;
	case OPT_REPORT_MEMORY:
		if (cli_parse_u64(arg, 0, 1u << 20, &v) < 0)
			return bad_value("report-memory", arg, "MiB from 0 to 1048576");
		cfg->report_memory = (size_t)v << 20;
		break;
	case OPT_MAX_MEMORY:
		if (cli_parse_size(arg, 1u << 20, (uint64_t)1 << 50, &v) < 0)
			return bad_value("max-memory", arg, "a size like 64M or 2G, 1M or more");
		cfg->eng.max_memory = v;
		break;
	case OPT_MAX_FLOWS:
		if (cli_parse_u64(arg, 1, 1u << 30, &v) < 0)
			return bad_value("max-flows", arg, "a count from 1 to 1073741824");
		cfg->eng.flow.max_flows = (uint32_t)v;
		break;
	case OPT_IDLE_TIMEOUT:
		if (cli_parse_u64(arg, 0, 86400u * 365, &v) < 0)
			return bad_value("idle-timeout", arg, "whole seconds, 0 for never");
		cfg->eng.flow.idle_timeout_ns = (int64_t)v * CLOCK_NS_PER_S;
		break;
	case OPT_RTO_MIN:
		if (parse_ms(arg, 600000, &ns_val) < 0)
			return bad_value("rto-min", arg, "milliseconds, 0 to 600000");
		cfg->eng.tcp.rto_min_ns = ns_val;
		break;
	case OPT_REORDER_WINDOW:
		if (parse_ms(arg, 600000, &ns_val) < 0)
			return bad_value("reorder-window", arg, "milliseconds, 0 to 600000");
		cfg->eng.tcp.reorder_window_ns = ns_val;
		break;
	case OPT_MAX_EVENTS:
		if (cli_parse_u64(arg, 0, UINT32_MAX, &v) < 0)
			return bad_value("max-events", arg, "a count");
		cfg->max_events = (uint32_t)v;
		break;
	case OPT_PROGRESS:
		cfg->progress = 1;
		break;
	case OPT_FAIL_ON: {
		char why[512];
		if (fo_parse(arg, &cfg->fail_expr, why, sizeof(why)) < 0) {
			fprintf(stderr, "tcpsift analyze: bad --fail-on '%s': %s\n", arg, why);
			return TCPSIFT_EXIT_USAGE;
		}
		cfg->fail_on = true;
		break;
	}
	case OPT_NO_DETECTORS:
		cfg->eng.detectors = false;
		break;
	case OPT_FRAMES:
		cfg->frames = true;
		break;
	case OPT_FRAMES_CSV:
		cfg->frames_csv = arg;
		break;
	case OPT_CONN:
		cfg->conn_list = arg;
		break;
	case OPT_PLOT:
		cfg->plot_dir = arg;
		break;
	case OPT_XPLOT:
		cfg->xplot_dir = arg;
		break;
	case OPT_PLOT_MAX:
		if (cli_parse_u64(arg, 1, PLOT_MAX_LIMIT, &v) < 0)
			return bad_value("plot-max", arg, "a count from 1 to 100000");
		cfg->plot_max = (uint32_t)v;
		break;
	case OPT_THREADS:
		if (cli_threads("analyze", arg, &cfg->threads) < 0)
			return TCPSIFT_EXIT_USAGE;
		break;
	case OPT_SHARD:
		if (parse_shard(arg, &cfg->eng.shard_k, &cfg->eng.shard_n) < 0)
			return bad_value("shard", arg, "K/N with 1 <= K <= N <= 65536");
		cfg->eng.live_spans = true; /* for merge's exact peak of live connections */
		break;
	case OPT_STALL_MIN:
		if (parse_ms(arg, 600000, &ns_val) < 0)
			return bad_value("stall-min", arg, "milliseconds, 0 to 600000");
		cfg->eng.det.stall_min_ns = ns_val;
		break;
	case OPT_STALL_RTT_FACTOR:
		if (cli_parse_u64(arg, 0, 1000, &v) < 0)
			return bad_value("stall-rtt-factor", arg, "a count from 0 to 1000");
		cfg->eng.det.stall_rtt_factor = (uint32_t)v;
		break;
	case OPT_NO_PROGRESS:
		cfg->progress = 0;
		break;
	case OPT_QUIET:
		cfg->quiet = true;
		break;
	case OPT_VANTAGE_PAIR:
		cfg->vantage_pair = true;
		break;
	case OPT_VANTAGE_MAX_OFFSET:
		if (parse_ms(arg, 86400000, &ns_val) < 0 || ns_val <= 0)
			return bad_value("vantage-max-offset", arg, "milliseconds, above 0");
		cfg->vantage_max_offset_ns = ns_val;
		cfg->vantage_opt = "--vantage-max-offset";
		break;
	case OPT_VANTAGE_WINDOW:
		if (cli_parse_u64(arg, 64, 1u << 24, &v) < 0)
			return bad_value("vantage-window", arg, "a count from 64 to 16777216");
		cfg->vantage_window = (uint32_t)v;
		cfg->vantage_opt = "--vantage-window";
		break;
	case OPT_ANNOTATE:
		cfg->annotate = arg;
		break;
	case OPT_HELP:
		if (cfg->annotate_verb)
			annotate_usage(stdout);
		else
			usage(stdout);
		return TCPSIFT_EXIT_OK;
	}
	return -1;
}

/* Options that cannot go together; -1 to go on, else the exit code. */
static int check_conflicts(const struct analyze_cfg *cfg)
{
	if (cfg->text_opt && cfg->format != REP_TEXT)
		return cli_conflict("analyze", cfg->text_opt, cli_format_option(cfg->format));
	/* Two writers on one stream would interleave their lines. */
	bool report_stdout = !cfg->output || strcmp(cfg->output, "-") == 0;
	if (cfg->frames_csv && strcmp(cfg->frames_csv, "-") == 0 && report_stdout) {
		fputs("tcpsift analyze: --frames-csv - and the report would both go to standard "
		      "output (give the report -o FILE)\n",
		      stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	return -1;
}

/* --vantage-pair: exactly two inputs, two different files, and no output
 * it does not write into; -1 to go on, else the exit code. */
static int check_vantage_pair(const struct analyze_cfg *cfg)
{
	if (!cfg->vantage_pair) {
		if (cfg->vantage_opt) {
			fprintf(stderr, "tcpsift analyze: %s needs --vantage-pair\n",
				cfg->vantage_opt);
			return TCPSIFT_EXIT_USAGE;
		}
		return -1;
	}
	if (cfg->nreads != 2) {
		fprintf(stderr,
			"tcpsift analyze: --vantage-pair takes exactly two inputs (the two capture "
			"points), not %u\n",
			cfg->nreads);
		return TCPSIFT_EXIT_USAGE;
	}
	struct stat a, b;
	if (strcmp(cfg->reads[0], cfg->reads[1]) == 0 ||
	    (stat(cfg->reads[0], &a) == 0 && stat(cfg->reads[1], &b) == 0 && a.st_dev == b.st_dev &&
	     a.st_ino == b.st_ino)) {
		fprintf(stderr,
			"tcpsift analyze: --vantage-pair: %s given twice (two captures are "
			"needed)\n",
			cfg->reads[1]);
		return TCPSIFT_EXIT_USAGE;
	}
	if (cfg->format == REP_HTML || cfg->plot_dir || cfg->xplot_dir)
		return cli_conflict("analyze", "--vantage-pair",
				    cfg->format == REP_HTML ? "--html"
				    : cfg->plot_dir	    ? "--plot"
							    : "--xplot");
	if (cfg->eng.shard_n > 1)
		return cli_conflict("analyze", "--vantage-pair", "--shard");
	if (cfg->conn_list)
		return cli_conflict("analyze", "--vantage-pair", "--conn");
	return -1;
}

/* --max-memory caps the whole process: its shares for the engine, the
 * report's store and events (cli/membudget.h). -1 to go on, else an exit
 * code. */
static int split_max_memory(struct analyze_cfg *cfg)
{
	struct mem_shares sh;
	char err[256];

	if (!cfg->eng.max_memory)
		return -1;
	unsigned nthreads = cfg->threads ? cfg->threads : wk_default_threads();
	/* Threads not asked for: not when their batches would take a quarter
	 * of the cap (one thread has none). */
	if (!cfg->threads && nthreads > 1 && wk_fixed_bytes(nthreads) > cfg->eng.max_memory / 4)
		cfg->threads = nthreads = 1;
	if (mem_split(cfg->eng.max_memory, nthreads, cfg->format, cfg->report_memory,
		      cfg->max_events, &sh, err, sizeof(err)) < 0) {
		fprintf(stderr, "tcpsift analyze: %s\n", err);
		return TCPSIFT_EXIT_USAGE;
	}
	cfg->eng.max_memory = sh.engine;
	if (cfg->report_memory == SIZE_MAX)
		cfg->report_memory = sh.report_conns;
	cfg->max_events = sh.max_events;
	return -1;
}

/* Parse argv into cfg: options, then the inputs (-r and the arguments)
 * and a trailing filter; returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, struct analyze_cfg *cfg)
{
	int rc = cli_parse(cfg->annotate_verb ? "annotate" : "analyze", analyze_opts, N_OPTS, argc,
			   argv, NULL, on_option, cfg);
	if (rc >= 0)
		return rc;
	rc = check_conflicts(cfg);
	if (rc >= 0)
		return rc;
	int end = cli_inputs_end(argc, argv, optind, cfg->nreads == 0);
	for (int k = optind; k < end; k++)
		cfg->reads[cfg->nreads++] = argv[k];
	if (end < argc)
		cfg->filter_first = argv[end];
	if (cli_trailing_filter("analyze", argc, argv, end, &cfg->filter, &cfg->filter_args) < 0)
		return TCPSIFT_EXIT_USAGE;
	if (cfg->nreads == 0) {
		fputs("tcpsift analyze: no input given (a capture file, a libtrace URI or -)\n",
		      stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	if (cfg->annotate_verb && !cfg->annotate) {
		fputs("tcpsift annotate: no output given (-o OUT.pcapng)\n", stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	return check_vantage_pair(cfg);
}

static void on_signal(int sig)
{
	analyze_stop = sig;
}

/*
 * The progress line on stderr (a terminal, or --progress): one line
 * rewritten in place with \r at most PROGRESS_EVERY_S apart, erased at the
 * end, never part of the report:
 *
 *   42.1% 1.23 GiB/2.92 GiB  12345678 pkts 1.52 Mpkt/s  20315 live  RSS 183 MiB  ETA 0:12
 *
 * Percent, total and ETA need every input's size (not stdin, not compressed).
 */
struct progress {
	bool on, drawn;
	double start, last;
	uint64_t last_packets;
	int width; /* the terminal's columns; 0 when not a terminal */
};

#define PROGRESS_EVERY_S 0.25

static void progress_start(struct progress *pr, bool on)
{
	struct winsize ws;

	pr->on = on;
	pr->start = clock_now_s();
	pr->last = pr->start - PROGRESS_EVERY_S; /* the first check draws */
	if (on && isatty(2) && ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		pr->width = ws.ws_col;
}

/* "12.3 M" style: v in units of 1000 (packets) or 1024 (bytes, "Ki" ...). */
static void fmt_units(char *buf, size_t len, double v, bool binary, const char *unit)
{
	static const char *const dec[] = {"", "k", "M", "G", "T"};
	static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti"};
	double step = binary ? 1024 : 1000;
	unsigned k = 0;

	while (v >= step * 0.9995 && k < 4) {
		v /= step;
		k++;
	}
	if (k == 0)
		snprintf(buf, len, "%.0f %s", v, unit);
	else
		snprintf(buf, len, "%.*f %s%s",
			 v < 9.95   ? 2
			 : v < 99.5 ? 1
				    : 0,
			 v, binary ? bin[k] : dec[k], unit);
}

/* Resident memory now (/proc/self/statm, pages), or 0 when unknown. */
static uint64_t rss_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	char line[128], *end;
	long page = sysconf(_SC_PAGESIZE);

	if (!f)
		return 0;
	bool got = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!got || page <= 0)
		return 0;
	/* "size resident ...": the second field, in pages. */
	const char *p = strchr(line, ' ');
	if (!p)
		return 0;
	errno = 0;
	unsigned long long resident = strtoull(p + 1, &end, 10);
	return errno == 0 && end != p + 1 ? (uint64_t)resident * (uint64_t)page : 0;
}

static void progress_tick(struct progress *pr, const struct source *src, const struct wk_pool *eng,
			  uint64_t packets)
{
	double t = clock_now_s();
	if (t - pr->last < PROGRESS_EVERY_S)
		return;

	char line[256], done_s[32], total_s[32], rate_s[32], rss_s[32];
	double since = pr->drawn ? pr->last : pr->start;
	double rate = t > since ? (double)(packets - pr->last_packets) / (t - since) : 0;
	uint64_t done, total;
	bool sized = src_bytes(src, &done, &total) == 0;
	int len = 0;

	fmt_units(done_s, sizeof(done_s), (double)done, true, "B");
	fmt_units(rate_s, sizeof(rate_s), rate, false, "pkt/s");
	fmt_units(rss_s, sizeof(rss_s), (double)rss_bytes(), true, "B");
	if (sized) {
		fmt_units(total_s, sizeof(total_s), (double)total, true, "B");
		len = snprintf(line, sizeof(line), "%5.1f%% %s/%s  ",
			       100.0 * (double)done / (double)total, done_s, total_s);
	} else {
		len = snprintf(line, sizeof(line), "%s  ", done_s);
	}
	len += snprintf(line + len, sizeof(line) - (size_t)len,
			"%" PRIu64 " pkts %s  %" PRIu32 " live  RSS %s", packets, rate_s,
			wk_live_connections(eng), rss_s);
	/* ETA from the average byte rate since the start: steadier than the last tick's. */
	double secs = t - pr->start;
	if (sized && done > 0 && secs > 0 && (size_t)len < sizeof(line)) {
		double eta = (double)(total - done) / ((double)done / secs);
		unsigned long e = eta < 360000 ? (unsigned long)(eta + 0.5) : 359999;
		if (e >= 3600)
			snprintf(line + len, sizeof(line) - (size_t)len, "  ETA %lu:%02lu:%02lu",
				 e / 3600, e / 60 % 60, e % 60);
		else
			snprintf(line + len, sizeof(line) - (size_t)len, "  ETA %lu:%02lu", e / 60,
				 e % 60);
	}
	/* Wider than the terminal would wrap, and \r would rewrite only the last row. */
	if (pr->width > 0 && strlen(line) >= (size_t)pr->width)
		line[pr->width - 1] = '\0';
	fprintf(stderr, "\r%s\033[K", line);
	pr->drawn = true;
	pr->last = t;
	pr->last_packets = packets;
}

/* Erase the line: the report, not the progress, is what stays. */
static void progress_end(const struct progress *pr)
{
	if (pr->drawn)
		fputs("\r\033[K", stderr);
}

static void print_error(void *ctx, const struct rep_error *e)
{
	(void)ctx;
	if (e->path)
		fprintf(stderr, "tcpsift analyze: %s: %s\n", e->path, e->message);
	else
		fprintf(stderr, "tcpsift analyze: %s\n", e->message);
}

/* --plot DIR's page and report: DIR/index.html (the graphs inlined) and
 * DIR/report.json, written by a report of their own fed the same results. */
struct plot_index {
	FILE *html, *json;
	struct report *rep;
};

static FILE *plot_index_file(const char *dir, const char *name, char *err, size_t errlen)
{
	char path[4096];
	FILE *f = NULL;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) < sizeof(path))
		f = fopen(path, "w");
	if (!f)
		snprintf(err, errlen, "cannot write %s/%s: %s", dir, name, strerror(errno));
	return f;
}

static void plot_index_close(struct plot_index *ix)
{
	rep_free(ix->rep);
	if (ix->html)
		fclose(ix->html);
	if (ix->json)
		fclose(ix->json);
	*ix = (struct plot_index){0};
}

static int plot_index_open(struct plot_index *ix, const char *dir, const struct rep_config *base,
			   char *err, size_t errlen)
{
	struct rep_config rc = *base;

	ix->html = plot_index_file(dir, "index.html", err, errlen);
	ix->json = ix->html ? plot_index_file(dir, "report.json", err, errlen) : NULL;
	if (ix->json) {
		rc.format = REP_HTML;
		rc.out = ix->html;
		rc.json_out = ix->json;
		rc.html_dir = dir;
		rc.frames_csv = NULL;
		ix->rep = rep_new(&rc, err, errlen);
	}
	if (!ix->rep) {
		plot_index_close(ix);
		return ERR_SYSTEM;
	}
	return 0;
}

/* Write both files; 0 or an error with one line in err. */
static int plot_index_finish(struct plot_index *ix, const struct rep_run *run, char *err,
			     size_t errlen)
{
	int rc = rep_finish(ix->rep, run, err, errlen);

	if (rc == 0 && (fflush(ix->json) != 0 || ferror(ix->json) || fflush(ix->html) != 0 ||
			ferror(ix->html))) {
		snprintf(err, errlen, "cannot write the --plot page and report: %s",
			 strerror(errno));
		rc = ERR_SYSTEM;
	}
	return rc;
}

/*
 * No report to write: no input could be read at all (their errors are
 * already on stderr; text only: a JSON document always comes, with its
 * errors), or --conn names no connection the input holds (said here, a
 * usage error). An empty report would only look like a capture in which
 * nothing went wrong. 0: write the report; else the exit status.
 */
static int nothing_to_report(const struct analyze_cfg *cfg, const struct rep_run *run,
			     const struct report *rep)
{
	bool none_read = run->ninputs > 0 && cfg->format == REP_TEXT; /* JSON: errors[] */

	for (unsigned k = 0; k < run->ninputs && none_read; k++)
		none_read = run->inputs[k] && run->inputs[k]->error && !run->inputs[k]->packets;
	if (none_read)
		return TCPSIFT_EXIT_INPUT;
	if (!cfg->conn_list || rep_selected(rep) || run->stopped_by)
		return 0;
	if (run->flows.created)
		fprintf(stderr,
			"tcpsift analyze: --conn %s: no such connection (the input holds %" PRIu64
			": ids 1 to %" PRIu64 ")\n",
			cfg->conn_list, run->flows.created, run->flows.created);
	else
		fprintf(stderr,
			"tcpsift analyze: --conn %s: no such connection (the input holds none)\n",
			cfg->conn_list);
	return TCPSIFT_EXIT_USAGE;
}

/* The analysis once the arguments are parsed: returns the exit code. */
/* --annotate / tcpsift annotate: the capture again, with the verdicts;
 * what could not be written is said (0, or -1 when any was lost). */
static int annotate_finish(const struct analyze_cfg *cfg, struct ann_set *ann,
			   const char *const *paths, unsigned n)
{
	const char *verb = cfg->annotate_verb ? "annotate" : "analyze";
	struct ann_stats st;
	char err[512];

	if (ann_write(ann, paths, n, cfg->annotate, &st, err, sizeof(err)) < 0) {
		fprintf(stderr, "tcpsift %s: %s\n", verb, err);
		return -1;
	}
	if (!cfg->quiet)
		fprintf(stderr,
			"tcpsift %s: wrote %s: %" PRIu64 " packets, %" PRIu64
			" comments on %" PRIu64 " of them (tshark -r '%s' -Y 'frame.comment "
			"contains \"tcpsift\"')\n",
			verb, cfg->annotate, st.packets, st.comments, st.annotated, cfg->annotate);
	if (st.not_epb)
		fprintf(stderr,
			"tcpsift %s: warning: %" PRIu64
			" verdicts not written: their packets are simple or obsolete packet "
			"blocks, which have no room for comments\n",
			verb, st.not_epb);
	if (st.dropped || st.unmatched)
		fprintf(stderr,
			"tcpsift %s: %s is partial: %" PRIu64 " verdicts not written (%" PRIu64
			" beyond %u kept, %" PRIu64 " on frames not found)\n",
			verb, cfg->annotate, st.dropped + st.unmatched, st.dropped, ANN_MAX_NOTES,
			st.unmatched);
	return st.dropped || st.unmatched ? -1 : 0;
}

static int analyze_run(struct analyze_cfg *cfg)
{
	char err[512];
	int rc;

	struct idset *only = NULL;
	if (cfg->conn_list && !(only = idset_parse(cfg->conn_list, err, sizeof(err)))) {
		fprintf(stderr, "tcpsift analyze: --conn %s\n", err);
		return TCPSIFT_EXIT_USAGE;
	}

	/* The graphs' directories before any input is read: a bad one is
	 * known at once (exit 3, as an output file that cannot be written). */
	/* --html inlines the graphs: from --plot DIR, or from a temporary
	 * directory the plot removes. */
	struct plot *plot = NULL;
	bool html = cfg->format == REP_HTML;
	if (cfg->plot_dir || cfg->xplot_dir || html) {
		struct plot_config pc = {.svg_dir = cfg->plot_dir,
					 .xpl_dir = cfg->xplot_dir,
					 .only = only,
					 .max_conns =
					     cfg->plot_max ? cfg->plot_max : PLOT_MAX_DEFAULT,
					 .svg_temp = html};
		if (!(plot = plot_new(&pc, err, sizeof(err)))) {
			fprintf(stderr, "tcpsift analyze: %s\n", err);
			idset_free(only);
			return TCPSIFT_EXIT_INPUT;
		}
	}

	unsigned ninputs = cfg->nreads;
	const char *const *paths = cfg->reads;
	unsigned stdin_count = 0;
	for (unsigned k = 0; k < ninputs; k++)
		stdin_count += strcmp(paths[k], "-") == 0;
	if (stdin_count > 1) {
		fputs("tcpsift analyze: standard input ('-') given more than once\n", stderr);
		idset_free(only);
		plot_free(plot);
		return TCPSIFT_EXIT_USAGE;
	}

	if (cfg->annotate && ann_check(paths, ninputs, cfg->annotate, err, sizeof(err)) < 0) {
		fprintf(stderr, "tcpsift %s: %s\n",
			cfg->annotate_verb ? "annotate" : "analyze: --annotate", err);
		idset_free(only);
		plot_free(plot);
		return TCPSIFT_EXIT_USAGE;
	}

	/* Before the inputs open: a FIFO's writer is waited for there. No
	 * SA_RESTART: the signal ends a wait in poll(2) at once. */
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	struct src_config scfg = {.filter = cfg->filter,
				  .queue_per_file = cfg->queue_per_file,
				  .vantage_per_input = cfg->vantage_pair,
				  .keep_going = true,
				  .stop = &analyze_stop};
	struct source *src;
	rc = src_open(paths, ninputs, &scfg, &src, err, sizeof(err));
	if (rc < 0) {
		/* A trailing argument that is no file was taken for a filter:
		 * when that does not compile, it may have been a file after all. */
		if (err_is_usage(rc) && bpfhint_report("analyze", cfg->filter)) {
			/* a display filter: the hint's line says it all */
		} else if (cfg->filter_args && err_is_usage(rc))
			fprintf(stderr,
				"tcpsift analyze: %s (the arguments from '%s' on were taken as a "
				"filter: no file, URI or - of that name)\n",
				err, cfg->filter_first);
		else
			fprintf(stderr, "tcpsift analyze: %s\n", err);
		idset_free(only);
		plot_free(plot);
		/* A filter that does not compile is a usage error, not bad input. */
		return exit_for_error(rc);
	}

	FILE *out = stdout;
	if (cfg->output && strcmp(cfg->output, "-") != 0) {
		out = fopen(cfg->output, "w");
		if (!out) {
			fprintf(stderr, "tcpsift analyze: cannot write %s: %s\n", cfg->output,
				strerror(errno));
			src_close(src);
			idset_free(only);
			plot_free(plot);
			return TCPSIFT_EXIT_INPUT;
		}
	}

	FILE *csv = NULL;
	if (cfg->frames_csv) {
		csv = strcmp(cfg->frames_csv, "-") == 0 ? stdout : fopen(cfg->frames_csv, "w");
		if (!csv) {
			fprintf(stderr, "tcpsift analyze: cannot write %s: %s\n", cfg->frames_csv,
				strerror(errno));
			src_close(src);
			if (out != stdout)
				fclose(out);
			idset_free(only);
			plot_free(plot);
			return TCPSIFT_EXIT_INPUT;
		}
	}
	const char **names = calloc(ninputs ? ninputs : 1,
				    sizeof(*names)); // NOLINT(bugprone-sizeof-expression): pointers
	for (unsigned k = 0; names && k < ninputs; k++)
		names[k] = src_input(src, k)->path;
	/* --conn: the selected connections in long form too. */
	cfg->text.long_form |= only != NULL;
	unsigned nthreads = cfg->threads ? cfg->threads : wk_default_threads();
	struct rep_config rcfg = {.format = cfg->format,
				  .text = cfg->text,
				  .out = out,
				  .max_events = cfg->max_events,
				  .frames = cfg->frames,
				  .frames_csv = csv,
				  .input_names = names,
				  .ninput_names = names ? ninputs : 0,
				  .only = only,
				  /* 0 MiB asked: spill every connection (1 byte is below one) */
				  .conn_mem = cfg->report_memory == SIZE_MAX ? 0
					      : cfg->report_memory	     ? cfg->report_memory
									     : 1};
	if (html)
		rcfg.html_dir = plot_svg_dir(plot);
	struct report *rep = rep_new(&rcfg, err, sizeof(err));
	/* --plot DIR without --html: the page as DIR/index.html (one page:
	 * with --html, the page goes where -o says, and DIR holds the graphs). */
	struct plot_index ix = {0};
	if (rep && cfg->plot_dir && !html &&
	    plot_index_open(&ix, cfg->plot_dir, &rcfg, err, sizeof(err)) < 0) {
		rep_free(rep); /* the engine is not made: said and cleaned up below */
		rep = NULL;
	}
	struct sum_sink sink = rep ? rep_sink(rep) : (struct sum_sink){0};
	struct sum_tee tee = {.a = sink}, tee_index;
	if (rep && plot) {
		tee.b = plot_sink(plot);
		sink = sum_tee_sink(&tee);
	}
	if (rep && ix.rep) {
		tee_index = (struct sum_tee){.a = sink, .b = rep_sink(ix.rep)};
		sink = sum_tee_sink(&tee_index);
	}
	struct vpair *vp = NULL;
	struct sum_tee tee_vp;
	if (rep && cfg->vantage_pair) {
		struct vp_config vc = {.names = {names ? names[0] : "A", names ? names[1] : "B"},
				       .max_offset_ns = cfg->vantage_max_offset_ns,
				       .window = cfg->vantage_window};
		vp = vp_new(&vc, err, sizeof(err));
		if (!vp) {
			rep_free(rep);
			rep = NULL;
		} else {
			tee_vp = (struct sum_tee){.a = sink, .b = vp_sink(vp)};
			sink = sum_tee_sink(&tee_vp);
		}
	}
	struct ann_set *ann = NULL;
	struct sum_tee tee_ann;
	if (rep && cfg->annotate) {
		if (!(ann = ann_new(only, err, sizeof(err)))) {
			rep_free(rep);
			rep = NULL;
		} else {
			tee_ann = (struct sum_tee){.a = sink, .b = ann_sink(ann)};
			sink = sum_tee_sink(&tee_ann);
		}
	}
	struct wk_pool *eng = rep ? wk_new(&cfg->eng, nthreads, &sink, err, sizeof(err)) : NULL;
	if (!eng) {
		fprintf(stderr, "tcpsift analyze: %s\n", err);
		rep_free(rep);
		vp_free(vp);
		ann_free(ann);
		plot_index_close(&ix);
		src_close(src);
		free(names);
		if (out != stdout)
			fclose(out);
		if (csv && csv != stdout)
			fclose(csv);
		idset_free(only);
		plot_free(plot);
		return TCPSIFT_EXIT_INPUT;
	}

	struct progress pr = {0};
	progress_start(&pr, cfg->progress == 1 || (cfg->progress < 0 && isatty(2)));
	struct pkt p;
	uint64_t n = 0;
	bool stopped = false;
	for (;;) {
		if (analyze_stop) {
			stopped = true;
			break;
		}
		if ((cfg->count && n == cfg->count) || src_next(src, &p) <= 0)
			break;
		wk_packet(eng, &p);
		if ((++n & 0x3ff) == 0 && pr.on)
			progress_tick(&pr, src, eng, n);
	}
	progress_end(&pr);
	wk_finish(eng);
	struct rep_extra vpx;
	if (vp) {
		vp_finish(vp);
		vpx = vp_extra(vp);
	}

	/* Every connection has ended: the verdicts are all known. */
	int ann_rc = ann ? annotate_finish(cfg, ann, paths, ninputs) : 0;
	ann_free(ann);

	/* Every connection has ended: the graphs are written. */
	int plot_rc = 0;
	if (plot) {
		char perr[512] = "";
		plot_rc = plot_finish(plot, perr, sizeof(perr));
		if (plot_rc < 0)
			fprintf(stderr, "tcpsift analyze: %s\n", perr);
		if (!cfg->quiet && plot_left_out(plot))
			fprintf(stderr,
				"tcpsift analyze: graphs for %" PRIu64 " connections; %" PRIu64
				" more were not plotted (--plot-max %" PRIu32
				"): pick them with --conn\n",
				plot_written(plot), plot_left_out(plot),
				cfg->plot_max ? cfg->plot_max : PLOT_MAX_DEFAULT);
	}

	const struct src_input **inputs = calloc(
	    ninputs ? ninputs : 1, sizeof(*inputs)); // NOLINT(bugprone-sizeof-expression): pointers
	unsigned nvantages = src_vantage_count(src);
	const char **vantages =
	    calloc(nvantages ? nvantages : 1,
		   sizeof(*vantages)); // NOLINT(bugprone-sizeof-expression): pointers
	for (unsigned v = 0; vantages && v < nvantages; v++)
		vantages[v] = src_vantage_name(src, v);
	for (unsigned k = 0; inputs && k < ninputs; k++)
		inputs[k] = src_input(src, k);
	struct rep_run run = {
	    .version = TCPSIFT_VERSION,
	    .filter = cfg->filter,
	    .ninputs = inputs ? ninputs : 0,
	    .inputs = inputs,
	    .filtered_out = src_filtered_out(src),
	    .nvantages = vantages ? nvantages : 0,
	    .vantage_names = vantages,
	    .detectors = cfg->eng.detectors,
	    .shard_k = cfg->eng.shard_k,
	    .shard_n = cfg->eng.shard_n,
	    .stopped_by = stopped || src_stopped(src) ? (analyze_stop ? analyze_stop : SIGTERM) : 0,
	    .extra = vp ? &vpx : NULL,
	};
	/* Inputs that failed, or hold nothing tcpsift decodes, or a stop: named
	 * here and in the report's errors, exit 3. */
	bool input_error = rep_each_error(&run, print_error, NULL) > 0;
	wk_counters(eng, &run.eng, &run.flows);
	/* Packets the BPF filter dropped belong to no connection: shard 1's. */
	if (cfg->eng.shard_n > 1 && cfg->eng.shard_k != 1)
		run.filtered_out = 0;
	if (!cfg->quiet && !input_error && run.eng.malformed[-DEC_ERR_LINKTYPE])
		fprintf(stderr,
			"tcpsift analyze: warning: %" PRIu64
			" packets of a link type tcpsift cannot decode\n",
			run.eng.malformed[-DEC_ERR_LINKTYPE]);
	/* Packets no connection could take (--max-flows, --max-memory): the
	 * report does not cover them; the counts say which, exit 3 says so. */
	uint64_t unanalysed = run.eng.no_memory + run.flows.evicted_packets;
	if (unanalysed)
		fprintf(stderr,
			"tcpsift analyze: the report is partial: %" PRIu64
			" packets not analysed, no memory for their connection (summary.no_memory, "
			"flows.evicted_packets_dropped; a larger --max-memory or --max-flows)\n",
			unanalysed);
	if (!cfg->quiet && run.eng.ts_clamped)
		fprintf(stderr,
			"tcpsift analyze: warning: %" PRIu64
			" packets timed before 1970 or after 2262 (not 64-bit nanoseconds): "
			"taken as the nearest end (summary.timestamps_clamped)\n",
			run.eng.ts_clamped);

	char werr[256] = "";
	int none = inputs ? nothing_to_report(cfg, &run, rep) : 0;
	rc = none ? 0 : rep_finish(rep, &run, werr, sizeof(werr));
	if (rc == 0 && vp && cfg->format == REP_TEXT && vp_write_text(vp, out) < 0) {
		snprintf(werr, sizeof(werr), "cannot write the report: %s", strerror(errno));
		rc = ERR_SYSTEM;
	}
	if (rc < 0)
		fprintf(stderr, "tcpsift analyze: %s\n", werr);
	/* After the graphs, which the page links where they exist. */
	if (!none && ix.rep && plot_index_finish(&ix, &run, werr, sizeof(werr)) < 0) {
		fprintf(stderr, "tcpsift analyze: %s\n", werr);
		if (rc == 0)
			rc = ERR_SYSTEM;
	}
	char matched[128] = "";
	bool failed = cfg->fail_on &&
		      fo_match(&cfg->fail_expr, rep_get_totals(rep), matched, sizeof(matched));
	if (failed && !cfg->quiet)
		fprintf(stderr, "tcpsift analyze: --fail-on matched: %s\n", matched);
	free(inputs);
	free(vantages);
	vp_free(vp);
	wk_free(eng);
	rep_free(rep);
	plot_index_close(&ix);
	src_close(src);
	free(names);
	idset_free(only);
	plot_free(plot);
	if (csv && csv != stdout && fclose(csv) != 0 && rc == 0) {
		fprintf(stderr, "tcpsift analyze: cannot write %s: %s\n", cfg->frames_csv,
			strerror(errno));
		rc = -EIO;
	}
	if (out != stdout && fclose(out) != 0 && rc == 0) {
		fprintf(stderr, "tcpsift analyze: cannot write %s: %s\n", cfg->output,
			strerror(errno));
		rc = -EIO;
	}
	if (none == TCPSIFT_EXIT_USAGE)
		return none;
	if (rc < 0 || input_error || plot_rc < 0 || ann_rc < 0 || unanalysed)
		return TCPSIFT_EXIT_INPUT;
	return failed ? TCPSIFT_EXIT_FINDINGS : TCPSIFT_EXIT_OK;
}

/* analyze, or annotate (the analysis for its verdicts only: -o is the
 * annotated capture and the report itself goes nowhere). */
static int analyze_verb(int argc, char **argv, bool annotate)
{
	struct analyze_cfg cfg = {.format = REP_TEXT,
				  .progress = -1,
				  .max_events = 100000,
				  .report_memory = SIZE_MAX,
				  .annotate_verb = annotate};
	int rc;

	eng_config_defaults(&cfg.eng);
	/* Every -r and argument could be an input: argc slots are enough. */
	cfg.reads = calloc((size_t)argc + 1, sizeof(*cfg.reads));
	if (!cfg.reads) {
		fprintf(stderr, "tcpsift %s: out of memory\n", annotate ? "annotate" : "analyze");
		return TCPSIFT_EXIT_INPUT;
	}
	rc = parse_args(argc, argv, &cfg);
	if (rc < 0)
		rc = split_max_memory(&cfg);
	if (annotate)
		cfg.output = "/dev/null";
	if (rc < 0)
		rc = analyze_run(&cfg);
	free(cfg.reads);
	free(cfg.filter_args);
	return rc;
}

int analyze_main(int argc, char **argv)
{
	return analyze_verb(argc, argv, false);
}

int annotate_main(int argc, char **argv)
{
	return analyze_verb(argc, argv, true);
}

size_t annotate_option_names(const char **names, size_t max)
{
	static const char *const own[] = {"output", "version", "help"};
	size_t k;

	for (k = 0; k < sizeof(own) / sizeof(own[0]) && k < max; k++)
		names[k] = own[k];
	return k;
}

size_t analyze_option_names(const char **names, size_t max)
{
	size_t k;
	for (k = 0; k < N_OPTS && k < max; k++)
		names[k] = analyze_opts[k].name;
	return k;
}
