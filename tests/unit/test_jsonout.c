/* test_jsonout.c - the JSON writer: exact bytes for each kind of value, and what it writes reads
 * back. */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/jsonout.h"
#include "analyze/report/jsonout_int.h"
#include "tests/unit/unit.h"

/*
 * Two kinds of proof. Literal expectations pin the layout reports have
 * always had (sorted keys, one-space pretty indent, "%.16g" reals with
 * ".0", exact seconds from nanoseconds, escapes). Random trees, written
 * through the streaming calls, are read back with Jansson (the tool for
 * reading JSON) and must equal what was written.
 */

/* What w holds, as a string the caller frees. */
static char *text(const struct jo_writer *w)
{
	char *s = malloc(w->b.len + 1);
	memcpy(s, w->b.p ? w->b.p : "", w->b.len);
	s[w->b.len] = '\0';
	return s;
}

static void expect(const struct jo_writer *w, const char *want, const char *what)
{
	char *got = text(w);
	bool ok = w->err == 0 && strcmp(got, want) == 0;
	if (!ok)
		fprintf(stderr, "%s: err %d, got '%s', want '%s'\n", what, w->err, got, want);
	CHECK(ok);
	free(got);
}

static void test_layout(void)
{
	for (int indent = 0; indent < 2; indent++) {
		struct jo_writer w;
		jo_w_init(&w, NULL, 0, indent);
		jo_w_obj(&w);
		jo_w_key(&w, "a");
		jo_w_arr(&w);
		jo_w_int(&w, 1);
		jo_w_obj(&w);
		jo_w_obj_end(&w);
		jo_w_arr(&w);
		jo_w_arr_end(&w);
		jo_w_arr_end(&w);
		jo_kbool(&w, "b", true);
		jo_knull(&w, "c");
		jo_kstr(&w, "d", "x");
		jo_ksec(&w, "e_s", 1500000);
		jo_kreal(&w, "f", 0.5);
		jo_w_obj_end(&w);
		expect(&w,
		       indent
			   ? "{\n \"a\": [\n  1,\n  {},\n  []\n ],\n \"b\": true,\n \"c\": null,\n"
			     " \"d\": \"x\",\n \"e_s\": 0.0015,\n \"f\": 0.5\n}"
			   : "{\"a\":[1,{},[]],\"b\":true,\"c\":null,\"d\":\"x\",\"e_s\":0.0015,"
			     "\"f\":0.5}",
		       indent ? "pretty layout" : "compact layout");
		jo_w_free(&w);
	}
}

static void test_strings(void)
{
	struct jo_writer w;

	jo_w_init(&w, NULL, 0, 0);
	jo_w_str(&w, "q\"b\\s/\b\f\n\r\t\x01\x1f caf\xc3\xa9");
	expect(&w, "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001F caf\xc3\xa9\"", "escapes, UTF-8");
	jo_w_free(&w);
	jo_w_init(&w, NULL, 0, 0);
	jo_w_str(&w, "");
	expect(&w, "\"\"", "empty string");
	jo_w_free(&w);
}

static void test_reals(void)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
	    {0.0, "0.0"},
	    {1.0, "1.0"},
	    {-2.5, "-2.5"},
	    {0.1, "0.1"},
	    {0.000012, "1.2e-5"},
	    {1e-7, "1e-7"},
	    {1e300, "1e300"},
	    {123456789012345678.0, "1.234567890123457e17"},
	    {1447.265557163531, "1447.265557163531"},
	    {82015339.00570752, "82015339.00570752"},
	    {1e15, "1000000000000000.0"},
	    {1e16, "1e16"},
	    {DBL_MAX, "1.797693134862316e308"},
	};
	char buf[JO_REAL_MAX];

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		size_t n = jo_fmt_real(buf, cases[k].v);
		bool ok = n == strlen(cases[k].want) && memcmp(buf, cases[k].want, n) == 0;
		if (!ok)
			fprintf(stderr, "real %.17g: got '%.*s', want '%s'\n", cases[k].v, (int)n,
				buf, cases[k].want);
		CHECK(ok);
	}
	CHECK(jo_fmt_real(buf, NAN) == 0);
	CHECK(jo_fmt_real(buf, INFINITY) == 0);
}

/* Keys the compiler cannot see (built at run time: a name from data) are
 * measured and escaped, whatever their alignment and length (the scan
 * reads aligned words); literal keys are trusted, and held to being plain
 * in the test builds. */
