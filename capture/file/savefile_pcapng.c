/* savefile_pcapng.c - the pcapng half of the reader: sections, interfaces, packet and statistics
 * blocks. */
#include "capture/file/savefile_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Block layouts: pcapng_format.h. Every field is in the section's byte
 * order (r->big), set by the SHB that opened the section. */

/* An SHB's bytes up to the end of its byte-order magic: what tells its byte
 * order, so its length can be read. */
#define SF_NG_BOM_END (PCAPNG_SHB_BOM + 4u)

static uint32_t sf_ng_min_len(uint32_t type)
{
	switch (type) {
	case PCAPNG_BT_SHB:
		return PCAPNG_SHB_MIN;
	case PCAPNG_BT_IDB:
		return PCAPNG_IDB_MIN;
	case PCAPNG_BT_EPB:
	case PCAPNG_BT_PB:
		return PCAPNG_EPB_MIN;
	case PCAPNG_BT_SPB:
		return PCAPNG_SPB_MIN;
	case PCAPNG_BT_ISB:
		return PCAPNG_ISB_MIN;
	default:
		return PCAPNG_BLK_MIN;
	}
}

/* Bring a whole block of `total` bytes into the buffer after checking the
 * length in its header; verifies the trailer copy. */
static int sf_ng_load(struct sf_reader *r, uint32_t type, uint32_t total, uint32_t max,
		      uint64_t off)
{
	const uint8_t *b;
	uint32_t trailer;
	int rc;

	if (total % 4 != 0)
		return sf_fail(r, ERR_INPUT_CORRUPT, off,
			       "block total length %" PRIu32 " is not a multiple of 4", total);
	if (total < sf_ng_min_len(type))
		return sf_fail(r, ERR_INPUT_CORRUPT, off,
			       "block total length %" PRIu32 " is shorter than the %" PRIu32
			       " bytes a block of type 0x%08" PRIx32 " needs",
			       total, sf_ng_min_len(type), type);
	if (total > max)
		return sf_fail(r, ERR_INPUT_CORRUPT, off,
			       "block total length %" PRIu32 " exceeds the %" PRIu32
			       "-byte maximum for type 0x%08" PRIx32 " (damaged or fuzzed file?)",
			       total, max, type);
	rc = sf_need(r, total);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return sf_fail(r, ERR_INPUT_TRUNCATED, off,
			       "file ends inside a block of type 0x%08" PRIx32 " (%zu of %" PRIu32
			       " bytes)",
			       type, r->end - r->pos, total);
	b = r->buf + r->pos;
	trailer = sf_rd32(b + total - PCAPNG_BLK_TRAILER_LEN, r->big);
	if (trailer != total)
		return sf_fail(r, ERR_INPUT_CORRUPT, off,
			       "block total length %" PRIu32 " in trailer does not match %" PRIu32
			       " in header",
			       trailer, total);
	return 0;
}

