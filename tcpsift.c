/* tcpsift.c - main: dispatch to the analyze, capture, diff, merge and tui verbs. */
#include <stdio.h>
#include <string.h>

#include "cli/cmd_analyze.h"
#include "cli/livetap.h"
#include "cli/cmd_capture.h"
#include "cli/cmd_diff.h"
#include "cli/cmd_merge.h"
#include "cli/cmd_tui.h"

static void usage(FILE *f)
{
	fputs("usage: tcpsift VERB [options] ...\n"
	      "\n"
	      "  analyze FILE...   reconstruct TCP connections in captures and explain them\n"
	      "  capture -i IFACE  lossless ring-buffer capture into pcapng/pcap files\n"
	      "  diff A B          compare two runs (captures or saved reports): what changed\n"
	      "  merge REPORT...   combine the reports of analyze --shard K/N into one\n"
	      "  tui -r FILE|-i IF live curses dashboard: connections, findings, detail\n"
	      "\n"
	      "  tcpsift VERB --help    options of a verb\n"
	      "  tcpsift --version\n"
	      "\n"
	      "See tcpsift(1).\n",
	      f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return TCPSIFT_EXIT_USAGE;
	}
	const char *verb = argv[1];
	if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0 || strcmp(verb, "help") == 0) {
		usage(stdout);
		return TCPSIFT_EXIT_OK;
	}
	if (strcmp(verb, "--version") == 0 || strcmp(verb, "-V") == 0) {
		printf("tcpsift %s\n", TCPSIFT_VERSION);
		return TCPSIFT_EXIT_OK;
	}
	if (strcmp(verb, "analyze") == 0)
		return analyze_main(argc - 1, argv + 1);
	if (strcmp(verb, "diff") == 0)
		return diff_main(argc - 1, argv + 1);
	if (strcmp(verb, "merge") == 0)
		return merge_main(argc - 1, argv + 1);
	if (strcmp(verb, "capture") == 0)
		return capture_main(argc - 1, argv + 1, &analyze_live_tap);
	if (strcmp(verb, "tui") == 0)
		return tui_main(argc - 1, argv + 1);
	fprintf(stderr, "tcpsift: unknown verb '%s' (try tcpsift --help)\n", verb);
	return TCPSIFT_EXIT_USAGE;
}
