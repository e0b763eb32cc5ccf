/* tcp.c - per-direction TCP reconstruction and the classic per-connection statistics. */
#include "analyze/tcp.h"

#include <string.h>

#include "analyze/seq.h"

/*
 * Rules (also in tcpsift(1), PER-DIRECTION STATISTICS). For a segment from
 * side S (half h) to R (half r):
 *
 *  - keep-alive: 0 or 1 byte at snd_nxt - 1, no SYN/FIN/RST (RFC 9293
 *    3.8.4; Wireshark's definition) -- not data, not a retransmission.
 *  - new data: seq >= snd_nxt. seq > snd_nxt opens a hole: bytes the capture
 *    has not seen ("previous segment not captured").
 *  - below snd_nxt and none of it in a hole: the bytes were seen before,
 *    so this is a retransmission (Wireshark and tcptrace agree).
 *  - below snd_nxt and filling a hole: an original that arrived late (out of
 *    order) or a retransmission of bytes lost before the capture point.
 *    Decided by the sender's own clocks first (DESIGN.md "Reordering"):
 *    TSval lower than the highest segment's -> sent before it -> out of
 *    order, higher -> retransmission; then IPv4 IP ID when the flow's IDs
 *    are learned to increase; only then timing: sooner than the min RTT
 *    (or --reorder-window when unknown) -> out of order.
 *  - a retransmission is spurious when all its bytes were already
 *    cumulatively ACKed; RTO-like when S was silent for >= max(SRTT +
 *    4 RTTVAR, --rto-min) (RFC 6298; Linux TCP_RTO_MIN 200 ms); else fast
 *    when R had sent >= 3 duplicate ACKs (RFC 5681 3.2) or is SACKing
 *    (RFC 6675 loss recovery).
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

enum { TCP_IPID_LEARN = 8 }; /* increasing IDs needed before trusting them */

static const int64_t tcp_no_ts = 0;

static void rtt_add(struct sum_rtt *r, int64_t v)
{
	if (v < 0)
		return; /* capture timestamps went backwards: no sample */
	if (r->n == 0 || v < r->min_ns)
		r->min_ns = v;
	if (r->n == 0 || v > r->max_ns)
		r->max_ns = v;
	r->sum_ns += v;
	r->n++;
}

/* RFC 6298 sec. 2 smoothed RTT and variance (alpha 1/8, beta 1/4). */
static void srtt_update(struct tcp_half *h, int64_t rtt)
{
	if (rtt < 0)
		return;
	if (h->srtt_ns == 0) {
		h->srtt_ns = rtt;
		h->rttvar_ns = rtt / 2;
		return;
	}
	int64_t err = h->srtt_ns - rtt;
	if (err < 0)
		err = -err;
	h->rttvar_ns += (err - h->rttvar_ns) / 4;
	h->srtt_ns += (rtt - h->srtt_ns) / 8;
}

static bool ports_look_like_server(uint16_t port, uint16_t other)
{
	/* Well-known side wins; between two ephemeral ports the lower one. */
	if (port < 1024 && other >= 1024)
		return true;
	if (other < 1024 && port >= 1024)
		return false;
	return port < other;
}

void tcp_conn_init(struct tcp_conn *c, uint64_t id, const struct dec_packet *d, const struct pkt *p)
{
	memset(c, 0, sizeof(*c));
	struct sum_conn *i = &c->info;
	const struct dec_tcp *t = &d->tcp;
	bool src_is_client;

	i->id = id;
	if ((t->flags & (DEC_TH_SYN | DEC_TH_ACK)) == DEC_TH_SYN) {
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
	for (int k = 0; k < SUM_DIR_COUNT; k++)
		c->half[k].st.wscale = -1;
}

enum sum_dir_id tcp_conn_dir(const struct tcp_conn *c, const struct dec_packet *d)
{
	const struct sum_conn *i = &c->info;

	if (d->tcp.sport == i->client_port && memcmp(d->src.a, i->client.a, 16) == 0 &&
	    (d->tcp.dport != i->server_port || memcmp(d->dst.a, i->server.a, 16) == 0))
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
	if (h->syn_seen && h->st.isn_known && t->seq == h->st.isn && !h->st.data_packets)
		return false;
	return true;
}

static void emit(const struct sum_sink *sink, const struct sum_event *e)
{
	if (sink && sink->event)
		sink->event(sink->ctx, e);
}

static void event_init(struct sum_event *e, enum sum_event_type type, const struct tcp_conn *c,
		       enum sum_dir_id dir, const struct pkt *p)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->conn = c->info.id;
	e->dir = (uint8_t)dir;
	e->ts = p->ts_ns;
	e->duration_ns = -1;
	e->input = p->input;
	e->frame_first = e->frame_last = p->frame;
	e->queue_switch = -1;
}

