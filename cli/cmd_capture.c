/* cmd_capture.c - the `tcpsift capture` verb: options, privilege drop, signals, the write loop,
 * stats. */
#include "common/clock.h"
#include "cli/bpfhint.h"
#include "cli/cliopt.h"
#include "cli/cmd_capture.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/live/dropwarn.h"
#include "capture/live/iflist.h"
#include "capture/file/pcapwriter.h"
#include "capture/live/ring.h"

/* Set by SIGINT/SIGTERM/SIGHUP: stop the readers, write what they hold, close. */
static volatile sig_atomic_t capture_stop;

enum opt_id {
	OPT_IFACE = 'i',
	OPT_WRITE = 'w',
	OPT_FILTER = 'f',
	OPT_FILE_SIZE = 'C',
	OPT_ROTATE_SECONDS = 'G',
	OPT_FILE_COUNT = 'W',
	OPT_USER = 'Z',
	OPT_COUNT = 'c',
	OPT_QUIET = 'q',
	OPT_LIST = 'D',
	OPT_HELP = 'h',
	OPT_QUEUE_MIB = 256,
	OPT_ANALYZE,
	OPT_ANALYZE_JSON,
	OPT_PRIORITY,
	OPT_FORMAT,
	OPT_DURATION,
	OPT_OVERWRITE,
	OPT_FILE_MODE,
	OPT_THREADS,
	OPT_METRICS,
	OPT_METRICS_TOP,
};

/* One table drives getopt_long, --help and the man-page test. */
static const struct cli_opt capture_opts[] = {
    {"interface", OPT_IFACE, "IFACE", "interface to capture on, or its number in -D (required)"},
    {"write", OPT_WRITE, "FILE", "output file, or - for stdout (required)"},
    {"filter", OPT_FILTER, "EXPR", "BPF filter (tcpdump syntax); also taken from the arguments"},
    CLI_RING_OPTS(""),
    {"queue-mib", OPT_QUEUE_MIB, "MiB", "reader-to-writer queues, total (default 64)"},
    {"file-size", OPT_FILE_SIZE, "MiB", "start a new file when one reaches this size"},
    {"rotate-seconds", OPT_ROTATE_SECONDS, "SEC", "start a new file every SEC seconds"},
    {"file-count", OPT_FILE_COUNT, "FILES", "keep at most FILES files, removing the oldest"},
    {"overwrite", OPT_OVERWRITE, NULL,
     "replace an existing output file (a regular file of ours; default: refuse)"},
    {"file-mode", OPT_FILE_MODE, "MODE", "octal permissions of the files written (default 0640)"},
    {"format", OPT_FORMAT, "pcapng|pcap", "pcapng (default) or nanosecond classic pcap"},
    {"user", OPT_USER, "USER",
     "run as USER once the sockets are open (default tcpdump; root keeps root)"},
    {"count", OPT_COUNT, "COUNT", "stop after writing COUNT packets"},
    {"duration", OPT_DURATION, "SEC", "stop after SEC seconds"},
    {"priority", OPT_PRIORITY, "high|normal",
     "high (default): nice -20, capture before the workload; normal: as started"},
    {"analyze", OPT_ANALYZE, NULL,
     "also analyse what is written; the report at exit (stdout, or stderr with -w -)"},
    {"analyze-json", OPT_ANALYZE_JSON, NULL, "the same, the report as JSON"},
    {"threads", OPT_THREADS, "N",
     "--analyze: analysis threads (default: the CPUs it may use, at most 64)"},
    CLI_METRICS_OPTS(OPT_METRICS, OPT_METRICS_TOP,
		     "; implies --analyze; without -w nothing is written"),
    {"quiet", OPT_QUIET, NULL, "no start line, progress or summary on stderr"},
    {"list-interfaces", OPT_LIST, NULL, "list the interfaces to capture on, numbered, and exit"},
    CLI_VERSION_OPT,
    {"help", OPT_HELP, NULL, "this help"},
};

#define N_OPTS (sizeof(capture_opts) / sizeof(capture_opts[0]))

