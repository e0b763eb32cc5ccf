/* err.c - names of the error classes (err.h). */
#include "common/err.h"

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

const char *err_reason_name(int code)
{
	static const char *const names[] = {"usage",   "system",    "memory", "unreadable",
					    "format",  "corrupt",   "truncated", "empty",
					    "interrupted"};

	_Static_assert(sizeof(names) / sizeof(names[0]) == -ERR_CODE_MIN, "one name a code");
	return code < 0 && code >= ERR_CODE_MIN ? names[-code - 1] : "unknown";
}
