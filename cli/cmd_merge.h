/* cmd_merge.h - entry point of the `tcpsift merge` verb. */
#ifndef TCPSIFT_CMD_MERGE_H
#define TCPSIFT_CMD_MERGE_H

#include <stddef.h>

#include "cli/exit.h"

/* Run the verb; argv[0] is "merge". Returns an enum tcpsift_exit. */
int merge_main(int argc, char **argv);

/* Long option names, for the test that its man page documents each. */
size_t merge_option_names(const char **names, size_t max);

#endif
