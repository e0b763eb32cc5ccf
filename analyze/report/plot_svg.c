/* plot_svg.c - a connection's graphs as self-contained SVG: time-sequence, throughput, RTT, in
 * flight, window. */
#include "analyze/report/markup.h"
#include "analyze/report/plot_int.h"
#include "analyze/report/report.h"
#include "common/err.h"

#include <math.h>
#include <string.h>

/*
 * Every graph is one 1000x560 SVG with its style inside (no script, no
 * external file): a title naming the connection and the direction, axes in
 * real units, the plot area, a legend of what it shows. The plot area is a
 * <g class="plot"> carrying its data range and its place in pixels
 *
 *   data-t0 data-t1   seconds from the connection's first packet (x)
 *   data-y0 data-y1   the y unit (data-unit: bytes, bit/s, ms)
 *   data-x data-y data-w data-h   the area in pixels (y grows downwards)
 *
 * so a test maps a value to a pixel. Anomaly marks are elements of their
 * own with a class (pl_mark_class[]), data-t / data-seq / data-frame and a
 * <title> (the tooltip); ordinary segments are one path per class.
 */

#define SVG_W  1000
#define SVG_H  560
#define PX     80.0
#define PY     56.0
#define PW     880.0
#define PH     400.0
#define LEG_Y  (PY + PH + 56)
#define NQCOLS 8 /* queue colours */

struct svg {
	FILE *f;
	double t0, t1, y0, y1; /* data range: seconds, the y unit */
	unsigned legend;       /* bits: enum leg_item shown */
	uint64_t queues;       /* queue colours used */
	char note[256];	       /* the sub-title: how the graph was made */
	double label_x;	       /* where the last span label went */
};

enum leg_item {
	LEG_SEG = 0,
	LEG_SEG_AGG,
	LEG_RETRANS,
	LEG_OOO,
	LEG_ACK,
	LEG_WIN,
	LEG_SACK,
	LEG_HOLE,
	LEG_STALL,
	LEG_ZWIN,
	LEG_GAP,
	LEG_LOSS,
	LEG_TPUT,
	LEG_GOOD,
	LEG_RTT,
	LEG_RTT_RANGE,
	LEG_PATH_RTT,
	LEG_INFL,
	LEG_RWND,
	LEG_AGG_COUNT,
	LEG_LIMIT, /* LIMIT_COUNT items: the limit of a time slice, by class */
	LEG_COUNT = LEG_LIMIT + LIMIT_COUNT,
};

static const struct {
	const char *cls, *label;
	bool area; /* a shaded area, else a line */
} leg[LEG_COUNT] = {
    [LEG_SEG] = {"seg", "data segment", false},
    [LEG_SEG_AGG] = {"seg", "data sent (per column: lowest to highest byte)", false},
    [LEG_RETRANS] = {"retrans", "retransmission", false},
    [LEG_OOO] = {"ooo", "out of order (late original)", false},
    [LEG_ACK] = {"ack", "cumulative ACK", false},
    [LEG_WIN] = {"win", "advertised window (ACK + window)", false},
    [LEG_SACK] = {"sack", "SACK block", false},
    [LEG_HOLE] = {"hole", "SACK hole", true},
    [LEG_STALL] = {"stall", "stall", true},
    [LEG_ZWIN] = {"zwin-span", "zero window", true},
    [LEG_GAP] = {"gap", "capture gap (bytes never captured)", false},
    [LEG_LOSS] = {"loss", "capture loss (ACKed, never captured)", true},
    [LEG_TPUT] = {"tput", "throughput (all payload)", false},
    [LEG_GOOD] = {"goodput", "goodput (new bytes)", false},
    [LEG_RTT] = {"rtt", "RTT sample", false},
    [LEG_RTT_RANGE] = {"rtt", "RTT samples (per column: min to max, dot: mean)", false},
    [LEG_PATH_RTT] = {"path-rtt", "path RTT (end to end)", false},
    [LEG_INFL] = {"inflight", "bytes in flight", false},
    [LEG_RWND] = {"rwnd", "receive window", false},
    [LEG_AGG_COUNT] = {"retrans agg", "marks beyond the cap: a strip per kind, darker = more",
		       false},
    [LEG_LIMIT + LIMIT_RECEIVER_WINDOW] = {"lim-rwnd", "limit: receiver window", true},
    [LEG_LIMIT + LIMIT_CONGESTION] = {"lim-cong", "limit: congestion", true},
    [LEG_LIMIT + LIMIT_SENDER_BUFFER] = {"lim-sndbuf", "limit: sender buffer", true},
    [LEG_LIMIT + LIMIT_SENDER_APP] = {"lim-sndapp", "limit: sending application", true},
    [LEG_LIMIT + LIMIT_RECEIVER_APP] = {"lim-rcvapp", "limit: receiving application", true},
    [LEG_LIMIT + LIMIT_STALL] = {"lim-stall", "limit: stalls", true},
    [LEG_LIMIT + LIMIT_SLOW_START] = {"lim-ss", "limit: slow start", true},
    [LEG_LIMIT + LIMIT_BOTTLENECK] = {"lim-bneck", "limit: bottleneck", true},
};

