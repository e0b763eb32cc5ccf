/* cmd_tui.c - the `tcpsift tui` verb: options, the terminal, signals, the key/draw loop. */
#include "common/clock.h"
#include "cli/cmd_tui.h"

#include <curses.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd_analyze.h"
#include "analyze/report/report.h"
#include "cli/bpfhint.h"
#include "cli/cliopt.h"
#include "tui/connfilter.h"
#include "tui/osc52.h"
#include "tui/player.h"
#include "tui/view.h"

/* Set by SIGINT/SIGTERM/SIGHUP: leave the loop and restore the terminal. */
static volatile sig_atomic_t tui_stop;

enum opt_id {
	OPT_READ = 'r',
	OPT_IFACE = 'i',
	OPT_FILTER = 'f',
	OPT_WRITE = 'w',
	OPT_USER = 'Z',
	OPT_HELP = 'h',
	OPT_SPEED = 256,
	OPT_MAX,
	OPT_PAUSED,
	OPT_MAX_FLOWS,
	OPT_KEEP_ENDED,
	OPT_CONN_FILTER,
	OPT_NO_COLOR,
	OPT_ASCII,
	OPT_QUEUE_PER_FILE,
	OPT_OVERWRITE,
	OPT_THREADS,
	OPT_METRICS,
	OPT_METRICS_TOP,
};

static const struct cli_opt tui_opts[] = {
    {"read", OPT_READ, "FILE", "replay a capture (pcap, pcapng, compressed; repeat to merge)"},
    {"interface", OPT_IFACE, "IFACE", "capture live on IFACE or its capture -D number"},
    {"filter", OPT_FILTER, "EXPR", "BPF filter (tcpdump syntax); also taken from the arguments"},
    {"speed", OPT_SPEED, "X", "replay at X times real time (default 1)"},
    {"max", OPT_MAX, NULL, "replay as fast as possible"},
    {"paused", OPT_PAUSED, NULL, "start the replay paused (p resumes, n steps)"},
    {"queue-per-file", OPT_QUEUE_PER_FILE, NULL,
     "replay: each -r file is one RX queue (per-queue captures)"},
    CLI_RING_OPTS("live: "),
    {"write", OPT_WRITE, "FILE",
     "live: also write the packets to FILE (pcapng; created as the -Z user; w and P read it)"},
    {"overwrite", OPT_OVERWRITE, NULL,
     "live: -w may replace an existing file (a regular file of ours; default: refuse)"},
    {"user", OPT_USER, "USER", "live: run as USER once the sockets are open (root: tcpdump)"},
    {"max-flows", OPT_MAX_FLOWS, "N", "live connections tracked at most (262144)"},
    {"keep-ended", OPT_KEEP_ENDED, "N", "ended connections kept in the table (10000)"},
    {"threads", OPT_THREADS, "N",
     "analysis threads (default: the CPUs it may use, at most 64); 1: no threads"},
    CLI_METRICS_OPTS(OPT_METRICS, OPT_METRICS_TOP, ""),
    {"conn-filter", OPT_CONN_FILTER, "EXPR",
     "start with this '/' filter on the table (a bad capture filter: exit 2)"},
    {"no-color", OPT_NO_COLOR, NULL, "monochrome (also when NO_COLOR is set)"},
    {"ascii", OPT_ASCII, NULL, "ASCII only (default: UTF-8 when the locale is)"},
    CLI_VERSION_OPT,
    {"help", OPT_HELP, NULL, "this help"},
};

#define N_OPTS	      (sizeof(tui_opts) / sizeof(tui_opts[0]))
#define TUI_MAX_FILES 64

struct tui_cfg {
	const char *files[TUI_MAX_FILES];
	unsigned nfiles;
	const char *iface;
	char ifname[256]; /* iface resolved (-i NUMBER) */
	const char *filter;
	char *filter_args; /* owned */
	double speed;
	bool paused;
	const char *replay_opt; /* the last of --speed, --max, --paused given */
	struct cli_ring_opts ring;
	const char *write;
	bool overwrite;
	const char *user;
	uint64_t max_flows, keep_ended;
	unsigned threads; /* 0: wk_default_threads() */
	struct mx_opts metrics;
	const char *conn_filter;
	bool no_color, ascii, queue_per_file;
};

