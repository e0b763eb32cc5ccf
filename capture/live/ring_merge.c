/* ring_merge.c - the consumer: the queues merged in time order (ring_next), and the wake-up. */
#include "capture/live/ring_int.h"

#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long ring_futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

/* After queueing packets: wake the consumer if it sleeps (seq_cst pairs with
 * the consumer's store to `sleeping` and re-check of the queues). */
void ring_wake_consumer(struct ring *r)
{
	atomic_thread_fence(memory_order_seq_cst); /* head store before the load below */
	if (atomic_load(&r->sleeping)) {
		atomic_fetch_add(&r->wake, 1);
		ring_futex(&r->wake, FUTEX_WAKE_PRIVATE, 1, NULL);
	}
}

/* The head record of rd's queue into *rec (skips consumed); false if empty. */
static bool ring_peek(struct ring_reader *rd, struct ring_rec *rec)
{
	uint64_t tail = rd->ctail;

	for (;;) {
		if (tail == rd->head_seen) {
			rd->head_seen = atomic_load_explicit(&rd->head, memory_order_acquire);
			if (tail == rd->head_seen)
				break;
		}
		uint64_t off = tail & rd->mask;
		uint64_t contig = rd->size - off;
		if (contig < RING_REC_HDR) {
			tail += contig;
			continue;
		}
		memcpy(rec, rd->buf + off, sizeof(*rec));
		if (rec->caplen == RING_SKIP) {
			tail += rec->len;
			continue;
		}
		rd->ctail = tail;
		return true;
	}
	if (tail != rd->ctail) {
		rd->ctail = tail;
		atomic_store_explicit(&rd->tail, tail, memory_order_release);
	}
	return false;
}

/* Has any reader queued something (or ended) since the consumer looked? */
static bool ring_any_ready(struct ring *r)
{
	for (unsigned k = 0; k < r->n; k++)
		if (atomic_load(&r->rd[k].head) != r->rd[k].ctail || atomic_load(&r->rd[k].done))
			return true;
	return false;
}

/*
 * Every queue is empty. While busy, nap 1 ms so the next look finds a batch
 * (one wake-up per millisecond, not one per packet); when quiet, sleep on
 * the futex until a reader queues packets or wait_ns passes. The store to
 * `sleeping`, the re-check and the reader's fence + load of `sleeping`
 * make a lost wake-up impossible (and it would only cost wait_ns).
 */
static void ring_wait_for_packets(struct ring *r, int64_t wait_ns)
{
	if (r->naps < RING_BUSY_NAPS) {
		r->naps++;
		struct timespec nap = {0, RING_NAP_NS};
		nanosleep(&nap, NULL);
		return;
	}
	uint32_t v = atomic_load(&r->wake);
	atomic_store(&r->sleeping, 1);
	if (!ring_any_ready(r)) {
		struct timespec ts = {wait_ns / CLOCK_NS_PER_S, wait_ns % CLOCK_NS_PER_S};
		ring_futex(&r->wake, FUTEX_WAIT_PRIVATE, v, &ts);
	}
	atomic_store(&r->sleeping, 0);
}

int ring_next(struct ring *r, struct pkt *p, unsigned *sock, int timeout_ms)
{
	int64_t deadline = 0;

	if (r->pending >= 0) {
		struct ring_reader *rd = &r->rd[r->pending];
		rd->ctail += r->pending_len;
		atomic_store_explicit(&rd->tail, rd->ctail, memory_order_release);
		r->pending = -1;
	}
	for (;;) {
		int best = -1;
		struct ring_rec rec, best_rec = {0};
		bool all_done = true;

		int64_t limit = INT64_MAX;
		for (unsigned k = 0; k < r->n; k++) {
			/* done and the watermark before the peek: their release
			 * stores follow the records they vouch for. */
			int done = atomic_load_explicit(&r->rd[k].done, memory_order_acquire);
			int64_t w = atomic_load_explicit(&r->rd[k].watermark, memory_order_acquire);
			if (ring_peek(&r->rd[k], &rec)) {
				all_done = false;
				if (best < 0 || rec.ts_ns < best_rec.ts_ns) {
					best = (int)k;
					best_rec = rec;
				}
			} else if (!done) {
				all_done = false;
				/* Empty but alive: it may still hand over packets
				 * older than the others' (a block not yet retired). */
				if (w < limit)
					limit = w;
			}
		}
		/* Merge in time order: write the oldest head only once no empty
		 * socket can still deliver something older. */
		if (best >= 0 && best_rec.ts_ns > limit)
			best = -1;
		if (best >= 0) {
			struct ring_reader *rd = &r->rd[best];
			memset(p, 0, sizeof(*p));
			p->ts_ns = best_rec.ts_ns;
			p->data = rd->buf + (rd->ctail & rd->mask) + RING_REC_HDR;
			p->caplen = best_rec.caplen;
			p->wirelen = best_rec.wirelen;
			p->linktype = r->linktype;
			if (best_rec.dir != PKT_DIR_UNKNOWN) {
				p->epb_flags = best_rec.dir;
				p->have |= PKT_HAVE_FLAGS;
			}
			p->iface = (uint32_t)best;
			if (r->qm) {
				p->queue = (uint32_t)best;
				p->have |= PKT_HAVE_QUEUE;
			}
			p->frame = ++r->frames;
			*sock = (unsigned)best;
			r->pending = best;
			r->pending_len = best_rec.len;
			r->naps = 0;
			return 1;
		}
		if (all_done)
			return RING_END;
		int64_t now = clock_ns(CLOCK_MONOTONIC);
		if (deadline == 0)
			deadline = now + (int64_t)timeout_ms * 1000000LL;
		if (now >= deadline)
			return 0;
		ring_wait_for_packets(r, deadline - now);
	}
}
