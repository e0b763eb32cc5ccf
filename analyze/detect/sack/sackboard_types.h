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
 * range between snd_una and the first block or between two blocks, kept
 * with its extent as first seen until una and blocks cover all of it.
 */

#define SACKB_MAX_HOLES	 12 /* open holes tracked per direction; more are counted */
#define SACKB_MAX_BLOCKS (SACKB_MAX_HOLES + 1) /* remembered SACKed ranges per direction */

/* How a hole closed (DESIGN.md "SACK holes"); the values are stable. */
enum sackb_closed_by {
	SACKB_CLOSED_RETRANS = 0, /* a retransmission was seen */
	SACKB_CLOSED_REORDER,	  /* the late original arrived, here or downstream */
	SACKB_CLOSED_OPEN,	  /* never closed before the end */
	SACKB_CLOSED_OTHER,	  /* ACKed without a filling segment seen */
	SACKB_CLOSED_UNDECIDED,	  /* filled by a segment tcp.c could not decide */
	SACKB_CLOSED_COUNT,
};

struct sackb_block {
	uint32_t left, right; /* [left, right) SACKed */
};

struct sackb_hole {
	uint32_t start, end; /* [start, end) as first seen */
	int64_t first_ts;
	uint64_t first_frame;
	uint32_t first_input;
	int64_t fill_ts; /* first filling segment (retransmission or late original) */
	uint64_t fill_frame;
	unsigned passed_capture : 1; /* bytes had been captured: lost downstream */
	unsigned retrans_seen : 1;
	unsigned original_seen : 1;
	unsigned undecided_seen : 1; /* a fill tcp.c could not decide */
};

/* One direction's scoreboard: R's SACK blocks about S's data. */
struct sackb_dir {
	uint32_t nblocks;
	struct sackb_block blocks[SACKB_MAX_BLOCKS];
	uint32_t nholes;
	struct sackb_hole holes[SACKB_MAX_HOLES];
	uint32_t gap_high; /* end of the highest gap ever seen: lower gaps are known */
	bool have_gap_high;
	bool in_recovery;
	int64_t recovery_start;
	uint32_t recovery_high; /* highest SACKed byte of the episode */
	/* Suspected reneging, confirmed only if no ACK passes renege_una
	 * within max(SRTT/2, 10 ms), as Linux's tcp_check_sack_reneging(). */
	bool renege_pending;
	uint32_t renege_una;
	uint64_t renege_bytes;
	int64_t renege_ts;
	uint64_t renege_frame;
	uint32_t renege_input;
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
	uint32_t block_overflow;   /* SACKed ranges not remembered */
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

/* Per-connection detector state (inside struct tcp_conn: fixed size). */
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

/* Totals over a run (analyze/report/det_view.h). */
struct sackb_totals {
	uint64_t holes, reneging, conns;
};

/* "retransmission", "reordering" ...: the names text, JSON and the TUI use. */
const char *sackb_closed_by_name(enum sackb_closed_by b);

#endif
