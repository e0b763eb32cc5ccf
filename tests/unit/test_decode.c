/* test_decode.c - dec_packet()/dec_tcp_options() on packets built in memory. */
#include "analyze/engine/decode.h"
#include "analyze/engine/flow.h"
#include "common/pkt.h"
#include "tests/unit/unit.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * Packets are built inside-out (TCP, then IP around it, then the link header)
 * with the small put*() writers below, then decoded from the very end of
 * tail_buf: a read past caplen lands in the redzone ASan keeps after a global.
 */

struct buf {
	uint8_t b[4096];
	uint32_t n;
};

static uint8_t tail_buf[1u << 17];

static void put8(struct buf *o, unsigned v)
{
	if (o->n < sizeof(o->b))
		o->b[o->n++] = (uint8_t)v;
}

static void put16(struct buf *o, unsigned v)
{
	put8(o, v >> 8);
	put8(o, v);
}

static void put32(struct buf *o, uint32_t v)
{
	put16(o, v >> 16);
	put16(o, v & 0xffffu);
}

static void putn(struct buf *o, const void *p, uint32_t n)
{
	const uint8_t *s = p;

	for (uint32_t i = 0; i < n; i++)
		put8(o, s[i]);
}

static void put_fill(struct buf *o, unsigned v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		put8(o, v);
}

/* Decode the first caplen bytes of pkt from the end of tail_buf; d is poisoned first. */
static int decode(const void *pkt, uint32_t caplen, uint32_t wirelen, uint32_t lt,
		  struct dec_packet *d)
{
	uint8_t *b = tail_buf + sizeof(tail_buf) - caplen;

	memcpy(b, pkt, caplen);
	memset(d, 0xa5, sizeof(*d));
	return dec_packet(b, caplen, wirelen, lt, d);
}

static int decode_buf(const struct buf *o, uint32_t lt, struct dec_packet *d)
{
	return decode(o->b, o->n, o->n, lt, d);
}

/* Where the last decode() put byte off of the packet. */
static const uint8_t *at(uint32_t caplen, uint32_t off)
{
	return tail_buf + sizeof(tail_buf) - caplen + off;
}

static bool addr4_is(const struct dec_addr *a, uint32_t v)
{
	static const uint8_t zero[12];

	return a->family == 4 && a->a[0] == (v >> 24) && a->a[1] == ((v >> 16) & 0xff) &&
	       a->a[2] == ((v >> 8) & 0xff) && a->a[3] == (v & 0xff) &&
	       memcmp(a->a + 4, zero, 12) == 0;
}

static const uint8_t ip6_a[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
static const uint8_t ip6_b[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};

static bool addr6_is(const struct dec_addr *a, const uint8_t *v)
{
	return a->family == 6 && memcmp(a->a, v, 16) == 0;
}

/* ---- builders ---- */

#define SPORT 40000
#define DPORT 443
#define SEQ   0x11223344u
#define ACK   0x55667788u

/* TCP header, opt[optlen] (a multiple of 4), paylen bytes 'a'..'z'. */
static void mk_tcp(struct buf *o, const uint8_t *opt, uint32_t optlen, uint32_t paylen)
{
	o->n = 0;
	put16(o, SPORT);
	put16(o, DPORT);
	put32(o, SEQ);
	put32(o, ACK);
	put8(o, ((20 + optlen) / 4) << 4);
	put8(o, DEC_TH_ACK | DEC_TH_PSH);
	put16(o, 501);
	put16(o, 0);
	put16(o, 0);
	putn(o, opt, optlen);
	for (uint32_t i = 0; i < paylen; i++)
		put8(o, 'a' + i % 26);
}

/* IPv4 10.0.0.1 -> 10.0.0.2 around l4; optlen NOP bytes; tot < 0: computed. */
static void mk_ip4(struct buf *o, uint8_t proto, const struct buf *l4, uint32_t optlen,
		   uint16_t frag, int32_t tot)
{
	uint32_t hl = 20 + optlen;

	o->n = 0;
	put8(o, 0x40 | hl / 4);
	put8(o, 0);
	put16(o, tot < 0 ? hl + l4->n : (uint32_t)tot);
	put16(o, 0x4321);
	put16(o, frag);
	put8(o, 63);
	put8(o, proto);
	put16(o, 0);
	put32(o, 0x0a000001);
	put32(o, 0x0a000002);
	put_fill(o, 1, optlen);
	putn(o, l4->b, l4->n);
}

/* IPv6 ip6_a -> ip6_b, ext headers then l4; plen < 0: computed. */
static void mk_ip6(struct buf *o, uint8_t nh, const struct buf *ext, const struct buf *l4,
		   int32_t plen)
{
	uint32_t extn = ext ? ext->n : 0;

	o->n = 0;
	put32(o, 0x60000000);
	put16(o, plen < 0 ? extn + l4->n : (uint32_t)plen);
	put8(o, nh);
	put8(o, 64);
	putn(o, ip6_a, 16);
	putn(o, ip6_b, 16);
	if (ext)
		putn(o, ext->b, ext->n);
	putn(o, l4->b, l4->n);
}

/* A generic extension header (RFC 8200 4.2 layout) of (len8 + 1) * 8 bytes. */
static void put_ext(struct buf *e, uint8_t next, uint8_t len8)
{
	put8(e, next);
	put8(e, len8);
	put8(e, 1); /* PadN */
	put8(e, len8 * 8u + 4u);
	put_fill(e, 0, len8 * 8u + 4u);
}

static void put_frag6(struct buf *e, uint8_t next, uint16_t off8, bool more)
{
	put8(e, next);
	put8(e, 0);
	put16(e, (unsigned)(off8 << 3) | (more ? 1u : 0u));
	put32(e, 0xabcdef01);
}

/* Ethernet with ntags VLAN tags (tpid[i], vid[i]) around l3. */
static void mk_eth(struct buf *o, const uint16_t *tpid, const uint16_t *vid, int ntags,
		   uint16_t etype, const struct buf *l3)
{
	static const uint8_t macs[12] = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2};

	o->n = 0;
	putn(o, macs, 12);
	for (int i = 0; i < ntags; i++) {
		put16(o, tpid[i]);
		put16(o, 0xe000u | vid[i]); /* PCP 7 must not leak into the VID */
	}
	put16(o, etype);
	if (l3)
		putn(o, l3->b, l3->n);
}

/* l3 (IPv4 or IPv6 per ver) behind the link header of lt. */
static void mk_link(struct buf *o, uint32_t lt, int ver, const struct buf *l3)
{
	uint16_t et = ver == 4 ? 0x0800 : 0x86dd;

	o->n = 0;
	switch (lt) {
	case PKT_LINKTYPE_ETHERNET:
		mk_eth(o, NULL, NULL, 0, et, NULL);
		break;
	case PKT_LINKTYPE_LINUX_SLL:
		put16(o, 4); /* outgoing */
		put16(o, 1); /* ARPHRD_ETHER */
		put16(o, 6);
		put_fill(o, 0x22, 8);
		put16(o, et);
		break;
	case PKT_LINKTYPE_LINUX_SLL2:
		put16(o, et);
		put16(o, 0);
		put32(o, 7);
		put16(o, 1);
		put8(o, 3); /* otherhost */
		put8(o, 6);
		put_fill(o, 0x22, 8);
		break;
	case PKT_LINKTYPE_NULL: /* written on a little-endian Darwin host */
		put8(o, ver == 4 ? 2 : 30);
		put_fill(o, 0, 3);
		break;
	case PKT_LINKTYPE_LOOP:
		put32(o, ver == 4 ? 2 : 24);
		break;
	default:
		break;
	}
	putn(o, l3->b, l3->n);
}

/* The common case: Ethernet / IPv4 / TCP with options and payload. */
static void mk_eth_ip4_tcp(struct buf *o, const uint8_t *opt, uint32_t optlen, uint32_t paylen)
{
	struct buf t, ip;

	mk_tcp(&t, opt, optlen, paylen);
	mk_ip4(&ip, 6, &t, 0, 0x4000, -1);
	mk_eth(o, NULL, NULL, 0, 0x0800, &ip);
}

static void check_tcp(const struct dec_packet *d, uint32_t paylen, uint32_t paycap)
{
	CHECK_EQ_U(d->l4proto, 6);
	CHECK_EQ_U(d->tcp.sport, SPORT);
	CHECK_EQ_U(d->tcp.dport, DPORT);
	CHECK_EQ_U(d->tcp.seq, SEQ);
	CHECK_EQ_U(d->tcp.ack, ACK);
	CHECK_EQ_U(d->tcp.flags, DEC_TH_ACK | DEC_TH_PSH);
	CHECK_EQ_U(d->tcp.window, 501);
	CHECK_EQ_U(d->tcp.payload_len, paylen);
	CHECK_EQ_U(d->tcp.payload_cap, paycap);
	if (paycap > 0 && d->tcp.payload_cap > 0)
		CHECK(d->tcp.payload[0] == 'a');
}

