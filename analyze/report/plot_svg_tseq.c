/* plot_svg_tseq.c - the time-sequence graph: segments, ACK and window lines, anomaly marks. */
#include "analyze/report/markup.h"
#include "analyze/report/plot_svg_int.h"
#include "analyze/report/report.h"

#include <math.h>
#include <string.h>

/*
 * Marks are never dropped. A kind of mark is drawn one by one (an element
 * each, at its pixel, with its frame) unless the graph has more than
 * PL_DRAW_MAX of that kind, or the connection had more marks than it
 * keeps one by one (PL_MARKS_MAX) and binned some of this kind: then every
 * mark of that kind in the graph is binned, by PL_BIN_PX pixels of time,
 * and each bin drawn as one mark: over the bytes (or, for stalls and zero
 * windows, the time) its marks cover, thicker the more it holds, its count
 * in data-count, in its tooltip and (retransmissions, stalls and zero
 * windows), where there is room, written above it. So a retransmission at 4.9 s of a 5 s transfer
 * shows whatever came before it, and the counts of a graph's marks and bins add up to the report's.
 */
#define PL_DRAW_MAX 2000u /* marks of one kind drawn one by one in a graph */
#define PL_BIN_PX   2u	  /* a bin's width (pixels of time) */
#define PL_NBINS    440u  /* the plot's width in bins */
_Static_assert(PL_NBINS *PL_BIN_PX == (unsigned)PL_PW, "the bins cover the plot area");

/* ---- the time-sequence graph ---- */

static void mark_title(FILE *f, const struct pl_mark *m, const char *what)
{
	fprintf(f, "<title>%s: frame %llu, t=%.6f s, seq %u", what, (unsigned long long)m->frame,
		pl_secs(m->t), m->seq);
	if (m->len)
		fprintf(f, "-%u (%u bytes)", m->seq + m->len, m->len);
	if (m->dur >= 0)
		fprintf(f, ", %.3f ms", (double)m->dur / 1e6);
	fputs("</title>", f);
}

static void mark_attrs(FILE *f, const struct pl_mark *m)
{
	fprintf(f, " data-t=\"%.9f\" data-seq=\"%u\" data-len=\"%u\" data-frame=\"%llu\"",
		pl_secs(m->t), m->seq, m->len, (unsigned long long)m->frame);
	if (m->dur >= 0)
		fprintf(f, " data-dur=\"%.9f\"", pl_secs(m->dur));
}

static void draw_mark(struct pl_svg *g, const struct pl_mark *m)
{
	FILE *f = g->f;
	const char *cls = pl_mark_class[m->kind];
	double x = pl_x(g, pl_secs(m->t)), xe = pl_x(g, pl_secs(m->t + (m->dur > 0 ? m->dur : 0)));
	double ylo = pl_y(g, m->seq), yhi = pl_y(g, (double)m->seq + m->len);

	switch (m->kind) {
	case PL_MK_RETRANS:
	case PL_MK_OOO:
	case PL_MK_GAP: {
		static const char *const what[] = {[PL_MK_RETRANS] = "retransmission",
						   [PL_MK_OOO] = "out of order",
						   [PL_MK_GAP] = "capture gap"};
		g->legend |= 1u << (m->kind == PL_MK_RETRANS ? PL_LEG_RETRANS
				    : m->kind == PL_MK_OOO   ? PL_LEG_OOO
							     : PL_LEG_GAP);
		fprintf(f, "<line class=\"%s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"",
			cls, x, ylo, x, yhi - (yhi == ylo ? 1 : 0));
		mark_attrs(f, m);
		fputc('>', f);
		mark_title(f, m, what[m->kind]);
		fputs("</line>\n", f);
		return;
	}
	case PL_MK_ZWIN:
		g->legend |= 1u << PL_LEG_ZWIN;
		fprintf(f, "<circle class=\"zwin\" cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\"", x, ylo);
		mark_attrs(f, m);
		fputc('>', f);
		mark_title(f, m, "zero window advertised");
		fputs("</circle>\n", f);
		return;
	case PL_MK_HOLE:
	case PL_MK_LOSS:
		g->legend |= 1u << (m->kind == PL_MK_HOLE ? PL_LEG_HOLE : PL_LEG_LOSS);
		fprintf(f,
			"<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"",
			cls, x, yhi, xe - x < 1 ? 1 : xe - x, ylo - yhi < 1 ? 1 : ylo - yhi);
		mark_attrs(f, m);
		fputc('>', f);
		mark_title(f, m, m->kind == PL_MK_HOLE ? "SACK hole" : "capture loss");
		fputs("</rect>\n", f);
		return;
	case PL_MK_ZWIN_SPAN:
	case PL_MK_STALL: {
		char label[96];
		if (m->kind == PL_MK_STALL)
			snprintf(label, sizeof(label), "%s %.1f ms",
				 m->timer_like ? "timer-like pause"
					       : stall_class_name((enum stall_class)m->cls),
				 (double)m->dur / 1e6);
		else
			snprintf(label, sizeof(label), "zero window %.1f ms", (double)m->dur / 1e6);
		g->legend |= 1u << (m->kind == PL_MK_STALL ? PL_LEG_STALL : PL_LEG_ZWIN);
		fprintf(f, "<g class=\"%s\"", cls);
		mark_attrs(f, m);
		if (m->kind == PL_MK_STALL)
			fprintf(f, " data-class=\"%s\"",
				m->timer_like ? "timer_like"
					      : stall_class_name((enum stall_class)m->cls));
		fputc('>', f);
		fprintf(f, "<title>%s: from frame %llu at t=%.6f s</title>", label,
			(unsigned long long)m->frame, pl_secs(m->t));
		fprintf(f, "<rect x=\"%.2f\" y=\"%g\" width=\"%.2f\" height=\"%g\"/>", x, PL_PY,
			xe - x < 1 ? 1 : xe - x, PL_PH);
		/* A label where it does not cover the last one (the tooltip
		 * always says it). */
		if (x >= g->label_x + 12) {
			fprintf(f,
				"<text x=\"%.2f\" y=\"%g\" transform=\"rotate(-90 %.2f %g)\" "
				"text-anchor=\"end\">",
				x + 9, PL_PY + 4, x + 9, PL_PY + 4);
			mk_escape(f, label);
			fputs("</text>", f);
			g->label_x = x;
		}
		fputs("</g>\n", f);
		return;
	}
	}
}

