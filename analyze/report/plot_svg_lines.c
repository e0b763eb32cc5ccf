/* plot_svg_lines.c - the graphs of levels over time: throughput, RTT, bytes in flight, window. */
#include "analyze/report/plot_svg_int.h"
#include "analyze/report/report.h"

#include <string.h>

/* ---- throughput ---- */

#define TPUT_BINS 100u

void pl_svg_tput(struct pl_svg *g, const struct pl_conn *c, unsigned dir)
{
	uint64_t bytes[TPUT_BINS] = {0}, good[TPUT_BINS] = {0};
	double span = g->t1 - g->t0, binw;
	unsigned nbins;

	if (c->raw) {
		nbins = TPUT_BINS;
		binw = span / nbins;
		for (uint32_t k = 0; k < c->nrecs; k++) {
			const struct pl_rec *r = &c->recs[k];
			if (r->dir != dir || !(r->flags & PL_R_DATA))
				continue;
			unsigned b = (unsigned)(pl_secs(r->t) / binw);
			b = b < nbins ? b : nbins - 1;
			bytes[b] += r->len;
			good[b] += (r->flags & PL_R_NEW) ? r->len : 0;
		}
	} else {
		/* Whole columns per bin, so no column is split. */
		uint32_t per = (c->col_used + TPUT_BINS - 1) / TPUT_BINS;
		per = per ? per : 1;
		nbins = (c->col_used + per - 1) / per;
		nbins = nbins ? nbins : 1;
		binw = pl_secs(c->col_width) * per;
		for (uint32_t k = 0; k < c->col_used; k++) {
			bytes[k / per] += c->col[dir][k].bytes;
			good[k / per] += c->col[dir][k].good;
		}
	}
	/* A bin's rate over the part of it the connection lasted (the last
	 * column ends after the last packet). */
	double rate[2][TPUT_BINS], top = 0;
	for (unsigned b = 0; b < nbins; b++) {
		double lasted = (b + 1) * binw > span ? span - b * binw : binw;
		lasted = lasted > 0 ? lasted : binw;
		rate[0][b] = (double)bytes[b] * 8 / lasted;
		rate[1][b] = (double)good[b] * 8 / lasted;
		if (rate[0][b] > top)
			top = rate[0][b];
	}
	top = pl_nice_top(top);
	g->y0 = 0;
	g->y1 = top;
	pl_svg_begin(g, c, dir, "throughput and goodput", "rate", pl_unit_bits(top), "bit/s");
	pl_draw_limits(g, c, dir);
	const char *cls[2] = {"tput", "goodput"};
	for (unsigned line = 0; line < 2; line++) {
		fprintf(g->f, "<path class=\"%s\" data-bin=\"%.9g\" d=\"", cls[line], binw);
		for (unsigned b = 0; b < nbins; b++) {
			double end = (b + 1) * binw < span ? (b + 1) * binw : span;
			fprintf(g->f, "%c%.2f %.2fH%.2f", b ? 'L' : 'M', pl_x(g, b * binw),
				pl_y(g, rate[line][b]), pl_x(g, end));
		}
		fputs("\"/>\n", g->f);
	}
	g->legend |= 1u << PL_LEG_TPUT | 1u << PL_LEG_GOOD;
	snprintf(g->note, sizeof(g->note),
		 "averaged over %.6g s bins; %llu bytes sent in %llu data segments", binw,
		 (unsigned long long)c->d[dir].bytes, (unsigned long long)c->d[dir].data_packets);
	pl_svg_end(g);
}

/* ---- RTT samples ---- */

