/* ackpat.h - detector: how the receiver ACKs a bulk transfer (every segment, delayed, stretch). */
#ifndef TCPSIFT_ACKPAT_H
#define TCPSIFT_ACKPAT_H

#include "analyze/detect/detect.h"

/* See ackpat.c for the rules. */
extern const struct det_ops ackpat_ops;
/* Its ops.segment, which det_segment() (detect.c) calls directly. */
void ackpat_segment(struct tcp_conn *c, const struct det_env *env);

#endif
