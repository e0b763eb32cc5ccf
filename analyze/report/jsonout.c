/* jsonout.c - serialize Jansson values fast, in exactly json_dumps()'s format. */
#include "analyze/report/jsonout.h"

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
static size_t fmt_int(char *buf, int64_t v)
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

static int put_int(struct jo_buf *b, json_int_t v)
{
	if (reserve(b, 24) < 0)
		return -ENOMEM;
	b->len += fmt_int(b->p + b->len, v);
	return 0;
}

/* jsonp_dtostr() of Jansson 2.14 with precision 16, in the "C" locale:
 * "%.16g", then ".0" if it looks like an integer, and the exponent without
 * '+' or leading zeros. The slow path, for what fmt_real_fast() leaves. */
static size_t fmt_real_printf(char *tmp, size_t size, double v)
{
	int n = snprintf(tmp, size, "%.16g", v);

	if (n < 0 || (size_t)n >= size - 3)
		return 0;
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
	return (size_t)n;
}

#ifdef __SIZEOF_INT128__
static const uint64_t pow10_u64[20] = {1ull,
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
				       10000000000000000000ull};

/*
 * The same bytes as fmt_real_printf() without printf, for the doubles a
 * report holds (times in seconds, rates, ratios: 1e-7 <= |v| < 2^52).
 * v = m * 2^e exactly; N = v * 10^k, k chosen so that N has 16 digits, is
 * computed exactly in 128 bits (m < 2^53, 10^k <= 10^22 < 2^74), then
 * rounded half to even as glibc's printf rounds the exact binary value.
 * Returns 0 for anything else (zero, subnormals, huge, tiny): printf then.
 */
static size_t fmt_real_fast(char *out, double v)
{
	const uint64_t p16 = pow10_u64[16], p15 = pow10_u64[15];
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	unsigned bexp = (unsigned)(bits >> 52) & 0x7ff;
	if (bexp == 0 || bexp == 0x7ff)
		return 0;
	uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
	int sh = 1075 - (int)bexp; /* v = m / 2^sh */
	if (sh <= 0)
		return 0;
	/* floor(log10(2^(52 - sh))): the decimal exponent, or one below it. */
	int e2 = 52 - sh;
	int x10 = e2 >= 0 ? (e2 * 78913) >> 18 : -((-e2 * 78913 + (1 << 18) - 1) >> 18);
	uint64_t q = 0;
	unsigned __int128 rem = 0, half = 0;
	for (int tries = 0;; tries++) {
		int k = 15 - x10;
		if (tries == 3 || k < 0 || k > 22 || sh >= 127)
			return 0;
		unsigned __int128 p = k <= 19
					  ? (unsigned __int128)pow10_u64[k]
					  : (unsigned __int128)pow10_u64[19] * pow10_u64[k - 19];
		unsigned __int128 num = p * m;
		unsigned __int128 qq = num >> sh;
		if (qq >= p16) {
			x10++;
			continue;
		}
		if (qq < p15) {
			x10--;
			continue;
		}
		q = (uint64_t)qq;
		half = (unsigned __int128)1 << (sh - 1);
		rem = num & (((unsigned __int128)1 << sh) - 1);
		break;
	}
	if (rem > half || (rem == half && (q & 1)))
		q++;
	if (q == p16) { /* 9.99...95 rounded up to 10.00... */
		q = p15;
		x10++;
	}
	char d[16], *o = out;
	fmt_u64(d + 16, q);
	int nd = 16; /* significant digits left once trailing zeros go */
	while (d[nd - 1] == '0')
		nd--;
	if (bits >> 63)
		*o++ = '-';
	if (x10 >= 16 || x10 < -4) { /* %e style */
		*o++ = d[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, d + 1, (size_t)nd - 1);
			o += nd - 1;
		}
		*o++ = 'e';
		if (x10 < 0)
			*o++ = '-';
		char *e = fmt_u64(o + 8, (uint64_t)(x10 < 0 ? -x10 : x10));
		size_t n = (size_t)(o + 8 - e);
		memmove(o, e, n);
		o += n;
	} else if (x10 >= 0) { /* %f style: integer part, then the rest */
		memcpy(o, d, (size_t)x10 + 1);
		o += x10 + 1;
		*o++ = '.';
		if (nd > x10 + 1) {
			memcpy(o, d + x10 + 1, (size_t)(nd - x10 - 1));
			o += nd - x10 - 1;
		} else {
			*o++ = '0'; /* Jansson's ".0": still a real when read back */
		}
	} else { /* 0.000ddd */
		*o++ = '0';
		*o++ = '.';
		for (int z = -1; z > x10; z--)
			*o++ = '0';
		memcpy(o, d, (size_t)nd);
		o += nd;
	}
	return (size_t)(o - out);
}
#endif

