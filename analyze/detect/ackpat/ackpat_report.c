/* ackpat_report.c - the ACK-pattern detector's view: JSON, text, --fail-on, TUI. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/report/det_view.h"
#include "analyze/readback/jsonin.h"
#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"

enum { ACKPAT_TEXT_EXAMPLES = 4 }; /* directions named in the text findings */

static const char *const ackpat_bucket_names[3] = {"1", "2", "3+"};

/* The pattern names a reader accepts (index = enum ackpat_class). */
static void class_names(const char **names)
{
	for (unsigned k = 0; k < ACKPAT_CLASS_COUNT; k++)
		names[k] = k == ACKPAT_NONE ? "" : ackpat_class_name((enum ackpat_class)k);
}

/* A pattern's name; a value out of range (a summary this build did not
 * make) reads as mixed. */
static const char *cls_name(uint8_t cls)
{
	const char *n = ackpat_class_name((enum ackpat_class)cls);
	return n ? n : "mixed";
}

static double per_ack(uint64_t v, uint32_t acks)
{
	return acks ? (double)v / (double)acks : 0.0;
}

static double segs_per_ack(uint64_t bytes, uint32_t acks, uint32_t seg)
{
	return acks && seg ? (double)bytes / (double)seg / (double)acks : 0.0;
}

static void w_frames(struct jo_writer *w, uint64_t a, uint64_t b)
{
	jo_w_key(w, "frames");
	jo_w_arr(w);
	jo_w_int(w, (int64_t)a);
	jo_w_int(w, (int64_t)b);
	jo_w_arr_end(w);
}

/* A direction's "ack_pattern": null when fewer than ACKPAT_MIN_ACKS ACKs
 * were counted (nothing to say), else the pattern and its evidence. */
static void ackpat_json_dir(struct jo_writer *w, const struct sum_conn *c, unsigned dir)
{
	const struct ackpat_dir_summary *s = &c->det.ackpat.dir[dir];
	uint64_t n[3] = {s->all.n[0], s->all.n[1], s->all.n[2]};

	if (s->cls == ACKPAT_NONE || s->cls >= ACKPAT_CLASS_COUNT) {
		jo_w_null(w);
		return;
	}
	jo_w_obj(w);
	jo_kint(w, "acks", s->all.acks);
	jo_w_key(w, "acks_by_segments");
	jo_w_named_counts(w, ackpat_bucket_names, n, 3);
	jo_kint(w, "bytes", (int64_t)s->all.bytes);
	jo_kreal(w, "bytes_per_ack", per_ack(s->all.bytes, s->all.acks));
	jo_kstr(w, "dominant", cls_name(s->cls));
	jo_kint(w, "excluded_acks", s->excluded);
	jo_ksec(w, "first_ts", s->all.first_ts);
	w_frames(w, s->all.first_frame, s->all.last_frame);
	jo_ksec(w, "last_ts", s->all.last_ts);
	jo_kint(w, "max_segments", s->all.max_segs);
	jo_w_key(w, "phases");
	jo_w_arr(w);
	for (unsigned k = 0; k < s->nphases && k < ACKPAT_PHASES; k++) {
		const struct ackpat_phase *p = &s->phase[k];
		jo_w_obj(w);
		jo_kint(w, "acks", p->acks);
		jo_kint(w, "bytes", (int64_t)p->bytes);
		jo_ksec(w, "first_ts", p->first_ts);
		w_frames(w, p->first_frame, p->last_frame);
		jo_ksec(w, "last_ts", p->last_ts);
		jo_kstr(w, "pattern", cls_name(s->phase_cls[k]));
		jo_kreal(w, "segments_per_ack", segs_per_ack(p->bytes, p->acks, s->seg_size));
		jo_w_obj_end(w);
	}
	jo_w_arr_end(w);
	jo_kint(w, "phases_more", s->phases_more);
	jo_kint(w, "push_acks", s->push_acks);
	jo_kint(w, "segment_size", s->seg_size);
	jo_kreal(w, "segments_per_ack", segs_per_ack(s->all.bytes, s->all.acks, s->seg_size));
	jo_w_obj_end(w);
}

static void read_frames(struct ji_ctx *x, const json_t *o, uint64_t *a, uint64_t *b)
{
	int64_t f[2] = {0, 0};

	ji_ints(x, o, "frames", f, 2);
	*a = (uint64_t)f[0];
	*b = (uint64_t)f[1];
}

