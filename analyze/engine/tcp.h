/* tcp.h - per-connection TCP state: both directions, RFC 9293 names. */
#ifndef TCPSIFT_TCP_H
#define TCPSIFT_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/decode.h"
#include "analyze/engine/pool.h"
#include "analyze/engine/summary.h"
#include "common/pkt.h"

/*
 * One struct tcp_conn per connection instance, fixed size (no allocation
 * per segment). Each direction has a struct tcp_half describing the
 * sender of that direction (S) as seen through its own segments and the
 * ACKs of the other side (R):
 *
 *        snd_una            snd_nxt
 *   ------|====in flight=====|------>  sequence space of S
 *             [hole]  [hole]           ranges below snd_nxt never captured
 *
 * The table of holes tells a retransmission (bytes seen before) from a
 * segment that fills a gap (an out-of-order original or a retransmission of
 * bytes lost before the capture point); ACKs covering a hole mean the capture
 * lost those bytes.
 */

#define TCP_SENT_RING 32 /* outstanding segments remembered for RTT (Karn) */
#define TCP_TS_RING   16 /* TSvals remembered for TSecr RTT samples */
/* The rings above start with TCP_RING_MIN entries and double (a block of
 * the next pool size class, the entries copied) only when a direction has
 * that many: most connections never have 32 segments in flight or send 16
 * distinct TSvals. Size class k holds TCP_RING_MIN << k entries (the
 * TSval ring: TCP_TS_MIN << k). */
#define TCP_RING_MIN	 4
#define TCP_SENT_CLASSES 4 /* 4, 8, 16, 32 */
/* The TSval ring starts at 2: an idle connection (and each of its
 * directions has one, from its first TSval on) keeps 24 bytes, not 48. */
#define TCP_TS_MIN     2
#define TCP_TS_CLASSES 4 /* 2, 4, 8, 16 */
/* The gap, pending-fill and retransmission tables grow the same way,
 * up to TCP_MAX_HOLES, TCP_PENDING and TCP_RTX_RING (powers of two). */
#define TCP_HOLE_CLASSES    5  /* 4 .. 64 */
#define TCP_PENDING_CLASSES 2  /* 4, 8 */
#define TCP_RTX_CLASSES	    5  /* 4 .. 64 */
#define TCP_MAX_HOLES	    64 /* unseen ranges tracked per direction (beyond: a hull) */
#define TCP_PENDING	    8  /* undecided gap fills awaiting a second copy, per direction */
#define TCP_RTX_RING	    64 /* recent retransmissions a D-SACK may still prove spurious */

struct tcp_params {
	int64_t rto_min_ns;	   /* floor of the RTO estimate (Linux TCP_RTO_MIN: 200 ms) */
	int64_t reorder_window_ns; /* one-way captures: late originals come within this (3 ms) */
};

/*
 * What a segment says about when its sender sent it: values that only move
 * forward at the sender, so two segments of one sender can be put in
 * sending order whatever order they arrived in (DESIGN.md "Reordering").
 */
enum tcp_clock_have {
	TCP_CLK_TSVAL = 1u << 0, /* its TSval (RFC 7323): the sender's clock */
	TCP_CLK_TSECR = 1u << 1, /* the peer's TSval it echoes (non-zero) */
	TCP_CLK_IPID = 1u << 2,	 /* IPv4 IP ID */
	TCP_CLK_ACK = 1u << 3,	 /* its cumulative ACK (ACK flag set) */
};

struct tcp_clock {
	uint32_t tsval, tsecr, ack;
	uint16_t ipid;
	uint8_t have; /* enum tcp_clock_have bits */
};

struct tcp_hole {
	uint32_t start, end;	 /* [start, end) never seen */
	int64_t open_ts;	 /* when the gap appeared */
	uint64_t open_data_pkts; /* data segments of the direction at that time */
	uint64_t open_frame;
	int64_t trigger_ts;	 /* first ACK from R asking for it (dup ACK, SACK above): 0 none */
	struct tcp_clock opener; /* of the segment that opened it (have 0: opened by an ACK) */
};