/* The receive window this side advertises, scaled when the scale is known. */
static uint64_t scaled_window(const struct tcp_conn *c, const struct tcp_half *h, uint16_t raw,
			      bool syn)
{
	/* RFC 7323 2.2: the window in a SYN segment is never scaled. */
	return syn ? raw : tcp_window_bytes(c, h, raw);
}

static void sent_push(struct tcp_half *h, uint32_t end, int64_t ts)
{
	unsigned idx = (h->sent_head + h->sent_len) % TCP_SENT_RING;

	if (h->sent_len == TCP_SENT_RING) {
		/* Full: forget the oldest; its sample is lost, not wrong. */
		h->sent_head = (h->sent_head + 1) % TCP_SENT_RING;
		h->sent_len--;
		idx = (h->sent_head + h->sent_len) % TCP_SENT_RING;
	}
	h->sent[idx].end = end;
	h->sent[idx].ts = ts;
	h->sent[idx].retransmitted = false;
	h->sent_len++;
}

/* Karn: segments overlapping a retransmission give no RTT sample. */
static void sent_mark_retrans(struct tcp_half *h, uint32_t seq)
{
	for (unsigned k = 0; k < h->sent_len; k++) {
		struct tcp_sent *s = &h->sent[(h->sent_head + k) % TCP_SENT_RING];
		if (seq_gt(s->end, seq))
			s->retransmitted = true;
	}
}

/* The peer's cumulative ACK reached ack: pop covered segments, take a sample. */
static void sent_acked(struct tcp_half *h, uint32_t ack, int64_t now)
{
	int64_t sample = -1;

	while (h->sent_len) {
		struct tcp_sent *s = &h->sent[h->sent_head];
		if (seq_gt(s->end, ack))
			break;
		sample = s->retransmitted ? -1 : now - s->ts;
		h->sent_head = (h->sent_head + 1) % TCP_SENT_RING;
		h->sent_len--;
	}
	if (sample >= 0) {
		rtt_add(&h->st.rtt, sample);
		srtt_update(h, sample);
	}
}

static void tsring_add(struct tcp_half *h, uint32_t tsval, int64_t ts)
{
	unsigned last = (h->tsring_head + TCP_TS_RING - 1) % TCP_TS_RING;

	if (h->tsring[last].ts != tcp_no_ts && h->tsring[last].tsval == tsval)
		return; /* same ms tick: keep the first time it was seen */
	h->tsring[h->tsring_head].tsval = tsval;
	h->tsring[h->tsring_head].ts = ts;
	h->tsring[h->tsring_head].echoed = false;
	h->tsring_head = (h->tsring_head + 1) % TCP_TS_RING;
}

static void tsring_echo(struct tcp_half *h, uint32_t tsecr, int64_t now)
{
	for (unsigned k = 0; k < TCP_TS_RING; k++) {
		struct tcp_tsrec *r = &h->tsring[k];
		if (r->ts != tcp_no_ts && r->tsval == tsecr) {
			if (!r->echoed) {
				r->echoed = true;
				rtt_add(&h->st.rtt_ts, now - r->ts);
			}
			return;
		}
	}
}

