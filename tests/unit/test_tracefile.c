/* test_tracefile.c - tf_* on ERF and pcap traces built in memory, checked against sf_*. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/file/savefile.h"
#include "capture/file/tracefile.h"
#include "tests/unit/unit.h"

/* libtrace and libwandio leak a few bytes on their own error paths (URI
 * parsing, failed opens); LeakSanitizer should judge only our code. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_options(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtrace.so\nleak:libwandio.so\n";
}
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

static char tmpdir[64];

struct buf {
	uint8_t p[4096];
	size_t n;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->n + n > sizeof(b->p)) {
		fprintf(stderr, "test buffer full\n");
		exit(2);
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void put_le(struct buf *b, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++) {
		uint8_t x = (uint8_t)(v >> (8 * i));

		put(b, &x, 1);
	}
}

static void put_be(struct buf *b, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--) {
		uint8_t x = (uint8_t)(v >> (8 * i));

		put(b, &x, 1);
	}
}

/*
 * One ERF record (Endace ERF spec): 8-byte little-endian 32.32 timestamp,
 * type, flags, then big-endian rlen (whole record, padded to 8), lctr and
 * wlen (wire length including the FCS); Ethernet records carry 2 bytes of
 * offset/pad before the frame.
 */
static void erf_rec(struct buf *b, uint8_t type, uint64_t ts, const uint8_t *data, size_t n,
		    uint16_t wlen)
{
	size_t pre = type == 2 ? 2 : 0;
	size_t rlen = 16 + pre + n, pad = (8 - rlen % 8) % 8;
	static const uint8_t zero[8];

	put_le(b, ts, 8);
	put(b, &type, 1);
	put(b, "\x04", 1); /* varying-length record, interface 0 */
	put_be(b, rlen + pad, 2);
	put_be(b, 0, 2);
	put_be(b, wlen, 2);
	put(b, zero, pre);
	put(b, data, n);
	put(b, zero, pad);
}

