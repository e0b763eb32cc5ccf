/* savefile_zip.c - gzip, bzip2 and xz input decoded by the reader itself, into its buffer. */
#include "capture/file/savefile_int.h"

#include <bzlib.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/*
 * Why not libwandio (which libtrace still uses): its reader thread blocks
 * in read(2) where no stop flag reaches it, and on a truncated stream it
 * drops what the failing read had decoded (up to ~1 MiB: a small truncated
 * .gz gave nothing). Here compressed bytes come through sf_raw_read() (a
 * stop ends its waits), every byte decoded before a cut or a corrupt spot
 * reaches the buffer, and the error names both offsets.
 *
 * Concatenated streams (gzip members, pbzip2 output, xz streams) are read
 * as one, as gzip -dc, bzip2 -dc and xz -dc read them.
 */

#define SF_ZIP_IN      (64u * 1024u)
#define SF_XZ_MEMLIMIT ((uint64_t)256 << 20) /* xz -9 needs 65 MiB; a hostile header more */

struct sf_unzip {
	enum sf_zip kind;
	union {
		z_stream z;
		bz_stream bz;
		lzma_stream xz;
	} s;
	int started;	  /* the decoder was initialised (free it) */
	int in_stream;	  /* inside a stream: its end not decoded yet */
	int in_eof;	  /* the compressed input ended */
	int done;	  /* the last stream ended at the input's end */
	int pending;	  /* an error to return once the bytes before it are out */
	char why[128];	  /* its reason */
	uint64_t in_used; /* compressed bytes the decoder consumed */
	const uint8_t *next;
	size_t avail;
	uint8_t in[SF_ZIP_IN];
};

static int zip_init(struct sf_reader *r, struct sf_unzip *u)
{
	int ok;

	switch (r->zip) {
	case SF_ZIP_GZIP:
		ok = inflateInit2(&u->s.z, 15 + 16) == Z_OK; /* gzip wrapper only */
		break;
	case SF_ZIP_BZIP2:
		ok = BZ2_bzDecompressInit(&u->s.bz, 0, 0) == BZ_OK;
		break;
	case SF_ZIP_XZ: {
		lzma_stream init = LZMA_STREAM_INIT;
		u->s.xz = init;
		ok = lzma_stream_decoder(&u->s.xz, SF_XZ_MEMLIMIT, LZMA_CONCATENATED) == LZMA_OK;
		break;
	}
	default:
		ok = 0;
		break;
	}
	if (!ok)
		return sf_fail(r, ERR_NOMEM, 0, "cannot start the %s decoder", sf_zip_name(r->zip));
	u->started = 1;
	return 0;
}

int sf_zip_start(struct sf_reader *r, const uint8_t *first, size_t n)
{
	struct sf_unzip *u = calloc(1, sizeof(*u));

	if (u == NULL)
		return sf_fail(r, ERR_NOMEM, 0, "out of memory for the %s decoder",
			       sf_zip_name(r->zip));
	r->uz = u;
	u->kind = r->zip;
	memcpy(u->in, first, n);
	u->next = u->in;
	u->avail = n;
	return zip_init(r, u);
}

/*
 * One decoder step from u->next/avail into dst: bytes produced, with
 * *end set when a stream ended; -1 for bad data (u->why says why).
 */
