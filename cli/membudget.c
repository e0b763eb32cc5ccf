/* membudget.c - analyze --max-memory as one cap on the whole process, split into its parts. */
#include "cli/membudget.h"
#include "analyze/engine/summary.h"
#include "analyze/engine/workers.h"
#include "common/err.h"

#include <stdio.h>

#define MIB (1u << 20)

/* The event lists grow by doubling (report.c ev_keep()): while one grows,
 * the old and the new array are both held. */
#define EVENT_PEAK_BYTES (sizeof(struct sum_event) * 3 / 2)

int mem_split(uint64_t cap, unsigned nthreads, enum rep_format fmt, size_t report_mem,
	      uint32_t max_events, struct mem_shares *out, char *err, size_t errlen)
{
	bool keeps = fmt != REP_NDJSON; /* NDJSON writes connections and events at once */
	uint64_t left = cap;

	*out = (struct mem_shares){.max_events = max_events};
	out->fixed = wk_fixed_bytes(nthreads);
	if (keeps) {
		/* Two lists: the events and the per-frame verdicts. */
		uint64_t fit = cap / 16 / (2 * EVENT_PEAK_BYTES);
		if (fit < max_events)
			out->max_events = (uint32_t)fit;
		out->report_conns = report_mem != SIZE_MAX	     ? report_mem
				    : cap / 8 < REP_CONN_MEM_DEFAULT ? (size_t)(cap / 8)
								     : REP_CONN_MEM_DEFAULT;
	}
	uint64_t events = (uint64_t)out->max_events * 2 * EVENT_PEAK_BYTES * keeps;
	uint64_t parts = out->fixed + events + out->report_conns;
	if (parts + MIB > left) {
		snprintf(err, errlen,
			 "--max-memory %llu MiB cannot hold %llu MiB of report and reading buffers "
			 "and 1 MiB of connections (a larger cap, fewer --threads or a smaller "
			 "--report-memory)",
			 (unsigned long long)(cap / MIB),
			 (unsigned long long)((parts + MIB - 1) / MIB));
		return ERR_USAGE;
	}
	/* What the engine counts (entries, slots, pool blocks in use) is
	 * most of what it holds, not all: blocks of a pool freed since its
	 * peak, the hash slots while they double, the order arrays of a sweep
	 * (measured on a million SYNs: up to 12 % over). An eighth is left
	 * for that. */
	out->engine = (left - parts) / 8 * 7;
	return 0;
}
