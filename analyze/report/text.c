/* text.c - the human report: findings first, then a connection table (100 columns). */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/report.h"
#include "analyze/report/text_int.h"

enum { TEXT_EXAMPLES = 3 }; /* connections named under each finding */

/* A failed stdio write: ERR_SYSTEM, errno left for the caller's message. */
static int werr(FILE *out)
{
	return ferror(out) ? ERR_SYSTEM : 0;
}

void txt_human(uint64_t v, char *buf, size_t len)
{
	static const char units[] = " KMGTP";
	double x = (double)v;
	unsigned u = 0;

	while (x >= 1000.0 && u < sizeof(units) - 2) {
		x /= 1000.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64, v);
	else
		snprintf(buf, len, x < 10 ? "%.1f%c" : "%.0f%c", x, units[u]);
}

const struct sum_rtt *rep_best_rtt(const struct sum_conn *c)
{
	const struct sum_rtt *best = NULL;

	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		const struct sum_rtt *r = c->dir[k].rtt.n ? &c->dir[k].rtt : &c->dir[k].rtt_ts;
		if (r->n && (!best || r->n > best->n))
			best = r;
	}
	return best;
}

double rep_conn_throughput(const struct sum_conn *c)
{
	int64_t dur = c->last_ts - c->first_ts;

	if (dur <= 0)
		return -1;
	return (double)(c->dir[SUM_C2S].payload_bytes + c->dir[SUM_S2C].payload_bytes) * 8.0 /
	       ((double)dur / 1e9);
}

/* A uint64_t counter of struct sum_dir, named by its offset. */
#define DIR_METRIC(field) offsetof(struct sum_dir, field)

/* The counter at offset metric, summed over both directions of c. */
static uint64_t both_dirs(const struct sum_conn *c, size_t metric)
{
	uint64_t v = 0;

	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		uint64_t x;
		memcpy(&x, (const char *)&c->dir[k] + metric, sizeof(x));
		v += x;
	}
	return v;
}

/* "in conn 3 (N), conn 7 (...)": the first connections with it. */
static void examples(FILE *out, const struct rep_data *d, size_t metric)
{
	unsigned shown = 0;
	size_t more = 0;

	for (size_t k = 0; k < d->nconns; k++) {
		const struct sum_conn *c = rep_conn_at(d, k);
		uint64_t v = both_dirs(c, metric);
		if (!v)
			continue;
		if (shown == TEXT_EXAMPLES) {
			more++;
			continue;
		}
		fprintf(out, "%s conn %" PRIu64 " (%" PRIu64 ")", shown ? "," : "      in", c->id,
			v);
		shown++;
	}
	if (more)
		fprintf(out, " and %zu more", more);
	if (shown)
		fputc('\n', out);
}

/* "tsval 18, ip_id 8": the rules that decided, by the names JSON uses. */
static void by_rules(FILE *out, const uint64_t by[SUM_BY_COUNT])
{
	unsigned n = 0;

	for (unsigned k = 0; k < SUM_BY_COUNT; k++)
		if (by[k])
			fprintf(out, "%s%s %" PRIu64, n++ ? ", " : "",
				sum_reorder_by_name((enum sum_reorder_by)k), by[k]);
	if (!n)
		fputs("none", out);
}

static void write_inputs(FILE *out, const struct rep_run *run)
{
	for (unsigned k = 0; k < run->ninputs; k++) {
		const struct src_input *in = run->inputs[k];
		char drops[64] = "unknown";
		if (strcmp(in->format, "none") == 0) { /* never opened: see the errors */
			fprintf(out, "  %s: not read\n", in->path);
			continue;
		}
		if (in->drops_known)
			snprintf(drops, sizeof(drops), "%" PRIu64, in->drops);
		fprintf(out, "  %s: %s%s %s, %" PRIu64 " packet%s, %.3f s, capture drops %s\n",
			in->path, in->format, in->compressed ? " (compressed)" : "",
			src_linktype_name(in->linktype), in->packets, rep_plural(in->packets),
			in->packets ? (double)(in->last_ts - in->first_ts) / 1e9 : 0.0, drops);
	}
}

static void text_error(void *ctx, const struct rep_error *e)
{
	FILE *out = ctx;

	if (e->path)
		fprintf(out, "    %s: %s\n", e->path, e->message);
	else
		fprintf(out, "    %s\n", e->message);
}

