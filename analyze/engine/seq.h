/* seq.h - wrap-safe TCP sequence arithmetic (RFC 9293 3.4, RFC 1982). */
#ifndef TCPSIFT_SEQ_H
#define TCPSIFT_SEQ_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Sequence numbers live on a 2^32 circle: a is "before" b when the signed
 * 32-bit distance from a to b is positive, as Linux's before()/after() do.
 * Meaningful only for numbers less than 2^31 apart, which a TCP window
 * (at most 2^30 bytes with wscale 14) guarantees.
 */
static inline int32_t seq_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

static inline bool seq_lt(uint32_t a, uint32_t b)
{
	return seq_diff(a, b) < 0;
}

static inline bool seq_le(uint32_t a, uint32_t b)
{
	return seq_diff(a, b) <= 0;
}

static inline bool seq_gt(uint32_t a, uint32_t b)
{
	return seq_diff(a, b) > 0;
}

static inline bool seq_ge(uint32_t a, uint32_t b)
{
	return seq_diff(a, b) >= 0;
}

static inline uint32_t seq_max(uint32_t a, uint32_t b)
{
	return seq_gt(a, b) ? a : b;
}

static inline uint32_t seq_min(uint32_t a, uint32_t b)
{
	return seq_lt(a, b) ? a : b;
}

/* 16-bit serial comparison for IPv4 IP IDs (RFC 1982 with SERIAL_BITS 16). */
static inline int16_t ipid_diff(uint16_t a, uint16_t b)
{
	return (int16_t)(uint16_t)(a - b);
}

#endif
