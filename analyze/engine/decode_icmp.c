/* decode_icmp.c - decoder: ICMP / ICMPv6 errors and the packet they quote (PMTU findings). */
#include "analyze/engine/decode_int.h"

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
			if (rc == DEC_EXT_DONE || frag_off != 0)
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

/* ICMP and ICMPv6: see decode_int.h. */
int dec_icmp(const uint8_t *p, uint32_t cap, uint32_t wire, uint8_t version, struct dec_packet *d)
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
