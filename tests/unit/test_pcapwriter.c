/* test_pcapwriter.c - pw_* output read back by our reader, libpcap and tshark. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/file/pcapwriter.h"
#include "capture/file/savefile.h"
#include "tests/unit/unit.h"

#define T0_NS	 1764500642000000000LL /* 2025-11-30 11:04:02 UTC */
#define MAX_DATA 2048

static char tmpdir[] = "/tmp/test_pcapwriter.XXXXXX";
static bool have_tshark;

/* --- packets generated from their index, so a reader can check them -------- */

struct gen {
	uint32_t snaplen;   /* caplen is clamped to this when written */
	uint32_t max_len;   /* caplen cycles below this */
	unsigned nifaces;   /* packet i goes to interface i % nifaces */
	int64_t step_ns;    /* time between packets */
	bool options;	    /* vary queue/flags/dropcount */
	uint32_t const_len; /* all packets this long when non-zero */
};

static uint32_t gen_caplen(const struct gen *g, uint64_t i)
{
	return g->const_len ? g->const_len : (uint32_t)((i * 37 + 11) % g->max_len);
}

static void gen_pkt(const struct gen *g, uint64_t i, struct pkt *p, uint8_t *data)
{
	uint32_t caplen = gen_caplen(g, i);

	for (uint32_t k = 0; k < caplen; k++)
		data[k] = (uint8_t)(i * 7 + k * 13);
	memset(p, 0, sizeof(*p));
	p->ts_ns = T0_NS + (int64_t)i * g->step_ns + (int64_t)(i % 1000);
	p->data = data;
	p->caplen = caplen;
	p->wirelen = caplen + (uint32_t)(i % 3) * 100;
	p->linktype = PKT_LINKTYPE_ETHERNET;
	if (g->options) {
		if (i % 2 == 0) {
			p->have |= PKT_HAVE_QUEUE;
			p->queue = (uint32_t)(i % g->nifaces);
		}
		if (i % 3 != 1) {
			p->have |= PKT_HAVE_FLAGS;
			p->epb_flags = (uint32_t)(i % 3) | (uint32_t)(i & 0xf0) << 24;
		}
		if (i % 5 == 0) {
			p->have |= PKT_HAVE_DROPCOUNT;
			p->dropcount = i * 1000003ull;
		}
	}
}

/* Compare what a reader returned with packet i; counts one CHECK per packet. */
static bool gen_same(const struct gen *g, uint64_t i, const struct pkt *got, bool pcapng)
{
	static uint8_t data[MAX_DATA];
	struct pkt want;
	uint32_t caplen;
	uint32_t have_mask = PKT_HAVE_QUEUE | PKT_HAVE_FLAGS | PKT_HAVE_DROPCOUNT;
	bool ok;

	gen_pkt(g, i, &want, data);
	caplen = want.caplen < g->snaplen ? want.caplen : g->snaplen;
	ok = got->ts_ns == want.ts_ns && got->caplen == caplen && got->wirelen == want.wirelen &&
	     memcmp(got->data, data, caplen) == 0;
	if (pcapng) {
		ok = ok && got->iface == i % g->nifaces &&
		     (got->have & have_mask) == (want.have & have_mask);
		if (want.have & PKT_HAVE_QUEUE)
			ok = ok && got->queue == want.queue;
		if (want.have & PKT_HAVE_FLAGS)
			ok = ok && got->epb_flags == want.epb_flags;
		if (want.have & PKT_HAVE_DROPCOUNT)
			ok = ok && got->dropcount == want.dropcount;
	}
	if (!ok)
		fprintf(stderr,
			"packet %" PRIu64 ": ts %" PRId64 "/%" PRId64 " caplen %u/%u "
			"wirelen %u/%u iface %u/%u have %x/%x queue %u/%u\n",
			i, got->ts_ns, want.ts_ns, got->caplen, caplen, got->wirelen, want.wirelen,
			got->iface, (unsigned)(i % g->nifaces), got->have, want.have, got->queue,
			want.queue);
	CHECK(ok);
	return ok;
}

