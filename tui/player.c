/* player.c - the dashboard's engine thread: pacing, pause/step, live capture, snapshots. */
#include "common/clock.h"
#include "tui/player_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/engine/decode.h"
#include "analyze/engine/source.h"
#include "capture/file/pcapwriter.h"
#include "capture/live/dropwarn.h"
#include "common/err.h"

/* Replay: the longest the pacing waits for the next packet (wall time). */
#define PL_MAX_WAIT_S 5.0

static void sleep_s(double s)
{
	struct timespec ts = {.tv_sec = (time_t)s,
			      .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
	nanosleep(&ts, NULL);
}

const char *pl_state_name(enum pl_state s)
{
	static const char *const names[PL_STATE_COUNT] = {"playing", "paused", "ended", "failed"};
	return (unsigned)s < PL_STATE_COUNT ? names[s] : "?";
}

/* With write_path, the ring's pcapng copy. 0 or ERR_SYSTEM (errbuf filled). */
static int open_write(struct player *p, char *errbuf, size_t errlen)
{
	if (!p->cfg.write_path || p->writer)
		return 0;
	struct pw_config wcfg = {.path = p->cfg.write_path,
				 .format = PW_PCAPNG,
				 .snaplen = p->cfg.ring.snaplen,
				 .comment = "tcpsift tui live capture",
				 .overwrite = p->cfg.overwrite};
	p->writer = ring_pw_open(p->ring, &wcfg, errbuf, errlen);
	return p->writer ? 0 : ERR_SYSTEM;
}

int pl_new(const struct pl_config *cfg, struct player **out, char *errbuf, size_t errlen)
{
	struct player *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p) {
		snprintf(errbuf, errlen, "out of memory");
		return ERR_NOMEM;
	}
	p->cfg = *cfg;
	if (p->cfg.publish_ns <= 0)
		p->cfg.publish_ns = 100000000;
	p->back = 0;
	p->ready = 1;
	p->front = 2;
	p->speed = cfg->speed;
	p->paused = cfg->mode == PL_REPLAY && cfg->start_paused;
	pthread_mutex_init(&p->lock, NULL);
	for (unsigned k = 0; k < 3; k++) {
		p->views[k].h.mode = cfg->mode;
		p->views[k].h.progress = -1;
		p->views[k].h.queue_fill = -1;
		p->views[k].h.speed = cfg->speed;
		p->views[k].h.state = p->paused ? PL_PAUSED : PL_PLAYING;
	}
	if (cfg->mode == PL_LIVE && (rc = ring_open(&p->cfg.ring, &p->ring, errbuf, errlen)) < 0)
		goto err;
	rc = pl_mx_open(p, errbuf, errlen);
	if (rc < 0)
		goto err;
	rc = ERR_NOMEM; /* all the model can run out of */
	p->model = tm_new(&cfg->model, errbuf, errlen);
	if (!p->model)
		goto err;
	/* Replay: the files open here (a filter that does not compile...). */
	rc = pl_pipe_open(p, p->model, &p->pipe, errbuf, errlen);
	if (rc < 0)
		goto err;
	p->state = p->paused ? PL_PAUSED : PL_PLAYING;
	*out = p;
	return 0;
err:
	pl_free(p);
	return rc;
}

/* ---- the player thread ---- */

