/* tcp.c - per-direction TCP reconstruction and the classic per-connection statistics. */
#include "analyze/engine/tcp.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/engine/seq.h"

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
 *    order) or a retransmission of bytes lost before the capture point
 *    (DESIGN.md "Reordering"; decide_fill() below). TCP sends originals in
 *    sequence order, so the original of a gap's bytes left the sender just
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

enum {
	TCP_IPID_LEARN = 8,	/* counter-like steps needed before trusting IP IDs */
	TCP_IPID_NEAR = 256,	/* a step this small (either sign) is counter-like */
	TCP_IPID_ORDER = 16384, /* IDs further apart than this order nothing */
};

/* Linux's shortest loss-probe timer: 2 SRTT + TCP_TIMEOUT_MIN (2 jiffies,
 * 2 ms at HZ=1000), tcp_schedule_loss_probe(). No timer-driven
 * retransmission comes sooner after the last transmission. */
#define TCP_TLP_MIN_NS (2ll * 1000000ll)

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
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		c->half[k].st.wscale = -1;
		c->hs_loop_ns[k] = -1;
	}
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

/*
 * Room for one more element in *arr (n used of *cap, each size bytes):
 * allocated on first need, doubled from 4 up to max. false when it is full
 * at max or memory ran out (the caller then tracks nothing more, and says
 * so). A growth is rare: a handful per direction at most.
 */
static bool room(void **arr, uint8_t n, uint8_t *cap, size_t size, unsigned max)
{
	if (n < *cap)
		return true;
	if (*cap >= max)
		return false;
	unsigned want = *cap ? 2u * *cap : 4u;
	if (want > max)
		want = max;
	void *p = realloc(*arr, want * size);
	if (!p)
		return false;
	*arr = p;
	*cap = (uint8_t)want;
	return true;
}

void tcp_conn_release(struct tcp_conn *c)
{
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		struct tcp_half *h = &c->half[k];
		free(h->holes);
		free(h->pending);
		free(h->rtx);
		h->holes = NULL;
		h->pending = NULL;
		h->rtx = NULL;
		h->cap_holes = h->cap_pending = h->cap_rtx = 0;
		h->nholes = h->npending = h->rtx_len = h->rtx_head = 0;
	}
}

static void hole_remove(struct tcp_half *h, unsigned k)
{
	memmove(&h->holes[k], &h->holes[k + 1], (h->nholes - k - 1) * sizeof(h->holes[0]));
	h->nholes--;
}

/* data_before: the direction's data segments before the gap appeared. */
/* opener: the clocks of the segment that opened it, NULL for an ACK. */
static void hole_open(struct tcp_half *h, uint32_t start, uint32_t end, const struct pkt *p,
		      uint64_t data_before, const struct tcp_clock *opener)
{
	if (!room((void **)&h->holes, h->nholes, &h->cap_holes, sizeof(*h->holes), TCP_MAX_HOLES)) {
		h->hole_overflow++;
		h->hull_lo = h->have_hull ? seq_min(h->hull_lo, start) : start;
		h->hull_hi = h->have_hull ? seq_max(h->hull_hi, end) : end;
		h->have_hull = true;
		return;
	}
	struct tcp_hole *o = &h->holes[h->nholes++];
	memset(o, 0, sizeof(*o));
	o->start = start;
	o->end = end;
	o->open_ts = p->ts_ns;
	o->open_data_pkts = data_before;
	o->open_frame = p->frame;
	if (opener)
		o->opener = *opener;
}

/*
 * Remove [seq, end) from the holes. Returns the bytes that were unseen and
 * sets *first to the hole that held the lowest of them (its copy).
 */
__attribute__((noinline)) static uint32_t holes_fill(struct tcp_half *h, uint32_t seq, uint32_t end,
						     struct tcp_hole *first)
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
			if (room((void **)&h->holes, h->nholes, &h->cap_holes, sizeof(*h->holes),
				 TCP_MAX_HOLES))
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
__attribute__((noinline)) static uint64_t holes_acked(struct tcp_conn *c, enum sum_dir_id dir,
						      uint32_t ack, const struct pkt *p,
						      const struct sum_sink *sink)
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
		sum_emit(sink, &e);
		if (seq_ge(hi, o->end)) {
			hole_remove(h, k);
			continue;
		}
		o->start = hi;
		k++;
	}
	return covered;
}

/* R asks (duplicate ACK or SACK) for bytes from ack on: note when each
 * gap at or above it was first asked for. */
__attribute__((noinline)) static void holes_asked(struct tcp_half *h, uint32_t ack, int64_t now)
{
	for (unsigned k = 0; k < h->nholes; k++) {
		struct tcp_hole *o = &h->holes[k];
		if (!o->trigger_ts && seq_le(ack, o->start))
			o->trigger_ts = now;
	}
}

