/* sackboard_types.h - types of the SACK scoreboard detector (holes, D-SACK, reneging). */
#ifndef TCPSIFT_SACKBOARD_TYPES_H
#define TCPSIFT_SACKBOARD_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/*
 * One direction's scoreboard, as S would keep it from R's ACKs (RFC 6675):
 *
 *     snd_una
 *   ----|  hole  |==block==|  hole  |==block==|---->  S's sequence space
 *        [start,end)        [start,end)
 *
 * Blocks are the SACKed ranges above snd_una (merged, sorted); a hole is a
 * range R has neither cumulatively ACKed nor SACKed. It never spans a
 * block: a block that lands inside a hole splits it in two (RFC 6675
 * sec. 3, the scoreboard's holes are the un-SACKed ranges). The cumulative
 * ACK moving into a hole is the repair's progress: those bytes stay in it.
 *
 * The tables grow on demand: one block of memory per direction holds cap
 * holes then cap blocks, taken from the detector's size-class pools
 * (DET_POOLS in sack.def) on the first gap or block, doubled from
 * SACKB_TAB_MIN up to SACKB_MAX_HOLES, and given back when the connection
 * ends. A connection that never SACKs takes none (not even the cold
 * state), one whose R SACKs a few ranges at a time the smallest.
 */

/* Holes tracked per direction, and SACKed ranges remembered: more are counted. */
#define SACKB_MAX_HOLES	  512
#define SACKB_TAB_MIN	  8 /* entries of a direction's first table */
#define SACKB_TAB_CLASSES 7 /* SACKB_TAB_MIN << 6 == SACKB_MAX_HOLES */

/* How a hole closed (DESIGN.md "SACK holes"); the values are stable. */
enum sackb_closed_by {
	SACKB_CLOSED_RETRANS = 0, /* a retransmission was seen */
	SACKB_CLOSED_REORDER,	  /* the late original arrived, here or downstream */
	SACKB_CLOSED_OPEN,	  /* never closed before the end */
	SACKB_CLOSED_OTHER,	  /* ACKed without a filling segment seen */
	SACKB_CLOSED_UNDECIDED,	  /* filled by a segment tcp.c could not decide */
	SACKB_CLOSED_COUNT,
};

/* What kind of segment filled part of a hole (tcp.c's decision). */
enum sackb_fill {
	SACKB_FILL_RETRANS = 0, /* TCP_SEG_RETRANS */
	SACKB_FILL_ORIGINAL,	/* TCP_SEG_OOO, or new data beyond snd_nxt */
	SACKB_FILL_UNDECIDED,	/* TCP_SEG_UNDECIDED */
	SACKB_FILL_COUNT,
};

/* A sequence range [lo, hi); empty when lo == hi. */
struct sackb_range {
	uint32_t lo, hi;
};

struct sackb_block {
	uint32_t left, right; /* [left, right) SACKed */
};

struct sackb_hole {
	uint32_t start, end; /* [start, end): not SACKed (bytes below snd_una stay) */
	/* The hull of its bytes this capture had not seen when R reported the
	 * hole (or could not tell): empty, the bytes had passed the capture
	 * point and were lost downstream of it. A piece of a split hole keeps
	 * the part of the hull inside it. */
	struct sackb_range unseen;
	struct sackb_range fill[SACKB_FILL_COUNT]; /* hull of the fills of each kind */
	int64_t first_ts;
	uint64_t first_frame;
	uint32_t first_input;
	int64_t fill_ts; /* first filling segment (retransmission or late original) */
	uint64_t fill_frame;
};

/* One direction's scoreboard: R's SACK blocks about S's data. */
struct sackb_dir {
	/* (Fields by size, largest first: no holes, 80 bytes, not 96.) */
	struct sackb_hole *holes;   /* [cap], NULL until needed */
	struct sackb_block *blocks; /* [cap], in the same block of memory as holes */
	int64_t recovery_start;
	/* Suspected reneging (renege_pending), confirmed only if no ACK
	 * passes renege_una within max(SRTT/2, 10 ms), as Linux's
	 * tcp_check_sack_reneging(). */
	uint64_t renege_bytes;
	int64_t renege_ts;
	uint64_t renege_frame;
	uint32_t renege_input;
	uint32_t renege_una;
	/* The blocks table was full at SACKB_MAX_HOLES (capped): SACKed
	 * ranges at or above horizon are not remembered, so gaps there are
	 * counted, not tracked (a gap could span a range R SACKed and no
	 * longer reports), until snd_una reaches horizon. Every tracked hole
	 * ends below it. */
	uint32_t horizon;
	uint32_t gap_high;	/* end of the highest gap ever seen: lower gaps are known */
	uint32_t recovery_high; /* highest SACKed byte of the episode */
	uint16_t cap, nholes, nblocks;
	bool have_gap_high;
	bool in_recovery;
	bool capped;
	bool renege_pending;
};

/* Per-connection result, copied into the connection summary. */
struct sackb_summary {
	uint32_t holes; /* tracked holes (both directions) */
	uint64_t hole_bytes;
	uint64_t max_hole_bytes_outstanding; /* max bytes missing in holes at one ACK */
	uint32_t by_closed[SACKB_CLOSED_COUNT];
	uint32_t reordered_downstream; /* of by_closed[REORDER]: after the capture point */
	uint32_t lost_downstream, lost_upstream;
	uint32_t dsack, reneging;
	uint64_t reneged_bytes;
	uint32_t recoveries; /* episodes: first hole until the ACK passes the highest SACK */
	int64_t recovery_time_ns;
	int64_t recovery_max_ns;
	uint32_t overflow;	   /* holes not tracked: the table was full */
	uint32_t block_overflow;   /* SACKed ranges not remembered (the table was full) */
	uint32_t invalid_blocks;   /* blocks with left >= right or far out of the window */
	uint32_t open_at_end_dirs; /* directions still in recovery at the end */
};

/*
 * Read for every segment (inside struct tcp_conn's det_hot, see tcp.h):
 * active[dir] is set while dir's scoreboard holds anything (blocks, holes,
 * a suspected reneging, an open recovery episode). Most connections never
 * SACK, so most segments then need nothing from struct sackb_state.
 */
struct sackb_hot {
	bool active[2]; /* by enum sum_dir_id */
};

/* Per-connection detector state (DET_COLD: taken on the first ACK with a
 * SACK block or a D-SACK; its tables from the DET_POOLS on the first gap
 * or block). */
struct sackb_state {
	struct sackb_dir dir[2];
	struct sackb_summary sum;
};

/* Detail of a "sack_hole" event. */
struct sackb_event {
	uint32_t segments;
	uint8_t closed_by; /* enum sackb_closed_by */
	uint8_t passed_capture;
	bool downstream;    /* closed_by reordering: it happened after the capture point */
	const char *reason; /* static string: what decided closed_by */
};

/* Bytes of a table of class k (sack.def's DET_POOLS): holes then blocks. */
#define SACKB_TAB_BYTES(k)                                                                         \
	((size_t)(SACKB_TAB_MIN << (k)) * (sizeof(struct sackb_hole) + sizeof(struct sackb_block)))

/* Totals over a run (analyze/report/det_view.h). */
struct sackb_totals {
	uint64_t holes, reneging, conns;
};

/* "retransmission", "reordering" ...: the names text, JSON and the TUI use. */
const char *sackb_closed_by_name(enum sackb_closed_by b);

#endif
