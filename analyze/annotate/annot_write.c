/* annot_write.c - the inputs copied into one pcapng file, comments on the annotated packets. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/annotate/annot_int.h"
#include "capture/file/pcapng_format.h"
#include "capture/file/pcapwriter_enc.h"
#include "capture/file/savefile.h"

#define ANN_BUF (1u << 20) /* the output's stdio buffer */

struct ann_writer {
	struct ann_set *a;
	FILE *out;
	size_t next; /* the first note not yet written */
	uint32_t input;
	/* The packet block the reader showed last, written once sf_next()
	 * says which frame it is (borrowed until the next sf_next()). */
	const uint8_t *pkt_block;
	uint32_t pkt_len;
	int big;
	uint8_t *blk; /* an annotated block being built */
	size_t blk_cap;
	uint8_t *enc; /* a pcap record encoded as an EPB, before its notes */
	size_t enc_cap;
	bool failed; /* a write failed (errno kept) */
	struct ann_stats *st;
};

static void wr16(uint8_t *p, uint16_t v, int big)
{
	p[big ? 0 : 1] = (uint8_t)(v >> 8);
	p[big ? 1 : 0] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v, int big)
{
	for (int k = 0; k < 4; k++)
		p[big ? 3 - k : k] = (uint8_t)(v >> (8 * k));
}

static uint32_t rd32(const uint8_t *p, int big)
{
	uint32_t v = 0;

	for (int k = 0; k < 4; k++)
		v |= (uint32_t)p[big ? 3 - k : k] << (8 * k);
	return v;
}