/* Section Header Block: sets the byte order of everything up to the next one. */
static int sf_ng_shb(struct sf_reader *r, uint64_t off, int first)
{
	const uint8_t *b;
	uint32_t total, bom;
	unsigned major, minor;
	int big, rc;

	rc = sf_need(r, SF_NG_BOM_END);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return sf_fail(r, ERR_INPUT_TRUNCATED, off,
			       "file ends inside a section header (%zu of %u bytes)",
			       r->end - r->pos, SF_NG_BOM_END);
	b = r->buf + r->pos;
	bom = sf_rd32(b + PCAPNG_SHB_BOM, 0);
	if (bom == PCAPNG_BOM)
		big = 0;
	else if (sf_rd32(b + PCAPNG_SHB_BOM, 1) == PCAPNG_BOM)
		big = 1;
	else
		return sf_fail(r, first ? ERR_INPUT_FORMAT : ERR_INPUT_CORRUPT,
			       off + PCAPNG_SHB_BOM,
			       "section header with bad byte-order magic 0x%08" PRIx32, bom);
	r->big = big;
	total = sf_rd32(b + PCAPNG_BLK_TOTAL_LEN, big);
	rc =
	    sf_ng_load(r, PCAPNG_BT_SHB, total, first ? SF_NG_MAX_FIRST_SHB : SF_NG_MAX_BLOCK, off);
	if (rc < 0)
		return rc;
	b = r->buf + r->pos;
	major = sf_rd16(b + PCAPNG_SHB_MAJOR, big);
	minor = sf_rd16(b + PCAPNG_SHB_MINOR, big);
	/* As libpcap: the first section must be 1.0 or 1.2 (1.2 was written by
	 * some tools for the same format); later ones only need major 1. */
	if (major != PCAPNG_VERSION_MAJOR ||
	    (first && minor != PCAPNG_VERSION_MINOR && minor != PCAPNG_VERSION_MINOR_ALT))
		return sf_fail(r, first ? ERR_INPUT_FORMAT : ERR_INPUT_CORRUPT,
			       off + PCAPNG_SHB_MAJOR, "unsupported pcapng version %u.%u", major,
			       minor);
	r->sect_base = r->n_ifs;
	r->sect_count = 0;
	if (r->block_fn)
		r->block_fn(r->block_ctx, b, total, big);
	r->pos += total;
	return 0;
}

/* if_tsresol: 10^-v, or 2^-(v & 0x7f) when the top bit is set. */
static int sf_ng_tsresol(struct sf_reader *r, struct sf_ifslot *s, uint8_t v, uint64_t off)
{
	if (v & PCAPNG_TSRESOL_BINARY) {
		unsigned shift = v & ~PCAPNG_TSRESOL_BINARY;

		if (shift > 63)
			return sf_fail(r, ERR_INPUT_CORRUPT, off,
				       "if_tsresol 2^-%u is too fine for 64-bit timestamps", shift);
		s->ts_binary = 1;
		s->ts_shift = (uint8_t)shift;
		s->tsresol = (uint64_t)1 << shift;
		s->ts_mult = 0;
		return 0;
	}
	if (v > 19)
		return sf_fail(r, ERR_INPUT_CORRUPT, off,
			       "if_tsresol 10^-%u is too fine for 64-bit timestamps", v);
	s->ts_binary = 0;
	s->tsresol = 1;
	for (unsigned i = 0; i < v; i++)
		s->tsresol *= 10;
	s->ts_mult = v <= 9 ? CLOCK_NS_PER_S / s->tsresol : 0;
	return 0;
}

/* Interface Description Block: errors where libpcap errors (bad if_tsresol,
 * if_tsoffset, option overrun), since a wrong clock would silently corrupt
 * every later timestamp. */
