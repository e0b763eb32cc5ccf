/* shard.h - which of N shards a connection belongs to: a symmetric, reproducible 4-tuple hash. */
#ifndef TCPSIFT_SHARD_H
#define TCPSIFT_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/decode.h"

/*
 * `analyze --shard K/N` keeps the connections whose hash falls in shard K.
 * The hash is documented in tcpsift-analyze(1) so that other tools can place a
 * connection without tcpsift; it is the same on every run, machine and
 * byte order, and the same for both directions of a connection:
 *
 *   SipHash-2-4 (Aumasson, Bernstein 2012), key = the 16 ASCII bytes
 *   "tcpsift-shard-v1", over the connection's canonical bytes:
 *
 *   offset      size     field
 *   0           1        IP version: 4 or 6
 *   1           L        lower endpoint's address, network byte order
 *   1+L         2        lower endpoint's port, big-endian
 *   3+L         L        higher endpoint's address
 *   3+2L        2        higher endpoint's port, big-endian
 *               (L = 4 for IPv4, 16 for IPv6: 13 or 37 bytes in all)
 *
 *   "lower" compares the addresses byte by byte, then the ports as numbers
 *   (the order of the flow table's key). Shard (1-based) = hash mod N + 1.
 *
 * Packets that belong to no connection (not TCP, malformed, an ICMP error
 * not quoting a TCP header with its ports) are shard 1's: every counter
 * then sums over the shards to the one-pass count.
 */

#define SHARD_MAX 65536u /* N of --shard K/N at most */

/* The SipHash-2-4 of len bytes at msg under a 16-byte key (also for tests). */
uint64_t shard_siphash24(const uint8_t key[16], const uint8_t *msg, size_t len);

/* The connection hash of the endpoints (a, pa) and (b, pb), in either order. */
uint64_t shard_hash(const struct dec_addr *a, uint16_t pa, const struct dec_addr *b, uint16_t pb);

/*
 * The shard (1..n) a decoded packet belongs to: status and d as dec_packet()
 * returned and filled them. A TCP segment: its connection's; an ICMP error
 * quoting a TCP segment: that segment's connection's; anything else: 1.
 */
uint32_t shard_of_packet(int status, const struct dec_packet *d, uint32_t n);

#endif
