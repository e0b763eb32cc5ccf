/* sack_report.c - JSON and text for the SACK scoreboard detector's results. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/det_view.h"
#include "analyze/readback/jsonin.h"
#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"

const char *sackb_closed_by_name(enum sackb_closed_by b)
{
	static const char *const names[SACKB_CLOSED_COUNT] = {
	    [SACKB_CLOSED_RETRANS] = "retransmission",
	    [SACKB_CLOSED_REORDER] = "reordering",
	    [SACKB_CLOSED_OPEN] = "open",
	    [SACKB_CLOSED_OTHER] = "acked",
	    [SACKB_CLOSED_UNDECIDED] = "undecided",
	};
	return (unsigned)b < SACKB_CLOSED_COUNT ? names[b] : "open";
}

enum { REP_SACK_MAX_CONNS = 10 }; /* connections listed in the text findings */

/* The connection's "sack" object. */
static void sack_json_conn(struct jo_writer *w, const struct sum_conn *c)
{
	const struct sackb_summary *s = &c->det.sack;
	const char *names[SACKB_CLOSED_COUNT];
	uint64_t by_closed[SACKB_CLOSED_COUNT];

	for (unsigned k = 0; k < SACKB_CLOSED_COUNT; k++) {
		names[k] = sackb_closed_by_name((enum sackb_closed_by)k);
		by_closed[k] = s->by_closed[k];
	}
	jo_w_obj(w);
	jo_w_key(w, "closed_by");
	jo_w_named_counts(w, names, by_closed, SACKB_CLOSED_COUNT);
	jo_kint(w, "dsack", s->dsack);
	jo_kint(w, "hole_bytes", (int64_t)s->hole_bytes);
	jo_kint(w, "holes", s->holes);
	jo_kint(w, "holes_not_tracked", s->overflow);
	jo_kint(w, "invalid_blocks", s->invalid_blocks);
	jo_kint(w, "lost_downstream", s->lost_downstream);
	jo_kint(w, "lost_upstream", s->lost_upstream);
	jo_kint(w, "max_bytes_in_holes", (int64_t)s->max_hole_bytes_outstanding);
	jo_kint(w, "recoveries", s->recoveries);
	jo_kint(w, "recoveries_open_at_end", s->open_at_end_dirs);
	jo_ksec(w, "recovery_max_s", s->recovery_max_ns);
	jo_ksec(w, "recovery_time_s", s->recovery_time_ns);
	jo_kint(w, "reneged_bytes", (int64_t)s->reneged_bytes);
	jo_kint(w, "reneging", s->reneging);
	jo_kint(w, "reordered_downstream", s->reordered_downstream);
	jo_kint(w, "sacked_ranges_not_tracked", s->block_overflow);
	jo_w_obj_end(w);
}

/* A hole's members; a reneging event has only the common ones. */
static void sack_json_event(struct jo_fields *f, const struct sum_event *e)
{
	const struct sackb_event *h = &e->u.hole;

	if (e->type != SUM_EV_SACK_HOLE)
		return;
	jo_f_str(f, "closed_by", sackb_closed_by_name((enum sackb_closed_by)h->closed_by));
	jo_f_str(f, "closed_reason", h->reason ? h->reason : "");
	jo_f_str(f, "lost", h->passed_capture ? "downstream" : "upstream");
	jo_f_bool(f, "passed_capture", h->passed_capture);
	jo_f_int(f, "segments", h->segments);
}

