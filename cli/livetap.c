/* livetap.c - an engine and a report fed packet by packet by a live capture. */
#include "cli/livetap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/pipeline/pipe.h"
#include "analyze/report/metrics.h"
#include "common/err.h"
#include "common/grow.h"

/* Files named at most (a -G 1 capture of a day is 86 400): the frames of
 * later ones are listed with no tshark line, as with -w -. */
#define LIVE_MAX_FILES (1u << 20)

struct live_tap {
	struct pipeline *pipe;
	/* --metrics: the totals beside the report, and their server */
	struct mx_server *mx;
	struct capture_tap_drops drops;
	struct rep_written *files; /* paths owned */
	size_t nfiles, cap;
};

/* --metrics: a server on cfg->metrics and the totals it shows, fed after the report. */
static int open_metrics(struct live_tap *t, const struct capture_tap_config *cfg,
			struct pipe_config *pc, char *errbuf, size_t errlen)
{
	char why[320];
	int rc = mx_server_new(cfg->metrics, cfg->metrics_top, &t->mx, why, sizeof(why));
	if (rc < 0) {
		snprintf(errbuf, errlen, "--metrics: %s", why);
		return rc;
	}
	pc->sinks[pc->nsinks++] = mx_sink(mx_server_acc(t->mx));
	if (!cfg->quiet)
		fprintf(stderr, "tcpsift capture: metrics at http://%s/metrics\n",
			mx_server_addr(t->mx));
	return 0;
}

/* A new analyzer; errbuf says which part failed ("--analyze: ...", "--metrics: ..."). */
static void *tap_open(const struct capture_tap_config *cfg, char *errbuf, size_t errlen)
{
	struct live_tap *t = calloc(1, sizeof(*t));
	char why[320] = "out of memory";

	if (!t)
		goto err;
	/* Live: no files, the capture hands each packet in (tap_packet). */
	struct pipe_config pc = {
	    .threads = cfg->threads,
	    .report = true,
	    .rep = {.format = cfg->json ? REP_JSON : REP_TEXT,
		    .out = cfg->out,
		    .max_events = 100000},
	};
	eng_config_defaults(&pc.eng);
	if (cfg->metrics && open_metrics(t, cfg, &pc, errbuf, errlen) < 0)
		goto err_said;
	if (pipe_open(&pc, &t->pipe, why, sizeof(why)) < 0)
		goto err;
	return t;
err:
	snprintf(errbuf, errlen, "--analyze: %s", why);
err_said:
	if (t) {
		mx_server_free(t->mx);
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

	pipe_sync(t->pipe);
	mx_live_begin(m);
	pipe_foreach_live(t->pipe, mx_live_conn, m);
	pipe_counters(t->pipe, &cnt, &flows);
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
	pipe_packet(t->pipe, p);
}

static int tap_file(void *tap, uint64_t first_frame, const char *path)
{
	struct live_tap *t = tap;

	if (t->nfiles == LIVE_MAX_FILES)
		return 0;
	if (t->nfiles == LIVE_MAX_FILES - 1)
		path = NULL; /* this file and the rest */
	if (GROW(t->files, t->cap, t->nfiles + 1, 16) < 0)
		return ERR_NOMEM;
	/* Without memory for the name the file is named nowhere, never
	 * another's name with the wrong frame numbers. */
	char *copy = path ? strdup(path) : NULL;
	t->files[t->nfiles++] = (struct rep_written){.first_frame = first_frame, .path = copy};
	return path && !copy ? ERR_NOMEM : 0;
}

static void tap_flush(void *tap)
{
	struct live_tap *t = tap;
	pipe_flush(t->pipe);
}

/* The live interface as the report's one input: its drops are the capture's,
 * so capture loss is reconciled with them as for a file's ISBs. */
static int tap_close(void *tap, const struct capture_tap_end *end)
{
	struct live_tap *t = tap;
	struct src_iface ifc = {.linktype = end->linktype,
				.ifdrop = end->if_drops,
				.osdrop = end->kernel_drops + end->our_drops,
				.have_ifdrop = true,
				.have_osdrop = true};
	snprintf(ifc.name, sizeof(ifc.name), "%s", end->iface);
	struct src_input in = {.path = end->iface,
			       .format = "live",
			       .linktype = end->linktype,
			       .drops_known = true,
			       .drops = end->kernel_drops + end->if_drops + end->our_drops,
			       .nifaces = 1,
			       .ifaces = &ifc};
	struct rep_run *run = pipe_finish(t->pipe, &in);
	run->written = t->files;
	run->nwritten = t->nfiles;
	char err[256] = "";
	int rc = pipe_report(t->pipe, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "tcpsift capture: --analyze: %s\n", err);
	pipe_free(t->pipe);
	mx_server_free(t->mx);
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
