/* decode.c - bounds-checked decoding of one captured packet: dec_packet() and the link layers. */
#include "analyze/engine/decode.h"

#include <stddef.h>
#include <string.h>

#include "analyze/engine/decode_int.h"
#include "common/pkt.h"

/* The link layers; every layer is handed (p, cap, wire): see decode_int.h. */

enum {
	ETH_HLEN = 14,
	SLL_HLEN = 16,
	SLL2_HLEN = 20,
	NULL_HLEN = 4,
};

enum {
	ETHERTYPE_8021Q = 0x8100,
	ETHERTYPE_8021AD = 0x88a8,
	ETHERTYPE_QINQ1 = 0x9100, /* pre-802.1ad vendor S-tag TPIDs */
	ETHERTYPE_QINQ2 = 0x9200,
	ETHERTYPE_PPPOE_SESS = 0x8864,
	PPP_IPV4 = 0x0021,
	PPP_IPV6 = 0x0057,
	ARPHRD_CAN = 280,
	ARPHRD_NETLINK = 824,
};

/* BSD loopback AF_* values: AF_INET is 2 everywhere, AF_INET6 is not. */
enum {
	BSD_AF_INET = 2,
	BSD_AF_INET6_LINUX = 10,
	BSD_AF_INET6_BSD = 24, /* NetBSD, OpenBSD, BSD/OS */
	BSD_AF_INET6_FREEBSD = 28,
	BSD_AF_INET6_DARWIN = 30,
};

static const char *const dec_ok_names[DEC_STATUS_COUNT] = {
    [DEC_TCP] = "tcp",		 [DEC_ICMP] = "icmp",	  [DEC_FRAGMENT] = "fragment",
    [DEC_OTHER_IP] = "other_ip", [DEC_NOT_IP] = "not_ip",
};

static const char *const dec_err_names[DEC_ERR_COUNT] = {
    [-DEC_ERR_LINKTYPE] = "unknown_linktype", [-DEC_ERR_LINK_TRUNC] = "link_truncated",
    [-DEC_ERR_IP_TRUNC] = "ip_truncated",     [-DEC_ERR_IP_BAD] = "ip_bad",
    [-DEC_ERR_IP6_EXT] = "ip6_ext_bad",	      [-DEC_ERR_TCP_TRUNC] = "tcp_truncated",
    [-DEC_ERR_TCP_BAD] = "tcp_bad",	      [-DEC_ERR_ICMP_TRUNC] = "icmp_truncated",
    [-DEC_ERR_LINK_BAD] = "link_bad",
};

const char *dec_status_name(int status)
{
	if (status >= 0 && status < DEC_STATUS_COUNT)
		return dec_ok_names[status];
	if (status < 0 && status > -DEC_ERR_COUNT)
		return dec_err_names[-status];
	return "invalid";
}

/* PPPoE session stage, RFC 2516 4 (VER/TYPE 1/1, CODE 0), then PPP (RFC 1661 2). */
static int dec_pppoe(const uint8_t *p, uint32_t cap, uint32_t wire, struct dec_packet *d)
{
	uint32_t hlen = 8;
	uint16_t proto;

	if (cap < 7)
		return DEC_ERR_LINK_TRUNC;
	if (p[0] != 0x11 || p[1] != 0x00)
		return DEC_ERR_LINK_BAD;
	proto = p[6];
	if ((proto & 1u) != 0) {
		hlen = 7; /* Protocol-Field-Compression: odd first byte is the whole field */
	} else {
		if (cap < 8)
			return DEC_ERR_LINK_TRUNC;
		proto = ld_be16(p + 6);
	}
	/* LENGTH counts the PPP protocol field and the payload: bytes past it
	 * are Ethernet padding, never data (RFC 2516 4). */
	uint32_t len = 6u + ld_be16(p + 4);
	if (len < hlen || len > wire)
		return DEC_ERR_LINK_BAD;
	wire = len;
	if (cap > len)
		cap = len;
	d->encap_len_bound = true;
	switch (proto) {
	case PPP_IPV4:
		return dec_ipv4(p + hlen, cap - hlen, wire - hlen, d);
	case PPP_IPV6:
		return dec_ipv6(p + hlen, cap - hlen, wire - hlen, d);
	default:
		return DEC_NOT_IP;
	}
}

