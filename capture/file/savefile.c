/* savefile.c - zero-copy pcap/pcapng reader: one large read buffer, records handed out in place. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* tee(2), pipe2(2) */
#endif
#include "capture/file/savefile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <wandio.h>

/*
 * Buffer discipline
 *
 *   buf                pos                  end                 cap
 *    |  consumed ...    |  unread bytes ...  |  free space ...   |
 *    ^ stream offset buf_off
 *
 * A record is parsed and handed out only once all its bytes lie in
 * [pos, end). When they do not, the unread tail is moved to the front and
 * the free space is filled with as few large reads as the source allows, so
 * a buffer of SF_BUF_INIT bytes costs one syscall per ~1 MiB of input and
 * the per-packet path never leaves user space. The buffer grows only when a
 * single record is larger than it, up to the per-block maxima below.
 *
 * Everything read from the file goes through rd16/rd32/rd64 at offsets that
 * were checked against a length first; nothing is cast onto structs.
 */

#define SF_BUF_INIT  (1u << 20)
#define SF_BUF_SMALL 4096u /* floor for small regular files (fuzzing, tests) */

/* pcapng limits. libpcap: INITIAL_MAX_BLOCKSIZE, BT_SHB_INSANE_MAX and
 * MAX_BLOCKSIZE_FOR_SNAPLEN (header + EPB fields + data + 128 KiB options). */
#define NG_MAX_BLOCK	 (16u << 20)
#define NG_MAX_FIRST_SHB (1u << 20)
#define NG_MAX_PKT_BLOCK (8u + 20u + SF_MAX_RECORD + 131072u + 4u)
#define SF_MAX_IFACES	 65536u

/* pcapng block types and fixed sizes (header 8 + body + trailer 4). */
#define NG_SHB	   0x0A0D0D0Au
#define NG_IDB	   0x00000001u
#define NG_PB	   0x00000002u
#define NG_SPB	   0x00000003u
#define NG_ISB	   0x00000005u
#define NG_EPB	   0x00000006u
#define NG_BOM	   0x1A2B3C4Du
#define NG_SHB_MIN 28u
#define NG_IDB_MIN 20u
#define NG_EPB_MIN 32u /* same for the obsolete PB */
#define NG_SPB_MIN 16u
#define NG_ISB_MIN 24u

/* Option codes (pcapng spec: IDB if_*, EPB epb_* / PB pack_*, ISB isb_*). */
#define NG_OPT_END	 0
#define NG_IF_NAME	 2
#define NG_IF_TSRESOL	 9
#define NG_IF_TSOFFSET	 14
#define NG_EPB_FLAGS	 2
#define NG_EPB_DROPCOUNT 4
#define NG_EPB_QUEUE	 6
#define NG_ISB_IFRECV	 4
#define NG_ISB_IFDROP	 5
#define NG_ISB_OSDROP	 7

/* Classic pcap magics as the first four bytes read big-endian. */
#define PCAP_MAGIC_US  0xA1B2C3D4u
#define PCAP_MAGIC_NS  0xA1B23C4Du
#define PCAP_MAGIC_KUZ 0xA1B2CD34u /* Kuznetzov's patched libpcap: 24-byte records */
#define PCAP_HDR_LEN   24u

/* Link-type field of the pcap file header (draft-ietf-opsawg-pcap): low 16
 * bits the LINKTYPE, bits 16-25 reserved (libpcap master rejects them
 * non-zero), bit 26 "FCS length present", bits 28-31 the FCS length. */
#define PCAP_LT_TYPE(x)	    ((x)&0x0000FFFFu)
#define PCAP_LT_RESERVED(x) ((x)&0x03FF0000u)

/* libpcap's MAXIMUM_SNAPLEN, used when a file's snaplen is 0 or > INT_MAX. */
#define SF_DEFAULT_SNAP 262144u

#define NS_PER_S 1000000000u

enum sf_zip {
	SF_ZIP_NONE = 0,
	SF_ZIP_GZIP,
	SF_ZIP_BZIP2,
	SF_ZIP_XZ,
	SF_ZIP_LZO,
	SF_ZIP_COUNT,
};

static const char *const sf_zip_names[SF_ZIP_COUNT] = {"none", "gzip", "bzip2", "xz", "lzo"};

/* How a classic pcap file orders caplen and len (libpcap's lengths_swapped). */
enum sf_lenorder {
	SF_LEN_NORMAL = 0,
	SF_LEN_SWAPPED, /* versions < 2.3 and DG/UX 543.0 */
	SF_LEN_MAYBE,	/* 2.3: swapped only where caplen > len */
	SF_LEN_COUNT,
};

/* Public interface data plus what timestamps and caplen checks need. */
struct sf_ifslot {
	struct sf_iface pub;
	uint64_t ts_mult; /* ns per tick for 10^-0..10^-9 resolutions, else 0 */
	uint64_t tsresol; /* ticks per second */
	uint64_t off_ns;  /* if_tsoffset in ns, modulo 2^64 as libpcap's arithmetic is */
	uint32_t snap;	  /* snaplen as libpcap adjusts it (0 or > INT_MAX: the default) */
	uint8_t ts_shift; /* tsresol == 2^ts_shift when ts_binary */
	uint8_t ts_binary;
};