struct capture_cfg {
	const char *iface;
	char ifname[256]; /* iface resolved (-i NUMBER) */
	const char *output;
	const char *filter;
	char *filter_args; /* filter joined from the arguments (owned) */
	struct cli_ring_opts ring;
	uint64_t queue_mib;
	uint64_t file_mib;
	uint64_t rotate_s;
	uint32_t file_count;
	enum pw_format format;
	bool overwrite;
	unsigned file_mode;
	const char *user;
	uint64_t count;
	double duration_s;
	bool quiet;
	bool list;	  /* -D: list the interfaces, capture nothing */
	int analyze;	  /* 0: no; 1: text report; 2: JSON report */
	unsigned threads; /* --analyze's; 0: one a CPU */
	struct mx_opts metrics;
	bool discard; /* --metrics without -w: no file */
	bool normal_priority;
	const struct capture_tap_ops *tap; /* for --analyze; NULL: not in this build */
};

static void usage(FILE *f)
{
	fputs("usage: tcpsift capture -i IFACE -w FILE|- [options] [FILTER...]\n"
	      "       tcpsift capture -i IFACE --metrics ADDR:PORT [options] [FILTER...]\n"
	      "\n"
	      "Capture packets without losing them: libpcap TPACKET_V3 rings, several\n"
	      "sockets in a PACKET_FANOUT group with a reader thread each, an in-memory\n"
	      "queue between the readers and the file, drops counted and written into\n"
	      "every file (pcapng ISB). In qm fanout mode each packet records its RX queue.\n"
	      "\n"
	      "Options:\n",
	      f);
	cli_print_options(f, capture_opts, N_OPTS, 28);
	fputs("\nPackets dropped while capturing are warned of on stderr as the drops start\n"
	      "(then every 5 s at most, -q too), with the options that would help.\n"
	      "Stop with SIGINT or SIGTERM: everything captured so far is written and the\n"
	      "file is closed valid. Exit status: 0 ok, 2 usage error, 3 capture or output\n"
	      "error (disk full, interface gone; the file written so far stays valid).\n"
	      "See tcpsift-capture(1).\n",
	      f);
}

static int bad_value(const char *opt, const char *val, const char *want)
{
	cli_bad_value("capture", opt, val, want);
	return TCPSIFT_EXIT_USAGE;
}

/* One option of the table (cli_parse): CLI_GO_ON to go on, else an exit code. */
static int on_option(void *ctx, int c, const char *arg)
{
	struct capture_cfg *cfg = ctx;
	uint64_t v;
	int k;

	switch (c) {
	case OPT_IFACE:
		cfg->iface = arg;
		break;
	case OPT_WRITE:
		cfg->output = arg;
		break;
	case OPT_FILTER:
		cfg->filter = arg;
		break;
	case OPT_QUEUE_MIB:
		if (cli_parse_u64(arg, 1, 1u << 20, &v) < 0)
			return bad_value("queue-mib", arg, "MiB, 1 or more");
		cfg->queue_mib = v;
		break;
	case OPT_FILE_SIZE:
		if (cli_parse_u64(arg, 1, 1u << 30, &v) < 0)
			return bad_value("file-size", arg, "MiB, 1 or more");
		cfg->file_mib = v;
		break;
	case OPT_ROTATE_SECONDS:
		if (cli_parse_u64(arg, 1, 86400u * 366, &v) < 0)
			return bad_value("rotate-seconds", arg, "whole seconds, 1 or more");
		cfg->rotate_s = v;
		break;
	case OPT_FILE_COUNT:
		if (cli_parse_u64(arg, 1, 1u << 20, &v) < 0)
			return bad_value("file-count", arg, "a count, 1 or more");
		cfg->file_count = (uint32_t)v;
		break;
	case OPT_FORMAT: /* the table's set is enum pw_format's, in its order */
		if ((k = cli_choice("capture", capture_opts, N_OPTS, c, arg)) < 0)
			return TCPSIFT_EXIT_USAGE;
		cfg->format = (enum pw_format)k;
		break;
	case OPT_USER:
		cfg->user = arg;
		break;
	case OPT_OVERWRITE:
		cfg->overwrite = true;
		break;
	case OPT_FILE_MODE:
		if (cli_parse_mode(arg, &cfg->file_mode) < 0)
			return bad_value("file-mode", arg, "octal permissions, 1 to 0777");
		break;
	case OPT_COUNT:
		if (cli_parse_u64(arg, 1, UINT64_MAX, &v) < 0)
			return bad_value("count", arg, "a packet count, 1 or more");
		cfg->count = v;
		break;
	case OPT_DURATION: {
		char *end;
		errno = 0;
		double d = strtod(arg, &end);
		if (errno || end == arg || *end || !(d > 0) || d > 86400.0 * 3660)
			return bad_value("duration", arg, "seconds, more than 0");
		cfg->duration_s = d;
		break;
	}
	case OPT_QUIET:
		cfg->quiet = true;
		break;
	case OPT_LIST:
		cfg->list = true;
		break;
	case OPT_PRIORITY:
		if ((k = cli_choice("capture", capture_opts, N_OPTS, c, arg)) < 0)
			return TCPSIFT_EXIT_USAGE;
		cfg->normal_priority = k == 1;
		break;
	case OPT_ANALYZE:
	case OPT_ANALYZE_JSON:
		if (!cfg->tap) {
			fputs("tcpsift capture: --analyze is not in this build\n", stderr);
			return TCPSIFT_EXIT_USAGE;
		}
		if (cfg->analyze && cfg->analyze != (c == OPT_ANALYZE ? 1 : 2))
			return cli_conflict("capture", "--analyze", "--analyze-json");
		cfg->analyze = c == OPT_ANALYZE ? 1 : 2;
		break;
	case OPT_THREADS:
		if (cli_threads("capture", arg, &cfg->threads) < 0)
			return TCPSIFT_EXIT_USAGE;
		break;
	case OPT_METRICS:
	case OPT_METRICS_TOP:
		if (cli_metrics_option("capture", c == OPT_METRICS_TOP, arg, &cfg->metrics) < 0)
			return TCPSIFT_EXIT_USAGE;
		break;
	case OPT_HELP:
		usage(stdout);
		return TCPSIFT_EXIT_OK;
	}
	return CLI_GO_ON;
}

