/*
 * lab-peer.c - one small TCP client/server for the network-namespace labs.
 *
 *   lab-peer server -l ADDR:PORT [options]
 *   lab-peer client -c ADDR:PORT [options]
 *
 * ADDR is IPv4 (10.0.0.1:80) or bracketed IPv6 ([fd00::1]:80). Both ends must
 * be given the same --mode (and, for rr, the same --req-size/--resp-size).
 *
 * Modes (the data always flows in the stated direction; the other side only
 * ACKs, then both close with a FIN exchange, never a RST):
 *   bulk      client sends --bytes N, shuts down its write side; the server
 *             reads to EOF and discards.
 *   download  server sends --bytes N (after an HTTP/1.1 header with --http,
 *             once it has read the client's GET request); the client reads
 *             to EOF and discards.
 *   rr        --rounds K request/response rounds: the client writes a
 *             --req-size request in two writes (--req-split bytes, then the
 *             rest; one write with --req-split 0) and reads a --resp-size
 *             response (write-write-read, the Nagle + delayed-ACK pattern
 *             unless --nodelay). The client pauses --think ms between rounds,
 *             the server --server-think ms between reading a request and
 *             writing its response; both take a list (5,40,200: the pause of
 *             round r, counted from 0, is element r % length; the client's
 *             pause of round r comes after its response, none after the last).
 *
 * Application behaviour with ground truth (bulk/download only):
 *   --write-size N --write-every MS  the sender writes N bytes, then waits
 *             until the next MS ms slot (CLOCK_MONOTONIC absolute deadlines
 *             on a fixed grid, so the rate does not drift; slots missed while
 *             a write blocked are skipped, not made up): app-limited.
 *   --read-size N --read-every MS  the receiver reads at most N bytes per
 *             recv and paces its recv calls the same way: a slow reader.
 *   --quickack  the receiver sets TCP_QUICKACK after every recv (as the
 *             2009 splice case, an ACK for every read): each read that
 *             left an ACK pending sends it at once.
 *   --app-log FILE  one line per event, times CLOCK_REALTIME in ns (the
 *             clock of capture timestamps), fully buffered, flushed at exit:
 *               connected t=NS local=ADDR peer=ADDR role=R mode=M
 *               write t=NS bytes=N call_ns=D     one per send() call; t when
 *               read t=NS bytes=N call_ns=D      it returned, D spent inside
 *               think start=NS end=NS ms=M side=client|server round=R
 *               round r=R req_sent=NS resp_done=NS     rr client
 *               round r=R req_done=NS resp_sent=NS side=server   rr server
 *               shutdown t=NS, close t=NS, tcp_info t=NS KEY=VALUE...
 *   --tcp-info  after the transfer, before close (the sending side: before
 *             shutdown, once all it wrote was ACKed: tcpi_unacked and
 *             tcpi_notsent_bytes 0, giving up after 2 s without progress of
 *             tcpi_bytes_acked), one "lab-peer tcp_info: KEY=VALUE..." line
 *             on stderr: the fields of the kernel's struct tcp_info that the
 *             returned length covers.
 *   --tcp-sample MS  from connect until that line (or close), a thread reads
 *             the socket's TCP_INFO and SO_MEMINFO every MS ms (fractions
 *             allowed) into the --app-log, the sender's state as the kernel
 *             keeps it:
 *               sample t=NS unacked=P cwnd=P mss=B snd_wnd=B notsent=B
 *                 wmem_queued=B sndbuf=B lost=P retrans=P busy_us=U
 *                 rwnd_limited_us=U sndbuf_limited_us=U
 *
 * The server accepts one connection, then closes its listening socket. The
 * run is bounded by alarm(--timeout). On success one line saying what was
 * done goes to stderr and the exit status is 0; errors exit 1, usage errors 2,
 * the timeout 124.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <linux/sock_diag.h> /* SK_MEMINFO_* */
#include <linux/tcp.h>	     /* not <netinet/tcp.h>: glibc's struct tcp_info is the short old one */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum role { ROLE_SERVER, ROLE_CLIENT };
enum mode { MODE_BULK, MODE_DOWNLOAD, MODE_RR };

static const char *const mode_names[] = {"bulk", "download", "rr"};

#define MAX_THINK 256 /* elements of a --think / --server-think list */

struct opts {
	enum role role;
	enum mode mode;
	const char *addr;      /* -l (server) or -c (client) */
	const char *bind_addr; /* client: local ADDR:PORT */
	uint64_t bytes;
	int bytes_set;
	unsigned rounds;
	int rounds_set;
	size_t req_size, req_split, resp_size;
	unsigned think_ms[MAX_THINK], n_think;		     /* client, between rounds */
	unsigned server_think_ms[MAX_THINK], n_server_think; /* server, in each round */
	int nodelay, cork, msg_more, http;
	unsigned cork_hold_ms;
	int rcvbuf, sndbuf, mss;
	uint64_t stop_after;
	int stop_set;
	unsigned resume_ms;
	uint64_t pacing;
	const char *cc;
	unsigned timeout;
	size_t write_size, read_size; /* 0: IO_CHUNK */
	uint64_t write_every_ns, read_every_ns;
	int tcp_info;
	uint64_t tcp_sample_ns;
	int quickack;
	const char *app_log;
};

/* What one run did; printed at the end. */
struct stats {
	uint64_t tx, rx;
	unsigned rounds;
	int paused;
};

static struct opts o;
static struct stats st;
static FILE *applog; /* --app-log */

#define IO_CHUNK (64u * 1024u)
static unsigned char *txbuf, *rxbuf; /* max(IO_CHUNK, --write-size / --read-size) */
static size_t txcap, rxcap;

