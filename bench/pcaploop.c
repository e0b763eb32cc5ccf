/* pcaploop.c - the bare libpcap ceiling: read every record of a savefile and touch it. */

/*
 * Any offline analyzer built on libpcap pays at least this much: open with
 * pcap_open_offline(), pull records with pcap_next_ex(), look at the bytes.
 * Summing caplen and one byte per packet keeps the compiler from skipping
 * the reads and makes the pages actually load.
 *
 * Output, one line on stdout:  packets=N bytes=N seconds=S pps=N checksum=N
 * Exit codes: 0 ok, 2 usage, 3 input error.
 */

#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum pcaploop_exit {
	PCAPLOOP_EXIT_OK = 0,
	PCAPLOOP_EXIT_USAGE = 2,
	PCAPLOOP_EXIT_INPUT = 3,
	PCAPLOOP_EXIT_COUNT
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t packets = 0, bytes = 0, sum = 0;
	double t0, secs;
	pcap_t *p;
	int rc;

	if (argc != 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(argc == 2 ? stdout : stderr, "usage: pcaploop FILE\n");
		return argc == 2 ? PCAPLOOP_EXIT_OK : PCAPLOOP_EXIT_USAGE;
	}
	/* The clock starts before the open so the file header read is counted too. */
	t0 = now_s();
	p = pcap_open_offline(argv[1], errbuf);
	if (!p) {
		fprintf(stderr, "pcaploop: %s\n", errbuf);
		return PCAPLOOP_EXIT_INPUT;
	}
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		packets++;
		bytes += h->caplen;
		/* Middle byte: in a header-only capture that is the TCP header. */
		if (h->caplen)
			sum += data[h->caplen / 2];
	}
	secs = now_s() - t0;
	if (rc == PCAP_ERROR) {
		fprintf(stderr, "pcaploop: %s: %s\n", argv[1], pcap_geterr(p));
		pcap_close(p);
		return PCAPLOOP_EXIT_INPUT;
	}
	pcap_close(p);
	printf("packets=%" PRIu64 " bytes=%" PRIu64 " seconds=%.3f pps=%.0f checksum=%" PRIu64 "\n",
	       packets, bytes, secs, secs > 0 ? (double)packets / secs : 0.0, sum);
	return PCAPLOOP_EXIT_OK;
}
