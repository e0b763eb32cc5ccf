/* httpd.h - a small HTTP/1.1 server of one resource, polled from a loop: it never blocks. */
#ifndef TCPSIFT_HTTPD_H
#define TCPSIFT_HTTPD_H

#include <stdbool.h>
#include <stddef.h>

/*
 * For --metrics (a Prometheus scrape). One listening socket and
 * HTTPD_SLOTS client slots, every socket non-blocking; httpd_poll(),
 * called from the caller's own loop (every 100 ms or so), moves each
 * slot on by what poll(2) says is ready and returns:
 *
 *   slot:  reading (<= HTTPD_REQ_MAX bytes of request line and headers)
 *          -> the answer built whole into the slot's buffer
 *          -> writing -> closed (Connection: close; one request a connection)
 *
 * A slot idle for HTTPD_TIMEOUT_MS is closed; a connection that finds
 * every slot taken replaces the one that has waited longest for its
 * request (closed at once when every slot is sending an answer); a
 * request larger than the cap gets 431: a slow or hostile client costs a
 * slot, never the caller's loop.
 * GET (and HEAD) of the one path the caller serves; 404 for another,
 * 405 for another method. The body comes from the caller's handler,
 * called once a request, on the caller's thread.
 */
#define HTTPD_SLOTS	 8
#define HTTPD_REQ_MAX	 4096
#define HTTPD_TIMEOUT_MS 5000

struct httpd_req {
	bool openmetrics; /* the Accept header names application/openmetrics-text */
};

/* The answer to a GET of the served path: body[len] (borrowed until the
 * next call) and its Content-Type. 0, or a negative enum err_code: 500. */
typedef int httpd_handler(void *ctx, const struct httpd_req *req, const char **body, size_t *len,
			  const char **ctype);

struct httpd;

/*
 * Listen on addr, "HOST:PORT" ("127.0.0.1:9464", "[::1]:9464",
 * "localhost:9464"; ":9464" every address; port 0: one the system
 * picks), serving path ("/metrics"). 0 with the server in *out, or a
 * negative enum err_code (ERR_USAGE: a malformed address, ERR_SYSTEM: the
 * bind failed) with one line in errbuf.
 */
int httpd_new(const char *addr, const char *path, struct httpd **out, char *errbuf, size_t errlen);

/* Is addr a HOST:PORT httpd_new() takes (its syntax only: the name is
 * looked up when it listens)? 0, or ERR_USAGE with one line in errbuf. */
int httpd_check_addr(const char *addr, char *errbuf, size_t errlen);

/* Serve what is ready, without waiting; the number of requests answered. */
int httpd_poll(struct httpd *h, httpd_handler *fn, void *ctx);

/* The address listened on, as "127.0.0.1:9464" (the port the system
 * picked for port 0). */
const char *httpd_addr(const struct httpd *h);

void httpd_free(struct httpd *h); /* NULL is a no-op; closes every socket */

#endif
