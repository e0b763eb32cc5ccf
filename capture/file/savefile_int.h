/* savefile_int.h - the reader's insides shared by its parts: buffer, input, pcap and pcapng
 * parsers. */
#ifndef TCPSIFT_SAVEFILE_INT_H
#define TCPSIFT_SAVEFILE_INT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/file/pcapng_format.h"
#include "capture/file/savefile.h"
#include "common/clock.h"
#include "common/err.h"

/*
 * The reader is split as libpcap splits savefile.c / sf-pcap.c /
 * sf-pcapng.c:
 *
 *   savefile.c         the public API: open (input, then format by magic), dispatch, close
 *   savefile_input.c   the read buffer, read(2) that a stop can interrupt, errors
 *   savefile_zip.c     gzip, bzip2 and xz streams decoded into the buffer
 *   savefile_pcap.c    classic pcap: its header and records
 *   savefile_pcapng.c  pcapng: sections, interfaces, packet and statistics blocks
 *
 * Only this header joins them; nothing outside capture/file/savefile*.c
 * includes it.
 *
 * Buffer discipline
 *
 *   buf                pos                  end                 cap
 *    |  consumed ...    |  unread bytes ...  |  free space ...   |
 *    ^ stream offset buf_off
 *
 * A record is parsed and handed out only once all its bytes lie in
 * [pos, end). When they do not, the unread tail is moved to the front and
 * the free space is filled with as few large reads as the source allows, so
 * a buffer of SF_BUF_INIT bytes costs one syscall per 256 KiB of input and
 * the per-packet path never leaves user space. (1 MiB reads stalled the
 * --threads reader for 100-200 us each, long enough to empty a worker's
 * queue: --threads 2 took 0.968x the time with 256 KiB, paired medians of
 * 21.) The buffer grows only when a single record is larger than it, up to
 * the per-block maxima below.
 *
 * Everything read from the file goes through sf_rd16/sf_rd32/sf_rd64 at
 * offsets that were checked against a length first; nothing is cast onto
 * structs.
 */

#define SF_BUF_INIT  (1u << 18)
#define SF_BUF_SMALL 4096u /* floor for small regular files (fuzzing, tests) */

/* pcapng limits. libpcap: INITIAL_MAX_BLOCKSIZE, BT_SHB_INSANE_MAX and
 * MAX_BLOCKSIZE_FOR_SNAPLEN (header + EPB fields + data + 128 KiB options). */
#define SF_NG_MAX_BLOCK	    (16u << 20)
#define SF_NG_MAX_FIRST_SHB (1u << 20)
#define SF_NG_MAX_PKT_BLOCK (PCAPNG_EPB_MIN + SF_MAX_RECORD + 131072u)
#define SF_MAX_IFACES	    65536u

/* libpcap's MAXIMUM_SNAPLEN, used when a file's snaplen is 0 or > INT_MAX. */
#define SF_DEFAULT_SNAP 262144u

#define SF_NO_OFFSET UINT64_MAX /* errors about the file itself, not a place in it */

enum sf_zip {
	SF_ZIP_NONE = 0,
	SF_ZIP_GZIP,
	SF_ZIP_BZIP2,
	SF_ZIP_XZ,
	SF_ZIP_LZO,  /* recognised, not read */
	SF_ZIP_ZSTD, /* recognised, not read */
	SF_ZIP_COUNT,
};

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
	__int128 off_ns;  /* if_tsoffset (signed seconds, as the pcapng draft says) in ns */
	uint64_t ts_mult; /* ns per tick for 10^-0..10^-9 resolutions, else 0 */
	uint64_t tsresol; /* ticks per second */
	uint32_t snap;	  /* snaplen as libpcap adjusts it (0 or > INT_MAX: the default) */
	uint8_t ts_shift; /* tsresol == 2^ts_shift when ts_binary */
	uint8_t ts_binary;
};

/* A buffer sf_keep() keeps for packets in use (stamp: the refill count it
 * was retired at), or a spare. */
struct sf_kept {
	uint8_t *buf;
	size_t cap;
	uint64_t stamp;
};
#define SF_SPARES 4 /* buffers kept for reuse: a refill allocates nothing */

/* The format's record reader, chosen at open as libpcap's next_packet_op:
 * sf_next()'s contract. */
typedef int sf_next_fn(struct sf_reader *r, struct pkt *p);

