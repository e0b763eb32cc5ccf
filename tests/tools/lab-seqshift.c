/*
 * lab-seqshift.c - shift the TCP sequence space of one direction in a pcap.
 *
 *   lab-seqshift [-p PORT] (-d DELTA | -w BYTES) [-r DELTA] IN.pcap OUT.pcap
 *
 * Linux picks its own ISNs, so a capture whose sequence numbers cross 2^32 is
 * made by rewriting a real one. Packets of the "forward" direction get DELTA
 * added to their sequence number; packets going the other way get DELTA added
 * to their acknowledgment number (when ACK is set) and to both edges of every
 * SACK block (which name forward sequence numbers). -r DELTA does the same
 * for the reverse direction's own sequence space.
 *
 * Forward is the sender of the first SYN without ACK (its address and port),
 * or, with -p PORT, every packet whose TCP source port is PORT.
 * -w BYTES picks DELTA so that forward data byte number BYTES (0-based, after
 * the SYN) has sequence number 0: the stream wraps BYTES bytes in.
 *
 * Input: classic pcap (microsecond or nanosecond magic, either byte order),
 * LINKTYPE_ETHERNET with up to two 802.1Q/802.1ad tags, IPv4 (unfragmented)
 * or IPv6 (TCP as the first next header). Other packets are copied as they
 * are. The file header and record headers are copied unchanged.
 *
 * Checksums: when the whole IP packet was captured the TCP checksum is
 * recomputed from scratch (so it is correct afterwards even if it was not
 * before, e.g. a sender-side capture with checksum offload); when the
 * capture is cut by the snaplen it is updated incrementally (RFC 1624), which
 * keeps a correct checksum correct.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_REC (256u * 1024u)

struct dirkey {
	int family; /* 4 or 6; 0 = not known yet */
	uint8_t addr[16];
	uint16_t port;
};

struct cfg {
	int port; /* -p; -1 = first SYN's sender */
	uint32_t delta, rdelta;
	int delta_set, wrap_set;
	uint64_t wrap_bytes;
};

struct counts {
	uint64_t records, tcp, fwd, rev, full_csum, incr_csum, bad_csum_in, sack_blocks, skipped;
};

static struct cfg cfg = {.port = -1};
static struct counts cnt;
static struct dirkey fwd;

/* One parsed TCP packet inside a record buffer. */
struct tcpref {
	uint8_t *ip;	/* start of the IP header */
	uint8_t *tcp;	/* start of the TCP header */
	size_t tcp_cap; /* TCP bytes present in the capture */
	size_t tcp_len; /* TCP segment length per the IP header */
	int family;	/* 4 or 6 */
	uint8_t *src, *dst;
};

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t hdr32(uint32_t v, int swapped)
{
	return swapped ? __builtin_bswap32(v) : v;
}

static void die(const char *msg) __attribute__((noreturn));

static void die(const char *msg)
{
	fprintf(stderr, "lab-seqshift: %s\n", msg);
	exit(1);
}

/* Locate IPv4/IPv6 + TCP behind an Ethernet header. Returns 0 when not TCP. */
static int find_tcp(uint8_t *pkt, size_t cap, struct tcpref *t)
{
	size_t off = 12, l3, ipcap, tcpoff, iplen;
	uint16_t et;
	int tags = 0;

	if (cap < 14)
		return 0;
	et = rd16(pkt + off);
	while ((et == 0x8100 || et == 0x88a8) && tags < 2) {
		off += 4;
		tags++;
		if (cap < off + 2)
			return 0;
		et = rd16(pkt + off);
	}
	l3 = off + 2;
	ipcap = cap - l3;
	t->ip = pkt + l3;
	if (et == 0x0800) {
		size_t ihl;

		if (ipcap < 20 || (t->ip[0] >> 4) != 4 || t->ip[9] != 6)
			return 0;
		if (rd16(t->ip + 6) & 0x3fff) /* MF or fragment offset */
			return 0;
		ihl = (size_t)(t->ip[0] & 15) * 4;
		iplen = rd16(t->ip + 2);
		if (ihl < 20 || iplen < ihl)
			return 0;
		tcpoff = ihl;
		t->family = 4;
		t->src = t->ip + 12;
		t->dst = t->ip + 16;
	} else if (et == 0x86dd) {
		if (ipcap < 40 || (t->ip[0] >> 4) != 6 || t->ip[6] != 6)
			return 0;
		iplen = 40 + (size_t)rd16(t->ip + 4);
		tcpoff = 40;
		t->family = 6;
		t->src = t->ip + 8;
		t->dst = t->ip + 24;
	} else {
		return 0;
	}
	if (ipcap < tcpoff + 20)
		return 0;
	t->tcp = t->ip + tcpoff;
	t->tcp_len = iplen - tcpoff;
	t->tcp_cap = ipcap - tcpoff;
	if (t->tcp_cap > t->tcp_len)
		t->tcp_cap = t->tcp_len; /* Ethernet padding */
	if (t->tcp_len < 20 || (size_t)(t->tcp[12] >> 4) * 4 < 20 ||
	    (size_t)(t->tcp[12] >> 4) * 4 > t->tcp_len)
		return 0;
	return 1;
}

