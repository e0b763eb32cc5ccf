/* jsonout_num.c - JSON writer: numbers as text, integers, reals and exact seconds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/report/jsonout_int.h"

/* Two decimal digits at a time: half the divisions of a digit loop. */
static const char digit_pairs[201] = "00010203040506070809"
				     "10111213141516171819"
				     "20212223242526272829"
				     "30313233343536373839"
				     "40414243444546474849"
				     "50515253545556575859"
				     "60616263646566676869"
				     "70717273747576777879"
				     "80818283848586878889"
				     "90919293949596979899";

/* Digits of u, right-aligned to end; returns where they start. */
static char *fmt_u64(char *end, uint64_t u)
{
	char *s = end;

	while (u >= 100) {
		unsigned r = (unsigned)(u % 100);
		u /= 100;
		s -= 2;
		memcpy(s, digit_pairs + 2 * r, 2);
	}
	if (u >= 10) {
		s -= 2;
		memcpy(s, digit_pairs + 2 * u, 2);
	} else {
		*--s = (char)('0' + u);
	}
	return s;
}

/* json_int_t in decimal into buf (>= 21 bytes); returns the length. */
size_t jo_fmt_int(char *buf, int64_t v)
{
	/* Negate in unsigned space: INT64_MIN has no positive counterpart. */
	uint64_t u = v < 0 ? 0ull - (uint64_t)v : (uint64_t)v;
	size_t n = 1, sign = v < 0;

	/* Count the digits first so they go straight to their place. */
	for (uint64_t t = u; t >= 10; t /= 10)
		n++;
	if (sign)
		buf[0] = '-';
	fmt_u64(buf + sign + n, u);
	return sign + n;
}

/*
 * A real as JSON, in the format reports always had (Jansson's, precision
 * 16): "%.16g", ".0" when it would read as an integer, the exponent
 * without '+' or leading zeros. Only true reals come here (rates, ratios,
 * averages); times go through fmt_sec(), exact from nanoseconds.
 */
size_t jo_fmt_real(char *buf, double v)
{
	char *e;
	int n;

	if (!isfinite(v))
		return 0; /* JSON has no NaN or infinity */
	n = snprintf(buf, JO_REAL_MAX, "%.16g", v);
	if (n < 0 || n >= JO_REAL_MAX - 3)
		return 0;
	if (!strchr(buf, '.') && !strchr(buf, 'e')) {
		buf[n++] = '.';
		buf[n++] = '0';
		buf[n] = '\0';
	}
	if ((e = strchr(buf, 'e'))) {
		char *start = e + 1, *end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, (size_t)(n - (end - buf)) + 1);
			n -= (int)(end - start);
		}
	}
	return (size_t)n;
}

/*
 * ns nanoseconds as seconds, exactly: "1796033364.947948123", "0.019861",
 * "3.0" (trailing zeros dropped, one digit kept after the point so it reads
 * as a real). No double in between: a time of day in seconds has 19
 * significant digits, more than a double holds.
 */
size_t jo_fmt_sec(char *buf, int64_t ns)
{
	uint64_t u = ns < 0 ? 0ull - (uint64_t)ns : (uint64_t)ns;
	uint64_t whole = u / 1000000000ull;
	unsigned frac = (unsigned)(u % 1000000000ull);
	char digits[9];
	size_t n = 0, keep = 9;

	if (ns < 0)
		buf[n++] = '-';
	n += jo_fmt_int(buf + n, (int64_t)whole);
	buf[n++] = '.';
	for (int k = 8; k >= 0; k--, frac /= 10)
		digits[k] = (char)('0' + frac % 10);
	while (keep > 1 && digits[keep - 1] == '0')
		keep--;
	memcpy(buf + n, digits, keep);
	return n + keep;
}