/* ---- per-frame verdicts ---- */

/* A per-frame verdict of type about dir's data, for frame (in input) at ts. */
static void frame_init(struct sum_event *e, enum sum_event_type type, const struct tcp_conn *c,
		       enum sum_dir_id dir, int64_t ts, uint64_t frame, uint32_t input)
{
	struct pkt p = {.ts_ns = ts, .frame = frame, .input = input};

	event_init(e, type, c, dir, &p);
}

/* ---- the sender's clocks (DESIGN.md "Reordering") ---- */

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

/*
 * Sending order of two segments of one sender: -1 when a was sent before
 * b, 1 after, 0 when no clock tells; *by names the clock that did. All of
 * them only move forward at the sender: its TSval (RFC 7323), the peer's
 * TSval it echoes (ts_recent, which PAWS keeps from going back), its
 * cumulative ACK (rcv_nxt), and on IPv4 the IP ID when it is a
 * per-connection counter (Linux: inet_sk(sk)->inet_id, one per packet).
 */
static int clock_order(const struct tcp_clock *a, const struct tcp_clock *b, bool ipid_counter,
		       uint8_t *by)
{
	uint8_t both = a->have & b->have;
	int32_t d;

	if ((both & TCP_CLK_TSVAL) && (d = seq_diff(a->tsval, b->tsval)) != 0) {
		*by = SUM_BY_TSVAL;
		return d < 0 ? -1 : 1;
	}
	if ((both & TCP_CLK_TSECR) && (d = seq_diff(a->tsecr, b->tsecr)) != 0) {
		*by = SUM_BY_TSECR;
		return d < 0 ? -1 : 1;
	}
	if (ipid_counter && (both & TCP_CLK_IPID)) {
		d = ipid_diff(a->ipid, b->ipid);
		/* A counter wraps at 65536: far apart, the sign means nothing. */
		if (d != 0 && d > -TCP_IPID_ORDER && d < TCP_IPID_ORDER) {
			*by = SUM_BY_IPID;
			return d < 0 ? -1 : 1;
		}
	}
	if ((both & TCP_CLK_ACK) && (d = seq_diff(a->ack, b->ack)) != 0) {
		*by = SUM_BY_ACK;
		return d < 0 ? -1 : 1;
	}
	return 0;
}

/*
 * Are this side's IP IDs a per-connection counter? Learned from the size
 * of successive differences, not their sign: reordering scrambles the
 * sign in arrival order exactly when the ID is needed, while a counter's
 * steps stay small (one per packet, a few with TSO super-frames, a few
 * dozen either way across heavy reordering). Random IDs (OpenBSD, some
 * middleboxes) and zeros step far or not at all.
 */
static bool ipid_trusted(const struct tcp_half *h)
{
	return h->ipid_near >= TCP_IPID_LEARN && h->ipid_far * 8 < h->ipid_near;
}

static void learn_ipid(struct tcp_half *h, const struct dec_packet *d)
{
	if (d->src.family != 4)
		return;
	if (h->have_ipid) {
		int d16 = ipid_diff(d->ip_id, h->last_ipid);
		if (d16 != 0 && d16 >= -TCP_IPID_NEAR && d16 <= TCP_IPID_NEAR)
			h->ipid_near++;
		else
			h->ipid_far++;
	}
	h->last_ipid = d->ip_id;
	h->have_ipid = true;
}

/* ---- path times as seen from the capture point ---- */

