/* view_fmt.c - the dashboard's numbers and drawing primitives: clipped text, colours. */
#include <curses.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tui/view_int.h"

/* ---- numbers ---- */

void tv_fmt_si(char *b, size_t n, double x)
{
	static const char sfx[] = " kMGTP";
	int k = 0;

	while (x >= 999.5 && k < 5) {
		x /= 1000;
		k++;
	}
	if (k == 0)
		snprintf(b, n, "%.0f", x);
	else
		snprintf(b, n, x < 9.995 ? "%.2f%c" : x < 99.95 ? "%.1f%c" : "%.0f%c", x, sfx[k]);
}

void tv_fmt_bytes(char *b, size_t n, uint64_t x)
{
	if (x < 1000) {
		snprintf(b, n, "%" PRIu64 "B", x);
		return;
	}
	tv_fmt_si(b, n, (double)x);
	size_t l = strlen(b);
	snprintf(b + l, n > l ? n - l : 0, "B");
}

void tv_fmt_dur(char *b, size_t n, int64_t ns)
{
	det_fmt_dur_short(b, n, ns);
}

void tv_fmt_count(char *b, size_t n, uint64_t x)
{
	if (x < 100000)
		snprintf(b, n, "%" PRIu64, x);
	else
		tv_fmt_si(b, n, (double)x);
}

/* ---- drawing ---- */

/* Display columns of a UTF-8 string (every character we print is one column). */
int tv_ucols(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Print at most max columns of s at (y, x); returns the columns printed. */
int tv_put(int y, int x, int max, const char *s)
{
	int cols = 0;
	const char *e = s;

	if (max <= 0)
		return 0;
	while (*e) {
		const char *c = e + 1;
		while (((unsigned char)*c & 0xc0) == 0x80)
			c++;
		if (cols + 1 > max)
			break;
		cols++;
		e = c;
	}
	mvaddnstr(y, x, s, (int)(e - s));
	return cols;
}

int tv_putf(int y, int x, int max, const char *fmt, ...)
{
	char b[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	return tv_put(y, x, max, b);
}

/*
 * A part of a line that is drawn whole or not at all (a number is never
 * cut): its columns when it fits in [x, cols), else cols - x + 1, which
 * takes x past cols so that every later part of the line is left out too.
 */
int tv_piece(int y, int x, int cols, const char *fmt, ...)
{
	char b[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	int n = tv_ucols(b);
	if (x > cols || n > cols - x)
		return x > cols ? 0 : cols - x + 1;
	return tv_put(y, x, n, b);
}

bool tv_row_idle(const struct pl_view *pv, const struct tm_row *r)
{
	return !r->ended && pv->h.now_ts > r->last_ts &&
	       (uint64_t)pv->h.now_ts - (uint64_t)r->last_ts >= (uint64_t)TV_IDLE_NS;
}

attr_t tv_pair_attr(const struct tv_view *v, enum tv_pair p)
{
	if (v->cfg.color && has_colors())
		return COLOR_PAIR(p) | (p == TV_P_TITLE || p == TV_P_HEAD ? A_BOLD : 0);
	switch (p) {
	case TV_P_TITLE:
	case TV_P_HEAD:
		return A_REVERSE;
	case TV_P_BAD:
		return A_BOLD;
	case TV_P_DIM:
		return A_DIM;
	default:
		return A_NORMAL;
	}
}

/* A detector's tone (det_view.h) as the colour pair it maps to. */
enum tv_pair tv_tone_pair(enum det_tone t)
{
	switch (t) {
	case DET_TONE_WARN:
		return TV_P_WARN;
	case DET_TONE_BAD:
		return TV_P_BAD;
	case DET_TONE_ORDER:
		return TV_P_ORDER;
	case DET_TONE_MTU:
		return TV_P_MTU;
	default:
		return TV_P_DIM;
	}
}

attr_t tv_tone_attr(const struct tv_view *v, enum det_tone t)
{
	return t == DET_TONE_NONE ? A_NORMAL : tv_pair_attr(v, tv_tone_pair(t));
}

void tv_hline_fill(int y, int x, int n, attr_t a)
{
	attrset(a);
	mvhline(y, x, ' ', n);
}
