/* plot.h - per-connection graphs: SVG (--plot DIR) and tcptrace xplot files (--xplot DIR). */
#ifndef TCPSIFT_PLOT_H
#define TCPSIFT_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/summary.h"
#include "common/idset.h"

/*
 * A struct plot collects, through its own struct sum_sink (tee it with the
 * report's: sum_tee_sink()), the segments and events of the connections it
 * plots, and writes their graphs when each ends (its summary arrives) or
 * at plot_finish(). It keeps state only for those connections, bounded per
 * connection (plot_int.h) and in number (max_conns), and frees it once the
 * files are written.
 *
 * Files, for each connection id and data direction dir (c2s, s2c) that
 * carried data:
 *
 *   svg_dir/conn-<id>-<dir>-<graph>.svg   graph: tseq tput rtt inflight rwnd
 *   xpl_dir/conn-<id>-<dir>-<graph>.xpl   graph: tseq tput rtt inflight
 */

#define PLOT_MAX_DEFAULT 100u	 /* --plot-max */
#define PLOT_MAX_LIMIT	 100000u /* the largest --plot-max */

struct plot_config {
	const char *svg_dir;	  /* NULL: no SVG (borrowed) */
	const char *xpl_dir;	  /* NULL: no .xpl (borrowed) */
	const struct idset *only; /* --conn: only these ids (borrowed; NULL: all) */
	/* Connections plotted at most: the first by id that carry data (a
	 * connection without data gives back its place when it ends). */
	uint32_t max_conns;
	/* No svg_dir: the SVG files go to a private temporary directory (in
	 * $TMPDIR, else /tmp; plot_svg_dir()) that plot_free() removes, for
	 * a page that inlines them (analyze --html). */
	bool svg_temp;
};

struct plot;

/* Creates the directories (as mkdir -p); NULL with errbuf saying why (one
 * line: the directory and the system's reason). */
struct plot *plot_new(const struct plot_config *cfg, char *errbuf, size_t errlen);

/* The sink to hand the engine (begin, event, segment, conn); borrowed by it. */
struct sum_sink plot_sink(struct plot *p);

/* The end of the run: graphs of the connections still held (evicted and
 * never resumed). 0, or the first write error (ERR_SYSTEM, errbuf set)
 * of the whole run. */
int plot_finish(struct plot *p, char *errbuf, size_t errlen);

/* Where the SVG files go (svg_dir, or the temporary one); NULL: none. */
const char *plot_svg_dir(const struct plot *p);

/* Connections whose graphs were written, and those left out by max_conns. */
uint64_t plot_written(const struct plot *p);
uint64_t plot_left_out(const struct plot *p);

/* NULL is a no-op; a temporary SVG directory goes with its files. */
void plot_free(struct plot *p);

#endif
