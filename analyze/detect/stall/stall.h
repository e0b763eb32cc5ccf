/* stall.h - detector: delayed-ACK, cork and zero-window stalls inside transfers. */
#ifndef TCPSIFT_STALL_H
#define TCPSIFT_STALL_H

#include "analyze/detect/detect.h"

/* See stall.c for the rules and DESIGN.md "The findings". */
extern const struct det_ops stall_ops;
/* Its ops.segment, which det_segment() (detect.c) calls directly. */
void stall_segment(struct tcp_conn *c, const struct det_env *env);
/* Called by det_before(). */
void stall_before(struct tcp_conn *c, int64_t ts, const struct det_env *env);

#endif
