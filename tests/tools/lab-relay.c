/*
 * lab-relay.c - an AF_PACKET relay between two interfaces that reorders, delays,
 * rate-limits or drops on purpose, for the network-namespace labs (netem is
 * not in this kernel).
 *
 *   lab-relay -a IF_A -b IF_B [options]
 *
 * Run it in a middle namespace holding one end of two veth pairs, with no
 * addresses and ip_forward off: every frame read on one interface is written
 * unchanged to the other (both ways), so A and B talk as if on one wire. The
 * endpoints need checksum offload and TSO/GSO off (LAB-NOTES.md), or frames
 * arrive with partial checksums / as 64 KiB super-frames.
 *
 * 1. Holding (A -> B only, TCP segments with payload and no SYN/FIN/RST,
 * IPv4 or IPv6 with TCP right after the fixed header): a chosen data
 * segment is held and written after --hold-count later A -> B data segments
 * went past it, or after --hold-us, whichever comes first; one segment is
 * held at a time.
 *   --hold-every N    hold every Nth data segment
 *   --hold-pct P      hold each data segment with probability P % (--seed)
 *   --hold-count K    later data segments that overtake it (default 2)
 *   --hold-us T       longest hold (default 20000)
 * Ground truth: with --log FILE one line per held segment (IP ID, TCP seq,
 * length, TSval, how many data segments overtook it, and whether one of them
 * carried the same bytes, i.e. its own retransmission overtook it: then a
 * capture behind the relay sees the retransmission first and the original
 * as a duplicate, not as out of order). The closing line on stderr counts
 * "reordered": held segments overtaken by >= 1 data segment and by no copy
 * of themselves -- what an observer behind the relay must call out of order.
 *
 * 2. Queues (--queues N): the relay plays a multi-queue NIC. A -> B frames
 * go to one of N queue threads; thread k runs on CPU k (of --cpus, default
 * the CPUs allowed) and writes with PACKET_QDISC_BYPASS, so the kernel puts
 * its frames on TX queue (cpu % queues) of IF_B (packet_pick_tx_queue()),
 * which for a veth is the peer's RX queue. The flow moves to the next queue
 * after every --switch-every M data segments, as ixgbe's ATR moved a flow
 * when the scheduler migrated its sender (seeds/netdev-2012-ixgbe-...).
 * Queue k delivers each frame --queue-delay-us D0,D1,... after it arrived
 * (one queue's CPU is slower: interrupt moderation, a busy CPU); each queue
 * stays in order, so when the flow switches to a faster queue its frames
 * overtake those still waiting in the slower one: reordering across queues.
 * Ground truth: --log FILE gets one line per A -> B data segment as it is
 * written ("sent order=... d=... q=... seq=... len=... tsval=..."; d is the
 * arrival order), and the closing line counts "late" segments (written after
 * one that arrived after them) and queue switches.
 *
 * 3. Paths (--paths N, 2..8): multipath spraying, heavy reordering A -> B.
 * Every A -> B frame (data, pure ACKs, SYN, FIN, anything) takes one of N
 * paths, chosen per frame uniformly at random (--spray random, --seed) or
 * in turn (--spray rr); path k delays it by --base-us B (default 0) plus
 * k * --spread-us S / (N - 1) microseconds. B -> A goes straight through.
 * A frame's arrival is when the kernel received it (SO_TIMESTAMPNS), not
 * when the relay read it: frames read in one batch keep their own times. One
 * thread, one delay line: frames wait in a pool (RELAY_POOL slots of
 * RELAY_SLOT_FRAME bytes, read there by recvmmsg) ordered by due time in a
 * binary min-heap (ties: arrival order); one loop reads both interfaces and
 * writes every frame whose time has come, in due order, sleeping in ppoll
 * until the next one (timer slack 1 ns). A frame larger than a slot, or one
 * read while the pool is full, is written at once and counted "unsprayed".
 * Ground truth is what was written, not the schedule: --log FILE starts with
 * a "# lab-relay paths=..." line giving the path delays, then one line per
 * A -> B data segment (IPv4 or IPv6 TCP, payload > 0, no SYN/FIN/RST) as it
 * is written: "sent order=O d=D path=K seq=S len=L tsval=T ipid=I fam=4|6
 * delay_us=X read_us=R t=NS" (order: write order; d: arrival order, 1-based
 * over data segments; path -1: unsprayed; ipid "-" for IPv6; delay_us: from
 * its arrival to its write; read_us: from its arrival until the relay read
 * it, the wait in the socket; t: the write, CLOCK_MONOTONIC ns). The closing line counts "late"
 * segments (written after a data segment that arrived after them, overtaken by their own
 * retransmission or not), "unsprayed" frames, the most frames waiting at once (max_pending) and the
 * frames of each path. tests/tools/lab-relay-truth.py reads the log (late, copy, extent, ...).
 *
 * 4. Path (any of the options below, alone or together; not with modes 1-3):
 * an emulated path, each direction its own link, so a path can be
 * asymmetric. Both directions wait in the delay line of mode 3 (one thread,
 * pool + heap, kernel arrival stamps on both interfaces). A frame arriving
 * at t on a link is
 *   - dropped with probability --loss-ab-pct / --loss-ba-pct P % if it is a
 *     data segment (TCP payload > 0, no SYN/FIN/RST: handshakes, ACKs and
 *     FINs are never lost at random, so every random drop costs the sender
 *     exactly one retransmission); --seed S, one random stream per direction;
 *   - with --rate-ab / --rate-ba MBIT, put in a FIFO bottleneck queue of
 *     --queue-pkts N frames (default 1000; the frame being sent counts):
 *     tail-dropped when N are queued (any frame: ACKs too), else it leaves
 *     at max(t, the previous departure) + len * 8 / rate (len: the Ethernet
 *     frame as read, no FCS or preamble);
 *   - then delivered --delay-ab-us / --delay-ba-us D later, plus a uniform
 *     0..--jitter-us J, but never before the previous frame of its direction:
 *     a link keeps its order (jitter is queueing, not reordering).
 * Ground truth: --log FILE starts with a "# lab-relay path ..." line giving
 * the configuration (written once the sockets are open: a script may wait
 * for it), then one line per drop: "drop why=loss|queue dir=ab|ba data=0|1
 * seq=S len=L ipid=I fam=4|6 queued=Q t=NS" (ipid "-" for IPv6; queued: the
 * bottleneck queue then; t: its kernel arrival, CLOCK_MONOTONIC ns). The
 * closing line gives per direction ab_/ba_ forwarded, dropped_queue,
 * dropped_loss, max_queue (most frames in the bottleneck queue), max_late_us
 * (the relay's own error: the longest a frame was written after its due
 * time, e.g. while the relay waited for a CPU), then "late"
 * (A -> B data segments written after one that arrived after them: 0 unless
 * the relay is broken), "unscheduled" (frames larger than a slot or read
 * with the pool full, written at once: 0 on a sound run) and max_pending.
 *
 * --rt PRIO (any mode) runs the relay SCHED_FIFO at PRIO with its memory
 * locked: on a 2-core host the transfer it carries (two lab-peers, three
 * tcpdumps) otherwise keeps it from a CPU for tens of ms (max_late_us).
 *
 * Bounded by --timeout SEC (default 30) and ended by SIGINT/SIGTERM; exit 0
 * after a clean run, 1 on errors, 2 on usage errors.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

enum {
	RELAY_FRAME_MAX = 65536,
	RELAY_MAX_QUEUES = 8,
	RELAY_SLOT_FRAME = 9216, /* slots: wire-sized frames (offloads off), jumbo MTUs included */
	RELAY_SLOTS = 2048,	 /* per queue; a full queue makes the reader wait */
	RELAY_MAX_PATHS = 8,
	RELAY_POOL = 16384, /* paths: frames waiting; a full pool writes at once */
	RELAY_BATCH = 64,   /* frames per recv round */
	RELAY_AB = 0,	    /* path: the two directions */
	RELAY_BA,
	RELAY_DIRS,
	RELAY_QUEUE_MAX = 4096, /* path: --queue-pkts; two full queues fit the pool */
};

