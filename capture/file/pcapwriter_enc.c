/* pcapwriter_enc.c - pcapng SHB/IDB/EPB/ISB blocks, their options, and classic pcap records. */
#include "capture/file/pcapwriter_enc.h"

#include <string.h>

/* The writer's shb_userappl. */
#define PW_ENC_USERAPPL "tcpsift"

/* --- little-endian stores (compile to plain moves on x86) ------------------ */

static inline void pw_put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void pw_put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void pw_put64(uint8_t *b, uint64_t v)
{
	pw_put32(b, (uint32_t)v);
	pw_put32(b + 4, (uint32_t)(v >> 32));
}

static inline uint32_t pw_get32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* --- options ------------------------------------------------------------------ */

/* Append one option (code, length, value, zero padding); returns the new end. */
static uint8_t *pw_opt_put(uint8_t *o, uint16_t code, const void *val, size_t len)
{
	size_t padded = pcapng_pad4(len);

	pw_put16(o + PCAPNG_OPT_CODE, code);
	pw_put16(o + PCAPNG_OPT_LEN, (uint16_t)len);
	if (len > 0)
		memcpy(o + PCAPNG_OPT_VALUE, val, len);
	memset(o + PCAPNG_OPT_VALUE + len, 0, padded - len);
	return o + PCAPNG_OPT_VALUE + padded;
}

static uint8_t *pw_opt_u32(uint8_t *o, uint16_t code, uint32_t v)
{
	pw_put16(o + PCAPNG_OPT_CODE, code);
	pw_put16(o + PCAPNG_OPT_LEN, 4);
	pw_put32(o + PCAPNG_OPT_VALUE, v);
	return o + PCAPNG_OPT_VALUE + 4;
}

static uint8_t *pw_opt_u64(uint8_t *o, uint16_t code, uint64_t v)
{
	pw_put16(o + PCAPNG_OPT_CODE, code);
	pw_put16(o + PCAPNG_OPT_LEN, 8);
	pw_put64(o + PCAPNG_OPT_VALUE, v);
	return o + PCAPNG_OPT_VALUE + 8;
}

/* isb_starttime/isb_endtime: the EPB timestamp layout, high word first. */
static uint8_t *pw_opt_ts(uint8_t *o, uint16_t code, uint64_t ts)
{
	pw_put16(o + PCAPNG_OPT_CODE, code);
	pw_put16(o + PCAPNG_OPT_LEN, 8);
	pw_put32(o + PCAPNG_OPT_VALUE, (uint32_t)(ts >> 32));
	pw_put32(o + PCAPNG_OPT_VALUE + 4, (uint32_t)ts);
	return o + PCAPNG_OPT_VALUE + 8;
}

static size_t pw_opt_str_len(const char *s)
{
	return s ? PCAPNG_OPT_HDR_LEN + pcapng_pad4(strlen(s)) : 0;
}

static uint8_t *pw_opt_str(uint8_t *o, uint16_t code, const char *s)
{
	return s ? pw_opt_put(o, code, s, strlen(s)) : o;
}

static uint8_t *pw_opt_end(uint8_t *o)
{
	return pw_opt_put(o, PCAPNG_OPT_ENDOFOPT, NULL, 0);
}

/* Close a block that starts at b and whose options end at o. */
static size_t pw_block_end(uint8_t *b, uint8_t *o, uint32_t type)
{
	uint32_t total = (uint32_t)(o - b) + PCAPNG_BLK_TRAILER_LEN;

	pw_put32(b + PCAPNG_BLK_TYPE, type);
	pw_put32(b + PCAPNG_BLK_TOTAL_LEN, total);
	pw_put32(o, total);
	return total;
}

/* --- the file header ------------------------------------------------------------ */

static size_t pw_shb_size(const struct pw_enc_hdr *h)
{
	return PCAPNG_SHB_OPTIONS + pw_opt_str_len(h->comment) + pw_opt_str_len(h->os) +
	       pw_opt_str_len(PW_ENC_USERAPPL) + PCAPNG_OPT_HDR_LEN + PCAPNG_BLK_TRAILER_LEN;
}

/* if_tsresol: a 1-byte value, padded to 4. */
#define PW_TSRESOL_OPT_LEN (PCAPNG_OPT_HDR_LEN + 4u)

static size_t pw_idb_size(const struct pw_enc_iface *s)
{
	return PCAPNG_IDB_OPTIONS + pw_opt_str_len(s->name) + pw_opt_str_len(s->desc) +
	       PW_TSRESOL_OPT_LEN + PCAPNG_OPT_HDR_LEN + PCAPNG_BLK_TRAILER_LEN;
}

