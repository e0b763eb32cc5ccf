/* iflist.c - list capture interfaces (pcap_findalldevs), map -i NUMBER to a name. */
#include "capture/live/iflist.h"

#include "common/err.h"

#include <net/if.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static pcap_if_t *ifl_all(char *errbuf, size_t errlen)
{
	char pe[PCAP_ERRBUF_SIZE] = "";
	pcap_if_t *all = NULL;

	if (pcap_findalldevs(&all, pe) != 0) {
		snprintf(errbuf, errlen, "cannot list interfaces: %s", pe);
		return NULL;
	}
	if (!all)
		snprintf(errbuf, errlen,
			 "no interface to capture on (capturing needs root or "
			 "CAP_NET_RAW)");
	return all;
}

/* tcpdump's bracketed flags, e.g. " [Up, Running, Loopback]", " [none]". */
static void ifl_print_flags(FILE *out, const pcap_if_t *d)
{
	static const struct {
		bpf_u_int32 mask, value;
		const char *name;
	} names[] = {
	    {PCAP_IF_UP, PCAP_IF_UP, "Up"},
	    {PCAP_IF_RUNNING, PCAP_IF_RUNNING, "Running"},
	    {PCAP_IF_WIRELESS, PCAP_IF_WIRELESS, "Wireless"},
	    {PCAP_IF_LOOPBACK, PCAP_IF_LOOPBACK, "Loopback"},
	    /* The link state, which tcpdump leaves out for loopbacks. */
	    {PCAP_IF_LOOPBACK | PCAP_IF_CONNECTION_STATUS, PCAP_IF_CONNECTION_STATUS_CONNECTED,
	     "Connected"},
	    {PCAP_IF_LOOPBACK | PCAP_IF_CONNECTION_STATUS, PCAP_IF_CONNECTION_STATUS_DISCONNECTED,
	     "Disconnected"},
	};
	const char *sep = "";

	fputs(" [", out);
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if ((d->flags & names[k].mask) == names[k].value) {
			fprintf(out, "%s%s", sep, names[k].name);
			sep = ", ";
		}
	fprintf(out, "%s]\n", *sep ? "" : "none");
}

int ifl_print(FILE *out, char *errbuf, size_t errlen)
{
	pcap_if_t *all = ifl_all(errbuf, errlen);
	int n = 0;

	if (!all)
		return ERR_SYSTEM;
	for (pcap_if_t *d = all; d; d = d->next) {
		fprintf(out, "%d.%s", ++n, d->name);
		if (d->description)
			fprintf(out, " (%s)", d->description);
		ifl_print_flags(out, d);
	}
	pcap_freealldevs(all);
	return n;
}

int ifl_resolve(const char *arg, char *out, size_t outlen, char *errbuf, size_t errlen)
{
	char *end;
	unsigned long want = strtoul(arg, &end, 10);
	bool number = *arg >= '0' && *arg <= '9' && *end == '\0';

	/* A name, or a number that is also an interface's name: as given. */
	if (!number || if_nametoindex(arg) != 0) {
		snprintf(out, outlen, "%s", arg);
		return 0;
	}
	pcap_if_t *all = ifl_all(errbuf, errlen);
	if (!all)
		return ERR_USAGE; /* -i NUMBER cannot be resolved without the list */
	unsigned long k = 1;
	pcap_if_t *d = all;
	for (; d && k < want; d = d->next)
		k++;
	int rc = 0;
	if (want == 0 || !d) {
		snprintf(errbuf, errlen, "no interface number %s (see -D)", arg);
		rc = ERR_USAGE;
	} else {
		snprintf(out, outlen, "%s", d->name);
	}
	pcap_freealldevs(all);
	return rc;
}