/* Write packets [from, to) of g; returns the first error or 0. */
static int gen_write(struct pw_writer *w, const struct gen *g, uint64_t from, uint64_t to)
{
	static uint8_t data[MAX_DATA];
	struct pkt p;

	for (uint64_t i = from; i < to; i++) {
		int rc;

		gen_pkt(g, i, &p, data);
		rc = pw_write(w, (unsigned)(i % g->nifaces), &p);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Read a whole file with our reader and check packets first, first+1, ...
 * Returns the number read (-1 when the file does not read cleanly to its end).
 */
static long sf_check(const char *path, const struct gen *g, uint64_t first, bool pcapng)
{
	char err[256];
	struct sf_reader *r = sf_open(path, err, sizeof(err));
	struct pkt p;
	long n = 0;
	int rc;

	if (r == NULL) {
		fprintf(stderr, "sf_open %s: %s\n", path, err);
		CHECK(r != NULL);
		return -1;
	}
	while ((rc = sf_next(r, &p)) == 1) {
		if (!gen_same(g, first + (uint64_t)n, &p, pcapng))
			break;
		n++;
	}
	if (rc < 0)
		fprintf(stderr, "%s: %s\n", path, sf_error(r));
	CHECK_EQ_U(rc, 0);
	CHECK_EQ_U(sf_format(r), pcapng ? SF_FORMAT_PCAPNG : SF_FORMAT_PCAP_NS);
	sf_close(r);
	return rc == 0 ? n : -1;
}

/* libpcap must read the same packets (nanosecond precision) to a clean end. */
static long pcap_check(const char *path, const struct gen *g, uint64_t first)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	struct pcap_pkthdr *h;
	const u_char *d;
	long n = 0, bad = 0;
	int rc;

	if (pc == NULL) {
		fprintf(stderr, "libpcap %s: %s\n", path, err);
		CHECK(pc != NULL);
		return -1;
	}
	while ((rc = pcap_next_ex(pc, &h, &d)) == 1) {
		struct pkt got = {0};

		got.ts_ns = (int64_t)h->ts.tv_sec * 1000000000LL + h->ts.tv_usec;
		got.caplen = h->caplen;
		got.wirelen = h->len;
		got.data = d;
		if (!gen_same(g, first + (uint64_t)n, &got, false))
			bad++;
		n++;
	}
	if (rc != PCAP_ERROR_BREAK)
		fprintf(stderr, "libpcap %s: %s\n", path, pcap_geterr(pc));
	CHECK_EQ_U(rc, (uint64_t)PCAP_ERROR_BREAK);
	pcap_close(pc);
	return rc == PCAP_ERROR_BREAK && bad == 0 ? n : -1;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Stats source: fixed counters per interface, osdrop only for even ones. */
static void stats_cb(void *ctx, unsigned iface, struct pw_ifstats *out)
{
	unsigned *calls = ctx;

	(*calls)++;
	out->ifrecv = 1000000 + iface;
	out->have_ifrecv = true;
	out->ifdrop = 10 + iface;
	out->have_ifdrop = true;
	if (iface % 2 == 0) {
		out->osdrop = 7 * iface + 1;
		out->have_osdrop = true;
	}
}

static void isb_check(const char *path, unsigned nifaces)
{
	char err[256];
	struct sf_reader *r = sf_open(path, err, sizeof(err));
	struct pkt p;

	CHECK(r != NULL);
	if (r == NULL)
		return;
	while (sf_next(r, &p) == 1)
		;
	CHECK_EQ_U(sf_iface_count(r), nifaces);
	for (unsigned i = 0; i < nifaces; i++) {
		const struct sf_iface *f = sf_iface(r, i);

		CHECK(f != NULL && f->have_ifrecv && f->have_ifdrop);
		if (f == NULL)
			continue;
		CHECK_EQ_U(f->isb_ifrecv, 1000000 + i);
		CHECK_EQ_U(f->isb_ifdrop, 10 + i);
		CHECK_EQ_U(f->have_osdrop, i % 2 == 0);
		if (i % 2 == 0)
			CHECK_EQ_U(f->isb_osdrop, 7 * i + 1);
	}
	sf_close(r);
}

static void path_in(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", tmpdir, name);
}

/* --- multi-interface pcapng --------------------------------------------------- */

static void test_pcapng(void)
{
	static const struct pw_iface ifs[] = {
	    {"veth0", PKT_LINKTYPE_ETHERNET, 0},
	    {"veth0", PKT_LINKTYPE_ETHERNET, 1},
	    {"veth0", PKT_LINKTYPE_ETHERNET, 2},
	    {"lo", PKT_LINKTYPE_ETHERNET, -1},
	};
	struct gen g = {
	    .snaplen = 1500, .max_len = 1700, .nifaces = 4, .step_ns = 1000, .options = true};
	char path[256], err[256], cmd[1200];
	struct pw_config cfg = {.format = PW_PCAPNG, .snaplen = 1500, .comment = "unit test"};
	struct pw_writer *w;
	const struct pw_counters *c;
	unsigned calls = 0;
	const uint64_t n = 5000; /* ~4 MiB: several buffer drains */

	path_in(path, sizeof(path), "multi.pcapng");
	cfg.path = path;
	w = pw_open(&cfg, ifs, 4, err, sizeof(err));
	CHECK(w != NULL);
	if (w == NULL) {
		fprintf(stderr, "pw_open: %s\n", err);
		return;
	}
	CHECK_STR(pw_path(w), path);
	pw_set_stats_source(w, stats_cb, &calls);
	CHECK_EQ_U(gen_write(w, &g, 0, n), 0);
	{
		struct pkt bad = {.ts_ns = T0_NS};

		CHECK_EQ_U(pw_write(w, 4, &bad), (uint64_t)(int64_t)ERR_USAGE);
		CHECK(strstr(pw_error(w), "interface 4") != NULL);
	}
	CHECK_EQ_U(pw_flush(w), 0);
	CHECK_EQ_U(pw_close(w), 0);
	CHECK_EQ_U(calls, 4);
	c = pw_counters(w);
	CHECK_EQ_U(c->packets, n);
	CHECK_EQ_U(c->files, 1);
	CHECK_EQ_U(c->lost, 0);
	CHECK_EQ_U(c->bytes, file_size(path));
	pw_free(w);

	CHECK_EQ_U(sf_check(path, &g, 0, true), n);
	isb_check(path, 4);
	{
		struct sf_reader *r = sf_open(path, err, sizeof(err));

		CHECK(r != NULL);
		if (r) {
			struct pkt p;

			/* IDBs are learnt as the reader meets them. */
			while (sf_next(r, &p) == 1)
				;
			for (unsigned i = 0; i < 4; i++) {
				const struct sf_iface *f = sf_iface(r, i);

				CHECK(f != NULL);
				if (f == NULL)
					continue;
				CHECK_STR(f->name, ifs[i].name);
				CHECK_EQ_U(f->linktype, PKT_LINKTYPE_ETHERNET);
				CHECK_EQ_U(f->snaplen, 1500);
			}
			sf_close(r);
		}
	}
	CHECK_EQ_U(pcap_check(path, &g, 0), n);

	if (!have_tshark)
		return;
	/* tshark: every packet, its interface, queue and direction as written. */
	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s -T fields -E separator=, -e frame.interface_id "
		 "-e frame.interface_queue -e frame.packet_flags_direction "
		 "-e frame.interface_description >%s.txt 2>%s.err",
		 path, path, path);
	CHECK_EQ_U(system(cmd), 0);
	{
		char txt[300], line[256];
		FILE *f;
		uint64_t i = 0, bad = 0;
		static uint8_t data[MAX_DATA];

		snprintf(txt, sizeof(txt), "%s.txt", path);
		f = fopen(txt, "r");
		CHECK(f != NULL);
		while (f && fgets(line, sizeof(line), f)) {
			struct pkt p;
			char want[256], q[16] = "", dir[16] = "", desc[64] = "";

			gen_pkt(&g, i, &p, data);
			if (p.have & PKT_HAVE_QUEUE)
				snprintf(q, sizeof(q), "%u", p.queue);
			if (p.have & PKT_HAVE_FLAGS)
				snprintf(dir, sizeof(dir), "0x%08x", p.epb_flags & 3);
			if (i % 4 < 3)
				snprintf(desc, sizeof(desc), "veth0 queue %u", (unsigned)(i % 4));
			snprintf(want, sizeof(want), "%u,%s,%s,%s\n", (unsigned)(i % 4), q, dir,
				 desc);
			if (strcmp(line, want) != 0 && bad++ < 3)
				fprintf(stderr, "tshark line %" PRIu64 ": got %s want %s", i, line,
					want);
			i++;
		}
		if (f)
			fclose(f);
		CHECK_EQ_U(i, n);
		CHECK_EQ_U(bad, 0);
	}
}

/* Different link types per interface: fine in pcapng, refused for pcap. */
static void test_mixed_linktypes(void)
{
	static const struct pw_iface ifs[] = {
	    {"eth0", PKT_LINKTYPE_ETHERNET, -1},
	    {"tun0", PKT_LINKTYPE_RAW, -1},
	};
	struct gen g = {
	    .snaplen = 262144, .max_len = 200, .nifaces = 2, .step_ns = 1, .options = false};
	char path[256], err[256], cmd[1200];
	struct pw_config cfg = {.format = PW_PCAP};
	struct pw_writer *w;

	path_in(path, sizeof(path), "mixed.pcap");
	cfg.path = path;
	w = pw_open(&cfg, ifs, 2, err, sizeof(err));
	CHECK(w == NULL);
	CHECK(strstr(err, "one link type") != NULL);
	CHECK(strstr(err, "pcapng") != NULL);
	CHECK(access(path, F_OK) == -1);

	path_in(path, sizeof(path), "mixed.pcapng");
	cfg.format = PW_PCAPNG;
	w = pw_open(&cfg, ifs, 2, err, sizeof(err));
	CHECK(w != NULL);
	if (w == NULL)
		return;
	CHECK_EQ_U(gen_write(w, &g, 0, 100), 0);
	CHECK_EQ_U(pw_close(w), 0);
	pw_free(w);
	CHECK_EQ_U(sf_check(path, &g, 0, true), 100);
	{
		struct sf_reader *r = sf_open(path, err, sizeof(err));

		if (r) {
			struct pkt p;

			while (sf_next(r, &p) == 1)
				;
			CHECK(sf_iface(r, 1) && sf_iface(r, 1)->linktype == PKT_LINKTYPE_RAW);
			sf_close(r);
		}
	}
	if (have_tshark) {
		snprintf(cmd, sizeof(cmd), "tshark -r %s >/dev/null 2>&1", path);
		CHECK_EQ_U(system(cmd), 0);
	}
}

/* Open-time errors are refused with a reason. */
static void test_open_errors(void)
{
	static const struct pw_iface ifs[] = {{"eth0", PKT_LINKTYPE_ETHERNET, -1}};
	char err[256];
	struct pw_config cfg = {.path = "-", .rotate_bytes = 1000};

	CHECK(pw_open(&cfg, ifs, 1, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "stdout") != NULL);
	cfg.rotate_bytes = 0;
	CHECK(pw_open(&cfg, ifs, 0, err, sizeof(err)) == NULL);
	cfg.snaplen = 1u << 30;
	CHECK(pw_open(&cfg, ifs, 1, err, sizeof(err)) == NULL);
	cfg.snaplen = 0;
	cfg.path = "/nonexistent-dir/x.pcapng";
	CHECK(pw_open(&cfg, ifs, 1, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "/nonexistent-dir/x.pcapng") != NULL);
	cfg.rotate_ns = 1000000000;
	CHECK(pw_open(&cfg, ifs, 1, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "/nonexistent-dir") != NULL);
	pw_free(NULL);
}

/* --- safe output files ------------------------------------------------------------ */

/* Bytes of a file, or -1 when it cannot be read; the first ones into buf. */
static long file_bytes(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long n;

	if (fd == -1)
		return -1;
	n = read(fd, buf, len);
	close(fd);
	return n;
}

static void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	CHECK(fd != -1);
	if (fd == -1)
		return;
	CHECK_EQ_U(write(fd, text, strlen(text)), strlen(text));
	close(fd);
}