static const char *const queue_colour[NQCOLS] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#8c564b",
						 "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

static double sx(const struct svg *g, double t)
{
	return PX + (t - g->t0) / (g->t1 - g->t0) * PW;
}

static double sy(const struct svg *g, double v)
{
	return PY + PH - (v - g->y0) / (g->y1 - g->y0) * PH;
}

static double secs(int64_t ns)
{
	return (double)ns / 1e9;
}

/* A step of about range / n: 1, 2 or 5 times a power of ten. */
static double nice_step(double range, int n)
{
	double raw = range / n;
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;

	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

/* A top for the axis: v, or a little above the highest tick it needs. */
static double nice_top(double v)
{
	if (!(v > 0))
		return 1;
	double step = nice_step(v, 5);
	return ceil(v / step) * step;
}

static int decimals(double step)
{
	int d = (int)-floor(log10(step) + 1e-9);
	return d < 0 ? 0 : d > 9 ? 9 : d;
}

/* The unit the y axis shows: value / div, named name. */
struct unit {
	double div;
	const char *name;
};

static struct unit unit_bytes(double top)
{
	return top >= 1e9   ? (struct unit){1e9, "GB"}
	       : top >= 1e6 ? (struct unit){1e6, "MB"}
	       : top >= 1e4 ? (struct unit){1e3, "KB"}
			    : (struct unit){1, "bytes"};
}

static struct unit unit_bits(double top)
{
	return top >= 1e9   ? (struct unit){1e9, "Gbit/s"}
	       : top >= 1e6 ? (struct unit){1e6, "Mbit/s"}
	       : top >= 1e3 ? (struct unit){1e3, "kbit/s"}
			    : (struct unit){1, "bit/s"};
}

static const char *dir_words(unsigned dir)
{
	return dir == SUM_C2S ? "client to server" : "server to client";
}

static void svg_begin(struct svg *g, const struct pl_conn *c, unsigned dir, const char *what,
		      const char *yname, struct unit u, const char *data_unit)
{
	FILE *f = g->f;
	char ep[160];

	pl_endpoints(c, dir, ep, sizeof(ep));
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		SVG_W, SVG_H, SVG_W, SVG_H);
	fputs(
	    "<style>\n"
	    ".bg{fill:#fff}.frame{fill:none;stroke:#555}.grid{stroke:#e8e8e8}\n"
	    ".tick{fill:#333;font-size:11px}.title{font-size:15px;font-weight:bold}\n"
	    ".sub{fill:#555}\n"
	    ".seg{stroke:#1f3a93;fill:none}.retrans{stroke:#d62728;stroke-width:3}\n"
	    ".ooo{stroke:#9467bd;stroke-width:3}.gap{stroke:#ff00ff;stroke-width:2;"
	    "stroke-dasharray:3 2}\n"
	    ".ack{stroke:#2ca02c;fill:none}.win{stroke:#c7b300;fill:none}"
	    ".sack{stroke:#e377c2;fill:none;stroke-width:2}\n"
	    ".hole{fill:#d62728;fill-opacity:.18;stroke:#d62728;stroke-width:.5}\n"
	    ".stall{fill:#ff7f0e;fill-opacity:.16}.stall text{fill:#a04000;font-size:10px}\n"
	    ".zwin-span{fill:#7f7f7f;fill-opacity:.2}.zwin{fill:#000}\n"
	    ".loss{fill:#ff00ff;fill-opacity:.25}\n"
	    ".tput{stroke:#1f77b4;fill:none;stroke-width:1.5}"
	    ".goodput{stroke:#2ca02c;fill:none;stroke-width:1.5;stroke-dasharray:4 2}\n"
	    ".rtt{stroke:#d62728;fill:#d62728}.inflight{stroke:#1f77b4;fill:none}"
	    ".path-rtt{stroke:#2ca02c;stroke-width:1.5;stroke-dasharray:6 3}"
	    ".rwnd{stroke:#c7b300;fill:none;stroke-width:1.5}\n"
	    "line.agg{stroke-width:1.5;stroke-dasharray:none}.aggname{font-size:8px;"
	    "text-anchor:end;fill:#555}\n"
	    "line.agg.stall{stroke:#ff7f0e}line.agg.hole{stroke:#d62728}"
	    "line.agg.loss{stroke:#ff00ff}line.agg.zwin-span,line.agg.zwin{stroke:#555}\n"
	    ".lim-rwnd{fill:#bcbd22;fill-opacity:.12}.lim-cong{fill:#d62728;fill-opacity:.1}"
	    ".lim-sndbuf{fill:#17becf;fill-opacity:.12}.lim-sndapp{fill:#7f7f7f;fill-opacity:.1}\n"
	    ".lim-rcvapp{fill:#8c564b;fill-opacity:.12}.lim-stall{fill:#ff7f0e;fill-opacity:.1}"
	    ".lim-ss{fill:#2ca02c;fill-opacity:.1}.lim-bneck{fill:#9467bd;fill-opacity:.12}\n",
	    f);
	for (unsigned q = 0; q < NQCOLS; q++)
		fprintf(f, ".q%u{stroke:%s}", q, queue_colour[q]);
	fputs("\n</style>\n", f);
	fprintf(f, "<title>#%llu ", (unsigned long long)c->id);
	mk_escape(f, ep);
	fprintf(f, " (%s): %s</title>\n", sum_dir_name(dir), what);
	fprintf(f, "<rect class=\"bg\" width=\"%d\" height=\"%d\"/>\n", SVG_W, SVG_H);
	fprintf(f, "<text class=\"title\" x=\"%g\" y=\"22\">#%llu ", PX, (unsigned long long)c->id);
	mk_escape(f, ep);
	fprintf(f, " &#8212; %s data (%s): %s</text>\n", sum_dir_name(dir), dir_words(dir), what);

	/* Axes: ticks and grid, then the frame. */
	double tstep = nice_step(g->t1 - g->t0, 10), ystep = nice_step(g->y1 - g->y0, 8);
	int td = decimals(tstep), yd = decimals(ystep / u.div);
	fputs("<g class=\"axes\">\n", f);
	for (double t = ceil(g->t0 / tstep) * tstep; t <= g->t1 + tstep * 1e-6; t += tstep) {
		double x = sx(g, t);
		fprintf(
		    f,
		    "<line class=\"grid\" x1=\"%.2f\" y1=\"%g\" x2=\"%.2f\" y2=\"%g\"/>"
		    "<text class=\"tick\" x=\"%.2f\" y=\"%g\" text-anchor=\"middle\">%.*f</text>\n",
		    x, PY, x, PY + PH, x, PY + PH + 16, td, t);
	}
	for (double v = ceil(g->y0 / ystep) * ystep; v <= g->y1 + ystep * 1e-6; v += ystep) {
		double y = sy(g, v);
		fprintf(
		    f,
		    "<line class=\"grid\" x1=\"%g\" y1=\"%.2f\" x2=\"%g\" y2=\"%.2f\"/>"
		    "<text class=\"tick\" x=\"%g\" y=\"%.2f\" text-anchor=\"end\">%.*f</text>\n",
		    PX, y, PX + PW, y, PX - 6, y + 4, yd, v / u.div);
	}
	fprintf(f,
		"<rect class=\"frame\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>\n"
		"<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">time (s since the connection's "
		"first packet)</text>\n"
		"<text x=\"16\" y=\"%g\" text-anchor=\"middle\" transform=\"rotate(-90 16 %g)\">%s "
		"(%s)</text>\n</g>\n",
		PX, PY, PW, PH, PX + PW / 2, PY + PH + 34, PY + PH / 2, PY + PH / 2, yname, u.name);
	fprintf(f,
		"<clipPath id=\"area\"><rect x=\"%g\" y=\"%g\" width=\"%g\" "
		"height=\"%g\"/></clipPath>\n",
		PX, PY, PW, PH);
	fprintf(f,
		"<g class=\"plot\" clip-path=\"url(#area)\" data-t0=\"%.9g\" data-t1=\"%.9g\" "
		"data-y0=\"%.9g\" data-y1=\"%.9g\" data-unit=\"%s\" data-x=\"%g\" data-y=\"%g\" "
		"data-w=\"%g\" data-h=\"%g\">\n",
		g->t0, g->t1, g->y0, g->y1, data_unit, PX, PY, PW, PH);
}

/* A sub-title: how the graph was made (per packet, or per column). */
static void svg_note(struct svg *g, const struct pl_conn *c)
{
	if (c->raw)
		snprintf(g->note, sizeof(g->note), "every packet drawn; anomaly marks: %u",
			 c->nmarks);
	else
		snprintf(g->note, sizeof(g->note),
			 "aggregated: one column per %.6g s (lowest to highest); anomaly marks: "
			 "%u%s%llu beyond the cap of %u, counted per column",
			 secs(c->col_width), c->nmarks, c->marks_over ? " + " : ", ",
			 (unsigned long long)c->marks_over, PL_MARKS_MAX);
}

static void svg_end(struct svg *g)
{
	FILE *f = g->f;
	double x = PX;

	fputs("</g>\n", f);
	if (g->note[0]) {
		fprintf(f, "<text class=\"sub\" x=\"%g\" y=\"40\">", PX);
		mk_escape(f, g->note);
		fputs("</text>\n", f);
	}
	fputs("<g class=\"legend\">\n", f);
	double row = 0;
	for (unsigned k = 0; k < LEG_COUNT; k++) {
		if (!(g->legend & (1u << k)))
			continue;
		double w = 34 + 6.8 * (double)strlen(leg[k].label);
		if (x + w > SVG_W - 10) {
			x = PX;
			row += 18;
			fprintf(f, "</g>\n<g class=\"legend\" transform=\"translate(0 %g)\">\n",
				row);
		}
		if (leg[k].area)
			fprintf(
			    f,
			    "<rect class=\"%s\" x=\"%.1f\" y=\"%g\" width=\"14\" height=\"10\"/>",
			    leg[k].cls, x, LEG_Y - 9);
		else
			fprintf(f,
				"<line class=\"%s\" x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" "
				"stroke-width=\"3\"/>",
				leg[k].cls, x, LEG_Y - 4, x + 14, LEG_Y - 4);
		fprintf(f, "<text x=\"%.1f\" y=\"%g\">%s</text>\n", x + 18, LEG_Y, leg[k].label);
		x += w;
	}
	if (g->queues) {
		if (x + 62 + 30 * __builtin_popcountll(g->queues) > SVG_W - 10) {
			x = PX;
			row += 18;
			fprintf(f, "</g>\n<g class=\"legend\" transform=\"translate(0 %g)\">\n",
				row);
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%g\">RX queue:</text>", x, LEG_Y);
		x += 62;
		for (unsigned q = 0; q < 64; q++) {
			if (!(g->queues & (1ull << q)))
				continue;
			fprintf(
			    f,
			    "<line class=\"seg q%u\" x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" "
			    "stroke-width=\"3\"/><text x=\"%.1f\" y=\"%g\">%u</text>",
			    q % NQCOLS, x, LEG_Y - 4, x + 10, LEG_Y - 4, x + 13, LEG_Y, q);
			x += 30;
		}
		fputc('\n', f);
	}
	fputs("</g>\n</svg>\n", f);
}

/* ---- what limited the transfer ---- */

/* Shade dir's time slices by the limit that dominated each (the limit
 * detector's slices; a band along the bottom of the plot area, so the
 * stall and zero-window spans stay readable), with a legend entry per
 * limit shown. */
static void draw_limits(struct svg *g, const struct pl_conn *c, unsigned dir)
{
	const struct limit_dir *l = &c->limit[dir];

	if (l->width <= 0)
		return;
	fputs("<g class=\"limits\">\n", g->f);
	for (unsigned k = 0; k < l->nslices && k < LIMIT_SLICES; k++) {
		unsigned cls = l->slice[k];
		if (cls >= LIMIT_COUNT)
			continue;
		double a = secs(l->t0 - c->t0 + (int64_t)k * l->width);
		double b = a + secs(l->width);
		a = a < g->t0 ? g->t0 : a;
		b = b > g->t1 ? g->t1 : b;
		if (b <= a)
			continue;
		g->legend |= 1u << (LEG_LIMIT + cls);
		fprintf(g->f,
			"<rect class=\"%s\" data-limit=\"%s\" x=\"%.2f\" y=\"%g\" width=\"%.2f\" "
			"height=\"%g\"><title>%s</title></rect>\n",
			leg[LEG_LIMIT + cls].cls, limit_class_name((enum limit_class)cls), sx(g, a),
			PY + PH - 24, sx(g, b) - sx(g, a), 24.0, leg[LEG_LIMIT + cls].label);
	}
	fputs("</g>\n", g->f);
}

/* ---- the time-sequence graph ---- */

static void mark_title(FILE *f, const struct pl_mark *m, const char *what)
{
	fprintf(f, "<title>%s: frame %llu, t=%.6f s, seq %u", what, (unsigned long long)m->frame,
		secs(m->t), m->seq);
	if (m->len)
		fprintf(f, "-%u (%u bytes)", m->seq + m->len, m->len);
	if (m->dur >= 0)
		fprintf(f, ", %.3f ms", (double)m->dur / 1e6);
	fputs("</title>", f);
}

static void mark_attrs(FILE *f, const struct pl_mark *m)
{
	fprintf(f, " data-t=\"%.9f\" data-seq=\"%u\" data-len=\"%u\" data-frame=\"%llu\"",
		secs(m->t), m->seq, m->len, (unsigned long long)m->frame);
	if (m->dur >= 0)
		fprintf(f, " data-dur=\"%.9f\"", secs(m->dur));
}

static void draw_mark(struct svg *g, const struct pl_mark *m)
{
	FILE *f = g->f;
	const char *cls = pl_mark_class[m->kind];
	double x = sx(g, secs(m->t)), xe = sx(g, secs(m->t + (m->dur > 0 ? m->dur : 0)));
	double ylo = sy(g, m->seq), yhi = sy(g, (double)m->seq + m->len);

	switch (m->kind) {
	case PL_MK_RETRANS:
	case PL_MK_OOO:
	case PL_MK_GAP: {
		static const char *const what[] = {[PL_MK_RETRANS] = "retransmission",
						   [PL_MK_OOO] = "out of order",
						   [PL_MK_GAP] = "capture gap"};
		g->legend |= 1u << (m->kind == PL_MK_RETRANS ? LEG_RETRANS
				    : m->kind == PL_MK_OOO   ? LEG_OOO
							     : LEG_GAP);
		fprintf(f, "<line class=\"%s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"",
			cls, x, ylo, x, yhi - (yhi == ylo ? 1 : 0));
		mark_attrs(f, m);
		fputc('>', f);
		mark_title(f, m, what[m->kind]);
		fputs("</line>\n", f);
		return;
	}
	case PL_MK_ZWIN:
		g->legend |= 1u << LEG_ZWIN;
		fprintf(f, "<circle class=\"zwin\" cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\"", x, ylo);
		mark_attrs(f, m);
		fputc('>', f);
		mark_title(f, m, "zero window advertised");
		fputs("</circle>\n", f);
		return;
	case PL_MK_HOLE:
	case PL_MK_LOSS:
		g->legend |= 1u << (m->kind == PL_MK_HOLE ? LEG_HOLE : LEG_LOSS);
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
		g->legend |= 1u << (m->kind == PL_MK_STALL ? LEG_STALL : LEG_ZWIN);
		fprintf(f, "<g class=\"%s\"", cls);
		mark_attrs(f, m);
		if (m->kind == PL_MK_STALL)
			fprintf(f, " data-class=\"%s\"",
				m->timer_like ? "timer_like"
					      : stall_class_name((enum stall_class)m->cls));
		fputc('>', f);
		fprintf(f, "<title>%s: from frame %llu at t=%.6f s</title>", label,
			(unsigned long long)m->frame, secs(m->t));
		fprintf(f, "<rect x=\"%.2f\" y=\"%g\" width=\"%.2f\" height=\"%g\"/>", x, PY,
			xe - x < 1 ? 1 : xe - x, PH);
		/* A label where it does not cover the last one (the tooltip
		 * always says it). */
		if (x >= g->label_x + 12) {
			fprintf(f,
				"<text x=\"%.2f\" y=\"%g\" transform=\"rotate(-90 %.2f %g)\" "
				"text-anchor=\"end\">",
				x + 9, PY + 4, x + 9, PY + 4);
			mk_escape(f, label);
			fputs("</text>", f);
			g->label_x = x;
		}
		fputs("</g>\n", f);
		return;
	}
	}
}

