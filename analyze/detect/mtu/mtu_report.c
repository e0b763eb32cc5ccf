/* mtu_report.c - JSON and text for the MTU / alignment detector's results. */
#include <inttypes.h>
#include <string.h>

#include "analyze/report/det_view.h"
#include "analyze/readback/jsonin.h"
#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"

static const char *const mtu_collapse_names[MTU_COLLAPSE_BY_COUNT] = {
    [MTU_COLLAPSE_NONE] = "none",
    [MTU_COLLAPSE_STALLS] = "stalls",
    [MTU_COLLAPSE_THROUGHPUT] = "throughput",
};

static const char *const mtu_pmtu_names[MTU_PMTU_KIND_COUNT] = {
    [MTU_PMTU_NONE] = "alignment",
    [MTU_PMTU_ICMP] = "icmp_too_big",
    [MTU_PMTU_BLACKHOLE] = "blackhole",
};

JO_KEYED void w_num_or_null(struct jo_writer *w, const char *key, uint32_t v)
{
	if (v)
		jo_kint(w, key, v);
	else
		jo_knull(w, key);
}

JO_KEYED void w_pair(struct jo_writer *w, const char *key, uint32_t c2s, uint32_t s2c)
{
	jo_w_key(w, key);
	jo_w_obj(w);
	w_num_or_null(w, "c2s", c2s);
	w_num_or_null(w, "s2c", s2c);
	jo_w_obj_end(w);
}

/* Per-direction counts: {"c2s": n, "s2c": n}. */
JO_KEYED void w_int_pair(struct jo_writer *w, const char *key, const uint32_t v[2])
{
	jo_w_key(w, key);
	jo_w_obj(w);
	jo_kint(w, "c2s", v[0]);
	jo_kint(w, "s2c", v[1]);
	jo_w_obj_end(w);
}

/* The connection's "mtu_findings" object. */
static void mtu_json_conn(struct jo_writer *w, const struct sum_conn *c)
{
	const struct mtu_summary *s = &c->det.mtu;
	jo_w_obj(w);
	w_num_or_null(w, "aligned_above", s->aligned_above);
	w_num_or_null(w, "aligned_below", s->aligned_below);
	jo_kbool(w, "collapse", s->collapse);
	if (s->collapse)
		jo_kstr(w, "collapse_by", mtu_collapse_names[s->collapse_by]);
	else
		jo_knull(w, "collapse_by");
	if (s->transfer_ns)
		jo_ksec(w, "collapse_idle_s", s->idle_ns);
	else
		jo_knull(w, "collapse_idle_s");
	/* The stalls when the collapse was judged (the text says them). */
	if (s->collapse && s->collapse_by == MTU_COLLAPSE_STALLS) {
		jo_ksec(w, "collapse_stall_time_s", s->stall_ns);
		jo_kint(w, "collapse_stalls", s->stalls);
	} else {
		jo_knull(w, "collapse_stall_time_s");
		jo_knull(w, "collapse_stalls");
	}
	if (s->transfer_ns)
		jo_ksec(w, "collapse_transfer_s", s->transfer_ns);
	else
		jo_knull(w, "collapse_transfer_s");
	if (s->implied_mtu[s->dir & 1])
		jo_kstr(w, "dir", sum_dir_name(s->dir & 1));
	else
		jo_knull(w, "dir");
	jo_w_key(w, "full_size");
	jo_w_obj(w);
	jo_kbool(w, "c2s", s->full_size[0]);
	jo_kbool(w, "s2c", s->full_size[1]);
	jo_w_obj_end(w);
	w_pair(w, "header_bytes", s->header_bytes[0], s->header_bytes[1]);
	w_num_or_null(w, "icmp_mtu", s->icmp_mtu);
	jo_kint(w, "icmp_too_big", s->icmp_too_big);
	w_pair(w, "implied_mtu", s->implied_mtu[0], s->implied_mtu[1]);
	w_pair(w, "largest_payload", s->largest_payload[0], s->largest_payload[1]);
	jo_kbool(w, "misaligned", s->misaligned);
	jo_w_key(w, "misaligned_dirs");
	jo_w_arr(w);
	for (int k = 0; k < 2; k++)
		if (s->misaligned_dir[k])
			jo_w_str(w, sum_dir_name(k));
	jo_w_arr_end(w);
	w_pair(w, "mss", s->mss[0], s->mss[1]);
	w_int_pair(w, "oversize", s->oversize);
	jo_kint(w, "oversize_segments", s->oversize_segments);
	if (s->aligned_above)
		jo_kint(w, "payload_mod_4096", s->payload_mod_4096);
	else
		jo_knull(w, "payload_mod_4096");
	jo_kbool(w, "pmtu_blackhole", s->pmtu_blackhole);
	w_num_or_null(w, "pmtu_blackhole_mtu", s->blackhole_mtu);
	jo_kint(w, "pmtu_blackhole_resends", s->blackhole_resends);
	w_num_or_null(w, "pmtu_blackhole_shrunk_mtu", s->blackhole_shrunk_mtu);
	jo_kint(w, "pmtu_blackholes", s->blackholes);
	w_int_pair(w, "superframes", s->superframes);
	jo_w_obj_end(w);
}

