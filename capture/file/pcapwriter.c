/* pcapwriter.c - buffered pcapng/pcap writer with a size/time/count file ring. */
#include "capture/file/pcapwriter.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/*
 * Output goes through one large buffer that only ever holds whole records
 * (a pcapng block, a pcap record, or the file header as one unit), written
 * with write(2) when full, on pw_flush() and when a file finishes. Because
 * the buffer starts on a record boundary, a short write can be mapped back
 * to the last complete record by walking the record lengths in the buffer;
 * the file is truncated there, so a disk-full file always ends cleanly.
 *
 *   file:   [SHB][IDB 0]..[IDB n-1][EPB][EPB]...[EPB][ISB 0]..[ISB n-1]
 *            `-- header unit --'                      `-- at finish --'
 *
 * The pcapng section length is -1 (unknown), so blocks can be appended after
 * a truncation (the ISBs) without rewriting the SHB.
 */

#define PW_BUF_SIZE	(1u << 20)
#define PW_MAX_SNAPLEN	(256u * 1024u) /* libpcap's MAXIMUM_SNAPLEN */
#define PW_MAX_IFACES	4096u
#define PW_MAX_STRING	1024u		     /* longest if_name/comment kept (strndup) */
#define PW_MAX_FILES	(1u << 20)	     /* -W cap: 16 bytes of ring state each */
#define PW_EPB_MAX_OPTS (8u + 12u + 8u + 4u) /* flags, dropcount, queue, end */
#define PW_ISB_MAX	(20u + 5u * 12u + 4u + 4u)

/* pcapng block types and option codes (pcapng spec, draft-ietf-opsawg-pcapng). */
#define NG_SHB		  0x0A0D0D0Au
#define NG_IDB		  0x00000001u
#define NG_ISB		  0x00000005u
#define NG_EPB		  0x00000006u
#define NG_BOM		  0x1A2B3C4Du
#define NG_OPT_END	  0
#define NG_OPT_COMMENT	  1
#define NG_SHB_OS	  3
#define NG_SHB_USERAPPL	  4
#define NG_IF_NAME	  2
#define NG_IF_DESCRIPTION 3
#define NG_IF_TSRESOL	  9
#define NG_EPB_FLAGS	  2
#define NG_EPB_DROPCOUNT  4
#define NG_EPB_QUEUE	  6
#define NG_ISB_STARTTIME  2
#define NG_ISB_ENDTIME	  3
#define NG_ISB_IFRECV	  4
#define NG_ISB_IFDROP	  5
#define NG_ISB_OSDROP	  7

#define PCAP_MAGIC_NS 0xA1B23C4Du
#define PCAP_HDR_LEN  24u
#define PCAP_REC_LEN  16u
#define NS_PER_SEC    1000000000LL

struct pw_ifslot {
	char *name;
	char *desc; /* "eth0 queue 3" for a per-queue IDB, else NULL */
	uint32_t linktype;
};

/* A finished or current file of the ring, enough to rebuild its name. */
struct pw_ringslot {
	uint32_t seq;
	int64_t start_sec;
};

struct pw_writer {
	enum pw_format format;
	uint32_t snaplen;
	uint64_t rotate_bytes;
	int64_t rotate_ns;
	uint32_t max_files;
	bool ring;	/* rotate_bytes or rotate_ns set: names carry seq + time */
	bool is_stdout; /* "-": no truncation, never closed */
	char *path;
	char *comment;
	char os[160];

	struct pw_ifslot *ifs;
	unsigned nifaces;
	pw_stats_fn *stats_fn;
	void *stats_ctx;

	/* Current file. */
	int fd; /* -1 when none is open (ring mode before its first packet) */
	bool regular;
	char *fname, *scratch; /* current name, and room to build another one */
	size_t fname_cap;
	uint64_t file_off;  /* bytes of complete records already in the file */
	size_t hdr_len;	    /* size of the header unit (SHB+IDBs or pcap header) */
	uint64_t file_pkts; /* packets buffered or written into this file */
	int64_t file_start_ns, file_min_ns, file_max_ns;
	size_t isb_len; /* worst-case bytes of the ISBs that finish a file */

	uint8_t *buf;
	size_t len;

