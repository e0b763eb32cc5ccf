/* gen_tcp.c - bench/gen's endpoints: sending, ACKs, loss recovery, delivery, applications. */
#include "bench/gensim/gen_int.h"

/* --- TCP endpoints --- */

static void queue_data(struct gen *g, struct gen_conn *c, int s, uint32_t n, uint64_t t)
{
	struct gen_ep *p = &c->ep[s], *r = &c->ep[!s];

	p->app_end += n;
	/* The simulator plays the application protocol: the peer knows the message length. */
	r->rcv_expect = p->app_end;
	r->expect_set = 1;
	gen_try_send(g, c, s, t);
}

/*
 * Send what the window and pacing allow.  Reordering happens here: within a
 * line-rate burst one segment, built in order (its TSval and IP ID are those
 * of its place), is queued to reach the capture point just after the 1st-3rd
 * segment behind it.  Paced segments are too far apart to swap, so their draws
 * are carried over (reorder_debt) and --reorder stays a share of all data
 * segments.
 */
void gen_try_send(struct gen *g, struct gen_conn *c, int s, uint64_t t)
{
	struct gen_ep *p = &c->ep[s];
	const struct gen_ep *r = &c->ep[!s];
	uint32_t held = GEN_NONE;
	unsigned held_after = 0, followers = 0;
	uint64_t held_tx = 0, last_tx = 0;

	for (;;) {
		/* After our FIN, snd_nxt is app_end + 1: nothing more to send. */
		uint32_t avail = p->fin_sent ? 0 : p->app_end - p->snd_nxt;
		uint32_t len = avail < p->mss ? avail : p->mss;
		/* RFC 6675 pipe, with the receiver's SACKed bytes standing in for the scoreboard.
		 */
		uint32_t pipe = p->snd_nxt - p->snd_una - r->ooo_bytes;
		uint64_t tx;

		if (!avail || pipe + len > p->cwnd * p->mss)
			break;
		tx = gen_tx_time(c, s, t);
		if (tx < p->next_tx)
			tx = p->next_tx;
		if (tx > t + c->half[s] + GEN_PACE_AHEAD) {
			gen_timer_arm(g, c, GEN_TM_PACE0 + s, tx - c->half[s] - GEN_PACE_AHEAD);
			break;
		}
		uint32_t idx = gen_pkt_make(
		    g, c, s, tx, GEN_TH_ACK | (len == avail ? GEN_TH_PSH : 0), p->snd_nxt, len, 0);
		p->snd_nxt += len;
		if (p->pace_ns)
			p->next_tx = tx + p->pace_ns;
		if (rng_pct(&g->rng, g->o->reorder) && g->reorder_debt < GEN_REORDER_DEBT_MAX)
			g->reorder_debt++;
		if (held == GEN_NONE && g->reorder_debt && !p->pace_ns) {
			g->reorder_debt--;
			held = idx;
			held_tx = tx;
			held_after = (unsigned)rng_range(&g->rng, 1, 3);
			g->pool[idx].note |= GEN_N_REORD;
			continue;
		}
		gen_heap_push(g, tx, idx);
		last_tx = tx;
		if (held != GEN_NONE) {
			followers++;
			if (--held_after == 0) {
				gen_heap_push(g, tx + 1, held);
				held = GEN_NONE;
			}
		}
	}
	if (held != GEN_NONE) {
		if (followers) {
			gen_heap_push(g, last_tx + 1, held); /* the burst was shorter than drawn */
		} else {
			/* Last segment of the burst: send it in order, keep the draw. */
			g->pool[held].note &= (uint8_t)~GEN_N_REORD;
			gen_heap_push(g, held_tx, held);
			g->reorder_debt++;
		}
	}
	if (p->fin_queued && !p->fin_sent && p->snd_nxt == p->app_end) {
		gen_pkt_new(g, c, s, gen_tx_time(c, s, t), GEN_TH_FIN | GEN_TH_ACK, p->snd_nxt, 0,
			    0);
		p->snd_nxt++;
		p->fin_sent = 1;
	}
}

static void retransmit(struct gen *g, struct gen_conn *c, int s, struct gen_lost *l, uint64_t t,
		       uint8_t note)
{
	gen_pkt_new(g, c, s, gen_tx_time(c, s, t), GEN_TH_ACK | GEN_TH_PSH, l->seq, l->len,
		    GEN_N_RETX | note);
	l->state = GEN_LOST_RETX;
}