/* A step line through (t, v) points, as one path. */
struct stepper {
	FILE *f;
	bool started;
	double last_y;
};

static void step_to(struct stepper *s, double x, double y)
{
	if (!s->started) {
		fprintf(s->f, "M%.2f %.2f", x, y);
		s->started = true;
	} else {
		fprintf(s->f, "H%.2f", x);
		if (y != s->last_y)
			fprintf(s->f, "V%.2f", y);
	}
	s->last_y = y;
}

static void path_begin(FILE *f, const char *cls)
{
	fprintf(f, "<path class=\"%s\" d=\"", cls);
}

static void path_end(FILE *f, bool empty)
{
	fputs(empty ? "M0 0\"/>\n" : "\"/>\n", f);
}

static bool queue_known(int16_t q)
{
	return q >= 0;
}

static void tseq_raw(struct svg *g, const struct pl_conn *c, unsigned dir)
{
	FILE *f = g->f;
	const char *base[3] = {"seg", "ack", "win"};

	/* Originals: one path per queue colour (or one without queues). */
	for (int q = -1; q < NQCOLS; q++) {
		bool any = false;
		for (uint32_t k = 0; k < c->nrecs; k++) {
			const struct pl_rec *r = &c->recs[k];
			if (r->dir != dir || !(r->flags & PL_R_DATA) ||
			    (r->flags & (PL_R_RETRANS | PL_R_OOO)))
				continue;
			int rq = queue_known(r->queue) ? r->queue % NQCOLS : -1;
			if (rq != q)
				continue;
			if (!any) {
				if (q < 0)
					path_begin(f, base[0]);
				else
					fprintf(f, "<path class=\"seg q%d\" d=\"", q);
				any = true;
			}
			double x = sx(g, secs(r->t)), y0 = sy(g, r->seq),
			       y1 = sy(g, (double)r->seq + r->len);
			fprintf(f, "M%.2f %.2fV%.2fM%.2f %.2fh3", x, y0, y1, x - 1.5, y1);
			if (queue_known(r->queue))
				g->queues |= 1ull << (r->queue < 64 ? r->queue : 63);
		}
		if (any) {
			path_end(f, false);
			g->legend |= 1u << LEG_SEG;
		}
	}
	/* The receiver's ACK and window lines, and its SACK blocks. */
	struct stepper ack = {.f = f}, win = {.f = f};
	path_begin(f, base[1]);
	for (uint32_t k = 0; k < c->nrecs; k++) {
		const struct pl_rec *r = &c->recs[k];
		if (r->dir != dir && (r->flags & PL_R_ACK))
			step_to(&ack, sx(g, secs(r->t)), sy(g, r->ack));
	}
	path_end(f, !ack.started);
	path_begin(f, base[2]);
	for (uint32_t k = 0; k < c->nrecs; k++) {
		const struct pl_rec *r = &c->recs[k];
		if (r->dir != dir && (r->flags & PL_R_ACK))
			step_to(&win, sx(g, secs(r->t)), sy(g, (double)r->ack + r->win));
	}
	path_end(f, !win.started);
	if (ack.started)
		g->legend |= 1u << LEG_ACK | 1u << LEG_WIN;
	bool sacks = false;
	path_begin(f, "sack");
	for (uint32_t k = 0; k < c->nrecs; k++) {
		const struct pl_rec *r = &c->recs[k];
		if (r->dir == dir || !(r->flags & PL_R_ACK))
			continue;
		double x = sx(g, secs(r->t));
		for (unsigned b = 0; b < r->nsack; b++) {
			const uint32_t *s = c->sacks[r->sack + b];
			fprintf(f, "M%.2f %.2fV%.2f", x, sy(g, s[0]), sy(g, s[1]));
			sacks = true;
		}
	}
	path_end(f, !sacks);
	if (sacks)
		g->legend |= 1u << LEG_SACK;
}