static int64_t min_known(int64_t a, int64_t b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

/* Smallest sample of r, -1 if none. */
static int64_t rtt_min(const struct sum_rtt *r)
{
	return r->n ? r->min_ns : -1;
}

/*
 * From the capture point to side's host and back: the handshake leg to it,
 * the other side's data ACKed by it, or the other side's TSvals echoed by
 * it; the smallest (each sample is at least the true time). -1 unknown.
 */
static int64_t loop_to(const struct tcp_conn *c, enum sum_dir_id side)
{
	const struct tcp_half *o = &c->half[!side];
	int64_t v = c->hs_loop_ns[side];

	v = min_known(v, rtt_min(&o->st.rtt));
	return min_known(v, rtt_min(&o->st.rtt_ts));
}

/* The whole path's RTT (both loops, or the handshake); -1 unknown. */
static int64_t path_rtt(const struct tcp_conn *c)
{
	int64_t a = loop_to(c, SUM_C2S), b = loop_to(c, SUM_S2C);
	int64_t sum = a >= 0 && b >= 0 ? a + b : -1;

	return min_known(sum, c->info.handshake_rtt_ns);
}

/*
 * The earliest a retransmission of hole's bytes could reach the capture
 * point. It needs a loss signal: R's duplicate ACK or SACK for the hole
 * passes here (trigger_ts), reaches S, and the retransmission comes back:
 * trigger + the loop to S. Or a timer: no sooner than the shortest loss
 * probe, 2 RTT + TCP_TLP_MIN after the opener left S. (Only called when R's
 * ACKs are in the capture, so a trigger not seen is one not sent yet.)
 */
static int64_t earliest_retrans(const struct tcp_conn *c, enum sum_dir_id dir,
				const struct tcp_hole *hole)
{
	int64_t rtt = path_rtt(c);
	int64_t timer = hole->open_ts + TCP_TLP_MIN_NS + (rtt > 0 ? 2 * rtt : 0);

	if (!hole->trigger_ts)
		return timer;
	int64_t up = loop_to(c, dir);
	int64_t signal = hole->trigger_ts + (up > 0 ? up : 0);
	return signal < timer ? signal : timer;
}

enum tcp_fill {
	TCP_FILL_LATE = 0, /* the late original */
	TCP_FILL_RETRANS,
	TCP_FILL_UNDECIDED,
};

/* A segment with clock clk, from dir's sender, filled (part of) hole. */
static enum tcp_fill decide_fill(const struct tcp_conn *c, enum sum_dir_id dir,
				 const struct tcp_params *prm, const struct tcp_clock *clk,
				 const struct tcp_hole *hole, int64_t now, uint8_t *by)
{
	const struct tcp_half *h = &c->half[dir], *r = &c->half[!dir];

	if (hole->opener.have) {
		int order = clock_order(clk, &hole->opener, ipid_trusted(h), by);
		if (order)
			return order < 0 ? TCP_FILL_LATE : TCP_FILL_RETRANS;
	}
	if (r->have_last_ack) {
		*by = SUM_BY_CAUSALITY;
		return now < earliest_retrans(c, dir, hole) ? TCP_FILL_LATE : TCP_FILL_UNDECIDED;
	}
	/* R's ACKs are not in the capture: neither a loss signal nor a path
	 * time can be seen. The old rule of thumb, named as such. */
	*by = SUM_BY_TIMING;
	return now - hole->open_ts < prm->reorder_window_ns ? TCP_FILL_LATE : TCP_FILL_RETRANS;
}

/* ---- retransmissions ---- */

static enum sum_retrans_kind retrans_kind(uint32_t kind)
{
	if (kind & TCP_SEG_RTO)
		return SUM_RTX_RTO;
	if (kind & TCP_SEG_TLP)
		return SUM_RTX_TLP;
	if (kind & TCP_SEG_FAST)
		return SUM_RTX_FAST;
	return SUM_RTX_OTHER;
}

static void rtx_emit(const struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_rtx *x,
		     const struct sum_sink *sink)
{
	struct sum_event e;

	if (!sink || !sink->frame)
		return;
	frame_init(&e, SUM_EV_RETRANS, c, dir, x->ts, x->frame, x->input);
	e.bytes = x->len;
	e.rel_seq = x->rel_seq;
	e.u.frame.kind = x->kind;
	e.u.frame.spurious = x->spurious;
	e.u.frame.dsack = x->dsack;
	e.u.frame.filled_gap = x->filled_gap;
	sum_emit(sink, &e);
}

/* A waiting verdict may be final from t on: settle() then looks. */
static void settle_at(struct tcp_conn *c, int64_t t)
{
	if (!c->next_settle || t < c->next_settle)
		c->next_settle = t > 0 ? t : 1;
}

/* The oldest remembered retransmission of dir: its verdict is final. */
static void rtx_pop(struct tcp_conn *c, enum sum_dir_id dir, const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];

	rtx_emit(c, dir, &h->rtx[h->rtx_head], sink);
	h->rtx_head = (uint8_t)((h->rtx_head + 1) % h->cap_rtx);
	h->rtx_len--;
}

static void rtx_push(struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_rtx *x,
		     const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];

	if (h->rtx_len == h->cap_rtx && h->cap_rtx < TCP_RTX_RING) {
		/* Grow the ring, its oldest first again. */
		unsigned want = h->cap_rtx ? 2u * h->cap_rtx : 4u;
		struct tcp_rtx *n = malloc(want * sizeof(*n));
		if (n) {
			for (unsigned k = 0; k < h->rtx_len; k++)
				n[k] = h->rtx[(h->rtx_head + k) % h->cap_rtx];
			free(h->rtx);
			h->rtx = n;
			h->cap_rtx = (uint8_t)want;
			h->rtx_head = 0;
		}
	}
	if (!h->cap_rtx) {
		rtx_emit(c, dir, x, sink); /* no memory to wait for a D-SACK */
		return;
	}
	if (h->rtx_len == h->cap_rtx)
		rtx_pop(c, dir, sink);
	h->rtx[(h->rtx_head + h->rtx_len) % h->cap_rtx] = *x;
	h->rtx_len++;
	settle_at(c, x->due + 1);
}

