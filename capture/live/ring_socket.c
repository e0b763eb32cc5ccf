/* ring_socket.c - one libpcap TPACKET_V3 handle (create, set, activate, filter); the fanout. */
#include "capture/live/ring_int.h"

#include <errno.h>
#include <limits.h>
#include <linux/if_packet.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23 /* Linux >= 4.20 */
#endif
#ifndef PACKET_FANOUT_FLAG_IGNORE_OUTGOING
#define PACKET_FANOUT_FLAG_IGNORE_OUTGOING 0x4000 /* Linux >= 5.13 */
#endif
#ifndef PACKET_FANOUT_FLAG_UNIQUEID
#define PACKET_FANOUT_FLAG_UNIQUEID 0x2000 /* Linux >= 4.?: kernel picks a free group id */
#endif

/* LINKTYPE_* for a DLT_* (they differ only for a few, e.g. DLT_RAW). */
uint32_t ring_dlt_to_linktype(int dlt)
{
	switch (dlt) {
	case DLT_RAW:
		return PKT_LINKTYPE_RAW;
	default:
		return (uint32_t)dlt;
	}
}

/* The interface's hardware address into ifr: its family (ARPHRD_*), or -1. */
static int ring_hwaddr(int fd, const char *iface, struct ifreq *ifr)
{
	memset(ifr, 0, sizeof(*ifr));
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%.*s", IFNAMSIZ - 1, iface);
	if (ioctl(fd, SIOCGIFHWADDR, ifr) == -1)
		return -1;
	return ifr->ifr_hwaddr.sa_family;
}

/*
 * libpcap's callback does not pass the packet type (sockaddr_ll.sll_pkttype)
 * on, so on Ethernet the direction comes from the source address: frames
 * from the interface's own MAC were sent by this host (epb_flags outbound),
 * the rest received. Virtual devices sharing a MAC would fool it: rare.
 */
bool ring_own_mac(int fd, const char *iface, uint8_t mac[6])
{
	struct ifreq ifr;

	if (ring_hwaddr(fd, iface, &ifr) != ARPHRD_ETHER)
		return false;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return true;
}

static bool ring_is_loopback(int fd, const char *iface)
{
	struct ifreq ifr;

	return ring_hwaddr(fd, iface, &ifr) == ARPHRD_LOOPBACK;
}

