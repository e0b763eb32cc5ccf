/* park.c - blocks packed small while nobody reads them: their zero bytes left out. */
#include "analyze/engine/park.h"
#include "analyze/engine/pool.h"

#include <stdlib.h>
#include <string.h>

enum {
	PARK_CLASSES = PARK_MAX / PARK_STEP + 1,
	PARK_SIZE_BYTES = 2, /* the packed size, after the kept bytes */
};

/* A word's 2-bit tag: how it is packed. */
enum { PARK_ZERO, PARK_RAW, PARK_PREV, PARK_BASE };

struct park {
	size_t full, keep, base_off, words, tags;
	struct pool_budget *budget;
	struct pool *pools[PARK_CLASSES]; /* by size / PARK_STEP, rounded up; taken on first need */
};

struct park *park_new(size_t full, size_t keep, size_t base_off)
{
	if (full > PARK_MAX || keep >= full || full % 8 || keep % 8 || base_off % 8 ||
	    base_off + 8 > keep)
		return NULL;
	struct park *pk = calloc(1, sizeof(*pk));
	if (!pk)
		return NULL;
	pk->full = full;
	pk->keep = keep;
	pk->base_off = base_off;
	pk->words = (full - keep) / 8;
	pk->tags = (pk->words + 3) / 4;
	return pk;
}

void park_set_budget(struct park *pk, struct pool_budget *b)
{
	pk->budget = b;
}

static size_t packed_size(const void *packed, size_t keep)
{
	uint16_t n;

	memcpy(&n, (const uint8_t *)packed + keep, sizeof(n));
	return n;
}

/* Which bytes of x are not zero: bit b for byte b (memory order), and how
 * many, without a loop or a popcount instruction (this build's target has
 * none: it would be a library call): each byte's top bit set when the byte
 * is not zero, then gathered into one byte by a multiply. */
static unsigned byte_mask(uint64_t x, unsigned *count)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7full, ones = 0x0101010101010101ull;
	uint64_t flags = ((((x & low7) + low7) | x) & ~low7) >> 7; /* 1 in each non-zero byte */

	*count = (unsigned)((flags * ones) >> 56);
	return (unsigned)((flags * 0x0102040810204080ull) >> 56);
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * Pack a word: against zero, the word before it that was not zero (a
 * count repeated, a pointer near the last) or the base word (a timestamp
 * near the connection's first), whichever leaves fewest bytes not zero;
 * its tag, then the byte mask and those bytes (little-endian words: byte b
 * is bits 8b..8b+7 on this machine and the unpacker's, the same process).
 */
static size_t pack_word(uint8_t *out, uint64_t v, uint64_t prev, uint64_t base, unsigned *tag)
{
	unsigned best, np, nb;
	uint64_t x = v;
	unsigned m = byte_mask(v, &best), mp = byte_mask(v ^ prev, &np),
		 mb = byte_mask(v ^ base, &nb);
	size_t n = 0;

	*tag = PARK_RAW;
	if (np < best)
		*tag = PARK_PREV, x = v ^ prev, m = mp, best = np;
	if (nb < best)
		*tag = PARK_BASE, x = v ^ base, m = mb;
	out[n++] = (uint8_t)m;
	for (unsigned b = 0; b < 8; b++, x >>= 8)
		if (m & (1u << b))
			out[n++] = (uint8_t)x;
	return n;
}

void *park_pack(struct park *pk, const void *src)
{
	/* The packed form is built here, then copied into a block of its size
	 * class: at most full - PARK_STEP bytes, plus one word's worth before
	 * the check below gives up. */
	uint8_t buf[PARK_MAX + 16] __attribute__((aligned(8)));
	const uint8_t *rest = (const uint8_t *)src + pk->keep;
	uint8_t *tags = buf + pk->keep + PARK_SIZE_BYTES;
	size_t pos = pk->keep + PARK_SIZE_BYTES + pk->tags, limit = pk->full - PARK_STEP;
	uint64_t prev = 0, base = load64((const uint8_t *)src + pk->base_off);

	memcpy(buf, src, pk->keep);
	memset(tags, 0, pk->tags);
	for (size_t w = 0; w < pk->words; w++, rest += 8) {
		uint64_t v = load64(rest);
		unsigned tag;
		if (!v)
			continue;
		if (pos + 9 > limit)
			return NULL; /* not worth packing */
		pos += pack_word(buf + pos, v, prev, base, &tag);
		tags[w / 4] |= (uint8_t)(tag << (2 * (w % 4)));
		prev = v;
	}
	uint16_t n = (uint16_t)pos;
	memcpy(buf + pk->keep, &n, sizeof(n));

	size_t cls = (pos + PARK_STEP - 1) / PARK_STEP;
	if (!pk->pools[cls]) {
		if (!(pk->pools[cls] = pool_new(cls * PARK_STEP, 0)))
			return NULL;
		pool_set_budget(pk->pools[cls], pk->budget);
	}
	void *block = pool_get_raw(pk->pools[cls]);
	if (block)
		memcpy(block, buf, pos);
	return block;
}

void park_unpack(const struct park *pk, const void *packed, void *dst)
{
	const uint8_t *p = packed, *tags = p + pk->keep + PARK_SIZE_BYTES;
	uint8_t *rest = (uint8_t *)dst + pk->keep;
	size_t pos = pk->keep + PARK_SIZE_BYTES + pk->tags;
	uint64_t prev = 0, base = load64(p + pk->base_off);

	memcpy(dst, packed, pk->keep);
	memset(rest, 0, pk->full - pk->keep);
	for (size_t w = 0; w < pk->words; w++) {
		unsigned tag = (tags[w / 4] >> (2 * (w % 4))) & 3;
		if (tag == PARK_ZERO)
			continue;
		unsigned mask = p[pos++];
		uint64_t x = 0;
		for (unsigned b = 0; b < 8; b++)
			if (mask & (1u << b))
				x |= (uint64_t)p[pos++] << (8 * b);
		uint64_t v = x ^ (tag == PARK_PREV ? prev : tag == PARK_BASE ? base : 0);
		memcpy(rest + 8 * w, &v, 8);
		prev = v;
	}
}

void park_put(struct park *pk, void *packed)
{
	if (packed)
		pool_put(pk->pools[(packed_size(packed, pk->keep) + PARK_STEP - 1) / PARK_STEP],
			 packed);
}

uint64_t park_blocks(const struct park *pk)
{
	uint64_t n = 0;

	for (size_t c = 0; c < PARK_CLASSES; c++)
		n += pk->pools[c] ? pool_stats(pk->pools[c])->in_use : 0;
	return n;
}

size_t park_bytes(const struct park *pk)
{
	size_t n = 0;

	for (size_t c = 0; c < PARK_CLASSES; c++)
		if (pk->pools[c])
			n +=
			    pool_stats(pk->pools[c])->in_use * pool_stats(pk->pools[c])->block_size;
	return n;
}

void park_free(struct park *pk)
{
	if (!pk)
		return;
	for (size_t c = 0; c < PARK_CLASSES; c++)
		pool_free(pk->pools[c]);
	free(pk);
}
