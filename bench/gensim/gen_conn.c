/* gen_conn.c - bench/gen's capture point (--truth) and its connections' lives and timers. */
#include "bench/gensim/gen_int.h"

static void conn_end(struct gen *g, struct gen_conn *c, uint64_t t);

static const uint16_t gen_srv_ports[8] = {443, 443, 443, 80, 8080, 443, 5432, 6379};

static void truth_line(struct gen *g, const char *what)
{
	if (g->truth)
		fprintf(g->truth, "%" PRIu64 " %s\n", g->st.packets, what);
}

/*
 * Count what the packet just written (frame number st.packets) shows to a
 * passive observer, in capture order.  A retransmission or a held segment
 * whose sequence is not below anything captured before it looks like new
 * data on the wire, so it is counted apart ("hidden").
 */
static void emit_truth(struct gen *g, const struct gen_ev *e, struct gen_ep *p)
{
	uint32_t end = e->seq + e->len + !!(e->flags & (GEN_TH_SYN | GEN_TH_FIN));
	int below = p->hi_nxt != p->iss && seq_lt(e->seq, p->hi_nxt);

	if (e->note & GEN_N_RETX) {
		if (!below) {
			g->st.retx_hidden++;
			truth_line(g, "retx_hidden");
		} else if (e->note & GEN_N_RTO) {
			g->st.retx_rto++;
			truth_line(g, "retx_rto");
		} else {
			g->st.retx_fast++;
			truth_line(g, "retx_fast");
		}
	}
	if (e->note & GEN_N_REORD) {
		if (below) {
			g->st.reordered++;
			truth_line(g, "reorder");
		} else {
			g->st.reorder_hidden++;
			truth_line(g, "reorder_hidden");
		}
	}
	if (e->note & GEN_N_KA) {
		g->st.keepalives++;
		truth_line(g, "keepalive");
	}
	if (e->note & GEN_N_KA_ACK)
		truth_line(g, "keepalive_ack");
	if (e->flags & GEN_TH_ACK) {
		/*
		 * RFC 5681 dup ACK as tshark applies it: pure ACK, same ack and window as
		 * our previous packet, at the next expected sequence.
		 */
		if (e->flags == GEN_TH_ACK && !e->len && !(e->note & (GEN_N_KA | GEN_N_KA_ACK)) &&
		    p->ack_sent && !p->last_syn && e->ack == p->last_ack_tx &&
		    e->seq == p->hi_nxt) {
			g->st.dupacks++;
			truth_line(g, "dupack");
		}
		p->last_ack_tx = e->ack;
		p->ack_sent = 1;
		p->last_syn = !!(e->flags & GEN_TH_SYN);
	}
	if (p->hi_nxt == p->iss || seq_gt(end, p->hi_nxt))
		p->hi_nxt = end;
}

/* Writes a packet at t (or later, when the link is busy); -1 if it ended the connection. */
static int emit(struct gen *g, struct gen_conn *c, uint32_t idx, uint64_t t)
{
	struct gen_ev *e = &g->pool[idx];
	struct gen_ep *p = &c->ep[e->dir];
	uint64_t ts = t > g->link_free ? t : g->link_free;
	unsigned wire;

	if (g->st.packets >= g->o->packets) {
		gen_ev_free(g, idx);
		return -1;
	}
	gen_write_record(g, c, e, ts, &wire);
	g->link_free = ts + gen_wire_ns(wire);
	g->st.link_wait_ns += ts - t;
	if (!g->st.packets)
		g->st.first_t = ts;
	g->st.last_t = ts;
	g->st.packets++;
	g->st.wire_bytes += wire;
	g->st.v6_packets += c->v6;
	emit_truth(g, e, p);
	if (c->emitted < c->budget)
		g->budget_left--;
	c->emitted++;
	if ((e->flags & GEN_TH_RST) || (e->note & GEN_N_LAST)) {
		if (e->flags & GEN_TH_RST)
			g->st.closed_rst++;
		else
			g->st.closed_fin++;
		gen_ev_free(g, idx);
		conn_end(g, c, ts);
		return -1;
	}
	e->kind = GEN_EV_RX;
	gen_heap_push(g, ts + c->half[!e->dir], idx);
	return 0;
}

