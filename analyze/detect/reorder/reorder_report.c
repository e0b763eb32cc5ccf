/* reorder_report.c - the reordering / queue detector's view: JSON, text, --fail-on, TUI. */
#include <inttypes.h>
#include <stdio.h>

#include "analyze/report/det_view.h"
#include "analyze/readback/jsonin.h"
#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"

enum { REORDER_TEXT_EXAMPLES = 3 }; /* connections named under each line */

/* Queue fields are null when the capture carried no queue ids: "0 switches"
 * would claim a fact the capture cannot show. */
static void reorder_json_conn(struct jo_writer *w, const struct sum_conn *c)
{
	const struct reorder_summary *s = &c->det.reorder;
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

/* The reader's side of reorder_json_conn() (tcpsift merge). The queue
 * range is not written: taken from the connection's queues (read before). */
static void reorder_json_read_conn(struct ji_ctx *x, const json_t *v, struct sum_conn *c)
{
	struct reorder_summary *s = &c->det.reorder;
	json_t *qs = ji_get(x, v, "queue_switches");

	s->ack_reordering = (uint32_t)ji_int(x, v, "ack_reordering");
	s->events = (uint32_t)ji_int(x, v, "events");
	s->max_extent = (uint32_t)ji_int(x, v, "max_extent");
	s->queues_known = qs && !json_is_null(qs);
	s->queue_switches = (uint32_t)ji_int_or(x, v, "queue_switches", 0);
	s->queues_used = (uint32_t)ji_int(x, v, "queues_used");
	s->reorder_on_queue_switch = (uint32_t)ji_int_or(x, v, "reorder_on_queue_switch", 0);
	s->switch_unknown = (uint32_t)ji_int_or(x, v, "reorder_queue_unknown", 0);
	s->queue_min = s->queue_max = -1;
	if (s->queues_known && c->queue_mask) {
		s->queue_min = __builtin_ctzll(c->queue_mask);
		s->queue_max = 63 - __builtin_clzll(c->queue_mask);
	}
}

/* The reader's side of reorder_json_event(). */
static void reorder_json_read_event(struct ji_ctx *x, const json_t *o, struct sum_event *e)
{
	const char *bys[SUM_BY_COUNT];
	json_t *qs = ji_get(x, o, "queue_switch");

	for (unsigned k = 0; k < SUM_BY_COUNT; k++)
		bys[k] = sum_reorder_by_name((enum sum_reorder_by)k);
	e->by = (uint8_t)ji_enum(x, o, "decided_by", bys, SUM_BY_COUNT);
	e->extent = (uint32_t)ji_int(x, o, "extent");
	e->queue_switch = (int8_t)(!qs || json_is_null(qs) ? -1 : ji_bool(x, o, "queue_switch"));
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
		d->tot.det.reorder.across_queues);
	for (size_t k = 0; k < d->nconns; k++) {
		const struct reorder_summary *s = &rep_conn_at(d, k)->det.reorder;
		if (!s->reorder_on_queue_switch)
			continue;
		if (shown++ == REORDER_TEXT_EXAMPLES) {
			fputs("      ...\n", out);
			break;
		}
		fprintf(out, "      %" PRIu32 " of %" PRIu32 " in conn %" PRIu64 " (%" PRIu32 " ",
			s->reorder_on_queue_switch, s->events, rep_conn_at(d, k)->id,
			s->queues_used);
		queue_range(out, s);
		fprintf(out, " used, %" PRIu32 " switch%s)\n", s->queue_switches,
			s->queue_switches == 1 ? "" : "es");
	}
	fputs("      one flow was spread over several RX queues (NIC ATR/Flow Director "
	      "following a migrating\n      sender, RSS or RPS): each queue delivers on "
	      "its own CPU, so the flow is reordered\n      and GRO cannot merge it\n",
	      out);
}

