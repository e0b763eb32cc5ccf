/* convo.h - one TCP conversation in memory, for the engine and detector unit tests. */
#ifndef TCPSIFT_TEST_CONVO_H
#define TCPSIFT_TEST_CONVO_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/detect/detect.h"
#include "analyze/engine/tcp.h"

/*
 * Client 10.0.0.1:40000 <-> server 10.0.0.2:80 (family 6: 2001::1 and
 * 2001::2), packets built as struct dec_packet without libpcap and run
 * through the TCP engine and the detectors the way analyze/engine/engine.c does.
 * Each test keeps its own conversation struct (with the fields below) and
 * its own segment description; these helpers are what they share.
 */

/* How far a segment goes after tcp_segment(). */
enum convo_run {
	CONVO_TCP = 0,	    /* the TCP engine only */
	CONVO_DETECTORS,    /* det_before() + every detector, as the engine */
	CONVO_ONE_DETECTOR, /* the engine, then one detector's segment hook */
	CONVO_RUN_COUNT,
};

/* The detectors' cold-state pools of every conversation, freed at exit:
 * conversations are started over old ones without det_release(). */
static struct det_pools convo_pools;

static void convo_pools_free(void)
{
	det_pools_free(&convo_pools);
}

/* The RTT rings of every conversation, freed at exit the same way. */
static struct tcp_pools convo_tcp_pools;

static void convo_tcp_pools_free(void)
{
	tcp_pools_free(&convo_tcp_pools);
}

static inline struct tcp_pools *convo_tpools(void)
{
	static bool ready;

	if (!ready && tcp_pools_init(&convo_tcp_pools) == 0) {
		ready = true;
		atexit(convo_tcp_pools_free);
	}
	return &convo_tcp_pools;
}

/* Engine parameters as the defaults of tcpsift-analyze(1); the sink collects events
 * through on_event(ctx, e); env points at dprm, sink and the pools. */
static inline void convo_params(struct tcp_params *prm, struct det_params *dprm,
				struct det_env *env, struct sum_sink *sink,
				void (*on_event)(void *ctx, const struct sum_event *e), void *ctx)
{
	prm->rto_min_ns = 200000000;
	prm->reorder_window_ns = 3000000;
	sink->event = on_event;
	sink->ctx = ctx;
	if (dprm)
		det_params_defaults(dprm);
	if (env) {
		static bool pools_ready;
		if (!pools_ready && det_pools_init(&convo_pools) == 0) {
			pools_ready = true;
			atexit(convo_pools_free);
		}
		env->prm = dprm;
		env->sink = sink;
		env->pools = &convo_pools;
	}
}

static inline void convo_addr(struct dec_addr *a, int family, uint8_t host)
{
	memset(a, 0, sizeof(*a));
	a->family = (uint8_t)family;
	if (family == 6) {
		a->a[0] = 0x20;
		a->a[1] = 0x01;
		a->a[15] = host;
	} else {
		a->a[0] = 10;
		a->a[3] = host;
	}
}

/* A zeroed packet sent by dir (SUM_C2S: the client) at t_us, frame *frame + 1. */
static inline void convo_packet(int family, int dir, int64_t t_us, uint64_t *frame,
				struct dec_packet *d, struct pkt *p)
{
	memset(d, 0, sizeof(*d));
	memset(p, 0, sizeof(*p));
	convo_addr(&d->src, family, dir == SUM_C2S ? 1 : 2);
	convo_addr(&d->dst, family, dir == SUM_C2S ? 2 : 1);
	d->tcp.sport = dir == SUM_C2S ? 40000 : 80;
	d->tcp.dport = dir == SUM_C2S ? 80 : 40000;
	p->ts_ns = t_us * 1000;
	p->frame = ++*frame;
}

/* What a connection allocates on first need (its rings, gap, pending-fill
 * and retransmission arrays, cold counters) comes from convo_tpools(): the
 * tests keep their connections on the stack and start new ones over old
 * ones, and the pools free every block at exit. */

/* Run d/p into c (initialised by its first packet), then as far as run says;
 * one: the detector hook for CONVO_ONE_DETECTOR. */
static inline void convo_deliver(struct tcp_conn *c, bool *started, const struct tcp_params *prm,
				 const struct det_env *env, const struct sum_sink *sink,
				 enum convo_run run,
				 void (*one)(struct tcp_conn *c, const struct det_env *env),
				 const struct dec_packet *d, const struct pkt *p)
{
	if (!*started) {
		tcp_conn_init(c, 1, d, p);
		*started = true;
	} else if (run == CONVO_DETECTORS) {
		det_before(c, p->ts_ns, env);
	}
	tcp_segment(c, prm, convo_tpools(), d, p, sink);
	if (run == CONVO_DETECTORS)
		det_segment(c, env);
	else if (run == CONVO_ONE_DETECTOR)
		one(c, env);
}

#endif