struct sf_reader {
	/* Hot: touched for every packet. */
	uint8_t *buf;
	size_t pos, end, cap;
	uint64_t buf_off; /* stream offset of buf[0] */
	sf_next_fn *next;
	enum sf_format format;
	int big; /* current section (or file) is big-endian */
	int err; /* sticky: once a read failed, it keeps failing the same way */
	uint64_t frame;
	/* classic pcap */
	uint32_t rec_len; /* PCAP_REC_HDR_LEN, or PCAP_REC_KUZ_HDR_LEN */
	uint32_t pcap_snap;
	uint32_t ts_mult; /* 1000 for us files, 1 for ns */
	enum sf_lenorder len_order;
	/* pcapng; classic pcap uses slot 0 */
	struct sf_ifslot *ifs;
	unsigned n_ifs, cap_ifs;
	unsigned sect_base, sect_count; /* this section's IDBs are ifs[base .. base+count) */
	uint64_t bad_options;
	sf_block_fn *block_fn; /* sf_open_blocks(): every pcapng block, else NULL */
	void *block_ctx;
	/* input */
	int fd;
	int own_fd;
	int regular;			   /* a regular file: read(2) never waits */
	const volatile sig_atomic_t *stop; /* non-zero: end every wait (NULL: none) */
	struct sf_unzip *uz;		   /* the decoder of a compressed stream, else NULL */
	enum sf_zip zip;
	int eof;
	uint64_t size;
	/* sf_keep(): NULL, or the refill counter; the retired buffers, oldest
	 * first; spare buffers. */
	uint64_t *keep_gen;
	struct sf_kept *kept;
	size_t nkept, cap_kept;
	struct sf_kept spare[SF_SPARES];
	unsigned nspare;
	char msg[256];
};

/* --- bounded little/big-endian loads ------------------------------------ */

static inline uint16_t sf_rd16(const uint8_t *p, int big)
{
	return big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t sf_rd32(const uint8_t *p, int big)
{
	if (big)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint64_t sf_rd64(const uint8_t *p, int big)
{
	if (big)
		return (uint64_t)sf_rd32(p, 1) << 32 | sf_rd32(p + 4, 1);
	return (uint64_t)sf_rd32(p + 4, 0) << 32 | sf_rd32(p, 0);
}

/* --- errors and the buffer (savefile_input.c) ----------------------------- */

/*
 * Record the first error as "offset N: reason" (no offset for SF_NO_OFFSET)
 * and make it sticky; returns code (an enum err_code), or the error already
 * recorded.
 */
int sf_fail(struct sf_reader *r, int code, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline uint64_t sf_pos(const struct sf_reader *r)
{
	return r->buf_off + r->pos;
}

/*
 * Slow half of sf_need(): compact, grow if one record is larger than the
 * buffer, then read until `need` bytes are unread. Returns 1 when they are,
 * 0 when the input ended first (the short tail stays readable), or a
 * negative enum err_code. Moves data: pointers into buf are stale afterwards.
 */
int sf_refill(struct sf_reader *r, size_t need);

/* 1 when `need` unread bytes are at buf + pos, else as sf_refill(). */
static inline int sf_need(struct sf_reader *r, size_t need)
{
	if (r->end - r->pos >= need)
		return 1;
	return sf_refill(r, need);
}

/*
 * Open path ("-": stdin) without waiting for a FIFO's writer, read its
 * first bytes and choose plain reads or a decoder by the compression magic
 * found; allocate the buffer (smaller for small regular files). 0 or a
 * negative enum err_code.
 */
int sf_input_open(struct sf_reader *r, const char *path);

/*
 * read(2) from the input into dst: bytes read, 0 at its end, or a negative
 * enum err_code after sf_fail(). On anything but a regular file it first
 * waits with poll(2) for data, and ends that wait with ERR_INTERRUPTED
 * within SF_STOP_POLL_MS once *r->stop is set.
 */
ssize_t sf_raw_read(struct sf_reader *r, void *dst, size_t len);

#define SF_STOP_POLL_MS 100

/* --- compressed input (savefile_zip.c) ------------------------------------- */

/*
 * Start decoding a stream of kind r->zip whose first n bytes (already read
 * from the input) are at first. 0 or a negative enum err_code.
 */
int sf_zip_start(struct sf_reader *r, const uint8_t *first, size_t n);

/*
 * Decode into dst: bytes (> 0), 0 at the clean end of the last stream, or
 * a negative enum err_code after sf_fail(): ERR_INPUT_TRUNCATED when the
 * compressed input ends inside a stream, ERR_INPUT_CORRUPT for bad data.
 * Every byte decoded before the error is returned first, by earlier calls.
 */
ssize_t sf_zip_read(struct sf_reader *r, uint8_t *dst, size_t len);

void sf_zip_free(struct sf_unzip *uz); /* NULL is a no-op */

/* The compression a stream's first n bytes announce, SF_ZIP_NONE if none. */
enum sf_zip sf_zip_kind(const uint8_t *m, size_t n);

const char *sf_zip_name(enum sf_zip z); /* "gzip", "bzip2", ... */

/* A new interface slot at the end of the table (not yet counted in n_ifs:
 * the caller does once it is filled); NULL after sf_fail(). */
struct sf_ifslot *sf_add_iface(struct sf_reader *r, uint64_t off);

/* libpcap's pcap_adjust_snapshot(): 0 or > INT_MAX means "no limit given". */
uint32_t sf_adjust_snap(uint32_t snaplen);

/* --- the formats ------------------------------------------------------------ */

/* Classic pcap (savefile_pcap.c): parse the header whose magic, read
 * big-endian, is magic_be; sets r->next. 0 or a negative enum err_code. */
int sf_pcap_open(struct sf_reader *r, uint32_t magic_be);

/* pcapng (savefile_pcapng.c): the first SHB and every block up to the first
 * IDB, as libpcap does, so the first link type is known before the first
 * packet; sets r->next. 0 or a negative enum err_code. */
int sf_pcapng_open(struct sf_reader *r);

#endif
