/* mtu.h - detector: MTU and page-alignment anomalies, oversize segments, PMTU. */
#ifndef TCPSIFT_MTU_H
#define TCPSIFT_MTU_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/detect/detect.h"

/* See mtu.c for the rules and DESIGN.md "The findings". */
extern const struct det_ops mtu_ops;
/* Its ops.segment, which det_segment() (detect.c) calls directly. */
void mtu_segment(struct tcp_conn *c, const struct det_env *env);

/*
 * The page-alignment rule for a full-size segment of payload bytes carried
 * under hdr bytes of IP + TCP header: true when payload + hdr (the MTU it
 * implies) is above 4096 and payload is not a whole number of 4096-byte
 * pages. Always fills *mod (payload mod 4096) and the nearest healthy MTUs
 * n*4096 + hdr around it (*below is 0 under one page; both are the MTU
 * itself when it is aligned). Pure arithmetic, for the tests too.
 */
bool mtu_misaligned(uint32_t payload, uint32_t hdr, uint32_t *below, uint32_t *above,
		    uint32_t *mod);

#endif
