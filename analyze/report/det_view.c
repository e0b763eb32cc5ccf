/* det_view.c - the table of views and the loops every reporter shares. */
#include "analyze/report/det_view.h"

#include <inttypes.h>
#include <stdio.h>

const struct det_view *const det_views[DET_VIEW_COUNT] = {
#define DETECTOR(name, prefix) &name##_view,
#include "analyze/detect/detectors.h"
};

int det_view_index_of_event(enum sum_event_type t)
{
	switch (t) {
#define DET_EVENT(enum_value, json_name, detector)                                                 \
	case enum_value:                                                                           \
		return DET_VIEW_##detector;
#include "analyze/detect/detectors.h"
	default:
		return -1;
	}
}

const struct det_view *det_view_of_event(enum sum_event_type t)
{
	int k = det_view_index_of_event(t);

	return k < 0 ? NULL : det_views[k];
}

void det_totals_add_conn(struct det_totals *t, const struct sum_conn *c)
{
	for (unsigned k = 0; k < DET_VIEW_COUNT; k++)
		det_views[k]->add_conn(t, c);
}

void det_totals_add_event(struct det_totals *t, const struct sum_event *e)
{
	const struct det_view *v = det_view_of_event(e->type);

	if (v && v->add_event)
		v->add_event(t, e);
}

void det_fmt_dur_short(char *b, size_t n, int64_t ns)
{
	double x = (double)ns;

	if (ns < 0)
		snprintf(b, n, "-");
	else if (ns < 1000000)
		snprintf(b, n, "%.0fus", x / 1e3);
	else if (ns < 10000000)
		snprintf(b, n, "%.2fms", x / 1e6);
	else if (ns < 1000000000)
		snprintf(b, n, "%.0fms", x / 1e6);
	else if (ns < 100000000000LL)
		snprintf(b, n, "%.2fs", x / 1e9);
	else
		snprintf(b, n, "%.0fs", x / 1e9);
}

void det_describe_event(char *b, size_t n, const struct sum_event *e)
{
	const struct det_view *dv = det_view_of_event(e->type);
	const struct sum_frame_event *f = &e->u.frame;
	char d[32];

	if (dv) {
		dv->event_line(b, n, e);
		return;
	}
	det_fmt_dur_short(d, sizeof(d), e->duration_ns);
	switch (e->type) {
	case SUM_EV_ZERO_WINDOW:
		snprintf(b, n, "zero window for %s", d);
		break;
	case SUM_EV_CAPTURE_LOSS:
		snprintf(b, n, "capture missed %" PRIu64 " B (~%" PRIu32 " segment%s)", e->bytes,
			 e->segments, e->segments == 1 ? "" : "s");
		break;
	case SUM_EV_DSACK:
		snprintf(b, n, "D-SACK: %" PRIu64 " B received twice", e->bytes);
		break;
	case SUM_EV_OVERSIZE:
		snprintf(b, n,
			 "segment of %" PRIu64 " B above the MSS (GSO/TSO/GRO at the capture)",
			 e->bytes);
		break;
	case SUM_EV_RETRANS:
		snprintf(b, n, "retransmission (%s%s%s%s) of %" PRIu64 " B at seq %" PRIu32,
			 sum_retrans_kind_name((enum sum_retrans_kind)f->kind),
			 f->spurious ? ", spurious" : "", f->dsack ? " by D-SACK" : "",
			 f->filled_gap ? ", filled a capture gap" : "", e->bytes, e->rel_seq);
		break;
	case SUM_EV_DUP_ACK:
		snprintf(b, n, "duplicate ACK #%" PRIu32, f->dup_count);
		break;
	case SUM_EV_OUT_OF_ORDER:
		snprintf(b, n,
			 "out of order: %" PRIu64 " B at seq %" PRIu32 ", %" PRIu32
			 " later segment%s ahead (decided by %s)",
			 e->bytes, e->rel_seq, e->extent, e->extent == 1 ? "" : "s",
			 sum_reorder_by_name((enum sum_reorder_by)e->by));
		break;
	case SUM_EV_FILL_UNDECIDED:
		snprintf(b, n,
			 "gap fill of %" PRIu64 " B at seq %" PRIu32
			 ": late original or retransmission, undecided",
			 e->bytes, e->rel_seq);
		break;
	case SUM_EV_CAPTURE_GAP:
		snprintf(b, n, "capture gap: began beyond the highest byte seen (seq %" PRIu32 ")",
			 e->rel_seq);
		break;
	case SUM_EV_TLP_NEW_DATA:
		snprintf(b, n, "tail-loss probe with new data, %" PRIu64 " B", e->bytes);
		break;
	default:
		snprintf(b, n, "%s", sum_event_name(e->type));
		break;
	}
}
