/* pcapwriter_rotate.c - the writer's files: names, size/time/count rotation, open and finish. */
#include "capture/file/pcapwriter_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* PATH with "_SEQ_YYYYmmddHHMMSS" before the extension of its last component. */
static void pw_ring_name(const struct pw_writer *w, char *out, uint32_t seq, int64_t sec)
{
	const char *base = strrchr(w->path, '/');
	const char *dot;
	size_t stem;
	struct tm tm;
	time_t t = (time_t)sec;
	char when[32];

	base = base ? base + 1 : w->path;
	dot = strrchr(base, '.');
	if (dot == NULL || dot == base) /* no extension, or a dot file */
		dot = w->path + strlen(w->path);
	stem = (size_t)(dot - w->path);
	if (gmtime_r(&t, &tm) == NULL || strftime(when, sizeof(when), "%Y%m%d%H%M%S", &tm) == 0)
		snprintf(when, sizeof(when), "%lld", (long long)sec);
	snprintf(out, w->fname_cap, "%.*s_%05u_%s%s", (int)stem, w->path, seq, when, dot);
}

/* Remember the file about to open; beyond -W files, remove the oldest. */
static void pw_ring_push(struct pw_writer *w, int64_t sec)
{
	struct pw_ringslot *s;

	if (w->max_files == 0)
		return;
	if (w->slot_count == w->max_files) {
		s = &w->slots[w->slot_head];
		pw_ring_name(w, w->scratch, s->seq, s->start_sec);
		/* Best effort: a file the user already removed is fine. */
		(void)unlink(w->scratch);
		w->slot_head = (w->slot_head + 1) % w->max_files;
		w->slot_count--;
	}
	s = &w->slots[(w->slot_head + w->slot_count) % w->max_files];
	s->seq = w->seq;
	s->start_sec = sec;
	w->slot_count++;
}

int pw_ring_check_dir(const struct pw_writer *w, char *errbuf, size_t errlen)
{
	const char *slash = strrchr(w->path, '/');
	char dir[4096];

	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash == w->path ? 1 : slash - w->path),
			 w->path);
	if (access(dir, W_OK | X_OK) == -1) {
		snprintf(errbuf, errlen, "%s: %s", dir, strerror(errno));
		return ERR_SYSTEM;
	}
	return 0;
}

/*
 * Reuse the existing file name for writing (overwrite asked): only a
 * regular file of ours with one link, so neither a link planted by someone
 * else (a symlink: O_NOFOLLOW; a hard link to another file: st_nlink) nor a
 * device or FIFO (O_NONBLOCK: a FIFO without a reader must not block us)
 * gets our bytes. Truncated only after the checks. fd, or -1 with w->err.
 */