static const char *write_file(const struct buf *b, const char *name)
{
	static char path[2][128];
	static int slot;
	char *p = path[slot++ % 2];
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

/* A 60-byte Ethernet/IPv4/TCP frame; byte 59 is 0x3b. */
static void eth_frame(uint8_t f[60])
{
	static const uint8_t hdr[] = {
	    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0x08,
	    0x00, 0x45, 0x00, 0x00, 0x28, 0x00, 0x01, 0x00, 0x00, 0x40, 0x06, 0x00, 0x00,
	    10,	  0,	0,    1,    10,	  0,	0,    2,    0x30, 0x39, 0x00, 0x50,
	};

	for (int i = 0; i < 60; i++)
		f[i] = (uint8_t)i;
	memcpy(f, hdr, sizeof(hdr));
}

static void test_is_uri(void)
{
	char cwd[256];

	CHECK_EQ_U(tf_is_uri("erf:/data/trace.erf"), 1);
	CHECK_EQ_U(tf_is_uri("erf:trace.erf.gz"), 1);
	CHECK_EQ_U(tf_is_uri("pcapfile:x.pcap"), 1);
	CHECK_EQ_U(tf_is_uri("legacyeth:x"), 1);
	CHECK_EQ_U(tf_is_uri("legacypos:x"), 1);
	CHECK_EQ_U(tf_is_uri("legacyatm:x"), 1);
	CHECK_EQ_U(tf_is_uri("tsh:x"), 1);
	CHECK_EQ_U(tf_is_uri("rt:localhost:3434"), 1);
	CHECK_EQ_U(tf_is_uri("dag:/dev/dag0"), 1);
	CHECK_EQ_U(tf_is_uri("trace.pcap"), 0);
	CHECK_EQ_U(tf_is_uri("-"), 0);
	CHECK_EQ_U(tf_is_uri("erf:"), 0);
	CHECK_EQ_U(tf_is_uri(":x"), 0);
	CHECK_EQ_U(tf_is_uri("/data/erf:x"), 0);
	CHECK_EQ_U(tf_is_uri("./erf:x"), 0);
	CHECK_EQ_U(tf_is_uri("ERF:x"), 0);
	CHECK_EQ_U(tf_is_uri("http://example.com/x"), 0);
	CHECK_EQ_U(tf_is_uri("2024-01-01T10:00.pcap"), 0);
	/* An existing file named like a URI is a file. */
	if (getcwd(cwd, sizeof(cwd)) != NULL && chdir(tmpdir) == 0) {
		struct buf b = {.n = 1};

		write_file(&b, "erf:exists");
		CHECK_EQ_U(tf_is_uri("erf:exists"), 0);
		CHECK_EQ_U(tf_is_uri("erf:missing"), 1);
		CHECK(chdir(cwd) == 0);
	}
}

static void test_erf(void)
{
	struct buf b = {.n = 0};
	uint8_t f[64], atm[52];
	char uri[256], err[256];
	struct tf_reader *r;
	struct pkt p;

	eth_frame(f);
	memcpy(f + 60, "\xde\xad\xbe\xef", 4);
	erf_rec(&b, 2, (1700000000ull << 32) | 0x80000000u, f, 60, 64); /* FCS not captured */
	erf_rec(&b, 2, (1700000001ull << 32) | 0x40000000u, f, 64, 64); /* FCS captured */
	erf_rec(&b, 2, 1700000002ull << 32, f, 40, 1518);		/* snapped to 40 */
	/* ATM cell: 4-byte cell header, LLC/SNAP, then IPv4: no LINKTYPE, so
	 * it comes out from the IP header as LINKTYPE_RAW. */
	memcpy(atm, "\x00\x00\x00\x50", 4);
	memcpy(atm + 4, "\xaa\xaa\x03\x00\x00\x00\x08\x00", 8);
	memcpy(atm + 12, f + 14, 40);
	erf_rec(&b, 3, 1700000003ull << 32, atm, 52, 52);
	snprintf(uri, sizeof(uri), "erf:%s", write_file(&b, "t.erf"));
	r = tf_open(uri, err, sizeof(err));
	CHECK(r != NULL);
	if (r == NULL) {
		fprintf(stderr, "tf_open %s: %s\n", uri, err);
		return;
	}
	CHECK_EQ_U(tf_next(r, &p), 1);
	CHECK_EQ_U(p.ts_ns, 1700000000500000000ull);
	CHECK_EQ_U(p.linktype, PKT_LINKTYPE_ETHERNET);
	CHECK_EQ_U(p.caplen, 60);
	CHECK_EQ_U(p.wirelen, 60); /* wlen 64 less the FCS */
	CHECK(memcmp(p.data, f, 60) == 0);
	CHECK_EQ_U(p.frame, 1);
	CHECK_EQ_U(p.iface, 0);
	CHECK_EQ_U(p.have, 0);
	CHECK_EQ_U(tf_next(r, &p), 1);
	CHECK_EQ_U(p.ts_ns, 1700000001250000000ull);
	CHECK_EQ_U(p.caplen, 60); /* captured FCS dropped */
	CHECK_EQ_U(p.wirelen, 60);
	CHECK(memcmp(p.data, f, 60) == 0);
	CHECK_EQ_U(tf_next(r, &p), 1);
	CHECK_EQ_U(p.ts_ns, 1700000002000000000ull);
	CHECK_EQ_U(p.wirelen, 1514);
	/* ERF pads records to 8 bytes and libtrace counts the pad as captured. */
	CHECK_EQ_U(p.caplen, 46);
	CHECK(memcmp(p.data, f, 40) == 0);
	CHECK_EQ_U(tf_next(r, &p), 1);
	CHECK_EQ_U(p.linktype, PKT_LINKTYPE_RAW);
	CHECK_EQ_U(p.caplen, 40);
	CHECK_EQ_U(p.data[0], 0x45);
	CHECK(memcmp(p.data, f + 14, 40) == 0);
	CHECK_EQ_U(p.frame, 4);
	CHECK_EQ_U(tf_next(r, &p), 0);
	CHECK_STR(tf_error(r), "");
	CHECK_EQ_U(tf_skipped(r), 0);
	tf_close(r);

	/* Cut inside the last record: earlier packets, then an error. */
	b.n -= 20;
	snprintf(uri, sizeof(uri), "erf:%s", write_file(&b, "cut.erf"));
	r = tf_open(uri, err, sizeof(err));
	CHECK(r != NULL);
	if (r != NULL) {
		int rc, n = 0;

		while ((rc = tf_next(r, &p)) == 1)
			n++;
		CHECK_EQ_U(n, 3);
		CHECK_EQ_U((uint64_t)(int64_t)rc, (uint64_t)(int64_t)ERR_INPUT);
		CHECK(strstr(tf_error(r), "Truncated") != NULL);
		CHECK_EQ_U((uint64_t)(int64_t)tf_next(r, &p), (uint64_t)(int64_t)ERR_INPUT);
		tf_close(r);
	}
}

/* pcapfile: through libtrace must give what sf_* gives (libtrace's +4
 * FCS convention undone). */
static void test_pcapfile_vs_sf(void)
{
	struct buf b = {.n = 0};
	uint8_t f[60];
	char uri[256], err[256];
	const char *path;
	struct sf_reader *s;
	struct tf_reader *t;
	struct pkt ps, pt;
	int n = 0, rs, rt;

	eth_frame(f);
	put_le(&b, 0xA1B2C3D4, 4);
	put_le(&b, 2, 2);
	put_le(&b, 4, 2);
	put_le(&b, 0, 8);
	put_le(&b, 65535, 4);
	put_le(&b, 1, 4);
	for (uint32_t k = 0; k < 5; k++) {
		uint32_t cap = 20 + 10 * k;

		put_le(&b, 1600000000 + k, 4);
		put_le(&b, 1000 * k, 4);
		put_le(&b, cap, 4);
		put_le(&b, k == 4 ? 1514 : cap, 4);
		put(&b, f, cap);
	}
	path = write_file(&b, "eth.pcap");
	snprintf(uri, sizeof(uri), "pcapfile:%s", path);
	s = sf_open(path, err, sizeof(err));
	t = tf_open(uri, err, sizeof(err));
	CHECK(s != NULL && t != NULL);
	if (s != NULL && t != NULL) {
		while ((rs = sf_next(s, &ps)) == 1 && (rt = tf_next(t, &pt)) == 1) {
			n++;
			CHECK_EQ_U(pt.ts_ns, ps.ts_ns);
			CHECK_EQ_U(pt.caplen, ps.caplen);
			CHECK_EQ_U(pt.wirelen, ps.wirelen);
			CHECK_EQ_U(pt.linktype, ps.linktype);
			CHECK_EQ_U(pt.frame, ps.frame);
			CHECK(memcmp(pt.data, ps.data, ps.caplen) == 0);
		}
		CHECK_EQ_U(n, 5);
		CHECK_EQ_U(rs, 0);
		CHECK_EQ_U(tf_next(t, &pt), 0);
	}
	sf_close(s);
	tf_close(t);
}

static void test_errors(void)
{
	char err[256];
	struct tf_reader *r;

	r = tf_open("erf:/nonexistent/x.erf", err, sizeof(err));
	CHECK(r == NULL);
	CHECK(strstr(err, "No such file or directory") != NULL);
	tf_close(r);
	r = tf_open("nosuchformat:/tmp/x", err, sizeof(err));
	CHECK(r == NULL);
	CHECK(strstr(err, "Unknown format") != NULL);
	tf_close(NULL);
}

int main(void)
{
	char cmd[128];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_tracefile.XXXXXX");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	test_is_uri();
	test_erf();
	test_pcapfile_vs_sf();
	test_errors();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return unit_done("tracefile");
}