/*
 * R's D-SACK block [left, right) about dir's data: the bytes arrived twice,
 * so the latest retransmission that carried them was not needed (RFC 3708
 * sec. 3). Counted once per retransmission.
 */
__attribute__((noinline)) static void rtx_dsack(struct tcp_conn *c, enum sum_dir_id dir,
						uint32_t left, uint32_t right)
{
	struct tcp_half *h = &c->half[dir];

	for (unsigned k = h->rtx_len; k-- > 0;) {
		struct tcp_rtx *x = &h->rtx[(h->rtx_head + k) % h->cap_rtx];
		if (seq_ge(x->start, right) || seq_le(x->end, left))
			continue;
		if (!x->spurious) {
			x->spurious = x->dsack = true;
			h->st.spurious_retrans++;
			h->st.spurious_dsack++;
		}
		return;
	}
}

/*
 * How long a retransmission's verdict waits for R's D-SACK. R sends it as
 * soon as the duplicate arrives (RFC 2883 sec. 4), so it passes here about
 * a path RTT after the retransmission did -- unless R withholds ACKs while
 * its window cannot open (a slow reader: until the application reads or a
 * window probe comes, hundreds of ms). A second covers that; the ring's
 * size bounds what waits.
 */
static int64_t rtx_settle(const struct tcp_conn *c)
{
	int64_t rtt = path_rtt(c), wait = 1000000000;

	return rtt > 0 && 4 * rtt > wait ? 4 * rtt : wait;
}

/* Was any of [seq, end) retransmitted recently (the ring)? */
static bool rtx_seen(const struct tcp_half *h, uint32_t seq, uint32_t end)
{
	for (unsigned k = 0; k < h->rtx_len; k++) {
		const struct tcp_rtx *x = &h->rtx[(h->rtx_head + k) % h->cap_rtx];
		if (seq_lt(x->start, end) && seq_gt(x->end, seq))
			return true;
	}
	return false;
}

/*
 * Why dir's sender re-sent [seq, end) after gap ns of silence, as kind bits
 * (TCP_SEG_RTO, TCP_SEG_TLP, TCP_SEG_FAST; none: other), judged on what R
 * had said so far.
 */
static uint32_t retrans_why(const struct tcp_conn *c, enum sum_dir_id dir,
			    const struct tcp_params *prm, uint32_t seq, uint32_t end, int64_t gap)
{
	const struct tcp_half *h = &c->half[dir], *r = &c->half[!dir];
	int64_t rto = h->srtt_ns ? h->srtt_ns + 4 * h->rttvar_ns : 0;

	if (rto < prm->rto_min_ns)
		rto = prm->rto_min_ns;
	/*
	 * RFC 8985 sec. 7: with nothing from R asking, the probe timeout (2
	 * SRTT, Linux + 2 jiffies, or + TCP_RTO_MIN with one segment out,
	 * capped at the RTO: tcp_schedule_loss_probe()) re-sends the highest
	 * segment, once; a later re-send of the same bytes is the RTO. Our
	 * SRTT is the capture point's, so only SRTT + 2 ms is required.
	 */
	if (!r->dupack_run && !r->sacking && end == h->snd_nxt &&
	    gap >= h->srtt_ns + TCP_TLP_MIN_NS && !rtx_seen(h, seq, end))
		return TCP_SEG_TLP;
	if (gap >= rto)
		return TCP_SEG_RTO;
	if (r->dupack_run >= 3 || r->sacking)
		return TCP_SEG_FAST;
	return 0;
}

/*
 * New data after gap ns of silence with two or more full segments in
 * flight and nothing from R since S's last packet, no sooner than a probe
 * timeout could fire (Linux: 2 SRTT + 2 jiffies; here SRTT + 2 ms, our
 * SRTT being measured at the capture point, not at S): RFC 8985 sec. 7.3
 * sends a loss probe as
 * new data when it has some and the window allows (Linux counts both kinds
 * in TcpExtTCPLossProbes). An application writing again would not have
 * had two full segments left unacknowledged that long: R ACKs every second
 * one (RFC 1122 4.2.3.2).
 */
static bool probe_with_new_data(const struct tcp_conn *c, enum sum_dir_id dir, int64_t gap)
{
	const struct tcp_half *h = &c->half[dir], *r = &c->half[!dir];
	uint32_t seg = h->st.max_payload ? h->st.max_payload : r->st.mss;

	return gap >= h->srtt_ns + TCP_TLP_MIN_NS && seg && r->last_ts < h->last_ts &&
	       !r->dupack_run && !r->sacking && tcp_in_flight(c, dir) >= 2 * seg;
}

/* A retransmission that filled a gap of the capture: what decided it. */
struct tcp_gapfill {
	uint8_t by;
	const struct tcp_clock *clk;
	const struct tcp_hole *hole;
};

