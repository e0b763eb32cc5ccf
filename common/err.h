/* err.h - one error vocabulary: what every int function returns when it fails. */
#ifndef TCPSIFT_ERR_H
#define TCPSIFT_ERR_H

#include <stdbool.h>

/*
 * STYLE.md rule 4. A function that can fail returns 0 (or a count) or one
 * of these; a constructor that can fail in more than one way is an
 * int-returning open (struct x **out), one that can only run out of memory
 * or hit the system returns NULL. Either way a caller's errbuf gets one
 * line saying what and where. The code, never the message, says whose
 * fault it was: the request (usage: exit 2), the input, or the system
 * (exit 3). Modules keep their own detail by choosing among the input
 * codes (a truncated file is not a corrupt one) and say the rest in the
 * message.
 */
enum err_code {
	ERR_USAGE = -1,		/* the request cannot work: a bad filter, a bad option value */
	ERR_SYSTEM = -2,	/* the system refused: errno, permissions, no such interface */
	ERR_NOMEM = -3,		/* out of memory */
	ERR_INPUT = -4,		/* the input is unreadable: libtrace's error, a read failure */
	ERR_INPUT_FORMAT = -5,	/* not a capture file, or a version we do not read */
	ERR_INPUT_CORRUPT = -6, /* a bogus length, a bad block, an option overrun */
	ERR_INPUT_TRUNCATED =
	    -7, /* the file ends inside a record, or its compressed stream ends early */
	ERR_INPUT_EMPTY = -8, /* not one byte: a file left behind empty (rotation, ENOSPC) */
	ERR_INTERRUPTED = -9, /* a stop was asked for (SIGINT/SIGTERM) while waiting for input */
	ERR_CODE_MIN = -9,
};

static inline bool err_is_usage(int code)
{
	return code == ERR_USAGE;
}

/* "usage", "system", "memory", "input" (the class), for messages and tests. */
const char *err_class_name(int code);

/* The code itself in one word, for reports ("errors" in tcpsift-json(5)): "usage",
 * "system", "memory", "unreadable", "format", "corrupt", "truncated",
 * "empty", "interrupted". */
const char *err_reason_name(int code);

/* The code err_reason_name() names; ERR_INPUT for a name it does not give. */
int err_of_reason_name(const char *name);

#endif
