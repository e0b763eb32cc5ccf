/* player_int.h - the player's state, shared by its parts (player.c, player_mx.c) only. */
#ifndef TCPSIFT_PLAYER_INT_H
#define TCPSIFT_PLAYER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/pipeline/pipe.h"
#include "analyze/report/metrics.h"
#include "capture/live/dropwarn.h"
#include "tui/player.h"

enum { PL_RATE_SAMPLES = 32 };

/* Engine counters at one publication, for packets/s over capture time. */
struct pl_sample {
	int64_t ts;
	uint64_t packets, bytes;
};

struct player {
	struct pl_config cfg;
	struct ring *ring;
	struct pw_writer *writer;
	struct pipeline *pipe; /* replay: the files' source too; the workers of analyze */
	struct tm_model *model;
	struct mx_server *mx; /* --metrics, fed beside the model */
	pthread_t thread;
	bool started;

	/* Shared with the UI thread, under lock. */
	pthread_mutex_t lock;
	struct pl_view views[3];
	unsigned back, ready, front;
	bool ready_new;
	bool paused, hold, stop;
	uint64_t steps; /* packets to play while paused */
	double speed;
	bool rebase;	  /* pacing restarts from the next packet (resume, new speed) */
	int64_t seek_ns;  /* replay: jump by this much capture time (0: none) */
	bool flush_req;	  /* live: flush the -w file (pl_write_conn reads it) */
	uint64_t flushes; /* live: flushes done */
	bool live_done;	  /* live: the capture stopped and the -w file is closed */
	uint64_t detail_id;
	_Atomic bool control; /* something above changed: the thread looks */

	/* Player thread only. */
	struct pl_sample samples[PL_RATE_SAMPLES];
	unsigned nsamples, sample_head;
	double start_wall;
	unsigned cur_input; /* of the latest packet */
	int64_t cur_ts;	    /* replay: capture time of the latest packet */
	int64_t pos_ts;	    /* replay: where the screen is: cur_ts, or a seek's target */
	int64_t ff_until;   /* replay: play without pacing up to this capture time (0: no) */
	int64_t ff_first;   /* replay: a jump asked before the first packet: from there */
	int64_t live_first_ts;
	struct dw_state dw;   /* live: drop warnings for the header */
	char drop_advice[80]; /* the last warning's options */
	enum pl_state state;
	char error[sizeof(((struct pl_header *)0)->error)];
	uint64_t seq;
};

/* player_mx.c: the pipeline, and --metrics beside the model. The server, when
 * p->cfg.metrics asks for one: 0 or mx_server_new()'s error. */
int pl_mx_open(struct player *p, char *errbuf, size_t errlen);
/* The analysis feeding model (then the totals, when there is a server):
 * replay, of the files; live, of what live_loop() hands in. 0, or
 * pipe_open()'s error (errbuf filled). */
int pl_pipe_open(struct player *p, struct tm_model *model, struct pipeline **out, char *errbuf,
		 size_t errlen);
/* Answer the scrapes waiting; h is the header being published (publish():
 * the workers are in sync with the reader). */
void pl_mx_serve(struct player *p, const struct pl_header *h);

#endif