/* Account a retransmission of [seq, end) (len payload bytes) sent for the
 * reason why (retrans_why()); p is the frame that carried it; fill: the gap
 * it filled, if it filled one. */
__attribute__((noinline)) static void note_retrans(struct tcp_conn *c, enum sum_dir_id dir,
						   const struct pkt *p, uint32_t seq, uint32_t end,
						   uint32_t len, uint32_t why,
						   const struct tcp_gapfill *fill,
						   const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];
	const struct tcp_half *r = &c->half[!dir];
	struct tcp_rtx x = {
	    .start = seq,
	    .end = end,
	    .ts = p->ts_ns,
	    .due = c->seg.ts + rtx_settle(c),
	    .frame = p->frame,
	    .input = p->input,
	    .len = len,
	    .rel_seq = seq - h->base,
	    .filled_gap = fill != NULL,
	};

	if (fill) {
		x.by = fill->by;
		if (fill->clk)
			x.clk = *fill->clk;
		if (fill->hole) {
			x.gap_ts = fill->hole->open_ts;
			x.gap_frame = fill->hole->open_frame;
			x.gap_data_pkts = fill->hole->open_data_pkts;
		}
	}
	h->st.retrans++;
	h->st.retrans_bytes += len;
	c->seg.kind |= TCP_SEG_RETRANS | why;
	if (r->have_last_ack && h->have_una && seq_le(end, h->snd_una)) {
		h->st.spurious_retrans++;
		c->seg.kind |= TCP_SEG_SPURIOUS;
		x.spurious = true;
	}
	if (why & TCP_SEG_RTO)
		h->st.rto_retrans++;
	else if (why & TCP_SEG_TLP)
		h->st.tlp_retrans++;
	else if (why & TCP_SEG_FAST)
		h->st.fast_retrans++;
	x.kind = (uint8_t)retrans_kind(why);
	sent_mark_retrans(h, seq);
	rtx_push(c, dir, &x, sink);
}

/* ---- undecided gap fills ---- */

static void late_emit(const struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_late *l,
		      const struct sum_sink *sink)
{
	struct sum_event e;

	if (!sink || !sink->frame)
		return;
	frame_init(&e, SUM_EV_OUT_OF_ORDER, c, dir, l->ts, l->frame, l->input);
	e.bytes = l->len;
	e.rel_seq = l->rel_seq;
	e.extent = l->extent;
	e.by = l->by;
	sum_emit(sink, &e);
}

/* The segment is the late original: count it and tell the detectors. */
static void note_late(struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_late *l,
		      uint32_t seg_flag, const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];

	h->st.out_of_order++;
	h->st.ooo_by[l->by < SUM_BY_COUNT ? l->by : SUM_BY_TIMING]++;
	c->seg.kind |= seg_flag;
	c->late = *l;
	late_emit(c, dir, l, sink);
}

static void pending_remove(struct tcp_half *h, unsigned k)
{
	memmove(&h->pending[k], &h->pending[k + 1], (h->npending - k - 1) * sizeof(h->pending[0]));
	h->npending--;
}

/* Pending fill k of dir stays undecided: nothing more can tell. */
static void pending_undecided(struct tcp_conn *c, enum sum_dir_id dir, unsigned k,
			      const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];
	const struct tcp_late *l = &h->pending[k].late;

	h->st.fills_undecided++;
	if (sink && sink->frame) {
		struct sum_event e;
		frame_init(&e, SUM_EV_FILL_UNDECIDED, c, dir, l->ts, l->frame, l->input);
		e.bytes = l->len;
		e.rel_seq = l->rel_seq;
		e.extent = l->extent;
		e.by = SUM_BY_CAUSALITY;
		sum_emit(sink, &e);
	}
	pending_remove(h, k);
}

static void pending_add(struct tcp_conn *c, enum sum_dir_id dir, uint32_t start, uint32_t end,
			const struct tcp_late *l, const struct tcp_clock *clk, uint32_t why,
			const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];

	if (h->npending == TCP_PENDING)
		pending_undecided(c, dir, 0, sink);
	if (!room((void **)&h->pending, h->npending, &h->cap_pending, sizeof(*h->pending),
		  TCP_PENDING)) {
		h->st.fills_undecided++; /* no memory to wait for a second copy */
		return;
	}
	struct tcp_pending *q = &h->pending[h->npending++];
	q->start = start;
	q->end = end;
	q->late = *l;
	q->clk = *clk;
	q->why = why;
	q->acked_ts = 0;
}

/*
 * A second copy of bytes of an undecided fill arrived (from dir's sender,
 * clock clk): one of the two is the original, the other a retransmission,
 * and the sending order tells which. Returns true when this segment turned
 * out to be the late original (then it is no retransmission).
 */
