/* tcp_holes.c - TCP engine: the gaps in a direction's sequence space, and the tables' memory
 * (the cold block's among them). */
#include <stdlib.h>
#include <string.h>

#include "analyze/engine/tcp_int.h"
#include "common/err.h"

/* ---- the per-direction tables' memory (struct tcp_half) ----
 * The RTT rings: blocks of struct tcp_pools by size class. The gap,
 * pending-fill and retransmission tables grow: tcp_room(). Both are
 * allocated on first need and go back in tcp_conn_release(). */

/*
 * Room for one more element in *arr (n used of *cap, each size bytes):
 * allocated on first need, doubled from 4 up to max. false when it is full
 * at max or memory ran out (counted in *failed; the caller then tracks
 * nothing more, and says so). A growth is rare: a handful per direction at most.
 */
bool tcp_room(struct pool *const *pools, void **arr, uint8_t n, uint8_t *cap, size_t size,
	      unsigned max, uint32_t *failed)
{
	if (n < *cap)
		return true;
	if (*cap >= max)
		return false;
	unsigned want = *cap ? 2u * *cap : TCP_RING_MIN;
	void *p = pool_get_raw(pools[tcp_cls(want)]);
	if (!p) {
		++*failed;
		return false;
	}
	if (*arr) {
		memcpy(p, *arr, n * size);
		pool_put(pools[tcp_cls(*cap)], *arr);
	}
	*arr = p;
	*cap = (uint8_t)want;
	return true;
}

void tcp_table_put(struct pool *const *pools, void **arr, uint8_t *cap)
{
	if (*arr)
		pool_put(pools[tcp_cls(*cap)], *arr);
	*arr = NULL;
	*cap = 0;
}

_Static_assert((TCP_RING_MIN << (TCP_HOLE_CLASSES - 1)) == TCP_MAX_HOLES, "hole classes");
_Static_assert(TCP_TS_RING <= 16, "tcp_half.tsring_echoed has a bit per slot");
_Static_assert((TCP_TS_MIN << (TCP_TS_CLASSES - 1)) == TCP_TS_RING, "TSval ring classes");
_Static_assert((TCP_RING_MIN << (TCP_SENT_CLASSES - 1)) == TCP_SENT_RING, "sent ring classes");
_Static_assert((TCP_RING_MIN << (TCP_PENDING_CLASSES - 1)) == TCP_PENDING, "pending classes");
_Static_assert((TCP_RING_MIN << (TCP_RTX_CLASSES - 1)) == TCP_RTX_RING, "rtx classes");

/* The size classes of one kind of table: pools[k] holds min << k elements
 * of elem bytes. The helpers below each serve every kind. */
static bool classes_new(struct pool **pools, unsigned n, unsigned min, size_t elem)
{
	bool ok = true;

	for (unsigned k = 0; k < n; k++)
		ok &= (pools[k] = pool_new((min << k) * elem, 0)) != NULL;
	return ok;
}

static void classes_free(struct pool **pools, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		pool_free(pools[k]);
		pools[k] = NULL;
	}
}

/* Bytes handed out by pools[0, n). */
static size_t pools_in_use(struct pool *const *pools, unsigned n)
{
	size_t bytes = 0;

	for (unsigned k = 0; k < n; k++)
		if (pools[k])
			bytes += pool_stats(pools[k])->in_use * pool_stats(pools[k])->block_size;
	return bytes;
}

/* pool_get() calls of pools[0, n) that found no memory. */
static uint64_t pools_failed(struct pool *const *pools, unsigned n)
{
	uint64_t failed = 0;

	for (unsigned k = 0; k < n; k++)
		failed += pools[k] ? pool_stats(pools[k])->failed : 0;
	return failed;
}

