/* httpd.c - a small HTTP/1.1 server of one resource: non-blocking sockets, fixed slots, polled. */
#include "common/httpd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"

enum httpd_state {
	HS_FREE = 0,
	HS_READING,
	HS_WRITING,
	HS_COUNT,
};

struct httpd_slot {
	int fd;
	enum httpd_state state;
	int64_t deadline_ns; /* CLOCK_MONOTONIC: closed when still open then */
	char in[HTTPD_REQ_MAX];
	size_t in_len;
	char *out; /* the whole answer; kept between connections, grown as needed */
	size_t out_cap, out_len, out_off;
};

struct httpd {
	int lfd;
	char path[64];
	char addr[80];
	struct httpd_slot slot[HTTPD_SLOTS];
};

/* Split "HOST:PORT" / "[V6]:PORT" into host (empty: any) and port. */
static int split_addr(const char *addr, char *host, size_t hlen, char *port, size_t plen)
{
	const char *colon = strrchr(addr, ':');
	const char *h = addr, *hend;

	if (!colon || !colon[1] || strlen(colon + 1) >= plen)
		return ERR_USAGE;
	hend = colon;
	if (*h == '[') {
		if (hend == h || hend[-1] != ']')
			return ERR_USAGE;
		h++;
		hend--;
	} else if (memchr(h, ':', (size_t)(hend - h))) {
		return ERR_USAGE; /* an IPv6 address needs its brackets */
	}
	if ((size_t)(hend - h) >= hlen)
		return ERR_USAGE;
	memcpy(host, h, (size_t)(hend - h));
	host[hend - h] = '\0';
	for (const char *p = colon + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return ERR_USAGE;
	unsigned long v = strtoul(colon + 1, NULL, 10);
	if (v > 65535)
		return ERR_USAGE;
	snprintf(port, plen, "%lu", v);
	return 0;
}

int httpd_check_addr(const char *addr, char *errbuf, size_t errlen)
{
	char host[256], port[8];

	if (split_addr(addr, host, sizeof(host), port, sizeof(port)) < 0) {
		snprintf(errbuf, errlen, "'%s': not an address and port (HOST:PORT, [IPV6]:PORT)",
			 addr);
		return ERR_USAGE;
	}
	return 0;
}

/* A listening socket on ai: its fd, or -1 with errno (as socket(2)). */
static int listen_on(const struct addrinfo *ai)
{
	int one = 1, zero = 0;
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd == -1)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ai->ai_family == AF_INET6) /* "::" takes IPv4 too */
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) == -1 || listen(fd, HTTPD_SLOTS) == -1) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static void name_bound(struct httpd *h)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in s4;
		struct sockaddr_in6 s6;
		struct sockaddr_storage ss;
	} u;
	socklen_t sl = sizeof(u);
	char ip[INET6_ADDRSTRLEN] = "?";

	memset(&u, 0, sizeof(u));
	if (getsockname(h->lfd, &u.sa, &sl) == -1)
		return;
	if (u.sa.sa_family == AF_INET) {
		inet_ntop(AF_INET, &u.s4.sin_addr, ip, sizeof(ip));
		snprintf(h->addr, sizeof(h->addr), "%s:%u", ip, (unsigned)ntohs(u.s4.sin_port));
	} else if (u.sa.sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &u.s6.sin6_addr, ip, sizeof(ip));
		snprintf(h->addr, sizeof(h->addr), "[%s]:%u", ip, (unsigned)ntohs(u.s6.sin6_port));
	}
}

