/* html_int.h - internal to the HTML report (analyze/report/html*.c). */
#ifndef TCPSIFT_HTML_INT_H
#define TCPSIFT_HTML_INT_H

/*
 * One module (rep_write_html(), report.h) in three files: html.c writes
 * the page (its head, the summary, the findings, the connections in order
 * of trouble), html_conn.c one connection's section (its findings as
 * tables, what limited it, its graphs inlined), html_asset.c the page's
 * style and script.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/report/report.h"

/* What the page bounds: table rows (both tables together), connections
 * with a section, events of one kind shown in a section (the rest
 * counted). */
enum {
	HTML_MAX_ROWS = 5000,
	HTML_MAX_DETAILS = 500,
	HTML_MAX_CONN_EVENTS = 200,
	HTML_IDLE_BYTES = 8192, /* folded: at most this much payload and nothing wrong */
};

/* A connection's place on the page: its trouble score (html.c) and its
 * events, d->events[g.idx[ev_first .. ev_end)] in time order. */
struct html_conn {
	uint64_t score;
	size_t k; /* rep_conn_at(d, k) */
	size_t ev_first, ev_end;
	uint64_t lost; /* segments lost (retransmissions not proven spurious) */
	bool folded;   /* idle or control: in the folded part */
};

extern const char html_style[];
extern const char html_script[];

/* "12 345 678": a count, grouped by thousands (narrow spaces). */
void html_fmt_count(char *buf, size_t len, uint64_t v);
/* A frame or a span of frames as copyable text, with its tshark filter as
 * the tooltip: <code class="fr" title="...">12</code>. */
void html_frames(FILE *out, const struct rep_run *run, uint32_t input, uint64_t first,
		 uint64_t last);

/* Connection c's section (<section class="conn" id="cID">): its head, what
 * limited each direction, its findings (idx[0..n): its events), its
 * graphs read from graph_dir and inlined (NULL: none). *styled: an
 * inlined graph already brought the graphs' style (theirs is dropped). */
void html_conn_section(FILE *out, const struct sum_conn *c, const struct html_conn *hc,
		       const struct rep_data *d, const struct rep_run *run, const uint32_t *idx,
		       const char *graph_dir, bool *styled);
/* Does graph_dir hold a graph of c (of direction dir, graph name)? */
bool html_graph_exists(const char *graph_dir, uint64_t id, unsigned dir, const char *graph);

#endif