static int sf_ng_idb(struct sf_reader *r, const uint8_t *b, uint32_t total, uint64_t off)
{
	const int big = r->big;
	const uint8_t *o = b + PCAPNG_IDB_OPTIONS, *end = b + total - PCAPNG_BLK_TRAILER_LEN;
	struct sf_ifslot *s;
	int saw_tsresol = 0, saw_tsoffset = 0;

	s = sf_add_iface(r, off);
	if (s == NULL)
		return r->err;
	s->pub.linktype = sf_rd16(b + PCAPNG_IDB_LINKTYPE, big);
	s->pub.snaplen = sf_rd32(b + PCAPNG_IDB_SNAPLEN, big);
	s->snap = sf_adjust_snap(s->pub.snaplen);

	while (o < end) {
		unsigned code, len;
		uint32_t padded;

		if (end - o < PCAPNG_OPT_HDR_LEN)
			return sf_fail(r, ERR_INPUT_CORRUPT, off,
				       "interface description option header overruns the block");
		code = sf_rd16(o + PCAPNG_OPT_CODE, big);
		len = sf_rd16(o + PCAPNG_OPT_LEN, big);
		padded = (uint32_t)pcapng_pad4(len);
		o += PCAPNG_OPT_HDR_LEN;
		if ((size_t)(end - o) < padded)
			return sf_fail(
			    r, ERR_INPUT_CORRUPT, off,
			    "interface description option %u length %u overruns the block "
			    "(%td bytes left)",
			    code, len, end - o);
		switch (code) {
		case PCAPNG_OPT_ENDOFOPT:
			if (len != 0)
				return sf_fail(r, ERR_INPUT_CORRUPT, off,
					       "opt_endofopt with length %u != 0", len);
			o = end;
			continue;
		case PCAPNG_IF_NAME: {
			size_t n = len < sizeof(s->pub.name) - 1 ? len : sizeof(s->pub.name) - 1;
			const uint8_t *nul = memchr(o, 0, n);

			if (nul != NULL)
				n = (size_t)(nul - o);
			memcpy(s->pub.name, o, n);
			s->pub.name[n] = '\0';
			break;
		}
		case PCAPNG_IF_TSRESOL:
			if (len != 1)
				return sf_fail(r, ERR_INPUT_CORRUPT, off,
					       "if_tsresol with length %u != 1", len);
			if (saw_tsresol++)
				return sf_fail(r, ERR_INPUT_CORRUPT, off,
					       "more than one if_tsresol");
			if (sf_ng_tsresol(r, s, o[0], off) < 0)
				return r->err;
			break;
		case PCAPNG_IF_TSOFFSET:
			if (len != 8)
				return sf_fail(r, ERR_INPUT_CORRUPT, off,
					       "if_tsoffset with length %u != 8", len);
			if (saw_tsoffset++)
				return sf_fail(r, ERR_INPUT_CORRUPT, off,
					       "more than one if_tsoffset");
			s->off_ns = (__int128)(int64_t)sf_rd64(o, big) * CLOCK_NS_PER_S;
			break;
		default:
			break;
		}
		o += padded;
	}
	r->n_ifs++;
	r->sect_count++;
	return 0;
}

/* Interface Statistics Block: libpcap ignores ISBs, so a broken one costs a
 * counter tick, never the read. */
static void sf_ng_isb(struct sf_reader *r, const uint8_t *b, uint32_t total)
{
	const int big = r->big;
	const uint8_t *o = b + PCAPNG_ISB_OPTIONS, *end = b + total - PCAPNG_BLK_TRAILER_LEN;
	uint32_t id = sf_rd32(b + PCAPNG_ISB_IFACE, big);
	struct sf_iface *f;

	if (id >= r->sect_count) {
		r->bad_options++;
		return;
	}
	f = &r->ifs[r->sect_base + id].pub;
	while (end - o >= PCAPNG_OPT_HDR_LEN) {
		unsigned code = sf_rd16(o + PCAPNG_OPT_CODE, big);
		unsigned len = sf_rd16(o + PCAPNG_OPT_LEN, big);
		uint32_t padded = (uint32_t)pcapng_pad4(len);

		o += PCAPNG_OPT_HDR_LEN;
		if ((size_t)(end - o) < padded) {
			r->bad_options++;
			return;
		}
		if (code == PCAPNG_OPT_ENDOFOPT)
			return;
		if (code == PCAPNG_ISB_IFRECV || code == PCAPNG_ISB_IFDROP ||
		    code == PCAPNG_ISB_OSDROP) {
			if (len != 8) {
				r->bad_options++;
			} else if (code == PCAPNG_ISB_IFRECV) {
				f->isb_ifrecv = sf_rd64(o, big);
				f->have_ifrecv = 1;
			} else if (code == PCAPNG_ISB_IFDROP) {
				f->isb_ifdrop = sf_rd64(o, big);
				f->have_ifdrop = 1;
			} else {
				f->isb_osdrop = sf_rd64(o, big);
				f->have_osdrop = 1;
			}
		}
		o += padded;
	}
}

/* Walk EPB (or PB, epb == 0) options for the three per-packet fields. Only
 * blocks that carry options get here. */