static void test_keys(void)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz";
	char buf[64], want[160];
	struct jo_writer w;
	unsigned bad = 0;

	for (unsigned off = 0; off < 8; off++)
		for (unsigned len = 0; len <= 24; len++)
			for (int special = -1; special < (int)len; special++) {
				char *k = buf + off;
				size_t n = 0;
				for (unsigned i = 0; i < len; i++)
					k[i] = (int)i == special ? '"' : alphabet[(i + off) % 26];
				k[len] = '\0';
				n += (size_t)snprintf(want + n, sizeof(want) - n, "{\"");
				for (unsigned i = 0; i < len; i++)
					n += (size_t)snprintf(want + n, sizeof(want) - n,
							      k[i] == '"' ? "\\\"" : "%c", k[i]);
				snprintf(want + n, sizeof(want) - n, "\":1}");
				jo_w_init(&w, NULL, 0, 0);
				jo_w_obj(&w);
				jo_kint(&w, k, 1);
				jo_w_obj_end(&w);
				char *got = text(&w);
				if (w.err || strcmp(got, want)) {
					if (bad++ < 3)
						fprintf(stderr,
							"key off %u len %u: '%s', want '%s'\n", off,
							len, got, want);
				}
				free(got);
				jo_w_free(&w);
			}
	CHECK(bad == 0);
#ifdef JO_CHECK_ORDER
	jo_w_init(&w, NULL, 0, 0);
	jo_w_obj(&w);
	jo_kint(&w, "not\"plain", 1);
	CHECK(w.err == ERR_USAGE);
	jo_w_free(&w);
#endif
}

/* The fast path, byte for byte printf's, on the reals reports hold and
 * around every edge it has: powers of ten, 16-digit round-ups, halfway
 * ties, the ends of its range (and beyond, where printf answers). */
static bool same_as_printf(double v)
{
	char fast[JO_REAL_MAX], ref[JO_REAL_MAX];
	size_t nf = jo_fmt_real(fast, v), nr = jo_fmt_real_printf(ref, v);

	if (nf == nr && memcmp(fast, ref, nf) == 0)
		return true;
	fprintf(stderr, "real %a: fast '%.*s', printf '%.*s'\n", v, (int)nf, fast, (int)nr, ref);
	return false;
}

static void test_reals_exact(void)
{
	uint64_t state = 0x9e3779b97f4a7c15ull;
	unsigned bad = 0;

	for (int e = -330; e <= 310 && bad < 5; e++) {
		double p = pow(10.0, e);
		bad += !same_as_printf(p) + !same_as_printf(nextafter(p, 0)) +
		       !same_as_printf(nextafter(p, INFINITY)) + !same_as_printf(-p);
	}
	for (unsigned i = 0; i < 200000 && bad < 5; i++) {
		uint64_t r;
		double v;

		state ^= state << 13, state ^= state >> 7, state ^= state << 17;
		r = state;
		switch (i % 5) {
		case 0: /* any finite double from 1e-6 to 1e17 */
			v = ldexp((double)(r >> 11) / 9007199254740992.0 + 0.5, (int)(r % 78) - 20);
			break;
		case 1: /* a ratio of counts, as shares are */
			v = (double)(r % 100000) / (double)((r >> 20) % 1000000 + 1);
			break;
		case 2: /* a decimal with few digits: ties and trailing zeros */
			v = (double)(r % 100000000) / pow(10.0, (double)((r >> 40) % 12));
			break;
		case 3: /* 17 significant digits: the 16th rounds */
			v = (double)(r % 100000000000000000ull) *
			    pow(10.0, -(double)((r >> 58) % 20));
			break;
		default: /* integers up to and past 2^53 */
			v = (double)(r >> (11 + (r % 20)));
			break;
		}
		bad += !same_as_printf(v) + !same_as_printf(-v);
	}
	CHECK(bad == 0);
}

/* Integers as printf writes them: every power of ten and its neighbours,
 * both sides of 2^32 (where the pairs go from 64-bit to 32-bit
 * arithmetic) and of 10^8 (a chunk of eight), the extremes, and random
 * values of every length. */
static void int_case(int64_t v, unsigned *bad)
{
	char got[32], want[32];
	size_t n = jo_fmt_int(got, v);

	snprintf(want, sizeof(want), "%" PRId64, v);
	if (n != strlen(want) || memcmp(got, want, n) != 0) {
		if (++*bad <= 5)
			fprintf(stderr, "jo_fmt_int(%s) wrote %.*s\n", want, (int)n, got);
	}
}

