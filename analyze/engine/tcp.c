/* tcp.c - per-direction TCP reconstruction: the rules, connection setup, the per-segment entry. */
#include "analyze/engine/tcp.h"

#include <string.h>

#include "analyze/engine/tcp_int.h"

/*
 * Rules (also in tcpsift-analyze(1), PER-DIRECTION STATISTICS). For a segment from
 * side S (half h) to R (half r):
 *
 *  - keep-alive: 0 or 1 byte at snd_nxt - 1, no SYN/FIN/RST (RFC 9293
 *    3.8.4; Wireshark's definition) -- not data, not a retransmission.
 *  - new data: seq >= snd_nxt. seq > snd_nxt opens a hole: bytes the capture
 *    has not seen ("previous segment not captured").
 *  - below snd_nxt and none of it in a hole: the bytes were seen before,
 *    so this is a retransmission (Wireshark and tcptrace agree).
 *  - below snd_nxt and filling a hole: an original that arrived late (out of
 *    order) or a retransmission of bytes lost before the capture point
 *    (DESIGN.md "Reordering"; decide_fill() in tcp_fill.c). TCP sends
 *    originals in sequence order, so the original of a gap's bytes left the sender just
 *    before the segment that opened the gap (its opener): the sender's own
 *    clocks on the two decide first -- TSval, the TSecr it echoes, the IPv4
 *    IP ID once learned to be a per-connection counter, its cumulative ACK:
 *    sent before the opener -> the late original; after it -> a
 *    retransmission. When they tie (ms TSvals at line rate, IPv6),
 *    causality: a retransmission needs a loss signal, so it cannot reach
 *    the capture point sooner than R's first duplicate ACK / SACK for the
 *    gap (seen here) plus the time to the sender and back from here, nor
 *    sooner than the shortest loss-probe timer; a fill sooner than that is
 *    the late original. Later than that nothing on the wire tells: the fill
 *    waits (struct tcp_pending) for a second copy of its bytes, whose clocks
 *    may put the two in order, else it stays undecided and is counted as
 *    such. A capture without R's ACKs falls back to --reorder-window.
 *  - a retransmission is spurious when all its bytes were already
 *    cumulatively ACKed, or when a later D-SACK reports them received
 *    twice (RFC 2883 sec. 4, RFC 3708). RTO-like when S was silent for
 *    >= max(SRTT + 4 RTTVAR, --rto-min) (RFC 6298; Linux TCP_RTO_MIN
 *    200 ms); a tail-loss probe (RFC 8985 sec. 7) when it re-sends S's
 *    highest segment for the first time after >= SRTT + 2 ms of silence
 *    with no loss signal from R (even at the RTO: Linux caps the probe
 *    timer there);
 *    else fast when R had sent >= 3 duplicate ACKs (RFC 5681 3.2) or is
 *    SACKing (RFC 6675 loss recovery).
 *  - duplicate ACK (Wireshark's rule, so counts cross-check with tshark):
 *    no payload, no SYN/FIN/RST, same ACK and same non-zero window as this
 *    side's previous ACK, and seq == snd_nxt.
 *  - ACKed unseen: R ACKs beyond S's snd_nxt. Holes below R's cumulative
 *    ACK were received by R but never captured: capture loss.
 *  - RTT: data segment -> first ACK covering it, skipping retransmitted
 *    segments (Karn's rule, RFC 6298 sec. 3); and TSval -> first TSecr
 *    echoing it (RFC 7323 sec. 4). Both measured at the capture point, so
 *    they are the RTT from the capture point to R and back.
 */

/* ---- connection setup ---- */

static bool ports_look_like_server(uint16_t port, uint16_t other)
{
	/* Well-known side wins; between two ephemeral ports the lower one. */
	if (port < 1024 && other >= 1024)
		return true;
	if (other < 1024 && port >= 1024)
		return false;
	return port < other;
}