/* Path mode (4): what one direction of the emulated path does. */
struct relay_link_opts {
	int64_t delay_ns, jitter_ns;
	double rate_mbit, loss_pct; /* 0: no bottleneck, no loss */
};

struct relay_opts {
	const char *if_a, *if_b, *log_path;
	unsigned hold_every, hold_pct, hold_count;
	int64_t hold_ns;
	unsigned seed, timeout;
	unsigned queues, switch_every;
	int64_t qdelay_ns[RELAY_MAX_QUEUES];
	int cpus[RELAY_MAX_QUEUES];
	unsigned ncpus;
	unsigned paths;
	int64_t spread_ns, base_ns;
	bool spray_rr;
	bool path; /* any path option given */
	struct relay_link_opts link[RELAY_DIRS];
	int64_t jitter_ns;
	unsigned queue_pkts; /* 0: not given */
	unsigned rt_prio;    /* --rt: SCHED_FIFO priority, 0: not asked */
};

/* What we know about a TCP data segment (for the ground-truth log). */
struct relay_seg {
	bool data;     /* IPv4/IPv6 TCP, payload > 0, no SYN/FIN/RST */
	uint8_t fam;   /* 4, 6; 0: not TCP */
	uint16_t ipid; /* IPv4 only */
	uint32_t seq, len, tsval;
};

struct relay_held {
	bool on;
	uint8_t frame[RELAY_FRAME_MAX];
	size_t flen;
	struct relay_seg seg;
	int64_t since;
	unsigned overtaken;
	bool by_copy;
};

struct relay_stats {
	uint64_t fwd_ab, fwd_ba, eligible, held, reordered, by_copy, not_overtaken;
	uint64_t switches;
	unsigned max_overtaken;
	atomic_uint_fast64_t send_err;
};

struct relay_slot {
	uint8_t frame[RELAY_SLOT_FRAME];
	uint32_t len;
	int64_t due;
	uint64_t d; /* arrival order of a data segment, 0 for other frames */
	struct relay_seg seg;
	int64_t arrived, read; /* paths: when the kernel received it, when we read it */
	int path;	       /* paths: -1 unsprayed */
	uint8_t dir;	       /* RELAY_AB, RELAY_BA (path mode; paths: always A -> B) */
};

/* Single producer (the reader) / single consumer (the queue's thread). */
struct relay_queue {
	unsigned idx;
	int cpu, fd;
	int64_t delay_ns;
	struct relay_slot *slots;
	atomic_uint head, tail;
	uint64_t sent;
	pthread_t thread;
	struct relay_shared *sh;
};

/* What the queue threads (or the paths loop) share: ground truth and the log. */
struct relay_shared {
	atomic_uint_fast64_t order; /* writes of data segments so far */
	atomic_uint_fast64_t max_d; /* highest arrival order written so far */
	atomic_uint_fast64_t late;  /* written after a segment that arrived later */
	atomic_uint_fast64_t send_err;
	pthread_mutex_t log_lock;
	FILE *log;
};

static volatile sig_atomic_t relay_stop;
static atomic_int relay_drain; /* queue threads: finish what is queued, then end */

