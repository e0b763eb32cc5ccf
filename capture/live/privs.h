/* privs.h - give up root once the capture sockets are open, as tcpdump -Z does. */
#ifndef TCPSIFT_PRIVS_H
#define TCPSIFT_PRIVS_H

#include <stddef.h>

/* What priv_drop() left the process as. */
enum priv_outcome {
	PRIV_UNPRIVILEGED = 0, /* not started as root: nothing to give up */
	PRIV_DROPPED,	       /* now the -Z user, or "tcpdump" */
	PRIV_ROOT_ASKED,       /* still root: -Z named root (or another uid-0 user) */
	PRIV_ROOT_NO_USER,     /* still root: no -Z and no default user; the caller warns */
	PRIV_OUTCOME_COUNT,
};

/* The user a root process becomes without -Z (tcpdump's default). */
#define PRIV_DEFAULT_USER "tcpdump"

/*
 * Become user (supplementary groups, then gid, then uid: after setuid() the
 * others are no longer allowed). user NULL: a root process becomes
 * PRIV_DEFAULT_USER when such a user exists and stays
 * root otherwise (PRIV_ROOT_NO_USER: never silently, the caller says so);
 * a named user must exist and needs root.
 *
 * Whatever the outcome, the process then cannot gain privileges again:
 * PR_SET_NO_NEW_PRIVS, and, when started as root, every capability dropped
 * from the bounding set (needs CAP_SETPCAP, so before setuid()). Both are
 * per thread and inherited: call this before any thread starts. 0 with
 * *out set, or ERR_SYSTEM (common/err.h) with a one-line reason in errbuf:
 * the system cannot make us that user (not started as root, no such user,
 * a set*id() or prctl() refused).
 */
int priv_drop(const char *user, enum priv_outcome *out, char *errbuf, size_t errlen);

#endif
