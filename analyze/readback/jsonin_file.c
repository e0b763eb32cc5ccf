/* jsonin_file.c - the report reader's files: a --json document or an --ndjson stream, piece by
 * piece. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/readback/jsonin_int.h"
#include "common/err.h"
#include "common/grow.h"

/* ---- the text pre-pass ---- */

/* A character of a JSON number after its first. */
static bool num_char(char c)
{
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

char *ji_quote_reals(const char *in, size_t n, size_t *outn)
{
	size_t reals = 0;

	/* First count the reals (two quotes each), then copy. */
	for (int pass = 0; pass < 2; pass++) {
		char *out = NULL;
		size_t k = 0, o = 0;
		bool str = false;
		if (pass == 1 && !(out = malloc(n + 2 * reals + 1)))
			return NULL;
		while (k < n) {
			char c = in[k];
			if (str) {
				if (c == '\\' && k + 1 < n) {
					if (out) {
						out[o] = c;
						out[o + 1] = in[k + 1];
					}
					o += 2;
					k += 2;
					continue;
				}
				str = c != '"';
			} else if (c == '"') {
				str = true;
			} else if (c == '-' || (c >= '0' && c <= '9')) {
				size_t end = k + 1;
				bool real = false;
				while (end < n && num_char(in[end])) {
					real |= in[end] == '.' || in[end] == 'e' || in[end] == 'E';
					end++;
				}
				if (real) {
					if (out) {
						out[o] = '"';
						memcpy(out + o + 1, in + k, end - k);
						out[o + 1 + end - k] = '"';
					} else {
						reals++;
					}
					o += end - k + 2;
				} else {
					if (out)
						memcpy(out + o, in + k, end - k);
					o += end - k;
				}
				k = end;
				continue;
			}
			if (out)
				out[o] = c;
			o++;
			k++;
		}
		if (out) {
			out[o] = 0;
			*outn = o;
			return out;
		}
	}
	return NULL;
}

/* A file's inputs keep their interfaces here (owned by the file). */
struct ji_ifaces {
	struct src_iface *v;
	struct ji_ifaces *next;
};

/* ---- files ---- */

struct ji_file {
	const char *path;
	FILE *f;
	bool ndjson;
	struct ji_pool *pool;
	bool own_pool;
	struct ji_ifaces *ifaces; /* every input's interfaces handed out */
	const char **vantages[2]; /* handed out with summaries */
	/* NDJSON */
	char *line;
	size_t line_cap;
	uint64_t lineno;
	bool done; /* the summary line was read */
	/* JSON: the whole document and where the walk is */
	json_t *doc;
	size_t nconn, nevent, ninput;
	int stage; /* 0 connections, 1 events, 2 inputs, 3 summary, 4 end */
};

static json_t *parse(const char *text, size_t n, char *err, size_t errlen)
{
	json_error_t je;
	size_t qn;
	char *q = ji_quote_reals(text, n, &qn);
	json_t *v;

	if (!q) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	v = json_loadb(q, qn, JSON_REJECT_DUPLICATES, &je);
	free(q);
	if (!v)
		snprintf(err, errlen, "not JSON: %s (column %d)", je.text, je.column);
	return v;
}

/* One line into f->line (without its newline): its length, 0 at the end
 * of the file, or ERR_INPUT (a read error, or a line beyond JI_LINE_MAX). */
static ssize_t read_line(struct ji_file *f)
{
	ssize_t n = getline(&f->line, &f->line_cap, f->f);

	if (n < 0)
		return ferror(f->f) ? ERR_INPUT : 0;
	if (n > JI_LINE_MAX)
		return ERR_INPUT;
	f->lineno++;
	if (n && f->line[n - 1] == '\n')
		f->line[--n] = 0;
	return n ? n : 1; /* an empty line is a (bad) line */
}

struct ji_file *ji_open(const char *path, struct ji_pool *pool, char *errbuf, size_t errlen)
{
	struct ji_file *f = calloc(1, sizeof(*f));
	json_t *first;
	char err[200];
	ssize_t n;

	if (f) {
		f->own_pool = !pool;
		f->pool = pool ? pool : ji_pool_new();
	}
	if (!f || !f->pool) {
		free(f);
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	f->path = path;
	f->f = fopen(path, "r");
	if (!f->f) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		free(f);
		return NULL;
	}
	/* NDJSON's first line is a whole object with a "kind"; a document's is
	 * "{" and its first key. */
	n = read_line(f);
	if (n <= 0) {
		snprintf(errbuf, errlen, "%s: %s", path, n < 0 ? "cannot read it" : "empty");
		ji_close(f);
		return NULL;
	}
	first = parse(f->line, (size_t)n, err, sizeof(err));
	f->ndjson = first && json_is_string(json_object_get(first, "kind"));
	json_decref(first);
	if (f->ndjson) {
		rewind(f->f);
		f->lineno = 0;
		return f;
	}
	/* A document: read whole (tcpsift-merge(1)). */
	rewind(f->f);
	char *text = NULL;
	size_t len = 0, cap = 0, got;
	do {
		/* Room for 64 KiB more a read: 1 MiB, then doubled. */
		if (GROW(text, cap, len + 65536, 1 << 20) < 0) {
			free(text);
			snprintf(errbuf, errlen, "%s: out of memory", path);
			ji_close(f);
			return NULL;
		}
		got = fread(text + len, 1, cap - len, f->f);
		len += got;
	} while (got);
	if (ferror(f->f)) {
		free(text);
		snprintf(errbuf, errlen, "%s: cannot read it", path);
		ji_close(f);
		return NULL;
	}
	f->doc = parse(text, len, err, sizeof(err));
	free(text);
	if (!f->doc || !json_is_object(f->doc) ||
	    !json_is_array(json_object_get(f->doc, "connections")) ||
	    !json_is_object(json_object_get(f->doc, "summary"))) {
		snprintf(errbuf, errlen, "%s: not a tcpsift --json or --ndjson report%s%s", path,
			 f->doc ? "" : ": ", f->doc ? "" : err);
		ji_close(f);
		return NULL;
	}
	return f;
}

bool ji_is_ndjson(const struct ji_file *f)
{
	return f->ndjson;
}

/* A summary's vantage list is freed with the file (the last two kept). */
static void keep_vantages(struct ji_file *f, const char **v)
{
	free(f->vantages[0]);
	f->vantages[0] = f->vantages[1];
	f->vantages[1] = v;
}

static int piece(struct ji_file *f, struct ji_ctx *x, const json_t *o, struct ji_item *it,
		 const char *kind)
{
	if (strcmp(kind, "connection") == 0) {
		it->kind = JI_CONN;
		ji_conn(x, o, &it->conn);
	} else if (strcmp(kind, "event") == 0) {
		it->kind = JI_EVENT;
		ji_event(x, o, &it->event);
	} else if (strcmp(kind, "input") == 0) {
		it->kind = JI_INPUT;
		ji_input(x, o, &it->input);
		if (it->input.ifaces) {
			struct ji_ifaces *l = malloc(sizeof(*l));
			if (!l) {
				free(it->input.ifaces);
				it->input.ifaces = NULL;
				ji_fail(x, "out of memory");
			} else {
				l->v = it->input.ifaces;
				l->next = f->ifaces;
				f->ifaces = l;
			}
		}
	} else if (strcmp(kind, "summary") == 0) {
		it->kind = JI_SUMMARY;
		const json_t *tool =
		    f->ndjson ? ji_get(x, o, "tcpsift") : json_object_get(f->doc, "tcpsift");
		const json_t *van =
		    f->ndjson ? ji_get(x, o, "vantages") : json_object_get(f->doc, "vantages");
		if (!f->ndjson && (!tool || !van))
			ji_fail(x, "no \"tcpsift\" or \"vantages\"");
		ji_summary(x, o, tool, van, &it->summary);
		keep_vantages(f, it->summary.vantages);
		if (!x->err && !f->ndjson) {
			json_t *flt = json_object_get(f->doc, "filter");
			if (flt)
				it->summary.filter = ji_str(x, f->doc, "filter", false);
		}
		if (!x->err && it->summary.schema != 2)
			ji_fail(x, "schema %d, this tcpsift reads schema 2", it->summary.schema);
	} else {
		ji_fail(x, "unknown kind \"%s\"", kind);
	}
	return x->err;
}

int ji_next(struct ji_file *f, struct ji_item *it, char *errbuf, size_t errlen)
{
	struct ji_ctx x = {.pool = f->pool};
	char err[200];

	memset(it, 0, sizeof(*it));
	if (f->ndjson) {
		if (f->done)
			return JI_END;
		ssize_t n = read_line(f);
		if (n < 0) {
			snprintf(errbuf, errlen,
				 "%s: line %" PRIu64 ": cannot read it (or too long)", f->path,
				 f->lineno + 1);
			return ERR_INPUT;
		}
		if (n == 0) {
			snprintf(errbuf, errlen,
				 "%s: truncated: the stream ends without its summary line",
				 f->path);
			return ERR_INPUT;
		}
		json_t *o = parse(f->line, (size_t)n, err, sizeof(err));
		if (!o) {
			snprintf(errbuf, errlen, "%s: line %" PRIu64 ": %s", f->path, f->lineno,
				 err);
			return ERR_INPUT;
		}
		const char *kind = json_string_value(json_object_get(o, "kind"));
		if (!kind)
			ji_fail(&x, "no \"kind\"");
		else
			piece(f, &x, o, it, kind);
		json_decref(o);
		if (x.err) {
			snprintf(errbuf, errlen, "%s: line %" PRIu64 ": %s", f->path, f->lineno,
				 x.msg);
			return x.err;
		}
		f->done = it->kind == JI_SUMMARY;
		return (int)it->kind;
	}
	static const char *const stages[] = {"connections", "events", "inputs"};
	static const char *const kinds[] = {"connection", "event", "input"};
	for (; f->stage < 3; f->stage++) {
		json_t *a = json_object_get(f->doc, stages[f->stage]);
		size_t *at = f->stage == 0 ? &f->nconn : f->stage == 1 ? &f->nevent : &f->ninput;
		if (!json_is_array(a)) {
			snprintf(errbuf, errlen, "%s: no \"%s\" array", f->path, stages[f->stage]);
			return ERR_INPUT;
		}
		if (*at < json_array_size(a)) {
			size_t k = (*at)++;
			if (piece(f, &x, json_array_get(a, k), it, kinds[f->stage]) < 0) {
				snprintf(errbuf, errlen, "%s: %s %zu: %s", f->path, kinds[f->stage],
					 k + 1, x.msg);
				return x.err;
			}
			return (int)it->kind;
		}
	}
	if (f->stage == 3) {
		f->stage = 4;
		if (piece(f, &x, json_object_get(f->doc, "summary"), it, "summary") < 0) {
			snprintf(errbuf, errlen, "%s: summary: %s", f->path, x.msg);
			return x.err;
		}
		return JI_SUMMARY;
	}
	return JI_END;
}

void ji_close(struct ji_file *f)
{
	if (!f)
		return;
	if (f->f)
		fclose(f->f);
	json_decref(f->doc);
	free(f->line);
	while (f->ifaces) {
		struct ji_ifaces *n = f->ifaces->next;
		free(f->ifaces->v);
		free(f->ifaces);
		f->ifaces = n;
	}
	free(f->vantages[0]);
	free(f->vantages[1]);
	if (f->own_pool)
		ji_pool_free(f->pool);
	free(f);
}