/* An original that arrived late, as the reorder detector reports it. */
struct tcp_late {
	int64_t ts, gap_ts;	     /* when it came; when its gap appeared */
	uint64_t frame, gap_frame;   /* its frame; the frame that opened the gap */
	uint64_t data_no;	     /* its data-segment number in its direction (1-based) */
	uint32_t input, len, extent; /* extent: data segments that overtook it */
	uint32_t rel_seq;
	int32_t queue; /* -1 unknown */
	uint8_t by;    /* enum sum_reorder_by */
};

/*
 * A gap fill neither the clocks nor causality could decide: kept until a
 * second copy of its bytes decides it, or until no retransmission of them
 * can still come (R ACKed them a path RTT ago), or the slot is needed.
 */
struct tcp_pending {
	uint32_t start, end;
	struct tcp_late late; /* what it is if it turns out to be a late original */
	struct tcp_clock clk;
	uint32_t why;	  /* retransmission reason if it is one (TCP_SEG_RTO ...) */
	int64_t acked_ts; /* R's cumulative ACK passed it at: 0 not yet */
};

/* A recent retransmission: a D-SACK may still prove it spurious (RFC 3708);
 * with a frame sink its verdict waits here until that is known. */
struct tcp_rtx {
	uint32_t start, end;
	int64_t ts;
	int64_t due; /* its verdict is final after this (a D-SACK comes sooner) */
	uint64_t frame;
	uint32_t input, len, rel_seq;
	uint8_t kind; /* enum sum_retrans_kind */
	bool spurious, dsack, filled_gap;
	/* filled_gap: what decided it, its clocks and its gap, in case its
	 * original turns up later (then it was late, not lost upstream). */
	uint8_t by;
	struct tcp_clock clk;
	int64_t gap_ts;
	uint64_t gap_frame, gap_data_pkts;
};

struct tcp_sent {
	uint32_t end; /* sequence just past the segment */
	bool retransmitted;
	int64_t ts;
};

/* 12 bytes, not 16: a ring of them per direction of every connection
 * with timestamps, most of them idle (whether it was echoed: a bit of
 * tcp_half.tsring_echoed). */
struct __attribute__((packed, aligned(4))) tcp_tsrec {
	uint32_t tsval;
	int64_t ts;
};

/*
 * What the engine decided about the segment it just processed, for the
 * detectors (analyze/detect/detect.h): one record, rewritten for every segment.
 */
enum tcp_seg_kind {
	TCP_SEG_DATA = 1u << 0,	    /* carries payload */
	TCP_SEG_NEW_DATA = 1u << 1, /* reaches beyond snd_nxt */
	TCP_SEG_RETRANS = 1u << 2,  /* a retransmission (any kind) */
	TCP_SEG_OOO = 1u << 3,	    /* an original that arrived late */
	TCP_SEG_KEEPALIVE = 1u << 4,
	TCP_SEG_PURE_ACK = 1u << 5, /* no payload, no SYN/FIN/RST */
	TCP_SEG_DUP_ACK = 1u << 6,
	TCP_SEG_ACK_ADVANCED = 1u << 7,	  /* its ACK moved the peer's snd_una */
	TCP_SEG_OPENED_GAP = 1u << 8,	  /* began beyond snd_nxt */
	TCP_SEG_FILLED_GAP = 1u << 9,	  /* carried bytes never captured before */
	TCP_SEG_SPURIOUS = 1u << 10,	  /* retransmitted bytes already ACKed */
	TCP_SEG_RTO = 1u << 11,		  /* retransmission after >= RTO silence */
	TCP_SEG_FAST = 1u << 12,	  /* retransmission in dup-ACK/SACK recovery */
	TCP_SEG_ZERO_WINDOW = 1u << 13,	  /* advertises a zero window */
	TCP_SEG_WINDOW_OPENED = 1u << 14, /* first non-zero window after zero ones */
	TCP_SEG_SACK = 1u << 15,	  /* carries SACK blocks */
	TCP_SEG_DSACK = 1u << 16,	  /* its first SACK block is a D-SACK */
	TCP_SEG_ACKED_UNSEEN = 1u << 17,  /* ACKs bytes the capture never saw */
	TCP_SEG_ACK_REORDERED = 1u << 18, /* cumulative ACK went backwards */
	TCP_SEG_SYN = 1u << 19,
	TCP_SEG_FIN = 1u << 20,
	TCP_SEG_RST = 1u << 21,
	TCP_SEG_PUSH = 1u << 22,
	TCP_SEG_TLP = 1u << 23,	      /* retransmission: a tail-loss probe (RFC 8985) */
	TCP_SEG_UNDECIDED = 1u << 24, /* filled a gap: late original or retransmission, undecided */
	TCP_SEG_LATE_FOUND = 1u << 25, /* an earlier undecided fill turned out a late original */
	TCP_SEG_RTT = 1u << 26,	       /* its ACK gave an RTT sample of the peer's data: rtt_ns */
	TCP_SEG_TS_RTT = 1u << 27,     /* its TSecr gave one (tcp_stats.rtt_ts) */
};

