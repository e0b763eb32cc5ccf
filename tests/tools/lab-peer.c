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
 *             rest) and reads a --resp-size response (write-write-read, the
 *             Nagle + delayed-ACK pattern unless --nodelay).
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
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
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
	unsigned think_ms;
	int nodelay, cork, msg_more, http;
	unsigned cork_hold_ms;
	int rcvbuf, sndbuf, mss;
	uint64_t stop_after;
	int stop_set;
	unsigned resume_ms;
	uint64_t pacing;
	const char *cc;
	unsigned timeout;
};

/* What one run did; printed at the end. */
struct stats {
	uint64_t tx, rx;
	unsigned rounds;
	int paused;
};

static struct opts o;
static struct stats st;

#define IO_CHUNK (64u * 1024u)
static unsigned char txbuf[IO_CHUNK];
static unsigned char rxbuf[IO_CHUNK];

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

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
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
		ssize_t n = send(fd, p, len, flags | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("send: %s", strerror(errno));
		}
		p += n;
		len -= (size_t)n;
		st.tx += (uint64_t)n;
	}
}

/* Send n pattern bytes; with --msg-more every write but the last has MSG_MORE. */
static void send_stream(int fd, uint64_t n, int more_after)
{
	while (n) {
		size_t len = n > IO_CHUNK ? IO_CHUNK : (size_t)n;
		int last = len == n;

		send_all(fd, txbuf, len, o.msg_more && (!last || more_after) ? MSG_MORE : 0);
		n -= len;
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
		ssize_t n;

		if (o.stop_set && !st.paused) {
			if (st.rx >= o.stop_after) {
				st.paused = 1;
				sleep_ms(o.resume_ms);
			} else if (len > o.stop_after - st.rx) {
				len = (size_t)(o.stop_after - st.rx);
			}
		}
		n = recv(fd, buf, len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("recv: %s", strerror(errno));
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

static uint64_t recv_to_eof(int fd)
{
	uint64_t total = 0;
	size_t n;

	while ((n = recv_some(fd, rxbuf, IO_CHUNK)) > 0)
		total += n;
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

static void run_server(int fd)
{
	char hdr[256];
	uint64_t got;
	int hl;

	switch (o.mode) {
	case MODE_BULK:
		got = recv_to_eof(fd);
		if (o.bytes_set)
			expect_bytes(got, o.bytes);
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
		if (shutdown(fd, SHUT_WR) < 0)
			die("shutdown: %s", strerror(errno));
		recv_to_eof(fd);
		break;
	case MODE_RR:
		while (recv_exact(fd, o.req_size)) {
			burst_begin(fd);
			send_stream(fd, o.resp_size, 0);
			burst_end(fd);
			st.rounds++;
		}
		if (o.rounds_set && st.rounds != o.rounds)
			die("%u rounds, expected %u", st.rounds, o.rounds);
		break;
	}
}

static void run_client(int fd)
{
	uint64_t got;
	char hdr[256];
	unsigned r;

	switch (o.mode) {
	case MODE_BULK:
		burst_begin(fd);
		send_stream(fd, o.bytes, 0);
		burst_end(fd);
		if (shutdown(fd, SHUT_WR) < 0)
			die("shutdown: %s", strerror(errno));
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
		break;
	case MODE_RR:
		for (r = 0; r < o.rounds; r++) {
			if (r && o.think_ms)
				sleep_ms(o.think_ms);
			burst_begin(fd);
			send_stream(fd, o.req_split, 1);
			send_stream(fd, o.req_size - o.req_split, 0);
			burst_end(fd);
			if (!recv_exact(fd, o.resp_size))
				die("EOF before response %u", r + 1);
			st.rounds++;
		}
		if (shutdown(fd, SHUT_WR) < 0)
			die("shutdown: %s", strerror(errno));
		recv_to_eof(fd);
		break;
	}
}

static void peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN + 8], port[16];

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) < 0 ||
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
	      "      --req-split N        rr bytes in the first request write (default half)\n"
	      "      --resp-size M        rr response bytes (default 1000)\n"
	      "      --think MS           rr client pause between rounds (default 0)\n"
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
	int c, split_set = 0;
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
			o.think_ms = parse_uint("--think", optarg);
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
	if (o.mode == MODE_RR && (o.req_size == 0 || o.resp_size == 0 || o.req_split == 0 ||
				  o.req_split >= o.req_size)) {
		fprintf(stderr,
			"lab-peer: rr needs 0 < --req-split < --req-size and --resp-size > 0\n");
		exit(2);
	}
	if (o.http && o.mode != MODE_DOWNLOAD) {
		fprintf(stderr, "lab-peer: --http is for --mode download\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	static const char line[] = "tcpsift lab-peer payload: the quick brown fox jumps over it\n";
	char peer[INET6_ADDRSTRLEN + 16], rounds[32] = "";
	double t0, dt;
	size_t i;
	int fd;

	parse_args(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, on_alarm);
	if (o.timeout)
		alarm(o.timeout);
	for (i = 0; i < sizeof(txbuf); i++)
		txbuf[i] = (unsigned char)line[i % (sizeof(line) - 1)];

	fd = o.role == ROLE_SERVER ? open_server() : open_client();
	t0 = now_s();
	peer_name(fd, peer, sizeof(peer));
	if (o.role == ROLE_SERVER)
		run_server(fd);
	else
		run_client(fd);
	if (close(fd) < 0)
		die("close: %s", strerror(errno));
	dt = now_s() - t0;
	if (o.mode == MODE_RR)
		snprintf(rounds, sizeof(rounds), ", %u rounds", st.rounds);
	fprintf(stderr,
		"lab-peer %s %s peer %s: sent %" PRIu64 " B, received %" PRIu64 " B%s%s, %.3f s\n",
		o.role == ROLE_SERVER ? "server" : "client", mode_names[o.mode], peer, st.tx, st.rx,
		rounds, st.paused ? ", paused reading once" : "", dt);
	return 0;
}