/* Parse argv into cfg; returns CLI_GO_ON, else an exit code. */
static int parse_args(int argc, char **argv, struct capture_cfg *cfg)
{
	int rc = cli_parse("capture", capture_opts, N_OPTS, argc, argv, &cfg->ring, on_option, cfg);
	if (rc >= 0)
		return rc;
	if (cfg->list)
		return CLI_GO_ON;
	if (!cfg->iface) {
		fputs("tcpsift capture: no interface given (-i IFACE)\n", stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	/* A headless monitor: --metrics without -w captures for the analyzer only. */
	if (cfg->metrics.addr && !cfg->output) {
		cfg->output = "no file (--metrics without -w)";
		cfg->discard = true;
	}
	if (cfg->metrics.addr && !cfg->tap) {
		fputs("tcpsift capture: --metrics is not in this build\n", stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	if (cfg->metrics.addr && !cfg->analyze)
		cfg->analyze = 1;
	if (!cfg->output) {
		fputs("tcpsift capture: no output given (-w FILE, or -w - for stdout; packets are "
		      "not printed)\n",
		      stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	if (cli_trailing_filter("capture", argc, argv, optind, &cfg->filter, &cfg->filter_args) < 0)
		return TCPSIFT_EXIT_USAGE;
	if (strcmp(cfg->output, "-") == 0 && isatty(STDOUT_FILENO)) {
		fputs("tcpsift capture: will not write a capture to a terminal (-w - needs a pipe "
		      "or a file)\n",
		      stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	if (strcmp(cfg->output, "-") == 0 && (cfg->file_mib || cfg->rotate_s || cfg->file_count)) {
		fputs("tcpsift capture: -C, -G and -W need a file name, not -w -\n", stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	if (cfg->file_count && !cfg->file_mib && !cfg->rotate_s) {
		fputs("tcpsift capture: -W needs -C or -G (when to start a new file)\n", stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	if (cli_ring_check("capture", &cfg->ring) < 0 ||
	    cli_ring_iface("capture", cfg->iface, cfg->ifname, sizeof(cfg->ifname)) < 0)
		return TCPSIFT_EXIT_USAGE;
	cfg->iface = cfg->ifname;
	return CLI_GO_ON;
}

static void on_signal(int sig)
{
	(void)sig;
	capture_stop = 1;
}

static void capture_progress(const struct ring *r, const struct pw_writer *w)
{
	struct ring_totals t;
	struct ring_sock_stats st;
	bool qm = ring_queue(r, 0) >= 0;

	ring_stats_sum(r, &t);
	fprintf(stderr,
		"\rcapture: %" PRIu64 " captured, %" PRIu64 " written, %" PRIu64
		" kernel drops, %" PRIu64 " if drops, %" PRIu64 " queue drops",
		t.captured, pw_counters(w)->packets, t.kernel_drops, t.if_drops, t.queue_drops);
	if (ring_nsockets(r) > 1) {
		fputs(" |", stderr);
		for (unsigned k = 0; k < ring_nsockets(r); k++) {
			ring_stats(r, k, &st);
			fprintf(stderr, " %s%u %" PRIu64, qm ? "q" : "s", k, st.captured);
		}
	}
	fputs("\033[K", stderr);
}

static void capture_summary(const struct ring *r, const struct pw_writer *w, const char *output,
			    uint64_t unwritten, bool write_failed)
{
	struct ring_totals t;
	struct ring_sock_stats st;
	const struct pw_counters *pc = pw_counters(w);
	bool qm = ring_queue(r, 0) >= 0;

	ring_stats_sum(r, &t);
	fprintf(stderr, "%" PRIu64 " packets captured\n", t.captured);
	fprintf(stderr, "%" PRIu64 " packets written to %s (%" PRIu64 " file%s)\n", pc->packets,
		strcmp(output, "-") == 0 ? "stdout" : output, pc->files, pc->files == 1 ? "" : "s");
	fprintf(stderr, "%" PRIu64 " packets received by filter\n", t.kernel_recv);
	fprintf(stderr, "%" PRIu64 " packets dropped by kernel\n", t.kernel_drops);
	fprintf(stderr, "%" PRIu64 " packets dropped by interface\n", t.if_drops);
	fprintf(stderr, "%" PRIu64 " packets dropped by tcpsift (queue full)\n", t.queue_drops);
	if (pc->lost || unwritten)
		fprintf(stderr, "%" PRIu64 " packets not written (%s)\n", pc->lost + unwritten,
			write_failed ? "output error" : "-c COUNT reached");
	if (t.late)
		fprintf(stderr,
			"%" PRIu64 " packets came stamped before what their socket had vouched for"
			" (by up to %.3f ms): the file may step back in time there; the merge"
			" now waits %.3f ms longer\n",
			t.late, (double)t.late_max_ns / 1e6, (double)t.hold_ns / 1e6);
	if (ring_nsockets(r) > 1)
		for (unsigned k = 0; k < ring_nsockets(r); k++) {
			ring_stats(r, k, &st);
			fprintf(stderr,
				"%s %u: %" PRIu64 " captured, %" PRIu64 " kernel drops, %" PRIu64
				" queue drops\n",
				qm ? "queue" : "socket", k, st.captured, st.kernel_drops,
				st.queue_drops);
		}
}

/* A drop warning due (capture/live/dropwarn.h): one line on stderr, over
 * the progress line; never on stdout, which may carry the capture or the
 * report. Printed with -q too: packets are being lost. */
static void capture_drop_warning(struct dw_state *dw, const struct ring *r, double now, bool final,
				 bool progress)
{
	struct dw_warning w;

	if (dw_check(dw, r, now, final, &w) > 0)
		fprintf(stderr, "%stcpsift capture: warning: %s\n", progress ? "\r\033[K" : "",
			w.text);
}

/* What capture_main()'s steps share: the configuration, the ring, the
 * writer and the --analyze tap they open, and the loop's state. */
struct capture_run {
	struct capture_cfg *cfg;
	const struct capture_tap_ops *tap;
	struct ring_config rcfg;
	struct ring *r;
	struct pw_writer *w;
	void *an;     /* --analyze's tap; NULL: none */
	bool dropped; /* the privileges were dropped (-Z) */
	int rc;	      /* the exit code so far */
	bool progress, stopping, write_failed, err_reported, to_stdout;
	double start, last_tick, last_flush;
	struct dw_state dw;
	uint64_t unwritten, an_files; /* files written when the tap heard last */
};

/* Open the ring, raise the priority, drop the privileges. false with
 * *exit_code set (nothing left open) when the capture cannot go on. */
static bool capture_open_ring(struct capture_run *cr, int *exit_code)
{
	struct capture_cfg *cfg = cr->cfg;
	char err[512];

	cli_ring_config(&cfg->ring, cfg->iface, cfg->filter, 100, &cr->rcfg);
	cr->rcfg.queue_bytes = cfg->queue_mib << 20;
	int orc = ring_open(&cr->rcfg, &cr->r, err, sizeof(err));
	if (orc < 0) {
		if (!err_is_usage(orc) || !bpfhint_report("capture", cfg->filter))
			fprintf(stderr, "tcpsift capture: %s\n", err);
		*exit_code = exit_for_error(orc); /* a bad filter: usage */
		return false;
	}

	/*
	 * A full-size packet costs the capture ~1 us of CPU (the TPACKET copy
	 * is the kernel's, the page-cache copy of the file write ours). When
	 * the captured workload keeps every CPU busy, the kernel ring fills
	 * while the readers wait for a CPU. So, as netsniff-ng --prio-high,
	 * the capture goes first (nice -20); the threads started below
	 * inherit it. With a fast sink nice 0 kept up too in bench/RESULTS.md;
	 * with a slow one (64 KiB frames at 2 GB/s) it lost 23 %, nice -20
	 * nothing. Needs CAP_SYS_NICE, hence before the privileges go.
	 */
	if (!cfg->normal_priority && setpriority(PRIO_PROCESS, 0, -20) == -1 && !cfg->quiet)
		fprintf(stderr,
			"tcpsift capture: note: cannot raise the priority (%s): "
			"packets may be lost when the CPUs are busy\n",
			strerror(errno));

	/* Sockets are open: nothing below needs root, output files included. */
	orc = cli_priv_drop("capture", cfg->user, cfg->quiet, &cr->dropped);
	if (orc >= 0) {
		ring_close(cr->r);
		*exit_code = orc;
		return false;
	}
	return true;
}

/* Open the writer and the --analyze tap. false with *exit_code set (the
 * ring closed) when either cannot be opened. */
static bool capture_open_outputs(struct capture_run *cr, int *exit_code)
{
	struct capture_cfg *cfg = cr->cfg;
	const struct capture_tap_ops *tap = cr->tap;
	struct ring *r = cr->r;
	char err[512];

	unsigned n = ring_nsockets(r);
	char comment[160];
	snprintf(comment, sizeof(comment), "tcpsift capture on %s, %u socket%s%s%s", cfg->iface, n,
		 n == 1 ? "" : "s", n > 1 ? ", fanout " : "",
		 n > 1 ? ring_fanout_name(cfg->ring.mode) : "");
	struct pw_config wcfg = {
	    .path = cfg->output,
	    .discard = cfg->discard,
	    .format = cfg->format,
	    .snaplen = cfg->ring.snaplen,
	    .rotate_bytes = cfg->file_mib << 20,
	    .rotate_ns = (int64_t)cfg->rotate_s * CLOCK_NS_PER_S,
	    .max_files = cfg->file_count,
	    .comment = comment,
	    .overwrite = cfg->overwrite,
	    .file_mode = cfg->file_mode ? cfg->file_mode : PW_FILE_MODE_DEFAULT,
	};
	cr->w = ring_pw_open(r, &wcfg, err, sizeof(err));
	if (!cr->w) {
		/* The hint is about permissions, not a refused link or name. */
		fprintf(stderr, "tcpsift capture: %s%s\n", err,
			cr->dropped && strstr(err, strerror(EACCES))
			    ? " (running as the -Z user now; -Z root keeps root)"
			    : "");
		ring_close(r);
		*exit_code = TCPSIFT_EXIT_INPUT;
		return false;
	}

	/* --analyze: the report goes where the capture does not. */
	struct capture_tap_config tcfg = {.json = cfg->analyze == 2,
					  .threads = cfg->threads,
					  .out = strcmp(cfg->output, "-") == 0 ? stderr : stdout,
					  .metrics = cfg->metrics.addr,
					  .metrics_top = cfg->metrics.top,
					  .quiet = cfg->quiet};
	if (cfg->analyze) {
		cr->an = tap->open(&tcfg, err, sizeof(err));
		if (!cr->an) {
			fprintf(stderr, "tcpsift capture: %s\n", err);
			pw_close(cr->w);
			pw_free(cr->w);
			ring_close(r);
			*exit_code = TCPSIFT_EXIT_INPUT;
			return false;
		}
	}
	return true;
}

/* Catch the stop signals, start the readers, say so. false with *exit_code
 * set (everything closed) when the readers cannot start. */
static bool capture_start(struct capture_run *cr, int *exit_code)
{
	struct capture_cfg *cfg = cr->cfg;
	struct ring *r = cr->r;
	char err[512];

	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A closed pipe on -w - must be a write error, not a silent death. */
	signal(SIGPIPE, SIG_IGN);

	int orc = ring_start(r, err, sizeof(err));
	if (orc < 0) {
		fprintf(stderr, "tcpsift capture: %s\n", err);
		if (cr->an)
			cr->tap->close(cr->an, &(struct capture_tap_end){.iface = cfg->iface});
		pw_close(cr->w); /* its ISBs read the ring: close it first */
		pw_free(cr->w);
		ring_close(r);
		*exit_code = exit_for_error(orc);
		return false;
	}
	unsigned n = ring_nsockets(r);
	if (!cfg->quiet)
		fprintf(stderr,
			"tcpsift capture: listening on %s, link-type %u, snapshot length %" PRIu32
			" bytes, %u socket%s%s%s%s\n",
			cfg->iface, ring_linktype(r), cfg->ring.snaplen, n, n == 1 ? "" : "s",
			n > 1 ? " in fanout mode " : "",
			n > 1 ? ring_fanout_name(cfg->ring.mode) : "",
			ring_loopback(r) ? ", outgoing copies ignored (loopback)" : "");
	return true;
}

/* One packet read: written and teed to --analyze, unless -c COUNT was
 * reached or the output failed. true: time to look at the clock. */
static bool capture_packet(struct capture_run *cr, struct pkt *p, unsigned sock)
{
	const struct capture_cfg *cfg = cr->cfg;
	struct pw_writer *w = cr->w;

	if (cr->write_failed || (cfg->count && pw_counters(w)->packets >= cfg->count)) {
		cr->unwritten++;
		return false;
	}
	int wr = pw_write(w, sock, p);
	if (wr < 0) {
		fprintf(stderr, "tcpsift capture: %s\n", pw_error(w));
		cr->write_failed = true;
		cr->rc = TCPSIFT_EXIT_INPUT;
		capture_stop = 1;
	} else {
		if (cr->an && pw_counters(w)->files != cr->an_files) {
			/* A new file: the report's tshark lines name it
			 * (ERR_NOMEM: its frames get none). */
			cr->an_files = pw_counters(w)->files;
			(void)cr->tap->file(cr->an, p->frame, cr->to_stdout ? NULL : pw_path(w));
		}
		if (cr->an)
			cr->tap->packet(cr->an, p);
		if (cfg->count && pw_counters(w)->packets >= cfg->count)
			capture_stop = 1;
	}
	/* check the clock every 1024 packets or when idle */
	return (pw_counters(w)->packets & 0x3ff) == 0;
}

/* The clock's work: -G's end, a reader's error, the tap's flush and
 * metrics every 0.1 s, the file's flush, drop warnings and progress every
 * second. */
static void capture_tick(struct capture_run *cr)
{
	const struct capture_cfg *cfg = cr->cfg;
	struct ring *r = cr->r;

	double t = clock_now_s();
	if (!cr->stopping && cfg->duration_s > 0 && t - cr->start >= cfg->duration_s)
		capture_stop = 1;
	const char *rerr = ring_error(r);
	if (rerr && !cr->err_reported) {
		cr->err_reported = true;
		fprintf(stderr, "%stcpsift capture: capture stopped: %s\n",
			cr->progress ? "\r\033[K" : "", rerr);
		cr->rc = TCPSIFT_EXIT_INPUT;
		capture_stop = 1;
	}
	if (cr->an && t - cr->last_flush >= 0.1) {
		cr->last_flush = t;
		cr->tap->flush(cr->an);
		if (cfg->metrics.addr) {
			struct ring_totals rt;
			ring_stats_sum(r, &rt);
			cr->tap->serve(cr->an, &(struct capture_tap_drops){
						   rt.kernel_drops, rt.if_drops, rt.queue_drops});
		}
	}
	if (t - cr->last_tick >= 1.0) {
		cr->last_tick = t;
		if (!cr->write_failed && pw_flush(cr->w) < 0) {
			fprintf(stderr, "tcpsift capture: %s\n", pw_error(cr->w));
			cr->write_failed = true;
			cr->rc = TCPSIFT_EXIT_INPUT;
			capture_stop = 1;
		}
		capture_drop_warning(&cr->dw, r, t, false, cr->progress);
		if (cr->progress)
			capture_progress(r, cr->w);
	}
}

/* Read until the ring ends (a stop asked for, -c, -G or an error). */
static void capture_loop(struct capture_run *cr)
{
	struct pkt p;
	unsigned sock;

	cr->progress = !cr->cfg->quiet && isatty(STDERR_FILENO);
	cr->start = cr->last_tick = cr->last_flush = clock_now_s();
	dw_init(&cr->dw, &cr->rcfg, cr->r, cr->start, true);
	cr->an_files = UINT64_MAX;
	cr->to_stdout = strcmp(cr->cfg->output, "-") == 0;
	for (;;) {
		if (capture_stop && !cr->stopping) {
			ring_request_stop(cr->r);
			cr->stopping = true;
		}
		int got = ring_next(cr->r, &p, &sock, 100);
		if (got == RING_END)
			break;
		if (got == 1 && !capture_packet(cr, &p, sock))
			continue;
		capture_tick(cr);
	}
}

/* The readers have ended: the last warnings, the file closed (its ISBs
 * final), the summary, the tap's report; everything freed. */
static void capture_finish(struct capture_run *cr)
{
	const struct capture_cfg *cfg = cr->cfg;
	struct ring *r = cr->r;
	struct pw_writer *w = cr->w;

	if (cr->progress)
		fputs("\r\033[K", stderr);
	capture_drop_warning(&cr->dw, r, clock_now_s(), true, false);
	if (!cr->err_reported && ring_error(r)) {
		fprintf(stderr, "tcpsift capture: capture stopped: %s\n", ring_error(r));
		cr->rc = TCPSIFT_EXIT_INPUT;
	}

	/* Every reader has ended: the ISBs written by pw_close() are final. */
	if (pw_close(w) < 0 && !cr->write_failed) {
		fprintf(stderr, "tcpsift capture: %s\n", pw_error(w));
		cr->rc = TCPSIFT_EXIT_INPUT;
	}
	if (!cfg->quiet)
		capture_summary(r, w, cfg->output, cr->unwritten, cr->write_failed);
	if (cr->an) {
		struct ring_totals t;
		ring_stats_sum(r, &t);
		struct capture_tap_end end = {.iface = cfg->iface,
					      .linktype = ring_linktype(r),
					      .written = pw_counters(w)->packets,
					      .kernel_drops = t.kernel_drops,
					      .if_drops = t.if_drops,
					      .our_drops = t.queue_drops,
					      .interrupted = true};
		int trc = cr->tap->close(cr->an, &end);
		if (trc < 0) /* the tap said why, one line */
			cr->rc = TCPSIFT_EXIT_INPUT;
	}
	pw_free(w);
	ring_close(r);
}

int capture_main(int argc, char **argv, const struct capture_tap_ops *tap)
{
	struct capture_cfg cfg = {.queue_mib = 64, .format = PW_PCAPNG, .metrics = MX_OPTS_INIT};
	char err[512];

	cli_ring_opts_defaults(&cfg.ring);
	cfg.tap = tap;
	int rc = parse_args(argc, argv, &cfg);
	if (rc >= 0) {
		free(cfg.filter_args);
		return rc;
	}
	rc = TCPSIFT_EXIT_OK;
	if (cfg.list) {
		int lrc = ifl_print(stdout, err, sizeof(err));
		if (lrc < 0) {
			fprintf(stderr, "tcpsift capture: %s\n", err);
			rc = exit_for_error(lrc);
		}
		free(cfg.filter_args);
		return rc;
	}
	struct capture_run cr = {.cfg = &cfg, .tap = tap, .rc = TCPSIFT_EXIT_OK};
	if (capture_open_ring(&cr, &rc) && capture_open_outputs(&cr, &rc) &&
	    capture_start(&cr, &rc)) {
		capture_loop(&cr);
		capture_finish(&cr);
		rc = cr.rc;
	}
	free(cfg.filter_args);
	return rc;
}

size_t capture_option_names(const char **names, size_t max)
{
	size_t k;
	for (k = 0; k < N_OPTS && k < max; k++)
		names[k] = capture_opts[k].name;
	return k;
}