/* v as Jansson prints a real, into buf (>= JO_REAL_MAX bytes); 0 if not finite. */
size_t jo_fmt_real(char *buf, double v)
{
	size_t n = 0;

	if (!isfinite(v))
		return 0; /* JSON has no NaN or infinity; Jansson refuses too */
#ifdef __SIZEOF_INT128__
	n = fmt_real_fast(buf, v);
#endif
	return n ? n : fmt_real_printf(buf, JO_REAL_MAX, v);
}

static int put_real(struct jo_buf *b, double v)
{
	if (reserve(b, JO_REAL_MAX) < 0)
		return -ENOMEM;
	size_t n = jo_fmt_real(b->p + b->len, v);
	if (!n)
		return -EINVAL;
	b->len += n;
	return 0;
}

/* Some byte of the 8 in x is below 0x20, '"' or '\\' (exact, no false hits:
 * the "has zero byte" and "has byte less than" bit tricks). */
static bool swar_special(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');

	return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
}

/* No byte of s[0..n) needs an escape in a JSON string. Eight bytes a step:
 * every key and most strings of a report go through here. */
static bool plain(const char *s, size_t n)
{
	uint64_t x;

	if (n >= 8) {
		size_t i = 0;
		for (; i + 8 <= n; i += 8) {
			memcpy(&x, s + i, 8);
			if (swar_special(x))
				return false;
		}
		if (i == n)
			return true;
		memcpy(&x, s + n - 8, 8); /* the tail, overlapping what was checked */
		return !swar_special(x);
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == '"' || c == '\\')
			return false;
	}
	return true;
}

/* Jansson's dump_string() without JSON_ENSURE_ASCII or JSON_ESCAPE_SLASH:
 * runs of plain bytes are copied at once, the rest escaped. */