static void test_ints(void)
{
	unsigned bad = 0;
	uint64_t state = 0x2545f4914f6cdd1dull, p = 1;

	for (int k = 0; k < 19; k++, p *= 10)
		for (int64_t d = -2; d <= 2; d++) {
			int_case((int64_t)p + d, &bad);
			int_case(-(int64_t)p + d, &bad);
			int_case((int64_t)p * 5 + d, &bad);
		}
	for (int64_t d = -3; d <= 3; d++) {
		int_case(((int64_t)1 << 32) + d, &bad);
		int_case(((int64_t)1 << 31) + d, &bad);
		int_case(INT64_MAX - 3 + d, &bad);
		int_case(INT64_MIN + 3 + d, &bad);
	}
	for (unsigned i = 0; i < 300000; i++) {
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		int_case((int64_t)(state >> (i % 64)), &bad);
		int_case(-(int64_t)(state >> (i % 63 + 1)), &bad);
	}
	CHECK_EQ_U(bad, 0);
}

static void test_seconds(void)
{
	static const struct {
		int64_t ns;
		const char *want;
	} cases[] = {
	    {0, "0.0"},
	    {1, "0.000000001"},
	    {1000, "0.000001"},
	    {999999999, "0.999999999"},
	    {1000000000, "1.0"},
	    {1500000, "0.0015"},
	    {-1500000000, "-1.5"},
	    {1796033364947948123ll, "1796033364.947948123"},
	    {INT64_MAX, "9223372036.854775807"},
	    {INT64_MIN, "-9223372036.854775808"},
	};
	char buf[JO_SEC_MAX];

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		size_t n = jo_fmt_sec(buf, cases[k].ns);
		bool ok = n == strlen(cases[k].want) && memcmp(buf, cases[k].want, n) == 0;
		if (!ok)
			fprintf(stderr, "sec %" PRId64 ": got '%.*s', want '%s'\n", cases[k].ns,
				(int)n, buf, cases[k].want);
		CHECK(ok);
	}
	/* printf's digits, trailing zeros of the fraction left out (one
	 * kept), on values of every magnitude and every trailing-zero count. */
	srand(11);
	for (int i = 0; i < 200000; i++) {
		uint64_t r = ((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^ (uint64_t)rand();
		int64_t ns = (int64_t)(r >> (i % 63));
		static const int64_t tens[] = {1, 10, 1000, 1000000, 100000000};
		ns -= ns % tens[i % 5];
		if (i & 1)
			ns = -ns;
		char want[48];
		uint64_t u = ns < 0 ? 0ull - (uint64_t)ns : (uint64_t)ns;
		int w = snprintf(want, sizeof(want), "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "",
				 u / 1000000000u, u % 1000000000u);
		while (want[w - 1] == '0' && want[w - 2] != '.')
			w--;
		size_t n = jo_fmt_sec(buf, ns);
		if (n != (size_t)w || memcmp(buf, want, n) != 0) {
			fprintf(stderr, "sec %" PRId64 ": got '%.*s', want '%.*s'\n", ns, (int)n,
				buf, w, want);
			CHECK(false);
			break;
		}
	}
	/* Every value reads back as the same number of nanoseconds. */
	for (int64_t ns = 1; ns < INT64_MAX / 3; ns = ns * 3 + 7) {
		size_t n = jo_fmt_sec(buf, ns);
		char *end;
		buf[n] = '\0';
		long long whole = strtoll(buf, &end, 10);
		CHECK(*end == '.');
		long long frac = 0;
		int digits = 0;
		for (char *p = end + 1; *p; p++, digits++)
			frac = frac * 10 + (*p - '0');
		for (; digits < 9; digits++)
			frac *= 10;
		CHECK(whole * 1000000000ll + frac == ns);
	}
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* jo_fmt_fixed() against printf's "%.*f": its answer, or 0 where it
 * leaves the number to printf. */
static bool fixed_same(double v, int prec)
{
	char want[64], got[64];
	size_t n = jo_fmt_fixed(got, v, prec);

	if (!n)
		return !isfinite(v) || fabs(v) >= 9007199254740992.0;
	got[n] = '\0';
	snprintf(want, sizeof(want), "%.*f", prec, v);
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "jo_fmt_fixed(%a, %d): got '%s', want '%s'\n", v, prec, got, want);
		return false;
	}
	return true;
}

