/* ring_reader.c - reader threads: kernel ring -> hand-off queue, watermark, stop, iface checks. */
#include "capture/live/ring_int.h"

#include <errno.h>
#include <linux/filter.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/* Longest a reader waits for room in its queue before dropping (see ring_reader_wait). */
#define RING_WAIT_NS (2000 * 1000000LL)
/* Its naps meanwhile: short at first (room usually comes within one write),
 * then doubling to 1 ms, so a writer stuck on a slow disk or pipe does not
 * cost 20 000 wake-ups a second per reader; a queue drains far slower. */
#define RING_WAIT_NAP_MIN_NS 50000l
#define RING_WAIT_NAP_MAX_NS 1000000l

/* How often a reader refreshes its pcap_stats counters. */
#define RING_STATS_NS (200 * 1000000LL)
/* Packets per pcap_dispatch: returns often enough to see a stop request
 * even when the kernel ring stays backed up. */
#define RING_DISPATCH_MAX 1024

/*
 * The queue is full: wait for the consumer rather than drop. While this
 * reader waits it does not return the TPACKET_V3 block it is reading to the
 * kernel, so the kernel ring (the larger buffer, -B) absorbs the burst and,
 * should it fill too, the kernel counts what it cannot store (tp_drops, in
 * ps_drop). Dropping here instead would throw packets away while the kernel
 * ring still had room, and spend CPU copying out packets only to discard
 * them (measured on a 2-CPU veth run with 4 sockets: 11 % dropped from full
 * 16 MiB queues, the kernel rings nearly empty). The consumer never stops
 * consuming until every reader ended, so the wait ends; as a safety net it
 * is bounded (RING_WAIT_NS), after which the packet is a counted drop of
 * ours (queue_drops).
 */
static bool ring_reader_wait(struct ring_reader *rd, uint64_t head, uint64_t need)
{
	int64_t give_up = 0;
	long nap_ns = RING_WAIT_NAP_MIN_NS;

	for (;;) {
		rd->tail_seen = atomic_load_explicit(&rd->tail, memory_order_acquire);
		if (rd->size - (head - rd->tail_seen) >= need) {
			rd->overflow = false;
			return true;
		}
		if (rd->overflow)
			return false;	   /* already waited in vain: drop until there is room */
		ring_wake_consumer(rd->r); /* it may sleep: this batch is not over yet */
		int64_t now = clock_ns(CLOCK_MONOTONIC);
		if (give_up == 0) {
			give_up = now + RING_WAIT_NS;
		} else if (now >= give_up) {
			rd->overflow = true;
			return false;
		}
		struct timespec nap = {0, nap_ns};
		nanosleep(&nap, NULL);
		if (nap_ns < RING_WAIT_NAP_MAX_NS)
			nap_ns *= 2;
	}
}

/*
 * A packet stamped before what this socket had vouched for: its watermark,
 * or its own latest packet (the kernel stamps a packet when it enters a CPU's
 * backlog, netdev_tstamp_prequeue, and a busy CPU can hand it to the socket
 * tens of milliseconds later, after packets other CPUs stamped since). The
 * merge may already have written newer packets of other sockets: counted,
 * and from now on this socket vouches for by ns less, twice over (at most
 * RING_HOLD_MAX_NS), so the same delay does not do it again.
 */
static void ring_reader_late(struct ring_reader *rd, int64_t by)
{
	rd->n_late++;
	if (by > rd->n_late_max)
		rd->n_late_max = by;
	int64_t margin = by < RING_HOLD_MAX_NS / 2 ? 2 * by : RING_HOLD_MAX_NS;
	if (margin > rd->margin_ns)
		rd->margin_ns = margin;
	atomic_store_explicit(&rd->late, rd->n_late, memory_order_relaxed);
	atomic_store_explicit(&rd->late_max_ns, rd->n_late_max, memory_order_relaxed);
	atomic_store_explicit(&rd->hold_ns, rd->margin_ns, memory_order_relaxed);
}