static void usage(FILE *f)
{
	fputs("usage: tcpsift tui -r FILE [--speed X | --max] [options] [FILTER...]\n"
	      "       tcpsift tui -i IFACE [capture options] [FILTER...]\n"
	      "\n"
	      "A live dashboard of TCP health: the capture's rates and drops, every\n"
	      "connection (throughput, RTT, retransmissions, stalls, SACK holes, reordering,\n"
	      "queues, MTU) sortable and filterable, the findings as they are found, and a\n"
	      "detail view per connection. Replays a capture by its timestamps or captures\n"
	      "live through the same engine as tcpsift capture. Numbers are those\n"
	      "tcpsift analyze reports for the same packets.\n"
	      "\n"
	      "Options:\n",
	      f);
	cli_print_options(f, tui_opts, N_OPTS, 26);
	fputs("\nKeys: arrows/j/k move, Enter detail, F6/o sort menu, </> sort (or click a\n"
	      "column's head), S/r reverse, t bytes or rates, Tab findings by connection\n"
	      "and kind (Enter/Right: its findings, Enter: one in full), / filter,\n"
	      "w write the connection's packets, P plot its graphs (analyze --plot),\n"
	      "c copy its tshark filter, f freeze, p pause, n step, +/- speed,\n"
	      "[/] 10 s back/on, ? help, q quit.\n"
	      "Exit status: 0 ok, 2 usage error, 3 input or capture error.\n"
	      "See tcpsift-tui(1).\n",
	      f);
}

static int bad_value(const char *opt, const char *val, const char *want)
{
	cli_bad_value("tui", opt, val, want);
	return TCPSIFT_EXIT_USAGE;
}

/* One option of the table (cli_parse): CLI_GO_ON to go on, else an exit code. */
static int on_option(void *ctx, int c, const char *arg)
{
	struct tui_cfg *cfg = ctx;
	uint64_t v;

	switch (c) {
	case OPT_READ:
		if (cfg->nfiles == TUI_MAX_FILES)
			return bad_value("read", arg, "at most 64 files");
		cfg->files[cfg->nfiles++] = arg;
		break;
	case OPT_IFACE:
		cfg->iface = arg;
		break;
	case OPT_FILTER:
		cfg->filter = arg;
		break;
	case OPT_SPEED: {
		char *end;
		errno = 0;
		double d = strtod(arg, &end);
		if (errno || end == arg || *end || !(d >= 1.0 / 64) || d > 4096)
			return bad_value("speed", arg, "a factor from 1/64 to 4096");
		if (cfg->replay_opt && strcmp(cfg->replay_opt, "--max") == 0)
			return cli_conflict("tui", "--max", "--speed");
		cfg->speed = d;
		cfg->replay_opt = "--speed";
		break;
	}
	case OPT_MAX:
		if (cfg->replay_opt && strcmp(cfg->replay_opt, "--speed") == 0)
			return cli_conflict("tui", "--speed", "--max");
		cfg->replay_opt = "--max";
		cfg->speed = 0;
		break;
	case OPT_PAUSED:
		cfg->paused = true;
		if (!cfg->replay_opt)
			cfg->replay_opt = "--paused";
		break;
	case OPT_WRITE:
		cfg->write = arg;
		break;
	case OPT_USER:
		cfg->user = arg;
		break;
	case OPT_OVERWRITE:
		cfg->overwrite = true;
		break;
	case OPT_MAX_FLOWS:
		if (cli_parse_u64(arg, 1, 1u << 26, &v) < 0)
			return bad_value("max-flows", arg, "a count from 1 to 67108864");
		cfg->max_flows = v;
		break;
	case OPT_THREADS:
		if (cli_threads("tui", arg, &cfg->threads) < 0)
			return TCPSIFT_EXIT_USAGE;
		break;
	case OPT_KEEP_ENDED:
		if (cli_parse_u64(arg, 1, 1u << 22, &v) < 0)
			return bad_value("keep-ended", arg, "a count from 1 to 4194304");
		cfg->keep_ended = v;
		break;
	case OPT_METRICS:
	case OPT_METRICS_TOP:
		if (cli_metrics_option("tui", c == OPT_METRICS_TOP, arg, &cfg->metrics) < 0)
			return TCPSIFT_EXIT_USAGE;
		break;
	case OPT_CONN_FILTER:
		cfg->conn_filter = arg;
		break;
	case OPT_NO_COLOR:
		cfg->no_color = true;
		break;
	case OPT_ASCII:
		cfg->ascii = true;
		break;
	case OPT_QUEUE_PER_FILE:
		cfg->queue_per_file = true;
		break;
	case OPT_HELP:
		usage(stdout);
		return TCPSIFT_EXIT_OK;
	}
	return CLI_GO_ON;
}