static void tseq_cols(struct svg *g, const struct pl_conn *c, unsigned dir)
{
	FILE *f = g->f;
	const struct pl_col *col = c->col[dir];
	double w = secs(c->col_width);
	bool any = false;

	path_begin(f, "seg");
	for (uint32_t k = 0; k < c->col_used; k++) {
		if (!(col[k].have & PL_C_SEQ))
			continue;
		double x = sx(g, (k + 0.5) * w);
		fprintf(f, "M%.2f %.2fV%.2f", x, sy(g, col[k].seq_lo),
			sy(g, col[k].seq_hi) - (col[k].seq_hi == col[k].seq_lo ? 1 : 0));
		any = true;
		if (queue_known(col[k].queue))
			g->queues |= 1ull << (col[k].queue < 64 ? col[k].queue : 63);
	}
	path_end(f, !any);
	if (any)
		g->legend |= 1u << LEG_SEG_AGG;
	/* Queue colours: a column's last segment's queue, over the data. */
	for (unsigned q = 0; g->queues && q < NQCOLS; q++) {
		bool qany = false;
		for (uint32_t k = 0; k < c->col_used; k++) {
			if (!(col[k].have & PL_C_SEQ) || !queue_known(col[k].queue) ||
			    (unsigned)col[k].queue % NQCOLS != q)
				continue;
			if (!qany)
				fprintf(f, "<path class=\"seg q%u\" d=\"", q);
			qany = true;
			double x = sx(g, (k + 0.5) * w);
			fprintf(f, "M%.2f %.2fV%.2f", x, sy(g, col[k].seq_lo),
				sy(g, col[k].seq_hi));
		}
		if (qany)
			path_end(f, false);
	}
	/* ACK and window: lowest at a column's start, highest at its end. */
	const char *cls[2] = {"ack", "win"};
	for (unsigned line = 0; line < 2; line++) {
		bool started = false;
		path_begin(f, cls[line]);
		for (uint32_t k = 0; k < c->col_used; k++) {
			if (!(col[k].have & PL_C_ACK))
				continue;
			uint32_t lo = line ? col[k].win_lo : col[k].ack_lo;
			uint32_t hi = line ? col[k].win_hi : col[k].ack_hi;
			fprintf(f, "%c%.2f %.2fL%.2f %.2f", started ? 'L' : 'M', sx(g, k * w),
				sy(g, lo), sx(g, (k + 1) * w), sy(g, hi));
			started = true;
		}
		path_end(f, !started);
		if (started)
			g->legend |= 1u << (line ? LEG_WIN : LEG_ACK);
	}
	bool sacks = false;
	path_begin(f, "sack");
	for (uint32_t k = 0; k < c->col_used; k++) {
		if ((col[k].have & PL_C_ACK) && col[k].sack_hi > col[k].ack_hi) {
			double x = sx(g, (k + 0.5) * w);
			fprintf(f, "M%.2f %.2fV%.2f", x, sy(g, col[k].ack_hi),
				sy(g, col[k].sack_hi));
			sacks = true;
		}
	}
	path_end(f, !sacks);
	if (sacks)
		g->legend |= 1u << LEG_SACK;
	/* Marks beyond the cap, counted per column: a strip per kind at the
	 * top of the plot, one tick per column, darker for more. */
	uint32_t most[PL_MK_COUNT] = {0};
	for (uint32_t k = 0; k < c->col_used; k++)
		for (unsigned m = 0; m < PL_MK_COUNT; m++)
			if (col[k].nmark[m] > most[m])
				most[m] = col[k].nmark[m];
	unsigned row = 0;
	for (unsigned m = 0; m < PL_MK_COUNT; m++) {
		if (!most[m])
			continue;
		double y = PY + 2 + 9 * row++;
		g->legend |= 1u << LEG_AGG_COUNT;
		fprintf(f, "<text class=\"aggname\" x=\"%g\" y=\"%.1f\">%s</text>\n", PX + PW - 4,
			y + 7, pl_mark_class[m]);
		for (uint32_t k = 0; k < c->col_used; k++) {
			unsigned n = col[k].nmark[m];
			if (!n)
				continue;
			double x = sx(g, (k + 0.5) * w);
			fprintf(f,
				"<line class=\"agg %s\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
				"y2=\"%.1f\" "
				"stroke-opacity=\"%.2f\" data-t=\"%.9f\" "
				"data-count=\"%u\"><title>%u %s "
				"marks beyond the cap in %.6f..%.6f s</title></line>\n",
				pl_mark_class[m], x, y, x, y + 8, 0.25 + 0.75 * n / most[m], k * w,
				n, n, pl_mark_class[m], k * w, (k + 1) * w);
		}
	}
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

static int write_tseq(struct svg *g, const struct pl_conn *c, unsigned dir)
{
	double top = nice_top(tseq_top(c, dir));

	g->y0 = 0;
	g->y1 = top;
	svg_begin(g, c, dir, "time-sequence", "sequence offset", unit_bytes(top), "bytes");
	/* Shaded spans first, so the segments stay on top. */
	draw_limits(g, c, dir);
	for (uint32_t k = 0; k < c->nmarks; k++) {
		const struct pl_mark *m = &c->marks[k];
		if (m->dir == dir && (m->kind == PL_MK_STALL || m->kind == PL_MK_ZWIN_SPAN))
			draw_mark(g, m);
	}
	if (c->raw)
		tseq_raw(g, c, dir);
	else
		tseq_cols(g, c, dir);
	for (uint32_t k = 0; k < c->nmarks; k++) {
		const struct pl_mark *m = &c->marks[k];
		if (m->dir == dir && m->kind != PL_MK_STALL && m->kind != PL_MK_ZWIN_SPAN)
			draw_mark(g, m);
	}
	svg_note(g, c);
	svg_end(g);
	return 0;
}

/* ---- throughput ---- */

#define TPUT_BINS 100u

static int write_tput(struct svg *g, const struct pl_conn *c, unsigned dir)
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
			unsigned b = (unsigned)(secs(r->t) / binw);
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
		binw = secs(c->col_width) * per;
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
	top = nice_top(top);
	g->y0 = 0;
	g->y1 = top;
	svg_begin(g, c, dir, "throughput and goodput", "rate", unit_bits(top), "bit/s");
	draw_limits(g, c, dir);
	const char *cls[2] = {"tput", "goodput"};
	for (unsigned line = 0; line < 2; line++) {
		fprintf(g->f, "<path class=\"%s\" data-bin=\"%.9g\" d=\"", cls[line], binw);
		for (unsigned b = 0; b < nbins; b++) {
			double end = (b + 1) * binw < span ? (b + 1) * binw : span;
			fprintf(g->f, "%c%.2f %.2fH%.2f", b ? 'L' : 'M', sx(g, b * binw),
				sy(g, rate[line][b]), sx(g, end));
		}
		fputs("\"/>\n", g->f);
	}
	g->legend |= 1u << LEG_TPUT | 1u << LEG_GOOD;
	snprintf(g->note, sizeof(g->note),
		 "averaged over %.6g s bins; %llu bytes sent in %llu data segments", binw,
		 (unsigned long long)c->d[dir].bytes, (unsigned long long)c->d[dir].data_packets);
	svg_end(g);
	return 0;
}

