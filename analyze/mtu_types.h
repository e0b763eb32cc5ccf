/* mtu_types.h - types of the MTU / alignment detector. */
#ifndef TCPSIFT_MTU_TYPES_H
#define TCPSIFT_MTU_TYPES_H

#include <stdbool.h>
#include <stdint.h>

struct mtu_state {
	uint32_t max_payload[2];
	uint32_t icmp_ptb;
	uint32_t icmp_mtu;
};

struct mtu_summary {
	uint32_t implied_mtu[2]; /* per direction, from the largest payload */
	uint32_t largest_payload[2];
	bool misaligned;		       /* an MTU above 4096 not of the form n*4096 + 52 */
	uint32_t aligned_below, aligned_above; /* nearest healthy MTUs */
	uint32_t payload_mod_4096;
	uint32_t oversize_segments;
	uint32_t icmp_too_big; /* ICMP frag-needed / ICMPv6 PTB tied to it */
	uint32_t icmp_mtu;     /* the MTU they carried (last) */
	bool pmtu_blackhole;
	bool collapse; /* misaligned together with stalls / throughput collapse */
};

/* Detail of an "mtu_alignment" / "pmtu" event. */
struct mtu_event {
	uint32_t mtu;
	uint32_t aligned_below, aligned_above;
};

#endif