	uint32_t seq;
	struct pw_ringslot *slots; /* max_files entries, used as a FIFO */
	uint32_t slot_head, slot_count;

	int err;     /* sticky errno after a failed write: the output is done */
	bool closed; /* pw_close() ran */
	struct pw_counters ctr;
	char errbuf[256];
};

/* --- little-endian stores (compile to plain moves on x86) ------------------ */

static inline void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void put64(uint8_t *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b + 4, (uint32_t)(v >> 32));
}

static inline uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static void pw_seterr(struct pw_writer *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void pw_seterr(struct pw_writer *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->errbuf, sizeof(w->errbuf), fmt, ap);
	va_end(ap);
}

static const char *pw_shown_name(const struct pw_writer *w)
{
	return w->is_stdout ? "stdout" : w->fname;
}

/* --- option and block builders ---------------------------------------------- */

/* Append one option (code, length, value, zero padding); returns the new end. */
static uint8_t *opt_put(uint8_t *o, uint16_t code, const void *val, size_t len)
{
	size_t padded = pad4(len);

	put16(o, code);
	put16(o + 2, (uint16_t)len);
	if (len > 0)
		memcpy(o + 4, val, len);
	memset(o + 4 + len, 0, padded - len);
	return o + 4 + padded;
}

static uint8_t *opt_u64(uint8_t *o, uint16_t code, uint64_t v)
{
	put16(o, code);
	put16(o + 2, 8);
	put64(o + 4, v);
	return o + 12;
}

/* isb_starttime/isb_endtime: the EPB timestamp layout, high word first. */
static uint8_t *opt_ts(uint8_t *o, uint16_t code, uint64_t ts)
{
	put16(o, code);
	put16(o + 2, 8);
	put32(o + 4, (uint32_t)(ts >> 32));
	put32(o + 8, (uint32_t)ts);
	return o + 12;
}

static size_t str_opt_len(const char *s)
{
	return s ? 4 + pad4(strlen(s)) : 0;
}

static uint8_t *opt_str(uint8_t *o, uint16_t code, const char *s)
{
	return s ? opt_put(o, code, s, strlen(s)) : o;
}

/* Close a block that starts at b and whose options end at o. */
static size_t block_end(uint8_t *b, uint8_t *o, uint32_t type)
{
	uint32_t total = (uint32_t)(o - b) + 4;

	put32(b, type);
	put32(b + 4, total);
	put32(o, total);
	return total;
}

static size_t shb_size(const struct pw_writer *w)
{
	return 24 + str_opt_len(w->comment) + str_opt_len(w->os) + str_opt_len("tcpsift") + 4 + 4;
}

static size_t idb_size(const struct pw_ifslot *s)
{
	return 16 + str_opt_len(s->name) + str_opt_len(s->desc) + 8 + 4 + 4;
}

static size_t hdr_size(const struct pw_writer *w)
{
	size_t n;

	if (w->format == PW_PCAP)
		return PCAP_HDR_LEN;
	n = shb_size(w);
	for (unsigned i = 0; i < w->nifaces; i++)
		n += idb_size(&w->ifs[i]);
	return n;
}

/* SHB + one IDB per interface, or the pcap file header, at b. */
static size_t hdr_put(const struct pw_writer *w, uint8_t *b)
{
	uint8_t *o, *start = b;

	if (w->format == PW_PCAP) {
		put32(b, PCAP_MAGIC_NS);
		put16(b + 4, 2);
		put16(b + 6, 4);
		put32(b + 8, 0);  /* thiszone */
		put32(b + 12, 0); /* sigfigs */
		put32(b + 16, w->snaplen);
		put32(b + 20, w->ifs[0].linktype);
		return PCAP_HDR_LEN;
	}
	put32(b + 8, NG_BOM);
	put16(b + 12, 1);
	put16(b + 14, 0);
	put64(b + 16, UINT64_MAX); /* section length unknown: lets us append after truncation */
	o = opt_str(b + 24, NG_OPT_COMMENT, w->comment);
	o = opt_str(o, NG_SHB_OS, w->os);
	o = opt_str(o, NG_SHB_USERAPPL, "tcpsift");
	o = opt_put(o, NG_OPT_END, NULL, 0);
	b += block_end(b, o, NG_SHB);

	for (unsigned i = 0; i < w->nifaces; i++) {
		const struct pw_ifslot *s = &w->ifs[i];
		uint8_t tsresol = 9; /* 10^-9 s: EPB timestamps are plain ns */

		put16(b + 8, (uint16_t)s->linktype);
		put16(b + 10, 0);
		put32(b + 12, w->snaplen);
		o = opt_str(b + 16, NG_IF_NAME, s->name);
		o = opt_str(o, NG_IF_DESCRIPTION, s->desc);
		o = opt_put(o, NG_IF_TSRESOL, &tsresol, 1);
		o = opt_put(o, NG_OPT_END, NULL, 0);
		b += block_end(b, o, NG_IDB);
	}
	return (size_t)(b - start);
}

