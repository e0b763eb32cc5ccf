/* cmd_analyze.h - entry point of the `tcpsift analyze` verb. */
#ifndef TCPSIFT_CMD_ANALYZE_H
#define TCPSIFT_CMD_ANALYZE_H

#include <stddef.h>

#include "cli/exit.h"

/* Run the verb; argv[0] is "analyze". Returns an enum tcpsift_exit. */
int analyze_main(int argc, char **argv);

/* tcpsift annotate: analyze's options; -o the annotated capture, no report. */
int annotate_main(int argc, char **argv);

/* The options annotate's --help lists (its own; analyze's work too). */
size_t annotate_option_names(const char **names, size_t max);

/* Long option names, for the test that its man page documents each. */
size_t analyze_option_names(const char **names, size_t max);

#endif
