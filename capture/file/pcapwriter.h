/* pcapwriter.h - pcapng (default) and classic pcap writers with a file ring. */
#ifndef TCPSIFT_PCAPWRITER_H
#define TCPSIFT_PCAPWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/pkt.h"

/*
 * A writer owns its output: one file, stdout ("-"), or a ring of files
 * rotated by size, time or count. pcapng output has one IDB per capture
 * interface the caller declares (a socket or a queue), EPBs carrying
 * epb_queue and epb_flags, and an ISB per interface with isb_ifrecv,
 * isb_ifdrop, isb_osdrop, isb_starttime and isb_endtime at the end of every
 * file, rotated ones included, so each finished file is complete and valid
 * on its own. Classic pcap (nanosecond magic) is written on request.
 *
 * Writes are buffered in large blocks and only whole blocks/records reach
 * the file: on a write error (disk full) the file is truncated back to its
 * last complete record, the packet is counted as lost and the error is
 * reported, so the last file stays valid.
 */

enum pw_format {
	PW_PCAPNG = 0,
	PW_PCAP,
	PW_FORMAT_COUNT,
};

struct pw_config {
	const char *path; /* file name, or "-" for stdout */
	enum pw_format format;
	uint32_t snaplen;
	uint64_t rotate_bytes; /* -C: rotate when a file reaches this size (0: never) */
	int64_t rotate_ns;     /* -G: rotate every this many ns of capture time (0: never) */
	uint32_t max_files;    /* -W: keep at most this many files, oldest removed (0: all) */
	const char *comment;   /* shb_comment, NULL for none */
	bool overwrite;	       /* reuse an existing regular file of ours (see pw_open) */
	unsigned file_mode;    /* permission bits of every file, exactly (0: 0640) */
	/* No file at all: packets are counted as written and go nowhere (a
	 * capture that only feeds its analyzer: capture --metrics without -w).
	 * path is then only a name to show. */
	bool discard;
};

#define PW_FILE_MODE_DEFAULT 0640u

/* One capture interface (an IDB): a socket, or one queue of a NIC. */
struct pw_iface {
	const char *name;  /* if_name, e.g. "eth0" */
	uint32_t linktype; /* LINKTYPE_* */
	int32_t queue;	   /* -1 when it is the whole interface */
};

/* Drop counters for an ISB, as known when a file closes. */
struct pw_ifstats {
	uint64_t ifrecv, ifdrop, osdrop;
	bool have_ifrecv, have_ifdrop, have_osdrop;
};

struct pw_writer;

/*
 * Open (the first file of) the output. NULL with a reason in errbuf.
 *
 * A capturer may run as root in a directory others can write to, so a file
 * is never opened through a planted link and never clobbered by default:
 * it is created (O_CREAT | O_EXCL, which also refuses a symlink, dangling
 * or not), and an existing name is refused. With overwrite, an existing
 * name is reused only when it is a regular file owned by the effective uid
 * with a single link (opened O_NOFOLLOW, checked, then truncated). Every
 * file gets file_mode exactly (fchmod: the umask does not widen or narrow
 * what was asked). Ring files follow the same rules at each rotation.
 */
struct pw_writer *pw_open(const struct pw_config *cfg, const struct pw_iface *ifaces,
			  unsigned nifaces, char *errbuf, size_t errlen);

/*
 * Write one packet captured on interface iface (index into the array given
 * to pw_open); p->queue/have/epb_flags/dropcount go into EPB options.
 * Rotates first when the ring says so. 0, or a negative enum err_code
 * (common/err.h; then pw_error() says what, errno text included, and the
 * packet was not written): ERR_SYSTEM when a file cannot be opened or
 * written (disk full, a closed pipe), ERR_USAGE for a write after
 * pw_close() or to an interface pw_open() was not given.
 */
int pw_write(struct pw_writer *w, unsigned iface, const struct pkt *p);

/*
 * Counters for the ISBs of the file being written, asked for whenever a file
 * closes (rotation or pw_close): the callback fills one struct per interface.
 */
typedef void pw_stats_fn(void *ctx, unsigned iface, struct pw_ifstats *out);
void pw_set_stats_source(struct pw_writer *w, pw_stats_fn *fn, void *ctx);

/* Flush buffered records to the file (not fsync). 0 or ERR_SYSTEM. */
int pw_flush(struct pw_writer *w);

/* Finish the current file (ISBs, flush, close). 0 or ERR_SYSTEM. */
int pw_close(struct pw_writer *w);

const char *pw_error(const struct pw_writer *w);

/* Totals: packets and bytes written, files finished, packets lost on errors. */
struct pw_counters {
	uint64_t packets, bytes, files, lost;
};
const struct pw_counters *pw_counters(const struct pw_writer *w);

void pw_free(struct pw_writer *w); /* closes if still open; NULL is a no-op */

/*
 * Name of the file being written, or PATH before a ring's first file opens.
 * With rotate_bytes or rotate_ns set, files are named PATH with "_SEQ_TIME"
 * before the extension: a 5-digit sequence from 00001 and the UTC time of
 * the file's first packet (out.pcapng -> out_00001_20261130110402.pcapng);
 * without rotation the file is exactly PATH. Borrowed until the next
 * pw_write()/pw_close().
 *
 * Errors are sticky: after a failed write every later pw_write() returns
 * the same error and counts its packet as lost; pw_close() still tries to
 * append the ISBs to a regular file and closes it.
 */
const char *pw_path(const struct pw_writer *w);

#endif
