/* limit_types.h - types of the limit detector: what limited each data direction, and when. */
#ifndef TCPSIFT_LIMIT_TYPES_H
#define TCPSIFT_LIMIT_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/*
 * What held a data direction back (issue 16 part 1; T-RAT's rate-limiting
 * factors, Zhang et al., SIGCOMM 2002; Linux's own account is TCP_INFO's
 * chrono counters, tcpi_busy_time / tcpi_rwnd_limited / tcpi_sndbuf_limited).
 * The values are stable: JSON names them (limit_class_name()).
 */
enum limit_class {
	LIMIT_RECEIVER_WINDOW = 0, /* in flight filled R's fully open window: its buffer */
	LIMIT_CONGESTION,	   /* loss recovery, or cwnd cut by a loss, below R's window */
	LIMIT_SENDER_BUFFER,	   /* flight plateau below both windows, no loss, never idle */
	LIMIT_SENDER_APP,	   /* nothing in flight, window open: nothing to send */
	LIMIT_RECEIVER_APP,	   /* R's window closed or shrunk: its reader is slow */
	LIMIT_STALL,		   /* a TCP-held stall (the stall detector's classes) */
	LIMIT_SLOW_START,	   /* the first RTTs, flight still growing / too short */
	LIMIT_BOTTLENECK,	   /* full flight, no loss, queueing delay: the path */
	LIMIT_COUNT,
};

/*
 * A direction's timeline: LIMIT_SLICES slices of equal width from its first
 * data segment; when the transfer outgrows them, neighbours merge pairwise
 * and the width doubles (as the TUI's and the graphs' timelines do), so the
 * memory stays fixed however long the connection lives.
 *
 *   t0       t0+w      t0+2w                    t0+16w
 *   |  s[0]  |  s[1]  |  ...            | s[15] |   -> outgrown: w *= 2,
 *                                                     s[k] = s[2k] + s[2k+1]
 */
#define LIMIT_SLICES	   16
#define LIMIT_SLICE_MIN_NS (1000000ll) /* the first width: 1 ms */
#define LIMIT_NONE	   LIMIT_COUNT /* a slice without data-transfer time */

/* One direction's result (struct limit_summary.d[dir]); the state keeps
 * one (limit_dir_state.out) for every live direction: 8-byte fields first,
 * no holes. */
struct limit_dir {
	int64_t ns[LIMIT_COUNT]; /* time spent limited by each; their sum: transfer time */
	int64_t t0, width;	 /* slice k covers [t0 + k*width, t0 + (k+1)*width) */
	/* Evidence the text states. */
	int64_t idle_ns;		 /* the idles' time (sender_app with nothing in flight) */
	int64_t zero_window_ns;		 /* time R's window was below one segment */
	uint64_t rwnd_max;		 /* the largest window R advertised */
	uint64_t rwnd_min_full;		 /* smallest window in flight filled (0: never full) */
	int64_t rtt_min_ns, srtt_max_ns; /* queueing: min RTT and largest smoothed RTT */
	uint32_t recoveries;		 /* loss-recovery episodes entered (retransmissions) */
	uint32_t idles;			 /* times the sender went idle between writes */
	uint32_t stalls;		 /* TCP-held stalls counted as stall time */
	uint32_t plateau;		 /* largest in flight while sender_buffer / bottleneck */
	uint8_t nslices;		 /* slices up to the last data-transfer time */
	uint8_t slice[LIMIT_SLICES];	 /* each one's dominant class, LIMIT_NONE: none */
	/* The capture point is away from S (the loop to S and back above
	 * 1 ms and above a quarter of the loop to R: a receiver-side or
	 * middle capture): S's send buffer, application and congestion
	 * window cannot be told apart from here (limit_sender_hidden()). */
	uint8_t sender_hidden; /* 0 or 1 (a byte: summaries are filled wholesale) */
};

/* Per connection: both data directions (by enum sum_dir_id). */
struct limit_summary {
	struct limit_dir d[2];
};

/* R's cumulative ACK and window at ts (struct limit_dir_state.far). */
struct limit_far {
	int64_t ts;
	uint32_t una, win;
};
#define LIMIT_FAR_RING 6 /* samples a quarter loop apart: a loop and a half */
#define LIMIT_FAR_NONE 0xff

/* What the detector keeps for one data direction while the connection
 * lives (a pool block each: by size, then the far group; 576 bytes). */
