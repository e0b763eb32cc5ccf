/* text_table.c - the text report's connection table: its columns, its cells and --sort. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/jsonout.h"
#include "analyze/report/parjson.h"
#include "analyze/report/report.h"
#include "analyze/report/text_int.h"

/* A duration in the unit that suits the largest of a set (us, ms or s). */
static const char *rtt_unit(int64_t max_ns, double *div)
{
	if (max_ns < 1000000) {
		*div = 1e3;
		return "us";
	}
	if (max_ns < 10000000000LL) {
		*div = 1e6;
		return "ms";
	}
	*div = 1e9;
	return "s";
}

void txt_rtt_cell(const struct sum_rtt *r, char *buf, size_t len)
{
	double div;
	const char *u = rtt_unit(r->max_ns, &div);
	int prec = div == 1e3 ? 0 : 1;		    /* whole us, else tenths */
	int64_t avg_ns = r->sum_ns / (int64_t)r->n; /* whole ns, as JSON's avg_s */
	size_t n;

	/* "%.*f/%.*f/%.*f%s" a number at a time, each cut as the whole would be */
	if (!len)
		return;
	rep_fmt_fixed(buf, len, (double)r->min_ns / div, prec, "/");
	n = strlen(buf);
	rep_fmt_fixed(buf + n, len - n, (double)avg_ns / div, prec, "/");
	n += strlen(buf + n);
	rep_fmt_fixed(buf + n, len - n, (double)r->max_ns / div, prec, u);
}

static void rtt_cell(const struct sum_conn *c, char *buf, size_t len)
{
	const struct sum_rtt *r = rep_best_rtt(c);

	if (r) {
		txt_rtt_cell(r, buf, len);
	} else {
		txt_dur_cell(c->handshake_rtt_ns, buf, len);
	}
}

/* "12us", "20.1ms": one duration in the unit it suits, "-" unknown (< 0). */
void txt_dur_cell(int64_t ns, char *buf, size_t len)
{
	double div;
	const char *u = rtt_unit(ns, &div);

	if (ns < 0)
		snprintf(buf, len, "-");
	else
		rep_fmt_fixed(buf, len, (double)ns / div, div == 1e3 ? 0 : 1, u);
}

/* ---- --sort: the table's orders ---- */

enum sort_key {
	SORT_ID = 0,
	SORT_CLIENT,
	SORT_SERVER,
	SORT_DUR,
	SORT_C2S,
	SORT_S2C,
	SORT_BYTES,
	SORT_TPUT,
	SORT_RETR,
	SORT_OOO,
	SORT_RTT,
	SORT_PATH,
	SORT_LOSS,
	SORT_STATE,
	SORT_DET, /* then one per column of the detectors' views (det_view.columns) */
};

static const char *const sort_names[SORT_DET] = {"id",	"client", "server", "dur",  "c2s",
						 "s2c", "bytes",  "tput",   "retr", "ooo",
						 "rtt", "path",	  "loss",   "state"};

/* The detector column behind sort key k >= SORT_DET: its view and column. */
static bool sort_det_column(int k, const struct det_view **v, unsigned *col)
{
	int n = SORT_DET;

	if (k < SORT_DET)
		return false;
	for (unsigned i = 0; i < DET_VIEW_COUNT; i++) {
		if (k < n + (int)det_views[i]->ncolumns) {
			*v = det_views[i];
			*col = (unsigned)(k - n);
			return true;
		}
		n += (int)det_views[i]->ncolumns;
	}
	return false;
}

/* A detector column's head as a --sort name: "STALL" -> "stall". */
static void det_sort_name(const struct det_view *v, unsigned col, char *buf, size_t len)
{
	size_t k = 0;

	for (const char *h = v->columns[col].head; *h && k + 1 < len; h++)
		buf[k++] = (char)(*h >= 'A' && *h <= 'Z' ? *h - 'A' + 'a' : *h);
	buf[k] = '\0';
}

int rep_sort_parse(const char *name)
{
	const struct det_view *v;
	unsigned col;
	char buf[16];

	for (int k = 0; k < SORT_DET; k++)
		if (strcmp(name, sort_names[k]) == 0)
			return k;
	for (int k = SORT_DET; sort_det_column(k, &v, &col); k++) {
		det_sort_name(v, col, buf, sizeof(buf));
		if (strcmp(name, buf) == 0)
			return k;
	}
	return -1;
}

