/*
 * lab-relay.c - an AF_PACKET relay between two interfaces that reorders on
 * purpose, for the network-namespace labs (netem is not in this kernel).
 *
 *   lab-relay -a IF_A -b IF_B [options]
 *
 * Run it in a middle namespace holding one end of two veth pairs, with no
 * addresses and ip_forward off: every frame read on one interface is written
 * unchanged to the other (both ways), so A and B talk as if on one wire. The
 * endpoints need checksum offload and TSO/GSO off (LAB-NOTES.md), or frames
 * arrive with partial checksums / as 64 KiB super-frames.
 *
 * 1. Holding (A -> B only, IPv4 TCP segments with payload and no
 * SYN/FIN/RST): a chosen data segment is held and written after --hold-count
 * later A -> B data segments went past it, or after --hold-us, whichever
 * comes first; one segment is held at a time.
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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

enum {
	RELAY_FRAME_MAX = 65536,
	RELAY_MAX_QUEUES = 8,
	RELAY_SLOT_FRAME = 2048, /* queue slots: wire-sized frames (offloads off) */
	RELAY_SLOTS = 2048,	 /* per queue; a full queue makes the reader wait */
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
};

/* What we know about an IPv4 TCP data segment (for the ground-truth log). */
struct relay_seg {
	bool data; /* IPv4 TCP, payload > 0, no SYN/FIN/RST */
	uint16_t ipid;
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

/* What the queue threads share: ground truth and the log. */
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

/* Ethernet + IPv4 + TCP, every length checked against the frame. */
static void parse(const uint8_t *f, size_t n, struct relay_seg *s)
{
	memset(s, 0, sizeof(*s));
	if (n < 14 + 20 || rd16(f + 12) != ETH_P_IP)
		return;
	const uint8_t *ip = f + 14;
	size_t ihl = (size_t)(ip[0] & 15) * 4, tot = rd16(ip + 2);
	if ((ip[0] >> 4) != 4 || ihl < 20 || tot < ihl + 20 || 14 + tot > n || ip[9] != 6)
		return;
	const uint8_t *th = ip + ihl;
	size_t doff = (size_t)(th[12] >> 4) * 4;
	if (doff < 20 || tot < ihl + doff)
		return;
	uint8_t flags = th[13];
	s->ipid = rd16(ip + 4);
	s->seq = rd32(th + 4);
	s->len = (uint32_t)(tot - ihl - doff);
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
			uint64_t order = atomic_fetch_add(&sh->order, 1) + 1;
			uint64_t prev = atomic_load(&sh->max_d);
			while (prev < s->d &&
			       !atomic_compare_exchange_weak(&sh->max_d, &prev, s->d))
				;
			if (prev > s->d)
				atomic_fetch_add(&sh->late, 1);
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

static void usage(FILE *out)
{
	fputs(
	    "usage: lab-relay -a IF_A -b IF_B [--timeout SEC] [--log FILE]\n"
	    "         [--hold-every N | --hold-pct P [--seed S]] [--hold-count K] [--hold-us T]\n"
	    "         [--queues N [--switch-every M] [--queue-delay-us D0,D1,..] [--cpus C0,..]]\n",
	    out);
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
		O_TO
	};
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
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct relay_opts o = {.hold_count = 2, .hold_ns = 20000000, .seed = 1, .timeout = 30};
	static struct relay_held held; /* 64 KiB: not on the stack */
	static uint8_t buf[RELAY_FRAME_MAX];
	static struct relay_queue queues[RELAY_MAX_QUEUES];
	static struct relay_shared sh = {.log_lock = PTHREAD_MUTEX_INITIALIZER};
	struct relay_stats st = {0};
	long list[RELAY_MAX_QUEUES];
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
			o.hold_every = parse_uint("--hold-every", optarg);
			break;
		case O_PCT:
			o.hold_pct = parse_uint("--hold-pct", optarg);
			break;
		case O_COUNT:
			o.hold_count = parse_uint("--hold-count", optarg);
			break;
		case O_US:
			o.hold_ns = (int64_t)parse_uint("--hold-us", optarg) * 1000;
			break;
		case O_SEED:
			o.seed = parse_uint("--seed", optarg);
			break;
		case O_LOG:
			o.log_path = optarg;
			break;
		case O_QUEUES:
			o.queues = parse_uint("--queues", optarg);
			break;
		case O_SWITCH:
			o.switch_every = parse_uint("--switch-every", optarg);
			break;
		case O_QDELAY:
			n = parse_list("--queue-delay-us", optarg, list, RELAY_MAX_QUEUES);
			for (unsigned k = 0; k < n; k++)
				o.qdelay_ns[k] = list[k] * 1000;
			break;
		case O_CPUS:
			o.ncpus = parse_list("--cpus", optarg, list, RELAY_MAX_QUEUES);
			for (unsigned k = 0; k < o.ncpus; k++)
				o.cpus[k] = (int)list[k];
			break;
		case O_TO:
			o.timeout = parse_uint("--timeout", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!o.if_a || !o.if_b || optind != argc || o.hold_pct > 100 ||
	    (o.hold_every && o.hold_pct) || o.queues > RELAY_MAX_QUEUES ||
	    (o.queues && (o.hold_every || o.hold_pct))) {
		usage(stderr);
		return 2;
	}
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
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	srand(o.seed);

	unsigned cur = 0, since_switch = 0;
	uint64_t next_d = 0;
	int64_t deadline = now_ns() + (int64_t)o.timeout * 1000000000;
	while (!relay_stop && now_ns() < deadline) {
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
		for (int k = 0; k < 64; k++) {
			ssize_t r = recv(fd_b, buf, sizeof(buf), MSG_DONTWAIT);
			if (r <= 0)
				break;
			xmit(fd_a, buf, (size_t)r, &st.send_err);
			st.fwd_ba++;
		}
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
		"lab-relay: forwarded_ab=%" PRIu64 " forwarded_ba=%" PRIu64 " data_ab=%" PRIu64
		" held=%" PRIu64 " reordered=%" PRIu64 " overtaken_by_copy=%" PRIu64
		" not_overtaken=%" PRIu64 " max_extent=%u",
		st.fwd_ab, st.fwd_ba, st.eligible, st.held, st.reordered, st.by_copy,
		st.not_overtaken, st.max_overtaken);
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
	close(fd_a);
	close(fd_b);
	return 0;
}
