/* ring.c - live capture: libpcap TPACKET_V3 sockets, fanout, reader threads, hand-off queues. */
#include "capture/live/ring.h"

#include "capture/file/pcapwriter.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/futex.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23 /* Linux >= 4.20 */
#endif
#ifndef PACKET_FANOUT_FLAG_IGNORE_OUTGOING
#define PACKET_FANOUT_FLAG_IGNORE_OUTGOING 0x4000 /* Linux >= 5.13 */
#endif
#ifndef PACKET_FANOUT_FLAG_UNIQUEID
#define PACKET_FANOUT_FLAG_UNIQUEID 0x2000 /* Linux >= 4.?: kernel picks a free group id */
#endif

/* Queue record header (see the picture in ring.h). */
struct ring_rec {
	int64_t ts_ns;
	uint32_t caplen; /* RING_SKIP: skip len bytes to the buffer's end */
	uint32_t wirelen;
	uint32_t len; /* whole record, header included, multiple of 8 */
	uint32_t dir; /* enum pkt_dir, PKT_DIR_UNKNOWN when it cannot be told */
};

#define RING_REC_HDR   ((uint64_t)sizeof(struct ring_rec))
#define RING_SKIP      UINT32_MAX
#define RING_ALIGN8(x) (((x) + 7u) & ~(uint64_t)7u)

/* Longest a reader waits for room in its queue before dropping (see ring_reader_wait). */
#define RING_WAIT_NS (2000 * 1000000ll)
/* Its naps meanwhile: short at first (room usually comes within one write),
 * then doubling to 1 ms, so a writer stuck on a slow disk or pipe does not
 * cost 20 000 wake-ups a second per reader; a queue drains far slower. */
#define RING_WAIT_NAP_MIN_NS 50000l
#define RING_WAIT_NAP_MAX_NS 1000000l

/* A busy reader (or consumer) naps this long when it finds nothing, up to
 * RING_BUSY_NAPS times in a row before sleeping until woken. */
#define RING_NAP_NS    1000000l
#define RING_BUSY_NAPS 20

/*
 * TPACKET_V3 block retire timeout with several sockets. The merge cannot
 * write a packet until every quiet socket is known to hold nothing older,
 * and a quiet socket's open block is retired only by this timer: the
 * writer's queues must hold that long of the busy sockets' traffic (at
 * 700 MB/s, 100 ms is 70 MB, the whole default queue). 10 ms keeps that
 * to a few MB; a busy socket fills its blocks long before the timer.
 */
#define RING_FANOUT_BLOCK_MS 10

/* How often a reader refreshes its pcap_stats counters. */
#define RING_STATS_NS (200 * 1000000ll)
/* Packets per pcap_dispatch: returns often enough to see a stop request
 * even when the kernel ring stays backed up. */
#define RING_DISPATCH_MAX 1024

/*
 * One socket, its reader thread and its queue. The producer-owned and
 * consumer-owned words sit on separate cache lines so the two threads do
 * not bounce one line per packet.
 */
struct ring_reader {
	struct ring *r;
	unsigned idx;
	pcap_t *h;
	int fd;
	bool nano; /* timestamps in ns (PCAP_TSTAMP_PRECISION_NANO took) */
	pthread_t thread;
	bool started;
	uint8_t *buf; /* queue storage, size bytes (a power of two) */
	uint64_t size, mask;

	/* Producer (reader thread) side. */
	_Alignas(64) _Atomic uint64_t head; /* bytes ever written */
	uint64_t phead;			    /* private copy of head */
	uint64_t tail_seen;		    /* last tail read from the consumer */
	uint64_t n_captured, n_qdrops;
	uint64_t n_early;		   /* skipped: stamped before start_ns */
	int64_t last_ts;		   /* timestamp of the last packet queued */
	bool overflow;			   /* the last wait for room timed out */
	struct pcap_stat last;		   /* previous pcap_stats, for 32-bit wrap */
	uint64_t k_recv, k_drop, k_ifdrop; /* 64-bit sums of the deltas */

	/* Consumer (ring_next) side. */
	_Alignas(64) _Atomic uint64_t tail; /* bytes ever consumed */
	uint64_t ctail;			    /* private copy of tail */
	uint64_t head_seen;

