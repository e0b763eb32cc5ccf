/* exit.h - the exit codes of every verb (tcpsift(1) EXIT STATUS). */
#ifndef TCPSIFT_EXIT_H
#define TCPSIFT_EXIT_H

#include "common/err.h"

enum tcpsift_exit {
	TCPSIFT_EXIT_OK = 0,
	TCPSIFT_EXIT_FINDINGS = 1, /* analyze --fail-on matched */
	TCPSIFT_EXIT_USAGE = 2,	   /* bad option, value or filter */
	TCPSIFT_EXIT_INPUT =
	    3, /* input, capture or output error (capture: its file is left valid) */
};

/* The exit code for a failure of code (enum err_code): the code says whose
 * fault it was, never the message. */
static inline enum tcpsift_exit exit_for_error(int code)
{
	return err_is_usage(code) ? TCPSIFT_EXIT_USAGE : TCPSIFT_EXIT_INPUT;
}

#endif
