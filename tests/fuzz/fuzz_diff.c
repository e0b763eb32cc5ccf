/* fuzz_diff.c - libFuzzer target: any bytes as a report, compared with itself by tcpsift diff. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_memfd.h"
#include "analyze/diff/diff.h"
#include "analyze/diff/diffout.h"
#include "analyze/readback/jsonin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Side s of d from the report at path, as cmd_diff.c reads one: 0 or -1. */
static int read_side(struct diff *d, int s, const char *path)
{
	char err[256] = "";
	struct ji_file *f = ji_open(path, NULL, err, sizeof(err));
	struct ji_item *it = malloc(sizeof(*it));
	int rc = 0;

	if (!it)
		abort();
	while (f && (rc = ji_next(f, it, err, sizeof(err))) > 0) {
		if (it->kind == JI_CONN && diff_add_conn(d, s, &it->conn) < 0)
			abort();
		if (it->kind == JI_EVENT && diff_add_event(d, s, &it->event) < 0)
			abort();
		if (it->kind == JI_SUMMARY)
			diff_set_run(d, s,
				     &(struct diff_run){.first_ts = it->summary.eng.first_ts,
							.last_ts = it->summary.eng.last_ts});
	}
	free(it);
	ji_close(f);
	return f && rc == 0 ? 0 : -1;
}

/*
 * The input is read as both sides (one memfd, read twice), paired by
 * 4-tuple and by order, written as text and JSON, with a --fail-on of
 * every kind. A report against itself: no total may change.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[256], which[400];
	struct fo_expr e;
	int fd;

	if (size > (1u << 20))
		return 0;
	fd = fuzz_memfd("fuzz_diff", data, size, path, sizeof(path));
	for (int m = 0; m < DIFF_MATCH_COUNT; m++) {
		struct diff *d = diff_new((enum diff_match)m, err, sizeof(err));
		if (!d)
			abort();
		if (read_side(d, 0, path) < 0 || read_side(d, 1, path) < 0) {
			diff_free(d);
			break;
		}
		if (diff_finish(d) < 0)
			abort();
		for (unsigned k = 0; k < diff_nmetrics(d); k++)
			if (diff_changed(diff_totals(d, 0)[k], diff_totals(d, 1)[k]))
				__builtin_trap();
		if (diff_fail_parse(d, "retransmissions>+1,throughput<-20%,stall_time!=+0%", &e,
				    err, sizeof(err)) < 0 ||
		    diff_fail_match(d, &e, which, sizeof(which)))
			__builtin_trap();
		FILE *null = fopen("/dev/null", "w");
		if (!null)
			abort();
		const struct diffout_info in = {.version = "fuzz",
						.path = {path, path},
						.kind = {"report", "report"},
						.fail_on = "retransmissions>+1"};
		diffout_text(null, d, &in, err, sizeof(err));
		diffout_json(null, d, &in, err, sizeof(err));
		fclose(null);
		diff_free(d);
	}
	close(fd);
	return 0;
}
