/* connstore.c - connection summaries by id, in memory or spilled to an unlinked file. */
#include "analyze/report/connstore.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/err.h"
#include "common/grow.h"

#define CS_REC sizeof(struct sum_conn)
/* Spilled records of consecutive ids gathered for one write: a record is
 * 1.6 KB, not a file system block, and a write of one lets ext4 read or
 * zero the rest of each block it touches (at 200 000 live connections the
 * summaries of the end's drain, in id order, took a tenth of the run). */
#define CS_PEND 64

struct cs_store {
	size_t mem_cap;
	struct sum_conn *mem; /* slot id - 1, before spilling */
	size_t mem_slots;
	uint64_t *present; /* bit id - 1: that id was put */
	size_t present_words;
	uint64_t max_id;
	int fd; /* the spill file, -1 before */
	/* Records not yet written, ids pend_first .. pend_first + pend_n - 1
	 * (CS_PEND of them at most: taken when it spills). */
	struct sum_conn *pend;
	uint64_t pend_first;
	size_t pend_n;
	struct sum_conn *map;
	size_t map_len;
	bool finished;
};

struct cs_store *cs_new(size_t mem_cap, char *errbuf, size_t errlen)
{
	struct cs_store *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	s->mem_cap = mem_cap;
	s->fd = -1;
	return s;
}

static int grow_present(struct cs_store *s, uint64_t id)
{
	size_t words = (size_t)((id + 63) / 64);

	if (words <= s->present_words)
		return 0;
	size_t old = s->present_words;
	if (GROW(s->present, s->present_words, words, 16) < 0)
		return ERR_NOMEM;
	memset(s->present + old, 0, (s->present_words - old) * sizeof(*s->present));
	return 0;
}

static bool is_present(const struct cs_store *s, uint64_t i)
{
	return s->present[i / 64] >> (i % 64) & 1;
}

