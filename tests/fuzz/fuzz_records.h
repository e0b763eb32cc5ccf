/* fuzz_records.h - the packet-record input of the engine-level fuzz targets (fuzz_analyze,
 * fuzz_tui). */
#ifndef TCPSIFT_FUZZ_RECORDS_H
#define TCPSIFT_FUZZ_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/clock.h"
#include "common/pkt.h"

/*
 * Input: one byte choosing the link type (low 6 bits, an index into
 * fz_linktypes[]), then records of [2-byte length][1-byte time step][bytes],
 * all big endian. With the top bit of byte 0 set each record carries a
 * 2-byte wire extra after the time step: [length][step][extra][bytes],
 * wirelen = length + extra, so snaplen-cut frames keep a wire length that
 * their IP length fits in (a fixed extra cannot cover 1500-byte segments
 * cut to 128 bytes and 64 KiB GSO frames alike). Time steps are up to
 * 254 ms; a step of 255 is a clock jump of 2^50 ns (days). With bit 6 of
 * byte 0 set, a step of 255 instead sets the time to the 8 bytes after the
 * step (and wire extra): any int64, so the whole range reaches the engine,
 * negative times included (it takes those as 0: engine.h), and the ms steps
 * after a time near CLOCK_TS_MAX saturate as a reader's times do
 * (common/clock.h). tests/fuzz/seed_analyze.py writes this format.
 *
 * The packets point into the input: no copy, nothing to free.
 */
static const uint32_t fz_linktypes[] = {
    PKT_LINKTYPE_ETHERNET, PKT_LINKTYPE_RAW,  PKT_LINKTYPE_LINUX_SLL, PKT_LINKTYPE_LINUX_SLL2,
    PKT_LINKTYPE_NULL,	   PKT_LINKTYPE_IPV4, PKT_LINKTYPE_IPV6,
};

struct fz_records {
	const uint8_t *data;
	size_t size, off, rec_hdr;
	uint32_t linktype;
	bool wide;
	uint64_t frame;
	int64_t ts;
};

/* Start reading data[0..size) (size >= 1: byte 0 is the header). */
static inline void fz_records_init(struct fz_records *r, const uint8_t *data, size_t size)
{
	*r = (struct fz_records){
	    .data = data,
	    .size = size,
	    .off = 1,
	    .rec_hdr = data[0] & 0x80 ? 5 : 3,
	    .linktype =
		fz_linktypes[(data[0] & 0x3f) % (sizeof(fz_linktypes) / sizeof(fz_linktypes[0]))],
	    .wide = data[0] & 0x40,
	    .ts = 1000000000000ll,
	};
}

/* The next packet into *p; false at the end of the input. */
static inline bool fz_records_next(struct fz_records *r, struct pkt *p)
{
	const uint8_t *d = r->data;

	if (r->off + r->rec_hdr > r->size)
		return false;
	size_t len = (size_t)d[r->off] << 8 | d[r->off + 1];
	uint32_t extra = r->rec_hdr == 5 ? (uint32_t)d[r->off + 3] << 8 | d[r->off + 4] : 0;
	uint8_t step = d[r->off + 2];

	r->off += r->rec_hdr;
	if (step == 255 && r->wide) {
		uint64_t v = 0;

		for (int k = 0; k < 8 && r->off < r->size; k++)
			v = v << 8 | d[r->off++];
		r->ts = (int64_t)v;
	} else if (step == 255) {
		r->ts = clock_sat_add(r->ts, (int64_t)1 << 50);
	} else {
		r->ts = clock_sat_add(r->ts, (int64_t)step * 1000000);
	}
	if (len > r->size - r->off)
		len = r->size - r->off;
	*p = (struct pkt){.ts_ns = r->ts,
			  .data = d + r->off,
			  .caplen = (uint32_t)len,
			  .wirelen = (uint32_t)len + extra,
			  .linktype = r->linktype,
			  .frame = ++r->frame};
	r->off += len;
	return true;
}

#endif
