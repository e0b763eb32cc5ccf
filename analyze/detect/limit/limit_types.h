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
/* limit_dir_state.cls: sender_app with nothing in flight (pending: charged
 * when S sends again). */
#define LIMIT_IDLE (LIMIT_COUNT + 1)

/* One direction's result (struct limit_summary.d[dir]), made when the
 * connection ends from its state (struct limit_count, the slices): 8-byte
 * fields first, no holes. */
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

/* R's cumulative ACK and window at ts (struct limit_far_part.ring). */
struct limit_far {
	int64_t ts;
	uint32_t una, win;
};
#define LIMIT_FAR_RING 6 /* samples a quarter loop apart: a loop and a half */
#define LIMIT_FAR_NONE 0xff

/* The largest window R can advertise: 65535 << 14 (RFC 7323 2.3; tcp.c caps
 * the shift at 14), so a window fits in 32 bits. */
#define LIMIT_RWND_MAX (65535ull << 14)

/* A live direction's counts: struct limit_dir's but the timeline's classes,
 * which limit_finish() makes from the shares (8-byte fields first, no holes). */
struct limit_count {
	int64_t ns[LIMIT_COUNT];
	int64_t t0, width;
	int64_t idle_ns, zero_window_ns;
	int64_t rtt_min_ns, srtt_max_ns;
	uint32_t rwnd_max, rwnd_min_full; /* at most LIMIT_RWND_MAX */
	uint32_t recoveries, idles, stalls, plateau;
};

/* A direction's timeline once its transfer leaves the first slice (pool
 * limit_slices, 192 bytes): until then that slice's time is the direction's
 * totals (limit_count.ns) and nothing else is needed, so a connection that
 * sent a request and went quiet never takes one. */
struct limit_slices {
	int64_t acc[LIMIT_COUNT];		  /* the open slice's time, by class */
	uint8_t share[LIMIT_SLICES][LIMIT_COUNT]; /* closed slices: 255ths of the width */
};

/* A capture away from S (its handshake loop above 20 us and a quarter of
 * the loop to R): what S had in flight when it sent what arrives now is
 * measured against R's ACK and window a loop to S ago, not R's latest (at a
 * receiver-side capture R ACKs what arrives at once, and its flight looks
 * empty). The tail of such a direction's block only (limit_dir_state.far). */
struct limit_far_part {
	int64_t echo_loop; /* the loop to S at least, from S's last two TSecrs */
	int64_t echo_last; /* ... the last one's (0: none) */
	struct limit_far ring[LIMIT_FAR_RING]; /* R's recent ACKs and windows */
};

/* What the detector keeps for one data direction while the connection
 * lives: a pool block each, 248 bytes, 360 with the far tail (by size; the
 * far ring's indices fill the last bytes, which a near block pads anyway). */
struct limit_dir_state {
	struct limit_count out;
	struct limit_slices *slices; /* NULL: still in slice 0, or no memory (out.width 0) */
	int64_t idle_since;	     /* pending sender_app time from here (0: none) */
	int64_t ack_ts;		     /* R's last packet */
	int64_t react_t0;	     /* R's first packet since S's last: S's wait began */
	int64_t react_ns;	     /* time charged since then to react_ns_cls (moved to
					react_cls if S reacts) */
	int64_t ss_max_ts;	     /* when the flight last grew past ss_max */
	int64_t last_iv, prev_iv;    /* the last two intervals accounted (a stall
					decided late moves one of them) */
	int64_t far_loop;	     /* the loop to S when away from it (far[] is there), else 0 */
	/* Time charged to sender_buffer since S's last new data: S's FIN
	 * shows it had nothing more, and it moves to sender_app. */
	int64_t tail_ns;
	/* R's latest ACK emptied the flight: from this capture time on, a
	 * loop later, S knows it (0: not pending; far_loop only). */
	int64_t far_idle_at;
	uint32_t ss_max;		  /* largest flight so far */
	uint32_t recover;		  /* snd_nxt when recovery began (RFC 6582 "recover") */
	uint16_t clocked;		  /* EWMA, 1/256ths: S's bursts that an ACK started (x8) */
	uint8_t nslices;		  /* limit_dir.nslices once slices is taken, else 0 */
	uint8_t react_ns_cls;		  /* react_ns's class; LIMIT_NONE: several classes */
	uint8_t last_iv_cls, prev_iv_cls; /* ... last_iv's and prev_iv's */
	uint8_t cls;			  /* class of the interval from the last packet (LIMIT_NONE,
					     LIMIT_IDLE: sender_app with nothing in flight, pending) */
	uint8_t react_cls;		  /* ... and before R's last packet (S reacting to it) */
	bool zero_window;		  /* cls is receiver_app: R's window is below one segment */
	bool recovering;		  /* in loss recovery: until snd_una passes recover */
	bool cut;			  /* a loss since the flight last filled R's window */
	bool ss_over;		 /* the flight stopped growing once, or a loss: no slow start */
	bool after_ack;		 /* the last packet was R's ACK: S's reaction decides */
	uint8_t far_head, far_n; /* far->ring: the next sample's slot, samples kept */
	uint8_t far_then;	 /* far->ring index limit_far_then() found last, LIMIT_FAR_NONE */
	struct limit_far_part far[]; /* far_loop != 0: one (pool class 1), else none */
};

/* A direction's block: class 0 near S, class 1 away from it (limit.def). */
#define LIMIT_DIR_BYTES(k)    (sizeof(struct limit_dir_state) + (k) * sizeof(struct limit_far_part))
#define LIMIT_SLICES_BYTES(k) sizeof(struct limit_slices)

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
