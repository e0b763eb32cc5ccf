/* stall_convo.h - the stall detector's unit tests: one connection driven segment by segment. */
#ifndef TCPSIFT_TESTS_STALL_CONVO_H
#define TCPSIFT_TESTS_STALL_CONVO_H

#include <string.h>

/* Segments below are positional literals; unnamed trailing fields are 0. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "analyze/detect/detect.h"
#include "analyze/engine/tcp.h"
#include "analyze/report/report.h"
#include "tests/unit/convo.h"

/* Client 10.0.0.1:40000 <-> server 10.0.0.2:80, run through tcp_segment()
 * and then every detector, as the engine does. */
struct convo {
	struct tcp_conn c;
	struct sum_det res; /* the detectors' results, from finish() */
	struct tcp_params prm;
	struct det_params det;
	struct det_env env;
	struct sum_sink sink;
	struct sum_event ev[32]; /* stall events only */
	unsigned nev;
	uint64_t frame;
	bool started;
};

struct seg {
	int dir; /* SUM_C2S / SUM_S2C */
	uint8_t flags;
	uint32_t seq, ack, len;
	uint16_t win;
	int64_t t_us;
	int mss, wscale;
	uint16_t ipid;	       /* IPv4 ID (0: every packet 0, no counter) */
	uint32_t tsval, tsecr; /* RFC 7323 timestamps (tsval 0: no option) */
};

static inline void on_event(void *ctx, const struct sum_event *e)
{
	struct convo *v = ctx;
	if (e->type == SUM_EV_STALL && v->nev < 32)
		v->ev[v->nev++] = *e;
}

static inline void convo_init(struct convo *v)
{
	memset(v, 0, sizeof(*v));
	convo_params(&v->prm, &v->det, &v->env, &v->sink, on_event, v);
}

static inline void send_seg(struct convo *v, const struct seg *s)
{
	struct dec_packet d;
	struct pkt p;

	convo_packet(4, s->dir, s->t_us, &v->frame, &d, &p);
	d.tcp.seq = s->seq;
	d.tcp.ack = s->ack;
	d.tcp.flags = s->flags;
	d.tcp.window = s->win;
	d.ip_id = s->ipid;
	d.tcp.payload_len = d.tcp.payload_cap = s->len;
	d.l3_len = 40 + s->len;
	if (s->mss) {
		d.tcp.opt.has_mss = 1;
		d.tcp.opt.mss = (uint16_t)s->mss;
	}
	if (s->tsval) {
		d.tcp.opt.has_ts = 1;
		d.tcp.opt.tsval = s->tsval;
		d.tcp.opt.tsecr = s->tsecr;
	}
	if (s->wscale) {
		d.tcp.opt.has_wscale = 1;
		d.tcp.opt.wscale = (uint8_t)(s->wscale - 1); /* field is shift + 1 */
	}
	convo_deliver(&v->c, &v->started, &v->prm, &v->env, &v->sink, CONVO_DETECTORS, NULL, &d,
		      &p);
}

static inline void finish(struct convo *v)
{
	det_finish(&v->c, &v->env, &v->res);
}

enum { S = DEC_TH_SYN, A = DEC_TH_ACK, F = DEC_TH_FIN, P = DEC_TH_PSH };

#define C2S SUM_C2S
#define S2C SUM_S2C
#define ISS 1000u
#define IRS 5000u

/* SYN, SYN/ACK, ACK (handshake RTT rtt_us) with MSS 1000, window shift 2:
 * a raw window of 1000 is 4000 bytes. */
static inline void handshake(struct convo *v, int64_t rtt_us)
{
	send_seg(v, &(struct seg){C2S, S, ISS, 0, 0, 1000, 0, 1000, 3});
	send_seg(v, &(struct seg){S2C, S | A, IRS, ISS + 1, 0, 1000, rtt_us / 2, 1000, 3});
	send_seg(v, &(struct seg){C2S, A, ISS + 1, IRS + 1, 0, 1000, rtt_us});
}

#endif