/* Parse argv into cfg; returns CLI_GO_ON to go on, else an exit code. */
static int parse_args(int argc, char **argv, struct tui_cfg *cfg)
{
	int rc = cli_parse("tui", tui_opts, N_OPTS, argc, argv, &cfg->ring, on_option, cfg);
	if (rc >= 0)
		return rc;
	if (!cfg->nfiles == !cfg->iface) {
		fputs("tcpsift tui: give either -r FILE (replay) or -i IFACE (live)\n", stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	if (cfg->iface && cfg->replay_opt)
		return cli_conflict("tui", cfg->replay_opt, "-i (replay options need -r FILE)");
	if (cfg->iface && cfg->write && strcmp(cfg->write, "-") == 0) {
		fputs("tcpsift tui: -w - would write into the dashboard; give a file name\n",
		      stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	if (cfg->nfiles && cfg->write) {
		fputs("tcpsift tui: -w writes a live capture; a replay reads files already\n",
		      stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	if (cli_ring_check("tui", &cfg->ring) < 0)
		return TCPSIFT_EXIT_USAGE;
	if (cfg->iface) {
		if (cli_ring_iface("tui", cfg->iface, cfg->ifname, sizeof(cfg->ifname)) < 0)
			return TCPSIFT_EXIT_USAGE;
		cfg->iface = cfg->ifname;
	}
	if (cli_trailing_filter("tui", argc, argv, optind, &cfg->filter, &cfg->filter_args) < 0)
		return TCPSIFT_EXIT_USAGE;
	if (cfg->conn_filter) {
		char err[256];
		struct cf_filter *f = cf_new(cfg->conn_filter, err, sizeof(err));
		if (!f) {
			fprintf(stderr, "tcpsift tui: --conn-filter '%s': %s\n", cfg->conn_filter,
				err);
			return TCPSIFT_EXIT_USAGE;
		}
		cf_free(f);
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fputs("tcpsift tui: needs a terminal (for a report, use tcpsift analyze)\n",
		      stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	return CLI_GO_ON;
}

static void on_signal(int sig)
{
	(void)sig;
	tui_stop = 1;
}

/* One line for the shell after the screen is gone. */
static void print_summary(const struct pl_view *pv)
{
	const struct tm_totals *t = &pv->m.tot;
	uint64_t findings = 0;

	for (unsigned k = 0; k < SUM_EV_TYPE_COUNT; k++)
		findings += t->events[k];
	fprintf(stderr,
		"tcpsift tui: %s, %" PRIu64 " packets, %" PRIu64 " connections, %" PRIu64
		" events (",
		pl_state_name(pv->h.state), pv->h.packets, t->conns, findings);
	for (unsigned k = 0, n = 0; k < DET_VIEW_COUNT; k++) {
		char part[96];
		det_views[k]->header(part, sizeof(part), &t->det, true);
		if (part[0])
			fprintf(stderr, "%s%s", n++ ? ", " : "", part);
	}
	fprintf(stderr, "), %" PRIu64 " retransmissions", t->retrans);
	if (pv->h.mode == PL_LIVE)
		fprintf(stderr, ", drops kernel %" PRIu64 " if %" PRIu64 " us %" PRIu64,
			pv->h.kernel_drops, pv->h.if_drops, pv->h.our_drops);
	fputc('\n', stderr);
	if (pv->h.error[0])
		fprintf(stderr, "tcpsift tui: %s\n", pv->h.error);
}

/* 'P': `tcpsift analyze --conn ID --plot DIR ... INPUTS`, run in this
 * process on a thread of its own (analyze_inproc, as tcpsift diff runs
 * analyze), writes one connection's graphs while the dashboard goes on:
 * the graphs are analyze's own, from the same packets. */
struct tui_graphs {
	bool running;		    /* a thread at work, not joined yet */
	_Atomic bool done;	    /* it has returned: code and said are set */
	volatile sig_atomic_t stop; /* quitting: its read ends within 100 ms */
	pthread_t thread;
	bool live; /* reading the -w file the capture goes on writing */
	uint64_t id;
	char dir[64];
	char conn[24], flows[24];
	const char *argv[TUI_MAX_FILES + 16];
	int argc;
	int code;   /* analyze's exit status */
	char *said; /* what it said (its messages), or NULL */
	size_t said_len;
};

/* What the key loop acts with. */
struct tui_run {
	const struct tui_cfg *cfg;
	struct player *pl;
	struct tv_view *view;
	bool dropped; /* root was given up (cli_priv_drop) */
	struct tui_graphs graphs;
};

/* "tcpsift-conn-ID<suffix>", or with -2, -3 ... the first name not taken. */
static void new_name(char *buf, size_t len, uint64_t id, const char *suffix)
{
	snprintf(buf, len, "tcpsift-conn-%" PRIu64 "%s", id, suffix);
	for (unsigned k = 2; k < 100 && access(buf, F_OK) == 0; k++)
		snprintf(buf, len, "tcpsift-conn-%" PRIu64 "-%u%s", id, k, suffix);
}

/* A write refused after root was given up: say why root did not do it. */
static const char *perm_hint(const struct tui_run *t, const char *err)
{
	return t->dropped && strstr(err, strerror(EACCES))
		   ? " (running as the -Z user now: start in a directory it may write)"
		   : "";
}

/* The graphs' thread: analyze, its messages kept for graphs_poll(). */
static void *graphs_thread(void *arg)
{
	struct tui_graphs *g = arg;
	FILE *msg = open_memstream(&g->said, &g->said_len);

	/* getopt permutes argv: g->argv is a copy of its own. */
	g->code =
	    msg ? analyze_inproc(g->argc, (char **)g->argv, msg, &g->stop) : TCPSIFT_EXIT_INPUT;
	if (msg)
		fclose(msg);
	atomic_store(&g->done, true);
	return NULL;
}

/* Start the thread; the outcome (or why not) into line. */
static void graphs_start(struct tui_run *t, const struct tm_row *r, const struct pl_header *h,
			 char *line, size_t len)
{
	struct tui_graphs *g = &t->graphs;
	const struct tui_cfg *cfg = t->cfg;
	char err[300];

	if (g->running) {
		snprintf(line, len, "P: still writing the graphs of #%" PRIu64 " into %s/", g->id,
			 g->dir);
		return;
	}
	if (h->mode == PL_LIVE && !cfg->write) {
		snprintf(line, len,
			 "P: no graphs: a live capture keeps no packets in memory to plot; with -w "
			 "FILE they come from the file");
		return;
	}
	/* Live: analyze reads the -w file, which holds the packets in the
	 * order the engine had them, so its ids are ours. */
	if (pl_flush_file(t->pl, err, sizeof(err)) < 0) {
		snprintf(line, len, "P: %s", err);
		return;
	}
	new_name(g->dir, sizeof(g->dir), r->id, "-graphs");
	snprintf(g->conn, sizeof(g->conn), "%" PRIu64, r->id);
	const char **argv = g->argv;
	int n = 0;
	argv[n++] = "analyze";
	argv[n++] = "--no-progress";
	argv[n++] = "-o"; /* the text report: not onto the dashboard */
	argv[n++] = "/dev/null";
	argv[n++] = "--conn";
	argv[n++] = g->conn;
	argv[n++] = "--plot";
	argv[n++] = g->dir;
	if (cfg->max_flows) {
		snprintf(g->flows, sizeof(g->flows), "%" PRIu64, cfg->max_flows);
		argv[n++] = "--max-flows";
		argv[n++] = g->flows;
	}
	if (h->mode == PL_REPLAY) {
		if (cfg->filter) {
			argv[n++] = "-f";
			argv[n++] = cfg->filter;
		}
		if (cfg->queue_per_file)
			argv[n++] = "--queue-per-file";
	}
	argv[n++] = "--";
	if (h->mode == PL_REPLAY)
		for (unsigned k = 0; k < cfg->nfiles; k++)
			argv[n++] = cfg->files[k];
	else
		argv[n++] = cfg->write;
	argv[n] = NULL;
	g->argc = n;
	g->stop = 0;
	atomic_store(&g->done, false);
	int rc = pthread_create(&g->thread, NULL, graphs_thread, g);
	if (rc != 0) {
		snprintf(line, len, "P: cannot start the graphs' thread: %s", strerror(rc));
		return;
	}
	g->running = true;
	g->id = r->id;
	g->live = h->mode == PL_LIVE;
	snprintf(line, len, "writing the graphs of #%" PRIu64 " into %s/ ...", g->id, g->dir);
}

/* The SVG files the graphs' thread wrote. */
static unsigned count_svg(const char *dir)
{
	DIR *d = opendir(dir);
	unsigned n = 0;

	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		n += l > 4 && strcmp(e->d_name + l - 4, ".svg") == 0;
	}
	closedir(d);
	return n;
}

/* The first line of what analyze said that is no warning, into why. */
static void graphs_why(const char *said, char *why, size_t len)
{
	why[0] = '\0';
	for (const char *l = said; l && *l;) {
		size_t n = strcspn(l, "\r\n");
		snprintf(why, len, "%.*s", (int)n, l);
		if (why[0] && !strstr(why, "warning"))
			return;
		why[0] = '\0';
		l += n + (l[n] != '\0');
	}
}

/* Has the thread ended? Then its outcome on the status line: true. */
static bool graphs_poll(struct tui_run *t)
{
	struct tui_graphs *g = &t->graphs;
	char line[600], why[400] = "";

	if (!g->running || !atomic_load(&g->done))
		return false;
	pthread_join(g->thread, NULL);
	g->running = false;
	graphs_why(g->said, why, sizeof(why));
	free(g->said);
	g->said = NULL;
	/* Live, the capture may be writing a block where analyze's read of
	 * the -w file ended: it says so and exits 3, its graphs written. */
	bool torn = g->live && g->code == TCPSIFT_EXIT_INPUT && strstr(why, "file ends inside");
	if (g->code == 0 || torn) {
		unsigned n = count_svg(g->dir);
		if (n)
			snprintf(line, sizeof(line), "%u graphs of #%" PRIu64 ": %s/index.html", n,
				 g->id, g->dir);
		else
			snprintf(line, sizeof(line),
				 "no graphs of #%" PRIu64 ": it carries no data (%s/index.html)",
				 g->id, g->dir);
	} else {
		const char *msg = strncmp(why, "tcpsift analyze: ", 17) ? why : why + 17;
		snprintf(line, sizeof(line), "P: the graphs of #%" PRIu64 " failed: %s%s", g->id,
			 msg[0] ? msg : "tcpsift analyze failed", perm_hint(t, msg));
	}
	tv_status(t->view, line);
	return true;
}

/* Quitting: a thread still at work is stopped (its directory stays). */
static void graphs_stop(struct tui_run *t)
{
	struct tui_graphs *g = &t->graphs;

	if (!g->running)
		return;
	g->stop = SIGTERM;
	pthread_join(g->thread, NULL);
	g->running = false;
	free(g->said);
	g->said = NULL;
	fprintf(stderr, "tcpsift tui: the graphs of #%" PRIu64 " in %s/ were not finished\n", g->id,
		g->dir);
}

/* 'c', 'w' and 'P' on the selected connection; the outcome on the status line. */
static void conn_action(struct tui_run *t, const struct pl_header *h, enum tv_action act)
{
	struct tm_row r;
	char line[600], err[300];

	if (!tv_selected_row(t->view, &r))
		return;
	if (act == TV_COPY) {
		char f[REP_TSHARK_FILTER_LEN];
		cf_tshark_filter(f, sizeof(f), &r, h);
		osc52_copy(stdout, f); /* the status line shows it too, for the rest */
		snprintf(line, sizeof(line), "copied: %s", f);
		tv_status(t->view, line);
		return;
	}
	if (act == TV_GRAPHS) {
		graphs_start(t, &r, h, line, sizeof(line));
		tv_status(t->view, line);
		return;
	}
	/* A new file in the current directory, never over an existing one. */
	char path[64];
	new_name(path, sizeof(path), r.id, ".pcapng");
	uint64_t written, skipped;
	if (pl_write_conn(t->pl, &r, path, &written, &skipped, err, sizeof(err)) < 0) {
		snprintf(line, sizeof(line), "w: %s%s", err, perm_hint(t, err));
	} else {
		int n =
		    snprintf(line, sizeof(line), "wrote %" PRIu64 " packets of #%" PRIu64 " to %s",
			     written, r.id, path);
		if (skipped && n > 0 && (size_t)n < sizeof(line))
			snprintf(line + n, sizeof(line) - (size_t)n,
				 " (%" PRIu64 " of another link type left out)", skipped);
	}
	tv_status(t->view, line);
}

/* The key/draw loop: at most ~10 redraws a second, keys at once. */
static void run_screen(struct tui_run *t)
{
	struct player *pl = t->pl;
	struct tv_view *view = t->view;
	const struct pl_view *pv = pl_latest(pl, 0);
	uint64_t drawn_seq = 0;
	double last_draw = 0;
	bool dirty = true;

	timeout(50);
	while (!tui_stop) {
		int key = getch();
		if (key != ERR) {
			enum tv_action act;
			MEVENT me;
			if (key == KEY_MOUSE)
				act = getmouse(&me) == OK &&
					      (me.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED))
					  ? tv_mouse(view, me.y, me.x)
					  : TV_NONE;
			else
				act = tv_key(view, key);
			switch (act) {
			case TV_QUIT:
				return;
			case TV_PAUSE:
				pl_toggle_pause(pl);
				break;
			case TV_STEP:
				pl_step(pl);
				break;
			case TV_FASTER:
				pl_speed(pl, 2);
				break;
			case TV_SLOWER:
				pl_speed(pl, 0.5);
				break;
			case TV_SEEK_BACK:
			case TV_SEEK_FORWARD:
				pl_seek(pl, (act == TV_SEEK_BACK ? -10 : 10) * CLOCK_NS_PER_S);
				break;
			case TV_COPY:
			case TV_WRITE:
			case TV_GRAPHS:
				/* pv: the newest view, valid until the next pl_latest() */
				conn_action(t, &pv->h, act);
				break;
			default:
				/* A key clears the status line; the graphs say they are coming. */
				if (t->graphs.running) {
					char line[128];
					snprintf(line, sizeof(line),
						 "writing the graphs of #%" PRIu64 " into %s/ ...",
						 t->graphs.id, t->graphs.dir);
					tv_status(view, line);
				}
				break;
			}
			dirty = true; /* every key may change what is shown */
		}
		if (graphs_poll(t))
			dirty = true;
		pv = pl_latest(pl, tv_detail_id(view));
		double now = clock_now_s();
		if (dirty || (pv->seq != drawn_seq && now - last_draw >= 0.1)) {
			tv_draw(view, pv);
			refresh();
			drawn_seq = pv->seq;
			last_draw = now;
			dirty = false;
		}
	}
}

int tui_main(int argc, char **argv)
{
	struct tui_cfg cfg = {.speed = 1, .keep_ended = 10000, .metrics = MX_OPTS_INIT};
	char err[512];

	setlocale(LC_ALL, "");
	cli_ring_opts_defaults(&cfg.ring);
	int rc = parse_args(argc, argv, &cfg);
	if (rc >= 0) {
		free(cfg.filter_args);
		return rc;
	}

	struct pl_config pc = {
	    .mode = cfg.iface ? PL_LIVE : PL_REPLAY,
	    .paths = cfg.files,
	    .npaths = cfg.nfiles,
	    .filter = cfg.filter,
	    .speed = cfg.speed,
	    .start_paused = cfg.paused,
	    .queue_per_file = cfg.queue_per_file,
	    .write_path = cfg.write,
	    .overwrite = cfg.overwrite,
	    .model = {.keep_ended = (uint32_t)cfg.keep_ended},
	    .threads = cfg.threads,
	    .metrics = cfg.metrics,
	};
	cli_ring_config(&cfg.ring, cfg.iface, cfg.filter, 50, &pc.ring);
	pc.ring.queue_bytes = 64ull << 20;
	eng_config_defaults(&pc.eng);
	if (cfg.max_flows)
		pc.eng.flow.max_flows = (uint32_t)cfg.max_flows;

	struct player *pl;
	int prc = pl_new(&pc, &pl, err, sizeof(err));
	if (prc < 0) {
		if (!err_is_usage(prc) || !bpfhint_report("tui", cfg.filter))
			fprintf(stderr, "tcpsift tui: %s\n", err);
		free(cfg.filter_args);
		return exit_for_error(prc); /* a bad filter: usage */
	}
	/* Live, the sockets are open: root is no longer needed (pl_start
	 * creates the -w file as the user we become, as tcpsift capture). */
	bool dropped = false;
	if (cfg.iface && (prc = cli_priv_drop("tui", cfg.user, false, &dropped)) >= 0) {
		pl_free(pl);
		free(cfg.filter_args);
		return prc;
	}
	char source[300];
	if (cfg.iface)
		snprintf(source, sizeof(source), "%s", cfg.iface);
	else
		snprintf(source, sizeof(source), "%s%s", cfg.files[0],
			 cfg.nfiles > 1 ? " (+ more)" : "");
	const char *nc = getenv("NO_COLOR");
	const char *cs = nl_langinfo(CODESET);
	struct tv_config vc = {.color = !cfg.no_color && !(nc && *nc),
			       .utf8 = !cfg.ascii && cs && strcmp(cs, "UTF-8") == 0,
			       .source = source};
	struct tv_view *view = tv_new(&vc, err, sizeof(err));
	if (!view) {
		fprintf(stderr, "tcpsift tui: %s\n", err);
		pl_free(pl);
		free(cfg.filter_args);
		return TCPSIFT_EXIT_INPUT;
	}
	if (cfg.conn_filter && tv_set_filter(view, cfg.conn_filter, err, sizeof(err)) < 0) {
		fprintf(stderr, "tcpsift tui: --conn-filter '%s': %s\n", cfg.conn_filter, err);
		tv_free(view);
		pl_free(pl);
		free(cfg.filter_args);
		return TCPSIFT_EXIT_USAGE;
	}

	/* Our handlers before newterm(): curses then leaves them alone and the
	 * loop, not a signal handler, restores the terminal. */
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	prc = pl_start(pl, err, sizeof(err));
	if (prc < 0) {
		/* The -w file is created now, as the -Z user (player.h). */
		fprintf(stderr, "tcpsift tui: %s%s\n", err,
			dropped && strstr(err, strerror(EACCES))
			    ? " (running as the -Z user now; -Z root keeps root)"
			    : "");
		tv_free(view);
		pl_free(pl);
		free(cfg.filter_args);
		return exit_for_error(prc);
	}
	/* newterm(), not initscr(): on an unknown terminal it returns NULL
	 * instead of printing its own message and calling exit(). */
	const char *term = getenv("TERM");
	SCREEN *scr = term && *term ? newterm(NULL, stdout, stdin) : NULL;
	if (!scr) {
		fprintf(stderr, "tcpsift tui: cannot drive terminal type '%s' (TERM)\n",
			term ? term : "");
		tv_free(view);
		pl_free(pl);
		free(cfg.filter_args);
		return TCPSIFT_EXIT_USAGE;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	/* Clicks only (a press is enough: some terminals send no release). */
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	mouseinterval(0);
	if (vc.color && has_colors())
		tv_init_colors(); /* else the view draws with attributes only */

	struct tui_run run = {.cfg = &cfg, .pl = pl, .view = view, .dropped = dropped};
	run_screen(&run);

	erase();
	refresh();
	endwin();
	delscreen(scr);
	graphs_stop(&run);
	pl_stop(pl);
	const struct pl_view *pv = pl_latest(pl, 0);
	print_summary(pv);
	rc = pv->h.state == PL_FAILED || pv->h.error[0] ? TCPSIFT_EXIT_INPUT : TCPSIFT_EXIT_OK;
	tv_free(view);
	pl_free(pl);
	free(cfg.filter_args);
	return rc;
}

size_t tui_option_names(const char **names, size_t max)
{
	size_t k;
	for (k = 0; k < N_OPTS && k < max; k++)
		names[k] = tui_opts[k].name;
	return k;
}
