/* gen_wire.c - bench/gen's packets: sizes, times, headers and checksums, records. */
#include "bench/gensim/gen_int.h"

/* Client-side and server-side router MACs (locally administered). */
static const uint8_t gen_mac[GEN_SIDE_COUNT][6] = {
    {0x02, 0x00, 0x5e, 0x10, 0x00, 0x01},
    {0x02, 0x00, 0x5e, 0x10, 0x00, 0x02},
};

/* --- packets --- */

static unsigned tcp_optlen(uint8_t flags, unsigned nsack)
{
	if (flags & GEN_TH_SYN)
		return 20; /* MSS, SACK_PERM, TS, NOP, WS: Linux's order */
	return GEN_TSOPT_LEN + (nsack ? 4 + 8 * nsack : 0);
}

static unsigned wire_len(const struct gen_conn *c, uint8_t flags, unsigned nsack, unsigned len)
{
	return 14 + (c->v6 ? 40 : 20) + 20 + tcp_optlen(flags, nsack) + len;
}

/* 10 Gb/s: 0.8 ns per byte, plus preamble, FCS and inter-frame gap. */
uint64_t gen_wire_ns(unsigned len)
{
	return (uint64_t)(len + 24) * 4 / 5;
}

/* When a packet the host sends at host_t reaches the capture point, behind its earlier ones. */
uint64_t gen_tx_time(const struct gen_conn *c, int s, uint64_t host_t)
{
	uint64_t t = host_t + c->half[s];

	return t > c->ep[s].nic_free ? t : c->ep[s].nic_free;
}

static void sack_fill(const struct gen_ep *p, struct gen_ev *e)
{
	unsigned first = p->n_ooo, n = 0;

	/* RFC 2018: the first block reports the most recently received segment. */
	for (unsigned i = 0; i < p->n_ooo; i++)
		if (seq_le(p->ooo[i].start, p->sack_recent) &&
		    seq_lt(p->sack_recent, p->ooo[i].end))
			first = i;
	if (first < p->n_ooo) {
		e->sack[n][0] = p->ooo[first].start;
		e->sack[n][1] = p->ooo[first].end;
		n++;
	}
	for (unsigned i = 0; i < p->n_ooo && n < 3; i++) {
		if (i == first)
			continue;
		e->sack[n][0] = p->ooo[i].start;
		e->sack[n][1] = p->ooo[i].end;
		n++;
	}
	e->nsack = (uint8_t)n;
}

/*
 * Build a packet side s sends so that it reaches the capture point at tx (from
 * gen_tx_time()): IP ID, TSval, ACK and SACK are taken now, as the host would.
 * Returns the pool index; the caller must gen_heap_push() it.
 */
uint32_t gen_pkt_make(struct gen *g, struct gen_conn *c, int s, uint64_t tx, uint8_t flags,
		      uint32_t seq, unsigned len, uint8_t note)
{
	struct gen_ep *p = &c->ep[s];
	uint32_t idx = gen_ev_alloc(g);
	struct gen_ev *e = &g->pool[idx];

	e->conn = gen_conn_slot(g, c);
	e->gen = c->gen;
	e->kind = GEN_EV_TX;
	e->dir = (uint8_t)s;
	e->flags = flags;
	e->note = note;
	e->len = (uint16_t)len;
	e->seq = seq;
	e->ip_id = p->ip_id++;
	e->tsval = p->ts_off + (uint32_t)((tx - c->half[s]) / GEN_NS_MS);
	e->nsack = 0;
	if (flags & GEN_TH_ACK) {
		e->ack = p->rcv_nxt;
		e->tsecr = p->ts_recent;
		if (p->n_ooo && !(flags & GEN_TH_SYN))
			sack_fill(p, e);
		/* Any segment carrying the ACK replaces a pending delayed ACK. */
		p->unacked = 0;
		c->tm[GEN_TM_DELACK0 + s].deadline = 0;
	} else {
		e->ack = 0;
		e->tsecr = 0;
	}
	p->nic_free = tx + gen_wire_ns(wire_len(c, flags, e->nsack, len));
	return idx;
}

/* gen_pkt_make() and queue it for tx; the event is owned by the heap. */
void gen_pkt_new(struct gen *g, struct gen_conn *c, int s, uint64_t tx, uint8_t flags, uint32_t seq,
		 unsigned len, uint8_t note)
{
	gen_heap_push(g, tx, gen_pkt_make(g, c, s, tx, flags, seq, len, note));
}