static void on_ack(struct gen *g, struct gen_conn *c, int s, const struct gen_ev *e, uint64_t t)
{
	struct gen_ep *p = &c->ep[s];

	if (seq_gt(e->ack, p->snd_una)) {
		uint32_t acked = e->ack - p->snd_una;
		unsigned k = 0;

		p->snd_una = e->ack;
		if (!p->in_recovery && p->cwnd < GEN_CWND_MAX) {
			p->cwnd += (acked + p->mss - 1) / p->mss; /* slow start */
			if (p->cwnd > GEN_CWND_MAX)
				p->cwnd = GEN_CWND_MAX;
		}
		if (p->in_recovery && !seq_lt(p->snd_una, p->recover))
			p->in_recovery = 0;
		for (unsigned i = 0; i < p->n_lost; i++)
			if (!seq_le(p->lost[i].seq + p->lost[i].len, p->snd_una))
				p->lost[k++] = p->lost[i];
		p->n_lost = (uint8_t)k;
	}
	if (e->note & GEN_N_FR) {
		int sent = 0;
		for (unsigned i = 0; i < p->n_lost; i++) {
			if (p->lost[i].state == GEN_LOST_FR_READY) {
				retransmit(g, c, s, &p->lost[i], t, 0);
				sent = 1;
			}
		}
		if (sent && !p->in_recovery) {
			p->in_recovery = 1;
			p->recover = p->snd_nxt;
			p->cwnd = p->cwnd / 2 > 2 ? p->cwnd / 2 : 2;
		}
	}
	gen_try_send(g, c, s, t);
	/* Server-side reset (e.g. an idle timeout) once the last response is fully acked. */
	if (s == GEN_SRV && c->close == GEN_CLOSE_SRV_RST && c->last_resp &&
	    p->app == GEN_APP_NONE && p->snd_una == p->app_end && p->app_end != p->iss + 1) {
		p->app = GEN_APP_RST;
		gen_timer_arm(g, c, GEN_TM_APP1, t + rng_range(&g->rng, 1, 20) * GEN_NS_MS);
	}
}

/* Linux's RTO settles near srtt + rttvar, with rttvar floored at TCP_RTO_MIN. */
uint64_t gen_rto_ns(const struct gen_conn *c)
{
	return 2 * (c->half[GEN_CLI] + c->half[GEN_SRV]) + GEN_RTO_MIN_NS;
}

static void ooo_insert(struct gen_ep *r, uint32_t seq, uint32_t end)
{
	unsigned i = 0, k;

	while (i < r->n_ooo && seq_lt(r->ooo[i].start, seq))
		i++;
	if (r->n_ooo == GEN_OOO_MAX)
		return; /* cannot happen: holes are bounded by GEN_LOST_MAX + 1 */
	memmove(&r->ooo[i + 1], &r->ooo[i], (r->n_ooo - i) * sizeof(r->ooo[0]));
	r->ooo[i].start = seq;
	r->ooo[i].end = end;
	r->n_ooo++;
	/* Merge touching or overlapping neighbours. */
	for (i = 0, k = 0; i < r->n_ooo; i++) {
		if (k && !seq_gt(r->ooo[i].start, r->ooo[k - 1].end)) {
			if (seq_gt(r->ooo[i].end, r->ooo[k - 1].end))
				r->ooo[k - 1].end = r->ooo[i].end;
		} else {
			r->ooo[k++] = r->ooo[i];
		}
	}
	r->n_ooo = (uint8_t)k;
	r->ooo_bytes = 0;
	for (i = 0; i < r->n_ooo; i++)
		r->ooo_bytes += r->ooo[i].end - r->ooo[i].start;
}

static void app_on_message(struct gen *g, struct gen_conn *c, int r, uint64_t t)
{
	struct gen_ep *p = &c->ep[r];

	if (r == GEN_SRV) {
		p->app = GEN_APP_RESPOND;
		gen_timer_arm(g, c, GEN_TM_APP1,
			      t + rng_range(&g->rng, 20, c->kind == GEN_KIND_RR ? 300 : 600) *
				      GEN_NS_US);
		return;
	}
	if (!c->last_resp) {
		uint64_t think = rng_exp(&g->rng, (double)GEN_THINK_NS);
		/* Some clients go idle long enough for keep-alive probes. */
		if (rng_below(&g->rng, 100) < 3) {
			think = rng_range(&g->rng, 300, 1500) * GEN_NS_MS;
			gen_timer_arm(g, c, GEN_TM_KA, t + GEN_KEEPIDLE_NS);
		}
		c->idle_until = t + think;
		p->app = GEN_APP_REQUEST;
		gen_timer_arm(g, c, GEN_TM_APP0, t + think + 1);
		return;
	}
	if (c->close == GEN_CLOSE_CLI_FIN || c->close == GEN_CLOSE_CLI_RST) {
		p->app = c->close == GEN_CLOSE_CLI_FIN ? GEN_APP_CLOSE : GEN_APP_RST;
		gen_timer_arm(g, c, GEN_TM_APP0, t + rng_range(&g->rng, 10, 200) * GEN_NS_US);
	}
	/* GEN_CLOSE_SRV_*: the server acts. */
}

