/* jsonout_int.h - internal to the JSON writer: what its pieces (jsonout*.c) share. */
#ifndef TCPSIFT_JSONOUT_INT_H
#define TCPSIFT_JSONOUT_INT_H

/*
 * Internal: only analyze/report/jsonout*.c include this; the contract is
 * jsonout.h. One module in three files:
 *
 *   jsonout.c         the buffer and the streaming writer: separators,
 *                     indentation, keys, strings, containers, flushing
 *   jsonout_num.c     numbers as JSON text: integers, reals, exact seconds
 *   jsonout_fields.c  objects whose members come in another order than
 *                     the keys' (struct jo_fields, jo_w_named_counts()),
 *                     sorted before they are written through jsonout.c
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/report/jsonout.h"

/* The first error sticks (jsonout.h): rc < 0 is kept with where the buffer
 * stood, later ones are dropped. Inline: every value written checks. */
static inline void jo_fail(struct jo_writer *w, int rc)
{
	if (rc < 0 && !w->err) {
		w->err = rc;
		w->err_at = w->b.len;
	}
}

/* No byte of s[0..n) needs an escape in a JSON string. */
bool jo_plain(const char *s, size_t n);

/* jo_fmt_real()'s reference by printf: what it falls back to where its
 * exact fast path does not reach, and what the tests hold it to. */
size_t jo_fmt_real_printf(char *buf, double v);

#endif
