/* connfilter.h - the dashboard's '/' filter: a BPF expression or a substring on addresses. */
#ifndef TCPSIFT_TUI_CONNFILTER_H
#define TCPSIFT_TUI_CONNFILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/model.h"

/*
 * An expression that compiles as a capture filter (tcpdump syntax:
 * "port 443", "host 10.0.0.1 and tcp") matches a connection when it would
 * let through a packet of it either way: it is run by libpcap on a
 * synthetic IPv4/IPv6 + TCP header carrying the connection's addresses and
 * ports. Anything else is a case-insensitive substring of
 * "client:port server:port" (so "10.0.0", ":5201" or "[2001:db8" work).
 * The filter owns its compiled program.
 */
struct cf_filter;

/* NULL only when out of memory (errbuf says so). */
struct cf_filter *cf_new(const char *expr, char *errbuf, size_t errlen);

bool cf_is_bpf(const struct cf_filter *f); /* false: a substring */
bool cf_match(const struct cf_filter *f, const struct tm_row *r);

void cf_free(struct cf_filter *f); /* NULL is a no-op */

#endif