__attribute__((noinline)) static bool pending_second_copy(struct tcp_conn *c, enum sum_dir_id dir,
							  const struct pkt *p, uint32_t seq,
							  uint32_t end, const struct tcp_clock *clk,
							  const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];

	for (unsigned k = 0; k < h->npending; k++) {
		struct tcp_pending *q = &h->pending[k];
		uint8_t by = SUM_BY_SECOND_COPY;
		if (seq_ge(seq, q->end) || seq_le(end, q->start))
			continue;
		int order = clock_order(clk, &q->clk, ipid_trusted(h), &by);
		if (order > 0) {
			/* This one was sent after: the first was the original. */
			struct tcp_late l = q->late;
			l.by = SUM_BY_SECOND_COPY;
			note_late(c, dir, &l, TCP_SEG_LATE_FOUND, sink);
			pending_remove(h, k);
			return false;
		}
		if (order < 0) {
			/* This one was sent first: it is the original, late even
			 * for its own retransmission, which filled the gap. */
			struct tcp_pending q0 = *q;
			struct pkt p0 = {
			    .ts_ns = q0.late.ts, .frame = q0.late.frame, .input = q0.late.input};
			uint32_t kind = c->seg.kind;
			pending_remove(h, k);
			struct tcp_gapfill gf = {.by = SUM_BY_SECOND_COPY};
			note_retrans(c, dir, &p0, q0.start, q0.end, q0.late.len, q0.why, &gf, sink);
			/* note_retrans() marked this segment; it is not the
			 * retransmission, the earlier one was. */
			c->seg.kind = kind;
			struct tcp_late l = q0.late;
			l.by = SUM_BY_SECOND_COPY;
			l.ts = p->ts_ns;
			l.frame = p->frame;
			l.input = p->input;
			l.data_no = h->st.data_packets;
			l.extent += (uint32_t)(h->st.data_packets - q0.late.data_no);
			note_late(c, dir, &l, TCP_SEG_OOO, sink);
			return true;
		}
		return false; /* the clocks tie again */
	}
	return false;
}

/*
 * How long a pending fill of dir waits once R ACKed it: any retransmission
 * of its bytes left S before S got that ACK, so it would have passed here
 * within the loop to S and back (twice that, plus 2 ms, for queues).
 */
static int64_t pending_wait(const struct tcp_conn *c, enum sum_dir_id dir)
{
	int64_t up = loop_to(c, dir);

	return up >= 0 ? 2 * up + TCP_TLP_MIN_NS : 200000000;
}

/* R's cumulative ACK reached ack: pending fills of dir below it wait no
 * longer for a retransmission S would send. */
__attribute__((noinline)) static void pending_acked(struct tcp_conn *c, enum sum_dir_id dir,
						    uint32_t ack, int64_t now)
{
	struct tcp_half *h = &c->half[dir];

	for (unsigned k = 0; k < h->npending; k++)
		if (!h->pending[k].acked_ts && seq_ge(ack, h->pending[k].end)) {
			h->pending[k].acked_ts = now;
			settle_at(c, now + pending_wait(c, dir) + 1);
		}
}

/* Verdicts that waited and can wait no longer (both directions); then when
 * the next may be final. */
__attribute__((noinline)) static void settle(struct tcp_conn *c, int64_t now,
					     const struct sum_sink *sink)
{
	c->next_settle = 0;
	for (int dir = 0; dir < SUM_DIR_COUNT; dir++) {
		struct tcp_half *h = &c->half[dir];
		int64_t wait = pending_wait(c, (enum sum_dir_id)dir);
		for (unsigned k = 0; k < h->npending;) {
			const struct tcp_pending *q = &h->pending[k];
			if (q->acked_ts && now - q->acked_ts > wait) {
				pending_undecided(c, (enum sum_dir_id)dir, k, sink);
				continue;
			}
			if (q->acked_ts)
				settle_at(c, q->acked_ts + wait + 1);
			k++;
		}
		while (h->rtx_len && now > h->rtx[h->rtx_head].due)
			rtx_pop(c, (enum sum_dir_id)dir, sink);
		if (h->rtx_len)
			settle_at(c, h->rtx[h->rtx_head].due + 1);
	}
}

/* The ACK side of a segment: what it tells about the other direction.
 * Inlined into tcp_segment(), as process_data(): every packet runs both,
 * and out of line their calls and register saves cost some 60
 * instructions a packet (callgrind, 1 M packets); their rare paths are out
 * of line instead. */
