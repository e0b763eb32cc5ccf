/* pcapwriter.c - writer API and output buffer; a failed write cuts the file back to a record. */
#include "capture/file/pcapwriter_int.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define PW_MAX_SNAPLEN (256u * 1024u) /* libpcap's MAXIMUM_SNAPLEN */
#define PW_MAX_IFACES  4096u
#define PW_MAX_STRING  1024u	  /* longest if_name/comment kept (strndup) */
#define PW_MAX_FILES   (1u << 20) /* -W cap: 16 bytes of ring state each */

void pw_seterr(struct pw_writer *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->errbuf, sizeof(w->errbuf), fmt, ap);
	va_end(ap);
}

static const char *pw_shown_name(const struct pw_writer *w)
{
	return w->is_stdout ? "stdout" : w->fname;
}

/* --- output ----------------------------------------------------------------- */

/*
 * Map a write that stopped after `done` bytes of the buffer to the last
 * complete record: returns that record boundary and counts the packets in
 * the records that did not make it whole.
 */
static size_t pw_last_record(const struct pw_writer *w, size_t done, uint64_t *lost)
{
	size_t off = 0, good = 0;

	*lost = 0;
	if (w->file_off == 0 && w->len >= w->hdr_len) {
		/* The header unit is all or nothing: a file without all its
		 * IDBs could not describe the packets after it. */
		off = w->hdr_len;
		if (off <= done)
			good = off;
	}
	while (off < w->len) {
		bool pkt;
		size_t rec = pw_enc_record_len(w->hdr.format, w->buf + off, &pkt);

		if (off + rec <= done)
			good = off + rec;
		else if (pkt)
			(*lost)++;
		off += rec;
	}
	return good;
}

/* A write failed after `done` bytes: cut the file back to a record boundary,
 * count what was lost and make the error sticky. */
static int pw_write_failed(struct pw_writer *w, size_t done, int err)
{
	uint64_t lost;
	size_t good = pw_last_record(w, done, &lost);
	char cut[96] = "";

	if (w->regular && good != done) {
		off_t end = (off_t)(w->file_off + good);

		if (ftruncate(w->fd, end) == -1 || lseek(w->fd, end, SEEK_SET) == -1)
			snprintf(cut, sizeof(cut), " (truncating to %lld: %s)", (long long)end,
				 strerror(errno));
	}
	w->file_off += good;
	w->ctr.bytes += good;
	w->ctr.packets -= lost;
	w->ctr.lost += lost;
	w->len = 0;
	if (w->err == 0) {
		w->err = err;
		pw_seterr(w, "write %s: %s%s", pw_shown_name(w), strerror(err), cut);
	}
	return ERR_SYSTEM;
}

/* On a pipe, wait for room rather than spin. */
int pw_drain(struct pw_writer *w)
{
	size_t done = 0;

	while (done < w->len) {
		ssize_t n = write(w->fd, w->buf + done, w->len - done);

		if (n > 0) {
			done += (size_t)n;
		} else if (n == -1 && errno == EINTR) {
			continue;
		} else if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = {.fd = w->fd, .events = POLLOUT};

			if (poll(&pfd, 1, -1) == -1 && errno != EINTR)
				return pw_write_failed(w, done, errno);
		} else {
			return pw_write_failed(w, done, n == 0 ? EIO : errno);
		}
	}
	w->file_off += w->len;
	w->ctr.bytes += w->len;
	w->len = 0;
	return 0;
}

/* --- public API ------------------------------------------------------------- */

static char *pw_dup_str(const char *s)
{
	return s ? strndup(s, PW_MAX_STRING) : NULL;
}

/* What pw_open() refuses before it allocates anything: 0, or ERR_USAGE with
 * the reason in errbuf. */
