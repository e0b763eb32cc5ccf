/* gen.c - deterministic generator of a large, realistic many-connection TCP pcap for benchmarks. */

/*
 * One discrete-event simulation drives every connection.  The capture point
 * sits on the path between the two hosts of each connection:
 *
 *   client host ---- half[CLI] ---- [capture] ---- half[SRV] ---- server host
 *               (most of the RTT)              (a LAN hop, <= 10 us)
 *
 * A packet is an EV_TX event at the time it reaches the capture point, where
 * it is written or dropped "before the capture point".  The same event then
 * becomes an EV_RX at the peer half a path later; hosts react to EV_RX and to
 * their timers by scheduling new EV_TX events.  Both directions share one
 * 10 Gb/s link at the capture point, so timestamps are monotonic with at
 * least one serialization time between records.  One binary heap orders all
 * events; events and connection slots come from tables sized at start, so
 * nothing is allocated per packet.
 *
 * The endpoints are small Linux-like TCPs: handshake with MSS, SACK-permitted,
 * timestamps and window scale; initial window 10 (RFC 6928), slow start to a
 * 64-segment cap; delayed ACK every second segment or after 40 ms, immediate
 * dup ACKs with SACK blocks for out-of-order data; fast retransmit once
 * DupThresh segments are SACKed above a hole (RFC 6675), else an RTO of
 * RTT + 200 ms.  Loss applies to first transmissions of data segments only,
 * so recovery always ends.  A reordered segment is built in its place (its
 * TSval and IP ID fit there) and reaches the capture point after 1-3 later
 * segments of its burst; a retransmission is given a fresh TSval and IP ID, so
 * the two can be told apart.
 *
 * Traffic: 88% request/response connections (think time ~100 ms, some long
 * idles with keep-alive probes), 9% paced bulk downloads, 3% paced uploads;
 * most close with FIN from either side, about 10% with RST.  Each connection
 * is given a packet budget so the totals land on --packets and --connections.
 *
 * Ground truth (drops, reorders, retransmissions, dup ACKs, keep-alives) is
 * counted as records are written, in capture order, and printed to stderr;
 * --truth lists it per frame.  A retransmission or reorder that nothing
 * captured earlier sits above looks like new data on the wire and is counted
 * as "hidden" instead.
 *
 * Checksums: IPv4 header and TCP checksums are both correct.  Payload bytes
 * are zero, so the TCP checksum only needs the pseudo-header and the TCP
 * header, which keeps it cheap and exact even when snaplen truncates.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum gen_exit { GEN_EXIT_OK = 0, GEN_EXIT_USAGE = 2, GEN_EXIT_OUTPUT = 3, GEN_EXIT_COUNT };

#define GEN_NS_US 1000ull
#define GEN_NS_MS 1000000ull
#define GEN_NS_S  1000000000ull

/* Fixed capture start (2024-01-01T00:00:00Z) so output only depends on options. */
#define GEN_EPOCH_S 1704067200ull

#define GEN_SNAPLEN_MAX 262144u /* libpcap's MAXIMUM_SNAPLEN */
#define GEN_OUTBUF	(4u << 20)

/* TCP behaviour, Linux-like. */
#define GEN_MSS_OPT4	1460 /* MSS option on a 1500-byte MTU */
#define GEN_MSS_OPT6	1440
#define GEN_TSOPT_LEN	12 /* NOP NOP TS on every segment: 1460 - 12 = 1448 bytes of data */
#define GEN_CWND_INIT	10 /* RFC 6928 */
#define GEN_CWND_MAX	64
#define GEN_DUPTHRESH	3		  /* RFC 6675 */
#define GEN_DELACK_NS	(40 * GEN_NS_MS)  /* Linux TCP_DELACK_MIN */
#define GEN_RTO_MIN_NS	(200 * GEN_NS_MS) /* Linux TCP_RTO_MIN: RTO = RTT + this */
#define GEN_KEEPIDLE_NS (200 * GEN_NS_MS) /* scaled down from 2 h so probes fit in a capture */
#define GEN_WIN_SYN	64240
#define GEN_WS_CLI	7
#define GEN_WS_SRV	9
#define GEN_WIN_CLI	2052 /* constant windows: dup-ACK detectors require an unchanged window */
#define GEN_WIN_SRV	501

/* Simulation knobs. */
#define GEN_LOST_MAX	     8	 /* unrecovered drops per sender; more are not dropped */
#define GEN_OOO_MAX	     12	 /* > GEN_LOST_MAX + 1 held segment: the receiver never overflows */
#define GEN_EV_PER_CONN	     512 /* bound: 2 x (64 data + 8 retx) in flight, their ACKs, timers */
#define GEN_REORDER_DEBT_MAX 1000 /* bounds the carry when nothing is eligible for long */
#define GEN_PACE_AHEAD	     (100 * GEN_NS_US) /* paced senders schedule at most this far ahead */
#define GEN_RAMP_NS	     (300 * GEN_NS_MS) /* the first connections start over this span */
#define GEN_ARRIVAL_NS	     (200 * GEN_NS_US) /* mean gap before a freed slot takes a new connection */
#define GEN_THINK_NS	     (100 * GEN_NS_MS) /* mean client think time between requests */
#define GEN_BULK_MBPS_LO     3
#define GEN_BULK_MBPS_HI     15
#define GEN_CLI_HOSTS	     4093
#define GEN_SRV_HOSTS	     24
#define GEN_NONE	     UINT32_MAX

#define GEN_TH_FIN 0x01
#define GEN_TH_SYN 0x02
#define GEN_TH_RST 0x04
#define GEN_TH_PSH 0x08
#define GEN_TH_ACK 0x10

/* Per-packet notes: ground truth the writer counts and the receiver reacts to. */
#define GEN_N_RETX   0x01 /* retransmission */
#define GEN_N_RTO    0x02 /* ... sent by the retransmission timer rather than fast retransmit */
#define GEN_N_KA     0x04 /* keep-alive probe: seq = snd_nxt - 1, no data */
#define GEN_N_KA_ACK 0x08 /* answer to a keep-alive probe */
#define GEN_N_FR     0x10 /* ACK after which the sender sees DupThresh segments SACKed above a hole */
#define GEN_N_LAST   0x20 /* final ACK of the FIN exchange: the connection ends once written */
#define GEN_N_REORD  0x40 /* held back and written after later segments */

enum gen_side { GEN_CLI = 0, GEN_SRV, GEN_SIDE_COUNT };

enum gen_ev_kind {
	GEN_EV_TX = 0, /* packet reaches the capture point */
	GEN_EV_RX,     /* packet reaches the peer host */
	GEN_EV_TIMER,
	GEN_EV_KIND_COUNT
};

enum gen_tm {
	GEN_TM_START = 0, /* connection start (client connect()) */
	GEN_TM_KA,	  /* client keep-alive probe during a long idle */
	GEN_TM_APP0,	  /* application action, one per side: see enum gen_app */
	GEN_TM_APP1,
	GEN_TM_DELACK0,
	GEN_TM_DELACK1,
	GEN_TM_RTO0,
	GEN_TM_RTO1,
	GEN_TM_PACE0,
	GEN_TM_PACE1,
	GEN_TM_COUNT
};

enum gen_app {
	GEN_APP_NONE = 0,
	GEN_APP_REQUEST, /* client: send the next request */
	GEN_APP_RESPOND, /* server: send the response to a complete request */
	GEN_APP_CLOSE,	 /* close(): queue a FIN */
	GEN_APP_RST,	 /* abortive close: send RST */
	GEN_APP_COUNT
};

enum gen_kind {
	GEN_KIND_RR = 0, /* request/response with think times and keep-alive idles */
	GEN_KIND_DOWN,	 /* small request, paced bulk response */
	GEN_KIND_UP,	 /* paced bulk upload, small response */
	GEN_KIND_COUNT
};

enum gen_close {
	GEN_CLOSE_CLI_FIN = 0, /* client closes after the last response */
	GEN_CLOSE_SRV_FIN,     /* server closes right after the last response */
	GEN_CLOSE_CLI_RST,     /* client aborts after the last response */
	GEN_CLOSE_SRV_RST,     /* server resets once its last response is acked */
	GEN_CLOSE_COUNT
};

enum gen_lost_state {
	GEN_LOST_PENDING = 0,
	GEN_LOST_FR_READY, /* DupThresh segments arrived above it; the ACK saying so is on its way
			    */
	GEN_LOST_RETX,
	GEN_LOST_STATE_COUNT
};

struct gen_opts {
	const char *out;
	uint64_t packets;
	uint64_t connections;
	uint64_t concurrent;
	double loss;	/* percent of first-transmission data segments */
	double reorder; /* percent of first-transmission data segments */
	double ipv6;	/* percent of connections */
	uint64_t seed;
	uint32_t snaplen;
	uint32_t rtt_us;
	const char *truth;
	int wrap;
	int nsec;
};

struct gen_rng {
	uint64_t s[4];
};

struct gen_out {
	int fd;
	uint8_t *buf;
	size_t len;
	size_t cap;
	int err; /* errno of the first failed write, 0 if none */
};

