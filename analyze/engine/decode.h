/* decode.h - bounds-checked L2/L3/L4 decoding of one captured packet. */
#ifndef TCPSIFT_DECODE_H
#define TCPSIFT_DECODE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * dec_packet() walks link layer -> IPv4/IPv6 (extension headers skipped) ->
 * TCP (options parsed) or ICMP/ICMPv6 (the quoted packet's 5-tuple and TCP
 * sequence parsed, for PMTU findings). It reads packet bytes only through a
 * bounded cursor, never casts them onto structs and never trusts a length
 * field: every rejection is a negative enum dec_status the caller counts.
 *
 * Lengths: the TCP payload length comes from the IP header (what was on the
 * wire); payload_cap is how much of it the capture kept (snaplen cut).
 * An IPv4 total length of 0 is what Linux GSO/TSO and BIG TCP super-frames
 * carry when captured before segmentation; then, as tcpdump does, the length
 * is presumed from the frame's wire length (ip_len_presumed is set). The same
 * holds for an IPv6 payload length of 0 (RFC 2675 jumbogram, BIG TCP).
 * An IP length longer than the frame's wire length is DEC_ERR_IP_BAD; bytes
 * past the IP length (Ethernet padding, FCS) are ignored.
 *
 * Which fields of struct dec_packet are defined after a call:
 *   - the L2 and L3 fields, always: zero (sll_pkttype -1) unless decoding
 *     reached and filled them, whatever the status;
 *   - d->tcp only when DEC_TCP is returned, d->icmp only when DEC_ICMP is;
 *     d->tcp.opt.sack[i] only for i < nsack.
 */

enum dec_status {
	DEC_TCP = 0,  /* a TCP segment; d->tcp valid */
	DEC_ICMP,     /* ICMP/ICMPv6; d->icmp valid */
	DEC_FRAGMENT, /* IPv4 fragment or IPv6 Fragment header: not reassembled */
	DEC_OTHER_IP, /* UDP, SCTP, ...: counted, not analyzed */
	DEC_NOT_IP,   /* ARP, LLDP, ...: counted, not analyzed */
	DEC_STATUS_COUNT,

	/* Malformed: negative, one per reason, each counted by name. */
	DEC_ERR_LINKTYPE = -1,	 /* link type we cannot decode */
	DEC_ERR_LINK_TRUNC = -2, /* capture ends inside the link header */
	DEC_ERR_IP_TRUNC = -3,	 /* capture ends inside the IP header(s) */
	DEC_ERR_IP_BAD = -4,	 /* bad version / IHL / total length */
	DEC_ERR_IP6_EXT = -5,	 /* IPv6 extension header chain runs past the packet */
	DEC_ERR_TCP_TRUNC = -6,	 /* capture ends inside the fixed TCP header */
	DEC_ERR_TCP_BAD = -7,	 /* data offset < 5 or past the IP payload */
	DEC_ERR_ICMP_TRUNC = -8, /* ICMP header cut */
	DEC_ERR_LINK_BAD = -9,	 /* more than DEC_MAX_VLAN tags, bad PPPoE version */
};
#define DEC_ERR_COUNT 10 /* index -status into a counter array; 0 unused */

#define DEC_MAX_VLAN	8  /* VLAN tags crossed before DEC_ERR_LINK_BAD */
#define DEC_MAX_IP6_EXT 16 /* IPv6 extension headers walked before DEC_ERR_IP6_EXT */

/* Whether dec_packet() decodes this LINKTYPE_* at all. */
bool dec_linktype_supported(uint32_t linktype);

/* Name of a status for reports: "tcp", "fragment", "ip_truncated", ... */
const char *dec_status_name(int status);

/* An address of either family; IPv4 sits in the first 4 bytes, rest zero. */
struct dec_addr {
	uint8_t family; /* 4 or 6 */
	uint8_t a[16];
};

/* Two addresses' 16 bytes (dec_addr.a) equal: two word compares, not a
 * call of memcmp, on every packet's lookup. */
static inline bool dec_addr_eq(const uint8_t *x, const uint8_t *y)
{
	uint64_t a[2], b[2];

	__builtin_memcpy(a, x, 16);
	__builtin_memcpy(b, y, 16);
	return ((a[0] ^ b[0]) | (a[1] ^ b[1])) == 0;
}

enum dec_tcp_flag {
	DEC_TH_FIN = 0x01,
	DEC_TH_SYN = 0x02,
	DEC_TH_RST = 0x04,
	DEC_TH_PSH = 0x08,
	DEC_TH_ACK = 0x10,
	DEC_TH_URG = 0x20,
	DEC_TH_ECE = 0x40,
	DEC_TH_CWR = 0x80,
};

#define DEC_MAX_SACK 4 /* 40 option bytes hold at most 4 SACK blocks (RFC 2018) */

struct dec_sack_block {
	uint32_t left, right; /* [left, right) as sent, absolute sequence */
};

/* TCP options (RFC 9293 3.2, RFC 7323, RFC 2018). has_* say which were present. */
struct dec_tcp_opts {
	uint16_t mss;
	uint8_t wscale;
	uint8_t nsack;
	uint32_t tsval, tsecr;
	struct dec_sack_block sack[DEC_MAX_SACK];
	unsigned has_mss : 1, has_wscale : 1, sack_permitted : 1, has_ts : 1, has_sack : 1,
	    malformed : 1, /* a length < 2 or past the header (parsing stopped there),
			      or wrong for its kind (that option skipped) */
	    truncated : 1; /* snaplen cut the option area: parsing stopped there */
};