/* pw_open on path: NULL and err containing want, or a writer closed at once (want NULL). */
static void open_expect(struct pw_config *cfg, const char *path, const char *want)
{
	static const struct pw_iface ifs[] = {{"eth0", PKT_LINKTYPE_ETHERNET, -1}};
	char err[256] = "";
	struct pw_writer *w;

	cfg->path = path;
	w = pw_open(cfg, ifs, 1, err, sizeof(err));
	if (want == NULL) {
		CHECK(w != NULL);
		if (w == NULL)
			fprintf(stderr, "  %s: %s\n", path, err);
		CHECK_EQ_U(pw_close(w), 0);
	} else {
		CHECK(w == NULL);
		CHECK(strstr(err, want) != NULL);
		if (strstr(err, want) == NULL)
			fprintf(stderr, "  %s: '%s', want '%s'\n", path, err, want);
	}
	pw_free(w);
}

/*
 * A capture may run as root in a directory others write to: a planted
 * symlink (dangling or not), a hard link, a FIFO or someone's file at the
 * output name must never receive the capture, nor be truncated.
 */
static void test_safe_files(void)
{
	char dir[256], path[300], target[300], lnk[300], buf[64];
	struct pw_config cfg = {.format = PW_PCAPNG};
	struct stat st;
	mode_t old_umask = umask(077);

	path_in(dir, sizeof(dir), "safe");
	CHECK(mkdir(dir, 0755) == 0);

	/* A new file gets 0640 exactly, whatever the umask; or the mode asked. */
	snprintf(path, sizeof(path), "%s/new.pcapng", dir);
	open_expect(&cfg, path, NULL);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0640);
	CHECK(file_bytes(path, buf, 4) == 4 && memcmp(buf, "\x0a\x0d\x0d\x0a", 4) == 0);
	umask(old_umask);

	/* An existing name: refused and untouched, unless overwrite. */
	write_text(path, "precious");
	open_expect(&cfg, path, "exists: not overwritten");
	CHECK(file_bytes(path, buf, sizeof(buf)) == 8);
	CHECK(chmod(path, 0666) == 0);
	cfg.overwrite = true;
	cfg.file_mode = 0600;
	open_expect(&cfg, path, NULL);
	CHECK(file_bytes(path, buf, 4) == 4 && memcmp(buf, "\x0a\x0d\x0d\x0a", 4) == 0);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600);
	cfg.file_mode = 01777;
	open_expect(&cfg, path, "only permission bits");
	cfg.file_mode = 0;

	/* A symlink to a victim, dangling or not: never followed, overwrite or not. */
	snprintf(target, sizeof(target), "%s/victim", dir);
	snprintf(lnk, sizeof(lnk), "%s/link.pcapng", dir);
	write_text(target, "victim");
	CHECK(symlink(target, lnk) == 0);
	for (int ow = 0; ow < 2; ow++) {
		cfg.overwrite = ow;
		open_expect(&cfg, lnk, "symbolic link: not followed");
		CHECK(file_bytes(target, buf, sizeof(buf)) == 6 && memcmp(buf, "victim", 6) == 0);
		CHECK(lstat(lnk, &st) == 0 && S_ISLNK(st.st_mode));
	}
	snprintf(target, sizeof(target), "%s/nothing-yet", dir);
	snprintf(lnk, sizeof(lnk), "%s/dangling.pcapng", dir);
	CHECK(symlink(target, lnk) == 0);
	open_expect(&cfg, lnk, "symbolic link");
	CHECK(lstat(target, &st) == -1 && errno == ENOENT);

	/* A hard link to a victim, a FIFO (no reader: must not block): refused. */
	snprintf(target, sizeof(target), "%s/victim", dir);
	snprintf(lnk, sizeof(lnk), "%s/hard.pcapng", dir);
	CHECK(link(target, lnk) == 0);
	cfg.overwrite = true;
	open_expect(&cfg, lnk, "has 2 links");
	CHECK(file_bytes(target, buf, sizeof(buf)) == 6);
	snprintf(path, sizeof(path), "%s/fifo.pcapng", dir);
	CHECK(mkfifo(path, 0600) == 0);
	open_expect(&cfg, path, "fifo.pcapng");
	open_expect(&cfg, "/dev/null", "not a regular file");
	cfg.overwrite = false;

	/* A ring file's name is known in advance (seq + first packet's time): a
	 * link planted there ends the capture with an error, the victim intact. */
	{
		static const struct pw_iface ifs[] = {{"eth0", PKT_LINKTYPE_ETHERNET, -1}};
		static uint8_t data[60];
		struct pkt p = {.data = data, .caplen = 60, .wirelen = 60, .ts_ns = T0_NS};
		struct pw_config rc = {.format = PW_PCAPNG, .rotate_bytes = 1 << 20};
		char err[256];
		struct pw_writer *w;

		snprintf(path, sizeof(path), "%s/ring.pcapng", dir);
		snprintf(lnk, sizeof(lnk), "%s/ring_00001_20251130110402.pcapng", dir);
		CHECK(symlink(target, lnk) == 0);
		rc.path = path;
		w = pw_open(&rc, ifs, 1, err, sizeof(err));
		CHECK(w != NULL);
		if (w != NULL) {
			CHECK(pw_write(w, 0, &p) == ERR_SYSTEM);
			CHECK(strstr(pw_error(w), "symbolic link") != NULL);
			pw_close(w);
			pw_free(w);
		}
		CHECK(file_bytes(target, buf, sizeof(buf)) == 6 && memcmp(buf, "victim", 6) == 0);
	}
}