struct sf_reader {
	/* Hot: touched for every packet. */
	uint8_t *buf;
	size_t pos, end, cap;
	uint64_t buf_off; /* stream offset of buf[0] */
	enum sf_format format;
	int big; /* current section (or file) is big-endian */
	int err; /* sticky: once a read failed, it keeps failing the same way */
	uint64_t frame;
	/* classic pcap */
	uint32_t rec_len; /* 16, or 24 for the Kuznetzov variant */
	uint32_t pcap_snap;
	uint32_t ts_mult; /* 1000 for us files, 1 for ns */
	enum sf_lenorder len_order;
	/* pcapng; classic pcap uses slot 0 */
	struct sf_ifslot *ifs;
	unsigned n_ifs, cap_ifs;
	unsigned sect_base, sect_count; /* this section's IDBs are ifs[base .. base+count) */
	uint64_t bad_options;
	/* input */
	int fd;
	int own_fd;
	io_t *wio;
	enum sf_zip zip;
	int eof;
	uint64_t size;
	char msg[256];
};

/* --- bounded little/big-endian loads ------------------------------------ */

static inline uint16_t rd16(const uint8_t *p, int big)
{
	return big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t rd32(const uint8_t *p, int big)
{
	if (big)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint64_t rd64(const uint8_t *p, int big)
{
	if (big)
		return (uint64_t)rd32(p, 1) << 32 | rd32(p + 4, 1);
	return (uint64_t)rd32(p + 4, 0) << 32 | rd32(p, 0);
}

static inline uint32_t pad4(uint32_t n)
{
	return (n + 3u) & ~3u;
}

/* --- errors ---------------------------------------------------------------- */

static int sf_fail(struct sf_reader *r, int code, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define SF_NO_OFFSET UINT64_MAX /* errors about the file itself, not a place in it */

/* Record the first error as "offset N: reason" and make it sticky. */
static int sf_fail(struct sf_reader *r, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->err)
		return r->err;
	n = off == SF_NO_OFFSET ? 0 : snprintf(r->msg, sizeof(r->msg), "offset %" PRIu64 ": ", off);
	if (n < 0 || (size_t)n >= sizeof(r->msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(r->msg + n, sizeof(r->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	r->err = code;
	return code;
}

static inline uint64_t sf_pos(const struct sf_reader *r)
{
	return r->buf_off + r->pos;
}

/* --- buffer ---------------------------------------------------------------- */

static int sf_grow(struct sf_reader *r, size_t need)
{
	size_t cap = r->cap ? r->cap : SF_BUF_SMALL;
	uint8_t *nb;

	while (cap < need)
		cap *= 2;
	nb = realloc(r->buf, cap);
	if (nb == NULL)
		return sf_fail(r, SF_ERR_NOMEM, sf_pos(r), "out of memory for a %zu-byte record",
			       need);
	r->buf = nb;
	r->cap = cap;
	return 0;
}

/*
 * Slow half of sf_need(): compact, grow if one record is larger than the
 * buffer, then read until `need` bytes are unread. Returns 1 when they are,
 * 0 when the input ended first (the short tail stays readable), or a
 * negative enum sf_err. Moves data: pointers into buf are stale afterwards.
 */
static int sf_refill(struct sf_reader *r, size_t need)
{
	if (r->err)
		return r->err;
	if (need > r->cap && sf_grow(r, need) < 0)
		return r->err;
	if (r->pos > 0) {
		size_t left = r->end - r->pos;

		memmove(r->buf, r->buf + r->pos, left);
		r->buf_off += r->pos;
		r->end = left;
		r->pos = 0;
	}
	while (r->end < need) {
		ssize_t n;

		if (r->eof)
			return 0;
		if (r->wio != NULL) {
			off_t w = wandio_read(r->wio, r->buf + r->end, (off_t)(r->cap - r->end));

			/* libwandio drops what the failing read had decompressed
			 * (up to its ~1 MiB block), so a truncated compressed
			 * file loses that much before this error. */
			if (w < 0)
				return sf_fail(
				    r, SF_ERR_IO, r->buf_off + r->end,
				    "%s decompression failed (corrupt or truncated stream)",
				    sf_zip_names[r->zip]);
			n = (ssize_t)w;
		} else {
			n = read(r->fd, r->buf + r->end, r->cap - r->end);
			if (n == -1) {
				if (errno == EINTR)
					continue;
				return sf_fail(r, SF_ERR_IO, r->buf_off + r->end, "read: %s",
					       strerror(errno));
			}
		}
		if (n == 0) {
			r->eof = 1;
			return 0;
		}
		r->end += (size_t)n;
	}
	return 1;
}

static inline int sf_need(struct sf_reader *r, size_t need)
{
	if (r->end - r->pos >= need)
		return 1;
	return sf_refill(r, need);
}

/* --- interface table ----------------------------------------------------- */

static struct sf_ifslot *sf_add_iface(struct sf_reader *r, uint64_t off)
{
	struct sf_ifslot *s;

	if (r->n_ifs >= SF_MAX_IFACES) {
		sf_fail(r, SF_ERR_CORRUPT, off, "more than %u interfaces (damaged or fuzzed file?)",
			SF_MAX_IFACES);
		return NULL;
	}
	if (r->n_ifs == r->cap_ifs) {
		unsigned ncap = r->cap_ifs ? r->cap_ifs * 2 : 4;
		struct sf_ifslot *n = realloc(r->ifs, ncap * sizeof(*n));

		if (n == NULL) {
			sf_fail(r, SF_ERR_NOMEM, off, "out of memory for %u interfaces", ncap);
			return NULL;
		}
		r->ifs = n;
		r->cap_ifs = ncap;
	}
	s = &r->ifs[r->n_ifs];
	memset(s, 0, sizeof(*s));
	/* Default resolution 10^-6 (pcapng spec, if_tsresol absent). */
	s->tsresol = 1000000;
	s->ts_mult = 1000;
	return s;
}

/* libpcap's pcap_adjust_snapshot(): 0 or > INT_MAX means "no limit given". */
static uint32_t sf_adjust_snap(uint32_t snaplen)
{
	return (snaplen == 0 || snaplen > INT_MAX) ? SF_DEFAULT_SNAP : snaplen;
}

/* --- classic pcap ---------------------------------------------------------- */

/*
 * The record layout (16 bytes, or 24 with Kuznetzov's extra fields):
 *
 *   0 ts_sec   4 ts_frac (us or ns)   8 caplen   12 len   [16 ifindex, proto, type, pad]
 */
static int pcap_next_rec(struct sf_reader *r, struct pkt *p)
{
	const uint32_t hl = r->rec_len;
	const uint8_t *h;
	uint32_t caplen, len, take;
	int rc;

	rc = sf_need(r, hl);
	if (rc <= 0) {
		size_t have = r->end - r->pos;

		if (rc < 0)
			return rc;
		if (have == 0)
			return 0;
		return sf_fail(r, SF_ERR_TRUNCATED, sf_pos(r),
			       "file ends inside a record header (%zu of %" PRIu32 " bytes)", have,
			       hl);
	}
	h = r->buf + r->pos;
	caplen = rd32(h + 8, r->big);
	len = rd32(h + 12, r->big);
	if (r->len_order != SF_LEN_NORMAL && (r->len_order == SF_LEN_SWAPPED || caplen > len)) {
		uint32_t t = caplen;

		caplen = len;
		len = t;
	}
	if (caplen > SF_MAX_RECORD)
		return sf_fail(r, SF_ERR_CORRUPT, sf_pos(r),
			       "captured length %" PRIu32 " exceeds the %u-byte maximum "
			       "(damaged or fuzzed file?)",
			       caplen, SF_MAX_RECORD);
	if (r->end - r->pos < (size_t)hl + caplen) {
		rc = sf_need(r, (size_t)hl + caplen);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return sf_fail(r, SF_ERR_TRUNCATED, sf_pos(r),
				       "file ends inside a packet record (%zu of %zu bytes)",
				       r->end - r->pos, (size_t)hl + caplen);
		h = r->buf + r->pos;
	}
	/* libpcap hands out at most the file's snaplen and skips the rest
	 * (files from Solaris 2.3 bufmod, or fuzzed). */
	take = caplen > r->pcap_snap ? r->pcap_snap : caplen;
	p->ts_ns = (int64_t)((uint64_t)rd32(h, r->big) * NS_PER_S +
			     (uint64_t)rd32(h + 4, r->big) * r->ts_mult);
	p->data = h + hl;
	p->caplen = take;
	p->wirelen = len < take ? take : len; /* pkt.h promises wirelen >= caplen */
	p->linktype = r->ifs[0].pub.linktype;
	p->iface = 0;
	p->queue = 0;
	p->epb_flags = 0;
	p->dropcount = 0;
	p->have = 0;
	p->frame = ++r->frame;
	r->pos += (size_t)hl + caplen;
	return 1;
}

static int pcap_open_hdr(struct sf_reader *r, uint32_t magic_be)
{
	const uint8_t *h;
	uint32_t magic, snaplen, ltfield;
	unsigned major, minor;
	struct sf_ifslot *s;
	int rc;

	rc = sf_need(r, PCAP_HDR_LEN);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return sf_fail(r, SF_ERR_TRUNCATED, 0,
			       "truncated pcap file header (%zu of %u bytes)", r->end - r->pos,
			       PCAP_HDR_LEN);
	h = r->buf + r->pos;
	r->big = (magic_be >> 24) == 0xA1u;
	magic = rd32(h, r->big);
	major = rd16(h + 4, r->big);
	minor = rd16(h + 6, r->big);
	snaplen = rd32(h + 16, r->big);
	ltfield = rd32(h + 20, r->big);

	/* Versions as libpcap accepts them: 2.0-2.4 and DG/UX's 543.0. */
	if (major < 2)
		return sf_fail(r, SF_ERR_FORMAT, 4, "archaic pcap version %u.%u", major, minor);
	if (!((major == 2 && minor <= 4) || (major == 543 && minor == 0)))
		return sf_fail(r, SF_ERR_FORMAT, 4, "unsupported pcap version %u.%u", major, minor);
	if (PCAP_LT_RESERVED(ltfield) != 0)
		return sf_fail(r, SF_ERR_FORMAT, 20,
			       "savefile linktype reserved field not zero (0x%08" PRIx32 ")",
			       PCAP_LT_RESERVED(ltfield));

	if (major == 2 && minor < 3)
		r->len_order = SF_LEN_SWAPPED;
	else if (major == 2 && minor == 3)
		r->len_order = SF_LEN_MAYBE;
	else if (major == 543)
		r->len_order = SF_LEN_SWAPPED;
	else
		r->len_order = SF_LEN_NORMAL;

	r->format = magic == PCAP_MAGIC_NS ? SF_FORMAT_PCAP_NS : SF_FORMAT_PCAP;
	r->ts_mult = magic == PCAP_MAGIC_NS ? 1 : 1000;
	r->rec_len = magic == PCAP_MAGIC_KUZ ? 24 : 16;
	r->pcap_snap = sf_adjust_snap(snaplen);
	/* libpcap: Kuznetzov cooked-mode captures added a fake 14-byte
	 * Ethernet header on top of the snaplen. */
	if (magic == PCAP_MAGIC_KUZ && PCAP_LT_TYPE(ltfield) == PKT_LINKTYPE_ETHERNET)
		r->pcap_snap = r->pcap_snap <= INT_MAX - 14u ? r->pcap_snap + 14u : INT_MAX;

	s = sf_add_iface(r, 0);
	if (s == NULL)
		return r->err;
	s->pub.linktype = PCAP_LT_TYPE(ltfield);
	s->pub.snaplen = snaplen;
	s->snap = r->pcap_snap;
	r->n_ifs = 1;
	r->sect_count = 1;
	r->pos += PCAP_HDR_LEN;
	return 0;
}

/* --- pcapng ---------------------------------------------------------------- */

/*
 * Block layout (all fields in the section's byte order):
 *
 *   0 block type   4 total length   8 body ...   total-4 total length again
 *
 *   EPB body:  8 iface  12 ts_hi  16 ts_lo  20 caplen  24 len  28 data, pad, options
 *   PB  body:  8 iface(16) 10 drops(16)  12 ts_hi  16 ts_lo  20 caplen  24 len  28 data...
 *   SPB body:  8 len  12 data
 *   IDB body:  8 linktype(16) 10 reserved(16)  12 snaplen  16 options
 *   ISB body:  8 iface  12 ts_hi  16 ts_lo  20 options
 *   SHB body:  8 byte-order magic  12 major(16) 14 minor(16)  16 section length(64)  24 options
 *
 * Options: code(16) length(16) value padded to 4, until opt_endofopt or the
 * end of the block.
 */

static uint32_t ng_min_len(uint32_t type)
{
	switch (type) {
	case NG_SHB:
		return NG_SHB_MIN;
	case NG_IDB:
		return NG_IDB_MIN;
	case NG_EPB:
	case NG_PB:
		return NG_EPB_MIN;
	case NG_SPB:
		return NG_SPB_MIN;
	case NG_ISB:
		return NG_ISB_MIN;
	default:
		return 12;
	}
}

/* Bring a whole block of `total` bytes into the buffer after checking the
 * length in its header; verifies the trailer copy. */
static int ng_load(struct sf_reader *r, uint32_t type, uint32_t total, uint32_t max, uint64_t off)
{
	const uint8_t *b;
	uint32_t trailer;
	int rc;

	if (total % 4 != 0)
		return sf_fail(r, SF_ERR_CORRUPT, off,
			       "block total length %" PRIu32 " is not a multiple of 4", total);
	if (total < ng_min_len(type))
		return sf_fail(r, SF_ERR_CORRUPT, off,
			       "block total length %" PRIu32 " is shorter than the %" PRIu32
			       " bytes a block of type 0x%08" PRIx32 " needs",
			       total, ng_min_len(type), type);
	if (total > max)
		return sf_fail(r, SF_ERR_CORRUPT, off,
			       "block total length %" PRIu32 " exceeds the %" PRIu32
			       "-byte maximum for type 0x%08" PRIx32 " (damaged or fuzzed file?)",
			       total, max, type);
	rc = sf_need(r, total);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return sf_fail(r, SF_ERR_TRUNCATED, off,
			       "file ends inside a block of type 0x%08" PRIx32 " (%zu of %" PRIu32
			       " bytes)",
			       type, r->end - r->pos, total);
	b = r->buf + r->pos;
	trailer = rd32(b + total - 4, r->big);
	if (trailer != total)
		return sf_fail(r, SF_ERR_CORRUPT, off,
			       "block total length %" PRIu32 " in trailer does not match %" PRIu32
			       " in header",
			       trailer, total);
	return 0;
}

/* Section Header Block: sets the byte order of everything up to the next one. */
static int ng_shb(struct sf_reader *r, uint64_t off, int first)
{
	const uint8_t *b;
	uint32_t total, bom;
	unsigned major, minor;
	int big, rc;

	rc = sf_need(r, 12);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return sf_fail(r, SF_ERR_TRUNCATED, off,
			       "file ends inside a section header (%zu of 12 bytes)",
			       r->end - r->pos);
	b = r->buf + r->pos;
	bom = rd32(b + 8, 0);
	if (bom == NG_BOM)
		big = 0;
	else if (rd32(b + 8, 1) == NG_BOM)
		big = 1;
	else
		return sf_fail(r, first ? SF_ERR_FORMAT : SF_ERR_CORRUPT, off + 8,
			       "section header with bad byte-order magic 0x%08" PRIx32, bom);
	r->big = big;
	total = rd32(b + 4, big);
	rc = ng_load(r, NG_SHB, total, first ? NG_MAX_FIRST_SHB : NG_MAX_BLOCK, off);
	if (rc < 0)
		return rc;
	b = r->buf + r->pos;
	major = rd16(b + 12, big);
	minor = rd16(b + 14, big);
	/* As libpcap: the first section must be 1.0 or 1.2 (1.2 was written by
	 * some tools for the same format); later ones only need major 1. */
	if (major != 1 || (first && minor != 0 && minor != 2))
		return sf_fail(r, first ? SF_ERR_FORMAT : SF_ERR_CORRUPT, off + 12,
			       "unsupported pcapng version %u.%u", major, minor);
	r->sect_base = r->n_ifs;
	r->sect_count = 0;
	r->pos += total;
	return 0;
}

/* if_tsresol: 10^-v, or 2^-(v & 0x7f) when the top bit is set. */
static int ng_tsresol(struct sf_reader *r, struct sf_ifslot *s, uint8_t v, uint64_t off)
{
	if (v & 0x80) {
		unsigned shift = v & 0x7fu;

		if (shift > 63)
			return sf_fail(r, SF_ERR_CORRUPT, off,
				       "if_tsresol 2^-%u is too fine for 64-bit timestamps", shift);
		s->ts_binary = 1;
		s->ts_shift = (uint8_t)shift;
		s->tsresol = (uint64_t)1 << shift;
		s->ts_mult = 0;
		return 0;
	}
	if (v > 19)
		return sf_fail(r, SF_ERR_CORRUPT, off,
			       "if_tsresol 10^-%u is too fine for 64-bit timestamps", v);
	s->ts_binary = 0;
	s->tsresol = 1;
	for (unsigned i = 0; i < v; i++)
		s->tsresol *= 10;
	s->ts_mult = v <= 9 ? NS_PER_S / s->tsresol : 0;
	return 0;
}

/* Interface Description Block: errors where libpcap errors (bad if_tsresol,
 * if_tsoffset, option overrun), since a wrong clock would silently corrupt
 * every later timestamp. */
static int ng_idb(struct sf_reader *r, const uint8_t *b, uint32_t total, uint64_t off)
{
	const int big = r->big;
	const uint8_t *o = b + 16, *end = b + total - 4;
	struct sf_ifslot *s;
	int saw_tsresol = 0, saw_tsoffset = 0;

	s = sf_add_iface(r, off);
	if (s == NULL)
		return r->err;
	s->pub.linktype = rd16(b + 8, big);
	s->pub.snaplen = rd32(b + 12, big);
	s->snap = sf_adjust_snap(s->pub.snaplen);

	while (o < end) {
		unsigned code, len;
		uint32_t padded;

		if (end - o < 4)
			return sf_fail(r, SF_ERR_CORRUPT, off,
				       "interface description option header overruns the block");
		code = rd16(o, big);
		len = rd16(o + 2, big);
		padded = pad4(len);
		o += 4;
		if ((size_t)(end - o) < padded)
			return sf_fail(
			    r, SF_ERR_CORRUPT, off,
			    "interface description option %u length %u overruns the block "
			    "(%td bytes left)",
			    code, len, end - o);
		switch (code) {
		case NG_OPT_END:
			if (len != 0)
				return sf_fail(r, SF_ERR_CORRUPT, off,
					       "opt_endofopt with length %u != 0", len);
			o = end;
			continue;
		case NG_IF_NAME: {
			size_t n = len < sizeof(s->pub.name) - 1 ? len : sizeof(s->pub.name) - 1;
			const uint8_t *nul = memchr(o, 0, n);

			if (nul != NULL)
				n = (size_t)(nul - o);
			memcpy(s->pub.name, o, n);
			s->pub.name[n] = '\0';
			break;
		}
		case NG_IF_TSRESOL:
			if (len != 1)
				return sf_fail(r, SF_ERR_CORRUPT, off,
					       "if_tsresol with length %u != 1", len);
			if (saw_tsresol++)
				return sf_fail(r, SF_ERR_CORRUPT, off, "more than one if_tsresol");
			if (ng_tsresol(r, s, o[0], off) < 0)
				return r->err;
			break;
		case NG_IF_TSOFFSET:
			if (len != 8)
				return sf_fail(r, SF_ERR_CORRUPT, off,
					       "if_tsoffset with length %u != 8", len);
			if (saw_tsoffset++)
				return sf_fail(r, SF_ERR_CORRUPT, off, "more than one if_tsoffset");
			s->off_ns = rd64(o, big) * NS_PER_S;
			break;
		default:
			break;
		}
		o += padded;
	}
	r->n_ifs++;
	r->sect_count++;
	return 0;
}

/* Interface Statistics Block: libpcap ignores ISBs, so a broken one costs a
 * counter tick, never the read. */
static void ng_isb(struct sf_reader *r, const uint8_t *b, uint32_t total)
{
	const int big = r->big;
	const uint8_t *o = b + 20, *end = b + total - 4;
	uint32_t id = rd32(b + 8, big);
	struct sf_iface *f;

	if (id >= r->sect_count) {
		r->bad_options++;
		return;
	}
	f = &r->ifs[r->sect_base + id].pub;
	while (end - o >= 4) {
		unsigned code = rd16(o, big), len = rd16(o + 2, big);
		uint32_t padded = pad4(len);

		o += 4;
		if ((size_t)(end - o) < padded) {
			r->bad_options++;
			return;
		}
		if (code == NG_OPT_END)
			return;
		if (code == NG_ISB_IFRECV || code == NG_ISB_IFDROP || code == NG_ISB_OSDROP) {
			if (len != 8) {
				r->bad_options++;
			} else if (code == NG_ISB_IFRECV) {
				f->isb_ifrecv = rd64(o, big);
				f->have_ifrecv = 1;
			} else if (code == NG_ISB_IFDROP) {
				f->isb_ifdrop = rd64(o, big);
				f->have_ifdrop = 1;
			} else {
				f->isb_osdrop = rd64(o, big);
				f->have_osdrop = 1;
			}
		}
		o += padded;
	}
}

/* Walk EPB (or PB, epb == 0) options for the three per-packet fields. Only
 * blocks that carry options get here. */
static void ng_pkt_options(struct sf_reader *r, struct pkt *p, struct sf_ifslot *s,
			   const uint8_t *o, const uint8_t *end, int epb)
{
	const int big = r->big;

	while (end - o >= 4) {
		unsigned code = rd16(o, big), len = rd16(o + 2, big);
		uint32_t padded = pad4(len);

		o += 4;
		if ((size_t)(end - o) < padded) {
			r->bad_options++;
			return;
		}
		switch (code) {
		case NG_OPT_END:
			return;
		case NG_EPB_FLAGS:
			if (len != 4) {
				r->bad_options++;
				break;
			}
			p->epb_flags = rd32(o, big);
			p->have |= PKT_HAVE_FLAGS;
			break;
		case NG_EPB_DROPCOUNT:
			if (!epb)
				break;
			if (len != 8) {
				r->bad_options++;
				break;
			}
			p->dropcount = rd64(o, big);
			p->have |= PKT_HAVE_DROPCOUNT;
			s->pub.epb_drops += p->dropcount;
			s->pub.have_epb_drops = 1;
			break;
		case NG_EPB_QUEUE:
			if (!epb)
				break;
			if (len != 4) {
				r->bad_options++;
				break;
			}
			p->queue = rd32(o, big);
			p->have |= PKT_HAVE_QUEUE;
			break;
		default:
			break;
		}
		o += padded;
	}
}

/* Ticks since the epoch to ns. Arithmetic is modulo 2^64 like libpcap's
 * (sec + tsoffset, frac scaled), so garbage timestamps wrap identically
 * instead of being undefined. */
static uint64_t ng_ts_slow(const struct sf_ifslot *s, uint64_t t)
{
	uint64_t sec = t / s->tsresol, frac = t % s->tsresol, frac_ns;

	if (s->ts_binary)
		/* 128-bit so 2^-35 and finer do not overflow (libpcap's
		 * 64-bit frac * 1e9 does). */
		frac_ns = (uint64_t)(((unsigned __int128)frac * NS_PER_S) >> s->ts_shift);
	else
		frac_ns = frac / (s->tsresol / NS_PER_S);
	return sec * NS_PER_S + frac_ns + s->off_ns;
}

static inline int64_t ng_ts(const struct sf_ifslot *s, uint64_t t)
{
	/* t/res*1e9 + t%res*(1e9/res) == t*(1e9/res) exactly, even modulo 2^64,
	 * so the common resolutions need no division. */
	if (s->ts_mult != 0)
		return (int64_t)(t * s->ts_mult + s->off_ns);
	return (int64_t)ng_ts_slow(s, t);
}

static int ng_bad_iface(struct sf_reader *r, uint64_t off, uint32_t id)
{
	if (r->sect_count == 0)
		return sf_fail(
		    r, SF_ERR_CORRUPT, off,
		    "packet block before any interface description block in its section");
	return sf_fail(r, SF_ERR_CORRUPT, off,
		       "packet on interface %" PRIu32 ", but the section has %u interface(s)", id,
		       r->sect_count);
}

static int ng_caplen_check(struct sf_reader *r, const struct sf_ifslot *s, uint32_t caplen,
			   uint32_t room, uint64_t off)
{
	if (caplen > room)
		return sf_fail(r, SF_ERR_CORRUPT, off,
			       "captured length %" PRIu32 " exceeds the block's %" PRIu32
			       " data bytes",
			       caplen, room);
	if (caplen > SF_MAX_RECORD)
		return sf_fail(r, SF_ERR_CORRUPT, off,
			       "captured length %" PRIu32 " exceeds the %u-byte maximum "
			       "(damaged or fuzzed file?)",
			       caplen, SF_MAX_RECORD);
	/* libpcap rejects these too; its callers may size buffers by snaplen. */
	if (caplen > s->snap)
		return sf_fail(r, SF_ERR_CORRUPT, off,
			       "captured length %" PRIu32 " exceeds the interface snaplen %" PRIu32,
			       caplen, s->snap);
	return 0;
}

static inline void ng_fill(struct sf_reader *r, struct pkt *p, const struct sf_ifslot *s,
			   unsigned gid, const uint8_t *data, uint32_t caplen, uint32_t len)
{
	p->data = data;
	p->caplen = caplen;
	p->wirelen = len < caplen ? caplen : len;
	p->linktype = s->pub.linktype;
	p->iface = gid;
	p->frame = ++r->frame;
}

/* EPB (epb = 1) or obsolete PB (epb = 0): same layout but for the
 * interface field width and PB's 16-bit drop counter. */
static int ng_epb(struct sf_reader *r, struct pkt *p, const uint8_t *b, uint32_t total,
		  uint64_t off, int epb)
{
	const int big = r->big;
	uint32_t id, caplen, len, room, padded;
	unsigned gid;
	struct sf_ifslot *s;

	id = epb ? rd32(b + 8, big) : rd16(b + 8, big);
	if (id >= r->sect_count)
		return ng_bad_iface(r, off, id);
	gid = r->sect_base + id;
	s = &r->ifs[gid];
	caplen = rd32(b + 20, big);
	len = rd32(b + 24, big);
	room = total - NG_EPB_MIN;
	if (ng_caplen_check(r, s, caplen, room, off) < 0)
		return r->err;
	p->ts_ns = ng_ts(s, (uint64_t)rd32(b + 12, big) << 32 | rd32(b + 16, big));
	p->queue = 0;
	p->epb_flags = 0;
	p->dropcount = 0;
	p->have = 0;
	if (!epb) {
		unsigned drops = rd16(b + 10, big);

		if (drops != 0xFFFFu) { /* 0xFFFF: counter not available */
			p->dropcount = drops;
			p->have |= PKT_HAVE_DROPCOUNT;
			s->pub.epb_drops += drops;
			s->pub.have_epb_drops = 1;
		}
	}
	padded = pad4(caplen);
	if (room > padded)
		ng_pkt_options(r, p, s, b + 28 + padded, b + total - 4, epb);
	ng_fill(r, p, s, gid, b + 28, caplen, len);
	return 1;
}

/* Simple Packet Block: interface 0 of the section, no timestamp, caplen is
 * the wire length cut to that interface's snaplen (as libpcap does). */
static int ng_spb(struct sf_reader *r, struct pkt *p, const uint8_t *b, uint32_t total,
		  uint64_t off)
{
	uint32_t len, caplen;
	struct sf_ifslot *s;

	if (r->sect_count == 0)
		return ng_bad_iface(r, off, 0);
	s = &r->ifs[r->sect_base];
	len = rd32(b + 8, r->big);
	caplen = len > s->snap ? s->snap : len;
	if (ng_caplen_check(r, s, caplen, total - NG_SPB_MIN, off) < 0)
		return r->err;
	p->ts_ns = ng_ts(s, 0);
	p->queue = 0;
	p->epb_flags = 0;
	p->dropcount = 0;
	p->have = 0;
	ng_fill(r, p, s, r->sect_base, b + 12, caplen, len);
	return 1;
}

/*
 * Consume one pcapng block. Returns 1 with *p filled for a packet block, 0
 * for any other block, 2 at a clean end of input, negative on error.
 */
static int ng_block(struct sf_reader *r, struct pkt *p)
{
	const uint8_t *b;
	uint32_t type, total;
	uint64_t off = sf_pos(r);
	int rc;

	rc = sf_need(r, 8);
	if (rc <= 0) {
		if (rc < 0)
			return rc;
		if (r->end == r->pos)
			return 2;
		return sf_fail(r, SF_ERR_TRUNCATED, off,
			       "file ends inside a block header (%zu of 8 bytes)", r->end - r->pos);
	}
	b = r->buf + r->pos;
	type = rd32(b, r->big);
	if (type == NG_SHB)
		return ng_shb(r, off, 0);
	total = rd32(b + 4, r->big);
	rc = ng_load(r, type, total,
		     (type == NG_EPB || type == NG_PB || type == NG_SPB) ? NG_MAX_PKT_BLOCK
									 : NG_MAX_BLOCK,
		     off);
	if (rc < 0)
		return rc;
	b = r->buf + r->pos;
	/* Advance first: the block stays in the buffer until the next call,
	 * which is as long as the packet it yields is borrowed. */
	r->pos += total;
	switch (type) {
	case NG_EPB:
		return ng_epb(r, p, b, total, off, 1);
	case NG_PB:
		return ng_epb(r, p, b, total, off, 0);
	case NG_SPB:
		return ng_spb(r, p, b, total, off);
	case NG_IDB:
		return ng_idb(r, b, total, off);
	case NG_ISB:
		ng_isb(r, b, total);
		return 0;
	default:
		/* NRB, DSB, custom, systemd journal, unknown: not ours. */
		return 0;
	}
}

static int ng_next(struct sf_reader *r, struct pkt *p)
{
	for (;;) {
		int rc = ng_block(r, p);

		if (rc == 1)
			return 1;
		if (rc == 2)
			return 0;
		if (rc < 0)
			return rc;
	}
}

/* Read up to the first IDB, as libpcap does, so the caller knows the first
 * link type before the first packet. */
static int ng_open(struct sf_reader *r)
{
	struct pkt dummy;
	int rc;

	r->format = SF_FORMAT_PCAPNG;
	rc = ng_shb(r, 0, 1);
	if (rc < 0)
		return rc;
	while (r->n_ifs == 0) {
		rc = ng_block(r, &dummy);
		if (rc < 0)
			return rc;
		if (rc == 2)
			return sf_fail(r, SF_ERR_FORMAT, sf_pos(r),
				       "pcapng file has no interface description block");
		if (rc == 1) /* cannot happen: no IDB means packet blocks fail */
			return sf_fail(r, SF_ERR_CORRUPT, sf_pos(r), "packet before any interface");
	}
	return 0;
}

/* --- opening ------------------------------------------------------------- */

static enum sf_zip sf_zip_kind(const uint8_t *m, size_t n)
{
	if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
		return SF_ZIP_GZIP;
	if (n >= 3 && m[0] == 'B' && m[1] == 'Z' && m[2] == 'h')
		return SF_ZIP_BZIP2;
	if (n >= 6 && memcmp(m,
			     "\xfd"
			     "7zXZ\0",
			     6) == 0)
		return SF_ZIP_XZ;
	if (n >= 4 && memcmp(m, "\x89LZO", 4) == 0)
		return SF_ZIP_LZO;
	return SF_ZIP_NONE;
}

/*
 * Look at the first bytes of a pipe without consuming them: tee(2) copies
 * pipe contents into a scratch pipe, so libwandio can still read the stream
 * from its start. Returns the bytes peeked (0 at EOF) or -1.
 */
static ssize_t sf_pipe_peek(int fd, uint8_t *dst, size_t len)
{
	int pp[2];
	ssize_t n = -1;

	if (pipe2(pp, O_CLOEXEC) == -1)
		return -1;
	for (int tries = 0; tries < 2000; tries++) {
		struct timespec ms = {0, 1000000};

		n = tee(fd, pp[1], len, 0);
		/* Two bytes tell every compressed magic from every pcap one; a
		 * writer that has produced just one byte so far gets a moment. */
		if (n != 1)
			break;
		nanosleep(&ms, NULL);
	}
	if (n > 0)
		n = read(pp[0], dst, (size_t)n);
	close(pp[0]);
	close(pp[1]);
	return n;
}

static int sf_open_input(struct sf_reader *r, const char *path)
{
	const int is_stdin = strcmp(path, "-") == 0;
	uint8_t m[8];
	ssize_t got = 0;
	struct stat st;
	size_t cap = SF_BUF_INIT;

	if (is_stdin) {
		r->fd = 0;
	} else {
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (r->fd == -1)
			return sf_fail(r, SF_ERR_IO, SF_NO_OFFSET, "cannot open: %s",
				       strerror(errno));
		r->own_fd = 1;
	}
	if (fstat(r->fd, &st) == -1)
		return sf_fail(r, SF_ERR_IO, SF_NO_OFFSET, "cannot stat: %s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return sf_fail(r, SF_ERR_IO, SF_NO_OFFSET, "is a directory, not a capture file");
	if (S_ISREG(st.st_mode)) {
		off_t at = lseek(r->fd, 0, SEEK_CUR);

		got = pread(r->fd, m, sizeof(m), at == -1 ? 0 : at);
		r->size = (uint64_t)st.st_size;
		if (st.st_size < (off_t)SF_BUF_INIT)
			cap = (size_t)st.st_size + 1 < SF_BUF_SMALL ? SF_BUF_SMALL
								    : (size_t)st.st_size + 1;
	} else if (S_ISFIFO(st.st_mode)) {
		got = sf_pipe_peek(r->fd, m, sizeof(m));
	}
	r->zip = got > 0 ? sf_zip_kind(m, (size_t)got) : SF_ZIP_NONE;
	if (r->zip != SF_ZIP_NONE) {
		/* libwandio opens the name itself; "-" is stdin to it too, and
		 * it closes fd 0 on destroy. Nothing was consumed above. */
		r->wio = wandio_create(is_stdin ? "-" : path);
		if (r->wio == NULL)
			return sf_fail(r, SF_ERR_IO, 0, "libwandio cannot open the %s stream",
				       sf_zip_names[r->zip]);
		if (r->own_fd)
			close(r->fd);
		r->fd = -1;
		r->own_fd = 0;
		r->size = 0;
		cap = SF_BUF_INIT;
	}
	r->buf = malloc(cap);
	if (r->buf == NULL)
		return sf_fail(r, SF_ERR_NOMEM, 0, "out of memory for the read buffer");
	r->cap = cap;
	return 0;
}

static int sf_open_format(struct sf_reader *r)
{
	uint32_t magic;
	enum sf_zip inner;
	int rc;

	rc = sf_need(r, 4);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		if (r->end == r->pos)
			return sf_fail(r, SF_ERR_FORMAT, 0,
				       "empty input, not a pcap or pcapng file");
		return sf_fail(r, SF_ERR_TRUNCATED, 0,
			       "input is %zu bytes, too short for a pcap or pcapng header",
			       r->end - r->pos);
	}
	magic = rd32(r->buf + r->pos, 1);
	switch (magic) {
	case PCAP_MAGIC_US:
	case PCAP_MAGIC_NS:
	case PCAP_MAGIC_KUZ:
		return pcap_open_hdr(r, magic);
	case 0xD4C3B2A1u:
	case 0x4D3CB2A1u:
	case 0x34CDB2A1u:
		return pcap_open_hdr(r, magic);
	case NG_SHB:
		return ng_open(r);
	default:
		break;
	}
	inner = sf_zip_kind(r->buf + r->pos, r->end - r->pos);
	if (r->wio != NULL && inner == SF_ZIP_LZO && r->zip == SF_ZIP_LZO)
		return sf_fail(r, SF_ERR_FORMAT, 0,
			       "lzo-compressed input: this libwandio cannot decompress lzo "
			       "(decompress it with lzop -d first)");
	if (r->wio == NULL && inner != SF_ZIP_NONE)
		return sf_fail(r, SF_ERR_FORMAT, 0,
			       "%s-compressed stdin can only be read from a pipe or a file "
			       "(decompress it first, or pass the file name)",
			       sf_zip_names[inner]);
	if (r->wio != NULL)
		return sf_fail(
		    r, SF_ERR_FORMAT, 0,
		    "not a pcap or pcapng file after %s decompression (magic 0x%08" PRIx32 ")",
		    sf_zip_names[r->zip], magic);
	return sf_fail(r, SF_ERR_FORMAT, 0, "not a pcap or pcapng file (magic 0x%08" PRIx32 ")",
		       magic);
}

struct sf_reader *sf_open(const char *path, char *errbuf, size_t errlen)
{
	struct sf_reader *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		if (errlen > 0)
			snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	r->fd = -1;
	if (sf_open_input(r, path) < 0 || sf_open_format(r) < 0)
		goto err;
	return r;
err:
	if (errlen > 0)
		snprintf(errbuf, errlen, "%s", r->msg);
	sf_close(r);
	return NULL;
}

/* --- accessors ------------------------------------------------------------- */

int sf_next(struct sf_reader *r, struct pkt *p)
{
	if (r->err)
		return r->err;
	if (r->format == SF_FORMAT_PCAPNG)
		return ng_next(r, p);
	return pcap_next_rec(r, p);
}

const char *sf_error(const struct sf_reader *r)
{
	return r->err ? r->msg : "";
}

enum sf_format sf_format(const struct sf_reader *r)
{
	return r->format;
}

const char *sf_format_name(enum sf_format f)
{
	static const char *const names[SF_FORMAT_COUNT] = {"pcap", "pcap-ns", "pcapng"};

	return (unsigned)f < SF_FORMAT_COUNT ? names[f] : "?";
}

int sf_compressed(const struct sf_reader *r)
{
	return r->wio != NULL;
}

unsigned sf_iface_count(const struct sf_reader *r)
{
	return r->n_ifs;
}

const struct sf_iface *sf_iface(const struct sf_reader *r, unsigned i)
{
	return i < r->n_ifs ? &r->ifs[i].pub : NULL;
}

uint64_t sf_bad_options(const struct sf_reader *r)
{
	return r->bad_options;
}

uint64_t sf_offset(const struct sf_reader *r)
{
	return sf_pos(r);
}

uint64_t sf_size(const struct sf_reader *r)
{
	return r->wio != NULL ? 0 : r->size;
}

void sf_close(struct sf_reader *r)
{
	if (r == NULL)
		return;
	if (r->wio != NULL)
		wandio_destroy(r->wio);
	if (r->own_fd)
		close(r->fd);
	free(r->buf);
	free(r->ifs);
	free(r);
}
