/* test_jsonout.c - jo_dump() writes exactly what Jansson's json_dumps() writes. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "analyze/jsonout.h"
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
