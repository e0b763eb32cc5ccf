/* livetap.c - an engine and a report fed packet by packet by a live capture. */
#include "cli/livetap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/engine/engine.h"
#include "analyze/engine/workers.h"
#include "analyze/report/report.h"
#include "analyze/engine/source.h"
#include "common/err.h"

/* Files named at most (a -G 1 capture of a day is 86 400): the frames of
 * later ones are listed with no tshark line, as with -w -. */
#define LIVE_MAX_FILES (1u << 20)

struct live_tap {
	struct report *rep;
	struct wk_pool *eng;
	struct rep_written *files; /* paths owned */
	size_t nfiles, cap;
};

static void *tap_open(bool json, unsigned threads, FILE *out, char *errbuf, size_t errlen)
{
	struct live_tap *t = calloc(1, sizeof(*t));
	struct eng_config ecfg;

	if (!t) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	struct rep_config rcfg = {
	    .format = json ? REP_JSON : REP_TEXT, .out = out, .max_events = 100000};
	t->rep = rep_new(&rcfg, errbuf, errlen);
	if (!t->rep)
		goto err;
	struct sum_sink sink = rep_sink(t->rep);
	eng_config_defaults(&ecfg);
	t->eng = wk_new(&ecfg, threads ? threads : wk_default_threads(), &sink, errbuf, errlen);
	if (!t->eng)
		goto err;
	return t;
err:
	rep_free(t->rep);
	free(t);
	return NULL;
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
    .close = tap_close,
};
