/* connstore.h - the ended connections a text or JSON report prints at the end. */
#ifndef TCPSIFT_CONNSTORE_H
#define TCPSIFT_CONNSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/summary.h"

/*
 * Text and JSON list every connection in first-packet order (by id) after
 * the input ends, while connections end in any order. The store keeps
 * their summaries by id: in memory up to mem_cap bytes, beyond that in an
 * unlinked temporary file (in $TMPDIR, else /tmp) written at slot id - 1,
 * so a run's memory grows with its live connections, not with every
 * connection it saw (a million SYNs: 1.6 GB of summaries on disk, not in
 * RAM). cs_finish() hands back one array in id order, mapped from the
 * file when it spilled; cs_release() lets the pages of a stretch already
 * read go (a pointer into it stays valid: touching it reads the page
 * again), so a writer walking the array once keeps a bounded footprint.
 * The store owns its memory, file and mapping.
 */
struct cs_store;

/* NULL with a one-line reason in errbuf (out of memory). */
struct cs_store *cs_new(size_t mem_cap, char *errbuf, size_t errlen);

/* Keep c (its id >= 1). An id given again keeps the last, unless c is
 * the part of a connection that resumed after an eviction
 * (evicted_and_resumed): that joins the one kept (sum_conn_merge()), so
 * one row covers the whole connection. 0, ERR_NOMEM or ERR_SYSTEM (the
 * temporary file; errno set). */
int cs_put(struct cs_store *s, const struct sum_conn *c);

/* The summaries in id order (*n of them; ids never given are skipped).
 * After it, cs_put() must not be called. 0 or an error as cs_put(). */
int cs_finish(struct cs_store *s, const struct sum_conn **conns, size_t *n);

/* Done reading conns[from, to) for now (a hint; no-op in memory). */
void cs_release(const struct cs_store *s, size_t from, size_t to);

/* Did it spill to a file? (For tests and the progress line.) */
int cs_spilled(const struct cs_store *s);

void cs_free(struct cs_store *s); /* NULL is a no-op */

#endif
