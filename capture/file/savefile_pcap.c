/* savefile_pcap.c - the classic pcap half of the reader: the file header and its records. */
#include "capture/file/savefile_int.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

/* Kuznetzov cooked-mode captures carry a fake Ethernet header on top of the
 * snaplen (libpcap adds it back). */
#define SF_KUZ_ETHER_LEN 14u

/* One record (pcapng_format.h: "Record"); 1 for a packet, 0 at a clean end,
 * or a negative enum err_code. */
static int sf_pcap_next(struct sf_reader *r, struct pkt *p)
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
		return sf_fail(r, ERR_INPUT_TRUNCATED, sf_pos(r),
			       "file ends inside a record header (%zu of %" PRIu32 " bytes)", have,
			       hl);
	}
	h = r->buf + r->pos;
	caplen = sf_rd32(h + PCAP_REC_CAPLEN, r->big);
	len = sf_rd32(h + PCAP_REC_LEN, r->big);
	if (r->len_order != SF_LEN_NORMAL && (r->len_order == SF_LEN_SWAPPED || caplen > len)) {
		uint32_t t = caplen;

		caplen = len;
		len = t;
	}
	if (caplen > SF_MAX_RECORD)
		return sf_fail(r, ERR_INPUT_CORRUPT, sf_pos(r),
			       "captured length %" PRIu32 " exceeds the %u-byte maximum "
			       "(damaged or fuzzed file?)",
			       caplen, SF_MAX_RECORD);
	if (r->end - r->pos < (size_t)hl + caplen) {
		rc = sf_need(r, (size_t)hl + caplen);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return sf_fail(r, ERR_INPUT_TRUNCATED, sf_pos(r),
				       "file ends inside a packet record (%zu of %zu bytes)",
				       r->end - r->pos, (size_t)hl + caplen);
		h = r->buf + r->pos;
	}
	/* libpcap hands out at most the file's snaplen and skips the rest
	 * (files from Solaris 2.3 bufmod, or fuzzed). */
	take = caplen > r->pcap_snap ? r->pcap_snap : caplen;
	/* At most (2^32 - 1) s + (2^32 - 1) us < 2^62 ns: always in pkt.ts_ns's
	 * range (common/clock.h), whatever the magic. */
	p->ts_ns = (int64_t)((uint64_t)sf_rd32(h + PCAP_REC_TS_SEC, r->big) * CLOCK_NS_PER_S +
			     (uint64_t)sf_rd32(h + PCAP_REC_TS_FRAC, r->big) * r->ts_mult);
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

int sf_pcap_open(struct sf_reader *r, uint32_t magic_be)
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
		return sf_fail(r, ERR_INPUT_TRUNCATED, 0,
			       "truncated pcap file header (%zu of %u bytes)", r->end - r->pos,
			       PCAP_HDR_LEN);
	h = r->buf + r->pos;
	/* Every magic starts with a1 when the file is big-endian. */
	r->big = (magic_be >> 24) == 0xA1u;
	magic = sf_rd32(h + PCAP_HDR_MAGIC, r->big);
	major = sf_rd16(h + PCAP_HDR_VERSION_MAJOR, r->big);
	minor = sf_rd16(h + PCAP_HDR_VERSION_MINOR, r->big);
	snaplen = sf_rd32(h + PCAP_HDR_SNAPLEN, r->big);
	ltfield = sf_rd32(h + PCAP_HDR_LINKTYPE, r->big);

	/* Versions as libpcap accepts them: 2.0-2.4 and DG/UX's 543.0. */
	if (major < 2)
		return sf_fail(r, ERR_INPUT_FORMAT, PCAP_HDR_VERSION_MAJOR,
			       "archaic pcap version %u.%u", major, minor);
	if (!((major == 2 && minor <= 4) || (major == 543 && minor == 0)))
		return sf_fail(r, ERR_INPUT_FORMAT, PCAP_HDR_VERSION_MAJOR,
			       "unsupported pcap version %u.%u", major, minor);
	if (PCAP_LT_RESERVED(ltfield) != 0)
		return sf_fail(r, ERR_INPUT_FORMAT, PCAP_HDR_LINKTYPE,
			       "savefile linktype reserved field not zero (0x%08" PRIx32 ")",
			       PCAP_LT_RESERVED(ltfield));

	/* Before 2.3, and DG/UX's 543.0: caplen and len swapped (sf-pcap.c). */
	if ((major == 2 && minor < 3) || major == 543)
		r->len_order = SF_LEN_SWAPPED;
	else if (major == 2 && minor == 3)
		r->len_order = SF_LEN_MAYBE;
	else
		r->len_order = SF_LEN_NORMAL;

	r->format = magic == PCAP_MAGIC_NS ? SF_FORMAT_PCAP_NS : SF_FORMAT_PCAP;
	r->ts_mult = magic == PCAP_MAGIC_NS ? 1 : 1000;
	r->rec_len = magic == PCAP_MAGIC_KUZ ? PCAP_REC_KUZ_HDR_LEN : PCAP_REC_HDR_LEN;
	r->pcap_snap = sf_adjust_snap(snaplen);
	if (magic == PCAP_MAGIC_KUZ && PCAP_LT_TYPE(ltfield) == PKT_LINKTYPE_ETHERNET)
		r->pcap_snap = r->pcap_snap <= INT_MAX - SF_KUZ_ETHER_LEN
				   ? r->pcap_snap + SF_KUZ_ETHER_LEN
				   : INT_MAX;

	s = sf_add_iface(r, 0);
	if (s == NULL)
		return r->err;
	s->pub.linktype = PCAP_LT_TYPE(ltfield);
	s->pub.snaplen = snaplen;
	s->snap = r->pcap_snap;
	r->n_ifs = 1;
	r->sect_count = 1;
	r->pos += PCAP_HDR_LEN;
	r->next = sf_pcap_next;
	return 0;
}