static void tseq_raw(struct pl_svg *g, const struct pl_conn *c, unsigned dir)
{
	FILE *f = g->f;
	const char *base[3] = {"seg", "ack", "win"};

	/* Originals: one path per queue colour (or one without queues). */
	for (int q = -1; q < PL_NQCOLS; q++) {
		bool any = false;
		for (uint32_t k = 0; k < c->nrecs; k++) {
			const struct pl_rec *r = &c->recs[k];
			if (r->dir != dir || !(r->flags & PL_R_DATA) ||
			    (r->flags & (PL_R_RETRANS | PL_R_OOO)))
				continue;
			int rq = pl_queue_known(r->queue) ? r->queue % PL_NQCOLS : -1;
			if (rq != q)
				continue;
			if (!any) {
				if (q < 0)
					pl_path_begin(f, base[0]);
				else
					fprintf(f, "<path class=\"seg q%d\" d=\"", q);
				any = true;
			}
			double x = pl_x(g, pl_secs(r->t)), y0 = pl_y(g, r->seq),
			       y1 = pl_y(g, (double)r->seq + r->len);
			fprintf(f, "M%.2f %.2fV%.2fM%.2f %.2fh3", x, y0, y1, x - 1.5, y1);
			if (pl_queue_known(r->queue))
				g->queues |= 1ull << (r->queue < 64 ? r->queue : 63);
		}
		if (any) {
			pl_path_end(f, false);
			g->legend |= 1u << PL_LEG_SEG;
		}
	}
	/* The receiver's ACK and window lines, and its SACK blocks. */
	struct pl_stepper ack = {.f = f}, win = {.f = f};
	pl_path_begin(f, base[1]);
	for (uint32_t k = 0; k < c->nrecs; k++) {
		const struct pl_rec *r = &c->recs[k];
		if (r->dir != dir && (r->flags & PL_R_ACK))
			pl_step_to(&ack, pl_x(g, pl_secs(r->t)), pl_y(g, r->ack));
	}
	pl_path_end(f, !ack.started);
	pl_path_begin(f, base[2]);
	for (uint32_t k = 0; k < c->nrecs; k++) {
		const struct pl_rec *r = &c->recs[k];
		if (r->dir != dir && (r->flags & PL_R_ACK))
			pl_step_to(&win, pl_x(g, pl_secs(r->t)), pl_y(g, (double)r->ack + r->win));
	}
	pl_path_end(f, !win.started);
	if (ack.started)
		g->legend |= 1u << PL_LEG_ACK | 1u << PL_LEG_WIN;
	bool sacks = false;
	pl_path_begin(f, "sack");
	for (uint32_t k = 0; k < c->nrecs; k++) {
		const struct pl_rec *r = &c->recs[k];
		if (r->dir == dir || !(r->flags & PL_R_ACK))
			continue;
		double x = pl_x(g, pl_secs(r->t));
		for (unsigned b = 0; b < r->nsack; b++) {
			const uint32_t *s = c->sacks[r->sack + b];
			fprintf(f, "M%.2f %.2fV%.2f", x, pl_y(g, s[0]), pl_y(g, s[1]));
			sacks = true;
		}
	}
	pl_path_end(f, !sacks);
	if (sacks)
		g->legend |= 1u << PL_LEG_SACK;
}