/* ---- RTT samples ---- */

/* The path's RTT (ns, < 0 unknown) as a labelled line across the graph. */
static void write_path_rtt(struct svg *g, int64_t ns)
{
	char d[32];

	if (ns < 0)
		return;
	double ms = (double)ns / 1e6, y = sy(g, ms);
	rep_fmt_dur(d, sizeof(d), ns);
	fprintf(g->f,
		"<line class=\"path-rtt\" x1=\"%g\" y1=\"%.2f\" x2=\"%g\" y2=\"%.2f\" "
		"data-path-rtt-ms=\"%.6f\"/>\n"
		"<text class=\"sub\" x=\"%g\" y=\"%.2f\">path RTT %s (end to end)</text>\n",
		PX, y, PX + PW, y, ms, PX + 4, y - 3, d);
	g->legend |= 1u << LEG_PATH_RTT;
}

static int write_rtt(struct svg *g, const struct pl_conn *c, unsigned dir)
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
	top = nice_top(path_ms * 1.1 > top ? path_ms * 1.1 : top);
	g->y0 = 0;
	g->y1 = top;
	svg_begin(g, c, dir, "RTT samples", "RTT", (struct unit){1, "ms"}, "ms");
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
			    sx(g, secs(r->t)), sy(g, ms), secs(r->t), ms,
			    (unsigned long long)r->frame, (unsigned long long)r->frame, secs(r->t),
			    ms);
		}
		g->legend |= n ? 1u << LEG_RTT : 0;
	} else {
		double w = secs(c->col_width);
		path_begin(f, "rtt");
		for (uint32_t k = 0; k < c->col_used; k++) {
			const struct pl_col *col = &c->col[dir][k];
			if (col->have & PL_C_RTT)
				fprintf(f, "M%.2f %.2fV%.2f", sx(g, (k + 0.5) * w),
					sy(g, (double)col->rtt_lo / 1e6),
					sy(g, (double)col->rtt_hi / 1e6) - 0.5);
		}
		path_end(f, n == 0);
		for (uint32_t k = 0; k < c->col_used; k++) {
			const struct pl_col *col = &c->col[dir][k];
			if (col->have & PL_C_RTT)
				fprintf(
				    f,
				    "<circle class=\"rtt\" cx=\"%.2f\" cy=\"%.2f\" r=\"1.5\"/>\n",
				    sx(g, (k + 0.5) * w),
				    sy(g, (double)col->rtt_sum / col->rtt_n / 1e6));
		}
		g->legend |= n ? 1u << LEG_RTT_RANGE : 0;
	}
	snprintf(
	    g->note, sizeof(g->note),
	    "%llu samples: data to the ACK covering it (Karn's rule), from the capture point to "
	    "the receiver and back%s",
	    (unsigned long long)n, c->raw ? "" : "; aggregated per column");
	svg_end(g);
	return 0;
}