struct tcp_seg {
	enum sum_dir_id dir; /* its sender's direction */
	uint32_t kind;	     /* enum tcp_seg_kind bits */
	uint32_t len;	     /* payload on the wire */
	uint32_t seq, ack;   /* absolute */
	uint32_t rel_seq;    /* relative to its direction's base */
	uint32_t acked;	     /* bytes of the peer's data its ACK newly covered */
	uint64_t window;     /* the window it advertises, scaled when known */
	int64_t rtt_ns;	     /* TCP_SEG_RTT: the sample */
	int64_t ts;
	uint64_t frame;
	uint32_t input;
	int32_t queue;		    /* -1 when unknown */
	const struct dec_packet *d; /* valid during the detector calls only */
};

/*
 * Where the per-direction rings (tcp_half.sent, .tsring) and cold counters
 * come from: pools of fixed-size blocks, one per size class, owned by
 * whoever owns the connections (the engine), as struct det_pools for the
 * detectors' cold state.
 */
struct tcp_pools {
	struct pool *sent[TCP_SENT_CLASSES];	   /* struct tcp_sent[TCP_RING_MIN << k] */
	struct pool *tsring[TCP_TS_CLASSES];	   /* struct tcp_tsrec[TCP_TS_MIN << k] */
	struct pool *holes[TCP_HOLE_CLASSES];	   /* struct tcp_hole[TCP_RING_MIN << k] */
	struct pool *pending[TCP_PENDING_CLASSES]; /* struct tcp_pending[...] */
	struct pool *rtx[TCP_RTX_CLASSES];	   /* struct tcp_rtx[...] */
	struct pool *cold;			   /* struct tcp_cold: tcp_half.cold */
	/* Not pools: what tcp_segment() decided about the segment it just
	 * processed (c->tp->seg) and its late original, read through
	 * tcp_seg_late(). One per engine, not per connection (72 bytes each):
	 * only the detectors of that same segment read them. */
	struct tcp_seg seg;
	struct tcp_late late;
	/* Where a cold counter goes when no block could be had: counted as
	 * failed, its value is lost (a connection's pointer never points here). */
	struct sum_dir_cold cold_lost;
};

/* Create the pools (0), or ERR_NOMEM (nothing left allocated). */
int tcp_pools_init(struct tcp_pools *tp);
/* Every pool of tp counts its slabs in b (pool.h) from now on. */
void tcp_pools_set_budget(struct tcp_pools *tp, struct pool_budget *b);
/* Free the pools and every block in them; a zeroed struct is a no-op. */
void tcp_pools_free(struct tcp_pools *tp);
/* pool_get() calls of the pools that found no memory (samples or counts
 * not taken). */
uint64_t tcp_pools_failed(const struct tcp_pools *tp);
/* Bytes of the blocks handed out (what --max-memory counts of the pools). */
size_t tcp_pools_bytes(const struct tcp_pools *tp);

/* The recovery episode a direction is in (Linux's Loss and Recovery states). */
enum tcp_recov {
	TCP_RECOV_NONE = 0,
	TCP_RECOV_FAST, /* SACK / dup-ACK recovery */
	TCP_RECOV_RTO,	/* after a retransmission timeout */
};

