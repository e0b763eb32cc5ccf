/* idset.h - a set of connection ids given on the command line ("3", "1,4-9"). */
#ifndef TCPSIFT_IDSET_H
#define TCPSIFT_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The ids a user picks with --conn: the numbers the report gives its
 * connections (sum_conn.id, "#3" in the text, "id" in JSON). Parsed once
 * into sorted, merged, disjoint ranges; membership is a binary search, so
 * a per-connection test costs O(log ranges). The set owns its ranges.
 */
#define IDSET_MAX_RANGES 4096

struct idset;

/* "3", "1,4-9", "7-" (7 and above), ids >= 1; NULL with errbuf saying why
 * (a bad list is a usage error, out of memory too rare to tell apart). */
struct idset *idset_parse(const char *list, char *errbuf, size_t errlen);
void idset_free(struct idset *s); /* NULL is a no-op */

bool idset_has(const struct idset *s, uint64_t id);

/* The number of ids when finite and small enough to count, else UINT64_MAX. */
uint64_t idset_count(const struct idset *s);

/* The smallest id in the set. */
uint64_t idset_first(const struct idset *s);

#endif