/* ---- link layers ---- */

static void test_ethernet_basic(void)
{
	struct buf o;
	struct dec_packet d;
	static const uint8_t zero[12];

	mk_eth_ip4_tcp(&o, NULL, 0, 100);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	check_tcp(&d, 100, 100);
	CHECK_EQ_U(d.ethertype, 0x0800);
	CHECK_EQ_U(d.vlan_depth, 0);
	CHECK_EQ_U(d.vlan_id[0], 0);
	CHECK_EQ_U(d.vlan_id[1], 0);
	CHECK_EQ_U((uint16_t)d.sll_pkttype, (uint16_t)-1);
	CHECK(addr4_is(&d.src, 0x0a000001));
	CHECK(addr4_is(&d.dst, 0x0a000002));
	CHECK(memcmp(d.src.a + 4, zero, 12) == 0);
	CHECK_EQ_U(d.ip_ttl, 63);
	CHECK_EQ_U(d.ip_id, 0x4321);
	CHECK(d.ip_df);
	CHECK(!d.ip_len_presumed);
	CHECK_EQ_U(d.l3_len, 140);
	CHECK_EQ_U(d.tcp.hdr_len, 20);
	CHECK(d.tcp.payload == at(o.n, 54));
	CHECK(!d.tcp.opt.has_mss && !d.tcp.opt.has_ts && !d.tcp.opt.malformed &&
	      !d.tcp.opt.truncated && d.tcp.opt.nsack == 0);

	/* Cut inside the Ethernet header, then right after it. */
	CHECK_EQ_U(decode(o.b, 13, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_LINK_TRUNC);
	CHECK_EQ_U(decode(o.b, 0, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_LINK_TRUNC);
	CHECK_EQ_U(decode(o.b, 14, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_IP_TRUNC);
	CHECK_EQ_U(d.ethertype, 0x0800);
}

static void test_vlan(void)
{
	static const uint16_t tp[10] = {0x88a8, 0x8100, 0x8100, 0x8100, 0x8100,
					0x8100, 0x8100, 0x8100, 0x8100, 0x8100};
	static const uint16_t vid[10] = {200, 100, 3, 4, 5, 6, 7, 8, 9, 10};
	static const uint16_t tp9100[2] = {0x9100, 0x8100};
	struct buf t, ip, o;
	struct dec_packet d;

	mk_tcp(&t, NULL, 0, 10);
	mk_ip4(&ip, 6, &t, 0, 0, -1);

	mk_eth(&o, tp + 1, vid + 1, 1, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	check_tcp(&d, 10, 10);
	CHECK_EQ_U(d.vlan_depth, 1);
	CHECK_EQ_U(d.vlan_id[0], 100);
	CHECK_EQ_U(d.vlan_id[1], 0);
	CHECK_EQ_U(d.ethertype, 0x0800);

	mk_eth(&o, tp, vid, 2, 0x0800, &ip); /* 802.1ad S-tag + C-tag */
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK_EQ_U(d.vlan_depth, 2);
	CHECK_EQ_U(d.vlan_id[0], 200);
	CHECK_EQ_U(d.vlan_id[1], 100);

	mk_eth(&o, tp9100, vid, 2, 0x0800, &ip); /* old-style QinQ */
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK_EQ_U(d.vlan_depth, 2);

	mk_eth(&o, tp, vid, 3, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK_EQ_U(d.vlan_depth, 3);
	CHECK_EQ_U(d.vlan_id[0], 200);
	CHECK_EQ_U(d.vlan_id[1], 100);

	mk_eth(&o, tp, vid, DEC_MAX_VLAN, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK_EQ_U(d.vlan_depth, DEC_MAX_VLAN);
	check_tcp(&d, 10, 10);

	mk_eth(&o, tp, vid, DEC_MAX_VLAN + 1, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_LINK_BAD);

	/* Cut inside a tag, and between tag and IP. */
	mk_eth(&o, tp, vid, 2, 0x0800, &ip);
	CHECK_EQ_U(decode(o.b, 16, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_LINK_TRUNC);
	CHECK_EQ_U(decode(o.b, 20, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_LINK_TRUNC);
	CHECK_EQ_U(decode(o.b, 22, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_IP_TRUNC);
}

/* PPPoE session header + PPP protocol (pfc: one-byte protocol) around l3. */
static void mk_pppoe(struct buf *o, uint8_t vertype, unsigned proto, bool pfc, const struct buf *l3)
{
	o->n = 0;
	put8(o, vertype);
	put8(o, 0);
	put16(o, 0x1234);
	put16(o, l3->n + (pfc ? 1 : 2));
	if (pfc)
		put8(o, proto);
	else
		put16(o, proto);
	putn(o, l3->b, l3->n);
}

static void test_pppoe(void)
{
	static const uint16_t tp[2] = {0x88a8, 0x8100};
	static const uint16_t vid[2] = {7, 35};
	struct buf t, ip, pp, o;
	struct dec_packet d;

	mk_tcp(&t, NULL, 0, 33);
	mk_ip4(&ip, 6, &t, 0, 0, -1);

	/* PPPoE over QinQ, as in the public sample. */
	mk_pppoe(&pp, 0x11, 0x0021, false, &ip);
	mk_eth(&o, tp, vid, 2, 0x8864, &pp);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	check_tcp(&d, 33, 33);
	CHECK_EQ_U(d.ethertype, 0x0800);
	CHECK_EQ_U(d.vlan_depth, 2);
	CHECK_EQ_U(d.vlan_id[0], 7);
	CHECK_EQ_U(d.vlan_id[1], 35);
	CHECK(d.tcp.payload == at(o.n, 14 + 8 + 8 + 20 + 20));

	mk_pppoe(&pp, 0x11, 0x21, true, &ip); /* Protocol-Field-Compression */
	mk_eth(&o, NULL, NULL, 0, 0x8864, &pp);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	check_tcp(&d, 33, 33);

	mk_ip6(&ip, 6, NULL, &t, -1);
	mk_pppoe(&pp, 0x11, 0x0057, false, &ip);
	mk_eth(&o, NULL, NULL, 0, 0x8864, &pp);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK_EQ_U(d.ethertype, 0x86dd);
	check_tcp(&d, 33, 33);

	mk_pppoe(&pp, 0x11, 0xc021, false, &ip); /* LCP */
	mk_eth(&o, NULL, NULL, 0, 0x8864, &pp);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_NOT_IP);
	CHECK_EQ_U(d.ethertype, 0x8864);
	CHECK_EQ_U(decode(o.b, 14 + 7, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_LINK_TRUNC);
	CHECK_EQ_U(decode(o.b, 14 + 5, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_LINK_TRUNC);

	mk_pppoe(&pp, 0x12, 0x0021, false, &ip); /* VER/TYPE must be 1/1 */
	mk_eth(&o, NULL, NULL, 0, 0x8864, &pp);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_LINK_BAD);

	/* An IP total length 6 bytes past the PPPoE payload, then Ethernet
	 * padding (the public pppoe-over-qinq ACKs): PPPoE LENGTH bounds the
	 * packet, so the padding is not payload. */
	mk_tcp(&t, NULL, 0, 0);
	mk_ip4(&ip, 6, &t, 0, 0, -1);
	mk_pppoe(&pp, 0x11, 0x0021, false, &ip);
	pp.b[8 + 2] = 0;
	pp.b[8 + 3] = (uint8_t)(ip.n + 6);
	put_fill(&pp, 0, 6);
	mk_eth(&o, NULL, NULL, 0, 0x8864, &pp);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK_EQ_U(d.tcp.payload_len, 0);
	CHECK(d.ip_len_clamped);
	CHECK_EQ_U(d.l3_len, 40);
	/* Correct lengths with padding after: not clamped, no payload. */
	mk_pppoe(&pp, 0x11, 0x0021, false, &ip);
	put_fill(&pp, 0, 6);
	mk_eth(&o, NULL, NULL, 0, 0x8864, &pp);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK_EQ_U(d.tcp.payload_len, 0);
	CHECK(!d.ip_len_clamped);
	/* A PPPoE LENGTH beyond the frame is a bad link header. */
	mk_pppoe(&pp, 0x11, 0x0021, false, &ip);
	pp.b[4] = 0x05;
	mk_eth(&o, NULL, NULL, 0, 0x8864, &pp);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_LINK_BAD);
	mk_tcp(&t, NULL, 0, 33);
	mk_ip4(&ip, 6, &t, 0, 0, -1);

	mk_pppoe(&pp, 0x11, 0x0021, false, &ip); /* discovery stage ethertype */
	mk_eth(&o, NULL, NULL, 0, 0x8863, &pp);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_NOT_IP);
}

static void test_not_ip(void)
{
	struct buf o, arp;
	struct dec_packet d;

	arp.n = 0;
	put_fill(&arp, 0x11, 28);
	mk_eth(&o, NULL, NULL, 0, 0x0806, &arp);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_NOT_IP);
	CHECK_EQ_U(d.ethertype, 0x0806);
	CHECK_EQ_U(d.l4proto, 0);
	CHECK_EQ_U(d.l3_len, 0);
	CHECK_EQ_U(d.src.family, 0);

	mk_eth(&o, NULL, NULL, 0, 0x88cc, &arp); /* LLDP */
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_NOT_IP);
	mk_eth(&o, NULL, NULL, 0, 46, &arp); /* 802.3 length field */
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_NOT_IP);
}

static void test_sll(void)
{
	struct buf t, ip, o;
	struct dec_packet d;

	mk_tcp(&t, NULL, 0, 5);
	mk_ip4(&ip, 6, &t, 0, 0, -1);
	mk_link(&o, PKT_LINKTYPE_LINUX_SLL, 4, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_LINUX_SLL, &d), DEC_TCP);
	check_tcp(&d, 5, 5);
	CHECK_EQ_U(d.sll_pkttype, 4);
	CHECK(d.tcp.payload == at(o.n, 16 + 40));
	CHECK_EQ_U(decode(o.b, 15, o.n, PKT_LINKTYPE_LINUX_SLL, &d), DEC_ERR_LINK_TRUNC);

	/* libpcap re-inserts an offloaded VLAN tag into the cooked header. */
	o.n = 0;
	put16(&o, 0);
	put16(&o, 1);
	put16(&o, 6);
	put_fill(&o, 0x22, 8);
	put16(&o, 0x8100);
	put16(&o, 42);
	put16(&o, 0x0800);
	putn(&o, ip.b, ip.n);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_LINUX_SLL, &d), DEC_TCP);
	CHECK_EQ_U(d.vlan_depth, 1);
	CHECK_EQ_U(d.vlan_id[0], 42);
	CHECK_EQ_U(d.sll_pkttype, 0);

	/* Netlink: the protocol is a netlink family, even if it looks like IPv4. */
	o.b[2] = 824 >> 8;
	o.b[3] = 824 & 0xff;
	o.b[14] = 0x08;
	o.b[15] = 0x00;
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_LINUX_SLL, &d), DEC_NOT_IP);

	/* LINUX_SLL_P_802_2 and friends are below 0x600: not IP. */
	o.b[2] = 0;
	o.b[3] = 1;
	o.b[14] = 0;
	o.b[15] = 4;
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_LINUX_SLL, &d), DEC_NOT_IP);

	/* SLL2 with IPv6. */
	mk_ip6(&ip, 6, NULL, &t, -1);
	mk_link(&o, PKT_LINKTYPE_LINUX_SLL2, 6, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_LINUX_SLL2, &d), DEC_TCP);
	check_tcp(&d, 5, 5);
	CHECK_EQ_U(d.sll_pkttype, 3);
	CHECK_EQ_U(d.ethertype, 0x86dd);
	CHECK(addr6_is(&d.src, ip6_a));
	CHECK(addr6_is(&d.dst, ip6_b));
	CHECK(d.tcp.payload == at(o.n, 20 + 60));
	CHECK_EQ_U(decode(o.b, 19, o.n, PKT_LINKTYPE_LINUX_SLL2, &d), DEC_ERR_LINK_TRUNC);
	o.b[8] = 824 >> 8;
	o.b[9] = 824 & 0xff;
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_LINUX_SLL2, &d), DEC_NOT_IP);
	CHECK_EQ_U(d.sll_pkttype, 3);
}

