/* player_mx.c - the player's pipeline: the model, and --metrics' totals beside it, served at each
 * snapshot. */
#include "tui/player_int.h"

int pl_mx_open(struct player *p, char *errbuf, size_t errlen)
{
	const struct mx_opts *o = &p->cfg.metrics;

	return o->addr ? mx_server_new(o->addr, o->top, &p->mx, errbuf, errlen) : 0;
}

int pl_pipe_open(struct player *p, struct tm_model *model, struct pipeline **out, char *errbuf,
		 size_t errlen)
{
	const struct pl_config *cfg = &p->cfg;
	struct pipe_config pc = {.eng = cfg->eng, .threads = cfg->threads};

	if (cfg->mode == PL_REPLAY) {
		pc.paths = cfg->paths;
		pc.npaths = cfg->npaths;
		pc.src = (struct src_config){.filter = cfg->filter,
					     .queue_per_file = cfg->queue_per_file};
	}
	pc.sinks[pc.nsinks++] = tm_sink(model);
	if (p->mx)
		pc.sinks[pc.nsinks++] = mx_sink(mx_server_acc(p->mx));
	return pipe_open(&pc, out, errbuf, errlen);
}

struct pl_scrape {
	struct player *p;
	const struct pl_header *h;
};

/* A scrape: the live connections as they stand, the engine's counters,
 * and live, the ring's drops as the header has them. */
static void refresh(void *ctx, struct mx_acc *m)
{
	const struct pl_scrape *sc = ctx;
	struct eng_counters cnt;
	struct flow_counters flows;

	mx_live_begin(m);
	pipe_foreach_live(sc->p->pipe, mx_live_conn, m);
	pipe_counters(sc->p->pipe, &cnt, &flows);
	mx_set_counters(m, &cnt, &flows);
	mx_set_capture(m, &(struct mx_capture){.known = sc->p->ring != NULL,
					       .kernel_drops = sc->h->kernel_drops,
					       .if_drops = sc->h->if_drops,
					       .our_drops = sc->h->our_drops});
}

void pl_mx_serve(struct player *p, const struct pl_header *h)
{
	struct pl_scrape sc = {.p = p, .h = h};

	mx_server_poll(p->mx, refresh, &sc);
}