/* The text report's numbers: the exact value rounded half to even, ties
 * at every precision, the sign of a negative zero and of what rounds to
 * it, subnormals, the edge of 2^53, and values as the report makes them
 * (integer nanoseconds over 1e9, byte counts over powers of 1000). */
static void test_fixed(void)
{
	static const double edge[] = {0.0,
				      -0.0,
				      0.5,
				      1.5,
				      2.5,
				      0.125,
				      0.375,
				      1.0005,
				      2.0005,
				      0.0625,
				      0.9995,
				      9.9995,
				      -0.0004,
				      -2.5,
				      1e-300,
				      4.9e-324,
				      5e-4,
				      5e-1,
				      1e15 + 0.5,
				      4503599627370497.5,
				      9007199254740991.0,
				      9007199254740992.0,
				      NAN,
				      INFINITY};
	bool ok = true;

	for (size_t k = 0; k < sizeof(edge) / sizeof(edge[0]); k++)
		for (int prec = 0; prec <= 3; prec++)
			ok = ok && fixed_same(edge[k], prec);
	for (int k = 0; k < 200000 && ok; k++) {
		uint64_t r = next();
		int prec = (int)(r & 3);
		double v;
		switch ((r >> 2) & 3) {
		case 0: /* seconds from nanoseconds */
			v = (double)(int64_t)(next() % 100000000000000ull) / 1e9;
			break;
		case 1: /* a count over a power of 1000 */
			v = (double)(next() >> (next() % 64)) / 1000.0;
			break;
		case 2: /* ties and near-ties: n / 2^k */
			v = (double)(int64_t)(next() % 100000) / (double)(1u << (next() % 12));
			break;
		default: { /* any bits, the finite ones */
			uint64_t b = next();
			memcpy(&v, &b, 8);
			break;
		}
		}
		ok = ok && fixed_same(next() & 1 ? v : -v, prec);
	}
	CHECK(ok);
	char buf[64];
	CHECK_EQ_U(jo_fmt_fixed(buf, 1.0, 4), 0); /* another precision: printf's */
}

/* A random tree as a Jansson value: the test's data, not the writer's. */
static json_t *random_value(int depth)
{
	char key[16];
	switch (next() % (depth > 3 ? 5 : 7)) {
	case 0:
		return json_integer((json_int_t)next() >> (next() % 64));
	case 1: {
		double v = (double)(int64_t)(next() % 4000000000000000000ull) / 1e9;
		return json_real(next() % 2 ? v : v / 1e12);
	}
	case 2:
		return next() % 3 ? json_string("10.0.0.1:80") : json_string("[fd00::1]:443");
	case 3:
		return json_boolean(next() % 2);
	case 4:
		return json_null();
	case 5: {
		json_t *o = json_object();
		unsigned n = (unsigned)(next() % 8);
		for (unsigned k = 0; k < n; k++) {
			snprintf(key, sizeof(key), "k%u_%u", (unsigned)(next() % 100), k);
			json_object_set_new(o, key, random_value(depth + 1));
		}
		return o;
	}
	default: {
		json_t *a = json_array();
		unsigned n = (unsigned)(next() % 6);
		for (unsigned k = 0; k < n; k++)
			json_array_append_new(a, random_value(depth + 1));
		return a;
	}
	}
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* v through the streaming calls, object keys in sorted order. */
static void stream(struct jo_writer *w, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		size_t n = json_object_size(v), k = 0;
		const char **keys = malloc((n ? n : 1) * sizeof(*keys));
		const char *key;
		json_t *m;
		json_object_foreach((json_t *)v, key, m) keys[k++] = key;
		qsort(keys, n, sizeof(*keys), by_str);
		jo_w_obj(w);
		for (k = 0; k < n; k++) {
			jo_w_key(w, keys[k]);
			stream(w, json_object_get(v, keys[k]));
		}
		jo_w_obj_end(w);
		free(keys);
		break;
	}
	case JSON_ARRAY:
		jo_w_arr(w);
		for (size_t k = 0; k < json_array_size(v); k++)
			stream(w, json_array_get(v, k));
		jo_w_arr_end(w);
		break;
	case JSON_STRING:
		jo_w_str(w, json_string_value(v));
		break;
	case JSON_INTEGER:
		jo_w_int(w, json_integer_value(v));
		break;
	case JSON_REAL:
		jo_w_real(w, json_real_value(v));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		jo_w_bool(w, json_is_true(v));
		break;
	default:
		jo_w_null(w);
		break;
	}
}

