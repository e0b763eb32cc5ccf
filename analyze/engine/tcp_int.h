/* tcp_int.h - internal to the TCP engine: what its pieces (tcp*.c) share. */
#ifndef TCPSIFT_TCP_INT_H
#define TCPSIFT_TCP_INT_H

/*
 * Internal: only analyze/engine/tcp*.c include this; detectors and
 * everything else read the engine through tcp.h. One module (tcp.h) in four
 * files, one idea each, as libpcap's sf-pcap.c / sf-pcapng.c:
 *
 *   tcp.c        the rules; connection setup and roles; tcp_segment(), the
 *                per-segment entry, with the data, ACK, window and SYN
 *                accounting every packet runs; the end and the summary
 *   tcp_holes.c  the gaps in a direction's sequence space (bytes the capture
 *                never saw), and the memory of the per-direction tables
 *   tcp_fill.c   a segment that fills a gap: the late original or a
 *                retransmission (the sender's clocks, causality), fills left
 *                undecided, and settling the verdicts that wait, at the
 *                end too (tcp_finish(), with the open zero windows)
 *   tcp_rtx.c    retransmissions: why (RTO, TLP, fast), spurious (ACKed,
 *                D-SACK), and their per-frame verdicts, kept until a D-SACK
 *                can no longer come
 *
 * The per-packet path stays in one translation unit: for an in-order
 * segment or a pure ACK, tcp_segment() runs only code of tcp.c and the
 * static inline helpers below. The functions the other files export are
 * the rare paths (a gap opened, filled or ACKed, a retransmission, a
 * D-SACK, a verdict that waited), which were out of line before the split
 * too: no call an ordinary segment makes crosses a file.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyze/engine/seq.h"
#include "analyze/engine/tcp.h"
#include "common/clock.h"

/* Is a side's IP ID a per-connection counter? learn_ipid() (tcp.c) counts
 * its steps, ipid_trusted() (tcp_fill.c) decides. */
enum {
	TCP_IPID_LEARN = 6,	/* counter-like steps needed before trusting IP IDs */
	TCP_IPID_NEAR = 256,	/* a step this small (either sign) is counter-like */
	TCP_IPID_ORDER = 16384, /* IDs further apart than this order nothing */
	TCP_IPID_SKIP_MAX = 64, /* a skip larger than this is no burst of S's own */
};

/* Linux's shortest loss-probe timer: 2 SRTT + TCP_TIMEOUT_MIN (2 jiffies,
 * 2 ms at HZ=1000), tcp_schedule_loss_probe(). No timer-driven
 * retransmission comes sooner after the last transmission. */
#define TCP_TLP_MIN_NS (2ll * 1000000ll)

static const int64_t tcp_no_ts = 0; /* an empty tsring slot */

/* Out of line (tcp_holes.c): tcp_cold()'s and tcp_cold_state()'s first use. */
__attribute__((cold)) struct sum_dir_cold *tcp_cold_get(struct tcp_conn *c, struct tcp_half *h);
__attribute__((cold)) struct tcp_cold *tcp_cold_take(struct tcp_half *h, struct tcp_pools *tp);

/* h's cold counters (struct tcp_half.cold), taken from the pools on their
 * first use; without memory, a scratch block whose counts are lost
 * (tcp_pools_failed() counts them). */
static inline struct sum_dir_cold *tcp_cold(struct tcp_conn *c, struct tcp_half *h)
{
	return __builtin_expect(h->cold != NULL, 1) ? &h->cold->st : tcp_cold_get(c, h);
}

/* h's packets reached TCP_FOLD_AT: its narrow counters go to the cold
 * block's fold[] (out of line, tcp_holes.c; without memory their counts
 * are lost, and tcp_pools_failed() counts it). */
__attribute__((cold)) void tcp_fold(struct tcp_conn *c, struct tcp_half *h);

/* h's live statistics as exported (tcp_summarize()): the narrow counters
 * with what their folds left (tcp_holes.c). */
void tcp_widen_stats(const struct tcp_half *h, struct sum_dir_hot *o);

/* h's cold block for state that must stay its own (gaps, fills,
 * retransmissions, recovery, zero window): NULL without memory, and the
 * caller then tracks nothing (tcp_pools_failed() counts it). */
