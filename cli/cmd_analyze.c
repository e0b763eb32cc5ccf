/* cmd_analyze.c - the `tcpsift analyze` verb: options, the read loop, progress, exit codes. */
#include "common/clock.h"
#include "cli/cliopt.h"
#include "cli/cmd_analyze.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/engine/decode.h"
#include "analyze/engine/engine.h"
#include "analyze/report/failon.h"
#include "analyze/report/report.h"
#include "analyze/engine/source.h"

/* Set by SIGINT/SIGTERM: stop reading, report what was read. */
static volatile sig_atomic_t analyze_stop;

enum opt_id {
	OPT_FILTER = 'f',
	OPT_JSON = 'j',
	OPT_OUTPUT = 'o',
	OPT_QUIET = 'q',
	OPT_HELP = 'h',
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
};

/* One table drives getopt_long, --help and the man-page test. */
static const struct cli_opt analyze_opts[] = {
    {"filter", OPT_FILTER, "EXPR", "BPF filter (tcpdump syntax, compiled by libpcap)"},
    {"json", OPT_JSON, NULL, "one JSON document (schema 2, see tcpsift(1))"},
    {"ndjson", OPT_NDJSON, NULL, "one JSON object per line: events and connections as found"},
    {"output", OPT_OUTPUT, "FILE", "write the report to FILE instead of stdout"},
    {"queue-per-file", OPT_QUEUE_PER_FILE, NULL,
     "tag each input's packets with its index as queue id"},
    {"max-flows", OPT_MAX_FLOWS, "N", "live connections kept (default 262144); LRU evicted"},
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
    {"fail-on", OPT_FAIL_ON, "EXPR", "exit 1 when a finding matches, e.g. 'stall>0,sack_holes>10'"},
    {"stall-min", OPT_STALL_MIN, "MS", "shortest gap that can be a stall (default 10)"},
    {"stall-rtt-factor", OPT_STALL_RTT_FACTOR, "N", "nor shorter than N times the min RTT (4)"},
    {"no-detectors", OPT_NO_DETECTORS, NULL,
     "skip the detectors (stalls, SACK, queues, MTU): their findings null"},
    {"progress", OPT_PROGRESS, NULL, "show progress on stderr even when it is not a terminal"},
    {"no-progress", OPT_NO_PROGRESS, NULL, "never show progress"},
    {"quiet", OPT_QUIET, NULL, "no warnings on stderr"},
    {"help", OPT_HELP, NULL, "this help"},
};

#define N_OPTS (sizeof(analyze_opts) / sizeof(analyze_opts[0]))

struct analyze_cfg {
	const char *filter;
	const char *output;
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
};

static void usage(FILE *f)
{
	fputs("usage: tcpsift analyze [options] FILE|URI|- ...\n"
	      "\n"
	      "Reconstruct every TCP connection in the captures and report retransmissions,\n"
	      "reordering, capture loss, zero windows and per-connection statistics.\n"
	      "\n"
	      "Inputs (several are merged by timestamp):\n"
	      "  FILE     pcap (us/ns, either byte order) or pcapng, read by tcpsift's own\n"
	      "           reader; .gz/.bz2/.xz/.lzo content is detected and read via libwandio\n"
	      "  -        the same from standard input (tcpdump -w - | tcpsift analyze -)\n"
	      "  URI      other trace formats through libtrace: erf:FILE, legacyeth:FILE,\n"
	      "           legacypos:FILE, legacyatm:FILE, tsh:FILE, duck:FILE ...\n"
	      "           (pcapfile:FILE and pcapng:FILE are read as FILE, by the reader above)\n"
	      "\n"
	      "Options:\n",
	      f);
	cli_print_options(f, analyze_opts, N_OPTS, 26);
	char names[512];
	fo_names(names, sizeof(names));
	fprintf(f, "\n--fail-on metrics: %s\n", names);
	fputs("\nExit status: 0 ok, 1 --fail-on matched, 2 usage error, 3 unreadable or\n"
	      "invalid input (the report is still written for what could be read).\n"
	      "See tcpsift(1).\n",
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
	case OPT_JSON:
		cfg->format = REP_JSON;
		break;
	case OPT_NDJSON:
		cfg->format = REP_NDJSON;
		break;
	case OPT_OUTPUT:
		cfg->output = arg;
		break;
	case OPT_QUEUE_PER_FILE:
		cfg->queue_per_file = true;
		break;
	case OPT_REPORT_MEMORY:
		if (cli_parse_u64(arg, 0, 1u << 20, &v) < 0)
			return bad_value("report-memory", arg, "MiB from 0 to 1048576");
		cfg->report_memory = (size_t)v << 20;
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
	case OPT_HELP:
		usage(stdout);
		return TCPSIFT_EXIT_OK;
	}
	return -1;
}

