/* sackboard.h - detector: SACK scoreboard: holes, D-SACK, reneging, recovery episodes. */
#ifndef TCPSIFT_SACKBOARD_H
#define TCPSIFT_SACKBOARD_H

#include "analyze/detect/detect.h"

/* See sackboard.c for the rules and DESIGN.md "The findings". */
extern const struct det_ops sackb_ops;
/* Its ops.segment, which det_segment() (detect.c) calls directly. */
void sackb_segment(struct tcp_conn *c, const struct det_env *env);

#endif