/*
 * A direction's exported hot statistics while it lives (struct sum_dir_hot
 * in a narrower form; tcp_summarize() widens them), 184 bytes, not 248
 * (and struct tcp_half 280, a size the compiler indexes half[] by with one
 * multiply, as 344 before; 288 took two instructions at every use):
 * - the TCP_NARROW counters first, 32-bit here. Each grows by at most one
 *   a segment of this direction, and packets by exactly one: when packets
 *   reaches TCP_FOLD_AT, all of them are added to the cold block's fold[]
 *   (by position) and start again from 0, so none can wrap in between
 *   (tcp_fold()); TCP_COUNT() and the summary give the exact 64-bit sum;
 * - values that fit 32 bits by construction: flights (snd_nxt - snd_una),
 *   windows (16 bits shifted by at most 14, RFC 7323 2.3), the MSS option
 *   (16 bits);
 * - the ISN: tcp_half.base, once isn_known (process_syn() sets both).
 * The rest as in struct sum_dir_hot, by the same names.
 */
#define TCP_NARROW  10	       /* counters first in struct tcp_stats, 32 bits */
#define TCP_FOLD_AT (1u << 31) /* packets of a direction between folds */
struct tcp_stats {
	union {
		struct {
			uint32_t packets, data_packets;
			uint32_t pure_acks, new_acks, oversize, dup_acks, sack_acks;
			uint32_t syn, fin, rst;
		};
		uint32_t narrow[TCP_NARROW]; /* the same, by position */
	};
	/* 32 bits by construction. */
	uint32_t max_in_flight;
	uint32_t min_payload, max_payload;
	uint32_t min_window, max_window;
	uint16_t mss;
	int8_t wscale;
	bool isn_known; /* the ISN is then tcp_half.base */
	/* Sums that may grow by more than one a segment: 64 bits. */
	uint64_t ip_bytes, payload_bytes, unique_bytes;
	struct sum_rtt rtt, rtt_ts;
	int64_t first_ts, last_ts;
	int64_t first_data_ts, last_data_ts;
};
_Static_assert(offsetof(struct tcp_stats, rst) == (TCP_NARROW - 1) * sizeof(uint32_t),
	       "tcp_stats.narrow[] covers the narrow counters");
_Static_assert(sizeof(struct tcp_stats) == 184, "see the comment above struct tcp_stats");

/*
 * What a direction needs only once it has something rare to count or
 * track: the cold counters, and the state of gaps, undecided fills,
 * retransmissions, recovery and zero windows. Most directions never have
 * any, so struct tcp_half keeps only a pointer (tcp_half.cold): the block
 * comes from struct tcp_pools on first need, zeroed, and goes back in
 * tcp_conn_release(); NULL reads as all zeros.
 */
struct tcp_cold {
	union {
		struct {
			SUM_DIR_COLD_FIELDS
		};
		struct sum_dir_cold st; /* exported, as struct sum_dir's cold */
	};
	/* Gaps, undecided fills and recent retransmissions: arrays from
	 * struct tcp_pools the first time this direction has any, moved to
	 * the next size class when full, from 4 up to TCP_MAX_HOLES,
	 * TCP_PENDING, TCP_RTX_RING; tcp_conn_release() returns them. rtx is
	 * a ring from rtx_head. */
	struct tcp_hole *holes;
	struct tcp_pending *pending;
	struct tcp_rtx *rtx;
	/* The earliest a waiting verdict of this direction (an undecided
	 * fill, a retransmission awaiting a D-SACK) may be final, 0 none:
	 * packets before it skip the check (tcp_settle_due()). Here, not in
	 * struct tcp_conn: only a direction with a cold block has any. */
	int64_t settle;
	int64_t zw_start; /* the open zero window (in_zero_window) */
	uint64_t zw_frame;
	uint32_t zw_input;
	uint32_t hole_overflow; /* gaps not tracked because the table was full */
	uint32_t grow_failed;	/* table growths (gaps, fills, retransmissions) out of memory */
	/* The hull of the gaps not tracked: below snd_nxt, what fills them
	 * cannot be told from a retransmission of seen bytes. */
	uint32_t hull_lo, hull_hi;
	/* A recovery episode (enum tcp_recov) lasts until the cumulative ACK reaches
	 * recov_high, what S had sent when it began (tcp_retrans_why()). */
	uint32_t recov_high;
	uint8_t recov_kind;
	uint8_t cap_holes, cap_pending, cap_rtx;
	uint8_t nholes;
	uint8_t npending; /* pending: oldest first */
	uint8_t rtx_head, rtx_len;
	bool have_hull;
	bool in_zero_window;
	/* What tcp_stats' narrow counters held at their folds, by position
	 * (tcp_fold()); zero in nearly every connection. */
	uint64_t fold[TCP_NARROW];
};