int tcp_pools_init(struct tcp_pools *tp)
{
	bool ok = true;

	memset(tp, 0, sizeof(*tp));
	ok &= classes_new(tp->sent, TCP_SENT_CLASSES, TCP_RING_MIN, sizeof(struct tcp_sent));
	ok &= classes_new(tp->tsring, TCP_TS_CLASSES, TCP_TS_MIN, sizeof(struct tcp_tsrec));
	ok &= classes_new(tp->holes, TCP_HOLE_CLASSES, TCP_RING_MIN, sizeof(struct tcp_hole));
	ok &=
	    classes_new(tp->pending, TCP_PENDING_CLASSES, TCP_RING_MIN, sizeof(struct tcp_pending));
	ok &= classes_new(tp->rtx, TCP_RTX_CLASSES, TCP_RING_MIN, sizeof(struct tcp_rtx));
	ok &= (tp->cold = pool_new(sizeof(struct tcp_cold), 0)) != NULL;
	if (!ok) {
		tcp_pools_free(tp);
		return ERR_NOMEM;
	}
	return 0;
}

static void classes_budget(struct pool **pools, unsigned n, struct pool_budget *b)
{
	for (unsigned k = 0; k < n; k++)
		pool_set_budget(pools[k], b);
}

void tcp_pools_set_budget(struct tcp_pools *tp, struct pool_budget *b)
{
	classes_budget(tp->sent, TCP_SENT_CLASSES, b);
	classes_budget(tp->tsring, TCP_TS_CLASSES, b);
	classes_budget(tp->holes, TCP_HOLE_CLASSES, b);
	classes_budget(tp->pending, TCP_PENDING_CLASSES, b);
	classes_budget(tp->rtx, TCP_RTX_CLASSES, b);
	pool_set_budget(tp->cold, b);
}

void tcp_pools_free(struct tcp_pools *tp)
{
	classes_free(tp->sent, TCP_SENT_CLASSES);
	classes_free(tp->tsring, TCP_TS_CLASSES);
	classes_free(tp->holes, TCP_HOLE_CLASSES);
	classes_free(tp->pending, TCP_PENDING_CLASSES);
	classes_free(tp->rtx, TCP_RTX_CLASSES);
	classes_free(&tp->cold, 1);
}

size_t tcp_pools_bytes(const struct tcp_pools *tp)
{
	return pools_in_use(tp->sent, TCP_SENT_CLASSES) + pools_in_use(tp->tsring, TCP_TS_CLASSES) +
	       pools_in_use(tp->holes, TCP_HOLE_CLASSES) +
	       pools_in_use(tp->pending, TCP_PENDING_CLASSES) +
	       pools_in_use(tp->rtx, TCP_RTX_CLASSES) + pools_in_use(&tp->cold, 1);
}

uint64_t tcp_conn_grow_failed(const struct tcp_conn *c)
{
	uint64_t n = 0;

	for (int k = 0; k < SUM_DIR_COUNT; k++)
		n += c->half[k].cold ? c->half[k].cold->grow_failed : 0;
	return n;
}

uint64_t tcp_pools_failed(const struct tcp_pools *tp)
{
	/* The gap, fill and retransmission tables' failures are the
	 * connections' grow_failed (tcp_conn_grow_failed), not counted here. */
	return pools_failed(tp->sent, TCP_SENT_CLASSES) + pools_failed(tp->tsring, TCP_TS_CLASSES) +
	       pools_failed(&tp->cold, 1);
}

struct tcp_cold *tcp_cold_take(struct tcp_half *h, struct tcp_pools *tp)
{
	if (!h->cold && tp)
		h->cold = pool_get(tp->cold);
	return h->cold;
}

struct sum_dir_cold *tcp_cold_get(struct tcp_conn *c, struct tcp_half *h)
{
	if (!tcp_cold_take(h, c->tp))
		return c->tp ? &c->tp->cold_lost : NULL;
	return &h->cold->st;
}

void tcp_fold(struct tcp_conn *c, struct tcp_half *h)
{
	struct tcp_cold *cl = tcp_cold_take(h, c->tp);

	for (unsigned k = 0; k < TCP_NARROW; k++) {
		if (cl)
			cl->fold[k] += h->st.narrow[k];
		h->st.narrow[k] = 0;
	}
}