static inline struct tcp_cold *tcp_cold_state(struct tcp_half *h, struct tcp_pools *tp)
{
	return __builtin_expect(h->cold != NULL, 1) ? h->cold : tcp_cold_take(h, tp);
}

/* ---- events ---- */

/* An event of type about dir's data, at packet p (its fields then set by the caller). */
static inline void event_init(struct sum_event *e, enum sum_event_type type,
			      const struct tcp_conn *c, enum sum_dir_id dir, const struct pkt *p)
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

/* A per-frame verdict of type about dir's data, for frame (in input) at ts. */
static inline void frame_init(struct sum_event *e, enum sum_event_type type,
			      const struct tcp_conn *c, enum sum_dir_id dir, int64_t ts,
			      uint64_t frame, uint32_t input)
{
	struct pkt p = {.ts_ns = ts, .frame = frame, .input = input};

	event_init(e, type, c, dir, &p);
}

/* A waiting verdict of h's direction (h->cold: it has some) may be
 * final from t on: tcp_settle() then looks. */
static inline void settle_at(struct tcp_half *h, int64_t t)
{
	struct tcp_cold *hc = h->cold;

	if (!hc->settle || t < hc->settle)
		hc->settle = t > 0 ? t : 1;
	h->settle_wait = true;
}

/* May a waiting verdict of either direction be final at now? */
static inline bool tcp_settle_due(const struct tcp_conn *c, int64_t now)
{
	const struct tcp_half *a = &c->half[0], *b = &c->half[1];

	return (a->settle_wait && now >= a->cold->settle) ||
	       (b->settle_wait && now >= b->cold->settle);
}

/* ---- RTT samples (RFC 6298 sec. 3, RFC 7323 sec. 4) ----
 * Inline: tcp_segment() runs them for every data segment, ACK and TSval;
 * tcp_note_retrans() (tcp_rtx.c) marks the sent ring for Karn's rule. */

static inline void rtt_add(struct sum_rtt *r, int64_t v)
{
	if (v < 0)
		return; /* capture timestamps went backwards: no sample */
	if (r->n == 0 || v < r->min_ns)
		r->min_ns = v;
	if (r->n == 0 || v > r->max_ns)
		r->max_ns = v;
	r->sum_ns = clock_sat_add(r->sum_ns, v);
	r->n++;
}

/* RFC 6298 sec. 2 smoothed RTT and variance (alpha 1/8, beta 1/4). */
static inline void srtt_update(struct tcp_half *h, int64_t rtt)
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

/* The size class of a ring or table of cap (a power of two >= TCP_RING_MIN)
 * elements: its pool in struct tcp_pools. */
static inline unsigned tcp_cls(unsigned cap)
{
	return (unsigned)__builtin_ctz(cap) - (unsigned)__builtin_ctz(TCP_RING_MIN);
}

/* ... of a TSval ring (from TCP_TS_MIN). */
static inline unsigned tcp_ts_cls(unsigned cap)
{
	return (unsigned)__builtin_ctz(cap) - (unsigned)__builtin_ctz(TCP_TS_MIN);
}

/* Out of line (tcp_holes.c): give h a sent ring with room for one more
 * (a new one, the next size class, or the oldest forgotten at the
 * largest); false: no memory, no ring. */
bool tcp_sent_room(struct tcp_half *h, struct tcp_pools *tp);
/* Move h's full TSval ring into a block of the next size class; ERR_NOMEM
 * (the ring unchanged) when no memory. */
int tcp_tsring_grow(struct tcp_half *h, struct tcp_pools *tp);

/* A segment of h's side ending at end left at ts: an RTT sample to come.
 * The ring comes from tp when h had nothing in flight (sent_acked() gives
 * an emptied one back); with a ring, a segment costs a pointer test. */
static inline void sent_push(struct tcp_half *h, struct tcp_pools *tp, uint32_t end, int64_t ts)
{
	if (__builtin_expect(!h->sent || h->sent_len == h->sent_cap, 0) && !tcp_sent_room(h, tp))
		return; /* no memory: no sample (tcp_pools_failed() counts it) */

	unsigned idx = (h->sent_head + h->sent_len) & (h->sent_cap - 1u);

	h->sent[idx].end = end;
	h->sent[idx].ts = ts;
	h->sent[idx].retransmitted = false;
	h->sent_len++;
}

