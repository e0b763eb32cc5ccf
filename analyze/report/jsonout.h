/* jsonout.h - the JSON writer: values streamed into one buffer, keys in sorted order. */
#ifndef TCPSIFT_JSONOUT_H
#define TCPSIFT_JSONOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"

/*
 * Every JSON byte tcpsift writes comes from here, written straight from the
 * caller's data with no intermediate tree: what keeps --json fast. The
 * layout is fixed (tcpsift-json(5)): keys in strcmp order at every
 * level, so the same capture always gives the same bytes; pretty output
 * indents by `indent` spaces a level ("key": value), compact has no spaces.
 * Times are written exactly from integer nanoseconds (jo_w_sec); other
 * reals as "%.16g". Builds with -DJO_CHECK_ORDER (the test builds) fail
 * the writer when a caller emits keys out of order.
 *
 *   jo_w_obj(w); jo_w_key(w, "a"); jo_w_int(w, 1); jo_w_obj_end(w);
 *
 * A value right after jo_w_key() is that key's; any other value inside an
 * array is its next element; a value at depth 0 stands alone (the caller
 * writes what goes between top-level values with jo_w_raw()). Errors are
 * sticky (enum err_code): what is written after one never reaches out,
 * jo_w_flush() reports it. The writer owns its buffer; out is borrowed.
 */
struct jo_buf {
	char *p;
	size_t len, cap;
};

#define JO_MAX_DEPTH 16
/* A member's leading bytes at the current depth that the inline key
 * writers copy whole: a comma, a line break, up to 30 spaces. */
#define JO_SEP_COPY 32

/* jo_w_named_counts(): a table of names it wrote before, its order and
 * keys' lengths (JO_KEY_LEN's, 0: not plain), so each later object of the
 * same names costs neither a sort nor a key's measure. */
#define JO_NAMES_MAX  24
#define JO_NAMES_SEEN 6
struct jo_names_seen {
	const char *names[JO_NAMES_MAX]; /* the table's pointers: n == 0, none */
	unsigned n;
	uint8_t order[JO_NAMES_MAX];
	uint8_t klen[JO_NAMES_MAX];
};

struct jo_writer {
	struct jo_buf b;
	FILE *out;	 /* not owned; NULL: everything stays in b */
	size_t flush_at; /* jo_w_commit() writes b out once it holds this much */
	int indent;	 /* > 0: pretty, that many spaces a level; 0: compact */
	int depth;
	bool first;	 /* the next key or element is its container's first */
	bool after_key;	 /* the next value belongs to the key just written */
	bool out_failed; /* writing to out failed: nothing more is written */
	int err;	 /* first error, enum err_code */
	int sys_errno;	 /* with ERR_SYSTEM: the errno of the failed write */
	size_t err_at;	 /* b.len when it happened: later bytes are not written */
	/* What goes before a member at this depth, "," then (pretty) a line
	 * break and the indentation, kept as the depth changes so a key costs
	 * one fixed-size copy; sep_len 0: deeper than JO_SEP_COPY holds. */
	uint8_t sep_len;
	char sep[JO_SEP_COPY + 8];
	/* The tables of names jo_w_named_counts() wrote, replaced in turn. */
	struct jo_names_seen names_seen[JO_NAMES_SEEN];
	unsigned names_next;
#ifdef JO_CHECK_ORDER
	const char *last_key[JO_MAX_DEPTH + 1]; /* per depth; NULL: none yet */
#endif
};

/* Bytes jo_fmt_real() / jo_fmt_sec() may write (no terminating NUL from
 * jo_fmt_sec; jo_fmt_real writes one). */
#define JO_REAL_MAX 48
#define JO_SEC_MAX  32

/* v as a JSON real ("%.16g", ".0" added to integral values, exponent
 * without '+' or leading zeros); the length, 0 for NaN or infinity. */
