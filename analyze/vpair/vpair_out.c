/* vpair_out.c - the two-point joiner's writers: JSON, NDJSON and the text section. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/report/jsonout.h"
#include "analyze/vpair/vpair_int.h"
#include "common/err.h"

/* ---- writers ---- */

static const char *const change_names[VP_CH_COUNT] = {"ttl", "dscp", "mss", "split", "merged"};

static const char *point_name(const struct vpair *v, unsigned p)
{
	return v->cfg.names[p] ? v->cfg.names[p] : p ? "B" : "A";
}

static void jw_examples(struct jo_writer *w, const struct vp_dir_result *o, enum vp_ex_kind kind)
{
	jo_w_arr(w);
	for (uint32_t k = 0; k < o->nex[kind]; k++) {
		const struct vp_example *e = &o->ex[kind][k];
		jo_w_obj(w);
		if (kind == VP_EX_CHANGED) {
			jo_kint(w, "downstream_frame", e->len);
			jo_kint(w, "frame", (int64_t)e->frame);
			jo_kint(w, "from", e->a);
			jo_kint(w, "to", e->b);
			jo_ksec(w, "ts", e->ts);
			jo_kstr(w, "what", change_names[e->change % VP_CH_COUNT]);
			jo_w_obj_end(w);
			continue;
		}
		if (kind == VP_EX_REORDERED)
			jo_kint(w, "extent", e->a);
		jo_kint(w, "frame", (int64_t)e->frame);
		jo_kint(w, "input", e->point);
		if (e->flags & VP_EXF_IPID)
			jo_kint(w, "ip_id", e->ip_id);
		else
			jo_knull(w, "ip_id");
		jo_kint(w, "len", e->len);
		jo_kbool(w, "pure_ack", (e->flags & VP_EXF_PURE_ACK) != 0);
		if (kind == VP_EX_REORDERED) {
			if (e->b == 2)
				jo_knull(w, "queue_switch");
			else
				jo_kbool(w, "queue_switch", e->b == 1);
		}
		jo_kint(w, "seq", e->seq);
		jo_ksec(w, "ts", e->ts);
		jo_w_obj_end(w);
	}
	jo_w_arr_end(w);
}

static void jw_dir(const struct vpair *v, struct jo_writer *w, const struct vp_dir_result *o)
{
	unsigned up = o->upstream;
	jo_w_obj(w);
	jo_w_key(w, "capture_loss_at");
	jo_w_obj(w);
	jo_kint(w, "downstream", (int64_t)o->capture_loss_down);
	jo_kint(w, "upstream", (int64_t)o->capture_loss_up);
	jo_w_obj_end(w);
	jo_w_key(w, "changed");
	jo_w_obj(w);
	jo_kint(w, "dscp", (int64_t)o->changed[VP_CH_DSCP]);
	jo_kint(w, "merged", (int64_t)o->changed[VP_CH_MERGED]);
	jo_kint(w, "mss", (int64_t)o->changed[VP_CH_MSS]);
	jo_kint(w, "split", (int64_t)o->changed[VP_CH_SPLIT]);
	jo_kint(w, "ttl", (int64_t)o->changed[VP_CH_TTL]);
	jo_w_obj_end(w);
	jo_kstr(w, "downstream", point_name(v, !up));
	jo_kint(w, "duplicated", (int64_t)o->duplicated);
	jo_w_key(w, "examples");
	jo_w_obj(w);
	static const char *const ex_keys[VP_EX_KIND_COUNT] = {[VP_EX_LOST] = "lost",
							      [VP_EX_CAPTURE_LOSS] = "capture_loss",
							      [VP_EX_REORDERED] = "reordered",
							      [VP_EX_DUPLICATED] = "duplicated",
							      [VP_EX_CHANGED] = "changed"};
	static const enum vp_ex_kind order[VP_EX_KIND_COUNT] = {
	    VP_EX_CAPTURE_LOSS, VP_EX_CHANGED, VP_EX_DUPLICATED, VP_EX_LOST, VP_EX_REORDERED};
	for (unsigned k = 0; k < VP_EX_KIND_COUNT; k++) {
		jo_w_key(w, ex_keys[order[k]]);
		jw_examples(w, o, order[k]);
		if (order[k] == VP_EX_LOST) /* "lost" < "lost_left_out" < "reordered" */
			jo_kint(w, "lost_left_out", (int64_t)o->ex_left_out[VP_EX_LOST]);
	}
	jo_w_obj_end(w);
	jo_kint(w, "lost", (int64_t)o->lost);
	jo_kint(w, "lost_pure_acks", (int64_t)o->lost_pure_acks);
	jo_kint(w, "matched", (int64_t)o->matched);
	jo_kint(w, "max_extent", o->max_extent);
	jo_w_key(w, "one_way_delay_s");
	if (o->have_owd) {
		jo_w_obj(w);
		jo_ksec(w, "growth", o->owd_growth_ns);
		jo_ksec(w, "median", o->owd_median_ns);
		jo_ksec(w, "min", o->owd_min_ns);
		jo_ksec(w, "p99", o->owd_p99_ns);
		jo_w_obj_end(w);
	} else {
		jo_w_null(w);
	}
	jo_kint(w, "outside", (int64_t)o->outside);
	jo_kint(w, "reordered", (int64_t)o->reordered);
	jo_kint(w, "reordered_queue_switch", (int64_t)o->queue_switch_reorders);
	jo_w_key(w, "segments");
	jo_w_obj(w);
	jo_kint(w, "downstream", (int64_t)o->segments[!up]);
	jo_kint(w, "upstream", (int64_t)o->segments[up]);
	jo_w_obj_end(w);
	jo_kstr(w, "upstream", point_name(v, up));
	jo_kbool(w, "upstream_known", o->upstream_known);
	jo_kint(w, "waited_out", (int64_t)o->waited_out);
	jo_kint(w, "window_overflow", (int64_t)o->window_overflow);
	jo_w_obj_end(w);
}