static int pw_check_config(const struct pw_config *cfg, const struct pw_iface *ifaces,
			   unsigned nifaces, char *errbuf, size_t errlen)
{
	if (cfg == NULL || cfg->path == NULL || cfg->path[0] == '\0') {
		snprintf(errbuf, errlen, "no output file given");
		return ERR_USAGE;
	}
	if ((unsigned)cfg->format >= PW_FORMAT_COUNT) {
		snprintf(errbuf, errlen, "unknown output format %d", (int)cfg->format);
		return ERR_USAGE;
	}
	if (ifaces == NULL || nifaces == 0 || nifaces > PW_MAX_IFACES) {
		snprintf(errbuf, errlen, "%u capture interfaces: need 1 to %u", nifaces,
			 PW_MAX_IFACES);
		return ERR_USAGE;
	}
	if (cfg->snaplen > PW_MAX_SNAPLEN) {
		snprintf(errbuf, errlen, "snaplen %u is larger than %u", cfg->snaplen,
			 PW_MAX_SNAPLEN);
		return ERR_USAGE;
	}
	if (cfg->rotate_ns < 0) {
		snprintf(errbuf, errlen, "negative rotation time");
		return ERR_USAGE;
	}
	if (cfg->file_mode > 0777) {
		snprintf(errbuf, errlen, "file mode %#o: only permission bits (0777)",
			 cfg->file_mode);
		return ERR_USAGE;
	}
	if (cfg->max_files > PW_MAX_FILES) {
		snprintf(errbuf, errlen, "at most %u files in a ring", PW_MAX_FILES);
		return ERR_USAGE;
	}
	for (unsigned i = 0; i < nifaces; i++) {
		if (cfg->format == PW_PCAPNG && ifaces[i].linktype > UINT16_MAX) {
			snprintf(errbuf, errlen, "interface %u: link type %u does not fit pcapng",
				 i, ifaces[i].linktype);
			return ERR_USAGE;
		}
		/* Classic pcap has one link type for the whole file (its header). */
		if (cfg->format == PW_PCAP && ifaces[i].linktype != ifaces[0].linktype) {
			snprintf(errbuf, errlen,
				 "classic pcap holds one link type, but %s is %u and %s is %u: "
				 "use pcapng",
				 ifaces[0].name ? ifaces[0].name : "interface 0",
				 ifaces[0].linktype, ifaces[i].name ? ifaces[i].name : "another",
				 ifaces[i].linktype);
			return ERR_USAGE;
		}
	}
	return 0;
}

struct pw_writer *pw_open(const struct pw_config *cfg, const struct pw_iface *ifaces,
			  unsigned nifaces, char *errbuf, size_t errlen)
{
	struct pw_writer *w = NULL;
	struct utsname u;

	if (pw_check_config(cfg, ifaces, nifaces, errbuf, errlen) < 0)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		goto nomem;
	w->fd = -1;
	w->rotate_bytes = cfg->rotate_bytes;
	w->rotate_ns = cfg->rotate_ns;
	w->max_files = cfg->max_files;
	w->overwrite = cfg->overwrite;
	w->file_mode = cfg->file_mode ? cfg->file_mode : PW_FILE_MODE_DEFAULT;
	w->ring = cfg->rotate_bytes > 0 || cfg->rotate_ns > 0;
	w->is_stdout = strcmp(cfg->path, "-") == 0;
	if (w->is_stdout && w->ring) {
		snprintf(errbuf, errlen, "cannot rotate files when writing to stdout");
		goto err;
	}
	w->path = strdup(cfg->path);
	w->comment = pw_dup_str(cfg->comment);
	if (w->path == NULL || (cfg->comment && w->comment == NULL))
		goto nomem;
	if (uname(&u) == 0)
		snprintf(w->os, sizeof(w->os), "%s %s", u.sysname, u.release);
	w->fname_cap = strlen(cfg->path) + 64;
	w->fname = malloc(w->fname_cap);
	w->scratch = malloc(w->fname_cap);
	w->buf = malloc(PW_BUF_SIZE);
	w->ifs = calloc(nifaces, sizeof(*w->ifs));
	if (w->fname == NULL || w->scratch == NULL || w->buf == NULL || w->ifs == NULL)
		goto nomem;
	if (w->max_files && w->ring) {
		w->slots = calloc(w->max_files, sizeof(*w->slots));
		if (w->slots == NULL)
			goto nomem;
	}
	snprintf(w->fname, w->fname_cap, "%s", cfg->path);
	w->nifaces = nifaces;
	for (unsigned i = 0; i < nifaces; i++) {
		struct pw_enc_iface *s = &w->ifs[i];

		s->linktype = ifaces[i].linktype;
		s->name = pw_dup_str(ifaces[i].name);
		if (ifaces[i].name && s->name == NULL)
			goto nomem;
		if (ifaces[i].queue >= 0) {
			char d[PW_MAX_STRING + 32];

			snprintf(d, sizeof(d), "%s queue %d", s->name ? s->name : "",
				 ifaces[i].queue);
			s->desc = strdup(d);
			if (s->desc == NULL)
				goto nomem;
		}
	}
	w->hdr = (struct pw_enc_hdr){.format = cfg->format,
				     .snaplen = cfg->snaplen ? cfg->snaplen : PW_MAX_SNAPLEN,
				     .comment = w->comment,
				     .os = w->os,
				     .ifs = w->ifs,
				     .nifaces = nifaces};
	w->hdr_len = pw_enc_hdr_size(&w->hdr);
	w->isb_len = cfg->format == PW_PCAPNG ? (size_t)nifaces * PW_ENC_ISB_MAX : 0;
	if (w->hdr_len > PW_BUF_SIZE) {
		snprintf(errbuf, errlen, "file header of %zu bytes does not fit the buffer",
			 w->hdr_len);
		goto err;
	}

	w->discard = cfg->discard;
	if (w->discard) {
		if (w->ring) {
			snprintf(errbuf, errlen, "no file to rotate");
			goto err;
		}
	} else if (w->ring) {
		if (pw_ring_check_dir(w, errbuf, errlen) < 0)
			goto err;
	} else if (pw_file_open(w, 0) < 0) {
		snprintf(errbuf, errlen, "%s", w->errbuf);
		goto err;
	}
	return w;

nomem:
	snprintf(errbuf, errlen, "out of memory");
err:
	if (w) {
		w->closed = true; /* nothing to finish: pw_free only releases */
		if (w->fd != -1 && !w->is_stdout)
			close(w->fd);
		w->fd = -1;
	}
	pw_free(w);
	return NULL;
}

