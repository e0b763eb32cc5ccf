/* analyze_opts.c - analyze's option table, --help, and argv parsed into struct analyze_cfg. */
#include "cli/analyze_opts.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/engine/shard.h"
#include "analyze/engine/workers.h"
#include "analyze/report/plot.h"
#include "cli/cliopt.h"
#include "cli/exit.h"
#include "cli/membudget.h"
#include "common/clock.h"
#include "common/err.h"

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
	OPT_PARK_AFTER,
	OPT_PREFETCH_FROM,
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
    {"park-after", OPT_PARK_AFTER, "SEC",
     "pack an open connection idle this long into less memory (default 10; 0 never)"},
    {"prefetch-from", OPT_PREFETCH_FROM, "N",
     "load connections ahead of their packets from N live on (default 32768; 0 always)"},
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
		return ERR_USAGE;
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
		return ERR_USAGE;
	memcpy(kbuf, s, (size_t)(slash - s));
	kbuf[slash - s] = '\0';
	if (cli_parse_u64(slash + 1, 1, SHARD_MAX, &nv) < 0 || cli_parse_u64(kbuf, 1, nv, &kv) < 0)
		return ERR_USAGE;
	*k = (uint32_t)kv;
	*n = (uint32_t)nv;
	return 0;
}

static int bad_value(const struct analyze_cfg *cfg, const char *opt, const char *val,
		     const char *want)
{
	cli_bad_value_to(cfg->msg, "analyze", opt, val, want);
	return TCPSIFT_EXIT_USAGE;
}

/* The engine's, the detectors' and the memory's numbers: CLI_GO_ON to go on, else an exit code. */
/* The connection table's and memory's options (on_tuning's share). */
static int on_table(struct analyze_cfg *cfg, int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case OPT_MAX_MEMORY:
		if (cli_parse_size(arg, 1u << 20, (uint64_t)1 << 50, &v) < 0)
			return bad_value(cfg, "max-memory", arg,
					 "a size like 64M or 2G, 1M or more");
		cfg->eng.max_memory = v;
		break;
	case OPT_MAX_FLOWS:
		if (cli_parse_u64(arg, 1, 1u << 30, &v) < 0)
			return bad_value(cfg, "max-flows", arg, "a count from 1 to 1073741824");
		cfg->eng.flow.max_flows = (uint32_t)v;
		break;
	case OPT_IDLE_TIMEOUT:
		if (cli_parse_u64(arg, 0, 86400u * 365, &v) < 0)
			return bad_value(cfg, "idle-timeout", arg, "whole seconds, 0 for never");
		cfg->eng.flow.idle_timeout_ns = (int64_t)v * CLOCK_NS_PER_S;
		break;
	case OPT_PARK_AFTER:
		if (cli_parse_u64(arg, 0, 86400u * 365, &v) < 0)
			return bad_value(cfg, "park-after", arg, "whole seconds, 0 for never");
		cfg->eng.flow.park_after_ns = (int64_t)v * CLOCK_NS_PER_S;
		break;
	case OPT_PREFETCH_FROM:
		if (cli_parse_u64(arg, 0, UINT32_MAX, &v) < 0)
			return bad_value(cfg, "prefetch-from", arg, "a count of live connections");
		cfg->eng.flow.prefetch_live = (uint32_t)v;
		break;
	}
	return CLI_GO_ON;
}

