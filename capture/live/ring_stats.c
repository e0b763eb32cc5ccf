/* ring_stats.c - capture counters: pcap_stats as 64-bit sums, per socket and as pcapng ISBs. */
#include "capture/live/ring_int.h"

#include <string.h>

#include "capture/file/pcapwriter.h"

/*
 * pcap_stats() returns 32-bit counters accumulated by libpcap from
 * PACKET_STATISTICS (which the kernel resets on every read); summing the
 * wrapped deltas keeps 64-bit totals. ps_recv counts tp_packets, which for
 * TPACKET_V3 already includes tp_drops (packet_getsockopt()).
 */
void ring_reader_stats(struct ring_reader *rd)
{
	struct pcap_stat ps;

	if (pcap_stats(rd->h, &ps) != 0)
		return;
	rd->k_recv += (uint32_t)(ps.ps_recv - rd->last.ps_recv);
	rd->k_drop += (uint32_t)(ps.ps_drop - rd->last.ps_drop);
	rd->k_ifdrop += (uint32_t)(ps.ps_ifdrop - rd->last.ps_ifdrop);
	rd->last = ps;
	/* Packets skipped as older than the capture were counted by the kernel too. */
	atomic_store_explicit(&rd->kernel_recv,
			      rd->k_recv > rd->n_early ? rd->k_recv - rd->n_early : 0,
			      memory_order_relaxed);
	atomic_store_explicit(&rd->kernel_drops, rd->k_drop, memory_order_relaxed);
	atomic_store_explicit(&rd->if_drops, rd->k_ifdrop, memory_order_relaxed);
}
void ring_stats(const struct ring *r, unsigned sock, struct ring_sock_stats *out)
{
	struct ring_reader *rd = &r->rd[sock];

	out->captured = atomic_load_explicit(&rd->captured, memory_order_relaxed);
	out->queue_drops = atomic_load_explicit(&rd->queue_drops, memory_order_relaxed);
	out->kernel_recv = atomic_load_explicit(&rd->kernel_recv, memory_order_relaxed);
	out->kernel_drops = atomic_load_explicit(&rd->kernel_drops, memory_order_relaxed);
	out->if_drops = atomic_load_explicit(&rd->if_drops, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&rd->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&rd->tail, memory_order_relaxed);
	out->queue_used = head > tail ? head - tail : 0;
	out->queue_size = rd->size;
}

void ring_isb(void *ctx, unsigned sock, struct pw_ifstats *out)
{
	const struct ring *r = ctx;
	struct ring_sock_stats st;

	ring_stats(r, sock, &st);
	memset(out, 0, sizeof(*out));
	out->ifrecv = st.kernel_recv;
	out->have_ifrecv = true;
	out->osdrop = st.kernel_drops + st.queue_drops;
	out->have_osdrop = true;
	if (sock == 0) {
		out->ifdrop = st.if_drops;
		out->have_ifdrop = true;
	}
}