/* What kept the report from covering all of its input, when anything did. */
static void write_errors(FILE *out, const struct rep_run *run)
{
	unsigned n = rep_each_error(run, NULL, NULL);

	if (!n)
		return;
	fprintf(out, "  %u error%s: the report covers what could be read\n", n, n == 1 ? "" : "s");
	rep_each_error(run, text_error, out);
}

static uint64_t total_drops(const struct rep_run *run, bool *known)
{
	uint64_t drops = 0;

	*known = false;
	for (unsigned k = 0; k < run->ninputs; k++) {
		if (run->inputs[k]->drops_known) {
			*known = true;
			drops += run->inputs[k]->drops;
		}
	}
	return drops;
}

static void write_findings(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	const struct rep_totals *t = &d->tot;
	bool any = false;

	fputs("\nFindings\n", out);
	/* The detectors' findings first: they are why the tool exists. */
	if (run->detectors) {
		for (unsigned k = 0; k < DET_VIEW_COUNT; k++) {
			det_views[k]->text(out, d, run);
			any |= det_views[k]->any(&t->det);
		}
	}
	if (t->unseen_bytes) {
		bool known;
		uint64_t drops = total_drops(run, &known);
		any = true;
		fprintf(out,
			"  capture loss: %" PRIu64 " byte%s (~%" PRIu64
			" segment%s) %s ACKed by the receiver but never captured:\n"
			"      the capture, not the network, lost them (file drop counters: ",
			t->unseen_bytes, rep_plural(t->unseen_bytes), t->capture_loss_segments,
			rep_plural(t->capture_loss_segments),
			t->unseen_bytes == 1 ? "was" : "were");
		if (known)
			fprintf(out, "%" PRIu64 ")\n", drops);
		else
			fputs("none in the file)\n", out);
		examples(out, d, DIR_METRIC(unseen_bytes));
	}
	if (t->retrans) {
		any = true;
		fprintf(out,
			"  retransmissions: %" PRIu64 " in %" PRIu64 " connection%s (fast %" PRIu64
			", RTO %" PRIu64 ", tail-loss probe %" PRIu64 ", other %" PRIu64
			"; spurious %" PRIu64 ", %" PRIu64 " of them proven by D-SACK)\n",
			t->retrans, t->conns_with_retrans, rep_plural(t->conns_with_retrans),
			t->fast, t->rto, t->tlp, t->retrans - t->fast - t->rto - t->tlp,
			t->spurious, t->spurious_dsack);
		if (t->lost_upstream) {
			fprintf(out,
				"      %" PRIu64
				" segment%s filled gaps in the capture: sent after the segment "
				"that opened the gap, so the original%s lost upstream of the "
				"capture point (decided by ",
				t->lost_upstream, rep_plural(t->lost_upstream),
				t->lost_upstream == 1 ? " was" : "s were");
			by_rules(out, t->lost_upstream_by);
			fputs(")\n", out);
		}
		if (t->retrans > t->lost_upstream)
			fprintf(out,
				"      %" PRIu64
				" segment%s re-sent bytes the capture had seen: lost downstream "
				"of it, or spurious\n",
				t->retrans - t->lost_upstream,
				rep_plural(t->retrans - t->lost_upstream));
		examples(out, d, DIR_METRIC(retrans));
		rep_text_frames(out, &d->frames[SUM_EV_RETRANS], run);
	}
	if (t->tlp_new_data) {
		any = true;
		fprintf(out,
			"  tail-loss probes with new data: %" PRIu64
			" (no ACK for two or more full "
			"segments in flight, then new data: RFC 8985 sec. 7.3)\n",
			t->tlp_new_data);
		examples(out, d, DIR_METRIC(tlp_new_data));
		rep_text_frames(out, &d->frames[SUM_EV_TLP_NEW_DATA], run);
	}
	if (t->ooo) {
		any = true;
		fprintf(out,
			"  out of order: %" PRIu64
			" segment%s arrived after later ones (decided by ",
			t->ooo, rep_plural(t->ooo));
		by_rules(out, t->ooo_by);
		fputs(")\n", out);
		examples(out, d, DIR_METRIC(out_of_order));
		rep_text_frames(out, &d->frames[SUM_EV_OUT_OF_ORDER], run);
	}
	if (t->fills_undecided) {
		any = true;
		fprintf(
		    out,
		    "  undecided: %" PRIu64 " segment%s filled gaps in the capture that could be "
		    "late originals or retransmissions of originals lost upstream: the sender's "
		    "clocks tie with the segment that opened the gap (TCP timestamps tick in ms; "
		    "IPv6 has no IP ID) and they came later than a retransmission could have. A "
		    "capture at the sender, or TCP timestamps in us (Linux 6.7: ip route ... "
		    "features tcp_usec_ts), would decide\n",
		    t->fills_undecided, rep_plural(t->fills_undecided));
		examples(out, d, DIR_METRIC(fills_undecided));
		rep_text_frames(out, &d->frames[SUM_EV_FILL_UNDECIDED], run);
	}
	if (t->zero_windows) {
		any = true;
		fprintf(out,
			"  zero window: %" PRIu64 " advertisement%s, %" PRIu64
			" episode%s, %.3f s with the receiver's window closed\n",
			t->zero_windows, rep_plural(t->zero_windows), t->zw_episodes,
			rep_plural(t->zw_episodes), (double)t->zw_time_ns / 1e9);
		examples(out, d, DIR_METRIC(zero_windows));
	}
	if (t->dsack) {
		any = true;
		fprintf(out,
			"  D-SACK: %" PRIu64 " block%s: the receiver got the same bytes twice "
			"(spurious retransmission or duplication)\n",
			t->dsack, rep_plural(t->dsack));
		examples(out, d, DIR_METRIC(dsack_blocks));
	}
	if (t->oversize) {
		any = true;
		fprintf(out,
			"  oversize segments: %" PRIu64 " larger than the MSS: captured on a host "
			"with TSO/GSO/GRO,\n      so segment sizes are not what was on the wire\n",
			t->oversize);
		examples(out, d, DIR_METRIC(oversize));
	}
	if (t->dup_acks) {
		fprintf(out, "  duplicate ACKs: %" PRIu64 "\n", t->dup_acks);
		examples(out, d, DIR_METRIC(dup_acks));
		rep_text_frames(out, &d->frames[SUM_EV_DUP_ACK], run);
	}
	if (t->lost_segments) {
		fprintf(out,
			"  gaps in what was captured: %" PRIu64 " segment%s began beyond the "
			"highest byte seen before %s\n",
			t->lost_segments, rep_plural(t->lost_segments),
			t->lost_segments == 1 ? "it" : "them");
		examples(out, d, DIR_METRIC(lost_segments));
		rep_text_frames(out, &d->frames[SUM_EV_CAPTURE_GAP], run);
	}
	if (!any)
		fputs("  none: no retransmission, reordering, capture loss or zero window\n", out);
	fprintf(out, "  (also: %" PRIu64 " window-full segment%s, %" PRIu64 " keep-alive%s)\n",
		t->window_full, rep_plural(t->window_full), t->keepalives,
		rep_plural(t->keepalives));
}

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

	snprintf(buf, len, "%.*f/%.*f/%.*f%s", prec, (double)r->min_ns / div, prec,
		 (double)avg_ns / div, prec, (double)r->max_ns / div, u);
}

