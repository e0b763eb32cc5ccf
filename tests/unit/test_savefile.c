/* test_savefile.c - sf_* against pcap and pcapng files built byte by byte in memory. */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/file/savefile.h"
#include "tests/unit/unit.h"

/* --- byte builder ---------------------------------------------------------- */

struct bb {
	uint8_t *p;
	size_t n, cap;
	int big; /* byte order of multi-byte fields written from now on */
};

static void bb_put(struct bb *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->n + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (b->p == NULL) {
			perror("realloc");
			exit(2);
		}
		b->cap = cap;
	}
	if (n > 0)
		memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void bb_u8(struct bb *b, uint8_t v)
{
	bb_put(b, &v, 1);
}

static void bb_u16(struct bb *b, uint16_t v)
{
	uint8_t x[2];

	for (int i = 0; i < 2; i++)
		x[b->big ? 1 - i : i] = (uint8_t)(v >> (8 * i));
	bb_put(b, x, 2);
}

static void bb_u32(struct bb *b, uint32_t v)
{
	uint8_t x[4];

	for (int i = 0; i < 4; i++)
		x[b->big ? 3 - i : i] = (uint8_t)(v >> (8 * i));
	bb_put(b, x, 4);
}

static void bb_u64(struct bb *b, uint64_t v)
{
	uint8_t x[8];

	for (int i = 0; i < 8; i++)
		x[b->big ? 7 - i : i] = (uint8_t)(v >> (8 * i));
	bb_put(b, x, 8);
}

static void bb_set32(struct bb *b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->p[at + (size_t)(b->big ? 3 - i : i)] = (uint8_t)(v >> (8 * i));
}

static void bb_pad4(struct bb *b)
{
	while (b->n % 4 != 0)
		bb_u8(b, 0);
}

static void bb_free(struct bb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* Deterministic packet payload: byte i of packet k. */
static uint8_t pat(uint32_t k, uint32_t i)
{
	return (uint8_t)(k * 31u + i * 7u + 1u);
}

static void bb_pattern(struct bb *b, uint32_t k, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		bb_u8(b, pat(k, i));
}

static int pattern_ok(const uint8_t *d, uint32_t k, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (d[i] != pat(k, i))
			return 0;
	return 1;
}

/* --- classic pcap builders ------------------------------------------------- */

static void pcap_hdr(struct bb *b, uint32_t magic, uint16_t major, uint16_t minor, uint32_t snaplen,
		     uint32_t linktype)
{
	bb_u32(b, magic);
	bb_u16(b, major);
	bb_u16(b, minor);
	bb_u32(b, 0);
	bb_u32(b, 0);
	bb_u32(b, snaplen);
	bb_u32(b, linktype);
}

static void pcap_rec(struct bb *b, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t len,
		     uint32_t k)
{
	bb_u32(b, sec);
	bb_u32(b, frac);
	bb_u32(b, caplen);
	bb_u32(b, len);
	bb_pattern(b, k, caplen);
}

/* --- pcapng builders ------------------------------------------------------- */

static size_t ng_begin(struct bb *b, uint32_t type)
{
	size_t at = b->n;

	bb_u32(b, type);
	bb_u32(b, 0);
	return at;
}

static void ng_end(struct bb *b, size_t at)
{
	uint32_t total;

	bb_pad4(b);
	total = (uint32_t)(b->n - at + 4);
	bb_set32(b, at + 4, total);
	bb_u32(b, total);
}

static void ng_opt(struct bb *b, uint16_t code, const void *v, uint16_t len)
{
	bb_u16(b, code);
	bb_u16(b, len);
	bb_put(b, v, len);
	bb_pad4(b);
}

static void ng_opt32(struct bb *b, uint16_t code, uint32_t v)
{
	bb_u16(b, code);
	bb_u16(b, 4);
	bb_u32(b, v);
}

static void ng_opt64(struct bb *b, uint16_t code, uint64_t v)
{
	bb_u16(b, code);
	bb_u16(b, 8);
	bb_u64(b, v);
}

static void ng_optend(struct bb *b)
{
	bb_u32(b, 0);
}

static void ng_shb(struct bb *b, int big)
{
	size_t at;

	b->big = big;
	at = ng_begin(b, 0x0A0D0D0A);
	bb_u32(b, 0x1A2B3C4D);
	bb_u16(b, 1);
	bb_u16(b, 0);
	bb_u64(b, UINT64_MAX);
	ng_end(b, at);
}

/* tsresol < 0: no if_tsresol option; has_off: write if_tsoffset. */
static void ng_idb(struct bb *b, uint16_t lt, uint32_t snap, const char *name, int tsresol,
		   int has_off, int64_t tsoff)
{
	size_t at = ng_begin(b, 1);

	bb_u16(b, lt);
	bb_u16(b, 0);
	bb_u32(b, snap);
	if (name != NULL)
		ng_opt(b, 2, name, (uint16_t)strlen(name));
	if (tsresol >= 0) {
		uint8_t v = (uint8_t)tsresol;

		ng_opt(b, 9, &v, 1);
	}
	if (has_off)
		ng_opt64(b, 14, (uint64_t)tsoff);
	if (name != NULL || tsresol >= 0 || has_off)
		ng_optend(b);
	ng_end(b, at);
}

/* EPB without options; returns the block start so callers can add options
 * by building the block themselves via ng_epb_open/ng_end. */
static size_t ng_epb_open(struct bb *b, uint32_t iface, uint64_t ts, uint32_t caplen, uint32_t len,
			  uint32_t k)
{
	size_t at = ng_begin(b, 6);

	bb_u32(b, iface);
	bb_u32(b, (uint32_t)(ts >> 32));
	bb_u32(b, (uint32_t)ts);
	bb_u32(b, caplen);
	bb_u32(b, len);
	bb_pattern(b, k, caplen);
	bb_pad4(b);
	return at;
}

static void ng_epb(struct bb *b, uint32_t iface, uint64_t ts, uint32_t caplen, uint32_t len,
		   uint32_t k)
{
	ng_end(b, ng_epb_open(b, iface, ts, caplen, len, k));
}

/* --- file helpers ---------------------------------------------------------- */

static char tmpdir[64];

static const char *write_file(const struct bb *b, const char *name)
{
	static char path[4][128];
	static int slot;
	char *p = path[slot++ % 4];
	int fd;

	snprintf(p, sizeof(path[0]), "%s/%s", tmpdir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1 || write(fd, b->p, b->n) != (ssize_t)b->n) {
		perror(p);
		exit(2);
	}
	close(fd);
	return p;
}

/* Open must fail; returns the message for CHECKs. */
static const char *open_fails(const char *path)
{
	static char err[256];
	struct sf_reader *r = sf_open(path, err, sizeof(err));

	if (r != NULL) {
		sf_close(r);
		return "(opened)";
	}
	return err;
}

static struct sf_reader *open_ok(const char *path)
{
	char err[256];
	struct sf_reader *r = sf_open(path, err, sizeof(err));

	if (r == NULL)
		fprintf(stderr, "sf_open %s: %s\n", path, err);
	return r;
}

/* --- classic pcap tests ---------------------------------------------------- */

static void test_pcap_us_le(void)
{
	struct bb b = {0};
	struct sf_reader *r;
	struct pkt p;
	const char *path;

	pcap_hdr(&b, 0xA1B2C3D4, 2, 4, 65535, 1);
	pcap_rec(&b, 1700000000, 123456, 60, 60, 1);
	pcap_rec(&b, 1700000001, 999999, 40, 1514, 2); /* snapped */
	pcap_rec(&b, 4000000000u, 1, 0, 0, 3);	       /* past 2038, empty */
	path = write_file(&b, "us_le.pcap");
	r = open_ok(path);
	CHECK(r != NULL);
	if (r == NULL)
		return;
	CHECK_EQ_U(sf_format(r), SF_FORMAT_PCAP);
	CHECK_STR(sf_format_name(sf_format(r)), "pcap");
	CHECK_EQ_U(sf_compressed(r), 0);
	CHECK_EQ_U(sf_size(r), b.n);
	CHECK_EQ_U(sf_iface_count(r), 1);
	CHECK_EQ_U(sf_iface(r, 0)->linktype, 1);
	CHECK_EQ_U(sf_iface(r, 0)->snaplen, 65535);
	CHECK(sf_iface(r, 1) == NULL);
	CHECK_EQ_U(sf_offset(r), 24);
	p.input = 77;
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.ts_ns, 1700000000123456000ull);
	CHECK_EQ_U(p.caplen, 60);
	CHECK_EQ_U(p.wirelen, 60);
	CHECK_EQ_U(p.linktype, 1);
	CHECK_EQ_U(p.iface, 0);
	CHECK_EQ_U(p.frame, 1);
	CHECK_EQ_U(p.have, 0);
	CHECK_EQ_U(p.input, 77); /* left for the caller */
	CHECK(pattern_ok(p.data, 1, 60));
	CHECK_EQ_U(sf_offset(r), 24 + 16 + 60);
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.ts_ns, 1700000001999999000ull);
	CHECK_EQ_U(p.caplen, 40);
	CHECK_EQ_U(p.wirelen, 1514);
	CHECK_EQ_U(p.frame, 2);
	CHECK(pattern_ok(p.data, 2, 40));
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.ts_ns, 4000000000ull * 1000000000ull + 1000);
	CHECK_EQ_U(p.caplen, 0);
	CHECK_EQ_U(sf_next(r, &p), 0);
	CHECK_EQ_U(sf_next(r, &p), 0); /* EOF stays EOF */
	CHECK_EQ_U(sf_offset(r), b.n);
	CHECK_STR(sf_error(r), "");
	sf_close(r);
	bb_free(&b);
}