/* A pool entry: a packet (EV_TX/EV_RX) or a timer. */
struct gen_ev {
	uint32_t conn; /* slot */
	uint32_t
	    gen; /* slot generation when scheduled: events of a finished connection are stale */
	uint8_t kind;
	uint8_t dir;   /* sending side of a packet, owner of a timer */
	uint8_t flags; /* GEN_TH_* */
	uint8_t note;  /* GEN_N_* for packets, enum gen_tm for timers */
	uint16_t len;
	uint16_t ip_id;
	uint32_t seq;
	uint32_t ack;
	uint32_t tsval;
	uint32_t tsecr;
	uint8_t nsack;
	uint32_t sack[3][2];
};

struct gen_hent {
	uint64_t t;
	uint32_t idx;
	uint32_t tie; /* insertion order: equal times pop first-in first-out */
};

/* A lazy timer: at most one event queued, re-queued when the deadline moved later. */
struct gen_timer {
	uint64_t deadline;  /* 0 = disarmed */
	uint64_t queued_at; /* time of the queued event, 0 = none */
};

struct gen_range {
	uint32_t start;
	uint32_t end;
};

struct gen_lost {
	uint32_t seq;
	uint16_t len;
	uint8_t segs_after; /* segments the receiver got above it: the SACK scoreboard */
	uint8_t state;	    /* enum gen_lost_state */
	uint64_t drop_t;
};

/* One endpoint: the send side of its direction and the receive side of the other. */
struct gen_ep {
	uint32_t iss;
	uint32_t snd_una;
	uint32_t snd_nxt;
	uint32_t app_end;  /* sequence just past the data the application has queued */
	uint32_t recover;  /* snd_nxt when fast recovery began (RFC 6582) */
	uint32_t cwnd;	   /* segments */
	uint32_t pace_ns;  /* gap between new segments, 0 = line rate */
	uint64_t next_tx;  /* pacing: earliest capture time of the next new segment */
	uint64_t nic_free; /* capture time our previous packet has left the wire: keeps FIFO */
	uint32_t ts_off;   /* per-host millisecond clock offset */
	uint16_t ip_id;
	uint16_t mss; /* payload bytes per full segment */
	uint8_t in_recovery;
	uint8_t fin_queued;
	uint8_t fin_sent;
	uint8_t n_lost;
	uint8_t app; /* enum gen_app pending on GEN_TM_APP */
	struct gen_lost lost[GEN_LOST_MAX];

	uint32_t rcv_nxt;
	uint32_t ts_recent;
	uint32_t rcv_expect; /* end of the peer's current message: wakes the application */
	uint32_t rcv_fin;    /* sequence of a FIN received out of order */
	uint32_t sack_recent;
	uint32_t ooo_bytes;
	uint32_t last_ack_tx; /* ack field of our last written packet, for dup-ACK ground truth */
	uint32_t hi_nxt; /* highest sequence end written: what a passive observer expects next */
	uint8_t expect_set;
	uint8_t fin_pending;
	uint8_t fin_rcvd;
	uint8_t unacked; /* in-order segments not acked yet (delayed ACK) */
	uint8_t ack_sent;
	uint8_t
	    last_syn; /* our last ACK-carrying packet was the SYN-ACK, with the unscaled window */
	uint8_t n_ooo;
	struct gen_range ooo[GEN_OOO_MAX];
};

struct gen_conn {
	uint32_t gen;
	uint32_t id;
	uint8_t live;
	uint8_t kind;  /* enum gen_kind */
	uint8_t close; /* enum gen_close */
	uint8_t v6;
	uint8_t last_resp; /* the response in flight is the last one */
	uint8_t ttl[GEN_SIDE_COUNT];
	uint32_t budget; /* packets this connection aims to write */
	uint32_t emitted;
	uint32_t bulk_bytes;
	uint32_t host[GEN_SIDE_COUNT];
	uint16_t port[GEN_SIDE_COUNT];
	uint32_t flow[GEN_SIDE_COUNT];
	uint64_t half[GEN_SIDE_COUNT]; /* one-way delay capture point <-> host */
	uint64_t idle_until;
	struct gen_timer tm[GEN_TM_COUNT];
	struct gen_ep ep[GEN_SIDE_COUNT];
};

struct gen_stats {
	uint64_t packets;
	uint64_t v6_packets;
	uint64_t wire_bytes;
	uint64_t first_t;
	uint64_t last_t;
	uint64_t started;
	uint64_t v6_conns;
	uint64_t wrapped;
	uint64_t closed_fin;
	uint64_t closed_rst;
	uint64_t dropped;
	uint64_t reordered;
	uint64_t retx_fast;
	uint64_t retx_rto;
	uint64_t retx_hidden;	 /* ... whose sequence is not below anything captured before */
	uint64_t reorder_hidden; /* held, but written with nothing later captured before it */
	uint64_t dupacks;
	uint64_t keepalives;
	uint64_t peak_live;
	uint64_t link_wait_ns; /* time packets waited for the shared link: should stay small */
};

struct gen {
	const struct gen_opts *o;
	struct gen_rng rng;
	struct gen_out out;
	FILE *truth; /* per-frame ground truth, NULL if not asked for */
	struct gen_ev *pool;
	uint32_t *pool_free;
	uint32_t pool_nfree;
	uint32_t pool_cap;
	struct gen_hent *heap;
	uint32_t heap_n;
	uint32_t tie;
	struct gen_conn *conns;
	uint32_t nslots;
	uint32_t *slot_free;
	uint32_t slot_nfree;
	uint64_t assigned; /* connections given a slot so far */
	uint64_t live;
	uint64_t budget_left; /* sum over live connections of budget not yet written */
	uint64_t link_free;
	uint32_t reorder_debt; /* reorder draws still to place on an eligible segment */
	struct gen_stats st;
};

/* One table drives getopt_long and --help. */
enum gen_optid {
	GEN_OPT_PACKETS = 256,
	GEN_OPT_CONNECTIONS,
	GEN_OPT_CONCURRENT,
	GEN_OPT_LOSS,
	GEN_OPT_REORDER,
	GEN_OPT_IPV6,
	GEN_OPT_SEED,
	GEN_OPT_SNAPLEN,
	GEN_OPT_RTT,
	GEN_OPT_WRAP,
	GEN_OPT_NSEC,
	GEN_OPT_TRUTH,
	GEN_OPT_COUNT
};

struct gen_optdef {
	struct option opt;
	const char *arg;
	const char *help;
};

static const struct gen_optdef gen_optdefs[] = {
    {{"output", required_argument, NULL, 'o'}, "FILE", "write the capture to FILE, '-' for stdout"},
    {{"packets", required_argument, NULL, GEN_OPT_PACKETS}, "N", "packets to write (5000000)"},
    {{"connections", required_argument, NULL, GEN_OPT_CONNECTIONS},
     "N",
     "connections in total (20000)"},
    {{"concurrent", required_argument, NULL, GEN_OPT_CONCURRENT},
     "N",
     "at most N connections live at once (2000)"},
    {{"loss", required_argument, NULL, GEN_OPT_LOSS},
     "PCT",
     "data segments dropped before the capture point (1)"},
    {{"reorder", required_argument, NULL, GEN_OPT_REORDER},
     "PCT",
     "data segments written after 1-3 later ones (0.5)"},
    {{"ipv6", required_argument, NULL, GEN_OPT_IPV6}, "PCT", "connections over IPv6 (15)"},
    {{"seed", required_argument, NULL, GEN_OPT_SEED}, "N", "random seed (1)"},
    {{"snaplen", required_argument, NULL, GEN_OPT_SNAPLEN},
     "N",
     "bytes kept per record (96); wire length stays full"},
    {{"rtt-us", required_argument, NULL, GEN_OPT_RTT},
     "N",
     "base RTT in microseconds (200); each connection 0.5-3x that"},
    {{"wrap", no_argument, NULL, GEN_OPT_WRAP},
     NULL,
     "ISNs near 2^32 for 1 in 10 connections, so sequence numbers wrap"},
    {{"nsec", no_argument, NULL, GEN_OPT_NSEC},
     NULL,
     "nanosecond pcap magic (default microsecond)"},
    {{"truth", required_argument, NULL, GEN_OPT_TRUTH},
     "FILE",
     "list 'frame kind' per retransmission, reorder, dup ACK, keep-alive"},
    {{"help", no_argument, NULL, 'h'}, NULL, "show this help"},
};

#define GEN_NOPTS (sizeof(gen_optdefs) / sizeof(gen_optdefs[0]))

/* Client-side and server-side router MACs (locally administered). */
static const uint8_t gen_mac[GEN_SIDE_COUNT][6] = {
    {0x02, 0x00, 0x5e, 0x10, 0x00, 0x01},
    {0x02, 0x00, 0x5e, 0x10, 0x00, 0x02},
};

static const uint16_t gen_srv_ports[8] = {443, 443, 443, 80, 8080, 443, 5432, 6379};

/* --- random numbers: xoshiro256**, seeded through splitmix64 --- */

static uint64_t gen_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void rng_seed(struct gen_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = gen_splitmix(&seed);
}

static uint64_t rng_next(struct gen_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5;
	uint64_t res = ((x << 7) | (x >> 57)) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return res;
}