struct tcp_half {
	struct tcp_stats st; /* exported statistics, the hot ones (narrowed) */
	/* The rest: NULL until this direction first counts a cold statistic
	 * or tracks a gap, fill, retransmission or zero window (most never
	 * do; tcp_cold(), tcp_cold_state()). */
	struct tcp_cold *cold;

	uint32_t base;	  /* relative sequence 0: ISN, else first sequence seen */
	uint32_t snd_una; /* highest cumulative ACK from the peer */
	uint32_t snd_nxt; /* highest sequence end sent */
	/* IPv4 IP ID behaviour, learned per flow from the size of successive
	 * differences (a per-connection counter moves by about one per segment,
	 * in either direction when segments are reordered). */
	uint32_t ipid_near, ipid_far;
	uint32_t ipid_one; /* steps of exactly +1: the counter is this connection's alone */
	/* ACKs this side sent, for duplicate-ACK detection (RFC 5681 sec. 2). */
	uint32_t last_ack;
	uint32_t dupack_run; /* consecutive dup ACKs, reset by an advancing ACK */
	/* Largest flight since the last recovery episode ended (the whole
	 * connection before the first): the congestion window's recent size,
	 * which repeated reductions take far below max_in_flight. */
	uint32_t flight_peak;
	uint16_t last_ipid;
	uint16_t last_win_raw;

	int64_t srtt_ns, rttvar_ns; /* RFC 6298 estimator over rtt samples */

	/* RTT sample rings, from struct tcp_pools on first need: sent while
	 * this side has sequence space in flight (back to the pool when the
	 * peer ACKs all of it: an idle connection holds none), tsring from
	 * its first TSval on. NULL: none (or no memory: no samples).
	 * tcp_conn_release() returns them. Their sizes (*_cap entries, a
	 * size class: TCP_RING_MIN, TCP_TS_MIN from tcp_conn_init() on) grow when full;
	 * sent_cap stays when the ring goes back, so the next flight starts
	 * at the size the last one needed. (Entries, not classes: the
	 * per-segment code then needs no variable shift.) */
	struct tcp_sent *sent;	  /* a FIFO from sent_head */
	struct tcp_tsrec *tsring; /* next slot tsring_head; only the largest wraps */
	uint16_t tsring_echoed;	  /* bit k: slot k's TSval was echoed (TCP_TS_RING <= 16) */
	uint8_t sent_head, sent_len, sent_cap;
	uint8_t tsring_head, tsring_cap;

	bool have_ipid;
	bool have_last_ack;
	bool sacking; /* its last ACK carried SACK blocks above the ACK */
	bool have_nxt, have_una;
	bool keepalive_pending; /* its last segment was a keep-alive: the reply is no dup ACK */
	/* Written once or twice a connection: bits of one byte, which keeps
	 * the struct at 280 bytes (struct tcp_stats). */
	bool syn_seen : 1, fin_seen : 1, rst_seen : 1;
	bool ws_opt : 1, sack_opt : 1, ts_opt : 1; /* options in this side's SYN */
	bool oversize_reported : 1;
	/* cold->settle is set (settle_at()): tcp_settle_due() reads the
	 * cold block for every packet only then, not to find it 0. */
	bool settle_wait : 1;
	/* tsring may hold a TSval twice, or out of order, for this many adds
	 * more: one that was not a small step up from the newest sets it to
	 * TCP_TS_RING, the ring's most (tsring_add()). At 0, tsring_echo()
	 * walks from the slot it matched last and stops early. */
	uint8_t ts_mixed;
	uint8_t ts_hint; /* the tsring slot tsring_echo() matched last */
};
_Static_assert(sizeof(struct tcp_half) == 280, "see struct tcp_stats");

