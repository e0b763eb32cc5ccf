/* stall_types.h - types of the stall detector: per-connection state, summary, event detail. */
#ifndef TCPSIFT_STALL_TYPES_H
#define TCPSIFT_STALL_TYPES_H

#include <stdint.h>

/* Stall classes (DESIGN.md "Stalls"). */
enum stall_class {
	STALL_DELAYED_ACK = 0,
	STALL_SENDER_IDLE,
	STALL_ZERO_WINDOW,
	STALL_RTO,
	STALL_UNKNOWN,
	STALL_CLASS_COUNT,
};

/* Duration histogram buckets (ms upper bounds; last is open-ended). */
#define STALL_HIST_BUCKETS 8

/* Per-connection detector state (inside struct tcp_conn: fixed size). */
struct stall_state {
	int64_t last_ts; /* last packet of the connection */
	uint64_t last_frame;
	uint8_t last_dir;
	unsigned have_last : 1;
};

/* Per-connection result, copied into the connection summary. */
struct stall_summary {
	uint32_t count;
	int64_t time_ns; /* total time lost in stalls */
	uint32_t by_class[STALL_CLASS_COUNT];
	uint32_t hist[STALL_HIST_BUCKETS];
	int64_t max_ns;
};

/* Detail of a "stall" event (struct sum_event.u.stall). */
struct stall_event {
	uint8_t cls;	    /* enum stall_class */
	const char *reason; /* static string: one line a kernel engineer accepts */
	uint32_t in_flight;
	uint64_t rwnd;	      /* receiver's window at the start (scaled if known) */
	int64_t ack_delay_ns; /* delayed_ack: how long R held the ACK, else -1 */
};

#endif
