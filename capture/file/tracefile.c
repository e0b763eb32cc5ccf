/* tracefile.c - libtrace input (ERF, legacy, TSH, rt, ...) mapped onto struct pkt. */
#include "capture/file/tracefile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libtrace.h>

#include "common/clock.h"
#include "common/err.h"

#define TF_FCS_LEN 4u

/* LINKTYPE_* values (tcpdump.org/linktypes.html) beyond those in pkt.h. */
enum tf_linktype {
	TF_LINKTYPE_PPP = 9,
	TF_LINKTYPE_ATM_RFC1483 = 100,
	TF_LINKTYPE_C_HDLC = 104,
	TF_LINKTYPE_IEEE802_11 = 105,
	TF_LINKTYPE_PFLOG = 117,
	TF_LINKTYPE_PRISM_HEADER = 119,
	TF_LINKTYPE_IEEE802_11_RADIOTAP = 127,
	TF_LINKTYPE_NONE = 0xFFFFFFFF, /* no LINKTYPE: fall back to the IP header */
};

/*
 * libtrace runs in a child process. libtrace 3 asserts on what it reads
 * (legacypos: a record's wire length of 0 or >= 64 KiB aborts inside
 * trace_get_wire_length(); other formats assert elsewhere) and its format
 * modules parse untrusted bytes with C we cannot fix here. Validating the
 * records first would mean re-implementing every format's parser and
 * tracking each libtrace release's asserts, and still leave its crashes;
 * in a child an abort or a crash ends one input with a one-line error
 * instead of the process (a hang in libtrace still waits: SIGINT/SIGTERM
 * are the parent's, and the child dies with it, PR_SET_PDEATHSIG). The child only calls libtrace
 * and writes what it returned, unchanged, down a pipe; everything that decides (the bounds, the
 * link type, the IP header, the timestamp) runs in the parent, where the fuzz target sees it
 * (tests/fuzz/fuzz_tracefile.c).
 *
 *   child:  trace_read_packet -> struct tf_msg + up to TF_MAX_BYTES --pipe--> parent: tf_next
 *           its stderr (libtrace's assert message) ------------------pipe--> parent: the error
 *
 * A pipe copy per packet costs little beside libtrace's own reading, and
 * these are archival formats, not the fast path (pcap and pcapng never
 * come here: source.c).
 */

#define TF_MAX_BYTES  (256u * 1024u) /* bytes of a packet the child sends (SF_MAX_RECORD) */
#define TF_BUF	      (1u << 20)     /* the parent's read buffer */
#define TF_CHILD_BUF  (64u * 1024u)  /* the child's write buffer */
#define TF_STDERR_MAX 240u	     /* bytes of the child's stderr kept for the message */

enum tf_msg_kind {
	TF_MSG_OPEN = 0, /* trace started */
	TF_MSG_PACKET,	 /* a packet and its bytes */
	TF_MSG_SKIP,	 /* a record with no packet buffer, or meta-data */
	TF_MSG_END,	 /* the trace ended cleanly */
	TF_MSG_ERROR,	 /* libtrace failed: len bytes of message follow */
	TF_MSG_COUNT,
};

/* What the child learned of one record; host byte order (same machine). */
struct tf_msg {
	uint32_t kind;	  /* enum tf_msg_kind */
	uint32_t len;	  /* bytes following: packet bytes or the message */
	int64_t sec;	  /* trace_get_timespec() */
	int64_t nsec;	  /* (libtrace may hand out anything: checked by the parent) */
	uint32_t lt;	  /* libtrace_linktype_t */
	uint32_t rem;	  /* bytes trace_get_packet_buffer() said remain */
	uint32_t caplen;  /* trace_get_capture_length() */
	uint32_t wire;	  /* trace_get_wire_length() */
	uint32_t l3_off;  /* trace_get_layer3() - buffer, when asked for */
	uint32_t l3_rem;  /* its remaining bytes */
	uint32_t l3_type; /* its ethertype; 0: no layer 3 */
	/* cppcheck-suppress unusedStructMember ; explicit padding: the struct goes through a pipe
	 * whole */
	uint32_t pad;
};

struct tf_reader {
	int fd;	   /* the child's packets */
	int errfd; /* the child's stderr */
	pid_t pid; /* the child; 0 once reaped */
	uint8_t *buf;
	size_t pos, end;
	uint64_t frame;
	uint64_t skipped;
	bool ended; /* the child said the trace ended */
	int err;
	char msg[320];
};