/* --- output ----------------------------------------------------------------- */

/*
 * Map a write that stopped after `done` bytes of the buffer to the last
 * complete record: returns that record boundary and counts the packets in
 * the records that did not make it whole.
 */
static size_t pw_last_record(const struct pw_writer *w, size_t done, uint64_t *lost)
{
	size_t off = 0, good = 0;

	*lost = 0;
	if (w->file_off == 0 && w->len >= w->hdr_len) {
		/* The header unit is all or nothing: a file without all its
		 * IDBs could not describe the packets after it. */
		off = w->hdr_len;
		if (off <= done)
			good = off;
	}
	while (off < w->len) {
		size_t rec;
		bool pkt;

		if (w->format == PW_PCAP) {
			rec = PCAP_REC_LEN + get32(w->buf + off + 8);
			pkt = true;
		} else {
			rec = get32(w->buf + off + 4);
			pkt = get32(w->buf + off) == NG_EPB;
		}
		if (off + rec <= done)
			good = off + rec;
		else if (pkt)
			(*lost)++;
		off += rec;
	}
	return good;
}

/* A write failed after `done` bytes: cut the file back to a record boundary,
 * count what was lost and make the error sticky. */
static int pw_write_failed(struct pw_writer *w, size_t done, int err)
{
	uint64_t lost;
	size_t good = pw_last_record(w, done, &lost);
	char cut[96] = "";

	if (w->regular && good != done) {
		off_t end = (off_t)(w->file_off + good);

		if (ftruncate(w->fd, end) == -1 || lseek(w->fd, end, SEEK_SET) == -1)
			snprintf(cut, sizeof(cut), " (truncating to %lld: %s)", (long long)end,
				 strerror(errno));
	}
	w->file_off += good;
	w->ctr.bytes += good;
	w->ctr.packets -= lost;
	w->ctr.lost += lost;
	w->len = 0;
	if (w->err == 0) {
		w->err = err;
		pw_seterr(w, "write %s: %s%s", pw_shown_name(w), strerror(err), cut);
	}
	return -err;
}

/* Write the whole buffer. On a pipe, wait for room rather than spin. */
static int pw_drain(struct pw_writer *w)
{
	size_t done = 0;

	while (done < w->len) {
		ssize_t n = write(w->fd, w->buf + done, w->len - done);

		if (n > 0) {
			done += (size_t)n;
		} else if (n == -1 && errno == EINTR) {
			continue;
		} else if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = {.fd = w->fd, .events = POLLOUT};

			if (poll(&pfd, 1, -1) == -1 && errno != EINTR)
				return pw_write_failed(w, done, errno);
		} else {
			return pw_write_failed(w, done, n == 0 ? EIO : errno);
		}
	}
	w->file_off += w->len;
	w->ctr.bytes += w->len;
	w->len = 0;
	return 0;
}

/* Make room for n more bytes of whole records. */
static inline int pw_reserve(struct pw_writer *w, size_t n)
{
	if (w->len + n <= PW_BUF_SIZE)
		return 0;
	return pw_drain(w);
}

/* --- file ring -------------------------------------------------------------- */