/* Karn: segments overlapping a retransmission give no RTT sample.
 * (sent_len is 0 without a ring, here and in sent_acked().) */
static inline void sent_mark_retrans(struct tcp_half *h, uint32_t seq)
{
	unsigned mask = h->sent_cap - 1u;

	for (unsigned k = 0; k < h->sent_len; k++) {
		struct tcp_sent *s = &h->sent[(h->sent_head + k) & mask];
		if (seq_gt(s->end, seq))
			s->retransmitted = true;
	}
}

/* The peer's cumulative ACK reached ack: pop covered segments, take a
 * sample (returned, -1 none). A ring it empties goes back to tp: what it
 * held can no longer matter, and a live connection spends most of its
 * time with nothing in flight (an idle one holds no ring); the next
 * sent_push() takes one again. */
static inline int64_t sent_acked(struct tcp_half *h, struct tcp_pools *tp, uint32_t ack,
				 int64_t now)
{
	int64_t sample = -1;
	unsigned mask = h->sent_cap - 1u;

	while (h->sent_len) {
		struct tcp_sent *s = &h->sent[h->sent_head];
		if (seq_gt(s->end, ack))
			break;
		sample = s->retransmitted ? -1 : now - s->ts;
		h->sent_head = (h->sent_head + 1) & mask;
		if (!--h->sent_len) {
			pool_put(tp->sent[tcp_cls(h->sent_cap)], h->sent);
			h->sent = NULL;
			h->sent_head = 0;
		}
	}
	if (sample >= 0) {
		rtt_add(&h->st.rtt, sample);
		srtt_update(h, sample);
	}
	return sample;
}

/* The slot of the TSval h's side sent last (its ring exists). */
static inline unsigned tsring_newest(const struct tcp_half *h)
{
	return (h->tsring_head + h->tsring_cap - 1) & (h->tsring_cap - 1);
}

/* An add this far above the newest TSval at most keeps tsring's order
 * plain (tcp_half.ts_mixed): sixteen such steps span under 2^31, where
 * serial comparison (RFC 7323 5.2) is an order. A TSval clock ticks
 * 1-1000 times a second (RFC 7323 5.4): 2^26 ticks is 18 hours. */
#define TCP_TS_STEP_MAX (1u << 26)

/* h's side sent TSval tsval at ts: an RTT sample when the peer echoes it.
 * The ring comes from tp the first time, as in sent_push(). Slots fill
 * from 0 and only the largest class wraps, so a smaller ring is the
 * largest one's first slots (the rest empty): growing keeps every slot
 * where it was, and tsring_echo() finds what it would have found. */
static inline void tsring_add(struct tcp_half *h, struct tcp_pools *tp, uint32_t tsval, int64_t ts)
{
	unsigned cap = h->tsring_cap;
	unsigned last = tsring_newest(h);

	if (__builtin_expect(!h->tsring, 0)) {
		if (!(h->tsring = pool_get(tp->tsring[tcp_ts_cls(cap)])))
			return; /* no memory: no sample */
	} else {
		const struct tcp_tsrec *n = &h->tsring[last];
		if (n->ts != tcp_no_ts && n->tsval == tsval)
			return; /* same ms tick: keep the first time it was seen */
		/* Anything but a small step up (a TSval again, reordered
		 * segments, a jump): the ring is not in order until every
		 * slot it fills has been written again since. */
		if (tsval - n->tsval - 1 >= TCP_TS_STEP_MAX - 1)
			h->ts_mixed = TCP_TS_RING;
		else if (h->ts_mixed)
			h->ts_mixed--;
	}
	if (__builtin_expect(ts == tcp_no_ts, 0))
		h->ts_mixed = TCP_TS_RING; /* a sample at time 0 looks empty */
	if (__builtin_expect(h->tsring_head == cap, 0) && tcp_tsring_grow(h, tp) < 0)
		h->tsring_head = 0; /* no memory: wrap early (older samples lost) */
	h->tsring[h->tsring_head].tsval = tsval;
	h->tsring[h->tsring_head].ts = ts;
	h->tsring_echoed &= (uint16_t) ~(1u << h->tsring_head);
	if (++h->tsring_head == TCP_TS_RING)
		h->tsring_head = 0;
}