/* Level k of a nest 15 deep (the order check of the test builds follows
 * 16), in literal keys (the inline writers). */
static void deep_write(struct jo_writer *w, int k)
{
	jo_w_obj(w);
	jo_kint(w, "a", k);
	jo_kbool(w, "b", k % 2 == 0);
	jo_knull(w, "c");
	jo_kstr(w, "d", "s");
	if (k < 14) {
		jo_w_key(w, "e");
		deep_write(w, k + 1);
	}
	jo_w_key(w, "f");
	jo_w_arr(w);
	jo_w_int(w, k);
	jo_w_bool(w, false);
	jo_w_arr_end(w);
	jo_kbool(w, "g", k % 2 != 0);
	jo_w_obj_end(w);
}

static json_t *deep_tree(int k)
{
	json_t *o = json_object();
	json_object_set_new(o, "a", json_integer(k));
	json_object_set_new(o, "b", json_boolean(k % 2 == 0));
	json_object_set_new(o, "c", json_null());
	json_object_set_new(o, "d", json_string("s"));
	if (k < 14)
		json_object_set_new(o, "e", deep_tree(k + 1));
	json_object_set_new(o, "f", json_pack("[ib]", k, 0));
	json_object_set_new(o, "g", json_boolean(k % 2 != 0));
	return o;
}

/* Byte for byte Jansson's layout, at every depth and indent: the inline
 * key writers' separator, the general way past 30 spaces of indentation,
 * and the buffer's growth under both. */
static void test_deep_layout(void)
{
	json_t *tree = deep_tree(0);

	for (int indent = 0; indent <= 4; indent++) {
		struct jo_writer w;
		jo_w_init(&w, NULL, 0, indent);
		deep_write(&w, 0);
		char *want = json_dumps(tree, (indent ? JSON_INDENT(indent) : JSON_COMPACT) |
						  JSON_SORT_KEYS);
		expect(&w, want, indent ? "deep pretty layout" : "deep compact layout");
		free(want);
		jo_w_free(&w);
	}
	json_decref(tree);
}

/* Equal, reals to the 16 significant digits the writer keeps. */
static bool same_value(const json_t *a, const json_t *b)
{
	if (json_is_real(a) && json_is_real(b)) {
		double x = json_real_value(a), y = json_real_value(b);
		return fabs(x - y) <= 1e-15 * fmax(fabs(x), fabs(y));
	}
	if (json_typeof(a) != json_typeof(b))
		return false;
	if (json_is_object(a)) {
		const char *key;
		json_t *m;
		if (json_object_size(a) != json_object_size(b))
			return false;
		json_object_foreach((json_t *)a, key,
				    m) if (!json_object_get(b, key) ||
					   !same_value(m, json_object_get(b, key))) return false;
		return true;
	}
	if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		for (size_t k = 0; k < json_array_size(a); k++)
			if (!same_value(json_array_get(a, k), json_array_get(b, k)))
				return false;
		return true;
	}
	return json_equal((json_t *)a, (json_t *)b);
}

static void round_trip(json_t *v, const char *what)
{
	for (int indent = 0; indent < 2; indent++) {
		struct jo_writer w;
		json_error_t jerr;
		jo_w_init(&w, NULL, 0, indent);
		stream(&w, v);
		json_t *back = w.err ? NULL : json_loadb(w.b.p, w.b.len, JSON_DECODE_ANY, &jerr);
		bool ok = back && same_value(v, back);
		if (!ok)
			fprintf(stderr, "%s (indent %d): '%.*s'\n", what, indent, (int)w.b.len,
				w.b.p ? w.b.p : "");
		CHECK(ok);
		json_decref(back);
		jo_w_free(&w);
	}
	json_decref(v);
}

