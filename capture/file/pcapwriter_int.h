/* pcapwriter_int.h - the writer's state, shared by its API half and its rotation half. */
#ifndef TCPSIFT_PCAPWRITER_INT_H
#define TCPSIFT_PCAPWRITER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/file/pcapwriter.h"
#include "capture/file/pcapwriter_enc.h"
#include "common/err.h"

/*
 * The writer in three parts:
 *
 *   pcapwriter.c         the API: checks, the output buffer and what a failed write leaves
 *   pcapwriter_rotate.c  the rotation policy: file names, -C/-G/-W, each file's life
 *   pcapwriter_enc.c     the bytes: blocks, records, options (no I/O)
 *
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

#define PW_BUF_SIZE (1u << 20)

/* A finished or current file of the ring, enough to rebuild its name. */
struct pw_ringslot {
	uint32_t seq;
	int64_t start_sec;
};

struct pw_writer {
	uint64_t rotate_bytes;
	int64_t rotate_ns;
	uint32_t max_files;
	bool ring;	/* rotate_bytes or rotate_ns set: names carry seq + time */
	bool is_stdout; /* "-": no truncation, never closed */
	bool overwrite; /* an existing regular file of ours may be truncated */
	bool discard;	/* pw_config.discard: no file, packets only counted */
	unsigned file_mode;
	char *path;
	char *comment;
	char os[160];

	struct pw_enc_hdr hdr; /* what every file starts with; points at ifs, comment, os */
	struct pw_enc_iface *ifs;
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

	int err;     /* sticky errno after a failed write or open: the output is done */
	bool closed; /* pw_close() ran */
	struct pw_counters ctr;
	char errbuf[256];
};

/* --- the output buffer (pcapwriter.c) ---------------------------------------- */

void pw_seterr(struct pw_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Write the whole buffer to the current file. 0 or ERR_SYSTEM (then the
 * file ends on its last complete record and the errno in w->err is sticky). */
int pw_drain(struct pw_writer *w);

/* Make room for n more bytes of whole records. */
static inline int pw_reserve(struct pw_writer *w, size_t n)
{
	if (w->len + n <= PW_BUF_SIZE)
		return 0;
	return pw_drain(w);
}

/* --- the rotation policy (pcapwriter_rotate.c) --------------------------------- */

/*
 * At pw_open: a ring names its first file after the first packet, so it
 * opens it then; check now that the directory can take files. 0, or
 * ERR_SYSTEM with the reason in errbuf.
 */
int pw_ring_check_dir(const struct pw_writer *w, char *errbuf, size_t errlen);

/* Open the next file (ring mode: named after start_ns, the oldest removed
 * beyond -W) and buffer its header. 0 or ERR_SYSTEM. */
int pw_file_open(struct pw_writer *w, int64_t start_ns);

/* Must the current file end before a record of rec bytes stamped ts_ns? */
bool pw_file_full(const struct pw_writer *w, int64_t ts_ns, size_t rec);

/* End the current file and open the next, named after start_ns. */
int pw_file_rotate(struct pw_writer *w, int64_t start_ns);

/*
 * Finish the current file: ISBs (pcapng), flush, close. After a failed
 * write the ISBs are still tried, so a disk-full file gets them when they
 * fit; a failure then only truncates again to a record boundary.
 */
int pw_file_finish(struct pw_writer *w);

#endif
