/* plot_svg_int.h - internal to the SVG graphs (plot_svg*.c): the frame every graph shares. */
#ifndef TCPSIFT_PLOT_SVG_INT_H
#define TCPSIFT_PLOT_SVG_INT_H

/*
 * The SVG writer in three files: plot_svg.c draws what every graph has
 * (the frame, axes, legend, the limits band) and writes the files;
 * plot_svg_tseq.c the time-sequence graph and its marks; plot_svg_lines.c
 * throughput, RTT, bytes in flight and the receive window.
 *
 * Every graph is one 1000x560 SVG with its style inside (no script, no
 * external file): a title naming the connection and the direction, axes in
 * real units, the plot area, a legend of what it shows. The plot area is a
 * <g class="plot"> carrying its data range and its place in pixels
 *
 *   data-t0 data-t1   seconds from the connection's first packet (x)
 *   data-y0 data-y1   the y unit (data-unit: bytes, bit/s, ms)
 *   data-x data-y data-w data-h   the area in pixels (y grows downwards)
 *
 * so a test maps a value to a pixel. What it draws sits in one
 * <g class="zoom"> inside it, and the time axis's ticks in one
 * <g class="xaxis">: the HTML report's script zooms the first along x and
 * redraws the second (an SVG on its own never changes). Anomaly marks are
 * elements of their own with a class (pl_mark_class[]), data-t / data-seq
 * / data-frame and a <title> (the tooltip); marks too many to draw one by
 * one are binned (plot_svg_tseq.c); ordinary segments are one path per
 * class.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/report/plot_int.h"

#define PL_SVG_W  1000
#define PL_SVG_H  560
#define PL_PX	  80.0
#define PL_PY	  56.0
#define PL_PW	  880.0
#define PL_PH	  400.0
#define PL_LEG_Y  (PL_PY + PL_PH + 56)
#define PL_NQCOLS 8 /* queue colours */

struct pl_svg {
	FILE *f;
	const char *id;	       /* "1-s2c-tseq": the graph's ids in a page are unique */
	double t0, t1, y0, y1; /* data range: seconds, the y unit */
	unsigned legend;       /* bits: enum pl_leg_item shown */
	uint64_t queues;       /* queue colours used */
	char note[320];	       /* the sub-title: how the graph was made */
	double label_x;	       /* where the last span label went */
};

enum pl_leg_item {
	PL_LEG_SEG = 0,
	PL_LEG_SEG_AGG,
	PL_LEG_RETRANS,
	PL_LEG_OOO,
	PL_LEG_ACK,
	PL_LEG_WIN,
	PL_LEG_SACK,
	PL_LEG_HOLE,
	PL_LEG_STALL,
	PL_LEG_ZWIN,
	PL_LEG_GAP,
	PL_LEG_LOSS,
	PL_LEG_TPUT,
	PL_LEG_GOOD,
	PL_LEG_RTT,
	PL_LEG_RTT_RANGE,
	PL_LEG_PATH_RTT,
	PL_LEG_INFL,
	PL_LEG_RWND,
	PL_LEG_BIN,   /* binned marks */
	PL_LEG_LIMIT, /* LIMIT_COUNT items: the limit of a time slice, by class */
	PL_LEG_COUNT = PL_LEG_LIMIT + LIMIT_COUNT,
};

/* The unit the y axis shows: value / div, named name. */
struct pl_unit {
	double div;
	const char *name;
};

static inline double pl_secs(int64_t ns)
{
	return (double)ns / 1e9;
}

/* A time (s) and a value (the y unit) as pixels. */
static inline double pl_x(const struct pl_svg *g, double t)
{
	return PL_PX + (t - g->t0) / (g->t1 - g->t0) * PL_PW;
}

static inline double pl_y(const struct pl_svg *g, double v)
{
	return PL_PY + PL_PH - (v - g->y0) / (g->y1 - g->y0) * PL_PH;
}

static inline bool pl_queue_known(int16_t q)
{
	return q >= 0;
}

/* A top for an axis: v, or a little above the highest tick it needs. */
double pl_nice_top(double v);
struct pl_unit pl_unit_bytes(double top);
struct pl_unit pl_unit_bits(double top);

/* The graph's head (style, title, axes) up to the open plot area, and
 * its end (the note, the legend); g's range set before. */
void pl_svg_begin(struct pl_svg *g, const struct pl_conn *c, unsigned dir, const char *what,
		  const char *yname, struct pl_unit u, const char *data_unit);
void pl_svg_end(struct pl_svg *g);
/* The time-sequence graph's note: how it was drawn. */
void pl_svg_note(struct pl_svg *g, const struct pl_conn *c);
/* Shade dir's time slices by what limited them (a band at the bottom). */
void pl_draw_limits(struct pl_svg *g, const struct pl_conn *c, unsigned dir);

/* One path of class cls: begin, its commands, end (empty: an empty path). */
void pl_path_begin(FILE *f, const char *cls);
void pl_path_end(FILE *f, bool empty);

/* A step line through (x, y) points, as one path. */
struct pl_stepper {
	FILE *f;
	bool started;
	double last_y;
};

void pl_step_to(struct pl_stepper *s, double x, double y);

/* The graphs: each writes one whole SVG into g->f (g's t range set). */
void pl_svg_tseq(struct pl_svg *g, const struct pl_conn *c, unsigned dir);
void pl_svg_tput(struct pl_svg *g, const struct pl_conn *c, unsigned dir);
void pl_svg_rtt(struct pl_svg *g, const struct pl_conn *c, unsigned dir);
void pl_svg_level(struct pl_svg *g, const struct pl_conn *c, unsigned dir, bool rwnd);

#endif