/* ---- bytes in flight, receive window ---- */

static int write_level(struct svg *g, const struct pl_conn *c, unsigned dir, bool rwnd)
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
	top = nice_top(top);
	g->y0 = 0;
	g->y1 = top;
	svg_begin(g, c, dir, rwnd ? "receive window" : "bytes in flight",
		  rwnd ? "window" : "in flight", unit_bytes(top), "bytes");
	f = g->f;
	bool any = false;
	/* The highest value drawn, for tests and scripts (data-max). */
	fprintf(f, "<g class=\"level\" data-max=\"%.0f\">", peak);
	if (c->raw) {
		struct stepper s = {.f = f};
		path_begin(f, cls);
		for (uint32_t k = 0; k < c->nrecs; k++) {
			const struct pl_rec *r = &c->recs[k];
			if (rwnd && r->dir != dir && (r->flags & PL_R_ACK))
				step_to(&s, sx(g, secs(r->t)), sy(g, r->win));
			else if (!rwnd && r->dir == dir && (r->flags & PL_R_DATA))
				step_to(&s, sx(g, secs(r->t)), sy(g, r->inflight));
		}
		path_end(f, !s.started);
		any = s.started;
	} else {
		double w = secs(c->col_width);
		path_begin(f, cls);
		for (uint32_t k = 0; k < c->col_used; k++) {
			const struct pl_col *col = &c->col[dir][k];
			unsigned bit = rwnd ? PL_C_RWND : PL_C_INFL;
			if (!(col->have & bit))
				continue;
			uint32_t lo = rwnd ? col->rwnd_lo : col->infl_lo;
			uint32_t hi = rwnd ? col->rwnd_hi : col->infl_hi;
			fprintf(f, "%c%.2f %.2fV%.2fH%.2f", any ? 'L' : 'M', sx(g, k * w),
				sy(g, lo), sy(g, hi), sx(g, (k + 1) * w));
			any = true;
		}
		path_end(f, !any);
	}
	fputs("</g>\n", f);
	g->legend |= any ? 1u << (rwnd ? LEG_RWND : LEG_INFL) : 0;
	snprintf(g->note, sizeof(g->note), "%s; %s",
		 rwnd ? "the window the receiver advertised (scaled when the SYNs were seen)"
		      : "highest byte sent - highest byte ACKed, at each data segment",
		 c->raw ? "every packet drawn" : "aggregated per column: lowest to highest");
	svg_end(g);
	return 0;
}