static int put_string(struct jo_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF"; /* Jansson writes \u001F */
	size_t run = 0;

	if (reserve(b, n + 2) < 0)
		return -ENOMEM;
	if (plain(s, n)) { /* keys and most values: one copy */
		char *p = b->p + b->len;
		p[0] = '"';
		memcpy(p + 1, s, n);
		p[n + 1] = '"';
		b->len += n + 2;
		return 0;
	}
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

/* ---- the streaming writer ---- */

void jo_w_init(struct jo_writer *w, FILE *out, size_t flush_at, int indent)
{
	*w = (struct jo_writer){.out = out, .flush_at = flush_at, .indent = indent, .first = true};
}

static void fail(struct jo_writer *w, int rc)
{
	if (rc < 0 && !w->err) {
		w->err = rc;
		w->err_at = w->b.len;
	}
}

/* Before a key or an array element: the comma and the line break Jansson
 * writes. Values right after a key and top-level values need neither. */
static void separate(struct jo_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	if (!w->first)
		fail(w, put(&w->b, ",", 1));
	fail(w, newline(&w->b, w->indent, w->depth));
	w->first = false;
}

/*
 * The hot path of every member: comma, line break and indentation, the
 * quoted key and the colon, with room for `value` more bytes reserved in
 * the same step. Returns where the value goes (the caller sets b.len past
 * it), or NULL after an error. Keys are always inside an object (depth >= 1).
 */
static char *key_then(struct jo_writer *w, const char *key, size_t value)
{
	size_t n = strlen(key), pad = w->indent > 0 ? (size_t)w->indent * (size_t)w->depth : 0;
	char *p;

	if (!plain(key, n)) { /* not in the reports; the general way */
		separate(w);
		fail(w, put_string(&w->b, key, n));
		fail(w, w->indent > 0 ? put(&w->b, ": ", 2) : put(&w->b, ":", 1));
		if (reserve(&w->b, value) < 0)
			fail(w, -ENOMEM);
		return w->err ? NULL : w->b.p + w->b.len;
	}
	if (reserve(&w->b, n + pad + 8 + 6 + value) < 0) {
		fail(w, -ENOMEM);
		return NULL;
	}
	p = w->b.p + w->b.len;
	if (!w->first)
		*p++ = ',';
	if (w->indent > 0) {
		*p++ = '\n';
		/* Eight at a time (the reservation has room): no memset call for
		 * the few spaces of a report's nesting. */
		for (size_t k = 0; k < pad; k += 8)
			memcpy(p + k, "        ", 8);
		p += pad;
	}
	*p++ = '"';
	memcpy(p, key, n);
	p += n;
	*p++ = '"';
	*p++ = ':';
	if (w->indent > 0)
		*p++ = ' ';
	w->first = false;
	return p;
}

void jo_w_key(struct jo_writer *w, const char *key)
{
	char *p = key_then(w, key, 0);

	if (p) {
		w->b.len = (size_t)(p - w->b.p);
		w->after_key = true;
	}
}

void jo_w_int(struct jo_writer *w, int64_t v)
{
	separate(w);
	fail(w, put_int(&w->b, v));
}

void jo_w_real(struct jo_writer *w, double v)
{
	separate(w);
	fail(w, put_real(&w->b, v));
}

void jo_w_str(struct jo_writer *w, const char *s)
{
	separate(w);
	fail(w, put_string(&w->b, s, strlen(s)));
}

void jo_w_bool(struct jo_writer *w, bool v)
{
	separate(w);
	fail(w, v ? put(&w->b, "true", 4) : put(&w->b, "false", 5));
}

void jo_w_null(struct jo_writer *w)
{
	separate(w);
	fail(w, put(&w->b, "null", 4));
}

void jo_w_json(struct jo_writer *w, const json_t *v)
{
	separate(w);
	fail(w, v ? dump(&w->b, v, w->indent, w->depth) : -ENOMEM);
}

/* The key-value pairs: one reservation for both. */
void jo_kint(struct jo_writer *w, const char *key, int64_t v)
{
	char *p = key_then(w, key, 24);

	if (p)
		w->b.len = (size_t)(p - w->b.p) + fmt_int(p, v);
}

void jo_kreal(struct jo_writer *w, const char *key, double v)
{
	char *p = key_then(w, key, JO_REAL_MAX);
	size_t n;

	if (!p)
		return;
	n = jo_fmt_real(p, v);
	w->b.len = (size_t)(p - w->b.p) + n;
	if (!n)
		fail(w, -EINVAL);
}

void jo_kstr(struct jo_writer *w, const char *key, const char *s)
{
	jo_w_key(w, key);
	jo_w_str(w, s);
}

static void key_word(struct jo_writer *w, const char *key, const char *word, size_t n)
{
	char *p = key_then(w, key, n);

	if (p) {
		memcpy(p, word, n);
		w->b.len = (size_t)(p - w->b.p) + n;
	}
}

void jo_kbool(struct jo_writer *w, const char *key, bool v)
{
	if (v)
		key_word(w, key, "true", 4);
	else
		key_word(w, key, "false", 5);
}

void jo_knull(struct jo_writer *w, const char *key)
{
	key_word(w, key, "null", 4);
}

static void open_container(struct jo_writer *w, const char *c)
{
	separate(w);
	fail(w, put(&w->b, c, 1));
	w->depth++;
	w->first = true;
}

/* Empty containers stay "{}" / "[]" as Jansson writes them. */
static void close_container(struct jo_writer *w, const char *c)
{
	w->depth--;
	if (!w->first)
		fail(w, newline(&w->b, w->indent, w->depth));
	fail(w, put(&w->b, c, 1));
	w->first = false;
}

void jo_w_obj(struct jo_writer *w)
{
	open_container(w, "{");
}

void jo_w_obj_end(struct jo_writer *w)
{
	close_container(w, "}");
}

void jo_w_arr(struct jo_writer *w)
{
	open_container(w, "[");
}

void jo_w_arr_end(struct jo_writer *w)
{
	close_container(w, "]");
}

void jo_w_raw(struct jo_writer *w, const char *s)
{
	fail(w, put(&w->b, s, strlen(s)));
}

/* What was buffered before the first error still goes out, nothing after
 * it: the output stops where it stopped when every value was written on
 * its own. */
int jo_w_flush(struct jo_writer *w)
{
	size_t n = w->err ? w->err_at : w->b.len;

	if (!w->out)
		return w->err;
	if (!w->out_failed && n && fwrite(w->b.p, 1, n, w->out) != n) {
		w->out_failed = true;
		fail(w, -(errno ? errno : EIO));
	}
	w->b.len = w->err_at = 0;
	return w->err;
}

int jo_w_commit(struct jo_writer *w)
{
	if (w->b.len >= w->flush_at)
		return jo_w_flush(w);
	return w->err;
}

void jo_w_free(struct jo_writer *w)
{
	if (!w)
		return;
	jo_free(&w->b);
}

/* ---- objects gathered as a field list ---- */

void jo_f_reset(struct jo_fields *l)
{
	l->n = 0;
	l->overflow = false;
}

/* The next member, or NULL (and overflow set) when the list is full. */
static struct jo_field *add_field(struct jo_fields *l, const char *key, enum jo_ftype type)
{
	if (l->n == JO_FIELDS_MAX) {
		l->overflow = true;
		return NULL;
	}
	struct jo_field *f = &l->f[l->n++];
	f->key = key;
	f->type = type;
	return f;
}

void jo_f_null(struct jo_fields *l, const char *key)
{
	add_field(l, key, JO_F_NULL);
}

void jo_f_int(struct jo_fields *l, const char *key, int64_t v)
{
	struct jo_field *f = add_field(l, key, JO_F_INT);
	if (f)
		f->v.i = v;
}

void jo_f_real(struct jo_fields *l, const char *key, double v)
{
	struct jo_field *f = add_field(l, key, JO_F_REAL);
	if (f)
		f->v.r = v;
}

void jo_f_str(struct jo_fields *l, const char *key, const char *s)
{
	struct jo_field *f = add_field(l, key, JO_F_STR);
	if (f)
		f->v.s = s;
}

void jo_f_bool(struct jo_fields *l, const char *key, bool v)
{
	struct jo_field *f = add_field(l, key, JO_F_BOOL);
	if (f)
		f->v.b = v;
}

void jo_f_int_pair(struct jo_fields *l, const char *key, int64_t a, int64_t b)
{
	struct jo_field *f = add_field(l, key, JO_F_INT_PAIR);
	if (f) {
		f->v.pair[0] = a;
		f->v.pair[1] = b;
	}
}

void jo_f_set_str(struct jo_fields *l, const char *key, const char *s)
{
	for (unsigned k = 0; k < l->n; k++) {
		if (strcmp(l->f[k].key, key) == 0) {
			l->f[k].type = JO_F_STR;
			l->f[k].v.s = s;
			return;
		}
	}
	jo_f_str(l, key, s);
}

/* strcmp order; most keys differ in their first byte. */
static bool key_before(const char *a, const char *b)
{
	if (a[0] != b[0])
		return (unsigned char)a[0] < (unsigned char)b[0];
	return strcmp(a, b) < 0;
}

void jo_w_fields(struct jo_writer *w, struct jo_fields *l)
{
	if (l->overflow) {
		fail(w, -E2BIG);
		return;
	}
	/* Insertion sort: the lists are short and mostly in order already. */
	for (unsigned k = 1; k < l->n; k++) {
		struct jo_field t = l->f[k];
		unsigned j = k;
		for (; j > 0 && key_before(t.key, l->f[j - 1].key); j--)
			l->f[j] = l->f[j - 1];
		l->f[j] = t;
	}
	jo_w_obj(w);
	for (unsigned k = 0; k < l->n; k++) {
		const struct jo_field *f = &l->f[k];
		jo_w_key(w, f->key);
		switch (f->type) {
		case JO_F_INT:
			jo_w_int(w, f->v.i);
			break;
		case JO_F_REAL:
			jo_w_real(w, f->v.r);
			break;
		case JO_F_STR:
			jo_w_str(w, f->v.s);
			break;
		case JO_F_BOOL:
			jo_w_bool(w, f->v.b);
			break;
		case JO_F_INT_PAIR:
			jo_w_arr(w);
			jo_w_int(w, f->v.pair[0]);
			jo_w_int(w, f->v.pair[1]);
			jo_w_arr_end(w);
			break;
		default:
			jo_w_null(w);
			break;
		}
	}
	jo_w_obj_end(w);
}
