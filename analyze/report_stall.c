/* report_stall.c - JSON and text for the stall detector's results. */
#include <inttypes.h>

#include "analyze/report.h"

static const char *const stall_class_names[STALL_CLASS_COUNT] = {
    [STALL_DELAYED_ACK] = "delayed_ack", [STALL_SENDER_IDLE] = "sender_idle",
    [STALL_ZERO_WINDOW] = "zero_window", [STALL_RTO] = "rto",
    [STALL_UNKNOWN] = "unknown",
};

const char *rep_stall_class_name(unsigned cls)
{
	return cls < STALL_CLASS_COUNT ? stall_class_names[cls] : "unknown";
}

json_t *rep_json_stall(const struct stall_summary *s)
{
	json_t *o = json_object(), *by = json_object(), *hist = json_array();

	for (unsigned k = 0; k < STALL_CLASS_COUNT; k++)
		json_object_set_new(by, stall_class_names[k], json_integer(s->by_class[k]));
	for (unsigned k = 0; k < STALL_HIST_BUCKETS; k++)
		json_array_append_new(hist, json_integer(s->hist[k]));
	json_object_set_new(o, "by_class", by);
	json_object_set_new(o, "count", json_integer(s->count));
	json_object_set_new(o, "histogram", hist);
	json_object_set_new(o, "max_s", json_real((double)s->max_ns / 1e9));
	json_object_set_new(o, "time_s", json_real((double)s->time_ns / 1e9));
	return o;
}

void rep_json_stall_event(json_t *o, const struct sum_event *e)
{
	const struct stall_event *s = &e->u.stall;

	json_object_set_new(o, "ack_delay_s",
			    s->ack_delay_ns >= 0 ? json_real((double)s->ack_delay_ns / 1e9)
						 : json_null());
	json_object_set_new(o, "class", json_string(rep_stall_class_name(s->cls)));
	json_object_set_new(o, "in_flight", json_integer(s->in_flight));
	json_object_set_new(o, "reason", json_string(s->reason ? s->reason : ""));
	json_object_set_new(o, "rwnd", json_integer((json_int_t)s->rwnd));
}

void rep_text_stall(FILE *out, const struct rep_data *d)
{
	const struct rep_totals *t = &d->tot;

	if (!t->stalls)
		return;
	fprintf(out, "  stalls: %" PRIu64 " idle gaps inside transfers, %.3f s lost (", t->stalls,
		(double)t->stall_ns / 1e9);
	for (unsigned k = 0, n = 0; k < STALL_CLASS_COUNT; k++)
		if (t->stall_by_class[k])
			fprintf(out, "%s%s %" PRIu64, n++ ? ", " : "", stall_class_names[k],
				t->stall_by_class[k]);
	fputs(")\n", out);
}
