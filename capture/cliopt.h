/* cliopt.h - one option table per verb drives getopt_long, --help and value parsing. */
#ifndef TCPSIFT_CLIOPT_H
#define TCPSIFT_CLIOPT_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Shared by the verbs (capture/cmd_capture.c, analyze/cmd_analyze.c); it
 * sits in capture/ because analyze/ may include capture/ and not the
 * reverse. A verb keeps its table; tests/docs/run.sh checks that the man
 * page documents every option --help prints from it.
 */
struct cli_opt {
	const char *name; /* long name */
	int id;		  /* short option character, or >= 256 for long only */
	const char *arg;  /* argument name, NULL: no argument */
	const char *help;
};

/* Fill getopt_long's tables: longopts has n + 1 entries, shortopts 2n + 1. */
void cli_getopt_tables(const struct cli_opt *opts, size_t n, struct option *longopts,
		       char *shortopts);

/* "  -x, --name ARG   help" lines, the left column width wide. */
void cli_print_options(FILE *f, const struct cli_opt *opts, size_t n, int width);

/* A whole decimal number in [min, max]; 0, or -1 when it is not one. */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

#endif