static int on_tuning(struct analyze_cfg *cfg, int c, const char *arg)
{
	uint64_t v;
	int64_t ns_val;

	switch (c) {
	case OPT_COUNT:
		if (cli_parse_u64(arg, 1, UINT64_MAX, &cfg->count) < 0) {
			cli_bad_value_to(cfg->msg, "analyze", "count", arg,
					 "a number of packets from 1");
			return TCPSIFT_EXIT_USAGE;
		}
		break;
	case OPT_PLOT_MAX:
		if (cli_parse_u64(arg, 1, PLOT_MAX_LIMIT, &v) < 0)
			return bad_value(cfg, "plot-max", arg, "a count from 1 to 100000");
		cfg->plot_max = (uint32_t)v;
		break;
	case OPT_TOP:
		if (cli_parse_u64(arg, 1, UINT64_MAX, &v) < 0)
			return bad_value(cfg, "top", arg, "a count, 1 or more");
		cfg->text.top = v;
		cfg->text_opt = "--top";
		break;
	case OPT_REPORT_MEMORY:
		if (cli_parse_u64(arg, 0, 1u << 20, &v) < 0)
			return bad_value(cfg, "report-memory", arg, "MiB from 0 to 1048576");
		cfg->report_memory = (size_t)v << 20;
		break;
	case OPT_RTO_MIN:
		if (parse_ms(arg, 600000, &ns_val) < 0)
			return bad_value(cfg, "rto-min", arg, "milliseconds, 0 to 600000");
		cfg->eng.tcp.rto_min_ns = ns_val;
		break;
	case OPT_REORDER_WINDOW:
		if (parse_ms(arg, 600000, &ns_val) < 0)
			return bad_value(cfg, "reorder-window", arg, "milliseconds, 0 to 600000");
		cfg->eng.tcp.reorder_window_ns = ns_val;
		break;
	case OPT_MAX_EVENTS:
		if (cli_parse_u64(arg, 0, UINT32_MAX, &v) < 0)
			return bad_value(cfg, "max-events", arg, "a count");
		cfg->max_events = (uint32_t)v;
		break;
	case OPT_THREADS:
		if (cli_threads("analyze", arg, &cfg->threads) < 0)
			return TCPSIFT_EXIT_USAGE;
		break;
	case OPT_SHARD:
		if (parse_shard(arg, &cfg->eng.shard_k, &cfg->eng.shard_n) < 0)
			return bad_value(cfg, "shard", arg, "K/N with 1 <= K <= N <= 65536");
		cfg->eng.live_spans = true; /* for merge's exact peak of live connections */
		break;
	case OPT_STALL_MIN:
		if (parse_ms(arg, 600000, &ns_val) < 0)
			return bad_value(cfg, "stall-min", arg, "milliseconds, 0 to 600000");
		cfg->eng.det.stall_min_ns = ns_val;
		break;
	case OPT_STALL_RTT_FACTOR:
		if (cli_parse_u64(arg, 0, 1000, &v) < 0)
			return bad_value(cfg, "stall-rtt-factor", arg, "a count from 0 to 1000");
		cfg->eng.det.stall_rtt_factor = (uint32_t)v;
		break;
	case OPT_VANTAGE_MAX_OFFSET:
		if (parse_ms(arg, 86400000, &ns_val) < 0 || ns_val <= 0)
			return bad_value(cfg, "vantage-max-offset", arg, "milliseconds, above 0");
		cfg->vantage_max_offset_ns = ns_val;
		cfg->vantage_opt = "--vantage-max-offset";
		break;
	case OPT_VANTAGE_WINDOW:
		if (cli_parse_u64(arg, 64, 1u << 24, &v) < 0)
			return bad_value(cfg, "vantage-window", arg, "a count from 64 to 16777216");
		cfg->vantage_window = (uint32_t)v;
		cfg->vantage_opt = "--vantage-window";
		break;
	default:
		return on_table(cfg, c, arg);
	}
	return CLI_GO_ON;
}

/* One option of the table (cli_parse): CLI_GO_ON to go on, else an exit code. */
static int on_option(void *ctx, int c, const char *arg)
{
	struct analyze_cfg *cfg = ctx;

	switch (c) {
	case OPT_FILTER:
		cfg->filter = arg;
		break;
	case OPT_READ:
		cfg->reads[cfg->nreads++] = arg;
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
			return bad_value(cfg, "sort", arg, names);
		}
		cfg->text.sort = k;
		cfg->text_opt = "--sort";
		break;
	}
	case OPT_HTML:
		return cli_report_format("analyze", &cfg->format, REP_HTML);
	case OPT_OUTPUT:
		*(cfg->annotate_verb ? &cfg->annotate : &cfg->output) = arg;
		break;
	case OPT_QUEUE_PER_FILE:
		cfg->queue_per_file = true;
		break;
	case OPT_PROGRESS:
		cfg->progress = 1;
		break;
	case OPT_FAIL_ON: {
		char why[512];
		if (fo_parse(arg, &cfg->fail_expr, why, sizeof(why)) < 0) {
			fprintf(cfg->msg, "tcpsift analyze: bad --fail-on '%s': %s\n", arg, why);
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
	case OPT_NO_PROGRESS:
		cfg->progress = 0;
		break;
	case OPT_QUIET:
		cfg->quiet = true;
		break;
	case OPT_VANTAGE_PAIR:
		cfg->vantage_pair = true;
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
	default:
		return on_tuning(cfg, c, arg);
	}
	return CLI_GO_ON;
}