struct dec_tcp {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;		/* enum dec_tcp_flag */
	uint16_t window;	/* raw, unscaled */
	uint16_t hdr_len;	/* data offset * 4 */
	uint32_t payload_len;	/* on the wire, from the IP length */
	uint32_t payload_cap;	/* captured bytes of payload (<= payload_len) */
	const uint8_t *payload; /* payload_cap bytes, borrowed from the packet;
				   never NULL, inside [data, data + caplen] */
	struct dec_tcp_opts opt;
};

/* ICMP dest-unreachable/frag-needed, ICMPv6 packet-too-big and the like. */
struct dec_icmp {
	uint8_t type, code;
	uint32_t mtu;	   /* next-hop MTU (frag-needed) or ICMPv6 PTB MTU; 0 if none */
	bool has_inner_ip; /* quoted IP header parsed: inner_src/dst/proto valid */
	bool has_inner;	   /* has_inner_ip and the quoted L4 header's first 8 bytes
			      were captured: inner ports (TCP, UDP, SCTP, DCCP,
			      UDP-Lite) and inner_seq (TCP) valid, else 0 */
	struct dec_addr inner_src, inner_dst;
	uint8_t inner_proto;
	uint16_t inner_sport, inner_dport;
	uint32_t inner_seq; /* TCP sequence of the quoted segment, if TCP */
};

struct dec_packet {
	/* L2 */
	uint16_t ethertype;  /* of the network layer finally found */
	uint8_t vlan_depth;  /* 802.1Q/802.1ad/QinQ tags crossed */
	uint16_t vlan_id[2]; /* outermost first; 0 beyond vlan_depth */
	int16_t sll_pkttype; /* Linux SLL/SLL2 packet type, -1 if unknown */
	/* L3 */
	struct dec_addr src, dst;
	uint8_t ip_ttl;	      /* TTL / hop limit */
	uint16_t ip_id;	      /* IPv4 identification (0 for IPv6) */
	uint8_t ip_tos;	      /* IPv4 TOS / IPv6 traffic class: DSCP << 2 | ECN */
	bool ip_df;	      /* IPv4 Don't Fragment */
	bool ip_len_presumed; /* IP length field 0: l3_len taken from wirelen */
	bool ip_len_clamped;  /* IP length beyond the PPPoE payload: cut to it, as Wireshark */
	bool encap_len_bound; /* wire length bounded by an encapsulation's length field */
	uint8_t l4proto;      /* IPPROTO_* after extension headers */
	uint32_t l3_len;      /* IP packet length on the wire (header + payload) */
	/* L4: keep every L2/L3 field above, dec_packet() zeroes up to here */
	struct dec_tcp tcp;   /* valid when DEC_TCP */
	struct dec_icmp icmp; /* valid when DEC_ICMP */
};

/*
 * Decode caplen bytes of a packet of the given LINKTYPE_*. wirelen is the
 * original length (bounds the IP length, presumes length 0 frames). Returns an
 * enum dec_status (>= 0 decoded, < 0 malformed). d is always written (see
 * above for which fields are defined); d->tcp.payload points into data and is
 * borrowed for as long as data is. No allocation, no state: thread-safe.
 */
int dec_packet(const uint8_t *data, uint32_t caplen, uint32_t wirelen, uint32_t linktype,
	       struct dec_packet *d);

/*
 * What routing a packet to its connection needs, at a fraction of
 * dec_packet()'s cost (workers.c: the reader routes, the workers decode).
 * Common framings only (Ethernet with at most one 802.1Q tag, Linux cooked,
 * raw IP; IPv4, IPv6 without extension headers); no option parsing, no
 * length checks beyond the bytes it reads. Returns
 *   DEC_PEEK_TCP:    if dec_packet() returns DEC_TCP, its addresses and
 *                    ports are *t's (t->tcp.sport/dport, src, dst set);
 *   DEC_PEEK_NONE:   dec_packet() returns neither DEC_TCP nor DEC_ICMP: no
 *                    connection's packet;
 *   DEC_PEEK_UNSURE: anything else (ICMP, VLAN stacks, PPPoE, IPv6 extension
 *                    headers, other link types): call dec_packet().
 * Only t->src, t->dst, t->tcp.sport and t->tcp.dport are written, and only
 * with DEC_PEEK_TCP.
 */
enum dec_peek { DEC_PEEK_UNSURE = -1, DEC_PEEK_NONE = 0, DEC_PEEK_TCP = 1 };
int dec_peek_tuple(const uint8_t *data, uint32_t caplen, uint32_t linktype, struct dec_packet *t);

/*
 * dec_peek_tuple()'s commonest case without its structure: an untagged
 * Ethernet frame of an unfragmented IPv4 TCP segment. True when it is one
 * (dec_peek_tuple() says DEC_PEEK_TCP with this tuple), the addresses as
 * they lie in the header; false: ask dec_peek_tuple(). The --threads
 * reader routes every packet (workers.c), on the thread that also reads
 * them all: there the structure's 17-byte addresses and their hash cost a
 * third of the routing.
 */
bool dec_peek_eth4(const uint8_t *d, uint32_t caplen, uint32_t linktype, uint8_t src[4],
		   uint8_t dst[4], uint16_t *sport, uint16_t *dport);

/* Parse a TCP option area (also used by tests). Never fails: see flags. */
void dec_tcp_options(const uint8_t *p, uint32_t len, uint32_t cap, struct dec_tcp_opts *o);

#endif
