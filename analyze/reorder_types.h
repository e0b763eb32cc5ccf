/* reorder_types.h - types of the reordering / queue detector. */
#ifndef TCPSIFT_REORDER_TYPES_H
#define TCPSIFT_REORDER_TYPES_H

#include <stdint.h>

struct reorder_state {
	int32_t last_queue[2]; /* queue of the last data segment each way, -1 unknown */
	uint32_t max_extent;
};

struct reorder_summary {
	uint32_t events;
	uint32_t max_extent;
	uint32_t queues_used;
	uint32_t queue_switches;
	uint32_t reorder_on_queue_switch; /* reordering across queues */
	uint32_t ack_reordering;
};

#endif