/* Dispatch on an EtherType, crossing 802.1Q/802.1ad/QinQ tags and PPPoE. */
static int dec_ethertype(const uint8_t *p, uint32_t cap, uint32_t wire, uint16_t etype,
			 struct dec_packet *d)
{
	for (unsigned n = 0;; n++) {
		d->ethertype = etype;
		switch (etype) {
		case ETHERTYPE_IPV4:
			return dec_ipv4(p, cap, wire, d);
		case ETHERTYPE_IPV6:
			return dec_ipv6(p, cap, wire, d);
		case ETHERTYPE_8021Q:
		case ETHERTYPE_8021AD:
		case ETHERTYPE_QINQ1:
		case ETHERTYPE_QINQ2:
			if (n == DEC_MAX_VLAN)
				return DEC_ERR_LINK_BAD;
			if (cap < 4)
				return DEC_ERR_LINK_TRUNC;
			if (d->vlan_depth < 2)
				d->vlan_id[d->vlan_depth] = ld_be16(p) & 0x0fffu; /* TCI: VID */
			d->vlan_depth++;
			etype = ld_be16(p + 2);
			p += 4;
			cap -= 4;
			wire -= 4;
			break;
		case ETHERTYPE_PPPOE_SESS:
			return dec_pppoe(p, cap, wire, d);
		default: /* ARP, LLDP, 802.3 lengths, SLL's special protocols, ... */
			return DEC_NOT_IP;
		}
	}
}

/* Linux cooked headers: the protocol is an EtherType except for these. */
static inline bool sll_is_ethertype(uint16_t hatype)
{
	return hatype != ARPHRD_NETLINK && hatype != ARPHRD_CAN;
}

/* BSD loopback: the AF_* value; any AF_INET6 of any BSD, and Linux's 10. */
static int dec_null(const uint8_t *p, uint32_t cap, uint32_t wire, uint32_t af,
		    struct dec_packet *d)
{
	/* Host order of the writer: a value with high bits set was byte-swapped. */
	if ((af & 0xffff0000u) != 0)
		af = __builtin_bswap32(af);
	switch (af) {
	case BSD_AF_INET:
		return dec_ipv4(p, cap, wire, d);
	case BSD_AF_INET6_LINUX:
	case BSD_AF_INET6_BSD:
	case BSD_AF_INET6_FREEBSD:
	case BSD_AF_INET6_DARWIN:
		return dec_ipv6(p, cap, wire, d);
	default:
		return DEC_NOT_IP;
	}
}

/* Raw IP: the version nibble decides. */
static int dec_raw(const uint8_t *p, uint32_t cap, uint32_t wire, struct dec_packet *d)
{
	if (cap < 1)
		return DEC_ERR_IP_TRUNC;
	switch (p[0] >> 4) {
	case 4:
		return dec_ipv4(p, cap, wire, d);
	case 6:
		return dec_ipv6(p, cap, wire, d);
	default:
		return DEC_ERR_IP_BAD;
	}
}

int dec_packet(const uint8_t *data, uint32_t caplen, uint32_t wirelen, uint32_t linktype,
	       struct dec_packet *d)
{
	uint32_t wire = wirelen < caplen ? caplen : wirelen; /* damaged files: keep cap <= wire */
	uint16_t v;

	/* Only the L2/L3 prefix: tcp/icmp are filled by their parsers. */
	memset(d, 0, offsetof(struct dec_packet, tcp));
	d->sll_pkttype = -1;

