/* sackboard.h - detector: SACK scoreboard: holes, D-SACK, reneging, recovery episodes. */
#ifndef TCPSIFT_SACKBOARD_H
#define TCPSIFT_SACKBOARD_H

#include "analyze/detect.h"

/* See sackboard.c for the rules and DESIGN.md "The findings". */
extern const struct det_ops sackb_ops;

#endif