/* The reader's side of ackpat_json_dir() (tcpsift merge); the inputs of
 * the frames are not written (read as 0). */
static void ackpat_json_read_dir(struct ji_ctx *x, const json_t *v, struct sum_conn *c,
				 unsigned dir)
{
	struct ackpat_dir_summary *s = &c->det.ackpat.dir[dir];
	const char *names[ACKPAT_CLASS_COUNT];
	uint64_t n[3];
	json_t *ph;

	memset(s, 0, sizeof(*s));
	if (json_is_null(v))
		return;
	class_names(names);
	s->all.acks = (uint32_t)ji_int(x, v, "acks");
	ji_named_counts(x, v, "acks_by_segments", ackpat_bucket_names, n, 3);
	for (unsigned k = 0; k < 3; k++)
		s->all.n[k] = (uint32_t)n[k];
	s->all.bytes = (uint64_t)ji_int(x, v, "bytes");
	s->cls = (uint8_t)ji_enum(x, v, "dominant", names, ACKPAT_CLASS_COUNT);
	s->excluded = (uint32_t)ji_int(x, v, "excluded_acks");
	s->all.first_ts = ji_sec(x, v, "first_ts");
	read_frames(x, v, &s->all.first_frame, &s->all.last_frame);
	s->all.last_ts = ji_sec(x, v, "last_ts");
	s->all.max_segs = (uint32_t)ji_int(x, v, "max_segments");
	s->phases_more = (uint32_t)ji_int(x, v, "phases_more");
	s->push_acks = (uint32_t)ji_int(x, v, "push_acks");
	s->seg_size = (uint32_t)ji_int(x, v, "segment_size");
	ph = ji_get(x, v, "phases");
	if (!ph || !json_is_array(ph))
		return;
	for (size_t k = 0; k < json_array_size(ph) && k < ACKPAT_PHASES; k++) {
		const json_t *o = json_array_get(ph, k);
		struct ackpat_phase *p = &s->phase[s->nphases++];
		p->acks = (uint32_t)ji_int(x, o, "acks");
		p->bytes = (uint64_t)ji_int(x, o, "bytes");
		p->first_ts = ji_sec(x, o, "first_ts");
		read_frames(x, o, &p->first_frame, &p->last_frame);
		p->last_ts = ji_sec(x, o, "last_ts");
		s->phase_cls[s->nphases - 1] =
		    (uint8_t)ji_enum(x, o, "pattern", names, ACKPAT_CLASS_COUNT);
	}
}

static void ackpat_json_event(struct jo_fields *f, const struct sum_event *e)
{
	const struct ackpat_event *a = &e->u.ackpat;
	uint64_t bytes = 0;

	jo_f_int(f, "acks", a->acks);
	jo_f_int(f, "acks_1", a->n[0]);
	jo_f_int(f, "acks_2", a->n[1]);
	jo_f_int(f, "acks_3plus", a->n[2]);
	jo_f_str(f, "advice", a->advice ? a->advice : "");
	/* The phase's bytes per ACK (the direction's are in its ack_pattern). */
	bytes = e->bytes;
	jo_f_real(f, "bytes_per_ack", per_ack(bytes, a->phase_acks));
	jo_f_int(f, "max_segments", a->max_segs);
	jo_f_int(f, "oversize_segments", (int64_t)a->oversize);
	jo_f_str(f, "pattern", a->cls == ACKPAT_STRETCH ? "stretch" : "every_segment");
	jo_f_int(f, "phase_acks", a->phase_acks);
	jo_f_int(f, "push_acks", a->push_acks);
	jo_f_int(f, "segment_size", a->seg_size);
	jo_f_real(f, "segments_per_ack", segs_per_ack(bytes, a->phase_acks, a->seg_size));
}

