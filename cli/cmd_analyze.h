/* cmd_analyze.h - entry point of the `tcpsift analyze` verb. */
#ifndef TCPSIFT_CMD_ANALYZE_H
#define TCPSIFT_CMD_ANALYZE_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/exit.h"

/* Run the verb; argv[0] is "analyze". Returns an enum tcpsift_exit. */
int analyze_main(int argc, char **argv);

/*
 * tcpsift analyze in this process, for another verb (diff's captures):
 * argv as analyze_main()'s; its messages go to msg (but for what
 * cli_parse() refuses: stderr), and stop is the caller's signal flag (its
 * handler the caller's). Returns an enum tcpsift_exit, as the verb's.
 */
int analyze_inproc(int argc, char **argv, FILE *msg, const volatile sig_atomic_t *stop);

/* tcpsift annotate: analyze's options; -o the annotated capture, no report. */
int annotate_main(int argc, char **argv);

/* The options annotate's --help lists (its own; analyze's work too). */
size_t annotate_option_names(const char **names, size_t max);

/* Long option names, for the test that its man page documents each. */
size_t analyze_option_names(const char **names, size_t max);

#endif
