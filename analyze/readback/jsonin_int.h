/* jsonin_int.h - internal to the report reader: what its pieces (jsonin*.c) share. */
#ifndef TCPSIFT_JSONIN_INT_H
#define TCPSIFT_JSONIN_INT_H

/*
 * Internal: only analyze/readback/jsonin*.c include this; the contract is
 * jsonin.h. One module in three files:
 *
 *   jsonin.c        interned strings (struct ji_pool) and the member
 *                   readers every piece is read with (ji_get, ji_int, ...)
 *   jsonin_piece.c  the pieces: a connection (its directions, endpoints,
 *                   path), an event, an input, the run's summary
 *   jsonin_file.c   the text pre-pass that keeps times exact
 *                   (ji_quote_reals) and the files: a --json document
 *                   walked piece by piece, an --ndjson stream line by line
 */

#include "analyze/readback/jsonin.h"

/* Distinct strings a file may hold (reasons, paths, names): bounded so a
 * hostile file cannot grow it without end. */
enum { JI_POOL_MAX = 4096, JI_LINE_MAX = 64 << 20 };

/* s interned in p: an equal string already there, or a copy; NULL when
 * the pool is full (JI_POOL_MAX) or out of memory. */
const char *ji_pool_intern(struct ji_pool *p, const char *s);

#endif