/* The path's RTT (ns, < 0 unknown) as a labelled line across the graph. */
static void write_path_rtt(struct pl_svg *g, int64_t ns)
{
	char d[32];

	if (ns < 0)
		return;
	double ms = (double)ns / 1e6, y = pl_y(g, ms);
	rep_fmt_dur(d, sizeof(d), ns);
	fprintf(g->f,
		"<line class=\"path-rtt\" x1=\"%g\" y1=\"%.2f\" x2=\"%g\" y2=\"%.2f\" "
		"data-path-rtt-ms=\"%.6f\"/>\n"
		"<text class=\"sub\" x=\"%g\" y=\"%.2f\">path RTT %s (end to end)</text>\n",
		PL_PX, y, PL_PX + PL_PW, y, ms, PL_PX + 4, y - 3, d);
	g->legend |= 1u << PL_LEG_PATH_RTT;
}

void pl_svg_rtt(struct pl_svg *g, const struct pl_conn *c, unsigned dir)
{
	double top = 0;
	uint64_t n = 0;

	if (c->raw) {
		for (uint32_t k = 0; k < c->nrecs; k++) {
			const struct pl_rec *r = &c->recs[k];
			if (r->dir != dir && (r->flags & PL_R_RTT)) {
				n++;
				if ((double)r->rtt_ns / 1e6 > top)
					top = (double)r->rtt_ns / 1e6;
			}
		}
	} else {
		for (uint32_t k = 0; k < c->col_used; k++) {
			const struct pl_col *col = &c->col[dir][k];
			if (col->have & PL_C_RTT) {
				n += col->rtt_n;
				if ((double)col->rtt_hi / 1e6 > top)
					top = (double)col->rtt_hi / 1e6;
			}
		}
	}
	/* The samples are this capture point's loop to the ACKing side; the
	 * path's round trip, end to end, is the reference they sit under. */
	double path_ms = c->path.rtt_ns >= 0 ? (double)c->path.rtt_ns / 1e6 : -1;
	top = pl_nice_top(path_ms * 1.1 > top ? path_ms * 1.1 : top);
	g->y0 = 0;
	g->y1 = top;
	pl_svg_begin(g, c, dir, "RTT samples", "RTT", (struct pl_unit){1, "ms"}, "ms");
	FILE *f = g->f;
	write_path_rtt(g, c->path.rtt_ns);
	if (c->raw) {
		for (uint32_t k = 0; k < c->nrecs; k++) {
			const struct pl_rec *r = &c->recs[k];
			if (r->dir == dir || !(r->flags & PL_R_RTT))
				continue;
			double ms = (double)r->rtt_ns / 1e6;
			fprintf(
			    f,
			    "<circle class=\"rtt\" cx=\"%.2f\" cy=\"%.2f\" r=\"2\" data-t=\"%.9f\" "
			    "data-rtt-ms=\"%.6f\" data-frame=\"%llu\"><title>ACK frame %llu, "
			    "t=%.6f "
			    "s: %.3f ms</title></circle>\n",
			    pl_x(g, pl_secs(r->t)), pl_y(g, ms), pl_secs(r->t), ms,
			    (unsigned long long)r->frame, (unsigned long long)r->frame,
			    pl_secs(r->t), ms);
		}
		g->legend |= n ? 1u << PL_LEG_RTT : 0;
	} else {
		double w = pl_secs(c->col_width);
		pl_path_begin(f, "rtt");
		for (uint32_t k = 0; k < c->col_used; k++) {
			const struct pl_col *col = &c->col[dir][k];
			if (col->have & PL_C_RTT)
				fprintf(f, "M%.2f %.2fV%.2f", pl_x(g, (k + 0.5) * w),
					pl_y(g, (double)col->rtt_lo / 1e6),
					pl_y(g, (double)col->rtt_hi / 1e6) - 0.5);
		}
		pl_path_end(f, n == 0);
		for (uint32_t k = 0; k < c->col_used; k++) {
			const struct pl_col *col = &c->col[dir][k];
			if (col->have & PL_C_RTT)
				fprintf(
				    f,
				    "<circle class=\"rtt\" cx=\"%.2f\" cy=\"%.2f\" r=\"1.5\"/>\n",
				    pl_x(g, (k + 0.5) * w),
				    pl_y(g, (double)col->rtt_sum / col->rtt_n / 1e6));
		}
		g->legend |= n ? 1u << PL_LEG_RTT_RANGE : 0;
	}
	snprintf(
	    g->note, sizeof(g->note),
	    "%llu samples: data to the ACK covering it (Karn's rule), from the capture point to "
	    "the receiver and back%s",
	    (unsigned long long)n, c->raw ? "" : "; aggregated per column");
	pl_svg_end(g);
}

