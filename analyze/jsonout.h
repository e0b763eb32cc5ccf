/* jsonout.h - fast serializer of Jansson values, byte-identical to json_dumps(). */
#ifndef TCPSIFT_JSONOUT_H
#define TCPSIFT_JSONOUT_H

#include <jansson.h>
#include <stddef.h>

/*
 * Reports are built as Jansson values; json_dumpb() then spends most of the
 * time of a large --json run formatting numbers with snprintf and emitting
 * one character at a time through a callback. jo_dump() writes the same
 * bytes as json_dumps(v, JSON_SORT_KEYS | JSON_REAL_PRECISION(16) |
 * JSON_ENCODE_ANY | JSON_INDENT(indent) or JSON_COMPACT) into a growable
 * buffer (tests/unit/test_jsonout.c proves it on every value kind).
 *
 * The buffer owns its memory; reuse it across values, free it once.
 */
struct jo_buf {
	char *p;
	size_t len, cap;
};

/* Append v to b. indent > 0: pretty, that many spaces a level; 0: compact.
 * Returns 0, or -ENOMEM (b keeps what was written). */
int jo_dump(struct jo_buf *b, const json_t *v, int indent);

void jo_reset(struct jo_buf *b); /* len = 0, memory kept */
void jo_free(struct jo_buf *b);	 /* NULL-safe; b is then empty */

#endif
