/* decode_int.h - internal to the decoder: what its pieces (decode*.c) share. */
#ifndef TCPSIFT_DECODE_INT_H
#define TCPSIFT_DECODE_INT_H

/*
 * Internal: only analyze/engine/decode*.c include this; the contract is
 * decode.h. One module in three files, one layer each:
 *
 *   decode.c       dec_packet(): the link layers (Ethernet, VLAN tags,
 *                  PPPoE, Linux cooked, BSD loopback, raw IP) down to the
 *                  network layer; status names
 *   decode_ip.c    IPv4, IPv6 and its extension headers, the TCP header and
 *                  its options
 *   decode_icmp.c  ICMP / ICMPv6 errors and the packet they quote
 *
 * Per packet, a call crosses a file once: the link layer's call of
 * dec_ipv4() / dec_ipv6(), out of line before the split too.
 *
 * Every layer is handed (p, cap, wire): p points at the first byte of the layer,
 * cap is how many bytes from p were captured and wire how many the layer had
 * on the wire (cap <= wire always holds). A layer reads p[0 .. cap-1] only,
 * and checks a length against wire before cap: a length that is wrong on the
 * wire is malformed (*_BAD), one that merely runs past the snaplen is *_TRUNC.
 * Lengths are compared by subtraction so that no sum can wrap.
 */

#include <stdint.h>
#include <string.h>

#include "analyze/engine/decode.h"

enum {
	IP4_MIN_HLEN = 20,
	IP6_HLEN = 40,
	TCP_MIN_HLEN = 20,
	ICMP_HLEN = 8,
	QUOTED_L4_LEN = 8, /* RFC 792: "Internet Header + 64 bits of Data Datagram" */
};

enum {
	ETHERTYPE_IPV4 = 0x0800,
	ETHERTYPE_IPV6 = 0x86dd,
};

enum {
	IPP_HOPOPTS = 0,
	IPP_ICMP = 1,
	IPP_TCP = 6,
	IPP_UDP = 17,
	IPP_DCCP = 33,
	IPP_ROUTING = 43,
	IPP_FRAGMENT = 44,
	IPP_ESP = 50,
	IPP_AH = 51,
	IPP_ICMPV6 = 58,
	IPP_NONE = 59,
	IPP_DSTOPTS = 60,
	IPP_SCTP = 132,
	IPP_MH = 135,
	IPP_UDPLITE = 136,
	IPP_HIP = 139,
	IPP_SHIM6 = 140,
	IPP_EXP1 = 253, /* RFC 3692 experimentation and testing */
	IPP_EXP2 = 254,
};

static inline uint16_t ld_be16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t ld_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint32_t ld_le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Fill an address; the bytes past an IPv4 address must already be zero. */
static inline void set_addr(struct dec_addr *a, uint8_t family, const uint8_t *p)
{
	a->family = family;
	memcpy(a->a, p, family == 4 ? 4 : 16);
}

/* ---- decode_ip.c ---- */

/* The IPv4 / IPv6 packet at p (cap captured of wire bytes) and what it carries. */
int dec_ipv4(const uint8_t *p, uint32_t cap, uint32_t wire, struct dec_packet *d);
int dec_ipv6(const uint8_t *p, uint32_t cap, uint32_t wire, struct dec_packet *d);

/*
 * Walk IPv6 extension headers (RFC 8200 4) of the IPv6 packet at p, from
 * *off with Next Header *nh, to the upper-layer header: on return *nh is its
 * protocol and *off its offset (<= cap). Stops early after a Fragment header
 * that is not atomic (RFC 8200 4.5, RFC 6946), returning DEC_EXT_FRAG with
 * *frag_off its fragment offset in bytes. ESP and No Next Header end the walk
 * like an upper layer: nothing after them can be parsed.
 */
enum { DEC_EXT_DONE = 0, DEC_EXT_FRAG = 1 };

int dec_ip6_ext(const uint8_t *p, uint32_t cap, uint32_t wire, uint8_t *nh, uint32_t *off,
		uint32_t *frag_off);

/* ---- decode_icmp.c ---- */

/*
 * ICMP (RFC 792) and ICMPv6 (RFC 4443). Frag-needed carries the next-hop MTU
 * in bytes 6-7 (RFC 1191 4), Packet Too Big a 32-bit MTU in bytes 4-7
 * (RFC 8201, RFC 4443 3.2). Error messages quote the offending packet.
 */
int dec_icmp(const uint8_t *p, uint32_t cap, uint32_t wire, uint8_t version, struct dec_packet *d);

#endif
