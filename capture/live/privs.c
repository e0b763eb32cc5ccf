/* privs.c - drop root after opening the capture sockets, and the means to regain it. */
#include "capture/live/privs.h"

#include "common/err.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Capabilities are numbered from 0; 64 bounds any kernel's CAP_LAST_CAP. */
#define PRIV_CAP_MAX 64

/*
 * Empty the capability bounding set: no execve() can hand a capability back
 * (a file-capability binary, or root's exec after a failed drop). The loop
 * stops at the first number the kernel does not know (EINVAL), which is
 * /proc/sys/kernel/cap_last_cap + 1, without reading /proc.
 */
static int priv_clear_bounding_set(char *errbuf, size_t errlen)
{
	for (int cap = 0; cap < PRIV_CAP_MAX; cap++) {
		if (prctl(PR_CAPBSET_DROP, (unsigned long)cap, 0UL, 0UL, 0UL) == 0)
			continue;
		if (errno == EINVAL && cap > 0)
			return 0;
		/* Without CAP_SETPCAP (a container) what is already gone is fine. */
		if (errno == EPERM &&
		    prctl(PR_CAPBSET_READ, (unsigned long)cap, 0UL, 0UL, 0UL) == 0)
			continue;
		snprintf(errbuf, errlen, "cannot drop capability %d from the bounding set: %s", cap,
			 strerror(errno));
		return ERR_SYSTEM;
	}
	return 0;
}

static int priv_no_new_privs(char *errbuf, size_t errlen)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1UL, 0UL, 0UL, 0UL) == -1) {
		snprintf(errbuf, errlen, "cannot set no_new_privs: %s", strerror(errno));
		return ERR_SYSTEM;
	}
	return 0;
}

int priv_drop(const char *user, enum priv_outcome *out, char *errbuf, size_t errlen)
{
	bool explicit_user = user != NULL;

	*out = PRIV_UNPRIVILEGED;
	if (geteuid() != 0) {
		if (explicit_user) {
			snprintf(errbuf, errlen, "-Z %s needs to be started as root", user);
			return ERR_SYSTEM;
		}
		return priv_no_new_privs(errbuf, errlen);
	}
	if (!user)
		user = PRIV_DEFAULT_USER;
	struct passwd *pw = getpwnam(user);
	if (!pw && explicit_user) {
		snprintf(errbuf, errlen, "-Z %s: no such user", user);
		return ERR_SYSTEM;
	}
	int rc = priv_clear_bounding_set(errbuf, errlen);
	if (rc < 0)
		return rc;
	if (!pw || pw->pw_uid == 0) {
		*out = pw ? PRIV_ROOT_ASKED : PRIV_ROOT_NO_USER;
		return priv_no_new_privs(errbuf, errlen);
	}
	if (initgroups(pw->pw_name, pw->pw_gid) == -1 || setgid(pw->pw_gid) == -1 ||
	    setuid(pw->pw_uid) == -1) {
		snprintf(errbuf, errlen, "cannot become user %s: %s", user, strerror(errno));
		return ERR_SYSTEM;
	}
	*out = PRIV_DROPPED;
	return priv_no_new_privs(errbuf, errlen);
}