static inline __attribute__((always_inline)) void
process_ack(struct tcp_conn *c, enum sum_dir_id dir, const struct dec_packet *d,
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
		hole_open(o, o->snd_nxt, ack, p, o->st.data_packets, NULL);
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
		if (o->have_hull && seq_ge(ack, o->hull_hi))
			o->have_hull = false;
		h->dupack_run = 0;
		if (o->npending)
			pending_acked(c, odir, ack, p->ts_ns);
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
			sum_emit(sink, &e);
			if (o->rtx_len)
				rtx_dsack(c, odir, b[0].left, b[0].right);
		}
		for (unsigned k = dsack ? 1 : 0; k < t->opt.nsack; k++)
			if (seq_gt(b[k].left, ack))
				h->sacking = true;
	}
	/* The first duplicate ACK or SACK about a gap the capture saw in S's
	 * data: S may retransmit once it gets there (decide_fill()). */
	if (o->nholes && ((c->seg.kind & TCP_SEG_DUP_ACK) || h->sacking))
		holes_asked(o, ack, p->ts_ns);
	h->last_ack = ack;
	h->last_win_raw = t->window;
	h->have_last_ack = true;

	if (o->st.isn_known && !c->handshake_done && dir == SUM_C2S && !(t->flags & DEC_TH_SYN) &&
	    c->half[SUM_S2C].syn_seen && ack == c->half[SUM_S2C].st.isn + 1) {
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
		sum_emit(sink, &e);
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

/*
 * Below snd_nxt, in the hull of gaps the table had no room for: whether
 * its bytes were seen before is not known, so neither a retransmission nor
 * a late original is claimed.
 */
__attribute__((noinline)) static void hull_fill(struct tcp_conn *c, enum sum_dir_id dir,
						const struct pkt *p, uint32_t seq, uint32_t len,
						const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];

	h->st.fills_undecided++;
	c->seg.kind |= TCP_SEG_UNDECIDED;
	if (sink && sink->frame) {
		struct sum_event e;
		event_init(&e, SUM_EV_FILL_UNDECIDED, c, dir, p);
		e.bytes = len;
		e.rel_seq = seq - h->base;
		sum_emit(sink, &e);
	}
}

/*
 * Bytes seen before, from a segment (clock clk) that was sent before the
 * retransmission which filled their gap: it is that retransmission's
 * original, overtaken by it -- late, not lost upstream, and no
 * retransmission itself. Returns true when so (the segment is then
 * accounted as out of order).
 */
__attribute__((noinline)) static bool late_after_retrans(struct tcp_conn *c, enum sum_dir_id dir,
							 const struct pkt *p, uint32_t seq,
							 uint32_t end, const struct tcp_clock *clk,
							 const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];

	for (unsigned k = h->rtx_len; k-- > 0;) {
		struct tcp_rtx *x = &h->rtx[(h->rtx_head + k) % h->cap_rtx];
		uint8_t by = SUM_BY_SECOND_COPY;
		if (!x->filled_gap || seq_ge(seq, x->end) || seq_le(end, x->start))
			continue;
		if (clock_order(clk, &x->clk, ipid_trusted(h), &by) >= 0)
			return false;
		x->filled_gap = false;
		h->st.lost_upstream--;
		h->st.lost_upstream_by[x->by < SUM_BY_COUNT ? x->by : SUM_BY_TIMING]--;
		struct tcp_late l = {
		    .ts = p->ts_ns,
		    .gap_ts = x->gap_ts,
		    .frame = p->frame,
		    .gap_frame = x->gap_frame,
		    .data_no = h->st.data_packets,
		    .input = p->input,
		    .len = c->seg.len,
		    .extent = (uint32_t)(h->st.data_packets - 1 - x->gap_data_pkts),
		    .rel_seq = seq - h->base,
		    .queue = c->seg.queue,
		    .by = by,
		};
		note_late(c, dir, &l, TCP_SEG_OOO, sink);
		return true;
	}
	return false;
}

/*
 * [seq, seq + span) of the segment p (end: its end, len: its payload) filled
 * hole, bytes never captured before: decide whether it is the late
 * original (the reorder detector reports it), a retransmission of an
 * original lost upstream of the capture point, or neither yet.
 */
__attribute__((noinline)) static void
fill_gap(struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_params *prm, const struct pkt *p,
	 const struct tcp_clock *clk, const struct tcp_hole *hole, uint32_t seq, uint32_t end,
	 uint32_t span, uint32_t len, uint32_t why, const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];
	uint8_t by = SUM_BY_TIMING;
	/* A bare FIN is no data segment: its overtakers are all the data
	 * segments since the gap, numbers up to the next one. */
	struct tcp_late l = {
	    .ts = p->ts_ns,
	    .gap_ts = hole->open_ts,
	    .frame = p->frame,
	    .gap_frame = hole->open_frame,
	    .data_no = h->st.data_packets + (len ? 0 : 1),
	    .input = p->input,
	    .len = len,
	    .extent = (uint32_t)(h->st.data_packets - (len ? 1 : 0) - hole->open_data_pkts),
	    .rel_seq = seq - h->base,
	    .queue = c->seg.queue,
	};

	c->seg.kind |= TCP_SEG_FILLED_GAP;
	switch (decide_fill(c, dir, prm, clk, hole, p->ts_ns, &by)) {
	case TCP_FILL_LATE:
		l.by = by;
		note_late(c, dir, &l, TCP_SEG_OOO, sink);
		break;
	case TCP_FILL_RETRANS:
		/* The original never passed the capture point: lost upstream of
		 * it (or dropped by the capture, which ACKs of the gap would
		 * have shown instead). */
		note_retrans(c, dir, p, seq, end, len, why,
			     &(struct tcp_gapfill){.by = by, .clk = clk, .hole = hole}, sink);
		h->st.lost_upstream++;
		h->st.lost_upstream_by[by < SUM_BY_COUNT ? by : SUM_BY_TIMING]++;
		break;
	case TCP_FILL_UNDECIDED:
		c->seg.kind |= TCP_SEG_UNDECIDED;
		pending_add(c, dir, seq, seq + span, &l, clk, why, sink);
		break;
	}
}