void tcp_widen_stats(const struct tcp_half *h, struct sum_dir_hot *o)
{
	const struct tcp_stats *s = &h->st;

	memset(o, 0, sizeof(*o)); /* padding too: summaries may be spilled whole */
	o->packets = TCP_COUNT(h, packets);
	o->ip_bytes = s->ip_bytes;
	o->data_packets = TCP_COUNT(h, data_packets);
	o->payload_bytes = s->payload_bytes;
	o->unique_bytes = s->unique_bytes;
	o->pure_acks = TCP_COUNT(h, pure_acks);
	o->new_acks = TCP_COUNT(h, new_acks);
	o->oversize = TCP_COUNT(h, oversize);
	o->dup_acks = TCP_COUNT(h, dup_acks);
	o->sack_acks = TCP_COUNT(h, sack_acks);
	o->syn = TCP_COUNT(h, syn);
	o->fin = TCP_COUNT(h, fin);
	o->rst = TCP_COUNT(h, rst);
	o->max_in_flight = s->max_in_flight;
	o->mss = s->mss;
	o->wscale = s->wscale;
	o->min_payload = s->min_payload;
	o->max_payload = s->max_payload;
	o->min_window = s->min_window;
	o->max_window = s->max_window;
	o->rtt = s->rtt;
	o->rtt_ts = s->rtt_ts;
	o->first_ts = s->first_ts;
	o->last_ts = s->last_ts;
	o->first_data_ts = s->first_data_ts;
	o->last_data_ts = s->last_data_ts;
	o->isn = s->isn_known ? h->base : 0;
	o->isn_known = s->isn_known;
}

bool tcp_sent_room(struct tcp_half *h, struct tcp_pools *tp)
{
	unsigned cap = h->sent_cap;

	/* Unzeroed: only the sent_len entries from sent_head are read, and a
	 * connection with short flights takes a ring for each. */
	if (!h->sent)
		return (h->sent = pool_get_raw(tp->sent[tcp_cls(cap)])) != NULL;
	if (h->sent_len < cap)
		return true;
	struct tcp_sent *to = cap < TCP_SENT_RING ? pool_get_raw(tp->sent[tcp_cls(cap) + 1]) : NULL;
	if (!to) {
		/* Full at the largest (or no memory): forget the oldest; its
		 * sample is lost, not wrong. */
		h->sent_head = (h->sent_head + 1) & (cap - 1);
		h->sent_len--;
		return true;
	}
	/* Oldest first from slot 0: the FIFO's order is all that matters. */
	for (unsigned k = 0; k < h->sent_len; k++)
		to[k] = h->sent[(h->sent_head + k) & (cap - 1)];
	pool_put(tp->sent[tcp_cls(cap)], h->sent);
	h->sent = to;
	h->sent_head = 0;
	h->sent_cap = (uint8_t)(2 * cap);
	return true;
}

int tcp_tsring_grow(struct tcp_half *h, struct tcp_pools *tp)
{
	unsigned cap = h->tsring_cap;
	struct tcp_tsrec *to = pool_get(tp->tsring[tcp_ts_cls(cap) + 1]);

	if (!to)
		return ERR_NOMEM;
	/* Same slots (see tsring_add()); the new ones are empty. */
	memcpy(to, h->tsring, cap * sizeof(*to));
	pool_put(tp->tsring[tcp_ts_cls(cap)], h->tsring);
	h->tsring = to;
	h->tsring_cap = (uint8_t)(2 * cap);
	return 0;
}

void tcp_conn_release(struct tcp_conn *c, struct tcp_pools *tp)
{
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		struct tcp_half *h = &c->half[k];
		if (h->sent)
			pool_put(tp->sent[tcp_cls(h->sent_cap)], h->sent);
		if (h->tsring)
			pool_put(tp->tsring[tcp_ts_cls(h->tsring_cap)], h->tsring);
		h->sent = NULL;
		h->tsring = NULL;
		h->sent_head = h->sent_len = h->tsring_head = 0;
		h->tsring_echoed = 0;
		h->ts_mixed = h->ts_hint = 0;
		h->sent_cap = TCP_RING_MIN;
		h->tsring_cap = TCP_TS_MIN;
		struct tcp_cold *hc = h->cold;
		if (!hc)
			continue;
		tcp_table_put(tp->holes, (void **)&hc->holes, &hc->cap_holes);
		tcp_table_put(tp->pending, (void **)&hc->pending, &hc->cap_pending);
		tcp_table_put(tp->rtx, (void **)&hc->rtx, &hc->cap_rtx);
		pool_put(tp->cold, hc);
		h->cold = NULL;
		h->settle_wait = false;
	}
}