size_t jo_fmt_real(char *buf, double v);
/* ns as exact seconds ("1796033364.947948123", "0.5", "3.0"); the length. */
size_t jo_fmt_sec(char *buf, int64_t ns);
/* v in decimal into buf (>= 21 bytes, no NUL); returns the length. */
size_t jo_fmt_int(char *buf, int64_t v);
/* v as "%.*f" with prec 0..3 writes it, into buf (>= 24 bytes, no NUL);
 * the length, 0 where printf must (NaN, infinity, |v| >= 2^53). */
size_t jo_fmt_fixed(char *buf, double v, int prec);

/*
 * A key's length + 1 where the compiler knows it: a string literal, whose
 * bytes are the program's own and plain (the test builds check); else 0,
 * and the writer measures the key and escapes what it must. Some 200 keys
 * a connection: measuring and checking each cost ~90 instructions.
 */
#define JO_KEY_LEN(key)                                                                            \
	(__builtin_constant_p(__builtin_strlen(key)) ? __builtin_strlen(key) + 1 : 0)

void jo_w_init(struct jo_writer *w, FILE *out, size_t flush_at, int indent);
void jo_w_int(struct jo_writer *w, int64_t v);
void jo_w_real(struct jo_writer *w, double v); /* NaN, infinity: ERR_USAGE */
void jo_w_sec(struct jo_writer *w, int64_t ns);
void jo_w_str(struct jo_writer *w, const char *s);
/* A string already in JSON's form, n bytes, quotes and escapes included (a
 * table of names written over and over: no scan, no measure). */
void jo_w_quoted(struct jo_writer *w, const char *q, size_t n);
void jo_w_bool(struct jo_writer *w, bool v);
void jo_w_null(struct jo_writer *w);
void jo_w_obj(struct jo_writer *w);
void jo_w_obj_end(struct jo_writer *w);
void jo_w_arr(struct jo_writer *w);
void jo_w_arr_end(struct jo_writer *w);
void jo_w_raw(struct jo_writer *w, const char *s); /* verbatim, outside the value grammar */
/* n bytes another writer wrote (verbatim, as jo_w_raw), then that
 * writer's error err (0: none) as if it had happened here, after them. */
void jo_w_splice(struct jo_writer *w, const char *bytes, size_t n, int err);
/* A key (klen: JO_KEY_LEN), and a key with its value in one call; the
 * inline names below are the ones to call. */
void jo_w_key_l(struct jo_writer *w, const char *key, size_t klen);
void jo_kint_l(struct jo_writer *w, const char *key, size_t klen, int64_t v);
void jo_kreal_l(struct jo_writer *w, const char *key, size_t klen, double v);
void jo_ksec_l(struct jo_writer *w, const char *key, size_t klen, int64_t ns);
void jo_kstr_l(struct jo_writer *w, const char *key, size_t klen, const char *s);
void jo_kbool_l(struct jo_writer *w, const char *key, size_t klen, bool v);
void jo_knull_l(struct jo_writer *w, const char *key, size_t klen);
/* jo_kreal()'s value was NaN or infinity: the writer fails (ERR_USAGE). */
void jo_w_not_real(struct jo_writer *w);

/* A writer's helper that passes a key on: inlined, so a literal key stays
 * one (JO_KEY_LEN) and takes jo_key_fast(). */
#define JO_KEYED static inline __attribute__((always_inline))

#ifdef JO_CHECK_ORDER
/* The test builds: a literal key in sorted order and plain, else the
 * writer fails. */
void jo_check_key(struct jo_writer *w, const char *key, size_t klen);
#endif

#define JO_INLINE static inline __attribute__((always_inline))
/*
 * The common member, inline where its key is a literal (n known to the
 * compiler, so the key's copy is a few moves): separator, quoted key,
 * colon, with room for `value` more bytes. NULL sends the caller to the
 * general way (an unknown key, little room, deep nesting), which also
 * reports errors.
 */
