/* park.h - blocks packed small while nobody reads them: their zero bytes left out. */
#ifndef TCPSIFT_PARK_H
#define TCPSIFT_PARK_H

#include <stddef.h>
#include <stdint.h>

/*
 * An idle connection keeps its state, but not in the layout its packets
 * need: most of its bytes are zero (counters of what never happened, NULL
 * pointers, empty rings), and most of the rest repeat a word before them
 * (a minimum and a maximum RTT, pointers into one slab) or its first
 * timestamp's high bytes. A park packs a block of `full` bytes into a
 * smaller one and back, every byte restored:
 *
 *   [the first `keep` bytes as they are][u16 packed size]
 *   [2 bits a word of the rest: zero, raw, XOR the word before it that was
 *    not zero, XOR the base word (8 bytes at base_off among the kept)]
 *   [each word not zero: a byte mask of what the XOR left, then those bytes]
 *
 * so that what a reader of the packed block needs (a table's links and
 * key) stays in place. Packed blocks come from pools of size classes
 * PARK_STEP bytes apart: memory follows the packed sizes, taken from the
 * system a slab at a time (pool.h) and counted in a budget if one is set.
 */

enum {
	PARK_STEP = 32,	 /* bytes between size classes */
	PARK_MAX = 4096, /* the largest full block */
};

struct park;
struct pool_budget;

/* Packs blocks of full bytes keeping their first keep, the words of the
 * rest compared with the kept word at base_off (all multiples of 8, keep <
 * full <= PARK_MAX, base_off + 8 <= keep); NULL when out of memory or the
 * sizes are not that. */
struct park *park_new(size_t full, size_t keep, size_t base_off);

/* Slabs taken from now on count in b (NULL: none). */
void park_set_budget(struct park *pk, struct pool_budget *b);

/* A packed copy of the full block at src, or NULL: no memory, or it would
 * save less than PARK_STEP bytes (the caller keeps the full block). */
void *park_pack(struct park *pk, const void *src);

/* The full block packed at packed, written to dst (full bytes). */
void park_unpack(const struct park *pk, const void *packed, void *dst);

/* Return a block park_pack() gave. NULL is a no-op. */
void park_put(struct park *pk, void *packed);

/* Blocks in use and the bytes of their size classes. */
uint64_t park_blocks(const struct park *pk);
size_t park_bytes(const struct park *pk);

void park_free(struct park *pk); /* NULL is a no-op */

#endif