/* Packets/s and bits/s over the last second of h->now_ts. */
static void header_rates(struct player *p, struct pl_header *h, const struct eng_counters *n)
{
	struct pl_sample now = {.ts = h->now_ts, .packets = n->packets, .bytes = n->wire_bytes};
	const struct pl_sample *base = NULL;

	/* The newest sample at least a second of capture time old, else the
	 * oldest older than now; with none (a short file read at once), the
	 * average since the first packet. */
	for (unsigned k = 0; k < p->nsamples; k++) {
		const struct pl_sample *s =
		    &p->samples[(p->sample_head + PL_RATE_SAMPLES - 1 - k) % PL_RATE_SAMPLES];
		if (s->packets == 0 || s->ts >= now.ts)
			continue;
		base = s;
		if ((double)now.ts - (double)s->ts >= 1e9)
			break;
	}
	struct pl_sample start = {.ts = n->first_ts};
	if (!base && n->packets > 1)
		base = &start;
	h->pps = h->bps = 0;
	if (base && now.ts > base->ts) {
		double dt = ((double)now.ts - (double)base->ts) / 1e9;
		h->pps = (double)(now.packets - base->packets) / dt;
		h->bps = (double)(now.bytes - base->bytes) * 8 / dt;
	}
	if (p->nsamples == 0 ||
	    p->samples[(p->sample_head + PL_RATE_SAMPLES - 1) % PL_RATE_SAMPLES].ts != now.ts) {
		p->samples[p->sample_head] = now;
		p->sample_head = (p->sample_head + 1) % PL_RATE_SAMPLES;
		if (p->nsamples < PL_RATE_SAMPLES)
			p->nsamples++;
	}
}

static void header_drops(struct player *p, struct pl_header *h)
{
	if (p->ring) {
		struct ring_totals t;
		ring_stats_sum(p->ring, &t);
		h->drops_known = true;
		h->kernel_drops = t.kernel_drops;
		h->if_drops = t.if_drops;
		h->our_drops = t.queue_drops;
		h->drop_pct = t.kernel_recv ? 100.0 * (double)(t.kernel_drops + t.queue_drops) /
						  (double)t.kernel_recv
					    : 0;
		struct dw_warning w;
		if (dw_check(&p->dw, p->ring, clock_now_s(), false, &w) > 0)
			snprintf(p->drop_advice, sizeof(p->drop_advice), "%s", w.options);
		snprintf(h->drop_advice, sizeof(h->drop_advice), "%s",
			 dw_active(&p->dw) ? p->drop_advice : "");
		h->nqueues = ring_nsockets(p->ring);
		h->queue_fill = t.queue_fill;
		h->nvantages = 1;
		snprintf(h->vantage[0], sizeof(h->vantage[0]), "%s", p->cfg.ring.iface);
		h->written = p->writer ? pw_counters(p->writer)->packets : 0;
		return;
	}
	/* Files: the interfaces they name, and the drop counters they carry
	 * (pcapng ISB / EPB), once read. */
	const struct source *src = pipe_source(p->pipe);
	h->nvantages = src_vantage_count(src);
	for (unsigned v = 0; v < h->nvantages && v < PL_MAX_VANTAGES; v++)
		snprintf(h->vantage[v], sizeof(h->vantage[v]), "%s", src_vantage_name(src, v));
	h->drops_known = false;
	h->kernel_drops = 0;
	for (unsigned k = 0; k < src_count(src); k++) {
		const struct src_input *in = src_input(src, k);
		if (in->drops_known) {
			h->drops_known = true;
			h->kernel_drops += in->drops;
		}
	}
	h->progress = src_progress(src);
}

static void header_inputs(struct player *p, struct pl_header *h)
{
	const struct source *src = pipe_source(p->pipe);

	memset(h->input_first_ts, 0, sizeof(h->input_first_ts));
	h->cur_input = p->cur_input < PL_MAX_INPUTS ? p->cur_input : PL_MAX_INPUTS - 1;
	if (!src) {
		h->ninputs = 1;
		h->input_first_ts[0] = p->live_first_ts;
		return;
	}
	h->ninputs = src_count(src) < PL_MAX_INPUTS ? src_count(src) : PL_MAX_INPUTS;
	for (unsigned k = 0; k < src_count(src); k++) {
		const struct src_input *in = src_input(src, k);
		unsigned slot = k < PL_MAX_INPUTS ? k : PL_MAX_INPUTS - 1;
		if (in->packets &&
		    (!h->input_first_ts[slot] || in->first_ts < h->input_first_ts[slot]))
			h->input_first_ts[slot] = in->first_ts;
	}
}