static void test_pcap_ns_be(void)
{
	struct bb b = {.big = 1};
	struct sf_reader *r;
	struct pkt p;

	pcap_hdr(&b, 0xA1B23C4D, 2, 4, 262144, 113);
	pcap_rec(&b, 1600000000, 123456789, 44, 44, 5);
	pcap_rec(&b, 1600000000, 999999999, 20, 100, 6);
	r = open_ok(write_file(&b, "ns_be.pcap"));
	CHECK(r != NULL);
	if (r == NULL)
		return;
	CHECK_EQ_U(sf_format(r), SF_FORMAT_PCAP_NS);
	CHECK_STR(sf_format_name(sf_format(r)), "pcap-ns");
	CHECK_EQ_U(sf_iface(r, 0)->linktype, 113);
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.ts_ns, 1600000000123456789ull);
	CHECK_EQ_U(p.caplen, 44);
	CHECK_EQ_U(p.linktype, 113);
	CHECK(pattern_ok(p.data, 5, 44));
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.ts_ns, 1600000000999999999ull);
	CHECK_EQ_U(p.wirelen, 100);
	CHECK(pattern_ok(p.data, 6, 20));
	CHECK_EQ_U(sf_next(r, &p), 0);
	sf_close(r);
	bb_free(&b);
}

/* libpcap quirks kept: caplen above the file snaplen is cut to it (rest
 * skipped), len < caplen gives wirelen = caplen, FCS bits are masked,
 * pre-2.3 files have caplen and len swapped, 2.3 only where caplen > len. */
static void test_pcap_quirks(void)
{
	struct bb b = {0};
	struct sf_reader *r;
	struct pkt p;

	pcap_hdr(&b, 0xA1B2C3D4, 2, 4, 64, 0x14000001u); /* FCS len 1, present bit */
	pcap_rec(&b, 1, 0, 100, 100, 1);
	pcap_rec(&b, 2, 0, 30, 20, 2);
	r = open_ok(write_file(&b, "quirks.pcap"));
	CHECK(r != NULL);
	if (r != NULL) {
		CHECK_EQ_U(sf_iface(r, 0)->linktype, 1);
		CHECK_EQ_U(sf_next(r, &p), 1);
		CHECK_EQ_U(p.caplen, 64);
		CHECK_EQ_U(p.wirelen, 100);
		CHECK(pattern_ok(p.data, 1, 64));
		CHECK_EQ_U(sf_next(r, &p), 1);
		CHECK_EQ_U(p.ts_ns, 2000000000ull);
		CHECK_EQ_U(p.caplen, 30);
		CHECK_EQ_U(p.wirelen, 30);
		CHECK(pattern_ok(p.data, 2, 30));
		CHECK_EQ_U(sf_next(r, &p), 0);
		sf_close(r);
	}
	bb_free(&b);

	/* Version 2.2: len written first. */
	pcap_hdr(&b, 0xA1B2C3D4, 2, 2, 0, 1);
	bb_u32(&b, 5);
	bb_u32(&b, 0);
	bb_u32(&b, 1500); /* "caplen" field holds len */
	bb_u32(&b, 8);
	bb_pattern(&b, 9, 8);
	/* Version 2.3 only swaps where caplen > len. */
	r = open_ok(write_file(&b, "v22.pcap"));
	CHECK(r != NULL);
	if (r != NULL) {
		CHECK_EQ_U(sf_next(r, &p), 1);
		CHECK_EQ_U(p.caplen, 8);
		CHECK_EQ_U(p.wirelen, 1500);
		CHECK(pattern_ok(p.data, 9, 8));
		CHECK_EQ_U(sf_next(r, &p), 0);
		sf_close(r);
	}
	bb_free(&b);
	pcap_hdr(&b, 0xA1B2C3D4, 2, 3, 0, 1);
	pcap_rec(&b, 1, 0, 8, 1500, 4);
	bb_u32(&b, 2);
	bb_u32(&b, 0);
	bb_u32(&b, 1500);
	bb_u32(&b, 8);
	bb_pattern(&b, 5, 8);
	r = open_ok(write_file(&b, "v23.pcap"));
	CHECK(r != NULL);
	if (r != NULL) {
		CHECK_EQ_U(sf_next(r, &p), 1);
		CHECK_EQ_U(p.caplen, 8);
		CHECK_EQ_U(sf_next(r, &p), 1);
		CHECK_EQ_U(p.caplen, 8);
		CHECK_EQ_U(p.wirelen, 1500);
		CHECK(pattern_ok(p.data, 5, 8));
		sf_close(r);
	}
	bb_free(&b);

	/* Kuznetzov's 24-byte records; Ethernet snaplen grows by 14. */
	pcap_hdr(&b, 0xA1B2CD34, 2, 4, 50, 1);
	pcap_rec(&b, 3, 7, 64, 64, 6);
	b.n -= 64;
	bb_u32(&b, 2);
	bb_u32(&b, 0);
	bb_pattern(&b, 6, 64);
	r = open_ok(write_file(&b, "kuz.pcap"));
	CHECK(r != NULL);
	if (r != NULL) {
		CHECK_EQ_U(sf_next(r, &p), 1);
		CHECK_EQ_U(p.ts_ns, 3000007000ull);
		CHECK_EQ_U(p.caplen, 64);
		CHECK(pattern_ok(p.data, 6, 64));
		CHECK_EQ_U(sf_next(r, &p), 0);
		sf_close(r);
	}
	bb_free(&b);
}

