/* reorder.h - detector: reordering extent and reordering across NIC queues. */
#ifndef TCPSIFT_REORDER_H
#define TCPSIFT_REORDER_H

#include "analyze/detect.h"

/* See reorder.c for the rules and DESIGN.md "The findings". */
extern const struct det_ops reorder_ops;

#endif