/* Build views[back] from the model and swap it with the ready one. */
static void publish(struct player *p)
{
	struct pl_view *v = &p->views[p->back];
	struct eng_counters cnt;
	struct flow_counters flows;
	const struct eng_counters *n = &cnt;
	uint64_t detail_id;

	pthread_mutex_lock(&p->lock);
	detail_id = p->detail_id;
	v->h.speed = p->speed;
	pthread_mutex_unlock(&p->lock);

	/* Every packet handed in so far, analysed and its results in the
	 * model: the same numbers whatever --threads (a live capture's
	 * partial batch goes to the workers here, so this bounds its delay). */
	pipe_sync(p->pipe);
	pipe_counters(p->pipe, &cnt, &flows);
	v->h.now_ts = n->last_ts;
	if (p->cfg.mode == PL_LIVE) {
		/* The packets' clock is the wall clock: it runs without them. */
		int64_t wall = clock_ns(CLOCK_REALTIME);
		if (wall > v->h.now_ts)
			v->h.now_ts = wall;
		tm_advance_clock(p->model, v->h.now_ts);
	}
	pipe_foreach_live(p->pipe, tm_update_live, p->model);
	if (tm_snapshot_fill(p->model, &v->m, detail_id) < 0)
		snprintf(p->error, sizeof(p->error), "out of memory for the connection table");
	v->h.mode = p->cfg.mode;
	v->h.state = p->state;
	v->h.seeking = p->ff_until != 0;
	v->h.packets = n->packets;
	v->h.wire_bytes = n->wire_bytes;
	v->h.malformed = n->malformed_total;
	v->h.first_ts = n->first_ts;
	v->h.last_ts = n->last_ts;
	v->h.wall_s = clock_now_s() - p->start_wall;
	header_rates(p, &v->h, n);
	header_drops(p, &v->h);
	header_inputs(p, &v->h);
	if (p->mx)
		pl_mx_serve(p, &v->h);
	snprintf(v->h.error, sizeof(v->h.error), "%s", p->error);
	v->seq = ++p->seq;

	pthread_mutex_lock(&p->lock);
	unsigned t = p->back;
	p->back = p->ready;
	p->ready = t;
	p->ready_new = true;
	pthread_mutex_unlock(&p->lock);
}

struct pl_ctl {
	bool stop, paused;
	uint64_t steps;
	double speed;
	bool rebase;
	int64_t seek_ns;
	bool flush;
};

static void read_control(struct player *p, struct pl_ctl *c)
{
	pthread_mutex_lock(&p->lock);
	c->stop = p->stop;
	c->paused = p->paused;
	c->steps = p->steps;
	c->speed = p->speed;
	c->rebase = p->rebase;
	p->rebase = false;
	c->seek_ns = p->seek_ns;
	p->seek_ns = 0;
	c->flush = p->flush_req;
	p->flush_req = false;
	pthread_mutex_unlock(&p->lock);
	atomic_store(&p->control, false);
}

static void take_step(struct player *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->steps)
		p->steps--;
	pthread_mutex_unlock(&p->lock);
}

/*
 * Seeking keeps the model what analyze would show at that point: forward,
 * the packets up to the target are played without pacing; backward, the
 * replay starts again from the first packet into a fresh source, engine
 * and model (replay_reset) and plays up to the target the same way.
 * Returns the target of a jump back (replay_run returns to start again).
 */
static int replay_reset(struct player *p, char *errbuf, size_t errlen)
{
	struct tm_model *model;
	struct pipeline *pipe;

	model = tm_new(&p->cfg.model, errbuf, errlen);
	if (!model)
		return ERR_NOMEM;
	/* On failure the run it had stays, for the screen to show with the error. */
	int rc = pl_pipe_open(p, model, &pipe, errbuf, errlen);
	if (rc < 0) {
		tm_free(model);
		return rc;
	}
	pipe_free(p->pipe);
	tm_free(p->model);
	if (p->mx) /* the run starts over: so do its counters */
		mx_reset(mx_server_acc(p->mx));
	p->pipe = pipe;
	p->model = model;
	p->nsamples = p->sample_head = 0;
	p->cur_input = 0;
	p->cur_ts = p->pos_ts = 0;
	return 0;
}

