/* savefile.h - zero-copy reader for classic pcap and pcapng capture files. */
#ifndef TCPSIFT_SAVEFILE_H
#define TCPSIFT_SAVEFILE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/pkt.h"

/*
 * One reader owns one open file (or stdin for "-"), a large read buffer and
 * the interface table. Uncompressed input is read with read(2) in large
 * blocks and records are handed out as pointers into that buffer; gzip, bzip2
 * and xz input (detected by magic, not by name) is decoded into it
 * (savefile_zip.c), keeping every byte before a cut or a corrupt spot.
 *
 * Formats: classic pcap (magic a1b2c3d4 us, a1b23c4d ns, either byte order;
 * the FCS/reserved bits of the link-type field are masked as libpcap does,
 * rejecting non-zero reserved bits), pcapng (several sections, either byte
 * order per section, several interfaces with if_tsresol/if_tsoffset, EPB,
 * SPB, obsolete PB, ISB; unknown blocks skipped).
 *
 * Nothing in the file is trusted: every block length, option length and
 * captured length is checked against the block and a sane maximum
 * (SF_MAX_RECORD) before use.
 */

#define SF_MAX_RECORD (256u * 1024u) /* largest caplen accepted (libpcap: 256 KiB) */

enum sf_format {
	SF_FORMAT_PCAP = 0, /* classic pcap, microsecond timestamps */
	SF_FORMAT_PCAP_NS,  /* classic pcap, nanosecond timestamps */
	SF_FORMAT_PCAPNG,
	SF_FORMAT_COUNT,
};

/* What the file says about one capture interface (pcapng IDB / pcap header). */
struct sf_iface {
	uint32_t linktype;
	uint32_t snaplen;
	char name[64]; /* if_name, "" if absent */
	/* Last ISB seen for this interface; have_* say which were present. */
	uint64_t isb_ifrecv, isb_ifdrop, isb_osdrop;
	unsigned have_ifrecv : 1, have_ifdrop : 1, have_osdrop : 1;
	/* Sum of epb_dropcount over this interface's packets so far. */
	uint64_t epb_drops;
	unsigned have_epb_drops : 1;
};

struct sf_reader;

/*
 * Open path ("-" for stdin). Returns NULL on failure with a one-line reason
 * in errbuf (no trailing newline). The caller owns the reader.
 */
struct sf_reader *sf_open(const char *path, char *errbuf, size_t errlen);

/*
 * As sf_open(), and every wait for input (a FIFO with no writer yet, a
 * quiet pipe, FIFO or terminal) also ends once *stop is non-zero (a signal
 * handler's flag; its handler installed without SA_RESTART), within
 * SF_STOP_POLL_MS (100 ms): the open fails, or sf_next() returns
 * ERR_INTERRUPTED. With code non-NULL a failed open leaves its enum
 * err_code there (ERR_INPUT_EMPTY for a 0-byte input, ERR_INTERRUPTED ...).
 */
struct sf_reader *sf_open_stop(const char *path, const volatile sig_atomic_t *stop, int *code,
			       char *errbuf, size_t errlen);

/*
 * Every pcapng block as read, in file order (the reader has checked its
 * length and trailer): block points at its first byte, len bytes long, in
 * the byte order of its section (big: big-endian). A packet block is shown
 * before sf_next() returns its packet. Borrowed for the call only.
 */
typedef void sf_block_fn(void *ctx, const uint8_t *block, uint32_t len, int big);
/*
 * As sf_open(), and pcapng blocks go to fn as they are read, from the
 * first section header on (tcpsift annotate copies them; classic pcap has
 * none).
 */
struct sf_reader *sf_open_blocks(const char *path, sf_block_fn *fn, void *ctx, char *errbuf,
				 size_t errlen);
/*
 * Read the next packet into *p. Returns 1 for a packet, 0 at a clean end of
 * file, or a negative enum err_code (common/err.h): ERR_INPUT (read(2)
 * failed), ERR_INTERRUPTED (sf_open_stop's stop), ERR_INPUT_FORMAT (not a capture file, or a
 * version we do not read), ERR_INPUT_CORRUPT (a bogus length, a bad block, an option overrun,
 * compressed data that does not decode), ERR_INPUT_TRUNCATED (the file ends inside a record, or its
 * compressed stream ends early) or ERR_NOMEM; sf_error() then says what and at which byte offset.
 * p->data is borrowed until the next sf_next()/sf_close(). p->input is left for the caller;
 * p->frame counts packets from 1.
 */
int sf_next(struct sf_reader *r, struct pkt *p);

/*
 * From now on the bytes of each packet sf_next() returns stay where they
 * are until sf_keep_release() says so, not only until the next call: a
 * refill moves the unread tail to another buffer (a spare, else a new one)
 * and keeps the old one, stamped with *gen, which it then increments (one
 * counter may serve several readers: it counts their refills). For a
 * reader that hands packets to other threads without copying them.
 */
void sf_keep(struct sf_reader *r, uint64_t *gen);
/* The buffers kept with a stamp below gen are no longer needed (no packet
 * read while gen was lower is in use): they become spares or are freed. */
void sf_keep_release(struct sf_reader *r, uint64_t gen);

/* The last error as "offset N: reason", valid until the next call. */
const char *sf_error(const struct sf_reader *r);

enum sf_format sf_format(const struct sf_reader *r);
const char *sf_format_name(enum sf_format f); /* "pcap", "pcap-ns", "pcapng" */
int sf_compressed(const struct sf_reader *r); /* 1 when gzip, bzip2 or xz was decoded */

/*
 * Interfaces seen so far (pcapng may add more later in the file); after
 * sf_open() there is at least one. Interface numbers are global in the
 * file: each pcapng section's IDBs follow the previous sections', as
 * pkt->iface counts them. The pointer is borrowed until the next sf_next()
 * (a new IDB may move the table); NULL when i is out of range.
 */
unsigned sf_iface_count(const struct sf_reader *r);
const struct sf_iface *sf_iface(const struct sf_reader *r, unsigned i);

/*
 * Malformed parts skipped without failing the read, because libpcap (the
 * reference) ignores them too: EPB/PB/ISB options that overrun their block
 * or carry the wrong length for their code, and ISBs naming an interface the
 * section does not have. The packet itself is still returned.
 */
uint64_t sf_bad_options(const struct sf_reader *r);

/* Byte offset in the (uncompressed) stream of the next unread byte. */
uint64_t sf_offset(const struct sf_reader *r);

/* Total size of the input when it is a regular uncompressed file, else 0. */
uint64_t sf_size(const struct sf_reader *r);

void sf_close(struct sf_reader *r); /* NULL is a no-op */

#endif