static void test_round_trips(void)
{
	for (int k = 0; k < 3000; k++)
		round_trip(random_value(0), "random tree");
	/* Escapes at every position around the 8-byte steps of the
	 * plain-string scan, in values and in keys. */
	static const unsigned char specials[] = {'"',  '\\', 0x01, 0x1f, 0x20, 0x21,
						 0x2f, 0x5b, 0x5d, 0x7f, 0x0a};
	for (size_t len = 1; len <= 20; len++) {
		for (size_t pos = 0; pos < len; pos++) {
			for (size_t c = 0; c < sizeof(specials); c++) {
				char str[24];
				memset(str, 'a', len);
				str[pos] = (char)specials[c];
				str[len] = '\0';
				round_trip(json_string_nocheck(str), "special byte in a string");
				json_t *o = json_object();
				json_object_set_new_nocheck(o, str, json_integer((json_int_t)len));
				round_trip(o, "special byte in a key");
			}
		}
	}
}

/* Gathered fields and named counts come out sorted, whatever the order
 * they were given in. */
static void test_sorted_helpers(void)
{
	struct jo_writer w;
	struct jo_fields f;

	jo_f_reset(&f);
	jo_f_str(&f, "type", "x");
	jo_f_sec(&f, "ts", 1796033364947948123ll);
	jo_f_int_pair(&f, "frames", 3, 4);
	jo_f_null(&f, "advice");
	jo_f_bool(&f, "b", false);
	jo_f_set_str(&f, "type", "y");
	jo_w_init(&w, NULL, 0, 0);
	jo_w_fields(&w, &f);
	expect(&w,
	       "{\"advice\":null,\"b\":false,\"frames\":[3,4],\"ts\":1796033364.947948123,"
	       "\"type\":\"y\"}",
	       "fields");
	jo_w_free(&w);

	/* A key the compiler cannot measure (built at run time) is measured
	 * when written; literal ones are copied as measured; pretty too. */
	char runtime_key[8];
	snprintf(runtime_key, sizeof(runtime_key), "%c%c", 'z', 'k');
	jo_f_reset(&f);
	jo_f_int(&f, runtime_key, 12);
	jo_f_real(&f, "r", 0.5);
	jo_f_set_str(&f, "kind", "v");
	jo_w_init(&w, NULL, 0, 1);
	jo_w_fields(&w, &f);
	expect(&w, "{\n \"kind\": \"v\",\n \"r\": 0.5,\n \"zk\": 12\n}", "fields, pretty");
	jo_w_free(&w);

	static const char *const names[] = {"tsval", "ip_id", "timing", "ack"};
	static const uint64_t v[] = {1, 2, 3, 4};
	jo_w_init(&w, NULL, 0, 0);
	jo_w_named_counts(&w, names, v, 4);
	expect(&w, "{\"ack\":4,\"ip_id\":2,\"timing\":3,\"tsval\":1}", "named counts");
	jo_w_free(&w);

	/* The writer keeps each table's order: tables built afresh on the
	 * stack (same pointers) find it, more tables than it keeps, and a
	 * table that differs in one name, a name to escape, or its size,
	 * are each written in their own sorted order. */
	static const char *const pool[] = {"b", "a", "d", "c", "e\"q", "f", "g", "h"};
	char got[2048];
	jo_w_init(&w, NULL, 0, 0);
	for (unsigned round = 0; round < 3; round++)
		for (unsigned t = 0; t < 9; t++) {
			const char *tab[4];
			unsigned n = 2 + t % 3;
			for (unsigned k = 0; k < n; k++)
				tab[k] = pool[k ? 2 + (t / 2 + k) % 6 : t % 2];
			jo_w_named_counts(&w, tab, v, n);
		}
	CHECK(w.err == 0 && w.b.len < sizeof(got));
	memcpy(got, w.b.p, w.b.len);
	got[w.b.len] = '\0';
	jo_w_free(&w);
	/* The same, written without the writer's tables: by hand. */
	char want[2048] = "";
	size_t wn = 0;
	for (unsigned round = 0; round < 3; round++)
		for (unsigned t = 0; t < 9; t++) {
			const char *tab[4];
			unsigned n = 2 + t % 3, ord[4];
			for (unsigned k = 0; k < n; k++) {
				tab[k] = pool[k ? 2 + (t / 2 + k) % 6 : t % 2];
				ord[k] = k;
			}
			for (unsigned a = 0; a < n; a++)
				for (unsigned b = a + 1; b < n; b++)
					if (strcmp(tab[ord[b]], tab[ord[a]]) < 0) {
						unsigned x = ord[a];
						ord[a] = ord[b];
						ord[b] = x;
					}
			wn += (size_t)snprintf(want + wn, sizeof(want) - wn, "{");
			for (unsigned k = 0; k < n; k++)
				wn += (size_t)snprintf(
				    want + wn, sizeof(want) - wn, "%s\"%s\":%u", k ? "," : "",
				    strcmp(tab[ord[k]], "e\"q") ? tab[ord[k]] : "e\\\"q",
				    (unsigned)v[ord[k]]);
			wn += (size_t)snprintf(want + wn, sizeof(want) - wn, "}");
		}
	if (strcmp(got, want) != 0)
		fprintf(stderr, "named counts, tables in turn:\n %s\nwant\n %s\n", got, want);
	CHECK(strcmp(got, want) == 0);
}