/* Play the source until it ends and then wait: false when asked to stop,
 * true to start again from the first packet (a jump back, target in
 * p->ff_until). */
static bool replay_run(struct player *p)
{
	struct pl_ctl c;
	struct pkt pk;
	bool have = false, paced = false;
	double wall0 = 0, next_publish = 0;
	int64_t ts0 = 0;
	unsigned since_check = 0;

	read_control(p, &c);
	for (;;) {
		if (atomic_load(&p->control) || ++since_check >= 256) {
			since_check = 0;
			if (atomic_load(&p->control))
				read_control(p, &c);
			if (c.rebase)
				paced = false;
			if (c.seek_ns && !p->pos_ts) {
				p->ff_first = c.seek_ns > 0 ? c.seek_ns : 0;
				c.seek_ns = 0;
			}
			if (c.seek_ns) {
				int64_t target = clock_sat_add(p->pos_ts, c.seek_ns);
				c.seek_ns = 0;
				p->ff_until = target > 0 ? target : 1;
				if (target <= p->cur_ts)
					return true;
			}
			double now = clock_now_s();
			if (now >= next_publish) {
				publish(p);
				next_publish = now + (double)p->cfg.publish_ns / 1e9;
			}
		}
		if (c.stop)
			return false;
		bool ff = p->ff_until != 0 || p->ff_first != 0;
		if (c.paused && c.steps == 0 && !ff) {
			p->state = PL_PAUSED;
			sleep_s(0.01);
			since_check = 256;
			continue;
		}
		p->state = c.paused && !ff ? PL_PAUSED : PL_PLAYING;
		if (!have) {
			if (pipe_next(p->pipe, &pk) <= 0)
				break;
			have = true;
			if (p->ff_first) {
				p->ff_until = clock_sat_add(pk.ts_ns, p->ff_first);
				p->ff_first = 0;
				ff = true;
			}
		}
		if (ff && pk.ts_ns >= p->ff_until) {
			/* Arrived: pacing starts again here. */
			p->pos_ts = p->ff_until;
			p->ff_until = 0;
			ff = false;
			paced = false;
			since_check = 256;
			if (c.paused)
				continue;
		}
		if (c.speed > 0 && !c.paused && !ff) {
			double now = clock_now_s();
			if (!paced) {
				wall0 = now;
				ts0 = pk.ts_ns;
				paced = true;
			}
			double due = wall0 + ((double)pk.ts_ns - (double)ts0) / 1e9 / c.speed;
			if (due - now > PL_MAX_WAIT_S) {
				/* A long idle stretch (or a clock jump) is skipped,
				 * not waited out: pacing restarts at this packet. */
				wall0 = due = now;
				ts0 = pk.ts_ns;
			}
			if (due > now) {
				sleep_s(due - now < 0.01 ? due - now : 0.01);
				since_check = 256;
				continue;
			}
		}
		p->cur_input = pk.input;
		if (pk.ts_ns > p->cur_ts)
			p->cur_ts = pk.ts_ns;
		if (p->cur_ts > p->pos_ts)
			p->pos_ts = p->cur_ts;
		pipe_packet(p->pipe, &pk);
		have = false;
		if (c.paused && !ff) {
			take_step(p);
			read_control(p, &c);
			since_check = 256;
		}
	}
	/* End of input: every connection ends, exactly as analyze reports it. */
	p->ff_until = 0;
	pipe_finish(p->pipe, NULL);
	const struct source *src = pipe_source(p->pipe);
	for (unsigned k = 0; k < src_count(src); k++) {
		const struct src_input *in = src_input(src, k);
		if (in->error) {
			snprintf(p->error, sizeof(p->error), "%.200s: %.200s", in->path,
				 in->errmsg);
			break;
		}
	}
	p->state = PL_ENDED;
	for (;;) {
		publish(p);
		read_control(p, &c);
		if (c.stop)
			return false;
		if (c.seek_ns < 0) { /* back from the end; forward there is nothing */
			int64_t target = clock_sat_add(p->pos_ts, c.seek_ns);
			p->ff_until = target > 0 ? target : 1;
			return true;
		}
		sleep_s((double)p->cfg.publish_ns / 1e9);
	}
}