static void tseq_cols(struct pl_svg *g, const struct pl_conn *c, unsigned dir)
{
	FILE *f = g->f;
	const struct pl_col *col = c->col[dir];
	double w = pl_secs(c->col_width);
	bool any = false;

	pl_path_begin(f, "seg");
	for (uint32_t k = 0; k < c->col_used; k++) {
		if (!(col[k].have & PL_C_SEQ))
			continue;
		double x = pl_x(g, (k + 0.5) * w);
		fprintf(f, "M%.2f %.2fV%.2f", x, pl_y(g, col[k].seq_lo),
			pl_y(g, col[k].seq_hi) - (col[k].seq_hi == col[k].seq_lo ? 1 : 0));
		any = true;
		if (pl_queue_known(col[k].queue))
			g->queues |= 1ull << (col[k].queue < 64 ? col[k].queue : 63);
	}
	pl_path_end(f, !any);
	if (any)
		g->legend |= 1u << PL_LEG_SEG_AGG;
	/* Queue colours: a column's last segment's queue, over the data. */
	for (unsigned q = 0; g->queues && q < PL_NQCOLS; q++) {
		bool qany = false;
		for (uint32_t k = 0; k < c->col_used; k++) {
			if (!(col[k].have & PL_C_SEQ) || !pl_queue_known(col[k].queue) ||
			    (unsigned)col[k].queue % PL_NQCOLS != q)
				continue;
			if (!qany)
				fprintf(f, "<path class=\"seg q%u\" d=\"", q);
			qany = true;
			double x = pl_x(g, (k + 0.5) * w);
			fprintf(f, "M%.2f %.2fV%.2f", x, pl_y(g, col[k].seq_lo),
				pl_y(g, col[k].seq_hi));
		}
		if (qany)
			pl_path_end(f, false);
	}
	/* ACK and window: lowest at a column's start, highest at its end. */
	const char *cls[2] = {"ack", "win"};
	for (unsigned line = 0; line < 2; line++) {
		bool started = false;
		pl_path_begin(f, cls[line]);
		for (uint32_t k = 0; k < c->col_used; k++) {
			if (!(col[k].have & PL_C_ACK))
				continue;
			uint32_t lo = line ? col[k].win_lo : col[k].ack_lo;
			uint32_t hi = line ? col[k].win_hi : col[k].ack_hi;
			fprintf(f, "%c%.2f %.2fL%.2f %.2f", started ? 'L' : 'M', pl_x(g, k * w),
				pl_y(g, lo), pl_x(g, (k + 1) * w), pl_y(g, hi));
			started = true;
		}
		pl_path_end(f, !started);
		if (started)
			g->legend |= 1u << (line ? PL_LEG_WIN : PL_LEG_ACK);
	}
	bool sacks = false;
	pl_path_begin(f, "sack");
	for (uint32_t k = 0; k < c->col_used; k++) {
		if ((col[k].have & PL_C_ACK) && col[k].sack_hi > col[k].ack_hi) {
			double x = pl_x(g, (k + 0.5) * w);
			fprintf(f, "M%.2f %.2fV%.2f", x, pl_y(g, col[k].ack_hi),
				pl_y(g, col[k].sack_hi));
			sacks = true;
		}
	}
	pl_path_end(f, !sacks);
	if (sacks)
		g->legend |= 1u << PL_LEG_SACK;
}

/* ---- binned marks ---- */

