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
	uint64_t created; /* connections (ids); a resumed one is not created again */
	uint64_t ended[FLOW_END_COUNT];
	uint64_t resumed;	  /* evicted connections that came back with their id */
	uint64_t evicted_packets; /* packets of evicted connections dropped: no room to resume */
	uint64_t forgotten;	  /* evicted keys overwritten in the bounded memory of them */
	uint64_t remember_failed; /* evictions not remembered: no memory for that memory */
	uint64_t parked_total;	  /* times a connection was parked (flow_expire()) */
	uint32_t live, max_live;
	uint32_t parked; /* live ones parked now */
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
	uint64_t ts_clamped;	  /* packets timed before 1970 or after 2262: saturated (pkt.h) */
	uint64_t no_memory;	  /* TCP packets dropped: no memory for their connection */
	/* Allocations that failed, by what went without (each is counted
	 * where it happened and the analysis goes on with less): */
	uint64_t nomem_rtt_rings; /* RTT sample rings: samples not taken */
	uint64_t nomem_tables;	  /* gap, pending-fill, retransmission tables: less tracked */
	uint64_t nomem_detectors; /* detectors' per-connection state: that detector skipped */
	uint64_t mem_evictions;	  /* connections evicted by --max-memory (in flows' evicted) */
	uint64_t mem_peak;	  /* the most bytes --max-memory counted (0: no cap) */
	uint64_t other_shards;	  /* left to the other shards of --shard K/N, in no count above */
	int64_t first_ts, last_ts;
};

/*
 * d += s for the counts of two parts of one run (workers of --threads,
 * shards of tcpsift merge): every count adds up; mem_peak too (each part
 * had its share of the cap). What the caller decides: the clock
 * (first_ts, last_ts), other_shards, and flows.max_live (peaks of separate
 * tables do not add: a bound).
 */
static inline void eng_counters_add(struct eng_counters *d, const struct eng_counters *s)
{
	d->packets += s->packets;
	d->wire_bytes += s->wire_bytes;
	for (int k = 0; k < DEC_STATUS_COUNT; k++)
		d->status[k] += s->status[k];
	for (int k = 0; k < DEC_ERR_COUNT; k++)
		d->malformed[k] += s->malformed[k];
	d->malformed_total += s->malformed_total;
	d->snaplen_cut += s->snaplen_cut;
	d->bad_tcp_options += s->bad_tcp_options;
	d->ts_backwards += s->ts_backwards;
	d->ts_clamped += s->ts_clamped;
	d->no_memory += s->no_memory;
	d->nomem_rtt_rings += s->nomem_rtt_rings;
	d->nomem_tables += s->nomem_tables;
	d->nomem_detectors += s->nomem_detectors;
	d->mem_evictions += s->mem_evictions;
	d->mem_peak += s->mem_peak;
}

static inline void flow_counters_add(struct flow_counters *d, const struct flow_counters *s)
{
	d->created += s->created;
	for (int k = 0; k < FLOW_END_COUNT; k++)
		d->ended[k] += s->ended[k];
	d->resumed += s->resumed;
	d->evicted_packets += s->evicted_packets;
	d->forgotten += s->forgotten;
	d->remember_failed += s->remember_failed;
	d->parked_total += s->parked_total;
	d->live += s->live;
	d->parked += s->parked;
}

#endif