static void test_pcap_errors(void)
{
	struct bb b = {0};
	struct sf_reader *r;
	struct pkt p;
	const char *e;

	/* Truncated final record: earlier packets come out, then TRUNCATED. */
	pcap_hdr(&b, 0xA1B2C3D4, 2, 4, 65535, 1);
	pcap_rec(&b, 1, 0, 10, 10, 1);
	pcap_rec(&b, 2, 0, 10, 10, 2);
	pcap_rec(&b, 3, 0, 100, 100, 3);
	b.n -= 50;
	r = open_ok(write_file(&b, "trunc.pcap"));
	CHECK(r != NULL);
	if (r != NULL) {
		CHECK_EQ_U(sf_next(r, &p), 1);
		CHECK_EQ_U(sf_next(r, &p), 1);
		CHECK_EQ_U(sf_next(r, &p), ERR_INPUT_TRUNCATED);
		CHECK_STR(sf_error(r), "offset 76: file ends inside a packet record "
				       "(66 of 116 bytes)");
		CHECK_EQ_U(sf_next(r, &p), ERR_INPUT_TRUNCATED); /* sticky */
		sf_close(r);
	}
	/* Ends inside a record header. */
	b.n = 24 + 26 + 5;
	r = open_ok(write_file(&b, "trunc2.pcap"));
	CHECK(r != NULL);
	if (r != NULL) {
		CHECK_EQ_U(sf_next(r, &p), 1);
		CHECK_EQ_U(sf_next(r, &p), ERR_INPUT_TRUNCATED);
		CHECK_STR(sf_error(r),
			  "offset 50: file ends inside a record header (5 of 16 bytes)");
		sf_close(r);
	}
	bb_free(&b);

	/* caplen above SF_MAX_RECORD: corrupt, like libpcap. */
	pcap_hdr(&b, 0xA1B2C3D4, 2, 4, 0, 1);
	pcap_rec(&b, 1, 0, 4, 4, 1);
	bb_u32(&b, 1);
	bb_u32(&b, 0);
	bb_u32(&b, SF_MAX_RECORD + 1);
	bb_u32(&b, SF_MAX_RECORD + 1);
	r = open_ok(write_file(&b, "huge.pcap"));
	CHECK(r != NULL);
	if (r != NULL) {
		CHECK_EQ_U(sf_next(r, &p), 1);
		CHECK_EQ_U(sf_next(r, &p), ERR_INPUT_CORRUPT);
		CHECK(strstr(sf_error(r), "offset 44: captured length 262145 exceeds") != NULL);
		sf_close(r);
	}
	bb_free(&b);

	pcap_hdr(&b, 0xA1B2C3D4, 2, 4, 65535, 0x00300001u);
	e = open_fails(write_file(&b, "reserved.pcap"));
	CHECK_STR(e, "offset 20: savefile linktype reserved field not zero (0x00300000)");
	bb_free(&b);

	pcap_hdr(&b, 0xA1B2C3D4, 3, 0, 65535, 1);
	e = open_fails(write_file(&b, "ver.pcap"));
	CHECK_STR(e, "offset 4: unsupported pcap version 3.0");
	bb_free(&b);

	pcap_hdr(&b, 0xA1B2C3D4, 2, 4, 65535, 1);
	b.n = 10;
	e = open_fails(write_file(&b, "shorthdr.pcap"));
	CHECK_STR(e, "offset 0: truncated pcap file header (10 of 24 bytes)");
	bb_free(&b);

	bb_put(&b, "GET / HTTP/1.1\r\n", 16);
	e = open_fails(write_file(&b, "http.txt"));
	CHECK_STR(e, "offset 0: not a pcap or pcapng file (magic 0x47455420)");
	bb_free(&b);

	e = open_fails(write_file(&b, "empty.pcap"));
	CHECK_STR(e, "empty input (0 bytes)");

	bb_put(&b, "\xd4\xc3", 2);
	e = open_fails(write_file(&b, "two.pcap"));
	CHECK_STR(e, "offset 0: input is 2 bytes, too short for a pcap or pcapng header");
	bb_free(&b);

	e = open_fails("/nonexistent/x.pcap");
	CHECK_STR(e, "cannot open: No such file or directory");
	e = open_fails(tmpdir);
	CHECK_STR(e, "is a directory, not a capture file");
}

/* --- pcapng tests ---------------------------------------------------------- */

static void build_basic_ng(struct bb *b, int big)
{
	size_t at;

	ng_shb(b, big);
	ng_idb(b, 1, 65535, "eth0", 9, 0, 0);
	at = ng_epb_open(b, 0, 1700000000123456789ull, 61, 61, 1);
	ng_opt32(b, 2, 0x00000002u);  /* epb_flags: outbound */
	ng_opt64(b, 4, 7);	      /* epb_dropcount */
	ng_opt(b, 1, "a comment", 9); /* opt_comment, skipped */
	ng_opt32(b, 6, 3);	      /* epb_queue */
	ng_optend(b);
	ng_end(b, at);
	ng_epb(b, 0, 1700000001000000000ull, 3, 1500, 2);
}