void gen_on_tx(struct gen *g, struct gen_conn *c, uint32_t idx, uint64_t t)
{
	struct gen_ev *e = &g->pool[idx];
	int s = e->dir;
	struct gen_ep *p = &c->ep[s];
	int data = e->len > 0;

	if (data && !(e->note & GEN_N_RETX)) {
		if (p->n_lost < GEN_LOST_MAX && rng_pct(&g->rng, g->o->loss)) {
			struct gen_lost *l = &p->lost[p->n_lost++];
			l->seq = e->seq;
			l->len = e->len;
			l->segs_after = 0;
			l->state = GEN_LOST_PENDING;
			l->drop_t = t;
			g->st.dropped++;
			if (!c->tm[GEN_TM_RTO0 + s].deadline)
				gen_timer_arm(g, c, GEN_TM_RTO0 + s, t + gen_rto_ns(c));
			gen_ev_free(g, idx);
			return;
		}
	}
	emit(g, c, idx, t);
}

/* --- connections --- */

static uint32_t host_clock(uint32_t host, int s)
{
	uint64_t x = (uint64_t)host << 1 | (uint64_t)s;

	return (uint32_t)gen_splitmix(&x);
}

/* Give a free slot the next connection, starting at t. */
void gen_conn_assign(struct gen *g, uint64_t t)
{
	uint32_t slot;
	struct gen_conn *c;
	uint32_t gen;

	if (g->assigned >= g->o->connections || !g->slot_nfree)
		return;
	slot = g->slot_free[--g->slot_nfree];
	c = &g->conns[slot];
	gen = c->gen;
	memset(c, 0, sizeof(*c));
	c->gen = gen;
	c->live = 1;
	c->id = (uint32_t)g->assigned++;
	g->live++;
	if (g->live > g->st.peak_live)
		g->st.peak_live = g->live;
	gen_timer_arm(g, c, GEN_TM_START, t);
}

static void conn_end(struct gen *g, struct gen_conn *c, uint64_t t)
{
	if (c->emitted < c->budget)
		g->budget_left -= c->budget - c->emitted;
	c->live = 0;
	c->gen++; /* everything still queued for this connection is now stale */
	g->live--;
	g->slot_free[g->slot_nfree++] = gen_conn_slot(g, c);
	gen_conn_assign(g, t + rng_exp(&g->rng, (double)GEN_ARRIVAL_NS) + 1);
}

/* Budget in packets: spread what is left over the connections still to start. */
static uint32_t conn_budget(struct gen *g, int kind)
{
	uint64_t left = g->o->packets - g->st.packets;
	uint64_t todo = g->o->connections - g->st.started + 1;
	double mean, f;
	uint64_t b;

	left = left > g->budget_left ? left - g->budget_left : 0;
	/* 5% over so the capture ends with connections still open instead of short of N. */
	mean = (double)left / (double)todo * 1.05;
	if (mean < 24)
		mean = 24;
	/* Kind mix 88/9/3: bulk is given 3.9x the mean, request/response 0.6x, averaging 1x. */
	f = kind == GEN_KIND_RR ? 0.6 : 3.93;
	b = rng_exp(&g->rng, mean * f);
	if (b < 20)
		b = 20;
	if (b > mean * 40)
		b = (uint64_t)(mean * 40);
	return (uint32_t)b;
}

static void ep_init(struct gen *g, struct gen_conn *c, int s, uint32_t iss)
{
	struct gen_ep *p = &c->ep[s];

	p->iss = iss;
	p->snd_una = iss;
	p->snd_nxt = iss + 1; /* the SYN */
	p->app_end = iss + 1;
	p->cwnd = GEN_CWND_INIT;
	p->mss = (uint16_t)((c->v6 ? GEN_MSS_OPT6 : GEN_MSS_OPT4) - GEN_TSOPT_LEN);
	p->ip_id = (uint16_t)rng_next(&g->rng); /* Linux: per-socket counter from a random start */
	p->ts_off = host_clock(c->host[s], s);
	p->hi_nxt = iss; /* nothing written yet */
}

