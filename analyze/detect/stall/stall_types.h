/* stall_types.h - types of the stall detector: per-connection state, summary, event detail. */
#ifndef TCPSIFT_STALL_TYPES_H
#define TCPSIFT_STALL_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/* Stall classes (DESIGN.md "Stalls"); the values are stable. */
enum stall_class {
	STALL_DELAYED_ACK = 0, /* waited for an ACK the receiver delayed, window open */
	STALL_SENDER_IDLE,     /* held data it had (no PSH mid-write), or a timer-like pause */
	STALL_ZERO_WINDOW,     /* the receiver's window was below one segment */
	STALL_RTO,	       /* ended by a retransmission after an RTO-length silence */
	STALL_UNKNOWN,	       /* TCP held data, but the evidence names no cause */
	STALL_RWND_LIMITED,    /* in flight filled the receiver's window (a slow reader) */
	STALL_TLP,	       /* ended by a tail-loss probe (RFC 8985) */
	STALL_LOSS_RECOVERY,   /* ended by a retransmission R's dup ACKs / SACKs asked for */
	STALL_CLASS_COUNT,
};

/*
 * Duration histogram. Bucket k holds stalls of [edge[k], edge[k+1]) ms, the
 * last one is open-ended. The edges keep the two Linux timer clusters in
 * buckets of their own: 30-60 ms holds the 40 ms delayed-ACK minimum
 * (TCP_DELACK_MIN, HZ/25) and 150-250 ms the 200 ms timers (TCP_DELACK_MAX,
 * TCP_RTO_MIN, the TCP_CORK ceiling).
 *
 *   ms:  0    30    60    150    250    500    1000    3000
 *        | <30 |  40  | 60+ | 200  | 250+ | 500+ |  1s+  |  3s+ ...
 */
#define STALL_HIST_BUCKETS  8
#define STALL_HIST_DELACK40 1 /* bucket of the 40 ms cluster */
#define STALL_HIST_TIMER200 3 /* bucket of the 200 ms cluster */
#define STALL_HIST_EDGES_MS                                                                        \
	{                                                                                          \
		0, 30, 60, 150, 250, 500, 1000, 3000                                               \
	}

#define STALL_TIMER_RING 4 /* recent timer-length pauses compared for recurrence */

/* What the detector keeps about one data direction (S = that direction's
 * sender), as it stood after the last packet: the start of a gap. Read or
 * written for every packet, so it lives in struct stall_hot. */
struct stall_dir_state {
	/* Taken by stall_before() only when the packet may end a gap. */
	uint64_t rwnd;	    /* R's advertised window (scaled when known) */
	uint32_t in_flight; /* snd_nxt - snd_una */
	uint32_t rel_una;   /* snd_una relative to S's ISN / first sequence */
	/* Kept after every packet. */
	int64_t last_data_ts;
	int64_t last_tx_ts; /* S's last packet of any kind */
	uint32_t last_len;  /* payload of S's last new data segment */
	uint32_t mss;	    /* effective segment size of S's data */
	uint16_t last_ipid; /* IPv4 ID of S's last packet (taken by stall_before()) */
	bool ipid_single;   /* S's last data segment was one segment at most */
	bool rwnd_known;    /* (with rwnd: here, with the flags, to pack them) */
	bool has_data;	    /* S has sent data */
	bool last_push;	    /* S's last new data segment carried PSH (or FIN) */
	bool r_answered;    /* R sent data after S's last data segment */
	/* A zero-window stall spans probes and zero-window ACKs: it is open
	 * from the first gap with R's window closed until the window update
	 * (its start: struct stall_zw). */
	bool zw_open;
};

/* A stall as classified, before it becomes an event (stall_classify.c). */
struct stall_found {
	const char *reason, *evidence, *advice; /* static strings; advice may be NULL */
	int64_t start, duration, ack_delay;
	uint64_t frame_before, frame_after, rwnd;
	uint32_t input, in_flight, rel_una;
	enum stall_class cls;
	uint8_t dir; /* enum sum_dir_id */
	bool timer_like;
	bool recurring; /* known to repeat a recent length (already remembered) */
};

/* Per-connection state read or written for every packet (inside struct
 * tcp_conn's det_hot, next to the segment record: see tcp.h). */
struct stall_hot {
	int64_t last_ts; /* latest packet time of the connection */
	uint64_t last_frame;
	uint32_t last_input;
	uint8_t last_dir; /* enum sum_dir_id of the latest packet */
	bool have_last;
	/* Bits: the header fits 24 bytes, d[] starts at the next 8 (the
	 * struct is 120 bytes, not 128: tcp_conn's size, every live one). */
	bool dack_open : 1;	     /* see stall_state.dack_* */
	bool probe_open : 1;	     /* see stall_state.probe */
	bool zw_wait_open : 1;	     /* see stall_state.zw_wait */
	struct stall_dir_state d[2]; /* by enum sum_dir_id */
};

/* The start of an open zero-window stall of one data direction. */
struct stall_zw {
	uint32_t in_flight, rel_una;
	uint64_t rwnd;
	int64_t start;
	uint64_t frame;
	uint32_t input;
	bool probe_data; /* S ended the silence with a window probe carrying data */
};

