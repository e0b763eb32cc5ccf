/* connfilter.h - the dashboard's '/' filter: a BPF expression or a substring on addresses. */
#ifndef TCPSIFT_TUI_CONNFILTER_H
#define TCPSIFT_TUI_CONNFILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/model.h"
#include "tui/pl_view.h"

/*
 * An expression that compiles as a capture filter (tcpdump syntax:
 * "port 443", "host 10.0.0.1 and tcp") matches a connection when it would
 * let through a packet of it either way: it is run by libpcap on a
 * synthetic IPv4/IPv6 + TCP header carrying the connection's addresses and
 * ports. Else, an expression made only of what addresses and ports are
 * written with (hex digits, '.', ':', '[', ']') is a case-insensitive
 * substring of "client:port server:port" (so "10.0.0", ":5201" or
 * "[2001:db8" work). Anything else was meant as a capture filter and is
 * refused with libpcap's error ("prot 80" is a typo, not a substring).
 * The filter owns its compiled program.
 */
struct cf_filter;

/* NULL with the reason in errbuf: libpcap's compile error, or out of memory. */
struct cf_filter *cf_new(const char *expr, char *errbuf, size_t errlen);

/* Could expr be a piece of an address or a port (see above)? */
bool cf_looks_like_address(const char *expr);

bool cf_is_bpf(const struct cf_filter *f); /* false: a substring */
bool cf_match(const struct cf_filter *f, const struct tm_row *r);

void cf_free(struct cf_filter *f); /* NULL is a no-op */

/* The Wireshark/tshark display filter of r's frames, the one `tcpsift
 * analyze --conn ID` prints (rep_tshark_filter(); h names its interface
 * when there are several). len: REP_TSHARK_FILTER_LEN is room enough. */
void cf_tshark_filter(char *buf, size_t len, const struct tm_row *r, const struct pl_header *h);

#endif