/*
 * The state of every detector, owned by the connection, in two parts.
 * Every segment runs every detector, and with thousands of live connections
 * each cache line a detector touches per segment is a likely cache miss. So
 * the few fields a detector reads or writes for every segment (its common
 * case: in-order data, pure ACKs) sit together in struct det_hot, right
 * after c->tp; the rest, in struct det_states, is only touched when a
 * detector has work (a gap, SACK blocks, an RTO, a new payload size ...).
 * A detector whose state most connections never need (DET_COLD) keeps
 * only a pointer there: the state comes from a pool on first need and goes
 * back when the connection ends (det_release(), analyze/detect/detect.h).
 * Both come from the table of detectors (analyze/detect/detectors.h).
 * (The reorder detector needs no hot state: tcp.c's info.queues_known
 * tells it when it has nothing to record.)
 */
struct det_hot {
#define DET_HOT(name, prefix) struct prefix##_hot name;
#include "analyze/detect/detectors.h"
};

struct det_states {
#define DET_STATE(name, prefix) struct prefix##_state name;
#define DET_COLD(name, prefix)	struct prefix##_state *name; /* see DET_COLD_GET() */
#include "analyze/detect/detectors.h"
};

struct tcp_conn {
	struct sum_conn_ident info; /* identity, roles, flags; stats live in half[].st
				       (tcp_summarize() joins them), the detectors'
				       results are made at the end (det_finish()) */
	struct tcp_half half[SUM_DIR_COUNT];
	/* The pools tcp_segment() was given (the cold counters' blocks come
	 * from there where no pools are passed), and the record of the segment
	 * just processed (tp->seg, for the detectors); NULL before the first
	 * segment. */
	struct tcp_pools *tp;
	struct det_hot dhot; /* next to tp: see struct det_hot */
	/* The cold states' pointers, next to dhot: some (mtu's sizes) are read
	 * for every data segment. */
	struct det_states det;
	int64_t syn_ts;	   /* last SYN from the client, for handshake RTT */
	int64_t synack_ts; /* last SYN/ACK from the server */
	bool syn_ts_valid, synack_ts_valid;
	bool handshake_done;
	/* The current run of packets in one direction: bit 7 its direction,
	 * bits 0-6 its length (saturating), 0 before the first packet; and
	 * the other side's snd_una before the run began (what that side knew
	 * of its ACKs when the run started: probe_with_new_data()). */
	uint8_t run;
	uint32_t run_una;
	/* From the capture point to each side and back, from the handshake
	 * (SYN -> SYN/ACK: the server; SYN/ACK -> ACK: the client); -1 unknown. */
	int64_t hs_loop_ns[SUM_DIR_COUNT];
};

/*
 * Set up a new connection whose first packet goes from (src, sport) to
 * (dst, dport). Roles: a SYN without ACK makes its sender the client, a
 * SYN/ACK its receiver; otherwise the port heuristic in tcp.c decides.
 */
void tcp_conn_init(struct tcp_conn *c, uint64_t id, const struct dec_packet *d,
		   const struct pkt *p);

/*
 * The same for a connection the flow table evicted and now resumes
 * (flow_lookup() FLOW_RESUMED): its old id and roles, state as for a
 * capture started mid-connection, marked evicted_and_resumed.
 */
void tcp_conn_resume(struct tcp_conn *c, uint64_t id, const struct dec_packet *d,
		     const struct pkt *p, bool src_is_client);

/* Which direction a decoded packet of this connection travels. */
enum sum_dir_id tcp_conn_dir(const struct tcp_conn *c, const struct dec_packet *d);