void rep_sort_names(char *buf, size_t len)
{
	const struct det_view *v;
	unsigned col;
	size_t n = 0;
	char name[16];

	buf[0] = '\0';
	for (int k = 0; n < len; k++) {
		if (k < SORT_DET)
			snprintf(name, sizeof(name), "%s", sort_names[k]);
		else if (sort_det_column(k, &v, &col))
			det_sort_name(v, col, name, sizeof(name));
		else
			break;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : "", name);
	}
}

/* A row's place in the order: its key (bigger first, but for the names
 * and the id) and its index in rep_data. */
struct sort_row {
	int64_t key;
	size_t idx;
};

struct sort_ctx {
	const struct rep_data *d;
	int key;
};

static int64_t sort_value(const struct sum_conn *c, int key)
{
	const struct sum_rtt *r;
	const struct det_view *v;
	unsigned col;

	switch (key) {
	case SORT_DUR:
		return c->last_ts - c->first_ts;
	case SORT_C2S:
		return (int64_t)c->dir[SUM_C2S].payload_bytes;
	case SORT_S2C:
		return (int64_t)c->dir[SUM_S2C].payload_bytes;
	case SORT_BYTES:
		return (int64_t)(c->dir[SUM_C2S].payload_bytes + c->dir[SUM_S2C].payload_bytes);
	case SORT_TPUT:
		return (int64_t)rep_conn_throughput(c);
	case SORT_RETR:
		return (int64_t)txt_both_dirs(c, TXT_DIR_METRIC(retrans));
	case SORT_OOO:
		return (int64_t)txt_both_dirs(c, TXT_DIR_METRIC(out_of_order));
	case SORT_RTT: /* the table's average; none sorts last */
		r = rep_best_rtt(c);
		return r ? r->sum_ns / (int64_t)r->n : c->handshake_rtt_ns;
	case SORT_PATH: /* unknown (-1) sorts last */
		return c->path.rtt_ns;
	case SORT_LOSS: /* in parts per billion: the cell's precision and more */
		return (int64_t)(sum_conn_loss_rate(c) * 1e9);
	case SORT_STATE:
		return c->state;
	default:
		if (sort_det_column(key, &v, &col)) {
			struct det_cell cells[DET_MAX_COLUMNS] = {0};
			struct det_totals none = {0};
			v->cells(cells, c, &none, true);
			return cells[col].sort;
		}
		return 0;
	}
}

/* Endpoints: IPv4 before IPv6, then address bytes, then port. */
static int endpoint_cmp(const struct dec_addr *a, uint16_t ap, const struct dec_addr *b,
			uint16_t bp)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	int m = memcmp(a->a, b->a, a->family == 6 ? 16 : 4);
	if (m)
		return m;
	return ap == bp ? 0 : ap < bp ? -1 : 1;
}

static int sort_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sort_row *a = pa, *b = pb;
	const struct sort_ctx *x = arg;
	int r = 0;

	if (x->key == SORT_CLIENT || x->key == SORT_SERVER) {
		const struct sum_conn *ca = &x->d->conns[a->idx], *cb = &x->d->conns[b->idx];
		r = x->key == SORT_CLIENT
			? endpoint_cmp(&ca->client, ca->client_port, &cb->client, cb->client_port)
			: endpoint_cmp(&ca->server, ca->server_port, &cb->server, cb->server_port);
	} else if (a->key != b->key) {
		bool up = x->key == SORT_STATE; /* names and states ascending, counts descending */
		r = (a->key < b->key) == up ? -1 : 1;
	}
	if (r)
		return r;
	return a->idx < b->idx ? -1 : a->idx > b->idx; /* ties: first-packet order */
}

/* The rows of the table in order (malloc'd, *n of them), or NULL in
 * first-packet order: no --sort, or no memory for one (said in the
 * table's head). */
static struct sort_row *sorted_rows(const struct rep_data *d, int key)
{
	if (key == SORT_ID || d->nconns < 2)
		return NULL;
	struct sort_row *rows = malloc(d->nconns * sizeof(*rows));
	if (!rows)
		return NULL;
	for (size_t k = 0; k < d->nconns; k++)
		rows[k] = (struct sort_row){sort_value(rep_conn_at(d, k), key), k};
	struct sort_ctx x = {d, key};
	qsort_r(rows, d->nconns, sizeof(*rows), sort_cmp, &x);
	return rows;
}

/* ---- the table ---- */

enum {
	COL_ID,
	COL_CLIENT,
	COL_SERVER,
	COL_DUR,
	COL_C2S,
	COL_S2C,
	COL_TPUT,
	COL_RETR,
	COL_LOSS,
	COL_OOO,
	COL_RTT,
	COL_PATH,
	COL_STATE,
	COL_COUNT
};