/* r consumed the peer's FIN. */
static void on_fin(struct gen *g, struct gen_conn *c, int r, uint64_t t)
{
	struct gen_ep *p = &c->ep[r];

	p->fin_rcvd = 1;
	if (p->fin_sent) {
		gen_send_ack(g, c, r, t, GEN_N_LAST);
		return;
	}
	/* Passive close: the application closes at once, so the ACK rides on our FIN. */
	p->app = GEN_APP_CLOSE;
	gen_timer_arm(g, c, GEN_TM_APP0 + r, t + rng_range(&g->rng, 5, 50) * GEN_NS_US);
}

static void deliver(struct gen *g, struct gen_conn *c, int r, const struct gen_ev *e, uint64_t t)
{
	struct gen_ep *p = &c->ep[r], *snd = &c->ep[!r];
	uint32_t seq = e->seq, end = e->seq + e->len;
	int ack_now = 0;
	uint8_t note = 0;

	if (e->len) {
		if (seq == p->rcv_nxt) {
			int filled = p->n_ooo > 0;
			p->rcv_nxt = end;
			p->ts_recent = e->tsval;
			while (p->n_ooo && seq_le(p->ooo[0].start, p->rcv_nxt)) {
				if (seq_gt(p->ooo[0].end, p->rcv_nxt))
					p->rcv_nxt = p->ooo[0].end;
				p->ooo_bytes -= p->ooo[0].end - p->ooo[0].start;
				memmove(&p->ooo[0], &p->ooo[1], --p->n_ooo * sizeof(p->ooo[0]));
			}
			/* Linux acks at once when a hole fills, else every second segment. */
			if (filled || ++p->unacked >= 2)
				ack_now = 1;
		} else if (seq_gt(seq, p->rcv_nxt)) {
			ooo_insert(p, seq, end);
			p->sack_recent = seq;
			for (unsigned i = 0; i < snd->n_lost; i++) {
				struct gen_lost *l = &snd->lost[i];
				if (l->state == GEN_LOST_PENDING && seq_lt(l->seq, seq) &&
				    ++l->segs_after >= GEN_DUPTHRESH) {
					l->state = GEN_LOST_FR_READY;
					note |= GEN_N_FR;
				}
			}
			ack_now = 1; /* out of order: immediate dup ACK with SACK */
		} else {
			ack_now = 1; /* duplicate */
		}
	}
	if (e->flags & GEN_TH_FIN) {
		p->rcv_fin = end;
		p->fin_pending = 1;
	}
	if (p->fin_pending && p->rcv_nxt == p->rcv_fin) {
		p->rcv_nxt++;
		p->fin_pending = 0;
		/* The active closer's final ACK also covers the data; no separate one. */
		if (ack_now && !p->fin_sent)
			gen_send_ack(g, c, r, t, note);
		on_fin(g, c, r, t);
		ack_now = 0;
	} else if (e->flags & GEN_TH_FIN) {
		ack_now = 1; /* FIN above a hole */
	}
	if (ack_now)
		gen_send_ack(g, c, r, t, note);
	else if (p->unacked)
		gen_timer_arm(g, c, GEN_TM_DELACK0 + r, t + GEN_DELACK_NS);
	if (p->expect_set && !seq_lt(p->rcv_nxt, p->rcv_expect)) {
		p->expect_set = 0;
		app_on_message(g, c, r, t);
	}
}

static void cli_established(struct gen *g, struct gen_conn *c, uint64_t t)
{
	gen_send_ack(g, c, GEN_CLI, t, 0);
	c->ep[GEN_CLI].app = GEN_APP_REQUEST;
	gen_timer_arm(g, c, GEN_TM_APP0, t + rng_range(&g->rng, 5, 50) * GEN_NS_US);
}