/* An unlinked file in $TMPDIR (else /tmp): gone when the process is. */
static int open_spill(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	/* A file system without O_TMPFILE: create, then unlink at once. */
	snprintf(path, sizeof(path), "%s/tcpsift-conns-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static int write_at(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t w = pwrite(fd, p, len, off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return ERR_SYSTEM;
		}
		p += w;
		off += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The pending records to the file, at their slots. */
static int pend_flush(struct cs_store *s)
{
	size_t n = s->pend_n;

	s->pend_n = 0;
	if (!n)
		return 0;
	return write_at(s->fd, s->pend, n * CS_REC, (off_t)((s->pend_first - 1) * CS_REC));
}

/* A spilled store's record of id (put before) into *out. */
static int spilled_get(struct cs_store *s, uint64_t id, struct sum_conn *out)
{
	if (id >= s->pend_first && id - s->pend_first < s->pend_n) {
		*out = s->pend[id - s->pend_first];
		return 0;
	}
	if (pread(s->fd, out, CS_REC, (off_t)((id - 1) * CS_REC)) != (ssize_t)CS_REC)
		return ERR_SYSTEM;
	return 0;
}

/* Keep c in a spilled store: among the pending records when its id is
 * one of theirs or the next, else after writing them out. */
static int spilled_put(struct cs_store *s, const struct sum_conn *c)
{
	uint64_t id = c->id;
	int rc;

	if (s->pend_n && id >= s->pend_first && id - s->pend_first < s->pend_n) {
		s->pend[id - s->pend_first] = *c;
		return 0;
	}
	if (!s->pend_n || id != s->pend_first + s->pend_n || s->pend_n == CS_PEND) {
		if ((rc = pend_flush(s)) < 0)
			return rc;
		s->pend_first = id;
	}
	s->pend[s->pend_n++] = *c;
	return 0;
}

/* From memory to the file: everything put so far at its slot. */
static int spill(struct cs_store *s)
{
	if (!s->pend && !(s->pend = malloc(CS_PEND * CS_REC)))
		return ERR_NOMEM;
	s->fd = open_spill();
	if (s->fd < 0)
		return ERR_SYSTEM;
	if (s->max_id && write_at(s->fd, s->mem, (size_t)s->max_id * CS_REC, 0) < 0)
		return ERR_SYSTEM;
	free(s->mem);
	s->mem = NULL;
	s->mem_slots = 0;
	return 0;
}

int cs_put(struct cs_store *s, const struct sum_conn *c)
{
	uint64_t id = c->id;
	int rc;

	if (s->finished || id == 0)
		return ERR_USAGE;
	if ((rc = grow_present(s, id)) < 0)
		return rc;
	if (s->fd < 0 && id * CS_REC > s->mem_cap && (rc = spill(s)) < 0)
		return rc;
	bool again = (s->present[(id - 1) / 64] >> ((id - 1) % 64)) & 1;
	struct sum_conn joined;
	if (again && c->evicted_and_resumed) {
		/* The part after an eviction joins the part before it. */
		if (s->fd >= 0) {
			if ((rc = spilled_get(s, id, &joined)) < 0)
				return rc;
		} else {
			joined = s->mem[id - 1];
		}
		sum_conn_merge(&joined, c);
		c = &joined;
	}
	if (s->fd >= 0) {
		if ((rc = spilled_put(s, c)) < 0)
			return rc;
	} else {
		if (id > s->mem_slots) {
			size_t n = s->mem_slots ? s->mem_slots : 256;
			while (n < id)
				n *= 2;
			if (n * CS_REC > s->mem_cap)
				n = s->mem_cap / CS_REC > id ? s->mem_cap / CS_REC : (size_t)id;
			struct sum_conn *m = realloc(s->mem, n * CS_REC);
			if (!m)
				return ERR_NOMEM;
			s->mem = m;
			s->mem_slots = n;
		}
		/* Records past max_id are never read (compaction and the spill
		 * stop there): only the ids skipped below this one are zeroed,
		 * not all the room the array grew by (2.5 KB a record). */
		if (id > s->max_id + 1)
			memset(s->mem + s->max_id, 0, (id - 1 - s->max_id) * CS_REC);
		s->mem[id - 1] = *c;
	}
	s->present[(id - 1) / 64] |= 1ull << ((id - 1) % 64);
	if (id > s->max_id)
		s->max_id = id;
	return 0;
}

/* Slide the present records of a down over the holes; the count. Pages
 * already passed are let go as it goes (a spilled store may be large). */
static size_t compact(struct cs_store *s, struct sum_conn *a)
{
	size_t n = 0, released = 0;

	for (uint64_t i = 0; i < s->max_id; i++) {
		if (!is_present(s, i))
			continue;
		if (n != i)
			a[n] = a[i];
		n++;
		if ((i & 1023) == 1023 && n > released + 2048) {
			cs_release(s, released, n - 1024);
			released = n - 1024;
		}
	}
	return n;
}

int cs_finish(struct cs_store *s, const struct sum_conn **conns, size_t *n)
{
	size_t have = 0;

	for (size_t w = 0; w < s->present_words; w++)
		have += (size_t)__builtin_popcountll(s->present[w]);
	s->finished = true;
	*conns = NULL;
	*n = 0;
	if (s->max_id == 0)
		return 0;
	if (s->fd < 0) {
		*n = have == s->max_id ? have : compact(s, s->mem);
		*conns = s->mem;
		return 0;
	}
	int rc = pend_flush(s);
	if (rc < 0)
		return rc;
	s->map_len = (size_t)s->max_id * CS_REC;
	void *m = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (m == MAP_FAILED) {
		s->map_len = 0;
		return ERR_SYSTEM;
	}
	s->map = m;
	madvise(m, s->map_len, MADV_SEQUENTIAL);
	*n = have == s->max_id ? have : compact(s, s->map);
	*conns = s->map;
	return 0;
}

void cs_release(const struct cs_store *s, size_t from, size_t to)
{
	long pg = sysconf(_SC_PAGESIZE);

	if (!s->map || to <= from || pg <= 0)
		return;
	uintptr_t lo = (uintptr_t)s->map + from * CS_REC, hi = (uintptr_t)s->map + to * CS_REC;
	lo = (lo + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
	hi &= ~((uintptr_t)pg - 1);
	/* Shared file pages: dropping them from the mapping loses nothing,
	 * the page cache and the file keep the data. */
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

int cs_spilled(const struct cs_store *s)
{
	return s->fd >= 0;
}

void cs_free(struct cs_store *s)
{
	if (!s)
		return;
	if (s->map)
		munmap(s->map, s->map_len);
	if (s->fd >= 0)
		close(s->fd);
	free(s->mem);
	free(s->pend);
	free(s->present);
	free(s);
}