/* The lowest slot of tsring holding tsecr, -1 none. A ring in order
 * (!ts_mixed: every slot empty or written in TSval order, no TSval twice)
 * has one at most: the walk starts where the last echo matched, as echoes
 * move on with the data, and goes towards tsecr until it is passed. */
static inline int tsring_find(const struct tcp_half *h, uint32_t tsecr)
{
	const struct tcp_tsrec *ring = h->tsring;
	unsigned cap = h->tsring_cap, mask = cap - 1, newest = tsring_newest(h);

	if (__builtin_expect(h->ts_mixed, 0)) {
		for (unsigned i = 0; i < cap; i++)
			if (ring[i].tsval == tsecr && ring[i].ts != tcp_no_ts)
				return (int)i;
		return -1;
	}
	unsigned i = h->ts_hint & mask;
	if (ring[i].ts == tcp_no_ts)
		i = newest;
	int32_t d = (int32_t)(ring[i].tsval - tsecr);
	if (d < 0) { /* older than tsecr: on towards the newest */
		while (i != newest) {
			i = (i + 1) & mask;
			if ((d = (int32_t)(ring[i].tsval - tsecr)) >= 0)
				break;
		}
	} else if (d > 0) { /* back towards the oldest, if tsecr is not older */
		unsigned oldest = (newest + 1) & mask;
		if (ring[oldest].ts == tcp_no_ts)
			oldest = 0; /* not wrapped yet */
		if ((int32_t)(ring[oldest].tsval - tsecr) > 0)
			return -1; /* older than the ring: no longer held */
		/* Ends at the oldest at the latest (n: bounded all the same). */
		for (unsigned n = cap; d > 0 && n; n--) {
			i = (i - 1) & mask;
			d = (int32_t)(ring[i].tsval - tsecr);
		}
	}
	return d == 0 && ring[i].ts != tcp_no_ts ? (int)i : -1;
}

/* The peer echoed tsecr: a sample for h's side, the first echo only
 * (true: taken). */
static inline bool tsring_echo(struct tcp_half *h, uint32_t tsecr, int64_t now)
{
	if (!h->tsring)
		return false; /* it never sent a TSval */
	int i = tsring_find(h, tsecr);
	if (i < 0)
		return false;
	h->ts_hint = (uint8_t)i;
	uint16_t bit = (uint16_t)(1u << i);
	if (h->tsring_echoed & bit)
		return false;
	h->tsring_echoed |= bit;
	rtt_add(&h->st.rtt_ts, now - h->tsring[i].ts);
	return true;
}

/* ---- tcp_holes.c: the gaps in a direction's sequence space ---- */

/* Room for one more element in *arr, from pools (by size class) on first
 * need (false: full, or no memory: then counted in *failed). */
bool tcp_room(struct pool *const *pools, void **arr, uint8_t n, uint8_t *cap, size_t size,
	      unsigned max, uint32_t *failed);
/* Give *arr (cap elements, from pools) back; *arr NULL, *cap 0 after. */
void tcp_table_put(struct pool *const *pools, void **arr, uint8_t *cap);
/* [start, end) of h's sequence space was skipped: a gap (opener NULL: by an ACK). */
void tcp_hole_open(struct tcp_half *h, struct tcp_pools *tp, uint32_t start, uint32_t end,
		   const struct pkt *p, uint64_t data_before, const struct tcp_clock *opener);
/* [seq, end) arrived: the bytes that were in gaps; *first the gap of the lowest. */
uint32_t tcp_holes_fill(struct tcp_half *h, struct tcp_pools *tp, uint32_t seq, uint32_t end,
			struct tcp_hole *first);
/* R ACKed up to ack: gaps below it are capture loss (events to sink); bytes. */
uint64_t tcp_holes_acked(struct tcp_conn *c, enum sum_dir_id dir, uint32_t ack, const struct pkt *p,
			 const struct sum_sink *sink);
