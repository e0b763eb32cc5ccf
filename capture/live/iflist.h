/* iflist.h - the interfaces libpcap can capture on: tcpdump -D and -i NUMBER. */
#ifndef TCPSIFT_IFLIST_H
#define TCPSIFT_IFLIST_H

#include <stddef.h>
#include <stdio.h>

/*
 * Print the capture interfaces as tcpdump -D does, numbered from 1 in
 * pcap_findalldevs() order: "1.eth0 (description) [Up, Running, Connected]".
 * The number of interfaces printed, or ERR_SYSTEM (common/err.h) with a
 * one-line reason in errbuf (libpcap cannot list them, or lists none).
 */
int ifl_print(FILE *out, char *errbuf, size_t errlen);

/*
 * The interface to open for an -i argument: the name itself when such an
 * interface exists or the argument is not a plain number, else (as tcpdump)
 * the Nth interface of ifl_print()'s list. 0 with the name in out, or
 * ERR_USAGE with a one-line reason in errbuf: the argument names no
 * interface (no interface N, or no list to count in).
 */
int ifl_resolve(const char *arg, char *out, size_t outlen, char *errbuf, size_t errlen);

#endif
