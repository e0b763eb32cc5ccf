/* privs.c - drop root after opening the capture sockets. */
#include "capture/live/privs.h"

#include "common/err.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int priv_drop(const char *user, bool *dropped, char *errbuf, size_t errlen)
{
	bool explicit_user = user != NULL;

	*dropped = false;
	if (geteuid() != 0) {
		if (!explicit_user)
			return 0;
		snprintf(errbuf, errlen, "-Z %s needs to be started as root", user);
		return ERR_SYSTEM;
	}
	if (!user)
		user = "tcpdump";
	struct passwd *pw = getpwnam(user);
	if (!pw) {
		if (!explicit_user)
			return 0;
		snprintf(errbuf, errlen, "-Z %s: no such user", user);
		return ERR_SYSTEM;
	}
	if (pw->pw_uid == 0)
		return 0;
	if (initgroups(pw->pw_name, pw->pw_gid) == -1 || setgid(pw->pw_gid) == -1 ||
	    setuid(pw->pw_uid) == -1) {
		snprintf(errbuf, errlen, "cannot become user %s: %s", user, strerror(errno));
		return ERR_SYSTEM;
	}
	*dropped = true;
	return 0;
}
