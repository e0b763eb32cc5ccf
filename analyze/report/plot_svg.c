/* plot_svg.c - a connection's graphs as self-contained SVG: the frame they share, the files. */
#include "analyze/report/markup.h"
#include "analyze/report/plot_svg_int.h"
#include "analyze/report/report.h"
#include "common/err.h"

#include <math.h>
#include <string.h>

static const struct {
	const char *cls, *label;
	bool area; /* a shaded area, else a line */
} leg[PL_LEG_COUNT] = {
    [PL_LEG_SEG] = {"seg", "data segment", false},
    [PL_LEG_SEG_AGG] = {"seg", "data sent (per column: lowest to highest byte)", false},
    [PL_LEG_RETRANS] = {"retrans", "retransmission", false},
    [PL_LEG_OOO] = {"ooo", "out of order (late original)", false},
    [PL_LEG_ACK] = {"ack", "cumulative ACK", false},
    [PL_LEG_WIN] = {"win", "advertised window (ACK + window)", false},
    [PL_LEG_SACK] = {"sack", "SACK block", false},
    [PL_LEG_HOLE] = {"hole", "SACK hole", true},
    [PL_LEG_STALL] = {"stall", "stall", true},
    [PL_LEG_ZWIN] = {"zwin-span", "zero window", true},
    [PL_LEG_GAP] = {"gap", "capture gap (bytes never captured)", false},
    [PL_LEG_LOSS] = {"loss", "capture loss (ACKed, never captured)", true},
    [PL_LEG_TPUT] = {"tput", "throughput (all payload)", false},
    [PL_LEG_GOOD] = {"goodput", "goodput (new bytes)", false},
    [PL_LEG_RTT] = {"rtt", "RTT sample", false},
    [PL_LEG_RTT_RANGE] = {"rtt", "RTT samples (per column: min to max, dot: mean)", false},
    [PL_LEG_PATH_RTT] = {"path-rtt", "path RTT (end to end)", false},
    [PL_LEG_INFL] = {"inflight", "bytes in flight", false},
    [PL_LEG_RWND] = {"rwnd", "receive window", false},
    [PL_LEG_BIN] = {"retrans", "binned marks (thicker = more; the count above, in the tooltip)",
		    false},
    [PL_LEG_LIMIT + LIMIT_RECEIVER_WINDOW] = {"lim-rwnd", "limit: receiver window", true},
    [PL_LEG_LIMIT + LIMIT_CONGESTION] = {"lim-cong", "limit: congestion", true},
    [PL_LEG_LIMIT + LIMIT_SENDER_BUFFER] = {"lim-sndbuf", "limit: sender buffer", true},
    [PL_LEG_LIMIT + LIMIT_SENDER_APP] = {"lim-sndapp", "limit: sending application", true},
    [PL_LEG_LIMIT + LIMIT_RECEIVER_APP] = {"lim-rcvapp", "limit: receiving application", true},
    [PL_LEG_LIMIT + LIMIT_STALL] = {"lim-stall", "limit: stalls", true},
    [PL_LEG_LIMIT + LIMIT_SLOW_START] = {"lim-ss", "limit: slow start", true},
    [PL_LEG_LIMIT + LIMIT_BOTTLENECK] = {"lim-bneck", "limit: bottleneck", true},
};

static const char *const queue_colour[PL_NQCOLS] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#8c564b",
						    "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

