/*
 * synflood.c - a classic pcap of N SYNs, each from its own client: the flood
 * of issue 13, generated fast enough for make check (1 M in well under a
 * second; tests/scale/syns.py writes the same packets, with checksums, at
 * 50 000 a second).
 *
 *   synflood OUT N [GAP_US]
 *
 * Client 10.(k/65536).(k/256%256).(k%256):(1024 + k%60000) to 192.0.2.1:80,
 * Ethernet + IPv4 + TCP with an MSS option, GAP_US (default 1) microseconds
 * apart. Checksums are zero (tcpsift does not check them). Ground truth:
 * N connections, N packets.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FRAME = 14 + 20 + 24 };

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: synflood OUT N [GAP_US]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "wb");
	unsigned long n = strtoul(argv[2], NULL, 10);
	unsigned long gap = argc > 3 ? strtoul(argv[3], NULL, 10) : 1;
	if (!f) {
		perror(argv[1]);
		return 3;
	}
	static char buf[1 << 20];
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	const uint32_t ghdr[6] = {0xA1B2C3D4, 2 | 4u << 16, 0, 0, 65535, 1};
	fwrite(ghdr, sizeof(ghdr), 1, f);

	uint8_t rec[16 + FRAME] = {0};
	uint8_t *e = rec + 16, *ip = e + 14, *tcp = ip + 20;
	static const uint8_t macs[12] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};
	memcpy(e, macs, sizeof(macs));
	e[12] = 0x08;
	ip[0] = 0x45;
	put16(ip + 2, 20 + 24);
	put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 6;
	ip[12] = 10;
	put32(ip + 16, 0xC0000201); /* 192.0.2.1 */
	put16(tcp + 2, 80);
	tcp[12] = 6 << 4;
	tcp[13] = 0x02; /* SYN */
	put16(tcp + 14, 64240);
	tcp[20] = 2; /* MSS 1460 */
	tcp[21] = 4;
	put16(tcp + 22, 1460);
	uint32_t caplen = FRAME;
	memcpy(rec + 8, &caplen, 4);
	memcpy(rec + 12, &caplen, 4);
	for (unsigned long k = 0; k < n; k++) {
		uint64_t us = 1700000000ull * 1000000 + k * gap;
		uint32_t sec = (uint32_t)(us / 1000000), usec = (uint32_t)(us % 1000000);
		memcpy(rec, &sec, 4);
		memcpy(rec + 4, &usec, 4);
		put16(ip + 4, (uint32_t)k);
		ip[13] = (uint8_t)(k >> 16);
		ip[14] = (uint8_t)(k >> 8);
		ip[15] = (uint8_t)k;
		put16(tcp, 1024 + (uint32_t)(k % 60000));
		put32(tcp + 4, 1000 + (uint32_t)k);
		fwrite(rec, sizeof(rec), 1, f);
	}
	return fclose(f) == 0 ? 0 : 3;
}