void gen_on_rx(struct gen *g, struct gen_conn *c, const struct gen_ev *e, uint64_t t)
{
	int r = !e->dir;
	struct gen_ep *p = &c->ep[r];

	if (e->flags & GEN_TH_RST)
		return;
	if (e->flags & GEN_TH_SYN) {
		p->rcv_nxt = e->seq + 1;
		p->ts_recent = e->tsval;
		if (r == GEN_SRV) {
			gen_pkt_new(g, c, r, gen_tx_time(c, r, t), GEN_TH_SYN | GEN_TH_ACK, p->iss,
				    0, 0);
		} else {
			p->snd_una = e->ack;
			cli_established(g, c, t);
		}
		return;
	}
	if (e->flags & GEN_TH_ACK)
		on_ack(g, c, r, e, t);
	if (e->note & GEN_N_KA) {
		gen_send_ack(g, c, r, t, GEN_N_KA_ACK);
		return;
	}
	if (e->len || (e->flags & GEN_TH_FIN))
		deliver(g, c, r, e, t);
}

/* Response sizes: mostly small, a heavy tail of large objects. */
static uint32_t pick_response(struct gen_rng *rng)
{
	uint64_t u = rng_below(rng, 100);

	if (u < 50)
		return (uint32_t)rng_range(rng, 150, 1448);
	if (u < 80)
		return (uint32_t)rng_range(rng, 1449, 15000);
	if (u < 95)
		return (uint32_t)rng_range(rng, 15001, 80000);
	return (uint32_t)rng_range(rng, 80001, 400000);
}

static uint32_t pick_request(struct gen_rng *rng)
{
	uint64_t u = rng_below(rng, 100);

	if (u < 85)
		return (uint32_t)rng_range(rng, 200, 1200);
	if (u < 97)
		return (uint32_t)rng_range(rng, 1201, 4000);
	return (uint32_t)rng_range(rng, 4001, 16000);
}

void gen_app_run(struct gen *g, struct gen_conn *c, int s, uint64_t t)
{
	struct gen_ep *p = &c->ep[s];
	uint32_t n;
	int app = p->app;

	p->app = GEN_APP_NONE;
	switch (app) {
	case GEN_APP_REQUEST:
		c->tm[GEN_TM_KA].deadline = 0;
		if (c->kind == GEN_KIND_RR)
			n = pick_request(&g->rng);
		else if (c->kind == GEN_KIND_DOWN)
			n = (uint32_t)rng_range(&g->rng, 150, 400);
		else
			n = c->bulk_bytes;
		queue_data(g, c, s, n, t);
		break;
	case GEN_APP_RESPOND:
		if (c->kind == GEN_KIND_RR)
			n = pick_response(&g->rng);
		else if (c->kind == GEN_KIND_DOWN)
			n = c->bulk_bytes;
		else
			n = (uint32_t)rng_range(&g->rng, 150, 400);
		/* Stop once this response would use up the packet budget (data + ACKs + close). */
		c->last_resp = c->kind != GEN_KIND_RR ||
			       c->emitted + (n / p->mss + 1) * 3 / 2 + 8 >= c->budget;
		if (c->last_resp && c->close == GEN_CLOSE_SRV_FIN)
			p->fin_queued = 1;
		queue_data(g, c, s, n, t);
		break;
	case GEN_APP_CLOSE:
		p->fin_queued = 1;
		gen_try_send(g, c, s, t);
		break;
	case GEN_APP_RST:
		gen_pkt_new(g, c, s, gen_tx_time(c, s, t), GEN_TH_RST | GEN_TH_ACK, p->snd_nxt, 0,
			    0);
		break;
	default:
		break;
	}
}

void gen_rto_fire(struct gen *g, struct gen_conn *c, int s, uint64_t t)
{
	struct gen_ep *p = &c->ep[s];
	uint64_t next = 0;
	int sent = 0;

	for (unsigned i = 0; i < p->n_lost; i++) {
		struct gen_lost *l = &p->lost[i];
		if (l->state == GEN_LOST_RETX)
			continue;
		if (l->drop_t + gen_rto_ns(c) <= t) {
			retransmit(g, c, s, l, t, GEN_N_RTO);
			sent = 1;
		} else if (!next || l->drop_t + gen_rto_ns(c) < next) {
			next = l->drop_t + gen_rto_ns(c);
		}
	}
	if (sent)
		p->cwnd = p->cwnd / 2 > 2 ? p->cwnd / 2 : 2;
	if (next)
		gen_timer_arm(g, c, GEN_TM_RTO0 + s, next);
}
