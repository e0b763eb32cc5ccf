/* text.c - the human report: findings first, then the connection table (text_table.c). */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"
#include "analyze/report/text_int.h"
#include "common/grow.h"

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
	if (u == 0) { /* below 1 000: "%" PRIu64 as snprintf would cut it, no printf */
		char num[24];
		rep_copy_cut(buf, len, num, jo_fmt_int(num, (int64_t)v));
	} else {
		char unit[2] = {units[u], '\0'};
		rep_fmt_fixed(buf, len, x, x < 10 ? 1 : 0, unit);
	}
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

/* "in conn 3 (N), conn 7 (...)": the first connections with it. */
static void examples(FILE *out, const struct rep_data *d, size_t metric)
{
	unsigned shown = 0;
	size_t more = 0;

	for (size_t k = 0; k < d->nconns; k++) {
		const struct sum_conn *c = rep_conn_at(d, k);
		uint64_t v = txt_both_dirs(c, metric);
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

/* The engine's findings about lost segments: the capture's losses,
 * retransmissions, tail-loss probes. true: any was written. */
static bool write_losses(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	const struct rep_totals *t = &d->tot;
	bool any = false;

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
		examples(out, d, TXT_DIR_METRIC(unseen_bytes));
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
		examples(out, d, TXT_DIR_METRIC(retrans));
		rep_text_frames(out, &d->frames[SUM_EV_RETRANS], run);
	}
	if (t->tlp_new_data) {
		any = true;
		fprintf(out,
			"  tail-loss probes with new data: %" PRIu64
			" (no ACK for two or more full "
			"segments in flight, then new data: RFC 8985 sec. 7.3)\n",
			t->tlp_new_data);
		examples(out, d, TXT_DIR_METRIC(tlp_new_data));
		rep_text_frames(out, &d->frames[SUM_EV_TLP_NEW_DATA], run);
	}
	return any;
}

/* The engine's findings about order and windows: out of order, undecided
 * fills, zero windows, D-SACK, oversize segments. true: any was written. */
static bool write_order_windows(FILE *out, const struct rep_data *d, const struct rep_run *run)
{
	const struct rep_totals *t = &d->tot;
	bool any = false;

	if (t->ooo) {
		any = true;
		fprintf(out,
			"  out of order: %" PRIu64
			" segment%s arrived after later ones (decided by ",
			t->ooo, rep_plural(t->ooo));
		by_rules(out, t->ooo_by);
		fputs(")\n", out);
		examples(out, d, TXT_DIR_METRIC(out_of_order));
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
		examples(out, d, TXT_DIR_METRIC(fills_undecided));
		rep_text_frames(out, &d->frames[SUM_EV_FILL_UNDECIDED], run);
	}
	if (t->zero_windows) {
		any = true;
		fprintf(out,
			"  zero window: %" PRIu64 " advertisement%s, %" PRIu64
			" episode%s, %.3f s with the receiver's window closed\n",
			t->zero_windows, rep_plural(t->zero_windows), t->zw_episodes,
			rep_plural(t->zw_episodes), (double)t->zw_time_ns / 1e9);
		examples(out, d, TXT_DIR_METRIC(zero_windows));
	}
	if (t->dsack) {
		any = true;
		fprintf(out,
			"  D-SACK: %" PRIu64 " block%s: the receiver got the same bytes twice "
			"(spurious retransmission or duplication)\n",
			t->dsack, rep_plural(t->dsack));
		examples(out, d, TXT_DIR_METRIC(dsack_blocks));
	}
	if (t->oversize) {
		any = true;
		fprintf(out,
			"  oversize segments: %" PRIu64 " larger than the MSS: captured on a host "
			"with TSO/GSO/GRO,\n      so segment sizes are not what was on the wire\n",
			t->oversize);
		examples(out, d, TXT_DIR_METRIC(oversize));
	}
	return any;
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
	any |= write_losses(out, d, run);
	any |= write_order_windows(out, d, run);
	if (t->dup_acks) {
		fprintf(out, "  duplicate ACKs: %" PRIu64 "\n", t->dup_acks);
		examples(out, d, TXT_DIR_METRIC(dup_acks));
		rep_text_frames(out, &d->frames[SUM_EV_DUP_ACK], run);
	}
	if (t->lost_segments) {
		fprintf(out,
			"  gaps in what was captured: %" PRIu64 " segment%s began beyond the "
			"highest byte seen before %s\n",
			t->lost_segments, rep_plural(t->lost_segments),
			t->lost_segments == 1 ? "it" : "them");
		examples(out, d, TXT_DIR_METRIC(lost_segments));
		rep_text_frames(out, &d->frames[SUM_EV_CAPTURE_GAP], run);
	}
	if (!any)
		fputs("  none: no retransmission, reordering, capture loss or zero window\n", out);
	fprintf(out, "  (also: %" PRIu64 " window-full segment%s, %" PRIu64 " keep-alive%s)\n",
		t->window_full, rep_plural(t->window_full), t->keepalives,
		rep_plural(t->keepalives));
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
		if (GROW(w->line, w->cap, w->len + take, 256) < 0) {
			/* no memory to wrap: unwrapped is still right */
			fwrite(w->line, 1, w->len, w->out);
			fwrite(buf + done, 1, take, w->out);
			w->len = 0;
			done += take;
			continue;
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
	txt_write_table(out, raw, d, run);
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
