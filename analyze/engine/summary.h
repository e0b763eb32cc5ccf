/* summary.h - what the engine hands to reporters: connection summaries and events. */
#ifndef TCPSIFT_SUMMARY_H
#define TCPSIFT_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/decode.h"

/* The detectors' types (their _types.h), for sum_conn.det and sum_event.u. */
#include "analyze/detect/detectors.h"

/*
 * Types only. The engine fills these and passes them to a struct sum_sink by
 * const pointer; a reporter copies what it keeps and never reaches back into
 * the engine (data flows one way: engine -> sink -> reporter).
 */

enum sum_dir_id {
	SUM_C2S = 0, /* client to server: sent by the side that sent the SYN */
	SUM_S2C = 1,
	SUM_DIR_COUNT,
};

/* An RTT accumulator (ns). avg = sum_ns / n. */
struct sum_rtt {
	uint64_t n;
	int64_t min_ns, max_ns, sum_ns;
};

/*
 * What decided whether a segment filling a gap in the capture was an
 * original that arrived late or a retransmission (DESIGN.md "Reordering";
 * analyze/engine/tcp.c). The sender's own clocks compare it with the segment that
 * opened the gap (sent right after the original, in sequence order); when
 * they tie, causality; when that cannot decide, a later second copy of the
 * same bytes may. The values are stable (JSON keys name them).
 */
enum sum_reorder_by {
	SUM_BY_TSVAL = 0,   /* its TSval (RFC 7323) */
	SUM_BY_IPID,	    /* IPv4 IP ID, learned to be a per-connection counter */
	SUM_BY_TIMING,	    /* one-way capture: within --reorder-window of the gap */
	SUM_BY_TSECR,	    /* the receiver's clock the sender echoed (TSecr) */
	SUM_BY_ACK,	    /* the sender's own cumulative ACK (data the other way) */
	SUM_BY_CAUSALITY,   /* sooner than a retransmission could have come back */
	SUM_BY_SECOND_COPY, /* a second copy of its bytes came, sent after (before) it */
	SUM_BY_COUNT,
};

/* Why a retransmission was sent, as far as the capture tells (tcp.c). */
enum sum_retrans_kind {
	SUM_RTX_FAST = 0, /* after >= 3 duplicate ACKs or within SACK recovery */
	SUM_RTX_RTO,	  /* after a silence >= the estimated RTO */
	SUM_RTX_TLP,	  /* the highest segment again, no loss signal: a loss probe */
	SUM_RTX_OTHER,
	SUM_RTX_KIND_COUNT,
};

/*
 * Statistics of one direction: segments sent by this side, and what the
 * other side's ACKs said about them. Counters follow the rules documented in
 * analyze/engine/tcp.c and tcpsift-analyze(1) ("PER-DIRECTION STATISTICS").
 *
 * Two groups, by how often the engine touches them: the hot ones nearly
 * every segment moves (and every connection has; dup and SACK ACKs come
 * in runs), the cold ones only retransmissions, gaps, windows and the
 * like do. A live
 * connection (struct tcp_half) keeps the hot group in place and the cold
 * one in a pooled block taken on its first use; struct sum_dir, what
 * reporters see, is both (by name, or as .hot and .cold).
 */
#define SUM_DIR_HOT_FIELDS                                                                         \
	uint64_t packets;	/* TCP segments sent by this side */                               \
	uint64_t ip_bytes;	/* IP length on the wire of those */                               \
	uint64_t data_packets;	/* segments with payload (not keep-alives) */                      \
	uint64_t payload_bytes; /* all payload bytes, retransmissions included */                  \
	uint64_t unique_bytes;	/* snd_nxt - ISN: distinct sequence space sent */                  \
	uint64_t pure_acks;	/* no payload, no SYN/FIN/RST */                                   \
	uint64_t new_acks;	/* ACKs this side sent that advanced the cumulative ACK */         \
	uint64_t oversize;	/* payload larger than the peer's MSS (GSO/TSO/GRO) */             \
	uint64_t dup_acks;	/* duplicate ACKs this side sent */                                \
	uint64_t sack_acks;	/* ACKs this side sent carrying SACK blocks */                     \
	uint64_t syn, fin, rst;                                                                    \
	uint64_t max_in_flight;		     /* max snd_nxt - snd_una seen at a data segment */    \
	uint32_t mss;			     /* MSS this side announced in its SYN (0: unknown) */ \
	int8_t wscale;			     /* window shift it announced (-1: none/unknown) */    \
	uint32_t min_payload, max_payload;   /* of data segments */                                \
	uint64_t min_window, max_window;     /* advertised receive window, scaled if known */      \
	struct sum_rtt rtt;		     /* data -> covering ACK, Karn's rule */               \
	struct sum_rtt rtt_ts;		     /* TSval -> first TSecr echo */                       \
	int64_t first_ts, last_ts;	     /* ns; 0 if no packet */                              \
	int64_t first_data_ts, last_data_ts; /* ns; 0 if no data */                                \
	uint32_t isn;                                                                              \
	bool isn_known;