static void check_basic_ng(const char *path, int big)
{
	struct sf_reader *r = open_ok(path);
	const struct sf_iface *f;
	struct pkt p;

	CHECK(r != NULL);
	if (r == NULL)
		return;
	CHECK_EQ_U(sf_format(r), SF_FORMAT_PCAPNG);
	CHECK_STR(sf_format_name(sf_format(r)), "pcapng");
	CHECK_EQ_U(sf_iface_count(r), 1); /* known right after open */
	f = sf_iface(r, 0);
	CHECK_EQ_U(f->linktype, 1);
	CHECK_EQ_U(f->snaplen, 65535);
	CHECK_STR(f->name, "eth0");
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.ts_ns, 1700000000123456789ull);
	CHECK_EQ_U(p.caplen, 61);
	CHECK_EQ_U(p.wirelen, 61);
	CHECK(pattern_ok(p.data, 1, 61));
	CHECK_EQ_U(p.have, PKT_HAVE_FLAGS | PKT_HAVE_DROPCOUNT | PKT_HAVE_QUEUE);
	CHECK_EQ_U(p.epb_flags & 3u, PKT_DIR_OUTBOUND);
	CHECK_EQ_U(p.dropcount, 7);
	CHECK_EQ_U(p.queue, 3);
	CHECK_EQ_U(p.frame, 1);
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.ts_ns, 1700000001000000000ull);
	CHECK_EQ_U(p.caplen, 3);
	CHECK_EQ_U(p.wirelen, 1500);
	CHECK_EQ_U(p.have, 0); /* options do not leak into the next packet */
	CHECK_EQ_U(p.queue, 0);
	CHECK(pattern_ok(p.data, 2, 3));
	CHECK_EQ_U(p.frame, 2);
	CHECK_EQ_U(sf_next(r, &p), 0);
	f = sf_iface(r, 0);
	CHECK_EQ_U(f->epb_drops, 7);
	CHECK_EQ_U(f->have_epb_drops, 1);
	CHECK_EQ_U(sf_bad_options(r), 0);
	CHECK(big == 0 || big == 1);
	sf_close(r);
}

static void test_ng_basic(void)
{
	struct bb b = {0};

	build_basic_ng(&b, 0);
	check_basic_ng(write_file(&b, "le.pcapng"), 0);
	bb_free(&b);
	build_basic_ng(&b, 1);
	check_basic_ng(write_file(&b, "be.pcapng"), 1);
	bb_free(&b);
}

/* Two sections in opposite byte orders, two IDBs each: interface numbers
 * are global in the file; each section restarts its own numbering. */
static void test_ng_sections(void)
{
	struct bb b = {0};
	struct sf_reader *r;
	struct pkt p;
	size_t at;

	ng_shb(&b, 0);
	ng_idb(&b, 1, 0, "a0", -1, 0, 0);
	ng_idb(&b, 101, 0, "a1", 6, 0, 0);
	ng_epb(&b, 1, 5000000, 20, 20, 1); /* us: 5 s */
	ng_shb(&b, 1);
	ng_idb(&b, 113, 0, "b0", 3, 0, 0);		     /* ms */
	ng_idb(&b, 276, 0, "b1", 0x80 | 20, 1, 1000);	     /* 2^-20, +1000 s */
	ng_epb(&b, 1, (3ull << 20) | (1ull << 19), 8, 8, 2); /* 3.5 s + 1000 */
	ng_epb(&b, 0, 1234567, 9, 9, 3);		     /* 1234.567 s */
	at = ng_begin(&b, 5);				     /* ISB for b1 */
	bb_u32(&b, 1);
	bb_u32(&b, 0);
	bb_u32(&b, 0);
	ng_opt64(&b, 2, 1); /* isb_starttime, ignored */
	ng_opt64(&b, 4, 1000);
	ng_opt64(&b, 5, 17);
	ng_opt64(&b, 6, 900); /* isb_filteraccept, ignored */
	ng_opt64(&b, 7, 4);
	ng_opt64(&b, 8, 880); /* isb_usrdeliv, ignored */
	ng_optend(&b);
	ng_end(&b, at);
	at = ng_begin(&b, 5); /* ISB for an interface the section lacks */
	bb_u32(&b, 9);
	bb_u32(&b, 0);
	bb_u32(&b, 0);
	ng_end(&b, at);
	ng_idb(&b, 1, 0, "b2", 12, 0, 0); /* ps: the division path */
	ng_epb(&b, 2, 1500000000123456789ull, 4, 4, 4);
	r = open_ok(write_file(&b, "sections.pcapng"));
	CHECK(r != NULL);
	if (r == NULL)
		return;
	CHECK_EQ_U(sf_iface_count(r), 1); /* open stops at the first IDB */
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(sf_iface_count(r), 2);
	CHECK_EQ_U(p.iface, 1);
	CHECK_EQ_U(p.linktype, 101);
	CHECK_EQ_U(p.ts_ns, 5000000000ull);
	CHECK(pattern_ok(p.data, 1, 20));
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(sf_iface_count(r), 4);
	CHECK_EQ_U(p.iface, 3);
	CHECK_EQ_U(p.linktype, 276);
	CHECK_EQ_U(p.ts_ns, 1003500000000ull);
	CHECK(pattern_ok(p.data, 2, 8));
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.iface, 2);
	CHECK_EQ_U(p.linktype, 113);
	CHECK_EQ_U(p.ts_ns, 1234567000000ull);
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.iface, 4);
	CHECK_EQ_U(p.ts_ns, 1500000000123456ull); /* 1500000000123456789 ps */
	CHECK_EQ_U(sf_next(r, &p), 0);
	CHECK_EQ_U(sf_iface_count(r), 5);
	CHECK_STR(sf_iface(r, 0)->name, "a0");
	CHECK_STR(sf_iface(r, 2)->name, "b0");
	CHECK_STR(sf_iface(r, 4)->name, "b2");
	CHECK_EQ_U(sf_iface(r, 3)->isb_ifrecv, 1000);
	CHECK_EQ_U(sf_iface(r, 3)->isb_ifdrop, 17);
	CHECK_EQ_U(sf_iface(r, 3)->isb_osdrop, 4);
	CHECK(sf_iface(r, 3)->have_ifrecv && sf_iface(r, 3)->have_ifdrop &&
	      sf_iface(r, 3)->have_osdrop);
	CHECK(!sf_iface(r, 2)->have_ifrecv);
	CHECK_EQ_U(sf_bad_options(r), 1); /* the ISB for interface 9 */
	sf_close(r);
	bb_free(&b);
}