static void test_errors(void)
{
	/* After an error nothing more reaches the FILE; what came before does. */
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f = open_memstream(&mem, &memlen);
	struct jo_writer w;

	jo_w_init(&w, f, 0, 1);
	jo_w_raw(&w, "before ");
	CHECK(jo_w_commit(&w) == 0);
	jo_w_raw(&w, "kept ");
	jo_w_real(&w, NAN); /* JSON cannot say it */
	jo_w_raw(&w, "dropped");
	jo_w_real(&w, 1.0);
	CHECK(jo_w_commit(&w) == ERR_USAGE);
	jo_w_raw(&w, "dropped too");
	CHECK(jo_w_flush(&w) == ERR_USAGE);
	fclose(f);
	CHECK(memlen == 12 && memcmp(mem, "before kept ", 12) == 0);
	free(mem);
	jo_w_free(&w);
	jo_w_free(NULL);

	/* A member's real, by the inline way (a literal key, room) and the
	 * general one (a key the compiler cannot measure): NaN fails either,
	 * after the key, as a value alone does. */
	const char *key = getenv("TCPSIFT_NO_SUCH_VARIABLE") ? "b" : "a";
	for (int general = 0; general < 2; general++) {
		jo_w_init(&w, NULL, 0, 0);
		jo_w_obj(&w);
		if (general)
			jo_kreal(&w, key, INFINITY);
		else
			jo_kreal(&w, "a", NAN);
		CHECK(w.err == ERR_USAGE);
		CHECK(w.b.len == 5 && memcmp(w.b.p, "{\"a\":", 5) == 0);
		jo_w_free(&w);
	}
	jo_w_init(&w, NULL, 0, 0);
	jo_w_obj(&w);
	jo_kreal(&w, "a", 0.5);
	jo_knull(&w, "b");
	jo_knull(&w, key == NULL ? "" : "c"); /* not a literal: the general way */
	jo_w_obj_end(&w);
	const char want[] = "{\"a\":0.5,\"b\":null,\"c\":null}";
	CHECK(w.err == 0 && w.b.len == sizeof(want) - 1 &&
	      memcmp(w.b.p, want, sizeof(want) - 1) == 0);
	jo_w_free(&w);

	struct jo_fields fl;
	jo_f_reset(&fl);
	for (int k = 0; k <= JO_FIELDS_MAX; k++)
		jo_f_int(&fl, "k", k);
	jo_w_init(&w, NULL, 0, 0);
	jo_w_fields(&w, &fl);
	CHECK(w.err == ERR_USAGE);
	jo_w_free(&w);

	/* A write the FILE refuses: ERR_SYSTEM, with its errno kept for the
	 * message. */
	f = fopen("/dev/full", "w");
	if (f) {
		setvbuf(f, NULL, _IONBF, 0);
		jo_w_init(&w, f, 0, 0);
		jo_w_raw(&w, "x");
		CHECK(jo_w_flush(&w) == ERR_SYSTEM);
		CHECK(w.sys_errno == ENOSPC);
		jo_w_free(&w);
		fclose(f);
	}
#ifdef JO_CHECK_ORDER
	/* The test builds catch a key written out of order. */
	jo_w_init(&w, NULL, 0, 0);
	jo_w_obj(&w);
	jo_kint(&w, "b", 1);
	jo_kint(&w, "a", 2);
	jo_w_obj_end(&w);
	CHECK(w.err == ERR_USAGE);
	jo_w_free(&w);
#endif
}

int main(void)
{
	test_layout();
	test_deep_layout();
	test_strings();
	test_keys();
	test_reals();
	test_reals_exact();
	test_ints();
	test_seconds();
	test_fixed();
	test_round_trips();
	test_sorted_helpers();
	test_errors();
	return unit_done("jsonout");
}