/* between_points of a result, oriented so that c2s is input 0's direction c2s_dir. */
static void jw_between(const struct vpair *v, struct jo_writer *w, const struct vp_result *R,
		       unsigned c2s_dir, uint64_t peer)
{
	const struct vp_dir_result *c2s = &R->dir[c2s_dir], *s2c = &R->dir[!c2s_dir];
	jo_w_obj(w);
	jo_w_key(w, "c2s");
	jw_dir(v, w, c2s);
	jo_kstr(w, "delays", v->tot.offset_known ? "absolute" : "relative");
	jo_kstr(w, "downstream", point_name(v, !c2s->upstream));
	if (v->tot.offset_known)
		jo_ksec(w, "offset_s", v->tot.offset_ns);
	else
		jo_knull(w, "offset_s");
	jo_kint(w, "peer", (int64_t)peer);
	jo_w_key(w, "s2c");
	jw_dir(v, w, s2c);
	jo_kstr(w, "upstream", point_name(v, c2s->upstream));
	jo_w_obj_end(w);
}

static void x_conn_json(void *ctx, struct jo_writer *w, const struct sum_conn *c)
{
	const struct vpair *v = ctx;
	unsigned c2s_dir;
	const struct vp_result *R = vp_result_of(v, c->id, &c2s_dir);
	if (!R)
		return;
	jo_w_key(w, "between_points");
	jw_between(v, w, R, c2s_dir, R->conn[0] == c->id ? R->conn[1] : R->conn[0]);
}

#define VP_ASSUMPTION                                                                              \
	"the shortest one-way delay between the points is the same both ways: offset = (min D(c) " \
	"+ max D(s)) / 2, D the timestamp at the second input minus the first, c the directions "  \
	"passing the first input first"

static void jw_doc(const struct vpair *v, struct jo_writer *w)
{
	const struct vp_totals *t = &v->tot;
	jo_w_obj(w);
	jo_kstr(w, "delays", t->offset_known ? "absolute" : "relative");
	jo_w_key(w, "inputs");
	jo_w_arr(w);
	jo_w_str(w, point_name(v, 0));
	jo_w_str(w, point_name(v, 1));
	jo_w_arr_end(w);
	jo_kint(w, "joined", (int64_t)t->joined);
	jo_kbool(w, "max_offset_exceeded", t->max_offset_exceeded);
	jo_ksec(w, "max_offset_s", v->cfg.max_offset_ns);
	jo_w_key(w, "not_joined");
	jo_w_arr(w);
	jo_w_int(w, (int64_t)t->not_joined[0]);
	jo_w_int(w, (int64_t)t->not_joined[1]);
	jo_w_arr_end(w);
	jo_kstr(w, "offset_assumption", VP_ASSUMPTION);
	if (t->offset_known)
		jo_ksec(w, "offset_s", t->offset_ns);
	else
		jo_knull(w, "offset_s");
	jo_kint(w, "window", v->cfg.window);
	jo_w_obj_end(w);
}