static uint32_t sum16(uint32_t sum, const uint8_t *p, size_t len)
{
	while (len > 1) {
		sum += rd16(p);
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Full TCP checksum over pseudo header and segment (checksum field as is). */
static uint16_t tcp_csum(const struct tcpref *t)
{
	size_t alen = t->family == 4 ? 4 : 16;
	uint32_t sum = 0;

	sum = sum16(sum, t->src, alen);
	sum = sum16(sum, t->dst, alen);
	sum += 6;
	sum += (uint32_t)(t->tcp_len & 0xffff) + (uint32_t)(t->tcp_len >> 16);
	sum = sum16(sum, t->tcp, t->tcp_len);
	return (uint16_t)~fold(sum);
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') for one 16-bit word. */
static uint16_t csum_adjust16(uint16_t hc, uint16_t old, uint16_t new)
{
	uint32_t sum = (uint16_t)~hc;

	sum += (uint16_t)~old;
	sum += new;
	return (uint16_t)~fold(sum);
}

/* Replace a 32-bit field in the TCP header, adjusting *hc incrementally. */
static void set32(uint8_t *p, uint32_t v, uint16_t *hc)
{
	uint32_t old = rd32(p);

	*hc = csum_adjust16(*hc, (uint16_t)(old >> 16), (uint16_t)(v >> 16));
	*hc = csum_adjust16(*hc, (uint16_t)old, (uint16_t)v);
	wr32(p, v);
}

static int same_dir(const struct tcpref *t, const struct dirkey *k)
{
	size_t alen = k->family == 4 ? 4 : 16;

	return t->family == k->family && !memcmp(t->src, k->addr, alen) && rd16(t->tcp) == k->port;
}

/* Add delta to both edges of every SACK block in the captured options. */
static void shift_sack(const struct tcpref *t, uint32_t delta, uint16_t *hc)
{
	size_t hl = (size_t)(t->tcp[12] >> 4) * 4, i = 20, j;

	if (hl > t->tcp_cap)
		hl = t->tcp_cap;
	while (i < hl) {
		uint8_t kind = t->tcp[i], len;

		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= hl)
			break;
		len = t->tcp[i + 1];
		if (len < 2 || i + len > hl)
			break;
		if (kind == 5 && len >= 10 && (len - 2) % 8 == 0) {
			for (j = i + 2; j + 8 <= i + len; j += 8) {
				set32(t->tcp + j, rd32(t->tcp + j) + delta, hc);
				set32(t->tcp + j + 4, rd32(t->tcp + j + 4) + delta, hc);
				cnt.sack_blocks++;
			}
		}
		i += len;
	}
}

static void rewrite(struct tcpref *t)
{
	uint8_t flags = t->tcp[13];
	int is_fwd;
	uint16_t hc = rd16(t->tcp + 16);
	int full = t->tcp_cap == t->tcp_len;

	cnt.tcp++;
	if (cfg.port < 0 && !fwd.family && (flags & 0x12) == 0x02) {
		fwd.family = t->family;
		memcpy(fwd.addr, t->src, t->family == 4 ? 4 : 16);
		fwd.port = rd16(t->tcp);
	}
	/* -w: anchor on the forward direction's SYN (or SYN-ACK with -p). */
	if (cfg.wrap_set && (flags & 0x02) &&
	    (cfg.port >= 0 ? rd16(t->tcp) == cfg.port : fwd.family && same_dir(t, &fwd))) {
		cfg.delta = (uint32_t)(0 - (uint64_t)rd32(t->tcp + 4) - 1 - cfg.wrap_bytes);
		cfg.wrap_set = 0;
		cfg.delta_set = 1;
	}
	if (cfg.port >= 0)
		is_fwd = rd16(t->tcp) == cfg.port;
	else if (fwd.family)
		is_fwd = same_dir(t, &fwd);
	else {
		cnt.skipped++; /* before the first SYN: direction unknown */
		return;
	}
	if (cfg.wrap_set) {
		cnt.skipped++; /* -w and no SYN seen yet */
		return;
	}
	if (full && tcp_csum(t) != 0)
		cnt.bad_csum_in++;
	if (is_fwd) {
		cnt.fwd++;
		set32(t->tcp + 4, rd32(t->tcp + 4) + cfg.delta, &hc);
		if (flags & 0x10)
			set32(t->tcp + 8, rd32(t->tcp + 8) + cfg.rdelta, &hc);
		shift_sack(t, cfg.rdelta, &hc);
	} else {
		cnt.rev++;
		set32(t->tcp + 4, rd32(t->tcp + 4) + cfg.rdelta, &hc);
		if (flags & 0x10)
			set32(t->tcp + 8, rd32(t->tcp + 8) + cfg.delta, &hc);
		shift_sack(t, cfg.delta, &hc);
	}
	if (full) {
		wr16(t->tcp + 16, 0);
		wr16(t->tcp + 16, tcp_csum(t));
		cnt.full_csum++;
	} else {
		wr16(t->tcp + 16, hc);
		cnt.incr_csum++;
	}
}

static uint32_t parse_u32(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || *end || end == s || v < -(long long)UINT32_MAX || v > (long long)UINT32_MAX)
		die("bad number");
	return (uint32_t)v; /* negative deltas wrap modulo 2^32 */
}

static void usage(void)
{
	fputs("usage: lab-seqshift [-p PORT] (-d DELTA | -w BYTES) [-r DELTA] IN.pcap OUT.pcap\n"
	      "  -d DELTA  add DELTA (mod 2^32) to the forward direction's sequence space\n"
	      "  -w BYTES  choose DELTA so the forward stream wraps 2^32 BYTES bytes in\n"
	      "  -r DELTA  add DELTA to the reverse direction's sequence space (default 0)\n"
	      "  -p PORT   forward = packets with TCP source port PORT (default: the\n"
	      "            sender of the first SYN)\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static uint8_t buf[MAX_REC];
	uint8_t gh[24], rh[16];
	FILE *in, *out;
	uint32_t magic, linktype;
	int c, swapped;

	while ((c = getopt(argc, argv, "p:d:w:r:h")) != -1) {
		switch (c) {
		case 'p':
			cfg.port = (int)parse_u32(optarg);
			if (cfg.port > 65535)
				die("bad port");
			break;
		case 'd':
			cfg.delta = parse_u32(optarg);
			cfg.delta_set = 1;
			break;
		case 'w':
			cfg.wrap_bytes = parse_u32(optarg);
			cfg.wrap_set = 1;
			break;
		case 'r':
			cfg.rdelta = parse_u32(optarg);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2 || cfg.delta_set == cfg.wrap_set)
		usage();
	in = fopen(argv[optind], "rb");
	if (!in)
		die("cannot open input");
	out = fopen(argv[optind + 1], "wb");
	if (!out)
		die("cannot create output");
	if (fread(gh, 1, sizeof(gh), in) != sizeof(gh))
		die("input too short for a pcap header");
	memcpy(&magic, gh, 4);
	if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d)
		swapped = 0;
	else if (magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1)
		swapped = 1;
	else
		die("not a classic pcap file (pcapng: convert with editcap -F pcap)");
	memcpy(&linktype, gh + 20, 4);
	if ((hdr32(linktype, swapped) & 0x03ffffff) != 1)
		die("only LINKTYPE_ETHERNET is supported");
	if (fwrite(gh, 1, sizeof(gh), out) != sizeof(gh))
		die("write failed");

	for (;;) {
		size_t n = fread(rh, 1, sizeof(rh), in);
		uint32_t caplen;
		struct tcpref t;

		if (n == 0)
			break;
		if (n != sizeof(rh))
			die("input ends inside a record header");
		memcpy(&caplen, rh + 8, 4);
		caplen = hdr32(caplen, swapped);
		if (caplen > MAX_REC)
			die("record larger than 256 KiB");
		if (fread(buf, 1, caplen, in) != caplen)
			die("input ends inside a record");
		cnt.records++;
		if (find_tcp(buf, caplen, &t))
			rewrite(&t);
		if (fwrite(rh, 1, sizeof(rh), out) != sizeof(rh) ||
		    fwrite(buf, 1, caplen, out) != caplen)
			die("write failed");
	}
	if (ferror(in))
		die("read error");
	if (fclose(out) != 0)
		die("write failed");
	fclose(in);
	if (!cfg.delta_set)
		die("-w: no SYN found to anchor the wrap point");
	fprintf(stderr,
		"lab-seqshift: %" PRIu64 " records, %" PRIu64 " TCP (%" PRIu64 " forward, %" PRIu64
		" reverse, %" PRIu64 " skipped), delta %" PRIu32 ", reverse delta %" PRIu32
		", %" PRIu64 " SACK blocks, checksums: %" PRIu64 " recomputed, %" PRIu64
		" updated incrementally, %" PRIu64 " were bad on input\n",
		cnt.records, cnt.tcp, cnt.fwd, cnt.rev, cnt.skipped, cfg.delta, cfg.rdelta,
		cnt.sack_blocks, cnt.full_csum, cnt.incr_csum, cnt.bad_csum_in);
	return 0;
}
