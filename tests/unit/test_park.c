/* test_park.c - unit tests of the park: blocks packed without their zero bytes and back. */
#include <stdlib.h>
#include <string.h>

#include "analyze/engine/park.h"
#include "tests/unit/unit.h"

enum { FULL = 968, KEEP = 128 };

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A block whose bytes are non-zero with probability pct %. */
static void fill(uint8_t *b, unsigned pct)
{
	for (size_t k = 0; k < FULL; k++)
		b[k] = next_rand() % 100 < pct ? (uint8_t)(next_rand() | 1) : 0;
}

/* Random blocks of every density: each packs (or is refused when packing
 * would save too little) and unpacks to every byte it had; the kept bytes
 * read the same in the packed block. */
static void test_round_trip(void)
{
	struct park *pk = park_new(FULL, KEEP, 8);
	uint8_t src[FULL], out[FULL];
	unsigned packed = 0, refused = 0, same = 0, kept = 0;
	void *held[64];
	unsigned nheld = 0;

	CHECK(pk != NULL);
	for (unsigned pct = 0; pct <= 100; pct += 5) {
		for (unsigned n = 0; n < 40; n++) {
			fill(src, pct);
			void *p = park_pack(pk, src);
			if (!p) {
				refused++;
				continue;
			}
			packed++;
			kept += memcmp(p, src, KEEP) == 0;
			memset(out, 0xa5, sizeof(out));
			park_unpack(pk, p, out);
			same += memcmp(out, src, FULL) == 0;
			if (nheld < 64 && n % 3 == 0)
				held[nheld++] = p; /* some stay out while others come and go */
			else
				park_put(pk, p);
		}
	}
	CHECK_EQ_U(same, packed);
	CHECK_EQ_U(kept, packed);
	CHECK(packed > 400);  /* the sparse ones */
	CHECK(refused > 100); /* the dense ones: no saving */
	CHECK_EQ_U(park_blocks(pk), nheld);
	for (unsigned k = 0; k < nheld; k++)
		park_put(pk, held[k]);
	CHECK_EQ_U(park_blocks(pk), 0);
	CHECK_EQ_U(park_bytes(pk), 0);
	park_free(pk);
}

/* The sizes: an all-zero rest packs to the kept bytes, the size and the
 * tags, in the smallest class that holds them; a block that would save
 * less than a class step is refused; a word of one non-zero byte costs two. */
static void test_sizes(void)
{
	struct park *pk = park_new(FULL, KEEP, 8);
	uint8_t src[FULL];
	size_t words = (FULL - KEEP) / 8, tags = (words + 3) / 4;

	memset(src, 0, sizeof(src));
	memset(src, 0x11, KEEP);
	void *p = park_pack(pk, src);
	CHECK(p != NULL);
	CHECK_EQ_U(park_bytes(pk), (KEEP + 2 + tags + PARK_STEP - 1) / PARK_STEP * PARK_STEP);
	park_put(pk, p);
	for (size_t w = 0; w < words; w++)
		src[KEEP + 8 * w + w % 8] = 7; /* 2 bytes a word packed */
	p = park_pack(pk, src);
	CHECK(p != NULL);
	CHECK_EQ_U(park_bytes(pk),
		   (KEEP + 2 + tags + 2 * words + PARK_STEP - 1) / PARK_STEP * PARK_STEP);
	park_put(pk, p);
	fill(src, 100); /* random, no byte zero: nothing to save */
	CHECK(park_pack(pk, src) == NULL);
	CHECK_EQ_U(park_blocks(pk), 0);
	park_free(pk);

	/* Sizes it cannot pack. */
	CHECK(park_new(FULL + 1, KEEP, 8) == NULL);
	CHECK(park_new(FULL, FULL, 8) == NULL);
	CHECK(park_new(PARK_MAX + 8, KEEP, 8) == NULL);
	park_free(NULL);
	park_put(NULL, NULL);
}

/* A connection's kind of words: timestamps near the base word (the first
 * packet's time), a value repeated, pointers near each other. Each packs
 * to its mask and the bytes its XOR leaves: 4 for a timestamp within
 * 2^24 ns of the base, 1 for a repeat, 3 for a pointer within 2^16 of the
 * one before; every byte comes back. */
static void test_near_words(void)
{
	struct park *pk = park_new(FULL, KEEP, 8);
	uint8_t src[FULL], out[FULL];
	uint64_t base = 0x17979cfe646ad200ull, ptr = 0x00005a3a5b1fb930ull;
	size_t words = (FULL - KEEP) / 8, tags = (words + 3) / 4;

	memset(src, 0, sizeof(src));
	memcpy(src + 8, &base, 8);
	for (unsigned k = 0; k < 30; k++) {
		uint64_t ts = base + 1000u * k + 1, rtt = 100000, p = ptr + 0x100u * k;
		memcpy(src + KEEP + 24 * k, &ts, 8);	  /* 4 bytes: mask + 3 */
		memcpy(src + KEEP + 24 * k + 8, &rtt, 8); /* raw 4 once, then 1 */
		memcpy(src + KEEP + 24 * k + 16, &p, 8);  /* raw 7 once, then 3 */
	}
	void *p = park_pack(pk, src);
	CHECK(p != NULL);
	park_unpack(pk, p, out);
	CHECK(memcmp(src, out, FULL) == 0);
	/* ts: XOR the base (first one's low 3 bytes); rtt: raw then XOR a
	 * timestamp? No: the word before it is the timestamp, so raw (4); the
	 * pointer: raw first (7), then XOR the rtt? raw again (7): the word
	 * before a pointer is an rtt. So: 30 x (4 + 4 + 7) at most. */
	CHECK(park_bytes(pk) <=
	      (KEEP + 2 + tags + 30 * 15 + PARK_STEP - 1) / PARK_STEP * PARK_STEP);
	park_put(pk, p);

	/* Runs of one value: all but the first a byte. */
	memset(src + KEEP, 0, FULL - KEEP);
	for (size_t w = 0; w < words; w++) {
		uint64_t v = 0x0000a08601000000ull;
		memcpy(src + KEEP + 8 * w, &v, 8);
	}
	p = park_pack(pk, src);
	CHECK(p != NULL);
	park_unpack(pk, p, out);
	CHECK(memcmp(src, out, FULL) == 0);
	CHECK_EQ_U(park_bytes(pk),
		   (KEEP + 2 + tags + 4 + (words - 1) + PARK_STEP - 1) / PARK_STEP * PARK_STEP);
	park_put(pk, p);
	park_free(pk);
}

int main(void)
{
	test_round_trip();
	test_sizes();
	test_near_words();
	return unit_done("park");
}