JO_INLINE char *jo_key_fast(struct jo_writer *w, const char *key, size_t klen, size_t value)
{
	size_t n = klen - 1;

	if (!klen || !w->sep_len || w->b.cap - w->b.len < JO_SEP_COPY + n + 4 + value)
		return NULL;
#ifdef JO_CHECK_ORDER
	jo_check_key(w, key, klen);
#endif
	char *p = w->b.p + w->b.len;
	__builtin_memcpy(p, w->sep + w->first, JO_SEP_COPY);
	p += w->sep_len - w->first;
	*p++ = '"';
	__builtin_memcpy(p, key, n);
	p += n;
	*p++ = '"';
	*p++ = ':';
	if (w->indent > 0)
		*p++ = ' ';
	w->first = false;
	return p;
}
JO_INLINE void jo_w_key(struct jo_writer *w, const char *key)
{
	char *p = jo_key_fast(w, key, JO_KEY_LEN(key), 0);

	if (!p) {
		jo_w_key_l(w, key, JO_KEY_LEN(key));
		return;
	}
	w->b.len = (size_t)(p - w->b.p);
	w->after_key = true;
}
/* A key whose JO_KEY_LEN the caller knows (a table of names measured
 * once: jo_w_named_counts()) and an integer. */
JO_INLINE void jo_kint_n(struct jo_writer *w, const char *key, size_t klen, int64_t v)
{
	char *p = jo_key_fast(w, key, klen, 24);

	if (p)
		w->b.len = (size_t)(p - w->b.p) + jo_fmt_int(p, v);
	else
		jo_kint_l(w, key, klen, v);
}
JO_INLINE void jo_kint(struct jo_writer *w, const char *key, int64_t v)
{
	jo_kint_n(w, key, JO_KEY_LEN(key), v);
}
JO_INLINE void jo_kreal(struct jo_writer *w, const char *key, double v)
{
	char *p = jo_key_fast(w, key, JO_KEY_LEN(key), JO_REAL_MAX);
	size_t n;

	if (!p) {
		jo_kreal_l(w, key, JO_KEY_LEN(key), v);
		return;
	}
	n = jo_fmt_real(p, v);
	w->b.len = (size_t)(p - w->b.p) + n;
	if (!n)
		jo_w_not_real(w); /* as jo_kreal_l() */
}
JO_INLINE void jo_ksec(struct jo_writer *w, const char *key, int64_t ns)
{
	char *p = jo_key_fast(w, key, JO_KEY_LEN(key), JO_SEC_MAX);

	if (p)
		w->b.len = (size_t)(p - w->b.p) + jo_fmt_sec(p, ns);
	else
		jo_ksec_l(w, key, JO_KEY_LEN(key), ns);
}
JO_INLINE void jo_kstr(struct jo_writer *w, const char *key, const char *s)
{
	jo_w_key(w, key); /* the key inline; the value scanned for escapes */
	jo_w_str(w, s);
}
JO_INLINE void jo_kbool(struct jo_writer *w, const char *key, bool v)
{
	char *p = jo_key_fast(w, key, JO_KEY_LEN(key), 5);

	if (!p) {
		jo_kbool_l(w, key, JO_KEY_LEN(key), v);
		return;
	}
	__builtin_memcpy(p, v ? "true" : "fals", 4);
	p += 4;
	if (!v)
		*p++ = 'e';
	w->b.len = (size_t)(p - w->b.p);
}
JO_INLINE void jo_knull(struct jo_writer *w, const char *key)
{
	char *p = jo_key_fast(w, key, JO_KEY_LEN(key), 4);

	if (!p) {
		jo_knull_l(w, key, JO_KEY_LEN(key));
		return;
	}
	__builtin_memcpy(p, "null", 4);
	w->b.len = (size_t)(p - w->b.p) + 4;
}
#undef JO_INLINE

/* An object {names[k]: v[k]} with its keys in sorted order, whatever the
 * order of the enum the names come from (names borrowed, n <= 32). */
void jo_w_named_counts(struct jo_writer *w, const char *const *names, const uint64_t *v,
		       unsigned n);

/*
 * An object of scalar members whose keys come from several places (an
 * event: common keys, then its detector's): gathered in any order, written
 * sorted by jo_w_fields(). Keys are borrowed string literals.
 */
