/* fuzz_decode.c - libFuzzer target for dec_packet(): any bytes, any link type. */
#include "analyze/engine/decode.h"
#include "common/pkt.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Input layout: byte 0 picks the link type (the last slot is one the decoder
 * does not support), byte 1 how much longer than caplen the frame was on the
 * wire (so that the length-0 "presumed" paths and the IP length vs wire length
 * checks get exercised), the rest is the packet. Invariants the caller relies
 * on are checked with __builtin_trap() so that a violation is a finding.
 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint32_t fuzz_linktypes[] = {
    PKT_LINKTYPE_NULL,
    PKT_LINKTYPE_ETHERNET,
    PKT_LINKTYPE_RAW,
    PKT_LINKTYPE_LOOP,
    PKT_LINKTYPE_LINUX_SLL,
    PKT_LINKTYPE_IPV4,
    PKT_LINKTYPE_IPV6,
    PKT_LINKTYPE_LINUX_SLL2,
    PKT_LINKTYPE_DLT_RAW_OLD,
    PKT_LINKTYPE_DLT_RAW_OLD2,
    147 /* LINKTYPE_USER0: unsupported */,
};
#define FUZZ_NLINKTYPES (sizeof(fuzz_linktypes) / sizeof(fuzz_linktypes[0]))

/* 0..127 extra bytes as is, above that in 1 KiB steps up to ~128 KiB (BIG TCP). */
static uint32_t fuzz_extra(uint8_t b)
{
	return b < 128 ? b : (uint32_t)(b - 127) * 1024u;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dec_packet d;
	const uint8_t *pkt;
	uint32_t caplen, wirelen, lt;
	volatile uint8_t sink = 0;
	int rc;

	if (size < 2 || size > 262144)
		return 0;
	lt = fuzz_linktypes[data[0] % FUZZ_NLINKTYPES];
	pkt = data + 2;
	caplen = (uint32_t)(size - 2);
	wirelen = caplen + fuzz_extra(data[1]);

	rc = dec_packet(pkt, caplen, wirelen, lt, &d);
	if (rc <= -DEC_ERR_COUNT || rc >= DEC_STATUS_COUNT)
		__builtin_trap();
	if (strcmp(dec_status_name(rc), "invalid") == 0)
		__builtin_trap();
	if (d.vlan_depth > DEC_MAX_VLAN || d.l3_len > wirelen)
		__builtin_trap();
	if (rc == DEC_TCP) {
		const struct dec_tcp *t = &d.tcp;

		if (t->payload < pkt || t->payload > pkt + caplen ||
		    t->payload_cap > (size_t)(pkt + caplen - t->payload) ||
		    t->payload_cap > t->payload_len || t->hdr_len < 20 || t->hdr_len > 60 ||
		    t->opt.nsack > DEC_MAX_SACK || (t->opt.has_sack && t->opt.nsack == 0))
			__builtin_trap();
		for (uint32_t i = 0; i < t->payload_cap; i++)
			sink ^= t->payload[i];
		for (uint32_t i = 0; i < t->opt.nsack; i++)
			sink ^= (uint8_t)(t->opt.sack[i].left ^ t->opt.sack[i].right);
	} else if (rc == DEC_ICMP) {
		const struct dec_icmp *ic = &d.icmp;

		if (ic->has_inner && !ic->has_inner_ip)
			__builtin_trap();
		if (ic->has_inner_ip && ic->inner_src.family != 4 && ic->inner_src.family != 6)
			__builtin_trap();
		sink ^= (uint8_t)(ic->mtu ^ ic->inner_sport ^ ic->inner_seq);
	}
	(void)sink;
	return 0;
}