int pw_write(struct pw_writer *w, unsigned iface, const struct pkt *p)
{
	uint32_t caplen = p->caplen, wirelen = p->wirelen;
	size_t rec;
	int rc;

	if (w->err) {
		w->ctr.lost++;
		return ERR_SYSTEM;
	}
	if (w->closed) {
		pw_seterr(w, "write after close");
		return ERR_USAGE;
	}
	if (iface >= w->nifaces) {
		pw_seterr(w, "no interface %u", iface);
		return ERR_USAGE;
	}
	if (w->discard) {
		w->ctr.packets++;
		return 0;
	}
	/* Never write a record a reader would reject: caplen <= snaplen <= wirelen. */
	if (caplen > w->hdr.snaplen)
		caplen = w->hdr.snaplen;
	if (wirelen < caplen)
		wirelen = caplen;
	rec = pw_enc_pkt_size(w->hdr.format, caplen, p);

	if (w->fd == -1)
		rc = pw_file_open(w, p->ts_ns);
	else if (pw_file_full(w, p->ts_ns, rec))
		rc = pw_file_rotate(w, p->ts_ns);
	else
		rc = 0;
	if (rc == 0)
		rc = pw_reserve(w, rec);
	if (rc < 0) {
		w->ctr.lost++;
		return rc;
	}
	w->len += pw_enc_pkt(w->hdr.format, w->buf + w->len, iface, p, caplen, wirelen);
	if (w->file_pkts++ == 0)
		w->file_start_ns = p->ts_ns;
	if (p->ts_ns < w->file_min_ns)
		w->file_min_ns = p->ts_ns;
	if (p->ts_ns > w->file_max_ns)
		w->file_max_ns = p->ts_ns;
	w->ctr.packets++;
	return 0;
}

void pw_set_stats_source(struct pw_writer *w, pw_stats_fn *fn, void *ctx)
{
	w->stats_fn = fn;
	w->stats_ctx = ctx;
}

int pw_flush(struct pw_writer *w)
{
	if (w->err)
		return ERR_SYSTEM;
	if (w->fd == -1 || w->len == 0)
		return 0;
	return pw_drain(w);
}

int pw_close(struct pw_writer *w)
{
	int rc;

	if (w->closed)
		return w->err ? ERR_SYSTEM : 0;
	w->closed = true;
	if (w->discard)
		return 0;
	/* A ring that never saw a packet still leaves one valid (empty) file. */
	if (w->fd == -1 && w->err == 0 && pw_file_open(w, clock_ns(CLOCK_REALTIME)) < 0)
		return ERR_SYSTEM;
	rc = pw_file_finish(w);
	return w->err ? ERR_SYSTEM : rc;
}

const char *pw_error(const struct pw_writer *w)
{
	return w->errbuf;
}

const struct pw_counters *pw_counters(const struct pw_writer *w)
{
	return &w->ctr;
}

const char *pw_path(const struct pw_writer *w)
{
	return w->fname;
}

void pw_free(struct pw_writer *w)
{
	if (w == NULL)
		return;
	if (!w->closed)
		(void)pw_close(w);
	for (unsigned i = 0; w->ifs && i < w->nifaces; i++) {
		free(w->ifs[i].name);
		free(w->ifs[i].desc);
	}
	free(w->ifs);
	free(w->slots);
	free(w->buf);
	free(w->scratch);
	free(w->fname);
	free(w->comment);
	free(w->path);
	free(w);
}