static void sf_ng_pkt_options(struct sf_reader *r, struct pkt *p, struct sf_ifslot *s,
			      const uint8_t *o, const uint8_t *end, int epb)
{
	const int big = r->big;

	while (end - o >= PCAPNG_OPT_HDR_LEN) {
		unsigned code = sf_rd16(o + PCAPNG_OPT_CODE, big);
		unsigned len = sf_rd16(o + PCAPNG_OPT_LEN, big);
		uint32_t padded = (uint32_t)pcapng_pad4(len);

		o += PCAPNG_OPT_HDR_LEN;
		if ((size_t)(end - o) < padded) {
			r->bad_options++;
			return;
		}
		switch (code) {
		case PCAPNG_OPT_ENDOFOPT:
			return;
		case PCAPNG_EPB_FLAGS:
			if (len != 4) {
				r->bad_options++;
				break;
			}
			p->epb_flags = sf_rd32(o, big);
			p->have |= PKT_HAVE_FLAGS;
			break;
		case PCAPNG_EPB_DROPCOUNT:
			if (!epb)
				break;
			if (len != 8) {
				r->bad_options++;
				break;
			}
			p->dropcount = sf_rd64(o, big);
			p->have |= PKT_HAVE_DROPCOUNT;
			s->pub.epb_drops += p->dropcount;
			s->pub.have_epb_drops = 1;
			break;
		case PCAPNG_EPB_QUEUE:
			if (!epb)
				break;
			if (len != 4) {
				r->bad_options++;
				break;
			}
			p->queue = sf_rd32(o, big);
			p->have |= PKT_HAVE_QUEUE;
			break;
		default:
			break;
		}
		o += padded;
	}
}

/*
 * Ticks since the epoch to ns, exactly (128-bit), then saturated into
 * pkt.ts_ns's range with p->have's PKT_HAVE_TS_CLAMPED set (common/clock.h).
 * libpcap computes modulo 2^64 instead, so a time past 2262 or before 1970
 * wraps there into another plausible-looking time; tests/tools/pcapcmp.c
 * knows. 2^64 ticks of 2^-0 (or 10^-0) s are 2^94 ns, and if_tsoffset adds
 * up to +-2^93 ns: the sum fits in 128 bits.
 */
static __int128 sf_ng_ts_slow(const struct sf_ifslot *s, uint64_t t)
{
	uint64_t sec = t / s->tsresol, frac = t % s->tsresol, frac_ns;

	if (s->ts_binary)
		/* 128-bit so 2^-35 and finer do not overflow (libpcap's
		 * 64-bit frac * 1e9 does). */
		frac_ns = (uint64_t)(((unsigned __int128)frac * CLOCK_NS_PER_S) >> s->ts_shift);
	else
		frac_ns = frac / (s->tsresol / CLOCK_NS_PER_S);
	return (__int128)sec * CLOCK_NS_PER_S + frac_ns + s->off_ns;
}

static inline void sf_ng_ts(const struct sf_ifslot *s, uint64_t t, struct pkt *p)
{
	bool clamped = false;

	/* t/res*1e9 + t%res*(1e9/res) == t*(1e9/res) exactly, so the common
	 * resolutions need no division. */
	if (s->ts_mult != 0)
		p->ts_ns = clock_ts_sat((__int128)t * s->ts_mult + s->off_ns, &clamped);
	else
		p->ts_ns = clock_ts_sat(sf_ng_ts_slow(s, t), &clamped);
	if (clamped)
		p->have |= PKT_HAVE_TS_CLAMPED;
}

static int sf_ng_bad_iface(struct sf_reader *r, uint64_t off, uint32_t id)
{
	if (r->sect_count == 0)
		return sf_fail(
		    r, ERR_INPUT_CORRUPT, off,
		    "packet block before any interface description block in its section");
	return sf_fail(r, ERR_INPUT_CORRUPT, off,
		       "packet on interface %" PRIu32 ", but the section has %u interface(s)", id,
		       r->sect_count);
}

