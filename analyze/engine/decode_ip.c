/* decode_ip.c - decoder: IPv4, IPv6 (extension headers), the TCP header and its options. */
#include "analyze/engine/decode_int.h"

/* ---- TCP ---- */

enum {
	TCPOPT_EOL = 0,
	TCPOPT_NOP = 1,
	TCPOPT_MSS = 2,
	TCPOPT_WSCALE = 3,
	TCPOPT_SACK_PERMITTED = 4,
	TCPOPT_SACK = 5,
	TCPOPT_TIMESTAMP = 8,
};

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

	*o = (struct dec_tcp_opts){0};
	if (cap > len)
		cap = len;
	/* NOP, NOP, timestamps: what nearly every segment of a connection
	 * with timestamps carries (RFC 7323 appendix A), read at once as
	 * Linux's tcp_parse_aligned_timestamp() does. */
	if (len == 12 && cap == 12 && ld_be32(p) == 0x0101080au) {
		o->tsval = ld_be32(p + 4);
		o->tsecr = ld_be32(p + 8);
		o->has_ts = 1;
		return;
	}

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

/* ---- IPv4, IPv6 ---- */

/* Walk IPv6 extension headers: see decode_int.h. */
int dec_ip6_ext(const uint8_t *p, uint32_t cap, uint32_t wire, uint8_t *nh, uint32_t *off,
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
			return DEC_EXT_DONE;
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
				return DEC_EXT_FRAG;
			}
		}
		next = p[o];
		o += hlen;
	}
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
int dec_ipv4(const uint8_t *p, uint32_t cap, uint32_t wire, struct dec_packet *d)
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
	d->ip_tos = p[1];
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
int dec_ipv6(const uint8_t *p, uint32_t cap, uint32_t wire, struct dec_packet *d)
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
	d->ip_tos = (uint8_t)((p[0] & 0x0fu) << 4 | p[1] >> 4);
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
	if (rc == DEC_EXT_FRAG)
		return DEC_FRAGMENT;
	return dec_l4(p + off, cap - off, tot - off, 6, d);
}
