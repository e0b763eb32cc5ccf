/* jsonout.c - the JSON writer: values streamed into one buffer, keys in sorted order. */
#include "analyze/report/jsonout.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/jsonout_int.h"
#include "common/grow.h"

__attribute__((noinline, cold)) static int reserve_grow(struct jo_buf *b, size_t more)
{
	return GROW(b->p, b->cap, b->len + more, 4096);
}

/* Room for more bytes: inline where there is (every value asks). */
static inline __attribute__((always_inline)) int reserve(struct jo_buf *b, size_t more)
{
	if (__builtin_expect(more <= b->cap - b->len, 1))
		return 0;
	return reserve_grow(b, more);
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

static int put_int(struct jo_buf *b, int64_t v)
{
	if (reserve(b, 24) < 0)
		return ERR_NOMEM;
	b->len += jo_fmt_int(b->p + b->len, v);
	return 0;
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

/* The bytes of the 8 in x below 0x20, '"' or '\\', as their high bits (the
 * "has zero byte" and "has byte less than" bit tricks: nonzero exactly when
 * one is there, and its lowest bit is the first such byte). */
static uint64_t swar_special(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');

	return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
}

/* No byte of s[0..n) needs an escape in a JSON string. Eight bytes a step:
 * every key and most strings of a report go through here. */
bool jo_plain(const char *s, size_t n)
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

/*
 * A key's length, and whether it is plain (jo_plain()), in one pass of eight
 * bytes a step: every key of a report comes here, some 200 a connection,
 * and strlen() then jo_plain() cost ~90 instructions a key. The words are
 * read aligned, as strlen() reads them: an aligned word never crosses a
 * page, so the bytes past the NUL it may hold are readable; they are not
 * looked at (only the bytes before the first NUL count), but AddressSanitizer
 * would see the word's read as one past the string, hence no_sanitize.
 * The "has zero / has less than" tricks are exact up to the first byte
 * that matches, which is all this needs: the first special byte must be
 * the NUL itself.
 */
__attribute__((no_sanitize("address"))) static bool key_scan(const char *s, size_t *len)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t skip = (uintptr_t)s & 7;
	const char *w = s - skip;
	uint64_t x;

	memcpy(&x, __builtin_assume_aligned(w, 8), 8);
	/* The bytes before s (little-endian: the low ones) read as 0xff,
	 * neither NUL nor special. */
	x |= skip ? ~0ull >> (64 - 8 * skip) : 0;
	for (;;) {
		uint64_t zero = (x - ones) & ~x & highs, any = swar_special(x);
		if (any) {
			if (!zero || __builtin_ctzll(any) < __builtin_ctzll(zero)) {
				*len = strlen(s); /* a special byte before the end */
				return false;
			}
			*len = (size_t)(w - s) + (size_t)__builtin_ctzll(zero) / 8;
			return true;
		}
		w += 8;
		memcpy(&x, __builtin_assume_aligned(w, 8), 8);
	}
}

/* Jansson's dump_string() without JSON_ENSURE_ASCII or JSON_ESCAPE_SLASH:
 * runs of plain bytes are copied at once, the rest escaped. */
static int put_string(struct jo_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF"; /* Jansson writes \u001F */
	size_t run = 0;

	if (reserve(b, n + 2) < 0)
		return ERR_NOMEM;
	if (jo_plain(s, n)) { /* keys and most values: one copy */
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

/* The separator of a member at w->depth (jo_key_fast()): "," and, pretty,
 * the line break and indentation newline() writes. */
static void set_sep(struct jo_writer *w)
{
	size_t pad = w->indent > 0 ? (size_t)w->indent * (size_t)(w->depth > 0 ? w->depth : 0) : 0;

	w->sep_len = 0;
	if (w->depth > JO_MAX_DEPTH || pad + 2 > JO_SEP_COPY)
		return;
	w->sep_len = (uint8_t)(w->indent > 0 ? pad + 2 : 1);
}

void jo_w_init(struct jo_writer *w, FILE *out, size_t flush_at, int indent)
{
	*w = (struct jo_writer){.out = out, .flush_at = flush_at, .indent = indent, .first = true};
	/* The separator's bytes are the same at every depth, only how many
	 * of them count (sep_len) changes. */
	memset(w->sep, ' ', sizeof(w->sep));
	w->sep[0] = ',';
	w->sep[1] = '\n';
	set_sep(w);
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
	if (w->sep_len && reserve(&w->b, JO_SEP_COPY) == 0) {
		/* The separator in one fixed-size copy, as jo_key_fast() */
		memcpy(w->b.p + w->b.len, w->sep + w->first, JO_SEP_COPY);
		w->b.len += (size_t)(w->sep_len - w->first);
		w->first = false;
		return;
	}
	if (!w->first)
		jo_fail(w, put(&w->b, ",", 1));
	jo_fail(w, newline(&w->b, w->indent, w->depth));
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
		jo_fail(w, ERR_USAGE);
	}
	w->last_key[d] = key;
}

void jo_check_key(struct jo_writer *w, const char *key, size_t klen)
{
	size_t n = klen - 1;

	check_order(w, key);
	if (klen && (strlen(key) != n || !jo_plain(key, n))) {
		fprintf(stderr, "jsonout: literal key \"%s\" is not plain\n", key);
		jo_fail(w, ERR_USAGE);
	}
}
#endif

/* A key that needs escapes (not in the reports): written the general way. */
static char *key_general(struct jo_writer *w, const char *key, size_t n, size_t value)
{
	separate(w);
	jo_fail(w, put_string(&w->b, key, n));
	jo_fail(w, w->indent > 0 ? put(&w->b, ": ", 2) : put(&w->b, ":", 1));
	if (reserve(&w->b, value) < 0)
		jo_fail(w, ERR_NOMEM);
	return w->err ? NULL : w->b.p + w->b.len;
}

/*
 * A member's key where the inline jo_key_fast() could not write it (a key
 * to measure, little room, deep nesting): comma, line break and
 * indentation, the quoted key and the colon, with room for `value` more
 * bytes reserved in the same step. Returns where the value goes (the
 * caller sets b.len past it), or NULL after an error. Keys are always
 * inside an object (depth >= 1). klen: JO_KEY_LEN(key), the length + 1 of
 * a literal key, 0 to measure.
 */
static char *key_then(struct jo_writer *w, const char *key, size_t klen, size_t value)
{
	size_t n = klen - 1, pad = w->indent > 0 ? (size_t)w->indent * (size_t)w->depth : 0;
	char *p;

	if (!klen) {
		if (!key_scan(key, &n)) { /* not in the reports; the general way */
#ifdef JO_CHECK_ORDER
			jo_check_key(w, key, 0);
#endif
			return key_general(w, key, n, value);
		}
		klen = n + 1;
	}
	/* The common way, else: little room left, or deeper than the
	 * separator holds. */
	if ((p = jo_key_fast(w, key, klen, value)))
		return p;
#ifdef JO_CHECK_ORDER
	jo_check_key(w, key, klen);
#endif
	if (reserve(&w->b, n + pad + 8 + 6 + value) < 0) {
		jo_fail(w, ERR_NOMEM);
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
			/* NOLINTNEXTLINE(bugprone-not-null-terminated-result): bytes, no NUL */
			memcpy(p + k, "        ", 8);
		p += pad;
	}
	*p++ = '"';
	/* NOLINTNEXTLINE(bugprone-not-null-terminated-result): JSON bytes, no NUL */
	memcpy(p, key, n);
	p += n;
	*p++ = '"';
	*p++ = ':';
	if (w->indent > 0)
		*p++ = ' ';
	w->first = false;
	return p;
}

void jo_w_key_l(struct jo_writer *w, const char *key, size_t klen)
{
	char *p = key_then(w, key, klen, 0);

	if (p) {
		w->b.len = (size_t)(p - w->b.p);
		w->after_key = true;
	}
}

void jo_w_int(struct jo_writer *w, int64_t v)
{
	separate(w);
	jo_fail(w, put_int(&w->b, v));
}

void jo_w_real(struct jo_writer *w, double v)
{
	separate(w);
	jo_fail(w, put_real(&w->b, v));
}

void jo_w_str(struct jo_writer *w, const char *s)
{
	separate(w);
	jo_fail(w, put_string(&w->b, s, strlen(s)));
}

void jo_w_quoted(struct jo_writer *w, const char *q, size_t n)
{
	separate(w);
	jo_fail(w, put(&w->b, q, n));
}

void jo_w_bool(struct jo_writer *w, bool v)
{
	separate(w);
	jo_fail(w, v ? put(&w->b, "true", 4) : put(&w->b, "false", 5));
}

void jo_w_null(struct jo_writer *w)
{
	separate(w);
	jo_fail(w, put(&w->b, "null", 4));
}

void jo_w_sec(struct jo_writer *w, int64_t ns)
{
	separate(w);
	if (reserve(&w->b, JO_SEC_MAX) < 0) {
		jo_fail(w, ERR_NOMEM);
		return;
	}
	w->b.len += jo_fmt_sec(w->b.p + w->b.len, ns);
}

/* The key-value pairs: one reservation for both. */
void jo_kint_l(struct jo_writer *w, const char *key, size_t klen, int64_t v)
{
	char *p = key_then(w, key, klen, 24);

	if (p)
		w->b.len = (size_t)(p - w->b.p) + jo_fmt_int(p, v);
}

void jo_kreal_l(struct jo_writer *w, const char *key, size_t klen, double v)
{
	char *p = key_then(w, key, klen, JO_REAL_MAX);
	size_t n;

	if (!p)
		return;
	n = jo_fmt_real(p, v);
	w->b.len = (size_t)(p - w->b.p) + n;
	if (!n)
		jo_fail(w, ERR_USAGE); /* NaN or infinity: JSON cannot say it */
}

void jo_w_not_real(struct jo_writer *w)
{
	jo_fail(w, ERR_USAGE); /* NaN or infinity: JSON cannot say it */
}

void jo_ksec_l(struct jo_writer *w, const char *key, size_t klen, int64_t ns)
{
	char *p = key_then(w, key, klen, JO_SEC_MAX);

	if (p)
		w->b.len = (size_t)(p - w->b.p) + jo_fmt_sec(p, ns);
}

void jo_kstr_l(struct jo_writer *w, const char *key, size_t klen, const char *s)
{
	jo_w_key_l(w, key, klen);
	jo_w_str(w, s);
}

static void key_word(struct jo_writer *w, const char *key, size_t klen, const char *word, size_t n)
{
	char *p = key_then(w, key, klen, n);

	if (p) {
		memcpy(p, word, n);
		w->b.len = (size_t)(p - w->b.p) + n;
	}
}

void jo_kbool_l(struct jo_writer *w, const char *key, size_t klen, bool v)
{
	if (v)
		key_word(w, key, klen, "true", 4);
	else
		key_word(w, key, klen, "false", 5);
}

void jo_knull_l(struct jo_writer *w, const char *key, size_t klen)
{
	key_word(w, key, klen, "null", 4);
}

static void open_container(struct jo_writer *w, const char *c)
{
	separate(w);
	jo_fail(w, put(&w->b, c, 1));
	w->depth++;
	w->first = true;
	set_sep(w);
#ifdef JO_CHECK_ORDER
	if (w->depth <= JO_MAX_DEPTH)
		w->last_key[w->depth] = NULL;
#endif
}

/* Empty containers stay "{}" / "[]" as Jansson writes them. */
static void close_container(struct jo_writer *w, const char *c)
{
	w->depth--;
	set_sep(w);
	if (!w->first && w->indent > 0 && w->sep_len && reserve(&w->b, JO_SEP_COPY + 1) == 0) {
		/* The line break and indentation: the separator's but its comma */
		memcpy(w->b.p + w->b.len, w->sep + 1, JO_SEP_COPY);
		w->b.len += (size_t)(w->sep_len - 1);
		w->b.p[w->b.len++] = *c;
		w->first = false;
		return;
	}
	if (!w->first)
		jo_fail(w, newline(&w->b, w->indent, w->depth));
	jo_fail(w, put(&w->b, c, 1));
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
	jo_fail(w, put(&w->b, s, strlen(s)));
}

void jo_w_splice(struct jo_writer *w, const char *bytes, size_t n, int err)
{
	jo_fail(w, put(&w->b, bytes, n));
	jo_fail(w, err);
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
		jo_fail(w, ERR_SYSTEM);
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