static void test_null_loop(void)
{
	static const uint32_t af6[4] = {24, 28, 30, 10};
	struct buf t, ip4, ip6, o;
	struct dec_packet d;

	mk_tcp(&t, NULL, 0, 7);
	mk_ip4(&ip4, 6, &t, 0, 0, -1);
	mk_ip6(&ip6, 6, NULL, &t, -1);

	for (int order = 0; order < 2; order++) {
		for (int i = -1; i < 4; i++) {
			uint32_t af = i < 0 ? 2 : af6[i];
			const struct buf *ip = i < 0 ? &ip4 : &ip6;

			o.n = 0;
			if (order == 0) { /* little-endian writer */
				put8(&o, af);
				put_fill(&o, 0, 3);
			} else {
				put32(&o, af);
			}
			putn(&o, ip->b, ip->n);
			CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_NULL, &d), DEC_TCP);
			CHECK_EQ_U(d.ethertype, i < 0 ? 0x0800 : 0x86dd);
			check_tcp(&d, 7, 7);
		}
	}
	o.n = 0;
	put32(&o, 7); /* AF_ISO-ish: not IP */
	putn(&o, ip4.b, ip4.n);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_NULL, &d), DEC_NOT_IP);
	CHECK_EQ_U(decode(o.b, 3, o.n, PKT_LINKTYPE_NULL, &d), DEC_ERR_LINK_TRUNC);

	mk_link(&o, PKT_LINKTYPE_LOOP, 4, &ip4);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_LOOP, &d), DEC_TCP);
	CHECK_EQ_U(d.ethertype, 0x0800);
	mk_link(&o, PKT_LINKTYPE_LOOP, 6, &ip6);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_LOOP, &d), DEC_TCP);
	CHECK_EQ_U(d.ethertype, 0x86dd);
	CHECK_EQ_U(decode(o.b, 2, o.n, PKT_LINKTYPE_LOOP, &d), DEC_ERR_LINK_TRUNC);
}

static void test_raw(void)
{
	static const uint32_t raws[3] = {PKT_LINKTYPE_RAW, PKT_LINKTYPE_DLT_RAW_OLD,
					 PKT_LINKTYPE_DLT_RAW_OLD2};
	struct buf t, ip4, ip6;
	struct dec_packet d;

	mk_tcp(&t, NULL, 0, 9);
	mk_ip4(&ip4, 6, &t, 0, 0, -1);
	mk_ip6(&ip6, 6, NULL, &t, -1);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ_U(decode_buf(&ip4, raws[i], &d), DEC_TCP);
		check_tcp(&d, 9, 9);
		CHECK_EQ_U(d.ethertype, 0x0800);
		CHECK_EQ_U(decode_buf(&ip6, raws[i], &d), DEC_TCP);
		check_tcp(&d, 9, 9);
		CHECK_EQ_U(d.ethertype, 0x86dd);
		CHECK_EQ_U(decode(ip4.b, 0, 0, raws[i], &d), DEC_ERR_IP_TRUNC);
	}
	ip4.b[0] = 0x55;
	CHECK_EQ_U(decode_buf(&ip4, PKT_LINKTYPE_RAW, &d), DEC_ERR_IP_BAD);
	ip4.b[0] = 0x45;

	CHECK_EQ_U(decode_buf(&ip4, PKT_LINKTYPE_IPV4, &d), DEC_TCP);
	CHECK_EQ_U(decode_buf(&ip6, PKT_LINKTYPE_IPV4, &d), DEC_ERR_IP_BAD);
	CHECK_EQ_U(decode_buf(&ip6, PKT_LINKTYPE_IPV6, &d), DEC_TCP);
	CHECK_EQ_U(decode_buf(&ip4, PKT_LINKTYPE_IPV6, &d), DEC_ERR_IP_BAD);
	CHECK_EQ_U(decode(ip6.b, 0, 0, PKT_LINKTYPE_IPV6, &d), DEC_ERR_IP_TRUNC);
	CHECK_EQ_U(decode(ip6.b, 39, 100, PKT_LINKTYPE_IPV6, &d), DEC_ERR_IP_TRUNC);
}

