/* osc52.h - put text on the terminal's clipboard (OSC 52). */
#ifndef TCPSIFT_TUI_OSC52_H
#define TCPSIFT_TUI_OSC52_H

#include <stdio.h>

/* Write text to out as an OSC 52 clipboard sequence (base64), which xterm,
 * tmux (with set-clipboard), kitty, iTerm2 and others take, and flush it.
 * Returns 0, or ERR_SYSTEM when out failed. */
int osc52_copy(FILE *out, const char *text);

#endif
