/* tui-rows.c - replay captures through the dashboard's player and print its table as TSV.
 *
 * usage: tui-rows [--threads N] [--every K] FILE...
 *        (merged by time, as tcpsift tui -r FILE... --max [--threads N])
 *
 * Runs the TUI's engine thread (tui/player.c, the model of tui/model.c)
 * to the end of the input, without a screen, and prints what the
 * connection table would show, one line per connection:
 *
 *   id client server state retrans stalls stall_ns holes ooo queues mtu_flag
 *
 * then "total packets conns stalls holes reorders retrans". tests/tui/parity.sh
 * compares this with `tcpsift analyze --json` of the same files.
 *
 * --every K: the replay starts paused and goes K packets a step (the n key);
 * after each step, "at PACKETS NOW LIVE" and the table as the screen would
 * show it then, with the bytes, rates and RTT of the live connections: the
 * tests compare these between --threads 1 and 2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/report/report.h"
#include "tui/player.h"

/* The next publication polled for every 1 ms (and one every 1 ms,
 * .publish_ns below): a run costs its work, not 20-40 ms a step
 * (tests/tui steps through every sample twice). */
static void sleep_1ms(void)
{
	struct timespec ts = {0, 1000000};
	nanosleep(&ts, NULL);
}

static void print_rows(const struct pl_view *v, bool live)
{
	char a[64], b[64];

	for (uint32_t k = 0; k < v->m.nrows; k++) {
		const struct tm_row *r = &v->m.rows[k];
		rep_format_endpoint(&r->client, r->client_port, a, sizeof(a));
		rep_format_endpoint(&r->server, r->server_port, b, sizeof(b));
		printf("%" PRIu64 "\t%s\t%s\t%s\t%" PRIu64 "\t%" PRIu32 "\t%" PRId64 "\t%" PRIu32
		       "\t%" PRIu64 "\t%" PRIu32 "\t%d",
		       r->id, a, b, sum_state_name(r->state), r->retrans,
		       (uint32_t)r->det[DET_VIEW_stall][0].sort, r->det[DET_VIEW_stall][1].sort,
		       (uint32_t)r->det[DET_VIEW_sack][0].sort, r->ooo, r->queues,
		       (int)r->det[DET_VIEW_mtu][0].sort);
		if (live)
			printf("\t%d\t%" PRIu64 "\t%" PRIu64 "\t%.0f\t%.0f\t%" PRId64, r->ended,
			       r->bytes[0], r->bytes[1], r->rate[0], r->rate[1], r->rtt_ns);
		putchar('\n');
	}
	const struct tm_totals *t = &v->m.tot;
	printf("total\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
	       "\n",
	       v->h.packets, t->conns, t->det.stall.count, t->events[SUM_EV_SACK_HOLE],
	       t->events[SUM_EV_REORDER], t->retrans);
}

int main(int argc, char **argv)
{
	char err[512];
	unsigned threads = 1, every = 0;
	int first = 1;

	for (; first + 1 < argc; first += 2) {
		if (strcmp(argv[first], "--threads") == 0)
			threads = (unsigned)strtoul(argv[first + 1], NULL, 10);
		else if (strcmp(argv[first], "--every") == 0)
			every = (unsigned)strtoul(argv[first + 1], NULL, 10);
		else
			break;
	}
	if (argc <= first || threads < 1) {
		fputs("usage: tui-rows [--threads N] [--every K] FILE...\n", stderr);
		return 2;
	}
	struct pl_config cfg = {.mode = PL_REPLAY,
				.paths = (const char *const *)&argv[first],
				.npaths = (unsigned)(argc - first),
				.threads = threads,
				.speed = 0,
				.start_paused = every > 0,
				.model = {.keep_ended = 1u << 22},
				.publish_ns = 1000000};
	eng_config_defaults(&cfg.eng);
	struct player *p;
	if (pl_new(&cfg, &p, err, sizeof(err)) < 0) {
		fprintf(stderr, "tui-rows: %s\n", err);
		return 3;
	}
	if (pl_start(p, err, sizeof(err)) < 0) {
		fprintf(stderr, "tui-rows: %s\n", err);
		pl_free(p);
		return 3;
	}
	const struct pl_view *v = pl_latest(p, 0);
	for (uint64_t want = every; every; want += every) {
		for (unsigned k = 0; k < every; k++)
			pl_step(p);
		/* A publication after the step: every packet of it analysed. */
		while (v->h.packets < want && v->h.state != PL_ENDED && v->h.state != PL_FAILED) {
			sleep_1ms();
			v = pl_latest(p, 0);
		}
		if (v->h.packets < want)
			break;
		printf("at\t%" PRIu64 "\t%" PRId64 "\t%" PRIu64 "\n", v->h.packets, v->m.now,
		       v->m.tot.live);
		print_rows(v, true);
	}
	while (v->h.state != PL_ENDED && v->h.state != PL_FAILED) {
		if (every)
			pl_toggle_pause(p);
		sleep_1ms();
		v = pl_latest(p, 0);
		every = 0;
	}
	/* One more publication after the end: every connection has ended in it. */
	uint64_t seq = v->seq;
	while (v->seq == seq) {
		sleep_1ms();
		v = pl_latest(p, 0);
	}
	print_rows(v, false);
	int rc = v->h.error[0] ? 3 : 0;
	if (rc)
		fprintf(stderr, "tui-rows: %s\n", v->h.error);
	pl_free(p);
	return rc;
}
