/* reorder_types.h - types of the reordering / queue detector. */
#ifndef TCPSIFT_REORDER_TYPES_H
#define TCPSIFT_REORDER_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Per direction, the queues of the last REORDER_QRING data segments, indexed
 * by the direction's data-segment count (tcp_half.st.data_packets, TCP_COUNT()), so that
 * a late segment can be compared with the segments that overtook it:
 *
 *   data segment #   ... n-3  n-2  n-1   n
 *   queue            ...  1    0    0    1   <- n is late, extent 2:
 *                                             n-2 and n-1 overtook it on
 *                                             queue 0: reordering across queues
 */
#define REORDER_QRING	  64  /* overtakers remembered (extent beyond: the last 64) */
#define REORDER_QMASK_MAX 64u /* queue ids counted exactly in queues_used */

struct reorder_dir_state {
	/* Queues are stored + 1 so that the zeroed state (tcp_conn_init) means
	 * "unknown" without an init hook. */
	uint16_t qring[REORDER_QRING]; /* queue + 1 of data segment k at [k % REORDER_QRING] */
	uint32_t last_queue;	       /* queue + 1 of the last data segment, 0 unknown */
	uint32_t queue_switches;       /* consecutive data segments on different queues */
};

struct reorder_state {
	struct reorder_dir_state dir[2];
	uint64_t queue_mask;  /* bit q: a data segment arrived on queue q */
	bool queues_known;    /* some data segment carried a queue id */
	bool queues_overflow; /* a queue id >= REORDER_QMASK_MAX (or >= 65535: ring stores unknown)
			       */
	int32_t queue_min, queue_max; /* range of queue ids seen on data segments */
	uint32_t events;	      /* out-of-order segments (reorder events emitted) */
	uint32_t max_extent;	      /* RFC 5236 extent, in segments */
	uint32_t on_switch;	      /* reorder events that coincide with a queue switch */
	uint32_t switch_unknown;      /* reorder events whose queues were unknown */
	uint32_t ack_reordering;      /* cumulative ACKs that went backwards (both sides) */
};

/*
 * The detector's result for one connection. queue_* fields are meaningful
 * only when queues_known (pcapng epb_queue or --queue-per-file).
 */
struct reorder_summary {
	uint32_t events;	 /* out-of-order data segments, both directions */
	uint32_t max_extent;	 /* largest RFC 5236 extent: segments that overtook one */
	uint32_t queues_used;	 /* distinct queues its data segments arrived on */
	uint32_t queue_switches; /* consecutive data segments (one direction) on different queues */
	uint32_t reorder_on_queue_switch; /* reordering across queues */
	uint32_t ack_reordering;	  /* cumulative ACKs that went backwards */
	bool queues_known;		  /* queue ids were present */
	int32_t queue_min, queue_max;	  /* range of queues used (-1 when unknown) */
	uint32_t switch_unknown;	  /* reorder events with no queue id to compare */
};

/* Totals over a run (analyze/report/det_view.h). */
struct reorder_totals {
	uint64_t events, across_queues, ack_reordering;
};

#endif