/* --- classic pcap -------------------------------------------------------------- */

static void test_pcap(void)
{
	static const struct pw_iface ifs[] = {
	    {"eth0", PKT_LINKTYPE_ETHERNET, 0},
	    {"eth0", PKT_LINKTYPE_ETHERNET, 1},
	};
	struct gen g = {
	    .snaplen = 128, .max_len = 300, .nifaces = 2, .step_ns = 999999937, .options = true};
	char path[256], err[256];
	struct pw_config cfg = {.format = PW_PCAP, .snaplen = 128};
	struct pw_writer *w;

	path_in(path, sizeof(path), "classic.pcap");
	cfg.path = path;
	w = pw_open(&cfg, ifs, 2, err, sizeof(err));
	CHECK(w != NULL);
	if (w == NULL)
		return;
	CHECK_EQ_U(gen_write(w, &g, 0, 3000), 0);
	CHECK_EQ_U(pw_close(w), 0);
	CHECK_EQ_U(pw_counters(w)->bytes, file_size(path));
	pw_free(w);
	CHECK_EQ_U(sf_check(path, &g, 0, false), 3000);
	CHECK_EQ_U(pcap_check(path, &g, 0), 3000);
}

/* --- file ring ----------------------------------------------------------------- */

struct ring_file {
	unsigned seq;
	char name[600];
};