/* Format names libtrace 3 and 4 register (trace_help() lists a build's). */
static const char *const tf_formats[] = {
    "erf",	 "rawerf",    "dag",	   "pcapfile",	 "pcap",     "pcapint", "pcapng",
    "int",	 "ring",      "bpf",	   "dpdk",	 "dpdkndag", "ndag",	"xdp",
    "legacyatm", "legacyeth", "legacypos", "legacynzix", "tsh",	     "fr+",	"duck",
    "rt",	 "rtclient",  "atmhdr",	   "etsilive",
};

static uint32_t tf_map_linktype(libtrace_linktype_t lt)
{
	switch (lt) {
	case TRACE_TYPE_ETH:
		return PKT_LINKTYPE_ETHERNET;
	case TRACE_TYPE_NONE:
		return PKT_LINKTYPE_RAW;
	case TRACE_TYPE_LINUX_SLL:
		return PKT_LINKTYPE_LINUX_SLL;
	case TRACE_TYPE_OPENBSD_LOOP:
		return PKT_LINKTYPE_LOOP;
	case TRACE_TYPE_PPP:
		return TF_LINKTYPE_PPP;
	case TRACE_TYPE_HDLC_POS:
		return TF_LINKTYPE_C_HDLC;
	case TRACE_TYPE_80211:
		return TF_LINKTYPE_IEEE802_11;
	case TRACE_TYPE_80211_RADIO:
		return TF_LINKTYPE_IEEE802_11_RADIOTAP;
	case TRACE_TYPE_80211_PRISM:
		return TF_LINKTYPE_PRISM_HEADER;
	case TRACE_TYPE_PFLOG:
		return TF_LINKTYPE_PFLOG;
	case TRACE_TYPE_LLCSNAP:
		return TF_LINKTYPE_ATM_RFC1483;
	default:
		/* ATM cells, AAL5, POS, DUCK, meta-data: no LINKTYPE. */
		return TF_LINKTYPE_NONE;
	}
}

/* ---- the child: libtrace, and nothing that decides ---- */

struct tf_out {
	int fd;
	size_t n;
	uint8_t buf[TF_CHILD_BUF];
};

/* Write everything buffered; ERR_SYSTEM when the parent is gone. */
static int tf_flush(struct tf_out *o)
{
	size_t done = 0;

	while (done < o->n) {
		ssize_t w = write(o->fd, o->buf + done, o->n - done);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return ERR_SYSTEM;
		done += (size_t)w;
	}
	o->n = 0;
	return 0;
}

static int tf_put(struct tf_out *o, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		size_t k = sizeof(o->buf) - o->n < n ? sizeof(o->buf) - o->n : n;

		memcpy(o->buf + o->n, b, k);
		o->n += k;
		b += k;
		n -= k;
		if (o->n == sizeof(o->buf) && tf_flush(o) < 0)
			return ERR_SYSTEM;
	}
	return 0;
}

static void tf_child_error(struct tf_out *o, libtrace_t *t, const char *what)
{
	libtrace_err_t e = trace_get_err(t);
	char m[300];
	struct tf_msg msg = {.kind = TF_MSG_ERROR};
	int n =
	    snprintf(m, sizeof(m), "%s: %s", what,
		     e.err_num != TRACE_ERR_NOERROR && e.problem[0] ? e.problem : "libtrace error");

	msg.len = n < 0 ? 0 : (uint32_t)strnlen(m, sizeof(m));
	if (tf_put(o, &msg, sizeof(msg)) == 0 && tf_put(o, m, msg.len) == 0)
		tf_flush(o);
}

/* One record as libtrace sees it; ERR_SYSTEM when the parent is gone. */
static int tf_child_packet(struct tf_out *o, libtrace_packet_t *pk)
{
	struct tf_msg m = {.kind = TF_MSG_SKIP};
	libtrace_linktype_t lt;
	uint32_t rem = 0;
	const uint8_t *buf = trace_get_packet_buffer(pk, &lt, &rem);

	if (buf == NULL || lt == TRACE_TYPE_METADATA || lt == TRACE_TYPE_NONDATA)
		return tf_put(o, &m, sizeof(m));
	m.kind = TF_MSG_PACKET;
	m.lt = (uint32_t)lt;
	m.rem = rem;
	m.caplen = (uint32_t)trace_get_capture_length(pk);
	m.wire = (uint32_t)trace_get_wire_length(pk);
	if (tf_map_linktype(lt) == TF_LINKTYPE_NONE) {
		uint16_t ethertype = 0;
		uint32_t l3rem = 0;
		const uint8_t *l3 = trace_get_layer3(pk, &ethertype, &l3rem);

		/* An offset the parent checks; a pointer outside the buffer
		 * becomes one past any length it accepts. */
		if (l3 != NULL) {
			m.l3_off = l3 >= buf && (size_t)(l3 - buf) <= TF_MAX_BYTES
				       ? (uint32_t)(l3 - buf)
				       : UINT32_MAX;
			m.l3_rem = l3rem;
			m.l3_type = ethertype ? ethertype : UINT32_MAX;
		}
	}
	struct timespec ts = trace_get_timespec(pk);
	m.sec = ts.tv_sec;
	m.nsec = ts.tv_nsec;
	m.len = rem < TF_MAX_BYTES ? rem : TF_MAX_BYTES;
	if (tf_put(o, &m, sizeof(m)) < 0)
		return ERR_SYSTEM;
	return tf_put(o, buf, m.len);
}