static const unsigned leg_of[PL_MK_COUNT] = {
    [PL_MK_RETRANS] = PL_LEG_RETRANS, [PL_MK_OOO] = PL_LEG_OOO,	    [PL_MK_ZWIN] = PL_LEG_ZWIN,
    [PL_MK_GAP] = PL_LEG_GAP,	      [PL_MK_LOSS] = PL_LEG_LOSS,   [PL_MK_HOLE] = PL_LEG_HOLE,
    [PL_MK_ZWIN_SPAN] = PL_LEG_ZWIN,  [PL_MK_STALL] = PL_LEG_STALL,
};

static const char *const kind_words[PL_MK_COUNT] = {
    [PL_MK_RETRANS] = "retransmissions",
    [PL_MK_OOO] = "late originals",
    [PL_MK_ZWIN] = "zero windows advertised",
    [PL_MK_GAP] = "capture gaps",
    [PL_MK_LOSS] = "capture losses",
    [PL_MK_HOLE] = "SACK holes",
    [PL_MK_ZWIN_SPAN] = "zero-window episodes",
    [PL_MK_STALL] = "stalls",
};

static bool is_span(unsigned kind)
{
	return kind == PL_MK_STALL || kind == PL_MK_ZWIN_SPAN;
}

/* Which kinds dir's graph bins (bit per kind), and how many marks of
 * each it has in all (n). */
static unsigned binned_kinds(const struct pl_conn *c, unsigned dir, uint64_t n[PL_MK_COUNT])
{
	unsigned over = 0, bits = 0;

	memset(n, 0, PL_MK_COUNT * sizeof(*n));
	for (uint32_t k = 0; k < c->nmarks; k++)
		if (c->marks[k].dir == dir)
			n[c->marks[k].kind]++;
	for (uint32_t k = 0; c->over[dir] && k < c->col_used; k++)
		for (unsigned m = 0; m < PL_MK_COUNT; m++) {
			uint32_t o = c->over[dir][k * PL_MK_COUNT + m].n;
			n[m] += o;
			over |= o ? 1u << m : 0;
		}
	for (unsigned m = 0; m < PL_MK_COUNT; m++)
		if (n[m] > PL_DRAW_MAX || (over & (1u << m)))
			bits |= 1u << m;
	return bits;
}

static unsigned bin_of(const struct pl_svg *g, int64_t t)
{
	double k = (pl_x(g, pl_secs(t)) - PL_PX) / (double)PL_BIN_PX;

	return k <= 0 ? 0 : k >= (double)PL_NBINS ? PL_NBINS - 1 : (unsigned)k;
}

/* One bin as one mark; its count written above it when that clears the
 * last count written (*label_x). */
static void draw_bin(struct pl_svg *g, const struct pl_bin *b, unsigned kind, double *label_x)
{
	FILE *f = g->f;
	double x0 = pl_x(g, pl_secs(b->t_lo)), x1 = pl_x(g, pl_secs(b->t_hi));
	double xe = pl_x(g, pl_secs(b->t_end));
	double ylo = pl_y(g, b->seq_lo), yhi = pl_y(g, b->seq_hi), x = (x0 + x1) / 2, top;

	fprintf(f,
		"<g class=\"%s bin\" data-count=\"%u\" data-t0=\"%.9f\" data-t1=\"%.9f\" "
		"data-frame=\"%llu\"><title>%u %s: t=%.6f..%.6f s, seq %u-%u, first frame "
		"%llu</title>",
		pl_mark_class[kind], b->n, pl_secs(b->t_lo), pl_secs(b->t_hi),
		(unsigned long long)b->frame, b->n, kind_words[kind], pl_secs(b->t_lo),
		pl_secs(b->t_hi), b->seq_lo, b->seq_hi, (unsigned long long)b->frame);
	if (is_span(kind) || kind == PL_MK_HOLE || kind == PL_MK_LOSS) {
		double y = is_span(kind) ? PL_PY : yhi, h = is_span(kind) ? PL_PH : ylo - yhi;
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>", x0, y,
			xe - x0 < 1 ? 1 : xe - x0, h < 1 ? 1 : h);
		top = y;
		x = x0;
	} else {
		double w = 1.5 + 1.5 * log2(b->n);
		if (ylo - yhi < 3) { /* a point: a tick that shows */
			ylo += 2;
			yhi -= 2;
		}
		fprintf(f,
			"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			"stroke-width=\"%.1f\"/>",
			x, ylo, x, yhi, w > 8 ? 8 : w);
		top = yhi;
	}
	/* Counts written for what a reader counts (retransmissions, stalls,
	 * zero windows); the others' only in the tooltip, or they would
	 * overlap. */
	bool counted = kind == PL_MK_RETRANS || is_span(kind);
	if (counted && b->n > 1 && x >= *label_x + 22) {
		fprintf(f, "<text class=\"count\" x=\"%.2f\" y=\"%.2f\">%u</text>", x,
			top - 3 < PL_PY + 9 ? PL_PY + 9 : top - 3, b->n);
		*label_x = x;
	}
	fputs("</g>\n", f);
}

