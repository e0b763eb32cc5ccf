/* sackboard_types.h - types of the SACK scoreboard detector (holes, D-SACK, reneging). */
#ifndef TCPSIFT_SACKBOARD_TYPES_H
#define TCPSIFT_SACKBOARD_TYPES_H

#include <stdint.h>

#define SACKB_MAX_HOLES 32 /* holes tracked per direction; more are counted */

/* How a hole closed (DESIGN.md "SACK holes"). */
enum sackb_closed_by {
	SACKB_CLOSED_RETRANS = 0, /* a retransmission was seen */
	SACKB_CLOSED_REORDER,	  /* the late original arrived */
	SACKB_CLOSED_OPEN,	  /* never closed before the end */
	SACKB_CLOSED_OTHER,	  /* ACKed without a filling segment seen */
	SACKB_CLOSED_COUNT,
};

struct sackb_hole {
	uint32_t start, end;
	int64_t first_ts;
	uint64_t first_frame;
	uint32_t segments;
	unsigned passed_capture : 1; /* bytes had been captured: lost downstream */
};

/* One direction's scoreboard: R's SACK blocks about S's data. */
struct sackb_dir {
	uint32_t nholes;
	struct sackb_hole holes[SACKB_MAX_HOLES];
	uint32_t overflow;
	int64_t recovery_start; /* 0: not in a recovery episode */
};

struct sackb_state {
	struct sackb_dir dir[2];
};

struct sackb_summary {
	uint32_t holes;
	uint64_t max_hole_bytes_outstanding;
	uint32_t by_closed[SACKB_CLOSED_COUNT];
	uint32_t lost_downstream, lost_upstream;
	uint32_t dsack, reneging;
	uint32_t recoveries;
	int64_t recovery_time_ns;
	uint32_t overflow;
};

/* Detail of a "sack_hole" event. */
struct sackb_event {
	uint32_t segments;
	uint8_t closed_by; /* enum sackb_closed_by */
	uint8_t passed_capture;
};

#endif
