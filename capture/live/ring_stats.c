/* ring_stats.c - capture counters (64-bit sums, per socket, totals) and the ring as IDBs/ISBs. */
#include "capture/live/ring_int.h"

#include <string.h>
#include <time.h>

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
	out->captured_bytes = atomic_load_explicit(&rd->captured_bytes, memory_order_relaxed);
	out->queue_drops = atomic_load_explicit(&rd->queue_drops, memory_order_relaxed);
	out->kernel_recv = atomic_load_explicit(&rd->kernel_recv, memory_order_relaxed);
	out->kernel_drops = atomic_load_explicit(&rd->kernel_drops, memory_order_relaxed);
	out->if_drops = atomic_load_explicit(&rd->if_drops, memory_order_relaxed);
	out->late = atomic_load_explicit(&rd->late, memory_order_relaxed);
	out->late_max_ns = atomic_load_explicit(&rd->late_max_ns, memory_order_relaxed);
	out->hold_ns = atomic_load_explicit(&rd->hold_ns, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&rd->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&rd->tail, memory_order_relaxed);
	out->queue_used = head > tail ? head - tail : 0;
	out->queue_size = rd->size;
	/* How busy a reader is tells a saturated one (more sockets would
	 * help) from bursts its ring cannot hold (a larger ring would). A
	 * thread that has ended has no clock: -1. */
	clockid_t cid;
	struct timespec ts;
	out->cpu_ns = -1;
	if (rd->started && pthread_getcpuclockid(rd->thread, &cid) == 0 &&
	    clock_gettime(cid, &ts) == 0)
		out->cpu_ns = (int64_t)ts.tv_sec * CLOCK_NS_PER_S + ts.tv_nsec;
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

void ring_stats_sum(const struct ring *r, struct ring_totals *out)
{
	struct ring_sock_stats st;

	memset(out, 0, sizeof(*out));
	for (unsigned k = 0; k < r->n; k++) {
		ring_stats(r, k, &st);
		out->captured += st.captured;
		out->captured_bytes += st.captured_bytes;
		out->kernel_recv += st.kernel_recv;
		out->kernel_drops += st.kernel_drops;
		out->queue_drops += st.queue_drops;
		out->late += st.late;
		if (st.late_max_ns > out->late_max_ns)
			out->late_max_ns = st.late_max_ns;
		if (st.hold_ns > out->hold_ns)
			out->hold_ns = st.hold_ns;
		if (k == 0)
			out->if_drops = st.if_drops;
		if (st.queue_size &&
		    (double)st.queue_used / (double)st.queue_size > out->queue_fill)
			out->queue_fill = (double)st.queue_used / (double)st.queue_size;
	}
}

struct pw_writer *ring_pw_open(struct ring *r, const struct pw_config *cfg, char *errbuf,
			       size_t errlen)
{
	struct pw_iface ifaces[RING_MAX_SOCKETS];
	struct pw_writer *w;

	for (unsigned k = 0; k < r->n; k++)
		ifaces[k] = (struct pw_iface){
		    .name = r->iface, .linktype = r->linktype, .queue = ring_queue(r, k)};
	w = pw_open(cfg, ifaces, r->n, errbuf, errlen);
	if (w)
		pw_set_stats_source(w, ring_isb, r);
	return w;
}