/* ---- bytes in flight, receive window ---- */

void pl_svg_level(struct pl_svg *g, const struct pl_conn *c, unsigned dir, bool rwnd)
{
	double top = 0;
	FILE *f;
	const char *cls = rwnd ? "rwnd" : "inflight";

	if (c->raw) {
		for (uint32_t k = 0; k < c->nrecs; k++) {
			const struct pl_rec *r = &c->recs[k];
			if (rwnd && r->dir != dir && (r->flags & PL_R_ACK) && r->win > top)
				top = r->win;
			if (!rwnd && r->dir == dir && (r->flags & PL_R_DATA) && r->inflight > top)
				top = r->inflight;
		}
	} else {
		for (uint32_t k = 0; k < c->col_used; k++) {
			const struct pl_col *col = &c->col[dir][k];
			if (rwnd && (col->have & PL_C_RWND) && col->rwnd_hi > top)
				top = col->rwnd_hi;
			if (!rwnd && (col->have & PL_C_INFL) && col->infl_hi > top)
				top = col->infl_hi;
		}
	}
	double peak = top;
	top = pl_nice_top(top);
	g->y0 = 0;
	g->y1 = top;
	pl_svg_begin(g, c, dir, rwnd ? "receive window" : "bytes in flight",
		     rwnd ? "window" : "in flight", pl_unit_bytes(top), "bytes");
	f = g->f;
	bool any = false;
	/* The highest value drawn, for tests and scripts (data-max). */
	fprintf(f, "<g class=\"level\" data-max=\"%.0f\">", peak);
	if (c->raw) {
		struct pl_stepper s = {.f = f};
		pl_path_begin(f, cls);
		for (uint32_t k = 0; k < c->nrecs; k++) {
			const struct pl_rec *r = &c->recs[k];
			if (rwnd && r->dir != dir && (r->flags & PL_R_ACK))
				pl_step_to(&s, pl_x(g, pl_secs(r->t)), pl_y(g, r->win));
			else if (!rwnd && r->dir == dir && (r->flags & PL_R_DATA))
				pl_step_to(&s, pl_x(g, pl_secs(r->t)), pl_y(g, r->inflight));
		}
		pl_path_end(f, !s.started);
		any = s.started;
	} else {
		double w = pl_secs(c->col_width);
		pl_path_begin(f, cls);
		for (uint32_t k = 0; k < c->col_used; k++) {
			const struct pl_col *col = &c->col[dir][k];
			unsigned bit = rwnd ? PL_C_RWND : PL_C_INFL;
			if (!(col->have & bit))
				continue;
			uint32_t lo = rwnd ? col->rwnd_lo : col->infl_lo;
			uint32_t hi = rwnd ? col->rwnd_hi : col->infl_hi;
			fprintf(f, "%c%.2f %.2fV%.2fH%.2f", any ? 'L' : 'M', pl_x(g, k * w),
				pl_y(g, lo), pl_y(g, hi), pl_x(g, (k + 1) * w));
			any = true;
		}
		pl_path_end(f, !any);
	}
	fputs("</g>\n", f);
	g->legend |= any ? 1u << (rwnd ? PL_LEG_RWND : PL_LEG_INFL) : 0;
	snprintf(g->note, sizeof(g->note), "%s; %s",
		 rwnd ? "the window the receiver advertised (scaled when the SYNs were seen)"
		      : "highest byte sent - highest byte ACKed, at each data segment",
		 c->raw ? "every packet drawn" : "aggregated per column: lowest to highest");
	pl_svg_end(g);
}
