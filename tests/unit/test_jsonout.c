/* test_jsonout.c - jo_dump() and the streaming writer write exactly what json_dumps() writes. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "analyze/report/jsonout.h"
#include "tests/unit/unit.h"

static const size_t pretty =
    JSON_SORT_KEYS | JSON_REAL_PRECISION(16) | JSON_ENCODE_ANY | JSON_INDENT(1);
static const size_t compact =
    JSON_SORT_KEYS | JSON_REAL_PRECISION(16) | JSON_ENCODE_ANY | JSON_COMPACT;

/* Compare both serializers on v (stolen), pretty and compact. */
static void same(json_t *v, const char *what)
{
	struct jo_buf b = {0};

	for (int mode = 0; mode < 2; mode++) {
		char *want = json_dumps(v, mode ? compact : pretty);
		jo_reset(&b);
		int rc = jo_dump(&b, v, mode ? 0 : 1);
		bool ok = want && rc == 0 && b.len == strlen(want) && memcmp(b.p, want, b.len) == 0;
		if (!ok)
			fprintf(stderr, "%s (%s): jansson '%s' jsonout '%.*s'\n", what,
				mode ? "compact" : "pretty", want ? want : "(null)", (int)b.len,
				b.p ? b.p : "");
		CHECK(ok);
		free(want);
	}
	jo_free(&b);
	json_decref(v);
}

