/*
 * stall-splice.c - a request/response server that sends with splice() and
 * SPLICE_F_MORE, as the HTTP server of the 2013 netdev thread did.
 *
 *   stall-splice -l IPV4:PORT [--rounds N] [--req-size N] [--resp-size N]
 *                [--chunk N] [--no-more-last] [--timeout S]
 *
 * Accepts one connection; --rounds times reads a --req-size request and
 * answers --resp-size bytes, moved from a pipe to the socket by splice() in
 * --chunk pieces, each with SPLICE_F_MORE. With SPLICE_F_MORE on the last
 * piece too (the default), TCP holds the tail below one MSS as MSG_MORE
 * asks (tcp_push() with TCP_NAGLE_CORK) until the zero-window probe timer
 * (base TCP_RTO_MIN, 200 ms) sends it: the lab-peer rr client waits for it.
 * --no-more-last clears the flag on the last piece (the fix): no wait.
 * Pair with `lab-peer client -m rr --nodelay` and the same sizes. Exit 0
 * after the client's FIN, 1 on errors, 2 on usage errors, 124 on timeout.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct splice_opts {
	const char *addr;
	unsigned rounds, timeout;
	size_t req_size, resp_size, chunk;
	int more_last;
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("stall-splice: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void on_alarm(int sig)
{
	static const char msg[] = "stall-splice: timeout, giving up\n";
	ssize_t r;

	(void)sig;
	r = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)r;
	_exit(124);
}

static unsigned long parse_num(const char *opt, const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > max) {
		fprintf(stderr, "stall-splice: %s: bad value '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

static int listen_accept(const char *addr)
{
	char host[64];
	const char *colon = strrchr(addr, ':');
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int lfd, fd, one = 1;

	if (!colon || (size_t)(colon - addr) >= sizeof(host))
		die("-l wants IPV4:PORT, not '%s'", addr);
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	sa.sin_port = htons((uint16_t)parse_num("-l port", colon + 1, 65535));
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		die("-l: bad IPv4 address '%s'", host);
	lfd = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
	if (lfd == -1)
		die("socket: %s", strerror(errno));
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1)
		die("SO_REUSEADDR: %s", strerror(errno));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) == -1 || listen(lfd, 1) == -1)
		die("bind/listen %s: %s", addr, strerror(errno));
	fd = accept(lfd, NULL, NULL);
	if (fd == -1)
		die("accept: %s", strerror(errno));
	close(lfd);
	return fd;
}

/* Read exactly n bytes; 0 on a clean EOF before the first byte. */
static int recv_exact(int fd, size_t n)
{
	char buf[4096];
	size_t got = 0;

	while (got < n) {
		size_t want = n - got > sizeof(buf) ? sizeof(buf) : n - got;
		ssize_t r = recv(fd, buf, want, 0);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			die("recv: %s", strerror(errno));
		if (r == 0) {
			if (got)
				die("EOF inside a request");
			return 0;
		}
		got += (size_t)r;
	}
	return 1;
}

/* One response: fill the pipe, then splice it to the socket in chunks. */
static void respond(int fd, const int pfd[2], const struct splice_opts *o)
{
	static char zeros[65536];
	size_t left = o->resp_size;

	while (left) {
		size_t len = left > o->chunk ? o->chunk : left;
		int last = len == left;
		unsigned flags = SPLICE_F_MOVE;
		ssize_t w = write(pfd[1], zeros, len);

		if (w == -1 || (size_t)w != len)
			die("write to pipe: %s", w == -1 ? strerror(errno) : "short");
		if (!last || o->more_last)
			flags |= SPLICE_F_MORE;
		while (len) {
			ssize_t n = splice(pfd[0], NULL, fd, NULL, len, flags);
			if (n == -1 && errno == EINTR)
				continue;
			if (n <= 0)
				die("splice: %s", n ? strerror(errno) : "returned 0");
			len -= (size_t)n;
			left -= (size_t)n;
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"listen", required_argument, NULL, 'l'},	{"rounds", required_argument, NULL, 'r'},
	    {"req-size", required_argument, NULL, 'q'}, {"resp-size", required_argument, NULL, 's'},
	    {"chunk", required_argument, NULL, 'c'},	{"no-more-last", no_argument, NULL, 'n'},
	    {"timeout", required_argument, NULL, 't'},	{NULL, 0, NULL, 0},
	};
	struct splice_opts o = {.rounds = 10,
				.timeout = 30,
				.req_size = 200,
				.resp_size = 3000,
				.chunk = 4096,
				.more_last = 1};
	int c, fd, pfd[2];
	unsigned done = 0;

	while ((c = getopt_long(argc, argv, "l:", lopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o.addr = optarg;
			break;
		case 'r':
			o.rounds = (unsigned)parse_num("--rounds", optarg, 100000);
			break;
		case 'q':
			o.req_size = parse_num("--req-size", optarg, 1u << 20);
			break;
		case 's':
			o.resp_size = parse_num("--resp-size", optarg, 1u << 24);
			break;
		case 'c':
			o.chunk = parse_num("--chunk", optarg, 65536);
			break;
		case 'n':
			o.more_last = 0;
			break;
		case 't':
			o.timeout = (unsigned)parse_num("--timeout", optarg, 3600);
			break;
		default:
			fprintf(stderr, "usage: stall-splice -l IPV4:PORT [--rounds N] "
					"[--req-size N] [--resp-size N] [--chunk N] "
					"[--no-more-last] [--timeout S]\n");
			return 2;
		}
	}
	if (!o.addr) {
		fprintf(stderr, "stall-splice: -l IPV4:PORT is required\n");
		return 2;
	}
	signal(SIGALRM, on_alarm);
	alarm(o.timeout);
	fd = listen_accept(o.addr);
	if (pipe(pfd) == -1)
		die("pipe: %s", strerror(errno));
	while (recv_exact(fd, o.req_size)) {
		respond(fd, pfd, &o);
		done++;
	}
	if (done != o.rounds)
		die("%u rounds, expected %u", done, o.rounds);
	close(fd);
	fprintf(stderr,
		"stall-splice: %u rounds of %zu bytes, SPLICE_F_MORE on the last piece: %s\n", done,
		o.resp_size, o.more_last ? "yes" : "no");
	return 0;
}
