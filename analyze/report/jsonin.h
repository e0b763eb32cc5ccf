/* jsonin.h - forwarding header: the report reader lives in analyze/readback/ now. */
#ifndef TCPSIFT_REPORT_JSONIN_FWD_H
#define TCPSIFT_REPORT_JSONIN_FWD_H

/*
 * Only for cli/cmd_merge.c, whose include line moves with the pipeline
 * builder's branch: once it includes analyze/readback/jsonin.h this file
 * goes. scripts/check-layers.sh lets nothing else include it.
 */
#include "analyze/readback/jsonin.h"

#endif
