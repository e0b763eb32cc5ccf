/* savefile_input.c - the reader's input: one large read buffer filled by read(2) or a decoder. */
#include "capture/file/savefile_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"

static const char *const sf_zip_names[SF_ZIP_COUNT] = {"none", "gzip", "bzip2",
						       "xz",   "lzo",  "zstd"};

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
	if (GROW(r->buf, r->cap, need, SF_BUF_SMALL) < 0)
		return sf_fail(r, ERR_NOMEM, sf_pos(r), "out of memory for a %zu-byte record",
			       need);
	return 0;
}

/* Wait until fd has data, its writer left, or *r->stop is set (then
 * ERR_INTERRUPTED). A signal handler setting the flag interrupts poll(2)
 * (its handler is installed without SA_RESTART); the timeout covers a
 * signal that reached another thread, or came just before the call. */
static int sf_wait_readable(struct sf_reader *r)
{
	struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
	int timeout = r->stop != NULL ? SF_STOP_POLL_MS : -1;

	for (;;) {
		if (r->stop != NULL && *r->stop)
			return sf_fail(r, ERR_INTERRUPTED, SF_NO_OFFSET,
				       "interrupted while waiting for input");
		int n = poll(&pfd, 1, timeout);
		if (n > 0)
			return 0; /* data, hang-up or an error: read(2) says which */
		if (n == -1 && errno != EINTR)
			return sf_fail(r, ERR_INPUT, SF_NO_OFFSET, "poll: %s", strerror(errno));
	}
}

ssize_t sf_raw_read(struct sf_reader *r, void *dst, size_t len)
{
	for (;;) {
		if (!r->regular) {
			int rc = sf_wait_readable(r);
			if (rc < 0)
				return rc;
		}
		ssize_t n = read(r->fd, dst, len);
		if (n >= 0)
			return n;
		if (errno == EAGAIN)
			continue; /* another reader of a shared pipe took the data */
		if (errno != EINTR)
			return sf_fail(r, ERR_INPUT, r->buf_off + r->end, "read: %s",
				       strerror(errno));
		if (r->stop != NULL && *r->stop)
			return sf_fail(r, ERR_INTERRUPTED, SF_NO_OFFSET,
				       "interrupted while waiting for input");
	}
}

/* sf_keep(): the unread tail into another buffer of at least need bytes
 * (a spare, else a new one), the current one kept, stamped. */
static int sf_switch(struct sf_reader *r, size_t need)
{
	size_t left = r->end - r->pos, cap = need > r->cap ? need : r->cap;
	uint8_t *nb = NULL;

	if (GROW(r->kept, r->cap_kept, r->nkept + 1, 8) < 0)
		return sf_fail(r, ERR_NOMEM, sf_pos(r), "out of memory for the read buffers");
	for (unsigned k = 0; k < r->nspare && !nb; k++)
		if (r->spare[k].cap >= cap) {
			nb = r->spare[k].buf;
			cap = r->spare[k].cap;
			r->spare[k] = r->spare[--r->nspare];
		}
	if (!nb && !(nb = malloc(cap)))
		return sf_fail(r, ERR_NOMEM, sf_pos(r), "out of memory for a %zu-byte read buffer",
			       cap);
	memcpy(nb, r->buf + r->pos, left);
	r->kept[r->nkept++] = (struct sf_kept){r->buf, r->cap, (*r->keep_gen)++};
	r->buf = nb;
	r->cap = cap;
	r->buf_off += r->pos;
	r->end = left;
	r->pos = 0;
	return 0;
}

void sf_keep(struct sf_reader *r, uint64_t *gen)
{
	r->keep_gen = gen;
}

void sf_keep_release(struct sf_reader *r, uint64_t gen)
{
	size_t k = 0;

	for (; k < r->nkept && r->kept[k].stamp < gen; k++) {
		if (r->nspare < SF_SPARES)
			r->spare[r->nspare++] = r->kept[k];
		else
			free(r->kept[k].buf);
	}
	if (k == 0)
		return;
	memmove(r->kept, r->kept + k, (r->nkept - k) * sizeof(*r->kept));
	r->nkept -= k;
}