/* SPB, obsolete PB, skipped blocks (NRB, custom, unknown, DSB). */
static void test_ng_other_blocks(void)
{
	struct bb b = {0};
	struct sf_reader *r;
	struct pkt p;
	size_t at;

	ng_shb(&b, 0);
	at = ng_begin(&b, 4); /* NRB before the IDB: skipped */
	bb_u16(&b, 1);
	bb_u16(&b, 8);
	bb_put(&b, "\x0a\x00\x00\x01host", 8);
	bb_u32(&b, 0);
	ng_end(&b, at);
	ng_idb(&b, 1, 50, NULL, -1, 1, 10);
	at = ng_begin(&b, 3); /* SPB, len within snaplen */
	bb_u32(&b, 30);
	bb_pattern(&b, 1, 30);
	ng_end(&b, at);
	at = ng_begin(&b, 3); /* SPB, len above snaplen: caplen 50 */
	bb_u32(&b, 1000);
	bb_pattern(&b, 2, 50);
	ng_end(&b, at);
	at = ng_begin(&b, 0x00000BAD); /* custom block */
	bb_u32(&b, 32473);
	bb_put(&b, "xyz", 3);
	ng_end(&b, at);
	at = ng_begin(&b, 0x4000ABCD); /* unknown */
	ng_end(&b, at);
	at = ng_begin(&b, 10); /* DSB */
	bb_u32(&b, 0x544c534b);
	bb_u32(&b, 4);
	bb_put(&b, "keys", 4);
	ng_end(&b, at);
	at = ng_begin(&b, 2); /* PB */
	bb_u16(&b, 0);
	bb_u16(&b, 5); /* drops_count */
	bb_u32(&b, 0);
	bb_u32(&b, 2000000);
	bb_u32(&b, 12);
	bb_u32(&b, 70);
	bb_pattern(&b, 3, 12);
	ng_opt32(&b, 2, 1); /* pack_flags: inbound */
	ng_opt32(&b, 6, 9); /* not a PB option: ignored */
	ng_optend(&b);
	ng_end(&b, at);
	at = ng_begin(&b, 2); /* PB with drops unknown */
	bb_u16(&b, 0);
	bb_u16(&b, 0xFFFF);
	bb_u32(&b, 0);
	bb_u32(&b, 3000000);
	bb_u32(&b, 1);
	bb_u32(&b, 1);
	bb_pattern(&b, 4, 1);
	ng_end(&b, at);
	r = open_ok(write_file(&b, "blocks.pcapng"));
	CHECK(r != NULL);
	if (r == NULL)
		return;
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.caplen, 30);
	CHECK_EQ_U(p.wirelen, 30);
	CHECK_EQ_U(p.ts_ns, 10000000000ull); /* no timestamp: just if_tsoffset */
	CHECK(pattern_ok(p.data, 1, 30));
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.caplen, 50);
	CHECK_EQ_U(p.wirelen, 1000);
	CHECK(pattern_ok(p.data, 2, 50));
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.caplen, 12);
	CHECK_EQ_U(p.wirelen, 70);
	CHECK_EQ_U(p.ts_ns, 12000000000ull);
	CHECK_EQ_U(p.have, PKT_HAVE_FLAGS | PKT_HAVE_DROPCOUNT);
	CHECK_EQ_U(p.epb_flags, PKT_DIR_INBOUND);
	CHECK_EQ_U(p.dropcount, 5);
	CHECK(pattern_ok(p.data, 3, 12));
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.have, 0);
	CHECK_EQ_U(p.caplen, 1);
	CHECK_EQ_U(sf_next(r, &p), 0);
	CHECK_EQ_U(sf_iface(r, 0)->epb_drops, 5);
	sf_close(r);
	bb_free(&b);
}

/* Tolerated (libpcap ignores them): bad EPB options. */
static void test_ng_bad_options(void)
{
	struct bb b = {0};
	struct sf_reader *r;
	struct pkt p;
	size_t at;

	ng_shb(&b, 0);
	ng_idb(&b, 1, 0, NULL, -1, 0, 0);
	at = ng_epb_open(&b, 0, 1, 5, 5, 1);
	ng_opt32(&b, 6, 2); /* good queue */
	bb_u16(&b, 2);	    /* epb_flags with length 2: wrong */
	bb_u16(&b, 2);
	bb_u32(&b, 0);
	bb_u16(&b, 4); /* dropcount claiming 400 bytes: overruns */
	bb_u16(&b, 400);
	bb_u64(&b, 1);
	ng_end(&b, at);
	ng_epb(&b, 0, 2, 6, 6, 2);
	r = open_ok(write_file(&b, "badopt.pcapng"));
	CHECK(r != NULL);
	if (r == NULL)
		return;
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.have, PKT_HAVE_QUEUE);
	CHECK_EQ_U(p.queue, 2);
	CHECK(pattern_ok(p.data, 1, 5));
	CHECK_EQ_U(sf_bad_options(r), 2);
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(sf_next(r, &p), 0);
	sf_close(r);
	bb_free(&b);
}

/* Build SHB + IDB + one good EPB, then let the caller append a bad block. */
static void ng_prefix(struct bb *b)
{
	ng_shb(b, 0);
	ng_idb(b, 1, 0, NULL, -1, 0, 0);
	ng_epb(b, 0, 1, 4, 4, 1);
}

/* One good packet, then sf_next must fail with `code` and message `msg`. */
static void expect_fail_after_one(const struct bb *b, const char *name, int code, const char *msg)
{
	struct sf_reader *r = open_ok(write_file(b, name));
	struct pkt p;

	CHECK(r != NULL);
	if (r == NULL)
		return;
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U((uint64_t)(int64_t)sf_next(r, &p), (uint64_t)(int64_t)code);
	CHECK_STR(sf_error(r), msg);
	CHECK_EQ_U((uint64_t)(int64_t)sf_next(r, &p), (uint64_t)(int64_t)code);
	sf_close(r);
}

