/* vpair.h - forwarding header: the two-point joiner lives in analyze/vpair/ now. */
#ifndef TCPSIFT_REPORT_VPAIR_FWD_H
#define TCPSIFT_REPORT_VPAIR_FWD_H

/*
 * Only for cli/cmd_analyze.c, whose include line moves with the pipeline
 * builder's branch: once it includes analyze/vpair/vpair.h this file goes.
 * scripts/check-layers.sh lets nothing else include it.
 */
#include "analyze/vpair/vpair.h"

#endif