static uint16_t rd16(const uint8_t *p, int big)
{
	return big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t pad4(uint32_t n)
{
	return (uint32_t)pcapng_pad4(n);
}

static void put(struct ann_writer *w, const void *p, size_t n)
{
	if (!w->failed && n && fwrite(p, 1, n, w->out) != n)
		w->failed = true;
}

/* The notes of frame (in w->input), from w->next: how many. */
static size_t notes_of(struct ann_writer *w, uint64_t frame)
{
	struct ann_set *a = w->a;
	size_t k = w->next;

	/* Frames the input never had (cannot happen for a verdict of this
	 * run; counted all the same). */
	while (k < a->n && a->notes[k].input == w->input && a->notes[k].frame < frame) {
		w->st->unmatched++;
		k++;
	}
	w->next = k;
	while (k < a->n && a->notes[k].input == w->input && a->notes[k].frame == frame)
		k++;
	return k - w->next;
}

/* Bytes the options of notes [first, first + n) take. */
static uint32_t notes_size(const struct ann_set *a, size_t first, size_t n)
{
	uint32_t sz = 0;

	for (size_t k = first; k < first + n; k++) {
		sz += PCAPNG_OPT_HDR_LEN + pad4(a->notes[k].comment_len);
		sz += PCAPNG_OPT_HDR_LEN + pad4(4 + a->notes[k].tag_len);
	}
	return sz;
}

/* One option at p (code, then pre's npre bytes and v's len as its value,
 * zero padding); its size. */
static uint32_t put_opt(uint8_t *p, uint16_t code, const void *pre, uint32_t npre, const void *v,
			uint32_t len, int big)
{
	uint32_t n = npre + len;

	wr16(p, code, big);
	wr16(p + PCAPNG_OPT_LEN, (uint16_t)n, big);
	if (npre)
		memcpy(p + PCAPNG_OPT_VALUE, pre, npre);
	memcpy(p + PCAPNG_OPT_VALUE + npre, v, len);
	memset(p + PCAPNG_OPT_VALUE + n, 0, pad4(n) - n);
	return PCAPNG_OPT_HDR_LEN + pad4(n);
}

/* The notes [w->next, + n) as options at p, opt_endofopt after; the size. */
static uint32_t put_notes(struct ann_writer *w, uint8_t *p, size_t n)
{
	const struct ann_set *a = w->a;
	uint32_t off = 0;

	for (size_t k = w->next; k < w->next + n; k++) {
		const struct ann_note *x = &a->notes[k];
		uint8_t pen[4];

		off += put_opt(p + off, PCAPNG_OPT_COMMENT, NULL, 0, a->text + x->comment,
			       x->comment_len, w->big);
		/* The custom option: the PEN in the section's byte order, then the string. */
		wr32(pen, ANN_PEN, w->big);
		off += put_opt(p + off, ANN_OPT_CUSTOM_STRING, pen, sizeof(pen), a->text + x->tag,
			       x->tag_len, w->big);
	}
	wr32(p + off, 0, w->big); /* opt_endofopt: code 0, length 0 */
	return off + PCAPNG_OPT_HDR_LEN;
}

/* Room for n bytes in *buf (of *cap); false, and a failed write, when
 * there is no memory. */
static bool room(struct ann_writer *w, uint8_t **buf, size_t *cap, size_t n)
{
	if (n <= *cap)
		return true;
	uint8_t *b = realloc(*buf, n);
	if (!b) {
		errno = ENOMEM;
		w->failed = true;
		return false;
	}
	*buf = b;
	*cap = n;
	return true;
}

/* Where the options of an EPB end (its opt_endofopt or the trailer). */
static uint32_t epb_options_end(const uint8_t *b, uint32_t len, int big)
{
	uint32_t off = PCAPNG_EPB_DATA + pad4(rd32(b + PCAPNG_EPB_CAPLEN, big));
	uint32_t end = len - PCAPNG_BLK_TRAILER_LEN;

	while (off + PCAPNG_OPT_HDR_LEN <= end) {
		uint16_t code = rd16(b + off, big), olen = rd16(b + off + PCAPNG_OPT_LEN, big);
		if (code == PCAPNG_OPT_ENDOFOPT || off + PCAPNG_OPT_HDR_LEN + pad4(olen) > end)
			break;
		off += PCAPNG_OPT_HDR_LEN + pad4(olen);
	}
	return off < end ? off : end;
}

/* The EPB b (len bytes) again, its options followed by n notes. */
static void put_epb_annotated(struct ann_writer *w, const uint8_t *b, uint32_t len, size_t n)
{
	uint32_t keep = epb_options_end(b, len, w->big);
	uint32_t total =
	    keep + notes_size(w->a, w->next, n) + PCAPNG_OPT_HDR_LEN + PCAPNG_BLK_TRAILER_LEN;

	if (!room(w, &w->blk, &w->blk_cap, total))
		return;
	memcpy(w->blk, b, keep);
	uint32_t off = keep + put_notes(w, w->blk + keep, n);
	wr32(w->blk + PCAPNG_BLK_TOTAL_LEN, total, w->big);
	wr32(w->blk + off, total, w->big);
	put(w, w->blk, total);
}

/* A packet of a pcapng input: its block as it was, or with its notes. */
static void put_ng_packet(struct ann_writer *w, uint64_t frame)
{
	size_t n = notes_of(w, frame);
	uint32_t type = rd32(w->pkt_block + PCAPNG_BLK_TYPE, w->big);

	if (n && type == PCAPNG_BT_EPB) {
		put_epb_annotated(w, w->pkt_block, w->pkt_len, n);
		w->st->annotated++;
		w->st->comments += n;
	} else {
		put(w, w->pkt_block, w->pkt_len);
		w->st->not_epb += n;
	}
	w->next += n;
}

/* sf_open_blocks()'s hook: a packet block waits for its frame number,
 * every other block is copied at once. */
static void on_block(void *ctx, const uint8_t *b, uint32_t len, int big)
{
	struct ann_writer *w = ctx;
	uint32_t type = rd32(b + PCAPNG_BLK_TYPE, big);

	w->big = big;
	if (type == PCAPNG_BT_EPB || type == PCAPNG_BT_PB || type == PCAPNG_BT_SPB) {
		w->pkt_block = b;
		w->pkt_len = len;
		return;
	}
	put(w, b, len);
}

/* A classic pcap input's section, as tcpsift capture writes one: SHB and
 * one IDB (little-endian, nanosecond timestamps: the file's own, exactly). */
static void put_pcap_section(struct ann_writer *w, const struct sf_iface *ifc)
{
	struct pw_enc_iface idb = {.name = ifc->name[0] ? (char *)ifc->name : NULL,
				   .linktype = ifc->linktype};
	struct pw_enc_hdr h = {.format = PW_PCAPNG,
			       .snaplen = ifc->snaplen,
			       .comment = "annotated by tcpsift annotate",
			       .ifs = &idb,
			       .nifaces = 1};

	w->big = 0;
	if (!room(w, &w->blk, &w->blk_cap, pw_enc_hdr_size(&h)))
		return;
	put(w, w->blk, pw_enc_hdr(&h, w->blk));
}

/* A classic pcap record as an EPB on interface 0 of its section, encoded
 * as tcpsift capture does, then annotated as a pcapng input's would be. */
static void put_pcap_packet(struct ann_writer *w, const struct pkt *p)
{
	if (!room(w, &w->enc, &w->enc_cap, pw_enc_pkt_size(PW_PCAPNG, p->caplen, p)))
		return;
	w->pkt_block = w->enc;
	w->pkt_len = (uint32_t)pw_enc_pkt(PW_PCAPNG, w->enc, 0, p, p->caplen, p->wirelen);
	put_ng_packet(w, p->frame);
}

/* Input k into the output. */
static int put_input(struct ann_writer *w, const char *path, char *err, size_t errlen)
{
	char why[256];
	struct sf_reader *r = sf_open_blocks(path, on_block, w, why, sizeof(why));
	struct pkt p;
	int rc;

	if (!r) {
		snprintf(err, errlen, "%s: %s", path, why);
		return ERR_INPUT;
	}
	bool ng = sf_format(r) == SF_FORMAT_PCAPNG;
	if (!ng)
		put_pcap_section(w, sf_iface(r, 0));
	while ((rc = sf_next(r, &p)) == 1) {
		if (ng)
			put_ng_packet(w, p.frame);
		else
			put_pcap_packet(w, &p);
		w->st->packets++;
		if (w->failed)
			break;
	}
	if (rc < 0)
		snprintf(err, errlen, "%s: %s", path, sf_error(r));
	sf_close(r);
	/* Notes past the input's last frame. */
	while (w->next < w->a->n && w->a->notes[w->next].input == w->input) {
		w->st->unmatched++;
		w->next++;
	}
	return rc < 0 ? rc : 0;
}

/* Inputs that cannot be read a second time, or that out would overwrite. */
int ann_check(const char *const *paths, unsigned n, const char *out, char *err, size_t errlen)
{
	struct stat so, si;
	bool have_out = strcmp(out, "-") != 0 && stat(out, &so) == 0;

	for (unsigned k = 0; k < n; k++) {
		if (strcmp(paths[k], "-") == 0 ||
		    (stat(paths[k], &si) == 0 && !S_ISREG(si.st_mode))) {
			snprintf(err, errlen,
				 "%s: annotating reads each input twice: give a file, not a pipe "
				 "or standard input",
				 paths[k]);
			return ERR_USAGE;
		}
		if (have_out && stat(paths[k], &si) == 0 && si.st_dev == so.st_dev &&
		    si.st_ino == so.st_ino) {
			snprintf(err, errlen, "%s is also an input: annotate into another file",
				 out);
			return ERR_USAGE;
		}
	}
	return 0;
}

int ann_write(struct ann_set *a, const char *const *paths, unsigned n, const char *out,
	      struct ann_stats *st, char *err, size_t errlen)
{
	struct ann_writer w = {.a = a, .st = st};
	int rc = ann_check(paths, n, out, err, errlen);

	memset(st, 0, sizeof(*st));
	st->dropped = a->dropped;
	if (rc < 0)
		return rc;
	ann_sort(a);
	w.out = strcmp(out, "-") == 0 ? stdout : fopen(out, "wb");
	if (!w.out) {
		snprintf(err, errlen, "cannot write %s: %s", out, strerror(errno));
		return ERR_SYSTEM;
	}
	setvbuf(w.out, NULL, _IOFBF, ANN_BUF);
	for (unsigned k = 0; k < n && rc == 0 && !w.failed; k++) {
		w.input = k;
		rc = put_input(&w, paths[k], err, errlen);
	}
	/* Verdicts of inputs that were not read (a read failed before them). */
	st->unmatched += a->n - w.next;
	if (fflush(w.out) != 0)
		w.failed = true;
	if (w.failed && rc == 0) {
		snprintf(err, errlen, "cannot write %s: %s", out, strerror(errno));
		rc = ERR_SYSTEM;
	}
	if (w.out != stdout && fclose(w.out) != 0 && rc == 0) {
		snprintf(err, errlen, "cannot write %s: %s", out, strerror(errno));
		rc = ERR_SYSTEM;
	}
	free(w.blk);
	free(w.enc);
	return rc;
}
