/* pcapcmp.c - read a capture with libpcap and with sf_* and compare packet by packet. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "capture/file/savefile.h"
#include "common/clock.h"

/*
 * Usage: pcapcmp FILE
 *
 * Exit 0 and one line "pcapcmp: FILE: ..." when both readers agree: same
 * packets (count, ts in ns, caplen, len, bytes), both rejecting the file,
 * or both failing after the same packets. Exit 1 and the first difference
 * otherwise; exit 2 on usage errors.
 *
 * Some differences are libpcap's (1.10.3, the Debian 12 version), not
 * ours. Each is recognised narrowly below, checked only after every packet
 * libpcap did return matched, and reported as "SKIP libpcap: <why>" with
 * exit 0:
 *  - libpcap reads a pcapng file only while every IDB has the first IDB's
 *    link type and snaplen and every section has the first byte order;
 *    sf_* reads on. A later section in the other byte order usually shows
 *    up as "pcapng block size N > maximum": libpcap decodes that SHB's
 *    length in the old order. (sf_*'s block limits are no larger than
 *    libpcap's, so that error with sf_* reading on has no other cause.)
 *  - libpcap reads only uncompressed files; sf_* decompresses gzip, bzip2
 *    and xz itself (tests/unit/test_savefile.c checks those).
 *  - libpcap 1.10.3 accepts non-zero reserved bits in the pcap link-type
 *    field; libpcap master and sf_* reject them.
 *  - libpcap 1.10.3 reads classic pcap ts_sec/ts_usec as signed 32-bit
 *    (struct pcap_timeval), so times past 2038 come out negative; the pcap
 *    spec (draft-ietf-opsawg-pcap) and sf_* make them unsigned.
 *  - libpcap computes pcapng times modulo 2^64; sf_* saturates a time
 *    before 1970 or after 2262 (PKT_HAVE_TS_CLAMPED). Both are compared
 *    saturated; only where libpcap's seconds wrapped do they differ.
 *
 * sf_* raises wirelen to caplen where a file has len < caplen (pkt.h
 * promises wirelen >= caplen); libpcap passes len through, so len is
 * compared as max(len, caplen).
 */

enum cmp_exit {
	CMP_OK = 0,
	CMP_DIFF = 1,
	CMP_USAGE = 2,
	CMP_COUNT,
};

static const char *const libpcap_limits[] = {
    "different from the type of the first interface",
    "different from the snapshot length of the first interface",
    "the file has sections with different byte orders",
    "pcapng block size ",
};

static int is_libpcap_limit(const char *err)
{
	for (size_t i = 0; i < sizeof(libpcap_limits) / sizeof(libpcap_limits[0]); i++)
		if (strstr(err, libpcap_limits[i]) != NULL)
			return 1;
	return 0;
}

/* libpcap's time as ns, saturated into pkt.ts_ns's range as sf_* does. */
static uint64_t pcap_ns(const struct pcap_pkthdr *h)
{
	bool clamped = false;

	return (uint64_t)clock_ts_sat((__int128)h->ts.tv_sec * CLOCK_NS_PER_S + h->ts.tv_usec,
				      &clamped);
}