static void f_num_or_null(struct jo_fields *f, const char *key, uint32_t v)
{
	if (v)
		jo_f_int(f, key, v);
	else
		jo_f_null(f, key);
}

static void mtu_json_event(struct jo_fields *f, const struct sum_event *e)
{
	const struct mtu_event *m = &e->u.mtu;
	unsigned kind = m->kind < MTU_PMTU_KIND_COUNT ? m->kind : MTU_PMTU_NONE;

	f_num_or_null(f, "mtu", m->mtu);
	jo_f_str(f, "reason", m->reason ? m->reason : "");
	if (e->type == SUM_EV_MTU_ALIGNMENT) {
		f_num_or_null(f, "aligned_above", m->aligned_above);
		f_num_or_null(f, "aligned_below", m->aligned_below);
		jo_f_int(f, "payload", m->payload);
		jo_f_int(f, "payload_mod_4096", m->payload_mod_4096);
		jo_f_int(f, "segments", e->segments);
		return;
	}
	jo_f_str(f, "pmtu_kind", mtu_pmtu_names[kind]);
	if (kind == MTU_PMTU_ICMP) {
		jo_f_int(f, "icmp_code", m->icmp_code);
		jo_f_int(f, "icmp_type", m->icmp_type);
	} else if (kind == MTU_PMTU_BLACKHOLE) {
		f_num_or_null(f, "big_mtu", m->big_mtu);
		jo_f_int(f, "payload", m->payload);
		jo_f_int(f, "retransmissions", m->retransmissions);
	}
}

/* One connection's alignment sentence (see tcpsift-analyze(1), FINDINGS). */
static void text_alignment(FILE *out, const struct sum_conn *c)
{
	const struct mtu_summary *s = &c->det.mtu;
	unsigned k = s->dir & 1;
	uint32_t hdr = s->header_bytes[k];

	fprintf(out,
		"  MTU alignment: conn %" PRIu64 " %s carries %" PRIu32
		"-byte payloads (MTU %" PRIu32 " with %" PRIu32 " header bytes%s):\n"
		"      %" PRIu32 " mod 4096 = %" PRIu32 ", so full-size segments straddle pages;"
		" the nearest aligned MTUs are ",
		c->id, sum_dir_name(k), s->largest_payload[k], s->implied_mtu[k], hdr,
		c->timestamps ? ", timestamps" : "", s->largest_payload[k], s->payload_mod_4096);
	if (s->aligned_below)
		fprintf(out, "%" PRIu32 " and ", s->aligned_below);
	fprintf(out, "%" PRIu32 " (n*4096+%" PRIu32 ")", s->aligned_above, hdr);
	if (s->misaligned_dir[!k])
		fprintf(out, "; %s too (MTU %" PRIu32 ")", sum_dir_name(!k), s->implied_mtu[!k]);
	fputs(".\n", out);
	if (s->collapse_by == MTU_COLLAPSE_STALLS)
		fprintf(out,
			"      Together with %" PRIu32 " stall%s (%.3f s): the 2013 "
			"splice/loopback regression pattern.\n",
			s->stalls, s->stalls == 1 ? "" : "s", (double)s->stall_ns / 1e9);
	else if (s->collapse_by == MTU_COLLAPSE_THROUGHPUT)
		fprintf(out,
			"      Together with a throughput collapse (idle %.3f s of its %.3f s "
			"transfer): the 2013 splice/loopback regression pattern.\n",
			(double)s->idle_ns / 1e9, (double)s->transfer_ns / 1e9);
}