/* The reader's side of sack_json_conn() (tcpsift merge). */
static void sack_json_read_conn(struct ji_ctx *x, const json_t *v, struct sum_conn *c)
{
	struct sackb_summary *s = &c->det.sack;
	const char *names[SACKB_CLOSED_COUNT];
	uint64_t by_closed[SACKB_CLOSED_COUNT];

	for (unsigned k = 0; k < SACKB_CLOSED_COUNT; k++)
		names[k] = sackb_closed_by_name((enum sackb_closed_by)k);
	ji_named_counts(x, v, "closed_by", names, by_closed, SACKB_CLOSED_COUNT);
	for (unsigned k = 0; k < SACKB_CLOSED_COUNT; k++)
		s->by_closed[k] = (uint32_t)by_closed[k];
	s->dsack = (uint32_t)ji_int(x, v, "dsack");
	s->hole_bytes = (uint64_t)ji_int(x, v, "hole_bytes");
	s->holes = (uint32_t)ji_int(x, v, "holes");
	s->overflow = (uint32_t)ji_int(x, v, "holes_not_tracked");
	s->invalid_blocks = (uint32_t)ji_int(x, v, "invalid_blocks");
	s->lost_downstream = (uint32_t)ji_int(x, v, "lost_downstream");
	s->lost_upstream = (uint32_t)ji_int(x, v, "lost_upstream");
	s->max_hole_bytes_outstanding = (uint64_t)ji_int(x, v, "max_bytes_in_holes");
	s->recoveries = (uint32_t)ji_int(x, v, "recoveries");
	s->open_at_end_dirs = (uint32_t)ji_int(x, v, "recoveries_open_at_end");
	s->recovery_max_ns = ji_sec(x, v, "recovery_max_s");
	s->recovery_time_ns = ji_sec(x, v, "recovery_time_s");
	s->reneged_bytes = (uint64_t)ji_int(x, v, "reneged_bytes");
	s->reneging = (uint32_t)ji_int(x, v, "reneging");
	s->reordered_downstream = (uint32_t)ji_int(x, v, "reordered_downstream");
	s->block_overflow = (uint32_t)ji_int(x, v, "sacked_ranges_not_tracked");
}