static void rtt_cell(const struct sum_conn *c, char *buf, size_t len)
{
	const struct sum_rtt *r = rep_best_rtt(c);
	double div;

	if (r) {
		txt_rtt_cell(r, buf, len);
	} else if (c->handshake_rtt_ns >= 0) {
		const char *u = rtt_unit(c->handshake_rtt_ns, &div);
		snprintf(buf, len, "%.*f%s", div == 1e3 ? 0 : 1, (double)c->handshake_rtt_ns / div,
			 u);
	} else {
		snprintf(buf, len, "-");
	}
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
	SORT_STATE,
	SORT_DET, /* then one per column of the detectors' views (det_view.columns) */
};

static const char *const sort_names[SORT_DET] = {
    "id", "client", "server", "dur", "c2s", "s2c", "bytes", "tput", "retr", "ooo", "rtt", "state"};

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
		return (int64_t)both_dirs(c, DIR_METRIC(retrans));
	case SORT_OOO:
		return (int64_t)both_dirs(c, DIR_METRIC(out_of_order));
	case SORT_RTT: /* the table's average; none sorts last */
		r = rep_best_rtt(c);
		return r ? r->sum_ns / (int64_t)r->n : c->handshake_rtt_ns;
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
	COL_OOO,
	COL_RTT,
	COL_STATE,
	COL_COUNT
};

