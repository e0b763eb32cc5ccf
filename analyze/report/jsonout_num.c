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

static const uint64_t pow10_u64[20] = {
    1ull,
    10ull,
    100ull,
    1000ull,
    10000ull,
    100000ull,
    1000000ull,
    10000000ull,
    100000000ull,
    1000000000ull,
    10000000000ull,
    100000000000ull,
    1000000000000ull,
    10000000000000ull,
    100000000000000ull,
    1000000000000000ull,
    10000000000000000ull,
    100000000000000000ull,
    1000000000000000000ull,
    10000000000000000000ull,
};

/* Digits of u, right-aligned to end; returns where they start. */
static char *fmt_u64(char *end, uint64_t u)
{
	char *s = end;

	/* Eight digits at a time while u needs 64 bits, each pair then in
	 * 32: a 64-bit division by a constant is a 128-bit multiply, a
	 * 32-bit one a 64-bit multiply (16-digit reals, times in ns). */
	while (u >= 100000000) {
		uint32_t lo = (uint32_t)(u % 100000000);
		u /= 100000000;
		for (int k = 0; k < 4; k++, lo /= 100) {
			s -= 2;
			memcpy(s, digit_pairs + 2 * (lo % 100), 2);
		}
	}
	uint32_t v = (uint32_t)u;
	while (v >= 100) {
		unsigned r = v % 100;
		v /= 100;
		s -= 2;
		memcpy(s, digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		s -= 2;
		memcpy(s, digit_pairs + 2 * v, 2);
	} else {
		*--s = (char)('0' + v);
	}
	return s;
}

/* json_int_t in decimal into buf (>= 21 bytes); returns the length. */
size_t jo_fmt_int(char *buf, int64_t v)
{
	/* Negate in unsigned space: INT64_MIN has no positive counterpart. */
	uint64_t u = v < 0 ? 0ull - (uint64_t)v : (uint64_t)v;
	size_t n, sign = v < 0;

	if (v >= 0 && v < 10) { /* most counts of a report: 0, 1 ... */
		buf[0] = (char)('0' + v);
		return 1;
	}

	/* Count the digits first so they go straight to their place: from
	 * the highest bit, log10(2) ~ 1233 / 4096, then one compare. */
	unsigned lg = (unsigned)(63 - __builtin_clzll(u)) * 1233 >> 12; /* u >= 10 */
	n = lg + 1 + (u >= pow10_u64[lg + 1]);
	if (sign)
		buf[0] = '-';
	fmt_u64(buf + sign + n, u);
	return sign + n;
}

/*
 * The reference: "%.16g" (Jansson's precision 16, the format reports always
 * had), ".0" when it would read as an integer, the exponent without '+' or
 * leading zeros. glibc prints the double's exact binary value rounded to
 * 16 digits, half to even; about 2 800 instructions a number in its
 * multi-precision code.
 */
size_t jo_fmt_real_printf(char *buf, double v)
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

#define REAL_DIGITS 16 /* "%.16g" */

/* 10^k for k <= 38, exact in 128 bits. */
static unsigned __int128 pow10_u128(unsigned k)
{
	unsigned __int128 p = pow10_u64[k < 19 ? k : 19];

	for (unsigned i = 19; i < k; i++)
		p *= 10;
	return p;
}

/*
 * round(m * 2^-s * 10^k), half to even, exactly: m < 2^53, so m * 10^k fits
 * 128 bits for k <= 22, and the bits shifted out decide the rounding as
 * glibc's exact conversion does. s is 1..127 here.
 */
static uint64_t scaled_round(uint64_t m, unsigned s, unsigned k)
{
	unsigned __int128 p = (unsigned __int128)m * pow10_u128(k);
	unsigned __int128 q = p >> s, rest = p & (((unsigned __int128)1 << s) - 1);
	unsigned __int128 half = (unsigned __int128)1 << (s - 1);

	if (rest > half || (rest == half && (q & 1)))
		q++;
	return (uint64_t)q;
}

/*
 * "%.16g" for the reals reports hold (shares, rates, averages: |v| from
 * 1e-4 to below 2^53), from the double's exact value by 128-bit integer
 * arithmetic, no printf. The 16 significant digits are round(|v| *
 * 10^(15 - X)) for the decimal exponent X; %g writes them in fixed notation
 * for -4 <= X < 16 (C11 7.21.6.1) without trailing zeros. Returns 0 for
 * what it does not cover (the caller falls back to printf).
 */
static size_t fmt_real_fixed(char *buf, double v)
{
	double a = fabs(v);
	int exp2, x = 0;
	uint64_t m, digits;
	char tmp[24], *d;
	size_t n = 0, nd;

	if (!(a >= 1e-4 && a < 9007199254740992.0)) /* also NaN */
		return 0;
	/* a = m * 2^(exp2 - 53), from its bits (a normal double here: what
	 * frexp() and ldexp(, 53) give, without two calls a number). */
	uint64_t bits;
	memcpy(&bits, &a, sizeof(bits));
	m = (bits & ((1ull << 52) - 1)) | 1ull << 52;
	exp2 = (int)(bits >> 52) - 1022;
	while (x < 15 && a >= (double)pow10_u64[x + 1])
		x++;
	if (a < 1.0)
		x = a >= 0.1 ? -1 : a >= 0.01 ? -2 : a >= 0.001 ? -3 : -4;
	for (int tries = 0;; tries++) {
		int k = REAL_DIGITS - 1 - x, s = 53 - exp2;

		if (tries == 3 || k < 0 || k > 22 || s < 0 || s > 127)
			return 0;
		/* s == 0: an integer from 2^52 to 2^53, sixteen digits already */
		digits = s == 0 ? m * pow10_u64[k] : scaled_round(m, (unsigned)s, (unsigned)k);
		if (digits >= pow10_u64[REAL_DIGITS])
			x++; /* rounded up to the next power of ten */
		else if (digits < pow10_u64[REAL_DIGITS - 1])
			x--; /* a decimal constant above was inexact */
		else
			break;
	}
	if (x < -4 || x >= REAL_DIGITS)
		return 0;
	d = fmt_u64(tmp + sizeof(tmp), digits); /* 16 digits */
	nd = REAL_DIGITS;
	while (nd > 1 && d[nd - 1] == '0')
		nd--;
	if (v < 0)
		buf[n++] = '-';
	if (x < 0) {
		memcpy(buf + n, "0.0000", (size_t)(1 - x));
		n += (size_t)(1 - x);
		memcpy(buf + n, d, nd);
		n += nd;
	} else {
		size_t whole = (size_t)x + 1;
		memcpy(buf + n, d, whole);
		n += whole;
		buf[n++] = '.';
		if (nd > whole) {
			memcpy(buf + n, d + whole, nd - whole);
			n += nd - whole;
		} else {
			buf[n++] = '0'; /* reads as a real */
		}
	}
	buf[n] = '\0';
	return n;
}

/*
 * A real as JSON, byte for byte jo_fmt_real_printf()'s. Only true reals
 * come here (rates, ratios, averages); times go through fmt_sec(), exact
 * from nanoseconds.
 */
size_t jo_fmt_real(char *buf, double v)
{
	size_t n;

	if (v == 0) {
		size_t neg = signbit(v) != 0;
		buf[0] = '-';
		memcpy(buf + neg, "0.0", 4);
		return neg + 3;
	}
	n = fmt_real_fixed(buf, v);
	return n ? n : jo_fmt_real_printf(buf, v);
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
	uint32_t frac = (uint32_t)(u - whole * 1000000000ull);
	size_t n = 0, keep = 9;

	if (ns < 0)
		buf[n++] = '-';
	n += jo_fmt_int(buf + n, (int64_t)whole);
	buf[n++] = '.';
	if (!frac) {
		buf[n++] = '0';
		return n;
	}
	/* The nine digits as one and four pairs, all written (n + 9 <=
	 * JO_SEC_MAX), the trailing zeros then left out: a report writes
	 * several hundred of these a connection. */
	uint32_t hi = frac / 10000, lo = frac % 10000;
	char *d = buf + n;
	d[0] = (char)('0' + hi / 10000);
	memcpy(d + 1, digit_pairs + 2 * (hi / 100 % 100), 2);
	memcpy(d + 3, digit_pairs + 2 * (hi % 100), 2);
	memcpy(d + 5, digit_pairs + 2 * (lo / 100), 2);
	memcpy(d + 7, digit_pairs + 2 * (lo % 100), 2);
	while (d[keep - 1] == '0') /* frac != 0: a digit stays */
		keep--;
	return n + keep;
}

/*
 * "%.*f" for prec 0..3, as glibc prints it: the double's exact binary
 * value m * 2^e scaled by 10^prec and rounded half to even, in 64-bit
 * integers (m < 2^53, 10^3 < 2^10: the product fits); printf's own way
 * costs a thousand instructions and more a number, and the text report
 * writes several a connection. 0 where it does not reach (NaN, infinity,
 * 2^53 and beyond, another precision): the caller asks printf.
 */
size_t jo_fmt_fixed(char *buf, double v, int prec)
{
	static const uint64_t pow10[] = {1, 10, 100, 1000};
	uint64_t bits, m, q;
	int e;

	if (prec < 0 || prec > 3 || !isfinite(v) || fabs(v) >= 9007199254740992.0)
		return 0;
	memcpy(&bits, &v, 8);
	unsigned be = (unsigned)(bits >> 52) & 0x7ff;
	m = bits & ((1ull << 52) - 1);
	if (be) {
		m |= 1ull << 52;
		e = (int)be - 1075;
	} else {
		e = -1074; /* subnormal */
	}
	uint64_t p = m * pow10[prec];
	if (e >= 0) {
		q = p << e; /* v < 2^53: p * 2^e < 2^63 */
	} else if (-e >= 64) {
		q = 0; /* below half of the last digit: p < 2^63 <= 2^(-e-1) */
	} else {
		unsigned sh = (unsigned)-e;
		uint64_t rem = p & ((1ull << sh) - 1), half = 1ull << (sh - 1);
		q = p >> sh;
		if (rem > half || (rem == half && (q & 1)))
			q++;
	}
	char tmp[32], *end = tmp + sizeof(tmp), *s;
	size_t n = 0;
	if (bits >> 63)
		buf[n++] = '-';
	if (prec) {
		uint64_t frac = q % pow10[prec];
		s = end;
		for (int k = 0; k < prec; k++, frac /= 10)
			*--s = (char)('0' + frac % 10);
		*--s = '.';
		s = fmt_u64(s, q / pow10[prec]);
	} else {
		s = fmt_u64(end, q);
	}
	memcpy(buf + n, s, (size_t)(end - s));
	return n + (size_t)(end - s);
}