size_t pw_enc_hdr_size(const struct pw_enc_hdr *h)
{
	size_t n;

	if (h->format == PW_PCAP)
		return PCAP_HDR_LEN;
	n = pw_shb_size(h);
	for (unsigned i = 0; i < h->nifaces; i++)
		n += pw_idb_size(&h->ifs[i]);
	return n;
}

size_t pw_enc_hdr(const struct pw_enc_hdr *h, uint8_t *b)
{
	uint8_t *o, *start = b;

	if (h->format == PW_PCAP) {
		/* Nanosecond magic: the timestamps are written as the capture
		 * took them. */
		pw_put32(b + PCAP_HDR_MAGIC, PCAP_MAGIC_NS);
		pw_put16(b + PCAP_HDR_VERSION_MAJOR, PCAP_VERSION_CURRENT_MAJOR);
		pw_put16(b + PCAP_HDR_VERSION_MINOR, PCAP_VERSION_CURRENT_MINOR);
		pw_put32(b + PCAP_HDR_THISZONE, 0);
		pw_put32(b + PCAP_HDR_SIGFIGS, 0);
		pw_put32(b + PCAP_HDR_SNAPLEN, h->snaplen);
		pw_put32(b + PCAP_HDR_LINKTYPE, h->ifs[0].linktype);
		return PCAP_HDR_LEN;
	}
	pw_put32(b + PCAPNG_SHB_BOM, PCAPNG_BOM);
	pw_put16(b + PCAPNG_SHB_MAJOR, PCAPNG_VERSION_MAJOR);
	pw_put16(b + PCAPNG_SHB_MINOR, PCAPNG_VERSION_MINOR);
	/* Section length unknown: lets blocks be appended after a truncation. */
	pw_put64(b + PCAPNG_SHB_SECTION_LEN, UINT64_MAX);
	o = pw_opt_str(b + PCAPNG_SHB_OPTIONS, PCAPNG_OPT_COMMENT, h->comment);
	o = pw_opt_str(o, PCAPNG_SHB_OS, h->os);
	o = pw_opt_str(o, PCAPNG_SHB_USERAPPL, PW_ENC_USERAPPL);
	o = pw_opt_end(o);
	b += pw_block_end(b, o, PCAPNG_BT_SHB);

	for (unsigned i = 0; i < h->nifaces; i++) {
		const struct pw_enc_iface *s = &h->ifs[i];
		uint8_t tsresol = PCAPNG_TSRESOL_NS; /* EPB timestamps are plain ns */

		pw_put16(b + PCAPNG_IDB_LINKTYPE, (uint16_t)s->linktype);
		pw_put16(b + PCAPNG_IDB_RESERVED, 0);
		pw_put32(b + PCAPNG_IDB_SNAPLEN, h->snaplen);
		o = pw_opt_str(b + PCAPNG_IDB_OPTIONS, PCAPNG_IF_NAME, s->name);
		o = pw_opt_str(o, PCAPNG_IF_DESCRIPTION, s->desc);
		o = pw_opt_put(o, PCAPNG_IF_TSRESOL, &tsresol, 1);
		o = pw_opt_end(o);
		b += pw_block_end(b, o, PCAPNG_BT_IDB);
	}
	return (size_t)(b - start);
}

/* --- packets ------------------------------------------------------------------------ */

static bool pw_has_epb_opts(const struct pkt *p)
{
	return (p->have & (PKT_HAVE_QUEUE | PKT_HAVE_FLAGS | PKT_HAVE_DROPCOUNT)) != 0;
}

size_t pw_enc_pkt_size(enum pw_format f, uint32_t caplen, const struct pkt *p)
{
	if (f == PW_PCAP)
		return PCAP_REC_HDR_LEN + caplen;
	return PCAPNG_EPB_DATA + pcapng_pad4(caplen) + PCAPNG_BLK_TRAILER_LEN +
	       (pw_has_epb_opts(p) ? PW_ENC_EPB_MAX_OPTS : 0);
}