static void replay_loop(struct player *p)
{
	while (replay_run(p)) {
		char err[sizeof(p->error)];
		p->error[0] = '\0';
		if (replay_reset(p, err, sizeof(err)) < 0) {
			snprintf(p->error, sizeof(p->error), "%s", err);
			p->state = PL_FAILED;
			struct pl_ctl c;
			do {
				publish(p);
				sleep_s((double)p->cfg.publish_ns / 1e9);
				read_control(p, &c);
			} while (!c.stop);
			return;
		}
	}
}

static void live_loop(struct player *p)
{
	struct pl_ctl c;
	struct pkt pk;
	unsigned sock;
	bool stopping = false, write_failed = false;
	double next_publish = 0;
	uint64_t packets = 0;

	for (;;) {
		int got = ring_next(p->ring, &pk, &sock, 20);
		if (got == RING_END)
			break;
		if (got == 1) {
			if (p->writer && !write_failed && pw_write(p->writer, sock, &pk) < 0) {
				write_failed = true;
				snprintf(p->error, sizeof(p->error), "%s", pw_error(p->writer));
			}
			if (!p->live_first_ts)
				p->live_first_ts = pk.ts_ns;
			pipe_packet(p->pipe, &pk);
			if ((++packets & 0xff) != 0)
				continue;
		}
		double now = clock_now_s();
		if (now >= next_publish) {
			const char *rerr = ring_error(p->ring);
			if (rerr && !p->error[0]) {
				snprintf(p->error, sizeof(p->error), "%s", rerr);
				p->state = PL_FAILED;
			}
			publish(p);
			next_publish = now + (double)p->cfg.publish_ns / 1e9;
			read_control(p, &c);
			if (c.flush) {
				if (p->writer && !write_failed && pw_flush(p->writer) < 0) {
					write_failed = true;
					snprintf(p->error, sizeof(p->error), "%s",
						 pw_error(p->writer));
				}
				pthread_mutex_lock(&p->lock);
				p->flushes++;
				pthread_mutex_unlock(&p->lock);
			}
			if (c.stop && !stopping) {
				ring_request_stop(p->ring);
				stopping = true;
			}
		}
	}
	if (p->writer && pw_close(p->writer) < 0 && !p->error[0])
		snprintf(p->error, sizeof(p->error), "%s", pw_error(p->writer));
	pthread_mutex_lock(&p->lock);
	p->live_done = true;
	pthread_mutex_unlock(&p->lock);
	pipe_finish(p->pipe, NULL);
	if (p->state != PL_FAILED)
		p->state = PL_ENDED;
	publish(p);
}

static void *pl_thread(void *arg)
{
	struct player *p = arg;

	if (p->cfg.mode == PL_REPLAY)
		replay_loop(p);
	else
		live_loop(p);
	return NULL;
}

int pl_start(struct player *p, char *errbuf, size_t errlen)
{
	p->start_wall = clock_now_s();
	if (p->ring) {
		int rc = open_write(p, errbuf, errlen);
		if (rc == 0)
			rc = ring_start(p->ring, errbuf, errlen);
		if (rc < 0)
			return rc;
		dw_init(&p->dw, &p->cfg.ring, p->ring, p->start_wall, false);
	}
	int rc = pthread_create(&p->thread, NULL, pl_thread, p);
	if (rc != 0) {
		snprintf(errbuf, errlen, "cannot start the engine thread: %s", strerror(rc));
		return ERR_SYSTEM;
	}
	p->started = true;
	return 0;
}

const struct pl_view *pl_latest(struct player *p, uint64_t detail_id)
{
	pthread_mutex_lock(&p->lock);
	if (p->detail_id != detail_id) {
		p->detail_id = detail_id;
		atomic_store(&p->control, true);
	}
	if (p->ready_new && !p->hold) {
		unsigned t = p->front;
		p->front = p->ready;
		p->ready = t;
		p->ready_new = false;
	}
	const struct pl_view *v = &p->views[p->front];
	pthread_mutex_unlock(&p->lock);
	return v;
}