enum jo_ftype {
	JO_F_NULL = 0,
	JO_F_INT,
	JO_F_REAL,
	JO_F_SEC, /* nanoseconds, written as exact seconds */
	JO_F_STR,
	JO_F_BOOL,
	JO_F_INT_PAIR, /* [a, b] */
	JO_F_TYPE_COUNT,
};

#define JO_FIELDS_MAX 24

struct jo_field {
	const char *key;
	enum jo_ftype type;
	uint8_t klen; /* JO_KEY_LEN(key), 0: measured when written */
	union {
		int64_t i;
		double r;
		const char *s;
		bool b;
		int64_t pair[2];
	} v;
};

struct jo_fields {
	unsigned n;
	bool overflow; /* more than JO_FIELDS_MAX were added: jo_w_fields() fails */
	struct jo_field f[JO_FIELDS_MAX];
};

void jo_f_reset(struct jo_fields *l); /* empty, ready for members */

/* The next member (klen: JO_KEY_LEN(key)), or NULL (and overflow set) when
 * the list is full; the jo_f_*() below are the ones to call. */
JO_KEYED struct jo_field *jo_f_add(struct jo_fields *l, const char *key, size_t klen,
				   enum jo_ftype type)
{
	if (l->n == JO_FIELDS_MAX) {
		l->overflow = true;
		return NULL;
	}
	struct jo_field *f = &l->f[l->n++];
	f->key = key;
	f->type = type;
	f->klen = klen <= UINT8_MAX ? (uint8_t)klen : 0;
	return f;
}

/* Append a member (keys must be distinct); inline, so that a literal
 * key's length is the compiler's (JO_KEY_LEN), as for jo_kint(). */
JO_KEYED void jo_f_null(struct jo_fields *l, const char *key)
{
	jo_f_add(l, key, JO_KEY_LEN(key), JO_F_NULL);
}
/* jo_f_int(), jo_f_real(), jo_f_sec() (nanoseconds), jo_f_str(), jo_f_bool(). */
#define JO_F_SETTER(name, ctype, ftype, member)                                                    \
	JO_KEYED void jo_f_##name(struct jo_fields *l, const char *key, ctype v)                   \
	{                                                                                          \
		struct jo_field *f = jo_f_add(l, key, JO_KEY_LEN(key), ftype);                     \
		if (f)                                                                             \
			f->v.member = v;                                                           \
	}
JO_F_SETTER(int, int64_t, JO_F_INT, i)
JO_F_SETTER(real, double, JO_F_REAL, r)
JO_F_SETTER(sec, int64_t, JO_F_SEC, i)
JO_F_SETTER(str, const char *, JO_F_STR, s)
JO_F_SETTER(bool, bool, JO_F_BOOL, b)
#undef JO_F_SETTER
JO_KEYED void jo_f_int_pair(struct jo_fields *l, const char *key, int64_t a, int64_t b)
{
	struct jo_field *f = jo_f_add(l, key, JO_KEY_LEN(key), JO_F_INT_PAIR);
	if (f) {
		f->v.pair[0] = a;
		f->v.pair[1] = b;
	}
}
/* Set key to s, replacing the value of a member of that key if there is one. */
void jo_f_set_str_l(struct jo_fields *l, const char *key, size_t klen, const char *s);
JO_KEYED void jo_f_set_str(struct jo_fields *l, const char *key, const char *s)
{
	jo_f_set_str_l(l, key, JO_KEY_LEN(key), s);
}
/* Write the members as one object, keys sorted (l is sorted in place). */
void jo_w_fields(struct jo_writer *w, struct jo_fields *l);

/* A whole piece (a top-level value and what follows it) is buffered: write
 * the buffer to out if it holds flush_at bytes or more. 0 or the error. */
int jo_w_commit(struct jo_writer *w);
/* Write out everything buffered. 0 or the first error. */
int jo_w_flush(struct jo_writer *w);
void jo_w_free(struct jo_writer *w); /* frees the buffer; NULL-safe; out stays open */

#endif
