/* fuzz_memfd.h - a fuzz input as a file: the harnesses' one way to get there. */
#ifndef TCPSIFT_FUZZ_MEMFD_H
#define TCPSIFT_FUZZ_MEMFD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Write data[size] into a new memfd named name and put its /proc path in
 * path (the readers then take the regular-file route: fstat, read(2)).
 * Returns the descriptor (the caller closes it); a failure here is the
 * harness's, not the input's, so it aborts.
 */
static inline int fuzz_memfd(const char *name, const uint8_t *data, size_t size, char *path,
			     size_t pathlen)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd == -1) {
		perror("memfd_create");
		abort();
	}
	for (size_t off = 0; off < size;) {
		ssize_t n = write(fd, data + off, size - off);
		if (n <= 0) {
			perror("write");
			abort();
		}
		off += (size_t)n;
	}
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
