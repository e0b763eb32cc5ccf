/* jsonout.c - the JSON writer: values streamed into one buffer, keys in sorted order. */
#include "analyze/report/jsonout.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(struct jo_buf *b, size_t more)
{
	if (b->len + more <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		return ERR_NOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int put(struct jo_buf *b, const char *s, size_t n)
{
	if (reserve(b, n) < 0)
		return ERR_NOMEM;
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
		return ERR_NOMEM;
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

static int put_int(struct jo_buf *b, int64_t v)
{
	if (reserve(b, 24) < 0)
		return ERR_NOMEM;
	b->len += fmt_int(b->p + b->len, v);
	return 0;
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
	n += fmt_int(buf + n, (int64_t)whole);
	buf[n++] = '.';
	for (int k = 8; k >= 0; k--, frac /= 10)
		digits[k] = (char)('0' + frac % 10);
	while (keep > 1 && digits[keep - 1] == '0')
		keep--;
	memcpy(buf + n, digits, keep);
	return n + keep;
}

static int put_real(struct jo_buf *b, double v)
{
	if (reserve(b, JO_REAL_MAX) < 0)
		return ERR_NOMEM;
	size_t n = jo_fmt_real(b->p + b->len, v);
	if (!n)
		return ERR_USAGE; /* NaN or infinity: JSON cannot say it */
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
		return ERR_NOMEM;
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
			return ERR_NOMEM;
		run = i + 1;
	}
	if (put(b, s + run, n - run) < 0)
		return ERR_NOMEM;
	return put(b, "\"", 1);
}

static void buf_free(struct jo_buf *b)
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

#ifdef JO_CHECK_ORDER
/* The test builds hold every caller to the sorted-keys layout. Keys are
 * string literals or static names: the pointer stays valid. */
static void check_order(struct jo_writer *w, const char *key)
{
	int d = w->depth < JO_MAX_DEPTH ? w->depth : JO_MAX_DEPTH;

	if (w->last_key[d] && strcmp(w->last_key[d], key) >= 0) {
		fprintf(stderr, "jsonout: key \"%s\" written after \"%s\"\n", key, w->last_key[d]);
		fail(w, ERR_USAGE);
	}
	w->last_key[d] = key;
}
#endif

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

#ifdef JO_CHECK_ORDER
	check_order(w, key);
#endif
	if (!plain(key, n)) { /* not in the reports; the general way */
		separate(w);
		fail(w, put_string(&w->b, key, n));
		fail(w, w->indent > 0 ? put(&w->b, ": ", 2) : put(&w->b, ":", 1));
		if (reserve(&w->b, value) < 0)
			fail(w, ERR_NOMEM);
		return w->err ? NULL : w->b.p + w->b.len;
	}
	if (reserve(&w->b, n + pad + 8 + 6 + value) < 0) {
		fail(w, ERR_NOMEM);
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

void jo_w_sec(struct jo_writer *w, int64_t ns)
{
	separate(w);
	if (reserve(&w->b, JO_SEC_MAX) < 0) {
		fail(w, ERR_NOMEM);
		return;
	}
	w->b.len += jo_fmt_sec(w->b.p + w->b.len, ns);
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
		fail(w, ERR_USAGE); /* NaN or infinity: JSON cannot say it */
}

void jo_ksec(struct jo_writer *w, const char *key, int64_t ns)
{
	char *p = key_then(w, key, JO_SEC_MAX);

	if (p)
		w->b.len = (size_t)(p - w->b.p) + jo_fmt_sec(p, ns);
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
#ifdef JO_CHECK_ORDER
	if (w->depth <= JO_MAX_DEPTH)
		w->last_key[w->depth] = NULL;
#endif
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
		w->sys_errno = errno ? errno : EIO;
		fail(w, ERR_SYSTEM);
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
	buf_free(&w->b);
}

void jo_w_named_counts(struct jo_writer *w, const char *const *names, const uint64_t *v, unsigned n)
{
	unsigned order[32];

	if (n > 32) {
		fail(w, ERR_USAGE);
		return;
	}
	/* Insertion sort of the indices: a handful of names, once per call. */
	for (unsigned k = 0; k < n; k++) {
		unsigned j = k;
		for (; j > 0 && strcmp(names[k], names[order[j - 1]]) < 0; j--)
			order[j] = order[j - 1];
		order[j] = k;
	}
	jo_w_obj(w);
	for (unsigned k = 0; k < n; k++)
		jo_kint(w, names[order[k]], (int64_t)v[order[k]]);
	jo_w_obj_end(w);
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

void jo_f_sec(struct jo_fields *l, const char *key, int64_t ns)
{
	struct jo_field *f = add_field(l, key, JO_F_SEC);
	if (f)
		f->v.i = ns;
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
		fail(w, ERR_USAGE); /* a writer's bug: JO_FIELDS_MAX is too small */
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
		case JO_F_SEC:
			jo_w_sec(w, f->v.i);
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
