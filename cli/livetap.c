/* livetap.c - an engine and a report fed packet by packet by a live capture. */
#include "cli/livetap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/engine/engine.h"
#include "analyze/engine/workers.h"
#include "analyze/report/metrics.h"
#include "analyze/report/report.h"
#include "analyze/engine/source.h"
#include "common/err.h"

/* Files named at most (a -G 1 capture of a day is 86 400): the frames of
 * later ones are listed with no tshark line, as with -w -. */
#define LIVE_MAX_FILES (1u << 20)

struct live_tap {
	struct report *rep;
	struct wk_pool *eng;
	/* --metrics: the totals beside the report, and their server */
	struct mx_server *mx;
	struct sum_tee tee;
	struct capture_tap_drops drops;
	struct rep_written *files; /* paths owned */
	size_t nfiles, cap;
};

/* --metrics: a server on cfg->metrics and the totals it shows, fed with the report. */
static int open_metrics(struct live_tap *t, const struct capture_tap_config *cfg,
			struct sum_sink *sink, char *errbuf, size_t errlen)
{
	char why[320];
	int rc = mx_server_new(cfg->metrics, cfg->metrics_top, &t->mx, why, sizeof(why));
	if (rc < 0) {
		snprintf(errbuf, errlen, "--metrics: %s", why);
		return rc;
	}
	t->tee = (struct sum_tee){.a = *sink, .b = mx_sink(mx_server_acc(t->mx))};
	*sink = sum_tee_sink(&t->tee);
	if (!cfg->quiet)
		fprintf(stderr, "tcpsift capture: metrics at http://%s/metrics\n",
			mx_server_addr(t->mx));
	return 0;
}

/* A new analyzer; errbuf says which part failed ("--analyze: ...", "--metrics: ..."). */
static void *tap_open(const struct capture_tap_config *cfg, char *errbuf, size_t errlen)
{
	struct live_tap *t = calloc(1, sizeof(*t));
	struct eng_config ecfg;
	char why[320] = "out of memory";

	if (!t)
		goto err;
	struct rep_config rcfg = {
	    .format = cfg->json ? REP_JSON : REP_TEXT, .out = cfg->out, .max_events = 100000};
	t->rep = rep_new(&rcfg, why, sizeof(why));
	if (!t->rep)
		goto err;
	struct sum_sink sink = rep_sink(t->rep);
	if (cfg->metrics && open_metrics(t, cfg, &sink, errbuf, errlen) < 0)
		goto err_said;
	eng_config_defaults(&ecfg);
	unsigned threads = cfg->threads ? cfg->threads : wk_default_threads();
	t->eng = wk_new(&ecfg, threads, &sink, why, sizeof(why));
	if (!t->eng)
		goto err;
	return t;
err:
	snprintf(errbuf, errlen, "--analyze: %s", why);
err_said:
	if (t) {
		mx_server_free(t->mx);
		rep_free(t->rep);
		free(t);
	}
	return NULL;
}

/* A scrape: every packet so far analysed (wk_sync), the live connections
 * as they stand, the engine's and the ring's counters. */
static void metrics_refresh(void *ctx, struct mx_acc *m)
{
	struct live_tap *t = ctx;
	struct eng_counters cnt;
	struct flow_counters flows;

	wk_sync(t->eng);
	mx_live_begin(m);
	wk_foreach_live(t->eng, mx_live_conn, m);
	wk_counters(t->eng, &cnt, &flows);
	mx_set_counters(m, &cnt, &flows);
	mx_set_capture(m, &(struct mx_capture){.known = true,
					       .kernel_drops = t->drops.kernel_drops,
					       .if_drops = t->drops.if_drops,
					       .our_drops = t->drops.our_drops});
}

static void tap_serve(void *tap, const struct capture_tap_drops *drops)
{
	struct live_tap *t = tap;

	if (!t->mx)
		return;
	t->drops = *drops;
	mx_server_poll(t->mx, metrics_refresh, t);
}

static void tap_packet(void *tap, const struct pkt *p)
{
	struct live_tap *t = tap;
	wk_packet(t->eng, p);
}

static int tap_file(void *tap, uint64_t first_frame, const char *path)
{
	struct live_tap *t = tap;

	if (t->nfiles == LIVE_MAX_FILES)
		return 0;
	if (t->nfiles == LIVE_MAX_FILES - 1)
		path = NULL; /* this file and the rest */
	if (t->nfiles == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct rep_written *f = realloc(t->files, cap * sizeof(*f));
		if (!f)
			return ERR_NOMEM;
		t->files = f;
		t->cap = cap;
	}
	/* Without memory for the name the file is named nowhere, never
	 * another's name with the wrong frame numbers. */
	char *copy = path ? strdup(path) : NULL;
	t->files[t->nfiles++] = (struct rep_written){.first_frame = first_frame, .path = copy};
	return path && !copy ? ERR_NOMEM : 0;
}

static void tap_flush(void *tap)
{
	struct live_tap *t = tap;
	wk_flush(t->eng);
}

/* The live interface as the report's one input: its drops are the capture's,
 * so capture loss is reconciled with them as for a file's ISBs. */
static int tap_close(void *tap, const struct capture_tap_end *end)
{
	struct live_tap *t = tap;

	wk_finish(t->eng);
	struct eng_counters cnt;
	struct flow_counters flows;
	wk_counters(t->eng, &cnt, &flows);
	const struct eng_counters *n = &cnt;
	struct src_iface ifc = {.linktype = end->linktype,
				.ifdrop = end->if_drops,
				.osdrop = end->kernel_drops + end->our_drops,
				.have_ifdrop = true,
				.have_osdrop = true};
	snprintf(ifc.name, sizeof(ifc.name), "%s", end->iface);
	struct src_input in = {.path = end->iface,
			       .format = "live",
			       .linktype = end->linktype,
			       .packets = n->packets,
			       .wire_bytes = n->wire_bytes,
			       .first_ts = n->first_ts,
			       .last_ts = n->last_ts,
			       .drops_known = true,
			       .drops = end->kernel_drops + end->if_drops + end->our_drops,
			       .nifaces = 1,
			       .ifaces = &ifc};
	const struct src_input *inputs[1] = {&in};
	const char *vantage = end->iface;
	struct rep_run run = {
	    .version = TCPSIFT_VERSION,
	    .ninputs = 1,
	    .inputs = inputs,
	    .eng = *n,
	    .flows = flows,
	    .nvantages = 1,
	    .vantage_names = &vantage,
	    .detectors = true,
	    .written = t->files,
	    .nwritten = t->nfiles,
	};
	char err[256] = "";
	int rc = rep_finish(t->rep, &run, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "tcpsift capture: --analyze: %s\n", err);
	wk_free(t->eng);
	mx_server_free(t->mx);
	rep_free(t->rep);
	for (size_t k = 0; k < t->nfiles; k++)
		free((char *)t->files[k].path); /* strdup'd in tap_file */
	free(t->files);
	free(t);
	return rc;
}

const struct capture_tap_ops analyze_live_tap = {
    .open = tap_open,
    .packet = tap_packet,
    .file = tap_file,
    .flush = tap_flush,
    .serve = tap_serve,
    .close = tap_close,
};
