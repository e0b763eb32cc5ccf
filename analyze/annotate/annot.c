/* annot.c - the verdicts of a run, kept as comment texts by (input, frame). */
#include "analyze/annotate/annot_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/det_view.h"
#include "common/grow.h"

struct ann_set *ann_new(const struct idset *only, char *errbuf, size_t errlen)
{
	struct ann_set *a = calloc(1, sizeof(*a));

	if (!a) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	a->only = only;
	return a;
}

void ann_free(struct ann_set *a)
{
	if (!a)
		return;
	free(a->notes);
	free(a->text);
	free(a);
}

/* Room for one more note and len more bytes of text (false: none). */
static bool ann_room(struct ann_set *a, size_t len)
{
	return GROW(a->notes, a->cap, a->n + 1, 1024) == 0 &&
	       GROW(a->text, a->text_cap, a->text_len + len, 65536) == 0;
}

/* Keep comment and tag for frame of input (both NUL-terminated in text). */
static void ann_keep(struct ann_set *a, uint32_t input, uint64_t frame, const char *comment,
		     const char *tag)
{
	size_t lc = strlen(comment), lt = strlen(tag);

	if (a->n >= ANN_MAX_NOTES || !ann_room(a, lc + lt + 2)) {
		a->dropped++;
		return;
	}
	struct ann_note *x = &a->notes[a->n];
	x->input = input;
	x->frame = frame;
	x->seq = a->n;
	x->comment = a->text_len;
	x->comment_len = (uint32_t)lc;
	memcpy(a->text + a->text_len, comment, lc + 1);
	a->text_len += lc + 1;
	x->tag = a->text_len;
	x->tag_len = (uint32_t)lt;
	memcpy(a->text + a->text_len, tag, lt + 1);
	a->text_len += lt + 1;
	a->n++;
}

/* The tag's class word: a retransmission's kind, a finding's class. */
static void ann_class(char *b, size_t n, const struct sum_event *e)
{
	const struct det_view *dv = det_view_of_event(e->type);
	int k;

	b[0] = 0;
	if (e->type == SUM_EV_RETRANS)
		snprintf(b, n, " kind=%s%s",
			 sum_retrans_kind_name((enum sum_retrans_kind)e->u.frame.kind),
			 e->u.frame.spurious ? " spurious=1" : "");
	else if (dv && dv->event_class && (k = dv->event_class(e)) >= 0)
		snprintf(b, n, " class=%s", dv->class_name((unsigned)k));
}

/*
 * A verdict on one frame, or a finding over frames first..last: its line on
 * the first, and on the last (where a stall or a zero window ended) a line
 * that points back.
 */
static void ann_event(void *ctx, const struct sum_event *e)
{
	struct ann_set *a = ctx;
	char what[384], comment[448], tag[160], cls[64];

	if (!e->frame_first || (a->only && !idset_has(a->only, e->conn)))
		return;
	a->seen++;
	det_describe_event(what, sizeof(what), e);
	ann_class(cls, sizeof(cls), e);
	snprintf(tag, sizeof(tag), "id=%" PRIu64 " conn=%" PRIu64 " dir=%s type=%s%s", a->seen,
		 e->conn, sum_dir_name(e->dir), sum_event_name(e->type), cls);
	if (e->frame_last > e->frame_first)
		snprintf(comment, sizeof(comment),
			 "tcpsift: %s (conn %" PRIu64 " %s, until frame %" PRIu64 ")", what,
			 e->conn, sum_dir_name(e->dir), e->frame_last);
	else
		snprintf(comment, sizeof(comment), "tcpsift: %s (conn %" PRIu64 " %s)", what,
			 e->conn, sum_dir_name(e->dir));
	ann_keep(a, e->input, e->frame_first, comment, tag);
	if (e->frame_last > e->frame_first) {
		snprintf(comment, sizeof(comment),
			 "tcpsift: end of the %s from frame %" PRIu64 " (conn %" PRIu64 " %s)",
			 sum_event_name(e->type), e->frame_first, e->conn, sum_dir_name(e->dir));
		ann_keep(a, e->input, e->frame_last, comment, tag);
	}
}

struct sum_sink ann_sink(struct ann_set *a)
{
	return (struct sum_sink){.event = ann_event, .frame = ann_event, .ctx = a};
}

static int note_order(const void *x, const void *y)
{
	const struct ann_note *a = x, *b = y;

	if (a->input != b->input)
		return a->input < b->input ? -1 : 1;
	if (a->frame != b->frame)
		return a->frame < b->frame ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void ann_sort(struct ann_set *a)
{
	if (a->n)
		qsort(a->notes, a->n, sizeof(a->notes[0]), note_order);
}