/* R asked (dup ACK, SACK) for bytes from ack on: stamp the gaps there. */
void tcp_holes_asked(struct tcp_half *h, uint32_t ack, int64_t now);

/* ---- tcp_rtx.c: retransmissions ---- */

/* A retransmission that filled a gap of the capture: what decided it. */
struct tcp_gapfill {
	uint8_t by;
	const struct tcp_clock *clk;
	const struct tcp_hole *hole;
};

/* Why [seq, end) was re-sent after gap ns of silence: TCP_SEG_RTO/TLP/FAST or 0.
 * unseen: S's IP ID says it sent packets since its last one captured. */
uint32_t tcp_retrans_why(const struct tcp_conn *c, enum sum_dir_id dir,
			 const struct tcp_params *prm, uint32_t seq, uint32_t end, int64_t gap,
			 bool unseen);
/* Did h's side send packets the capture never saw between its last one
 * and d (its IPv4 ID, a counter of the connection's alone, skipped)? */
bool tcp_ipid_skipped(const struct tcp_conn *c, const struct tcp_half *h,
		      const struct dec_packet *d);
/* Account a retransmission (fill: the gap it filled, or NULL); its verdict
 * goes to sink once no D-SACK can change it. */
void tcp_note_retrans(struct tcp_conn *c, enum sum_dir_id dir, const struct pkt *p, uint32_t seq,
		      uint32_t end, uint32_t len, uint32_t why, const struct tcp_gapfill *fill,
		      const struct sum_sink *sink);
/* R's D-SACK [left, right) about dir's data: the retransmission was spurious. */
void tcp_rtx_dsack(struct tcp_conn *c, enum sum_dir_id dir, uint32_t left, uint32_t right);
/* The oldest waiting retransmission verdict of dir is final: emit it. */
void tcp_rtx_pop(struct tcp_conn *c, enum sum_dir_id dir, const struct sum_sink *sink);

/* ---- tcp_fill.c: gap fills, and the verdicts that wait ---- */

/* A segment's [seq, seq + span) were all in a gap: late original, retransmission, or undecided. */
void tcp_fill_gap(struct tcp_conn *c, enum sum_dir_id dir, const struct tcp_params *prm,
		  const struct pkt *p, const struct tcp_clock *clk, const struct tcp_hole *hole,
		  uint32_t seq, uint32_t end, uint32_t span, uint32_t len, uint32_t why,
		  const struct sum_sink *sink);
/* A segment inside the hull of untracked gaps: undecided. */
void tcp_hull_fill(struct tcp_conn *c, enum sum_dir_id dir, const struct pkt *p, uint32_t seq,
		   uint32_t len, const struct sum_sink *sink);
/* Bytes seen before: a second copy of an undecided fill? true: this one is the late original. */
bool tcp_pending_second_copy(struct tcp_conn *c, enum sum_dir_id dir, const struct pkt *p,
			     uint32_t seq, uint32_t end, const struct tcp_clock *clk,
			     const struct sum_sink *sink);
/* Bytes seen before: the original of a gap-filling retransmission? true: late, accounted. */
bool tcp_late_after_retrans(struct tcp_conn *c, enum sum_dir_id dir, const struct pkt *p,
			    uint32_t seq, uint32_t end, const struct tcp_clock *clk,
			    const struct sum_sink *sink);
/* R's cumulative ACK reached ack: undecided fills below it start their last wait. */
void tcp_pending_acked(struct tcp_conn *c, enum sum_dir_id dir, uint32_t ack, int64_t now);
/* Undecided fill k of dir stays undecided: count it, emit its verdict. */
void tcp_pending_undecided(struct tcp_conn *c, enum sum_dir_id dir, unsigned k,
			   const struct sum_sink *sink);
/* Make final the verdicts that can wait no longer at now (tcp_settle_due()). */
void tcp_settle(struct tcp_conn *c, int64_t now, const struct sum_sink *sink);
/* dir's side reopened its window at p (or the connection ended): the
 * zero-window episode in its cold block is over, its event goes to sink. */
void tcp_zw_close(struct tcp_conn *c, enum sum_dir_id dir, const struct pkt *p,
		  const struct sum_sink *sink);

#endif
