/* det_view.h - what a detector shows: its JSON, text, --fail-on metrics and TUI parts. */
#ifndef TCPSIFT_DET_VIEW_H
#define TCPSIFT_DET_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/engine/summary.h"

/*
 * Every reporter (text, JSON, NDJSON, --fail-on, the TUI) reaches a
 * detector's results through its view, a const struct det_view named
 * <name>_view and defined in analyze/detect/<name>/<name>_report.c; the
 * table of detectors (analyze/detect/detectors.h) lists them. No reporter
 * names a detector: adding one adds no line outside its folder and the
 * table. A view reads only what the detector delivered (struct sum_conn's
 * det member, its events, the totals below), never the engine.
 */

struct jo_writer;
struct jo_fields;
struct rep_data;
struct rep_run;
struct ji_ctx;
struct json_t;

/* Totals over a run's connections, one member per detector, each the
 * detector's own struct prefix_totals (its _types.h). */
struct det_totals {
#define DETECTOR(name, prefix) struct prefix##_totals name;
#include "analyze/detect/detectors.h"
};

/* A --fail-on metric: a name and how to read it from the totals. */
struct det_metric {
	const char *name;
	const char *unit; /* NULL: a count; else shown in the help ("seconds") */
	double (*get)(const struct det_totals *t);
};

/* How the TUI colours something (it maps tones to its colour pairs). */
enum det_tone {
	DET_TONE_NONE = 0,
	DET_TONE_WARN,	/* stalls, zero windows */
	DET_TONE_BAD,	/* SACK holes, reneging, capture loss */
	DET_TONE_ORDER, /* reordering, D-SACK */
	DET_TONE_MTU,	/* MTU, PMTU, super-frames */
};

/* A column of the TUI's connection table. */
struct det_column {
	const char *head;
	int width;
	int prio;  /* dropped on narrow terminals, highest first (0: never) */
	bool desc; /* sorted biggest first */
};

/* A cell of that column for one connection: what to draw (text; empty:
 * sort as a count, in the table's count format) and sort by. */
struct det_cell {
	int64_t sort;
	char text[12];
	enum det_tone tone;
};

#define DET_MAX_COLUMNS 2

struct det_view {
	const char *name;     /* its folder: "stall" */
	const char *conn_key; /* its member of a JSON connection: "stalls" (NULL: none) */
	/* Its member of each direction's object ("c2s", "s2c"; NULL: none),
	 * written by json_dir and read back by json_read_dir (dir: enum
	 * sum_dir_id, the data's direction). */
	const char *dir_key;
	void (*json_dir)(struct jo_writer *w, const struct sum_conn *c, unsigned dir);
	void (*json_read_dir)(struct ji_ctx *x, const struct json_t *v, struct sum_conn *c,
			      unsigned dir);
	/* ... and as a cell of the text's long form (a row named dir_key). */
	void (*dir_cell)(char *buf, size_t len, const struct sum_conn *c, unsigned dir);

	/* The connection's member: one JSON value written into w. */
	void (*json_conn)(struct jo_writer *w, const struct sum_conn *c);
	/* The members of one of its events (its DET_EVENT types). */
	void (*json_event)(struct jo_fields *f, const struct sum_event *e);
	/* Its members of summary.findings; null each unless known (the
	 * detectors did not run). */
	void (*json_findings)(struct jo_fields *f, const struct det_totals *t, bool known);
	/* The reader's side (analyze/readback/jsonin.h, tcpsift merge): its
	 * connection member v back into c->det, the members of one of its
	 * events o back into e; a failure sticks in x. What json_conn does
	 * not write stays 0 (see tcpsift-merge(1)). */
	void (*json_read_conn)(struct ji_ctx *x, const struct json_t *v, struct sum_conn *c);
	void (*json_read_event)(struct ji_ctx *x, const struct json_t *o, struct sum_event *e);