	/* Published counters, read by ring_stats() from any thread. */
	_Alignas(64) _Atomic uint64_t captured, queue_drops, kernel_recv, kernel_drops, if_drops;
	_Atomic int done; /* set (release) after the last record and the final stats */
	/* Capture time (ns) before which this socket will deliver nothing more
	 * (see ring_reader_watermark); stored (release) after the records. */
	_Atomic int64_t watermark;
	char err[PCAP_ERRBUF_SIZE + IFNAMSIZ + 8];
};

struct ring {
	struct ring_config cfg;
	char iface[IFNAMSIZ + 1];
	unsigned n;
	uint32_t linktype;
	bool loopback;
	bool qm;       /* QM fanout with N > 1: socket index = queue id */
	bool have_mac; /* Ethernet: the interface's own address, for direction */
	uint8_t mac[6];
	int64_t base_ns;  /* when the counters' baseline was taken */
	int64_t start_ns; /* packets stamped earlier predate the fanout group: dropped */
	_Atomic int stop;
	/* Consumer wake-up: it sleeps on `wake` (a futex word) when every queue
	 * is empty, with `sleeping` set; a reader that queued packets bumps
	 * `wake` and wakes it (see ring_wait_for_packets). */
	_Atomic uint32_t wake;
	_Atomic int sleeping;
	unsigned naps;		/* consumer: empty looks in a row (ring_wait_for_packets) */
	struct ring_reader *rd; /* n readers, 64-byte aligned */
	int pending;		/* reader whose head record ring_next handed out, or -1 */
	uint64_t pending_len;
	uint64_t frames;
};

static const char *const ring_fanout_names[RING_FANOUT_COUNT] = {"qm", "cpu", "hash"};

const char *ring_fanout_name(enum ring_fanout m)
{
	return m < RING_FANOUT_COUNT ? ring_fanout_names[m] : "?";
}

enum ring_fanout ring_fanout_parse(const char *s)
{
	for (unsigned k = 0; k < RING_FANOUT_COUNT; k++)
		if (strcmp(s, ring_fanout_names[k]) == 0)
			return (enum ring_fanout)k;
	return RING_FANOUT_COUNT;
}

static int64_t ring_clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

uint64_t ring_default_buffer_bytes(void)
{
	const uint64_t cap = 256ull << 20, floor = 4ull << 20;
	uint64_t avail_kib = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &avail_kib) == 1)
			break;
	if (f)
		fclose(f);
	if (avail_kib == 0)
		return 32ull << 20; /* no /proc: a modest guess */
	uint64_t b = avail_kib * 1024 / 8;
	return b > cap ? cap : b < floor ? floor : b;
}

/* LINKTYPE_* for a DLT_* (they differ only for a few, e.g. DLT_RAW). */
static uint32_t ring_dlt_to_linktype(int dlt)
{
	switch (dlt) {
	case DLT_RAW:
		return PKT_LINKTYPE_RAW;
	default:
		return (uint32_t)dlt;
	}
}

/* Largest power of two <= v (v >= 1). */
static uint64_t ring_floor_pow2(uint64_t v)
{
	uint64_t p = 1;
	while (p <= v / 2)
		p <<= 1;
	return p;
}

/* ---- the queue: producer side (reader thread) ---------------------------- */

static long ring_futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

/* After queueing packets: wake the consumer if it sleeps (seq_cst pairs with
 * the consumer's store to `sleeping` and re-check of the queues). */
static void ring_wake_consumer(struct ring *r)
{
	atomic_thread_fence(memory_order_seq_cst); /* head store before the load below */
	if (atomic_load(&r->sleeping)) {
		atomic_fetch_add(&r->wake, 1);
		ring_futex(&r->wake, FUTEX_WAKE_PRIVATE, 1, NULL);
	}
}

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
		int64_t now = ring_clock_ns(CLOCK_MONOTONIC);
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

/* pcap_dispatch callback: one memcpy into the queue (waiting for room if need be). */
static void ring_reader_cb(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct ring_reader *rd = (struct ring_reader *)(void *)user;
	int64_t ts =
	    (int64_t)h->ts.tv_sec * 1000000000ll + (int64_t)h->ts.tv_usec * (rd->nano ? 1 : 1000);

	if (ts < rd->r->start_ns) {
		/* Arrived before every socket had joined the group; count only
		 * those after the counters' baseline, which they are part of. */
		if (ts >= rd->r->base_ns)
			rd->n_early++;
		return;
	}
	rd->n_captured++;
	atomic_store_explicit(&rd->captured, rd->n_captured, memory_order_relaxed);

	uint32_t cap = h->caplen;
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
	if (w > atomic_load_explicit(&rd->watermark, memory_order_relaxed))
		atomic_store_explicit(&rd->watermark, w, memory_order_release);
}