/* Parse argv into cfg; returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, struct analyze_cfg *cfg)
{
	int rc = cli_parse("analyze", analyze_opts, N_OPTS, argc, argv, NULL, on_option, cfg);
	if (rc >= 0)
		return rc;
	if (optind >= argc) {
		fputs("tcpsift analyze: no input given (a capture file, a libtrace URI or -)\n",
		      stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	return -1;
}

static void on_signal(int sig)
{
	(void)sig;
	analyze_stop = 1;
}

struct progress {
	bool on;
	double start, last;
	uint64_t last_packets;
};

static void progress_tick(struct progress *pr, const struct source *src, uint64_t packets)
{
	double t = clock_now_s();
	if (t - pr->last < 0.25)
		return;
	double frac = src_progress(src);
	double rate = (double)(packets - pr->last_packets) / (t - pr->last);
	if (frac >= 0)
		fprintf(stderr, "\ranalyze: %5.1f%%  %" PRIu64 " packets  %.2f Mpkt/s   ",
			frac * 100, packets, rate / 1e6);
	else
		fprintf(stderr, "\ranalyze: %" PRIu64 " packets  %.2f Mpkt/s   ", packets,
			rate / 1e6);
	pr->last = t;
	pr->last_packets = packets;
}

/* Does the input have at least one interface of a link type we decode? */
static bool input_decodable(const struct src_input *in)
{
	if (in->nifaces == 0)
		return dec_linktype_supported(in->linktype);
	for (unsigned k = 0; k < in->nifaces; k++)
		if (dec_linktype_supported(in->ifaces[k].linktype))
			return true;
	return false;
}

