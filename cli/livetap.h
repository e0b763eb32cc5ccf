/* livetap.h - the analyzer `tcpsift capture --analyze` feeds while it writes. */
#ifndef TCPSIFT_LIVETAP_H
#define TCPSIFT_LIVETAP_H

#include "cli/cmd_capture.h"

/* Engine + report behind capture's tap interface (cli/cmd_capture.h). */
extern const struct capture_tap_ops analyze_live_tap;

#endif