int sf_refill(struct sf_reader *r, size_t need)
{
	if (r->err)
		return r->err;
	/* Packets in use point into buf (sf_keep()): nothing in it moves. */
	if (r->keep_gen && (r->pos > 0 || need > r->cap)) {
		if (sf_switch(r, need) < 0)
			return r->err;
	} else if (need > r->cap && sf_grow(r, need) < 0) {
		return r->err;
	}
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
		if (r->uz != NULL)
			n = sf_zip_read(r, r->buf + r->end, r->cap - r->end);
		else
			n = sf_raw_read(r, r->buf + r->end, r->cap - r->end);
		if (n < 0)
			return (int)n;
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
	if (n >= 4 && memcmp(m, "\x28\xb5\x2f\xfd", 4) == 0)
		return SF_ZIP_ZSTD;
	return SF_ZIP_NONE;
}

/* Read until len bytes or the end of the input: the magic is looked at
 * before anything is decoded, so nothing needs to be peeked and put back. */
static ssize_t sf_read_full(struct sf_reader *r, uint8_t *dst, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = sf_raw_read(r, dst + got, len - got);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int sf_input_open(struct sf_reader *r, const char *path)
{
	const int is_stdin = strcmp(path, "-") == 0;
	uint8_t m[8];
	ssize_t got;
	struct stat st;
	size_t cap = SF_BUF_INIT;

	if (is_stdin) {
		r->fd = 0;
	} else {
		/* O_NONBLOCK: a FIFO with no writer yet opens at once (and is then
		 * waited for by poll(2), which a stop ends) instead of blocking
		 * in open(2) beyond the reach of any signal flag. */
		r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (r->fd == -1)
			return sf_fail(r, ERR_INPUT, SF_NO_OFFSET, "cannot open: %s",
				       strerror(errno));
		r->own_fd = 1;
		int fl = fcntl(r->fd, F_GETFL);
		if (fl == -1 || fcntl(r->fd, F_SETFL, fl & ~O_NONBLOCK) == -1)
			return sf_fail(r, ERR_INPUT, SF_NO_OFFSET, "fcntl: %s", strerror(errno));
	}
	if (fstat(r->fd, &st) == -1)
		return sf_fail(r, ERR_INPUT, SF_NO_OFFSET, "cannot stat: %s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return sf_fail(r, ERR_INPUT, SF_NO_OFFSET, "is a directory, not a capture file");
	if (S_ISREG(st.st_mode)) {
		r->regular = 1;
		r->size = (uint64_t)st.st_size;
		if (st.st_size < (off_t)SF_BUF_INIT)
			cap = (size_t)st.st_size + 1 < SF_BUF_SMALL ? SF_BUF_SMALL
								    : (size_t)st.st_size + 1;
	}
	got = sf_read_full(r, m, sizeof(m));
	if (got < 0)
		return (int)got;
	r->zip = sf_zip_kind(m, (size_t)got);
	if (r->zip == SF_ZIP_LZO || r->zip == SF_ZIP_ZSTD)
		return sf_fail(r, ERR_INPUT_FORMAT, 0,
			       "%s-compressed input: tcpsift reads gzip, bzip2 and xz (decompress "
			       "it with %s first)",
			       sf_zip_name(r->zip), r->zip == SF_ZIP_LZO ? "lzop -d" : "zstd -d");
	if (r->zip != SF_ZIP_NONE) {
		r->size = 0;
		cap = SF_BUF_INIT;
	}
	r->buf = malloc(cap);
	if (r->buf == NULL)
		return sf_fail(r, ERR_NOMEM, 0, "out of memory for the read buffer");
	r->cap = cap;
	if (r->zip != SF_ZIP_NONE)
		return sf_zip_start(r, m, (size_t)got);
	memcpy(r->buf, m, (size_t)got);
	r->end = (size_t)got;
	return 0;
}