/* roles: 1 the source is the client, 0 the server, -1 decide from d. */
static void conn_init(struct tcp_conn *c, uint64_t id, const struct dec_packet *d,
		      const struct pkt *p, int roles)
{
	memset(c, 0, sizeof(*c));
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		c->half[k].sent_cap = TCP_RING_MIN;
		c->half[k].tsring_cap = TCP_TS_MIN;
	}
	struct sum_conn_ident *i = &c->info;
	const struct dec_tcp *t = &d->tcp;
	bool src_is_client;

	i->id = id;
	if (roles >= 0) {
		src_is_client = roles;
	} else if ((t->flags & (DEC_TH_SYN | DEC_TH_ACK)) == DEC_TH_SYN) {
		src_is_client = true;
		i->roles_from_syn = true;
	} else if ((t->flags & (DEC_TH_SYN | DEC_TH_ACK)) == (DEC_TH_SYN | DEC_TH_ACK)) {
		src_is_client = false;
		i->roles_from_syn = true;
	} else {
		src_is_client = !ports_look_like_server(t->sport, t->dport);
	}
	if (src_is_client) {
		i->client = d->src;
		i->server = d->dst;
		i->client_port = t->sport;
		i->server_port = t->dport;
	} else {
		i->client = d->dst;
		i->server = d->src;
		i->client_port = t->dport;
		i->server_port = t->sport;
	}
	i->first_ts = i->last_ts = p->ts_ns;
	i->first_input = i->last_input = p->input;
	i->vantage = p->vantage;
	i->first_frame = i->last_frame = p->frame;
	i->handshake_rtt_ns = -1;
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		c->half[k].st.wscale = -1;
		c->hs_loop_ns[k] = -1;
	}
}

void tcp_conn_init(struct tcp_conn *c, uint64_t id, const struct dec_packet *d, const struct pkt *p)
{
	conn_init(c, id, d, p, -1);
}

void tcp_conn_resume(struct tcp_conn *c, uint64_t id, const struct dec_packet *d,
		     const struct pkt *p, bool src_is_client)
{
	conn_init(c, id, d, p, src_is_client);
	c->info.evicted_and_resumed = true;
}

enum sum_dir_id tcp_conn_dir(const struct tcp_conn *c, const struct dec_packet *d)
{
	const struct sum_conn_ident *i = &c->info;

	if (d->tcp.sport == i->client_port && dec_addr_eq(d->src.a, i->client.a) &&
	    (d->tcp.dport != i->server_port || dec_addr_eq(d->dst.a, i->server.a)))
		return SUM_C2S;
	return SUM_S2C;
}

bool tcp_is_new_instance(const struct tcp_conn *c, const struct dec_packet *d)
{
	const struct dec_tcp *t = &d->tcp;

	if ((t->flags & (DEC_TH_SYN | DEC_TH_ACK)) != DEC_TH_SYN)
		return false;
	const struct tcp_half *h = &c->half[tcp_conn_dir(c, d)];
	/* A retransmitted SYN carries the same ISN. */
	if (h->syn_seen && h->st.isn_known && t->seq == h->base && !TCP_COUNT(h, data_packets))
		return false;
	return true;
}

/* ---- per-segment helpers (inlined into tcp_segment()) ---- */

/* The receive window this side advertises, scaled when the scale is known. */
static uint64_t scaled_window(const struct tcp_conn *c, const struct tcp_half *h, uint16_t raw,
			      bool syn)
{
	/* RFC 7323 2.2: the window in a SYN segment is never scaled. */
	return syn ? raw : tcp_window_bytes(c, h, raw);
}

/* Move snd_nxt forward, counting the sequence space as unique bytes. */
static void advance_nxt(struct tcp_half *h, uint32_t end)
{
	h->st.unique_bytes += (uint32_t)(end - h->snd_nxt);
	h->snd_nxt = end;
}

/* The sender's clocks of a segment (DESIGN.md "Reordering"; compared in tcp_fill.c). */
static void clock_of(struct tcp_clock *k, const struct dec_packet *d)
{
	const struct dec_tcp *t = &d->tcp;

	memset(k, 0, sizeof(*k));
	if (t->opt.has_ts) {
		k->tsval = t->opt.tsval;
		k->have |= TCP_CLK_TSVAL;
		/* 0 is what a sender echoes when it has nothing to echo. */
		if (t->opt.tsecr) {
			k->tsecr = t->opt.tsecr;
			k->have |= TCP_CLK_TSECR;
		}
	}
	if (d->src.family == 4) {
		k->ipid = d->ip_id;
		k->have |= TCP_CLK_IPID;
	}
	if (t->flags & DEC_TH_ACK) {
		k->ack = t->ack;
		k->have |= TCP_CLK_ACK;
	}
}

/* Count the step of this side's IP ID (after the segment was judged). Not
 * a SYN's: Linux sends a SYN/ACK with ID 0 (DF set), outside the counter
 * its data then takes, and that one far step kept a sender's first ten
 * segments untrusted (an early hole undecided: make check's sack-loss). */
static void learn_ipid(struct tcp_half *h, const struct dec_packet *d)
{
	if (d->src.family != 4 || (d->tcp.flags & DEC_TH_SYN))
		return;
	if (h->have_ipid) {
		int d16 = ipid_diff(d->ip_id, h->last_ipid);
		if (d16 != 0 && d16 >= -TCP_IPID_NEAR && d16 <= TCP_IPID_NEAR)
			h->ipid_near++;
		else
			h->ipid_far++;
		h->ipid_one += d16 == 1;
	}
	h->last_ipid = d->ip_id;
	h->have_ipid = true;
}

