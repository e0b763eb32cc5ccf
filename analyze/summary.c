/* summary.c - names of summary states, event types and reorder reasons. */
#include "analyze/summary.h"

const char *sum_state_name(enum sum_state s)
{
	static const char *const names[SUM_STATE_COUNT] = {
	    [SUM_STATE_HANDSHAKE] = "handshake",
	    [SUM_STATE_OPEN] = "open",
	    [SUM_STATE_HALF_CLOSED] = "half_closed",
	    [SUM_STATE_CLOSED] = "closed",
	    [SUM_STATE_RESET] = "reset",
	};
	return (unsigned)s < SUM_STATE_COUNT ? names[s] : "unknown";
}

const char *sum_event_name(enum sum_event_type t)
{
	static const char *const names[SUM_EV_TYPE_COUNT] = {
	    [SUM_EV_ZERO_WINDOW] = "zero_window",     [SUM_EV_REORDER] = "reorder",
	    [SUM_EV_CAPTURE_LOSS] = "capture_loss",   [SUM_EV_DSACK] = "dsack",
	    [SUM_EV_OVERSIZE] = "oversize_segment",   [SUM_EV_STALL] = "stall",
	    [SUM_EV_SACK_HOLE] = "sack_hole",	      [SUM_EV_RENEGING] = "reneging",
	    [SUM_EV_MTU_ALIGNMENT] = "mtu_alignment", [SUM_EV_PMTU] = "pmtu",
	};
	return (unsigned)t < SUM_EV_TYPE_COUNT ? names[t] : "unknown";
}

const char *sum_reorder_by_name(enum sum_reorder_by b)
{
	static const char *const names[SUM_BY_COUNT] = {
	    [SUM_BY_TSVAL] = "tsval",
	    [SUM_BY_IPID] = "ip_id",
	    [SUM_BY_TIMING] = "timing",
	};
	return (unsigned)b < SUM_BY_COUNT ? names[b] : "unknown";
}