/* A classic pcap record: the 16-byte header (ns timestamp), then the data. */
static size_t pw_enc_pcap_rec(uint8_t *b, const struct pkt *p, uint32_t caplen, uint32_t wirelen)
{
	int64_t sec = pw_floor_div(p->ts_ns, CLOCK_NS_PER_S);

	pw_put32(b + PCAP_REC_TS_SEC, (uint32_t)sec);
	pw_put32(b + PCAP_REC_TS_FRAC, (uint32_t)(p->ts_ns - sec * CLOCK_NS_PER_S));
	pw_put32(b + PCAP_REC_CAPLEN, caplen);
	pw_put32(b + PCAP_REC_LEN, wirelen);
	if (caplen > 0) /* data may be NULL for an empty packet */
		memcpy(b + PCAP_REC_HDR_LEN, p->data, caplen);
	return PCAP_REC_HDR_LEN + caplen;
}

/* An EPB: timestamp in if_tsresol ticks (ns), padded data, then the options. */
static size_t pw_enc_epb(uint8_t *b, unsigned iface, const struct pkt *p, uint32_t caplen,
			 uint32_t wirelen)
{
	uint64_t ts = (uint64_t)p->ts_ns;
	size_t padded = pcapng_pad4(caplen);
	uint8_t *o;

	pw_put32(b + PCAPNG_EPB_IFACE, iface);
	pw_put32(b + PCAPNG_EPB_TS_HIGH, (uint32_t)(ts >> 32));
	pw_put32(b + PCAPNG_EPB_TS_LOW, (uint32_t)ts);
	pw_put32(b + PCAPNG_EPB_CAPLEN, caplen);
	pw_put32(b + PCAPNG_EPB_LEN, wirelen);
	if (caplen > 0)
		memcpy(b + PCAPNG_EPB_DATA, p->data, caplen);
	memset(b + PCAPNG_EPB_DATA + caplen, 0, padded - caplen);
	o = b + PCAPNG_EPB_DATA + padded;
	if (pw_has_epb_opts(p)) {
		if (p->have & PKT_HAVE_FLAGS)
			o = pw_opt_u32(o, PCAPNG_EPB_FLAGS, p->epb_flags);
		if (p->have & PKT_HAVE_DROPCOUNT)
			o = pw_opt_u64(o, PCAPNG_EPB_DROPCOUNT, p->dropcount);
		if (p->have & PKT_HAVE_QUEUE)
			o = pw_opt_u32(o, PCAPNG_EPB_QUEUE, p->queue);
		o = pw_opt_end(o);
	}
	return pw_block_end(b, o, PCAPNG_BT_EPB);
}

size_t pw_enc_pkt(enum pw_format f, uint8_t *b, unsigned iface, const struct pkt *p,
		  uint32_t caplen, uint32_t wirelen)
{
	if (f == PW_PCAP)
		return pw_enc_pcap_rec(b, p, caplen, wirelen);
	return pw_enc_epb(b, iface, p, caplen, wirelen);
}

/* --- statistics ---------------------------------------------------------------------- */

size_t pw_enc_isb(uint8_t *b, unsigned iface, uint64_t ts, const struct pw_ifstats *st,
		  bool have_span, int64_t first_ns, int64_t last_ns)
{
	uint8_t *o;

	pw_put32(b + PCAPNG_ISB_IFACE, iface);
	pw_put32(b + PCAPNG_ISB_TS_HIGH, (uint32_t)(ts >> 32));
	pw_put32(b + PCAPNG_ISB_TS_LOW, (uint32_t)ts);
	o = b + PCAPNG_ISB_OPTIONS;
	if (have_span) {
		o = pw_opt_ts(o, PCAPNG_ISB_STARTTIME, (uint64_t)first_ns);
		o = pw_opt_ts(o, PCAPNG_ISB_ENDTIME, (uint64_t)last_ns);
	}
	if (st->have_ifrecv)
		o = pw_opt_u64(o, PCAPNG_ISB_IFRECV, st->ifrecv);
	if (st->have_ifdrop)
		o = pw_opt_u64(o, PCAPNG_ISB_IFDROP, st->ifdrop);
	if (st->have_osdrop)
		o = pw_opt_u64(o, PCAPNG_ISB_OSDROP, st->osdrop);
	o = pw_opt_end(o);
	return pw_block_end(b, o, PCAPNG_BT_ISB);
}

/* --- walking back ---------------------------------------------------------------------- */

size_t pw_enc_record_len(enum pw_format f, const uint8_t *rec, bool *is_packet)
{
	if (f == PW_PCAP) {
		*is_packet = true;
		return PCAP_REC_HDR_LEN + pw_get32(rec + PCAP_REC_CAPLEN);
	}
	*is_packet = pw_get32(rec + PCAPNG_BLK_TYPE) == PCAPNG_BT_EPB;
	return pw_get32(rec + PCAPNG_BLK_TOTAL_LEN);
}