/* The reader's side of ackpat_json_event(). */
static void ackpat_json_read_event(struct ji_ctx *x, const json_t *o, struct sum_event *e)
{
	struct ackpat_event *a = &e->u.ackpat;
	const char *names[ACKPAT_CLASS_COUNT];

	class_names(names);
	a->acks = (uint32_t)ji_int(x, o, "acks");
	a->n[0] = (uint32_t)ji_int(x, o, "acks_1");
	a->n[1] = (uint32_t)ji_int(x, o, "acks_2");
	a->n[2] = (uint32_t)ji_int(x, o, "acks_3plus");
	a->advice = ji_str(x, o, "advice", false);
	a->max_segs = (uint32_t)ji_int(x, o, "max_segments");
	a->oversize = (uint64_t)ji_int(x, o, "oversize_segments");
	a->cls = (uint8_t)ji_enum(x, o, "pattern", names, ACKPAT_CLASS_COUNT);
	a->phase_acks = (uint32_t)ji_int(x, o, "phase_acks");
	a->push_acks = (uint32_t)ji_int(x, o, "push_acks");
	a->seg_size = (uint32_t)ji_int(x, o, "segment_size");
	e->segments = a->phase_acks;
}

static void ackpat_json_findings(struct jo_fields *f, const struct det_totals *t, bool known)
{
	if (known)
		jo_f_int(f, "ack_pattern_events", (int64_t)t->ackpat.events);
	else
		jo_f_null(f, "ack_pattern_events");
}

/* ---- text ---- */

static const char *pattern_words(uint8_t cls)
{
	return cls == ACKPAT_EVERY_SEGMENT ? "ACKs every segment" : "sends stretch ACKs";
}

/* One event as the text findings say it. */
static void text_event(FILE *out, const struct sum_event *e, const struct rep_run *run)
{
	const struct ackpat_event *a = &e->u.ackpat;
	char f0[64], f1[64], dur[32];
	uint32_t acks = a->acks ? a->acks : 1;

	rep_fmt_frame(f0, sizeof(f0), run, e->input, e->frame_first);
	rep_fmt_frame(f1, sizeof(f1), run, e->input, e->frame_last);
	rep_fmt_dur(dur, sizeof(dur), e->duration_ns);
	fprintf(out,
		"      conn %" PRIu64 " %s: the receiver %s: %.2f segments (%.0f B) per ACK over "
		"%" PRIu32 " ACK%s,\n"
		"          frames %s-%s (%s); ACKs covering 1/2/3+ segments: %" PRIu32
		" %%/%" PRIu32 " %%/%" PRIu32 " %%, at most %" PRIu32 "\n",
		e->conn, e->dir ? "s>c" : "c>s", pattern_words(a->cls),
		segs_per_ack(e->bytes, a->phase_acks, a->seg_size),
		per_ack(e->bytes, a->phase_acks), a->phase_acks, rep_plural(a->phase_acks), f0, f1,
		dur, (uint32_t)(100.0 * a->n[0] / acks + 0.5),
		(uint32_t)(100.0 * a->n[1] / acks + 0.5), (uint32_t)(100.0 * a->n[2] / acks + 0.5),
		a->max_segs);
}

static void ackpat_text(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	for (unsigned cls = ACKPAT_EVERY_SEGMENT; cls <= ACKPAT_STRETCH; cls += 2) {
		const char *advice = NULL;
		unsigned shown = 0, n = 0;

		for (size_t k = 0; k < d->nevents; k++)
			n += d->events[k].type == SUM_EV_ACK_PATTERN &&
			     d->events[k].u.ackpat.cls == cls;
		if (!n)
			continue;
		fprintf(out,
			"  ACK pattern: %u direction%s whose receiver %s (bulk transfer, "
			"quick-ACK phases left out):\n",
			n, rep_plural(n), pattern_words((uint8_t)cls));
		for (size_t k = 0; k < d->nevents; k++) {
			const struct sum_event *e = &d->events[k];
			if (e->type != SUM_EV_ACK_PATTERN || e->u.ackpat.cls != cls)
				continue;
			if (shown++ == ACKPAT_TEXT_EXAMPLES) {
				fputs("      ...\n", out);
				break;
			}
			text_event(out, e, run);
			if (!advice)
				advice = e->u.ackpat.advice;
		}
		if (advice)
			fprintf(out, "      %s\n", advice);
	}
}

/* ---- totals, --fail-on, the TUI ---- */