/* ---- the files ---- */

enum svg_graph { G_TSEQ = 0, G_TPUT, G_RTT, G_INFL, G_RWND, G_COUNT };

static const char *const graph_name[G_COUNT] = {"tseq", "tput", "rtt", "inflight", "rwnd"};

int pl_svg_write(const struct pl_conn *c, const char *dir, char *errbuf, size_t errlen)
{
	/* The time axis: the whole connection, the same for every graph. */
	double t1 = secs(c->t_end);

	if (!(t1 > 0))
		t1 = 1e-3;
	for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
		if (!pl_has_data(c, d))
			continue;
		for (unsigned k = 0; k < G_COUNT; k++) {
			FILE *f = pl_open(c, dir, d, graph_name[k], "svg", errbuf, errlen);
			if (!f)
				return ERR_SYSTEM;
			struct svg g = {.f = f, .t0 = 0, .t1 = t1, .label_x = -1e9};
			switch (k) {
			case G_TSEQ:
				write_tseq(&g, c, d);
				break;
			case G_TPUT:
				write_tput(&g, c, d);
				break;
			case G_RTT:
				write_rtt(&g, c, d);
				break;
			case G_INFL:
				write_level(&g, c, d, false);
				break;
			case G_RWND:
				write_level(&g, c, d, true);
				break;
			}
			int rc = pl_close(f, c, dir, d, graph_name[k], "svg", errbuf, errlen);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}