	/* Totals: a finished connection's results (analyze), or one event as
	 * it comes (the TUI's live tallies, which are counts of events). */
	void (*add_conn)(struct det_totals *t, const struct sum_conn *c);
	void (*add_event)(struct det_totals *t, const struct sum_event *e);
	/* A finding in the text report's sense (else "none" is printed)? */
	bool (*any)(const struct det_totals *t);
	/* Its text findings, if it has any to print (called whenever the
	 * detectors ran: notes such as think time are not findings). */
	void (*text)(FILE *out, const struct rep_data *d, const struct rep_run *run);

	const struct det_metric *metrics;
	unsigned nmetrics;

	/* TUI. Does an event go to the findings log (NULL: all do; every
	 * event is counted)? One event as a line of the log, and its tone. */
	bool (*event_logged)(const struct sum_event *e);
	void (*event_line)(char *buf, size_t len, const struct sum_event *e);
	enum det_tone (*event_tone)(const struct sum_event *e);
	/* Its share of the header ("stalls 3 (1.2s)"), wide or short form. */
	enum det_tone header_tone;
	void (*header)(char *buf, size_t len, const struct det_totals *t, bool wide);
	/* Its columns and their cells: s is the connection's summary, live
	 * its events counted so far (results some detectors settle only at
	 * the connection's end), ended whether it has. */
	unsigned ncolumns;
	struct det_column columns[DET_MAX_COLUMNS];
	void (*cells)(struct det_cell *cells, const struct sum_conn *s,
		      const struct det_totals *live, bool ended);
	/* One line of the detail view ("" for none). */
	void (*detail)(char *buf, size_t len, const struct sum_conn *s,
		       const struct det_totals *live, bool ended);
	/* Mark its events on a connection's timeline: a letter (0: not
	 * marked), over the event's duration (span) or at its start. */
	char timeline_mark;
	bool timeline_span;

	/* tcpsift diff: the classes its findings fall in (the stall classes),
	 * each counted and timed apart; 0: none. event_class: the class of
	 * one of its events, or -1 when that event is not such a finding. */
	unsigned nclasses;
	const char *(*class_name)(unsigned k);
	int (*event_class)(const struct sum_event *e);
	/* tcpsift diff: each direction's time split into classes, as this
	 * capture point tells them (the limit detector's limited_by, its
	 * dir_key: what held the transfer back), compared by its dominant
	 * class; 0: none (at most DET_DIR_CLASSES_MAX). dir_class_ns fills
	 * ns[0..ndir_classes) with direction dir's time in each. */
	unsigned ndir_classes;
	const char *(*dir_class_name)(unsigned k);
	void (*dir_class_ns)(const struct sum_conn *c, unsigned dir, int64_t *ns);
};

#define DET_DIR_CLASSES_MAX 16

#define DETECTOR(name, prefix) extern const struct det_view name##_view;
#include "analyze/detect/detectors.h"

/* The views in table order. */
enum {
#define DETECTOR(name, prefix) DET_VIEW_##name,
#include "analyze/detect/detectors.h"
	DET_VIEW_COUNT
};
extern const struct det_view *const det_views[DET_VIEW_COUNT];

/* The view whose detector emits events of this type; NULL for the
 * engine's own (retransmissions, zero windows, capture loss ...). */
const struct det_view *det_view_of_event(enum sum_event_type t);
/* Its index in det_views, or -1. */
int det_view_index_of_event(enum sum_event_type t);

/* A duration in at most 6 columns, as the TUI shows them: "850us",
 * "4.10ms", "40ms", "1.36s", "-" for a negative one. */
void det_fmt_dur_short(char *buf, size_t len, int64_t ns);

/* One line of what an event says: its detector's words (event_line), or
 * the engine's for its own events (zero window, capture loss, D-SACK ...)
 * and per-frame verdicts (a retransmission and its kind ...). The TUI's
 * findings log, the HTML report and the text's long form print it. */
void det_describe_event(char *buf, size_t len, const struct sum_event *e);

/* Add a connection's / an event's results to every detector's totals. */
void det_totals_add_conn(struct det_totals *t, const struct sum_conn *c);
void det_totals_add_event(struct det_totals *t, const struct sum_event *e);

#endif
