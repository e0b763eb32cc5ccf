/* optnames.c - print every verb's option table as "VERB NAME" lines, for tests/docs/optcheck.py.
 *
 * usage: optnames
 *
 * The names come from the verbs' own tables (analyze_option_names() and
 * its siblings in cli/cmd_*.h), the tables that drive getopt_long and
 * --help, so the docs check can tell a --help it failed to parse from an
 * option the man page lacks.
 */
#include <stdio.h>

#include "cli/cmd_analyze.h"
#include "cli/cmd_capture.h"
#include "cli/cmd_diff.h"
#include "cli/cmd_merge.h"
#include "cli/cmd_tui.h"

#define OPTNAMES_MAX 128

static const struct {
	const char *verb;
	size_t (*names)(const char **names, size_t max);
} optnames_verbs[] = {
    {"analyze", analyze_option_names}, {"capture", capture_option_names},
    {"tui", tui_option_names},	       {"merge", merge_option_names},
    {"diff", diff_option_names},       {"annotate", annotate_option_names},
};

int main(void)
{
	const char *names[OPTNAMES_MAX];

	for (size_t v = 0; v < sizeof(optnames_verbs) / sizeof(optnames_verbs[0]); v++) {
		size_t n = optnames_verbs[v].names(names, OPTNAMES_MAX);
		if (n == OPTNAMES_MAX) {
			fprintf(stderr, "optnames: %s has %d options or more\n",
				optnames_verbs[v].verb, OPTNAMES_MAX);
			return 1;
		}
		for (size_t k = 0; k < n; k++)
			printf("%s %s\n", optnames_verbs[v].verb, names[k]);
	}
	return 0;
}
