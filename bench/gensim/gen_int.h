/* gen_int.h - internal to bench/gen: what its pieces (gen.c, gensim/gen_*.c) share. */
#ifndef TCPSIFT_GEN_INT_H
#define TCPSIFT_GEN_INT_H

/*
 * Internal: only bench/gen.c and bench/gensim/gen_*.c include this. One
 * program in four files (the simulation is described in gen.c):
 *
 *   gen.c       the driver: options, the output buffer, the event heap and
 *               the timers, the run, the summary
 *   gen_wire.c  packets: their sizes and times, the headers and checksums,
 *               a record written
 *   gen_tcp.c   the endpoints: sending, ACKs, loss recovery, delivery,
 *               the applications
 *   gen_conn.c  what reaches the capture point (--truth), and connections
 *               starting, ending and their timers
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

/* --- random numbers: xoshiro256**, seeded through splitmix64 --- */

static inline uint64_t gen_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void rng_seed(struct gen_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = gen_splitmix(&seed);
}

static inline uint64_t rng_next(struct gen_rng *r)
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

static inline uint64_t rng_below(struct gen_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

static inline uint64_t rng_range(struct gen_rng *r, uint64_t lo, uint64_t hi)
{
	return lo + rng_below(r, hi - lo + 1);
}

static inline double rng_unit(struct gen_rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1p-53;
}

static inline int rng_pct(struct gen_rng *r, double pct)
{
	return rng_unit(r) * 100.0 < pct;
}

/* Natural log of x in (0, 1]; own series because the bench build links no libm. */
static inline double gen_ln(double x)
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

static inline uint64_t rng_exp(struct gen_rng *r, double mean)
{
	return (uint64_t)(-gen_ln(1.0 - rng_unit(r)) * mean);
}

/* --- sequence space (RFC 9293 comparisons, wrap-safe) --- */

static inline int seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline int seq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}

static inline int seq_gt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/* --- gen.c --- */

uint8_t *gen_out_reserve(struct gen_out *o, size_t n);
void gen_put16(uint8_t *p, uint32_t v);
void gen_put32(uint8_t *p, uint32_t v);
uint32_t gen_ev_alloc(struct gen *g);
void gen_ev_free(struct gen *g, uint32_t idx);
void gen_heap_push(struct gen *g, uint64_t t, uint32_t idx);
uint32_t gen_conn_slot(const struct gen *g, const struct gen_conn *c);
void gen_timer_arm(struct gen *g, struct gen_conn *c, int tm, uint64_t deadline);
int gen_timer_expired(struct gen *g, struct gen_conn *c, int tm, uint64_t t);

/* --- gen_wire.c --- */

uint64_t gen_wire_ns(unsigned len);
uint64_t gen_tx_time(const struct gen_conn *c, int s, uint64_t host_t);
uint32_t gen_pkt_make(struct gen *g, struct gen_conn *c, int s, uint64_t tx, uint8_t flags,
		      uint32_t seq, unsigned len, uint8_t note);
void gen_pkt_new(struct gen *g, struct gen_conn *c, int s, uint64_t tx, uint8_t flags, uint32_t seq,
		 unsigned len, uint8_t note);
void gen_send_ack(struct gen *g, struct gen_conn *c, int s, uint64_t t, uint8_t note);
void gen_write_record(struct gen *g, const struct gen_conn *c, const struct gen_ev *e, uint64_t ts,
		      unsigned *wire_out);

/* --- gen_tcp.c --- */

void gen_try_send(struct gen *g, struct gen_conn *c, int s, uint64_t t);
uint64_t gen_rto_ns(const struct gen_conn *c);
void gen_on_rx(struct gen *g, struct gen_conn *c, const struct gen_ev *e, uint64_t t);
void gen_app_run(struct gen *g, struct gen_conn *c, int s, uint64_t t);
void gen_rto_fire(struct gen *g, struct gen_conn *c, int s, uint64_t t);

/* --- gen_conn.c --- */

void gen_on_tx(struct gen *g, struct gen_conn *c, uint32_t idx, uint64_t t);
void gen_conn_assign(struct gen *g, uint64_t t);
void gen_on_timer(struct gen *g, struct gen_conn *c, int tm, uint64_t t);

#endif