static int sf_ng_caplen_check(struct sf_reader *r, const struct sf_ifslot *s, uint32_t caplen,
			      uint32_t room, uint64_t off)
{
	if (caplen > room)
		return sf_fail(r, ERR_INPUT_CORRUPT, off,
			       "captured length %" PRIu32 " exceeds the block's %" PRIu32
			       " data bytes",
			       caplen, room);
	if (caplen > SF_MAX_RECORD)
		return sf_fail(r, ERR_INPUT_CORRUPT, off,
			       "captured length %" PRIu32 " exceeds the %u-byte maximum "
			       "(damaged or fuzzed file?)",
			       caplen, SF_MAX_RECORD);
	/* libpcap rejects these too; its callers may size buffers by snaplen. */
	if (caplen > s->snap)
		return sf_fail(r, ERR_INPUT_CORRUPT, off,
			       "captured length %" PRIu32 " exceeds the interface snaplen %" PRIu32,
			       caplen, s->snap);
	return 0;
}

static inline void sf_ng_fill(struct sf_reader *r, struct pkt *p, const struct sf_ifslot *s,
			      unsigned gid, const uint8_t *data, uint32_t caplen, uint32_t len)
{
	p->data = data;
	p->caplen = caplen;
	p->wirelen = len < caplen ? caplen : len;
	p->linktype = s->pub.linktype;
	p->iface = gid;
	p->frame = ++r->frame;
}

/* EPB (epb = 1) or obsolete PB (epb = 0): same layout but for the
 * interface field width and PB's 16-bit drop counter. */
static int sf_ng_epb(struct sf_reader *r, struct pkt *p, const uint8_t *b, uint32_t total,
		     uint64_t off, int epb)
{
	const int big = r->big;
	uint32_t id, caplen, len, room, padded;
	unsigned gid;
	struct sf_ifslot *s;

	id = epb ? sf_rd32(b + PCAPNG_EPB_IFACE, big) : sf_rd16(b + PCAPNG_PB_IFACE, big);
	if (id >= r->sect_count)
		return sf_ng_bad_iface(r, off, id);
	gid = r->sect_base + id;
	s = &r->ifs[gid];
	caplen = sf_rd32(b + PCAPNG_EPB_CAPLEN, big);
	len = sf_rd32(b + PCAPNG_EPB_LEN, big);
	room = total - PCAPNG_EPB_MIN;
	if (sf_ng_caplen_check(r, s, caplen, room, off) < 0)
		return r->err;
	p->queue = 0;
	p->epb_flags = 0;
	p->dropcount = 0;
	p->have = 0;
	sf_ng_ts(s,
		 (uint64_t)sf_rd32(b + PCAPNG_EPB_TS_HIGH, big) << 32 |
		     sf_rd32(b + PCAPNG_EPB_TS_LOW, big),
		 p);
	if (!epb) {
		unsigned drops = sf_rd16(b + PCAPNG_PB_DROPS, big);

		if (drops != PCAPNG_PB_NO_DROPS) {
			p->dropcount = drops;
			p->have |= PKT_HAVE_DROPCOUNT;
			s->pub.epb_drops += drops;
			s->pub.have_epb_drops = 1;
		}
	}
	padded = (uint32_t)pcapng_pad4(caplen);
	if (room > padded)
		sf_ng_pkt_options(r, p, s, b + PCAPNG_EPB_DATA + padded,
				  b + total - PCAPNG_BLK_TRAILER_LEN, epb);
	sf_ng_fill(r, p, s, gid, b + PCAPNG_EPB_DATA, caplen, len);
	return 1;
}

/* Simple Packet Block: interface 0 of the section, no timestamp, caplen is
 * the wire length cut to that interface's snaplen (as libpcap does). */