static inline __attribute__((always_inline)) void
process_data(struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_params *prm,
	     const struct dec_packet *d, const struct pkt *p, const struct sum_sink *sink)
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
				sum_emit(sink, &e);
			}
		}
	}

	struct tcp_clock clk;
	if (seq_ge(seq, h->snd_nxt)) {
		c->seg.kind |= TCP_SEG_NEW_DATA;
		if (seq_gt(seq, h->snd_nxt)) {
			c->seg.kind |= TCP_SEG_OPENED_GAP;
			h->st.lost_segments++;
			if (sink && sink->frame) {
				struct sum_event e;
				event_init(&e, SUM_EV_CAPTURE_GAP, c, dir, p);
				e.bytes = seq - h->snd_nxt;
				e.rel_seq = h->snd_nxt - h->base;
				sum_emit(sink, &e);
			}
			clock_of(&clk, d);
			hole_open(h, h->snd_nxt, seq, p, h->st.data_packets - (len ? 1 : 0), &clk);
		}
		if (len && probe_with_new_data(c, dir, gap)) {
			h->st.tlp_new_data++;
			c->seg.kind |= TCP_SEG_TLP;
			if (sink && sink->frame) {
				struct sum_event e;
				event_init(&e, SUM_EV_TLP_NEW_DATA, c, dir, p);
				e.bytes = len;
				e.rel_seq = seq - h->base;
				sum_emit(sink, &e);
			}
		}
		advance_nxt(h, end);
		sent_push(h, end, p->ts_ns);
	} else if (syn && h->st.isn_known && seq == h->st.isn) {
		/* The SYN again. */
		note_retrans(c, dir, p, seq, end, len, retrans_why(c, dir, prm, seq, end, gap),
			     NULL, sink);
	} else {
		struct tcp_hole hole = {0};
		uint32_t span = seq_lt(h->snd_nxt, end) ? h->snd_nxt - seq : end - seq;
		uint32_t unseen = h->nholes ? holes_fill(h, seq, seq + span, &hole) : 0;
		/* Judged before snd_nxt moves: a probe re-sends the highest. */
		uint32_t why = retrans_why(c, dir, prm, seq, end, gap);

		clock_of(&clk, d);
		if (seq_gt(end, h->snd_nxt)) {
			advance_nxt(h, end); /* a retransmission that also carries new data */
			sent_push(h, end, p->ts_ns);
		}
		if (unseen == span)
			fill_gap(c, dir, prm, p, &clk, &hole, seq, end, span, len, why, sink);
		else if (h->have_hull && seq_lt(seq, h->hull_hi) && seq_gt(seq + span, h->hull_lo))
			hull_fill(c, dir, p, seq, len, sink);
		else if (!(h->npending && pending_second_copy(c, dir, p, seq, end, &clk, sink)) &&
			 !(h->rtx_len && late_after_retrans(c, dir, p, seq, end, &clk, sink)))
			note_retrans(c, dir, p, seq, end, len, why, NULL, sink);
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

	/* Verdicts that waited for later packets (undecided fills, D-SACKs). */
	if (c->next_settle && p->ts_ns >= c->next_settle)
		settle(c, p->ts_ns, sink);

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
		while (h->npending)
			pending_undecided(c, (enum sum_dir_id)dir, 0, sink);
		while (h->rtx_len)
			rtx_pop(c, (enum sum_dir_id)dir, sink);
		if (!h->in_zero_window)
			continue;
		struct sum_event e;
		struct pkt p = {.ts_ns = c->info.last_ts, .frame = c->info.last_frame};
		event_init(&e, SUM_EV_ZERO_WINDOW, c, (enum sum_dir_id) !dir, &p);
		e.ts = h->zw_start;
		e.duration_ns = c->info.last_ts - h->zw_start;
		e.frame_first = h->zw_frame;
		e.input = h->zw_input;
		sum_emit(sink, &e);
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