static void test_ng_errors(void)
{
	struct bb b = {0};
	size_t at, good;
	const char *e;

	ng_prefix(&b);
	good = b.n; /* 28 + 20 + 36 = 84 */
	CHECK_EQ_U(good, 84);

	/* Trailer mismatch. */
	ng_epb(&b, 0, 2, 4, 4, 2);
	bb_set32(&b, b.n - 4, 808464432);
	expect_fail_after_one(&b, "trailer.pcapng", ERR_INPUT_CORRUPT,
			      "offset 84: block total length 808464432 in trailer does not "
			      "match 36 in header");
	/* Length not a multiple of 4. */
	b.n = good;
	ng_epb(&b, 0, 2, 4, 4, 2);
	bb_set32(&b, good + 4, 37);
	expect_fail_after_one(&b, "len37.pcapng", ERR_INPUT_CORRUPT,
			      "offset 84: block total length 37 is not a multiple of 4");
	/* Too short for an EPB. */
	bb_set32(&b, good + 4, 28);
	expect_fail_after_one(&b, "len28.pcapng", ERR_INPUT_CORRUPT,
			      "offset 84: block total length 28 is shorter than the 32 bytes a "
			      "block of type 0x00000006 needs");
	/* Absurdly long. */
	bb_set32(&b, good + 4, 0x40000000);
	expect_fail_after_one(&b, "len1g.pcapng", ERR_INPUT_CORRUPT,
			      "offset 84: block total length 1073741824 exceeds the 393248-byte "
			      "maximum for type 0x00000006 (damaged or fuzzed file?)");
	/* Truncated: final block cut. */
	b.n = good;
	ng_epb(&b, 0, 2, 40, 40, 2);
	b.n -= 10;
	expect_fail_after_one(&b, "cut.pcapng", ERR_INPUT_TRUNCATED,
			      "offset 84: file ends inside a block of type 0x00000006 (62 of 72 "
			      "bytes)");
	b.n = good + 3;
	expect_fail_after_one(&b, "cuthdr.pcapng", ERR_INPUT_TRUNCATED,
			      "offset 84: file ends inside a block header (3 of 8 bytes)");
	/* caplen larger than the block. */
	b.n = good;
	at = ng_epb_open(&b, 0, 2, 8, 8, 2);
	ng_end(&b, at);
	bb_set32(&b, good + 20, 12);
	expect_fail_after_one(&b, "caproom.pcapng", ERR_INPUT_CORRUPT,
			      "offset 84: captured length 12 exceeds the block's 8 data bytes");
	/* caplen above SF_MAX_RECORD (snaplen 0 means no snaplen). */
	b.n = good;
	ng_epb(&b, 0, 2, SF_MAX_RECORD + 4, SF_MAX_RECORD + 4, 2);
	expect_fail_after_one(&b, "capmax.pcapng", ERR_INPUT_CORRUPT,
			      "offset 84: captured length 262148 exceeds the 262144-byte maximum "
			      "(damaged or fuzzed file?)");
	/* Unknown interface. */
	b.n = good;
	ng_epb(&b, 3, 2, 4, 4, 2);
	expect_fail_after_one(&b, "iface.pcapng", ERR_INPUT_CORRUPT,
			      "offset 84: packet on interface 3, but the section has 1 "
			      "interface(s)");
	/* New section without an IDB, then a packet. */
	b.n = good;
	ng_shb(&b, 1);
	ng_epb(&b, 0, 2, 4, 4, 2);
	expect_fail_after_one(&b, "noidb.pcapng", ERR_INPUT_CORRUPT,
			      "offset 112: packet block before any interface description block "
			      "in its section");
	/* Later section with a bad byte-order magic. */
	b.n = good;
	ng_shb(&b, 0);
	bb_set32(&b, good + 8, 0x11223344);
	expect_fail_after_one(&b, "bom.pcapng", ERR_INPUT_CORRUPT,
			      "offset 92: section header with bad byte-order magic 0x11223344");
	/* IDB option overrunning the block: an error, as in libpcap. */
	b.n = good;
	at = ng_begin(&b, 1);
	bb_u16(&b, 1);
	bb_u16(&b, 0);
	bb_u32(&b, 0);
	bb_u16(&b, 2);
	bb_u16(&b, 100);
	bb_put(&b, "eth1", 4);
	ng_end(&b, at);
	expect_fail_after_one(&b, "idbopt.pcapng", ERR_INPUT_CORRUPT,
			      "offset 84: interface description option 2 length 100 overruns the "
			      "block (4 bytes left)");
	/* Bad if_tsresol. */
	b.n = good;
	ng_idb(&b, 1, 0, NULL, 20, 0, 0);
	expect_fail_after_one(&b, "tsresol.pcapng", ERR_INPUT_CORRUPT,
			      "offset 84: if_tsresol 10^-20 is too fine for 64-bit timestamps");
	/* caplen above the interface snaplen (libpcap rejects it too). */
	b.n = 0;
	ng_shb(&b, 0);
	ng_idb(&b, 1, 64, NULL, -1, 0, 0);
	ng_epb(&b, 0, 1, 4, 4, 1);
	ng_epb(&b, 0, 1, 68, 68, 1);
	expect_fail_after_one(&b, "snap.pcapng", ERR_INPUT_CORRUPT,
			      "offset 84: captured length 68 exceeds the interface snaplen 64");
	bb_free(&b);

	/* Open-time failures. */
	ng_shb(&b, 0);
	e = open_fails(write_file(&b, "shbonly.pcapng"));
	CHECK_STR(e, "offset 28: pcapng file has no interface description block");
	b.p[12] = 2; /* version 2.0 */
	e = open_fails(write_file(&b, "v2.pcapng"));
	CHECK_STR(e, "offset 12: unsupported pcapng version 2.0");
	b.p[12] = 1;
	b.p[8] = 0; /* BOM */
	e = open_fails(write_file(&b, "bom0.pcapng"));
	CHECK_STR(e, "offset 8: section header with bad byte-order magic 0x1a2b3c00");
	b.p[8] = 0x4d;
	ng_epb(&b, 0, 1, 4, 4, 1);
	e = open_fails(write_file(&b, "pktfirst.pcapng"));
	CHECK_STR(e, "offset 28: packet block before any interface description block in its "
		     "section");
	b.n = 20;
	e = open_fails(write_file(&b, "shbcut.pcapng"));
	CHECK_STR(e, "offset 0: file ends inside a block of type 0x0a0d0d0a (20 of 28 bytes)");
	bb_free(&b);
}

/* The interface table is bounded. */
static void test_ng_iface_cap(void)
{
	struct bb b = {0};
	struct sf_reader *r;
	struct pkt p;
	int rc;

	ng_shb(&b, 0);
	for (unsigned i = 0; i <= 65536; i++)
		ng_idb(&b, 1, 0, NULL, -1, 0, 0);
	r = open_ok(write_file(&b, "ifaces.pcapng"));
	CHECK(r != NULL);
	if (r == NULL)
		return;
	rc = sf_next(r, &p);
	CHECK_EQ_U((uint64_t)(int64_t)rc, (uint64_t)(int64_t)ERR_INPUT_CORRUPT);
	CHECK(strstr(sf_error(r), "more than 65536 interfaces") != NULL);
	CHECK_EQ_U(sf_iface_count(r), 65536);
	sf_close(r);
	bb_free(&b);
}

/* Enough data to cross the 1 MiB buffer many times, plus records that
 * need the buffer to grow, in both formats. */
static void test_big_files(void)
{
	struct bb b = {0};
	struct sf_reader *r;
	struct pkt p;
	uint32_t n = 0, bad = 0, k;
	int rc;

	pcap_hdr(&b, 0xA1B2C3D4, 2, 4, 0, 1);
	for (k = 0; k < 40000; k++)
		pcap_rec(&b, k, 0, k % 1500, 1500, k);
	pcap_rec(&b, 1, 0, SF_MAX_RECORD, SF_MAX_RECORD, 99999);
	pcap_rec(&b, 2, 0, 7, 7, 100000);
	r = open_ok(write_file(&b, "big.pcap"));
	CHECK(r != NULL);
	if (r != NULL) {
		while ((rc = sf_next(r, &p)) == 1) {
			k = n < 40000 ? n : n == 40000 ? 99999 : 100000;
			if (!pattern_ok(p.data, k, p.caplen))
				bad++;
			n++;
		}
		CHECK_EQ_U(rc, 0);
		CHECK_EQ_U(n, 40002);
		CHECK_EQ_U(bad, 0);
		CHECK_EQ_U(sf_offset(r), b.n);
		sf_close(r);
	}
	bb_free(&b);

	ng_shb(&b, 1);
	ng_idb(&b, 1, 0, NULL, -1, 0, 0);
	for (k = 0; k < 30000; k++)
		ng_epb(&b, 0, k, k % 1600, 1600, k);
	ng_epb(&b, 0, 1, SF_MAX_RECORD, SF_MAX_RECORD, 99999);
	n = 0;
	r = open_ok(write_file(&b, "big.pcapng"));
	CHECK(r != NULL);
	if (r != NULL) {
		while ((rc = sf_next(r, &p)) == 1) {
			k = n < 30000 ? n : 99999;
			if (!pattern_ok(p.data, k, p.caplen))
				bad++;
			n++;
		}
		CHECK_EQ_U(rc, 0);
		CHECK_EQ_U(n, 30001);
		CHECK_EQ_U(bad, 0);
		sf_close(r);
	}
	bb_free(&b);
}