static int sf_ng_spb(struct sf_reader *r, struct pkt *p, const uint8_t *b, uint32_t total,
		     uint64_t off)
{
	uint32_t len, caplen;
	struct sf_ifslot *s;

	if (r->sect_count == 0)
		return sf_ng_bad_iface(r, off, 0);
	s = &r->ifs[r->sect_base];
	len = sf_rd32(b + PCAPNG_SPB_LEN, r->big);
	caplen = len > s->snap ? s->snap : len;
	if (sf_ng_caplen_check(r, s, caplen, total - PCAPNG_SPB_MIN, off) < 0)
		return r->err;
	p->queue = 0;
	p->epb_flags = 0;
	p->dropcount = 0;
	p->have = 0;
	sf_ng_ts(s, 0, p);
	sf_ng_fill(r, p, s, r->sect_base, b + PCAPNG_SPB_DATA, caplen, len);
	return 1;
}

/*
 * Consume one pcapng block. Returns 1 with *p filled for a packet block, 0
 * for any other block, 2 at a clean end of input, negative on error.
 */
static int sf_ng_block(struct sf_reader *r, struct pkt *p)
{
	const uint8_t *b;
	uint32_t type, total;
	uint64_t off = sf_pos(r);
	int rc;

	rc = sf_need(r, PCAPNG_BLK_HDR_LEN);
	if (rc <= 0) {
		if (rc < 0)
			return rc;
		if (r->end == r->pos)
			return 2;
		return sf_fail(r, ERR_INPUT_TRUNCATED, off,
			       "file ends inside a block header (%zu of %u bytes)", r->end - r->pos,
			       PCAPNG_BLK_HDR_LEN);
	}
	b = r->buf + r->pos;
	type = sf_rd32(b + PCAPNG_BLK_TYPE, r->big);
	if (type == PCAPNG_BT_SHB)
		return sf_ng_shb(r, off, 0);
	total = sf_rd32(b + PCAPNG_BLK_TOTAL_LEN, r->big);
	rc = sf_ng_load(r, type, total,
			(type == PCAPNG_BT_EPB || type == PCAPNG_BT_PB || type == PCAPNG_BT_SPB)
			    ? SF_NG_MAX_PKT_BLOCK
			    : SF_NG_MAX_BLOCK,
			off);
	if (rc < 0)
		return rc;
	b = r->buf + r->pos;
	/* Advance first: the block stays in the buffer until the next call,
	 * which is as long as the packet it yields is borrowed. */
	r->pos += total;
	if (r->block_fn)
		r->block_fn(r->block_ctx, b, total, r->big);
	switch (type) {
	case PCAPNG_BT_EPB:
		return sf_ng_epb(r, p, b, total, off, 1);
	case PCAPNG_BT_PB:
		return sf_ng_epb(r, p, b, total, off, 0);
	case PCAPNG_BT_SPB:
		return sf_ng_spb(r, p, b, total, off);
	case PCAPNG_BT_IDB:
		return sf_ng_idb(r, b, total, off);
	case PCAPNG_BT_ISB:
		sf_ng_isb(r, b, total);
		return 0;
	default:
		/* NRB, DSB, custom, systemd journal, unknown: not ours. */
		return 0;
	}
}

static int sf_ng_next(struct sf_reader *r, struct pkt *p)
{
	for (;;) {
		int rc = sf_ng_block(r, p);

		if (rc == 1)
			return 1;
		if (rc == 2)
			return 0;
		if (rc < 0)
			return rc;
	}
}

int sf_pcapng_open(struct sf_reader *r)
{
	struct pkt dummy;
	int rc;

	r->format = SF_FORMAT_PCAPNG;
	rc = sf_ng_shb(r, 0, 1);
	if (rc < 0)
		return rc;
	while (r->n_ifs == 0) {
		rc = sf_ng_block(r, &dummy);
		if (rc < 0)
			return rc;
		if (rc == 2)
			return sf_fail(r, ERR_INPUT_FORMAT, sf_pos(r),
				       "pcapng file has no interface description block");
		if (rc == 1) /* cannot happen: no IDB means packet blocks fail */
			return sf_fail(r, ERR_INPUT_CORRUPT, sf_pos(r),
				       "packet before any interface");
	}
	r->next = sf_ng_next;
	return 0;
}
