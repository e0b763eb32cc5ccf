/*
 * lab-qcap.c - capture one interface into one pcap file per queue, for the
 * network-namespace labs (reordering across queues).
 *
 *   lab-qcap -i IF -n N -w PREFIX [-s SNAPLEN] [--inbound] [--timeout SEC]
 *
 * Opens N AF_PACKET sockets on IF, each with its own TPACKET_V2 ring, and
 * joins them into one PACKET_FANOUT group in QM mode: the kernel hands each
 * packet to socket (skb queue_mapping % N) (fanout_demux_qm()), so socket k
 * sees the packets of queue k (for a veth: the TX queue the peer's sender
 * picked, which is the RX queue it arrives on). One thread per socket writes
 * PREFIX-qK.pcap (classic pcap, ns timestamps, link type Ethernet), which is
 * what `tcpsift analyze --queue-per-file PREFIX-q0.pcap PREFIX-q1.pcap ...`
 * expects. Timestamps come from the ring (tpacket_rcv(): skb->tstamp when a
 * socket enabled receive timestamps, else the time of delivery to the
 * socket), so merging the files by time shows the order the queues
 * delivered in.
 *
 * --inbound skips packets the host sends (PACKET_IGNORE_OUTGOING). Prints
 * "listening on IF" when all sockets are ready and, at the end, one line
 * with packets per queue and the kernel's drop count. Bounded by --timeout
 * (default 60) and ended by SIGINT/SIGTERM; exit 0, 1 on errors, 2 on usage.
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
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

enum {
	QCAP_MAX_QUEUES = 64,
	QCAP_FRAME = 2048, /* holds a 1500-byte frame + tpacket2_hdr */
	QCAP_BLOCK = 1 << 16,
	QCAP_BLOCKS = 64, /* 4 MiB ring per queue */
};

struct qcap_sock {
	int fd;
	uint8_t *ring;
	size_t ring_len;
	unsigned nframes, next;
	FILE *out;
	uint64_t packets;
	unsigned snaplen;
	pthread_t thread;
};

static volatile sig_atomic_t qcap_stop;

static void on_signal(int sig)
{
	(void)sig;
	qcap_stop = 1;
}

static int write_pcap_header(FILE *f, unsigned snaplen)
{
	/* Classic pcap, nanosecond magic, LINKTYPE_ETHERNET. */
	const uint32_t hdr[6] = {0xa1b23c4d, 2 | (4u << 16), 0, 0, snaplen, 1};
	return fwrite(hdr, sizeof(hdr), 1, f) == 1 ? 0 : -1;
}

/* Drain every frame the kernel handed over; returns how many. */
static unsigned drain(struct qcap_sock *s)
{
	unsigned n = 0;

	for (;;) {
		struct tpacket2_hdr *h =
		    (struct tpacket2_hdr *)(s->ring + (size_t)s->next * QCAP_FRAME);
		if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
			break;
		uint32_t cap = h->tp_snaplen < s->snaplen ? h->tp_snaplen : s->snaplen;
		uint32_t rec[4] = {h->tp_sec, h->tp_nsec, cap, h->tp_len};
		fwrite(rec, sizeof(rec), 1, s->out);
		fwrite((uint8_t *)h + h->tp_mac, cap, 1, s->out);
		s->packets++;
		n++;
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		s->next = (s->next + 1) % s->nframes;
	}
	return n;
}

static void *reader(void *arg)
{
	struct qcap_sock *s = arg;

	while (!qcap_stop) {
		struct pollfd p = {.fd = s->fd, .events = POLLIN};
		if (!drain(s))
			(void)poll(&p, 1, 50);
	}
	drain(s);
	return NULL;
}