#define SUM_DIR_COLD_FIELDS                                                                        \
	uint64_t retrans; /* retransmitted segments (all kinds) */                                 \
	uint64_t retrans_bytes;                                                                    \
	uint64_t fast_retrans; /* after >= 3 dup ACKs or within SACK recovery */                   \
	uint64_t rto_retrans;  /* after a silence >= the estimated RTO */                          \
	uint64_t tlp_retrans;  /* tail-loss probes (RFC 8985): highest segment, no loss signal */  \
	uint64_t tlp_new_data; /* ... probes with new data: >= 2 segments in flight, no ACK */     \
	uint64_t spurious_retrans; /* bytes already cumulatively ACKed, or D-SACKed later */       \
	uint64_t spurious_dsack;   /* ... of which proven by a later D-SACK (RFC 2883, 3708) */    \
	uint64_t lost_upstream; /* retransmissions filling a gap: original lost before capture */  \
	uint64_t out_of_order;	/* never-seen bytes below snd_nxt sent *before* it */              \
	uint64_t ooo_by[SUM_BY_COUNT];		 /* out_of_order by what decided it */             \
	uint64_t lost_upstream_by[SUM_BY_COUNT]; /* lost_upstream by what decided it */            \
	uint64_t fills_undecided; /* gap fills neither rule could decide (see tcp.c) */            \
	uint64_t lost_segments;	  /* a gap opened: "previous segment not captured" */              \
	uint64_t ack_reordering;  /* cumulative ACKs this side sent that went backwards */         \
	uint64_t zero_windows;	  /* segments advertising a zero window */                         \
	uint64_t window_full;	  /* segments that filled the peer's advertised window */          \
	uint64_t keepalives;                                                                       \
	uint64_t acked_unseen; /* peer ACKs covering this side's bytes never captured */           \
	uint64_t unseen_bytes; /* bytes of this side ACKed but never captured */                   \
	uint64_t dsack_blocks; /* D-SACK blocks this side sent (RFC 2883) */

struct sum_dir_hot {
	SUM_DIR_HOT_FIELDS
};

struct sum_dir_cold {
	SUM_DIR_COLD_FIELDS
};

struct sum_dir {
	union {
		struct {
			SUM_DIR_HOT_FIELDS
		};
		struct sum_dir_hot hot;
	};
	union {
		struct {
			SUM_DIR_COLD_FIELDS
		};
		struct sum_dir_cold cold;
	};
};

enum sum_state {
	SUM_STATE_HANDSHAKE = 0, /* SYN seen, never completed */
	SUM_STATE_OPEN,		 /* established or mid-stream, no FIN/RST */
	SUM_STATE_HALF_CLOSED,	 /* FIN one way */
	SUM_STATE_CLOSED,	 /* FIN both ways */
	SUM_STATE_RESET,
	SUM_STATE_COUNT,
};

/* What each detector concluded about a connection (analyze/detect/detectors.h). */
struct sum_det {
#define DETECTOR(name, prefix) struct prefix##_summary name;
#include "analyze/detect/detectors.h"
};

/*
 * A connection's summary but its per-direction statistics and the
 * detectors' results: identity, roles and flags. struct tcp_conn keeps
 * this while the connection lives (its statistics live in its halves, and
 * tcp_summarize() copies them into dir[]; the detectors' results are made
 * when it ends, det_finish()); struct sum_conn below is these fields (by
 * name, or all at once as .ident), det and dir[]. (Ordered by size: 120
 * bytes, no holes; struct tcp_conn keeps it for every live connection.)
 */