/*
 * R sent one packet since S's last, and S's segment t was sent before S
 * could have heard of it: a probe timer and R's late ACK firing together,
 * crossing on the path (make check's curl receiver saw four, 14-24 us
 * after the ACK). S's TSecr decides: it still echoes a TSval older than the
 * one R's packet carried (RFC 7323 4.3: TS.Recent moves on each segment
 * received). Without timestamps, the loop from the capture point to S and
 * back decides: R's packet came less than that before S's.
 */
static bool reply_unheard(const struct tcp_conn *c, enum sum_dir_id dir, const struct dec_tcp *t,
			  int64_t now)
{
	const struct tcp_half *r = &c->half[!dir];

	if ((c->run & 0x7f) != 1 || (c->run >> 7) != (unsigned)!dir)
		return false;
	if (t->opt.has_ts && r->tsring) {
		unsigned last = tsring_newest(r);
		return r->tsring[last].ts == r->st.last_ts &&
		       (int32_t)(r->tsring[last].tsval - t->opt.tsecr) > 0;
	}
	int64_t loop = tcp_loop_rtt(c, dir);
	return loop > 0 && now - r->st.last_ts < loop;
}

/*
 * R's packet passed here before S's last segment, yet S heard it only
 * after sending that one: away from S, new data a loop after R's packet
 * that echoes its TSval was sent when it arrived (an ACK opening the
 * congestion window: seen at a receiver-side capture of an initial window
 * on a 5/35 ms path, 40.2 ms after R's ACK, its loop 40 ms). A probe fires
 * two SRTT after S's last transmission, later than that.
 */
static bool answers_reply(const struct tcp_conn *c, enum sum_dir_id dir, const struct dec_tcp *t,
			  int64_t now)
{
	const struct tcp_half *r = &c->half[!dir];
	int64_t loop = tcp_loop_rtt(c, dir);

	if (loop <= 0 || !t->opt.has_ts || !r->tsring)
		return false;
	unsigned last = tsring_newest(r);
	/* (The ring keeps a TSval's first packet: R's last may repeat it.) */
	return r->tsring[last].tsval == t->opt.tsecr &&
	       now - r->st.last_ts <= clock_sat_add(loop + loop / 4, TCP_TLP_MIN_NS);
}

/*
 * New data after gap ns of silence with two or more full segments in
 * flight (as S knew it) and nothing from R since S's last packet that S
 * could have heard (reply_unheard()), no sooner than a probe
 * timeout could fire (Linux: 2 SRTT + 2 jiffies; here SRTT + 2 ms, our
 * SRTT being measured at the capture point, not at S): RFC 8985 sec. 7.3
 * sends a loss probe as
 * new data when it has some and the window allows (Linux counts both kinds
 * in TcpExtTCPLossProbes). An application writing again would not have
 * had two full segments left unacknowledged that long: R ACKs every second
 * one (RFC 1122 4.2.3.2) - unless R's ACK is late, as on a loaded host,
 * where a millisecond path's probe timer is within a pause of either end.
 * So also: a probe goes out because the congestion window held the new
 * data back (Linux's probe ignores it), and a sender whose flight is below
 * half its largest since the last recovery ended was not held by it
 * (CUBIC keeps 0.7 of the window, Reno 0.5; after several recoveries the
 * window is far below the connection's largest flight, and Linux's
 * probes then are most of a lossy transfer's): its new data is a write
 * (make check: a veth sender wrote again after 4.4 ms with two segments
 * out of 10 at most, and Linux counted no probe; an initial window of ten
 * unanswered then an 11th segment is a probe).
 */
static bool probe_with_new_data(const struct tcp_conn *c, enum sum_dir_id dir, int64_t gap,
				const struct dec_tcp *t, int64_t now)
{
	const struct tcp_half *h = &c->half[dir], *r = &c->half[!dir];
	uint32_t seg = h->st.max_payload ? h->st.max_payload : r->st.mss;
	uint64_t flight;

	if (gap < clock_sat_add(h->srtt_ns, TCP_TLP_MIN_NS) || !seg || r->dupack_run || r->sacking)
		return false;
	if (r->st.last_ts < h->st.last_ts) {
		if (answers_reply(c, dir, t, now))
			return false;
		flight = tcp_in_flight(c, dir);
	} else if (reply_unheard(c, dir, t, now) && h->have_una && seq_ge(h->snd_nxt, c->run_una))
		flight = h->snd_nxt - c->run_una;
	else
		return false;
	return flight >= 2 * seg && 2 * flight >= h->flight_peak;
}