int httpd_new(const char *addr, const char *path, struct httpd **out, char *errbuf, size_t errlen)
{
	char host[256], port[8];
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
	struct addrinfo *res = NULL;

	*out = NULL;
	if (httpd_check_addr(addr, errbuf, errlen) < 0 ||
	    split_addr(addr, host, sizeof(host), port, sizeof(port)) < 0)
		return ERR_USAGE;
	int gai = getaddrinfo(host[0] ? host : "::", port, &hints, &res);
	if (gai != 0 && !host[0]) /* no IPv6 here: every IPv4 address */
		gai = getaddrinfo("0.0.0.0", port, &hints, &res);
	if (gai != 0) {
		snprintf(errbuf, errlen, "'%s': %s", addr, gai_strerror(gai));
		return ERR_USAGE;
	}
	struct httpd *h = calloc(1, sizeof(*h));
	if (!h) {
		freeaddrinfo(res);
		snprintf(errbuf, errlen, "out of memory");
		return ERR_NOMEM;
	}
	h->lfd = -1;
	for (int k = 0; k < HTTPD_SLOTS; k++)
		h->slot[k].fd = -1;
	int err = 0;
	for (const struct addrinfo *ai = res; ai && h->lfd == -1; ai = ai->ai_next) {
		h->lfd = listen_on(ai);
		if (h->lfd == -1)
			err = errno;
	}
	freeaddrinfo(res);
	if (h->lfd == -1) {
		snprintf(errbuf, errlen, "cannot listen on %s: %s", addr, strerror(err));
		free(h);
		return ERR_SYSTEM;
	}
	snprintf(h->path, sizeof(h->path), "%s", path);
	snprintf(h->addr, sizeof(h->addr), "%s", addr); /* unless the socket says better */
	name_bound(h);
	*out = h;
	return 0;
}

const char *httpd_addr(const struct httpd *h)
{
	return h->addr;
}

static void slot_close(struct httpd_slot *s)
{
	if (s->fd != -1)
		close(s->fd);
	s->fd = -1;
	s->state = HS_FREE;
	s->in_len = s->out_len = s->out_off = 0;
}

void httpd_free(struct httpd *h)
{
	if (!h)
		return;
	for (int k = 0; k < HTTPD_SLOTS; k++) {
		slot_close(&h->slot[k]);
		free(h->slot[k].out);
	}
	if (h->lfd != -1)
		close(h->lfd);
	free(h);
}

/* The answer into s->out: status line, headers, body (none for HEAD). */
static int answer(struct httpd_slot *s, const char *status, const char *ctype, const char *body,
		  size_t len, bool head, const char *extra)
{
	char hdr[512];
	int n = snprintf(hdr, sizeof(hdr),
			 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
			 "Connection: close\r\n\r\n",
			 status, ctype, len, extra ? extra : "");
	if (n < 0 || (size_t)n >= sizeof(hdr))
		return ERR_SYSTEM;
	size_t need = (size_t)n + (head ? 0 : len);
	if (need > s->out_cap) {
		char *p = realloc(s->out, need);
		if (!p)
			return ERR_NOMEM;
		s->out = p;
		s->out_cap = need;
	}
	memcpy(s->out, hdr, (size_t)n);
	if (!head && len)
		memcpy(s->out + n, body, len);
	s->out_len = need;
	s->out_off = 0;
	s->state = HS_WRITING;
	return 0;
}

static int answer_text(struct httpd_slot *s, const char *status, bool head, const char *extra)
{
	char body[96];
	int n = snprintf(body, sizeof(body), "%s\n", status);
	return answer(s, status, "text/plain; charset=utf-8", body, (size_t)n, head, extra);
}

/* Does the Accept header (in headers, up to end) name the OpenMetrics type? */
static bool accepts_openmetrics(const char *headers, const char *end)
{
	for (const char *l = headers; l < end;) {
		const char *eol = memchr(l, '\n', (size_t)(end - l));
		if (!eol)
			eol = end;
		if ((size_t)(eol - l) > 7 && strncasecmp(l, "accept:", 7) == 0 &&
		    memmem(l, (size_t)(eol - l), "application/openmetrics-text", 28))
			return true;
		l = eol + 1;
	}
	return false;
}

/* A whole request head is in s->in: answer it (RFC 9112 3: request line). */
static int respond(struct httpd *h, struct httpd_slot *s, httpd_handler *fn, void *ctx)
{
	char *eol = memchr(s->in, '\n', s->in_len);
	char *sp1 = eol ? memchr(s->in, ' ', (size_t)(eol - s->in)) : NULL;
	char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;

	if (!sp2 || (size_t)(eol - sp2) < 9 || strncmp(sp2 + 1, "HTTP/1.", 7) != 0)
		return answer_text(s, "400 Bad Request", false, NULL);
	bool get = sp1 - s->in == 3 && memcmp(s->in, "GET", 3) == 0;
	bool head = sp1 - s->in == 4 && memcmp(s->in, "HEAD", 4) == 0;
	if (!get && !head)
		return answer_text(s, "405 Method Not Allowed", false, "Allow: GET, HEAD\r\n");
	char *target = sp1 + 1, *q = memchr(target, '?', (size_t)(sp2 - target));
	size_t tlen = (size_t)((q ? q : sp2) - target);
	if (tlen != strlen(h->path) || memcmp(target, h->path, tlen) != 0)
		return answer_text(s, "404 Not Found", head, NULL);
	struct httpd_req req = {.openmetrics = accepts_openmetrics(eol + 1, s->in + s->in_len)};
	const char *body = NULL, *ctype = "text/plain";
	size_t len = 0;
	if (fn(ctx, &req, &body, &len, &ctype) < 0)
		return answer_text(s, "500 Internal Server Error", head, NULL);
	return answer(s, "200 OK", ctype, body, len, head, NULL);
}