struct limit_dir_state {
	struct limit_dir out;
	int64_t slice_acc[LIMIT_COUNT];		  /* the current slice's time, by class */
	uint8_t share[LIMIT_SLICES][LIMIT_COUNT]; /* closed slices: 255ths of the width */
	int64_t idle_since;			  /* pending sender_app time from here (0: none) */
	int64_t ack_ts;		  /* R's last ACK advancing snd_una (0: none since S's data) */
	int64_t react_t0;	  /* R's first packet since S's last: S's wait began */
	int64_t react_ns;	  /* time charged since then to react_ns_cls (moved to
				     react_cls if S reacts) */
	int64_t ss_max_ts;	  /* when the flight last grew past ss_max */
	int64_t last_iv, prev_iv; /* the last two intervals accounted (a stall
				     decided late moves one of them) */
	uint32_t ss_max;	  /* largest flight so far */
	uint32_t recover;	  /* snd_nxt when recovery began (RFC 6582 "recover") */
	uint32_t clocked;	  /* EWMA, 1/256ths: S's bursts that an ACK started (x8) */
	uint8_t react_ns_cls;	  /* react_ns's class; LIMIT_NONE: several classes */
	uint8_t last_iv_cls, prev_iv_cls; /* ... last_iv's and prev_iv's */
	uint8_t cls;	   /* class of the interval from the last packet (LIMIT_NONE) */
	uint8_t react_cls; /* ... and before R's last packet (S reacting to it) */
	bool idle;	   /* cls is sender_app with nothing in flight (pending) */
	bool zero_window;  /* ... R's window is below one segment */
	bool recovering;   /* in loss recovery: until snd_una passes recover */
	bool cut;	   /* a loss since the flight last filled R's window */
	bool ss_over;	   /* the flight stopped growing once, or a loss: no slow start */
	bool after_ack;	   /* the last packet was R's ACK: S's reaction decides */
	/* A capture away from S (its handshake loop above 20 us and a
	 * quarter of the loop to R): what S had in flight when it sent what
	 * arrives now is measured against R's ACK and window a loop to S
	 * ago, not R's latest (at a receiver-side capture R ACKs what arrives
	 * at once, and its flight looks empty). far[]: R's recent ACKs and
	 * windows, a ring. */
	int64_t far_loop;  /* the loop to S when away from it, else 0 (limit_start()) */
	int64_t echo_loop; /* away from S: the loop to S at least, from S's last two TSecrs */
	int64_t echo_last; /* ... the last one's (0: none) */
	/* R's latest ACK emptied the flight: from this capture time on, a
	 * loop later, S knows it (0: not pending). */
	int64_t far_idle_at;
	uint8_t far_head, far_n;
	uint8_t far_then; /* far[] index limit_far_then() found last, LIMIT_FAR_NONE */
	struct limit_far far[LIMIT_FAR_RING];
};

/* A direction's block (limit.def's DET_POOLS, one class). */
#define LIMIT_DIR_BYTES(k) sizeof(struct limit_dir_state)

/* Per-connection state (DET_COLD: taken on the first data segment). A
 * direction's part comes from its own pool when it first sends data: a
 * connection that carried data one way (a request not answered yet) holds
 * one. */
struct limit_state {
	struct limit_dir_state *d[2]; /* NULL: S has sent no data (or no memory) */
	int64_t last_ts;	      /* the last packet of the connection */
	int64_t stall_time;	      /* the stall detector's total when last looked at */
	uint32_t stall_total;	      /* ... its count */
	uint32_t stall_counted;	      /* ... and its count of the classes counted as stall */
	uint8_t last_data_dir;	      /* who sent the last data segment */
};

/* Totals over a run (analyze/report/det_view.h): directions by dominant limit. */
struct limit_totals {
	uint64_t dirs[LIMIT_COUNT];
	int64_t ns[LIMIT_COUNT];
};

/* "receiver_window", "congestion" ...: the names JSON, text and the TUI use. */
const char *limit_class_name(enum limit_class c);
/* Its words for people: "receiver window", "sender buffer" ... */
const char *limit_class_words(enum limit_class c);
/* The class with the most time in d (ties: the lower value), LIMIT_NONE if none. */
enum limit_class limit_dominant(const struct limit_dir *d);
/* The classes only S itself can tell apart (send buffer, application,
 * congestion window in slow start), when the capture is away from it. */
bool limit_sender_class(enum limit_class k);
/* Has d any data-transfer time? */
bool limit_dir_known(const struct limit_dir *d);

#endif