/* ---- the per-segment entry ---- */

/* The ACK side of a segment: what it tells about the other direction.
 * Inlined into tcp_segment(), as process_data(): every packet runs both,
 * and out of line their calls and register saves cost some 60
 * instructions a packet (callgrind, 1 M packets); their rare paths are out
 * of line instead. */
static inline __attribute__((always_inline)) void
process_ack(struct tcp_conn *c, enum sum_dir_id dir, struct tcp_pools *tp,
	    const struct dec_packet *d, const struct pkt *p, const struct sum_sink *sink)
{
	const struct dec_tcp *t = &d->tcp;
	struct tcp_half *h = &c->half[dir]; /* the ACK sender */
	enum sum_dir_id odir = (enum sum_dir_id) !dir;
	struct tcp_half *o = &c->half[odir]; /* whose data is ACKed */
	uint32_t ack = t->ack;
	bool syn_fin_rst = t->flags & (DEC_TH_SYN | DEC_TH_FIN | DEC_TH_RST);

	if (o->have_nxt && seq_gt(ack, o->snd_nxt)) {
		/* R acknowledges bytes beyond any S was seen sending: a gap too. */
		tcp_hole_open(o, tp, o->snd_nxt, ack, p, TCP_COUNT(o, data_packets), NULL);
		advance_nxt(o, ack);
	}
	/* An ACK covering bytes the capture never saw (beyond snd_nxt or in a
	 * gap): R got them, so the capture lost them (Wireshark: "ACKed
	 * segment that wasn't captured"). */
	if (tcp_nholes(o) && tcp_holes_acked(c, odir, ack, p, sink)) {
		tcp_cold(c, o)->acked_unseen++;
		c->tp->seg.kind |= TCP_SEG_ACKED_UNSEEN;
	}

	if (!o->have_una || seq_gt(ack, o->snd_una)) {
		if (o->have_una) {
			h->st.new_acks++;
			c->tp->seg.kind |= TCP_SEG_ACK_ADVANCED;
			c->tp->seg.acked = ack - o->snd_una;
		}
		o->snd_una = ack;
		o->have_una = true;
		int64_t rtt = sent_acked(o, tp, ack, p->ts_ns);
		if (rtt >= 0) {
			c->tp->seg.kind |= TCP_SEG_RTT;
			c->tp->seg.rtt_ns = rtt;
		}
		h->dupack_run = 0;
		/* (After the sample: the pending fills' wait takes it in.) */
		struct tcp_cold *oc = o->cold;
		if (oc) {
			if (oc->recov_kind && seq_ge(ack, oc->recov_high)) {
				oc->recov_kind = 0; /* the recovery episode is over */
				o->flight_peak = 0;
			}
			if (oc->have_hull && seq_ge(ack, oc->hull_hi))
				oc->have_hull = false;
			if (oc->npending)
				tcp_pending_acked(c, odir, ack, p->ts_ns);
		}
	} else if (seq_lt(ack, o->snd_una)) {
		tcp_cold(c, h)->ack_reordering++;
		c->tp->seg.kind |= TCP_SEG_ACK_REORDERED;
	}

	/* The ACK answering a keep-alive repeats the last one by design. */
	bool keepalive_ack = o->keepalive_pending;
	o->keepalive_pending = false;
	if (h->have_last_ack && t->payload_len == 0 && !syn_fin_rst && ack == h->last_ack &&
	    t->window != 0 && t->window == h->last_win_raw && h->have_nxt && t->seq == h->snd_nxt &&
	    !keepalive_ack) {
		h->st.dup_acks++;
		h->dupack_run++;
		c->tp->seg.kind |= TCP_SEG_DUP_ACK;
		if (sink && sink->frame) {
			struct sum_event e;
			/* About the other direction's data, like the D-SACK. */
			event_init(&e, SUM_EV_DUP_ACK, c, odir, p);
			e.rel_seq = ack - o->base;
			e.u.frame.dup_count = h->dupack_run;
			sum_emit(sink, &e);
		}
	}

	h->sacking = false;
	if (t->opt.has_sack && t->opt.nsack) {
		const struct dec_sack_block *b = t->opt.sack;
		h->st.sack_acks++;
		c->tp->seg.kind |= TCP_SEG_SACK;
		/* RFC 2883 sec. 4: the first block reports a duplicate when it lies
		 * below the cumulative ACK or inside the second block. */
		bool dsack =
		    seq_le(b[0].right, ack) || (t->opt.nsack > 1 && seq_ge(b[0].left, b[1].left) &&
						seq_le(b[0].right, b[1].right));
		if (dsack) {
			struct sum_event e;
			tcp_cold(c, h)->dsack_blocks++;
			c->tp->seg.kind |= TCP_SEG_DSACK;
			event_init(&e, SUM_EV_DSACK, c, odir, p);
			e.bytes = b[0].right - b[0].left;
			e.rel_seq = b[0].left - o->base;
			sum_emit(sink, &e);
			if (o->cold && o->cold->rtx_len)
				tcp_rtx_dsack(c, odir, b[0].left, b[0].right);
		}
		for (unsigned k = dsack ? 1 : 0; k < t->opt.nsack; k++)
			if (seq_gt(b[k].left, ack))
				h->sacking = true;
	}
	/* The first duplicate ACK or SACK about a gap the capture saw in S's
	 * data: S may retransmit once it gets there (decide_fill(), tcp_fill.c). */
	if (tcp_nholes(o) && ((c->tp->seg.kind & TCP_SEG_DUP_ACK) || h->sacking))
		tcp_holes_asked(o, ack, p->ts_ns);
	h->last_ack = ack;
	h->last_win_raw = t->window;
	h->have_last_ack = true;

	if (o->st.isn_known && !c->handshake_done && dir == SUM_C2S && !(t->flags & DEC_TH_SYN) &&
	    c->half[SUM_S2C].syn_seen && ack == c->half[SUM_S2C].base + 1) {
		c->handshake_done = true;
		if (c->syn_ts_valid)
			c->info.handshake_rtt_ns = p->ts_ns - c->syn_ts;
		if (c->synack_ts_valid && p->ts_ns >= c->synack_ts)
			c->hs_loop_ns[SUM_C2S] = p->ts_ns - c->synack_ts;
	}
}