/* Move snd_nxt forward, counting the sequence space as unique bytes. */
static void advance_nxt(struct tcp_half *h, uint32_t end)
{
	h->st.unique_bytes += (uint32_t)(end - h->snd_nxt);
	h->snd_nxt = end;
}

static void hole_remove(struct tcp_half *h, unsigned k)
{
	memmove(&h->holes[k], &h->holes[k + 1], (h->nholes - k - 1) * sizeof(h->holes[0]));
	h->nholes--;
}

/* data_before: the direction's data segments before the gap appeared. */
static void hole_open(struct tcp_half *h, uint32_t start, uint32_t end, const struct pkt *p,
		      uint64_t data_before)
{
	if (h->nholes == TCP_MAX_HOLES) {
		h->hole_overflow++;
		return;
	}
	struct tcp_hole *o = &h->holes[h->nholes++];
	o->start = start;
	o->end = end;
	o->open_ts = p->ts_ns;
	o->open_data_pkts = data_before;
	o->open_frame = p->frame;
}

/*
 * Remove [seq, end) from the holes. Returns the bytes that were unseen and
 * sets *first to the hole that held the lowest of them (its copy).
 */
static uint32_t holes_fill(struct tcp_half *h, uint32_t seq, uint32_t end, struct tcp_hole *first)
{
	uint32_t filled = 0;
	bool found = false;

	for (unsigned k = 0; k < h->nholes;) {
		struct tcp_hole *o = &h->holes[k];
		if (seq_ge(seq, o->end) || seq_le(end, o->start)) {
			k++;
			continue;
		}
		uint32_t lo = seq_max(seq, o->start), hi = seq_min(end, o->end);
		filled += hi - lo;
		if (!found || seq_lt(o->start, first->start)) {
			*first = *o;
			found = true;
		}
		if (seq_le(lo, o->start) && seq_ge(hi, o->end)) {
			hole_remove(h, k);
			continue;
		}
		if (seq_le(lo, o->start)) {
			o->start = hi;
		} else if (seq_ge(hi, o->end)) {
			o->end = lo;
		} else {
			/* The segment splits the hole in two. */
			struct tcp_hole tail = *o;
			tail.start = hi;
			o->end = lo;
			if (h->nholes < TCP_MAX_HOLES)
				h->holes[h->nholes++] = tail;
			else
				h->hole_overflow++;
		}
		k++;
	}
	return filled;
}

/*
 * The peer acknowledged up to ack: holes below it reached the receiver
 * without passing the capture point (or the capture dropped them).
 */
static uint64_t holes_acked(struct tcp_conn *c, enum sum_dir_id dir, uint32_t ack,
			    const struct pkt *p, const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];
	uint64_t covered = 0;

	for (unsigned k = 0; k < h->nholes;) {
		struct tcp_hole *o = &h->holes[k];
		if (seq_ge(o->start, ack)) {
			k++;
			continue;
		}
		uint32_t hi = seq_min(ack, o->end);
		uint32_t bytes = hi - o->start;
		struct sum_event e;

		h->st.unseen_bytes += bytes;
		covered += bytes;
		event_init(&e, SUM_EV_CAPTURE_LOSS, c, dir, p);
		e.ts = o->open_ts;
		e.duration_ns = p->ts_ns - o->open_ts;
		e.frame_first = o->open_frame;
		e.bytes = bytes;
		e.rel_seq = o->start - h->base;
		/* Segments estimated with the largest segment seen this way. */
		uint32_t mss =
		    h->st.max_payload ? h->st.max_payload : (h->st.mss ? h->st.mss : 1460);
		e.segments = (bytes + mss - 1) / mss;
		emit(sink, &e);
		if (seq_ge(hi, o->end)) {
			hole_remove(h, k);
			continue;
		}
		o->start = hi;
		k++;
	}
	return covered;
}

/* Has this side's IP ID been increasing often enough to order segments by? */
static bool ipid_trusted(const struct tcp_half *h)
{
	return h->ipid_up >= TCP_IPID_LEARN && h->ipid_other * 8 < h->ipid_up;
}

