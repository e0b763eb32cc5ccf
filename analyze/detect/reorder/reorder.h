/* reorder.h - detector: reordering extent and reordering across NIC queues. */
#ifndef TCPSIFT_REORDER_H
#define TCPSIFT_REORDER_H

#include "analyze/detect/detect.h"

/* See reorder.c for the rules and DESIGN.md "The findings". */
extern const struct det_ops reorder_ops;
/* Its ops.segment, which det_segment() (detect.c) calls directly. */
void reorder_segment(struct tcp_conn *c, const struct det_env *env);

#endif