static const char *const col_head[COL_COUNT] = {"id",  "client",       "server", "dur s",
						"c>s", "s>c",	       "bit/s",	 "retr",
						"ooo", "rtt mn/av/mx", "state"};
/* Left-aligned columns (the rest are numbers, right-aligned). */
static const bool col_left[COL_COUNT] = {
    [COL_CLIENT] = true, [COL_SERVER] = true, [COL_RTT] = true, [COL_STATE] = true};

/* One row's cells. */
struct table_row {
	char cell[COL_COUNT][64];
};

static void table_row(const struct sum_conn *c, const struct rep_run *run, struct table_row *t)
{
	double secs = (double)(c->last_ts - c->first_ts) / 1e9, tput = rep_conn_throughput(c);

	snprintf(t->cell[COL_ID], sizeof(t->cell[0]), "%" PRIu64, c->id);
	rep_format_endpoint(&c->client, c->client_port, t->cell[COL_CLIENT], sizeof(t->cell[0]));
	rep_format_endpoint(&c->server, c->server_port, t->cell[COL_SERVER], sizeof(t->cell[0]));
	snprintf(t->cell[COL_DUR], sizeof(t->cell[0]),
		 secs < 10     ? "%.3f"
		 : secs < 1000 ? "%.1f"
			       : "%.0f",
		 secs);
	txt_human(c->dir[SUM_C2S].payload_bytes, t->cell[COL_C2S], sizeof(t->cell[0]));
	txt_human(c->dir[SUM_S2C].payload_bytes, t->cell[COL_S2C], sizeof(t->cell[0]));
	if (tput < 0)
		snprintf(t->cell[COL_TPUT], sizeof(t->cell[0]), "-");
	else
		txt_human((uint64_t)tput, t->cell[COL_TPUT], sizeof(t->cell[0]));
	snprintf(t->cell[COL_RETR], sizeof(t->cell[0]), "%" PRIu64,
		 both_dirs(c, DIR_METRIC(retrans)));
	snprintf(t->cell[COL_OOO], sizeof(t->cell[0]), "%" PRIu64,
		 both_dirs(c, DIR_METRIC(out_of_order)));
	rtt_cell(c, t->cell[COL_RTT], sizeof(t->cell[0]));
	char where[16] = "";
	if (run->nvantages > 1)
		snprintf(where, sizeof(where), "@%u", c->vantage);
	snprintf(t->cell[COL_STATE], sizeof(t->cell[0]), "%s%s%s%s", sum_state_label(c->state, 6),
		 c->evicted ? "*" : "", c->evicted_and_resumed ? "^" : "", where);
}

static void write_line(FILE *out, const char *const cells[COL_COUNT], const int width[COL_COUNT])
{
	for (int k = 0; k < COL_COUNT; k++) {
		const char *sep = k ? " " : "";
		if (k == COL_COUNT - 1)
			fprintf(out, "%s%s\n", sep, cells[k]); /* no trailing blanks */
		else
			fprintf(out, col_left[k] ? "%s%-*s" : "%s%*s", sep, width[k], cells[k]);
	}
}

/*
 * The table is two passes over its rows: the first sizes every column
 * from the data (a full IPv6 address, an RTT in seconds), the second
 * prints, so columns always line up. A row is rebuilt in each pass
 * rather than kept: a million connections' cells are never held.
 */
static void write_table(FILE *head, FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	static const struct rep_text_opts plain = {0};
	const struct rep_text_opts *o = d->text ? d->text : &plain;
	struct sort_row *rows = sorted_rows(d, o->sort);
	size_t n = o->top && o->top < d->nconns ? (size_t)o->top : d->nconns;
	int width[COL_COUNT];
	struct table_row t;
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
	      "RTT at the capture point; state: open, half(-closed), closed, reset, syn (handshake "
	      "only))\n",
	      head);
	/* The rows go around the wrapping: a row wider than the page stays one
	 * line, so that every row's columns start where the head's do. */
	fflush(head);
	for (int k = 0; k < COL_COUNT; k++)
		width[k] = (int)strlen(col_head[k]);
	for (size_t k = 0; k < n; k++) {
		table_row(rep_conn_at(d, rows ? rows[k].idx : k), run, &t);
		for (int j = 0; j < COL_COUNT; j++) {
			int w = (int)strlen(t.cell[j]);
			if (w > width[j])
				width[j] = w;
		}
	}
	write_line(out, col_head, width);
	for (size_t k = 0; k < n; k++) {
		const char *cells[COL_COUNT];
		table_row(rep_conn_at(d, rows ? rows[k].idx : k), run, &t);
		for (int j = 0; j < COL_COUNT; j++)
			cells[j] = t.cell[j];
		write_line(out, cells, width);
	}
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