static void learn_ipid(struct tcp_half *h, const struct dec_packet *d)
{
	if (d->src.family != 4)
		return;
	if (h->have_ipid) {
		int16_t delta = ipid_diff(d->ip_id, h->last_ipid);
		if (delta > 0 && delta < 1024)
			h->ipid_up++;
		else
			h->ipid_other++;
	}
	h->last_ipid = d->ip_id;
	h->have_ipid = true;
}

/* Decide whether a segment filling a hole was sent before the highest one. */
static bool filled_out_of_order(const struct tcp_half *h, const struct tcp_params *prm,
				const struct dec_packet *d, const struct tcp_hole *hole,
				int64_t now, uint8_t *by)
{
	const struct dec_tcp *t = &d->tcp;

	if (t->opt.has_ts && h->high_has_ts) {
		int32_t delta = seq_diff(t->opt.tsval, h->high_tsval);
		if (delta != 0) {
			*by = SUM_BY_TSVAL;
			return delta < 0;
		}
		/* Equal TSvals (a ms clock) decide nothing: fall through. */
	}
	if (d->src.family == 4 && h->high_has_ipid && ipid_trusted(h)) {
		int16_t delta = ipid_diff(d->ip_id, h->high_ipid);
		if (delta != 0) {
			*by = SUM_BY_IPID;
			return delta < 0;
		}
	}
	*by = SUM_BY_TIMING;
	int64_t window = h->st.rtt.n ? h->st.rtt.min_ns : prm->reorder_window_ns;
	if (h->st.rtt_ts.n && h->st.rtt_ts.min_ns < window)
		window = h->st.rtt_ts.min_ns;
	return now - hole->open_ts < window;
}

/* Classify a retransmission: spurious and RTO/fast are counted separately. */
static void count_retrans(struct tcp_half *h, const struct tcp_half *r,
			  const struct tcp_params *prm, uint32_t seq, uint32_t end, uint32_t len,
			  int64_t gap, uint32_t *kind)
{
	h->st.retrans++;
	h->st.retrans_bytes += len;
	*kind |= TCP_SEG_RETRANS;
	if (r->have_last_ack && h->have_una && seq_le(end, h->snd_una)) {
		h->st.spurious_retrans++;
		*kind |= TCP_SEG_SPURIOUS;
	}
	int64_t rto = h->srtt_ns ? h->srtt_ns + 4 * h->rttvar_ns : 0;
	if (rto < prm->rto_min_ns)
		rto = prm->rto_min_ns;
	if (gap >= rto) {
		h->st.rto_retrans++;
		*kind |= TCP_SEG_RTO;
	} else if (r->dupack_run >= 3 || r->sacking) {
		h->st.fast_retrans++;
		*kind |= TCP_SEG_FAST;
	}
	sent_mark_retrans(h, seq);
}

