/* jsonout.h - JSON in exactly json_dumps()'s bytes: from Jansson values, or streamed directly. */
#ifndef TCPSIFT_JSONOUT_H
#define TCPSIFT_JSONOUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The JSON contract is Jansson's format: json_dumps(v, JSON_SORT_KEYS |
 * JSON_REAL_PRECISION(16) | JSON_ENCODE_ANY | JSON_INDENT(indent) or
 * JSON_COMPACT). json_dumpb() itself is slow (snprintf for every number,
 * a callback per character), and building a json_t per value costs as
 * much again, so:
 *  - jo_dump() writes a Jansson value in exactly those bytes into a
 *    growable buffer (tests/unit/test_jsonout.c proves it on every kind);
 *  - the streaming writer (struct jo_writer below) writes the same bytes
 *    with no Jansson value at all: what the reports use for their bulk,
 *    connections and events.
 *
 * The buffer owns its memory; reuse it across values, free it once.
 */
struct jo_buf {
	char *p;
	size_t len, cap;
};

/* Append v to b. indent > 0: pretty, that many spaces a level; 0: compact.
 * Returns 0, or -ENOMEM (b keeps what was written). */
int jo_dump(struct jo_buf *b, const json_t *v, int indent);

void jo_reset(struct jo_buf *b); /* len = 0, memory kept */
void jo_free(struct jo_buf *b);	 /* NULL-safe; b is then empty */

/* Bytes jo_fmt_real() may write (it writes no terminating NUL). */
#define JO_REAL_MAX 48

/* v as Jansson prints a real with JSON_REAL_PRECISION(16) ("%.16g", ".0"
 * added to integral values, exponent without '+' or leading zeros) into buf,
 * without printf for the values reports hold. Returns the length, 0 for NaN
 * or infinity. */
size_t jo_fmt_real(char *buf, double v);

/*
 * The streaming writer: the same bytes jo_dump() would write for a value
 * built in Jansson, written straight from the caller's data, with no
 * json_t allocated. The caller emits keys in sorted (strcmp) order, as
 * JSON_SORT_KEYS would; test_report_json.c holds the reporters to it.
 *
 *   jo_w_obj(w); jo_w_key(w, "a"); jo_w_int(w, 1); jo_w_obj_end(w);
 *
 * A value right after jo_w_key() is that key's; any other value inside an
 * array is its next element; a value at depth 0 stands alone (the caller
 * writes what goes between top-level values with jo_w_raw()). Errors are
 * sticky: what is written after one never reaches out, jo_w_flush()
 * reports it.
 */
struct jo_writer {
	struct jo_buf b;
	FILE *out;	 /* not owned; NULL: everything stays in b */
	size_t flush_at; /* jo_w_commit() writes b out once it holds this much */
	int indent;	 /* > 0: pretty, that many spaces a level; 0: compact */
	int depth;
	bool first;	 /* the next key or element is its container's first */
	bool after_key;	 /* the next value belongs to the key just written */
	bool out_failed; /* writing to out failed: nothing more is written */
	int err;	 /* first error, negative errno */
	size_t err_at;	 /* b.len when it happened: later bytes are not written */
};

void jo_w_init(struct jo_writer *w, FILE *out, size_t flush_at, int indent);
void jo_w_key(struct jo_writer *w, const char *key);
void jo_w_int(struct jo_writer *w, int64_t v);
void jo_w_real(struct jo_writer *w, double v); /* NaN, infinity: -EINVAL */
void jo_w_str(struct jo_writer *w, const char *s);
void jo_w_bool(struct jo_writer *w, bool v);
void jo_w_null(struct jo_writer *w);
/* A Jansson value, borrowed; NULL (a constructor failed) is -ENOMEM. */
void jo_w_json(struct jo_writer *w, const json_t *v);
void jo_w_obj(struct jo_writer *w);
void jo_w_obj_end(struct jo_writer *w);
void jo_w_arr(struct jo_writer *w);
void jo_w_arr_end(struct jo_writer *w);
void jo_w_raw(struct jo_writer *w, const char *s); /* verbatim, outside the value grammar */
/* A key and its value in one call. */
void jo_kint(struct jo_writer *w, const char *key, int64_t v);
void jo_kreal(struct jo_writer *w, const char *key, double v);
void jo_kstr(struct jo_writer *w, const char *key, const char *s);
void jo_kbool(struct jo_writer *w, const char *key, bool v);
void jo_knull(struct jo_writer *w, const char *key);

/*
 * An object of scalar members whose keys come from several places (an
 * event: common keys, then its detector's): gathered in any order, written
 * sorted by jo_w_fields(). Keys are borrowed string literals.
 */
enum jo_ftype {
	JO_F_NULL = 0,
	JO_F_INT,
	JO_F_REAL,
	JO_F_STR,
	JO_F_BOOL,
	JO_F_INT_PAIR, /* [a, b] */
	JO_F_TYPE_COUNT,
};

#define JO_FIELDS_MAX 24

struct jo_field {
	const char *key;
	enum jo_ftype type;
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
/* Append a member (keys must be distinct, as json_object_set_new_nocheck's). */
void jo_f_null(struct jo_fields *l, const char *key);
void jo_f_int(struct jo_fields *l, const char *key, int64_t v);
void jo_f_real(struct jo_fields *l, const char *key, double v);
void jo_f_str(struct jo_fields *l, const char *key, const char *s);
void jo_f_bool(struct jo_fields *l, const char *key, bool v);
void jo_f_int_pair(struct jo_fields *l, const char *key, int64_t a, int64_t b);
/* Set key to s, replacing the value of a member of that key if there is one
 * (json_object_set() semantics). */
void jo_f_set_str(struct jo_fields *l, const char *key, const char *s);
/* Write the members as one object, keys sorted (l is sorted in place). */
void jo_w_fields(struct jo_writer *w, struct jo_fields *l);

/* A whole piece (a top-level value and what follows it) is buffered: write
 * the buffer to out if it holds flush_at bytes or more. 0 or the error. */
int jo_w_commit(struct jo_writer *w);
/* Write out everything buffered. 0 or the first error. */
int jo_w_flush(struct jo_writer *w);
void jo_w_free(struct jo_writer *w); /* frees the buffer; NULL-safe; out stays open */

#endif