static void reorder_text(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	const struct sum_conn *worst = NULL, *acks = NULL;
	uint64_t events = 0, ack_reordering = 0;

	(void)run;
	for (size_t k = 0; k < d->nconns; k++) {
		const struct reorder_summary *s = &rep_conn_at(d, k)->det.reorder;
		events += s->events;
		ack_reordering += s->ack_reordering;
		if (s->events && (!worst || s->max_extent > worst->det.reorder.max_extent))
			worst = rep_conn_at(d, k);
		if (s->ack_reordering &&
		    (!acks || s->ack_reordering > acks->det.reorder.ack_reordering))
			acks = rep_conn_at(d, k);
	}
	if (d->tot.det.reorder.across_queues)
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

/* ---- totals, --fail-on, the TUI ---- */

static void reorder_add_conn(struct det_totals *dt, const struct sum_conn *c)
{
	const struct reorder_summary *s = &c->det.reorder;

	dt->reorder.events += s->events;
	dt->reorder.across_queues += s->reorder_on_queue_switch;
	dt->reorder.ack_reordering += s->ack_reordering;
}

static void reorder_add_event(struct det_totals *dt, const struct sum_event *e)
{
	dt->reorder.events++;
	dt->reorder.across_queues += e->queue_switch == 1;
}

static bool reorder_any(const struct det_totals *t)
{
	return t->reorder.across_queues || t->reorder.ack_reordering;
}

static void reorder_json_event(struct jo_fields *f, const struct sum_event *e)
{
	jo_f_str(f, "decided_by", sum_reorder_by_name((enum sum_reorder_by)e->by));
	jo_f_int(f, "extent", e->extent);
	if (e->queue_switch < 0)
		jo_f_null(f, "queue_switch");
	else
		jo_f_bool(f, "queue_switch", e->queue_switch);
}

static void reorder_json_findings(struct jo_fields *f, const struct det_totals *t, bool known)
{
	if (known)
		jo_f_int(f, "reorder_across_queues", (int64_t)t->reorder.across_queues);
	else
		jo_f_null(f, "reorder_across_queues");
}

static double reorder_m_across(const struct det_totals *t)
{
	return (double)t->reorder.across_queues;
}

static const struct det_metric reorder_metrics[] = {
    {"reorder_across_queues", NULL, reorder_m_across},
};

/*
 * Reorders are counted but only logged from an extent of 3: below Linux's
 * default tcp_reordering (3) a late segment cannot trigger a spurious fast
 * retransmit (RFC 5681 3.2's three duplicate ACKs), so it is routine
 * noise on multi-queue paths; a reorder across queues is always logged.
 */
static bool reorder_event_logged(const struct sum_event *e)
{
	return e->extent >= 3 || e->queue_switch == 1;
}

static void reorder_event_line(char *b, size_t n, const struct sum_event *e)
{
	snprintf(b, n, "out of order, extent %" PRIu32 " (%s)%s", e->extent,
		 sum_reorder_by_name((enum sum_reorder_by)e->by),
		 e->queue_switch == 1 ? ", across queues" : "");
}

static enum det_tone reorder_event_tone(const struct sum_event *e)
{
	(void)e;
	return DET_TONE_ORDER;
}

static void reorder_header(char *b, size_t n, const struct det_totals *t, bool wide)
{
	snprintf(b, n,
		 wide ? "reorder %" PRIu64 " (%" PRIu64 " across queues)"
		      : "reord %" PRIu64 "/%" PRIu64 "q",
		 t->reorder.events, t->reorder.across_queues);
}

static void reorder_detail(char *b, size_t n, const struct sum_conn *s,
			   const struct det_totals *live, bool ended)
{
	(void)live, (void)ended;
	if (s->det.reorder.reorder_on_queue_switch)
		snprintf(b, n, "reorders across queues %" PRIu32,
			 s->det.reorder.reorder_on_queue_switch);
	else if (n)
		b[0] = '\0';
}

const struct det_view reorder_view = {
    .name = "reorder",
    .conn_key = "reordering",
    .json_conn = reorder_json_conn,
    .json_event = reorder_json_event,
    .json_findings = reorder_json_findings,
    .json_read_conn = reorder_json_read_conn,
    .json_read_event = reorder_json_read_event,
    .add_conn = reorder_add_conn,
    .add_event = reorder_add_event,
    .any = reorder_any,
    .text = reorder_text,
    .metrics = reorder_metrics,
    .nmetrics = sizeof(reorder_metrics) / sizeof(reorder_metrics[0]),
    .event_logged = reorder_event_logged,
    .event_line = reorder_event_line,
    .event_tone = reorder_event_tone,
    .header_tone = DET_TONE_ORDER,
    .header = reorder_header,
    .ncolumns = 0,
    .detail = reorder_detail,
};