static const char *const col_head[COL_COUNT] = {"id",		"client", "server", "dur s", "c>s",
						"s>c",		"bit/s",  "retr",   "loss%", "ooo",
						"rtt mn/av/mx", "path",	  "state"};
/* Left-aligned columns (the rest are numbers, right-aligned). */
static const bool col_left[COL_COUNT] = {
    [COL_CLIENT] = true, [COL_SERVER] = true, [COL_RTT] = true, [COL_STATE] = true};

/* The table's bytes go out in pieces of this much. */
enum { TABLE_CHUNK = 32 * 1024 };

/* One row's cells. */
struct table_row {
	char cell[COL_COUNT][64];
};

/* A count as "%" PRIu64 writes it, into a 64-byte cell: no printf. */
static void cell_u64(char *cell, uint64_t v)
{
	if (v > INT64_MAX) {
		snprintf(cell, 64, "%" PRIu64, v);
		return;
	}
	char num[24] = "";
	size_t n = jo_fmt_int(num, (int64_t)v);

	memcpy(cell, num, n);
	cell[n] = '\0';
}

/* The state cell: its label (at most 6 wide), "*" evicted, "^" resumed,
 * "@vantage" when there are several; put together without printf. */
static void state_cell(char *cell, const struct sum_conn *c, bool vantages)
{
	const char *label = sum_state_label(c->state, 6);
	size_t n = strlen(label);

	memcpy(cell, label, n); /* a label is a few bytes, under the cell's 64 */
	if (c->evicted)
		cell[n++] = '*';
	if (c->evicted_and_resumed)
		cell[n++] = '^';
	if (vantages) {
		cell[n++] = '@';
		n += jo_fmt_int(cell + n, c->vantage);
	}
	cell[n] = '\0';
}

static void table_row(const struct sum_conn *c, const struct rep_run *run, struct table_row *t)
{
	double secs = (double)(c->last_ts - c->first_ts) / 1e9, tput = rep_conn_throughput(c);

	t->cell[COL_ID][0] = '\0'; /* cppcheck: cell_u64() only writes */
	cell_u64(t->cell[COL_ID], c->id);
	rep_format_endpoint(&c->client, c->client_port, t->cell[COL_CLIENT], sizeof(t->cell[0]));
	rep_format_endpoint(&c->server, c->server_port, t->cell[COL_SERVER], sizeof(t->cell[0]));
	rep_fmt_fixed(t->cell[COL_DUR], sizeof(t->cell[0]), secs,
		      secs < 10	    ? 3
		      : secs < 1000 ? 1
				    : 0,
		      "");
	txt_human(c->dir[SUM_C2S].payload_bytes, t->cell[COL_C2S], sizeof(t->cell[0]));
	txt_human(c->dir[SUM_S2C].payload_bytes, t->cell[COL_S2C], sizeof(t->cell[0]));
	if (tput < 0)
		memcpy(t->cell[COL_TPUT], "-", 2);
	else
		txt_human((uint64_t)tput, t->cell[COL_TPUT], sizeof(t->cell[0]));
	cell_u64(t->cell[COL_RETR], txt_both_dirs(c, TXT_DIR_METRIC(retrans)));
	rep_fmt_loss(t->cell[COL_LOSS], sizeof(t->cell[0]), sum_conn_loss_rate(c));
	cell_u64(t->cell[COL_OOO], txt_both_dirs(c, TXT_DIR_METRIC(out_of_order)));
	rtt_cell(c, t->cell[COL_RTT], sizeof(t->cell[0]));
	txt_dur_cell(c->path.rtt_ns, t->cell[COL_PATH], sizeof(t->cell[0]));
	state_cell(t->cell[COL_STATE], c, run->nvantages > 1);
}

/* A line of the table: cells padded to their columns' widths, one space
 * between (as "%-*s" / "%*s" would), no trailing blanks; its length. buf
 * holds COL_COUNT * 64 + COL_COUNT bytes (a cell is under 64). */
static size_t format_line(char *buf, const char *const cells[COL_COUNT], const int width[COL_COUNT])
{
	size_t n = 0;

	for (int k = 0; k < COL_COUNT; k++) {
		size_t len = strlen(cells[k]), w = width[k] > 0 ? (size_t)width[k] : 0;
		size_t pad = k < COL_COUNT - 1 && w > len ? w - len : 0;
		if (k)
			buf[n++] = ' ';
		if (!col_left[k]) {
			memset(buf + n, ' ', pad);
			n += pad;
		}
		memcpy(buf + n, cells[k], len);
		n += len;
		if (col_left[k]) {
			memset(buf + n, ' ', pad);
			n += pad;
		}
	}
	buf[n++] = '\n';
	return n;
}

