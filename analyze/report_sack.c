/* report_sack.c - JSON and text for the SACK scoreboard detector's results. */
#include <inttypes.h>

#include "analyze/report.h"

static const char *const closed_names[SACKB_CLOSED_COUNT] = {
    [SACKB_CLOSED_RETRANS] = "retransmission",
    [SACKB_CLOSED_REORDER] = "reordering",
    [SACKB_CLOSED_OPEN] = "open",
    [SACKB_CLOSED_OTHER] = "acked",
};

json_t *rep_json_sack(const struct sackb_summary *s)
{
	json_t *o = json_object(), *by = json_object();

	for (unsigned k = 0; k < SACKB_CLOSED_COUNT; k++)
		json_object_set_new(by, closed_names[k], json_integer(s->by_closed[k]));
	json_object_set_new(o, "closed_by", by);
	json_object_set_new(o, "dsack", json_integer(s->dsack));
	json_object_set_new(o, "holes", json_integer(s->holes));
	json_object_set_new(o, "holes_not_tracked", json_integer(s->overflow));
	json_object_set_new(o, "lost_downstream", json_integer(s->lost_downstream));
	json_object_set_new(o, "lost_upstream", json_integer(s->lost_upstream));
	json_object_set_new(o, "max_bytes_in_holes",
			    json_integer((json_int_t)s->max_hole_bytes_outstanding));
	json_object_set_new(o, "recoveries", json_integer(s->recoveries));
	json_object_set_new(o, "recovery_time_s", json_real((double)s->recovery_time_ns / 1e9));
	json_object_set_new(o, "reneging", json_integer(s->reneging));
	return o;
}

void rep_json_sack_event(json_t *o, const struct sum_event *e)
{
	const struct sackb_event *h = &e->u.hole;

	json_object_set_new(
	    o, "closed_by",
	    json_string(h->closed_by < SACKB_CLOSED_COUNT ? closed_names[h->closed_by] : "open"));
	json_object_set_new(o, "lost", json_string(h->passed_capture ? "downstream" : "upstream"));
	json_object_set_new(o, "segments", json_integer(h->segments));
}

void rep_text_sack(FILE *out, const struct rep_data *d)
{
	const struct rep_totals *t = &d->tot;

	if (!t->sack_holes)
		return;
	fprintf(out, "  SACK holes: %" PRIu64 " in the receivers' scoreboards\n", t->sack_holes);
}
