/* diffout.h - tcpsift diff's writers: the comparison as an aligned text table or one JSON document.
 */
#ifndef TCPSIFT_DIFFOUT_H
#define TCPSIFT_DIFFOUT_H

#include <stdbool.h>
#include <stdio.h>

#include "analyze/diff/diff.h"

/* What the writers say about the run besides the comparison (borrowed). */
struct diffout_info {
	const char *version;
	const char *path[2]; /* A, B as given */
	const char *kind[2]; /* "capture" or "report" */
	const char *fail_on; /* the --fail-on expression, or NULL */
	const char *matched; /* the term that held, or NULL */
	bool all;	     /* text: unchanged rows too */
};

/* After diff_finish(). 0, or ERR_SYSTEM / ERR_NOMEM (a write failed) with
 * one line in errbuf. The JSON is tcpsift-diff.schema.json's. */
int diffout_text(FILE *out, const struct diff *d, const struct diffout_info *in, char *errbuf,
		 size_t errlen);
int diffout_json(FILE *out, const struct diff *d, const struct diffout_info *in, char *errbuf,
		 size_t errlen);

#endif