/* The ACK side of a segment: what it tells about the other direction. */
static void process_ack(struct tcp_conn *c, enum sum_dir_id dir, const struct dec_packet *d,
			const struct pkt *p, const struct sum_sink *sink)
{
	const struct dec_tcp *t = &d->tcp;
	struct tcp_half *h = &c->half[dir]; /* the ACK sender */
	enum sum_dir_id odir = (enum sum_dir_id) !dir;
	struct tcp_half *o = &c->half[odir]; /* whose data is ACKed */
	uint32_t ack = t->ack;
	bool syn_fin_rst = t->flags & (DEC_TH_SYN | DEC_TH_FIN | DEC_TH_RST);

	if (o->have_nxt && seq_gt(ack, o->snd_nxt)) {
		/* R acknowledges bytes beyond any S was seen sending: a gap too. */
		hole_open(o, o->snd_nxt, ack, p, o->st.data_packets);
		advance_nxt(o, ack);
	}
	/* An ACK covering bytes the capture never saw (beyond snd_nxt or in a
	 * gap): R got them, so the capture lost them (Wireshark: "ACKed
	 * segment that wasn't captured"). */
	if (o->nholes && holes_acked(c, odir, ack, p, sink)) {
		o->st.acked_unseen++;
		c->seg.kind |= TCP_SEG_ACKED_UNSEEN;
	}

	if (!o->have_una || seq_gt(ack, o->snd_una)) {
		if (o->have_una) {
			h->st.new_acks++;
			c->seg.kind |= TCP_SEG_ACK_ADVANCED;
			c->seg.acked = ack - o->snd_una;
		}
		o->snd_una = ack;
		o->have_una = true;
		sent_acked(o, ack, p->ts_ns);
		h->dupack_run = 0;
	} else if (seq_lt(ack, o->snd_una)) {
		h->st.ack_reordering++;
		c->seg.kind |= TCP_SEG_ACK_REORDERED;
	}

	/* The ACK answering a keep-alive repeats the last one by design. */
	bool keepalive_ack = o->keepalive_pending;
	o->keepalive_pending = false;
	if (h->have_last_ack && t->payload_len == 0 && !syn_fin_rst && ack == h->last_ack &&
	    t->window != 0 && t->window == h->last_win_raw && h->have_nxt && t->seq == h->snd_nxt &&
	    !keepalive_ack) {
		h->st.dup_acks++;
		h->dupack_run++;
		c->seg.kind |= TCP_SEG_DUP_ACK;
	}

	h->sacking = false;
	if (t->opt.has_sack && t->opt.nsack) {
		const struct dec_sack_block *b = t->opt.sack;
		h->st.sack_acks++;
		c->seg.kind |= TCP_SEG_SACK;
		/* RFC 2883 sec. 4: the first block reports a duplicate when it lies
		 * below the cumulative ACK or inside the second block. */
		bool dsack =
		    seq_le(b[0].right, ack) || (t->opt.nsack > 1 && seq_ge(b[0].left, b[1].left) &&
						seq_le(b[0].right, b[1].right));
		if (dsack) {
			struct sum_event e;
			h->st.dsack_blocks++;
			c->seg.kind |= TCP_SEG_DSACK;
			event_init(&e, SUM_EV_DSACK, c, odir, p);
			e.bytes = b[0].right - b[0].left;
			e.rel_seq = b[0].left - o->base;
			emit(sink, &e);
		}
		for (unsigned k = dsack ? 1 : 0; k < t->opt.nsack; k++)
			if (seq_gt(b[k].left, ack))
				h->sacking = true;
	}
	h->last_ack = ack;
	h->last_win_raw = t->window;
	h->have_last_ack = true;

	if (o->st.isn_known && !c->handshake_done && dir == SUM_C2S && !(t->flags & DEC_TH_SYN) &&
	    c->half[SUM_S2C].syn_seen && ack == c->half[SUM_S2C].st.isn + 1) {
		c->handshake_done = true;
		if (c->syn_ts_valid)
			c->info.handshake_rtt_ns = p->ts_ns - c->syn_ts;
	}
}

static void process_window(struct tcp_conn *c, enum sum_dir_id dir, const struct dec_packet *d,
			   const struct pkt *p, const struct sum_sink *sink)
{
	const struct dec_tcp *t = &d->tcp;
	struct tcp_half *h = &c->half[dir];
	bool syn_fin_rst = t->flags & (DEC_TH_SYN | DEC_TH_FIN | DEC_TH_RST);
	uint64_t win = scaled_window(c, h, t->window, t->flags & DEC_TH_SYN);

	if (h->st.packets == 1 || win < h->st.min_window)
		h->st.min_window = win;
	if (win > h->st.max_window)
		h->st.max_window = win;
	c->seg.window = win;

	if (t->window == 0 && !syn_fin_rst) {
		h->st.zero_windows++;
		c->seg.kind |= TCP_SEG_ZERO_WINDOW;
		if (!h->in_zero_window) {
			h->in_zero_window = true;
			h->zw_start = p->ts_ns;
			h->zw_frame = p->frame;
			h->zw_input = p->input;
		}
	} else if (t->window != 0 && h->in_zero_window) {
		struct sum_event e;
		/* The event belongs to the data direction the zero window stopped. */
		event_init(&e, SUM_EV_ZERO_WINDOW, c, (enum sum_dir_id) !dir, p);
		e.ts = h->zw_start;
		e.duration_ns = p->ts_ns - h->zw_start;
		e.frame_first = h->zw_frame;
		e.input = h->zw_input;
		emit(sink, &e);
		h->in_zero_window = false;
		c->seg.kind |= TCP_SEG_WINDOW_OPENED;
	}
}