static int pw_reuse_file(struct pw_writer *w, const char *name)
{
	struct stat st;
	int fd = open(name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd == -1) {
		w->err = errno;
		if (errno == ELOOP)
			pw_seterr(w, "%s is a symbolic link: not followed", name);
		else
			pw_seterr(w, "open %s: %s", name, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		w->err = errno;
		pw_seterr(w, "stat %s: %s", name, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		w->err = EEXIST;
		pw_seterr(w, "%s exists and is not a regular file: not overwritten", name);
	} else if (st.st_uid != geteuid()) {
		w->err = EPERM;
		pw_seterr(w, "%s belongs to uid %u, not to us (uid %u): not overwritten", name,
			  (unsigned)st.st_uid, (unsigned)geteuid());
	} else if (st.st_nlink != 1) {
		w->err = EMLINK;
		pw_seterr(w, "%s has %lu links: not overwritten", name, (unsigned long)st.st_nlink);
	} else if (fcntl(fd, F_SETFL, 0) == -1 || ftruncate(fd, 0) == -1) {
		w->err = errno;
		pw_seterr(w, "truncate %s: %s", name, strerror(errno));
	} else {
		return fd;
	}
	close(fd);
	return -1;
}

/* Create name, or reuse it when asked; then give it the mode asked for. fd,
 * or -1 with w->err and the reason in w->errbuf. */
static int pw_create_file(struct pw_writer *w, const char *name)
{
	struct stat st;
	int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, w->file_mode);

	if (fd == -1 && errno == EEXIST && w->overwrite) {
		fd = pw_reuse_file(w, name);
		if (fd == -1)
			return -1;
	} else if (fd == -1) {
		w->err = errno;
		if (errno != EEXIST)
			pw_seterr(w, "open %s: %s", name, strerror(errno));
		else if (lstat(name, &st) == 0 && S_ISLNK(st.st_mode))
			pw_seterr(w, "%s is a symbolic link: not followed, not replaced", name);
		else
			pw_seterr(
			    w, "%s exists: not overwritten (--overwrite replaces a file of ours)",
			    name);
		return -1;
	}
	if (fchmod(fd, w->file_mode) == -1) {
		w->err = errno;
		pw_seterr(w, "chmod %s: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int pw_file_open(struct pw_writer *w, int64_t start_ns)
{
	int fd;
	struct stat st;

	if (w->is_stdout) {
		fd = STDOUT_FILENO;
	} else {
		if (w->ring) {
			int64_t sec = pw_floor_div(start_ns, CLOCK_NS_PER_S);

			w->seq++;
			pw_ring_push(w, sec);
			pw_ring_name(w, w->fname, w->seq, sec);
		}
		fd = pw_create_file(w, w->fname);
		if (fd == -1)
			return ERR_SYSTEM;
	}
	w->fd = fd;
	w->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	w->file_off = 0;
	w->file_pkts = 0;
	w->file_start_ns = start_ns;
	w->file_min_ns = INT64_MAX;
	w->file_max_ns = INT64_MIN;
	w->len = pw_enc_hdr(&w->hdr, w->buf);
	return 0;
}

bool pw_file_full(const struct pw_writer *w, int64_t ts_ns, size_t rec)
{
	if (!w->ring || w->file_pkts == 0)
		return false; /* a file holds at least one packet, however large */
	if (w->rotate_ns > 0 && ts_ns - w->file_start_ns >= w->rotate_ns)
		return true;
	/* -C counts the ISBs that will close the file too. */
	return w->rotate_bytes > 0 && w->file_off + w->len + rec + w->isb_len > w->rotate_bytes;
}

int pw_file_finish(struct pw_writer *w)
{
	int rc = 0;

	if (w->fd == -1)
		return 0;
	if (w->err)
		w->len = 0; /* the failed write already dropped what was buffered */
	if (w->hdr.format == PW_PCAPNG &&
	    (w->err == 0 || (w->regular && w->file_off >= w->hdr_len))) {
		uint64_t ts = (uint64_t)clock_ns(CLOCK_REALTIME);

		for (unsigned i = 0; i < w->nifaces; i++) {
			/* The caller's counters are cumulative (pcapng: "starting
			 * from the beginning of the capture"), the span the file's. */
			struct pw_ifstats st = {0};

			rc = pw_reserve(w, PW_ENC_ISB_MAX);
			if (rc < 0)
				break;
			if (w->stats_fn)
				w->stats_fn(w->stats_ctx, i, &st);
			w->len += pw_enc_isb(w->buf + w->len, i, ts, &st, w->file_pkts > 0,
					     w->file_min_ns, w->file_max_ns);
		}
	}
	if (w->len > 0) {
		int keep = w->err;

		rc = pw_drain(w);
		if (keep)
			rc = ERR_SYSTEM;
	}
	if (!w->is_stdout && close(w->fd) == -1 && rc == 0) {
		rc = ERR_SYSTEM;
		w->err = errno;
		pw_seterr(w, "close %s: %s", w->fname, strerror(errno));
	}
	w->fd = -1;
	w->ctr.files++;
	return w->err ? ERR_SYSTEM : rc;
}

int pw_file_rotate(struct pw_writer *w, int64_t start_ns)
{
	int rc = pw_file_finish(w);

	if (rc < 0)
		return rc;
	return pw_file_open(w, start_ns);
}