#define SUM_CONN_IDENT_FIELDS                                                                      \
	uint64_t id; /* 1-based, in order of first packet */                                       \
	int64_t first_ts, last_ts;                                                                 \
	uint64_t first_frame, last_frame; /* frame numbers within their input */                   \
	int64_t handshake_rtt_ns; /* SYN -> ACK of SYN/ACK at the capture point, -1 unknown */     \
	uint64_t queue_mask;	  /* bit q set: a packet on queue q (q < 64) */                    \
	uint64_t live_from;   /* eng_config.live_spans: the packet it entered the table at, 0 */   \
	uint32_t first_input; /* input file of the first packet */                                 \
	uint32_t last_input;  /* input file of the last packet */                                  \
	uint16_t vantage; /* observation point (analyze/engine/source.h: < SRC_MAX_VANTAGES) */    \
	uint16_t client_port, server_port;                                                         \
	enum sum_state state : 8;                                                                  \
	struct dec_addr client, server;                                                            \
	bool roles_from_syn; /* false: guessed from ports (capture started mid-stream) */          \
	bool wscale_known;   /* both SYNs seen, so windows can be scaled */                        \
	bool sack_permitted; /* both SYNs carried SACK-permitted */                                \
	bool timestamps;     /* both SYNs carried timestamps */                                    \
	bool queues_known, queues_overflow; /* overflow: a queue id >= 64 */                       \
	/* Set once, when a connection ends or resumes: bits of one byte. */                       \
	bool evicted : 1; /* ended by --max-flows/--max-memory pressure, not FIN/RST/idle/end */   \
	bool evicted_and_resumed : 1; /* evicted earlier, came back with this id (mid-stream) */

struct sum_conn_ident {
	SUM_CONN_IDENT_FIELDS
};
_Static_assert(sizeof(struct sum_conn_ident) == 120, "see SUM_CONN_IDENT_FIELDS");

/*
 * The path's round trips as the capture point measures them (DESIGN.md
 * "Vantage"; tcp_summarize() fills them from tcp_path_rtt() and
 * tcp_loop_rtt()). The RTT columns of struct sum_dir are the capture
 * point's own data -> ACK turnaround: microseconds at a receiver-side
 * capture on a 20 ms path. These are the path's. -1 unknown.
 */
struct sum_path {
	int64_t rtt_ns; /* end to end: both loops added, or the handshake; the smaller */
	/* capture point -> that side's host -> capture point, by side
	 * (SUM_C2S: the client, SUM_S2C: the server) */
	int64_t loop_ns[SUM_DIR_COUNT];
};

struct sum_conn {
	union {
		struct {
			SUM_CONN_IDENT_FIELDS
		};
		struct sum_conn_ident ident;
	};
	struct sum_path path;
	struct sum_det det;
	struct sum_dir dir[SUM_DIR_COUNT];
	/* eng_config.live_spans: it left the table before packet live_until
	 * (stream ordinals, as live_from), UINT64_MAX: at the end of the run. */
	uint64_t live_until;
};

/*
 * Where the capture point sits on the path of one direction's data
 * (DESIGN.md "Vantage"), decided from the two loops: the end whose loop
 * is under a tenth of the path's round trip is next to the capture point;
 * neither: the capture point is in the middle. Unknown while either loop
 * is. The values are stable (JSON names them).
 */
enum sum_vantage_side {
	SUM_VANTAGE_UNKNOWN = 0,
	SUM_VANTAGE_SENDER,   /* next to the data's sender */
	SUM_VANTAGE_RECEIVER, /* next to its receiver */
	SUM_VANTAGE_MIDDLE,   /* a substantial loop to each end */
	SUM_VANTAGE_COUNT,
};

enum sum_event_type {
	/* The TCP engine's own (analyze/engine/tcp.c). */
	SUM_EV_ZERO_WINDOW = 0, /* receiver advertised 0; duration until it reopened */
	SUM_EV_CAPTURE_LOSS,	/* bytes ACKed that the capture never saw */
	SUM_EV_DSACK,		/* D-SACK: the receiver got bytes twice */
	SUM_EV_OVERSIZE,	/* first super-frame (payload > MSS) of a direction */
	/* Per-frame verdicts of the TCP engine (delivered to sum_sink.frame):
	 * frame_first is the frame judged. */
	SUM_EV_RETRANS,	       /* a retransmission: u.frame.kind, .spurious */
	SUM_EV_DUP_ACK,	       /* a duplicate ACK (Wireshark's rule) */
	SUM_EV_OUT_OF_ORDER,   /* an original that arrived late: by, extent */
	SUM_EV_FILL_UNDECIDED, /* a gap fill neither rule could decide */
	SUM_EV_CAPTURE_GAP,    /* began beyond snd_nxt: bytes before it never captured */
	SUM_EV_TLP_NEW_DATA,   /* a tail-loss probe sent as new data (RFC 8985 7.3) */
			       /* The detectors' (analyze/detect/detectors.h). */
#define DET_EVENT(enum_value, json_name, detector) enum_value,
#include "analyze/detect/detectors.h"
	SUM_EV_TYPE_COUNT,
};