/*
 * A SYN without ACK on an existing connection that is not a retransmission
 * of the client's SYN starts a new instance (port reuse, RFC 9293 3.10.7.4).
 */
bool tcp_is_new_instance(const struct tcp_conn *c, const struct dec_packet *d);

/* Account one segment; the rings c needs first come from tp (borrowed: it
 * must outlive c's tcp_conn_release()). Events found go to sink (may be NULL). */
void tcp_segment(struct tcp_conn *c, const struct tcp_params *prm, struct tcp_pools *tp,
		 const struct dec_packet *d, const struct pkt *p, const struct sum_sink *sink);

/* Fill the summary of the connection as it stands (it may go on), all
 * but out->det (the detectors': det_finish(), det_live()). */
void tcp_summarize(const struct tcp_conn *c, struct sum_conn *out);

/* ---- read-only views for detectors ---- */

/* Bytes dir's sender has in flight: snd_nxt - snd_una (0 if unknown). */
static inline uint32_t tcp_in_flight(const struct tcp_conn *c, enum sum_dir_id dir)
{
	const struct tcp_half *h = &c->half[dir];
	if (!h->have_nxt || !h->have_una || (int32_t)(h->snd_nxt - h->snd_una) < 0)
		return 0;
	return h->snd_nxt - h->snd_una;
}

/* A window field h's side sent outside its SYN, scaled when the scale is
 * known (RFC 7323 2.2: both SYNs seen). */
static inline uint64_t tcp_window_bytes(const struct tcp_conn *c, const struct tcp_half *h,
					uint16_t raw)
{
	if (!c->info.wscale_known || h->st.wscale < 0)
		return raw;
	return (uint64_t)raw << h->st.wscale;
}

/* The receive window the receiver of dir's data last advertised (scaled
 * when the scale is known); *known is false before it sent anything.
 * Inline: the stall detector asks before every packet that may end a gap. */
static inline uint64_t tcp_peer_window(const struct tcp_conn *c, enum sum_dir_id dir, bool *known)
{
	const struct tcp_half *r = &c->half[!dir];

	*known = r->have_last_ack;
	return r->have_last_ack ? tcp_window_bytes(c, r, r->last_win_raw) : 0;
}

/* Start loading the blocks c's segments touch beside c itself: each
 * direction's cold counters, its RTT ring and its TSval ring (a hint:
 * NULL ones load nothing). */
static inline void tcp_prefetch(const struct tcp_conn *c)
{
	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		__builtin_prefetch(c->half[k].cold);
		__builtin_prefetch(c->half[k].sent);
		__builtin_prefetch(c->half[k].tsring);
	}
}

/* MSS the receiver of dir's data announced (0: unknown). */
static inline uint32_t tcp_peer_mss(const struct tcp_conn *c, enum sum_dir_id dir)
{
	return c->half[!dir].st.mss;
}

/* Effective segment size of dir's data: the MSS R announced less the 12
 * bytes of timestamp options when both sides use them (RFC 7323; Linux
 * sends 1448-byte segments for MSS 1460), or the largest payload S sent if
 * larger (GSO/TSO super-frames); unknown when neither is known. */
static inline uint32_t tcp_send_mss(const struct tcp_conn *c, enum sum_dir_id dir, uint32_t unknown)
{
	uint32_t peer = tcp_peer_mss(c, dir), seen = c->half[dir].st.max_payload;

	if (peer > 12 && c->info.timestamps)
		peer -= 12;
	if (seen > peer)
		return seen;
	return peer ? peer : unknown;
}

/* Smallest RTT sample of dir's data (ACK-based, else TSecr-based); -1 if none. */
static inline int64_t tcp_min_rtt(const struct tcp_conn *c, enum sum_dir_id dir)
{
	const struct tcp_stats *s = &c->half[dir].st;
	if (s->rtt.n)
		return s->rtt.min_ns;
	return s->rtt_ts.n ? s->rtt_ts.min_ns : -1;
}

