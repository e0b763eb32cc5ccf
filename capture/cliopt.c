/* cliopt.c - getopt_long tables, --help lines and number parsing from an option table. */
#include "capture/cliopt.h"

#include <errno.h>
#include <stdlib.h>

void cli_getopt_tables(const struct cli_opt *opts, size_t n, struct option *longopts,
		       char *shortopts)
{
	size_t ns = 0;

	for (size_t k = 0; k < n; k++) {
		const struct cli_opt *o = &opts[k];
		longopts[k] =
		    (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->id};
		if (o->id < 256) {
			shortopts[ns++] = (char)o->id;
			if (o->arg)
				shortopts[ns++] = ':';
		}
	}
	longopts[n] = (struct option){0};
	shortopts[ns] = '\0';
}

void cli_print_options(FILE *f, const struct cli_opt *opts, size_t n, int width)
{
	for (size_t k = 0; k < n; k++) {
		const struct cli_opt *o = &opts[k];
		char left[64];
		if (o->id < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->id, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		fprintf(f, "  %-*s %s\n", width, left, o->help);
	}
}

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	if (!s || *s == '-' || *s == '\0')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}
