/* bpfhint.h - a refused filter that is a Wireshark display filter gets a BPF hint. */
#ifndef TCPSIFT_BPFHINT_H
#define TCPSIFT_BPFHINT_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

/*
 * Does expr look like a Wireshark display filter: does it name a protocol
 * field (tcp.port, ip.addr, tcp.analysis.retransmission, frame.len ...)?
 * BPF has no dotted field names, so only a filter libpcap refused is asked
 * (a host name such as ip.example.org compiles and never gets here). When it
 * does, example gets the BPF for a lone "FIELD == VALUE" of an address or a
 * port ('tcp port 80', 'src host 10.0.0.1'), else 'tcp port 80'.
 */
bool bpfhint_is_display_filter(const char *expr, char *example, size_t len);

/*
 * The one line for a filter libpcap refused, on stderr: with the hint
 * ("tcpsift VERB: bad filter 'EXPR': that looks like a Wireshark display
 * filter; tcpsift takes BPF (tcpdump syntax), e.g. 'tcp port 80'") when
 * bpfhint_is_display_filter(filter), and true; else nothing, and false
 * (the caller prints its own error).
 */
bool bpfhint_report(const char *verb, const char *filter);
/* The same, the line on f. */
bool bpfhint_report_to(FILE *f, const char *verb, const char *filter);

#endif
