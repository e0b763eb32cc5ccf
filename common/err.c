/* err.c - names of the error classes (err.h). */
#include "common/err.h"

#include <string.h>

const char *err_class_name(int code)
{
	switch (code) {
	case ERR_USAGE:
		return "usage";
	case ERR_SYSTEM:
		return "system";
	case ERR_NOMEM:
		return "memory";
	case ERR_INPUT:
	case ERR_INPUT_FORMAT:
	case ERR_INPUT_CORRUPT:
	case ERR_INPUT_TRUNCATED:
	case ERR_INPUT_EMPTY:
		return "input";
	case ERR_INTERRUPTED:
		return "interrupted";
	default:
		return code < 0 ? "unknown" : "none";
	}
}

static const char *const err_reasons[] = {"usage",   "system",	  "memory", "unreadable", "format",
					  "corrupt", "truncated", "empty",  "interrupted"};
_Static_assert(sizeof(err_reasons) / sizeof(err_reasons[0]) == -ERR_CODE_MIN, "one name a code");

const char *err_reason_name(int code)
{
	return code < 0 && code >= ERR_CODE_MIN ? err_reasons[-code - 1] : "unknown";
}

int err_of_reason_name(const char *name)
{
	for (int k = 0; k < -ERR_CODE_MIN; k++)
		if (strcmp(err_reasons[k], name) == 0)
			return -k - 1;
	return ERR_INPUT;
}