static void x_doc_json(void *ctx, struct jo_writer *w)
{
	jw_doc(ctx, w);
}

static int x_ndjson(void *ctx, struct jo_writer *w)
{
	const struct vpair *v = ctx;
	int rc = 0;
	for (size_t k = 0; k < v->nres && rc == 0; k++) {
		const struct vp_result *R = &v->res[k];
		jo_w_obj(w);
		jo_w_key(w, "between_points");
		jw_between(v, w, R, SUM_C2S, R->conn[1]);
		jo_kint(w, "conn", (int64_t)R->conn[0]);
		jo_kstr(w, "kind", "between_points");
		jo_w_obj_end(w);
		jo_w_raw(w, "\n");
		rc = jo_w_flush(w);
	}
	if (rc == 0) {
		jo_w_obj(w);
		jo_kstr(w, "kind", "vantage_pair");
		jo_w_key(w, "vantage_pair");
		jw_doc(v, w);
		jo_w_obj_end(w);
		jo_w_raw(w, "\n");
		rc = jo_w_flush(w);
	}
	return rc;
}

struct rep_extra vp_extra(struct vpair *v)
{
	return (struct rep_extra){.ctx = v,
				  .conn_json = x_conn_json,
				  .doc_key = "vantage_pair",
				  .doc_json = x_doc_json,
				  .ndjson = x_ndjson};
}

/* "1.2 ms" from ns, signed. */
static void fmt_ns(char *buf, size_t len, int64_t ns)
{
	if (ns < 0) {
		buf[0] = '-';
		rep_fmt_dur(buf + 1, len - 1, -ns);
	} else {
		rep_fmt_dur(buf, len, ns);
	}
}

/* " (frames 12, 57 at a.pcap)" for up to 4 examples of a kind. */
static void text_frames(FILE *out, const struct vpair *v, const struct vp_dir_result *o,
			enum vp_ex_kind kind)
{
	uint32_t n = o->nex[kind];

	if (n == 0)
		return;
	if (n > 4)
		n = 4;
	fputs(" (", out);
	for (uint32_t k = 0; k < n; k++) {
		const struct vp_example *e = &o->ex[kind][k];
		fprintf(out, "%s%s:#%" PRIu64, k ? ", " : "", point_name(v, e->point), e->frame);
		if (kind == VP_EX_REORDERED)
			fprintf(out, " overtaken by %" PRIu32, e->a);
	}
	fprintf(out, "%s)", o->nex[kind] + o->ex_left_out[kind] > n ? ", ..." : "");
}

