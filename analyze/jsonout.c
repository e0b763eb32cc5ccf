/* jsonout.c - serialize Jansson values fast, in exactly json_dumps()'s format. */
#include "analyze/jsonout.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { JO_MAX_SORTED = 128 }; /* keys sorted on the stack; more take a malloc */

struct jo_item {
	const char *key;
	const json_t *value;
};

static int reserve(struct jo_buf *b, size_t more)
{
	if (b->len + more <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int put(struct jo_buf *b, const char *s, size_t n)
{
	if (reserve(b, n) < 0)
		return -ENOMEM;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return 0;
}

/* Jansson's dump_indent(): newline and depth * indent spaces when pretty. */
static int newline(struct jo_buf *b, int indent, int depth)
{
	size_t n = (size_t)indent * (size_t)depth;

	if (indent <= 0)
		return 0;
	if (reserve(b, n + 1) < 0)
		return -ENOMEM;
	b->p[b->len++] = '\n';
	memset(b->p + b->len, ' ', n);
	b->len += n;
	return 0;
}

static int put_int(struct jo_buf *b, json_int_t v)
{
	char tmp[24], *e = tmp + sizeof(tmp), *s = e;
	/* Negate in unsigned space: LLONG_MIN has no positive counterpart. */
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;

	do {
		*--s = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--s = '-';
	return put(b, s, (size_t)(e - s));
}

/* jsonp_dtostr() of Jansson 2.14 with precision 16, in the "C" locale. */
static int put_real(struct jo_buf *b, double v)
{
	char tmp[48];

	if (!isfinite(v))
		return -EINVAL; /* JSON has no NaN or infinity; Jansson refuses too */
	int n = snprintf(tmp, sizeof(tmp), "%.16g", v);

	if (n < 0 || (size_t)n >= sizeof(tmp) - 3)
		return -EINVAL;
	if (!strchr(tmp, '.') && !strchr(tmp, 'e')) {
		tmp[n++] = '.';
		tmp[n++] = '0';
		tmp[n] = '\0';
	}
	char *start = strchr(tmp, 'e');
	if (start) {
		/* No '+' and no leading zeros in the exponent. */
		start++;
		char *end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, (size_t)(n - (end - tmp)) + 1);
			n -= (int)(end - start);
		}
	}
	return put(b, tmp, (size_t)n);
}

/* Jansson's dump_string() without JSON_ENSURE_ASCII or JSON_ESCAPE_SLASH:
 * runs of plain bytes are copied at once, the rest escaped. */
static int put_string(struct jo_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF"; /* Jansson writes \u001F */
	size_t run = 0;

	if (reserve(b, n + 2) < 0)
		return -ENOMEM;
	b->p[b->len++] = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		char esc[6] = {'\\', (char)c};
		size_t elen = 2;
		switch (c) {
		case '"':
		case '\\':
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			elen = 6;
			break;
		}
		if (put(b, s + run, i - run) < 0 || put(b, esc, elen) < 0)
			return -ENOMEM;
		run = i + 1;
	}
	if (put(b, s + run, n - run) < 0)
		return -ENOMEM;
	return put(b, "\"", 1);
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct jo_item *)a)->key, ((const struct jo_item *)b)->key);
}

static int dump(struct jo_buf *b, const json_t *v, int indent, int depth);

static int dump_object(struct jo_buf *b, const json_t *v, int indent, int depth)
{
	size_t n = json_object_size(v), k = 0;
	struct jo_item stack[JO_MAX_SORTED], *items = stack;
	const char *key;
	json_t *val;
	int rc = 0;

	if (n == 0)
		return put(b, "{}", 2);
	if (n > JO_MAX_SORTED && !(items = malloc(n * sizeof(*items))))
		return -ENOMEM;
	bool sorted = true;
	json_object_foreach((json_t *)v, key, val)
	{
		if (k && sorted && strcmp(items[k - 1].key, key) >= 0)
			sorted = false;
		items[k].key = key;
		items[k++].value = val;
	}
	/* Jansson iterates in insertion order: objects built key by key in
	 * sorted order (the reporters' are) need no sort. */
	if (!sorted)
		qsort(items, k, sizeof(*items), by_key);
	rc = put(b, "{", 1);
	for (size_t i = 0; i < k && rc == 0; i++) {
		rc = newline(b, indent, depth + 1);
		if (rc == 0)
			rc = put_string(b, items[i].key, strlen(items[i].key));
		if (rc == 0)
			rc = indent > 0 ? put(b, ": ", 2) : put(b, ":", 1);
		if (rc == 0)
			rc = dump(b, items[i].value, indent, depth + 1);
		if (rc == 0 && i + 1 < k)
			rc = put(b, ",", 1);
	}
	if (rc == 0)
		rc = newline(b, indent, depth);
	if (rc == 0)
		rc = put(b, "}", 1);
	if (items != stack)
		free(items);
	return rc;
}

static int dump_array(struct jo_buf *b, const json_t *v, int indent, int depth)
{
	size_t n = json_array_size(v);
	int rc;

	if (n == 0)
		return put(b, "[]", 2);
	rc = put(b, "[", 1);
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = newline(b, indent, depth + 1);
		if (rc == 0)
			rc = dump(b, json_array_get(v, i), indent, depth + 1);
		if (rc == 0 && i + 1 < n)
			rc = put(b, ",", 1);
	}
	if (rc == 0)
		rc = newline(b, indent, depth);
	return rc == 0 ? put(b, "]", 1) : rc;
}

static int dump(struct jo_buf *b, const json_t *v, int indent, int depth)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return dump_object(b, v, indent, depth);
	case JSON_ARRAY:
		return dump_array(b, v, indent, depth);
	case JSON_STRING:
		return put_string(b, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		return put_int(b, json_integer_value(v));
	case JSON_REAL:
		return put_real(b, json_real_value(v));
	case JSON_TRUE:
		return put(b, "true", 4);
	case JSON_FALSE:
		return put(b, "false", 5);
	default:
		return put(b, "null", 4);
	}
}

int jo_dump(struct jo_buf *b, const json_t *v, int indent)
{
	if (!v)
		return -EINVAL;
	return dump(b, v, indent, 0);
}

void jo_reset(struct jo_buf *b)
{
	b->len = 0;
}

void jo_free(struct jo_buf *b)
{
	if (!b)
		return;
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}