/* create -> set -> activate one handle (libpcap's order), then the filter. */
int ring_open_handle(struct ring *r, struct ring_reader *rd, char *errbuf, size_t errlen)
{
	const struct ring_config *c = &r->cfg;
	char pe[PCAP_ERRBUF_SIZE] = "";
	uint64_t bufsz = c->buffer_bytes > INT_MAX ? INT_MAX : c->buffer_bytes;

	rd->h = pcap_create(c->iface, pe);
	if (!rd->h) {
		snprintf(errbuf, errlen, "%s: %s", c->iface, pe);
		return ERR_SYSTEM;
	}
	pcap_set_snaplen(rd->h, (int)c->snaplen);
	/* Promiscuous as tcpdump; libpcap also counts ps_ifdrop only in this mode. */
	pcap_set_promisc(rd->h, 1);
	pcap_set_buffer_size(rd->h, (int)bufsz);
	/*
	 * No pcap_set_immediate_mode(): libpcap 1.10 falls back to TPACKET_V2
	 * (fixed-size frames) in immediate mode, because TPACKET_V3 holds
	 * packets until a block is full or its timer fires. The timeout below
	 * bounds that delay instead, and the stop path waits it out.
	 */
	pcap_set_timeout(rd->h, c->block_timeout_ms);
	if (pcap_set_tstamp_precision(rd->h, PCAP_TSTAMP_PRECISION_NANO) != 0)
		(void)0; /* stays microseconds; ring_reader_cb scales */
	int rc = pcap_activate(rd->h);
	if (rc < 0) {
		const char *msg = pcap_geterr(rd->h);
		if (rc == PCAP_ERROR_NO_SUCH_DEVICE)
			snprintf(errbuf, errlen, "%s: no such interface", c->iface);
		else if (rc == PCAP_ERROR_PERM_DENIED)
			snprintf(errbuf, errlen,
				 "%s: permission denied (capturing needs root or CAP_NET_RAW)",
				 c->iface);
		else if (rc == PCAP_ERROR_IFACE_NOT_UP)
			snprintf(errbuf, errlen, "%s: interface is not up", c->iface);
		else
			snprintf(errbuf, errlen, "%s: %s", c->iface,
				 msg && *msg ? msg : pcap_statustostr(rc));
		return ERR_SYSTEM;
	}
	rd->nano = pcap_get_tstamp_precision(rd->h) == PCAP_TSTAMP_PRECISION_NANO;
	rd->fd = pcap_fileno(rd->h);
	if (pcap_setnonblock(rd->h, 1, pe) != 0) {
		snprintf(errbuf, errlen, "%s: %s", c->iface, pe);
		return ERR_SYSTEM;
	}
	if (c->filter && *c->filter) {
		struct bpf_program prog;
		if (pcap_compile(rd->h, &prog, c->filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
			snprintf(errbuf, errlen, "bad filter '%s': %s", c->filter,
				 pcap_geterr(rd->h));
			return ERR_USAGE; /* the request cannot work, on any interface */
		}
		rc = pcap_setfilter(rd->h, &prog);
		pcap_freecode(&prog);
		if (rc != 0) {
			snprintf(errbuf, errlen, "%s: cannot set filter: %s", c->iface,
				 pcap_geterr(rd->h));
			return ERR_SYSTEM;
		}
	}
	/*
	 * On loopback every packet passes dev_queue_xmit_nit() (outgoing copy)
	 * and then netif_rx() (incoming copy); libpcap throws the outgoing one
	 * away only in user space, after it took ring space and CPU. Ignoring
	 * outgoing packets in the kernel keeps exactly one copy. On any other
	 * interface the outgoing direction is real traffic, so it stays.
	 */
	if (ring_is_loopback(rd->fd, c->iface)) {
		int one = 1;
		if (setsockopt(rd->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) ==
		    -1) {
			snprintf(errbuf, errlen, "%s: PACKET_IGNORE_OUTGOING: %s", c->iface,
				 strerror(errno));
			return ERR_SYSTEM;
		}
		r->loopback = true;
	}
	return 0;
}

/*
 * Join every socket to one fanout group. The first asks the kernel for an
 * unused group id (PACKET_FANOUT_FLAG_UNIQUEID, so two captures never share
 * a group by accident) and the others join that id with the same mode.
 */
int ring_join_fanout(struct ring *r, char *errbuf, size_t errlen)
{
	static const int modes[RING_FANOUT_COUNT] = {
	    PACKET_FANOUT_QM, PACKET_FANOUT_CPU, PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_DEFRAG};
	int type = modes[r->cfg.mode];
	/*
	 * In a fanout group the kernel taps packets with the group's hook,
	 * not the sockets': each socket's PACKET_IGNORE_OUTGOING no longer
	 * applies (dev_queue_xmit_nit() checks the group's flag), so on
	 * loopback the group must ask for it itself.
	 */
	if (r->loopback)
		type |= PACKET_FANOUT_FLAG_IGNORE_OUTGOING;
	/* The mode and flags go in the high 16 bits; DEFRAG (0x8000) reaches
	 * the sign bit, so shift unsigned. */
	int val = (int)((uint32_t)(type | PACKET_FANOUT_FLAG_UNIQUEID) << 16);
	socklen_t vl = sizeof(val);

	if (setsockopt(r->rd[0].fd, SOL_PACKET, PACKET_FANOUT, &val, sizeof(val)) == -1 ||
	    getsockopt(r->rd[0].fd, SOL_PACKET, PACKET_FANOUT, &val, &vl) == -1) {
		snprintf(errbuf, errlen, "%s: PACKET_FANOUT: %s", r->iface, strerror(errno));
		return ERR_SYSTEM;
	}
	int id = val & 0xffff;
	for (unsigned k = 1; k < r->n; k++) {
		val = (int)((uint32_t)id | ((uint32_t)type << 16));
		if (setsockopt(r->rd[k].fd, SOL_PACKET, PACKET_FANOUT, &val, sizeof(val)) == -1) {
			snprintf(errbuf, errlen, "%s: PACKET_FANOUT join: %s", r->iface,
				 strerror(errno));
			return ERR_SYSTEM;
		}
	}
	return 0;
}
