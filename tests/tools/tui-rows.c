/* tui-rows.c - replay captures through the dashboard's player and print its table as TSV.
 *
 * usage: tui-rows FILE...   (merged by time, as tcpsift tui -r FILE... --max)
 *
 * Runs the TUI's engine thread (tui/player.c, the model of tui/model.c)
 * to the end of the input, without a screen, and prints what the
 * connection table would show, one line per connection:
 *
 *   id client server state retrans stalls stall_ns holes ooo queues mtu_flag
 *
 * then "total packets conns stalls holes reorders retrans". tests/tui/parity.sh
 * compares this with `tcpsift analyze --json` of the same files.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "analyze/report/report.h"
#include "tui/player.h"

int main(int argc, char **argv)
{
	char err[512], a[64], b[64];

	if (argc < 2) {
		fputs("usage: tui-rows FILE...\n", stderr);
		return 2;
	}
	struct pl_config cfg = {.mode = PL_REPLAY,
				.paths = (const char *const *)&argv[1],
				.npaths = (unsigned)(argc - 1),
				.speed = 0,
				.model = {.keep_ended = 1u << 22},
				.publish_ns = 20000000};
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
	while (v->h.state != PL_ENDED && v->h.state != PL_FAILED) {
		struct timespec ts = {0, 20000000};
		nanosleep(&ts, NULL);
		v = pl_latest(p, 0);
	}
	/* One more publication after the end: every connection has ended in it. */
	uint64_t seq = v->seq;
	while (v->seq == seq) {
		struct timespec ts = {0, 20000000};
		nanosleep(&ts, NULL);
		v = pl_latest(p, 0);
	}
	for (uint32_t k = 0; k < v->m.nrows; k++) {
		const struct tm_row *r = &v->m.rows[k];
		rep_format_endpoint(&r->client, r->client_port, a, sizeof(a));
		rep_format_endpoint(&r->server, r->server_port, b, sizeof(b));
		printf("%" PRIu64 "\t%s\t%s\t%s\t%" PRIu64 "\t%" PRIu32 "\t%" PRId64 "\t%" PRIu32
		       "\t%" PRIu64 "\t%" PRIu32 "\t%d\n",
		       r->id, a, b, sum_state_name(r->state), r->retrans,
		       (uint32_t)r->det[DET_VIEW_stall][0].sort, r->det[DET_VIEW_stall][1].sort,
		       (uint32_t)r->det[DET_VIEW_sack][0].sort, r->ooo, r->queues,
		       (int)r->det[DET_VIEW_mtu][0].sort);
	}
	const struct tm_totals *t = &v->m.tot;
	printf("total\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
	       "\n",
	       v->h.packets, t->conns, t->det.stall.count, t->events[SUM_EV_SACK_HOLE],
	       t->events[SUM_EV_REORDER], t->retrans);
	int rc = v->h.error[0] ? 3 : 0;
	if (rc)
		fprintf(stderr, "tui-rows: %s\n", v->h.error);
	pl_free(p);
	return rc;
}