/* pcap_dispatch callback: one memcpy into the queue (waiting for room if need be). */
static void ring_reader_cb(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct ring_reader *rd = (struct ring_reader *)(void *)user;
	int64_t ts =
	    (int64_t)h->ts.tv_sec * CLOCK_NS_PER_S + (int64_t)h->ts.tv_usec * (rd->nano ? 1 : 1000);

	if (ts < rd->r->start_ns) {
		/* Arrived before every socket had joined the group; count only
		 * those after the counters' baseline, which they are part of. */
		if (ts >= rd->r->base_ns)
			rd->n_early++;
		return;
	}
	/* What the merge may have written by now: up to the watermark, or up
	 * to the latest packet of this socket (which it writes as soon as no
	 * other socket has an older one). */
	int64_t vouched = atomic_load_explicit(&rd->watermark, memory_order_relaxed);
	if (rd->high_ts > vouched)
		vouched = rd->high_ts;
	if (__builtin_expect(ts < vouched, 0))
		ring_reader_late(rd, vouched - ts);
	else
		rd->high_ts = ts;
	uint32_t cap = h->caplen;
	rd->n_captured++;
	rd->n_capbytes += cap;
	atomic_store_explicit(&rd->captured, rd->n_captured, memory_order_relaxed);
	atomic_store_explicit(&rd->captured_bytes, rd->n_capbytes, memory_order_relaxed);

	uint64_t len = RING_ALIGN8(RING_REC_HDR + cap);
	uint64_t head = rd->phead;
	uint64_t off = head & rd->mask;
	uint64_t contig = rd->size - off;
	uint64_t need = contig < len ? contig + len : len;

	if (rd->size - (head - rd->tail_seen) < need && !ring_reader_wait(rd, head, need)) {
		rd->n_qdrops++;
		atomic_store_explicit(&rd->queue_drops, rd->n_qdrops, memory_order_relaxed);
		return;
	}
	if (contig < len) {
		if (contig >= RING_REC_HDR) {
			struct ring_rec skip = {.caplen = RING_SKIP, .len = (uint32_t)contig};
			memcpy(rd->buf + off, &skip, sizeof(skip));
		}
		head += contig;
		off = 0;
	}
	struct ring_rec rec = {.ts_ns = ts, .caplen = cap, .wirelen = h->len, .len = (uint32_t)len};
	if (rd->r->have_mac && cap >= 12)
		rec.dir =
		    memcmp(bytes + 6, rd->r->mac, 6) == 0 ? PKT_DIR_OUTBOUND : PKT_DIR_INBOUND;
	else if (rd->r->loopback)
		rec.dir = PKT_DIR_INBOUND; /* outgoing copies are ignored on loopback */
	memcpy(rd->buf + off, &rec, sizeof(rec));
	memcpy(rd->buf + off + RING_REC_HDR, bytes, cap);
	head += len;
	rd->phead = head;
	rd->last_ts = ts;
	atomic_store_explicit(&rd->head, head, memory_order_release);
}

/*
 * After a pcap_dispatch that started at t0 and returned n: the earliest
 * timestamp this socket can still deliver. The kernel fills blocks in order
 * and stamps each socket's packets in arrival order, so nothing to come is
 * older than the last packet queued. When the dispatch emptied the ring of
 * retired blocks (n below its cap), what is left is in the block being
 * filled, retired within two timer periods of opening: nothing older than
 * t0 - lag either. Under load this follows the last packet closely, so the
 * merge holds back only a few milliseconds of the other sockets' traffic.
 */
static void ring_reader_watermark(struct ring_reader *rd, int64_t t0, int64_t lag, int n)
{
	int64_t w = rd->last_ts;

	if (n >= 0 && n < RING_DISPATCH_MAX && t0 - lag > w)
		w = t0 - lag;
	w -= rd->margin_ns; /* what this socket's late packets taught (ring_reader_late()) */
	if (w > atomic_load_explicit(&rd->watermark, memory_order_relaxed))
		atomic_store_explicit(&rd->watermark, w, memory_order_release);
}

/*
 * Stop new packets reaching this socket with a "drop everything" classic
 * BPF program: tpacket_rcv() runs the socket filter before counting, so
 * what arrives afterwards is neither captured nor counted in ps_recv, and
 * the final counters match what was taken (packet(7), SO_ATTACH_FILTER).
 */