static uint64_t rng_below(struct gen_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

static uint64_t rng_range(struct gen_rng *r, uint64_t lo, uint64_t hi)
{
	return lo + rng_below(r, hi - lo + 1);
}

static double rng_unit(struct gen_rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1p-53;
}

static int rng_pct(struct gen_rng *r, double pct)
{
	return rng_unit(r) * 100.0 < pct;
}

/* Natural log of x in (0, 1]; own series because the bench build links no libm. */
static double gen_ln(double x)
{
	union {
		double d;
		uint64_t u;
	} v = {.d = x};
	int e = (int)((v.u >> 52) & 0x7ff) - 1023;
	double z, z2, term, sum = 0;

	v.u = (v.u & 0x000fffffffffffffull) | 0x3ff0000000000000ull; /* mantissa in [1, 2) */
	z = (v.d - 1) / (v.d + 1);
	z2 = z * z;
	term = z;
	for (int k = 1; k < 24; k += 2) {
		sum += term / k;
		term *= z2;
	}
	return 2 * sum + e * 0.69314718055994531;
}

static uint64_t rng_exp(struct gen_rng *r, double mean)
{
	return (uint64_t)(-gen_ln(1.0 - rng_unit(r)) * mean);
}

/* --- sequence space (RFC 9293 comparisons, wrap-safe) --- */

static int seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static int seq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}

static int seq_gt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/* --- output --- */

static int out_flush(struct gen_out *o)
{
	size_t off = 0;

	while (off < o->len && !o->err) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);
		if (n == -1) {
			if (errno != EINTR)
				o->err = errno;
			continue;
		}
		off += (size_t)n;
	}
	o->len = 0;
	return o->err ? -1 : 0;
}

/* Room for n bytes at the end of the buffer; valid until the next call. */
static uint8_t *out_reserve(struct gen_out *o, size_t n)
{
	if (o->cap - o->len < n)
		out_flush(o);
	return o->buf + o->len;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* pcap file and record headers are in host byte order; readers detect it by the magic. */
static void out_pcap_header(struct gen_out *o, const struct gen_opts *opt)
{
	uint8_t *p = out_reserve(o, 24);
	uint32_t magic = opt->nsec ? 0xa1b23c4du : 0xa1b2c3d4u;
	uint16_t major = 2, minor = 4;
	uint32_t zero = 0, snap = opt->snaplen, linktype = 1; /* LINKTYPE_ETHERNET */

	memcpy(p, &magic, 4);
	memcpy(p + 4, &major, 2);
	memcpy(p + 6, &minor, 2);
	memcpy(p + 8, &zero, 4);
	memcpy(p + 12, &zero, 4);
	memcpy(p + 16, &snap, 4);
	memcpy(p + 20, &linktype, 4);
	o->len += 24;
}

/* --- event pool and heap --- */

static uint32_t ev_alloc(struct gen *g)
{
	if (!g->pool_nfree) {
		/* GEN_EV_PER_CONN bounds what one connection can have queued: a bug. */
		fprintf(stderr, "gen: event pool exhausted\n");
		abort();
	}
	return g->pool_free[--g->pool_nfree];
}

static void ev_free(struct gen *g, uint32_t idx)
{
	g->pool_free[g->pool_nfree++] = idx;
}

static int hent_before(const struct gen_hent *a, const struct gen_hent *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	return (int32_t)(a->tie - b->tie) < 0;
}

static void heap_push(struct gen *g, uint64_t t, uint32_t idx)
{
	struct gen_hent h = {.t = t, .idx = idx, .tie = g->tie++};
	uint32_t i = g->heap_n++;

	while (i) {
		uint32_t parent = (i - 1) / 2;
		if (!hent_before(&h, &g->heap[parent]))
			break;
		g->heap[i] = g->heap[parent];
		i = parent;
	}
	g->heap[i] = h;
}

static struct gen_hent heap_pop(struct gen *g)
{
	struct gen_hent top = g->heap[0];
	struct gen_hent last = g->heap[--g->heap_n];
	uint32_t i = 0, n = g->heap_n;

	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && hent_before(&g->heap[c + 1], &g->heap[c]))
			c++;
		if (!hent_before(&g->heap[c], &last))
			break;
		g->heap[i] = g->heap[c];
		i = c;
	}
	if (n)
		g->heap[i] = last;
	return top;
}

static uint32_t conn_slot(const struct gen *g, const struct gen_conn *c)
{
	return (uint32_t)(c - g->conns);
}

/* --- timers --- */

static void timer_queue(struct gen *g, struct gen_conn *c, int tm, uint64_t t)
{
	uint32_t idx = ev_alloc(g);
	struct gen_ev *e = &g->pool[idx];

	e->conn = conn_slot(g, c);
	e->gen = c->gen;
	e->kind = GEN_EV_TIMER;
	e->note = (uint8_t)tm;
	c->tm[tm].queued_at = t;
	heap_push(g, t, idx);
}

static void timer_arm(struct gen *g, struct gen_conn *c, int tm, uint64_t deadline)
{
	struct gen_timer *x = &c->tm[tm];

	x->deadline = deadline;
	if (!x->queued_at || x->queued_at > deadline)
		timer_queue(g, c, tm, deadline);
}

/* An event for timer tm popped at t: 1 if the timer expires now. */
static int timer_expired(struct gen *g, struct gen_conn *c, int tm, uint64_t t)
{
	struct gen_timer *x = &c->tm[tm];

	if (t != x->queued_at)
		return 0; /* superseded by an earlier event */
	x->queued_at = 0;
	if (!x->deadline)
		return 0;
	if (x->deadline > t) {
		timer_queue(g, c, tm, x->deadline);
		return 0;
	}
	x->deadline = 0;
	return 1;
}

/* --- packets --- */

static unsigned tcp_optlen(uint8_t flags, unsigned nsack)
{
	if (flags & GEN_TH_SYN)
		return 20; /* MSS, SACK_PERM, TS, NOP, WS: Linux's order */
	return GEN_TSOPT_LEN + (nsack ? 4 + 8 * nsack : 0);
}

static unsigned wire_len(const struct gen_conn *c, uint8_t flags, unsigned nsack, unsigned len)
{
	return 14 + (c->v6 ? 40 : 20) + 20 + tcp_optlen(flags, nsack) + len;
}

/* 10 Gb/s: 0.8 ns per byte, plus preamble, FCS and inter-frame gap. */
static uint64_t wire_ns(unsigned len)
{
	return (uint64_t)(len + 24) * 4 / 5;
}

/* When a packet the host sends at host_t reaches the capture point, behind its earlier ones. */
static uint64_t tx_time(const struct gen_conn *c, int s, uint64_t host_t)
{
	uint64_t t = host_t + c->half[s];

	return t > c->ep[s].nic_free ? t : c->ep[s].nic_free;
}

static void sack_fill(const struct gen_ep *p, struct gen_ev *e)
{
	unsigned first = p->n_ooo, n = 0;

	/* RFC 2018: the first block reports the most recently received segment. */
	for (unsigned i = 0; i < p->n_ooo; i++)
		if (seq_le(p->ooo[i].start, p->sack_recent) &&
		    seq_lt(p->sack_recent, p->ooo[i].end))
			first = i;
	if (first < p->n_ooo) {
		e->sack[n][0] = p->ooo[first].start;
		e->sack[n][1] = p->ooo[first].end;
		n++;
	}
	for (unsigned i = 0; i < p->n_ooo && n < 3; i++) {
		if (i == first)
			continue;
		e->sack[n][0] = p->ooo[i].start;
		e->sack[n][1] = p->ooo[i].end;
		n++;
	}
	e->nsack = (uint8_t)n;
}

/*
 * Build a packet side s sends so that it reaches the capture point at tx (from
 * tx_time()): IP ID, TSval, ACK and SACK are taken now, as the host would.
 * Returns the pool index; the caller must heap_push() it.
 */
static uint32_t pkt_make(struct gen *g, struct gen_conn *c, int s, uint64_t tx, uint8_t flags,
			 uint32_t seq, unsigned len, uint8_t note)
{
	struct gen_ep *p = &c->ep[s];
	uint32_t idx = ev_alloc(g);
	struct gen_ev *e = &g->pool[idx];

	e->conn = conn_slot(g, c);
	e->gen = c->gen;
	e->kind = GEN_EV_TX;
	e->dir = (uint8_t)s;
	e->flags = flags;
	e->note = note;
	e->len = (uint16_t)len;
	e->seq = seq;
	e->ip_id = p->ip_id++;
	e->tsval = p->ts_off + (uint32_t)((tx - c->half[s]) / GEN_NS_MS);
	e->nsack = 0;
	if (flags & GEN_TH_ACK) {
		e->ack = p->rcv_nxt;
		e->tsecr = p->ts_recent;
		if (p->n_ooo && !(flags & GEN_TH_SYN))
			sack_fill(p, e);
		/* Any segment carrying the ACK replaces a pending delayed ACK. */
		p->unacked = 0;
		c->tm[GEN_TM_DELACK0 + s].deadline = 0;
	} else {
		e->ack = 0;
		e->tsecr = 0;
	}
	p->nic_free = tx + wire_ns(wire_len(c, flags, e->nsack, len));
	return idx;
}

/* pkt_make() and queue it for tx; the event is owned by the heap. */
static void pkt_new(struct gen *g, struct gen_conn *c, int s, uint64_t tx, uint8_t flags,
		    uint32_t seq, unsigned len, uint8_t note)
{
	heap_push(g, tx, pkt_make(g, c, s, tx, flags, seq, len, note));
}