/*
 * The child's write buffer. File scope, against the rule of no mutable
 * globals, because the fatal-signal handler below must reach it: it exists
 * only in the child (the parent never touches it), one per child process.
 */
static struct tf_out tf_child_out;

/* libtrace aborted or crashed: hand over the packets read before it (the
 * buffer holds whole messages: libtrace is never called mid-message), then
 * die of the same signal for the parent to name. write(2) is
 * async-signal-safe. */
static void tf_child_fatal(int sig)
{
	struct tf_out *o = &tf_child_out;
	size_t done = 0;

	while (done < o->n) {
		ssize_t w = write(o->fd, o->buf + done, o->n - done);
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void __attribute__((noreturn)) tf_child(const char *uri, int fd, int errfd)
{
	static const int fatal[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
	struct tf_out *o = &tf_child_out;
	libtrace_t *t;
	libtrace_packet_t *pk;
	struct tf_msg m = {.kind = TF_MSG_OPEN};

	/* The parent stops it (tf_close), and a Ctrl-C is the parent's to
	 * handle: the child only dies with it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(errfd, STDERR_FILENO) == -1)
		_exit(1);
	o->fd = fd;
	for (size_t k = 0; k < sizeof(fatal) / sizeof(fatal[0]); k++)
		signal(fatal[k], tf_child_fatal);
	t = trace_create(uri);
	if (t == NULL)
		_exit(1);
	if (trace_is_err(t)) {
		tf_child_error(o, t, "open");
		_exit(0);
	}
	if (trace_start(t) == -1) {
		tf_child_error(o, t, "start");
		_exit(0);
	}
	pk = trace_create_packet();
	if (pk == NULL || tf_put(o, &m, sizeof(m)) < 0 || tf_flush(o) < 0)
		_exit(1);
	for (;;) {
		int n = trace_read_packet(t, pk);

		if (n == 0) {
			m.kind = TF_MSG_END;
			if (tf_put(o, &m, sizeof(m)) == 0)
				tf_flush(o);
			break;
		}
		if (n < 0) {
			tf_child_error(o, t, "read");
			break;
		}
		if (tf_child_packet(o, pk) < 0)
			break;
	}
	/* No trace_destroy(): _exit() frees all, and a damaged trace's
	 * teardown is one more place libtrace could assert. */
	_exit(0);
}

/* ---- the parent: bounds, link types, time ---- */

static int tf_fail(struct tf_reader *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int tf_fail(struct tf_reader *r, int code, const char *fmt, ...)
{
	va_list ap;

	if (r->err)
		return r->err;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->err = code;
	return code;
}

/* The child's last stderr line (libtrace's assert message), or "". */
static void tf_child_stderr(struct tf_reader *r, char *out, size_t outlen)
{
	char b[TF_STDERR_MAX + 1];
	size_t n = 0;
	ssize_t k;

	out[0] = '\0';
	while (n < TF_STDERR_MAX && (k = read(r->errfd, b + n, TF_STDERR_MAX - n)) > 0)
		n += (size_t)k;
	while (n && (b[n - 1] == '\n' || b[n - 1] == '\r'))
		n--;
	b[n] = '\0';
	char *line = strrchr(b, '\n');
	line = line ? line + 1 : b;
	for (char *c = line; *c; c++)
		if ((unsigned char)*c < 0x20)
			*c = ' ';
	snprintf(out, outlen, "%s", line);
}

/* The child is gone without a word: say how, as the input's error. */
static int tf_child_died(struct tf_reader *r)
{
	char why[64], said[TF_STDERR_MAX + 1];
	int st = 0;

	if (r->pid > 0 && waitpid(r->pid, &st, 0) == r->pid)
		r->pid = 0;
	if (WIFSIGNALED(st))
		snprintf(why, sizeof(why), "killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(why, sizeof(why), "exit status %d", WEXITSTATUS(st));
	tf_child_stderr(r, said, sizeof(said));
	return tf_fail(r, ERR_INPUT, "libtrace failed after %" PRIu64 " records (%s)%s%s",
		       r->frame + r->skipped, why, said[0] ? ": " : "", said);
}

/* 1 when `need` unread bytes are buffered, 0 when the pipe ended first, or
 * a negative enum err_code. Moves the buffer's contents. */
static int tf_need(struct tf_reader *r, size_t need)
{
	if (r->end - r->pos >= need)
		return 1;
	memmove(r->buf, r->buf + r->pos, r->end - r->pos);
	r->end -= r->pos;
	r->pos = 0;
	while (r->end < need) {
		ssize_t n = read(r->fd, r->buf + r->end, TF_BUF - r->end);

		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return tf_fail(r, ERR_INPUT, "read from the libtrace child: %s",
				       strerror(errno));
		if (n == 0)
			return 0;
		r->end += (size_t)n;
	}
	return 1;
}

/* The next message header into *m, its len bytes buffered at buf + pos
 * afterwards; 1, or a negative enum err_code (the child died: its error). */
static int tf_msg_next(struct tf_reader *r, struct tf_msg *m)
{
	int rc = tf_need(r, sizeof(*m));

	if (rc <= 0)
		return rc < 0 ? rc : tf_child_died(r);
	memcpy(m, r->buf + r->pos, sizeof(*m));
	if (m->kind >= TF_MSG_COUNT || m->len > TF_MAX_BYTES)
		return tf_fail(r, ERR_INPUT,
			       "libtrace child sent a bad message (kind %" PRIu32 ", %" PRIu32
			       " bytes)",
			       m->kind, m->len);
	r->pos += sizeof(*m);
	rc = tf_need(r, m->len);
	if (rc <= 0)
		return rc < 0 ? rc : tf_child_died(r);
	return 1;
}

struct tf_reader *tf_open(const char *uri, char *errbuf, size_t errlen)
{
	struct tf_reader *r = calloc(1, sizeof(*r));
	int pfd[2] = {-1, -1}, efd[2] = {-1, -1};
	struct tf_msg m;

	if (r == NULL || (r->buf = malloc(TF_BUF)) == NULL) {
		snprintf(errbuf, errlen, "out of memory");
		free(r);
		return NULL;
	}
	r->fd = r->errfd = -1;
	if (pipe2(pfd, O_CLOEXEC) == -1 || pipe2(efd, O_CLOEXEC) == -1) {
		snprintf(errbuf, errlen, "pipe: %s", strerror(errno));
		goto err;
	}
	/* A child that writes much to stderr must not block on it: what does
	 * not fit is lost, the pipe's 64 KiB are plenty for one message. */
	fcntl(efd[1], F_SETFL, O_NONBLOCK);
	fflush(NULL); /* nothing buffered twice */
	r->pid = fork();
	if (r->pid == -1) {
		r->pid = 0;
		snprintf(errbuf, errlen, "fork: %s", strerror(errno));
		goto err;
	}
	if (r->pid == 0) {
		close(pfd[0]);
		close(efd[0]);
		tf_child(uri, pfd[1], efd[1]);
	}
	close(pfd[1]);
	close(efd[1]);
	r->fd = pfd[0];
	r->errfd = efd[0];
	pfd[0] = efd[0] = -1;
	fcntl(r->errfd, F_SETFL, O_NONBLOCK);
	if (tf_msg_next(r, &m) < 0)
		goto fail;
	if (m.kind == TF_MSG_ERROR) {
		tf_fail(r, ERR_INPUT, "%.*s", (int)m.len, (const char *)r->buf + r->pos);
		goto fail;
	}
	if (m.kind != TF_MSG_OPEN) {
		tf_fail(r, ERR_INPUT, "libtrace child sent no start");
		goto fail;
	}
	r->pos += m.len;
	return r;
fail:
	snprintf(errbuf, errlen, "%s", r->msg);
err:
	for (int k = 0; k < 2; k++) {
		if (pfd[k] != -1)
			close(pfd[k]);
		if (efd[k] != -1)
			close(efd[k]);
	}
	tf_close(r);
	return NULL;
}

/* A packet message (its bytes at buf + pos) as a struct pkt: 1, or 0 when
 * it holds nothing tcpsift can use (counted as skipped). */
static int tf_convert(struct tf_reader *r, const struct tf_msg *m, struct pkt *p)
{
	const uint8_t *buf = r->buf + r->pos;
	uint32_t caplen = m->caplen, wire = m->wire;
	uint32_t linktype = tf_map_linktype((libtrace_linktype_t)m->lt);
	bool clamped = false;

	if (caplen > m->len) /* rem, or what the child sent of it */
		caplen = m->len;
	if (linktype == TF_LINKTYPE_NONE) {
		uint32_t hdr = m->l3_off;

		if ((m->l3_type != 0x0800 && m->l3_type != 0x86DD) || hdr > caplen)
			return 0;
		buf += hdr;
		caplen = m->l3_rem < caplen - hdr ? m->l3_rem : caplen - hdr;
		wire = wire > hdr ? wire - hdr : caplen;
		linktype = PKT_LINKTYPE_RAW;
	} else if (m->lt == TRACE_TYPE_ETH) {
		wire = wire >= TF_FCS_LEN ? wire - TF_FCS_LEN : wire;
		if (caplen > wire)
			caplen = wire;
	}
	p->ts_ns = clock_ts_sat((__int128)m->sec * CLOCK_NS_PER_S + m->nsec, &clamped);
	p->data = buf;
	p->caplen = caplen;
	p->wirelen = wire < caplen ? caplen : wire;
	p->linktype = linktype;
	p->iface = 0;
	p->queue = 0;
	p->epb_flags = 0;
	p->dropcount = 0;
	p->have = clamped ? PKT_HAVE_TS_CLAMPED : 0;
	p->frame = ++r->frame;
	return 1;
}

int tf_next(struct tf_reader *r, struct pkt *p)
{
	if (r->err)
		return r->err;
	if (r->ended)
		return 0;
	for (;;) {
		struct tf_msg m;
		int rc = tf_msg_next(r, &m);

		if (rc < 0)
			return rc;
		switch (m.kind) {
		case TF_MSG_END:
			r->pos += m.len;
			r->ended = true;
			return 0;
		case TF_MSG_ERROR:
			rc = tf_fail(r, ERR_INPUT, "%.*s", (int)m.len,
				     (const char *)r->buf + r->pos);
			r->pos += m.len;
			return rc;
		case TF_MSG_PACKET:
			rc = tf_convert(r, &m, p);
			/* The bytes stay in the buffer until the next call,
			 * as long as p->data is borrowed. */
			r->pos += m.len;
			if (rc == 1)
				return 1;
			r->skipped++;
			break;
		default: /* TF_MSG_SKIP, or a second TF_MSG_OPEN: nothing */
			r->pos += m.len;
			r->skipped++;
			break;
		}
	}
}

const char *tf_error(const struct tf_reader *r)
{
	return r->err ? r->msg : "";
}

uint64_t tf_skipped(const struct tf_reader *r)
{
	return r->skipped;
}

void tf_close(struct tf_reader *r)
{
	if (r == NULL)
		return;
	if (r->pid > 0) {
		/* Ours, mid-trace or done: it must not outlive the reader. */
		kill(r->pid, SIGKILL);
		while (waitpid(r->pid, NULL, 0) == -1 && errno == EINTR)
			;
	}
	if (r->fd != -1)
		close(r->fd);
	if (r->errfd != -1)
		close(r->errfd);
	free(r->buf);
	free(r);
}

int tf_is_uri(const char *arg)
{
	const char *colon = strchr(arg, ':');
	size_t n;

	if (colon == NULL || colon == arg || colon[1] == '\0')
		return 0;
	n = (size_t)(colon - arg);
	for (size_t i = 0; i < sizeof(tf_formats) / sizeof(tf_formats[0]); i++) {
		if (strlen(tf_formats[i]) == n && strncmp(arg, tf_formats[i], n) == 0)
			return access(arg, F_OK) != 0;
	}
	return 0;
}

int tf_uri_is_live(const char *uri)
{
	static const char *const live[] = {"int",  "ring", "pcapint",  "bpf",
					   "dag",  "dpdk", "xdp",      "dpdkndag",
					   "ndag", "rt",   "rtclient", "etsilive"};
	const char *colon = strchr(uri, ':');
	size_t n = colon != NULL ? (size_t)(colon - uri) : 0;

	for (size_t i = 0; n > 0 && i < sizeof(live) / sizeof(live[0]); i++)
		if (strlen(live[i]) == n && strncmp(uri, live[i], n) == 0)
			return 1;
	return 0;
}