static int put_raw_nl(struct jo_buf *b)
{
	char *p = realloc(b->p, b->len + 1);
	if (!p)
		return -1;
	b->p = p;
	b->p[b->len++] = '\n';
	b->cap = b->len;
	return 0;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static json_t *random_value(int depth)
{
	char key[16];
	switch (next() % (depth > 3 ? 5 : 7)) {
	case 0:
		return json_integer((json_int_t)next() >> (next() % 64));
	case 1: {
		/* Timestamps, durations, rates: what the reports hold. */
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

/* jo_fmt_real() (printf-free for most values) against Jansson's own. */
static void same_real(double v)
{
	json_t *r = json_real(v);
	char *want = json_dumps(r, compact);
	char got[JO_REAL_MAX + 1];

	json_decref(r);
	size_t n = jo_fmt_real(got, v);

	got[n] = '\0';
	bool ok = want && strcmp(want, got) == 0;
	if (!ok)
		fprintf(stderr, "real %.17g: jansson '%s' jsonout '%s'\n", v,
			want ? want : "(null)", got);
	CHECK(ok);
	free(want);
}

static double random_real(void)
{
	uint64_t bits;
	double v;

	switch (next() % 8) {
	case 0: /* seconds from nanoseconds, as the reports print times */
		return (double)(int64_t)(next() >> (next() % 64)) / 1e9;
	case 1: /* any finite double */
		bits = next();
		memcpy(&v, &bits, sizeof(v));
		return isfinite(v) ? v : 1.5;
	case 2: /* ratios: payload per packet, segments per ACK */
		return (double)(next() % 100000000000ull) / (double)(1 + next() % 100000000ull);
	case 3: /* rates: bytes * 8 / seconds */
		return (double)(next() >> (next() % 64)) * 8.0 /
		       ((double)(int64_t)(1 + (next() >> (next() % 64))) / 1e9);
	case 4: /* 17 significant digits ending in 5: ties, rounded to even */
		return (double)(next() % (1ull << 53)) + 0.5;
	case 5: /* near powers of ten: 9.99...e-5 vs 1e-4, carries into a new digit */
		return nextafter(pow(10, (int)(next() % 40) - 20), next() % 2 ? 0 : 1e300);
	case 6: /* capture timestamps */
		return (double)(1704067200000000000ll + (int64_t)(next() % 100000000000000ull)) /
		       1e9;
	default:
		return -(double)(next() % 1000000000000ull) / 1e9;
	}
}

/* Write the Jansson value v through the streaming writer, keys sorted as
 * the writer's callers must. */
static void write_tree(struct jo_writer *w, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char *keys[64], *key;
		size_t n = 0;
		json_t *val;
		json_object_foreach((json_t *)v, key, val) keys[n++] = key;
		for (size_t i = 1; i < n; i++) /* insertion sort, strcmp order */
			for (size_t j = i; j > 0 && strcmp(keys[j], keys[j - 1]) < 0; j--) {
				const char *t = keys[j];
				keys[j] = keys[j - 1];
				keys[j - 1] = t;
			}
		jo_w_obj(w);
		for (size_t i = 0; i < n; i++) {
			jo_w_key(w, keys[i]);
			write_tree(w, json_object_get(v, keys[i]));
		}
		jo_w_obj_end(w);
		break;
	}
	case JSON_ARRAY:
		jo_w_arr(w);
		for (size_t i = 0; i < json_array_size(v); i++)
			write_tree(w, json_array_get(v, i));
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

/* The writer against jo_dump() on v (borrowed), pretty and compact; the
 * pretty one written through a FILE in small flushes. */
static void same_stream(const json_t *v, const char *what)
{
	for (int indent = 0; indent < 2; indent++) {
		struct jo_buf want = {0};
		struct jo_writer w;
		char *mem = NULL;
		size_t memlen = 0;
		FILE *f = indent ? open_memstream(&mem, &memlen) : NULL;

		jo_w_init(&w, f, 16, indent);
		write_tree(&w, v);
		jo_w_raw(&w, "\n");
		CHECK(jo_w_commit(&w) == 0);
		CHECK(jo_w_flush(&w) == 0);
		if (f)
			fclose(f);
		CHECK(jo_dump(&want, v, indent) == 0);
		CHECK(put_raw_nl(&want) == 0);
		const char *got = f ? mem : w.b.p;
		size_t gotlen = f ? memlen : w.b.len;
		bool ok = gotlen == want.len && memcmp(got, want.p, want.len) == 0;
		if (!ok)
			fprintf(stderr, "%s (indent %d): jo_dump '%.*s' writer '%.*s'\n", what,
				indent, (int)want.len, want.p, (int)gotlen, got ? got : "");
		CHECK(ok);
		free(mem);
		jo_w_free(&w);
		jo_free(&want);
	}
}

int main(void)
{
	same(json_integer(0), "zero");
	same(json_integer(INT64_MIN), "int64 min");
	same(json_integer(INT64_MAX), "int64 max");
	same(json_integer(-42), "negative");
	same(json_real(0.0), "real zero");
	same(json_real(1.0), "real one keeps .0");
	same(json_real(-2.5), "negative real");
	same(json_real(1796033372.495086), "timestamp");
	same(json_real(0.000012), "small");
	same(json_real(1e-300), "tiny exponent");
	same(json_real(1e300), "huge exponent");
	same(json_real(DBL_MAX), "DBL_MAX");
	same(json_real(123456789012345678.0), "exponent form");
	same(json_string("plain"), "string");
	same(json_string("q\"b\\s/\b\f\n\r\t\x01\x1f"), "escapes");
	same(json_string("caf\xc3\xa9 \xe2\x82\xac"), "UTF-8 passes through");
	same(json_string(""), "empty string");
	same(json_object(), "empty object");
	same(json_array(), "empty array");
	same(json_pack("{s:[], s:{}, s:[i, {s:n}]}", "b", "a", "c", 1, "z"), "nesting");
	same(json_pack("{s:i, s:i, s:i}", "zeta", 1, "alpha", 2, "mid", 3), "unsorted keys");
	for (int k = 0; k < 2000; k++)
		same(random_value(0), "random tree");
	for (int k = 0; k < 2000; k++) {
		json_t *v = random_value(0);
		same_stream(v, "random tree, streamed");
		json_decref(v);
	}
	/* Escapes found at every position of strings around the 8-byte steps
	 * of the plain-string scan, in values and in keys. */
	static const unsigned char specials[] = {'"',  '\\', 0x01, 0x1f, 0x20, 0x21,
						 0x2f, 0x5b, 0x5d, 0x7f, 0x0a};
	for (size_t len = 1; len <= 20; len++) {
		for (size_t pos = 0; pos < len; pos++) {
			for (size_t c = 0; c < sizeof(specials); c++) {
				char str[24];
				memset(str, 'a', len);
				str[pos] = (char)specials[c];
				str[len] = '\0';
				same(json_string_nocheck(str), "special byte in a string");
				json_t *o = json_object();
				json_object_set_new_nocheck(o, str, json_integer((json_int_t)len));
				same_stream(o, "special byte in a key");
				json_decref(o);
			}
		}
	}
	json_t *t = json_pack("{s:[], s:{}, s:[[], {}, [i, [i, {}]]], s:{s:{s:[]}}}", "a", "b", "c",
			      1, 2, "d", "e", "f");
	CHECK(t != NULL);
	same_stream(t, "nested empties");
	json_decref(t);

	static const double reals[] = {0.0,
				       -0.0,
				       1.0,
				       0.5,
				       2.5,
				       1125899906842624.5,
				       4503599627370495.5,
				       4503599627370496.0,
				       9.9999999999999995,
				       9.999999999999999,
				       0.1,
				       1e-7,
				       1e-8,
				       9.99999999999999e-5,
				       1e-4,
				       1e-5,
				       1e15,
				       1e16,
				       9999999999999999.0,
				       1e17,
				       5e-324,
				       2.2250738585072014e-308,
				       1704067200.000369,
				       2e-5,
				       DBL_MIN,
				       DBL_MAX};
	for (size_t k = 0; k < sizeof(reals) / sizeof(*reals); k++) {
		same_real(reals[k]);
		same_real(-reals[k]);
	}
	for (int k = 0; k < 300000; k++)
		same_real(random_real());
	/* After an error nothing more reaches the FILE; what came before does. */
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f = open_memstream(&mem, &memlen);
	struct jo_writer w;
	jo_w_init(&w, f, 0, 1);
	jo_w_raw(&w, "before ");
	CHECK(jo_w_commit(&w) == 0);
	jo_w_raw(&w, "kept ");
	jo_w_json(&w, NULL); /* a Jansson constructor failed */
	jo_w_raw(&w, "dropped");
	jo_w_real(&w, 1.0);
	CHECK(jo_w_commit(&w) == -ENOMEM);
	jo_w_raw(&w, "dropped too");
	CHECK(jo_w_flush(&w) == -ENOMEM);
	fclose(f);
	CHECK(memlen == 12 && memcmp(mem, "before kept ", 12) == 0);
	free(mem);
	jo_w_free(&w);
	jo_w_free(NULL);
	/* NaN is refused, as Jansson refuses it. */
	jo_w_init(&w, NULL, 0, 0);
	jo_w_real(&w, NAN);
	CHECK(w.err == -EINVAL);
	jo_w_free(&w);
	struct jo_fields fl;
	jo_f_reset(&fl);
	for (int k = 0; k <= JO_FIELDS_MAX; k++)
		jo_f_int(&fl, "k", k);
	jo_w_init(&w, NULL, 0, 0);
	jo_w_fields(&w, &fl);
	CHECK(w.err == -E2BIG);
	jo_w_free(&w);

	char nan_buf[JO_REAL_MAX];
	CHECK(jo_fmt_real(nan_buf, NAN) == 0);
	CHECK(jo_fmt_real(nan_buf, INFINITY) == 0);

	/* Jansson refuses NaN and infinity; so do we. */
	struct jo_buf b = {0};
	json_t *v = json_pack("[f]", 1.0);
	json_real_set(json_array_get(v, 0), 2.0);
	CHECK(jo_dump(&b, v, 0) == 0);
	CHECK(jo_dump(&b, NULL, 0) < 0);
	json_decref(v);
	jo_free(&b);
	jo_free(NULL);
	return unit_done("jsonout");
}
