/* diffmatch.h - tcpsift diff's pairing: two runs' connections matched by 4-tuple, by server
 * endpoint and first-packet order, or by that order alone. */
#ifndef TCPSIFT_DIFFMATCH_H
#define TCPSIFT_DIFFMATCH_H

#include <stddef.h>

#include "analyze/diff/diff.h"

/*
 * A rerun of a workload talks to the same servers in the same order from
 * new ephemeral ports. The server side of a connection is analyze's
 * (the side that received the SYN; without the handshake, the well-known
 * port, or the lower of two ephemeral ones), so a connection of A and one
 * of B with the same server address and port are the same step of the
 * workload when they come at the same place in the order of first
 * packets to that server.
 *
 *   AUTO      4-tuples in both runs pair first (a port reused within a
 *             run pairs in order), then ENDPOINT over what is left
 *   TUPLE     4-tuples only
 *   ENDPOINT  server endpoint, then the k-th of A's connections to it
 *             with the k-th of B's
 *   ORDER     the k-th connection of A with the k-th of B
 */

struct diffmatch_out {
	struct diff_pair *pairs; /* in A's first-packet order */
	size_t npairs;
	const struct diff_conn **only[2]; /* each side's leftovers, in first-packet order */
	size_t nonly[2];
};

/* Pair a[na] with b[nb] (each in first-packet order; borrowed: the pairs
 * point into them). 0 with out's arrays malloc'd (the caller frees them,
 * diffmatch_free()), or ERR_NOMEM with none. */
int diffmatch_pair(enum diff_match how, const struct diff_conn *a, size_t na,
		   const struct diff_conn *b, size_t nb, struct diffmatch_out *out);
void diffmatch_free(struct diffmatch_out *out);

#endif
