/* pool.c - fixed-size blocks from slabs, with a free list through the free blocks. */
#include "analyze/engine/pool.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POOL_POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POOL_POISON(p, n)   ((void)(p), (void)(n))
#define POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

enum { POOL_SLAB_BYTES = 64 * 1024 };

/* A slab: this header, then its blocks. The slabs form a list for pool_free(). */
struct pool_slab {
	struct pool_slab *next;
	max_align_t align[]; /* the blocks start here */
};

/* A block on the free list holds the link to the next one. */
struct pool_free_block {
	struct pool_free_block *next;
};

struct pool {
	struct pool_stats st;
	size_t per_slab;
	struct pool_free_block *free_head;
	struct pool_slab *slabs;
	struct pool_budget *budget;
};

static size_t slab_bytes(const struct pool *p)
{
	return sizeof(struct pool_slab) + p->per_slab * p->st.block_size;
}

void pool_set_budget(struct pool *p, struct pool_budget *b)
{
	p->budget = b;
}

struct pool *pool_new(size_t size, size_t blocks_per_slab)
{
	struct pool *p;
	/* Blocks of a multiple of 8 bytes, not of 16 (max_align_t): a block
	 * then starts at a multiple of the largest power of two (up to 16)
	 * that divides its size, and a type's size is a multiple of its
	 * alignment, so any type of that size fits. Two directions' 24-byte
	 * TSval rings took 32 bytes each. */
	size_t align = 8;

	if (size == 0 || size > POOL_SLAB_BYTES * (size_t)1024)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (size < sizeof(struct pool_free_block))
		size = sizeof(struct pool_free_block);
	p->st.block_size = (size + align - 1) / align * align;
	p->per_slab = blocks_per_slab ? blocks_per_slab : POOL_SLAB_BYTES / p->st.block_size;
	if (p->per_slab == 0)
		p->per_slab = 1;
	return p;
}

/* Take a slab from the system and put its blocks on the free list. */
static int pool_grow(struct pool *p)
{
	size_t bs = p->st.block_size;
	if (!pool_budget_take(p->budget, slab_bytes(p)))
		return ERR_NOMEM;
	struct pool_slab *s = malloc(slab_bytes(p));

	if (!s) {
		if (p->budget)
			p->budget->used -= slab_bytes(p);
		return ERR_NOMEM;
	}
	s->next = p->slabs;
	p->slabs = s;
	p->st.slabs++;
	/* Pushed last block first: blocks are then handed out in address order. */
	for (size_t k = p->per_slab; k-- > 0;) {
		struct pool_free_block *b = (struct pool_free_block *)((char *)s->align + k * bs);
		b->next = p->free_head;
		p->free_head = b;
		POOL_POISON(b, bs);
	}
	return 0;
}

void *pool_get_raw(struct pool *p)
{
	struct pool_free_block *b;

	if (!p->free_head && (pool_grow(p) < 0 || !p->free_head)) {
		p->st.failed++;
		return NULL;
	}
	b = p->free_head;
	POOL_UNPOISON(b, p->st.block_size);
	p->free_head = b->next;
	if (++p->st.in_use > p->st.max_in_use)
		p->st.max_in_use = p->st.in_use;
	return b;
}

void *pool_get(struct pool *p)
{
	void *b = pool_get_raw(p);

	if (b)
		memset(b, 0, p->st.block_size);
	return b;
}

void pool_put(struct pool *p, void *block)
{
	struct pool_free_block *b = block;

	if (!block)
		return;
	b->next = p->free_head;
	p->free_head = b;
	p->st.in_use--;
	POOL_POISON(b, p->st.block_size);
}

const struct pool_stats *pool_stats(const struct pool *p)
{
	return &p->st;
}

void pool_free(struct pool *p)
{
	if (!p)
		return;
	while (p->slabs) {
		struct pool_slab *s = p->slabs;
		p->slabs = s->next;
		POOL_UNPOISON(s, slab_bytes(p));
		free(s);
		if (p->budget)
			p->budget->used -= slab_bytes(p);
	}
	free(p);
}
