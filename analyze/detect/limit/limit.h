/* limit.h - detector: what limited each data direction (receiver, sender, network), over time. */
#ifndef TCPSIFT_LIMIT_H
#define TCPSIFT_LIMIT_H

#include "analyze/detect/detect.h"

/* See limit.c for the rules. */
extern const struct det_ops limit_ops;
/* Its ops.segment, which det_segment() (detect.c) calls directly. */
void limit_segment(struct tcp_conn *c, const struct det_env *env);

#endif