/* sf_keep(): every packet read since the last release keeps its bytes in
 * place across refills (and a record larger than the buffer), until
 * released; under ASan a buffer freed too early is a use after free. */
static void test_keep(void)
{
	enum { N = 40000, BIG_AT = 20000, WINDOW = 8000 }; /* 6 MB: more buffers than spares */
	static const uint8_t *data[N + 1];
	static uint32_t len[N + 1];
	static uint64_t gen_at[N + 1];
	struct bb b = {0};
	struct sf_reader *r;
	struct pkt p;
	uint64_t gen = 0, bad = 0, n = 0;

	pcap_hdr(&b, 0xA1B2C3D4, 2, 4, 0, 1);
	for (uint32_t k = 0; k <= N; k++)
		if (k == BIG_AT)
			pcap_rec(&b, k, 0, SF_MAX_RECORD, SF_MAX_RECORD, k);
		else
			pcap_rec(&b, k, 0, k % 1500, 1500, k);
	r = open_ok(write_file(&b, "keep.pcap"));
	CHECK(r != NULL);
	if (r == NULL) {
		bb_free(&b);
		return;
	}
	sf_keep(r, &gen);
	while (n <= N && sf_next(r, &p) == 1) {
		gen_at[n] = gen;
		data[n] = p.data;
		len[n] = p.caplen;
		n++;
		if (n % 1000 || n < WINDOW)
			continue;
		/* The last WINDOW packets are all still there ... */
		for (uint64_t j = n - WINDOW; j < n; j++)
			bad += !pattern_ok(data[j], (uint32_t)j, len[j]);
		/* ... and those the next look skips are given back. */
		sf_keep_release(r, gen_at[n + 1000 - WINDOW]);
	}
	CHECK_EQ_U(n, N + 1);
	CHECK_EQ_U(bad, 0);
	CHECK(gen > 20); /* the buffers were refilled, and kept */
	sf_close(r);
	bb_free(&b);
}

/* --- compressed and stdin input ------------------------------------------- */

static int have_tool(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

static void check_basic_pcap(const char *path, int compressed, const char *what)
{
	struct sf_reader *r = open_ok(path);
	struct pkt p;

	CHECK(r != NULL);
	if (r == NULL) {
		fprintf(stderr, "  (%s)\n", what);
		return;
	}
	CHECK_EQ_U(sf_compressed(r), compressed);
	if (compressed)
		CHECK_EQ_U(sf_size(r), 0);
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK_EQ_U(p.ts_ns, 1000000000ull);
	CHECK(pattern_ok(p.data, 1, 100));
	CHECK_EQ_U(sf_next(r, &p), 1);
	CHECK(pattern_ok(p.data, 2, 200));
	CHECK_EQ_U(sf_next(r, &p), 0);
	sf_close(r);
}

static void test_compressed(const char *plain)
{
	static const char *const tools[][2] = {
	    {"gzip", "gz"},
	    {"bzip2", "bz2"},
	    {"xz", "xz"},
	};
	char cmd[1024], path[256];

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (!have_tool(tools[i][0])) {
			printf("savefile: %s not installed, skipping\n", tools[i][0]);
			continue;
		}
		snprintf(path, sizeof(path), "%s.%s", plain, tools[i][1]);
		snprintf(cmd, sizeof(cmd), "%s -c '%s' > '%s'", tools[i][0], plain, path);
		CHECK(system(cmd) == 0);
		check_basic_pcap(path, 1, tools[i][0]);
	}
}

/* Packets sf_* reads from path before it ends; *rc gets how it ended. */
static unsigned count_packets(const char *path, int *rc)
{
	char err[256];
	struct sf_reader *r = sf_open_stop(path, NULL, rc, err, sizeof(err));
	struct pkt p;
	unsigned n = 0;

	if (r == NULL)
		return 0;
	while ((*rc = sf_next(r, &p)) == 1)
		n++;
	sf_close(r);
	return n;
}

/*
 * A compressed file cut short keeps every packet that decoded, as many as
 * the decompressed prefix holds (`tool -dc` of the cut file, read plain):
 * what capinfos reads of a cut .gz. Two gzip members read as one stream.
 */
static void test_compressed_cut(const char *big)
{
	static const char *const tools[][2] = {{"gzip", "gz"}, {"xz", "xz"}, {"bzip2", "bz2"}};
	char cmd[2048], path[256], prefix[256];
	int rc, rc2;

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (!have_tool(tools[i][0]))
			continue;
		snprintf(path, sizeof(path), "%s.cut.%s", big, tools[i][1]);
		snprintf(prefix, sizeof(prefix), "%s.prefix.%s", big, tools[i][1]);
		snprintf(cmd, sizeof(cmd),
			 "%s -c '%s' > '%s.full' && head -c $(( $(stat -c %%s '%s.full') * 2 / 3 ))"
			 " '%s.full' > '%s' && (%s -dc '%s' > '%s' 2>/dev/null; true)",
			 tools[i][0], big, path, path, path, path, tools[i][0], path, prefix);
		CHECK(system(cmd) == 0);
		unsigned got = count_packets(path, &rc), want = count_packets(prefix, &rc2);
		CHECK_EQ_U(got, want);
		CHECK_EQ_U(rc, ERR_INPUT_TRUNCATED);
		if (i < 2) /* bzip2 decodes whole 900 kB blocks: nothing of a cut one */
			CHECK(got > 100);
	}
	if (have_tool("gzip")) {
		snprintf(path, sizeof(path), "%s.two.gz", big);
		snprintf(cmd, sizeof(cmd),
			 "(head -c 5000 '%s' | gzip -c; tail -c +5001 '%s' | gzip -c) > '%s'", big,
			 big, path);
		CHECK(system(cmd) == 0);
		unsigned want = count_packets(big, &rc2);
		CHECK_EQ_U(count_packets(path, &rc), want);
		CHECK_EQ_U(rc, 0);
		snprintf(cmd, sizeof(cmd), "printf 'garbage' >> '%s'", path);
		CHECK(system(cmd) == 0);
		CHECK_EQ_U(count_packets(path, &rc), want);
		CHECK_EQ_U(rc, ERR_INPUT_CORRUPT);
	}
}