static void process_window(struct tcp_conn *c, enum sum_dir_id dir, const struct dec_packet *d,
			   const struct pkt *p, const struct sum_sink *sink)
{
	const struct dec_tcp *t = &d->tcp;
	struct tcp_half *h = &c->half[dir];
	bool syn_fin_rst = t->flags & (DEC_TH_SYN | DEC_TH_FIN | DEC_TH_RST);
	uint64_t win = scaled_window(c, h, t->window, t->flags & DEC_TH_SYN);

	/* (Windows fit 32 bits: struct tcp_stats.) The first packet: a count
	 * of 1 with nothing folded. */
	if ((h->st.packets == 1 && TCP_COUNT(h, packets) == 1) || win < h->st.min_window)
		h->st.min_window = (uint32_t)win;
	if (win > h->st.max_window)
		h->st.max_window = (uint32_t)win;
	c->tp->seg.window = win;
	/* The other side's flight can be no larger than this window: a window
	 * that shrank below its peak (a receiver that stopped reading, a zero
	 * window) held the flight down, not the sender, whose congestion
	 * window and loss-probe timer carry on (probe_with_new_data()). */
	struct tcp_half *o = &c->half[!dir];
	if (win < o->flight_peak && c->info.wscale_known && !syn_fin_rst)
		o->flight_peak = (uint32_t)win;

	if (t->window == 0 && !syn_fin_rst) {
		tcp_cold(c, h)->zero_windows++;
		c->tp->seg.kind |= TCP_SEG_ZERO_WINDOW;
		struct tcp_cold *hc = h->cold; /* NULL: no memory, no episode */
		if (hc && !hc->in_zero_window) {
			hc->in_zero_window = true;
			hc->zw_start = p->ts_ns;
			hc->zw_frame = p->frame;
			hc->zw_input = p->input;
		}
	} else if (t->window != 0 && h->cold && h->cold->in_zero_window) {
		tcp_zw_close(c, dir, p, sink);
		c->tp->seg.kind |= TCP_SEG_WINDOW_OPENED;
	}
}

static void process_syn(struct tcp_conn *c, enum sum_dir_id dir, const struct dec_packet *d)
{
	const struct dec_tcp *t = &d->tcp;
	struct tcp_half *h = &c->half[dir];

	h->syn_seen = true;
	h->st.isn_known = true;
	h->base = t->seq; /* the ISN from now on: struct tcp_stats */
	if (t->opt.has_mss)
		h->st.mss = t->opt.mss;
	h->ws_opt = t->opt.has_wscale;
	/* RFC 7323 2.3: shifts above 14 are treated as 14. */
	h->st.wscale = t->opt.has_wscale ? (int8_t)(t->opt.wscale > 14 ? 14 : t->opt.wscale) : -1;
	h->sack_opt = t->opt.sack_permitted;
	h->ts_opt = t->opt.has_ts;

	const struct tcp_half *cl = &c->half[SUM_C2S], *sv = &c->half[SUM_S2C];
	if (cl->syn_seen && sv->syn_seen) {
		/* RFC 7323 2.2: scaling is on only when both SYNs carry it. */
		c->info.wscale_known = true;
		if (!(cl->ws_opt && sv->ws_opt)) {
			c->half[SUM_C2S].st.wscale = 0;
			c->half[SUM_S2C].st.wscale = 0;
		}
		c->info.sack_permitted = cl->sack_opt && sv->sack_opt;
		c->info.timestamps = cl->ts_opt && sv->ts_opt;
	}
}

