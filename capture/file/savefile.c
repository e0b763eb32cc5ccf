/* savefile.c - zero-copy pcap/pcapng reader: open by magic, dispatch to the format, accessors. */
#include "capture/file/savefile_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Pick the format by the first four bytes, read big-endian; a compressed
 * stream that is still compressed, or not a capture, says which it was. */
static int sf_open_format(struct sf_reader *r)
{
	uint32_t magic;
	enum sf_zip inner;
	int rc;

	rc = sf_need(r, 4);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		if (r->end == r->pos && r->uz != NULL)
			return sf_fail(r, ERR_INPUT_EMPTY, 0, "empty after %s decompression",
				       sf_zip_name(r->zip));
		if (r->end == r->pos)
			return sf_fail(r, ERR_INPUT_EMPTY, SF_NO_OFFSET, "empty input (0 bytes)");
		return sf_fail(r, ERR_INPUT_TRUNCATED, 0,
			       "input is %zu bytes, too short for a pcap or pcapng header",
			       r->end - r->pos);
	}
	magic = sf_rd32(r->buf + r->pos, 1);
	switch (magic) {
	case PCAP_MAGIC_US:
	case PCAP_MAGIC_NS:
	case PCAP_MAGIC_KUZ:
	case PCAP_MAGIC_US_SWAPPED:
	case PCAP_MAGIC_NS_SWAPPED:
	case PCAP_MAGIC_KUZ_SWAPPED:
		return sf_pcap_open(r, magic);
	case PCAPNG_BT_SHB:
		return sf_pcapng_open(r);
	default:
		break;
	}
	inner = sf_zip_kind(r->buf + r->pos, r->end - r->pos);
	if (r->uz != NULL && inner != SF_ZIP_NONE)
		return sf_fail(r, ERR_INPUT_FORMAT, 0, "%s-compressed twice (%s inside %s)",
			       sf_zip_name(inner), sf_zip_name(inner), sf_zip_name(r->zip));
	if (r->uz != NULL)
		return sf_fail(
		    r, ERR_INPUT_FORMAT, 0,
		    "not a pcap or pcapng file after %s decompression (magic 0x%08" PRIx32 ")",
		    sf_zip_name(r->zip), magic);
	return sf_fail(r, ERR_INPUT_FORMAT, 0, "not a pcap or pcapng file (magic 0x%08" PRIx32 ")",
		       magic);
}

struct sf_reader *sf_open(const char *path, char *errbuf, size_t errlen)
{
	return sf_open_stop(path, NULL, NULL, errbuf, errlen);
}

static struct sf_reader *sf_open_with(const char *path, const volatile sig_atomic_t *stop,
				      int *code, sf_block_fn *fn, void *ctx, char *errbuf,
				      size_t errlen)
{
	struct sf_reader *r = calloc(1, sizeof(*r));

	if (code != NULL)
		*code = ERR_NOMEM;
	if (r == NULL) {
		if (errlen > 0)
			snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	r->fd = -1;
	r->stop = stop;
	r->block_fn = fn;
	r->block_ctx = ctx;
	if (sf_input_open(r, path) < 0 || sf_open_format(r) < 0)
		goto err;
	return r;
err:
	if (errlen > 0)
		snprintf(errbuf, errlen, "%s", r->msg);
	if (code != NULL)
		*code = r->err;
	sf_close(r);
	return NULL;
}

struct sf_reader *sf_open_stop(const char *path, const volatile sig_atomic_t *stop, int *code,
			       char *errbuf, size_t errlen)
{
	return sf_open_with(path, stop, code, NULL, NULL, errbuf, errlen);
}

struct sf_reader *sf_open_blocks(const char *path, sf_block_fn *fn, void *ctx, char *errbuf,
				 size_t errlen)
{
	return sf_open_with(path, NULL, NULL, fn, ctx, errbuf, errlen);
}

/* --- accessors ------------------------------------------------------------- */

int sf_next(struct sf_reader *r, struct pkt *p)
{
	if (r->err)
		return r->err;
	return r->next(r, p);
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
	return r->uz != NULL;
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
	return r->uz != NULL ? 0 : r->size;
}

void sf_close(struct sf_reader *r)
{
	if (r == NULL)
		return;
	sf_zip_free(r->uz);
	if (r->own_fd)
		close(r->fd);
	free(r->buf);
	for (size_t k = 0; k < r->nkept; k++)
		free(r->kept[k].buf);
	free(r->kept);
	for (unsigned k = 0; k < r->nspare; k++)
		free(r->spare[k].buf);
	free(r->ifs);
	free(r);
}
