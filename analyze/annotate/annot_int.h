/* annot_int.h - what annot.c (collecting) and annot_write.c (writing) share. */
#ifndef TCPSIFT_ANNOT_INT_H
#define TCPSIFT_ANNOT_INT_H

#include <stdbool.h>

#include "analyze/annotate/annot.h"

/* One comment for one frame: its text and tag in ann_set.text. */
struct ann_note {
	uint64_t frame;
	uint32_t input;
	uint32_t seq; /* arrival order: a frame's comments keep it */
	size_t comment, tag;
	uint32_t comment_len, tag_len;
};

struct ann_set {
	const struct idset *only;
	struct ann_note *notes; /* sorted by (input, frame, seq) after ann_sort() */
	size_t n, cap;
	char *text; /* the texts, each NUL-terminated */
	size_t text_len, text_cap;
	uint64_t seen;	  /* verdicts and findings taken (the tags' ids) */
	uint64_t dropped; /* beyond ANN_MAX_NOTES or out of memory */
};

/* Sort the notes by (input, frame, arrival) for the writer. */
void ann_sort(struct ann_set *a);

#endif