static inline __attribute__((always_inline)) void
process_data(struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_params *prm,
	     struct tcp_pools *tp, const struct dec_packet *d, const struct pkt *p,
	     const struct sum_sink *sink)
{
	const struct dec_tcp *t = &d->tcp;
	struct tcp_half *h = &c->half[dir];
	struct tcp_half *r = &c->half[!dir];
	bool syn = t->flags & DEC_TH_SYN, fin = t->flags & DEC_TH_FIN;
	uint32_t len = t->payload_len;
	uint32_t seq = t->seq;
	uint32_t end = seq + len + syn + fin;
	int64_t gap = h->st.last_ts ? p->ts_ns - h->st.last_ts : 0;

	/* A pure ACK places snd_nxt too: in a capture that starts after the
	 * handshake, the receiver of a download may never send a byte, and the
	 * duplicate-ACK rule needs its snd_nxt. */
	if (!h->have_nxt) {
		if (!syn)
			h->base = seq;
		h->snd_nxt = seq;
		h->have_nxt = true;
	}

	/* Before the pure-ACK return: the usual keep-alive (and Linux's
	 * zero-window probe, the same packet) carries no byte at all. */
	if (len <= 1 && !(t->flags & (DEC_TH_SYN | DEC_TH_FIN | DEC_TH_RST)) &&
	    seq == h->snd_nxt - 1) {
		tcp_cold(c, h)->keepalives++;
		h->keepalive_pending = true;
		c->tp->seg.kind |= TCP_SEG_KEEPALIVE;
		return;
	}

	if (end == seq)
		return; /* pure ACK / RST: no sequence space */

	if (len) {
		h->st.data_packets++;
		h->st.payload_bytes += len;
		if ((h->st.data_packets == 1 && TCP_COUNT(h, data_packets) == 1) ||
		    len < h->st.min_payload)
			h->st.min_payload = len;
		if (len > h->st.max_payload)
			h->st.max_payload = len;
		if (!h->st.first_data_ts)
			h->st.first_data_ts = p->ts_ns;
		h->st.last_data_ts = p->ts_ns;
		if (r->st.mss && len > r->st.mss) {
			h->st.oversize++;
			if (!h->oversize_reported) {
				struct sum_event e;
				h->oversize_reported = true;
				event_init(&e, SUM_EV_OVERSIZE, c, dir, p);
				e.bytes = len;
				e.rel_seq = seq - h->base;
				sum_emit(sink, &e);
			}
		}
	}

	struct tcp_clock clk;
	if (seq_ge(seq, h->snd_nxt)) {
		c->tp->seg.kind |= TCP_SEG_NEW_DATA;
		if (seq_gt(seq, h->snd_nxt)) {
			c->tp->seg.kind |= TCP_SEG_OPENED_GAP;
			tcp_cold(c, h)->lost_segments++;
			if (sink && sink->frame) {
				struct sum_event e;
				event_init(&e, SUM_EV_CAPTURE_GAP, c, dir, p);
				e.bytes = seq - h->snd_nxt;
				e.rel_seq = h->snd_nxt - h->base;
				sum_emit(sink, &e);
			}
			clock_of(&clk, d);
			tcp_hole_open(h, tp, h->snd_nxt, seq, p,
				      TCP_COUNT(h, data_packets) - (len ? 1 : 0), &clk);
		}
		if (len && probe_with_new_data(c, dir, gap, t, p->ts_ns)) {
			tcp_cold(c, h)->tlp_new_data++;
			c->tp->seg.kind |= TCP_SEG_TLP;
			if (sink && sink->frame) {
				struct sum_event e;
				event_init(&e, SUM_EV_TLP_NEW_DATA, c, dir, p);
				e.bytes = len;
				e.rel_seq = seq - h->base;
				sum_emit(sink, &e);
			}
		}
		advance_nxt(h, end);
		sent_push(h, tp, end, p->ts_ns);
	} else if (syn && h->st.isn_known && seq == h->base) {
		/* The SYN again. */
		tcp_note_retrans(c, dir, p, seq, end, len,
				 tcp_retrans_why(c, dir, prm, seq, end, gap, false), NULL, sink);
	} else {
		struct tcp_hole hole = {0};
		uint32_t span = seq_lt(h->snd_nxt, end) ? h->snd_nxt - seq : end - seq;
		uint32_t unseen = tcp_nholes(h) ? tcp_holes_fill(h, tp, seq, seq + span, &hole) : 0;
		/* Judged before snd_nxt moves: a probe re-sends the highest. */
		uint32_t why =
		    tcp_retrans_why(c, dir, prm, seq, end, gap, tcp_ipid_skipped(c, h, d));

		clock_of(&clk, d);
		if (seq_gt(end, h->snd_nxt)) {
			advance_nxt(h, end); /* a retransmission that also carries new data */
			sent_push(h, tp, end, p->ts_ns);
		}
		if (unseen == span)
			tcp_fill_gap(c, dir, prm, p, &clk, &hole, seq, end, span, len, why, sink);
		else if (h->cold && h->cold->have_hull && seq_lt(seq, h->cold->hull_hi) &&
			 seq_gt(seq + span, h->cold->hull_lo))
			tcp_hull_fill(c, dir, p, seq, len, sink);
		else if (!(h->cold && h->cold->npending &&
			   tcp_pending_second_copy(c, dir, p, seq, end, &clk, sink)) &&
			 !(h->cold && h->cold->rtx_len &&
			   tcp_late_after_retrans(c, dir, p, seq, end, &clk, sink)))
			tcp_note_retrans(c, dir, p, seq, end, len, why, NULL, sink);
	}

	/* Window full (Wireshark's rule): the segment, new data or not (a tail
	 * loss probe re-sends the last one), reaches the right edge of the
	 * window R last advertised. Needs a known scale. */
	if (len && r->have_last_ack && c->info.wscale_known &&
	    (uint64_t)(uint32_t)(seq + len - r->last_ack) ==
		scaled_window(c, r, r->last_win_raw, false))
		tcp_cold(c, h)->window_full++;

	if (h->have_una) {
		uint64_t inflight = (uint32_t)(h->snd_nxt - h->snd_una);
		if (seq_ge(h->snd_nxt, h->snd_una) && inflight > h->flight_peak) {
			h->flight_peak = (uint32_t)inflight;
			if (inflight > h->st.max_in_flight)
				h->st.max_in_flight = (uint32_t)inflight;
		}
	}
}

