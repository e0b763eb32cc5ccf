/* ackpat_types.h - types of the ACK-pattern detector: how a receiver ACKs a bulk transfer. */
#ifndef TCPSIFT_ACKPAT_TYPES_H
#define TCPSIFT_ACKPAT_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/*
 * For each data direction, the receiver's pure ACKs that advanced the
 * cumulative ACK during bulk transfer, each by how many full-size segments
 * it newly covered (its bytes / the full segment size, rounded; at least
 * 1), in three buckets:
 *
 *   segments an ACK covered    1               2          3 or more
 *   pattern                    every_segment   delayed    stretch
 *
 * The pattern of a set of ACKs is the bucket holding at least
 * ACKPAT_MAJORITY_PCT % of them, else mixed; fewer than ACKPAT_MIN_ACKS
 * ACKs have none (ACKPAT_NONE). Over time: the counted ACKs in slices of
 * ACKPAT_SLICE, each slice classified alone, consecutive slices of one
 * pattern joined into a phase; the first ACKPAT_PHASES phases are kept.
 */
#define ACKPAT_MAJORITY_PCT 75u
#define ACKPAT_MIN_ACKS	    20u
#define ACKPAT_SLICE	    64u
#define ACKPAT_PHASES	    4u
/* An event needs the counted ACKs to be at least 1 / ACKPAT_EVENT_SHARE of
 * the advancing pure ACKs considered (counted + excluded). */
#define ACKPAT_EVENT_SHARE 3u
/* Linux's TCP_MAX_QUICKACKS: the ACKs a receiver sends at once, not
 * delayed, on entering quick-ACK mode (tcp_incr_quickack()). */
#define ACKPAT_QUICKACKS 16u
/* Linux re-enters quick-ACK mode when data comes after a silence longer
 * than its RTO (tcp_event_data_recv(): m > icsk_rto): at least TCP_RTO_MIN. */
#define ACKPAT_IDLE_NS (200ll * 1000000ll)
/* Data segments further apart than this are not bulk: Linux's delayed-ACK
 * timer (TCP_ATO_MIN, 40 ms) would ACK each of them alone, whatever the
 * receiver's policy. Half of it. */
#define ACKPAT_SPARSE_NS (20ll * 1000000ll)

enum ackpat_class {
	ACKPAT_NONE = 0,      /* too few ACKs to tell */
	ACKPAT_EVERY_SEGMENT, /* 1 segment an ACK: TCP_QUICKACK, splice one skb a call */
	ACKPAT_DELAYED,	      /* 2: RFC 1122 4.2.3.2 / RFC 5681 4.2, Linux's delayed ACK */
	ACKPAT_STRETCH,	      /* 3 or more: GRO/LRO at the receiver, ACK thinning on the path */
	ACKPAT_MIXED,	      /* no bucket holds the majority */
	ACKPAT_CLASS_COUNT,
};

/* Counted ACKs: how many, what they covered. */
struct ackpat_tally {
	uint32_t acks;
	uint32_t n[3];	   /* ACKs that covered 1, 2, 3+ segments */
	uint32_t max_segs; /* the most segments one ACK covered */
	uint64_t bytes;	   /* bytes they newly covered */
	int64_t first_ts, last_ts;
	uint64_t first_frame, last_frame;
	uint32_t first_input, last_input;
};

/* A run of slices of one pattern (its pattern: phase_cls[] next to it);
 * its frames are of input `input`, the first's. */
struct ackpat_phase {
	uint64_t bytes;
	int64_t first_ts, last_ts;
	uint64_t first_frame, last_frame;
	uint32_t acks;
	uint32_t input;
};

/* One data direction's state: c->det.ackpat_c2s for the client's data
 * (DET_COLD: taken once the receiver is past its first quick-ACK phase,
 * ackpat.c start(), so most connections have none). */
struct ackpat_state {
	struct ackpat_tally all, slice;
	struct ackpat_phase phase[ACKPAT_PHASES];
	uint8_t phase_cls[ACKPAT_PHASES]; /* enum ackpat_class of phase[k] */
	uint8_t nphases;
	uint8_t last_cls; /* pattern of the latest phase not kept (phases_more) */
	bool seen_data;
	bool have_short_end, have_win;
	uint32_t phases_more; /* phases after the first ACKPAT_PHASES (not kept) */
	uint32_t seg_size;    /* full-size segment: largest payload not above the MSS */
	uint32_t short_end;   /* end of the last data segment shorter than seg_size */
	uint32_t push_end;    /* end of the last data segment with PSH */
	uint32_t push_acks;   /* counted ACKs ending exactly at a PSH segment */
	uint64_t max_win;     /* the largest window R advertised in an advancing ACK */
	uint32_t quick_left;  /* ACKs still presumed quick-ACK mode */
	uint32_t excluded;    /* advancing pure ACKs not counted (quick, short, sparse) */
	int64_t last_data_ts;
	bool sparse; /* the last data segment came > ACKPAT_SPARSE_NS after the one before */
};

/* A data direction's result. */
struct ackpat_dir_summary {
	uint8_t cls;	      /* enum ackpat_class; ACKPAT_NONE: nothing to say */
	uint8_t nphases;      /* phase[] entries */
	uint32_t seg_size;    /* bytes of a full-size segment (0: unknown) */
	uint32_t excluded;    /* advancing pure ACKs left out (quick-ACK, short, sparse) */
	uint32_t push_acks;   /* counted ACKs ending exactly at a PSH segment */
	uint32_t phases_more; /* phases not kept */
	struct ackpat_tally all;
	struct ackpat_phase phase[ACKPAT_PHASES];
	uint8_t phase_cls[ACKPAT_PHASES];
};

struct ackpat_summary {
	struct ackpat_dir_summary dir[2];
};

/* Detail of an "ack_pattern" event (struct sum_event.u.ackpat): the
 * direction's result in short; the event's frames and times are the
 * longest phase of its pattern. */
struct ackpat_event {
	uint8_t cls;	     /* ACKPAT_EVERY_SEGMENT or ACKPAT_STRETCH */
	uint32_t acks;	     /* counted ACKs of the direction */
	uint32_t n[3];	     /* ... covering 1, 2, 3+ segments */
	uint32_t seg_size;   /* bytes of a full-size segment */
	uint32_t max_segs;   /* most segments one ACK covered */
	uint32_t phase_acks; /* ACKs of the phase the event spans */
	uint32_t push_acks;  /* counted ACKs answering a PSH segment */
	uint64_t oversize;   /* data frames larger than the MSS the capture shows */
	const char *advice;  /* static string */
};

/* Totals over a run (analyze/report/det_view.h). */
struct ackpat_totals {
	uint64_t events;		   /* ack_pattern events */
	uint64_t dirs[ACKPAT_CLASS_COUNT]; /* data directions by dominant pattern */
};

/* "every_segment", "delayed", "stretch", "mixed" (NULL for ACKPAT_NONE). */
const char *ackpat_class_name(enum ackpat_class c);
/* The pattern of ACKs counted in n[0..2] (1, 2, 3+ segments). */
enum ackpat_class ackpat_classify(const uint32_t n[3]);

#endif
