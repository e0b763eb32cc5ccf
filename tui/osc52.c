/* osc52.c - put text on the terminal's clipboard: an OSC 52 sequence, base64. */
#include "tui/osc52.h"

#include <stdint.h>
#include <string.h>

#include "common/err.h"

int osc52_copy(FILE *out, const char *text)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(text);

	fputs("\033]52;c;", out);
	for (size_t k = 0; k < n; k += 3) {
		uint32_t v = (uint32_t)(unsigned char)text[k] << 16;
		if (k + 1 < n)
			v |= (uint32_t)(unsigned char)text[k + 1] << 8;
		if (k + 2 < n)
			v |= (unsigned char)text[k + 2];
		char q[5] = {b64[v >> 18 & 63], b64[v >> 12 & 63],
			     k + 1 < n ? b64[v >> 6 & 63] : '=', k + 2 < n ? b64[v & 63] : '=', 0};
		fputs(q, out);
	}
	fputs("\a", out);
	return fflush(out) == 0 && !ferror(out) ? 0 : ERR_SYSTEM;
}