void pl_toggle_pause(struct player *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->cfg.mode == PL_LIVE) {
		p->hold = !p->hold;
	} else {
		p->paused = !p->paused;
		p->steps = 0;
		p->rebase = true;
	}
	pthread_mutex_unlock(&p->lock);
	atomic_store(&p->control, true);
}

void pl_step(struct player *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->cfg.mode == PL_REPLAY && p->paused)
		p->steps++;
	pthread_mutex_unlock(&p->lock);
	atomic_store(&p->control, true);
}

void pl_speed(struct player *p, double factor)
{
	pthread_mutex_lock(&p->lock);
	if (p->speed > 0) {
		double s = p->speed * factor;
		p->speed = s < 1.0 / 64 ? 1.0 / 64 : s > 4096 ? 4096 : s;
		p->rebase = true;
	}
	pthread_mutex_unlock(&p->lock);
	atomic_store(&p->control, true);
}

static bool same_addr(const struct dec_addr *a, const struct dec_addr *b)
{
	return a->family == b->family && memcmp(a->a, b->a, a->family == 6 ? 16 : 4) == 0;
}

/* Is this decoded segment one of r's, either way? */
static bool conn_segment(const struct tm_row *r, const struct dec_packet *d)
{
	const struct dec_tcp *t = &d->tcp;

	/* Both ways tested: the two ends may share an address (loopback). */
	return (same_addr(&d->src, &r->client) && same_addr(&d->dst, &r->server) &&
		t->sport == r->client_port && t->dport == r->server_port) ||
	       (same_addr(&d->src, &r->server) && same_addr(&d->dst, &r->client) &&
		t->sport == r->server_port && t->dport == r->client_port);
}

/* Copy r's packets from the capture files paths to a new pcapng at path. */
static int copy_conn(const char *const *paths, unsigned npaths, const struct src_config *scfgp,
		     const struct tm_row *r, const char *path, uint64_t *written, uint64_t *skipped,
		     char *errbuf, size_t errlen)
{
	struct source *src = NULL;
	struct pw_writer *w = NULL;
	struct pw_iface ifaces[PL_MAX_INPUTS];
	const struct src_config scfg = *scfgp;
	int rc;

	if (npaths > PL_MAX_INPUTS) {
		snprintf(errbuf, errlen, "more than %d inputs", PL_MAX_INPUTS);
		return ERR_USAGE;
	}
	struct pkt pk;
	/* An input's link type is known from its first packet: read until each
	 * input has given one (at once, unless one starts much later). */
	rc = src_open(paths, npaths, &scfg, &src, errbuf, errlen);
	if (rc < 0)
		return rc;
	for (unsigned seen = 0; seen < npaths && src_next(src, &pk) > 0;) {
		seen = 0;
		for (unsigned k = 0; k < npaths; k++)
			seen += src_input(src, k)->packets > 0;
	}
	for (unsigned k = 0; k < npaths; k++) {
		const struct src_input *in = src_input(src, k);
		ifaces[k] =
		    (struct pw_iface){.name = paths[k], .linktype = in->linktype, .queue = -1};
	}
	src_close(src);
	src = NULL;
	rc = src_open(paths, npaths, &scfg, &src, errbuf, errlen);
	if (rc < 0)
		return rc;
	struct pw_config wcfg = {.path = path,
				 .format = PW_PCAPNG,
				 .snaplen = 262144,
				 .comment = "tcpsift tui: one connection's packets"};
	w = pw_open(&wcfg, ifaces, npaths, errbuf, errlen);
	if (!w) {
		src_close(src);
		return ERR_SYSTEM;
	}
	struct dec_packet d;
	while ((rc = src_next(src, &pk)) > 0) {
		if (pk.vantage != r->vantage || pk.ts_ns < r->first_ts || pk.ts_ns > r->last_ts)
			continue;
		if (dec_packet(pk.data, pk.caplen, pk.wirelen, pk.linktype, &d) != DEC_TCP ||
		    !conn_segment(r, &d))
			continue;
		unsigned in = pk.input < npaths ? pk.input : 0;
		if (pk.linktype != ifaces[in].linktype) {
			(*skipped)++;
			continue;
		}
		if (pw_write(w, in, &pk) < 0) {
			snprintf(errbuf, errlen, "%s", pw_error(w));
			rc = ERR_SYSTEM;
			break;
		}
		(*written)++;
	}
	if (rc < 0 && rc != ERR_SYSTEM)
		snprintf(errbuf, errlen, "reading the inputs again failed");
	int crc = pw_close(w);
	if (crc < 0 && rc >= 0) {
		snprintf(errbuf, errlen, "%s", pw_error(w));
		rc = crc;
	}
	pw_free(w);
	src_close(src);
	return rc < 0 ? rc : 0;
}

