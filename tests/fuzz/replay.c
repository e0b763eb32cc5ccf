/* replay.c - a main() for a fuzz target without libFuzzer: each file named (or in a folder named)
 * is one input. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * Linked with one tests/fuzz/fuzz_*.c and the sanitizer build of the
 * library, this replays the committed corpus deterministically, with gcc or
 * clang and no fuzzing engine (tests/fuzz/run.sh). Like libFuzzer, it calls
 * LLVMFuzzerInitialize() once if the target has one and hands each input
 * over in a heap buffer of exactly its size, so ASan sees a read past the
 * end. Folders are read one level deep, in name order. Each input's name
 * goes to stderr before it runs, so the last one named is the culprit of a
 * sanitizer report or trap.
 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

struct replay_stats {
	unsigned long inputs;
	unsigned long long bytes;
};

/* One input. 0, or -1 when the file cannot be read (said on stderr). */
static int replay_file(const char *path, struct replay_stats *st)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap ? cap * 2 : 65536);

			if (!nb) {
				fprintf(stderr, "replay: %s: out of memory\n", path);
				goto err;
			}
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		size_t n = fread(buf + len, 1, cap - len, f);

		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		goto err;
	}
	fclose(f);
	f = NULL;
	/* Exactly len bytes, so ASan flags a read past the end (realloc(p, 0)
	 * may free p: an empty input gets malloc(0), which may be NULL). */
	uint8_t *exact;

	if (len) {
		exact = realloc(buf, len);
	} else {
		free(buf);
		buf = NULL;
		exact = malloc(0);
	}
	if (!exact && len) {
		fprintf(stderr, "replay: %s: out of memory\n", path);
		goto err;
	}
	buf = NULL;
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	st->inputs++;
	st->bytes += len;
	return 0;
err:
	if (f)
		fclose(f);
	free(buf);
	return -1;
}

static int replay_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file in dir, in name order. 0, or -1 after a failure. */
static int replay_dir(const char *dir, struct replay_stats *st)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap ? cap * 2 : 64) * sizeof(*names));

			if (!nn) {
				rc = -1;
				break;
			}
			names = nn;
			cap = cap ? cap * 2 : 64;
		}
		if (asprintf(&names[n], "%s/%s", dir, e->d_name) == -1) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc < 0)
		fprintf(stderr, "replay: %s: out of memory\n", dir);
	if (n > 1)
		qsort(names, n, sizeof(*names), replay_name_cmp);
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		if (rc == 0 && stat(names[i], &sb) == 0 && S_ISREG(sb.st_mode) &&
		    replay_file(names[i], st) < 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	struct replay_stats st = {0};
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat sb;

		if (stat(argv[i], &sb) == -1) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			rc = -1;
		} else if (S_ISDIR(sb.st_mode) ? replay_dir(argv[i], &st) < 0
					       : replay_file(argv[i], &st) < 0) {
			rc = -1;
		}
	}
	printf("replay: %lu inputs, %llu bytes\n", st.inputs, st.bytes);
	return rc < 0 ? 1 : 0;
}
