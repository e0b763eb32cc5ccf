/* pool.h - fixed-size blocks from slabs: per-connection state allocated on first need. */
#ifndef TCPSIFT_POOL_H
#define TCPSIFT_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A pool hands out blocks of one size. It takes memory from the system a
 * slab (many blocks) at a time and keeps returned blocks on a free list
 * threaded through them, so getting and putting a block is a few
 * instructions and memory follows the most blocks ever in use, not the
 * number of gets:
 *
 *   slabs:     [blk|blk|blk|blk ...] [blk|blk|blk ...]
 *   free list:  head -> blk -> blk -> ... -> NULL
 *
 * Slabs go back to the system only in pool_free(). Under AddressSanitizer
 * a block on the free list is poisoned: touching a block after
 * pool_put() is reported.
 */

struct pool;

/*
 * Memory several pools (and a flow table's chunks) may take from the
 * system together: a slab that would go beyond cap is not taken (the
 * get fails, counted). used is what they hold, slabs never returned but
 * in pool_free(): the real footprint, where blocks in use are not (a
 * connection's tables move between size classes, and each class keeps
 * the slabs of its own peak). cap 0: no limit. The owner keeps it alive
 * as long as its pools.
 */
struct pool_budget {
	size_t used, cap;
};

/* May the holders of b take bytes more? Then they are counted. */
static inline bool pool_budget_take(struct pool_budget *b, size_t bytes)
{
	if (!b)
		return true;
	if (b->cap && (bytes > b->cap || b->used > b->cap - bytes))
		return false;
	b->used += bytes;
	return true;
}

struct pool_stats {
	size_t block_size;   /* bytes of a block (at least the size asked for) */
	uint64_t in_use;     /* blocks handed out and not returned */
	uint64_t max_in_use; /* the most at one time */
	uint64_t slabs;	     /* slabs taken from the system */
	uint64_t failed;     /* pool_get() calls that found no memory */
};

/* A pool of blocks of size bytes (> 0), blocks_per_slab of them per slab
 * (0: a slab of about 64 KiB). NULL when out of memory. A block is aligned
 * for any type of size bytes; for a size that is no one type's (a header
 * and entries), for types of alignment 8 at most. */
struct pool *pool_new(size_t size, size_t blocks_per_slab);

/* A zeroed block, the caller's until pool_put(); NULL (counted in
 * pool_stats.failed) when no slab could be allocated. */
void *pool_get(struct pool *p);

/* As pool_get(), the block's bytes unspecified: for a user that writes
 * what it reads (a ring with a count) and is taken often enough that
 * zeroing the block would show. */
void *pool_get_raw(struct pool *p);

/* Slabs of p from now on count in b (NULL: none); before its first slab. */
void pool_set_budget(struct pool *p, struct pool_budget *b);

/* Return a block from pool_get() of the same pool; NULL is a no-op. */
void pool_put(struct pool *p, void *block);

const struct pool_stats *pool_stats(const struct pool *p);

/* Free every slab, blocks in use or not; NULL is a no-op. */
void pool_free(struct pool *p);

#endif