int pl_flush_file(struct player *p, char *errbuf, size_t errlen)
{
	if (p->cfg.mode == PL_REPLAY)
		return 0;
	if (!p->writer) {
		snprintf(errbuf, errlen, "a live capture keeps its packets only with -w FILE");
		return ERR_USAGE;
	}
	/* The engine thread flushes what it wrote at its next publication
	 * (within ~100 ms), or has closed the file. */
	pthread_mutex_lock(&p->lock);
	uint64_t f0 = p->flushes;
	bool done = p->live_done;
	p->flush_req = true;
	pthread_mutex_unlock(&p->lock);
	atomic_store(&p->control, true);
	for (int k = 0; k < 200 && !done; k++) {
		sleep_s(0.01);
		pthread_mutex_lock(&p->lock);
		done = p->live_done || p->flushes != f0;
		pthread_mutex_unlock(&p->lock);
	}
	if (!done) {
		snprintf(errbuf, errlen, "the capture did not flush %s in time", p->cfg.write_path);
		return ERR_SYSTEM;
	}
	return 0;
}

int pl_write_conn(struct player *p, const struct tm_row *r, const char *path, uint64_t *written,
		  uint64_t *skipped, char *errbuf, size_t errlen)
{
	*written = *skipped = 0;
	if (p->cfg.mode == PL_REPLAY) {
		struct src_config scfg = {.filter = p->cfg.filter,
					  .queue_per_file = p->cfg.queue_per_file};
		return copy_conn(p->cfg.paths, p->cfg.npaths, &scfg, r, path, written, skipped,
				 errbuf, errlen);
	}
	if (!p->cfg.write_path) {
		snprintf(errbuf, errlen,
			 "a live capture keeps its packets only with -w FILE (then tcpsift analyze "
			 "--conn %" PRIu64 " FILE)",
			 r->id);
		return ERR_USAGE;
	}
	int rc = pl_flush_file(p, errbuf, errlen);
	if (rc < 0)
		return rc;
	const char *paths[1] = {p->cfg.write_path};
	struct src_config scfg = {0};
	return copy_conn(paths, 1, &scfg, r, path, written, skipped, errbuf, errlen);
}

void pl_seek(struct player *p, int64_t delta_ns)
{
	pthread_mutex_lock(&p->lock);
	if (p->cfg.mode == PL_REPLAY)
		p->seek_ns = clock_sat_add(p->seek_ns, delta_ns);
	pthread_mutex_unlock(&p->lock);
	atomic_store(&p->control, true);
}

void pl_stop(struct player *p)
{
	if (!p->started)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	p->hold = false;
	pthread_mutex_unlock(&p->lock);
	atomic_store(&p->control, true);
	pthread_join(p->thread, NULL);
	p->started = false;
}

void pl_free(struct player *p)
{
	if (!p)
		return;
	pl_stop(p);
	if (p->writer) {
		pw_close(p->writer); /* no-op when the live loop closed it */
		pw_free(p->writer);
	}
	ring_close(p->ring);
	pipe_free(p->pipe);
	tm_free(p->model);
	mx_server_free(p->mx);
	for (unsigned k = 0; k < 3; k++)
		tm_snapshot_free(&p->views[k].m);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