static void test_linktypes(void)
{
	static const uint32_t lts[] = {
	    PKT_LINKTYPE_NULL,	      PKT_LINKTYPE_ETHERNET,	 PKT_LINKTYPE_RAW,
	    PKT_LINKTYPE_LOOP,	      PKT_LINKTYPE_LINUX_SLL,	 PKT_LINKTYPE_LINUX_SLL2,
	    PKT_LINKTYPE_DLT_RAW_OLD, PKT_LINKTYPE_DLT_RAW_OLD2,
	};
	struct buf t, ip4, ip6, o;
	struct dec_packet d;

	mk_tcp(&t, NULL, 0, 12);
	mk_ip4(&ip4, 6, &t, 0, 0, -1);
	mk_ip6(&ip6, 6, NULL, &t, -1);
	for (size_t i = 0; i < sizeof(lts) / sizeof(lts[0]); i++) {
		mk_link(&o, lts[i], 4, &ip4);
		CHECK_EQ_U(decode_buf(&o, lts[i], &d), DEC_TCP);
		check_tcp(&d, 12, 12);
		CHECK(d.tcp.payload == at(o.n, o.n - 12));
		mk_link(&o, lts[i], 6, &ip6);
		CHECK_EQ_U(decode_buf(&o, lts[i], &d), DEC_TCP);
		check_tcp(&d, 12, 12);
		CHECK(d.tcp.payload == at(o.n, o.n - 12));
	}

	CHECK_EQ_U(decode_buf(&ip4, 147, &d), DEC_ERR_LINKTYPE); /* LINKTYPE_USER0 */
	CHECK_EQ_U(d.vlan_depth, 0);
	CHECK_EQ_U(d.ethertype, 0);
	CHECK_EQ_U((uint16_t)d.sll_pkttype, (uint16_t)-1);
	CHECK_EQ_U(decode_buf(&ip4, 127, &d), DEC_ERR_LINKTYPE); /* radiotap */
}

/* ---- IPv4 ---- */

static void test_ipv4(void)
{
	struct buf t, ip, o;
	struct dec_packet d;

	mk_tcp(&t, NULL, 0, 20);

	/* Options are skipped: IHL 8. */
	mk_ip4(&ip, 6, &t, 12, 0, -1);
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	check_tcp(&d, 20, 20);
	CHECK_EQ_U(d.l3_len, 32 + 40);
	CHECK(d.tcp.payload == at(o.n, 14 + 32 + 20));
	CHECK_EQ_U(decode(o.b, 14 + 24, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_IP_TRUNC);
	CHECK(!d.ip_df);

	mk_ip4(&ip, 6, &t, 0, 0, -1);
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	CHECK_EQ_U(decode(o.b, 14 + 10, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_IP_TRUNC);
	CHECK_EQ_U(decode(o.b, 14 + 19, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_IP_TRUNC);

	o.b[14] = 0x44; /* IHL 4 */
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_IP_BAD);
	o.b[14] = 0x65; /* version 6 behind the IPv4 EtherType */
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_IP_BAD);
	o.b[14] = 0x45;

	mk_ip4(&ip, 6, &t, 0, 0, 16); /* total length < header */
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_IP_BAD);

	mk_ip4(&ip, 6, &t, 0, 0, 1500); /* longer than the frame on the wire */
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_IP_BAD);
	/* ... but fine when only the snaplen cut it. */
	CHECK_EQ_U(decode(o.b, o.n, 1514, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	check_tcp(&d, 1500 - 40, 20);

	/* UDP is counted, not analyzed. */
	mk_ip4(&ip, 17, &t, 0, 0, -1);
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_OTHER_IP);
	CHECK_EQ_U(d.l4proto, 17);
	CHECK_EQ_U(d.l3_len, 60);
	/* ICMPv6 inside IPv4 is nonsense: other. */
	mk_ip4(&ip, 58, &t, 0, 0, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_RAW, &d), DEC_OTHER_IP);
}

static void test_ipv4_fragments(void)
{
	struct buf t, ip, o;
	struct dec_packet d;

	mk_tcp(&t, NULL, 0, 20);
	mk_ip4(&ip, 6, &t, 0, 0x2000, -1); /* MF, offset 0: first fragment */
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_FRAGMENT);
	CHECK_EQ_U(d.l4proto, 6);
	CHECK_EQ_U(d.ip_id, 0x4321);
	CHECK_EQ_U(d.l3_len, 60);
	CHECK(addr4_is(&d.src, 0x0a000001));

	mk_ip4(&ip, 6, &t, 0, 185, -1); /* later fragment, MF clear */
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_FRAGMENT);

	mk_ip4(&ip, 6, &t, 0, 0x4000, -1); /* DF only: not a fragment */
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK(d.ip_df);
}

