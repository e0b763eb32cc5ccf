/* summary.c - the names of the summary's enums: one table per enum, for every reporter. */
#include "analyze/engine/summary.h"

#include <string.h>

/* Each state's JSON name and a short form for narrow table cells. */
static const struct {
	const char *name, *short_name;
} sum_state_names[SUM_STATE_COUNT] = {
    [SUM_STATE_HANDSHAKE] = {"handshake", "syn"},
    [SUM_STATE_OPEN] = {"open", "open"},
    [SUM_STATE_HALF_CLOSED] = {"half_closed", "half"},
    [SUM_STATE_CLOSED] = {"closed", "fin"},
    [SUM_STATE_RESET] = {"reset", "rst"},
};

const char *sum_state_name(enum sum_state s)
{
	return (unsigned)s < SUM_STATE_COUNT ? sum_state_names[s].name : "unknown";
}

const char *sum_state_label(enum sum_state s, size_t width)
{
	if ((unsigned)s >= SUM_STATE_COUNT)
		return "?";
	return strlen(sum_state_names[s].name) <= width ? sum_state_names[s].name
							: sum_state_names[s].short_name;
}

const char *sum_dir_name(unsigned dir)
{
	return dir == SUM_C2S ? "c2s" : "s2c";
}

const char *sum_event_name(enum sum_event_type t)
{
	static const char *const names[SUM_EV_TYPE_COUNT] = {
	    [SUM_EV_ZERO_WINDOW] = "zero_window",
	    [SUM_EV_CAPTURE_LOSS] = "capture_loss",
	    [SUM_EV_DSACK] = "dsack",
	    [SUM_EV_OVERSIZE] = "oversize_segment",
	    [SUM_EV_RETRANS] = "retransmission",
	    [SUM_EV_DUP_ACK] = "dup_ack",
	    [SUM_EV_OUT_OF_ORDER] = "out_of_order",
	    [SUM_EV_FILL_UNDECIDED] = "fill_undecided",
	    [SUM_EV_CAPTURE_GAP] = "capture_gap",
	    [SUM_EV_TLP_NEW_DATA] = "tlp_new_data",
#define DET_EVENT(enum_value, json_name, detector) [enum_value] = json_name,
#include "analyze/detect/detectors.h"
	};
	return (unsigned)t < SUM_EV_TYPE_COUNT ? names[t] : "unknown";
}

const char *sum_reorder_by_name(enum sum_reorder_by b)
{
	static const char *const names[SUM_BY_COUNT] = {
	    [SUM_BY_TSVAL] = "tsval",
	    [SUM_BY_IPID] = "ip_id",
	    [SUM_BY_TIMING] = "timing",
	    [SUM_BY_TSECR] = "tsecr",
	    [SUM_BY_ACK] = "ack",
	    [SUM_BY_CAUSALITY] = "causality",
	    [SUM_BY_SECOND_COPY] = "second_copy",
	};
	return (unsigned)b < SUM_BY_COUNT ? names[b] : "unknown";
}

const char *sum_retrans_kind_name(enum sum_retrans_kind k)
{
	static const char *const names[SUM_RTX_KIND_COUNT] = {
	    [SUM_RTX_FAST] = "fast",
	    [SUM_RTX_RTO] = "rto",
	    [SUM_RTX_TLP] = "tlp",
	    [SUM_RTX_OTHER] = "other",
	};
	return (unsigned)k < SUM_RTX_KIND_COUNT ? names[k] : "other";
}