/* A step of about range / n: 1, 2 or 5 times a power of ten. */
static double nice_step(double range, int n)
{
	double raw = range / n;
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;

	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

/* A top for the axis: v, or a little above the highest tick it needs. */
double pl_nice_top(double v)
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

struct pl_unit pl_unit_bytes(double top)
{
	return top >= 1e9   ? (struct pl_unit){1e9, "GB"}
	       : top >= 1e6 ? (struct pl_unit){1e6, "MB"}
	       : top >= 1e4 ? (struct pl_unit){1e3, "KB"}
			    : (struct pl_unit){1, "bytes"};
}

struct pl_unit pl_unit_bits(double top)
{
	return top >= 1e9   ? (struct pl_unit){1e9, "Gbit/s"}
	       : top >= 1e6 ? (struct pl_unit){1e6, "Mbit/s"}
	       : top >= 1e3 ? (struct pl_unit){1e3, "kbit/s"}
			    : (struct pl_unit){1, "bit/s"};
}

static const char *dir_words(unsigned dir)
{
	return dir == SUM_C2S ? "client to server" : "server to client";
}

/* The axes: the time axis's ticks and grid in a group of their own (a
 * zoom redraws them), the y axis's, the frame and the axes' names. */
static void axes(struct pl_svg *g, const char *yname, struct pl_unit u)
{
	FILE *f = g->f;
	double tstep = nice_step(g->t1 - g->t0, 10), ystep = nice_step(g->y1 - g->y0, 8);
	int td = decimals(tstep), yd = decimals(ystep / u.div);

	fputs("<g class=\"axes\">\n<g class=\"xaxis\">\n", f);
	for (double t = ceil(g->t0 / tstep) * tstep; t <= g->t1 + tstep * 1e-6; t += tstep) {
		double x = pl_x(g, t);
		fprintf(
		    f,
		    "<line class=\"grid\" x1=\"%.2f\" y1=\"%g\" x2=\"%.2f\" y2=\"%g\"/>"
		    "<text class=\"tick\" x=\"%.2f\" y=\"%g\" text-anchor=\"middle\">%.*f</text>\n",
		    x, PL_PY, x, PL_PY + PL_PH, x, PL_PY + PL_PH + 16, td, t);
	}
	fputs("</g>\n", f);
	for (double v = ceil(g->y0 / ystep) * ystep; v <= g->y1 + ystep * 1e-6; v += ystep) {
		double y = pl_y(g, v);
		fprintf(
		    f,
		    "<line class=\"grid\" x1=\"%g\" y1=\"%.2f\" x2=\"%g\" y2=\"%.2f\"/>"
		    "<text class=\"tick\" x=\"%g\" y=\"%.2f\" text-anchor=\"end\">%.*f</text>\n",
		    PL_PX, y, PL_PX + PL_PW, y, PL_PX - 6, y + 4, yd, v / u.div);
	}
	fprintf(f,
		"<rect class=\"frame\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>\n"
		"<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">time (s since the connection's "
		"first packet)</text>\n"
		"<text x=\"16\" y=\"%g\" text-anchor=\"middle\" transform=\"rotate(-90 16 %g)\">%s "
		"(%s)</text>\n</g>\n",
		PL_PX, PL_PY, PL_PW, PL_PH, PL_PX + PL_PW / 2, PL_PY + PL_PH + 34,
		PL_PY + PL_PH / 2, PL_PY + PL_PH / 2, yname, u.name);
}

void pl_svg_begin(struct pl_svg *g, const struct pl_conn *c, unsigned dir, const char *what,
		  const char *yname, struct pl_unit u, const char *data_unit)
{
	FILE *f = g->f;
	char ep[160];

	pl_endpoints(c, dir, ep, sizeof(ep));
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		PL_SVG_W, PL_SVG_H, PL_SVG_W, PL_SVG_H);
	fputs(
	    "<style>\n"
	    ".bg{fill:#fff}.frame{fill:none;stroke:#555}.grid{stroke:#e8e8e8}\n"
	    ".tick{fill:#333;font-size:11px}.title{font-size:15px;font-weight:bold}\n"
	    ".sub{fill:#555;font-size:11px}\n"
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
	    ".bin line{stroke-dasharray:none}.bin text{font-size:9px;fill:#222;"
	    "text-anchor:middle;stroke:none}.zwin.bin line{stroke:#000}\n"
	    ".zoom *{vector-effect:non-scaling-stroke}.zoomed .zoom "
	    "text:not(.count){display:none}\n"
	    ".lim-rwnd{fill:#bcbd22;fill-opacity:.12}.lim-cong{fill:#d62728;fill-opacity:.1}"
	    ".lim-sndbuf{fill:#17becf;fill-opacity:.12}.lim-sndapp{fill:#7f7f7f;fill-opacity:.1}\n"
	    ".lim-rcvapp{fill:#8c564b;fill-opacity:.12}.lim-stall{fill:#ff7f0e;fill-opacity:.1}"
	    ".lim-ss{fill:#2ca02c;fill-opacity:.1}.lim-bneck{fill:#9467bd;fill-opacity:.12}\n",
	    f);
	for (unsigned q = 0; q < PL_NQCOLS; q++)
		fprintf(f, ".q%u{stroke:%s}", q, queue_colour[q]);
	fputs("\n</style>\n", f);
	fprintf(f, "<title>#%llu ", (unsigned long long)c->id);
	mk_escape(f, ep);
	fprintf(f, " (%s): %s</title>\n", sum_dir_name(dir), what);
	fprintf(f, "<rect class=\"bg\" width=\"%d\" height=\"%d\"/>\n", PL_SVG_W, PL_SVG_H);
	fprintf(f, "<text class=\"title\" x=\"%g\" y=\"22\">#%llu ", PL_PX,
		(unsigned long long)c->id);
	mk_escape(f, ep);
	fprintf(f, " &#8212; %s data (%s): %s</text>\n", sum_dir_name(dir), dir_words(dir), what);

	axes(g, yname, u);
	fprintf(f,
		"<clipPath id=\"area-%s\"><rect x=\"%g\" y=\"%g\" width=\"%g\" "
		"height=\"%g\"/></clipPath>\n",
		g->id ? g->id : "0", PL_PX, PL_PY, PL_PW, PL_PH);
	fprintf(f,
		"<g class=\"plot\" clip-path=\"url(#area-%s)\" data-t0=\"%.9g\" data-t1=\"%.9g\" "
		"data-y0=\"%.9g\" data-y1=\"%.9g\" data-unit=\"%s\" data-x=\"%g\" data-y=\"%g\" "
		"data-w=\"%g\" data-h=\"%g\">\n<g class=\"zoom\">\n",
		g->id ? g->id : "0", g->t0, g->t1, g->y0, g->y1, data_unit, PL_PX, PL_PY, PL_PW,
		PL_PH);
}
/* A sub-title: how the graph was made (per packet, or per column), and
 * its marks (pl_svg_tseq() adds which were binned). */
void pl_svg_note(struct pl_svg *g, const struct pl_conn *c)
{
	if (c->raw)
		snprintf(g->note, sizeof(g->note), "every packet drawn; anomaly marks: %u",
			 c->nmarks);
	else
		snprintf(
		    g->note, sizeof(g->note),
		    "aggregated: one column per %.6g s; anomaly marks: %u%s%llu beyond the cap "
		    "of %u",
		    pl_secs(c->col_width), c->nmarks, c->marks_over ? " + " : ", ",
		    (unsigned long long)c->marks_over, PL_MARKS_MAX);
}

void pl_svg_end(struct pl_svg *g)
{
	FILE *f = g->f;
	double x = PL_PX;

	fputs("</g>\n</g>\n", f); /* the zoom group, the plot area */
	if (g->note[0]) {
		fprintf(f, "<text class=\"sub\" x=\"%g\" y=\"40\">", PL_PX);
		mk_escape(f, g->note);
		fputs("</text>\n", f);
	}
	fputs("<g class=\"legend\">\n", f);
	double row = 0;
	for (unsigned k = 0; k < PL_LEG_COUNT; k++) {
		if (!(g->legend & (1u << k)))
			continue;
		double w = 34 + 6.8 * (double)strlen(leg[k].label);
		if (x + w > PL_SVG_W - 10) {
			x = PL_PX;
			row += 18;
			fprintf(f, "</g>\n<g class=\"legend\" transform=\"translate(0 %g)\">\n",
				row);
		}
		if (leg[k].area)
			fprintf(
			    f,
			    "<rect class=\"%s\" x=\"%.1f\" y=\"%g\" width=\"14\" height=\"10\"/>",
			    leg[k].cls, x, PL_LEG_Y - 9);
		else
			fprintf(f,
				"<line class=\"%s\" x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" "
				"stroke-width=\"3\"/>",
				leg[k].cls, x, PL_LEG_Y - 4, x + 14, PL_LEG_Y - 4);
		fprintf(f, "<text x=\"%.1f\" y=\"%g\">%s</text>\n", x + 18, PL_LEG_Y, leg[k].label);
		x += w;
	}
	if (g->queues) {
		if (x + 62 + 30 * __builtin_popcountll(g->queues) > PL_SVG_W - 10) {
			x = PL_PX;
			row += 18;
			fprintf(f, "</g>\n<g class=\"legend\" transform=\"translate(0 %g)\">\n",
				row);
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%g\">RX queue:</text>", x, PL_LEG_Y);
		x += 62;
		for (unsigned q = 0; q < 64; q++) {
			if (!(g->queues & (1ull << q)))
				continue;
			fprintf(
			    f,
			    "<line class=\"seg q%u\" x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" "
			    "stroke-width=\"3\"/><text x=\"%.1f\" y=\"%g\">%u</text>",
			    q % PL_NQCOLS, x, PL_LEG_Y - 4, x + 10, PL_LEG_Y - 4, x + 13, PL_LEG_Y,
			    q);
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
void pl_draw_limits(struct pl_svg *g, const struct pl_conn *c, unsigned dir)
{
	const struct limit_dir *l = &c->limit[dir];

	if (l->width <= 0)
		return;
	fputs("<g class=\"limits\">\n", g->f);
	for (unsigned k = 0; k < l->nslices && k < LIMIT_SLICES; k++) {
		unsigned cls = l->slice[k];
		if (cls >= LIMIT_COUNT)
			continue;
		double a = pl_secs(l->t0 - c->t0 + (int64_t)k * l->width);
		double b = a + pl_secs(l->width);
		a = a < g->t0 ? g->t0 : a;
		b = b > g->t1 ? g->t1 : b;
		if (b <= a)
			continue;
		g->legend |= 1u << (PL_LEG_LIMIT + cls);
		fprintf(g->f,
			"<rect class=\"%s\" data-limit=\"%s\" x=\"%.2f\" y=\"%g\" width=\"%.2f\" "
			"height=\"%g\"><title>%s</title></rect>\n",
			leg[PL_LEG_LIMIT + cls].cls, limit_class_name((enum limit_class)cls),
			pl_x(g, a), PL_PY + PL_PH - 24, pl_x(g, b) - pl_x(g, a), 24.0,
			leg[PL_LEG_LIMIT + cls].label);
	}
	fputs("</g>\n", g->f);
}

void pl_step_to(struct pl_stepper *s, double x, double y)
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

void pl_path_begin(FILE *f, const char *cls)
{
	fprintf(f, "<path class=\"%s\" d=\"", cls);
}

void pl_path_end(FILE *f, bool empty)
{
	fputs(empty ? "M0 0\"/>\n" : "\"/>\n", f);
}

/* ---- the files ---- */

enum svg_graph { G_TSEQ = 0, G_TPUT, G_RTT, G_INFL, G_RWND, G_COUNT };

static const char *const graph_name[G_COUNT] = {"tseq", "tput", "rtt", "inflight", "rwnd"};

int pl_svg_write(const struct pl_conn *c, const char *dir, char *errbuf, size_t errlen)
{
	/* The time axis: the whole connection, the same for every graph. */
	double t1 = pl_secs(c->t_end);

	if (!(t1 > 0))
		t1 = 1e-3;
	for (unsigned d = 0; d < SUM_DIR_COUNT; d++) {
		if (!pl_has_data(c, d))
			continue;
		for (unsigned k = 0; k < G_COUNT; k++) {
			FILE *f = pl_open(c, dir, d, graph_name[k], "svg", errbuf, errlen);
			if (!f)
				return ERR_SYSTEM;
			char id[64];
			snprintf(id, sizeof(id), "%llu-%s-%s", (unsigned long long)c->id,
				 sum_dir_name(d), graph_name[k]);
			struct pl_svg g = {.f = f, .id = id, .t0 = 0, .t1 = t1, .label_x = -1e9};
			switch (k) {
			case G_TSEQ:
				pl_svg_tseq(&g, c, d);
				break;
			case G_TPUT:
				pl_svg_tput(&g, c, d);
				break;
			case G_RTT:
				pl_svg_rtt(&g, c, d);
				break;
			case G_INFL:
				pl_svg_level(&g, c, d, false);
				break;
			case G_RWND:
				pl_svg_level(&g, c, d, true);
				break;
			}
			int rc = pl_close(f, c, dir, d, graph_name[k], "svg", errbuf, errlen);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}