static void mtu_text(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	unsigned shown = 0;

	(void)run;
	for (size_t k = 0; k < d->nconns; k++) {
		const struct sum_conn *c = rep_conn_at(d, k);
		if (!c->det.mtu.misaligned)
			continue;
		/* Collapses first would need a sort; a cap keeps text short. */
		if (shown++ < 5)
			text_alignment(out, c);
	}
	if (shown > 5)
		fprintf(out, "      ... and %u more connections with a misaligned MTU\n",
			shown - 5);
	for (size_t k = 0; k < d->nconns; k++) {
		const struct mtu_summary *s = &rep_conn_at(d, k)->det.mtu;
		if (s->icmp_too_big) {
			fprintf(out,
				"  PMTU: conn %" PRIu64 " got %" PRIu32
				" ICMP too-big message%s quoting its segments",
				rep_conn_at(d, k)->id, s->icmp_too_big,
				s->icmp_too_big == 1 ? "" : "s");
			if (s->icmp_mtu)
				fprintf(out, " (next-hop MTU %" PRIu32 ")", s->icmp_mtu);
			fputs("\n", out);
		}
		if (s->pmtu_blackhole)
			fprintf(
			    out,
			    "  PMTU black hole: conn %" PRIu64 ": full-size segments (MTU %" PRIu32
			    ") re-sent %" PRIu32 " times by RTO until they shrank to MTU %" PRIu32
			    "\n      (%" PRIu32 " episode%s; RFC 4821, Linux tcp_mtu_probing)\n",
			    rep_conn_at(d, k)->id, s->blackhole_mtu, s->blackhole_resends,
			    s->blackhole_shrunk_mtu, s->blackholes, s->blackholes == 1 ? "" : "s");
	}
}

/* ---- totals, --fail-on, the TUI ---- */

static void mtu_add_conn(struct det_totals *dt, const struct sum_conn *c)
{
	const struct mtu_summary *s = &c->det.mtu;

	dt->mtu.misaligned += s->misaligned;
	dt->mtu.collapse += s->collapse;
	dt->mtu.blackholes += s->pmtu_blackhole;
	dt->mtu.icmp_too_big += s->icmp_too_big;
}

static void mtu_add_event(struct det_totals *dt, const struct sum_event *e)
{
	(void)e;
	dt->mtu.events++;
}

static bool mtu_any(const struct det_totals *t)
{
	return t->mtu.misaligned || t->mtu.icmp_too_big || t->mtu.blackholes;
}

/* {"c2s": n|null, "s2c": n|null} back into v[2] (null: 0). */
static void r_pair(struct ji_ctx *x, const json_t *o, const char *key, uint32_t v[2])
{
	json_t *p = ji_get(x, o, key);

	v[0] = (uint32_t)ji_int_or(x, p, "c2s", 0);
	v[1] = (uint32_t)ji_int_or(x, p, "s2c", 0);
}