static int compare(const char *file, pcap_t *pc, struct sf_reader *sr)
{
	uint64_t n = 0;

	for (;;) {
		struct pcap_pkthdr *h;
		const u_char *d;
		struct pkt p;
		int rl = pcap_next_ex(pc, &h, &d);
		int rs = sf_next(sr, &p);

		if (rl == 1 && rs == 1) {
			uint32_t len = h->len < h->caplen ? h->caplen : h->len;
			uint64_t lts = pcap_ns(h);

			n++;
			if (lts != (uint64_t)p.ts_ns) {
				if (sf_format(sr) != SF_FORMAT_PCAPNG &&
				    (h->ts.tv_sec < 0 || h->ts.tv_usec < 0)) {
					printf("pcapcmp: %s: SKIP libpcap: packet %" PRIu64
					       " has ts_sec/ts_frac >= 2^31, which libpcap 1.10.3 "
					       "reads as signed (%lld.%09ld); sf_* reads %" PRId64
					       " ns (unsigned, as the pcap spec says)\n",
					       file, n, (long long)h->ts.tv_sec,
					       (long)h->ts.tv_usec, p.ts_ns);
					return CMP_OK;
				}
				if (p.have & PKT_HAVE_TS_CLAMPED) {
					printf("pcapcmp: %s: SKIP libpcap: packet %" PRIu64
					       " has a time outside 1970..2262, which libpcap "
					       "computes modulo 2^64 (%lld.%09ld); sf_* saturates "
					       "it to %" PRId64 " ns\n",
					       file, n, (long long)h->ts.tv_sec,
					       (long)h->ts.tv_usec, p.ts_ns);
					return CMP_OK;
				}
				printf("pcapcmp: %s: packet %" PRIu64 ": ts libpcap %" PRIu64
				       " ns, sf %" PRId64 " ns\n",
				       file, n, lts, p.ts_ns);
				return CMP_DIFF;
			}
			if (h->caplen != p.caplen || len != p.wirelen) {
				printf("pcapcmp: %s: packet %" PRIu64
				       ": caplen/len libpcap %u/%u, sf %u/%u\n",
				       file, n, h->caplen, h->len, p.caplen, p.wirelen);
				return CMP_DIFF;
			}
			if (memcmp(d, p.data, p.caplen) != 0) {
				printf("pcapcmp: %s: packet %" PRIu64 ": bytes differ\n", file, n);
				return CMP_DIFF;
			}
			continue;
		}
		if (rl == PCAP_ERROR_BREAK && rs == 0) {
			printf("pcapcmp: %s: %" PRIu64 " packets identical\n", file, n);
			return CMP_OK;
		}
		if (rl == PCAP_ERROR && rs < 0) {
			printf("pcapcmp: %s: %" PRIu64
			       " packets identical, then both fail (libpcap: %s; sf: %s)\n",
			       file, n, pcap_geterr(pc), sf_error(sr));
			return CMP_OK;
		}
		if (rl == PCAP_ERROR && rs == 1 && is_libpcap_limit(pcap_geterr(pc))) {
			printf("pcapcmp: %s: SKIP libpcap: %s (after %" PRIu64
			       " identical packets; sf reads on)\n",
			       file, pcap_geterr(pc), n);
			return CMP_OK;
		}
		printf("pcapcmp: %s: after %" PRIu64 " identical packets: libpcap %s, sf %s\n",
		       file, n,
		       rl == 1			? "has another packet"
		       : rl == PCAP_ERROR_BREAK ? "ends"
						: pcap_geterr(pc),
		       rs == 1	 ? "has another packet"
		       : rs == 0 ? "ends"
				 : sf_error(sr));
		return CMP_DIFF;
	}
}

int main(int argc, char **argv)
{
	char perr[PCAP_ERRBUF_SIZE] = "", serr[256] = "";
	const char *file;
	pcap_t *pc;
	struct sf_reader *sr;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: pcapcmp FILE\n");
		return CMP_USAGE;
	}
	file = argv[1];
	pc = pcap_open_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO, perr);
	sr = sf_open(file, serr, sizeof(serr));
	if (pc == NULL && sr == NULL) {
		printf("pcapcmp: %s: both reject (libpcap: %s; sf: %s)\n", file, perr, serr);
		return CMP_OK;
	}
	if (pc == NULL) {
		rc = CMP_DIFF;
		if (sf_compressed(sr)) {
			printf("pcapcmp: %s: SKIP libpcap: reads uncompressed files only (%s)\n",
			       file, perr);
			rc = CMP_OK;
		} else {
			printf("pcapcmp: %s: libpcap rejects (%s), sf opens it\n", file, perr);
		}
		sf_close(sr);
		return rc;
	}
	if (sr == NULL) {
		rc = CMP_DIFF;
		if (strstr(serr, "linktype reserved field not zero") != NULL) {
			printf("pcapcmp: %s: SKIP libpcap: 1.10.3 lacks libpcap master's "
			       "reserved-bits check (sf: %s)\n",
			       file, serr);
			rc = CMP_OK;
		} else {
			printf("pcapcmp: %s: sf rejects (%s), libpcap opens it\n", file, serr);
		}
		pcap_close(pc);
		return rc;
	}
	rc = compare(file, pc, sr);
	pcap_close(pc);
	sf_close(sr);
	return rc;
}