static void write_report(FILE *out, FILE *raw, const struct rep_data *d, const struct rep_run *run);
static void write_findings_part(FILE *out, FILE *raw, const struct rep_data *d,
				const struct rep_run *run);
static void write_head(FILE *out, const struct rep_data *d, const struct rep_run *run);

enum { TEXT_WIDTH = TXT_WIDTH };

/*
 * Write buf wrapped at TEXT_WIDTH columns: a longer line breaks at its last
 * space that fits, continuing under its own indent plus four spaces, so the
 * detectors' explanations stay readable in a 100-column terminal.
 */
static void write_wrapped(FILE *out, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		size_t indent = 0;
		while (p + indent < eol && p[indent] == ' ')
			indent++;
		size_t width = TEXT_WIDTH, pad = 0;
		/* A command to paste stays one line. */
		bool nowrap = (size_t)(eol - p) > indent + 7 && !strncmp(p + indent, "tshark ", 7);
		while (!nowrap && (size_t)(eol - p) > width) {
			const char *cut = p + width;
			while (cut > p + indent && *cut != ' ')
				cut--;
			if (cut <= p + indent)
				break; /* one word longer than the line: leave it */
			fprintf(out, "%*s%.*s\n", (int)pad, "", (int)(cut - p), p);
			p = cut + 1;
			pad = indent + 4;
			width = TEXT_WIDTH - pad;
		}
		fprintf(out, "%*s%.*s\n", (int)pad, "", (int)(eol - p), p);
		p = nl ? nl + 1 : end;
	}
}

/* The report goes through a stream that wraps each line as it completes,
 * so a million connections' lines are never held at once (they were, in
 * one memory buffer: 100 MB of text at the end of a million-SYN run). */
struct wrap_stream {
	FILE *out;
	char *line; /* the line being written, up to its newline */
	size_t len, cap;
};

static ssize_t wrap_write(void *cookie, const char *buf, size_t n)
{
	struct wrap_stream *w = cookie;

	for (size_t done = 0; done < n;) {
		const char *nl = memchr(buf + done, '\n', n - done);
		size_t take = nl ? (size_t)(nl - (buf + done)) + 1 : n - done;
		if (w->len + take > w->cap) {
			size_t cap = w->cap ? w->cap : 256;
			while (cap < w->len + take)
				cap *= 2;
			char *p = realloc(w->line, cap);
			if (!p) { /* no memory to wrap: unwrapped is still right */
				fwrite(w->line, 1, w->len, w->out);
				fwrite(buf + done, 1, take, w->out);
				w->len = 0;
				done += take;
				continue;
			}
			w->line = p;
			w->cap = cap;
		}
		memcpy(w->line + w->len, buf + done, take);
		w->len += take;
		done += take;
		if (nl) {
			write_wrapped(w->out, w->line, w->len);
			w->len = 0;
		}
	}
	return (ssize_t)n;
}

static int wrap_close(void *cookie)
{
	struct wrap_stream *w = cookie;

	if (w->len)
		write_wrapped(w->out, w->line, w->len);
	free(w->line);
	return 0;
}

/* A part of the report: out wraps its lines, raw is the stream under it
 * (for the table's rows, which must not wrap). */
typedef void text_part_fn(FILE *out, FILE *raw, const struct rep_data *d,
			  const struct rep_run *run);

/* Write a part of the report through the wrapping stream. */
static int write_part(FILE *out, text_part_fn *part, const struct rep_data *d,
		      const struct rep_run *run)
{
	struct wrap_stream w = {.out = out};
	FILE *wrap =
	    fopencookie(&w, "w", (cookie_io_functions_t){.write = wrap_write, .close = wrap_close});
	/* No memory to wrap: unwrapped is still right. */
	FILE *f = wrap ? wrap : out;

	part(f, out, d, run);
	if (wrap)
		fclose(wrap);
	return werr(out);
}

int rep_write_text(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	return write_part(out, write_report, d, run);
}

int rep_write_text_findings(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	return write_part(out, write_findings_part, d, run);
}

