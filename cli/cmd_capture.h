/* cmd_capture.h - entry point of the `tcpsift capture` verb. */
#ifndef TCPSIFT_CMD_CAPTURE_H
#define TCPSIFT_CMD_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/exit.h"
#include "common/pkt.h"

/* How a capture ended, for the analyzer fed by --analyze. */
struct capture_tap_end {
	const char *iface;
	uint32_t linktype;
	uint64_t written;			    /* packets written (and analysed) */
	uint64_t kernel_drops, if_drops, our_drops; /* as in the file's ISBs */
	bool interrupted;			    /* stopped by a signal, -c or --duration */
};

/* What the analyzer is asked for. */
struct capture_tap_config {
	bool json;	      /* the report at exit as JSON (else text) */
	unsigned threads;     /* analysis threads (0: one a CPU) */
	FILE *out;	      /* where the report goes */
	const char *metrics;  /* --metrics ADDR:PORT: serve /metrics there (NULL: no) */
	unsigned metrics_top; /* --metrics-top: connections in the trouble gauge */
	bool quiet;	      /* -q: nothing on stderr but errors */
};

/* The capture's drop counters so far, for --metrics. */
struct capture_tap_drops {
	uint64_t kernel_drops, if_drops, our_drops;
};

/*
 * `capture --analyze`: an analyzer fed every packet written, whose report
 * is printed at exit. It lives in a higher layer (cli/livetap.c) and
 * main() hands it in, so capture/ never includes analyze/.
 */
struct capture_tap_ops {
	/* A new analyzer as cfg asks; NULL with a reason in errbuf. */
	void *(*open)(const struct capture_tap_config *cfg, char *errbuf, size_t errlen);
	void (*packet)(void *tap, const struct pkt *p);
	/* The packets from frame first_frame on go to the file path (NULL:
	 * -w -): said before the first packet and at each rotation, so the
	 * report's tshark lines name the file, not the interface. 0, or
	 * ERR_NOMEM (no room for its name: its frames get no tshark line;
	 * none for its entry: they count as the previous file's). */
	int (*file)(void *tap, uint64_t first_frame, const char *path);
	/* Called every 100 ms or so: analyse what waits in a partial batch
	 * (--threads), so that a slow capture is not held back. */
	void (*flush)(void *tap);
	/* Called with flush: answer the --metrics requests waiting (the
	 * drops are the ring's now). */
	void (*serve)(void *tap, const struct capture_tap_drops *drops);
	/* End of capture: write the report, free the analyzer; 0, or an enum
	 * err_code after saying why on stderr (one line). */
	int (*close)(void *tap, const struct capture_tap_end *end);
};

/* Run the verb; argv[0] is "capture". tap may be NULL (then --analyze is
 * refused). Returns an enum tcpsift_exit. */
int capture_main(int argc, char **argv, const struct capture_tap_ops *tap);

/* Long option names, for the test that its man page documents each. */
size_t capture_option_names(const char **names, size_t max);

#endif
