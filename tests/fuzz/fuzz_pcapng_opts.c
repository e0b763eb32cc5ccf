/* fuzz_pcapng_opts.c - libFuzzer target: any bytes as the option areas of a well-formed pcapng
 * file. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_memfd.h"
#include "capture/file/savefile.h"
#include "common/clock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * fuzz_savefile mostly fuzzes block framing: lengths, trailers, block
 * types. Here the framing is always right and the fuzzer owns what is
 * inside: the option lists of an IDB (if_tsresol, if_tsoffset, if_name, ...),
 * of EPBs (epb_flags, epb_dropcount, epb_queue) and of an ISB, plus each
 * packet's 64-bit timestamp, so every resolution and offset meets every
 * tick count (the saturating arithmetic of common/clock.h).
 *
 * Input: [flags][then chunks of [len:2 big endian][bytes]]. flags bit 0:
 * big-endian section; bit 1: a second IDB; bit 2: an ISB after the
 * packets. The first chunk is the IDB's option area (a second IDB, if
 * any, takes the next); every later chunk is one EPB: [ts:8][iface:1]
 * then the rest as its option area, after 4 bytes of packet data. Option
 * areas go in as given (padded to 4 bytes), so their codes and lengths are
 * whatever the fuzzer wrote.
 */

enum { OPTS_MAX_FILE = 1 << 20 };

struct out {
	uint8_t *b;
	size_t n;
	bool big;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (n == 0 || o->n + n > OPTS_MAX_FILE)
		return; /* n == 0: p may be NULL, which memcpy may not be given */
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void put32(struct out *o, uint32_t v)
{
	uint8_t b[4];

	for (int k = 0; k < 4; k++)
		b[k] = (uint8_t)(o->big ? v >> (24 - 8 * k) : v >> (8 * k));
	put(o, b, 4);
}

static void put16(struct out *o, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)(o->big ? v >> 8 : v), (uint8_t)(o->big ? v : v >> 8)};

	put(o, b, 2);
}

/* A block: type, length, body (padded), options (padded), length. */
static void block(struct out *o, uint32_t type, const uint8_t *body, size_t blen,
		  const uint8_t *opts, size_t olen)
{
	static const uint8_t zero[4];
	size_t bpad = (4 - blen % 4) % 4, opad = (4 - olen % 4) % 4;
	uint32_t total = (uint32_t)(12 + blen + bpad + olen + opad);

	if (o->n + total > OPTS_MAX_FILE)
		return;
	put32(o, type);
	put32(o, total);
	put(o, body, blen);
	put(o, zero, bpad);
	put(o, opts, olen);
	put(o, zero, opad);
	put32(o, total);
}

/* The next [len:2][bytes] chunk; false at the end of the input. */
static bool chunk(const uint8_t *d, size_t size, size_t *off, const uint8_t **c, size_t *n)
{
	if (*off + 2 > size)
		return false;
	*n = (size_t)d[*off] << 8 | d[*off + 1];
	*off += 2;
	if (*n > size - *off)
		*n = size - *off;
	*c = d + *off;
	*off += *n;
	return true;
}

static void body_idb(struct out *o, uint8_t *b)
{
	struct out t = {.b = b, .big = o->big};

	put16(&t, 1); /* Ethernet */
	put16(&t, 0);
	put32(&t, 0); /* snaplen: none */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t file[OPTS_MAX_FILE];
	struct out o = {.b = file};
	uint8_t body[32];
	const uint8_t *c;
	size_t n, off = 1;
	unsigned nifs = 1;

	if (size < 1)
		return 0;
	o.big = data[0] & 1;
	{ /* SHB: byte-order magic, version 1.0, section length unknown */
		struct out t = {.b = body, .big = o.big};
		put32(&t, 0x1A2B3C4D);
		put16(&t, 1);
		put16(&t, 0);
		put32(&t, 0xFFFFFFFF);
		put32(&t, 0xFFFFFFFF);
		block(&o, 0x0A0D0D0A, body, t.n, NULL, 0);
	}
	for (unsigned k = 0; k < (data[0] & 2 ? 2u : 1u); k++) {
		body_idb(&o, body);
		if (!chunk(data, size, &off, &c, &n))
			c = NULL, n = 0;
		block(&o, 0x00000001, body, 8, c, n);
		nifs = k + 1;
	}
	while (chunk(data, size, &off, &c, &n)) {
		uint64_t ts = 0;
		uint8_t iface = 0;
		struct out t = {.b = body, .big = o.big};

		for (size_t k = 0; k < 8 && k < n; k++)
			ts = ts << 8 | c[k];
		if (n > 8)
			iface = c[8];
		c += n < 9 ? n : 9;
		n -= n < 9 ? n : 9;
		put32(&t, iface % nifs);
		put32(&t, (uint32_t)(ts >> 32));
		put32(&t, (uint32_t)ts);
		put32(&t, 4); /* caplen */
		put32(&t, 60);
		put32(&t, 0xDEADBEEF); /* 4 bytes of packet */
		block(&o, 0x00000006, body, t.n, c, n);
	}
	if (data[0] & 4) { /* ISB of interface 0: isb_ifrecv, isb_ifdrop, end */
		struct out t = {.b = body, .big = o.big};
		uint8_t opts[28];
		struct out u = {.b = opts, .big = o.big};

		put32(&t, 0);
		put32(&t, 0);
		put32(&t, 0);
		for (uint16_t code = 3; code <= 4; code++) {
			put16(&u, code);
			put16(&u, 8);
			put32(&u, 0);
			put32(&u, code);
		}
		put32(&u, 0);
		block(&o, 0x00000005, body, t.n, opts, u.n);
	}

	char path[64], err[256];
	uint8_t sum = 0;
	int fd = fuzz_memfd("fuzz_pcapng_opts", file, o.n, path, sizeof(path));
	struct sf_reader *r = sf_open(path, err, sizeof(err));
	if (r != NULL) {
		struct pkt p;
		int rc;

		while ((rc = sf_next(r, &p)) == 1) {
			for (uint32_t i = 0; i < p.caplen; i++)
				sum ^= p.data[i];
			/* The time is in range, and at an end only when clamped. */
			if (p.ts_ns < 0 || p.iface >= sf_iface_count(r) || p.wirelen < p.caplen)
				abort();
			if ((p.ts_ns == 0 || p.ts_ns == CLOCK_TS_MAX)
				? false
				: (p.have & PKT_HAVE_TS_CLAMPED))
				abort();
		}
		if (rc < 0 && sf_error(r)[0] == '\0')
			abort();
		for (unsigned i = 0; i < sf_iface_count(r); i++)
			sum ^= (uint8_t)sf_iface(r, i)->name[0];
		sf_close(r);
	} else if (err[0] == '\0') {
		abort();
	}
	close(fd);
	__asm__ volatile("" : : "r"(sum));
	return 0;
}