static void ring_reader_detach(struct ring_reader *rd)
{
	struct sock_filter insn = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog prog = {.len = 1, .filter = &insn};

	(void)setsockopt(rd->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

/*
 * Is the interface still there and up? libpcap 1.10 swallows the ENETDOWN
 * the kernel reports when a bound interface goes down (packet_notifier()
 * unhooks the socket, and re-hooks it if the interface comes back), so a
 * capture would silently see nothing. Checked with each stats refresh.
 * 0 if fine, else ERR_SYSTEM with a message in msg.
 */
static int ring_reader_check_iface(struct ring_reader *rd, char *msg, size_t len)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%.*s", IFNAMSIZ - 1, rd->r->iface);
	if (ioctl(rd->fd, SIOCGIFFLAGS, &ifr) == -1) {
		if (errno == ENODEV || errno == ENXIO) {
			snprintf(msg, len, "%s: the interface disappeared", rd->r->iface);
			return ERR_SYSTEM;
		}
		return 0; /* e.g. "any": no flags to check */
	}
	if (!(ifr.ifr_flags & IFF_UP)) {
		snprintf(msg, len, "%s: the interface went down", rd->r->iface);
		return ERR_SYSTEM;
	}
	return 0;
}

void *ring_reader_main(void *arg)
{
	struct ring_reader *rd = arg;
	struct ring *r = rd->r;
	struct pollfd pfd = {.fd = rd->fd, .events = POLLIN};
	int64_t next_stats = 0, stop_at = 0;
	bool stopping = false, check_iface = strcmp(r->iface, "any") != 0;
	unsigned err_polls = 0, naps = RING_BUSY_NAPS;
	char why[sizeof(rd->err)] = "";

	/* A packet still in an unretired block is at most two retire periods
	 * old (TPACKET_V3's block timer), plus scheduling slack. */
	const int64_t lag = 2LL * r->cfg.block_timeout_ms * 1000000LL + 20000000LL;
	for (;;) {
		int64_t t0 = clock_ns(CLOCK_REALTIME);
		int n = pcap_dispatch(rd->h, RING_DISPATCH_MAX, ring_reader_cb, (u_char *)rd);
		ring_reader_watermark(rd, t0, lag, n);
		if (n < 0) {
			if (n == PCAP_ERROR && !why[0])
				snprintf(why, sizeof(why), "%s: %s", r->iface, pcap_geterr(rd->h));
			break;
		}
		int64_t now = clock_ns(CLOCK_MONOTONIC);
		if (now >= next_stats) {
			ring_reader_stats(rd);
			next_stats = now + RING_STATS_NS;
			/* On failure: stop below, draining what the ring holds. */
			if (check_iface && !why[0] &&
			    ring_reader_check_iface(rd, why, sizeof(why)) < 0)
				check_iface = false;
		}
		if (why[0] || atomic_load_explicit(&r->stop, memory_order_relaxed)) {
			/*
			 * TPACKET_V3 hands a block to user space when it is
			 * full or when its retire timer (the pcap timeout)
			 * fires, which can take up to two periods: keep
			 * reading that long after detaching so the tail of
			 * the capture is not left in an open block.
			 */
			if (!stopping) {
				stopping = true;
				ring_reader_detach(rd);
				stop_at = now + lag;
			} else if (now >= stop_at) {
				break;
			}
		}
		if (n > 0) {
			naps = 0;
			ring_wake_consumer(r);
			continue;
		}
		/*
		 * Nothing ready. Under load a block will be ready soon: nap
		 * and let several fill, one wake-up per millisecond instead
		 * of one per block (a block is a single page at small
		 * snaplens). When quiet, sleep in poll() until the kernel
		 * retires a block (full, or its timer).
		 */
		if (naps < RING_BUSY_NAPS) {
			naps++;
			struct timespec nap = {0, RING_NAP_NS};
			nanosleep(&nap, NULL);
			continue;
		}
		/* With other sockets to merge with, wake at least once a
		 * retire period: the kernel does not retire an empty block, and
		 * only a fresh watermark lets the others' packets be written. */
		int pr = poll(&pfd, 1, r->n > 1 ? r->cfg.block_timeout_ms : 100);
		if (pr == -1 && errno != EINTR) {
			snprintf(why, sizeof(why), "%s: poll: %s", r->iface, strerror(errno));
			break;
		}
		/*
		 * A socket error is normally turned into an error by the next
		 * pcap_dispatch(); should it not be, do not spin on it.
		 */
		if (pr > 0 && (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))) {
			if (++err_polls >= 50 && !why[0])
				snprintf(why, sizeof(why), "%s: socket error (interface gone?)",
					 r->iface);
		} else {
			err_polls = 0;
		}
	}
	/* Whatever retired blocks remain (nonblocking: ends at 0 or an error). */
	for (unsigned k = 0; k < 1000000; k++)
		if (pcap_dispatch(rd->h, -1, ring_reader_cb, (u_char *)rd) <= 0)
			break;
	ring_reader_stats(rd);
	memcpy(rd->err, why, sizeof(rd->err));
	atomic_store_explicit(&rd->done, 1, memory_order_release);
	ring_wake_consumer(r);
	return NULL;
}
