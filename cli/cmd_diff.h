/* cmd_diff.h - the `tcpsift diff` verb: two runs compared (tcpsift-diff(1)). */
#ifndef TCPSIFT_CMD_DIFF_H
#define TCPSIFT_CMD_DIFF_H

#include <stddef.h>

/* argv[0] is "diff". Returns the exit code. */
int diff_main(int argc, char **argv);

/* The long option names of its table, for tests/tools/optnames. */
size_t diff_option_names(const char **names, size_t max);

#endif
