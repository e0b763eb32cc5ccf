/* fuzz_savefile.c - libFuzzer target: any bytes through sf_open/sf_next until end or error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_memfd.h"
#include "capture/file/savefile.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Nothing to set up: compressed input is decoded in the reader's own
 * thread (savefile_zip.c), as it is outside the fuzzer. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/*
 * The input goes into a memfd and is opened by its /proc path, so sf_open
 * takes the same route as for a regular file on disk (fstat, read(2) of
 * the magic and into its buffer, the decoder for compressed magics).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[256];
	struct sf_reader *r;
	struct pkt p;
	uint8_t sum = 0;
	int fd, rc;

	fd = fuzz_memfd("fuzz_savefile", data, size, path, sizeof(path));
	r = sf_open(path, err, sizeof(err));
	if (r != NULL) {
		while ((rc = sf_next(r, &p)) == 1) {
			/* Touch every byte so ASan sees any overrun of the block. */
			for (uint32_t i = 0; i < p.caplen; i++)
				sum ^= p.data[i];
			if (p.iface >= sf_iface_count(r) || p.wirelen < p.caplen ||
			    p.caplen > SF_MAX_RECORD)
				abort();
		}
		if (rc < 0 && sf_error(r)[0] == '\0')
			abort(); /* every failure must say why */
		for (unsigned i = 0; i < sf_iface_count(r); i++)
			sum ^= (uint8_t)sf_iface(r, i)->name[0];
		if (sf_offset(r) > size && !sf_compressed(r))
			abort();
		sf_close(r);
	}
	close(fd);
	/* Keep the loop from being optimised away. */
	__asm__ volatile("" : : "r"(sum));
	return 0;
}
