/* fuzz_jsonin.c - libFuzzer target for the report reader: any bytes as a --json or --ndjson report.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_memfd.h"
#include "analyze/readback/jsonin.h"
#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input goes into a memfd opened by its /proc path (as tcpsift merge
 * opens a shard's report), then every piece ji_next() hands out until the
 * end or an error; each connection and event is written again by the
 * report writer, so values the reader let through must be ones the writer
 * takes (the sanitizers judge). A failure must come with a reason.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[256] = "";
	struct ji_item *it;
	struct ji_file *f;
	struct jo_writer w;
	int fd, rc;

	if (size > (1u << 20))
		return 0;
	fd = fuzz_memfd("fuzz_jsonin", data, size, path, sizeof(path));
	f = ji_open(path, NULL, err, sizeof(err));
	if (!f) {
		if (!err[0])
			__builtin_trap();
		close(fd);
		return 0;
	}
	it = malloc(sizeof(*it));
	if (!it)
		abort();
	while ((rc = ji_next(f, it, err, sizeof(err))) > 0) {
		jo_w_init(&w, NULL, 0, 0);
		if (it->kind == JI_CONN)
			rep_jw_conn(&w, &it->conn, "connection");
		else if (it->kind == JI_EVENT)
			rep_jw_event(&w, &it->event, "event");
		jo_w_free(&w);
	}
	if (rc < 0 && !err[0])
		__builtin_trap();
	free(it);
	ji_close(f);
	close(fd);
	return 0;
}