static void process_syn(struct tcp_conn *c, enum sum_dir_id dir, const struct dec_packet *d)
{
	const struct dec_tcp *t = &d->tcp;
	struct tcp_half *h = &c->half[dir];

	h->syn_seen = true;
	h->st.isn = t->seq;
	h->st.isn_known = true;
	h->base = t->seq;
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

static void process_data(struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_params *prm,
			 const struct dec_packet *d, const struct pkt *p,
			 const struct sum_sink *sink)
{
	const struct dec_tcp *t = &d->tcp;
	struct tcp_half *h = &c->half[dir];
	struct tcp_half *r = &c->half[!dir];
	bool syn = t->flags & DEC_TH_SYN, fin = t->flags & DEC_TH_FIN;
	uint32_t len = t->payload_len;
	uint32_t seq = t->seq;
	uint32_t end = seq + len + syn + fin;
	int64_t gap = h->last_ts ? p->ts_ns - h->last_ts : 0;

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
		h->st.keepalives++;
		h->keepalive_pending = true;
		c->seg.kind |= TCP_SEG_KEEPALIVE;
		return;
	}

	if (end == seq)
		return; /* pure ACK / RST: no sequence space */

	if (len) {
		h->st.data_packets++;
		h->st.payload_bytes += len;
		if (h->st.data_packets == 1 || len < h->st.min_payload)
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
				emit(sink, &e);
			}
		}
	}

	if (seq_ge(seq, h->snd_nxt)) {
		c->seg.kind |= TCP_SEG_NEW_DATA;
		if (seq_gt(seq, h->snd_nxt)) {
			c->seg.kind |= TCP_SEG_OPENED_GAP;
			h->st.lost_segments++;
			hole_open(h, h->snd_nxt, seq, p, h->st.data_packets - (len ? 1 : 0));
		}
		advance_nxt(h, end);
		h->high_ts = p->ts_ns;
		h->high_has_ts = t->opt.has_ts;
		h->high_tsval = t->opt.tsval;
		h->high_has_ipid = d->src.family == 4;
		h->high_ipid = d->ip_id;
		sent_push(h, end, p->ts_ns);
	} else if (syn && h->st.isn_known && seq == h->st.isn) {
		count_retrans(h, r, prm, seq, end, len, gap, &c->seg.kind); /* SYN again */
	} else {
		struct tcp_hole hole = {0};
		uint32_t span = seq_lt(h->snd_nxt, end) ? h->snd_nxt - seq : end - seq;
		uint32_t unseen = h->nholes ? holes_fill(h, seq, seq + span, &hole) : 0;
		uint8_t by = SUM_BY_TIMING;

		if (seq_gt(end, h->snd_nxt)) {
			advance_nxt(h, end); /* a retransmission that also carries new data */
			sent_push(h, end, p->ts_ns);
		}
		if (unseen == span && filled_out_of_order(h, prm, d, &hole, p->ts_ns, &by)) {
			/* The SUM_EV_REORDER event is emitted by the reorder
			 * detector (reorder.c), which also knows the queues. */
			h->st.out_of_order++;
			h->st.ooo_by[by < SUM_BY_COUNT ? by : SUM_BY_TIMING]++;
			c->seg.kind |= TCP_SEG_OOO | TCP_SEG_FILLED_GAP;
			c->seg.extent = (uint32_t)(h->st.data_packets - 1 - hole.open_data_pkts);
			c->seg.reorder_by = by;
			c->seg.gap_ts = hole.open_ts;
			c->seg.gap_frame = hole.open_frame;
		} else {
			count_retrans(h, r, prm, seq, end, len, gap, &c->seg.kind);
			/* Filling a gap: the original never passed the capture
			 * point, so it was lost upstream of it (or by the capture,
			 * which ACKs of the gap would have shown instead). */
			if (unseen == span) {
				h->st.lost_upstream++;
				c->seg.kind |= TCP_SEG_FILLED_GAP;
			}
		}
	}

	/* Window full (Wireshark's rule): the segment, new data or not (a tail
	 * loss probe re-sends the last one), reaches the right edge of the
	 * window R last advertised. Needs a known scale. */
	if (len && r->have_last_ack && c->info.wscale_known &&
	    (uint64_t)(uint32_t)(seq + len - r->last_ack) ==
		scaled_window(c, r, r->last_win_raw, false))
		h->st.window_full++;

	if (h->have_una) {
		uint64_t inflight = (uint32_t)(h->snd_nxt - h->snd_una);
		if (seq_ge(h->snd_nxt, h->snd_una) && inflight > h->st.max_in_flight)
			h->st.max_in_flight = inflight;
	}
}