static int ring_cmp(const void *a, const void *b)
{
	const struct ring_file *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* List DIR/out_SEQ_TIME.pcapng files in sequence order; returns the count. */
static unsigned ring_list(const char *dir, struct ring_file *out, unsigned max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL && n < max) {
		unsigned seq;
		char when[16], ext[16];

		if (sscanf(e->d_name, "out_%5u_%14[0-9].%15s", &seq, when, ext) != 3 ||
		    strcmp(ext, "pcapng") != 0 || strlen(e->d_name) != 4 + 6 + 14 + 7)
			continue;
		out[n].seq = seq;
		snprintf(out[n].name, sizeof(out[n].name), "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	qsort(out, n, sizeof(*out), ring_cmp);
	return n;
}

/* The name a ring file must have: its sequence and its first packet's UTC time. */
static void ring_expect(char *out, size_t len, const char *dir, unsigned seq, int64_t ts_ns)
{
	time_t t = (time_t)(ts_ns / 1000000000LL);
	struct tm tm;
	char when[32];

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y%m%d%H%M%S", &tm);
	snprintf(out, len, "%s/out_%05u_%s.pcapng", dir, seq, when);
}

/*
 * Check a ring directory: files numbered from first_seq, each readable to a
 * clean end with its ISBs, packets contiguous and ending at `last`. Returns
 * the number of files.
 */
static unsigned ring_check(const char *dir, const struct gen *g, unsigned first_seq,
			   uint64_t first_pkt, uint64_t end_pkt, uint64_t max_size)
{
	struct ring_file f[64];
	unsigned n = ring_list(dir, f, 64);
	uint64_t next = first_pkt;

	for (unsigned k = 0; k < n; k++) {
		char want[300];
		struct pkt p;
		static uint8_t data[MAX_DATA];
		long got;

		CHECK_EQ_U(f[k].seq, first_seq + k);
		gen_pkt(g, next, &p, data);
		ring_expect(want, sizeof(want), dir, first_seq + k, p.ts_ns);
		CHECK_STR(f[k].name, want);
		if (max_size)
			CHECK(file_size(f[k].name) <= max_size);
		got = sf_check(f[k].name, g, next, true);
		CHECK(got > 0);
		if (got <= 0)
			break;
		CHECK_EQ_U(pcap_check(f[k].name, g, next), got);
		isb_check(f[k].name, g->nifaces);
		next += (uint64_t)got;
	}
	CHECK_EQ_U(next, end_pkt);
	return n;
}

static void ring_dir(char *out, size_t len, const char *name)
{
	path_in(out, len, name);
	CHECK(mkdir(out, 0755) == 0);
}

static struct pw_writer *ring_open(const char *dir, struct pw_config *cfg, unsigned *calls)
{
	static const struct pw_iface ifs[] = {
	    {"veth0", PKT_LINKTYPE_ETHERNET, 0},
	    {"veth0", PKT_LINKTYPE_ETHERNET, 1},
	};
	static char path[300];
	char err[256];
	struct pw_writer *w;

	snprintf(path, sizeof(path), "%s/out.pcapng", dir);
	cfg->path = path;
	w = pw_open(cfg, ifs, 2, err, sizeof(err));
	CHECK(w != NULL);
	if (w == NULL) {
		fprintf(stderr, "pw_open: %s\n", err);
		return NULL;
	}
	pw_set_stats_source(w, stats_cb, calls);
	return w;
}

static void test_rotate_size(void)
{
	struct gen g = {
	    .snaplen = 2048, .max_len = 1000, .nifaces = 2, .step_ns = 1000000, .options = true};
	struct pw_config cfg = {.format = PW_PCAPNG, .snaplen = 2048, .rotate_bytes = 50000};
	char dir[256];
	struct pw_writer *w;
	unsigned calls = 0, n;

	ring_dir(dir, sizeof(dir), "size");
	w = ring_open(dir, &cfg, &calls);
	if (w == NULL)
		return;
	CHECK_EQ_U(gen_write(w, &g, 0, 1000), 0); /* ~500 KB: about 10 files */
	CHECK_EQ_U(pw_close(w), 0);
	n = ring_check(dir, &g, 1, 0, 1000, 50000);
	CHECK(n >= 9 && n <= 12);
	CHECK_EQ_U(pw_counters(w)->files, n);
	CHECK_EQ_U(calls, 2 * n);
	pw_free(w);
}

static void test_rotate_time(void)
{
	/* 100 ms apart: each 1 s file holds 10 packets, 60 packets -> 6 files. */
	struct gen g = {
	    .snaplen = 2048, .max_len = 500, .nifaces = 2, .step_ns = 100000000, .options = false};
	struct pw_config cfg = {.format = PW_PCAPNG, .rotate_ns = 1000000000};
	char dir[256];
	struct pw_writer *w;
	unsigned calls = 0;
	struct ring_file f[16];

	ring_dir(dir, sizeof(dir), "time");
	w = ring_open(dir, &cfg, &calls);
	if (w == NULL)
		return;
	CHECK_EQ_U(gen_write(w, &g, 0, 60), 0);
	CHECK_EQ_U(pw_close(w), 0);
	CHECK_EQ_U(ring_check(dir, &g, 1, 0, 60, 0), 6);
	CHECK_EQ_U(ring_list(dir, f, 16), 6);
	for (unsigned k = 0; k < 6; k++)
		CHECK_EQ_U(sf_check(f[k].name, &g, 10 * k, true), 10);
	pw_free(w);
}

static void test_rotate_count(void)
{
	struct gen g = {
	    .snaplen = 2048, .max_len = 1000, .nifaces = 2, .step_ns = 1000000, .options = true};
	struct pw_config cfg = {.format = PW_PCAPNG, .rotate_bytes = 20000, .max_files = 3};
	char dir[256];
	struct pw_writer *w;
	unsigned calls = 0;
	struct ring_file f[64];
	uint64_t files;
	long a, b;

	ring_dir(dir, sizeof(dir), "count");
	w = ring_open(dir, &cfg, &calls);
	if (w == NULL)
		return;
	CHECK_EQ_U(gen_write(w, &g, 0, 500), 0);
	CHECK_EQ_U(pw_close(w), 0);
	files = pw_counters(w)->files;
	CHECK(files > 5);
	CHECK_EQ_U(ring_list(dir, f, 64), 3);
	CHECK_EQ_U(f[0].seq, files - 2);
	/* The three newest files: contiguous packets ending with the last one. */
	{
		struct sf_reader *r;
		char err[256];
		struct pkt p;

		r = sf_open(f[0].name, err, sizeof(err));
		CHECK(r != NULL);
		if (r == NULL)
			goto out;
		CHECK_EQ_U(sf_next(r, &p), 1);
		sf_close(r);
		/* Find the first packet of the oldest file kept by its timestamp. */
		a = (long)((p.ts_ns - T0_NS) / g.step_ns);
		b = (long)ring_check(dir, &g, f[0].seq, (uint64_t)a, 500, 20000);
		CHECK_EQ_U(b, 3);
	}
out:
	pw_free(w);
}

/* A ring that never saw a packet still leaves one valid file. */
static void test_rotate_empty(void)
{
	struct pw_config cfg = {.format = PW_PCAPNG, .rotate_ns = 1000000000};
	char dir[256];
	struct pw_writer *w;
	unsigned calls = 0;
	struct ring_file f[4];
	struct gen g = {.snaplen = 2048, .max_len = 1, .nifaces = 2, .step_ns = 1};

	ring_dir(dir, sizeof(dir), "empty");
	w = ring_open(dir, &cfg, &calls);
	if (w == NULL)
		return;
	CHECK_EQ_U(pw_close(w), 0);
	pw_free(w);
	CHECK_EQ_U(ring_list(dir, f, 4), 1);
	CHECK_EQ_U(sf_check(f[0].name, &g, 0, true), 0);
	isb_check(f[0].name, 2);
}

/* --- stdout to a pipe ----------------------------------------------------------- */

static void test_stdout_pipe(void)
{
	static const struct pw_iface ifs[] = {
	    {"eth0", PKT_LINKTYPE_ETHERNET, 0},
	    {"eth0", PKT_LINKTYPE_ETHERNET, 1},
	    {"eth0", PKT_LINKTYPE_ETHERNET, 2},
	};
	struct gen g = {
	    .snaplen = 2048, .max_len = 1500, .nifaces = 3, .step_ns = 1000, .options = true};
	int fds[2], status = 0;
	pid_t pid;
	char dev[64];

	CHECK(pipe(fds) == 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct pw_config cfg = {.path = "-", .format = PW_PCAPNG};
		char err[256];
		struct pw_writer *w;
		int rc;

		close(fds[0]);
		if (dup2(fds[1], STDOUT_FILENO) == -1)
			_exit(10);
		close(fds[1]);
		w = pw_open(&cfg, ifs, 3, err, sizeof(err));
		if (w == NULL)
			_exit(11);
		/* ~3 MB through a 64 KiB pipe: the writer waits for the reader. */
		rc = gen_write(w, &g, 0, 4000);
		if (rc == 0)
			rc = pw_flush(w);
		if (rc == 0)
			rc = pw_close(w);
		pw_free(w);
		_exit(rc == 0 ? 0 : 12);
	}
	CHECK(pid > 0);
	close(fds[1]);
	snprintf(dev, sizeof(dev), "/dev/fd/%d", fds[0]);
	CHECK_EQ_U(sf_check(dev, &g, 0, true), 4000);
	close(fds[0]);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* `tshark -r -` reads what pw_* streams to stdout, queues included. */
static void test_stdout_tshark(void)
{
	static const struct pw_iface ifs[] = {
	    {"eth0", PKT_LINKTYPE_ETHERNET, 0},
	    {"eth0", PKT_LINKTYPE_ETHERNET, 1},
	};
	struct gen g = {
	    .snaplen = 2048, .max_len = 1500, .nifaces = 2, .step_ns = 1000, .options = true};
	int fds[2], status = 0;
	pid_t pid;
	char cmd[1200], out[300];
	FILE *f;
	unsigned lines = 0, queued = 0;

	if (!have_tshark)
		return;
	path_in(out, sizeof(out), "tshark-pipe.txt");
	CHECK(pipe(fds) == 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct pw_config cfg = {.path = "-", .format = PW_PCAPNG};
		char err[256];
		struct pw_writer *w;
		int rc;

		close(fds[0]);
		if (dup2(fds[1], STDOUT_FILENO) == -1)
			_exit(10);
		close(fds[1]);
		w = pw_open(&cfg, ifs, 2, err, sizeof(err));
		if (w == NULL)
			_exit(11);
		rc = gen_write(w, &g, 0, 1000);
		if (rc == 0)
			rc = pw_close(w);
		pw_free(w);
		_exit(rc == 0 ? 0 : 12);
	}
	CHECK(pid > 0);
	close(fds[1]);
	snprintf(cmd, sizeof(cmd),
		 "tshark -r - -T fields -e frame.interface_queue <&%d >%s 2>/dev/null", fds[0],
		 out);
	CHECK_EQ_U(system(cmd), 0);
	close(fds[0]);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	f = fopen(out, "r");
	CHECK(f != NULL);
	while (f && fgets(cmd, sizeof(cmd), f)) {
		lines++;
		queued += cmd[0] != '\n';
	}
	if (f)
		fclose(f);
	CHECK_EQ_U(lines, 1000);
	CHECK_EQ_U(queued, 500); /* even packets carry epb_queue */
}

/* --- write errors ---------------------------------------------------------------- */

/*
 * Fill a file until a write fails with ERR_SYSTEM and want_text (the
 * errno's strerror) in its message; the file must end on the last complete
 * record, read cleanly with our reader, libpcap and tshark, and every
 * packet must be either in it or counted lost.
 */
static void disk_full(const char *path, const char *want_text)
{
	static const struct pw_iface ifs[] = {
	    {"eth0", PKT_LINKTYPE_ETHERNET, 0},
	    {"eth0", PKT_LINKTYPE_ETHERNET, 1},
	};
	struct gen g = {
	    .snaplen = 2048, .max_len = 1500, .nifaces = 2, .step_ns = 1000, .options = true};
	struct pw_config cfg = {.path = path, .format = PW_PCAPNG};
	char err[256], cmd[1200];
	struct pw_writer *w;
	const struct pw_counters *c;
	uint64_t sent = 0;
	int rc = 0;
	long got;
	unsigned calls = 0;
	struct sf_reader *r;

	w = pw_open(&cfg, ifs, 2, err, sizeof(err));
	CHECK(w != NULL);
	if (w == NULL) {
		fprintf(stderr, "pw_open: %s\n", err);
		return;
	}
	pw_set_stats_source(w, stats_cb, &calls);
	while (sent < 100000 && rc == 0) {
		rc = gen_write(w, &g, sent, sent + 1);
		sent++;
		if (rc == 0 && sent % 500 == 0)
			rc = pw_flush(w);
	}
	CHECK_EQ_U(rc, (uint64_t)(int64_t)ERR_SYSTEM);
	CHECK(strstr(pw_error(w), want_text) != NULL);
	CHECK(strstr(pw_error(w), path) != NULL);
	printf("  error: %s\n", pw_error(w));
	/* Sticky: later packets are refused and counted. */
	CHECK_EQ_U(gen_write(w, &g, sent, sent + 1), (uint64_t)(int64_t)ERR_SYSTEM);
	sent++;
	CHECK_EQ_U(pw_close(w), (uint64_t)(int64_t)ERR_SYSTEM);
	c = pw_counters(w);
	CHECK(c->packets > 0);
	CHECK(c->lost > 0);
	CHECK_EQ_U(c->packets + c->lost, sent);
	got = sf_check(path, &g, 0, true);
	CHECK_EQ_U(got, c->packets);
	CHECK_EQ_U(pcap_check(path, &g, 0), c->packets);
	r = sf_open(path, err, sizeof(err));
	if (r) {
		struct pkt p;

		while (sf_next(r, &p) == 1)
			;
		printf("  %s: %" PRIu64 " bytes, %ld packets, %" PRIu64 " lost, ISBs %s\n", path,
		       file_size(path), got, c->lost,
		       sf_iface(r, 0)->have_ifrecv ? "appended" : "did not fit");
		sf_close(r);
	}
	if (have_tshark) {
		snprintf(cmd, sizeof(cmd), "tshark -r %s >/dev/null 2>&1", path);
		CHECK_EQ_U(system(cmd), 0);
	}
	pw_free(w);
}

/* Without root: a file size limit (EFBIG) takes the same path as ENOSPC. */
static void test_fsize_limit(void)
{
	struct rlimit old, lim;
	char path[256];

	path_in(path, sizeof(path), "fsize.pcapng");
	CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
	lim = old;
	lim.rlim_cur = 300000 + 123; /* not on a record boundary */
	signal(SIGXFSZ, SIG_IGN);
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	disk_full(path, "File too large");
	CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
	signal(SIGXFSZ, SIG_DFL);
}

/* As root: a 64 KiB tmpfs in a private mount namespace fills for real. */
static void test_disk_full(void)
{
	char mnt[256], path[300];

	if (geteuid() != 0) {
		printf("  disk full: skipped (needs root to mount a tmpfs)\n");
		return;
	}
	/* A private mount namespace: the tmpfs vanishes with this process even
	 * if a CHECK crashes before the umount. */
	if (unshare(CLONE_NEWNS) == -1 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		printf("  disk full: skipped (unshare/mount: %s)\n", strerror(errno));
		return;
	}
	path_in(mnt, sizeof(mnt), "tmpfs");
	CHECK(mkdir(mnt, 0755) == 0);
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k") == -1) {
		printf("  disk full: skipped (mount tmpfs: %s)\n", strerror(errno));
		rmdir(mnt);
		return;
	}
	snprintf(path, sizeof(path), "%s/out.pcapng", mnt);
	disk_full(path, "No space left on device");
	unlink(path);
	CHECK(umount(mnt) == 0);
	rmdir(mnt);
}

/* --- cost per packet --------------------------------------------------------------- */

static void bench_write(uint32_t len, unsigned have)
{
	static const struct pw_iface ifs[] = {{"eth0", PKT_LINKTYPE_ETHERNET, 0}};
	/* "-" on /dev/null: a named device is refused (not a regular file). */
	struct pw_config cfg = {.path = "-", .format = PW_PCAPNG};
	static uint8_t data[MAX_DATA];
	char err[256];
	int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC), saved = dup(STDOUT_FILENO);

	fflush(stdout);
	CHECK(null_fd != -1 && saved != -1 && dup2(null_fd, STDOUT_FILENO) != -1);
	struct pw_writer *w = pw_open(&cfg, ifs, 1, err, sizeof(err));
	struct pkt p = {
	    .data = data, .caplen = len, .wirelen = len, .have = have, .queue = 1, .epb_flags = 1};
	struct timespec a, b;
	const unsigned n = 2000000;
	int bad = 0;
	double ns;

	if (w == NULL) {
		dup2(saved, STDOUT_FILENO);
		CHECK(w != NULL);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned i = 0; i < n; i++) {
		p.ts_ns = T0_NS + i;
		bad |= pw_write(w, 0, &p);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	int closed = pw_close(w);

	pw_free(w);
	CHECK(dup2(saved, STDOUT_FILENO) != -1);
	close(saved);
	close(null_fd);
	CHECK_EQ_U(bad, 0);
	CHECK_EQ_U(closed, 0);
	ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / n;
	printf("  pw_write %4u B%s to /dev/null: %.1f ns/packet\n", len,
	       have ? " +queue+flags" : "", ns);
}

static void rm_tree(const char *dir)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	have_tshark = system("command -v tshark >/dev/null 2>&1") == 0;
	if (!have_tshark)
		printf("  tshark not installed: tshark checks skipped\n");

	test_open_errors();
	test_safe_files();
	test_pcapng();
	test_mixed_linktypes();
	test_pcap();
	test_rotate_size();
	test_rotate_time();
	test_rotate_count();
	test_rotate_empty();
	test_stdout_pipe();
	test_stdout_tshark();
	test_fsize_limit();
	test_disk_full();
	bench_write(64, 0);
	bench_write(64, PKT_HAVE_QUEUE | PKT_HAVE_FLAGS);
	bench_write(1500, PKT_HAVE_QUEUE | PKT_HAVE_FLAGS);

	if (getenv("TEST_KEEP") == NULL)
		rm_tree(tmpdir);
	else
		printf("  files kept in %s\n", tmpdir);
	return unit_done("pcapwriter");
}
