/* decode.c - bounds-checked L2/L3/L4 decoding of one captured packet. */
#include "analyze/engine/decode.h"

#include <stddef.h>
#include <string.h>

#include "common/pkt.h"

/*
 * Every layer is handed (p, cap, wire): p points at the first byte of the layer,
 * cap is how many bytes from p were captured and wire how many the layer had
 * on the wire (cap <= wire always holds). A layer reads p[0 .. cap-1] only,
 * and checks a length against wire before cap: a length that is wrong on the
 * wire is malformed (*_BAD), one that merely runs past the snaplen is *_TRUNC.
 * Lengths are compared by subtraction so that no sum can wrap.
 */

enum {
	ETH_HLEN = 14,
	SLL_HLEN = 16,
	SLL2_HLEN = 20,
	NULL_HLEN = 4,
	IP4_MIN_HLEN = 20,
	IP6_HLEN = 40,
	TCP_MIN_HLEN = 20,
	ICMP_HLEN = 8,
	QUOTED_L4_LEN = 8, /* RFC 792: "Internet Header + 64 bits of Data Datagram" */
};

enum {
	ETHERTYPE_IPV4 = 0x0800,
	ETHERTYPE_IPV6 = 0x86dd,
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

enum {
	TCPOPT_EOL = 0,
	TCPOPT_NOP = 1,
	TCPOPT_MSS = 2,
	TCPOPT_WSCALE = 3,
	TCPOPT_SACK_PERMITTED = 4,
	TCPOPT_SACK = 5,
	TCPOPT_TIMESTAMP = 8,
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

/*
 * TCP options, RFC 9293 section 3.2: kinds 0 (EOL) and 1 (NOP) are one byte,
 * every other kind is kind, length (counting both), data. A length below 2 or
 * past the option area makes the rest unparseable (malformed); past the
 * captured bytes, unknowable (truncated). A known kind with a length other
 * than its RFC's is skipped by its length and flagged malformed.
 */
void dec_tcp_options(const uint8_t *p, uint32_t len, uint32_t cap, struct dec_tcp_opts *o)
{
	uint32_t i = 0;

	o->mss = 0;
	o->wscale = 0;
	o->nsack = 0;
	o->tsval = 0;
	o->tsecr = 0;
	o->has_mss = 0;
	o->has_wscale = 0;
	o->sack_permitted = 0;
	o->has_ts = 0;
	o->has_sack = 0;
	o->malformed = 0;
	o->truncated = 0;
	if (cap > len)
		cap = len;

	while (i < len) {
		uint8_t kind, olen;

		if (i >= cap) {
			o->truncated = 1;
			return;
		}
		kind = p[i];
		if (kind == TCPOPT_EOL)
			return;
		if (kind == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (len - i < 2) {
			o->malformed = 1;
			return;
		}
		if (cap - i < 2) {
			o->truncated = 1;
			return;
		}
		olen = p[i + 1];
		if (olen < 2 || olen > len - i) {
			o->malformed = 1;
			return;
		}
		if (olen > cap - i) {
			o->truncated = 1;
			return;
		}
		switch (kind) {
		case TCPOPT_MSS: /* RFC 9293 3.2 */
			if (olen != 4)
				goto bad_len;
			o->mss = ld_be16(p + i + 2);
			o->has_mss = 1;
			break;
		case TCPOPT_WSCALE: /* RFC 7323 2.2; shift kept raw, > 14 is the reader's call */
			if (olen != 3)
				goto bad_len;
			o->wscale = p[i + 2];
			o->has_wscale = 1;
			break;
		case TCPOPT_SACK_PERMITTED: /* RFC 2018 2 */
			if (olen != 2)
				goto bad_len;
			o->sack_permitted = 1;
			break;
		case TCPOPT_SACK: { /* RFC 2018 3: 2 + 8n bytes, n blocks */
			uint32_t n = (olen - 2u) / 8u;

			if ((olen - 2u) % 8u != 0 || n == 0 || n > DEC_MAX_SACK)
				goto bad_len;
			for (uint32_t k = 0; k < n; k++) {
				o->sack[k].left = ld_be32(p + i + 2 + 8 * k);
				o->sack[k].right = ld_be32(p + i + 6 + 8 * k);
			}
			o->nsack = (uint8_t)n;
			o->has_sack = 1;
			break;
		}
		case TCPOPT_TIMESTAMP: /* RFC 7323 3.2 */
			if (olen != 10)
				goto bad_len;
			o->tsval = ld_be32(p + i + 2);
			o->tsecr = ld_be32(p + i + 6);
			o->has_ts = 1;
			break;
		default:
			break;
		}
		i += olen;
		continue;
	bad_len:
		o->malformed = 1;
		i += olen;
	}
}

/*
 * TCP header, RFC 9293 3.1. p/cap/wire span the IP payload; the payload
 * length comes from the IP length (wire), payload_cap from what was captured.
 */
static int dec_tcp(const uint8_t *p, uint32_t cap, uint32_t wire, struct dec_packet *d)
{
	struct dec_tcp *t = &d->tcp;
	uint32_t hlen;

	if (wire < TCP_MIN_HLEN)
		return DEC_ERR_TCP_BAD;
	if (cap < TCP_MIN_HLEN)
		return DEC_ERR_TCP_TRUNC;
	hlen = (uint32_t)(p[12] >> 4) * 4u;
	if (hlen < TCP_MIN_HLEN || hlen > wire)
		return DEC_ERR_TCP_BAD;

	t->sport = ld_be16(p);
	t->dport = ld_be16(p + 2);
	t->seq = ld_be32(p + 4);
	t->ack = ld_be32(p + 8);
	t->flags = p[13];
	t->window = ld_be16(p + 14);
	t->hdr_len = (uint16_t)hlen;
	dec_tcp_options(p + TCP_MIN_HLEN, hlen - TCP_MIN_HLEN, cap - TCP_MIN_HLEN, &t->opt);
	t->payload_len = wire - hlen;
	if (cap > hlen) {
		t->payload_cap = cap - hlen;
		t->payload = p + hlen;
	} else {
		t->payload_cap = 0;
		t->payload = p + cap; /* at most one past the captured bytes */
	}
	return DEC_TCP;
}

/*
 * Walk IPv6 extension headers (RFC 8200 4) of the IPv6 packet at p, from
 * *off with Next Header *nh, to the upper-layer header: on return *nh is its
 * protocol and *off its offset (<= cap). Stops early after a Fragment header
 * that is not atomic (RFC 8200 4.5, RFC 6946), returning EXT_FRAG with
 * *frag_off its fragment offset in bytes. ESP and No Next Header end the walk
 * like an upper layer: nothing after them can be parsed.
 */
enum { EXT_DONE = 0, EXT_FRAG = 1 };

static int dec_ip6_ext(const uint8_t *p, uint32_t cap, uint32_t wire, uint8_t *nh, uint32_t *off,
		       uint32_t *frag_off)
{
	uint32_t o = *off;
	uint8_t next = *nh;

	for (unsigned n = 0;; n++) {
		uint32_t hlen;

		switch (next) {
		case IPP_HOPOPTS:
		case IPP_ROUTING:
		case IPP_DSTOPTS:
		case IPP_FRAGMENT:
		case IPP_AH:
		case IPP_MH:
		case IPP_HIP:
		case IPP_SHIM6:
		case IPP_EXP1:
		case IPP_EXP2:
			break;
		default:
			*nh = next;
			*off = o;
			return EXT_DONE;
		}
		if (n == DEC_MAX_IP6_EXT || wire - o < 2)
			return DEC_ERR_IP6_EXT;
		if (cap - o < 2)
			return DEC_ERR_IP_TRUNC;
		if (next == IPP_FRAGMENT)
			hlen = 8; /* RFC 8200 4.5: fixed size */
		else if (next == IPP_AH)
			hlen = ((uint32_t)p[o + 1] + 2u) * 4u; /* RFC 4302 2.2: 32-bit words - 2 */
		else
			hlen = ((uint32_t)p[o + 1] + 1u) * 8u; /* RFC 8200 4.3-4.6, RFC 6564 */
		if (hlen > wire - o)
			return DEC_ERR_IP6_EXT;
		if (hlen > cap - o)
			return DEC_ERR_IP_TRUNC;
		if (next == IPP_FRAGMENT) {
			uint16_t fo = ld_be16(p + o + 2);

			/* offset (13 bits, 8-octet units) or M flag: a real fragment */
			if ((fo & 0xfff9u) != 0) {
				*nh = p[o];
				*off = o + hlen;
				*frag_off = fo & 0xfff8u;
				return EXT_FRAG;
			}
		}
		next = p[o];
		o += hlen;
	}
}

/* Parse the IP packet an ICMP error quotes (RFC 792, RFC 4443 2.4 (c)). */
static void dec_quoted(const uint8_t *p, uint32_t n, uint8_t version, struct dec_icmp *ic)
{
	uint32_t off, frag_off;
	uint8_t proto;

	if (n < 1 || p[0] >> 4 != version)
		return;
	if (version == 4) {
		uint32_t hlen = (uint32_t)(p[0] & 0x0f) * 4u;

		if (hlen < IP4_MIN_HLEN || hlen > n)
			return;
		set_addr(&ic->inner_src, 4, p + 12);
		set_addr(&ic->inner_dst, 4, p + 16);
		proto = p[9];
		frag_off = (ld_be16(p + 6) & 0x1fffu) * 8u;
		off = hlen;
	} else {
		if (n < IP6_HLEN)
			return;
		set_addr(&ic->inner_src, 6, p + 8);
		set_addr(&ic->inner_dst, 6, p + 24);
		proto = p[6];
		off = IP6_HLEN;
		frag_off = 0;
		/*
		 * A first fragment carries the whole header chain (RFC 8200 4.5):
		 * walk on past its Fragment header; a later one holds no L4 header.
		 */
		for (unsigned k = 0;; k++) {
			int rc = dec_ip6_ext(p, n, n, &proto, &off, &frag_off);

			if (rc < 0 || k == DEC_MAX_IP6_EXT)
				return;
			if (rc == EXT_DONE || frag_off != 0)
				break;
		}
	}
	ic->inner_proto = proto;
	ic->has_inner_ip = true;
	if (frag_off != 0 || n - off < QUOTED_L4_LEN)
		return;
	switch (proto) {
	case IPP_TCP:
		ic->inner_seq = ld_be32(p + off + 4);
		/* fall through */
	case IPP_UDP:
	case IPP_SCTP:
	case IPP_DCCP:
	case IPP_UDPLITE:
		ic->inner_sport = ld_be16(p + off);
		ic->inner_dport = ld_be16(p + off + 2);
		break;
	default:
		break;
	}
	ic->has_inner = true;
}

/*
 * ICMP (RFC 792) and ICMPv6 (RFC 4443). Frag-needed carries the next-hop MTU
 * in bytes 6-7 (RFC 1191 4), Packet Too Big a 32-bit MTU in bytes 4-7
 * (RFC 8201, RFC 4443 3.2). Error messages quote the offending packet.
 */
static int dec_icmp(const uint8_t *p, uint32_t cap, uint32_t wire, uint8_t version,
		    struct dec_packet *d)
{
	struct dec_icmp *ic = &d->icmp;
	bool quotes;

	if (wire < ICMP_HLEN || cap < ICMP_HLEN)
		return DEC_ERR_ICMP_TRUNC;
	memset(ic, 0, sizeof(*ic));
	ic->type = p[0];
	ic->code = p[1];
	if (version == 4) {
		if (ic->type == 3 && ic->code == 4)
			ic->mtu = ld_be16(p + 6);
		/* unreachable, source quench, redirect, time exceeded, parameter problem */
		quotes = ic->type == 3 || ic->type == 4 || ic->type == 5 || ic->type == 11 ||
			 ic->type == 12;
	} else {
		if (ic->type == 2)
			ic->mtu = ld_be32(p + 4);
		quotes = ic->type >= 1 && ic->type <= 4; /* error messages: type < 128 */
	}
	if (quotes)
		dec_quoted(p + ICMP_HLEN, cap - ICMP_HLEN, version, ic);
	return DEC_ICMP;
}

static int dec_l4(const uint8_t *p, uint32_t cap, uint32_t wire, uint8_t version,
		  struct dec_packet *d)
{
	switch (d->l4proto) {
	case IPP_TCP:
		return dec_tcp(p, cap, wire, d);
	case IPP_ICMP:
		return version == 4 ? dec_icmp(p, cap, wire, 4, d) : DEC_OTHER_IP;
	case IPP_ICMPV6:
		return version == 6 ? dec_icmp(p, cap, wire, 6, d) : DEC_OTHER_IP;
	default:
		return DEC_OTHER_IP;
	}
}

/* IPv4, RFC 791 3.1. Options are skipped; fragments are not reassembled. */
static int dec_ipv4(const uint8_t *p, uint32_t cap, uint32_t wire, struct dec_packet *d)
{
	uint32_t hlen, tot;
	uint16_t fo;

	d->ethertype = ETHERTYPE_IPV4;
	if (cap < 1)
		return DEC_ERR_IP_TRUNC;
	hlen = (uint32_t)(p[0] & 0x0f) * 4u;
	if (p[0] >> 4 != 4 || hlen < IP4_MIN_HLEN)
		return DEC_ERR_IP_BAD;
	if (cap < hlen)
		return DEC_ERR_IP_TRUNC;

	set_addr(&d->src, 4, p + 12);
	set_addr(&d->dst, 4, p + 16);
	d->ip_ttl = p[8];
	d->ip_id = ld_be16(p + 4);
	fo = ld_be16(p + 6);
	d->ip_df = (fo & 0x4000u) != 0;
	d->l4proto = p[9];

	tot = ld_be16(p + 2);
	if (tot == 0) {
		/* TSO/GSO or BIG TCP frame captured before segmentation (tcpdump). */
		tot = wire;
		d->ip_len_presumed = true;
	} else if (tot > wire && tot >= hlen && d->encap_len_bound) {
		/* The encapsulation's own length (PPPoE, RFC 2516) is the
		 * authority: the IP header overstates, so read what is there. */
		tot = wire;
		d->ip_len_clamped = true;
	} else if (tot < hlen || tot > wire) {
		return DEC_ERR_IP_BAD;
	}
	d->l3_len = tot;
	if ((fo & 0x3fffu) != 0) /* MF or a fragment offset */
		return DEC_FRAGMENT;
	return dec_l4(p + hlen, min_u32(cap, tot) - hlen, tot - hlen, 4, d);
}

/* IPv6, RFC 8200 3; extension headers walked per RFC 8200 4. */
static int dec_ipv6(const uint8_t *p, uint32_t cap, uint32_t wire, struct dec_packet *d)
{
	uint32_t tot, off = IP6_HLEN, frag_off = 0;
	uint8_t nh;
	int rc;

	d->ethertype = ETHERTYPE_IPV6;
	if (cap < 1)
		return DEC_ERR_IP_TRUNC;
	if (p[0] >> 4 != 6)
		return DEC_ERR_IP_BAD;
	if (cap < IP6_HLEN)
		return DEC_ERR_IP_TRUNC;

	set_addr(&d->src, 6, p + 8);
	set_addr(&d->dst, 6, p + 24);
	d->ip_ttl = p[7];
	nh = p[6];
	d->l4proto = nh;

	tot = ld_be16(p + 4);
	if (tot == 0 && nh != IPP_NONE) {
		/* RFC 2675 jumbogram or BIG TCP: as for IPv4 length 0, trust the frame. */
		tot = wire;
		d->ip_len_presumed = true;
	} else if (tot > wire - IP6_HLEN && d->encap_len_bound) {
		tot = wire; /* as for IPv4: the PPPoE length is the authority */
		d->ip_len_clamped = true;
	} else if (tot > wire - IP6_HLEN) {
		return DEC_ERR_IP_BAD;
	} else {
		tot += IP6_HLEN;
	}
	d->l3_len = tot;
	cap = min_u32(cap, tot);

	rc = dec_ip6_ext(p, cap, tot, &nh, &off, &frag_off);
	if (rc < 0)
		return rc;
	d->l4proto = nh;
	if (rc == EXT_FRAG)
		return DEC_FRAGMENT;
	return dec_l4(p + off, cap - off, tot - off, 6, d);
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