/* The reader's side of sack_json_event(). */
static void sack_json_read_event(struct ji_ctx *x, const json_t *o, struct sum_event *e)
{
	struct sackb_event *h = &e->u.hole;
	const char *names[SACKB_CLOSED_COUNT];

	if (e->type != SUM_EV_SACK_HOLE)
		return;
	for (unsigned k = 0; k < SACKB_CLOSED_COUNT; k++)
		names[k] = sackb_closed_by_name((enum sackb_closed_by)k);
	h->closed_by = (uint8_t)ji_enum(x, o, "closed_by", names, SACKB_CLOSED_COUNT);
	h->reason = ji_str(x, o, "closed_reason", false);
	h->passed_capture = ji_bool(x, o, "passed_capture");
	h->segments = (uint32_t)ji_int(x, o, "segments");
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/*
 * For each of the n connections: the median lifetime of its holes closed by
 * retransmission, from the stored events; -1 when none were stored. Two
 * passes over the events (they can be 100000) for all of them, not two per
 * connection.
 */
static void median_lifetimes(const struct rep_data *d, const struct sum_conn *const *conns,
			     size_t n, int64_t *med)
{
	size_t cnt[REP_SACK_MAX_CONNS] = {0}, off[REP_SACK_MAX_CONNS], total = 0;
	int64_t *v;

	for (size_t j = 0; j < n; j++)
		med[j] = -1;
	for (size_t k = 0; k < d->nevents; k++) {
		const struct sum_event *e = &d->events[k];
		if (e->type != SUM_EV_SACK_HOLE || e->u.hole.closed_by != SACKB_CLOSED_RETRANS)
			continue;
		for (size_t j = 0; j < n; j++)
			if (e->conn == conns[j]->id) {
				cnt[j]++;
				break;
			}
	}
	for (size_t j = 0; j < n; j++) {
		off[j] = total;
		total += cnt[j];
	}
	if (!total || !(v = malloc(total * sizeof(*v))))
		return;
	memset(cnt, 0, sizeof(cnt));
	for (size_t k = 0; k < d->nevents; k++) {
		const struct sum_event *e = &d->events[k];
		if (e->type != SUM_EV_SACK_HOLE || e->u.hole.closed_by != SACKB_CLOSED_RETRANS)
			continue;
		for (size_t j = 0; j < n; j++)
			if (e->conn == conns[j]->id) {
				v[off[j] + cnt[j]++] = e->duration_ns;
				break;
			}
	}
	for (size_t j = 0; j < n; j++) {
		int64_t *w = v + off[j];
		size_t m = cnt[j];
		if (!m)
			continue;
		qsort(w, m, sizeof(*w), cmp_i64);
		med[j] = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
	}
	free(v);
}

/* med: the median lifetime of c's holes closed by retransmission, -1 if
 * none was stored (median_lifetimes()). */
static void text_conn(FILE *out, const struct sum_conn *c, int64_t med, uint64_t drops)
{
	const struct sackb_summary *s = &c->det.sack;
	const uint32_t *by = s->by_closed;
	const char *sep = "";
	char buf[32];

	fprintf(out, "  SACK holes: %" PRIu32 " in conn %" PRIu64 ":", s->holes, c->id);
	if (by[SACKB_CLOSED_RETRANS]) {
		fprintf(out, " %" PRIu32 " closed by retransmission", by[SACKB_CLOSED_RETRANS]);
		if (med >= 0) {
			rep_fmt_dur(buf, sizeof(buf), med);
			fprintf(out, " (median %s)", buf);
		}
		sep = ",";
	}
	uint32_t here = by[SACKB_CLOSED_REORDER] - s->reordered_downstream;
	if (here) {
		fprintf(out, "%s %" PRIu32 " by the late original (reordering)", sep, here);
		sep = ",";
	}
	if (s->reordered_downstream) {
		fprintf(out,
			"%s %" PRIu32
			" by reordering downstream of the capture point (ACKed with no "
			"retransmission, in a capture that missed nothing of that direction",
			sep, s->reordered_downstream);
		if (drops)
			fprintf(out,
				"; but the capture counted %" PRIu64
				" drops, and a dropped retransmission would look the same",
				drops);
		fputc(')', out);
		sep = ",";
	}
	if (by[SACKB_CLOSED_UNDECIDED]) {
		fprintf(out,
			"%s %" PRIu32 " filled by segments that could be late originals or "
			"retransmissions (undecided)",
			sep, by[SACKB_CLOSED_UNDECIDED]);
		sep = ",";
	}
	if (by[SACKB_CLOSED_OTHER]) {
		fprintf(out,
			"%s %" PRIu32
			" ACKed with no filling segment captured (reordered after the "
			"capture point, or the capture missed the repair)",
			sep, by[SACKB_CLOSED_OTHER]);
		sep = ",";
	}
	if (by[SACKB_CLOSED_OPEN])
		fprintf(out, "%s %" PRIu32 " still open at the end", sep, by[SACKB_CLOSED_OPEN]);
	fputs(";\n     ", out);
	if (s->lost_downstream)
		fprintf(out,
			" %" PRIu32
			" had passed the capture point (lost or delayed downstream of it)%s",
			s->lost_downstream, s->lost_upstream ? "," : "");
	if (s->lost_upstream)
		fprintf(out,
			" %" PRIu32 " had not%s (lost or delayed upstream of it, or dropped by the "
			"capture)",
			s->lost_upstream, s->lost_downstream ? "" : " passed the capture point");
	fprintf(out, ";\n      at most %" PRIu64 " bytes missing at once\n",
		s->max_hole_bytes_outstanding);
	if (s->recoveries) {
		char avg[32], max[32];
		rep_fmt_dur(avg, sizeof(avg), s->recovery_time_ns / s->recoveries);
		rep_fmt_dur(max, sizeof(max), s->recovery_max_ns);
		fprintf(out,
			"      %" PRIu32 " recovery episode%s (first hole until the ACK passed the "
			"highest SACKed byte): average %s, max %s",
			s->recoveries, s->recoveries == 1 ? "" : "s", avg, max);
		if (s->open_at_end_dirs)
			fprintf(out, ", %" PRIu32 " still open at the end", s->open_at_end_dirs);
		fputc('\n', out);
	}
	if (s->overflow)
		fprintf(out, "      %" PRIu32 " more holes not tracked (table of %d full)\n",
			s->overflow, SACKB_MAX_HOLES);
}

static void sack_text(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	const struct sackb_totals *t = &d->tot.det.sack;
	const struct sum_conn *shown[REP_SACK_MAX_CONNS];
	int64_t med[REP_SACK_MAX_CONNS];
	size_t nshown = 0, more = 0;

	for (size_t k = 0; k < d->nconns; k++) {
		const struct sum_conn *c = rep_conn_at(d, k);
		if (!c->det.sack.holes)
			continue;
		if (nshown < REP_SACK_MAX_CONNS)
			shown[nshown++] = c;
		else
			more++;
	}
	uint64_t drops = 0;
	for (unsigned k = 0; k < run->ninputs; k++)
		drops += run->inputs[k]->drops_known ? run->inputs[k]->drops : 0;
	median_lifetimes(d, shown, nshown, med);
	for (size_t j = 0; j < nshown; j++)
		text_conn(out, shown[j], med[j], drops);
	if (more)
		fprintf(out,
			"  SACK holes: ... and %zu more connections (%" PRIu64 " holes in all)\n",
			more, t->holes);
	for (size_t k = 0; k < d->nconns; k++) {
		const struct sackb_summary *s = &rep_conn_at(d, k)->det.sack;
		if (s->reneging)
			fprintf(out,
				"  SACK reneging: %" PRIu32 " in conn %" PRIu64
				": the receiver dropped "
				"%" PRIu64 " bytes it had SACKed (RFC 2018 sec. 8)\n",
				s->reneging, rep_conn_at(d, k)->id, s->reneged_bytes);
	}
}

/* ---- totals, --fail-on, the TUI ---- */

static void sack_add_conn(struct det_totals *dt, const struct sum_conn *c)
{
	dt->sack.holes += c->det.sack.holes;
	dt->sack.reneging += c->det.sack.reneging;
	dt->sack.conns += c->det.sack.holes != 0;
}

static void sack_add_event(struct det_totals *dt, const struct sum_event *e)
{
	if (e->type == SUM_EV_SACK_HOLE)
		dt->sack.holes++;
	else if (e->type == SUM_EV_RENEGING)
		dt->sack.reneging++;
}

static bool sack_any(const struct det_totals *t)
{
	return t->sack.holes || t->sack.reneging;
}

static void sack_json_findings(struct jo_fields *f, const struct det_totals *t, bool known)
{
	if (known)
		jo_f_int(f, "sack_holes", (int64_t)t->sack.holes);
	else
		jo_f_null(f, "sack_holes");
}

static double sack_m_holes(const struct det_totals *t)
{
	return (double)t->sack.holes;
}

static double sack_m_reneging(const struct det_totals *t)
{
	return (double)t->sack.reneging;
}

static const struct det_metric sack_metrics[] = {
    {"sack_holes", NULL, sack_m_holes},
    {"reneging", NULL, sack_m_reneging},
};

static void sack_event_line(char *b, size_t n, const struct sum_event *e)
{
	char d[32];

	if (e->type == SUM_EV_RENEGING) {
		snprintf(b, n, "SACK reneging: %" PRIu64 " B un-SACKed", e->bytes);
		return;
	}
	det_fmt_dur_short(d, sizeof(d), e->duration_ns);
	snprintf(b, n, "SACK hole %" PRIu64 " B, %" PRIu32 " seg, closed by %s after %s", e->bytes,
		 e->u.hole.segments,
		 sackb_closed_by_name((enum sackb_closed_by)e->u.hole.closed_by), d);
}

static enum det_tone sack_event_tone(const struct sum_event *e)
{
	(void)e;
	return DET_TONE_BAD;
}

static void sack_header(char *b, size_t n, const struct det_totals *t, bool wide)
{
	snprintf(b, n, wide ? "holes %" PRIu64 : "hole %" PRIu64, t->sack.holes);
}

/* Holes are final only at the connection's end; live, its hole events. */
static uint64_t sack_holes_of(const struct sum_conn *s, const struct det_totals *live, bool ended)
{
	return ended ? s->det.sack.holes : live->sack.holes;
}

static void sack_cells(struct det_cell *cell, const struct sum_conn *s,
		       const struct det_totals *live, bool ended)
{
	uint64_t holes = sack_holes_of(s, live, ended);

	cell[0].sort = (int64_t)holes;
	cell[0].tone = holes ? DET_TONE_BAD : DET_TONE_NONE;
}

static void sack_detail(char *b, size_t n, const struct sum_conn *s, const struct det_totals *live,
			bool ended)
{
	snprintf(b, n, "holes %" PRIu64, sack_holes_of(s, live, ended));
}

const struct det_view sack_view = {
    .name = "sack",
    .conn_key = "sack",
    .json_conn = sack_json_conn,
    .json_event = sack_json_event,
    .json_findings = sack_json_findings,
    .json_read_conn = sack_json_read_conn,
    .json_read_event = sack_json_read_event,
    .add_conn = sack_add_conn,
    .add_event = sack_add_event,
    .any = sack_any,
    .text = sack_text,
    .metrics = sack_metrics,
    .nmetrics = sizeof(sack_metrics) / sizeof(sack_metrics[0]),
    .event_line = sack_event_line,
    .event_tone = sack_event_tone,
    .header_tone = DET_TONE_BAD,
    .header = sack_header,
    .ncolumns = 1,
    .columns = {{"HOLE", 4, 1, true}},
    .cells = sack_cells,
    .detail = sack_detail,
    .timeline_mark = 'H',
    .timeline_span = false,
};