/* A stop ends the wait for a FIFO's writer (open) and for a quiet writer (next). */
static void test_fifo_stop(void)
{
	volatile sig_atomic_t stop = 0;
	char path[128], err[256];
	int code = 0;

	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	CHECK(mkfifo(path, 0600) == 0);
	stop = 1; /* no writer: the open neither blocks nor waits past the stop */
	CHECK(sf_open_stop(path, &stop, &code, err, sizeof(err)) == NULL);
	CHECK_EQ_U(code, ERR_INTERRUPTED);

	/* A writer that sends the header and one packet, then goes quiet. */
	int pp[2];
	CHECK(pipe(pp) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(path, O_WRONLY);
		struct bb b = {0};
		pcap_hdr(&b, 0xA1B2C3D4, 2, 4, 65535, 1);
		pcap_rec(&b, 1, 0, 100, 100, 1);
		if (fd == -1 || write(fd, b.p, b.n) != (ssize_t)b.n)
			_exit(1);
		char c;
		close(pp[1]);
		if (read(pp[0], &c, 1) < 0) /* until the parent is done */
			_exit(1);
		_exit(0);
	}
	close(pp[0]);
	stop = 0;
	struct sf_reader *r = sf_open_stop(path, &stop, &code, err, sizeof(err));
	struct pkt p;
	CHECK(r != NULL);
	if (r != NULL) {
		CHECK_EQ_U(sf_next(r, &p), 1);
		stop = 1;
		CHECK_EQ_U(sf_next(r, &p), ERR_INTERRUPTED);
		sf_close(r);
	}
	close(pp[1]);
	waitpid(pid, NULL, 0);
	unlink(path);
}

/* Run sf_* on "-" with stdin fed from a pipe by a child running `cmd`. */
static void check_stdin_pipe(const char *cmd, int compressed)
{
	int pp[2], saved = dup(0), status;
	pid_t pid;

	CHECK(saved != -1 && pipe(pp) == 0);
	pid = fork();
	if (pid == 0) {
		close(pp[0]);
		dup2(pp[1], 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(pp[1]);
	dup2(pp[0], 0);
	close(pp[0]);
	check_basic_pcap("-", compressed, cmd);
	dup2(saved, 0);
	close(saved);
	waitpid(pid, &status, 0);
}

static void test_stdin(const char *plain)
{
	char cmd[512];
	int saved, fd;

	snprintf(cmd, sizeof(cmd), "cat '%s'", plain);
	check_stdin_pipe(cmd, 0);
	snprintf(cmd, sizeof(cmd), "gzip -c '%s'", plain);
	if (have_tool("gzip"))
		check_stdin_pipe(cmd, 1);
	/* stdin redirected from a regular file. */
	saved = dup(0);
	fd = open(plain, O_RDONLY | O_CLOEXEC);
	CHECK(fd != -1);
	dup2(fd, 0);
	close(fd);
	check_basic_pcap("-", 0, "stdin file");
	dup2(saved, 0);
	close(saved);
}

/* Times outside 1970..2262 saturate, flagged; those inside are exact, even
 * next to the ends and with a negative if_tsoffset (common/clock.h). */
static void test_ng_time_range(void)
{
	static const struct {
		int tsresol; /* < 0: none (us) */
		int64_t off; /* if_tsoffset, s */
		uint64_t ticks;
		int64_t ns; /* expected */
		int clamped;
	} c[] = {
	    {-1, 0, 1ull << 60, INT64_MAX, 1}, /* 2^70 ns */
	    {-1, 0, 9223372036854775ull, 9223372036854775000ll, 0},
	    {-1, 0, 9223372036854776ull, INT64_MAX, 1},
	    {9, 0, (uint64_t)INT64_MAX, INT64_MAX, 0}, /* the last ns */
	    {9, 0, 1ull << 63, INT64_MAX, 1},
	    {9, 0, UINT64_MAX, INT64_MAX, 1},
	    {9, -1, 999999999, 0, 1}, /* 1 ns before 1970 */
	    {9, -1, 1000000000, 0, 0},
	    {9, -1, 1000000001, 1, 0},
	    {9, INT64_MIN, UINT64_MAX, 0, 1},
	    {9, INT64_MAX, 0, INT64_MAX, 1},
	    {0x81, 0, UINT64_MAX, INT64_MAX, 1}, /* 2^-1 s ticks */
	    {0x81, 0, 3, 1500000000, 0},
	    {0xBF, 0, UINT64_MAX, 1999999999, 0}, /* 2^-63: 2 s at most */
	    {0, 0, 9223372036ull, 9223372036000000000ll, 0},
	    {0, 0, 9223372037ull, INT64_MAX, 1},
	    {0, 9223372036ll, 1, INT64_MAX, 1},
	    {19, 0, UINT64_MAX, 1844674407ll, 0}, /* 10^-19: 1.8 s */
	};
	struct bb b = {0};
	struct sf_reader *r;
	struct pkt p;

	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		b.n = 0;
		ng_shb(&b, (int)(k & 1));
		ng_idb(&b, 1, 0, NULL, c[k].tsresol, c[k].off != 0, c[k].off);
		ng_epb(&b, 0, c[k].ticks, 20, 20, 1);
		r = open_ok(write_file(&b, "time-range.pcapng"));
		if (!r)
			continue;
		CHECK_EQ_U(sf_next(r, &p), 1);
		CHECK_EQ_U((uint64_t)p.ts_ns, (uint64_t)c[k].ns);
		CHECK_EQ_U(!!(p.have & PKT_HAVE_TS_CLAMPED), (uint64_t)c[k].clamped);
		sf_close(r);
	}
	bb_free(&b);
}

int main(void)
{
	struct bb b = {0};
	const char *plain;
	char cmd[128];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_savefile.XXXXXX");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	test_pcap_us_le();
	test_pcap_ns_be();
	test_pcap_quirks();
	test_pcap_errors();
	test_ng_basic();
	test_ng_sections();
	test_ng_other_blocks();
	test_ng_bad_options();
	test_ng_errors();
	test_ng_iface_cap();
	test_ng_time_range();
	test_big_files();
	test_keep();

	pcap_hdr(&b, 0xA1B2C3D4, 2, 4, 65535, 1);
	pcap_rec(&b, 1, 0, 100, 100, 1);
	pcap_rec(&b, 1, 1, 200, 200, 2);
	plain = write_file(&b, "plain.pcap");
	test_compressed(plain);
	test_stdin(plain);
	bb_free(&b);
	memset(&b, 0, sizeof(b));
	pcap_hdr(&b, 0xA1B2C3D4, 2, 4, 65535, 1);
	for (uint32_t k = 0; k < 400; k++)
		pcap_rec(&b, 1 + k, k, 300, 300, k);
	test_compressed_cut(write_file(&b, "big.pcap"));
	bb_free(&b);
	test_fifo_stop();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return unit_done("savefile");
}