	switch (linktype) {
	case PKT_LINKTYPE_ETHERNET:
		if (caplen < ETH_HLEN)
			return DEC_ERR_LINK_TRUNC;
		return dec_ethertype(data + ETH_HLEN, caplen - ETH_HLEN, wire - ETH_HLEN,
				     ld_be16(data + 12), d);
	case PKT_LINKTYPE_LINUX_SLL:
		/* pkttype(2) hatype(2) halen(2) addr(8) protocol(2) */
		if (caplen < SLL_HLEN)
			return DEC_ERR_LINK_TRUNC;
		v = ld_be16(data);
		d->sll_pkttype = v <= INT16_MAX ? (int16_t)v : -1;
		if (!sll_is_ethertype(ld_be16(data + 2)))
			return DEC_NOT_IP;
		return dec_ethertype(data + SLL_HLEN, caplen - SLL_HLEN, wire - SLL_HLEN,
				     ld_be16(data + 14), d);
	case PKT_LINKTYPE_LINUX_SLL2:
		/* protocol(2) reserved(2) ifindex(4) hatype(2) pkttype(1) halen(1) addr(8) */
		if (caplen < SLL2_HLEN)
			return DEC_ERR_LINK_TRUNC;
		d->sll_pkttype = data[10];
		if (!sll_is_ethertype(ld_be16(data + 8)))
			return DEC_NOT_IP;
		return dec_ethertype(data + SLL2_HLEN, caplen - SLL2_HLEN, wire - SLL2_HLEN,
				     ld_be16(data), d);
	case PKT_LINKTYPE_NULL:
	case PKT_LINKTYPE_LOOP:
		if (caplen < NULL_HLEN)
			return DEC_ERR_LINK_TRUNC;
		return dec_null(data + NULL_HLEN, caplen - NULL_HLEN, wire - NULL_HLEN,
				linktype == PKT_LINKTYPE_NULL ? ld_le32(data) : ld_be32(data), d);
	case PKT_LINKTYPE_RAW:
	case PKT_LINKTYPE_DLT_RAW_OLD:
	case PKT_LINKTYPE_DLT_RAW_OLD2:
		return dec_raw(data, caplen, wire, d);
	case PKT_LINKTYPE_IPV4:
		return dec_ipv4(data, caplen, wire, d);
	case PKT_LINKTYPE_IPV6:
		return dec_ipv6(data, caplen, wire, d);
	default:
		return DEC_ERR_LINKTYPE;
	}
}

bool dec_linktype_supported(uint32_t linktype)
{
	switch (linktype) {
	case PKT_LINKTYPE_ETHERNET:
	case PKT_LINKTYPE_LINUX_SLL:
	case PKT_LINKTYPE_LINUX_SLL2:
	case PKT_LINKTYPE_NULL:
	case PKT_LINKTYPE_LOOP:
	case PKT_LINKTYPE_RAW:
	case PKT_LINKTYPE_DLT_RAW_OLD:
	case PKT_LINKTYPE_DLT_RAW_OLD2:
	case PKT_LINKTYPE_IPV4:
	case PKT_LINKTYPE_IPV6:
		return true;
	default:
		return false;
	}
}

/*
 * An IPv4 address as struct dec_addr holds it, in two 8-byte stores: the
 * reader hashes the tuple (workers.c) with 8-byte loads right after, and
 * a load that spans several smaller stores (a memset, then the address)
 * cannot be forwarded from them: it waits for them to retire (perf put
 * 60 % of wk_packet's samples on that load).
 */
static inline void peek_addr4(struct dec_addr *a, const uint8_t *p)
{
	uint8_t lo[8] = {0}, hi[8] = {0};

	memcpy(lo, p, 4);
	a->family = 4;
	memcpy(a->a, lo, 8);
	memcpy(a->a + 8, hi, 8);
}

/* An IPv4 header at p (cap >= 1, its version 4): DEC_PEEK_TCP with the
 * TCP header's offset in *hlen, or what dec_peek_tuple() says instead:
 * the checks dec_ipv4() makes before it reads the tuple, and no more. */
static inline int peek_ip4(const uint8_t *p, uint32_t cap, uint32_t *hlen)
{
	*hlen = (uint32_t)(p[0] & 0x0f) * 4u;
	if (*hlen < IP4_MIN_HLEN || cap < *hlen + 4)
		return DEC_PEEK_NONE; /* ip_bad, ip_ or tcp_truncated */
	if ((ld_be16(p + 6) & 0x3fffu) != 0)
		return DEC_PEEK_NONE; /* a fragment */
	if (p[9] == IPP_ICMP)
		return DEC_PEEK_UNSURE; /* may quote a TCP segment */
	return p[9] == IPP_TCP ? DEC_PEEK_TCP : DEC_PEEK_NONE;
}