/* Detail of a per-frame verdict (SUM_EV_RETRANS .. SUM_EV_TLP_NEW_DATA). */
struct sum_frame_event {
	uint8_t kind;	    /* SUM_EV_RETRANS: enum sum_retrans_kind */
	bool spurious;	    /* SUM_EV_RETRANS: bytes already ACKed, or D-SACKed later */
	bool dsack;	    /* ... proven by a D-SACK */
	bool filled_gap;    /* SUM_EV_RETRANS: its bytes were never captured before */
	uint32_t dup_count; /* SUM_EV_DUP_ACK: its place in the run of duplicates */
};

struct sum_event {
	enum sum_event_type type;
	uint64_t conn;	     /* sum_conn.id */
	uint8_t dir;	     /* enum sum_dir_id of the data direction */
	int64_t ts;	     /* ns */
	int64_t duration_ns; /* -1 when the event has no duration */
	uint32_t input;
	uint64_t frame_first, frame_last;
	uint64_t bytes;	     /* bytes concerned */
	uint32_t segments;   /* segments concerned (estimate for capture loss) */
	uint32_t extent;     /* reorder: later segments that overtook it */
	uint32_t rel_seq;    /* sequence relative to the ISN / first seen */
	uint8_t by;	     /* reorder: enum sum_reorder_by */
	int8_t queue_switch; /* reorder: 1/0, -1 unknown */
	union {		     /* type-specific detail */
		struct sum_frame_event frame;
#define DET_DETAIL(type, member) type member;
#include "analyze/detect/detectors.h"
	} u;
};

/*
 * One TCP segment as the engine classified it, for live views (the TUI's
 * time-sequence graph and throughput) and graphs (analyze/report/plot.h);
 * only delivered to a sink that asks for it, so batch analysis pays
 * nothing.
 */
enum sum_seg_flag {
	SUM_SEG_DATA = 1u << 0,	   /* carries payload */
	SUM_SEG_RETRANS = 1u << 1, /* a retransmission (any kind) */
	SUM_SEG_OOO = 1u << 2,	   /* an original that arrived late */
	SUM_SEG_ZERO_WINDOW = 1u << 3,
	SUM_SEG_SYN = 1u << 4,
	SUM_SEG_FIN = 1u << 5,
	SUM_SEG_RST = 1u << 6,
	SUM_SEG_ACK = 1u << 7,	     /* rel_ack, window and sack[] are valid */
	SUM_SEG_GAP = 1u << 8,	     /* began beyond snd_nxt: bytes before it never captured */
	SUM_SEG_RTT = 1u << 9,	     /* rtt_ns is a sample */
	SUM_SEG_NEW_DATA = 1u << 10, /* reaches beyond snd_nxt (goodput) */
	/* The raw header fields below (for joining two capture points,
	 * analyze/vpair/vpair.h): */
	SUM_SEG_TH_ACK = 1u << 11, /* the ACK flag: seq_ack is valid */
	SUM_SEG_TSVAL = 1u << 12,  /* a timestamps option: tsval is valid */
	SUM_SEG_IPV4 = 1u << 13,   /* IPv4: ip_id is valid */
};

#define SUM_SEG_SACK_MAX 4 /* SACK blocks a segment carries (DEC_MAX_SACK) */

struct sum_seg {
	uint64_t conn;	  /* sum_conn.id */
	int64_t ts;	  /* ns */
	uint32_t len;	  /* payload on the wire */
	uint32_t rel_seq; /* first byte, relative to its direction's base */
	uint32_t wirelen; /* the packet's length on the wire */
	int32_t queue;	  /* RX queue, -1 unknown */
	uint8_t dir;	  /* enum sum_dir_id of its sender */
	uint8_t nsack;	  /* sack[] blocks (SUM_SEG_ACK) */
	uint16_t flags;	  /* enum sum_seg_flag bits */
	/* What it says about the other direction's data, in that direction's
	 * relative sequence (with SUM_SEG_ACK: the other side was seen). */
	uint32_t rel_ack;
	uint32_t sack[SUM_SEG_SACK_MAX][2]; /* [left, right) */
	uint64_t window;		    /* advertised, scaled when known */
	int64_t rtt_ns;			    /* SUM_SEG_RTT: its ACK's RTT sample of that data */
	uint64_t frame;			    /* frame number within its input */
	uint32_t input;
	/* The segment's own header fields, as captured (not relative). */
	uint32_t seq, seq_ack; /* absolute sequence and ACK numbers */
	uint32_t tsval;	       /* SUM_SEG_TSVAL */
	uint16_t ip_id;	       /* SUM_SEG_IPV4 */
	uint16_t mss_opt;      /* the MSS option's value, 0 when none (SYNs) */
	uint8_t ttl;	       /* TTL / hop limit */
	uint8_t tos;	       /* TOS / traffic class: DSCP << 2 | ECN */
};

