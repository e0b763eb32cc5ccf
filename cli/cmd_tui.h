/* cmd_tui.h - entry point of the `tcpsift tui` verb. */
#ifndef TCPSIFT_CMD_TUI_H
#define TCPSIFT_CMD_TUI_H

#include <stddef.h>

#include "cli/exit.h"

/* Run the verb; argv[0] is "tui". Returns an enum tcpsift_exit. */
int tui_main(int argc, char **argv);

/* Long option names, for the test that its man page documents each. */
size_t tui_option_names(const char **names, size_t max);

#endif