bool dec_peek_eth4(const uint8_t *d, uint32_t caplen, uint32_t linktype, uint8_t src[4],
		   uint8_t dst[4], uint16_t *sport, uint16_t *dport)
{
	const uint8_t *p = d + ETH_HLEN;
	uint32_t hlen;

	if (linktype != PKT_LINKTYPE_ETHERNET || caplen < ETH_HLEN + 1 ||
	    ld_be16(d + 12) != ETHERTYPE_IPV4 || p[0] >> 4 != 4 ||
	    peek_ip4(p, caplen - ETH_HLEN, &hlen) != DEC_PEEK_TCP)
		return false;
	memcpy(src, p + 12, 4);
	memcpy(dst, p + 16, 4);
	*sport = ld_be16(p + hlen);
	*dport = ld_be16(p + hlen + 2);
	return true;
}

/* dec_peek_tuple() from the IP header at p on: the checks dec_ipv4() and
 * dec_ipv6() make before they read the tuple, and no more. */
static int peek_ip(const uint8_t *p, uint32_t cap, struct dec_packet *t)
{
	if (cap < 1)
		return DEC_PEEK_NONE; /* ip_truncated */
	if (p[0] >> 4 == 4) {
		uint32_t hlen;
		int st = peek_ip4(p, cap, &hlen);
		if (st != DEC_PEEK_TCP)
			return st;
		peek_addr4(&t->src, p + 12);
		peek_addr4(&t->dst, p + 16);
		t->tcp.sport = ld_be16(p + hlen);
		t->tcp.dport = ld_be16(p + hlen + 2);
		return DEC_PEEK_TCP;
	}
	if (p[0] >> 4 != 6)
		return DEC_PEEK_NONE; /* ip_bad */
	if (cap < IP6_HLEN + 4)
		return DEC_PEEK_NONE;
	if (p[6] == IPP_UDP)
		return DEC_PEEK_NONE;
	if (p[6] != IPP_TCP)
		return DEC_PEEK_UNSURE; /* ICMPv6, extension headers */
	set_addr(&t->src, 6, p + 8);
	set_addr(&t->dst, 6, p + 24);
	t->tcp.sport = ld_be16(p + IP6_HLEN);
	t->tcp.dport = ld_be16(p + IP6_HLEN + 2);
	return DEC_PEEK_TCP;
}

int dec_peek_tuple(const uint8_t *data, uint32_t caplen, uint32_t linktype, struct dec_packet *t)
{
	uint32_t off;
	uint16_t etype;

	switch (linktype) {
	case PKT_LINKTYPE_ETHERNET:
		if (caplen < ETH_HLEN + 4)
			return DEC_PEEK_UNSURE;
		etype = ld_be16(data + 12);
		off = ETH_HLEN;
		if (etype == ETHERTYPE_8021Q) {
			etype = ld_be16(data + 16);
			off += 4;
		}
		break;
	case PKT_LINKTYPE_LINUX_SLL:
		if (caplen < SLL_HLEN || !sll_is_ethertype(ld_be16(data + 2)))
			return DEC_PEEK_UNSURE;
		etype = ld_be16(data + 14);
		off = SLL_HLEN;
		break;
	case PKT_LINKTYPE_RAW:
	case PKT_LINKTYPE_DLT_RAW_OLD:
	case PKT_LINKTYPE_DLT_RAW_OLD2:
	case PKT_LINKTYPE_IPV4:
	case PKT_LINKTYPE_IPV6:
		/* dec_ipv4/6 check the version nibble themselves */
		if (caplen < 1 || (data[0] >> 4 != 4 && data[0] >> 4 != 6))
			return DEC_PEEK_UNSURE;
		if ((linktype == PKT_LINKTYPE_IPV4 && data[0] >> 4 != 4) ||
		    (linktype == PKT_LINKTYPE_IPV6 && data[0] >> 4 != 6))
			return DEC_PEEK_NONE; /* ip_bad */
		return peek_ip(data, caplen, t);
	default:
		return DEC_PEEK_UNSURE;
	}
	if (etype != ETHERTYPE_IPV4 && etype != ETHERTYPE_IPV6)
		return DEC_PEEK_UNSURE;
	/* The version nibble must match the EtherType, as dec_ipv4/6 check. */
	if (caplen > off && (data[off] >> 4) != (etype == ETHERTYPE_IPV4 ? 4 : 6))
		return DEC_PEEK_NONE;
	return peek_ip(data + off, caplen - off, t);
}
