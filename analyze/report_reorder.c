/* report_reorder.c - JSON and text for the reordering / queue detector's results. */
#include <inttypes.h>

#include "analyze/report.h"

json_t *rep_json_reorder(const struct reorder_summary *s)
{
	json_t *o = json_object();

	json_object_set_new(o, "ack_reordering", json_integer(s->ack_reordering));
	json_object_set_new(o, "events", json_integer(s->events));
	json_object_set_new(o, "max_extent", json_integer(s->max_extent));
	json_object_set_new(o, "queue_switches", json_integer(s->queue_switches));
	json_object_set_new(o, "queues_used", json_integer(s->queues_used));
	json_object_set_new(o, "reorder_on_queue_switch", json_integer(s->reorder_on_queue_switch));
	return o;
}

void rep_text_reorder(FILE *out, const struct rep_data *d)
{
	const struct rep_totals *t = &d->tot;

	if (!t->queue_reorders)
		return;
	fprintf(out,
		"  reordering across queues: %" PRIu64
		" out-of-order segments coincide with a queue switch\n",
		t->queue_reorders);
}
