/* workers_ahead.c - --threads 1: a few packets decoded ahead, their connections loaded early. */
#include "analyze/engine/decode.h"
#include "analyze/engine/engine.h"
#include "analyze/engine/flow.h"
#include "analyze/engine/workers_int.h"

#include <stdlib.h>

/*
 * One engine, no threads, and a reader that keeps packets in place
 * (wk_keep()): with many live connections each packet's index slot and
 * connection are cache misses (at 200 000 live, the lookup and the LRU
 * move were a sixth of the run), so packets wait here WK_AHEAD deep, as a
 * worker's batch does: each is decoded and its slot loaded when it
 * arrives, its connection WK_AHEAD_CONN packets before its turn and the
 * blocks the connection points to WK_AHEAD_STATE before. Packets
 * are analysed in their order, the clock and sweeps with them: the
 * results are the same. Below flow_config.prefetch_live live connections
 * (looked at every WK_AHEAD_CHECK packets) the entries stay in cache and
 * packets go straight to the engine.
 */

void wk_ahead_start(struct wk_pool *w)
{
	w->ahead = calloc(WK_AHEAD, sizeof(*w->ahead)); /* NULL: ahead_on stays false */
}

/* What the reader may reuse: the buffers of the packets read before the
 * oldest one waiting (all, when none waits). */
static void ahead_release(struct wk_pool *w)
{
	uint64_t oldest = w->ahead_n ? w->ahead[w->ahead_head].gen : *w->keep_gen;

	if (oldest != w->released) {
		w->released = oldest;
		w->keep_release(w->keep_ctx, oldest);
	}
}

/* The oldest waiting packet to the engine. */
static void ahead_one(struct wk_pool *w)
{
	struct wk_ahead *a = &w->ahead[w->ahead_head];

	if (w->ahead_n > WK_AHEAD_CONN) {
		const struct wk_ahead *b = &w->ahead[(w->ahead_head + WK_AHEAD_CONN) % WK_AHEAD];
		eng_prefetch_conn(w->single, b->x.status, b->x.hash);
	}
	if (w->ahead_n > WK_AHEAD_STATE) {
		const struct wk_ahead *b = &w->ahead[(w->ahead_head + WK_AHEAD_STATE) % WK_AHEAD];
		eng_prefetch_state(w->single, b->x.status, b->x.hash);
	}
	eng_packet_decoded(w->single, &a->p, a->x.status, &a->x.d, a->x.hash);
	w->ahead_head = (w->ahead_head + 1) % WK_AHEAD;
	w->ahead_n--;
}

void wk_ahead_passed(struct wk_pool *w)
{
	ahead_release(w);
	w->ahead_on = w->ahead && eng_prefetch_pays(w->single);
}

void wk_ahead_packet(struct wk_pool *w, const struct pkt *p)
{
	struct engine *e = w->single;
	struct wk_ahead *a = &w->ahead[(w->ahead_head + w->ahead_n) % WK_AHEAD];
	a->p = *p;
	a->gen = *w->keep_gen;
	a->x.status = dec_packet(p->data, p->caplen, p->wirelen, p->linktype, &a->x.d);
	a->x.hash = eng_prefetch_slot(e, p, a->x.status, &a->x.d, false, 0);
	if (++w->ahead_n == WK_AHEAD) {
		ahead_one(w);
		ahead_release(w);
	}
	if ((++w->ahead_seen & (WK_AHEAD_CHECK - 1)) == 0)
		w->ahead_on = eng_prefetch_pays(e);
}

void wk_ahead_flush(struct wk_pool *w)
{
	if (!w->ahead_n)
		return; /* (also where nothing waits ever: no wk_keep(), no keep_gen) */
	while (w->ahead_n)
		ahead_one(w);
	ahead_release(w);
}