/* Where the engine delivers results; any callback may be NULL. */
struct sum_sink {
	/* A connection was created with this id (before any event of it). */
	void (*begin)(void *ctx, uint64_t id);
	void (*conn)(void *ctx, const struct sum_conn *c);
	void (*event)(void *ctx, const struct sum_event *e);
	/* Per-frame verdicts (SUM_EV_RETRANS ..): a sink that does not want
	 * them leaves this NULL and the engine builds none. */
	void (*frame)(void *ctx, const struct sum_event *e);
	void (*segment)(void *ctx, const struct sum_seg *s);
	/* An evicted connection's id that will never resume (its key was let
	 * go): a sink that maps ids (analyze/engine/workers.c) drops it. */
	void (*forget)(void *ctx, uint64_t id);
	void *ctx;
};

/* Two sinks as one (the report's and the graphs', cli/cmd_analyze.c):
 * each callback goes to a and then b, where they have it; one neither has
 * stays NULL in sum_tee_sink(), so the engine builds nothing for it
 * (frame verdicts, segments). The tee is borrowed by the sink it returns. */
struct sum_tee {
	struct sum_sink a, b;
};

struct sum_sink sum_tee_sink(const struct sum_tee *t);

/* Deliver an event: the one way the engine and every detector report one
 * (a per-frame verdict goes to sink->frame, the others to sink->event;
 * either may be NULL: not wanted). */
static inline void sum_emit(const struct sum_sink *sink, const struct sum_event *e)
{
	void (*fn)(void *, const struct sum_event *) = NULL;

	if (sink)
		fn = e->type >= SUM_EV_RETRANS && e->type <= SUM_EV_TLP_NEW_DATA ? sink->frame
										 : sink->event;
	if (fn)
		fn(sink->ctx, e);
}

/*
 * Join b, the part of a connection that resumed after an eviction
 * (b->evicted_and_resumed), into a, the part before it (same id, ended
 * earlier): counters add up; minima, maxima and RTT samples combine; the
 * first packet and what the SYNs said come from a, the last packet, the
 * state and whether it was evicted again from b. The detectors' results
 * are b's (their events of both parts were delivered as they came). The
 * result is marked evicted_and_resumed.
 */
void sum_conn_merge(struct sum_conn *a, const struct sum_conn *b);

/* A path of which nothing is known (every member -1). */
void sum_path_unknown(struct sum_path *p);

/* Where the capture point sits for dir's data (enum sum_vantage_side). */
enum sum_vantage_side sum_vantage_side(const struct sum_path *p, unsigned dir);
/* "sender-side", "receiver-side", "middle", "unknown" (JSON values) */
const char *sum_vantage_name(enum sum_vantage_side v);

/*
 * The share of d's segments the network lost, 0..1, or -1 when d sent
 * no data: retransmissions not proven spurious (each stands for one lost
 * transmission, wherever it was lost: a retransmission of bytes lost
 * before the capture point fills their gap and counts among them, and
 * lost_upstream counts those again) over the data segments S sent: those
 * captured plus the originals lost upstream, which never passed here. Gap
 * openings (lost_segments) are not counted: a gap also opens for a late
 * original or a segment the capture itself dropped.
 */
double sum_loss_rate(const struct sum_dir *d);
/* The same over both directions of c: the tables' one column. */
double sum_conn_loss_rate(const struct sum_conn *c);
/* The numerator and denominator of sum_loss_rate(). */
uint64_t sum_lost_segments(const struct sum_dir *d);
uint64_t sum_sent_segments(const struct sum_dir *d);

const char *sum_state_name(enum sum_state s);
const char *sum_dir_name(unsigned dir); /* "c2s", "s2c" */
/* The state's name if it fits width columns, else its short form
 * ("syn", "half", "fin", "rst"): table cells of text and the TUI. */
const char *sum_state_label(enum sum_state s, size_t width);
const char *sum_event_name(enum sum_event_type t);
const char *sum_reorder_by_name(enum sum_reorder_by b);
const char *sum_retrans_kind_name(enum sum_retrans_kind k);
/* Is t a per-frame verdict (delivered through sum_sink.frame)? */
static inline bool sum_event_is_frame(enum sum_event_type t)
{
	return t >= SUM_EV_RETRANS && t <= SUM_EV_TLP_NEW_DATA;
}

#endif