/* The reader's side of mtu_json_conn() (tcpsift merge). */
static void mtu_json_read_conn(struct ji_ctx *x, const json_t *v, struct sum_conn *c)
{
	struct mtu_summary *s = &c->det.mtu;
	const char *dirs[2] = {sum_dir_name(0), sum_dir_name(1)};
	json_t *t, *fs;

	s->aligned_above = (uint32_t)ji_int_or(x, v, "aligned_above", 0);
	s->aligned_below = (uint32_t)ji_int_or(x, v, "aligned_below", 0);
	s->collapse = ji_bool(x, v, "collapse");
	if (s->collapse)
		s->collapse_by = (uint8_t)ji_enum(x, v, "collapse_by", mtu_collapse_names,
						  MTU_COLLAPSE_BY_COUNT);
	s->idle_ns = ji_sec_or(x, v, "collapse_idle_s", 0);
	s->stall_ns = ji_sec_or(x, v, "collapse_stall_time_s", 0);
	s->stalls = (uint32_t)ji_int_or(x, v, "collapse_stalls", 0);
	s->transfer_ns = ji_sec_or(x, v, "collapse_transfer_s", 0);
	t = ji_get(x, v, "dir");
	if (t && !json_is_null(t))
		s->dir = (uint8_t)ji_enum(x, v, "dir", dirs, 2);
	fs = ji_get(x, v, "full_size");
	s->full_size[0] = ji_bool(x, fs, "c2s");
	s->full_size[1] = ji_bool(x, fs, "s2c");
	r_pair(x, v, "header_bytes", s->header_bytes);
	s->icmp_mtu = (uint32_t)ji_int_or(x, v, "icmp_mtu", 0);
	s->icmp_too_big = (uint32_t)ji_int(x, v, "icmp_too_big");
	r_pair(x, v, "implied_mtu", s->implied_mtu);
	r_pair(x, v, "largest_payload", s->largest_payload);
	s->misaligned = ji_bool(x, v, "misaligned");
	t = ji_get(x, v, "misaligned_dirs");
	if (t && !json_is_array(t))
		ji_fail(x, "\"misaligned_dirs\" is not an array");
	for (size_t k = 0; t && k < json_array_size(t); k++) {
		const char *d = json_string_value(json_array_get(t, k));
		if (d && strcmp(d, dirs[0]) == 0)
			s->misaligned_dir[0] = true;
		else if (d && strcmp(d, dirs[1]) == 0)
			s->misaligned_dir[1] = true;
		else
			ji_fail(x, "\"misaligned_dirs\" holds something else than a direction");
	}
	r_pair(x, v, "mss", s->mss);
	r_pair(x, v, "oversize", s->oversize);
	s->oversize_segments = (uint32_t)ji_int(x, v, "oversize_segments");
	s->payload_mod_4096 = (uint32_t)ji_int_or(x, v, "payload_mod_4096", 0);
	s->pmtu_blackhole = ji_bool(x, v, "pmtu_blackhole");
	s->blackhole_mtu = (uint32_t)ji_int_or(x, v, "pmtu_blackhole_mtu", 0);
	s->blackhole_resends = (uint32_t)ji_int(x, v, "pmtu_blackhole_resends");
	s->blackhole_shrunk_mtu = (uint32_t)ji_int_or(x, v, "pmtu_blackhole_shrunk_mtu", 0);
	s->blackholes = (uint32_t)ji_int(x, v, "pmtu_blackholes");
	r_pair(x, v, "superframes", s->superframes);
}

/* The reader's side of mtu_json_event(). */
static void mtu_json_read_event(struct ji_ctx *x, const json_t *o, struct sum_event *e)
{
	struct mtu_event *m = &e->u.mtu;

	m->mtu = (uint32_t)ji_int_or(x, o, "mtu", 0);
	m->reason = ji_str(x, o, "reason", false);
	if (e->type == SUM_EV_MTU_ALIGNMENT) {
		m->kind = MTU_PMTU_NONE;
		m->aligned_above = (uint32_t)ji_int_or(x, o, "aligned_above", 0);
		m->aligned_below = (uint32_t)ji_int_or(x, o, "aligned_below", 0);
		m->payload = (uint32_t)ji_int(x, o, "payload");
		m->payload_mod_4096 = (uint32_t)ji_int(x, o, "payload_mod_4096");
		e->segments = (uint32_t)ji_int(x, o, "segments");
		return;
	}
	m->kind = (uint8_t)ji_enum(x, o, "pmtu_kind", mtu_pmtu_names, MTU_PMTU_KIND_COUNT);
	if (m->kind == MTU_PMTU_ICMP) {
		m->icmp_code = (uint8_t)ji_int(x, o, "icmp_code");
		m->icmp_type = (uint8_t)ji_int(x, o, "icmp_type");
	} else if (m->kind == MTU_PMTU_BLACKHOLE) {
		m->big_mtu = (uint32_t)ji_int_or(x, o, "big_mtu", 0);
		m->payload = (uint32_t)ji_int(x, o, "payload");
		m->retransmissions = (uint32_t)ji_int(x, o, "retransmissions");
	}
}

