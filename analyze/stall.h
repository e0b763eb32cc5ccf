/* stall.h - detector: delayed-ACK, cork and zero-window stalls inside transfers. */
#ifndef TCPSIFT_STALL_H
#define TCPSIFT_STALL_H

#include "analyze/detect.h"

/* See stall.c for the rules and DESIGN.md "The findings". */
extern const struct det_ops stall_ops;

#endif