static const char http_request[] = "GET /lab-peer HTTP/1.1\r\nHost: lab\r\n"
				   "User-Agent: lab-peer\r\nAccept: */*\r\n\r\n";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("lab-peer: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void on_alarm(int sig)
{
	static const char msg[] = "lab-peer: timeout, giving up\n";
	ssize_t r;

	(void)sig;
	r = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)r;
	_exit(124);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CLOCK_REALTIME in ns, the clock capture timestamps are taken with. */
static uint64_t rt_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Sleep until CLOCK_MONOTONIC reaches deadline (ns). */
static void sleep_until_ns(uint64_t deadline)
{
	struct timespec ts = {.tv_sec = (time_t)(deadline / 1000000000u),
			      .tv_nsec = (long)(deadline % 1000000000u)};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void alog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line of the --app-log (the caller gives the newline). */
static void alog(const char *fmt, ...)
{
	va_list ap;

	if (!applog)
		return;
	va_start(ap, fmt);
	vfprintf(applog, fmt, ap);
	va_end(ap);
}

/*
 * --write-every / --read-every: calls on a fixed grid of period_ns, anchored
 * at the first pace_wait (after the first call). A call that overran its slot
 * moves on to the next grid point: missed slots are skipped, never made up in
 * a burst, and the grid never drifts.
 */
struct pacer {
	uint64_t period_ns, next;
};

static void pace_wait(struct pacer *p)
{
	uint64_t now;

	if (!p->period_ns)
		return;
	now = mono_ns();
	if (!p->next)
		p->next = now;
	p->next += p->period_ns;
	if (p->next <= now)
		p->next += ((now - p->next) / p->period_ns + 1) * p->period_ns;
	sleep_until_ns(p->next);
}

/* "123", "64K", "2M", "1G" (K/M/G are powers of 1024). */
static uint64_t parse_size(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		goto bad;
	switch (*end) {
	case 'k':
	case 'K':
		mul = 1ull << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mul = 1ull << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mul = 1ull << 30;
		end++;
		break;
	default:
		break;
	}
	if (*end || v > UINT64_MAX / mul)
		goto bad;
	return v * mul;
bad:
	fprintf(stderr, "lab-peer: %s: bad number '%s'\n", opt, s);
	exit(2);
}

static unsigned parse_uint(const char *opt, const char *s)
{
	uint64_t v = parse_size(opt, s);

	if (v > INT_MAX) {
		fprintf(stderr, "lab-peer: %s: '%s' too large\n", opt, s);
		exit(2);
	}
	return (unsigned)v;
}

/* Milliseconds, fractions allowed ("2.5"), as ns; > 0, at most a day. */
static uint64_t parse_ms_ns(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0 && v <= 86400e3)) { /* also NaN */
		fprintf(stderr, "lab-peer: %s: bad milliseconds '%s'\n", opt, s);
		exit(2);
	}
	return (uint64_t)(v * 1e6 + 0.5);
}

/* "MS" or "MS,MS,...": a --think / --server-think list. */
static unsigned parse_ms_list(const char *opt, const char *s, unsigned *out)
{
	char buf[32];
	unsigned n = 0;

	for (;;) {
		size_t len = strcspn(s, ",");

		if (n == MAX_THINK || len == 0 || len >= sizeof(buf)) {
			fprintf(stderr,
				"lab-peer: %s: bad list (at most %u numbers, comma separated)\n",
				opt, MAX_THINK);
			exit(2);
		}
		memcpy(buf, s, len);
		buf[len] = '\0';
		out[n++] = parse_uint(opt, buf);
		if (!s[len])
			return n;
		s += len + 1;
	}
}

/* Split "a.b.c.d:port" or "[v6]:port" and resolve it numerically. */
static struct addrinfo *resolve(const char *spec, int passive)
{
	char host[256];
	const char *port;
	struct addrinfo hints, *res;
	size_t hl;
	int rc;

	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || close[1] != ':')
			die("bad address '%s' (want [v6addr]:port)", spec);
		hl = (size_t)(close - spec - 1);
		if (hl >= sizeof(host))
			die("address too long: %s", spec);
		memcpy(host, spec + 1, hl);
		port = close + 2;
	} else {
		const char *colon = strrchr(spec, ':');

		if (!colon || strchr(spec, ':') != colon)
			die("bad address '%s' (want a.b.c.d:port or [v6addr]:port)", spec);
		hl = (size_t)(colon - spec);
		if (hl >= sizeof(host))
			die("address too long: %s", spec);
		memcpy(host, spec, hl);
		port = colon + 1;
	}
	host[hl] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_protocol = IPPROTO_TCP;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (rc)
		die("%s: %s", spec, gai_strerror(rc));
	return res;
}

static void setopt_int(int fd, int level, int name, int val, const char *what)
{
	if (setsockopt(fd, level, name, &val, sizeof(val)) < 0)
		die("setsockopt(%s, %d): %s", what, val, strerror(errno));
}

/* Options that apply to the listening socket (inherited) and the data socket. */
static void apply_sockopts(int fd)
{
	if (o.rcvbuf)
		setopt_int(fd, SOL_SOCKET, SO_RCVBUF, o.rcvbuf, "SO_RCVBUF");
	if (o.sndbuf)
		setopt_int(fd, SOL_SOCKET, SO_SNDBUF, o.sndbuf, "SO_SNDBUF");
	if (o.mss)
		setopt_int(fd, IPPROTO_TCP, TCP_MAXSEG, o.mss, "TCP_MAXSEG");
	if (o.nodelay)
		setopt_int(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
	if (o.pacing) {
		unsigned int rate = (unsigned int)o.pacing;

		if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof(rate)) < 0)
			die("setsockopt(SO_MAX_PACING_RATE, %u): %s", rate, strerror(errno));
	}
	if (o.cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, o.cc, (socklen_t)strlen(o.cc)) < 0)
		die("setsockopt(TCP_CONGESTION, %s): %s", o.cc, strerror(errno));
}

static void set_cork(int fd, int on)
{
	setopt_int(fd, IPPROTO_TCP, TCP_CORK, on, "TCP_CORK");
}

