/* counters.h - what the engine counts over a run: the numbers reporters print. */
#ifndef TCPSIFT_COUNTERS_H
#define TCPSIFT_COUNTERS_H

#include <stdint.h>

#include "analyze/engine/decode.h"

/*
 * Plain numbers the engine (engine.c) and its flow table (flow.c) keep,
 * apart from their headers so that reporters, which print them, need
 * nothing else of the engine (scripts/check-layers.sh).
 */

enum flow_end {
	FLOW_END_DONE = 0, /* end of input */
	FLOW_END_IDLE,	   /* no packet for idle_timeout */
	FLOW_END_EVICTED,  /* table full: the least recently used went */
	FLOW_END_REUSED,   /* a new SYN on the same 4-tuple started a new instance */
	FLOW_END_CLOSED,   /* closed (FIN both ways or RST) and quiet for closed_linger */
	FLOW_END_COUNT,
};

struct flow_counters {
	uint64_t created;
	uint64_t ended[FLOW_END_COUNT];
	uint32_t live, max_live;
};

struct eng_counters {
	uint64_t packets;		   /* everything handed to eng_packet */
	uint64_t wire_bytes;		   /* sum of wire lengths */
	uint64_t status[DEC_STATUS_COUNT]; /* decoded, by enum dec_status */
	uint64_t malformed[DEC_ERR_COUNT]; /* rejected, by -enum dec_status */
	uint64_t malformed_total;
	uint64_t snaplen_cut;	  /* TCP segments whose payload the snaplen cut */
	uint64_t bad_tcp_options; /* TCP option areas that ran past the header */
	uint64_t ts_backwards;	  /* packets older than the one before (never assume order) */
	uint64_t no_memory;	  /* TCP packets dropped: no memory for their connection */
	uint64_t other_shards;	  /* left to the other shards of --shard K/N, in no count above */
	int64_t first_ts, last_ts;
};

#endif