void tcp_segment(struct tcp_conn *c, const struct tcp_params *prm, const struct dec_packet *d,
		 const struct pkt *p, const struct sum_sink *sink)
{
	const struct dec_tcp *t = &d->tcp;
	enum sum_dir_id dir = tcp_conn_dir(c, d);
	struct tcp_half *h = &c->half[dir];
	struct sum_conn *i = &c->info;

	struct tcp_seg *sg = &c->seg;
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

	h->st.packets++;
	h->st.ip_bytes += d->l3_len;
	if (!h->st.first_ts)
		h->st.first_ts = p->ts_ns;
	h->st.last_ts = p->ts_ns;
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
	process_data(c, dir, prm, d, p, sink);
	if (t->flags & DEC_TH_ACK) {
		process_ack(c, dir, d, p, sink);
		if (t->opt.has_ts)
			tsring_echo(&c->half[!dir], t->opt.tsecr, p->ts_ns);
	}
	process_window(c, dir, d, p, sink);
	/* Learned after the segment was judged, so a reordered ID does not
	 * vote against the rule that detects it. */
	learn_ipid(h, d);
	if (t->opt.has_ts)
		tsring_add(h, t->opt.tsval, p->ts_ns);
	h->last_ts = p->ts_ns;
	sg->rel_seq = t->seq - h->base;
}

bool tcp_is_closed(const struct tcp_conn *c)
{
	const struct tcp_half *cl = &c->half[SUM_C2S], *sv = &c->half[SUM_S2C];
	return cl->rst_seen || sv->rst_seen || (cl->fin_seen && sv->fin_seen);
}

void tcp_finish(struct tcp_conn *c, const struct sum_sink *sink)
{
	for (int dir = 0; dir < SUM_DIR_COUNT; dir++) {
		struct tcp_half *h = &c->half[dir];
		if (!h->in_zero_window)
			continue;
		struct sum_event e;
		struct pkt p = {.ts_ns = c->info.last_ts, .frame = c->info.last_frame};
		event_init(&e, SUM_EV_ZERO_WINDOW, c, (enum sum_dir_id) !dir, &p);
		e.ts = h->zw_start;
		e.duration_ns = c->info.last_ts - h->zw_start;
		e.frame_first = h->zw_frame;
		e.input = h->zw_input;
		emit(sink, &e);
		h->in_zero_window = false;
	}
}

void tcp_summarize(const struct tcp_conn *c, struct sum_conn *out)
{
	*out = c->info;
	const struct tcp_half *cl = &c->half[SUM_C2S], *sv = &c->half[SUM_S2C];

	for (int dir = 0; dir < SUM_DIR_COUNT; dir++) {
		const struct tcp_half *h = &c->half[dir];
		out->dir[dir] = h->st;
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
		 !(cl->st.data_packets || sv->st.data_packets))
		out->state = SUM_STATE_HANDSHAKE;
	else
		out->state = SUM_STATE_OPEN;
}