/*
 * pcap_stats() returns 32-bit counters accumulated by libpcap from
 * PACKET_STATISTICS (which the kernel resets on every read); summing the
 * wrapped deltas keeps 64-bit totals. ps_recv counts tp_packets, which for
 * TPACKET_V3 already includes tp_drops (packet_getsockopt()).
 */
static void ring_reader_stats(struct ring_reader *rd)
{
	struct pcap_stat ps;

	if (pcap_stats(rd->h, &ps) != 0)
		return;
	rd->k_recv += (uint32_t)(ps.ps_recv - rd->last.ps_recv);
	rd->k_drop += (uint32_t)(ps.ps_drop - rd->last.ps_drop);
	rd->k_ifdrop += (uint32_t)(ps.ps_ifdrop - rd->last.ps_ifdrop);
	rd->last = ps;
	/* Packets skipped as older than the capture were counted by the kernel too. */
	atomic_store_explicit(&rd->kernel_recv,
			      rd->k_recv > rd->n_early ? rd->k_recv - rd->n_early : 0,
			      memory_order_relaxed);
	atomic_store_explicit(&rd->kernel_drops, rd->k_drop, memory_order_relaxed);
	atomic_store_explicit(&rd->if_drops, rd->k_ifdrop, memory_order_relaxed);
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
 * 0 if fine, else a message in msg.
 */
static int ring_reader_check_iface(struct ring_reader *rd, char *msg, size_t len)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%.*s", IFNAMSIZ - 1, rd->r->iface);
	if (ioctl(rd->fd, SIOCGIFFLAGS, &ifr) == -1) {
		if (errno == ENODEV || errno == ENXIO) {
			snprintf(msg, len, "%s: the interface disappeared", rd->r->iface);
			return -1;
		}
		return 0; /* e.g. "any": no flags to check */
	}
	if (!(ifr.ifr_flags & IFF_UP)) {
		snprintf(msg, len, "%s: the interface went down", rd->r->iface);
		return -1;
	}
	return 0;
}

static void *ring_reader_main(void *arg)
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
	const int64_t lag = 2ll * r->cfg.block_timeout_ms * 1000000ll + 20000000ll;
	for (;;) {
		int64_t t0 = ring_clock_ns(CLOCK_REALTIME);
		int n = pcap_dispatch(rd->h, RING_DISPATCH_MAX, ring_reader_cb, (u_char *)rd);
		ring_reader_watermark(rd, t0, lag, n);
		if (n < 0) {
			if (n == PCAP_ERROR && !why[0])
				snprintf(why, sizeof(why), "%s: %s", r->iface, pcap_geterr(rd->h));
			break;
		}
		int64_t now = ring_clock_ns(CLOCK_MONOTONIC);
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
				stop_at =
				    now + 2ll * r->cfg.block_timeout_ms * 1000000ll + 20000000ll;
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

/* ---- opening --------------------------------------------------------------- */

/*
 * libpcap's callback does not pass the packet type (sockaddr_ll.sll_pkttype)
 * on, so on Ethernet the direction comes from the source address: frames
 * from the interface's own MAC were sent by this host (epb_flags outbound),
 * the rest received. Virtual devices sharing a MAC would fool it: rare.
 */
static bool ring_own_mac(int fd, const char *iface, uint8_t mac[6])
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%.*s", IFNAMSIZ - 1, iface);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == -1 || ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER)
		return false;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return true;
}

static bool ring_is_loopback(int fd, const char *iface)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == -1)
		return false;
	return ifr.ifr_hwaddr.sa_family == ARPHRD_LOOPBACK;
}

/* create -> set -> activate one handle (libpcap's order), then the filter. */
static int ring_open_handle(struct ring *r, struct ring_reader *rd, char *errbuf, size_t errlen,
			    enum ring_open_err *why)
{
	const struct ring_config *c = &r->cfg;
	char pe[PCAP_ERRBUF_SIZE] = "";
	uint64_t bufsz = c->buffer_bytes > INT_MAX ? INT_MAX : c->buffer_bytes;

