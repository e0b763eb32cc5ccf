/* cmd_capture.h - entry point of the `tcpsift capture` verb. */
#ifndef TCPSIFT_CMD_CAPTURE_H
#define TCPSIFT_CMD_CAPTURE_H

#include <stddef.h>

/* Exit codes, the same numbers as every verb's (tcpsift(1), EXIT STATUS). */
enum capture_exit {
	CAPTURE_EXIT_OK = 0,
	CAPTURE_EXIT_USAGE = 2,
	CAPTURE_EXIT_ERROR = 3, /* capture or output error; the output file is left valid */
};

/* Run the verb; argv[0] is "capture". Returns an enum capture_exit. */
int capture_main(int argc, char **argv);

/* Long option names, for the test that the man page documents each. */
size_t capture_option_names(const char **names, size_t max);

#endif