void gen_send_ack(struct gen *g, struct gen_conn *c, int s, uint64_t t, uint8_t note)
{
	gen_pkt_new(g, c, s, gen_tx_time(c, s, t), GEN_TH_ACK, c->ep[s].snd_nxt, 0, note);
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, unsigned n)
{
	for (unsigned i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void addr4(const struct gen_conn *c, int s, uint8_t *p)
{
	if (s == GEN_CLI) {
		/* 198.18.0.0/15 is reserved for benchmarking (RFC 2544). */
		gen_put32(p, 0xc6120000u | c->host[s]);
	} else {
		gen_put32(p, 0xc6130000u | (10 + c->host[s]));
	}
}

static void addr6(const struct gen_conn *c, int s, uint8_t *p)
{
	/* 2001:db8::/32 documentation prefix: clients in :c::/48, servers in :5::/48. */
	memset(p, 0, 16);
	gen_put32(p, 0x20010db8u);
	gen_put16(p + 4, s == GEN_CLI ? 0xc : 0x5);
	gen_put32(p + 12, c->host[s] + (s == GEN_CLI ? 0 : 10));
}

/* Ethernet + IP + TCP header of e into b; returns its length and the frame length in *wire. */
static unsigned build_hdr(const struct gen_conn *c, const struct gen_ev *e, uint8_t *b,
			  unsigned *wire)
{
	int s = e->dir;
	unsigned ip = 14, tcp = ip + (c->v6 ? 40 : 20);
	unsigned th = 20 + tcp_optlen(e->flags, e->nsack);
	unsigned tcplen = th + e->len;
	uint8_t *t = b + tcp, *o = t + 20;
	uint32_t sum = 6 + tcplen; /* pseudo-header: protocol and TCP length */

	memcpy(b, gen_mac[!s], 6);
	memcpy(b + 6, gen_mac[s], 6);
	if (!c->v6) {
		uint8_t *h = b + ip;
		gen_put16(b + 12, 0x0800);
		h[0] = 0x45;
		h[1] = 0;
		gen_put16(h + 2, 20 + tcplen);
		gen_put16(h + 4, e->ip_id);
		gen_put16(h + 6, 0x4000); /* DF */
		h[8] = c->ttl[s];
		h[9] = 6;
		gen_put16(h + 10, 0);
		addr4(c, s, h + 12);
		addr4(c, !s, h + 16);
		gen_put16(h + 10, csum_fold(csum_add(0, h, 20)));
		sum = csum_add(sum, h + 12, 8);
	} else {
		uint8_t *h = b + ip;
		gen_put16(b + 12, 0x86dd);
		gen_put32(h, 0x60000000u | c->flow[s]);
		gen_put16(h + 4, tcplen);
		h[6] = 6;
		h[7] = c->ttl[s];
		addr6(c, s, h + 8);
		addr6(c, !s, h + 24);
		sum = csum_add(sum, h + 8, 32);
	}

	gen_put16(t, c->port[s]);
	gen_put16(t + 2, c->port[!s]);
	gen_put32(t + 4, e->seq);
	gen_put32(t + 8, e->ack);
	t[12] = (uint8_t)((th / 4) << 4);
	t[13] = e->flags;
	gen_put16(t + 16, 0);
	gen_put16(t + 18, 0);
	if (e->flags & GEN_TH_SYN) {
		gen_put16(t + 14, GEN_WIN_SYN);
		o[0] = 2;
		o[1] = 4;
		gen_put16(o + 2, c->v6 ? GEN_MSS_OPT6 : GEN_MSS_OPT4);
		o[4] = 4;
		o[5] = 2;
		o[6] = 8;
		o[7] = 10;
		gen_put32(o + 8, e->tsval);
		gen_put32(o + 12, e->tsecr);
		o[16] = 1;
		o[17] = 3;
		o[18] = 3;
		o[19] = s == GEN_CLI ? GEN_WS_CLI : GEN_WS_SRV;
	} else {
		gen_put16(t + 14, s == GEN_CLI ? GEN_WIN_CLI : GEN_WIN_SRV);
		o[0] = 1;
		o[1] = 1;
		o[2] = 8;
		o[3] = 10;
		gen_put32(o + 4, e->tsval);
		gen_put32(o + 8, e->tsecr);
		if (e->nsack) {
			uint8_t *k = o + 12;
			k[0] = 1;
			k[1] = 1;
			k[2] = 5;
			k[3] = (uint8_t)(2 + 8 * e->nsack);
			for (unsigned i = 0; i < e->nsack; i++) {
				gen_put32(k + 4 + 8 * i, e->sack[i][0]);
				gen_put32(k + 8 + 8 * i, e->sack[i][1]);
			}
		}
	}
	gen_put16(t + 16, csum_fold(csum_add(sum, t, th)));
	*wire = tcp + tcplen;
	return tcp + th;
}

void gen_write_record(struct gen *g, const struct gen_conn *c, const struct gen_ev *e, uint64_t ts,
		      unsigned *wire_out)
{
	uint8_t hdr[128];
	unsigned wire, hlen = build_hdr(c, e, hdr, &wire);
	unsigned incl = wire < g->o->snaplen ? wire : g->o->snaplen;
	uint8_t *p = gen_out_reserve(&g->out, 16 + (size_t)incl);
	uint64_t abs_ns = GEN_EPOCH_S * GEN_NS_S + ts;
	uint32_t rec[4];

	rec[0] = (uint32_t)(abs_ns / GEN_NS_S);
	rec[1] = (uint32_t)(g->o->nsec ? abs_ns % GEN_NS_S : abs_ns % GEN_NS_S / GEN_NS_US);
	rec[2] = incl;
	rec[3] = wire;
	memcpy(p, rec, 16);
	if (incl <= hlen) {
		memcpy(p + 16, hdr, incl);
	} else {
		memcpy(p + 16, hdr, hlen);
		memset(p + 16 + hlen, 0, incl - hlen);
	}
	g->out.len += 16 + (size_t)incl;
	*wire_out = wire;
}
