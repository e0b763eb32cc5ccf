/* jsonin.c - the report reader: a --json document or --ndjson stream back into summaries. */
#include "analyze/readback/jsonin.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/readback/jsonin_int.h"
#include "common/err.h"
#include "common/grow.h"

/* ---- interned strings ---- */

struct ji_pool {
	char **s;
	unsigned n, cap;
};

const char *ji_pool_intern(struct ji_pool *p, const char *s)
{
	for (unsigned k = 0; k < p->n; k++)
		if (strcmp(p->s[k], s) == 0)
			return p->s[k];
	if (p->n == JI_POOL_MAX)
		return NULL;
	if (GROW(p->s, p->cap, p->n + 1, 64) < 0)
		return NULL;
	char *c = strdup(s);
	if (!c)
		return NULL;
	p->s[p->n++] = c;
	return c;
}

struct ji_pool *ji_pool_new(void)
{
	return calloc(1, sizeof(struct ji_pool));
}

void ji_pool_free(struct ji_pool *p)
{
	if (!p)
		return;
	for (unsigned k = 0; k < p->n; k++)
		free(p->s[k]);
	free(p->s);
	free(p);
}

/* ---- members ---- */

void ji_fail(struct ji_ctx *x, const char *fmt, ...)
{
	va_list ap;

	if (x->err)
		return;
	x->err = ERR_INPUT;
	va_start(ap, fmt);
	vsnprintf(x->msg, sizeof(x->msg), fmt, ap);
	va_end(ap);
}

json_t *ji_get(struct ji_ctx *x, const json_t *o, const char *key)
{
	json_t *v;

	if (x->err)
		return NULL;
	if (!json_is_object(o)) {
		ji_fail(x, "not an object where \"%s\" was expected", key);
		return NULL;
	}
	v = json_object_get(o, key);
	if (!v)
		ji_fail(x, "no member \"%s\"", key);
	return v;
}

int64_t ji_int(struct ji_ctx *x, const json_t *o, const char *key)
{
	json_t *v = ji_get(x, o, key);

	if (!v)
		return 0;
	if (!json_is_integer(v)) {
		ji_fail(x, "\"%s\" is not an integer", key);
		return 0;
	}
	return json_integer_value(v);
}

int64_t ji_int_or(struct ji_ctx *x, const json_t *o, const char *key, int64_t dflt)
{
	json_t *v = ji_get(x, o, key);

	return v && json_is_null(v) ? dflt : ji_int(x, o, key);
}

/* "-12.345" (as jo_fmt_sec writes it; ji_quote_reals made it a string) or
 * an integer: nanoseconds. */
static int parse_sec(const char *s, int64_t *ns)
{
	bool neg = *s == '-';
	uint64_t whole = 0, frac = 0;
	int digits = 0;

	s += neg;
	if (*s < '0' || *s > '9')
		return ERR_INPUT;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (whole > (uint64_t)INT64_MAX / 10000000000ull)
			return ERR_INPUT; /* beyond what int64 nanoseconds hold */
		whole = whole * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			if (digits == 9)
				return ERR_INPUT; /* finer than a nanosecond: not ours */
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
		if (!digits)
			return ERR_INPUT;
	}
	if (*s)
		return ERR_INPUT;
	for (; digits < 9; digits++)
		frac *= 10;
	uint64_t u = whole * 1000000000ull + frac;
	if (u > (uint64_t)INT64_MAX + neg)
		return ERR_INPUT;
	*ns = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

int64_t ji_sec(struct ji_ctx *x, const json_t *o, const char *key)
{
	json_t *v = ji_get(x, o, key);
	int64_t ns = 0;

	if (!v)
		return 0;
	if (json_is_integer(v) && json_integer_value(v) <= INT64_MAX / 1000000000 &&
	    json_integer_value(v) >= INT64_MIN / 1000000000)
		return json_integer_value(v) * 1000000000;
	if (!json_is_string(v) || parse_sec(json_string_value(v), &ns) < 0)
		ji_fail(x, "\"%s\" is not a time in seconds", key);
	return ns;
}

int64_t ji_sec_or(struct ji_ctx *x, const json_t *o, const char *key, int64_t dflt)
{
	json_t *v = ji_get(x, o, key);

	return v && json_is_null(v) ? dflt : ji_sec(x, o, key);
}

int64_t ji_avg_sum(struct ji_ctx *x, int64_t avg, int64_t n, const char *key)
{
	int64_t sum;

	if (__builtin_mul_overflow(avg, n, &sum)) {
		ji_fail(x, "\"%s\": its average times its count is out of range", key);
		return 0;
	}
	return sum;
}

bool ji_bool(struct ji_ctx *x, const json_t *o, const char *key)
{
	json_t *v = ji_get(x, o, key);

	if (v && !json_is_boolean(v))
		ji_fail(x, "\"%s\" is not true or false", key);
	return v && json_is_true(v);
}

const char *ji_str(struct ji_ctx *x, const json_t *o, const char *key, bool nullable)
{
	json_t *v = ji_get(x, o, key);
	const char *s;

	if (!v || (nullable && json_is_null(v)))
		return NULL;
	if (!json_is_string(v)) {
		ji_fail(x, "\"%s\" is not a string", key);
		return NULL;
	}
	s = ji_pool_intern(x->pool, json_string_value(v));
	if (!s)
		ji_fail(x, "too many distinct strings (or out of memory) at \"%s\"", key);
	return s;
}

unsigned ji_enum(struct ji_ctx *x, const json_t *o, const char *key, const char *const *names,
		 unsigned n)
{
	json_t *v = ji_get(x, o, key);

	if (!v)
		return 0;
	if (json_is_string(v))
		for (unsigned k = 0; k < n; k++)
			if (strcmp(names[k], json_string_value(v)) == 0)
				return k;
	ji_fail(x, "\"%s\" is not one of its names", key);
	return 0;
}

void ji_named_counts(struct ji_ctx *x, const json_t *o, const char *key, const char *const *names,
		     uint64_t *v, unsigned n)
{
	json_t *obj = ji_get(x, o, key);

	for (unsigned k = 0; k < n; k++)
		v[k] = (uint64_t)ji_int(x, obj, names[k]);
}

void ji_ints(struct ji_ctx *x, const json_t *o, const char *key, int64_t *v, unsigned n)
{
	json_t *a = ji_get(x, o, key);

	memset(v, 0, n * sizeof(*v));
	if (!a)
		return;
	if (!json_is_array(a) || json_array_size(a) != n) {
		ji_fail(x, "\"%s\" is not an array of %u integers", key, n);
		return;
	}
	for (unsigned k = 0; k < n; k++) {
		json_t *e = json_array_get(a, k);
		if (!json_is_integer(e)) {
			ji_fail(x, "\"%s\" is not an array of %u integers", key, n);
			return;
		}
		v[k] = json_integer_value(e);
	}
}
