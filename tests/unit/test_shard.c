/* test_shard.c - unit tests of the --shard hash: SipHash-2-4 vectors, symmetry, fixed values. */
#include <stdlib.h>
#include <string.h>

#include "analyze/engine/shard.h"
#include "tests/unit/unit.h"

static struct dec_addr v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	struct dec_addr x = {.family = 4, .a = {a, b, c, d}};
	return x;
}

/* 2001:db8::LAST */
static struct dec_addr v6(uint8_t last)
{
	struct dec_addr x = {.family = 6, .a = {0x20, 0x01, 0x0d, 0xb8}};
	x.a[15] = last;
	return x;
}

/* The reference vectors of the SipHash paper (appendix A) and its
 * vectors.h: key 00 01 .. 0f, message 00 01 .. (len-1). */
static void test_siphash_vectors(void)
{
	uint8_t key[16], msg[64];
	for (int k = 0; k < 16; k++)
		key[k] = (uint8_t)k;
	for (int k = 0; k < 64; k++)
		msg[k] = (uint8_t)k;
	CHECK_EQ_U(shard_siphash24(key, msg, 15), 0xa129ca6149be45e5ull);
	CHECK_EQ_U(shard_siphash24(key, msg, 0), 0x726fdb47dd0e0e31ull);
	CHECK_EQ_U(shard_siphash24(key, msg, 8), 0x93f5f5799a932462ull);
	CHECK_EQ_U(shard_siphash24(key, msg, 63), 0x958a324ceb064572ull);
}

/* Values also computed by tests/shard/shardhash.py, written from tcpsift-analyze(1):
 * a change here breaks every shard list other tools made. */
static void test_fixed_values(void)
{
	struct dec_addr a = v4(10, 0, 0, 1), b = v4(10, 0, 0, 2);
	struct dec_addr c = v6(1), d = v6(2);

	CHECK_EQ_U(shard_hash(&a, 12345, &b, 80), 0x5b73ebff8b8cd83bull);
	CHECK_EQ_U(shard_hash(&c, 443, &d, 50000), 0xebd9a50e63a2db57ull);
}

static void test_symmetry(void)
{
	unsigned seen[4] = {0};

	for (unsigned k = 0; k < 4000; k++) {
		struct dec_addr a = v4(192, 168, (uint8_t)(k >> 8), (uint8_t)k);
		struct dec_addr b = v4(10, 1, 2, 3);
		uint16_t pa = (uint16_t)(32768 + k * 4), pb = 443;
		uint64_t h = shard_hash(&a, pa, &b, pb);

		if (h != shard_hash(&b, pb, &a, pa))
			CHECK(!"hash differs by direction");
		seen[h % 4]++;
	}
	/* Equal addresses: the ports decide the order. */
	struct dec_addr lo = v4(127, 0, 0, 1);
	CHECK(shard_hash(&lo, 1, &lo, 2) == shard_hash(&lo, 2, &lo, 1));
	struct dec_addr x = v6(9), y = v6(10);
	CHECK(shard_hash(&x, 7, &y, 7) == shard_hash(&y, 7, &x, 7));
	/* Ports 4 apart (a common ephemeral stride) still spread over 4 shards. */
	for (unsigned s = 0; s < 4; s++)
		CHECK(seen[s] > 800 && seen[s] < 1200);
}

static void test_packet_shard(void)
{
	struct dec_packet d;
	uint64_t h;

	memset(&d, 0, sizeof(d));
	d.src = v4(10, 0, 0, 2);
	d.dst = v4(10, 0, 0, 1);
	d.tcp.sport = 80;
	d.tcp.dport = 12345;
	h = 0x5b73ebff8b8cd83bull;
	CHECK_EQ_U(shard_of_packet(DEC_TCP, &d, 7), h % 7 + 1);
	CHECK_EQ_U(shard_of_packet(DEC_TCP, &d, 1), 1);
	CHECK_EQ_U(shard_of_packet(DEC_TCP, &d, 65536), h % 65536 + 1);

	/* An ICMP error quoting 10.0.0.1:12345 -> 10.0.0.2:80 goes with that connection. */
	memset(&d, 0, sizeof(d));
	d.src = v4(192, 0, 2, 1);
	d.dst = v4(10, 0, 0, 1);
	d.icmp.has_inner_ip = d.icmp.has_inner = true;
	d.icmp.inner_proto = 6;
	d.icmp.inner_src = v4(10, 0, 0, 1);
	d.icmp.inner_dst = v4(10, 0, 0, 2);
	d.icmp.inner_sport = 12345;
	d.icmp.inner_dport = 80;
	CHECK_EQ_U(shard_of_packet(DEC_ICMP, &d, 7), h % 7 + 1);
	d.icmp.inner_proto = 17; /* quoting UDP: no connection of ours */
	CHECK_EQ_U(shard_of_packet(DEC_ICMP, &d, 7), 1);
	d.icmp.inner_proto = 6;
	d.icmp.has_inner = false; /* ports not captured */
	CHECK_EQ_U(shard_of_packet(DEC_ICMP, &d, 7), 1);

	/* Not TCP, or malformed: shard 1. */
	CHECK_EQ_U(shard_of_packet(DEC_OTHER_IP, &d, 7), 1);
	CHECK_EQ_U(shard_of_packet(DEC_NOT_IP, &d, 7), 1);
	CHECK_EQ_U(shard_of_packet(DEC_ERR_TCP_TRUNC, &d, 7), 1);
}

int main(void)
{
	test_siphash_vectors();
	test_fixed_values();
	test_symmetry();
	test_packet_shard();
	return unit_done("test_shard");
}
