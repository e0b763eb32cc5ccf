/* fuzz_tracefile.c - libFuzzer target: any bytes as a libtrace trace (legacy formats, ERF, TSH). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_memfd.h"
#include "capture/file/tracefile.h"
#include "common/clock.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The formats that read a file (libtrace 3); byte 0 of an input chooses. */
static const char *const formats[] = {
    "legacyeth", "legacypos", "legacyatm", "erf", "rawerf", "tsh", "duck", "atmhdr", "fr+",
};

/* As fuzz_savefile: no libwandio reader thread (in the child here). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("LIBTRACEIO", "nothreads", 0);
	return 0;
}

/*
 * Input: [format index][the trace's bytes]. The bytes go into a memfd
 * opened as "FORMAT:/proc/self/fd/N" (the child libtrace runs in inherits
 * the descriptor), and tf_next() is read to the end. libtrace itself may
 * abort or crash in its child: that must come back as an input error with a
 * message, never as a crash here. What is checked is the parent's side
 * (tracefile.c): every message from the child is bounded, every packet
 * handed out lies in the bytes received (ASan sees each byte read),
 * wirelen >= caplen, the time lies in [0, CLOCK_TS_MAX] and a failure
 * always says why.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char uri[96], path[64], err[256];
	struct tf_reader *r;
	struct pkt p;
	uint8_t sum = 0;
	int fd, rc;

	if (size < 1)
		return 0;
	fd = fuzz_memfd("fuzz_tracefile", data + 1, size - 1, path, sizeof(path));
	snprintf(uri, sizeof(uri), "%s:%s",
		 formats[data[0] % (sizeof(formats) / sizeof(formats[0]))], path);
	err[0] = '\0';
	r = tf_open(uri, err, sizeof(err));
	if (r == NULL && err[0] == '\0')
		abort(); /* a failed open must say why */
	if (r != NULL) {
		while ((rc = tf_next(r, &p)) == 1) {
			for (uint32_t i = 0; i < p.caplen; i++)
				sum ^= p.data[i];
			if (p.wirelen < p.caplen || p.ts_ns < 0 || p.iface != 0)
				abort();
		}
		if (rc < 0 && tf_error(r)[0] == '\0')
			abort(); /* every failure must say why */
		if (tf_next(r, &p) != rc)
			abort(); /* the end, or the error, stays */
		tf_close(r);
	}
	close(fd);
	__asm__ volatile("" : : "r"(sum));
	return 0;
}
