/* membudget.h - analyze --max-memory as one cap on the whole process, split into its parts. */
#ifndef TCPSIFT_MEMBUDGET_H
#define TCPSIFT_MEMBUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/report/report.h"

/*
 * What each part of a run may hold under --max-memory CAP. Peak RSS is CAP
 * plus what no part controls (the binary, its libraries, stacks: within
 * 16 MiB) and the allocator's slack (within a tenth); tests/hostile/floods.sh
 * holds it to CAP + 10 % + 16 MiB. The parts:
 *  - the reading threads' batches (workers.c, with --threads > 1);
 *  - the events a text, JSON or HTML report keeps for its end (two lists of
 *    up to max_events, a sixteenth of CAP at most): beyond, they are counted
 *    as dropped, not kept;
 *  - the connection summaries that report keeps in memory (an eighth of
 *    CAP, at most REP_CONN_MEM_DEFAULT, unless --report-memory says):
 *    beyond, they go to a temporary file;
 *  - the engine: seven eighths of the rest (its flow table, pools, the
 *    merge's id map; the eighth for what it holds beyond what it counts),
 *    enforced by evicting the least recently used connections
 *    (eng_config.max_memory).
 */
struct mem_shares {
	uint64_t engine;     /* eng_config.max_memory */
	size_t report_conns; /* rep_config.conn_mem; 0: the report keeps none */
	uint32_t max_events; /* rep_config.max_events */
	size_t fixed;	     /* the threads' batches */
};

/*
 * Split cap for a run of nthreads reading threads writing fmt; report_mem
 * is --report-memory in bytes (SIZE_MAX: not given), max_events
 * --max-events. 0, or ERR_USAGE with a one-line reason in err when cap
 * cannot hold the fixed parts and a useful engine (1 MiB).
 */
int mem_split(uint64_t cap, unsigned nthreads, enum rep_format fmt, size_t report_mem,
	      uint32_t max_events, struct mem_shares *out, char *err, size_t errlen);

#endif