/*
 * From the capture point to side's host and back (the handshake leg to it,
 * the other side's data ACKed by it, or the other side's TSvals echoed by
 * it; the smallest): how long an answer from side takes at this vantage
 * point. A sender-side capture sees the whole path towards the receiver and
 * almost nothing towards the sender; a receiver-side one the opposite. -1
 * unknown.
 */
int64_t tcp_loop_rtt(const struct tcp_conn *c, enum sum_dir_id side);
/* Where the capture point sits for dir's data, by those loops: the rule
 * the report's vantage_side gives (sum_vantage_side()), live. */
enum sum_vantage_side tcp_vantage_side(const struct tcp_conn *c, enum sum_dir_id dir);

/*
 * When h's side first sent a TSval newer than tsval (at the latest), or -1 (unknown
 * or its newest). A segment from the other side echoing tsval was sent
 * before that packet reached it: the loop from the capture point to the
 * other side and back is longer than the time since then (RFC 7323 4.3:
 * TS.Recent follows each segment received). A lower bound that a queue on
 * the path raises, where the handshake's loop saw none.
 */
int64_t tcp_ts_next_sent(const struct tcp_half *h, uint32_t tsval);

/* Does dir's sender number its IPv4 packets with a counter of this
 * connection's alone (as Linux's inet_id), its IDs stepping by exactly one
 * (all but one step in eight, and two more)? Then an ID that skips says packets of it went
 * missing before the capture point. A global counter (Windows, or IDs
 * shared with other traffic) skips by itself. */
bool tcp_ipid_counter(const struct tcp_conn *c, enum sum_dir_id dir);

/* The whole path's RTT, end to end, wherever the capture is: both loops,
 * or the handshake; -1 unknown. */
int64_t tcp_path_rtt(const struct tcp_conn *c);

/* With TCP_SEG_OOO in c->tp->seg.kind: this segment, the late original; with
 * TCP_SEG_LATE_FOUND: an earlier one the engine could decide only now.
 * Valid during the detector calls of that segment only. */
static inline const struct tcp_late *tcp_seg_late(const struct tcp_conn *c)
{
	return &c->tp->late;
}

/* The gaps h's side has open (tcp_half.cold->holes; 0 without a block). */
static inline unsigned tcp_nholes(const struct tcp_half *h)
{
	return h->cold ? h->cold->nholes : 0;
}

/* The exact value of h's narrow counter f (struct tcp_stats): its 32 bits
 * here and what its folds left in the cold block. */
#define TCP_COUNT(h, f) tcp_widen((h), offsetof(struct tcp_stats, f) / sizeof(uint32_t), (h)->st.f)
static inline uint64_t tcp_widen(const struct tcp_half *h, unsigned k, uint32_t lo)
{
	return (h->cold ? h->cold->fold[k] : 0) + lo;
}

/* Relative sequence of an absolute one in dir's sequence space. */
static inline uint32_t tcp_rel_seq(const struct tcp_conn *c, enum sum_dir_id dir, uint32_t seq)
{
	return seq - c->half[dir].base;
}

/* FIN seen both ways, or a RST. */
bool tcp_is_closed(const struct tcp_conn *c);

/* A handshake that never completed and carried no data (a SYN flood's
 * connections): the cheapest to evict. */
static inline bool tcp_is_half_open(const struct tcp_conn *c)
{
	return !c->handshake_done && (c->half[0].syn_seen || c->half[1].syn_seen) &&
	       !TCP_COUNT(&c->half[0], data_packets) && !TCP_COUNT(&c->half[1], data_packets);
}

/* Free what c allocated on first need (tcp_half's holes, pending, rtx) and
 * return its rings to tp, the pools tcp_segment() took them from; c may be
 * reused after tcp_conn_init(). Idempotent. */
void tcp_conn_release(struct tcp_conn *c, struct tcp_pools *tp);

/* Growths of c's tables (gaps, pending fills, retransmissions) that found
 * no memory. (Their bytes are the pools': tcp_pools_bytes.) */
uint64_t tcp_conn_grow_failed(const struct tcp_conn *c);

/* Close open episodes (zero window) at the end of the connection. */
void tcp_finish(struct tcp_conn *c, const struct sum_sink *sink);

#endif
