/* savefile_input.c - the reader's input: one large read buffer filled by read(2) or libwandio. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* tee(2), pipe2(2) */
#endif
#include "capture/file/savefile_int.h"

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

static const char *const sf_zip_names[SF_ZIP_COUNT] = {"none", "gzip", "bzip2", "xz", "lzo"};

const char *sf_zip_name(enum sf_zip z)
{
	return (unsigned)z < SF_ZIP_COUNT ? sf_zip_names[z] : "?";
}

/* --- errors ---------------------------------------------------------------- */

int sf_fail(struct sf_reader *r, int code, uint64_t off, const char *fmt, ...)
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

/* --- buffer ---------------------------------------------------------------- */

static int sf_grow(struct sf_reader *r, size_t need)
{
	size_t cap = r->cap ? r->cap : SF_BUF_SMALL;
	uint8_t *nb;

	while (cap < need)
		cap *= 2;
	nb = realloc(r->buf, cap);
	if (nb == NULL)
		return sf_fail(r, ERR_NOMEM, sf_pos(r), "out of memory for a %zu-byte record",
			       need);
	r->buf = nb;
	r->cap = cap;
	return 0;
}

int sf_refill(struct sf_reader *r, size_t need)
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
				    r, ERR_INPUT, r->buf_off + r->end,
				    "%s decompression failed (corrupt or truncated stream)",
				    sf_zip_name(r->zip));
			n = (ssize_t)w;
		} else {
			n = read(r->fd, r->buf + r->end, r->cap - r->end);
			if (n == -1) {
				if (errno == EINTR)
					continue;
				return sf_fail(r, ERR_INPUT, r->buf_off + r->end, "read: %s",
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

/* --- interface table ----------------------------------------------------- */

struct sf_ifslot *sf_add_iface(struct sf_reader *r, uint64_t off)
{
	struct sf_ifslot *s;

	if (r->n_ifs >= SF_MAX_IFACES) {
		sf_fail(r, ERR_INPUT_CORRUPT, off,
			"more than %u interfaces (damaged or fuzzed file?)", SF_MAX_IFACES);
		return NULL;
	}
	if (r->n_ifs == r->cap_ifs) {
		unsigned ncap = r->cap_ifs ? r->cap_ifs * 2 : 4;
		struct sf_ifslot *n = realloc(r->ifs, ncap * sizeof(*n));

		if (n == NULL) {
			sf_fail(r, ERR_NOMEM, off, "out of memory for %u interfaces", ncap);
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

uint32_t sf_adjust_snap(uint32_t snaplen)
{
	return (snaplen == 0 || snaplen > INT_MAX) ? SF_DEFAULT_SNAP : snaplen;
}

/* --- opening ------------------------------------------------------------- */

enum sf_zip sf_zip_kind(const uint8_t *m, size_t n)
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

int sf_input_open(struct sf_reader *r, const char *path)
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
			return sf_fail(r, ERR_INPUT, SF_NO_OFFSET, "cannot open: %s",
				       strerror(errno));
		r->own_fd = 1;
	}
	if (fstat(r->fd, &st) == -1)
		return sf_fail(r, ERR_INPUT, SF_NO_OFFSET, "cannot stat: %s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return sf_fail(r, ERR_INPUT, SF_NO_OFFSET, "is a directory, not a capture file");
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
			return sf_fail(r, ERR_INPUT, 0, "libwandio cannot open the %s stream",
				       sf_zip_name(r->zip));
		if (r->own_fd)
			close(r->fd);
		r->fd = -1;
		r->own_fd = 0;
		r->size = 0;
		cap = SF_BUF_INIT;
	}
	r->buf = malloc(cap);
	if (r->buf == NULL)
		return sf_fail(r, ERR_NOMEM, 0, "out of memory for the read buffer");
	r->cap = cap;
	return 0;
}
