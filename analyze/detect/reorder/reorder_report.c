/* reorder_report.c - JSON and text for the reordering / queue detector's results. */
#include <inttypes.h>

#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"

enum { REORDER_TEXT_EXAMPLES = 3 }; /* connections named under each line */

/* Queue fields are null when the capture carried no queue ids: "0 switches"
 * would claim a fact the capture cannot show. */
void rep_jw_reorder(struct jo_writer *w, const struct reorder_summary *s)
{
	bool q = s->queues_known;

	jo_w_obj(w);
	jo_kint(w, "ack_reordering", s->ack_reordering);
	jo_kint(w, "events", s->events);
	jo_kint(w, "max_extent", s->max_extent);
	if (q)
		jo_kint(w, "queue_switches", s->queue_switches);
	else
		jo_knull(w, "queue_switches");
	jo_kint(w, "queues_used", s->queues_used);
	if (q) {
		jo_kint(w, "reorder_on_queue_switch", s->reorder_on_queue_switch);
		jo_kint(w, "reorder_queue_unknown", s->switch_unknown);
	} else {
		jo_knull(w, "reorder_on_queue_switch");
		jo_knull(w, "reorder_queue_unknown");
	}
	jo_w_obj_end(w);
}

static void queue_range(FILE *out, const struct reorder_summary *s)
{
	if (s->queue_min == s->queue_max)
		fprintf(out, "queue %" PRId32, s->queue_min);
	else
		fprintf(out, "queues %" PRId32 "-%" PRId32, s->queue_min, s->queue_max);
}

static void text_across_queues(FILE *out, const struct rep_data *d)
{
	unsigned shown = 0;

	fprintf(out,
		"  reordering across queues: %" PRIu64
		" out-of-order segments were overtaken by segments of the same flow\n"
		"      that arrived on another queue:\n",
		d->tot.queue_reorders);
	for (size_t k = 0; k < d->nconns; k++) {
		const struct reorder_summary *s = &d->conns[k].det.reorder;
		if (!s->reorder_on_queue_switch)
			continue;
		if (shown++ == REORDER_TEXT_EXAMPLES) {
			fputs("      ...\n", out);
			break;
		}
		fprintf(out, "      %" PRIu32 " of %" PRIu32 " in conn %" PRIu64 " (%" PRIu32 " ",
			s->reorder_on_queue_switch, s->events, d->conns[k].id, s->queues_used);
		queue_range(out, s);
		fprintf(out, " used, %" PRIu32 " switch%s)\n", s->queue_switches,
			s->queue_switches == 1 ? "" : "es");
	}
	fputs("      one flow was spread over several RX queues (NIC ATR/Flow Director "
	      "following a migrating\n      sender, RSS or RPS): each queue delivers on "
	      "its own CPU, so the flow is reordered\n      and GRO cannot merge it\n",
	      out);
}

void rep_text_reorder(FILE *out, const struct rep_data *d)
{
	const struct sum_conn *worst = NULL, *acks = NULL;
	uint64_t events = 0, ack_reordering = 0;

	for (size_t k = 0; k < d->nconns; k++) {
		const struct reorder_summary *s = &d->conns[k].det.reorder;
		events += s->events;
		ack_reordering += s->ack_reordering;
		if (s->events && (!worst || s->max_extent > worst->det.reorder.max_extent))
			worst = &d->conns[k];
		if (s->ack_reordering &&
		    (!acks || s->ack_reordering > acks->det.reorder.ack_reordering))
			acks = &d->conns[k];
	}
	if (d->tot.queue_reorders)
		text_across_queues(out, d);
	/* RFC 5236 extent vs Linux's `reordering` (starts at 3 duplicates,
	 * TCP_FASTRETRANS_THRESH): beyond it a sender without RACK/D-SACK
	 * undo takes reordering for loss. */
	if (worst) {
		uint32_t ext = worst->det.reorder.max_extent;
		fprintf(out,
			"  reordering extent: max %" PRIu32
			" later segment%s overtook one (conn %" PRIu64 "; %" PRIu64
			" out-of-order segment%s in all)\n",
			ext, ext == 1 ? "" : "s", worst->id, events, events == 1 ? "" : "s");
		if (ext >= 3)
			fputs("      3 or more: 3 duplicate ACKs, so a sender at Linux's initial "
			      "`reordering` of 3\n      takes it for a loss unless RACK or "
			      "D-SACK undo saves it\n",
			      out);
	}
	if (acks)
		fprintf(out,
			"  ACK reordering: %" PRIu64
			" cumulative ACKs went backwards (most in conn %" PRIu64 ": %" PRIu32 ")\n",
			ack_reordering, acks->id, acks->det.reorder.ack_reordering);
}