/* The rows of the table, by --sort's order, for pj_for() / pj_write(). */
struct table_ctx {
	const struct rep_data *d;
	const struct rep_run *run;
	const struct sort_row *rows;
	int width[PJ_MAX_THREADS][COL_COUNT]; /* the first pass's, a thread's own */
};

static const void *table_item(void *ctx, size_t k)
{
	const struct table_ctx *x = ctx;

	return rep_conn_at(x->d, x->rows ? x->rows[k].idx : k);
}

static void table_widths(void *ctx, unsigned thread, size_t k, const void *item)
{
	struct table_ctx *x = ctx;
	struct table_row t;

	(void)k;
	table_row(item, x->run, &t);
	for (int j = 0; j < COL_COUNT; j++) {
		int w = (int)strlen(t.cell[j]);
		if (w > x->width[thread][j])
			x->width[thread][j] = w;
	}
}

static void table_line(void *ctx, struct jo_writer *w, const void *item)
{
	const struct table_ctx *x = ctx;
	struct table_row t;
	const char *cells[COL_COUNT];
	char line[sizeof(t.cell) + COL_COUNT];

	table_row(item, x->run, &t);
	for (int j = 0; j < COL_COUNT; j++)
		cells[j] = t.cell[j];
	jo_w_splice(w, line, format_line(line, cells, x->width[0]), 0);
}

/*
 * The table is two passes over its rows: the first sizes every column
 * from the data (a full IPv6 address, an RTT in seconds), the second
 * prints, so columns always line up. A row is rebuilt in each pass
 * rather than kept: a million connections' cells are never held.
 */
void txt_write_table(FILE *head, FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	static const struct rep_text_opts plain = {0};
	const struct rep_text_opts *o = d->text ? d->text : &plain;
	struct sort_row *rows = sorted_rows(d, o->sort);
	size_t n = o->top && o->top < d->nconns ? (size_t)o->top : d->nconns;
	char order[64];

	if (o->sort != SORT_ID && rows) {
		const struct det_view *v;
		unsigned col;
		char name[16];
		if (o->sort < SORT_DET)
			snprintf(name, sizeof(name), "%s", sort_names[o->sort]);
		else if (sort_det_column(o->sort, &v, &col))
			det_sort_name(v, col, name, sizeof(name));
		snprintf(order, sizeof(order), "sorted by %s", name);
	} else {
		snprintf(order, sizeof(order), "first-packet order");
	}
	if (n < d->nconns)
		fprintf(head, "\nConnections (the first %zu of %zu, %s; ", n, d->nconns, order);
	else
		fprintf(head, "\nConnections (%s; ", order);
	fputs("bytes are payload, bit/s their sum over the duration;\n"
	      "loss% of the segments sent; rtt data -> ACK at the capture point, path end to end;\n"
	      "state: open, half(-closed), closed, reset, syn (handshake only))\n",
	      head);
	/* The rows go around the wrapping: a row wider than the page stays one
	 * line, so that every row's columns start where the head's do. */
	fflush(head);
	/* Both passes on --threads N threads, rows in rounds (parjson.h). */
	struct table_ctx tc = {.d = d, .run = run, .rows = rows}, *x = &tc;
	unsigned used = pj_for(n, run->threads, table_item, table_widths, x);
	for (int k = 0; k < COL_COUNT; k++) {
		int w = (int)strlen(col_head[k]);
		for (unsigned t = 0; t < used; t++)
			w = x->width[t][k] > w ? x->width[t][k] : w;
		x->width[0][k] = w;
	}
	char head_line[COL_COUNT * 64 + COL_COUNT];
	size_t head_len = format_line(head_line, col_head, x->width[0]);
	fwrite(head_line, 1, head_len, out);
	struct jo_writer w;
	jo_w_init(&w, out, TABLE_CHUNK, 0);
	pj_write(&w, n, run->threads, "", table_item, table_line, x);
	jo_w_flush(&w);
	jo_w_free(&w);
	free(rows);
	if (d->tot.conns_evicted)
		fputs(
		    "  * evicted under --max-flows or --max-memory: statistics cover only part of "
		    "it\n",
		    out);
	if (d->tot.conns_resumed)
		fputs("  ^ evicted and resumed: the parts before and after added up (the second "
		      "began mid-stream)\n",
		      out);
}
