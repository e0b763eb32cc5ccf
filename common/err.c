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
		return "input";
	default:
		return code < 0 ? "unknown" : "none";
	}
}
