/* shard.c - SipHash-2-4 over a connection's canonical bytes, for --shard K/N. */
#include "analyze/engine/shard.h"

#include <string.h>

/* The key: the ASCII bytes of "tcpsift-shard-v1" (no terminating NUL). */
static const uint8_t shard_key[16] = {'t', 'c', 'p', 's', 'i', 'f', 't', '-',
				      's', 'h', 'a', 'r', 'd', '-', 'v', '1'};

/* Little-endian whatever the host: the hash must not depend on it. */
static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

static uint64_t rotl(uint64_t x, int b)
{
	return x << b | x >> (64 - b);
}

/* One SipRound over the state v[0..3]. */
static void sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = rotl(v[1], 13);
	v[1] ^= v[0];
	v[0] = rotl(v[0], 32);
	v[2] += v[3];
	v[3] = rotl(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = rotl(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = rotl(v[1], 17);
	v[1] ^= v[2];
	v[2] = rotl(v[2], 32);
}

/* The reference algorithm (https://www.aumasson.jp/siphash/siphash.pdf):
 * 2 compression rounds per 8-byte word, 4 finalization rounds. */
uint64_t shard_siphash24(const uint8_t key[16], const uint8_t *msg, size_t len)
{
	uint64_t k0 = le64(key), k1 = le64(key + 8);
	uint64_t v[4] = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
			 k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull};
	size_t whole = len - len % 8;

	for (size_t i = 0; i < whole; i += 8) {
		uint64_t m = le64(msg + i);
		v[3] ^= m;
		sipround(v);
		sipround(v);
		v[0] ^= m;
	}
	uint8_t last[8] = {0};
	memcpy(last, msg + whole, len % 8);
	last[7] = (uint8_t)len;
	uint64_t m = le64(last);
	v[3] ^= m;
	sipround(v);
	sipround(v);
	v[0] ^= m;
	v[2] ^= 0xff;
	for (int r = 0; r < 4; r++)
		sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

static uint8_t *put_endpoint(uint8_t *p, const struct dec_addr *a, size_t alen, uint16_t port)
{
	memcpy(p, a->a, alen);
	p += alen;
	*p++ = (uint8_t)(port >> 8);
	*p++ = (uint8_t)port;
	return p;
}

uint64_t shard_hash(const struct dec_addr *a, uint16_t pa, const struct dec_addr *b, uint16_t pb)
{
	uint8_t buf[1 + 2 * (16 + 2)];
	size_t alen = a->family == 6 ? 16 : 4;
	int cmp = memcmp(a->a, b->a, alen);

	if (cmp == 0)
		cmp = (int)pa - (int)pb;
	if (cmp > 0) {
		const struct dec_addr *ta = a;
		uint16_t tp = pa;
		a = b;
		pa = pb;
		b = ta;
		pb = tp;
	}
	buf[0] = alen == 16 ? 6 : 4;
	uint8_t *p = put_endpoint(buf + 1, a, alen, pa);
	p = put_endpoint(p, b, alen, pb);
	return shard_siphash24(shard_key, buf, (size_t)(p - buf));
}

uint32_t shard_of_packet(int status, const struct dec_packet *d, uint32_t n)
{
	uint64_t h;

	if (n <= 1)
		return 1;
	if (status == DEC_TCP)
		h = shard_hash(&d->src, d->tcp.sport, &d->dst, d->tcp.dport);
	else if (status == DEC_ICMP && d->icmp.has_inner && d->icmp.inner_proto == 6)
		h = shard_hash(&d->icmp.inner_src, d->icmp.inner_sport, &d->icmp.inner_dst,
			       d->icmp.inner_dport);
	else
		return 1;
	return (uint32_t)(h % n) + 1;
}