/* Every mark of kind in dir's graph, binned (those kept one by one and
 * those the connection binned beyond its cap). */
static void draw_bins(struct pl_svg *g, const struct pl_conn *c, unsigned dir, unsigned kind)
{
	struct pl_bin bins[PL_NBINS];
	double label_x = -1e9;

	memset(bins, 0, sizeof(bins));
	for (uint32_t k = 0; k < c->nmarks; k++) {
		const struct pl_mark *m = &c->marks[k];
		if (m->dir == dir && m->kind == kind)
			pl_bin_add(&bins[bin_of(g, m->t)], m);
	}
	for (uint32_t k = 0; c->over[dir] && k < c->col_used; k++) {
		const struct pl_bin *o = &c->over[dir][k * PL_MK_COUNT + kind];
		if (o->n)
			pl_bin_join(&bins[bin_of(g, o->t_lo)], o);
	}
	g->legend |= 1u << PL_LEG_BIN | 1u << leg_of[kind];
	fprintf(g->f, "<g class=\"bins\" data-kind=\"%s\">\n", pl_mark_class[kind]);
	for (unsigned k = 0; k < PL_NBINS; k++)
		if (bins[k].n)
			draw_bin(g, &bins[k], kind, &label_x);
	fputs("</g>\n", g->f);
}

/* The y range of the time-sequence graph: the data, and the window line
 * unless it would squash the data (a window far above what was sent is
 * clipped at 1.25 times the data's top). */
static double tseq_top(const struct pl_conn *c, unsigned dir)
{
	double top = c->d[dir].seq_max, win = (double)c->d[dir].win_max;

	if (win > top)
		top = win < 1.25 * top ? win : 1.25 * top;
	return top;
}

/* The marks of dir: spans (spans true) or the others, each kind one by
 * one or binned. */
static void draw_marks(struct pl_svg *g, const struct pl_conn *c, unsigned dir, unsigned binned,
		       bool spans)
{
	for (uint32_t k = 0; k < c->nmarks; k++) {
		const struct pl_mark *m = &c->marks[k];
		if (m->dir == dir && is_span(m->kind) == spans && !(binned & (1u << m->kind)))
			draw_mark(g, m);
	}
	/* Retransmissions last: on top of the gaps and holes they fill. */
	static const unsigned order[PL_MK_COUNT] = {PL_MK_STALL, PL_MK_ZWIN_SPAN, PL_MK_LOSS,
						    PL_MK_HOLE,	 PL_MK_GAP,	  PL_MK_ZWIN,
						    PL_MK_OOO,	 PL_MK_RETRANS};
	for (unsigned k = 0; k < PL_MK_COUNT; k++)
		if ((binned & (1u << order[k])) && is_span(order[k]) == spans)
			draw_bins(g, c, dir, order[k]);
}

void pl_svg_tseq(struct pl_svg *g, const struct pl_conn *c, unsigned dir)
{
	double top = pl_nice_top(tseq_top(c, dir));
	uint64_t n[PL_MK_COUNT];
	unsigned binned = binned_kinds(c, dir, n);

	g->y0 = 0;
	g->y1 = top;
	pl_svg_begin(g, c, dir, "time-sequence", "sequence offset", pl_unit_bytes(top), "bytes");
	/* Shaded spans first, so the segments stay on top. */
	pl_draw_limits(g, c, dir);
	draw_marks(g, c, dir, binned, true);
	if (c->raw)
		tseq_raw(g, c, dir);
	else
		tseq_cols(g, c, dir);
	draw_marks(g, c, dir, binned, false);
	pl_svg_note(g, c);
	for (unsigned m = 0; m < PL_MK_COUNT; m++) {
		size_t len = strlen(g->note);
		if (binned & (1u << m))
			snprintf(g->note + len, sizeof(g->note) - len, "%s %llu %s",
				 binned & ((1u << m) - 1) ? "," : "; binned:",
				 (unsigned long long)n[m], pl_mark_class[m]);
	}
	pl_svg_end(g);
}