/* PATH with "_SEQ_YYYYmmddHHMMSS" before the extension of its last component. */
static void ring_name(const struct pw_writer *w, char *out, uint32_t seq, int64_t sec)
{
	const char *base = strrchr(w->path, '/');
	const char *dot;
	size_t stem;
	struct tm tm;
	time_t t = (time_t)sec;
	char when[32];

	base = base ? base + 1 : w->path;
	dot = strrchr(base, '.');
	if (dot == NULL || dot == base) /* no extension, or a dot file */
		dot = w->path + strlen(w->path);
	stem = (size_t)(dot - w->path);
	if (gmtime_r(&t, &tm) == NULL || strftime(when, sizeof(when), "%Y%m%d%H%M%S", &tm) == 0)
		snprintf(when, sizeof(when), "%lld", (long long)sec);
	snprintf(out, w->fname_cap, "%.*s_%05u_%s%s", (int)stem, w->path, seq, when, dot);
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

/* Remember the file about to open; beyond -W files, remove the oldest. */
static void ring_push(struct pw_writer *w, int64_t sec)
{
	struct pw_ringslot *s;

	if (w->max_files == 0)
		return;
	if (w->slot_count == w->max_files) {
		s = &w->slots[w->slot_head];
		ring_name(w, w->scratch, s->seq, s->start_sec);
		/* Best effort: a file the user already removed is fine. */
		(void)unlink(w->scratch);
		w->slot_head = (w->slot_head + 1) % w->max_files;
		w->slot_count--;
	}
	s = &w->slots[(w->slot_head + w->slot_count) % w->max_files];
	s->seq = w->seq;
	s->start_sec = sec;
	w->slot_count++;
}

/* Open the next file (ring mode: named after start_ns) and buffer its header. */
static int pw_open_file(struct pw_writer *w, int64_t start_ns)
{
	int fd;
	struct stat st;

	if (w->is_stdout) {
		fd = STDOUT_FILENO;
	} else {
		if (w->ring) {
			int64_t sec = floor_div(start_ns, NS_PER_SEC);

			w->seq++;
			ring_push(w, sec);
			ring_name(w, w->fname, w->seq, sec);
		}
		fd = open(w->fname, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd == -1) {
			w->err = errno;
			pw_seterr(w, "open %s: %s", w->fname, strerror(errno));
			return -w->err;
		}
	}
	w->fd = fd;
	w->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	w->file_off = 0;
	w->file_pkts = 0;
	w->file_start_ns = start_ns;
	w->file_min_ns = INT64_MAX;
	w->file_max_ns = INT64_MIN;
	w->len = hdr_put(w, w->buf);
	return 0;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* ISB for interface i at b: the file's packet time span and the caller's
 * cumulative counters (pcapng: "starting from the beginning of the capture"). */
static size_t isb_put(struct pw_writer *w, uint8_t *b, unsigned i, uint64_t ts)
{
	struct pw_ifstats st = {0};
	uint8_t *o;

	if (w->stats_fn)
		w->stats_fn(w->stats_ctx, i, &st);
	put32(b + 8, i);
	put32(b + 12, (uint32_t)(ts >> 32));
	put32(b + 16, (uint32_t)ts);
	o = b + 20;
	if (w->file_pkts > 0) {
		o = opt_ts(o, NG_ISB_STARTTIME, (uint64_t)w->file_min_ns);
		o = opt_ts(o, NG_ISB_ENDTIME, (uint64_t)w->file_max_ns);
	}
	if (st.have_ifrecv)
		o = opt_u64(o, NG_ISB_IFRECV, st.ifrecv);
	if (st.have_ifdrop)
		o = opt_u64(o, NG_ISB_IFDROP, st.ifdrop);
	if (st.have_osdrop)
		o = opt_u64(o, NG_ISB_OSDROP, st.osdrop);
	o = opt_put(o, NG_OPT_END, NULL, 0);
	return block_end(b, o, NG_ISB);
}

/*
 * Finish the current file: ISBs (pcapng), flush, close. After a failed
 * write the ISBs are still tried, so a disk-full file gets them when they
 * fit; a failure then only truncates again to a record boundary.
 */
static int pw_finish_file(struct pw_writer *w)
{
	int rc = 0;

	if (w->fd == -1)
		return 0;
	if (w->err)
		w->len = 0; /* the failed write already dropped what was buffered */
	if (w->format == PW_PCAPNG && (w->err == 0 || (w->regular && w->file_off >= w->hdr_len))) {
		uint64_t ts = (uint64_t)now_ns();

		for (unsigned i = 0; i < w->nifaces; i++) {
			rc = pw_reserve(w, PW_ISB_MAX);
			if (rc < 0)
				break;
			w->len += isb_put(w, w->buf + w->len, i, ts);
		}
	}
	if (w->len > 0) {
		int keep = w->err;

		rc = pw_drain(w);
		if (keep)
			rc = -keep;
	}
	if (!w->is_stdout && close(w->fd) == -1 && rc == 0) {
		rc = -errno;
		w->err = errno;
		pw_seterr(w, "close %s: %s", w->fname, strerror(errno));
	}
	w->fd = -1;
	w->ctr.files++;
	return w->err ? -w->err : rc;
}

static int pw_rotate(struct pw_writer *w, int64_t start_ns)
{
	int rc = pw_finish_file(w);

	if (rc < 0)
		return rc;
	return pw_open_file(w, start_ns);
}

/* --- public API ------------------------------------------------------------- */

static char *dup_str(const char *s)
{
	return s ? strndup(s, PW_MAX_STRING) : NULL;
}

struct pw_writer *pw_open(const struct pw_config *cfg, const struct pw_iface *ifaces,
			  unsigned nifaces, char *errbuf, size_t errlen)
{
	struct pw_writer *w = NULL;
	struct utsname u;

	if (cfg == NULL || cfg->path == NULL || cfg->path[0] == '\0') {
		snprintf(errbuf, errlen, "no output file given");
		return NULL;
	}
	if ((unsigned)cfg->format >= PW_FORMAT_COUNT) {
		snprintf(errbuf, errlen, "unknown output format %d", (int)cfg->format);
		return NULL;
	}
	if (ifaces == NULL || nifaces == 0 || nifaces > PW_MAX_IFACES) {
		snprintf(errbuf, errlen, "%u capture interfaces: need 1 to %u", nifaces,
			 PW_MAX_IFACES);
		return NULL;
	}
	if (cfg->snaplen > PW_MAX_SNAPLEN) {
		snprintf(errbuf, errlen, "snaplen %u is larger than %u", cfg->snaplen,
			 PW_MAX_SNAPLEN);
		return NULL;
	}
	if (cfg->rotate_ns < 0) {
		snprintf(errbuf, errlen, "negative rotation time");
		return NULL;
	}
	if (cfg->max_files > PW_MAX_FILES) {
		snprintf(errbuf, errlen, "at most %u files in a ring", PW_MAX_FILES);
		return NULL;
	}
	for (unsigned i = 0; i < nifaces; i++) {
		if (cfg->format == PW_PCAPNG && ifaces[i].linktype > UINT16_MAX) {
			snprintf(errbuf, errlen, "interface %u: link type %u does not fit pcapng",
				 i, ifaces[i].linktype);
			return NULL;
		}
		/* Classic pcap has one link type for the whole file (its header). */
		if (cfg->format == PW_PCAP && ifaces[i].linktype != ifaces[0].linktype) {
			snprintf(errbuf, errlen,
				 "classic pcap holds one link type, but %s is %u and %s is %u: "
				 "use pcapng",
				 ifaces[0].name ? ifaces[0].name : "interface 0",
				 ifaces[0].linktype, ifaces[i].name ? ifaces[i].name : "another",
				 ifaces[i].linktype);
			return NULL;
		}
	}

	w = calloc(1, sizeof(*w));
	if (w == NULL)
		goto nomem;
	w->fd = -1;
	w->format = cfg->format;
	w->snaplen = cfg->snaplen ? cfg->snaplen : PW_MAX_SNAPLEN;
	w->rotate_bytes = cfg->rotate_bytes;
	w->rotate_ns = cfg->rotate_ns;
	w->max_files = cfg->max_files;
	w->ring = cfg->rotate_bytes > 0 || cfg->rotate_ns > 0;
	w->is_stdout = strcmp(cfg->path, "-") == 0;
	if (w->is_stdout && w->ring) {
		snprintf(errbuf, errlen, "cannot rotate files when writing to stdout");
		goto err;
	}
	w->path = strdup(cfg->path);
	w->comment = dup_str(cfg->comment);
	if (w->path == NULL || (cfg->comment && w->comment == NULL))
		goto nomem;
	if (uname(&u) == 0)
		snprintf(w->os, sizeof(w->os), "%s %s", u.sysname, u.release);
	w->fname_cap = strlen(cfg->path) + 64;
	w->fname = malloc(w->fname_cap);
	w->scratch = malloc(w->fname_cap);
	w->buf = malloc(PW_BUF_SIZE);
	w->ifs = calloc(nifaces, sizeof(*w->ifs));
	if (w->fname == NULL || w->scratch == NULL || w->buf == NULL || w->ifs == NULL)
		goto nomem;
	if (w->max_files && w->ring) {
		w->slots = calloc(w->max_files, sizeof(*w->slots));
		if (w->slots == NULL)
			goto nomem;
	}
	snprintf(w->fname, w->fname_cap, "%s", cfg->path);
	w->nifaces = nifaces;
	for (unsigned i = 0; i < nifaces; i++) {
		struct pw_ifslot *s = &w->ifs[i];

		s->linktype = ifaces[i].linktype;
		s->name = dup_str(ifaces[i].name);
		if (ifaces[i].name && s->name == NULL)
			goto nomem;
		if (ifaces[i].queue >= 0) {
			char d[PW_MAX_STRING + 32];

			snprintf(d, sizeof(d), "%s queue %d", s->name ? s->name : "",
				 ifaces[i].queue);
			s->desc = strdup(d);
			if (s->desc == NULL)
				goto nomem;
		}
	}
	w->hdr_len = hdr_size(w);
	w->isb_len = w->format == PW_PCAPNG ? (size_t)nifaces * PW_ISB_MAX : 0;
	if (w->hdr_len > PW_BUF_SIZE) {
		snprintf(errbuf, errlen, "file header of %zu bytes does not fit the buffer",
			 w->hdr_len);
		goto err;
	}

	if (w->ring) {
		/* The first name needs the first packet's time: open it then,
		 * but say now if the directory cannot take files. */
		const char *slash = strrchr(w->path, '/');
		char dir[4096];

		if (slash == NULL)
			snprintf(dir, sizeof(dir), ".");
		else
			snprintf(dir, sizeof(dir), "%.*s",
				 (int)(slash == w->path ? 1 : slash - w->path), w->path);
		if (access(dir, W_OK | X_OK) == -1) {
			snprintf(errbuf, errlen, "%s: %s", dir, strerror(errno));
			goto err;
		}
	} else if (pw_open_file(w, 0) < 0) {
		snprintf(errbuf, errlen, "%s", w->errbuf);
		goto err;
	}
	return w;

nomem:
	snprintf(errbuf, errlen, "out of memory");
err:
	if (w) {
		w->closed = true; /* nothing to finish: pw_free only releases */
		if (w->fd != -1 && !w->is_stdout)
			close(w->fd);
		w->fd = -1;
	}
	pw_free(w);
	return NULL;
}

int pw_write(struct pw_writer *w, unsigned iface, const struct pkt *p)
{
	uint32_t caplen = p->caplen, wirelen = p->wirelen;
	size_t rec;
	uint8_t *b, *o;
	int rc;

	if (w->err) {
		w->ctr.lost++;
		return -w->err;
	}
	if (w->closed) {
		pw_seterr(w, "write after close");
		return -EINVAL;
	}
	if (iface >= w->nifaces) {
		pw_seterr(w, "no interface %u", iface);
		return -EINVAL;
	}
	/* Never write a record a reader would reject: caplen <= snaplen <= wirelen. */
	if (caplen > w->snaplen)
		caplen = w->snaplen;
	if (wirelen < caplen)
		wirelen = caplen;
	if (w->format == PW_PCAP)
		rec = PCAP_REC_LEN + caplen;
	else
		rec = 28 + pad4(caplen) + 4 +
		      (p->have & (PKT_HAVE_QUEUE | PKT_HAVE_FLAGS | PKT_HAVE_DROPCOUNT)
			   ? PW_EPB_MAX_OPTS
			   : 0);

	if (w->fd == -1) {
		rc = pw_open_file(w, p->ts_ns);
		if (rc < 0)
			goto lost;
	} else if (w->ring && w->file_pkts > 0 &&
		   ((w->rotate_ns > 0 && p->ts_ns - w->file_start_ns >= w->rotate_ns) ||
		    (w->rotate_bytes > 0 &&
		     w->file_off + w->len + rec + w->isb_len > w->rotate_bytes))) {
		rc = pw_rotate(w, p->ts_ns);
		if (rc < 0)
			goto lost;
	}
	rc = pw_reserve(w, rec);
	if (rc < 0)
		goto lost;

	b = w->buf + w->len;
	if (w->format == PW_PCAP) {
		int64_t sec = floor_div(p->ts_ns, NS_PER_SEC);

		put32(b, (uint32_t)sec);
		put32(b + 4, (uint32_t)(p->ts_ns - sec * NS_PER_SEC));
		put32(b + 8, caplen);
		put32(b + 12, wirelen);
		if (caplen > 0) /* data may be NULL for an empty packet */
			memcpy(b + 16, p->data, caplen);
		o = b + 16 + caplen;
	} else {
		uint64_t ts = (uint64_t)p->ts_ns;
		size_t padded = pad4(caplen);

		put32(b + 8, iface);
		put32(b + 12, (uint32_t)(ts >> 32));
		put32(b + 16, (uint32_t)ts);
		put32(b + 20, caplen);
		put32(b + 24, wirelen);
		if (caplen > 0)
			memcpy(b + 28, p->data, caplen);
		memset(b + 28 + caplen, 0, padded - caplen);
		o = b + 28 + padded;
		if (p->have & (PKT_HAVE_QUEUE | PKT_HAVE_FLAGS | PKT_HAVE_DROPCOUNT)) {
			if (p->have & PKT_HAVE_FLAGS) {
				put32(o, NG_EPB_FLAGS | 4u << 16);
				put32(o + 4, p->epb_flags);
				o += 8;
			}
			if (p->have & PKT_HAVE_DROPCOUNT)
				o = opt_u64(o, NG_EPB_DROPCOUNT, p->dropcount);
			if (p->have & PKT_HAVE_QUEUE) {
				put32(o, NG_EPB_QUEUE | 4u << 16);
				put32(o + 4, p->queue);
				o += 8;
			}
			put32(o, 0); /* opt_endofopt */
			o += 4;
		}
		block_end(b, o, NG_EPB);
		o += 4;
	}
	w->len += (size_t)(o - b);
	if (w->file_pkts++ == 0)
		w->file_start_ns = p->ts_ns;
	if (p->ts_ns < w->file_min_ns)
		w->file_min_ns = p->ts_ns;
	if (p->ts_ns > w->file_max_ns)
		w->file_max_ns = p->ts_ns;
	w->ctr.packets++;
	return 0;

lost:
	w->ctr.lost++;
	return rc;
}

void pw_set_stats_source(struct pw_writer *w, pw_stats_fn *fn, void *ctx)
{
	w->stats_fn = fn;
	w->stats_ctx = ctx;
}

int pw_flush(struct pw_writer *w)
{
	if (w->err)
		return -w->err;
	if (w->fd == -1 || w->len == 0)
		return 0;
	return pw_drain(w);
}

int pw_close(struct pw_writer *w)
{
	int rc;

	if (w->closed)
		return w->err ? -w->err : 0;
	w->closed = true;
	/* A ring that never saw a packet still leaves one valid (empty) file. */
	if (w->fd == -1 && w->err == 0 && pw_open_file(w, now_ns()) < 0)
		return -w->err;
	rc = pw_finish_file(w);
	return w->err ? -w->err : rc;
}

const char *pw_error(const struct pw_writer *w)
{
	return w->errbuf;
}

const struct pw_counters *pw_counters(const struct pw_writer *w)
{
	return &w->ctr;
}

const char *pw_path(const struct pw_writer *w)
{
	return w->fname;
}

void pw_free(struct pw_writer *w)
{
	if (w == NULL)
		return;
	if (!w->closed)
		(void)pw_close(w);
	for (unsigned i = 0; w->ifs && i < w->nifaces; i++) {
		free(w->ifs[i].name);
		free(w->ifs[i].desc);
	}
	free(w->ifs);
	free(w->slots);
	free(w->buf);
	free(w->scratch);
	free(w->fname);
	free(w->comment);
	free(w->path);
	free(w);
}
