/* tcpsift.c - main: dispatch to the analyze, annotate, capture, diff, merge and tui verbs. */
#include <stdio.h>
#include <string.h>

#include "cli/cmd_analyze.h"
#include "cli/livetap.h"
#include "cli/cmd_capture.h"
#include "cli/cmd_diff.h"
#include "cli/cmd_merge.h"
#include "cli/cmd_tui.h"
#include "cli/cliopt.h"

/* capture with this build's live analysis (cli/livetap.c). */
static int capture_verb(int argc, char **argv)
{
	return capture_main(argc, argv, &analyze_live_tap);
}

static void usage(FILE *f)
{
	fputs("usage: tcpsift VERB [options] ...\n"
	      "\n"
	      "  analyze FILE...   reconstruct TCP connections in captures and explain them\n"
	      "  annotate FILE... -o OUT.pcapng  the captures with every verdict as a packet\n"
	      "                    comment, for Wireshark and tshark\n"
	      "  capture -i IFACE  lossless ring-buffer capture into pcapng/pcap files\n"
	      "  diff A B          compare two runs (captures or saved reports): what changed\n"
	      "  merge REPORT...   combine the reports of analyze --shard K/N into one\n"
	      "  tui -r FILE|-i IF live curses dashboard: connections, findings, detail\n"
	      "\n"
	      "  tcpsift help VERB      options of a verb (= tcpsift VERB --help)\n"
	      "  tcpsift -V, --version  the version (also tcpsift VERB -V)\n"
	      "\n"
	      "See tcpsift(1).\n",
	      f);
}

/* The verbs; "help" is the last name, with no entry point of its own. */
static const struct verb {
	const char *name;
	int (*fn)(int, char **);
} verbs[] = {
    {"analyze", analyze_main},
    {"annotate", annotate_main},
    {"capture", capture_verb},
    {"diff", diff_main},
    {"merge", merge_main},
    {"tui", tui_main},
    {"help", NULL},
};

#define N_VERBS (sizeof(verbs) / sizeof(verbs[0]))

/* The verb's entry point, or NULL. */
static int (*verb_main(const char *verb))(int, char **)
{
	for (size_t k = 0; k < N_VERBS; k++)
		if (strcmp(verb, verbs[k].name) == 0)
			return verbs[k].fn;
	return NULL;
}

/* One line for a word that is no verb, naming the nearest when near. */
static void unknown_verb(const char *verb)
{
	const char *names[N_VERBS], *near;

	for (size_t k = 0; k < N_VERBS; k++)
		names[k] = verbs[k].name;
	near = cli_nearest(verb, names, N_VERBS);
	if (near)
		fprintf(stderr, "tcpsift: unknown verb '%s' (did you mean %s?)\n", verb, near);
	else
		fprintf(stderr, "tcpsift: unknown verb '%s' (try tcpsift --help)\n", verb);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	const char *verb = argv[1];
	if (strcmp(verb, "help") == 0 && argc > 2) {
		/* tcpsift help VERB: the verb's --help, as git and ip(8) do. */
		int (*fn)(int, char **) = verb_main(argv[2]);
		char *help_argv[] = {argv[2], "--help", NULL};
		if (!fn || argc > 3) {
			fprintf(stderr, "tcpsift: help %s%s: no such verb (try tcpsift help)\n",
				argv[2], argc > 3 ? " ..." : "");
			return TCPSIFT_EXIT_USAGE;
		}
		return fn(2, help_argv);
	}
	if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0 || strcmp(verb, "help") == 0) {
		usage(stdout);
		return TCPSIFT_EXIT_OK;
	}
	if (strcmp(verb, "--version") == 0 || strcmp(verb, "-V") == 0) {
		cli_print_version(stdout);
		return TCPSIFT_EXIT_OK;
	}
	int (*fn)(int, char **) = verb_main(verb);
	if (fn)
		return fn(argc - 1, argv + 1);
	unknown_verb(verb);
	return TCPSIFT_EXIT_USAGE;
}