static void mtu_json_findings(struct jo_fields *f, const struct det_totals *t, bool known)
{
	if (known)
		jo_f_int(f, "mtu_misaligned", (int64_t)t->mtu.misaligned);
	else
		jo_f_null(f, "mtu_misaligned");
}

static double mtu_m_misaligned(const struct det_totals *t)
{
	return (double)t->mtu.misaligned;
}

static const struct det_metric mtu_metrics[] = {
    {"mtu_misaligned", NULL, mtu_m_misaligned},
};

static void mtu_event_line(char *b, size_t n, const struct sum_event *e)
{
	if (e->type == SUM_EV_PMTU)
		snprintf(b, n, "PMTU: %s (MTU %" PRIu32 ")", e->u.mtu.reason ? e->u.mtu.reason : "",
			 e->u.mtu.mtu);
	else
		snprintf(b, n,
			 "MTU %" PRIu32 " misaligned (payload %% 4096 = %" PRIu32
			 "; aligned %" PRIu32 " / %" PRIu32 ")",
			 e->u.mtu.mtu, e->u.mtu.payload_mod_4096, e->u.mtu.aligned_below,
			 e->u.mtu.aligned_above);
}

static enum det_tone mtu_event_tone(const struct sum_event *e)
{
	(void)e;
	return DET_TONE_MTU;
}

static void mtu_header(char *b, size_t n, const struct det_totals *t, bool wide)
{
	(void)wide;
	snprintf(b, n, "mtu %" PRIu64, t->mtu.events);
}

/* "!": a misaligned MTU, a black hole or ICMP too-big; final only at the
 * connection's end, live any MTU event. */
static void mtu_cells(struct det_cell *cell, const struct sum_conn *s,
		      const struct det_totals *live, bool ended)
{
	const struct mtu_summary *m = &s->det.mtu;
	bool flag =
	    ended ? m->misaligned || m->pmtu_blackhole || m->icmp_too_big : live->mtu.events > 0;

	cell[0].sort = flag;
	snprintf(cell[0].text, sizeof(cell[0].text), "%s", flag ? "!" : "-");
	cell[0].tone = flag ? DET_TONE_MTU : DET_TONE_NONE;
}

/* The implied MTU of the direction that sent more. */
static void mtu_detail(char *b, size_t n, const struct sum_conn *s, const struct det_totals *live,
		       bool ended)
{
	unsigned dir = s->dir[SUM_S2C].payload_bytes > s->dir[SUM_C2S].payload_bytes;
	int x;

	(void)live, (void)ended;
	x = snprintf(b, n, "mtu %s", s->det.mtu.misaligned ? "misaligned" : "ok");
	if (s->det.mtu.implied_mtu[dir] && x >= 0 && (size_t)x < n)
		snprintf(b + x, n - (size_t)x, " (implied %" PRIu32 ")",
			 s->det.mtu.implied_mtu[dir]);
}

const struct det_view mtu_view = {
    .name = "mtu",
    .conn_key = "mtu_findings",
    .json_conn = mtu_json_conn,
    .json_event = mtu_json_event,
    .json_findings = mtu_json_findings,
    .json_read_conn = mtu_json_read_conn,
    .json_read_event = mtu_json_read_event,
    .add_conn = mtu_add_conn,
    .add_event = mtu_add_event,
    .any = mtu_any,
    .text = mtu_text,
    .metrics = mtu_metrics,
    .nmetrics = sizeof(mtu_metrics) / sizeof(mtu_metrics[0]),
    .event_line = mtu_event_line,
    .event_tone = mtu_event_tone,
    .header_tone = DET_TONE_MTU,
    .header = mtu_header,
    .ncolumns = 1,
    .columns = {{"MTU", 3, 4, true}},
    .cells = mtu_cells,
    .detail = mtu_detail,
};