static void on_signal(int sig)
{
	(void)sig;
	relay_stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * Ethernet + IPv4 or IPv6 (TCP right after the fixed header, no extension
 * headers) + TCP, every length checked against the frame.
 */
static void parse(const uint8_t *f, size_t n, struct relay_seg *s)
{
	const uint8_t *ip = f + 14, *th;
	size_t tcp_tot; /* TCP header + payload */

	memset(s, 0, sizeof(*s));
	if (n >= 14 + 20 && rd16(f + 12) == ETH_P_IP) {
		size_t ihl = (size_t)(ip[0] & 15) * 4, tot = rd16(ip + 2);
		if ((ip[0] >> 4) != 4 || ihl < 20 || tot < ihl + 20 || 14 + tot > n || ip[9] != 6)
			return;
		th = ip + ihl;
		tcp_tot = tot - ihl;
	} else if (n >= 14 + 40 + 20 && rd16(f + 12) == ETH_P_IPV6) {
		tcp_tot = rd16(ip + 4);
		if ((ip[0] >> 4) != 6 || ip[6] != 6 || tcp_tot < 20 || 14 + 40 + tcp_tot > n)
			return;
		th = ip + 40;
	} else {
		return;
	}
	size_t doff = (size_t)(th[12] >> 4) * 4;
	if (doff < 20 || tcp_tot < doff)
		return;
	uint8_t flags = th[13];
	s->fam = (uint8_t)(ip[0] >> 4);
	if (s->fam == 4)
		s->ipid = rd16(ip + 4);
	s->seq = rd32(th + 4);
	s->len = (uint32_t)(tcp_tot - doff);
	/* TSval (RFC 7323): kind 8, length 10. */
	for (size_t k = 20; k + 1 < doff;) {
		uint8_t kind = th[k];
		if (kind == 0)
			break;
		if (kind == 1) {
			k++;
			continue;
		}
		uint8_t len = th[k + 1];
		if (len < 2 || k + len > doff)
			break;
		if (kind == 8 && len == 10)
			s->tsval = rd32(th + k + 2);
		k += len;
	}
	s->data = s->len > 0 && !(flags & 0x07); /* FIN, SYN, RST */
}

static int open_if(const char *name, bool bypass)
{
	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	unsigned idx = if_nametoindex(name);
	int one = 1, big = 4 << 20;

	if (fd == -1 || !idx) {
		fprintf(stderr, "lab-relay: %s: %s\n", name, strerror(errno));
		return -1;
	}
	struct sockaddr_ll sll = {
	    .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = (int)idx};
	/* Our own writes must not come back as input. */
	if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) == -1 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) == -1) {
		fprintf(stderr, "lab-relay: %s: %s\n", name, strerror(errno));
		close(fd);
		return -1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	/* The TX queue then follows the writing CPU (packet_pick_tx_queue()). */
	if (bypass && setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) == -1) {
		fprintf(stderr, "lab-relay: %s: PACKET_QDISC_BYPASS: %s\n", name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void xmit(int fd, const uint8_t *f, size_t n, atomic_uint_fast64_t *err)
{
	/* A full veth queue would be loss we did not choose: retry briefly. */
	for (int k = 0; k < 100; k++) {
		if (send(fd, f, n, 0) != -1)
			return;
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			break;
		usleep(50);
	}
	atomic_fetch_add(err, 1);
}

static void release(int fd_b, struct relay_held *h, struct relay_stats *st, FILE *log)
{
	xmit(fd_b, h->frame, h->flen, &st->send_err);
	st->fwd_ab++;
	if (h->by_copy)
		st->by_copy++;
	else if (h->overtaken == 0)
		st->not_overtaken++;
	else
		st->reordered++;
	if (h->overtaken > st->max_overtaken)
		st->max_overtaken = h->overtaken;
	if (log)
		fprintf(log,
			"held ipid=%u seq=%" PRIu32 " len=%" PRIu32 " tsval=%" PRIu32
			" overtaken_by=%u copy=%d\n",
			h->seg.ipid, h->seg.seq, h->seg.len, h->seg.tsval, h->overtaken,
			h->by_copy ? 1 : 0);
	h->on = false;
}

static bool seq_overlap(const struct relay_seg *a, const struct relay_seg *b)
{
	/* Wrap-safe: [a.seq, a.seq + a.len) and [b.seq, b.seq + b.len). */
	return (int32_t)(b->seq - (a->seq + a->len)) < 0 &&
	       (int32_t)(a->seq - (b->seq + b->len)) < 0;
}

/*
 * Data segment d (arrival order) was just written: returns its write order,
 * and counts it late when a data segment that arrived after it was written
 * before it.
 */
static uint64_t note_written(struct relay_shared *sh, uint64_t d)
{
	uint64_t order = atomic_fetch_add(&sh->order, 1) + 1;
	uint64_t prev = atomic_load(&sh->max_d);
	while (prev < d && !atomic_compare_exchange_weak(&sh->max_d, &prev, d))
		;
	if (prev > d)
		atomic_fetch_add(&sh->late, 1);
	return order;
}

/* One queue: deliver each frame delay_ns after it arrived, in order. */
static void *queue_thread(void *arg)
{
	struct relay_queue *q = arg;
	struct relay_shared *sh = q->sh;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(q->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == -1)
		fprintf(stderr, "lab-relay: queue %u: cpu %d: %s\n", q->idx, q->cpu,
			strerror(errno));
	for (;;) {
		unsigned tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
		if (tail == atomic_load_explicit(&q->head, memory_order_acquire)) {
			if (atomic_load(&relay_drain))
				break;
			usleep(20);
			continue;
		}
		struct relay_slot *s = &q->slots[tail % RELAY_SLOTS];
		int64_t wait = s->due - now_ns();
		if (wait > 0) {
			struct timespec ts = {.tv_sec = wait / 1000000000,
					      .tv_nsec = wait % 1000000000};
			nanosleep(&ts, NULL);
		}
		xmit(q->fd, s->frame, s->len, &sh->send_err);
		q->sent++;
		if (s->d) {
			uint64_t order = note_written(sh, s->d);
			if (sh->log) {
				pthread_mutex_lock(&sh->log_lock);
				fprintf(sh->log,
					"sent order=%" PRIu64 " d=%" PRIu64 " q=%u seq=%" PRIu32
					" len=%" PRIu32 " tsval=%" PRIu32 "\n",
					order, s->d, q->idx, s->seg.seq, s->seg.len, s->seg.tsval);
				pthread_mutex_unlock(&sh->log_lock);
			}
		}
		atomic_store_explicit(&q->tail, tail + 1, memory_order_release);
	}
	return NULL;
}

/* Hand a frame to queue q (the reader waits while it is full). */
static void enqueue(struct relay_queue *q, const uint8_t *f, size_t n, uint64_t d,
		    const struct relay_seg *seg)
{
	unsigned head = atomic_load_explicit(&q->head, memory_order_relaxed);
	while (head - atomic_load_explicit(&q->tail, memory_order_acquire) >= RELAY_SLOTS)
		usleep(20);
	struct relay_slot *s = &q->slots[head % RELAY_SLOTS];
	memcpy(s->frame, f, n);
	s->len = (uint32_t)n;
	s->due = now_ns() + q->delay_ns;
	s->d = d;
	s->seg = *seg;
	atomic_store_explicit(&q->head, head + 1, memory_order_release);
}

/* B -> A: up to RELAY_BATCH frames straight through. */
static void pass_ba(int fd_b, int fd_a, uint8_t *buf, size_t size, struct relay_stats *st)
{
	for (int k = 0; k < RELAY_BATCH; k++) {
		ssize_t r = recv(fd_b, buf, size, MSG_DONTWAIT);
		if (r <= 0)
			break;
		xmit(fd_a, buf, (size_t)r, &st->send_err);
		st->fwd_ba++;
	}
}

/* Paths: a frame waiting in the pool, by due time (ties: arrival order). */
struct relay_due {
	int64_t due;
	uint64_t n; /* arrival order among all A -> B frames */
	uint32_t slot;
};

/*
 * Path mode: one direction's bottleneck and delay line. The bottleneck queue
 * is a FIFO of departure times (a ring of queue_max): a frame arriving at t
 * first drops those that left by t, then is tail-dropped when queue_max are
 * still there (the one on the wire counts), else leaves at
 * max(t, last_dep) + len * 8 / rate; then it is due delay + jitter later, but
 * never before the previous frame of its direction (last_due).
 */
struct relay_link {
	struct relay_link_opts o;
	double loss;	    /* probability, data segments only */
	double ns_per_byte; /* 0: no bottleneck */
	int64_t *deps;	    /* queue_max departure times */
	uint32_t queue_max, qhead, qlen, max_depth;
	int64_t last_dep, last_due;
	uint64_t rng; /* splitmix64 state: each direction its own stream */
	uint64_t fwd, drop_queue, drop_loss;
	int64_t max_late_ns; /* the relay's own error: written this long after due */
};

struct relay_paths {
	unsigned n;
	bool rr;
	bool path; /* mode 4: both directions through their relay_link */
	struct relay_link link[RELAY_DIRS];
	int fd_a;
	int64_t delay_ns[RELAY_MAX_PATHS];
	struct relay_slot *pool; /* RELAY_POOL slots */
	uint32_t *free, nfree;	 /* free slots (a stack) */
	struct relay_due *heap;	 /* min-heap of the waiting ones */
	uint32_t nheap, max_pending;
	uint64_t arrivals, next_d, unsprayed, frames[RELAY_MAX_PATHS];
	unsigned next_rr;
	int fd_b;
	int64_t loop_start; /* frames that arrived before waited for the relay to start */
	struct relay_stats *st;
	struct relay_shared *sh;
};

static bool due_before(const struct relay_due *a, const struct relay_due *b)
{
	return a->due < b->due || (a->due == b->due && a->n < b->n);
}

static void heap_push(struct relay_paths *p, struct relay_due e)
{
	uint32_t k = p->nheap++;

	while (k > 0 && due_before(&e, &p->heap[(k - 1) / 2])) {
		p->heap[k] = p->heap[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	p->heap[k] = e;
	if (p->nheap > p->max_pending)
		p->max_pending = p->nheap;
}

static struct relay_due heap_pop(struct relay_paths *p)
{
	struct relay_due top = p->heap[0], last = p->heap[--p->nheap];
	uint32_t k = 0;

	for (;;) {
		uint32_t c = 2 * k + 1;
		if (c >= p->nheap)
			break;
		if (c + 1 < p->nheap && due_before(&p->heap[c + 1], &p->heap[c]))
			c++;
		if (!due_before(&p->heap[c], &last))
			break;
		p->heap[k] = p->heap[c];
		k = c;
	}
	p->heap[k] = last;
	return top;
}

/*
 * Write one A -> B frame f (m: what we know of it, path -1: unsprayed); a
 * data segment (d > 0) goes to the log. Returns the time of the write.
 */
static int64_t paths_write(struct relay_paths *p, const uint8_t *f, size_t n,
			   const struct relay_slot *m)
{
	bool ba = m->dir == RELAY_BA;

	xmit(ba ? p->fd_a : p->fd_b, f, n, &p->st->send_err);
	int64_t t = now_ns();
	*(ba ? &p->st->fwd_ba : &p->st->fwd_ab) += 1;
	if (p->path) {
		struct relay_link *l = &p->link[m->dir];
		l->fwd++;
		/* A frame the kernel took before the loop began (an IPv6
		 * neighbour solicitation as the links come up) waited for the
		 * relay to start, not for a CPU: no measure of the schedule. */
		bool counts = m->arrived >= p->loop_start;
		if (counts && t - m->due > l->max_late_ns)
			l->max_late_ns = t - m->due;
		/* Where a late frame lost its time: reading it or writing it. */
		if (counts && t - m->due > 1000000 && p->sh->log)
			fprintf(p->sh->log,
				"late dir=%s len=%" PRIu32 " arrived=%" PRId64
				" read_us=%.3f due_us=%.3f"
				" late_us=%.3f t=%" PRId64 "\n",
				ba ? "ba" : "ab", m->len, m->arrived,
				(double)(m->read - m->arrived) / 1000,
				(double)(m->due - m->arrived) / 1000, (double)(t - m->due) / 1000,
				t);
	}
	if (!m->d)
		return t;
	uint64_t order = note_written(p->sh, m->d);
	/* Path mode logs drops only: nothing is reordered, late stays 0. */
	if (p->sh->log && !p->path) {
		char ipid[8] = "-";
		if (m->seg.fam == 4)
			snprintf(ipid, sizeof(ipid), "%u", m->seg.ipid);
		fprintf(
		    p->sh->log,
		    "sent order=%" PRIu64 " d=%" PRIu64 " path=%d seq=%" PRIu32 " len=%" PRIu32
		    " tsval=%" PRIu32 " ipid=%s fam=%u delay_us=%.3f read_us=%.3f t=%" PRId64 "\n",
		    order, m->d, m->path, m->seg.seq, m->seg.len, m->seg.tsval, ipid, m->seg.fam,
		    (double)(t - m->arrived) / 1000, (double)(m->read - m->arrived) / 1000, t);
	}
	return t;
}

/* A frame that does not fit the pool: written at once. */
static void paths_unsprayed(struct relay_paths *p, uint8_t dir, const uint8_t *f, size_t n,
			    int64_t arrived, int64_t read)
{
	static struct relay_slot m; /* the metadata only */

	parse(f, n, &m.seg);
	m.dir = dir;
	p->unsprayed++;
	p->arrivals++;
	m.d = 0;
	if (dir == RELAY_AB) {
		p->st->eligible += m.seg.data;
		m.d = m.seg.data ? ++p->next_d : 0;
	}
	m.arrived = arrived;
	m.read = read;
	m.due = arrived;
	m.path = -1;
	paths_write(p, f, n, &m);
}

/*
 * When the kernel received a frame (SO_TIMESTAMPNS, CLOCK_REALTIME; rt_off:
 * CLOCK_REALTIME - CLOCK_MONOTONIC) on our clock; now when it has no stamp.
 */
static int64_t arrival_ns(struct msghdr *m, int64_t now, int64_t rt_off)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
			continue;
		struct timespec ts;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		int64_t t = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - rt_off;
		return t < now ? t : now;
	}
	return now;
}

/* splitmix64: a stream per direction, so A -> B's draws do not depend on B -> A's traffic. */
static uint64_t link_rand(struct relay_link *l)
{
	uint64_t z = (l->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The ground truth of a drop: one log line (IP ID, seq, len tell it in a capture). */
static void link_drop(struct relay_paths *p, const struct relay_slot *s, const char *why)
{
	struct relay_link *l = &p->link[s->dir];

	*(strcmp(why, "loss") ? &l->drop_queue : &l->drop_loss) += 1;
	if (!p->sh->log)
		return;
	char ipid[8] = "-";
	if (s->seg.fam == 4)
		snprintf(ipid, sizeof(ipid), "%u", s->seg.ipid);
	fprintf(p->sh->log,
		"drop why=%s dir=%s data=%d seq=%" PRIu32 " len=%" PRIu32 " ipid=%s fam=%u"
		" queued=%u t=%" PRId64 "\n",
		why, s->dir == RELAY_AB ? "ab" : "ba", s->seg.data ? 1 : 0, s->seg.seq, s->seg.len,
		ipid, s->seg.fam, l->qlen, s->arrived);
}

/*
 * Path mode: a frame that arrived (s->arrived) on its direction's link gets
 * its due time, or is dropped (false): loss first (data segments only, as if
 * lost before the bottleneck), then the bottleneck queue, then delay and
 * jitter. Due times of one direction never decrease, and the heap breaks
 * ties by arrival, so a direction keeps its order: jitter is queueing.
 */
static bool link_schedule(struct relay_paths *p, struct relay_slot *s)
{
	struct relay_link *l = &p->link[s->dir];
	int64_t t = s->arrived;

	if (l->loss > 0 && s->seg.data && (double)(link_rand(l) >> 11) * 0x1.0p-53 < l->loss) {
		link_drop(p, s, "loss");
		return false;
	}
	if (l->ns_per_byte > 0) {
		while (l->qlen && l->deps[l->qhead] <= t) {
			l->qhead = (l->qhead + 1) % l->queue_max;
			l->qlen--;
		}
		if (l->qlen >= l->queue_max) {
			link_drop(p, s, "queue");
			return false;
		}
		l->last_dep = (t > l->last_dep ? t : l->last_dep) +
			      (int64_t)((double)s->len * l->ns_per_byte);
		l->deps[(l->qhead + l->qlen++) % l->queue_max] = l->last_dep;
		if (l->qlen > l->max_depth)
			l->max_depth = l->qlen;
		t = l->last_dep;
	}
	t += l->o.delay_ns;
	if (l->o.jitter_ns > 0)
		t += (int64_t)(link_rand(l) % (uint64_t)(l->o.jitter_ns + 1));
	s->due = t > l->last_due ? t : l->last_due;
	l->last_due = s->due;
	return true;
}

/*
 * A frame read into slot id: onto a path (paths) or through its direction's
 * link (path mode), into the heap; a frame the link drops frees its slot.
 */
static void paths_place(struct relay_paths *p, uint32_t id, uint8_t dir, size_t n, int64_t arrived,
			int64_t now)
{
	struct relay_slot *s = &p->pool[id];

	parse(s->frame, n, &s->seg);
	s->len = (uint32_t)n;
	s->dir = dir;
	s->d = 0;
	if (dir == RELAY_AB) {
		p->st->eligible += s->seg.data;
		s->d = s->seg.data ? ++p->next_d : 0;
	}
	s->arrived = arrived;
	s->read = now;
	if (p->path) {
		s->path = 0;
		if (!link_schedule(p, s)) {
			p->free[p->nfree++] = id;
			return;
		}
	} else {
		s->path = (int)(p->rr ? p->next_rr++ % p->n : (unsigned)rand() % p->n);
		s->due = s->arrived + p->delay_ns[s->path];
		p->frames[s->path]++;
	}
	heap_push(p, (struct relay_due){.due = s->due, .n = p->arrivals++, .slot = id});
}

/*
 * Up to RELAY_BATCH frames of direction dir (paths: A -> B only) read
 * straight into free slots, each due after its path's delay (or its link's
 * schedule) counted from when the kernel received it: frames read together
 * keep their own arrival times.
 */
static void paths_read(struct relay_paths *p, int fd, uint8_t dir, uint8_t *buf)
{
	static uint8_t over[RELAY_BATCH][RELAY_FRAME_MAX - RELAY_SLOT_FRAME];
	struct mmsghdr mm[RELAY_BATCH];
	struct iovec iov[RELAY_BATCH][2];
	uint64_t ctl[RELAY_BATCH][8]; /* a struct timespec cmsg, aligned */
	uint32_t ids[RELAY_BATCH];
	unsigned k = p->nfree < RELAY_BATCH ? p->nfree : RELAY_BATCH;

	if (!k) {
		for (int j = 0; j < RELAY_BATCH; j++) {
			ssize_t r = recv(fd, buf, RELAY_FRAME_MAX, MSG_DONTWAIT);
			if (r <= 0)
				break;
			int64_t now = now_ns();
			paths_unsprayed(p, dir, buf, (size_t)r, now, now);
		}
		return;
	}
	memset(mm, 0, sizeof(mm[0]) * k);
	for (unsigned j = 0; j < k; j++) {
		ids[j] = p->free[p->nfree - 1 - j];
		iov[j][0] = (struct iovec){p->pool[ids[j]].frame, RELAY_SLOT_FRAME};
		iov[j][1] = (struct iovec){over[j], sizeof(over[j])};
		mm[j].msg_hdr.msg_iov = iov[j];
		mm[j].msg_hdr.msg_iovlen = 2;
		mm[j].msg_hdr.msg_control = ctl[j];
		mm[j].msg_hdr.msg_controllen = sizeof(ctl[j]);
	}
	int r = recvmmsg(fd, mm, k, MSG_DONTWAIT, NULL);
	if (r <= 0 || (unsigned)r > k)
		return;
	struct timespec rt;
	int64_t now = now_ns();
	clock_gettime(CLOCK_REALTIME, &rt);
	int64_t rt_off = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec - now;
	p->nfree -= (uint32_t)r;
	for (int j = 0; j < r; j++) {
		size_t n = mm[j].msg_len;
		int64_t arrived = arrival_ns(&mm[j].msg_hdr, now, rt_off);
		if (n > RELAY_SLOT_FRAME) {
			memcpy(buf, p->pool[ids[j]].frame, RELAY_SLOT_FRAME);
			memcpy(buf + RELAY_SLOT_FRAME, over[j], n - RELAY_SLOT_FRAME);
			p->free[p->nfree++] = ids[j];
			paths_unsprayed(p, dir, buf, n, arrived, now);
			continue;
		}
		paths_place(p, ids[j], dir, n, arrived, now);
	}
}

/* Write every waiting frame whose time has come (all: every one), in due order. */
static void paths_due(struct relay_paths *p, bool all)
{
	int64_t now = now_ns();

	while (p->nheap && (all || p->heap[0].due <= now)) {
		struct relay_due e = heap_pop(p);
		struct relay_slot *s = &p->pool[e.slot];
		now = paths_write(p, s->frame, s->len, s);
		p->free[p->nfree++] = e.slot;
	}
}

/* The paths loop: read both sides, write what is due, sleep until the next due time. */
static int paths_run(struct relay_paths *p, int fd_a, int64_t deadline)
{
	static uint8_t buf[RELAY_FRAME_MAX];
	struct pollfd pfd[2] = {{.fd = fd_a, .events = POLLIN}, {.fd = p->fd_b, .events = POLLIN}};

	/* Wake up on time, not up to 50 us later. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	p->loop_start = now_ns();
	while (!relay_stop) {
		int64_t now = now_ns(), wait = deadline - now;
		if (wait <= 0)
			break;
		if (wait > 100000000)
			wait = 100000000;
		if (p->nheap && p->heap[0].due - now < wait)
			wait = p->heap[0].due > now ? p->heap[0].due - now : 0;
		struct timespec ts = {.tv_sec = wait / 1000000000, .tv_nsec = wait % 1000000000};
		if (ppoll(pfd, 2, &ts, NULL) == -1 && errno != EINTR) {
			perror("lab-relay: ppoll");
			return 1;
		}
		/* What is due first: reading a batch takes time. */
		paths_due(p, false);
		if ((pfd[1].revents & POLLIN) && p->path)
			paths_read(p, p->fd_b, RELAY_BA, buf);
		else if (pfd[1].revents & POLLIN)
			pass_ba(p->fd_b, fd_a, buf, sizeof(buf), p->st);
		if (pfd[0].revents & POLLIN)
			paths_read(p, fd_a, RELAY_AB, buf);
		paths_due(p, false);
	}
	/* Ending: what still waits goes out now, in due order. */
	paths_due(p, true);
	return 0;
}

/* The closing line's path part: per direction what went through and what was dropped, and why. */
static void link_report(const struct relay_paths *p)
{
	for (unsigned d = 0; d < RELAY_DIRS; d++) {
		const struct relay_link *l = &p->link[d];
		const char *k = d == RELAY_AB ? "ab" : "ba";
		fprintf(stderr,
			" %s_forwarded=%" PRIu64 " %s_dropped_queue=%" PRIu64
			" %s_dropped_loss=%" PRIu64 " %s_max_queue=%u %s_max_late_us=%" PRId64,
			k, l->fwd, k, l->drop_queue, k, l->drop_loss, k, l->max_depth, k,
			l->max_late_ns / 1000);
	}
	fprintf(stderr, " late=%" PRIu64 " unscheduled=%" PRIu64 " max_pending=%u",
		(uint64_t)atomic_load(&p->sh->late), p->unsprayed, p->max_pending);
}

/* Path mode: one direction's link from the options; its queue ring. 0 or -1 (no memory). */
static int link_setup(struct relay_link *l, const struct relay_opts *o, unsigned dir)
{
	l->o = o->link[dir];
	l->o.jitter_ns = o->jitter_ns;
	l->loss = l->o.loss_pct / 100;
	l->rng = (uint64_t)o->seed * 2 + dir;
	if (l->o.rate_mbit <= 0)
		return 0;
	/* A bottleneck without --queue-pkts gets a txqueuelen's worth. */
	l->queue_max = o->queue_pkts ? o->queue_pkts : 1000;
	l->ns_per_byte = 8e3 / l->o.rate_mbit;
	l->deps = calloc(l->queue_max, sizeof(*l->deps));
	return l->deps ? 0 : -1;
}

/*
 * Path mode's option rules, one clear line each (has_other: an option of
 * modes 1-3 was given). False when the options do not go together.
 */
static bool path_check(const struct relay_opts *o, bool has_other)
{
	const char *why = NULL;

	if (!o->path)
		return true;
	if (has_other)
		why = "path options (--delay-*, --jitter-us, --rate-*, --queue-pkts, --loss-*) "
		      "do not combine with --hold-*, --queues, --paths";
	else if (o->queue_pkts && !o->link[RELAY_AB].rate_mbit && !o->link[RELAY_BA].rate_mbit)
		why = "--queue-pkts needs --rate-ab or --rate-ba (the queue of a bottleneck)";
	if (why)
		fprintf(stderr, "lab-relay: %s\n", why);
	return !why;
}

/* The delay line's log header: a script may wait for it (the sockets are open). */
static void paths_log_header(const struct relay_paths *p, const struct relay_opts *o, FILE *log)
{
	setvbuf(log, NULL, _IOFBF, 1 << 20);
	if (!p->path) {
		fprintf(log, "# lab-relay paths=%u spray=%s seed=%u delays_us=", o->paths,
			o->spray_rr ? "rr" : "random", o->seed);
		for (unsigned k = 0; k < o->paths; k++)
			fprintf(log, "%s%.3f", k ? "," : "", (double)p->delay_ns[k] / 1000);
		fputc('\n', log);
	} else {
		uint32_t q = p->link[RELAY_AB].queue_max ? p->link[RELAY_AB].queue_max
							 : p->link[RELAY_BA].queue_max;
		fprintf(log, "# lab-relay path seed=%u jitter_us=%.3f queue_pkts=%u", o->seed,
			(double)o->jitter_ns / 1000, q);
		for (unsigned d = 0; d < RELAY_DIRS; d++)
			fprintf(log, " %s: delay_us=%.3f rate_mbit=%g loss_pct=%g",
				d == RELAY_AB ? "ab" : "ba", (double)o->link[d].delay_ns / 1000,
				o->link[d].rate_mbit, o->link[d].loss_pct);
		fputc('\n', log);
	}
	fflush(log);
}

/*
 * The delay line of the paths (3) and path (4) modes: pool, heap, kernel
 * arrival stamps (on both interfaces in path mode: both directions wait in
 * it). 0, or -1 after saying why.
 */
static int paths_setup(struct relay_paths *p, const struct relay_opts *o, int fd_a, int fd_b,
		       FILE *log)
{
	int one = 1;

	p->path = o->path;
	p->n = o->paths;
	p->rr = o->spray_rr;
	for (unsigned k = 0; k < o->paths; k++)
		p->delay_ns[k] = o->base_ns + (int64_t)k * o->spread_ns / (o->paths - 1);
	p->pool = calloc(RELAY_POOL, sizeof(*p->pool));
	p->free = calloc(RELAY_POOL, sizeof(*p->free));
	p->heap = calloc(RELAY_POOL, sizeof(*p->heap));
	if (!p->pool || !p->free || !p->heap ||
	    (p->path && (link_setup(&p->link[RELAY_AB], o, RELAY_AB) != 0 ||
			 link_setup(&p->link[RELAY_BA], o, RELAY_BA) != 0))) {
		fprintf(stderr, "lab-relay: no memory for %u frames\n", RELAY_POOL);
		return -1;
	}
	for (uint32_t k = 0; k < RELAY_POOL; k++)
		p->free[p->nfree++] = RELAY_POOL - 1 - k;
	for (int k = 0; k < (p->path ? 2 : 1); k++)
		if (setsockopt(k ? fd_b : fd_a, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ==
		    -1)
			fprintf(stderr, "lab-relay: SO_TIMESTAMPNS: %s (arrival: when read)\n",
				strerror(errno));
	p->fd_a = fd_a;
	p->fd_b = fd_b;
	if (log)
		paths_log_header(p, o, log);
	return 0;
}

/*
 * The emulated path is the experiment's ground: a relay that waits for a
 * CPU behind the very transfer it carries (2 cores, two lab-peers, three
 * tcpdumps) delivers tens of ms late, and the path is no longer the one
 * asked for (max_late_us). SCHED_FIFO puts it ahead of them; it sleeps in
 * ppoll() between frames, and the kernel's RT throttling bounds it anyway.
 * Memory locked: no page fault on the way. Failures are said, not fatal:
 * max_late_us still tells whether the schedule held.
 */
static void relay_realtime(unsigned prio)
{
	struct sched_param sp = {.sched_priority = (int)prio};

	if (sched_setscheduler(0, SCHED_FIFO, &sp) == -1)
		fprintf(stderr, "lab-relay: SCHED_FIFO %u: %s\n", prio, strerror(errno));
	if (mlockall(MCL_CURRENT | MCL_FUTURE) == -1)
		fprintf(stderr, "lab-relay: mlockall: %s\n", strerror(errno));
}

static void usage(FILE *out)
{
	fputs(
	    "usage: lab-relay -a IF_A -b IF_B [--timeout SEC] [--log FILE]\n"
	    "         [--hold-every N | --hold-pct P [--seed S]] [--hold-count K] [--hold-us T]\n"
	    "         [--queues N [--switch-every M] [--queue-delay-us D0,D1,..] [--cpus C0,..]]\n"
	    "         [--paths N [--spread-us S] [--base-us B] [--spray random|rr] [--seed S]]\n"
	    "         [--delay-ab-us D] [--delay-ba-us D] [--jitter-us J] [--rate-ab MBIT]\n"
	    "         [--rate-ba MBIT] [--queue-pkts N] [--loss-ab-pct P] [--loss-ba-pct P] "
	    "[--seed S]\n"
	    "         [--rt PRIO]   (SCHED_FIFO at PRIO and memory locked: an emulated path\n"
	    "                        that keeps its schedule on a loaded host)\n",
	    out);
}

/* A decimal number in [min, max] ("2.5"), or exit 2 naming the option. */
static double parse_real(const char *name, const char *s, double min, double max)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || end == s || !(v >= min && v <= max)) {
		fprintf(stderr, "lab-relay: bad %s: %s (%g..%g)\n", name, s, min, max);
		exit(2);
	}
	return v;
}

enum {
	O_EVERY = 256,
	O_PCT,
	O_COUNT,
	O_US,
	O_SEED,
	O_LOG,
	O_QUEUES,
	O_SWITCH,
	O_QDELAY,
	O_CPUS,
	O_TO,
	O_PATHS,
	O_SPREAD,
	O_BASE,
	O_SPRAY,
	O_DELAY_AB, /* path mode (4) from here */
	O_DELAY_BA,
	O_JITTER,
	O_RATE_AB,
	O_RATE_BA,
	O_QPKTS,
	O_LOSS_AB,
	O_LOSS_BA,
	O_RT,
};

/* Path mode's options (c: the getopt code); false when c is not one of them. */
static bool path_option(struct relay_opts *o, int c, const char *arg)
{
	/* 10 s of delay at the top rate still fits the pool only with a queue: see link_setup. */
	const double max_us = 10e6, max_mbit = 10000;

	switch (c) {
	case O_DELAY_AB:
	case O_DELAY_BA:
		o->link[c == O_DELAY_BA].delay_ns =
		    (int64_t)parse_real(c == O_DELAY_AB ? "--delay-ab-us" : "--delay-ba-us", arg, 0,
					max_us) *
		    1000;
		break;
	case O_JITTER:
		o->jitter_ns = (int64_t)parse_real("--jitter-us", arg, 0, max_us) * 1000;
		break;
	case O_RATE_AB:
	case O_RATE_BA:
		o->link[c == O_RATE_BA].rate_mbit =
		    parse_real(c == O_RATE_AB ? "--rate-ab" : "--rate-ba", arg, 0.001, max_mbit);
		break;
	case O_QPKTS:
		o->queue_pkts = (unsigned)parse_real("--queue-pkts", arg, 1, RELAY_QUEUE_MAX);
		break;
	case O_LOSS_AB:
	case O_LOSS_BA:
		o->link[c == O_LOSS_BA].loss_pct =
		    parse_real(c == O_LOSS_AB ? "--loss-ab-pct" : "--loss-ba-pct", arg, 0, 100);
		break;
	default:
		return false;
	}
	o->path = true;
	return true;
}

static unsigned parse_uint(const char *name, const char *s)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v > 1000000000ul) {
		fprintf(stderr, "lab-relay: bad %s: %s\n", name, s);
		exit(2);
	}
	return (unsigned)v;
}