static void conn_start(struct gen *g, struct gen_conn *c, uint64_t t)
{
	struct gen_rng *rng = &g->rng;
	uint64_t u = rng_below(rng, 100), rtt;
	uint32_t iss[GEN_SIDE_COUNT];
	int bulk_side;

	g->st.started++;
	c->kind = u < 88 ? GEN_KIND_RR : u < 97 ? GEN_KIND_DOWN : GEN_KIND_UP;
	u = rng_below(rng, 100);
	c->close = u < 70   ? GEN_CLOSE_CLI_FIN
		   : u < 90 ? GEN_CLOSE_SRV_FIN
		   : u < 96 ? GEN_CLOSE_CLI_RST
			    : GEN_CLOSE_SRV_RST;
	c->v6 = (uint8_t)rng_pct(rng, g->o->ipv6);
	g->st.v6_conns += c->v6;

	/* Distinct 4-tuples: host and ephemeral port both follow the connection number. */
	c->host[GEN_CLI] = 1 + c->id % GEN_CLI_HOSTS;
	c->port[GEN_CLI] = (uint16_t)(32768 + (c->id / GEN_CLI_HOSTS) % 28232);
	c->host[GEN_SRV] = (uint32_t)rng_below(rng, GEN_SRV_HOSTS);
	c->port[GEN_SRV] = gen_srv_ports[c->host[GEN_SRV] % 8];
	c->ttl[GEN_CLI] = (uint8_t)(64 - c->host[GEN_CLI] % 12);
	c->ttl[GEN_SRV] = 64;
	c->flow[GEN_CLI] = (uint32_t)rng_below(rng, 1u << 20);
	c->flow[GEN_SRV] = (uint32_t)rng_below(rng, 1u << 20);

	rtt = (uint64_t)g->o->rtt_us * GEN_NS_US * rng_range(rng, 50, 300) / 100;
	c->half[GEN_SRV] = rtt / 8 < 10 * GEN_NS_US ? rtt / 8 : 10 * GEN_NS_US;
	c->half[GEN_CLI] = rtt / 2 - c->half[GEN_SRV];

	c->budget = conn_budget(g, c->kind);
	g->budget_left += c->budget;

	iss[GEN_CLI] = (uint32_t)rng_next(rng);
	iss[GEN_SRV] = (uint32_t)rng_next(rng);
	if (g->o->wrap && rng_below(rng, 10) == 0) {
		/* Place both ISNs so the sequence numbers cross 2^32 within the expected data. */
		uint64_t span = (uint64_t)c->budget * 1448 / 3 + 2;
		iss[GEN_CLI] =
		    (uint32_t)(0 - rng_range(rng, 1, c->kind == GEN_KIND_UP ? span : 3000));
		iss[GEN_SRV] =
		    (uint32_t)(0 - rng_range(rng, 1, c->kind == GEN_KIND_UP ? 3000 : span));
		g->st.wrapped++;
	}
	for (int s = 0; s < GEN_SIDE_COUNT; s++)
		ep_init(g, c, s, iss[s]);

	bulk_side = c->kind == GEN_KIND_DOWN ? GEN_SRV : c->kind == GEN_KIND_UP ? GEN_CLI : -1;
	if (bulk_side >= 0) {
		uint32_t data_pkts = c->budget * 2 / 3 > 10 ? c->budget * 2 / 3 - 8 : 2;
		uint64_t mbps = rng_range(rng, GEN_BULK_MBPS_LO, GEN_BULK_MBPS_HI);
		c->bulk_bytes = data_pkts * c->ep[bulk_side].mss;
		c->ep[bulk_side].pace_ns = (uint32_t)(1514ull * 8 * 1000 / mbps);
	}
	gen_pkt_new(g, c, GEN_CLI, gen_tx_time(c, GEN_CLI, t), GEN_TH_SYN, iss[GEN_CLI], 0, 0);
}

void gen_on_timer(struct gen *g, struct gen_conn *c, int tm, uint64_t t)
{
	if (!gen_timer_expired(g, c, tm, t))
		return;
	switch (tm) {
	case GEN_TM_START:
		conn_start(g, c, t);
		break;
	case GEN_TM_KA:
		/* Linux probes with seq = snd_nxt - 1 and no data (tcp_xmit_probe_skb). */
		if (t + GEN_NS_MS < c->idle_until) {
			struct gen_ep *p = &c->ep[GEN_CLI];
			gen_pkt_new(g, c, GEN_CLI, gen_tx_time(c, GEN_CLI, t), GEN_TH_ACK,
				    p->snd_nxt - 1, 0, GEN_N_KA);
			if (t + GEN_KEEPIDLE_NS < c->idle_until)
				gen_timer_arm(g, c, GEN_TM_KA, t + GEN_KEEPIDLE_NS);
		}
		break;
	case GEN_TM_APP0:
	case GEN_TM_APP1:
		gen_app_run(g, c, tm - GEN_TM_APP0, t);
		break;
	case GEN_TM_DELACK0:
	case GEN_TM_DELACK1:
		if (c->ep[tm - GEN_TM_DELACK0].unacked)
			gen_send_ack(g, c, tm - GEN_TM_DELACK0, t, 0);
		break;
	case GEN_TM_RTO0:
	case GEN_TM_RTO1:
		gen_rto_fire(g, c, tm - GEN_TM_RTO0, t);
		break;
	case GEN_TM_PACE0:
	case GEN_TM_PACE1:
		gen_try_send(g, c, tm - GEN_TM_PACE0, t);
		break;
	default:
		break;
	}
}