/* Read what is there; answer once the head is complete. 1 when answered. */
static int slot_read(struct httpd *h, struct httpd_slot *s, httpd_handler *fn, void *ctx)
{
	for (;;) {
		if (s->in_len == sizeof(s->in) - 1) {
			if (answer_text(s, "431 Request Header Fields Too Large", false, NULL) < 0)
				slot_close(s);
			return 0;
		}
		ssize_t n = recv(s->fd, s->in + s->in_len, sizeof(s->in) - 1 - s->in_len, 0);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return 0;
		if (n <= 0) { /* closed or failed before a whole request */
			slot_close(s);
			return 0;
		}
		s->in_len += (size_t)n;
		s->in[s->in_len] = '\0';
		/* memmem: a NUL in the request must not hide its end. */
		if (memmem(s->in, s->in_len, "\r\n\r\n", 4) ||
		    memmem(s->in, s->in_len, "\n\n", 2)) {
			if (respond(h, s, fn, ctx) < 0) {
				slot_close(s);
				return 0;
			}
			return 1;
		}
	}
}

static void slot_write(struct httpd_slot *s)
{
	while (s->out_off < s->out_len) {
		ssize_t n = send(s->fd, s->out + s->out_off, s->out_len - s->out_off, MSG_NOSIGNAL);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (n <= 0)
			break;
		s->out_off += (size_t)n;
	}
	/* All sent (or the peer went): half-close so it reads the end. */
	shutdown(s->fd, SHUT_WR);
	slot_close(s);
}

static void accept_new(struct httpd *h, int64_t now)
{
	for (;;) {
		int fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1)
			return;
		struct httpd_slot *s = NULL, *oldest = NULL;
		for (int k = 0; k < HTTPD_SLOTS && !s; k++) {
			struct httpd_slot *t = &h->slot[k];
			if (t->state == HS_FREE)
				s = t;
			else if (t->state == HS_READING &&
				 (!oldest || t->deadline_ns < oldest->deadline_ns))
				oldest = t;
		}
		/* Every slot busy: the one waiting longest for its request goes,
		 * so idle connections cannot keep a scrape out for HTTPD_TIMEOUT_MS;
		 * with none reading (all answers being sent), no room. */
		if (!s && oldest) {
			slot_close(oldest);
			s = oldest;
		}
		if (!s) {
			close(fd);
			continue;
		}
		s->fd = fd;
		s->state = HS_READING;
		s->in_len = 0;
		s->deadline_ns = now + (int64_t)HTTPD_TIMEOUT_MS * 1000000;
	}
}

int httpd_poll(struct httpd *h, httpd_handler *fn, void *ctx)
{
	struct pollfd pfd[HTTPD_SLOTS];
	int idx[HTTPD_SLOTS];
	nfds_t n = 0;
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	int served = 0;

	/* New connections first, so that a request already sent with the
	 * connection is answered in this call. */
	accept_new(h, now);
	for (int k = 0; k < HTTPD_SLOTS; k++) {
		struct httpd_slot *s = &h->slot[k];
		if (s->state == HS_FREE)
			continue;
		if (now >= s->deadline_ns) {
			slot_close(s);
			continue;
		}
		idx[n] = k;
		pfd[n++] = (struct pollfd){.fd = s->fd,
					   .events = s->state == HS_READING ? POLLIN : POLLOUT};
	}
	if (n == 0 || poll(pfd, n, 0) <= 0)
		return 0;
	for (nfds_t j = 0; j < n; j++) {
		struct httpd_slot *s = &h->slot[idx[j]];
		if (!pfd[j].revents)
			continue;
		if (s->state == HS_READING)
			served += slot_read(h, s, fn, ctx);
		if (s->state == HS_WRITING) /* answer at once: most fit the socket's buffer */
			slot_write(s);
	}
	return served;
}
