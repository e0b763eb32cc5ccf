/* jsonout_fields.c - JSON writer: objects whose members come unsorted, written sorted. */
#include <string.h>

#include "analyze/report/jsonout_int.h"

/* The table of names jo_w_named_counts() is given, sorted and measured
 * once a writer: the same pointers (the names are static strings, the
 * table is often built on the caller's stack) find it again. NULL: more
 * names than a table holds. */
static const struct jo_names_seen *names_seen(struct jo_writer *w, const char *const *names,
					      unsigned n)
{
	if (n > JO_NAMES_MAX)
		return NULL;
	for (unsigned t = 0; t < JO_NAMES_SEEN; t++) {
		const struct jo_names_seen *s = &w->names_seen[t];
		if (s->n == n && memcmp(s->names, names, n * sizeof(*names)) == 0)
			return s;
	}
	struct jo_names_seen *s = &w->names_seen[w->names_next];
	w->names_next = (w->names_next + 1) % JO_NAMES_SEEN;
	s->n = n;
	memcpy(s->names, names, n * sizeof(*names));
	/* Insertion sort of the indices: a handful of names, once. */
	for (unsigned k = 0; k < n; k++) {
		unsigned j = k;
		/* cppcheck-suppress uninitvar ; order[0..k) was set by the earlier rounds */
		for (; j > 0 && strcmp(names[k], names[s->order[j - 1]]) < 0; j--)
			s->order[j] = s->order[j - 1];
		s->order[j] = (uint8_t)k;
	}
	for (unsigned k = 0; k < n; k++) {
		size_t len = strlen(names[k]);
		s->klen[k] = len < 64 && jo_plain(names[k], len) ? (uint8_t)(len + 1) : 0;
	}
	return s;
}

void jo_w_named_counts(struct jo_writer *w, const char *const *names, const uint64_t *v, unsigned n)
{
	const struct jo_names_seen *s = names_seen(w, names, n);

	if (!s) {
		jo_fail(w, ERR_USAGE);
		return;
	}
	jo_w_obj(w);
	for (unsigned k = 0; k < n; k++) {
		unsigned i = s->order[k];
		jo_kint_n(w, names[i], s->klen[i], (int64_t)v[i]);
	}
	jo_w_obj_end(w);
}

/* ---- objects gathered as a field list ---- */

void jo_f_reset(struct jo_fields *l)
{
	l->n = 0;
	l->overflow = false;
}

void jo_f_set_str_l(struct jo_fields *l, const char *key, size_t klen, const char *s)
{
	struct jo_field *f = NULL;

	/* A member of the same key keeps its klen: the same text. */
	for (unsigned k = 0; k < l->n && !f; k++)
		if (strcmp(l->f[k].key, key) == 0)
			f = &l->f[k];
	if (f)
		f->type = JO_F_STR;
	else
		f = jo_f_add(l, key, klen, JO_F_STR);
	if (f)
		f->v.s = s;
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
		jo_fail(w, ERR_USAGE); /* a writer's bug: JO_FIELDS_MAX is too small */
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
		/* Each key as the callers' literals were measured: no scan. */
		switch (f->type) {
		case JO_F_INT:
			jo_kint_n(w, f->key, f->klen, f->v.i);
			break;
		case JO_F_REAL:
			jo_kreal_l(w, f->key, f->klen, f->v.r);
			break;
		case JO_F_SEC:
			jo_ksec_l(w, f->key, f->klen, f->v.i);
			break;
		case JO_F_STR:
			jo_kstr_l(w, f->key, f->klen, f->v.s);
			break;
		case JO_F_BOOL:
			jo_kbool_l(w, f->key, f->klen, f->v.b);
			break;
		case JO_F_INT_PAIR:
			jo_w_key_l(w, f->key, f->klen);
			jo_w_arr(w);
			jo_w_int(w, f->v.pair[0]);
			jo_w_int(w, f->v.pair[1]);
			jo_w_arr_end(w);
			break;
		default:
			jo_knull_l(w, f->key, f->klen);
			break;
		}
	}
	jo_w_obj_end(w);
}
