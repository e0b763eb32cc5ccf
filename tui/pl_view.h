/* pl_view.h - what the player publishes for the screen: a header and a model snapshot. */
#ifndef TCPSIFT_PL_VIEW_H
#define TCPSIFT_PL_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "tui/model.h"

/*
 * The player (player.h) fills these on its thread and hands them over
 * whole; the view (view.h) draws them. Apart from player.h so that the
 * view sees the published data, not the engine and the capture the
 * player drives (scripts/check-layers.sh).
 */

enum pl_mode {
	PL_REPLAY = 0, /* capture files, paced by their timestamps */
	PL_LIVE,       /* an interface, through capture/ring */
	PL_MODE_COUNT,
};

enum pl_state {
	PL_PLAYING = 0,
	PL_PAUSED,
	PL_ENDED,  /* replay: every packet read; live: the capture stopped */
	PL_FAILED, /* the source failed; pl_header.error says why */
	PL_STATE_COUNT,
};

/* What the header shows besides the model's totals. */
#define PL_MAX_VANTAGES 16 /* names shown; more share the last */
#define PL_MAX_INPUTS	64 /* inputs whose first packet times are kept; more share the last */

struct pl_header {
	enum pl_mode mode;
	enum pl_state state;
	bool seeking; /* replay: playing unpaced up to a seek's target */
	double speed;
	uint64_t packets, wire_bytes, malformed;
	double pps, bps; /* over the last second of now_ts */
	int64_t first_ts, last_ts;
	/* The clock rates and ages follow: replay, the latest packet's capture
	 * time; live, the wall time (packets carry it), so they decay to 0 when
	 * nothing arrives. */
	int64_t now_ts;
	/* Relative times count from the first packet of each input (merged
	 * captures may be years apart): input k's in input_first_ts[k] (0: none
	 * yet); cur_input is the latest packet's. */
	int64_t input_first_ts[PL_MAX_INPUTS];
	unsigned ninputs, cur_input;
	double wall_s;	  /* since the start */
	double progress;  /* replay: fraction of the input read, -1 unknown */
	bool drops_known; /* the counters below mean something */
	uint64_t kernel_drops, if_drops, our_drops;
	/* live: the capture's drops (kernel and ours) in % of what passed the
	 * filter, and while they go on the options advised (dropwarn.h: "-s
	 * 128 -B 64"; "" when none or the drops are over). */
	double drop_pct;
	char drop_advice[80];
	double queue_fill;		   /* live: fullest hand-off queue, 0..1; -1 unknown */
	uint64_t written;		   /* live with a file: packets written */
	unsigned nqueues;		   /* live: sockets in the fanout group */
	unsigned nvantages;		   /* observation points (interfaces) so far */
	char vantage[PL_MAX_VANTAGES][32]; /* their names, by sum_conn.vantage */
	char error[512];
};

struct pl_view {
	uint64_t seq; /* increases with every publication */
	struct pl_header h;
	struct tm_snapshot m;
};

const char *pl_state_name(enum pl_state s);

#endif
