/* player.h - the dashboard's engine thread: replay a capture or capture live, publish snapshots. */
#ifndef TCPSIFT_TUI_PLAYER_H
#define TCPSIFT_TUI_PLAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/engine.h"
#include "analyze/report/metrics.h"
#include "capture/live/ring.h"
#include "tui/model.h"
#include "tui/pl_view.h"

/*
 * A player owns a packet source (capture files through analyze/source, or
 * a live capture/ring with an optional pcapng copy through
 * capture/pcapwriter), the analysis engine and the model, and runs them on
 * a thread of its own. The UI thread only ever reads published views:
 *
 *   player thread:  source -> [pace] -> eng_packet -> tm sink (model)
 *                   every 100 ms: model -> views[back]; swap back <-> ready
 *   UI thread:      pl_latest(): swap ready <-> front when newer; draw front
 *
 * Three views (triple buffering) and one mutex held only for a swap or a
 * control change, so the engine never waits for the screen and a live
 * capture's readers (capture/ring) never wait for either.
 */

struct pl_config {
	enum pl_mode mode;
	const char *const *paths; /* replay inputs (merged by time) */
	unsigned npaths;
	const char *filter;  /* replay: BPF on the files; live: set in ring.filter */
	double speed;	     /* replay: times real time; 0 as fast as possible */
	bool start_paused;   /* replay: wait for the first 'p' or step */
	bool queue_per_file; /* replay: input k is RX queue k (analyze --queue-per-file) */
	struct ring_config ring;
	const char *write_path; /* live: also write the packets here (pcapng), or NULL */
	bool overwrite;		/* live: write_path may replace a regular file of ours */
	struct eng_config eng;
	unsigned threads; /* analysis threads (workers.h); 0: wk_default_threads() */
	struct tm_config model;
	int64_t publish_ns;	/* wall time between snapshots (100 ms) */
	struct mx_opts metrics; /* --metrics: serve /metrics (addr NULL: no) */
};

struct player;

/*
 * Open the source, the engine and the model (no thread yet): 0 with the
 * player in *out (the caller owns it), or, with *out NULL and a one-line
 * reason in errbuf, a negative enum err_code (common/err.h): the source's
 * (src_open(), ring_open(): ERR_USAGE for a bad filter), the --metrics
 * server's (mx_server_new(): ERR_USAGE, ERR_SYSTEM), ERR_NOMEM. The
 * scrapes are answered on the player's thread at each snapshot.
 * Live, this opens the capture sockets, which needs root (or CAP_NET_RAW).
 */
int pl_new(const struct pl_config *cfg, struct player **out, char *errbuf, size_t errlen);

/*
 * Start the thread; live, first create the -w file (write_path). Called
 * after root was given up (capture/live/privs.h), the file is the -Z
 * user's, as tcpdump -Z and tcpsift capture -w make theirs: the dashboard,
 * running as that user, reads it back for 'w' and 'P'. 0 or ERR_SYSTEM
 * (errbuf filled: the file cannot be created, or no thread).
 */
int pl_start(struct player *p, char *errbuf, size_t errlen);

/*
 * The newest view (never NULL), valid until the next pl_latest() or
 * pl_free(); UI thread only. detail_id asks the following snapshots for
 * the detail of that connection (0: none).
 */
const struct pl_view *pl_latest(struct player *p, uint64_t detail_id);

void pl_toggle_pause(struct player *p); /* replay: pause/resume; live: hold the screen */
void pl_step(struct player *p);		/* paused replay: one more packet */
void pl_speed(struct player *p, double factor);
/* Replay: jump by delta_ns of capture time (pl_header.seeking meanwhile):
 * forward, the packets up to there play unpaced; back, the replay starts
 * again from the first packet with a fresh engine and model and plays up
 * to there the same way, so the screen is what it was at that time. A
 * paused replay stays paused at the target. Live: nothing. */
void pl_seek(struct player *p, int64_t delta_ns);

/*
 * Write the packets of connection r (a row of a published view) to a new
 * pcapng file at path (never over an existing file), read again from the
 * replay's inputs (with the same filter) or, live, from the -w file (the
 * engine thread flushes it first): the TCP segments of its two endpoints
 * at its vantage point between its first and last packet, which are the
 * packets `tcpsift analyze --conn ID` counts for it. One interface per
 * input (its first link type; a packet of another link type is skipped
 * and counted in *skipped). UI thread; it reads the files through, so the
 * screen waits for it. 0 with *written, or a negative enum err_code with
 * the reason in errbuf (ERR_USAGE: live without -w, nothing was kept).
 */
int pl_write_conn(struct player *p, const struct tm_row *r, const char *path, uint64_t *written,
		  uint64_t *skipped, char *errbuf, size_t errlen);

/*
 * Live: have every packet the engine was given so far in the -w file
 * (flushed by the engine thread, within ~100 ms), for a reader of that
 * file ('w', a child tcpsift analyze). UI thread; it waits. 0 (replay: at
 * once), ERR_USAGE without -w (nothing is kept), ERR_SYSTEM when the
 * flush did not happen in time (errbuf filled).
 */
int pl_flush_file(struct player *p, char *errbuf, size_t errlen);

/* Ask the thread to stop and join it (a live capture is drained first). */
void pl_stop(struct player *p);

void pl_free(struct player *p); /* stops first; NULL is a no-op */

#endif