/* Options that cannot go together; CLI_GO_ON to go on, else the exit code. */
static int check_conflicts(const struct analyze_cfg *cfg)
{
	if (cfg->text_opt && cfg->format != REP_TEXT)
		return cli_conflict("analyze", cfg->text_opt, cli_format_option(cfg->format));
	/* Two writers on one stream would interleave their lines. */
	bool report_stdout = !cfg->output || strcmp(cfg->output, "-") == 0;
	if (cfg->frames_csv && strcmp(cfg->frames_csv, "-") == 0 && report_stdout) {
		fputs("tcpsift analyze: --frames-csv - and the report would both go to standard "
		      "output (give the report -o FILE)\n",
		      cfg->msg);
		return TCPSIFT_EXIT_USAGE;
	}
	return CLI_GO_ON;
}

/* --vantage-pair: exactly two inputs, two different files, and no output
 * it does not write into; CLI_GO_ON to go on, else the exit code. */
static int check_vantage_pair(const struct analyze_cfg *cfg)
{
	if (!cfg->vantage_pair) {
		if (cfg->vantage_opt) {
			fprintf(cfg->msg, "tcpsift analyze: %s needs --vantage-pair\n",
				cfg->vantage_opt);
			return TCPSIFT_EXIT_USAGE;
		}
		return CLI_GO_ON;
	}
	if (cfg->nreads != 2) {
		fprintf(cfg->msg,
			"tcpsift analyze: --vantage-pair takes exactly two inputs (the two capture "
			"points), not %u\n",
			cfg->nreads);
		return TCPSIFT_EXIT_USAGE;
	}
	struct stat a, b;
	if (strcmp(cfg->reads[0], cfg->reads[1]) == 0 ||
	    (stat(cfg->reads[0], &a) == 0 && stat(cfg->reads[1], &b) == 0 && a.st_dev == b.st_dev &&
	     a.st_ino == b.st_ino)) {
		fprintf(cfg->msg,
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
	return CLI_GO_ON;
}

/* --max-memory caps the whole process: its shares for the engine, the
 * report's store and events (cli/membudget.h). CLI_GO_ON to go on, else an exit
 * code. */
static int split_max_memory(struct analyze_cfg *cfg)
{
	struct mem_shares sh;
	char err[256];

	if (!cfg->eng.max_memory)
		return CLI_GO_ON;
	unsigned nthreads = cfg->threads ? cfg->threads : wk_default_threads();
	/* Threads not asked for: not when their batches would take a quarter
	 * of the cap (one thread has none). */
	if (!cfg->threads && nthreads > 1 && wk_fixed_bytes(nthreads) > cfg->eng.max_memory / 4)
		cfg->threads = nthreads = 1;
	if (mem_split(cfg->eng.max_memory, nthreads, cfg->format, cfg->report_memory,
		      cfg->max_events, &sh, err, sizeof(err)) < 0) {
		fprintf(cfg->msg, "tcpsift analyze: %s\n", err);
		return TCPSIFT_EXIT_USAGE;
	}
	cfg->eng.max_memory = sh.engine;
	if (cfg->report_memory == SIZE_MAX)
		cfg->report_memory = sh.report_conns;
	cfg->max_events = sh.max_events;
	return CLI_GO_ON;
}

/* Parse argv into cfg: options, then the inputs (-r and the arguments)
 * and a trailing filter; returns CLI_GO_ON to go on, else an exit code. */
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
		      cfg->msg);
		return TCPSIFT_EXIT_USAGE;
	}
	if (cfg->annotate_verb && !cfg->annotate) {
		fputs("tcpsift annotate: no output given (-o OUT.pcapng)\n", cfg->msg);
		return TCPSIFT_EXIT_USAGE;
	}
	return check_vantage_pair(cfg);
}

int aopt_parse(int argc, char **argv, struct analyze_cfg *cfg)
{
	int rc = parse_args(argc, argv, cfg);

	return rc < 0 ? split_max_memory(cfg) : rc;
}

int aopt_init(struct analyze_cfg *cfg, int argc, bool annotate, FILE *msg)
{
	*cfg = (struct analyze_cfg){.msg = msg,
				    .format = REP_TEXT,
				    .progress = -1,
				    .max_events = 100000,
				    .report_memory = SIZE_MAX,
				    .annotate_verb = annotate};
	eng_config_defaults(&cfg->eng);
	/* Every -r and argument could be an input: argc slots are enough. */
	cfg->reads = calloc((size_t)argc + 1, sizeof(*cfg->reads));
	return cfg->reads ? 0 : ERR_NOMEM;
}

void aopt_free(struct analyze_cfg *cfg)
{
	free(cfg->reads);
	free(cfg->filter_args);
	cfg->reads = NULL;
	cfg->filter_args = NULL;
}

size_t aopt_names(const char **names, size_t max)
{
	size_t k;
	for (k = 0; k < N_OPTS && k < max; k++)
		names[k] = analyze_opts[k].name;
	return k;
}