void tcp_segment(struct tcp_conn *c, const struct tcp_params *prm, struct tcp_pools *tp,
		 const struct dec_packet *d, const struct pkt *p, const struct sum_sink *sink)
{
	const struct dec_tcp *t = &d->tcp;
	enum sum_dir_id dir = tcp_conn_dir(c, d);
	struct tcp_half *h = &c->half[dir];
	struct sum_conn_ident *i = &c->info;

	c->tp = tp;
	/* Verdicts that waited for later packets (undecided fills, D-SACKs). */
	if (tcp_settle_due(c, p->ts_ns))
		tcp_settle(c, p->ts_ns, sink);

	struct tcp_seg *sg = &tp->seg;
	memset(sg, 0, sizeof(*sg));
	sg->dir = dir;
	sg->len = t->payload_len;
	sg->seq = t->seq;
	sg->ack = t->ack;
	sg->ts = p->ts_ns;
	sg->frame = p->frame;
	sg->input = p->input;
	sg->queue = (p->have & PKT_HAVE_QUEUE) ? (int32_t)p->queue : -1;
	sg->d = d;
	sg->kind = (t->payload_len ? TCP_SEG_DATA : 0) | (t->flags & DEC_TH_SYN ? TCP_SEG_SYN : 0) |
		   (t->flags & DEC_TH_FIN ? TCP_SEG_FIN : 0) |
		   (t->flags & DEC_TH_RST ? TCP_SEG_RST : 0) |
		   (t->flags & DEC_TH_PSH ? TCP_SEG_PUSH : 0);

	/* Every narrow counter grows by one at most here: struct tcp_stats. */
	if (__builtin_expect(++h->st.packets == TCP_FOLD_AT, 0))
		tcp_fold(c, h);
	h->st.ip_bytes += d->l3_len;
	if (!h->st.first_ts)
		h->st.first_ts = p->ts_ns;
	if (p->ts_ns > i->last_ts)
		i->last_ts = p->ts_ns;
	if (p->ts_ns < i->first_ts)
		i->first_ts = p->ts_ns;
	i->last_frame = p->frame;
	i->last_input = p->input;
	if (p->have & PKT_HAVE_QUEUE) {
		i->queues_known = true;
		if (p->queue < 64)
			i->queue_mask |= 1ull << p->queue;
		else
			i->queues_overflow = true;
	}

	if (t->flags & DEC_TH_SYN) {
		h->st.syn++;
		if (!h->syn_seen)
			process_syn(c, dir, d);
		if (dir == SUM_C2S && !(t->flags & DEC_TH_ACK)) {
			/* The last SYN: a retransmitted one restarts the clock (Karn). */
			c->syn_ts = p->ts_ns;
			c->syn_ts_valid = true;
		} else if (dir == SUM_S2C && (t->flags & DEC_TH_ACK)) {
			c->synack_ts = p->ts_ns;
			c->synack_ts_valid = true;
			if (c->syn_ts_valid && p->ts_ns >= c->syn_ts)
				c->hs_loop_ns[SUM_S2C] = p->ts_ns - c->syn_ts;
		}
	}
	if (t->flags & DEC_TH_FIN) {
		h->st.fin++;
		h->fin_seen = true;
	}
	if (t->flags & DEC_TH_RST) {
		h->st.rst++;
		h->rst_seen = true;
	}
	if (t->payload_len == 0 && !(t->flags & (DEC_TH_SYN | DEC_TH_FIN | DEC_TH_RST))) {
		h->st.pure_acks++;
		sg->kind |= TCP_SEG_PURE_ACK;
	}

	/* Data before ACK: a segment's own sequence is judged against what the
	 * peer had ACKed before it, not by the ACK it carries. */
	process_data(c, dir, prm, tp, d, p, sink);
	if (t->flags & DEC_TH_ACK) {
		process_ack(c, dir, tp, d, p, sink);
		if (t->opt.has_ts && tsring_echo(&c->half[!dir], t->opt.tsecr, p->ts_ns))
			sg->kind |= TCP_SEG_TS_RTT;
	}
	process_window(c, dir, d, p, sink);
	/* Learned after the segment was judged, so a reordered ID does not
	 * vote against the rule that detects it. */
	learn_ipid(h, d);
	if (t->opt.has_ts)
		tsring_add(h, tp, t->opt.tsval, p->ts_ns);
	/* Last: until here it is this side's previous segment (gaps, probes). */
	h->st.last_ts = p->ts_ns;
	sg->rel_seq = t->seq - h->base;
	if (!c->run || (c->run >> 7) != (unsigned)dir) {
		uint32_t acked = (sg->kind & TCP_SEG_ACK_ADVANCED) ? sg->acked : 0;
		c->run = (uint8_t)(dir << 7 | 1);
		c->run_una = c->half[!dir].snd_una - acked;
	} else if ((c->run & 0x7f) < 0x7f) {
		c->run++;
	}
}

