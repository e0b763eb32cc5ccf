/* privs.h - give up root once the capture sockets are open, as tcpdump -Z does. */
#ifndef TCPSIFT_PRIVS_H
#define TCPSIFT_PRIVS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Become user (supplementary groups, then gid, then uid: after setuid() the
 * others are no longer allowed). user NULL: a root process becomes
 * "tcpdump" when such a user exists (tcpdump's default) and stays root
 * silently otherwise; a named user must exist and needs root. *dropped says
 * whether anything changed. 0, or ERR_SYSTEM (common/err.h) with a
 * one-line reason in errbuf: the system cannot make us that user (not
 * started as root, no such user, a set*id() refused).
 */
int priv_drop(const char *user, bool *dropped, char *errbuf, size_t errlen);

#endif