static void text_dir(FILE *out, const struct vpair *v, const struct vp_dir_result *o,
		     const char *name)
{
	unsigned up = o->upstream;
	fprintf(out, "  %s: ", name);
	if (!o->upstream_known) {
		fprintf(out, "no segment seen at both points.\n");
		return;
	}
	fprintf(out,
		"passes %s first (upstream), then %s. %" PRIu64 " segment%s upstream, %" PRIu64
		" downstream.\n",
		point_name(v, up), point_name(v, !up), o->segments[up], rep_plural(o->segments[up]),
		o->segments[!up]);
	fprintf(out, "    %" PRIu64 " lost between the points", o->lost);
	if (o->lost_pure_acks)
		fprintf(out, " (%" PRIu64 " of them pure ACKs)", o->lost_pure_acks);
	text_frames(out, v, o, VP_EX_LOST);
	fprintf(out, "; %" PRIu64 " reordered, max extent %" PRIu32, o->reordered, o->max_extent);
	if (o->queue_switch_reorders)
		fprintf(out, ", %" PRIu64 " at a queue change", o->queue_switch_reorders);
	text_frames(out, v, o, VP_EX_REORDERED);
	fprintf(out, "; %" PRIu64 " duplicated", o->duplicated);
	text_frames(out, v, o, VP_EX_DUPLICATED);
	fputs(".\n", out);
	uint64_t ch = 0;
	for (unsigned k = 0; k < VP_CH_COUNT; k++)
		ch += o->changed[k];
	if (ch) {
		fputs("    Changed in flight:", out);
		for (unsigned k = 0, first = 1; k < VP_CH_COUNT; k++)
			if (o->changed[k]) {
				fprintf(out, "%s %s %" PRIu64, first ? "" : ",", change_names[k],
					o->changed[k]);
				first = 0;
			}
		if (o->nex[VP_EX_CHANGED]) {
			const struct vp_example *e = &o->ex[VP_EX_CHANGED][0];
			fprintf(out, " (e.g. %s %" PRIu32 " -> %" PRIu32 ", %s:#%" PRIu64 ")",
				change_names[e->change % VP_CH_COUNT], e->a, e->b, point_name(v, 0),
				e->frame);
		}
		fputs(".\n", out);
	} else {
		fputs("    Nothing changed in flight (TTL, DSCP, MSS, segmentation).\n", out);
	}
	if (o->have_owd) {
		char a[32], b[32], c[32], g[32];
		fmt_ns(a, sizeof(a), o->owd_min_ns);
		fmt_ns(b, sizeof(b), o->owd_median_ns);
		fmt_ns(c, sizeof(c), o->owd_p99_ns);
		fmt_ns(g, sizeof(g), o->owd_growth_ns);
		fprintf(out,
			"    One-way delay%s: min %s, median %s, p99 %s; growth %s (median of the "
			"last quarter minus the first: queueing when positive).\n",
			v->tot.offset_known ? "" : " (relative: clock offset unknown)", a, b, c, g);
	}
	fprintf(out,
		"    Missed by the captures themselves: %" PRIu64 " at %s (upstream), %" PRIu64
		" at %s (downstream)",
		o->capture_loss_up, point_name(v, up), o->capture_loss_down, point_name(v, !up));
	text_frames(out, v, o, VP_EX_CAPTURE_LOSS);
	fputs(".\n", out);
	if (o->window_overflow)
		fprintf(out,
			"    %" PRIu64
			" segments overflowed the matching window (--vantage-window):"
			" their verdicts may be wrong.\n",
			o->window_overflow);
}

int vp_write_text(const struct vpair *v, FILE *out)
{
	const struct vp_totals *t = &v->tot;
	fprintf(out, "\nBetween the capture points %s and %s:\n", point_name(v, 0),
		point_name(v, 1));
	fprintf(out,
		"  %" PRIu64 " connection%s joined; not joined: %" PRIu64
		" seen only at %s, %" PRIu64 " only at %s.\n",
		t->joined, rep_plural(t->joined), t->not_joined[0], point_name(v, 0),
		t->not_joined[1], point_name(v, 1));
	if (t->offset_known) {
		char a[32];
		fmt_ns(a, sizeof(a), t->offset_ns);
		fprintf(out,
			"  Clock of %s minus clock of %s: %s (assuming the shortest one-way delay "
			"is the same both ways).\n",
			point_name(v, 1), point_name(v, 0), a);
	} else {
		fputs("  Clock offset unknown (no connection carried segments both ways): "
		      "delays are relative.\n",
		      out);
	}
	if (t->max_offset_exceeded)
		fputs("  Warning: offset plus delay exceed --vantage-max-offset: segments may have "
		      "been judged lost before their copy came.\n",
		      out);
	for (size_t k = 0; k < v->nres; k++) {
		const struct vp_result *R = &v->res[k];
		fprintf(out,
			"\nConnection %" PRIu64 " at %s = connection %" PRIu64 " at %s: %s > %s",
			R->conn[0], point_name(v, 0), R->conn[1], point_name(v, 1), R->ep[0][0],
			R->ep[0][1]);
		if (strcmp(R->ep[0][0], R->ep[1][R->flip]) ||
		    strcmp(R->ep[0][1], R->ep[1][!R->flip]))
			fprintf(out, " (at %s: %s > %s)", point_name(v, 1), R->ep[1][R->flip],
				R->ep[1][!R->flip]);
		fputs("\n", out);
		text_dir(out, v, &R->dir[SUM_C2S], "c2s");
		text_dir(out, v, &R->dir[SUM_S2C], "s2c");
	}
	return ferror(out) ? ERR_SYSTEM : 0;
}