/* A burst is one application message (request, response, whole stream). */
static void burst_begin(int fd)
{
	if (o.cork)
		set_cork(fd, 1);
}

static void burst_end(int fd)
{
	if (o.cork) {
		sleep_ms(o.cork_hold_ms); /* leave the tail corked for a while */
		set_cork(fd, 0);
	}
}

static void send_all(int fd, const void *buf, size_t len, int flags)
{
	const unsigned char *p = buf;

	while (len) {
		uint64_t t0 = applog ? rt_ns() : 0;
		ssize_t n = send(fd, p, len, flags | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("send: %s", strerror(errno));
		}
		if (applog) {
			uint64_t t = rt_ns();

			alog("write t=%" PRIu64 " bytes=%zd call_ns=%" PRIu64 "\n", t, n, t - t0);
		}
		p += n;
		len -= (size_t)n;
		st.tx += (uint64_t)n;
	}
}

/*
 * Send n pattern bytes in writes of --write-size (default IO_CHUNK), paced by
 * --write-every; with --msg-more every write but the last has MSG_MORE.
 */
static void send_stream(int fd, uint64_t n, int more_after)
{
	struct pacer pace = {.period_ns = o.write_every_ns};
	size_t chunk = o.write_size ? o.write_size : IO_CHUNK;

	while (n) {
		size_t len = n > chunk ? chunk : (size_t)n;
		int last = len == n;

		send_all(fd, txbuf, len, o.msg_more && (!last || more_after) ? MSG_MORE : 0);
		n -= len;
		if (n)
			pace_wait(&pace);
	}
}

/*
 * One read of at most len bytes. --stop-reading-after: once that many bytes
 * were read the receiver sleeps --resume-after ms without reading (so its
 * window closes), then carries on. Returns bytes read, 0 at EOF.
 */
static size_t recv_some(int fd, void *buf, size_t len)
{
	for (;;) {
		uint64_t t0;
		ssize_t n;

		if (o.stop_set && !st.paused) {
			if (st.rx >= o.stop_after) {
				st.paused = 1;
				sleep_ms(o.resume_ms);
			} else if (len > o.stop_after - st.rx) {
				len = (size_t)(o.stop_after - st.rx);
			}
		}
		t0 = applog ? rt_ns() : 0;
		n = recv(fd, buf, len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("recv: %s", strerror(errno));
		}
		if (applog) {
			uint64_t t = rt_ns();

			alog("read t=%" PRIu64 " bytes=%zd call_ns=%" PRIu64 "\n", t, n, t - t0);
		}
		st.rx += (uint64_t)n;
		return (size_t)n;
	}
}

/* Read exactly len bytes. Returns 1, or 0 on EOF before the first byte. */
static int recv_exact(int fd, size_t len)
{
	size_t got = 0;

	while (got < len) {
		size_t want = len - got;
		size_t n = recv_some(fd, rxbuf, want > IO_CHUNK ? IO_CHUNK : want);

		if (n == 0) {
			if (got == 0)
				return 0;
			die("EOF after %zu of %zu bytes", got, len);
		}
		got += n;
	}
	return 1;
}

/* Read and discard to EOF, --read-size bytes per recv, paced by --read-every. */
static uint64_t recv_to_eof(int fd)
{
	struct pacer pace = {.period_ns = o.read_every_ns};
	size_t chunk = o.read_size ? o.read_size : IO_CHUNK;
	uint64_t total = 0;
	size_t n;

	while ((n = recv_some(fd, rxbuf, chunk)) > 0) {
		total += n;
		/* Linux clears TCP_QUICKACK's effect by itself (it is not
		 * sticky: pingpong mode comes back), so it is set after every
		 * read; setting it sends the ACK the read left pending. */
		if (o.quickack)
			setopt_int(fd, IPPROTO_TCP, TCP_QUICKACK, 1, "TCP_QUICKACK");
		pace_wait(&pace);
	}
	return total;
}

static int http_header(char *buf, size_t len, uint64_t body)
{
	return snprintf(buf, len,
			"HTTP/1.1 200 OK\r\nServer: lab-peer\r\n"
			"Content-Type: application/octet-stream\r\n"
			"Content-Length: %" PRIu64 "\r\nConnection: close\r\n\r\n",
			body);
}

/* Server side of --http: read the request up to the blank line. */
static void http_read_request(int fd)
{
	char req[4096];
	size_t have = 0;

	for (;;) {
		size_t n;

		if (have + 1 >= sizeof(req))
			die("HTTP request too long");
		n = recv_some(fd, req + have, sizeof(req) - 1 - have);
		if (n == 0)
			die("EOF inside the HTTP request");
		have += n;
		req[have] = '\0';
		if (strstr(req, "\r\n\r\n"))
			return;
	}
}

static void expect_bytes(uint64_t got, uint64_t want)
{
	if (got != want)
		die("received %" PRIu64 " bytes, expected %" PRIu64, got, want);
}

/* The --think / --server-think pause of round r (counted from 0). */
static void think(const unsigned *list, unsigned n, unsigned r, const char *side)
{
	unsigned ms;
	uint64_t t0;

	if (!n)
		return;
	ms = list[r % n];
	if (!ms)
		return;
	t0 = rt_ns();
	sleep_ms(ms);
	alog("think start=%" PRIu64 " end=%" PRIu64 " ms=%u side=%s round=%u\n", t0, rt_ns(), ms,
	     side, r);
}

static void do_shutdown(int fd)
{
	alog("shutdown t=%" PRIu64 "\n", rt_ns());
	if (shutdown(fd, SHUT_WR) < 0)
		die("shutdown: %s", strerror(errno));
}

/* --- --tcp-info ------------------------------------------------------ */

