/* diffout.c - tcpsift diff's writers: an aligned table of what changed (text) and one JSON
 * document. */
#include "analyze/diff/diffout.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"

/* "12.3 Mb/s", "1.95 MiB", "40.1 ms", "17": a value in its unit (the
 * magnitude of v; the caller puts the sign). */
static void fmt_abs(char *buf, size_t len, enum diff_unit u, double v)
{
	static const char *const bps[] = {"b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s"};
	static const char *const bytes[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	unsigned k = 0;

	v = fabs(v);
	switch (u) {
	case DIFF_UNIT_SECONDS:
		if (v == 0)
			snprintf(buf, len, "0");
		else if (v < 1e-6)
			snprintf(buf, len, "%.0f ns", v * 1e9);
		else
			rep_fmt_dur(buf, len, (int64_t)llround(v * 1e9));
		return;
	case DIFF_UNIT_BPS:
		for (; v >= 1000 && k + 1 < sizeof(bps) / sizeof(bps[0]); k++)
			v /= 1000;
		snprintf(buf, len, k ? "%.3g %s" : "%.0f %s", v, bps[k]);
		return;
	case DIFF_UNIT_RATIO: /* percent; a change: percentage points */
		snprintf(buf, len, "%.2f %%", v * 100);
		return;
	case DIFF_UNIT_BYTES:
		for (; v >= 1024 && k + 1 < sizeof(bytes) / sizeof(bytes[0]); k++)
			v /= 1024;
		snprintf(buf, len, k ? "%.3g %s" : "%.0f %s", v, bytes[k]);
		return;
	default:
		snprintf(buf, len, v == floor(v) && v < 1e15 ? "%.0f" : "%.4g", v);
		return;
	}
}

/* v in its unit, "-" when unknown; plus: a change, its sign always shown. */
static void fmt_value(char *buf, size_t len, enum diff_unit u, double v, bool plus)
{
	char a[32];

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	fmt_abs(a, sizeof(a), u, v);
	snprintf(buf, len, "%s%s", v < 0 ? "-" : v > 0 && plus ? "+" : "", a);
}

/* A share below what "%.2f %%" shows: a relative change from it is noise
 * ("+689627.7%" from 0.0002 % to 1.46 %). */
#define RATIO_SHOWN 0.00005

static void fmt_pct(char *buf, size_t len, enum diff_unit u, double a, double b)
{
	double p = diff_pct(a, b);

	if (u == DIFF_UNIT_RATIO && !isnan(a) && !isnan(b) && fabs(a) < RATIO_SHOWN) {
		snprintf(buf, len, fabs(b) < RATIO_SHOWN ? "-" : "new");
		return;
	}
	if (!isnan(a) && !isnan(b) && a == 0 && b != 0)
		snprintf(buf, len, "new");
	else if (isnan(p))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", p);
}

#define NAME_W	28
#define VALUE_W 14
#define PCT_W	10

static void text_head(FILE *out, const char *title)
{
	fprintf(out, "%-*s %*s %*s %*s %*s\n", NAME_W + 2, title, VALUE_W, "A", VALUE_W, "B",
		VALUE_W, "delta", PCT_W, "change");
}

static void text_row(FILE *out, const struct diff_metric *m, double a, double b)
{
	char va[40], vb[40], vd[40], vp[16];

	fmt_value(va, sizeof(va), m->unit, a, false);
	fmt_value(vb, sizeof(vb), m->unit, b, false);
	fmt_value(vd, sizeof(vd), m->unit, diff_delta(a, b), true);
	fmt_pct(vp, sizeof(vp), m->unit, a, b);
	fprintf(out, "  %-*s %*s %*s %*s %*s\n", NAME_W, m->name, VALUE_W, va, VALUE_W, vb, VALUE_W,
		vd, PCT_W, vp);
}

static void endpoints(const struct diff_conn *c, char *buf, size_t len)
{
	char cl[64], sv[64];

	rep_format_endpoint(&c->client, c->client_port, cl, sizeof(cl));
	rep_format_endpoint(&c->server, c->server_port, sv, sizeof(sv));
	snprintf(buf, len, "%s > %s", cl, sv);
}

/* The rows and the directions' labels of a pair that changed. */
static unsigned conn_changes(const struct diff *d, const struct diff_pair *p)
{
	unsigned n = 0;

	for (unsigned m = 0; m < diff_nmetrics(d); m++)
		n += !diff_metric(d, m)->run_only && diff_changed(p->a->v[m], p->b->v[m]);
	for (unsigned l = 0; l < diff_nlabels(d); l++)
		for (unsigned dir = 0; dir < SUM_DIR_COUNT; dir++)
			n += diff_label_changed(diff_conn_label(d, p->a, l, dir),
						diff_conn_label(d, p->b, l, dir));
	return n;
}

/* When nothing paired: what (*why) and the --match that would pair them
 * (*how, or NULL); false when something paired. */
static bool no_pair(const struct diff *d, const char **why, const char **how)
{
	*how = NULL;
	if (diff_npairs(d))
		return false;
	if (!diff_nconns(d, 0) || !diff_nconns(d, 1)) {
		*why = !diff_nconns(d, 0) ? "nothing to pair: A has no connections"
					  : "nothing to pair: B has no connections";
		return true;
	}
	switch (diff_match_kind(d)) {
	case DIFF_MATCH_TUPLE:
		*why = "nothing paired: no 4-tuple is in both runs";
		*how = "--match auto (the default) pairs a rerun by server endpoint, --match order "
		       "by first packet";
		break;
	case DIFF_MATCH_ORDER: /* not reached: order pairs whatever both have */
		*why = "nothing paired";
		break;
	default:
		*why = "nothing paired: no server address and port is in both runs";
		*how = "--match order pairs connections by first packet alone";
		break;
	}
	return true;
}

/* "paired 12 by 4-tuple, 3 by server endpoint and order; 1 only in A, 0
 * only in B" */
static void text_matched(FILE *out, const struct diff *d)
{
	enum diff_match mode = diff_match_kind(d);

	fputs("paired ", out);
	if (mode == DIFF_MATCH_AUTO)
		fprintf(out, "%zu by %s, %zu by %s", diff_npairs_by(d, DIFF_MATCH_TUPLE),
			diff_match_words(DIFF_MATCH_TUPLE), diff_npairs_by(d, DIFF_MATCH_ENDPOINT),
			diff_match_words(DIFF_MATCH_ENDPOINT));
	else
		fprintf(out, "%zu by %s", diff_npairs_by(d, mode), diff_match_words(mode));
	fprintf(out, "; %zu only in A, %zu only in B\n", diff_nonly(d, 0), diff_nonly(d, 1));
	const char *why, *how;
	if (no_pair(d, &why, &how))
		fprintf(out, "%s%s%s\n", why, how ? ";\n  " : "", how ? how : "");
}

/* "  limited_by c>s: stall 100.0 % -> sender_app 84.2 % (the dominant
 * limit changed)"; who: "c>s", "s>c" or "(run)". */
static void text_label(FILE *out, const struct diff *d, unsigned l, const char *who,
		       const struct diff_label *a, const struct diff_label *b)
{
	char va[64] = "none", vb[64] = "none";

	if (a->cls >= 0)
		snprintf(va, sizeof(va), "%s %.1f %%", diff_label_class(d, l, a->cls),
			 a->share * 100);
	if (b->cls >= 0 && b->cls == a->cls)
		snprintf(vb, sizeof(vb), "%.1f %% (%+.1f points)", b->share * 100,
			 (b->share - a->share) * 100);
	else if (b->cls >= 0)
		snprintf(vb, sizeof(vb), "%s %.1f %%", diff_label_class(d, l, b->cls),
			 b->share * 100);
	fprintf(out, "  %s %s: %s -> %s%s\n", diff_label_key(d, l), who, va, vb,
		a->cls != b->cls ? " (the dominant limit changed)" : "");
}

/* The pair's title: ids, A's endpoints, how it was matched and what B's
 * endpoints were when they differ. */
static void text_pair_title(FILE *out, const struct diff_pair *p)
{
	char ep[160], bc[64], bep[160];

	endpoints(p->a, ep, sizeof(ep));
	fprintf(out, "\nA#%" PRIu64 " = B#%" PRIu64 "  %s  by %s", p->a->id, p->b->id, ep,
		p->how == DIFF_MATCH_TUPLE ? "4-tuple" : diff_match_name(p->how));
	endpoints(p->b, bep, sizeof(bep));
	rep_format_endpoint(&p->b->client, p->b->client_port, bc, sizeof(bc));
	if (!strcmp(ep, bep))
		fputc('\n', out);
	else if (p->how == DIFF_MATCH_ENDPOINT)
		fprintf(out, ", B from %s\n", bc);
	else
		fprintf(out, ", B %s\n", bep);
}

static void text_pair(FILE *out, const struct diff *d, const struct diff_pair *p, bool all)
{
	text_pair_title(out, p);
	for (unsigned l = 0; l < diff_nlabels(d); l++)
		for (unsigned dir = 0; dir < SUM_DIR_COUNT; dir++) {
			const struct diff_label *a = diff_conn_label(d, p->a, l, dir),
						*b = diff_conn_label(d, p->b, l, dir);
			if (diff_label_changed(a, b) || (all && (a->cls >= 0 || b->cls >= 0)))
				text_label(out, d, l, dir == SUM_C2S ? "c>s" : "s>c", a, b);
		}
	for (unsigned m = 0; m < diff_nmetrics(d); m++) {
		const struct diff_metric *x = diff_metric(d, m);
		if (!x->run_only && (all || diff_changed(p->a->v[m], p->b->v[m])))
			text_row(out, x, p->a->v[m], p->b->v[m]);
	}
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void text_only(FILE *out, const struct diff *d, int side)
{
	size_t n = diff_nonly(d, side);
	int bytes = diff_metric_find(d, "bytes", 5), dur = diff_metric_find(d, "duration", 8);

	if (!n)
		return;
	fprintf(out, "\nOnly in %c (%zu %s):\n", side ? 'B' : 'A', n,
		plural(n, "connection", "connections"));
	for (size_t k = 0; k < n; k++) {
		const struct diff_conn *c = diff_only_at(d, side, k);
		char ep[160], b[40] = "-", t[40] = "-";
		endpoints(c, ep, sizeof(ep));
		if (bytes >= 0)
			fmt_value(b, sizeof(b), DIFF_UNIT_BYTES, c->v[bytes], false);
		if (dur >= 0)
			fmt_value(t, sizeof(t), DIFF_UNIT_SECONDS, c->v[dur], false);
		fprintf(out, "  %c#%-6" PRIu64 " %-48s %10s %10s\n", side ? 'B' : 'A', c->id, ep, b,
			t);
	}
}

static int finish_out(FILE *out, char *errbuf, size_t errlen)
{
	if (fflush(out) != 0 || ferror(out)) {
		snprintf(errbuf, errlen, "cannot write the comparison: %s",
			 strerror(errno ? errno : EIO));
		return ERR_SYSTEM;
	}
	return 0;
}

int diffout_text(FILE *out, const struct diff *d, const struct diffout_info *in, char *errbuf,
		 size_t errlen)
{
	const double *ta = diff_totals(d, 0), *tb = diff_totals(d, 1);
	unsigned nm = diff_nmetrics(d), same = 0;
	size_t np = diff_npairs(d), pairs_same = 0;

	for (int s = 0; s < 2; s++) {
		size_t n = diff_nconns(d, s);
		fprintf(out, "%c: %s (%s, %zu %s)\n", s ? 'B' : 'A', in->path[s], in->kind[s], n,
			plural(n, "connection", "connections"));
	}
	text_matched(out, d);

	fputc('\n', out);
	text_head(out, "Run totals");
	for (unsigned l = 0; l < diff_nlabels(d); l++) {
		const struct diff_label *a = diff_run_label(d, 0, l), *b = diff_run_label(d, 1, l);
		if (diff_label_changed(a, b) || (in->all && (a->cls >= 0 || b->cls >= 0)))
			text_label(out, d, l, "(run)", a, b);
	}
	for (unsigned m = 0; m < nm; m++) {
		if (diff_changed(ta[m], tb[m]) || in->all)
			text_row(out, diff_metric(d, m), ta[m], tb[m]);
		else
			same++;
	}
	if (same == nm)
		fprintf(out, "  no change in the %u metrics\n", nm);
	else if (same)
		fprintf(out, "  (%u other %s unchanged)\n", same,
			plural(same, "metric", "metrics"));

	for (size_t k = 0; k < np; k++) {
		const struct diff_pair *p = diff_pair_at(d, k);
		if (!conn_changes(d, p) && !in->all)
			pairs_same++;
		else
			text_pair(out, d, p, in->all);
	}
	if (pairs_same)
		fprintf(out, "\n%zu matched %s without a change\n", pairs_same,
			plural(pairs_same, "connection", "connections"));
	text_only(out, d, 0);
	text_only(out, d, 1);
	if (in->fail_on)
		fprintf(out, "\n--fail-on %s: %s%s\n", in->fail_on,
			in->matched ? "matched " : "no match", in->matched ? in->matched : "");
	return finish_out(out, errbuf, errlen);
}

/* A value: an integer when it is one (counts, bytes), null when unknown. */
static void w_num(struct jo_writer *w, double v)
{
	if (isnan(v) || isinf(v))
		jo_w_null(w);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		jo_w_int(w, (int64_t)v);
	else
		jo_w_real(w, v);
}

static const char *const unit_json[DIFF_UNIT_KINDS] = {"count", "s", "bit/s", "bytes", "fraction"};

static void w_row(struct jo_writer *w, const struct diff_metric *m, double a, double b)
{
	jo_w_obj(w);
	jo_w_key(w, "a");
	w_num(w, a);
	jo_w_key(w, "b");
	w_num(w, b);
	jo_w_key(w, "change_pct");
	w_num(w, diff_pct(a, b));
	jo_kbool(w, "changed", diff_changed(a, b));
	jo_w_key(w, "delta");
	w_num(w, diff_delta(a, b));
	jo_kstr(w, "metric", m->name);
	jo_kstr(w, "unit", unit_json[m->unit]);
	jo_w_obj_end(w);
}

static void w_endpoint(struct jo_writer *w, const char *key, const struct dec_addr *a,
		       uint16_t port)
{
	char buf[64];

	rep_format_endpoint(a, port, buf, sizeof(buf));
	jo_kstr(w, key, buf);
}

static void w_side(struct jo_writer *w, const char *key, const struct diff *d, int s,
		   const struct diffout_info *in)
{
	jo_w_key(w, key);
	jo_w_obj(w);
	jo_kint(w, "connections", (int64_t)diff_nconns(d, s));
	jo_kstr(w, "kind", in->kind[s]);
	jo_kstr(w, "path", in->path[s]);
	jo_w_obj_end(w);
}

static void w_only(struct jo_writer *w, const char *key, const struct diff *d, int s)
{
	jo_w_key(w, key);
	jo_w_arr(w);
	for (size_t k = 0; k < diff_nonly(d, s); k++) {
		const struct diff_conn *c = diff_only_at(d, s, k);
		jo_w_obj(w);
		w_endpoint(w, "client", &c->client, c->client_port);
		jo_ksec(w, "first_ts", c->first_ts);
		jo_kint(w, "id", (int64_t)c->id);
		w_endpoint(w, "server", &c->server, c->server_port);
		jo_w_obj_end(w);
	}
	jo_w_arr_end(w);
}

/* {"dominant", "share"}, or null without time. */
static void w_label_side(struct jo_writer *w, const char *key, const struct diff *d, unsigned l,
			 const struct diff_label *x)
{
	jo_w_key(w, key);
	if (x->cls < 0) {
		jo_w_null(w);
		return;
	}
	jo_w_obj(w);
	jo_kstr(w, "dominant", diff_label_class(d, l, x->cls));
	jo_kreal(w, "share", x->share);
	jo_w_obj_end(w);
}

static void w_label(struct jo_writer *w, const char *key, const struct diff *d, unsigned l,
		    const struct diff_label *a, const struct diff_label *b)
{
	jo_w_key(w, key);
	jo_w_obj(w);
	w_label_side(w, "a", d, l, a);
	w_label_side(w, "b", d, l, b);
	jo_kbool(w, "changed", diff_label_changed(a, b));
	jo_kbool(w, "dominant_changed", a->cls != b->cls);
	jo_w_obj_end(w);
}

/*
 * The labels go under their keys among an object's own, which are
 * written sorted: before each key of its own, an object writes the labels
 * whose keys sort before it (labels_upto()), and the rest at its end.
 * p: a pair's labels (one per direction), NULL: the run's.
 */
struct label_cursor {
	struct jo_writer *w;
	const struct diff *d;
	const struct diff_pair *p;
	unsigned next;
};

static void labels_upto(struct label_cursor *c, const char *key)
{
	const struct diff *d = c->d;

	for (; c->next < diff_nlabels(d) && (!key || strcmp(diff_label_key(d, c->next), key) < 0);
	     c->next++) {
		unsigned l = c->next;
		if (!c->p) {
			w_label(c->w, diff_label_key(d, l), d, l, diff_run_label(d, 0, l),
				diff_run_label(d, 1, l));
			continue;
		}
		jo_w_key(c->w, diff_label_key(d, l));
		jo_w_obj(c->w);
		for (unsigned dir = 0; dir < SUM_DIR_COUNT; dir++)
			w_label(c->w, dir == SUM_C2S ? "c2s" : "s2c", d, l,
				diff_conn_label(d, c->p->a, l, dir),
				diff_conn_label(d, c->p->b, l, dir));
		jo_w_obj_end(c->w);
	}
}

/* A pair that changed: its ids, both sides' endpoints, how it was
 * matched, its labels and the rows that changed. */
static void w_pair(struct jo_writer *w, const struct diff *d, const struct diff_pair *p)
{
	struct label_cursor lc = {w, d, p, 0};

	jo_w_obj(w);
	labels_upto(&lc, "a");
	jo_kint(w, "a", (int64_t)p->a->id);
	labels_upto(&lc, "b");
	jo_kint(w, "b", (int64_t)p->b->id);
	labels_upto(&lc, "b_client");
	w_endpoint(w, "b_client", &p->b->client, p->b->client_port);
	labels_upto(&lc, "b_server");
	w_endpoint(w, "b_server", &p->b->server, p->b->server_port);
	labels_upto(&lc, "changes");
	jo_w_key(w, "changes");
	jo_w_arr(w);
	for (unsigned m = 0; m < diff_nmetrics(d); m++) {
		const struct diff_metric *x = diff_metric(d, m);
		if (!x->run_only && diff_changed(p->a->v[m], p->b->v[m]))
			w_row(w, x, p->a->v[m], p->b->v[m]);
	}
	jo_w_arr_end(w);
	labels_upto(&lc, "client");
	w_endpoint(w, "client", &p->a->client, p->a->client_port);
	labels_upto(&lc, "match");
	jo_kstr(w, "match", diff_match_name(p->how));
	labels_upto(&lc, "server");
	w_endpoint(w, "server", &p->a->server, p->a->server_port);
	labels_upto(&lc, NULL);
	jo_w_obj_end(w);
}

static void w_fail_on(struct jo_writer *w, const struct diffout_info *in)
{
	jo_w_key(w, "fail_on");
	if (!in->fail_on) {
		jo_w_null(w);
		return;
	}
	jo_w_obj(w);
	jo_kstr(w, "expr", in->fail_on);
	if (in->matched)
		jo_kstr(w, "matched", in->matched);
	else
		jo_knull(w, "matched");
	jo_w_obj_end(w);
}

/* Every pair: ids and how it was matched ("connections" has those that
 * changed). */
static void w_paired(struct jo_writer *w, const struct diff *d)
{
	jo_w_key(w, "paired");
	jo_w_arr(w);
	for (size_t k = 0; k < diff_npairs(d); k++) {
		const struct diff_pair *p = diff_pair_at(d, k);
		jo_w_obj(w);
		jo_kint(w, "a", (int64_t)p->a->id);
		jo_kint(w, "b", (int64_t)p->b->id);
		jo_kstr(w, "match", diff_match_name(p->how));
		jo_w_obj_end(w);
		if (k % 256 == 255 && jo_w_commit(w) < 0)
			break;
	}
	jo_w_arr_end(w);
}

static void w_matched(struct jo_writer *w, const struct diff *d)
{
	static const enum diff_match by_name[] = {DIFF_MATCH_ENDPOINT, DIFF_MATCH_ORDER,
						  DIFF_MATCH_TUPLE};

	jo_w_key(w, "matched");
	jo_w_obj(w);
	for (size_t k = 0; k < sizeof(by_name) / sizeof(by_name[0]); k++)
		jo_kint(w, diff_match_name(by_name[k]), (int64_t)diff_npairs_by(d, by_name[k]));
	jo_w_obj_end(w);
}

static bool anything_changed(const struct diff *d, size_t changed_pairs)
{
	const double *ta = diff_totals(d, 0), *tb = diff_totals(d, 1);
	bool changed = diff_nonly(d, 0) || diff_nonly(d, 1) || changed_pairs;

	for (unsigned m = 0; m < diff_nmetrics(d); m++)
		changed |= diff_changed(ta[m], tb[m]);
	for (unsigned l = 0; l < diff_nlabels(d); l++)
		changed |= diff_label_changed(diff_run_label(d, 0, l), diff_run_label(d, 1, l));
	return changed;
}

int diffout_json(FILE *out, const struct diff *d, const struct diffout_info *in, char *errbuf,
		 size_t errlen)
{
	struct jo_writer w;
	const double *ta = diff_totals(d, 0), *tb = diff_totals(d, 1);
	size_t changed_pairs = 0;
	struct label_cursor lc = {&w, d, NULL, 0};
	const char *why, *how;
	bool none = no_pair(d, &why, &how);
	char hint[256];

	for (size_t k = 0; k < diff_npairs(d); k++)
		changed_pairs += conn_changes(d, diff_pair_at(d, k)) != 0;

	jo_w_init(&w, out, 1u << 16, 2);
	jo_w_obj(&w);
	labels_upto(&lc, "a");
	w_side(&w, "a", d, 0, in);
	labels_upto(&lc, "b");
	w_side(&w, "b", d, 1, in);
	labels_upto(&lc, "changed");
	jo_kbool(&w, "changed", anything_changed(d, changed_pairs));
	labels_upto(&lc, "connections");
	jo_w_key(&w, "connections");
	jo_w_arr(&w);
	for (size_t k = 0; k < diff_npairs(d); k++) {
		const struct diff_pair *p = diff_pair_at(d, k);
		if (!conn_changes(d, p))
			continue;
		w_pair(&w, d, p);
		if (jo_w_commit(&w) < 0)
			break;
	}
	jo_w_arr_end(&w);
	labels_upto(&lc, "fail_on");
	w_fail_on(&w, in);
	labels_upto(&lc, "hint");
	if (none) {
		snprintf(hint, sizeof(hint), "%s%s%s", why, how ? "; " : "", how ? how : "");
		jo_kstr(&w, "hint", hint);
	} else {
		jo_knull(&w, "hint");
	}
	labels_upto(&lc, "match");
	jo_kstr(&w, "match", diff_match_name(diff_match_kind(d)));
	labels_upto(&lc, "matched");
	w_matched(&w, d);
	labels_upto(&lc, "only_in_a");
	w_only(&w, "only_in_a", d, 0);
	labels_upto(&lc, "only_in_b");
	w_only(&w, "only_in_b", d, 1);
	labels_upto(&lc, "paired");
	w_paired(&w, d);
	labels_upto(&lc, "pairs");
	jo_kint(&w, "pairs", (int64_t)diff_npairs(d));
	labels_upto(&lc, "pairs_changed");
	jo_kint(&w, "pairs_changed", (int64_t)changed_pairs);
	labels_upto(&lc, "tcpsift");
	jo_w_key(&w, "tcpsift");
	jo_w_obj(&w);
	jo_kint(&w, "diff_schema", 1);
	jo_kstr(&w, "version", in->version);
	jo_w_obj_end(&w);
	labels_upto(&lc, "totals");
	jo_w_key(&w, "totals");
	jo_w_arr(&w);
	for (unsigned m = 0; m < diff_nmetrics(d); m++)
		w_row(&w, diff_metric(d, m), ta[m], tb[m]);
	jo_w_arr_end(&w);
	labels_upto(&lc, NULL);
	jo_w_obj_end(&w);
	jo_w_raw(&w, "\n");
	int rc = jo_w_flush(&w);
	if (rc < 0)
		rep_write_error(rc, w.sys_errno, errbuf, errlen);
	jo_w_free(&w);
	return rc < 0 ? rc : finish_out(out, errbuf, errlen);
}