int analyze_main(int argc, char **argv)
{
	struct analyze_cfg cfg = {
	    .format = REP_TEXT, .progress = -1, .max_events = 100000, .report_memory = SIZE_MAX};
	char err[512];
	int rc;

	eng_config_defaults(&cfg.eng);
	rc = parse_args(argc, argv, &cfg);
	if (rc >= 0)
		return rc;

	unsigned ninputs = (unsigned)(argc - optind);
	const char *const *paths = (const char *const *)&argv[optind];
	unsigned stdin_count = 0;
	for (unsigned k = 0; k < ninputs; k++)
		stdin_count += strcmp(paths[k], "-") == 0;
	if (stdin_count > 1) {
		fputs("tcpsift analyze: standard input ('-') given more than once\n", stderr);
		return TCPSIFT_EXIT_USAGE;
	}

	struct src_config scfg = {.filter = cfg.filter, .queue_per_file = cfg.queue_per_file};
	struct source *src;
	rc = src_open(paths, ninputs, &scfg, &src, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "tcpsift analyze: %s\n", err);
		/* A filter that does not compile is a usage error, not bad input. */
		return exit_for_error(rc);
	}

	FILE *out = stdout;
	if (cfg.output && strcmp(cfg.output, "-") != 0) {
		out = fopen(cfg.output, "w");
		if (!out) {
			fprintf(stderr, "tcpsift analyze: cannot write %s: %s\n", cfg.output,
				strerror(errno));
			src_close(src);
			return TCPSIFT_EXIT_INPUT;
		}
	}

	FILE *csv = NULL;
	if (cfg.frames_csv) {
		csv = strcmp(cfg.frames_csv, "-") == 0 ? stdout : fopen(cfg.frames_csv, "w");
		if (!csv) {
			fprintf(stderr, "tcpsift analyze: cannot write %s: %s\n", cfg.frames_csv,
				strerror(errno));
			src_close(src);
			if (out != stdout)
				fclose(out);
			return TCPSIFT_EXIT_INPUT;
		}
	}
	const char **names = calloc(ninputs, sizeof(*names));
	for (unsigned k = 0; names && k < ninputs; k++)
		names[k] = src_input(src, k)->path;
	struct rep_config rcfg = {.format = cfg.format,
				  .out = out,
				  .max_events = cfg.max_events,
				  .frames = cfg.frames,
				  .frames_csv = csv,
				  .input_names = names,
				  .ninput_names = names ? ninputs : 0,
				  /* 0 MiB asked: spill every connection (1 byte is below one) */
				  .conn_mem = cfg.report_memory == SIZE_MAX ? 0
					      : cfg.report_memory	    ? cfg.report_memory
									    : 1};
	struct report *rep = rep_new(&rcfg, err, sizeof(err));
	struct sum_sink sink = rep ? rep_sink(rep) : (struct sum_sink){0};
	struct engine *eng = rep ? eng_new(&cfg.eng, &sink, err, sizeof(err)) : NULL;
	if (!eng) {
		fprintf(stderr, "tcpsift analyze: %s\n", err);
		rep_free(rep);
		src_close(src);
		free(names);
		if (out != stdout)
			fclose(out);
		if (csv && csv != stdout)
			fclose(csv);
		return TCPSIFT_EXIT_INPUT;
	}

	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	struct progress pr = {.on = cfg.progress == 1 || (cfg.progress < 0 && isatty(2))};
	pr.start = pr.last = clock_now_s();
	struct pkt p;
	uint64_t n = 0;
	while (!analyze_stop && src_next(src, &p) > 0) {
		eng_packet(eng, &p);
		if ((++n & 0xffff) == 0 && pr.on)
			progress_tick(&pr, src, n);
	}
	if (pr.on) {
		double secs = clock_now_s() - pr.start;
		fprintf(stderr,
			"\ranalyze: done, %" PRIu64 " packets in %.2f s (%.2f Mpkt/s)\033[K\n", n,
			secs, secs > 0 ? (double)n / secs / 1e6 : 0.0);
	}
	eng_finish(eng);

	const struct src_input **inputs = calloc(ninputs, sizeof(*inputs));
	unsigned nvantages = src_vantage_count(src);
	const char **vantages = calloc(nvantages ? nvantages : 1, sizeof(*vantages));
	for (unsigned v = 0; vantages && v < nvantages; v++)
		vantages[v] = src_vantage_name(src, v);
	int input_error = 0;
	for (unsigned k = 0; inputs && k < ninputs; k++) {
		inputs[k] = src_input(src, k);
		if (inputs[k]->error) {
			input_error = 1;
			fprintf(stderr, "tcpsift analyze: %s: %s\n", inputs[k]->path,
				inputs[k]->errmsg);
		} else if (inputs[k]->packets && !input_decodable(inputs[k])) {
			/* Nothing in it can be analysed: an error, not an empty report. */
			input_error = 1;
			fprintf(stderr,
				"tcpsift analyze: %s: link type %u (%s) is not one tcpsift decodes "
				"(Ethernet, Linux SLL/SLL2, BSD loopback, raw IP)\n",
				inputs[k]->path, inputs[k]->linktype,
				src_linktype_name(inputs[k]->linktype));
		}
	}
	struct rep_run run = {
	    .version = TCPSIFT_VERSION,
	    .filter = cfg.filter,
	    .ninputs = inputs ? ninputs : 0,
	    .inputs = inputs,
	    .filtered_out = src_filtered_out(src),
	    .eng = *eng_counters(eng),
	    .flows = *eng_flow_counters(eng),
	    .nvantages = vantages ? nvantages : 0,
	    .vantage_names = vantages,
	    .detectors = cfg.eng.detectors,
	};
	if (!cfg.quiet && !input_error && run.eng.malformed[-DEC_ERR_LINKTYPE])
		fprintf(stderr,
			"tcpsift analyze: warning: %" PRIu64
			" packets of a link type tcpsift cannot decode\n",
			run.eng.malformed[-DEC_ERR_LINKTYPE]);
	if (analyze_stop && !cfg.quiet)
		fputs("tcpsift analyze: interrupted: reporting what was read\n", stderr);

	char werr[256] = "";
	rc = rep_finish(rep, &run, werr, sizeof(werr));
	if (rc < 0)
		fprintf(stderr, "tcpsift analyze: %s\n", werr);
	char matched[128] = "";
	bool failed =
	    cfg.fail_on && fo_match(&cfg.fail_expr, rep_get_totals(rep), matched, sizeof(matched));
	if (failed && !cfg.quiet)
		fprintf(stderr, "tcpsift analyze: --fail-on matched: %s\n", matched);
	free(inputs);
	free(vantages);
	eng_free(eng);
	rep_free(rep);
	src_close(src);
	free(names);
	if (csv && csv != stdout && fclose(csv) != 0 && rc == 0) {
		fprintf(stderr, "tcpsift analyze: cannot write %s: %s\n", cfg.frames_csv,
			strerror(errno));
		rc = -EIO;
	}
	if (out != stdout && fclose(out) != 0 && rc == 0) {
		fprintf(stderr, "tcpsift analyze: cannot write %s: %s\n", cfg.output,
			strerror(errno));
		rc = -EIO;
	}
	if (rc < 0 || input_error)
		return TCPSIFT_EXIT_INPUT;
	return failed ? TCPSIFT_EXIT_FINDINGS : TCPSIFT_EXIT_OK;
}

size_t analyze_option_names(const char **names, size_t max)
{
	size_t k;
	for (k = 0; k < N_OPTS && k < max; k++)
		names[k] = analyze_opts[k].name;
	return k;
}
