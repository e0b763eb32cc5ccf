/* hash.h - a 64-bit mixer for the id-keyed open-addressing tables. */
#ifndef TCPSIFT_HASH_H
#define TCPSIFT_HASH_H

#include <stdint.h>

/* MurmurHash3's fmix64 finalizer: every input bit moves every output bit,
 * so sequential connection ids spread over a power-of-two table. */
static inline uint64_t hash_mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

#endif