static void ackpat_add_conn(struct det_totals *dt, const struct sum_conn *c)
{
	for (unsigned d = 0; d < 2; d++) {
		const struct ackpat_dir_summary *s = &c->det.ackpat.dir[d];
		uint8_t cls = s->cls;
		dt->ackpat.dirs[cls < ACKPAT_CLASS_COUNT ? cls : ACKPAT_NONE]++;
		/* The events: one a direction of these two patterns whose
		 * counted ACKs are a fair share (ackpat.c, ackpat_finish()). */
		dt->ackpat.events += (cls == ACKPAT_EVERY_SEGMENT || cls == ACKPAT_STRETCH) &&
				     (uint64_t)s->all.acks * ACKPAT_EVENT_SHARE >=
					 (uint64_t)s->all.acks + s->excluded;
	}
}

static void ackpat_add_event(struct det_totals *dt, const struct sum_event *e)
{
	(void)e;
	dt->ackpat.events++;
}

static bool ackpat_any(const struct det_totals *t)
{
	return t->ackpat.events != 0;
}

static double ackpat_m_events(const struct det_totals *t)
{
	return (double)t->ackpat.events;
}

static const struct det_metric ackpat_metrics[] = {
    {"ack_pattern", NULL, ackpat_m_events},
};

static void ackpat_event_line(char *b, size_t n, const struct sum_event *e)
{
	const struct ackpat_event *a = &e->u.ackpat;

	snprintf(b, n, "receiver %s: %.2f seg/ACK over %" PRIu32 " ACKs", pattern_words(a->cls),
		 segs_per_ack(e->bytes, a->phase_acks, a->seg_size), a->phase_acks);
}

static enum det_tone ackpat_event_tone(const struct sum_event *e)
{
	(void)e;
	return DET_TONE_WARN;
}

static void ackpat_header(char *b, size_t n, const struct det_totals *t, bool wide)
{
	snprintf(b, n, wide ? "ack pattern %" PRIu64 : "ackp %" PRIu64, t->ackpat.events);
}

/* "ACK pattern c>s delayed 2.01, s>c -": what each direction's receiver did. */
static void ackpat_detail(char *b, size_t n, const struct sum_conn *s,
			  const struct det_totals *live, bool ended)
{
	char part[2][48];

	(void)live;
	if (!n)
		return;
	b[0] = '\0';
	if (!ended)
		return;
	for (unsigned d = 0; d < 2; d++) {
		const struct ackpat_dir_summary *a = &s->det.ackpat.dir[d];
		if (a->cls == ACKPAT_NONE)
			snprintf(part[d], sizeof(part[d]), "-");
		else
			snprintf(part[d], sizeof(part[d]), "%s %.2f seg/ACK", cls_name(a->cls),
				 segs_per_ack(a->all.bytes, a->all.acks, a->seg_size));
	}
	if (s->det.ackpat.dir[0].cls != ACKPAT_NONE || s->det.ackpat.dir[1].cls != ACKPAT_NONE)
		snprintf(b, n, "ACK pattern c>s %s, s>c %s", part[0], part[1]);
}

/* The long form's cell: "delayed 1.97 seg/ACK (316)", "-" when null. */
static void ackpat_dir_cell(char *b, size_t n, const struct sum_conn *c, unsigned dir)
{
	const struct ackpat_dir_summary *s = &c->det.ackpat.dir[dir];

	if (s->cls == ACKPAT_NONE || s->cls >= ACKPAT_CLASS_COUNT)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%s %.2f/ACK (%" PRIu32 ")", cls_name(s->cls),
			 segs_per_ack(s->all.bytes, s->all.acks, s->seg_size), s->all.acks);
}

const struct det_view ackpat_view = {
    .name = "ackpat",
    .conn_key = NULL, /* its member is in each direction's object */
    .dir_key = "ack_pattern",
    .json_dir = ackpat_json_dir,
    .json_read_dir = ackpat_json_read_dir,
    .dir_cell = ackpat_dir_cell,
    .json_event = ackpat_json_event,
    .json_findings = ackpat_json_findings,
    .json_read_event = ackpat_json_read_event,
    .add_conn = ackpat_add_conn,
    .add_event = ackpat_add_event,
    .any = ackpat_any,
    .text = ackpat_text,
    .metrics = ackpat_metrics,
    .nmetrics = sizeof(ackpat_metrics) / sizeof(ackpat_metrics[0]),
    .event_line = ackpat_event_line,
    .event_tone = ackpat_event_tone,
    .header_tone = DET_TONE_WARN,
    .header = ackpat_header,
    .ncolumns = 0,
    .detail = ackpat_detail,
};