/* Evictions and allocation failures: lines only when there were some. */
static void write_evictions(FILE *out, const struct rep_run *run)
{
	const struct flow_counters *f = &run->flows;
	const struct eng_counters *e = &run->eng;

	if (f->ended[FLOW_END_EVICTED])
		fprintf(out,
			"  %" PRIu64
			" connection%s evicted by --max-flows or --max-memory (%" PRIu64
			" by --max-memory), %" PRIu64 " resumed\n",
			f->ended[FLOW_END_EVICTED], rep_plural(f->ended[FLOW_END_EVICTED]),
			e->mem_evictions, f->resumed);
	if (f->evicted_packets)
		fprintf(out,
			"  %" PRIu64 " packet%s of evicted connections dropped: no idle connection "
			"to make room\n",
			f->evicted_packets, rep_plural(f->evicted_packets));
	if (f->forgotten || f->remember_failed)
		fprintf(out,
			"  %" PRIu64 " evicted connection%s forgotten (%" PRIu64
			" not remembered): back, they would be new ones\n",
			f->forgotten + f->remember_failed,
			rep_plural(f->forgotten + f->remember_failed), f->remember_failed);
	if (e->no_memory || e->nomem_detectors || e->nomem_rtt_rings || e->nomem_tables)
		fprintf(out,
			"  out of memory: %" PRIu64 " packets without a connection, %" PRIu64
			" detector states, %" PRIu64 " RTT rings, %" PRIu64 " TCP tables\n",
			e->no_memory, e->nomem_detectors, e->nomem_rtt_rings, e->nomem_tables);
}

/* The whole text: head and findings, the table, the long form. */
static void write_report(FILE *out, FILE *raw, const struct rep_data *d, const struct rep_run *run)
{
	write_head(out, d, run);
	write_table(out, raw, d, run);
	txt_write_long(out, d, run);
}

static void write_findings_part(FILE *out, FILE *raw, const struct rep_data *d,
				const struct rep_run *run)
{
	(void)raw;
	write_head(out, d, run);
}

/* The run's lines and the findings: all but the connection table. */
static void write_head(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	const struct eng_counters *e = &run->eng;

	fprintf(out,
		"tcpsift %s: %u input%s, %" PRIu64 " packet%s (%" PRIu64 " TCP, %" PRIu64
		" malformed), %" PRIu64 " connection%s\n",
		run->version, run->ninputs, rep_plural(run->ninputs), e->packets,
		rep_plural(e->packets), e->status[DEC_TCP], e->malformed_total, run->flows.created,
		rep_plural(run->flows.created));
	write_inputs(out, run);
	write_errors(out, run);
	if (run->shard_n > 1)
		fprintf(out,
			"  shard %u of %u: %" PRIu64
			" packet%s left to the other shards (--shard)\n",
			run->shard_k, run->shard_n, e->other_shards, rep_plural(e->other_shards));
	if (run->filter)
		fprintf(out, "  filter: %s (%" PRIu64 " packet%s filtered out)\n", run->filter,
			run->filtered_out, rep_plural(run->filtered_out));
	if (e->malformed_total) {
		fputs("  malformed:", out);
		for (int k = 1; k < DEC_ERR_COUNT; k++)
			if (e->malformed[k])
				fprintf(out, " %s %" PRIu64, dec_status_name(-k), e->malformed[k]);
		fputc('\n', out);
	}
	if (e->status[DEC_FRAGMENT])
		fprintf(out, "  %" PRIu64 " IP fragment%s not reassembled\n",
			e->status[DEC_FRAGMENT], rep_plural(e->status[DEC_FRAGMENT]));
	if (e->snaplen_cut)
		fprintf(out, "  %" PRIu64 " TCP segment%s cut by the snaplen (headers intact)\n",
			e->snaplen_cut, rep_plural(e->snaplen_cut));
	write_evictions(out, run);
	if (d->events_dropped)
		fprintf(out, "  %" PRIu64 " event%s not kept (--max-events)\n", d->events_dropped,
			rep_plural(d->events_dropped));
	if (run->nvantages > 1) {
		fputs("  vantage points (one connection per place it was seen):", out);
		for (unsigned v = 0; v < run->nvantages; v++)
			fprintf(out, " @%u=%s", v, run->vantage_names[v]);
		fputc('\n', out);
	}
	write_findings(out, d, run);
}