/* ---- the end of a connection ---- */

bool tcp_is_closed(const struct tcp_conn *c)
{
	const struct tcp_half *cl = &c->half[SUM_C2S], *sv = &c->half[SUM_S2C];
	return cl->rst_seen || sv->rst_seen || (cl->fin_seen && sv->fin_seen);
}

void tcp_summarize(const struct tcp_conn *c, struct sum_conn *out)
{
	out->ident = c->info;
	out->path.rtt_ns = tcp_path_rtt(c);
	for (int side = 0; side < SUM_DIR_COUNT; side++)
		out->path.loop_ns[side] = tcp_loop_rtt(c, (enum sum_dir_id)side);
	const struct tcp_half *cl = &c->half[SUM_C2S], *sv = &c->half[SUM_S2C];

	for (int dir = 0; dir < SUM_DIR_COUNT; dir++) {
		const struct tcp_half *h = &c->half[dir];
		tcp_widen_stats(h, &out->dir[dir].hot);
		if (h->cold)
			out->dir[dir].cold = h->cold->st;
		else
			memset(&out->dir[dir].cold, 0, sizeof(out->dir[dir].cold));
		/* SYN and FIN take sequence space but carry no bytes. */
		uint64_t *u = &out->dir[dir].unique_bytes;
		*u -= (h->syn_seen && *u) ? 1 : 0;
		*u -= (h->fin_seen && *u) ? 1 : 0;
	}
	if (cl->rst_seen || sv->rst_seen)
		out->state = SUM_STATE_RESET;
	else if (cl->fin_seen && sv->fin_seen)
		out->state = SUM_STATE_CLOSED;
	else if (cl->fin_seen || sv->fin_seen)
		out->state = SUM_STATE_HALF_CLOSED;
	else if ((cl->syn_seen || sv->syn_seen) && !c->handshake_done &&
		 !(TCP_COUNT(cl, data_packets) || TCP_COUNT(sv, data_packets)))
		out->state = SUM_STATE_HANDSHAKE;
	else
		out->state = SUM_STATE_OPEN;
}