/* "1,2,3" -> out[]; returns the count. */
static unsigned parse_list(const char *name, const char *list, long *out, unsigned max)
{
	const char *p = list;
	unsigned n = 0;

	while (*p && n < max) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 0 || v > 1000000000l || (*end && *end != ',')) {
			fprintf(stderr, "lab-relay: bad %s: %s\n", name, list);
			exit(2);
		}
		out[n++] = v;
		p = *end ? end + 1 : end;
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"hold-every", required_argument, NULL, O_EVERY},
	    {"hold-pct", required_argument, NULL, O_PCT},
	    {"hold-count", required_argument, NULL, O_COUNT},
	    {"hold-us", required_argument, NULL, O_US},
	    {"seed", required_argument, NULL, O_SEED},
	    {"log", required_argument, NULL, O_LOG},
	    {"queues", required_argument, NULL, O_QUEUES},
	    {"switch-every", required_argument, NULL, O_SWITCH},
	    {"queue-delay-us", required_argument, NULL, O_QDELAY},
	    {"cpus", required_argument, NULL, O_CPUS},
	    {"timeout", required_argument, NULL, O_TO},
	    {"paths", required_argument, NULL, O_PATHS},
	    {"spread-us", required_argument, NULL, O_SPREAD},
	    {"base-us", required_argument, NULL, O_BASE},
	    {"spray", required_argument, NULL, O_SPRAY},
	    {"delay-ab-us", required_argument, NULL, O_DELAY_AB},
	    {"delay-ba-us", required_argument, NULL, O_DELAY_BA},
	    {"jitter-us", required_argument, NULL, O_JITTER},
	    {"rate-ab", required_argument, NULL, O_RATE_AB},
	    {"rate-ba", required_argument, NULL, O_RATE_BA},
	    {"queue-pkts", required_argument, NULL, O_QPKTS},
	    {"loss-ab-pct", required_argument, NULL, O_LOSS_AB},
	    {"loss-ba-pct", required_argument, NULL, O_LOSS_BA},
	    {"rt", required_argument, NULL, O_RT},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct relay_opts o = {.hold_count = 2, .hold_ns = 20000000, .seed = 1, .timeout = 30};
	static struct relay_held held; /* 64 KiB: not on the stack */
	static uint8_t buf[RELAY_FRAME_MAX];
	static struct relay_queue queues[RELAY_MAX_QUEUES];
	static struct relay_shared sh = {.log_lock = PTHREAD_MUTEX_INITIALIZER};
	static struct relay_paths paths;
	struct relay_stats st = {0};
	long list[RELAY_MAX_QUEUES];
	bool hold_opt = false, queue_opt = false, path_opt = false;
	unsigned n;
	int c;

	while ((c = getopt_long(argc, argv, "a:b:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o.if_a = optarg;
			break;
		case 'b':
			o.if_b = optarg;
			break;
		case O_EVERY:
			hold_opt = true;
			o.hold_every = parse_uint("--hold-every", optarg);
			break;
		case O_PCT:
			hold_opt = true;
			o.hold_pct = parse_uint("--hold-pct", optarg);
			break;
		case O_COUNT:
			hold_opt = true;
			o.hold_count = parse_uint("--hold-count", optarg);
			break;
		case O_US:
			hold_opt = true;
			o.hold_ns = (int64_t)parse_uint("--hold-us", optarg) * 1000;
			break;
		case O_SEED:
			o.seed = parse_uint("--seed", optarg);
			break;
		case O_LOG:
			o.log_path = optarg;
			break;
		case O_QUEUES:
			queue_opt = true;
			o.queues = parse_uint("--queues", optarg);
			break;
		case O_SWITCH:
			queue_opt = true;
			o.switch_every = parse_uint("--switch-every", optarg);
			break;
		case O_QDELAY:
			queue_opt = true;
			n = parse_list("--queue-delay-us", optarg, list, RELAY_MAX_QUEUES);
			for (unsigned k = 0; k < n; k++)
				o.qdelay_ns[k] = list[k] * 1000;
			break;
		case O_CPUS:
			queue_opt = true;
			o.ncpus = parse_list("--cpus", optarg, list, RELAY_MAX_QUEUES);
			for (unsigned k = 0; k < o.ncpus; k++)
				o.cpus[k] = (int)list[k];
			break;
		case O_TO:
			o.timeout = parse_uint("--timeout", optarg);
			break;
		case O_RT:
			o.rt_prio = parse_uint("--rt", optarg);
			if (o.rt_prio < 1 || o.rt_prio > 99) {
				fprintf(stderr, "lab-relay: bad --rt: %s (1..99)\n", optarg);
				return 2;
			}
			break;
		case O_PATHS:
			path_opt = true;
			o.paths = parse_uint("--paths", optarg);
			break;
		case O_SPREAD:
			path_opt = true;
			o.spread_ns = (int64_t)parse_uint("--spread-us", optarg) * 1000;
			break;
		case O_BASE:
			path_opt = true;
			o.base_ns = (int64_t)parse_uint("--base-us", optarg) * 1000;
			break;
		case O_SPRAY:
			path_opt = true;
			if (strcmp(optarg, "random") && strcmp(optarg, "rr")) {
				fprintf(stderr, "lab-relay: bad --spray: %s\n", optarg);
				return 2;
			}
			o.spray_rr = !strcmp(optarg, "rr");
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (path_option(&o, c, optarg))
				break;
			usage(stderr);
			return 2;
		}
	}
	if (!o.if_a || !o.if_b || optind != argc || o.hold_pct > 100 ||
	    (o.hold_every && o.hold_pct) || o.queues > RELAY_MAX_QUEUES ||
	    (o.queues && (o.hold_every || o.hold_pct)) ||
	    (o.paths && (o.paths < 2 || o.paths > RELAY_MAX_PATHS || hold_opt || queue_opt)) ||
	    (path_opt && !o.paths)) {
		usage(stderr);
		return 2;
	}
	if (!path_check(&o, hold_opt || queue_opt || path_opt || o.queues || o.paths))
		return 2;
	if (o.queues && !o.ncpus) {
		cpu_set_t set;
		if (sched_getaffinity(0, sizeof(set), &set) == -1)
			CPU_ZERO(&set);
		for (int k = 0; k < CPU_SETSIZE && o.ncpus < RELAY_MAX_QUEUES; k++)
			if (CPU_ISSET(k, &set))
				o.cpus[o.ncpus++] = k;
		if (!o.ncpus)
			o.cpus[o.ncpus++] = 0;
	}

	/* Before any allocation and the log's header (which says "ready"):
	 * locking the pool in afterwards delayed the first frames 30-80 ms. */
	if (o.rt_prio)
		relay_realtime(o.rt_prio);
	FILE *log = NULL;
	if (o.log_path && !(log = fopen(o.log_path, "w"))) {
		fprintf(stderr, "lab-relay: %s: %s\n", o.log_path, strerror(errno));
		return 1;
	}
	int fd_a = open_if(o.if_a, false), fd_b = open_if(o.if_b, false);
	if (fd_a == -1 || fd_b == -1)
		return 1;
	sh.log = log;
	for (unsigned k = 0; k < o.queues; k++) {
		struct relay_queue *q = &queues[k];
		q->idx = k;
		q->cpu = o.cpus[k % o.ncpus];
		q->delay_ns = o.qdelay_ns[k];
		q->sh = &sh;
		q->slots = calloc(RELAY_SLOTS, sizeof(*q->slots));
		q->fd = open_if(o.if_b, true);
		if (!q->slots || q->fd == -1 || pthread_create(&q->thread, NULL, queue_thread, q)) {
			fprintf(stderr, "lab-relay: cannot set up queue %u\n", k);
			return 1;
		}
	}
	if ((o.paths || o.path) && paths_setup(&paths, &o, fd_a, fd_b, log) != 0)
		return 1;
	paths.st = &st;
	paths.sh = &sh;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	srand(o.seed);

	unsigned cur = 0, since_switch = 0;
	uint64_t next_d = 0;
	int64_t deadline = now_ns() + (int64_t)o.timeout * 1000000000;
	if ((o.paths || o.path) && paths_run(&paths, fd_a, deadline) != 0)
		return 1;
	/* Holding or queues (the delay line ran above). */
	while (!o.paths && !o.path && !relay_stop && now_ns() < deadline) {
		struct pollfd p[2] = {{.fd = fd_a, .events = POLLIN},
				      {.fd = fd_b, .events = POLLIN}};
		int wait_ms = 100;
		if (held.on) {
			int64_t left = held.since + o.hold_ns - now_ns();
			wait_ms = left <= 0 ? 0 : (int)(left / 1000000) + 1;
		}
		if (poll(p, 2, wait_ms) == -1 && errno != EINTR) {
			perror("lab-relay: poll");
			return 1;
		}
		if (held.on && now_ns() - held.since >= o.hold_ns)
			release(fd_b, &held, &st, log);
		/* B -> A: straight through. */
		pass_ba(fd_b, fd_a, buf, sizeof(buf), &st);
		/* A -> B: through a queue, or held, or overtaking the held one. */
		for (int k = 0; k < 64; k++) {
			ssize_t r = recv(fd_a, buf, sizeof(buf), MSG_DONTWAIT);
			struct relay_seg s;
			if (r <= 0)
				break;
			parse(buf, (size_t)r, &s);
			st.eligible += s.data;
			if (o.queues && (size_t)r <= RELAY_SLOT_FRAME) {
				if (s.data && o.switch_every && since_switch++ == o.switch_every) {
					since_switch = 1;
					cur = (cur + 1) % o.queues;
					st.switches++;
				}
				enqueue(&queues[cur], buf, (size_t)r, s.data ? ++next_d : 0, &s);
				st.fwd_ab++;
				continue;
			}
			if (s.data) {
				bool pick = o.hold_every ? st.eligible % o.hold_every == 0
					    : o.hold_pct ? (unsigned)(rand() % 100) < o.hold_pct
							 : false;
				if (pick && !held.on && o.hold_count) {
					held.on = true;
					memcpy(held.frame, buf, (size_t)r);
					held.flen = (size_t)r;
					held.seg = s;
					held.since = now_ns();
					held.overtaken = 0;
					held.by_copy = false;
					st.held++;
					continue;
				}
			}
			xmit(fd_b, buf, (size_t)r, &st.send_err);
			st.fwd_ab++;
			if (s.data && held.on) {
				if (seq_overlap(&held.seg, &s))
					held.by_copy = true;
				if (++held.overtaken >= o.hold_count)
					release(fd_b, &held, &st, log);
			}
		}
	}
	if (held.on)
		release(fd_b, &held, &st, log);
	atomic_store(&relay_drain, 1);
	for (unsigned k = 0; k < o.queues; k++)
		pthread_join(queues[k].thread, NULL);
	if (log)
		fclose(log);

	struct tpacket_stats ps;
	unsigned drops = 0;
	socklen_t pl = sizeof(ps);
	if (getsockopt(fd_a, SOL_PACKET, PACKET_STATISTICS, &ps, &pl) == 0)
		drops += ps.tp_drops;
	pl = sizeof(ps);
	if (getsockopt(fd_b, SOL_PACKET, PACKET_STATISTICS, &ps, &pl) == 0)
		drops += ps.tp_drops;
	fprintf(stderr,
		"lab-relay: forwarded_ab=%" PRIu64 " forwarded_ba=%" PRIu64 " data_ab=%" PRIu64,
		st.fwd_ab, st.fwd_ba, st.eligible);
	if (o.path)
		link_report(&paths);
	if (o.paths) {
		fprintf(stderr, " paths=%u late=%" PRIu64 " unsprayed=%" PRIu64 " max_pending=%u",
			o.paths, (uint64_t)atomic_load(&sh.late), paths.unsprayed,
			paths.max_pending);
		for (unsigned k = 0; k < o.paths; k++)
			fprintf(stderr, " p%u_frames=%" PRIu64, k, paths.frames[k]);
	} else if (!o.path) {
		fprintf(stderr,
			" held=%" PRIu64 " reordered=%" PRIu64 " overtaken_by_copy=%" PRIu64
			" not_overtaken=%" PRIu64 " max_extent=%u",
			st.held, st.reordered, st.by_copy, st.not_overtaken, st.max_overtaken);
	}
	if (o.queues) {
		fprintf(stderr, " queues=%u switches=%" PRIu64 " late=%" PRIu64, o.queues,
			st.switches, (uint64_t)atomic_load(&sh.late));
		for (unsigned k = 0; k < o.queues; k++)
			fprintf(stderr, " q%u_cpu=%d q%u_frames=%" PRIu64, k, queues[k].cpu, k,
				queues[k].sent);
	}
	fprintf(stderr, " send_errors=%" PRIu64 " socket_drops=%u\n",
		(uint64_t)(atomic_load(&st.send_err) + atomic_load(&sh.send_err)), drops);
	for (unsigned k = 0; k < o.queues; k++) {
		close(queues[k].fd);
		free(queues[k].slots);
	}
	free(paths.pool);
	free(paths.free);
	free(paths.heap);
	free(paths.link[RELAY_AB].deps);
	free(paths.link[RELAY_BA].deps);
	close(fd_a);
	close(fd_b);
	return 0;
}