static void test_ipv4_len0_and_padding(void)
{
	struct buf t, ip, o;
	struct dec_packet d;

	/* TSO frame captured before segmentation: total length 0. */
	mk_tcp(&t, NULL, 0, 100);
	mk_ip4(&ip, 6, &t, 0, 0x4000, 0);
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK(d.ip_len_presumed);
	CHECK_EQ_U(d.l3_len, 140);
	check_tcp(&d, 100, 100);
	/* 64000-byte super-frame, snaplen 96. */
	CHECK_EQ_U(decode(o.b, 96, 64000, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK(d.ip_len_presumed);
	CHECK_EQ_U(d.l3_len, 64000 - 14);
	check_tcp(&d, 64000 - 54, 96 - 54);

	/* A bare ACK padded to the 60-byte Ethernet minimum, FCS on the wire. */
	mk_tcp(&t, NULL, 0, 0);
	mk_ip4(&ip, 6, &t, 0, 0, -1);
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	put_fill(&o, 0x5a, 6);
	CHECK_EQ_U(o.n, 60);
	CHECK_EQ_U(decode(o.b, 60, 64, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK(!d.ip_len_presumed);
	CHECK_EQ_U(d.l3_len, 40);
	check_tcp(&d, 0, 0);
	CHECK(d.tcp.payload == at(60, 54));

	/* Padding after a short payload is not payload. */
	mk_tcp(&t, NULL, 0, 2);
	mk_ip4(&ip, 6, &t, 0, 0, -1);
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	put_fill(&o, 0x5a, 4);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	check_tcp(&d, 2, 2);
}

/* ---- IPv6 ---- */

static void test_ipv6_ext(void)
{
	struct buf t, e, ip, o;
	struct dec_packet d;

	mk_tcp(&t, NULL, 0, 30);

	e.n = 0;
	put_ext(&e, 60, 0); /* Hop-by-Hop -> Destination Options */
	put_ext(&e, 43, 1); /* Destination Options -> Routing */
	put_ext(&e, 6, 0);  /* Routing -> TCP */
	mk_ip6(&ip, 0, &e, &t, -1);
	mk_eth(&o, NULL, NULL, 0, 0x86dd, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	check_tcp(&d, 30, 30);
	CHECK_EQ_U(d.ethertype, 0x86dd);
	CHECK_EQ_U(d.ip_ttl, 64);
	CHECK_EQ_U(d.ip_id, 0);
	CHECK(!d.ip_df);
	CHECK_EQ_U(d.l3_len, 40 + 32 + 50);
	CHECK(d.tcp.payload == at(o.n, 14 + 40 + 32 + 20));
	CHECK(addr6_is(&d.src, ip6_a));
	/* Snaplen inside the Destination Options header, then inside its first 2 bytes. */
	CHECK_EQ_U(decode(o.b, 14 + 40 + 8 + 9, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_IP_TRUNC);
	CHECK_EQ_U(decode(o.b, 14 + 40 + 8 + 1, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_IP_TRUNC);

	/* AH (RFC 4302): (4 + 2) * 4 = 24 bytes. */
	e.n = 0;
	put8(&e, 6);
	put8(&e, 4);
	put_fill(&e, 0, 22);
	mk_ip6(&ip, 51, &e, &t, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_TCP);
	check_tcp(&d, 30, 30);

	/* Mobility, HIP, Shim6, experimental 253/254 are walked too. */
	e.n = 0;
	put_ext(&e, 139, 0);
	put_ext(&e, 140, 1);
	put_ext(&e, 253, 0);
	put_ext(&e, 254, 0);
	put_ext(&e, 6, 2);
	mk_ip6(&ip, 135, &e, &t, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_TCP);
	check_tcp(&d, 30, 30);

	/* ESP and No Next Header: other IP. */
	mk_ip6(&ip, 50, NULL, &t, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_OTHER_IP);
	CHECK_EQ_U(d.l4proto, 50);
	e.n = 0;
	put_ext(&e, 59, 0);
	mk_ip6(&ip, 60, &e, &t, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_OTHER_IP);
	CHECK_EQ_U(d.l4proto, 59);
	mk_ip6(&ip, 17, NULL, &t, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_OTHER_IP);
	CHECK_EQ_U(d.l4proto, 17);
	mk_ip6(&ip, 1, NULL, &t, -1); /* ICMPv4 inside IPv6 */
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_OTHER_IP);

	/* A header claiming more than the payload length holds. */
	e.n = 0;
	put8(&e, 6);
	put8(&e, 200);
	put_fill(&e, 0, 6);
	mk_ip6(&ip, 0, &e, &t, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_ERR_IP6_EXT);
	/* A chain that ends exactly at the payload length with no room for its 2 bytes. */
	e.n = 0;
	put_ext(&e, 60, 0);
	mk_ip6(&ip, 0, &e, &t, 8);
	CHECK_EQ_U(decode(ip.b, ip.n, ip.n, PKT_LINKTYPE_IPV6, &d), DEC_ERR_IP6_EXT);
}

static void test_ipv6_chain_bound(void)
{
	struct buf t, e, ip;
	struct dec_packet d;

	mk_tcp(&t, NULL, 0, 0);
	e.n = 0;
	for (int i = 0; i < DEC_MAX_IP6_EXT; i++)
		put_ext(&e, i == DEC_MAX_IP6_EXT - 1 ? 6 : 60, 0);
	mk_ip6(&ip, 60, &e, &t, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_TCP);

	e.n = 0;
	for (int i = 0; i <= DEC_MAX_IP6_EXT; i++)
		put_ext(&e, i == DEC_MAX_IP6_EXT ? 6 : 60, 0);
	mk_ip6(&ip, 60, &e, &t, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_ERR_IP6_EXT);
}

static void test_ipv6_fragment(void)
{
	struct buf t, e, ip;
	struct dec_packet d;

	mk_tcp(&t, NULL, 0, 8);

	e.n = 0;
	put_frag6(&e, 6, 0, false); /* atomic fragment (RFC 6946): decoded */
	mk_ip6(&ip, 44, &e, &t, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_TCP);
	check_tcp(&d, 8, 8);

	e.n = 0;
	put_frag6(&e, 6, 0, true);
	mk_ip6(&ip, 44, &e, &t, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_FRAGMENT);
	CHECK_EQ_U(d.l4proto, 6);
	CHECK_EQ_U(d.l3_len, ip.n);

	e.n = 0;
	put_ext(&e, 44, 0);
	put_frag6(&e, 6, 100, false);
	mk_ip6(&ip, 0, &e, &t, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_FRAGMENT);
	CHECK_EQ_U(d.l4proto, 6);
}

static void test_ipv6_lengths(void)
{
	struct buf t, ip, o;
	struct dec_packet d;

	/* BIG TCP / jumbogram: payload length 0, length from the wire. */
	mk_tcp(&t, NULL, 0, 50);
	mk_ip6(&ip, 6, NULL, &t, 0);
	mk_eth(&o, NULL, NULL, 0, 0x86dd, &ip);
	CHECK_EQ_U(decode(o.b, 100, 100000, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK(d.ip_len_presumed);
	CHECK_EQ_U(d.l3_len, 100000 - 14);
	check_tcp(&d, 100000 - 14 - 60, 100 - 74);

	/* Payload length past the frame. */
	mk_ip6(&ip, 6, NULL, &t, 1000);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_ERR_IP_BAD);

	/* Ethernet padding after an IPv6 packet is ignored. */
	mk_tcp(&t, NULL, 0, 0);
	mk_ip6(&ip, 6, NULL, &t, -1);
	mk_eth(&o, NULL, NULL, 0, 0x86dd, &ip);
	put_fill(&o, 0xee, 10);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	check_tcp(&d, 0, 0);
	CHECK_EQ_U(d.l3_len, 60);

	/* No Next Header with length 0 is a real empty packet, not presumed. */
	mk_ip6(&ip, 59, NULL, &t, 0);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_OTHER_IP);
	CHECK(!d.ip_len_presumed);
	CHECK_EQ_U(d.l3_len, 40);
}

/* ---- TCP ---- */

static void test_tcp_options_packet(void)
{
	/* A Linux SYN: MSS, SACK-permitted, timestamps, NOP, window scale. */
	static const uint8_t syn[20] = {2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0,
					0, 1, 0,    0,	  0, 0, 1, 3,  3, 7};
	/* NOP NOP TS, NOP NOP SACK with 3 blocks: 40 bytes, full. */
	uint8_t tsack[40] = {1,	   1,	 8,    10,   0xaa, 0xbb, 0xcc, 0xdd,
			     0x11, 0x22, 0x33, 0x44, 1,	   1,	 5,    26};
	struct buf o, opt;
	struct dec_packet d;

	mk_eth_ip4_tcp(&o, syn, sizeof(syn), 0);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK_EQ_U(d.tcp.hdr_len, 40);
	CHECK(d.tcp.opt.has_mss && d.tcp.opt.mss == 1460);
	CHECK(d.tcp.opt.sack_permitted);
	CHECK(d.tcp.opt.has_ts && d.tcp.opt.tsval == 1 && d.tcp.opt.tsecr == 0);
	CHECK(d.tcp.opt.has_wscale && d.tcp.opt.wscale == 7);
	CHECK(!d.tcp.opt.has_sack && d.tcp.opt.nsack == 0);
	CHECK(!d.tcp.opt.malformed && !d.tcp.opt.truncated);
	check_tcp(&d, 0, 0);

	/* Snaplen inside the options: what came before the cut is kept. */
	CHECK_EQ_U(decode(o.b, 14 + 20 + 20 + 7, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK(d.tcp.opt.has_mss && d.tcp.opt.sack_permitted);
	CHECK(!d.tcp.opt.has_ts && !d.tcp.opt.has_wscale);
	CHECK(d.tcp.opt.truncated && !d.tcp.opt.malformed);
	CHECK_EQ_U(d.tcp.payload_cap, 0);
	CHECK(d.tcp.payload == at(14 + 47, 14 + 47));

	for (uint32_t i = 0; i < 3; i++)
		for (uint32_t k = 0; k < 8; k++)
			tsack[16 + 8 * i + k] = (uint8_t)(0x10 * (i + 1) + k);
	mk_eth_ip4_tcp(&o, tsack, sizeof(tsack), 3);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK_EQ_U(d.tcp.hdr_len, 60);
	CHECK(d.tcp.opt.has_ts && d.tcp.opt.tsval == 0xaabbccdd && d.tcp.opt.tsecr == 0x11223344);
	CHECK(d.tcp.opt.has_sack);
	CHECK_EQ_U(d.tcp.opt.nsack, 3);
	CHECK_EQ_U(d.tcp.opt.sack[0].left, 0x10111213);
	CHECK_EQ_U(d.tcp.opt.sack[0].right, 0x14151617);
	CHECK_EQ_U(d.tcp.opt.sack[2].right, 0x34353637);
	check_tcp(&d, 3, 3);

	/* 1 to 4 SACK blocks without timestamps. */
	for (uint32_t n = 1; n <= DEC_MAX_SACK; n++) {
		opt.n = 0;
		put8(&opt, 1);
		put8(&opt, 1);
		put8(&opt, 5);
		put8(&opt, 2 + 8 * n);
		for (uint32_t i = 0; i < n; i++) {
			put32(&opt, 1000 * (i + 1));
			put32(&opt, 1000 * (i + 1) + 500);
		}
		mk_eth_ip4_tcp(&o, opt.b, opt.n, 1);
		CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
		CHECK_EQ_U(d.tcp.opt.nsack, n);
		CHECK_EQ_U(d.tcp.opt.sack[n - 1].left, 1000 * n);
		CHECK_EQ_U(d.tcp.opt.sack[n - 1].right, 1000 * n + 500);
		CHECK(!d.tcp.opt.malformed && !d.tcp.opt.truncated);
		check_tcp(&d, 1, 1);
	}
}

static void test_tcp_header_errors(void)
{
	struct buf t, ip, o;
	struct dec_packet d;

	mk_eth_ip4_tcp(&o, NULL, 0, 10);
	CHECK_EQ_U(decode(o.b, 14 + 20 + 19, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_TCP_TRUNC);
	CHECK_EQ_U(d.l4proto, 6);
	CHECK_EQ_U(decode(o.b, 14 + 20, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_TCP_TRUNC);
	/* Exactly the fixed header: decoded, payload all cut. */
	CHECK_EQ_U(decode(o.b, 14 + 40, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	check_tcp(&d, 10, 0);

	o.b[14 + 20 + 12] = 0x40; /* data offset 4 */
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_TCP_BAD);
	o.b[14 + 20 + 12] = 0xf0; /* 60-byte header in a 30-byte IP payload */
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_TCP_BAD);
	o.b[14 + 20 + 12] = 0x70; /* 28-byte header: fits, 2 payload bytes */
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_TCP);
	CHECK_EQ_U(d.tcp.payload_len, 2);
	CHECK(d.tcp.opt.malformed); /* payload 'a' as option kind 97, length 'b' = 98 */

	/* IP payload shorter than the fixed TCP header, padding captured after it. */
	mk_tcp(&t, NULL, 0, 0);
	mk_ip4(&ip, 6, &t, 0, 0, 32);
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	put_fill(&o, 0, 8);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_TCP_BAD);
}

static void test_tcp_options_direct(void)
{
	struct dec_tcp_opts o;
	static const uint8_t mss3[] = {2, 3, 5, 3, 3, 5, 0, 0};
	static const uint8_t len1[] = {1, 2, 1, 0};
	static const uint8_t len0[] = {2, 0, 0, 0};
	static const uint8_t past[] = {1, 1, 8, 10, 0, 0, 0, 1};
	static const uint8_t lastk[] = {1, 1, 1, 2};
	static const uint8_t eol[] = {2, 4, 5, 0xb4, 0, 2, 0, 0};
	static const uint8_t unk[] = {30, 6, 9, 9, 9, 9, 2, 4, 1, 0, 1, 1};
	static const uint8_t badlens[] = {3, 4, 1, 1, 4, 3, 1, 1, 8, 8, 0, 0, 0, 0, 0, 0, 1, 1};
	uint8_t sack[44] = {5, 42};
	uint8_t sack0[] = {5, 2, 1, 1};
	uint8_t sack12[] = {5, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

	memset(&o, 0xff, sizeof(o));
	dec_tcp_options(mss3, sizeof(mss3), sizeof(mss3), &o); /* wrong length: skipped */
	CHECK(o.malformed && !o.has_mss && o.has_wscale && o.wscale == 5 && !o.truncated);
	CHECK(!o.has_ts && !o.has_sack && !o.sack_permitted && o.nsack == 0 && o.mss == 0);

	dec_tcp_options(len1, sizeof(len1), sizeof(len1), &o);
	CHECK(o.malformed && !o.truncated);
	dec_tcp_options(len0, sizeof(len0), sizeof(len0), &o);
	CHECK(o.malformed);
	dec_tcp_options(past, sizeof(past), sizeof(past), &o);
	CHECK(o.malformed && !o.has_ts);
	dec_tcp_options(lastk, sizeof(lastk), sizeof(lastk), &o); /* kind with no length byte */
	CHECK(o.malformed && !o.truncated);
	dec_tcp_options(lastk, sizeof(lastk), 3, &o); /* ... unless the cut came first */
	CHECK(o.truncated && !o.malformed);

	dec_tcp_options(eol, sizeof(eol), sizeof(eol), &o);
	CHECK(o.has_mss && o.mss == 1460 && !o.sack_permitted && !o.malformed);
	dec_tcp_options(eol, sizeof(eol), 4, &o); /* cut right after MSS */
	CHECK(o.has_mss && o.truncated);
	dec_tcp_options(eol, sizeof(eol), 3, &o); /* cut inside MSS */
	CHECK(!o.has_mss && o.truncated && !o.malformed);
	dec_tcp_options(eol, sizeof(eol), 1, &o); /* cut after the kind byte */
	CHECK(!o.has_mss && o.truncated);
	dec_tcp_options(eol, sizeof(eol), 0, &o);
	CHECK(o.truncated);
	dec_tcp_options(eol, 0, 0, &o);
	CHECK(!o.truncated && !o.malformed && !o.has_mss);
	dec_tcp_options(eol, 4, 100, &o); /* cap beyond len is clamped */
	CHECK(o.has_mss && !o.truncated);

	dec_tcp_options(unk, sizeof(unk), sizeof(unk), &o);
	CHECK(o.has_mss && o.mss == 0x0100 && !o.malformed);

	dec_tcp_options(badlens, sizeof(badlens), sizeof(badlens), &o);
	CHECK(o.malformed && !o.has_wscale && !o.sack_permitted && !o.has_ts && !o.truncated);

	dec_tcp_options(sack, sizeof(sack), sizeof(sack), &o); /* 5 blocks: too many */
	CHECK(o.malformed && !o.has_sack && o.nsack == 0);
	dec_tcp_options(sack0, sizeof(sack0), sizeof(sack0), &o);
	CHECK(o.malformed && !o.has_sack);
	dec_tcp_options(sack12, sizeof(sack12), sizeof(sack12), &o);
	CHECK(o.malformed && !o.has_sack);

	/* NOP, NOP, timestamps: read at once; every other field as the
	 * general walk leaves it, which the same option in another order and
	 * the same bytes cut short take. */
	static const uint8_t nopts[] = {1, 1, 8, 10, 0xaa, 0xbb, 0xcc, 0xdd, 1, 2, 3, 4};
	static const uint8_t tsnop[] = {8, 10, 0xaa, 0xbb, 0xcc, 0xdd, 1, 2, 3, 4, 1, 1};
	memset(&o, 0xff, sizeof(o));
	dec_tcp_options(nopts, sizeof(nopts), sizeof(nopts), &o);
	CHECK(o.has_ts && o.tsval == 0xaabbccdd && o.tsecr == 0x01020304);
	CHECK(!o.has_mss && !o.has_wscale && !o.sack_permitted && !o.has_sack && o.nsack == 0);
	CHECK(!o.malformed && !o.truncated && o.mss == 0 && o.wscale == 0);
	memset(&o, 0xff, sizeof(o));
	dec_tcp_options(tsnop, sizeof(tsnop), sizeof(tsnop), &o);
	CHECK(o.has_ts && o.tsval == 0xaabbccdd && o.tsecr == 0x01020304);
	CHECK(!o.has_mss && !o.has_sack && !o.malformed && !o.truncated && o.nsack == 0);
	dec_tcp_options(nopts, sizeof(nopts), 11, &o);
	CHECK(!o.has_ts && o.truncated && !o.malformed);
}

/* ---- ICMP ---- */

static void test_icmp4(void)
{
	struct buf t, qip, ic, ip, o;
	struct dec_packet d;

	/* The quoted segment went 10.0.0.1:40000 -> 10.0.0.2:443. */
	mk_tcp(&t, NULL, 0, 0);
	mk_ip4(&qip, 6, &t, 0, 0x4000, 1500);
	qip.n = 28; /* IP header + 64 bits (RFC 792) */

	ic.n = 0;
	put8(&ic, 3);
	put8(&ic, 4);
	put16(&ic, 0);
	put16(&ic, 0);
	put16(&ic, 1400);
	putn(&ic, qip.b, qip.n);
	mk_ip4(&ip, 1, &ic, 0, 0, -1);
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ICMP);
	CHECK_EQ_U(d.l4proto, 1);
	CHECK_EQ_U(d.icmp.type, 3);
	CHECK_EQ_U(d.icmp.code, 4);
	CHECK_EQ_U(d.icmp.mtu, 1400);
	CHECK(d.icmp.has_inner_ip && d.icmp.has_inner);
	CHECK(addr4_is(&d.icmp.inner_src, 0x0a000001));
	CHECK(addr4_is(&d.icmp.inner_dst, 0x0a000002));
	CHECK_EQ_U(d.icmp.inner_proto, 6);
	CHECK_EQ_U(d.icmp.inner_sport, SPORT);
	CHECK_EQ_U(d.icmp.inner_dport, DPORT);
	CHECK_EQ_U(d.icmp.inner_seq, SEQ);

	/* Snaplen cuts the quoted TCP header: addresses only. */
	CHECK_EQ_U(decode(o.b, o.n - 4, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ICMP);
	CHECK(d.icmp.has_inner_ip && !d.icmp.has_inner);
	CHECK_EQ_U(d.icmp.inner_sport, 0);
	CHECK_EQ_U(d.icmp.inner_seq, 0);
	CHECK_EQ_U(d.icmp.mtu, 1400);
	/* ... and the quoted IP header. */
	CHECK_EQ_U(decode(o.b, o.n - 9, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ICMP);
	CHECK(!d.icmp.has_inner_ip && !d.icmp.has_inner);
	/* ... and the ICMP header itself. */
	CHECK_EQ_U(decode(o.b, 14 + 20 + 7, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_ICMP_TRUNC);

	/* An ICMP header shorter than 8 bytes on the wire. */
	mk_ip4(&ip, 1, &ic, 0, 0, 26);
	mk_eth(&o, NULL, NULL, 0, 0x0800, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_ICMP_TRUNC);

	/* Time exceeded quoting UDP: ports, no sequence, no MTU. */
	mk_ip4(&qip, 17, &t, 0, 0, 100);
	qip.n = 28;
	ic.n = 0;
	put8(&ic, 11);
	put8(&ic, 0);
	put_fill(&ic, 0, 6);
	putn(&ic, qip.b, qip.n);
	mk_ip4(&ip, 1, &ic, 0, 0, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_RAW, &d), DEC_ICMP);
	CHECK(d.icmp.has_inner);
	CHECK_EQ_U(d.icmp.inner_proto, 17);
	CHECK_EQ_U(d.icmp.inner_sport, SPORT);
	CHECK_EQ_U(d.icmp.inner_seq, 0);
	CHECK_EQ_U(d.icmp.mtu, 0);

	/* Quoting a non-first fragment: no L4 header to read. */
	mk_ip4(&qip, 6, &t, 0, 0x0010, 100);
	qip.n = 28;
	ic.n = 0;
	put8(&ic, 3);
	put8(&ic, 1);
	put_fill(&ic, 0, 6);
	putn(&ic, qip.b, qip.n);
	mk_ip4(&ip, 1, &ic, 0, 0, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_RAW, &d), DEC_ICMP);
	CHECK(d.icmp.has_inner_ip && !d.icmp.has_inner);
	CHECK_EQ_U(d.icmp.mtu, 0);

	/* Echo request: no quote. */
	ic.n = 0;
	put8(&ic, 8);
	put8(&ic, 0);
	put_fill(&ic, 0, 6);
	putn(&ic, qip.b, qip.n); /* looks like a quote, must not be read as one */
	mk_ip4(&ip, 1, &ic, 0, 0, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_RAW, &d), DEC_ICMP);
	CHECK(!d.icmp.has_inner_ip && !d.icmp.has_inner);
	CHECK_EQ_U(d.icmp.type, 8);
}

static void test_icmp6(void)
{
	struct buf t, e, qip, ic, ip, o;
	struct dec_packet d;

	mk_tcp(&t, NULL, 0, 1400);
	e.n = 0;
	put_ext(&e, 6, 0);
	mk_ip6(&qip, 60, &e, &t, -1);
	qip.n = 40 + 8 + 8;

	ic.n = 0;
	put8(&ic, 2); /* Packet Too Big */
	put8(&ic, 0);
	put16(&ic, 0);
	put32(&ic, 1280);
	putn(&ic, qip.b, qip.n);
	mk_ip6(&ip, 58, NULL, &ic, -1);
	mk_eth(&o, NULL, NULL, 0, 0x86dd, &ip);
	CHECK_EQ_U(decode_buf(&o, PKT_LINKTYPE_ETHERNET, &d), DEC_ICMP);
	CHECK_EQ_U(d.l4proto, 58);
	CHECK_EQ_U(d.icmp.type, 2);
	CHECK_EQ_U(d.icmp.mtu, 1280);
	CHECK(d.icmp.has_inner_ip && d.icmp.has_inner);
	CHECK(addr6_is(&d.icmp.inner_src, ip6_a));
	CHECK(addr6_is(&d.icmp.inner_dst, ip6_b));
	CHECK_EQ_U(d.icmp.inner_proto, 6);
	CHECK_EQ_U(d.icmp.inner_sport, SPORT);
	CHECK_EQ_U(d.icmp.inner_dport, DPORT);
	CHECK_EQ_U(d.icmp.inner_seq, SEQ);
	/* Quote cut inside its extension header. */
	CHECK_EQ_U(decode(o.b, o.n - 12, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ICMP);
	CHECK(!d.icmp.has_inner_ip && !d.icmp.has_inner);
	CHECK_EQ_U(d.icmp.mtu, 1280);
	CHECK_EQ_U(decode(o.b, 14 + 40 + 4, o.n, PKT_LINKTYPE_ETHERNET, &d), DEC_ERR_ICMP_TRUNC);

	/* Destination unreachable quoting a first fragment, then a later one. */
	e.n = 0;
	put_frag6(&e, 60, 0, true);
	put_ext(&e, 6, 0);
	mk_ip6(&qip, 44, &e, &t, -1);
	qip.n = 40 + 16 + 8;
	ic.n = 0;
	put8(&ic, 1);
	put8(&ic, 4);
	put32(&ic, 0);
	put16(&ic, 0);
	putn(&ic, qip.b, qip.n);
	mk_ip6(&ip, 58, NULL, &ic, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_ICMP);
	CHECK_EQ_U(d.icmp.type, 1);
	CHECK_EQ_U(d.icmp.mtu, 0);
	CHECK(d.icmp.has_inner);
	CHECK_EQ_U(d.icmp.inner_proto, 6);
	CHECK_EQ_U(d.icmp.inner_seq, SEQ);

	e.n = 0;
	put_frag6(&e, 6, 10, false);
	mk_ip6(&qip, 44, &e, &t, -1);
	qip.n = 40 + 8 + 8;
	ic.n = 8;
	putn(&ic, qip.b, qip.n);
	mk_ip6(&ip, 58, NULL, &ic, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_ICMP);
	CHECK(d.icmp.has_inner_ip && !d.icmp.has_inner);
	CHECK_EQ_U(d.icmp.inner_proto, 6);

	/* A v4 packet quoted in ICMPv6 is not parsed. */
	mk_ip4(&qip, 6, &t, 0, 0, 100);
	qip.n = 28;
	ic.n = 8;
	putn(&ic, qip.b, qip.n);
	mk_ip6(&ip, 58, NULL, &ic, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_ICMP);
	CHECK(!d.icmp.has_inner_ip);

	/* Echo request: informational, no quote. */
	ic.n = 0;
	put8(&ic, 128);
	put8(&ic, 0);
	put_fill(&ic, 0, 6);
	putn(&ic, qip.b, qip.n);
	mk_ip6(&ip, 58, NULL, &ic, -1);
	CHECK_EQ_U(decode_buf(&ip, PKT_LINKTYPE_IPV6, &d), DEC_ICMP);
	CHECK_EQ_U(d.icmp.type, 128);
	CHECK(!d.icmp.has_inner_ip && !d.icmp.has_inner);
}

static void test_status_names(void)
{
	CHECK_STR(dec_status_name(DEC_TCP), "tcp");
	CHECK_STR(dec_status_name(DEC_ICMP), "icmp");
	CHECK_STR(dec_status_name(DEC_FRAGMENT), "fragment");
	CHECK_STR(dec_status_name(DEC_OTHER_IP), "other_ip");
	CHECK_STR(dec_status_name(DEC_NOT_IP), "not_ip");
	CHECK_STR(dec_status_name(DEC_ERR_LINKTYPE), "unknown_linktype");
	CHECK_STR(dec_status_name(DEC_ERR_LINK_TRUNC), "link_truncated");
	CHECK_STR(dec_status_name(DEC_ERR_IP_TRUNC), "ip_truncated");
	CHECK_STR(dec_status_name(DEC_ERR_IP_BAD), "ip_bad");
	CHECK_STR(dec_status_name(DEC_ERR_IP6_EXT), "ip6_ext_bad");
	CHECK_STR(dec_status_name(DEC_ERR_TCP_TRUNC), "tcp_truncated");
	CHECK_STR(dec_status_name(DEC_ERR_TCP_BAD), "tcp_bad");
	CHECK_STR(dec_status_name(DEC_ERR_ICMP_TRUNC), "icmp_truncated");
	CHECK_STR(dec_status_name(DEC_ERR_LINK_BAD), "link_bad");
	CHECK_STR(dec_status_name(DEC_STATUS_COUNT), "invalid");
	CHECK_STR(dec_status_name(-DEC_ERR_COUNT), "invalid");
	/* Every counter slot has a distinct name. */
	for (int a = -(DEC_ERR_COUNT - 1); a < DEC_STATUS_COUNT; a++)
		for (int b = a + 1; b < DEC_STATUS_COUNT; b++)
			CHECK(strcmp(dec_status_name(a), dec_status_name(b)) != 0);
}

/* ---- random input ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 32);
}

/* Packets random mutations start from: TCP with options, v6 chains, ICMP. */
static void mk_template(struct buf *o, uint32_t lt, uint32_t which)
{
	static const uint8_t opt[20] = {2, 4, 5, 0xb4, 4, 2, 8, 10, 0,	0,
					0, 1, 0, 0,    0, 0, 1, 5,  10, 0};
	static const uint16_t tp[2] = {0x88a8, 0x8100};
	static const uint16_t vid[2] = {1, 2};
	struct buf t, e, q, ip, pp;
	int ver = (which & 1) ? 6 : 4;

	mk_tcp(&t, opt, sizeof(opt), 20);
	if (lt == PKT_LINKTYPE_IPV4)
		ver = 4;
	else if (lt == PKT_LINKTYPE_IPV6)
		ver = 6;
	if (ver == 4) {
		if (which & 2) {
			q = t;
			mk_ip4(&ip, 6, &q, 4, 0, -1);
			q = ip;
			q.n = 32;
			t.n = 0;
			put8(&t, 3);
			put8(&t, 4);
			put_fill(&t, 0, 6);
			putn(&t, q.b, q.n);
			mk_ip4(&ip, 1, &t, 0, 0, -1);
		} else {
			mk_ip4(&ip, 6, &t, 8, 0, -1);
		}
	} else {
		e.n = 0;
		put_ext(&e, 44, 1);
		put_frag6(&e, 51, 0, (which & 4) != 0);
		put8(&e, 6);
		put8(&e, 1);
		put_fill(&e, 0, 10);
		if (which & 2) {
			mk_ip6(&q, 0, &e, &t, -1);
			q.n = 40 + e.n + 8;
			t.n = 0;
			put8(&t, 2);
			put8(&t, 0);
			put16(&t, 0);
			put32(&t, 1280);
			putn(&t, q.b, q.n);
			mk_ip6(&ip, 58, NULL, &t, -1);
		} else if (which & 16) {
			mk_ip6(&ip, 6, NULL, &t, -1); /* no extension header */
		} else {
			mk_ip6(&ip, 0, &e, &t, -1);
		}
	}
	if (lt == PKT_LINKTYPE_ETHERNET && (which & 8)) {
		mk_pppoe(&pp, 0x11, ver == 4 ? 0x21 : 0x57, false, &ip);
		mk_eth(o, tp, vid, 2, 0x8864, &pp);
	} else if (lt == PKT_LINKTYPE_ETHERNET && (which & 32)) {
		mk_eth(o, tp + 1, vid, 1, ver == 4 ? 0x0800 : 0x86dd, &ip); /* one 802.1Q tag */
	} else {
		mk_link(o, lt, ver, &ip);
	}
}

/* dec_peek_tuple()'s promise against dec_packet()'s result rc, d on the
 * bytes the last decode() left at the end of tail_buf. */
static bool peek_agrees(uint32_t caplen, uint32_t lt, int rc, const struct dec_packet *d,
			uint32_t *tcp, uint32_t *eth4)
{
	struct dec_packet t;
	int pk = dec_peek_tuple(at(caplen, 0), caplen, lt, &t);
	uint8_t a[4], b[4];
	uint16_t pa, pb;

	/* The inline peek: the same tuple, and the same hash of it, or no
	 * answer (then the reader asks dec_peek_tuple()). */
	if (dec_peek_eth4(at(caplen, 0), caplen, lt, a, b, &pa, &pb)) {
		(*eth4)++;
		if (pk != DEC_PEEK_TCP || t.src.family != 4 || memcmp(t.src.a, a, 4) != 0 ||
		    memcmp(t.dst.a, b, 4) != 0 || t.tcp.sport != pa || t.tcp.dport != pb ||
		    flow_ends_hash4(a, pa, b, pb) !=
			flow_ends_hash(t.src.a, t.tcp.sport, t.dst.a, t.tcp.dport))
			return false;
	}
	if (pk == DEC_PEEK_NONE)
		return rc != DEC_TCP && rc != DEC_ICMP;
	if (pk != DEC_PEEK_TCP || rc != DEC_TCP)
		return pk == DEC_PEEK_TCP || pk == DEC_PEEK_UNSURE;
	(*tcp)++;
	return t.src.family == d->src.family && t.dst.family == d->dst.family &&
	       memcmp(t.src.a, d->src.a, 16) == 0 && memcmp(t.dst.a, d->dst.a, 16) == 0 &&
	       t.tcp.sport == d->tcp.sport && t.tcp.dport == d->tcp.dport;
}

static void test_random(void)
{
	static const uint32_t lts[] = {
	    PKT_LINKTYPE_NULL,
	    PKT_LINKTYPE_ETHERNET,
	    PKT_LINKTYPE_RAW,
	    PKT_LINKTYPE_LOOP,
	    PKT_LINKTYPE_LINUX_SLL,
	    PKT_LINKTYPE_IPV4,
	    PKT_LINKTYPE_IPV6,
	    PKT_LINKTYPE_LINUX_SLL2,
	    PKT_LINKTYPE_DLT_RAW_OLD,
	    PKT_LINKTYPE_DLT_RAW_OLD2,
	    147,
	};
	uint32_t seen[DEC_STATUS_COUNT + DEC_ERR_COUNT];
	struct buf o;
	struct dec_packet d;
	volatile uint32_t sink = 0;

	for (size_t l = 0; l < sizeof(lts) / sizeof(lts[0]); l++) {
		uint32_t bad = 0, peek_bad = 0, peek_tcp = 0, peek_eth4 = 0;

		memset(seen, 0, sizeof(seen));
		for (uint32_t it = 0; it < 100000; it++) {
			uint32_t caplen, wirelen, r = rnd();
			int rc;

			if (it & 1) { /* pure noise */
				o.n = (r & 3) == 0 ? rnd() % 1600 : rnd() % 128;
				for (uint32_t i = 0; i < o.n; i++)
					o.b[i] = (uint8_t)rnd();
			} else { /* a valid packet, a few bytes flipped */
				mk_template(&o, lts[l], r >> 8);
				for (uint32_t k = r & 7; k > 0; k--)
					o.b[rnd() % o.n] ^= (uint8_t)(1u << (rnd() & 7));
				if ((r >> 3) & 1)
					o.n = rnd() % (o.n + 1);
			}
			caplen = o.n;
			wirelen = caplen + ((r >> 4) & 1 ? rnd() % 70000 : 0);
			rc = decode(o.b, caplen, wirelen, lts[l], &d);
			peek_bad += !peek_agrees(caplen, lts[l], rc, &d, &peek_tcp, &peek_eth4);
			if (rc <= -DEC_ERR_COUNT || rc >= DEC_STATUS_COUNT) {
				bad++;
				continue;
			}
			seen[rc + DEC_ERR_COUNT]++;
			if (d.vlan_depth > DEC_MAX_VLAN || d.l3_len > wirelen)
				bad++;
			if (rc == DEC_TCP) {
				const uint8_t *lo = at(caplen, 0), *hi = at(caplen, caplen);

				if (d.tcp.payload < lo || d.tcp.payload > hi ||
				    d.tcp.payload_cap > (uint32_t)(hi - d.tcp.payload) ||
				    d.tcp.payload_cap > d.tcp.payload_len || d.tcp.hdr_len < 20 ||
				    d.tcp.hdr_len > 60 || d.tcp.opt.nsack > DEC_MAX_SACK)
					bad++;
				for (uint32_t i = 0; i < d.tcp.payload_cap; i++)
					sink += d.tcp.payload[i];
			}
		}
		CHECK_EQ_U(bad, 0);
		CHECK_EQ_U(peek_bad, 0);
		if (lts[l] != 147) /* templates must reach TCP often */
			CHECK(seen[DEC_TCP + DEC_ERR_COUNT] > 1000);
		/* and the peek where it knows the framing */
		if (lts[l] == PKT_LINKTYPE_ETHERNET || lts[l] == PKT_LINKTYPE_RAW ||
		    lts[l] == PKT_LINKTYPE_LINUX_SLL || lts[l] == PKT_LINKTYPE_IPV6)
			CHECK(peek_tcp > 1000);
		/* the inline peek: untagged Ethernet IPv4 only */
		if (lts[l] == PKT_LINKTYPE_ETHERNET)
			CHECK(peek_eth4 > 500);
		else
			CHECK_EQ_U(peek_eth4, 0);
	}
	(void)sink;
}

int main(void)
{
	test_ethernet_basic();
	test_vlan();
	test_pppoe();
	test_not_ip();
	test_sll();
	test_null_loop();
	test_raw();
	test_linktypes();
	test_ipv4();
	test_ipv4_fragments();
	test_ipv4_len0_and_padding();
	test_ipv6_ext();
	test_ipv6_chain_bound();
	test_ipv6_fragment();
	test_ipv6_lengths();
	test_tcp_options_packet();
	test_tcp_header_errors();
	test_tcp_options_direct();
	test_icmp4();
	test_icmp6();
	test_status_names();
	test_random();
	return unit_done("decode");
}