static int open_queue(struct qcap_sock *s, unsigned idx, bool inbound, int group)
{
	int one = 1, ver = TPACKET_V2;
	int fanout = group | (PACKET_FANOUT_QM << 16);
	struct tpacket_req req = {.tp_block_size = QCAP_BLOCK,
				  .tp_block_nr = QCAP_BLOCKS,
				  .tp_frame_size = QCAP_FRAME,
				  .tp_frame_nr = QCAP_BLOCKS * (QCAP_BLOCK / QCAP_FRAME)};
	struct sockaddr_ll sll = {
	    .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = (int)idx};

	s->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (s->fd == -1)
		return -1;
	if (setsockopt(s->fd, SOL_PACKET, PACKET_VERSION, &ver, sizeof(ver)) == -1 ||
	    (inbound &&
	     setsockopt(s->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) == -1) ||
	    setsockopt(s->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) == -1)
		return -1;
	s->ring_len = (size_t)req.tp_block_size * req.tp_block_nr;
	s->nframes = req.tp_frame_nr;
	s->ring = mmap(NULL, s->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->ring == MAP_FAILED)
		return -1;
	if (bind(s->fd, (struct sockaddr *)&sll, sizeof(sll)) == -1 ||
	    setsockopt(s->fd, SOL_PACKET, PACKET_FANOUT, &fanout, sizeof(fanout)) == -1)
		return -1;
	return 0;
}

static void usage(FILE *out)
{
	fputs("usage: lab-qcap -i IF -n QUEUES -w PREFIX [-s SNAPLEN] [--inbound] "
	      "[--timeout SEC]\n",
	      out);
}

int main(int argc, char **argv)
{
	enum { O_INBOUND = 256, O_TIMEOUT };
	static const struct option lopts[] = {
	    {"inbound", no_argument, NULL, O_INBOUND},
	    {"timeout", required_argument, NULL, O_TIMEOUT},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static struct qcap_sock socks[QCAP_MAX_QUEUES];
	const char *ifname = NULL, *prefix = NULL;
	unsigned nq = 0, snaplen = 128, timeout = 60;
	bool inbound = false;
	int c;

	while ((c = getopt_long(argc, argv, "i:n:w:s:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			ifname = optarg;
			break;
		case 'n':
			nq = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'w':
			prefix = optarg;
			break;
		case 's':
			snaplen = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case O_INBOUND:
			inbound = true;
			break;
		case O_TIMEOUT:
			timeout = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!ifname || !prefix || nq < 1 || nq > QCAP_MAX_QUEUES || snaplen < 64 ||
	    snaplen > QCAP_FRAME - 128 || optind != argc) {
		usage(stderr);
		return 2;
	}
	unsigned idx = if_nametoindex(ifname);
	if (!idx) {
		fprintf(stderr, "lab-qcap: %s: %s\n", ifname, strerror(errno));
		return 1;
	}
	/* A group id of our own: the low 16 bits of the pid. */
	int group = (int)(getpid() & 0xffff);
	for (unsigned k = 0; k < nq; k++) {
		char path[4096];
		socks[k].snaplen = snaplen;
		snprintf(path, sizeof(path), "%s-q%u.pcap", prefix, k);
		socks[k].out = fopen(path, "wb");
		if (!socks[k].out || write_pcap_header(socks[k].out, snaplen) == -1) {
			fprintf(stderr, "lab-qcap: %s: %s\n", path, strerror(errno));
			return 1;
		}
		if (open_queue(&socks[k], idx, inbound, group) == -1) {
			fprintf(stderr, "lab-qcap: queue socket %u: %s\n", k, strerror(errno));
			return 1;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (unsigned k = 0; k < nq; k++)
		if (pthread_create(&socks[k].thread, NULL, reader, &socks[k]) != 0) {
			fprintf(stderr, "lab-qcap: cannot start reader %u\n", k);
			qcap_stop = 1;
			return 1;
		}
	fprintf(stderr, "lab-qcap: listening on %s, %u queue sockets (fanout QM)\n", ifname, nq);

	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!qcap_stop) {
		usleep(20000);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= (time_t)timeout)
			qcap_stop = 1;
	}
	uint64_t total = 0, drops = 0;
	fprintf(stderr, "lab-qcap:");
	for (unsigned k = 0; k < nq; k++) {
		struct tpacket_stats st = {0};
		socklen_t len = sizeof(st);
		pthread_join(socks[k].thread, NULL);
		(void)getsockopt(socks[k].fd, SOL_PACKET, PACKET_STATISTICS, &st, &len);
		drops += st.tp_drops;
		total += socks[k].packets;
		fprintf(stderr, " q%u=%" PRIu64, k, socks[k].packets);
		fclose(socks[k].out);
		munmap(socks[k].ring, socks[k].ring_len);
		close(socks[k].fd);
	}
	fprintf(stderr, "\n%" PRIu64 " packets captured\n%" PRIu64 " packets dropped by kernel\n",
		total, drops);
	return 0;
}
