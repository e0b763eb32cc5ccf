/* mtu.h - detector: MTU and page-alignment anomalies, oversize segments, PMTU. */
#ifndef TCPSIFT_MTU_H
#define TCPSIFT_MTU_H

#include "analyze/detect.h"

/* See mtu.c for the rules and DESIGN.md "The findings". */
extern const struct det_ops mtu_ops;

#endif