	rd->h = pcap_create(c->iface, pe);
	if (!rd->h) {
		snprintf(errbuf, errlen, "%s: %s", c->iface, pe);
		*why = RING_ERR_SYSTEM;
		return -1;
	}
	pcap_set_snaplen(rd->h, (int)c->snaplen);
	/* Promiscuous as tcpdump; libpcap also counts ps_ifdrop only in this mode. */
	pcap_set_promisc(rd->h, 1);
	pcap_set_buffer_size(rd->h, (int)bufsz);
	/*
	 * No pcap_set_immediate_mode(): libpcap 1.10 falls back to TPACKET_V2
	 * (fixed-size frames) in immediate mode, because TPACKET_V3 holds
	 * packets until a block is full or its timer fires. The timeout below
	 * bounds that delay instead, and the stop path waits it out.
	 */
	pcap_set_timeout(rd->h, c->block_timeout_ms);
	if (pcap_set_tstamp_precision(rd->h, PCAP_TSTAMP_PRECISION_NANO) != 0)
		(void)0; /* stays microseconds; ring_reader_cb scales */
	int rc = pcap_activate(rd->h);
	if (rc < 0) {
		const char *msg = pcap_geterr(rd->h);
		if (rc == PCAP_ERROR_NO_SUCH_DEVICE)
			snprintf(errbuf, errlen, "%s: no such interface", c->iface);
		else if (rc == PCAP_ERROR_PERM_DENIED)
			snprintf(errbuf, errlen,
				 "%s: permission denied (capturing needs root or CAP_NET_RAW)",
				 c->iface);
		else if (rc == PCAP_ERROR_IFACE_NOT_UP)
			snprintf(errbuf, errlen, "%s: interface is not up", c->iface);
		else
			snprintf(errbuf, errlen, "%s: %s", c->iface,
				 msg && *msg ? msg : pcap_statustostr(rc));
		*why = RING_ERR_SYSTEM;
		return -1;
	}
	rd->nano = pcap_get_tstamp_precision(rd->h) == PCAP_TSTAMP_PRECISION_NANO;
	rd->fd = pcap_fileno(rd->h);
	if (pcap_setnonblock(rd->h, 1, pe) != 0) {
		snprintf(errbuf, errlen, "%s: %s", c->iface, pe);
		*why = RING_ERR_SYSTEM;
		return -1;
	}
	if (c->filter && *c->filter) {
		struct bpf_program prog;
		if (pcap_compile(rd->h, &prog, c->filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
			snprintf(errbuf, errlen, "bad filter '%s': %s", c->filter,
				 pcap_geterr(rd->h));
			*why = RING_ERR_USAGE;
			return -1;
		}
		rc = pcap_setfilter(rd->h, &prog);
		pcap_freecode(&prog);
		if (rc != 0) {
			snprintf(errbuf, errlen, "%s: cannot set filter: %s", c->iface,
				 pcap_geterr(rd->h));
			*why = RING_ERR_SYSTEM;
			return -1;
		}
	}
	/*
	 * On loopback every packet passes dev_queue_xmit_nit() (outgoing copy)
	 * and then netif_rx() (incoming copy); libpcap throws the outgoing one
	 * away only in user space, after it took ring space and CPU. Ignoring
	 * outgoing packets in the kernel keeps exactly one copy. On any other
	 * interface the outgoing direction is real traffic, so it stays.
	 */
	if (ring_is_loopback(rd->fd, c->iface)) {
		int one = 1;
		if (setsockopt(rd->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) ==
		    -1) {
			snprintf(errbuf, errlen, "%s: PACKET_IGNORE_OUTGOING: %s", c->iface,
				 strerror(errno));
			*why = RING_ERR_SYSTEM;
			return -1;
		}
		r->loopback = true;
	}
	return 0;
}

/*
 * Join every socket to one fanout group. The first asks the kernel for an
 * unused group id (PACKET_FANOUT_FLAG_UNIQUEID, so two captures never share
 * a group by accident) and the others join that id with the same mode.
 */
static int ring_join_fanout(struct ring *r, char *errbuf, size_t errlen)
{
	static const int modes[RING_FANOUT_COUNT] = {
	    PACKET_FANOUT_QM, PACKET_FANOUT_CPU, PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_DEFRAG};
	int type = modes[r->cfg.mode];
	/*
	 * In a fanout group the kernel taps packets with the group's hook,
	 * not the sockets': each socket's PACKET_IGNORE_OUTGOING no longer
	 * applies (dev_queue_xmit_nit() checks the group's flag), so on
	 * loopback the group must ask for it itself.
	 */
	if (r->loopback)
		type |= PACKET_FANOUT_FLAG_IGNORE_OUTGOING;
	/* The mode and flags go in the high 16 bits; DEFRAG (0x8000) reaches
	 * the sign bit, so shift unsigned. */
	int val = (int)((uint32_t)(type | PACKET_FANOUT_FLAG_UNIQUEID) << 16);
	socklen_t vl = sizeof(val);

	if (setsockopt(r->rd[0].fd, SOL_PACKET, PACKET_FANOUT, &val, sizeof(val)) == -1 ||
	    getsockopt(r->rd[0].fd, SOL_PACKET, PACKET_FANOUT, &val, &vl) == -1) {
		snprintf(errbuf, errlen, "%s: PACKET_FANOUT: %s", r->iface, strerror(errno));
		return -1;
	}
	int id = val & 0xffff;
	for (unsigned k = 1; k < r->n; k++) {
		val = (int)((uint32_t)id | ((uint32_t)type << 16));
		if (setsockopt(r->rd[k].fd, SOL_PACKET, PACKET_FANOUT, &val, sizeof(val)) == -1) {
			snprintf(errbuf, errlen, "%s: PACKET_FANOUT join: %s", r->iface,
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}

struct ring *ring_open(const struct ring_config *cfg, char *errbuf, size_t errlen,
		       enum ring_open_err *why)
{
	struct ring *r = calloc(1, sizeof(*r));
	*why = RING_ERR_SYSTEM;
	if (!r) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	r->cfg = *cfg;
	r->n = cfg->nsockets;
	r->pending = -1;
	snprintf(r->iface, sizeof(r->iface), "%s", cfg->iface);
	r->cfg.iface = r->iface;
	r->cfg.filter = NULL; /* only used while opening; not kept */
	if (r->cfg.block_timeout_ms <= 0)
		r->cfg.block_timeout_ms = 100;
	if (r->n > 1 && r->cfg.block_timeout_ms > RING_FANOUT_BLOCK_MS)
		r->cfg.block_timeout_ms = RING_FANOUT_BLOCK_MS;
	if (r->n < 1 || r->n > RING_MAX_SOCKETS || cfg->mode >= RING_FANOUT_COUNT) {
		snprintf(errbuf, errlen, "bad socket count or fanout mode");
		*why = RING_ERR_USAGE;
		goto err;
	}
	uint64_t qsize = ring_floor_pow2(cfg->queue_bytes / r->n ? cfg->queue_bytes / r->n : 1);
	uint64_t maxrec = RING_ALIGN8(RING_REC_HDR + cfg->snaplen);
	if (qsize < 4 * maxrec) {
		snprintf(errbuf, errlen,
			 "queue of %" PRIu64 " bytes per socket is too small for snaplen %" PRIu32
			 " (need %" PRIu64 ")",
			 qsize, cfg->snaplen, 4 * maxrec);
		*why = RING_ERR_USAGE;
		goto err;
	}
	size_t rdsz = (sizeof(struct ring_reader) * r->n + 63) & ~(size_t)63;
	r->rd = aligned_alloc(64, rdsz);
	if (!r->rd) {
		snprintf(errbuf, errlen, "out of memory");
		goto err;
	}
	memset(r->rd, 0, rdsz);
	for (unsigned k = 0; k < r->n; k++) {
		struct ring_reader *rd = &r->rd[k];
		rd->r = r;
		rd->idx = k;
		rd->fd = -1;
		rd->size = qsize;
		rd->mask = qsize - 1;
		rd->buf = malloc(qsize);
		if (!rd->buf) {
			snprintf(errbuf, errlen, "out of memory for a %" PRIu64 "-byte queue",
				 qsize);
			goto err;
		}
		/* Fault the pages in now, not in the reader's hot path. */
		memset(rd->buf, 0, qsize);
	}
	r->cfg.filter = cfg->filter;
	for (unsigned k = 0; k < r->n; k++)
		if (ring_open_handle(r, &r->rd[k], errbuf, errlen, why) < 0)
			goto err;
	r->cfg.filter = NULL;
	r->linktype = ring_dlt_to_linktype(pcap_datalink(r->rd[0].h));
	r->have_mac =
	    r->linktype == PKT_LINKTYPE_ETHERNET && ring_own_mac(r->rd[0].fd, r->iface, r->mac);
	if (r->n > 1) {
		if (ring_join_fanout(r, errbuf, errlen) < 0)
			goto err;
		r->qm = cfg->mode == RING_FANOUT_QM;
	}
	/*
	 * Until the last socket joined, each socket saw every packet; those
	 * packets (and their share of the counters) belong to no capture: the
	 * counters start from here and earlier-stamped packets are skipped.
	 */
	r->base_ns = ring_clock_ns(CLOCK_REALTIME);
	for (unsigned k = 0; k < r->n; k++)
		if (pcap_stats(r->rd[k].h, &r->rd[k].last) != 0)
			memset(&r->rd[k].last, 0, sizeof(r->rd[k].last));
	r->start_ns = ring_clock_ns(CLOCK_REALTIME);
	*why = RING_ERR_NONE;
	return r;
err:
	ring_close(r);
	return NULL;
}

int ring_start(struct ring *r, char *errbuf, size_t errlen)
{
	for (unsigned k = 0; k < r->n; k++) {
		int rc = pthread_create(&r->rd[k].thread, NULL, ring_reader_main, &r->rd[k]);
		if (rc != 0) {
			snprintf(errbuf, errlen, "cannot start reader thread: %s", strerror(rc));
			return -rc;
		}
		r->rd[k].started = true;
	}
	return 0;
}

void ring_request_stop(struct ring *r)
{
	atomic_store_explicit(&r->stop, 1, memory_order_relaxed);
}

/* ---- the queue: consumer side ------------------------------------------------ */

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
		struct timespec ts = {wait_ns / 1000000000ll, wait_ns % 1000000000ll};
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
		int64_t now = ring_clock_ns(CLOCK_MONOTONIC);
		if (deadline == 0)
			deadline = now + (int64_t)timeout_ms * 1000000ll;
		if (now >= deadline)
			return 0;
		ring_wait_for_packets(r, deadline - now);
	}
}

void ring_stats(const struct ring *r, unsigned sock, struct ring_sock_stats *out)
{
	struct ring_reader *rd = &r->rd[sock];

	out->captured = atomic_load_explicit(&rd->captured, memory_order_relaxed);
	out->queue_drops = atomic_load_explicit(&rd->queue_drops, memory_order_relaxed);
	out->kernel_recv = atomic_load_explicit(&rd->kernel_recv, memory_order_relaxed);
	out->kernel_drops = atomic_load_explicit(&rd->kernel_drops, memory_order_relaxed);
	out->if_drops = atomic_load_explicit(&rd->if_drops, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&rd->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&rd->tail, memory_order_relaxed);
	out->queue_used = head > tail ? head - tail : 0;
	out->queue_size = rd->size;
}

void ring_isb(void *ctx, unsigned sock, struct pw_ifstats *out)
{
	const struct ring *r = ctx;
	struct ring_sock_stats st;

	ring_stats(r, sock, &st);
	memset(out, 0, sizeof(*out));
	out->ifrecv = st.kernel_recv;
	out->have_ifrecv = true;
	out->osdrop = st.kernel_drops + st.queue_drops;
	out->have_osdrop = true;
	if (sock == 0) {
		out->ifdrop = st.if_drops;
		out->have_ifdrop = true;
	}
}

unsigned ring_nsockets(const struct ring *r)
{
	return r->n;
}

uint32_t ring_linktype(const struct ring *r)
{
	return r->linktype;
}

int32_t ring_queue(const struct ring *r, unsigned sock)
{
	return r->qm ? (int32_t)sock : -1;
}

bool ring_loopback(const struct ring *r)
{
	return r->loopback;
}

const char *ring_error(const struct ring *r)
{
	for (unsigned k = 0; k < r->n; k++)
		if (atomic_load_explicit(&r->rd[k].done, memory_order_acquire) && r->rd[k].err[0])
			return r->rd[k].err;
	return NULL;
}

void ring_close(struct ring *r)
{
	if (!r)
		return;
	if (r->rd) {
		ring_request_stop(r);
		for (unsigned k = 0; k < r->n; k++)
			if (r->rd[k].started)
				pthread_join(r->rd[k].thread, NULL);
		for (unsigned k = 0; k < r->n; k++) {
			if (r->rd[k].h)
				pcap_close(r->rd[k].h);
			free(r->rd[k].buf);
		}
		free(r->rd);
	}
	free(r);
}