/* ---- the gaps ---- */

static void hole_remove(struct tcp_cold *h, unsigned k)
{
	memmove(&h->holes[k], &h->holes[k + 1], (h->nholes - k - 1) * sizeof(h->holes[0]));
	h->nholes--;
}

/* data_before: the direction's data segments before the gap appeared. */
/* opener: the clocks of the segment that opened it, NULL for an ACK. */
void tcp_hole_open(struct tcp_half *h, struct tcp_pools *tp, uint32_t start, uint32_t end,
		   const struct pkt *p, uint64_t data_before, const struct tcp_clock *opener)
{
	struct tcp_cold *hc = tcp_cold_state(h, tp);

	if (!hc)
		return; /* no memory: the gap goes untracked (tcp_pools_failed()) */
	if (!tcp_room(tp->holes, (void **)&hc->holes, hc->nholes, &hc->cap_holes,
		      sizeof(*hc->holes), TCP_MAX_HOLES, &hc->grow_failed)) {
		hc->hole_overflow++;
		hc->hull_lo = hc->have_hull ? seq_min(hc->hull_lo, start) : start;
		hc->hull_hi = hc->have_hull ? seq_max(hc->hull_hi, end) : end;
		hc->have_hull = true;
		return;
	}
	struct tcp_hole *o = &hc->holes[hc->nholes++];
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
__attribute__((noinline)) uint32_t tcp_holes_fill(struct tcp_half *h, struct tcp_pools *tp,
						  uint32_t seq, uint32_t end,
						  struct tcp_hole *first)
{
	struct tcp_cold *hc = h->cold; /* it has gaps */
	uint32_t filled = 0;
	bool found = false;

	for (unsigned k = 0; k < hc->nholes;) {
		struct tcp_hole *o = &hc->holes[k];
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
			hole_remove(hc, k);
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
			if (tcp_room(tp->holes, (void **)&hc->holes, hc->nholes, &hc->cap_holes,
				     sizeof(*hc->holes), TCP_MAX_HOLES, &hc->grow_failed))
				hc->holes[hc->nholes++] = tail;
			else
				hc->hole_overflow++;
		}
		k++;
	}
	return filled;
}

/*
 * The peer acknowledged up to ack: holes below it reached the receiver
 * without passing the capture point (or the capture dropped them).
 */
__attribute__((noinline)) uint64_t tcp_holes_acked(struct tcp_conn *c, enum sum_dir_id dir,
						   uint32_t ack, const struct pkt *p,
						   const struct sum_sink *sink)
{
	struct tcp_half *h = &c->half[dir];
	struct tcp_cold *hc = h->cold; /* it has gaps */
	uint64_t covered = 0;

	for (unsigned k = 0; k < hc->nholes;) {
		struct tcp_hole *o = &hc->holes[k];
		if (seq_ge(o->start, ack)) {
			k++;
			continue;
		}
		uint32_t hi = seq_min(ack, o->end);
		uint32_t bytes = hi - o->start;
		struct sum_event e;

		tcp_cold(c, h)->unseen_bytes += bytes;
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
			hole_remove(hc, k);
			continue;
		}
		o->start = hi;
		k++;
	}
	return covered;
}

/* R asks (duplicate ACK or SACK) for bytes from ack on: note when each
 * gap at or above it was first asked for. */
__attribute__((noinline)) void tcp_holes_asked(struct tcp_half *h, uint32_t ack, int64_t now)
{
	struct tcp_cold *hc = h->cold; /* it has gaps */

	for (unsigned k = 0; k < hc->nholes; k++) {
		struct tcp_hole *o = &hc->holes[k];
		if (!o->trigger_ts && seq_le(ack, o->start))
			o->trigger_ts = now;
	}
}