/*
 * Per-connection result, copied into the connection summary. count,
 * time_ns, by_class and max_ns cover the stalls the evidence proves; the
 * timer-like pauses at turn boundaries (ambiguous on the wire: a kernel
 * timer or an application's own) are counted apart; the histogram holds
 * both.
 */
struct stall_summary {
	/* (The 8-byte fields first, then the 4-byte ones: no holes, 144
	 * bytes, not 160.) */
	int64_t time_ns; /* total time lost in stalls */
	int64_t max_ns;
	/* delayed_ack stalls: how long R held the ACK (their count below). */
	int64_t ack_delay_min_ns, ack_delay_max_ns, ack_delay_sum_ns;
	int64_t timer_like_ns; /* timer-like pauses' total length */
	int64_t think_time_ns; /* think time's total length */
	uint32_t count;
	uint32_t ack_delay_n;
	uint32_t timer_like;   /* timer-like pauses at a turn boundary (ambiguous) */
	uint32_t recurring;    /* stalls >= ~200 ms matching the length of a recent one */
	uint32_t capture_gaps; /* silences the capture made: packets missing in them */
	uint32_t think_time;   /* pauses judged application think time (not stalls) */
	uint32_t by_class[STALL_CLASS_COUNT];
	uint32_t hist[STALL_HIST_BUCKETS];
};

/* What only zero windows and loss probes need: 280 of a stall state's 560
 * bytes, which most connections with gaps never use (their own pool
 * block, taken by the first: stall_rare_get()). */
struct stall_rare {
	struct stall_zw zw[2]; /* by enum sum_dir_id, valid while d[].zw_open */

	/* A gap ended with S's new data the engine took for a loss probe
	 * (TCP_SEG_TLP). A probe is one segment (Linux's
	 * tcp_send_loss_probe() sends one, then waits for an ACK or the RTO):
	 * if the connection's next packet is more new data from S, S's
	 * application wrote it, think time. Decided on that packet; valid
	 * while stall_hot.probe_open. */
	struct stall_found probe;

	/* A gap with R's window closed to a sender that held nothing
	 * visible, ended by R's window update: a zero-window stall if S's next
	 * packet is new data within one loop to S of the update (zw_wait_ts).
	 * Valid while stall_hot.zw_wait_open. */
	struct stall_found zw_wait;
	int64_t zw_wait_ts;
};
#define STALL_RARE_BYTES(k) sizeof(struct stall_rare)

/* Per-connection state touched only when a gap or a stall is being decided
 * (DET_COLD: taken when the first one is, so a connection without gaps has
 * none). */
struct stall_state {
	/* The counts so far (det_finish() hands them out as the result). */
	struct stall_summary sum;

	struct stall_rare *rare; /* NULL until the first zero window or probe */

	/* A gap ended with a pure ACK from R: a delayed_ack stall only if S
	 * sends new data right after it (decided on S's next packet). Valid
	 * while stall_hot.dack_open. (The 4- and 1-byte fields together, as
	 * in struct stall_summary: no holes, 280 bytes, not 312.) */
	uint32_t dack_in_flight, dack_rel_una, dack_last_len;
	uint32_t dack_acked; /* bytes the ACK ending the gap covered */
	uint32_t dack_input;
	uint8_t dack_dir;
	/* Lengths of the last timer-like pauses (>= ~200 ms, timer_len below):
	 * timers repeat. */
	uint8_t timer_head, timer_n;
	uint64_t dack_rwnd;
	uint64_t dack_win_drop; /* how much smaller R's window in that ACK was */
	int64_t dack_start, dack_ack_ts, dack_delay;
	uint64_t dack_frame_before, dack_frame_ack;
	int64_t timer_len[STALL_TIMER_RING];

	/* Each sender's pace: its last pause between two full segments that
	 * was its own rate (think time or pacing), from one transmission to
	 * the next; 0 until one (stall_note_pace()). */
	int64_t pace_ns[2]; /* by enum sum_dir_id */
};

/* Detail of a "stall" event (struct sum_event.u.stall). */
struct stall_event {
	uint8_t cls;	      /* enum stall_class */
	const char *reason;   /* static string: one line a kernel engineer accepts */
	const char *evidence; /* static string: what on the wire decided it */
	const char *advice;   /* static string, or NULL when the evidence supports none */
	uint32_t in_flight;
	uint64_t rwnd;	      /* receiver's window at the start (scaled if known) */
	int64_t ack_delay_ns; /* delayed_ack: how long R held the ACK, else -1 */
	bool timer_like;      /* a turn-boundary pause with a kernel timer's signature */
	bool recurring;	      /* same length (+-2 %) as a recent timer-length stall */
};

/* Totals over a run (analyze/report/det_view.h): stalls the evidence
 * proves, apart from the timer-like pauses. */
struct stall_totals {
	uint64_t count, by_class[STALL_CLASS_COUNT], conns;
	int64_t time_ns;
	uint64_t timer_like, think, capture_gaps;
	int64_t timer_like_ns, think_ns;
	uint64_t c40, c200; /* stalls and pauses near 40 ms / 200 ms (the histogram's clusters) */
};

/* "delayed_ack", "sender_idle" ...: the names text, JSON and the TUI use. */
const char *stall_class_name(enum stall_class c);

#endif