/*
 * The kernel's struct tcp_info may be longer than <linux/tcp.h>'s (6.18 adds
 * fields after tcpi_snd_wnd): ask for more, print what the returned length
 * covers. Every field printed here is in the header's struct, so offsetof
 * gives the kernel's layout (the uapi struct only ever grows at its end).
 */
union tcp_info_buf {
	struct tcp_info ti;
	unsigned char raw[512];
};

static socklen_t get_tcp_info(int fd, union tcp_info_buf *b)
{
	socklen_t len = sizeof(*b);

	memset(b, 0, sizeof(*b));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, b, &len) < 0)
		die("getsockopt(TCP_INFO): %s", strerror(errno));
	return len;
}

static const char *tcp_state_name(unsigned s)
{
	static const char *const names[] = {
	    "0",	 "ESTABLISHED", "SYN_SENT",   "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2",
	    "TIME_WAIT", "CLOSE",	"CLOSE_WAIT", "LAST_ACK", "LISTEN",    "CLOSING",
	};

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

struct linebuf {
	char s[2048];
	size_t len;
};

static void lb_add(struct linebuf *lb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void lb_add(struct linebuf *lb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (lb->len >= sizeof(lb->s))
		return;
	va_start(ap, fmt);
	n = vsnprintf(lb->s + lb->len, sizeof(lb->s) - lb->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		lb->len += (size_t)n;
}

/* Is field f of struct tcp_info inside the len bytes the kernel returned? */
#define TI_HAS(len, f) (offsetof(struct tcp_info, f) + sizeof(((struct tcp_info *)0)->f) <= (len))
#define TI_U(lb, len, b, key, f)                                                                   \
	do {                                                                                       \
		if (TI_HAS(len, f))                                                                \
			lb_add(lb, " " key "=%" PRIu64, (uint64_t)(b).ti.f);                       \
	} while (0)

/*
 * The sending side first waits until all it wrote was ACKed (nothing unacked,
 * nothing unsent), or 2 s pass without tcpi_bytes_acked moving. Then one line
 * "lab-peer tcp_info: KEY=VALUE..." on stderr (and in the --app-log).
 */
static void report_tcp_info(int fd)
{
	union tcp_info_buf b;
	struct linebuf lb = {.len = 0};
	uint64_t t0 = mono_ns(), progress = t0, acked = 0, waited;
	socklen_t len;
	int all_acked = 1;

	len = get_tcp_info(fd, &b);
	if (st.tx) {
		while (b.ti.tcpi_unacked || b.ti.tcpi_notsent_bytes) {
			uint64_t now = mono_ns();

			if (b.ti.tcpi_bytes_acked != acked) {
				acked = b.ti.tcpi_bytes_acked;
				progress = now;
			} else if (now - progress >= 2000000000u) {
				all_acked = 0;
				break;
			}
			sleep_until_ns(now + (now - t0 < 100000000u ? 1000000u : 10000000u));
			len = get_tcp_info(fd, &b);
		}
	}
	waited = mono_ns() - t0;

	if (len > offsetof(struct tcp_info, tcpi_state))
		lb_add(&lb, " state=%s", tcp_state_name(b.ti.tcpi_state));
	TI_U(&lb, len, b, "rto_us", tcpi_rto);
	TI_U(&lb, len, b, "ato_us", tcpi_ato);
	TI_U(&lb, len, b, "snd_mss", tcpi_snd_mss);
	TI_U(&lb, len, b, "rcv_mss", tcpi_rcv_mss);
	TI_U(&lb, len, b, "unacked", tcpi_unacked);
	TI_U(&lb, len, b, "sacked", tcpi_sacked);
	TI_U(&lb, len, b, "lost", tcpi_lost);
	TI_U(&lb, len, b, "retrans", tcpi_retrans);
	TI_U(&lb, len, b, "retransmits", tcpi_retransmits);
	TI_U(&lb, len, b, "total_retrans", tcpi_total_retrans);
	TI_U(&lb, len, b, "reordering", tcpi_reordering);
	TI_U(&lb, len, b, "rtt_us", tcpi_rtt);
	TI_U(&lb, len, b, "rttvar_us", tcpi_rttvar);
	TI_U(&lb, len, b, "min_rtt_us", tcpi_min_rtt);
	TI_U(&lb, len, b, "snd_cwnd", tcpi_snd_cwnd);
	TI_U(&lb, len, b, "snd_ssthresh", tcpi_snd_ssthresh);
	TI_U(&lb, len, b, "rcv_space", tcpi_rcv_space);
	TI_U(&lb, len, b, "delivery_rate", tcpi_delivery_rate);
	TI_U(&lb, len, b, "busy_time_us", tcpi_busy_time);
	TI_U(&lb, len, b, "rwnd_limited_us", tcpi_rwnd_limited);
	TI_U(&lb, len, b, "sndbuf_limited_us", tcpi_sndbuf_limited);
	TI_U(&lb, len, b, "bytes_sent", tcpi_bytes_sent);
	TI_U(&lb, len, b, "bytes_retrans", tcpi_bytes_retrans);
	TI_U(&lb, len, b, "dsack_dups", tcpi_dsack_dups);
	TI_U(&lb, len, b, "reord_seen", tcpi_reord_seen);
	TI_U(&lb, len, b, "bytes_acked", tcpi_bytes_acked);
	TI_U(&lb, len, b, "bytes_received", tcpi_bytes_received);
	TI_U(&lb, len, b, "segs_out", tcpi_segs_out);
	TI_U(&lb, len, b, "segs_in", tcpi_segs_in);
	TI_U(&lb, len, b, "data_segs_out", tcpi_data_segs_out);
	TI_U(&lb, len, b, "data_segs_in", tcpi_data_segs_in);
	/* A bit-field in byte 7 (no offsetof): the last delivery rate sample's flag. */
	if (len > 7)
		lb_add(&lb, " app_limited=%u", (unsigned)b.ti.tcpi_delivery_rate_app_limited);
	TI_U(&lb, len, b, "snd_wnd", tcpi_snd_wnd);
	TI_U(&lb, len, b, "rcv_ooopack", tcpi_rcv_ooopack);
	lb_add(&lb, " info_len=%u all_acked=%d acked_wait_us=%" PRIu64, (unsigned)len, all_acked,
	       waited / 1000u);

	fprintf(stderr, "lab-peer tcp_info:%s\n", lb.s);
	alog("tcp_info t=%" PRIu64 "%s\n", rt_ns(), lb.s);
}

/* --- --tcp-sample: the socket's state over time ---------------------- */

#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif

struct sampler {
	pthread_t thread;
	int fd;
	int running;
	atomic_int stop;
};

static struct sampler smp;

static void *sampler_main(void *arg)
{
	struct sampler *s = arg;
	uint64_t next = mono_ns();

	while (!s->stop) {
		union tcp_info_buf b;
		uint32_t mem[SK_MEMINFO_VARS] = {0};
		socklen_t ml = sizeof(mem), len = sizeof(b);

		memset(&b, 0, sizeof(b));
		if (getsockopt(s->fd, IPPROTO_TCP, TCP_INFO, &b, &len) < 0 ||
		    getsockopt(s->fd, SOL_SOCKET, SO_MEMINFO, mem, &ml) < 0)
			break;
		alog("sample t=%" PRIu64 " unacked=%u cwnd=%u mss=%u snd_wnd=%u notsent=%u"
		     " wmem_queued=%u sndbuf=%u lost=%u retrans=%u busy_us=%" PRIu64
		     " rwnd_limited_us=%" PRIu64 " sndbuf_limited_us=%" PRIu64 "\n",
		     rt_ns(), b.ti.tcpi_unacked, b.ti.tcpi_snd_cwnd, b.ti.tcpi_snd_mss,
		     TI_HAS(len, tcpi_snd_wnd) ? b.ti.tcpi_snd_wnd : 0u, b.ti.tcpi_notsent_bytes,
		     mem[SK_MEMINFO_WMEM_QUEUED], mem[SK_MEMINFO_SNDBUF], b.ti.tcpi_lost,
		     b.ti.tcpi_retrans, (uint64_t)b.ti.tcpi_busy_time,
		     (uint64_t)b.ti.tcpi_rwnd_limited, (uint64_t)b.ti.tcpi_sndbuf_limited);
		next += o.tcp_sample_ns;
		sleep_until_ns(next);
	}
	return NULL;
}

static void sampler_start(int fd)
{
	if (!o.tcp_sample_ns || !applog)
		return;
	smp.fd = fd;
	if (pthread_create(&smp.thread, NULL, sampler_main, &smp) != 0)
		die("pthread_create: %s", strerror(errno));
	smp.running = 1;
}

static void sampler_stop(void)
{
	if (!smp.running)
		return;
	smp.stop = 1;
	pthread_join(smp.thread, NULL);
	smp.running = 0;
}

/* Before close (and, on the side that sends, before its shutdown). */
static void end_of_transfer(int fd)
{
	if (o.tcp_info)
		report_tcp_info(fd);
	sampler_stop();
}

static void run_server(int fd)
{
	char hdr[256];
	uint64_t got, t_req;
	int hl;

	switch (o.mode) {
	case MODE_BULK:
		got = recv_to_eof(fd);
		if (o.bytes_set)
			expect_bytes(got, o.bytes);
		end_of_transfer(fd);
		break;
	case MODE_DOWNLOAD:
		if (o.http)
			http_read_request(fd);
		burst_begin(fd);
		if (o.http) {
			hl = http_header(hdr, sizeof(hdr), o.bytes);
			send_all(fd, hdr, (size_t)hl, MSG_MORE);
		}
		send_stream(fd, o.bytes, 0);
		burst_end(fd);
		end_of_transfer(fd);
		do_shutdown(fd);
		recv_to_eof(fd);
		break;
	case MODE_RR:
		while (recv_exact(fd, o.req_size)) {
			t_req = rt_ns();
			think(o.server_think_ms, o.n_server_think, st.rounds, "server");
			burst_begin(fd);
			send_stream(fd, o.resp_size, 0);
			burst_end(fd);
			alog("round r=%u req_done=%" PRIu64 " resp_sent=%" PRIu64 " side=server\n",
			     st.rounds, t_req, rt_ns());
			st.rounds++;
		}
		if (o.rounds_set && st.rounds != o.rounds)
			die("%u rounds, expected %u", st.rounds, o.rounds);
		end_of_transfer(fd);
		break;
	}
}

static void run_client(int fd)
{
	uint64_t got, t_req;
	char hdr[256];
	unsigned r;

	switch (o.mode) {
	case MODE_BULK:
		burst_begin(fd);
		send_stream(fd, o.bytes, 0);
		burst_end(fd);
		end_of_transfer(fd);
		do_shutdown(fd);
		recv_to_eof(fd);
		break;
	case MODE_DOWNLOAD:
		if (o.http)
			send_all(fd, http_request, sizeof(http_request) - 1, 0);
		got = recv_to_eof(fd);
		if (o.bytes_set)
			expect_bytes(got, o.bytes + (o.http ? (uint64_t)http_header(
								  hdr, sizeof(hdr), o.bytes)
							    : 0));
		end_of_transfer(fd);
		break;
	case MODE_RR:
		for (r = 0; r < o.rounds; r++) {
			if (r)
				think(o.think_ms, o.n_think, r - 1, "client");
			burst_begin(fd);
			if (o.req_split) {
				send_stream(fd, o.req_split, 1);
				send_stream(fd, o.req_size - o.req_split, 0);
			} else {
				send_stream(fd, o.req_size, 0);
			}
			burst_end(fd);
			t_req = rt_ns();
			if (!recv_exact(fd, o.resp_size))
				die("EOF before response %u", r + 1);
			alog("round r=%u req_sent=%" PRIu64 " resp_done=%" PRIu64 "\n", r, t_req,
			     rt_ns());
			st.rounds++;
		}
		end_of_transfer(fd);
		do_shutdown(fd);
		recv_to_eof(fd);
		break;
	}
}

static void sock_name(int fd, int peer, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN + 8], port[16];

	if ((peer ? getpeername(fd, (struct sockaddr *)&ss, &sl)
		  : getsockname(fd, (struct sockaddr *)&ss, &sl)) < 0 ||
	    getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
}

static int open_server(void)
{
	struct addrinfo *ai = resolve(o.addr, 1);
	int lfd, fd;

	lfd = socket(ai->ai_family, SOCK_STREAM, IPPROTO_TCP);
	if (lfd < 0)
		die("socket: %s", strerror(errno));
	setopt_int(lfd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
	apply_sockopts(lfd); /* before listen: window scale follows SO_RCVBUF */
	if (bind(lfd, ai->ai_addr, ai->ai_addrlen) < 0)
		die("bind %s: %s", o.addr, strerror(errno));
	freeaddrinfo(ai);
	if (listen(lfd, 1) < 0)
		die("listen: %s", strerror(errno));
	while ((fd = accept(lfd, NULL, NULL)) < 0)
		if (errno != EINTR)
			die("accept: %s", strerror(errno));
	close(lfd);
	apply_sockopts(fd);
	return fd;
}

static int open_client(void)
{
	struct addrinfo *ai = resolve(o.addr, 0);
	int fd;

	fd = socket(ai->ai_family, SOCK_STREAM, IPPROTO_TCP);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	apply_sockopts(fd);
	if (o.bind_addr) {
		struct addrinfo *la = resolve(o.bind_addr, 1);

		setopt_int(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
		if (bind(fd, la->ai_addr, la->ai_addrlen) < 0)
			die("bind %s: %s", o.bind_addr, strerror(errno));
		freeaddrinfo(la);
	}
	while (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0)
		if (errno != EINTR)
			die("connect %s: %s", o.addr, strerror(errno));
	freeaddrinfo(ai);
	return fd;
}

static void usage(FILE *f)
{
	fputs("usage: lab-peer server -l ADDR:PORT [options]\n"
	      "       lab-peer client -c ADDR:PORT [options]\n"
	      "ADDR:PORT is a.b.c.d:port or [v6addr]:port. Sizes take K/M/G (x1024).\n"
	      "  -m, --mode bulk|download|rr  (default bulk; same on both ends)\n"
	      "  -n, --bytes N            bulk/download payload (default 1M; the receiver\n"
	      "                           checks it when given)\n"
	      "      --http               download: GET request, HTTP/1.1 200 header\n"
	      "      --rounds K           rr rounds (default 10)\n"
	      "      --req-size N         rr request bytes (default 200)\n"
	      "      --req-split N        rr bytes in the first request write (default half;\n"
	      "                           0: the request in one write)\n"
	      "      --resp-size M        rr response bytes (default 1000)\n"
	      "      --think MS[,MS...]   rr client pause between rounds (default 0); a list:\n"
	      "                           the pause after round r (from 0) is element r % len\n"
	      "      --server-think MS[,MS...]  rr server pause between reading request r\n"
	      "                           and writing its response (element r % len)\n"
	      "      --write-size N       bulk/download sender: bytes per write (default 64K)\n"
	      "      --write-every MS     ...one write per MS ms (fractions allowed; absolute\n"
	      "                           deadlines; missed slots are skipped): app-limited\n"
	      "      --read-size N        bulk/download receiver: at most N bytes per recv\n"
	      "      --read-every MS      ...one recv per MS ms, paced like --write-every\n"
	      "      --quickack           bulk/download receiver: TCP_QUICKACK after every recv\n"
	      "      --tcp-info           TCP_INFO line on stderr before close (the sender:\n"
	      "                           before shutdown, once its data was ACKed)\n"
	      "      --tcp-sample MS      TCP_INFO + SO_MEMINFO every MS ms into --app-log\n"
	      "      --app-log FILE       application events, CLOCK_REALTIME ns, one a line\n"
	      "  -b, --bind ADDR:PORT     client local address/port\n"
	      "      --nodelay            TCP_NODELAY\n"
	      "      --cork               TCP_CORK around each burst, left set for\n"
	      "      --cork-hold MS       MS ms after its last write (default 500)\n"
	      "      --msg-more           MSG_MORE on every write but a burst's last\n"
	      "      --rcvbuf N, --sndbuf N  SO_RCVBUF/SO_SNDBUF (set before listen/connect)\n"
	      "      --mss N              TCP_MAXSEG\n"
	      "      --stop-reading-after N  receiver stops reading after N bytes...\n"
	      "      --resume-after MS    ...and resumes after MS ms (default 1000)\n"
	      "      --pacing-rate B      SO_MAX_PACING_RATE, bytes/s\n"
	      "      --cc NAME            TCP_CONGESTION (e.g. cubic, reno, bbr)\n"
	      "      --timeout SEC        hard bound on the whole run (default 30)\n",
	      f);
}

enum {
	OPT_HTTP = 256,
	OPT_ROUNDS,
	OPT_REQ_SIZE,
	OPT_REQ_SPLIT,
	OPT_RESP_SIZE,
	OPT_THINK,
	OPT_SERVER_THINK,
	OPT_WRITE_SIZE,
	OPT_WRITE_EVERY,
	OPT_READ_SIZE,
	OPT_READ_EVERY,
	OPT_TCP_INFO,
	OPT_TCP_SAMPLE,
	OPT_QUICKACK,
	OPT_APP_LOG,
	OPT_NODELAY,
	OPT_CORK,
	OPT_CORK_HOLD,
	OPT_MSG_MORE,
	OPT_RCVBUF,
	OPT_SNDBUF,
	OPT_MSS,
	OPT_STOP,
	OPT_RESUME,
	OPT_PACING,
	OPT_CC,
	OPT_TIMEOUT,
};

static void usage_error(const char *msg)
{
	fprintf(stderr, "lab-peer: %s\n", msg);
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"listen", required_argument, NULL, 'l'},
	    {"connect", required_argument, NULL, 'c'},
	    {"mode", required_argument, NULL, 'm'},
	    {"bytes", required_argument, NULL, 'n'},
	    {"bind", required_argument, NULL, 'b'},
	    {"help", no_argument, NULL, 'h'},
	    {"http", no_argument, NULL, OPT_HTTP},
	    {"rounds", required_argument, NULL, OPT_ROUNDS},
	    {"req-size", required_argument, NULL, OPT_REQ_SIZE},
	    {"req-split", required_argument, NULL, OPT_REQ_SPLIT},
	    {"resp-size", required_argument, NULL, OPT_RESP_SIZE},
	    {"think", required_argument, NULL, OPT_THINK},
	    {"server-think", required_argument, NULL, OPT_SERVER_THINK},
	    {"write-size", required_argument, NULL, OPT_WRITE_SIZE},
	    {"write-every", required_argument, NULL, OPT_WRITE_EVERY},
	    {"read-size", required_argument, NULL, OPT_READ_SIZE},
	    {"read-every", required_argument, NULL, OPT_READ_EVERY},
	    {"tcp-info", no_argument, NULL, OPT_TCP_INFO},
	    {"tcp-sample", required_argument, NULL, OPT_TCP_SAMPLE},
	    {"quickack", no_argument, NULL, OPT_QUICKACK},
	    {"app-log", required_argument, NULL, OPT_APP_LOG},
	    {"nodelay", no_argument, NULL, OPT_NODELAY},
	    {"cork", no_argument, NULL, OPT_CORK},
	    {"cork-hold", required_argument, NULL, OPT_CORK_HOLD},
	    {"msg-more", no_argument, NULL, OPT_MSG_MORE},
	    {"rcvbuf", required_argument, NULL, OPT_RCVBUF},
	    {"sndbuf", required_argument, NULL, OPT_SNDBUF},
	    {"mss", required_argument, NULL, OPT_MSS},
	    {"stop-reading-after", required_argument, NULL, OPT_STOP},
	    {"resume-after", required_argument, NULL, OPT_RESUME},
	    {"pacing-rate", required_argument, NULL, OPT_PACING},
	    {"cc", required_argument, NULL, OPT_CC},
	    {"timeout", required_argument, NULL, OPT_TIMEOUT},
	    {NULL, 0, NULL, 0},
	};
	int c, split_set = 0, sender;
	unsigned i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		exit(argc < 2 ? 2 : 0);
	}
	if (!strcmp(argv[1], "server"))
		o.role = ROLE_SERVER;
	else if (!strcmp(argv[1], "client"))
		o.role = ROLE_CLIENT;
	else {
		fprintf(stderr, "lab-peer: first argument must be 'server' or 'client'\n");
		exit(2);
	}
	o.mode = MODE_BULK;
	o.bytes = 1u << 20;
	o.rounds = 10;
	o.req_size = 200;
	o.resp_size = 1000;
	o.cork_hold_ms = 500;
	o.resume_ms = 1000;
	o.timeout = 30;

	optind = 2;
	while ((c = getopt_long(argc, argv, "l:c:m:n:b:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'l':
		case 'c':
			if ((c == 'l') != (o.role == ROLE_SERVER)) {
				fprintf(stderr, "lab-peer: server takes -l, client takes -c\n");
				exit(2);
			}
			o.addr = optarg;
			break;
		case 'm':
			for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
				if (!strcmp(optarg, mode_names[i]))
					break;
			if (i == sizeof(mode_names) / sizeof(mode_names[0])) {
				fprintf(stderr, "lab-peer: unknown mode '%s'\n", optarg);
				exit(2);
			}
			o.mode = (enum mode)i;
			break;
		case 'n':
			o.bytes = parse_size("--bytes", optarg);
			o.bytes_set = 1;
			break;
		case 'b':
			o.bind_addr = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_HTTP:
			o.http = 1;
			break;
		case OPT_ROUNDS:
			o.rounds = parse_uint("--rounds", optarg);
			o.rounds_set = 1;
			break;
		case OPT_REQ_SIZE:
			o.req_size = parse_uint("--req-size", optarg);
			break;
		case OPT_REQ_SPLIT:
			o.req_split = parse_uint("--req-split", optarg);
			split_set = 1;
			break;
		case OPT_RESP_SIZE:
			o.resp_size = parse_uint("--resp-size", optarg);
			break;
		case OPT_THINK:
			o.n_think = parse_ms_list("--think", optarg, o.think_ms);
			break;
		case OPT_SERVER_THINK:
			o.n_server_think =
			    parse_ms_list("--server-think", optarg, o.server_think_ms);
			break;
		case OPT_WRITE_SIZE:
			o.write_size = parse_uint("--write-size", optarg);
			if (!o.write_size)
				usage_error("--write-size must be > 0");
			break;
		case OPT_WRITE_EVERY:
			o.write_every_ns = parse_ms_ns("--write-every", optarg);
			break;
		case OPT_READ_SIZE:
			o.read_size = parse_uint("--read-size", optarg);
			if (!o.read_size)
				usage_error("--read-size must be > 0");
			break;
		case OPT_READ_EVERY:
			o.read_every_ns = parse_ms_ns("--read-every", optarg);
			break;
		case OPT_TCP_INFO:
			o.tcp_info = 1;
			break;
		case OPT_TCP_SAMPLE:
			o.tcp_sample_ns = parse_ms_ns("--tcp-sample", optarg);
			break;
		case OPT_QUICKACK:
			o.quickack = 1;
			break;
		case OPT_APP_LOG:
			o.app_log = optarg;
			break;
		case OPT_NODELAY:
			o.nodelay = 1;
			break;
		case OPT_CORK:
			o.cork = 1;
			break;
		case OPT_CORK_HOLD:
			o.cork_hold_ms = parse_uint("--cork-hold", optarg);
			break;
		case OPT_MSG_MORE:
			o.msg_more = 1;
			break;
		case OPT_RCVBUF:
			o.rcvbuf = (int)parse_uint("--rcvbuf", optarg);
			break;
		case OPT_SNDBUF:
			o.sndbuf = (int)parse_uint("--sndbuf", optarg);
			break;
		case OPT_MSS:
			o.mss = (int)parse_uint("--mss", optarg);
			break;
		case OPT_STOP:
			o.stop_after = parse_size("--stop-reading-after", optarg);
			o.stop_set = 1;
			break;
		case OPT_RESUME:
			o.resume_ms = parse_uint("--resume-after", optarg);
			break;
		case OPT_PACING:
			o.pacing = parse_size("--pacing-rate", optarg);
			break;
		case OPT_CC:
			o.cc = optarg;
			break;
		case OPT_TIMEOUT:
			o.timeout = parse_uint("--timeout", optarg);
			break;
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind != argc || !o.addr) {
		fprintf(stderr, "lab-peer: %s\n",
			optind != argc ? "unexpected argument" : "missing -l/-c ADDR:PORT");
		exit(2);
	}
	if (o.pacing > UINT32_MAX) {
		fprintf(stderr, "lab-peer: --pacing-rate at most %u bytes/s\n", UINT32_MAX);
		exit(2);
	}
	if (!split_set)
		o.req_split = o.req_size / 2;
	if (o.mode == MODE_RR &&
	    (o.req_size == 0 || o.resp_size == 0 || o.req_split >= o.req_size)) {
		fprintf(stderr, "lab-peer: rr needs --req-size > 0, --req-split < --req-size "
				"(0: one write) and --resp-size > 0\n");
		exit(2);
	}
	if (o.http && o.mode != MODE_DOWNLOAD) {
		fprintf(stderr, "lab-peer: --http is for --mode download\n");
		exit(2);
	}
	if (o.n_server_think && (o.mode != MODE_RR || o.role != ROLE_SERVER))
		usage_error("--server-think is for the server of --mode rr");
	/* The data sender of bulk is the client, of download the server. */
	sender = (o.mode == MODE_BULK) == (o.role == ROLE_CLIENT);
	if ((o.write_size || o.write_every_ns) && (o.mode == MODE_RR || !sender))
		usage_error("--write-size/--write-every are for the sender of bulk (client) "
			    "or download (server)");
	if ((o.read_size || o.read_every_ns) && (o.mode == MODE_RR || sender))
		usage_error("--read-size/--read-every are for the receiver of bulk (server) "
			    "or download (client)");
	if (o.quickack && (o.mode == MODE_RR || sender))
		usage_error("--quickack is for the receiver of bulk (server) or download (client)");
}

/* Pattern-filled send buffer and receive buffer, each at least IO_CHUNK. */
static void alloc_buffers(void)
{
	static const char line[] = "tcpsift lab-peer payload: the quick brown fox jumps over it\n";
	size_t i;

	txcap = o.write_size > IO_CHUNK ? o.write_size : IO_CHUNK;
	rxcap = o.read_size > IO_CHUNK ? o.read_size : IO_CHUNK;
	txbuf = malloc(txcap);
	rxbuf = malloc(rxcap);
	if (!txbuf || !rxbuf)
		die("out of memory");
	for (i = 0; i < txcap; i++)
		txbuf[i] = (unsigned char)line[i % (sizeof(line) - 1)];
}

static void open_app_log(void)
{
	if (!o.app_log)
		return;
	applog = fopen(o.app_log, "w");
	if (!applog)
		die("%s: %s", o.app_log, strerror(errno));
	/* Fully buffered; exit() (also die()) flushes it, the timeout does not. */
	setvbuf(applog, NULL, _IOFBF, 1u << 20);
}

static void close_app_log(void)
{
	if (applog && fclose(applog) != 0)
		die("%s: %s", o.app_log, strerror(errno));
	applog = NULL;
}

int main(int argc, char **argv)
{
	char peer[INET6_ADDRSTRLEN + 16], local[INET6_ADDRSTRLEN + 16], rounds[32] = "";
	double t0, dt;
	int fd;

	parse_args(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, on_alarm);
	if (o.timeout)
		alarm(o.timeout);
	alloc_buffers();
	open_app_log();

	fd = o.role == ROLE_SERVER ? open_server() : open_client();
	t0 = now_s();
	sock_name(fd, 1, peer, sizeof(peer));
	if (applog) {
		sock_name(fd, 0, local, sizeof(local));
		alog("connected t=%" PRIu64 " local=%s peer=%s role=%s mode=%s\n", rt_ns(), local,
		     peer, o.role == ROLE_SERVER ? "server" : "client", mode_names[o.mode]);
	}
	sampler_start(fd);
	if (o.role == ROLE_SERVER)
		run_server(fd);
	else
		run_client(fd);
	sampler_stop();
	alog("close t=%" PRIu64 "\n", rt_ns());
	if (close(fd) < 0)
		die("close: %s", strerror(errno));
	dt = now_s() - t0;
	close_app_log();
	if (o.mode == MODE_RR)
		snprintf(rounds, sizeof(rounds), ", %u rounds", st.rounds);
	fprintf(stderr,
		"lab-peer %s %s peer %s: sent %" PRIu64 " B, received %" PRIu64 " B%s%s, %.3f s\n",
		o.role == ROLE_SERVER ? "server" : "client", mode_names[o.mode], peer, st.tx, st.rx,
		rounds, st.paused ? ", paused reading once" : "", dt);
	return 0;
}