static void send_ack(struct gen *g, struct gen_conn *c, int s, uint64_t t, uint8_t note)
{
	pkt_new(g, c, s, tx_time(c, s, t), GEN_TH_ACK, c->ep[s].snd_nxt, 0, note);
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, unsigned n)
{
	for (unsigned i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void addr4(const struct gen_conn *c, int s, uint8_t *p)
{
	if (s == GEN_CLI) {
		/* 198.18.0.0/15 is reserved for benchmarking (RFC 2544). */
		put32(p, 0xc6120000u | c->host[s]);
	} else {
		put32(p, 0xc6130000u | (10 + c->host[s]));
	}
}

static void addr6(const struct gen_conn *c, int s, uint8_t *p)
{
	/* 2001:db8::/32 documentation prefix: clients in :c::/48, servers in :5::/48. */
	memset(p, 0, 16);
	put32(p, 0x20010db8u);
	put16(p + 4, s == GEN_CLI ? 0xc : 0x5);
	put32(p + 12, c->host[s] + (s == GEN_CLI ? 0 : 10));
}

/* Ethernet + IP + TCP header of e into b; returns its length and the frame length in *wire. */
static unsigned build_hdr(const struct gen_conn *c, const struct gen_ev *e, uint8_t *b,
			  unsigned *wire)
{
	int s = e->dir;
	unsigned ip = 14, tcp = ip + (c->v6 ? 40 : 20);
	unsigned th = 20 + tcp_optlen(e->flags, e->nsack);
	unsigned tcplen = th + e->len;
	uint8_t *t = b + tcp, *o = t + 20;
	uint32_t sum = 6 + tcplen; /* pseudo-header: protocol and TCP length */

	memcpy(b, gen_mac[!s], 6);
	memcpy(b + 6, gen_mac[s], 6);
	if (!c->v6) {
		uint8_t *h = b + ip;
		put16(b + 12, 0x0800);
		h[0] = 0x45;
		h[1] = 0;
		put16(h + 2, 20 + tcplen);
		put16(h + 4, e->ip_id);
		put16(h + 6, 0x4000); /* DF */
		h[8] = c->ttl[s];
		h[9] = 6;
		put16(h + 10, 0);
		addr4(c, s, h + 12);
		addr4(c, !s, h + 16);
		put16(h + 10, csum_fold(csum_add(0, h, 20)));
		sum = csum_add(sum, h + 12, 8);
	} else {
		uint8_t *h = b + ip;
		put16(b + 12, 0x86dd);
		put32(h, 0x60000000u | c->flow[s]);
		put16(h + 4, tcplen);
		h[6] = 6;
		h[7] = c->ttl[s];
		addr6(c, s, h + 8);
		addr6(c, !s, h + 24);
		sum = csum_add(sum, h + 8, 32);
	}

	put16(t, c->port[s]);
	put16(t + 2, c->port[!s]);
	put32(t + 4, e->seq);
	put32(t + 8, e->ack);
	t[12] = (uint8_t)((th / 4) << 4);
	t[13] = e->flags;
	put16(t + 16, 0);
	put16(t + 18, 0);
	if (e->flags & GEN_TH_SYN) {
		put16(t + 14, GEN_WIN_SYN);
		o[0] = 2;
		o[1] = 4;
		put16(o + 2, c->v6 ? GEN_MSS_OPT6 : GEN_MSS_OPT4);
		o[4] = 4;
		o[5] = 2;
		o[6] = 8;
		o[7] = 10;
		put32(o + 8, e->tsval);
		put32(o + 12, e->tsecr);
		o[16] = 1;
		o[17] = 3;
		o[18] = 3;
		o[19] = s == GEN_CLI ? GEN_WS_CLI : GEN_WS_SRV;
	} else {
		put16(t + 14, s == GEN_CLI ? GEN_WIN_CLI : GEN_WIN_SRV);
		o[0] = 1;
		o[1] = 1;
		o[2] = 8;
		o[3] = 10;
		put32(o + 4, e->tsval);
		put32(o + 8, e->tsecr);
		if (e->nsack) {
			uint8_t *k = o + 12;
			k[0] = 1;
			k[1] = 1;
			k[2] = 5;
			k[3] = (uint8_t)(2 + 8 * e->nsack);
			for (unsigned i = 0; i < e->nsack; i++) {
				put32(k + 4 + 8 * i, e->sack[i][0]);
				put32(k + 8 + 8 * i, e->sack[i][1]);
			}
		}
	}
	put16(t + 16, csum_fold(csum_add(sum, t, th)));
	*wire = tcp + tcplen;
	return tcp + th;
}

static void write_record(struct gen *g, const struct gen_conn *c, const struct gen_ev *e,
			 uint64_t ts, unsigned *wire_out)
{
	uint8_t hdr[128];
	unsigned wire, hlen = build_hdr(c, e, hdr, &wire);
	unsigned incl = wire < g->o->snaplen ? wire : g->o->snaplen;
	uint8_t *p = out_reserve(&g->out, 16 + (size_t)incl);
	uint64_t abs_ns = GEN_EPOCH_S * GEN_NS_S + ts;
	uint32_t rec[4];

	rec[0] = (uint32_t)(abs_ns / GEN_NS_S);
	rec[1] = (uint32_t)(g->o->nsec ? abs_ns % GEN_NS_S : abs_ns % GEN_NS_S / GEN_NS_US);
	rec[2] = incl;
	rec[3] = wire;
	memcpy(p, rec, 16);
	if (incl <= hlen) {
		memcpy(p + 16, hdr, incl);
	} else {
		memcpy(p + 16, hdr, hlen);
		memset(p + 16 + hlen, 0, incl - hlen);
	}
	g->out.len += 16 + (size_t)incl;
	*wire_out = wire;
}

/* --- TCP endpoints --- */

static void try_send(struct gen *g, struct gen_conn *c, int s, uint64_t t);
static void conn_end(struct gen *g, struct gen_conn *c, uint64_t t);

static void queue_data(struct gen *g, struct gen_conn *c, int s, uint32_t n, uint64_t t)
{
	struct gen_ep *p = &c->ep[s], *r = &c->ep[!s];

	p->app_end += n;
	/* The simulator plays the application protocol: the peer knows the message length. */
	r->rcv_expect = p->app_end;
	r->expect_set = 1;
	try_send(g, c, s, t);
}

/*
 * Send what the window and pacing allow.  Reordering happens here: within a
 * line-rate burst one segment, built in order (its TSval and IP ID are those
 * of its place), is queued to reach the capture point just after the 1st-3rd
 * segment behind it.  Paced segments are too far apart to swap, so their draws
 * are carried over (reorder_debt) and --reorder stays a share of all data
 * segments.
 */
static void try_send(struct gen *g, struct gen_conn *c, int s, uint64_t t)
{
	struct gen_ep *p = &c->ep[s];
	const struct gen_ep *r = &c->ep[!s];
	uint32_t held = GEN_NONE;
	unsigned held_after = 0, followers = 0;
	uint64_t held_tx = 0, last_tx = 0;

	for (;;) {
		/* After our FIN, snd_nxt is app_end + 1: nothing more to send. */
		uint32_t avail = p->fin_sent ? 0 : p->app_end - p->snd_nxt;
		uint32_t len = avail < p->mss ? avail : p->mss;
		/* RFC 6675 pipe, with the receiver's SACKed bytes standing in for the scoreboard.
		 */
		uint32_t pipe = p->snd_nxt - p->snd_una - r->ooo_bytes;
		uint64_t tx;

		if (!avail || pipe + len > p->cwnd * p->mss)
			break;
		tx = tx_time(c, s, t);
		if (tx < p->next_tx)
			tx = p->next_tx;
		if (tx > t + c->half[s] + GEN_PACE_AHEAD) {
			timer_arm(g, c, GEN_TM_PACE0 + s, tx - c->half[s] - GEN_PACE_AHEAD);
			break;
		}
		uint32_t idx = pkt_make(g, c, s, tx, GEN_TH_ACK | (len == avail ? GEN_TH_PSH : 0),
					p->snd_nxt, len, 0);
		p->snd_nxt += len;
		if (p->pace_ns)
			p->next_tx = tx + p->pace_ns;
		if (rng_pct(&g->rng, g->o->reorder) && g->reorder_debt < GEN_REORDER_DEBT_MAX)
			g->reorder_debt++;
		if (held == GEN_NONE && g->reorder_debt && !p->pace_ns) {
			g->reorder_debt--;
			held = idx;
			held_tx = tx;
			held_after = (unsigned)rng_range(&g->rng, 1, 3);
			g->pool[idx].note |= GEN_N_REORD;
			continue;
		}
		heap_push(g, tx, idx);
		last_tx = tx;
		if (held != GEN_NONE) {
			followers++;
			if (--held_after == 0) {
				heap_push(g, tx + 1, held);
				held = GEN_NONE;
			}
		}
	}
	if (held != GEN_NONE) {
		if (followers) {
			heap_push(g, last_tx + 1, held); /* the burst was shorter than drawn */
		} else {
			/* Last segment of the burst: send it in order, keep the draw. */
			g->pool[held].note &= (uint8_t)~GEN_N_REORD;
			heap_push(g, held_tx, held);
			g->reorder_debt++;
		}
	}
	if (p->fin_queued && !p->fin_sent && p->snd_nxt == p->app_end) {
		pkt_new(g, c, s, tx_time(c, s, t), GEN_TH_FIN | GEN_TH_ACK, p->snd_nxt, 0, 0);
		p->snd_nxt++;
		p->fin_sent = 1;
	}
}

static void retransmit(struct gen *g, struct gen_conn *c, int s, struct gen_lost *l, uint64_t t,
		       uint8_t note)
{
	pkt_new(g, c, s, tx_time(c, s, t), GEN_TH_ACK | GEN_TH_PSH, l->seq, l->len,
		GEN_N_RETX | note);
	l->state = GEN_LOST_RETX;
}

static void on_ack(struct gen *g, struct gen_conn *c, int s, const struct gen_ev *e, uint64_t t)
{
	struct gen_ep *p = &c->ep[s];

	if (seq_gt(e->ack, p->snd_una)) {
		uint32_t acked = e->ack - p->snd_una;
		unsigned k = 0;

		p->snd_una = e->ack;
		if (!p->in_recovery && p->cwnd < GEN_CWND_MAX) {
			p->cwnd += (acked + p->mss - 1) / p->mss; /* slow start */
			if (p->cwnd > GEN_CWND_MAX)
				p->cwnd = GEN_CWND_MAX;
		}
		if (p->in_recovery && !seq_lt(p->snd_una, p->recover))
			p->in_recovery = 0;
		for (unsigned i = 0; i < p->n_lost; i++)
			if (!seq_le(p->lost[i].seq + p->lost[i].len, p->snd_una))
				p->lost[k++] = p->lost[i];
		p->n_lost = (uint8_t)k;
	}
	if (e->note & GEN_N_FR) {
		int sent = 0;
		for (unsigned i = 0; i < p->n_lost; i++) {
			if (p->lost[i].state == GEN_LOST_FR_READY) {
				retransmit(g, c, s, &p->lost[i], t, 0);
				sent = 1;
			}
		}
		if (sent && !p->in_recovery) {
			p->in_recovery = 1;
			p->recover = p->snd_nxt;
			p->cwnd = p->cwnd / 2 > 2 ? p->cwnd / 2 : 2;
		}
	}
	try_send(g, c, s, t);
	/* Server-side reset (e.g. an idle timeout) once the last response is fully acked. */
	if (s == GEN_SRV && c->close == GEN_CLOSE_SRV_RST && c->last_resp &&
	    p->app == GEN_APP_NONE && p->snd_una == p->app_end && p->app_end != p->iss + 1) {
		p->app = GEN_APP_RST;
		timer_arm(g, c, GEN_TM_APP1, t + rng_range(&g->rng, 1, 20) * GEN_NS_MS);
	}
}

/* Linux's RTO settles near srtt + rttvar, with rttvar floored at TCP_RTO_MIN. */
static uint64_t rto_ns(const struct gen_conn *c)
{
	return 2 * (c->half[GEN_CLI] + c->half[GEN_SRV]) + GEN_RTO_MIN_NS;
}

static void ooo_insert(struct gen_ep *r, uint32_t seq, uint32_t end)
{
	unsigned i = 0, k;

	while (i < r->n_ooo && seq_lt(r->ooo[i].start, seq))
		i++;
	if (r->n_ooo == GEN_OOO_MAX)
		return; /* cannot happen: holes are bounded by GEN_LOST_MAX + 1 */
	memmove(&r->ooo[i + 1], &r->ooo[i], (r->n_ooo - i) * sizeof(r->ooo[0]));
	r->ooo[i].start = seq;
	r->ooo[i].end = end;
	r->n_ooo++;
	/* Merge touching or overlapping neighbours. */
	for (i = 0, k = 0; i < r->n_ooo; i++) {
		if (k && !seq_gt(r->ooo[i].start, r->ooo[k - 1].end)) {
			if (seq_gt(r->ooo[i].end, r->ooo[k - 1].end))
				r->ooo[k - 1].end = r->ooo[i].end;
		} else {
			r->ooo[k++] = r->ooo[i];
		}
	}
	r->n_ooo = (uint8_t)k;
	r->ooo_bytes = 0;
	for (i = 0; i < r->n_ooo; i++)
		r->ooo_bytes += r->ooo[i].end - r->ooo[i].start;
}

static void app_on_message(struct gen *g, struct gen_conn *c, int r, uint64_t t)
{
	struct gen_ep *p = &c->ep[r];

	if (r == GEN_SRV) {
		p->app = GEN_APP_RESPOND;
		timer_arm(g, c, GEN_TM_APP1,
			  t + rng_range(&g->rng, 20, c->kind == GEN_KIND_RR ? 300 : 600) *
				  GEN_NS_US);
		return;
	}
	if (!c->last_resp) {
		uint64_t think = rng_exp(&g->rng, (double)GEN_THINK_NS);
		/* Some clients go idle long enough for keep-alive probes. */
		if (rng_below(&g->rng, 100) < 3) {
			think = rng_range(&g->rng, 300, 1500) * GEN_NS_MS;
			timer_arm(g, c, GEN_TM_KA, t + GEN_KEEPIDLE_NS);
		}
		c->idle_until = t + think;
		p->app = GEN_APP_REQUEST;
		timer_arm(g, c, GEN_TM_APP0, t + think + 1);
		return;
	}
	if (c->close == GEN_CLOSE_CLI_FIN || c->close == GEN_CLOSE_CLI_RST) {
		p->app = c->close == GEN_CLOSE_CLI_FIN ? GEN_APP_CLOSE : GEN_APP_RST;
		timer_arm(g, c, GEN_TM_APP0, t + rng_range(&g->rng, 10, 200) * GEN_NS_US);
	}
	/* GEN_CLOSE_SRV_*: the server acts. */
}

/* r consumed the peer's FIN. */
static void on_fin(struct gen *g, struct gen_conn *c, int r, uint64_t t)
{
	struct gen_ep *p = &c->ep[r];

	p->fin_rcvd = 1;
	if (p->fin_sent) {
		send_ack(g, c, r, t, GEN_N_LAST);
		return;
	}
	/* Passive close: the application closes at once, so the ACK rides on our FIN. */
	p->app = GEN_APP_CLOSE;
	timer_arm(g, c, GEN_TM_APP0 + r, t + rng_range(&g->rng, 5, 50) * GEN_NS_US);
}

static void deliver(struct gen *g, struct gen_conn *c, int r, const struct gen_ev *e, uint64_t t)
{
	struct gen_ep *p = &c->ep[r], *snd = &c->ep[!r];
	uint32_t seq = e->seq, end = e->seq + e->len;
	int ack_now = 0;
	uint8_t note = 0;

	if (e->len) {
		if (seq == p->rcv_nxt) {
			int filled = p->n_ooo > 0;
			p->rcv_nxt = end;
			p->ts_recent = e->tsval;
			while (p->n_ooo && seq_le(p->ooo[0].start, p->rcv_nxt)) {
				if (seq_gt(p->ooo[0].end, p->rcv_nxt))
					p->rcv_nxt = p->ooo[0].end;
				p->ooo_bytes -= p->ooo[0].end - p->ooo[0].start;
				memmove(&p->ooo[0], &p->ooo[1], --p->n_ooo * sizeof(p->ooo[0]));
			}
			/* Linux acks at once when a hole fills, else every second segment. */
			if (filled || ++p->unacked >= 2)
				ack_now = 1;
		} else if (seq_gt(seq, p->rcv_nxt)) {
			ooo_insert(p, seq, end);
			p->sack_recent = seq;
			for (unsigned i = 0; i < snd->n_lost; i++) {
				struct gen_lost *l = &snd->lost[i];
				if (l->state == GEN_LOST_PENDING && seq_lt(l->seq, seq) &&
				    ++l->segs_after >= GEN_DUPTHRESH) {
					l->state = GEN_LOST_FR_READY;
					note |= GEN_N_FR;
				}
			}
			ack_now = 1; /* out of order: immediate dup ACK with SACK */
		} else {
			ack_now = 1; /* duplicate */
		}
	}
	if (e->flags & GEN_TH_FIN) {
		p->rcv_fin = end;
		p->fin_pending = 1;
	}
	if (p->fin_pending && p->rcv_nxt == p->rcv_fin) {
		p->rcv_nxt++;
		p->fin_pending = 0;
		/* The active closer's final ACK also covers the data; no separate one. */
		if (ack_now && !p->fin_sent)
			send_ack(g, c, r, t, note);
		on_fin(g, c, r, t);
		ack_now = 0;
	} else if (e->flags & GEN_TH_FIN) {
		ack_now = 1; /* FIN above a hole */
	}
	if (ack_now)
		send_ack(g, c, r, t, note);
	else if (p->unacked)
		timer_arm(g, c, GEN_TM_DELACK0 + r, t + GEN_DELACK_NS);
	if (p->expect_set && !seq_lt(p->rcv_nxt, p->rcv_expect)) {
		p->expect_set = 0;
		app_on_message(g, c, r, t);
	}
}

static void cli_established(struct gen *g, struct gen_conn *c, uint64_t t)
{
	send_ack(g, c, GEN_CLI, t, 0);
	c->ep[GEN_CLI].app = GEN_APP_REQUEST;
	timer_arm(g, c, GEN_TM_APP0, t + rng_range(&g->rng, 5, 50) * GEN_NS_US);
}

static void on_rx(struct gen *g, struct gen_conn *c, const struct gen_ev *e, uint64_t t)
{
	int r = !e->dir;
	struct gen_ep *p = &c->ep[r];

	if (e->flags & GEN_TH_RST)
		return;
	if (e->flags & GEN_TH_SYN) {
		p->rcv_nxt = e->seq + 1;
		p->ts_recent = e->tsval;
		if (r == GEN_SRV) {
			pkt_new(g, c, r, tx_time(c, r, t), GEN_TH_SYN | GEN_TH_ACK, p->iss, 0, 0);
		} else {
			p->snd_una = e->ack;
			cli_established(g, c, t);
		}
		return;
	}
	if (e->flags & GEN_TH_ACK)
		on_ack(g, c, r, e, t);
	if (e->note & GEN_N_KA) {
		send_ack(g, c, r, t, GEN_N_KA_ACK);
		return;
	}
	if (e->len || (e->flags & GEN_TH_FIN))
		deliver(g, c, r, e, t);
}

/* Response sizes: mostly small, a heavy tail of large objects. */
static uint32_t pick_response(struct gen_rng *rng)
{
	uint64_t u = rng_below(rng, 100);

	if (u < 50)
		return (uint32_t)rng_range(rng, 150, 1448);
	if (u < 80)
		return (uint32_t)rng_range(rng, 1449, 15000);
	if (u < 95)
		return (uint32_t)rng_range(rng, 15001, 80000);
	return (uint32_t)rng_range(rng, 80001, 400000);
}

static uint32_t pick_request(struct gen_rng *rng)
{
	uint64_t u = rng_below(rng, 100);

	if (u < 85)
		return (uint32_t)rng_range(rng, 200, 1200);
	if (u < 97)
		return (uint32_t)rng_range(rng, 1201, 4000);
	return (uint32_t)rng_range(rng, 4001, 16000);
}

static void app_run(struct gen *g, struct gen_conn *c, int s, uint64_t t)
{
	struct gen_ep *p = &c->ep[s];
	uint32_t n;
	int app = p->app;

	p->app = GEN_APP_NONE;
	switch (app) {
	case GEN_APP_REQUEST:
		c->tm[GEN_TM_KA].deadline = 0;
		if (c->kind == GEN_KIND_RR)
			n = pick_request(&g->rng);
		else if (c->kind == GEN_KIND_DOWN)
			n = (uint32_t)rng_range(&g->rng, 150, 400);
		else
			n = c->bulk_bytes;
		queue_data(g, c, s, n, t);
		break;
	case GEN_APP_RESPOND:
		if (c->kind == GEN_KIND_RR)
			n = pick_response(&g->rng);
		else if (c->kind == GEN_KIND_DOWN)
			n = c->bulk_bytes;
		else
			n = (uint32_t)rng_range(&g->rng, 150, 400);
		/* Stop once this response would use up the packet budget (data + ACKs + close). */
		c->last_resp = c->kind != GEN_KIND_RR ||
			       c->emitted + (n / p->mss + 1) * 3 / 2 + 8 >= c->budget;
		if (c->last_resp && c->close == GEN_CLOSE_SRV_FIN)
			p->fin_queued = 1;
		queue_data(g, c, s, n, t);
		break;
	case GEN_APP_CLOSE:
		p->fin_queued = 1;
		try_send(g, c, s, t);
		break;
	case GEN_APP_RST:
		pkt_new(g, c, s, tx_time(c, s, t), GEN_TH_RST | GEN_TH_ACK, p->snd_nxt, 0, 0);
		break;
	default:
		break;
	}
}

static void rto_fire(struct gen *g, struct gen_conn *c, int s, uint64_t t)
{
	struct gen_ep *p = &c->ep[s];
	uint64_t next = 0;
	int sent = 0;

	for (unsigned i = 0; i < p->n_lost; i++) {
		struct gen_lost *l = &p->lost[i];
		if (l->state == GEN_LOST_RETX)
			continue;
		if (l->drop_t + rto_ns(c) <= t) {
			retransmit(g, c, s, l, t, GEN_N_RTO);
			sent = 1;
		} else if (!next || l->drop_t + rto_ns(c) < next) {
			next = l->drop_t + rto_ns(c);
		}
	}
	if (sent)
		p->cwnd = p->cwnd / 2 > 2 ? p->cwnd / 2 : 2;
	if (next)
		timer_arm(g, c, GEN_TM_RTO0 + s, next);
}

static void truth_line(struct gen *g, const char *what)
{
	if (g->truth)
		fprintf(g->truth, "%" PRIu64 " %s\n", g->st.packets, what);
}

/*
 * Count what the packet just written (frame number st.packets) shows to a
 * passive observer, in capture order.  A retransmission or a held segment
 * whose sequence is not below anything captured before it looks like new
 * data on the wire, so it is counted apart ("hidden").
 */
static void emit_truth(struct gen *g, const struct gen_ev *e, struct gen_ep *p)
{
	uint32_t end = e->seq + e->len + !!(e->flags & (GEN_TH_SYN | GEN_TH_FIN));
	int below = p->hi_nxt != p->iss && seq_lt(e->seq, p->hi_nxt);

	if (e->note & GEN_N_RETX) {
		if (!below) {
			g->st.retx_hidden++;
			truth_line(g, "retx_hidden");
		} else if (e->note & GEN_N_RTO) {
			g->st.retx_rto++;
			truth_line(g, "retx_rto");
		} else {
			g->st.retx_fast++;
			truth_line(g, "retx_fast");
		}
	}
	if (e->note & GEN_N_REORD) {
		if (below) {
			g->st.reordered++;
			truth_line(g, "reorder");
		} else {
			g->st.reorder_hidden++;
			truth_line(g, "reorder_hidden");
		}
	}
	if (e->note & GEN_N_KA) {
		g->st.keepalives++;
		truth_line(g, "keepalive");
	}
	if (e->note & GEN_N_KA_ACK)
		truth_line(g, "keepalive_ack");
	if (e->flags & GEN_TH_ACK) {
		/*
		 * RFC 5681 dup ACK as tshark applies it: pure ACK, same ack and window as
		 * our previous packet, at the next expected sequence.
		 */
		if (e->flags == GEN_TH_ACK && !e->len && !(e->note & (GEN_N_KA | GEN_N_KA_ACK)) &&
		    p->ack_sent && !p->last_syn && e->ack == p->last_ack_tx &&
		    e->seq == p->hi_nxt) {
			g->st.dupacks++;
			truth_line(g, "dupack");
		}
		p->last_ack_tx = e->ack;
		p->ack_sent = 1;
		p->last_syn = !!(e->flags & GEN_TH_SYN);
	}
	if (p->hi_nxt == p->iss || seq_gt(end, p->hi_nxt))
		p->hi_nxt = end;
}

/* Writes a packet at t (or later, when the link is busy); -1 if it ended the connection. */
static int emit(struct gen *g, struct gen_conn *c, uint32_t idx, uint64_t t)
{
	struct gen_ev *e = &g->pool[idx];
	struct gen_ep *p = &c->ep[e->dir];
	uint64_t ts = t > g->link_free ? t : g->link_free;
	unsigned wire;

	if (g->st.packets >= g->o->packets) {
		ev_free(g, idx);
		return -1;
	}
	write_record(g, c, e, ts, &wire);
	g->link_free = ts + wire_ns(wire);
	g->st.link_wait_ns += ts - t;
	if (!g->st.packets)
		g->st.first_t = ts;
	g->st.last_t = ts;
	g->st.packets++;
	g->st.wire_bytes += wire;
	g->st.v6_packets += c->v6;
	emit_truth(g, e, p);
	if (c->emitted < c->budget)
		g->budget_left--;
	c->emitted++;
	if ((e->flags & GEN_TH_RST) || (e->note & GEN_N_LAST)) {
		if (e->flags & GEN_TH_RST)
			g->st.closed_rst++;
		else
			g->st.closed_fin++;
		ev_free(g, idx);
		conn_end(g, c, ts);
		return -1;
	}
	e->kind = GEN_EV_RX;
	heap_push(g, ts + c->half[!e->dir], idx);
	return 0;
}

static void on_tx(struct gen *g, struct gen_conn *c, uint32_t idx, uint64_t t)
{
	struct gen_ev *e = &g->pool[idx];
	int s = e->dir;
	struct gen_ep *p = &c->ep[s];
	int data = e->len > 0;

	if (data && !(e->note & GEN_N_RETX)) {
		if (p->n_lost < GEN_LOST_MAX && rng_pct(&g->rng, g->o->loss)) {
			struct gen_lost *l = &p->lost[p->n_lost++];
			l->seq = e->seq;
			l->len = e->len;
			l->segs_after = 0;
			l->state = GEN_LOST_PENDING;
			l->drop_t = t;
			g->st.dropped++;
			if (!c->tm[GEN_TM_RTO0 + s].deadline)
				timer_arm(g, c, GEN_TM_RTO0 + s, t + rto_ns(c));
			ev_free(g, idx);
			return;
		}
	}
	emit(g, c, idx, t);
}

/* --- connections --- */

static uint32_t host_clock(uint32_t host, int s)
{
	uint64_t x = (uint64_t)host << 1 | (uint64_t)s;

	return (uint32_t)gen_splitmix(&x);
}

/* Give a free slot the next connection, starting at t. */
static void conn_assign(struct gen *g, uint64_t t)
{
	uint32_t slot;
	struct gen_conn *c;
	uint32_t gen;

	if (g->assigned >= g->o->connections || !g->slot_nfree)
		return;
	slot = g->slot_free[--g->slot_nfree];
	c = &g->conns[slot];
	gen = c->gen;
	memset(c, 0, sizeof(*c));
	c->gen = gen;
	c->live = 1;
	c->id = (uint32_t)g->assigned++;
	g->live++;
	if (g->live > g->st.peak_live)
		g->st.peak_live = g->live;
	timer_arm(g, c, GEN_TM_START, t);
}

static void conn_end(struct gen *g, struct gen_conn *c, uint64_t t)
{
	if (c->emitted < c->budget)
		g->budget_left -= c->budget - c->emitted;
	c->live = 0;
	c->gen++; /* everything still queued for this connection is now stale */
	g->live--;
	g->slot_free[g->slot_nfree++] = conn_slot(g, c);
	conn_assign(g, t + rng_exp(&g->rng, (double)GEN_ARRIVAL_NS) + 1);
}

/* Budget in packets: spread what is left over the connections still to start. */
static uint32_t conn_budget(struct gen *g, int kind)
{
	uint64_t left = g->o->packets - g->st.packets;
	uint64_t todo = g->o->connections - g->st.started + 1;
	double mean, f;
	uint64_t b;

	left = left > g->budget_left ? left - g->budget_left : 0;
	/* 5% over so the capture ends with connections still open instead of short of N. */
	mean = (double)left / (double)todo * 1.05;
	if (mean < 24)
		mean = 24;
	/* Kind mix 88/9/3: bulk is given 3.9x the mean, request/response 0.6x, averaging 1x. */
	f = kind == GEN_KIND_RR ? 0.6 : 3.93;
	b = rng_exp(&g->rng, mean * f);
	if (b < 20)
		b = 20;
	if (b > mean * 40)
		b = (uint64_t)(mean * 40);
	return (uint32_t)b;
}

static void ep_init(struct gen *g, struct gen_conn *c, int s, uint32_t iss)
{
	struct gen_ep *p = &c->ep[s];

	p->iss = iss;
	p->snd_una = iss;
	p->snd_nxt = iss + 1; /* the SYN */
	p->app_end = iss + 1;
	p->cwnd = GEN_CWND_INIT;
	p->mss = (uint16_t)((c->v6 ? GEN_MSS_OPT6 : GEN_MSS_OPT4) - GEN_TSOPT_LEN);
	p->ip_id = (uint16_t)rng_next(&g->rng); /* Linux: per-socket counter from a random start */
	p->ts_off = host_clock(c->host[s], s);
	p->hi_nxt = iss; /* nothing written yet */
}

static void conn_start(struct gen *g, struct gen_conn *c, uint64_t t)
{
	struct gen_rng *rng = &g->rng;
	uint64_t u = rng_below(rng, 100), rtt;
	uint32_t iss[GEN_SIDE_COUNT];
	int bulk_side;

	g->st.started++;
	c->kind = u < 88 ? GEN_KIND_RR : u < 97 ? GEN_KIND_DOWN : GEN_KIND_UP;
	u = rng_below(rng, 100);
	c->close = u < 70   ? GEN_CLOSE_CLI_FIN
		   : u < 90 ? GEN_CLOSE_SRV_FIN
		   : u < 96 ? GEN_CLOSE_CLI_RST
			    : GEN_CLOSE_SRV_RST;
	c->v6 = (uint8_t)rng_pct(rng, g->o->ipv6);
	g->st.v6_conns += c->v6;

	/* Distinct 4-tuples: host and ephemeral port both follow the connection number. */
	c->host[GEN_CLI] = 1 + c->id % GEN_CLI_HOSTS;
	c->port[GEN_CLI] = (uint16_t)(32768 + (c->id / GEN_CLI_HOSTS) % 28232);
	c->host[GEN_SRV] = (uint32_t)rng_below(rng, GEN_SRV_HOSTS);
	c->port[GEN_SRV] = gen_srv_ports[c->host[GEN_SRV] % 8];
	c->ttl[GEN_CLI] = (uint8_t)(64 - c->host[GEN_CLI] % 12);
	c->ttl[GEN_SRV] = 64;
	c->flow[GEN_CLI] = (uint32_t)rng_below(rng, 1u << 20);
	c->flow[GEN_SRV] = (uint32_t)rng_below(rng, 1u << 20);

	rtt = (uint64_t)g->o->rtt_us * GEN_NS_US * rng_range(rng, 50, 300) / 100;
	c->half[GEN_SRV] = rtt / 8 < 10 * GEN_NS_US ? rtt / 8 : 10 * GEN_NS_US;
	c->half[GEN_CLI] = rtt / 2 - c->half[GEN_SRV];

	c->budget = conn_budget(g, c->kind);
	g->budget_left += c->budget;

	iss[GEN_CLI] = (uint32_t)rng_next(rng);
	iss[GEN_SRV] = (uint32_t)rng_next(rng);
	if (g->o->wrap && rng_below(rng, 10) == 0) {
		/* Place both ISNs so the sequence numbers cross 2^32 within the expected data. */
		uint64_t span = (uint64_t)c->budget * 1448 / 3 + 2;
		iss[GEN_CLI] =
		    (uint32_t)(0 - rng_range(rng, 1, c->kind == GEN_KIND_UP ? span : 3000));
		iss[GEN_SRV] =
		    (uint32_t)(0 - rng_range(rng, 1, c->kind == GEN_KIND_UP ? 3000 : span));
		g->st.wrapped++;
	}
	for (int s = 0; s < GEN_SIDE_COUNT; s++)
		ep_init(g, c, s, iss[s]);

	bulk_side = c->kind == GEN_KIND_DOWN ? GEN_SRV : c->kind == GEN_KIND_UP ? GEN_CLI : -1;
	if (bulk_side >= 0) {
		uint32_t data_pkts = c->budget * 2 / 3 > 10 ? c->budget * 2 / 3 - 8 : 2;
		uint64_t mbps = rng_range(rng, GEN_BULK_MBPS_LO, GEN_BULK_MBPS_HI);
		c->bulk_bytes = data_pkts * c->ep[bulk_side].mss;
		c->ep[bulk_side].pace_ns = (uint32_t)(1514ull * 8 * 1000 / mbps);
	}
	pkt_new(g, c, GEN_CLI, tx_time(c, GEN_CLI, t), GEN_TH_SYN, iss[GEN_CLI], 0, 0);
}

static void on_timer(struct gen *g, struct gen_conn *c, int tm, uint64_t t)
{
	if (!timer_expired(g, c, tm, t))
		return;
	switch (tm) {
	case GEN_TM_START:
		conn_start(g, c, t);
		break;
	case GEN_TM_KA:
		/* Linux probes with seq = snd_nxt - 1 and no data (tcp_xmit_probe_skb). */
		if (t + GEN_NS_MS < c->idle_until) {
			struct gen_ep *p = &c->ep[GEN_CLI];
			pkt_new(g, c, GEN_CLI, tx_time(c, GEN_CLI, t), GEN_TH_ACK, p->snd_nxt - 1,
				0, GEN_N_KA);
			if (t + GEN_KEEPIDLE_NS < c->idle_until)
				timer_arm(g, c, GEN_TM_KA, t + GEN_KEEPIDLE_NS);
		}
		break;
	case GEN_TM_APP0:
	case GEN_TM_APP1:
		app_run(g, c, tm - GEN_TM_APP0, t);
		break;
	case GEN_TM_DELACK0:
	case GEN_TM_DELACK1:
		if (c->ep[tm - GEN_TM_DELACK0].unacked)
			send_ack(g, c, tm - GEN_TM_DELACK0, t, 0);
		break;
	case GEN_TM_RTO0:
	case GEN_TM_RTO1:
		rto_fire(g, c, tm - GEN_TM_RTO0, t);
		break;
	case GEN_TM_PACE0:
	case GEN_TM_PACE1:
		try_send(g, c, tm - GEN_TM_PACE0, t);
		break;
	default:
		break;
	}
}

/* --- driver --- */

static void gen_free(struct gen *g)
{
	if (!g)
		return;
	free(g->out.buf);
	free(g->pool);
	free(g->pool_free);
	free(g->heap);
	free(g->conns);
	free(g->slot_free);
	free(g);
}

/* Allocates every table up front; NULL with errbuf filled on failure. */
static struct gen *gen_new(const struct gen_opts *o, int fd, char *errbuf, size_t errlen)
{
	struct gen *g = calloc(1, sizeof(*g));

	if (!g)
		goto err;
	g->o = o;
	rng_seed(&g->rng, o->seed);
	g->out.fd = fd;
	g->out.cap = GEN_OUTBUF;
	g->nslots = (uint32_t)(o->concurrent < o->connections ? o->concurrent : o->connections);
	g->pool_cap = g->nslots * GEN_EV_PER_CONN;
	g->out.buf = malloc(g->out.cap);
	g->pool = calloc(g->pool_cap, sizeof(*g->pool));
	g->pool_free = malloc(g->pool_cap * sizeof(*g->pool_free));
	g->heap = malloc(g->pool_cap * sizeof(*g->heap));
	g->conns = calloc(g->nslots, sizeof(*g->conns));
	g->slot_free = malloc(g->nslots * sizeof(*g->slot_free));
	if (!g->out.buf || !g->pool || !g->pool_free || !g->heap || !g->conns || !g->slot_free)
		goto err;
	/* LIFO free lists, highest index at the bottom, so hot entries get reused. */
	for (uint32_t i = 0; i < g->pool_cap; i++)
		g->pool_free[i] = g->pool_cap - 1 - i;
	g->pool_nfree = g->pool_cap;
	for (uint32_t i = 0; i < g->nslots; i++)
		g->slot_free[i] = g->nslots - 1 - i;
	g->slot_nfree = g->nslots;
	return g;
err:
	snprintf(errbuf, errlen, "out of memory for %" PRIu64 " concurrent connections",
		 o->concurrent);
	gen_free(g);
	return NULL;
}

static void gen_run(struct gen *g)
{
	out_pcap_header(&g->out, g->o);
	for (uint32_t i = 0; i < g->nslots; i++)
		conn_assign(g, GEN_NS_US + rng_below(&g->rng, GEN_RAMP_NS));

	while (g->st.packets < g->o->packets && g->heap_n && !g->out.err) {
		struct gen_hent h = heap_pop(g);
		struct gen_ev *e = &g->pool[h.idx];
		struct gen_conn *c = &g->conns[e->conn];

		if (c->gen != e->gen || !c->live) {
			ev_free(g, h.idx);
			continue;
		}
		switch (e->kind) {
		case GEN_EV_TX:
			on_tx(g, c, h.idx, h.t); /* takes over the entry */
			break;
		case GEN_EV_RX:
			on_rx(g, c, e, h.t);
			ev_free(g, h.idx);
			break;
		default:
			on_timer(g, c, e->note, h.t);
			ev_free(g, h.idx);
			break;
		}
	}
	out_flush(&g->out);
}

static void gen_summary(const struct gen *g)
{
	const struct gen_stats *st = &g->st;
	double secs = (double)(st->last_t - st->first_t) / 1e9;

	fprintf(stderr,
		"gen: packets=%" PRIu64 " ipv6_packets=%" PRIu64 " connections=%" PRIu64
		" ipv6_connections=%" PRIu64 " closed_fin=%" PRIu64 " closed_rst=%" PRIu64
		" open_at_end=%" PRIu64 " peak_live=%" PRIu64 " wrapped_isn=%" PRIu64 "\n",
		st->packets, st->v6_packets, st->started, st->v6_conns, st->closed_fin,
		st->closed_rst, g->live, st->peak_live, st->wrapped);
	fprintf(stderr,
		"gen: segments_dropped=%" PRIu64 " segments_reordered=%" PRIu64
		" retransmissions=%" PRIu64 " (fast=%" PRIu64 " rto=%" PRIu64 ") dup_acks=%" PRIu64
		" keepalives=%" PRIu64 "\n"
		"gen: not visible as such in the capture: retransmissions_hidden=%" PRIu64
		" reorders_hidden=%" PRIu64 "\n",
		st->dropped, st->reordered, st->retx_fast + st->retx_rto, st->retx_fast,
		st->retx_rto, st->dupacks, st->keepalives, st->retx_hidden, st->reorder_hidden);
	fprintf(
	    stderr,
	    "gen: capture_seconds=%.3f avg_gbps=%.2f avg_pkt_bytes=%.0f avg_link_wait_ns=%.0f\n",
	    secs, secs > 0 ? (double)st->wire_bytes * 8 / secs / 1e9 : 0.0,
	    st->packets ? (double)st->wire_bytes / (double)st->packets : 0.0,
	    st->packets ? (double)st->link_wait_ns / (double)st->packets : 0.0);
	if (st->packets < g->o->packets)
		fprintf(stderr,
			"gen: warning: every connection finished after %" PRIu64 " of %" PRIu64
			" packets\n",
			st->packets, g->o->packets);
}

/* --- options --- */

static void usage(FILE *f)
{
	fprintf(f, "usage: gen -o FILE [options]\n"
		   "Writes a deterministic classic pcap of many concurrent TCP connections\n"
		   "and prints the ground truth (drops, reorders, retransmissions) to stderr.\n\n");
	for (size_t i = 0; i < GEN_NOPTS; i++) {
		const struct gen_optdef *d = &gen_optdefs[i];
		char left[40];
		if (d->opt.val < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", d->opt.val, d->opt.name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", d->opt.name, d->arg ? " " : "",
				 d->arg ? d->arg : "");
		fprintf(f, "  %-26s %s\n", left, d->help);
	}
}

static int parse_u64(const char *name, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi) {
		fprintf(stderr,
			"gen: --%s: want an integer in %" PRIu64 "..%" PRIu64 ", got '%s'\n", name,
			lo, hi, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_pct(const char *name, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0 && v <= 100)) {
		fprintf(stderr, "gen: --%s: want a percentage in 0..100, got '%s'\n", name, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* Fills o; returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct gen_opts *o)
{
	struct option longopts[GEN_NOPTS + 1];
	uint64_t v;
	int c;

	memset(longopts, 0, sizeof(longopts));
	for (size_t i = 0; i < GEN_NOPTS; i++)
		longopts[i] = gen_optdefs[i].opt;
	*o = (struct gen_opts){
	    .packets = 5000000,
	    .connections = 20000,
	    .concurrent = 2000,
	    .loss = 1,
	    .reorder = 0.5,
	    .ipv6 = 15,
	    .seed = 1,
	    .snaplen = 96,
	    .rtt_us = 200,
	};
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case 'h':
			usage(stdout);
			return GEN_EXIT_OK;
		case GEN_OPT_PACKETS:
			bad = parse_u64("packets", optarg, 1, UINT64_MAX / 2, &o->packets);
			break;
		case GEN_OPT_CONNECTIONS:
			bad = parse_u64("connections", optarg, 1, UINT32_MAX, &o->connections);
			break;
		case GEN_OPT_CONCURRENT:
			bad = parse_u64("concurrent", optarg, 1, 1000000, &o->concurrent);
			break;
		case GEN_OPT_LOSS:
			bad = parse_pct("loss", optarg, &o->loss);
			break;
		case GEN_OPT_REORDER:
			bad = parse_pct("reorder", optarg, &o->reorder);
			break;
		case GEN_OPT_IPV6:
			bad = parse_pct("ipv6", optarg, &o->ipv6);
			break;
		case GEN_OPT_SEED:
			bad = parse_u64("seed", optarg, 0, UINT64_MAX, &o->seed);
			break;
		case GEN_OPT_SNAPLEN:
			bad = parse_u64("snaplen", optarg, 60, GEN_SNAPLEN_MAX, &v);
			o->snaplen = (uint32_t)v;
			break;
		case GEN_OPT_RTT:
			bad = parse_u64("rtt-us", optarg, 20, 10000000, &v);
			o->rtt_us = (uint32_t)v;
			break;
		case GEN_OPT_WRAP:
			o->wrap = 1;
			break;
		case GEN_OPT_NSEC:
			o->nsec = 1;
			break;
		case GEN_OPT_TRUTH:
			o->truth = optarg;
			break;
		default:
			usage(stderr);
			return GEN_EXIT_USAGE;
		}
		if (bad)
			return GEN_EXIT_USAGE;
	}
	if (optind != argc || !o->out) {
		fprintf(stderr, "gen: %s\n",
			o->out ? "unexpected argument" : "-o FILE is required");
		usage(stderr);
		return GEN_EXIT_USAGE;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct gen_opts o;
	struct gen *g;
	char err[160];
	int fd, rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (!strcmp(o.out, "-")) {
		if (isatty(STDOUT_FILENO)) {
			fprintf(stderr, "gen: refusing to write a capture to a terminal\n");
			return GEN_EXIT_USAGE;
		}
		fd = STDOUT_FILENO;
	} else {
		fd = open(o.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd == -1) {
			fprintf(stderr, "gen: %s: %s\n", o.out, strerror(errno));
			return GEN_EXIT_OUTPUT;
		}
	}
	g = gen_new(&o, fd, err, sizeof(err));
	if (!g) {
		fprintf(stderr, "gen: %s\n", err);
		return GEN_EXIT_OUTPUT;
	}
	if (o.truth) {
		g->truth = fopen(o.truth, "we");
		if (!g->truth) {
			fprintf(stderr, "gen: %s: %s\n", o.truth, strerror(errno));
			gen_free(g);
			return GEN_EXIT_OUTPUT;
		}
	}
	gen_run(g);
	rc = GEN_EXIT_OK;
	if (g->truth && fclose(g->truth) == EOF) {
		fprintf(stderr, "gen: %s: %s\n", o.truth, strerror(errno));
		rc = GEN_EXIT_OUTPUT;
	}
	g->truth = NULL;
	if (g->out.err) {
		fprintf(stderr, "gen: %s: %s\n", o.out, strerror(g->out.err));
		rc = GEN_EXIT_OUTPUT;
	}
	if (fd != STDOUT_FILENO && close(fd) == -1 && rc == GEN_EXIT_OK) {
		fprintf(stderr, "gen: %s: %s\n", o.out, strerror(errno));
		rc = GEN_EXIT_OUTPUT;
	}
	gen_summary(g);
	gen_free(g);
	return rc;
}