static ssize_t zip_step(struct sf_reader *r, struct sf_unzip *u, uint8_t *dst, size_t len, int *end)
{
	size_t in0 = u->avail, out;
	int rc;

	*end = 0;
	switch (r->zip) {
	case SF_ZIP_GZIP: {
		z_stream *z = &u->s.z;
		z->next_in = (Bytef *)(uintptr_t)u->next;
		z->avail_in = (uInt)(u->avail < UINT32_MAX ? u->avail : UINT32_MAX);
		z->next_out = dst;
		z->avail_out = (uInt)(len < UINT32_MAX ? len : UINT32_MAX);
		rc = inflate(z, Z_NO_FLUSH);
		out = (size_t)(z->next_out - dst);
		u->avail -= (size_t)(z->next_in - u->next);
		u->next = z->next_in;
		if (rc == Z_STREAM_END) {
			*end = 1;
			inflateReset(z);
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			snprintf(u->why, sizeof(u->why), "%s", z->msg ? z->msg : "bad data");
			return out ? (ssize_t)out : -1;
		}
		break;
	}
	case SF_ZIP_BZIP2: {
		bz_stream *b = &u->s.bz;
		b->next_in = (char *)(uintptr_t)u->next;
		b->avail_in = (unsigned)(u->avail < UINT32_MAX ? u->avail : UINT32_MAX);
		b->next_out = (char *)dst;
		b->avail_out = (unsigned)(len < UINT32_MAX ? len : UINT32_MAX);
		rc = BZ2_bzDecompress(b);
		out = (size_t)((uint8_t *)b->next_out - dst);
		u->avail -= (size_t)((const uint8_t *)b->next_in - u->next);
		u->next = (const uint8_t *)b->next_in;
		if (rc == BZ_STREAM_END) {
			*end = 1;
			BZ2_bzDecompressEnd(b);
			memset(b, 0, sizeof(*b));
			u->started = BZ2_bzDecompressInit(b, 0, 0) == BZ_OK;
		} else if (rc != BZ_OK) {
			snprintf(u->why, sizeof(u->why), "libbz2 error %d", rc);
			return out ? (ssize_t)out : -1;
		}
		break;
	}
	default: { /* SF_ZIP_XZ */
		lzma_stream *x = &u->s.xz;
		x->next_in = u->next;
		x->avail_in = u->avail;
		x->next_out = dst;
		x->avail_out = len;
		lzma_ret lr = lzma_code(x, u->in_eof ? LZMA_FINISH : LZMA_RUN);
		out = (size_t)(x->next_out - dst);
		u->avail = x->avail_in;
		u->next = x->next_in;
		if (lr == LZMA_STREAM_END) {
			*end = 1;
		} else if (lr == LZMA_MEMLIMIT_ERROR) {
			snprintf(u->why, sizeof(u->why),
				 "needs more than %" PRIu64 " MiB to decode", SF_XZ_MEMLIMIT >> 20);
			return out ? (ssize_t)out : -1;
		} else if (lr != LZMA_OK && lr != LZMA_BUF_ERROR) {
			snprintf(u->why, sizeof(u->why), "liblzma error %d", (int)lr);
			return out ? (ssize_t)out : -1;
		}
		break;
	}
	}
	u->in_used += in0 - u->avail;
	return (ssize_t)out;
}

ssize_t sf_zip_read(struct sf_reader *r, uint8_t *dst, size_t len)
{
	struct sf_unzip *u = r->uz;
	uint64_t at = r->buf_off + r->end; /* decoded offset of dst[0] */

	if (u->pending)
		return sf_fail(r, ERR_INPUT_CORRUPT, at,
			       "%s data corrupt at compressed byte %" PRIu64 ": %s",
			       sf_zip_name(r->zip), u->in_used, u->why);
	if (u->done)
		return 0;
	if (!u->started)
		return sf_fail(r, ERR_NOMEM, at, "cannot restart the %s decoder",
			       sf_zip_name(r->zip));
	for (;;) {
		if (u->avail == 0 && !u->in_eof) {
			ssize_t n = sf_raw_read(r, u->in, sizeof(u->in));
			if (n < 0)
				return n;
			u->in_eof = n == 0;
			u->next = u->in;
			u->avail = (size_t)n;
		}
		if (u->avail == 0 && u->in_eof && !u->in_stream && r->zip != SF_ZIP_XZ) {
			u->done = 1; /* the input ends between streams */
			return 0;
		}
		if (u->avail > 0)
			u->in_stream = 1;
		int end;
		size_t before = u->avail;
		ssize_t n = zip_step(r, u, dst, len, &end);
		if (n < 0 || u->why[0]) {
			if (n > 0) { /* bad data after good bytes: those first */
				u->pending = 1;
				return n;
			}
			return sf_fail(r, ERR_INPUT_CORRUPT, at,
				       "%s data corrupt at compressed byte %" PRIu64 ": %s",
				       sf_zip_name(r->zip), u->in_used, u->why);
		}
		if (end) {
			u->in_stream = 0;
			if (r->zip == SF_ZIP_XZ) { /* LZMA_CONCATENATED: only at the input's end */
				u->done = 1;
				return n;
			}
		}
		if (n > 0)
			return n;
		if (end || u->avail != before)
			continue;
		if (u->in_eof) /* no progress with all the input given: it is cut */
			return sf_fail(r, ERR_INPUT_TRUNCATED, at,
				       "%s data ends early: the compressed file is cut after byte "
				       "%" PRIu64 " (the packets before this offset were read)",
				       sf_zip_name(r->zip), u->in_used);
		if (u->avail > 0)
			return sf_fail(r, ERR_INPUT_CORRUPT, at,
				       "%s data corrupt at compressed byte %" PRIu64
				       ": the decoder makes no progress",
				       sf_zip_name(r->zip), u->in_used);
	}
}

void sf_zip_free(struct sf_unzip *u)
{
	if (u == NULL)
		return;
	if (u->started) {
		if (u->kind == SF_ZIP_GZIP)
			inflateEnd(&u->s.z);
		else if (u->kind == SF_ZIP_BZIP2)
			BZ2_bzDecompressEnd(&u->s.bz);
		else
			lzma_end(&u->s.xz);
	}
	free(u);
}
