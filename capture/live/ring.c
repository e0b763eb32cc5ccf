/* ring.c - live capture: the lifecycle (open, start, stop, close) and the accessors. */
#include "capture/live/ring_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * TPACKET_V3 block retire timeout with several sockets. The merge cannot
 * write a packet until every quiet socket is known to hold nothing older,
 * and a quiet socket's open block is retired only by this timer: the
 * writer's queues must hold that long of the busy sockets' traffic (at
 * 700 MB/s, 100 ms is 70 MB, the whole default queue). 10 ms keeps that
 * to a few MB; a busy socket fills its blocks long before the timer.
 */
#define RING_FANOUT_BLOCK_MS 10

static const char *const ring_fanout_names[RING_FANOUT_COUNT] = {"qm", "cpu", "hash"};

const char *ring_fanout_name(enum ring_fanout m)
{
	return m < RING_FANOUT_COUNT ? ring_fanout_names[m] : "?";
}

enum ring_fanout ring_fanout_parse(const char *s)
{
	for (unsigned k = 0; k < RING_FANOUT_COUNT; k++)
		if (strcmp(s, ring_fanout_names[k]) == 0)
			return (enum ring_fanout)k;
	return RING_FANOUT_COUNT;
}

uint64_t ring_default_buffer_bytes(void)
{
	const uint64_t cap = 256ull << 20, floor = 4ull << 20;
	uint64_t avail_kib = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	/* strtoull, not sscanf: 0 (then the guess below) on garbage, a cap on overflow. */
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "MemAvailable:", 13) == 0) {
			avail_kib = strtoull(line + 13, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	if (avail_kib == 0)
		return 32ull << 20; /* no /proc: a modest guess */
	uint64_t b = avail_kib * 1024 / 8;
	return b > cap ? cap : b < floor ? floor : b;
}

/* Largest power of two <= v (v >= 1). */
static uint64_t ring_floor_pow2(uint64_t v)
{
	uint64_t p = 1;
	while (p <= v / 2)
		p <<= 1;
	return p;
}

int ring_open(const struct ring_config *cfg, struct ring **out, char *errbuf, size_t errlen)
{
	struct ring *r = calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	if (!r) {
		snprintf(errbuf, errlen, "out of memory");
		return ERR_NOMEM;
	}
	r->cfg = *cfg;
	r->n = cfg->nsockets;
	r->pending = -1;
	snprintf(r->iface, sizeof(r->iface), "%s", cfg->iface);
	r->cfg.iface = r->iface;
	r->cfg.filter = NULL; /* only used while opening; not kept */
	if (r->cfg.block_timeout_ms <= 0)
		r->cfg.block_timeout_ms = 100;
	if (r->n > 1 && r->cfg.block_timeout_ms > RING_FANOUT_BLOCK_MS)
		r->cfg.block_timeout_ms = RING_FANOUT_BLOCK_MS;
	if (r->n < 1 || r->n > RING_MAX_SOCKETS || cfg->mode >= RING_FANOUT_COUNT) {
		snprintf(errbuf, errlen, "bad socket count or fanout mode");
		rc = ERR_USAGE;
		goto err;
	}
	uint64_t qsize = ring_floor_pow2((cfg->queue_bytes / r->n) ? cfg->queue_bytes / r->n : 1);
	uint64_t maxrec = RING_ALIGN8(RING_REC_HDR + cfg->snaplen);
	if (qsize < 4 * maxrec) {
		snprintf(errbuf, errlen,
			 "queue of %" PRIu64 " bytes per socket is too small for snaplen %" PRIu32
			 " (need %" PRIu64 ")",
			 qsize, cfg->snaplen, 4 * maxrec);
		rc = ERR_USAGE;
		goto err;
	}
	size_t rdsz = (sizeof(struct ring_reader) * r->n + 63) & ~(size_t)63;
	r->rd = aligned_alloc(64, rdsz);
	if (!r->rd) {
		snprintf(errbuf, errlen, "out of memory");
		rc = ERR_NOMEM;
		goto err;
	}
	memset(r->rd, 0, rdsz);
	for (unsigned k = 0; k < r->n; k++) {
		struct ring_reader *rd = &r->rd[k];
		rd->r = r;
		rd->idx = k;
		rd->fd = -1;
		rd->size = qsize;
		rd->mask = qsize - 1;
		rd->buf = malloc(qsize);
		if (!rd->buf) {
			snprintf(errbuf, errlen, "out of memory for a %" PRIu64 "-byte queue",
				 qsize);
			rc = ERR_NOMEM;
			goto err;
		}
		/* Fault the pages in now, not in the reader's hot path. */
		memset(rd->buf, 0, qsize);
	}
	r->cfg.filter = cfg->filter;
	for (unsigned k = 0; k < r->n; k++)
		if ((rc = ring_open_handle(r, &r->rd[k], errbuf, errlen)) < 0)
			goto err;
	r->cfg.filter = NULL;
	r->linktype = ring_dlt_to_linktype(pcap_datalink(r->rd[0].h));
	r->have_mac =
	    r->linktype == PKT_LINKTYPE_ETHERNET && ring_own_mac(r->rd[0].fd, r->iface, r->mac);
	if (r->n > 1) {
		if ((rc = ring_join_fanout(r, errbuf, errlen)) < 0)
			goto err;
		r->qm = cfg->mode == RING_FANOUT_QM;
	}
	/*
	 * Until the last socket joined, each socket saw every packet; those
	 * packets (and their share of the counters) belong to no capture: the
	 * counters start from here and earlier-stamped packets are skipped.
	 */
	r->base_ns = clock_ns(CLOCK_REALTIME);
	for (unsigned k = 0; k < r->n; k++)
		if (pcap_stats(r->rd[k].h, &r->rd[k].last) != 0)
			memset(&r->rd[k].last, 0, sizeof(r->rd[k].last));
	r->start_ns = clock_ns(CLOCK_REALTIME);
	*out = r;
	return 0;
err:
	ring_close(r);
	return rc;
}

int ring_start(struct ring *r, char *errbuf, size_t errlen)
{
	for (unsigned k = 0; k < r->n; k++) {
		int rc = pthread_create(&r->rd[k].thread, NULL, ring_reader_main, &r->rd[k]);
		if (rc != 0) {
			snprintf(errbuf, errlen, "cannot start reader thread: %s", strerror(rc));
			return ERR_SYSTEM;
		}
		r->rd[k].started = true;
	}
	return 0;
}

void ring_request_stop(struct ring *r)
{
	atomic_store_explicit(&r->stop, 1, memory_order_relaxed);
}

unsigned ring_nsockets(const struct ring *r)
{
	return r->n;
}

uint32_t ring_linktype(const struct ring *r)
{
	return r->linktype;
}

int32_t ring_queue(const struct ring *r, unsigned sock)
{
	return r->qm ? (int32_t)sock : -1;
}

bool ring_loopback(const struct ring *r)
{
	return r->loopback;
}

const char *ring_error(const struct ring *r)
{
	for (unsigned k = 0; k < r->n; k++)
		if (atomic_load_explicit(&r->rd[k].done, memory_order_acquire) && r->rd[k].err[0])
			return r->rd[k].err;
	return NULL;
}

void ring_close(struct ring *r)
{
	if (!r)
		return;
	if (r->rd) {
		ring_request_stop(r);
		for (unsigned k = 0; k < r->n; k++)
			if (r->rd[k].started)
				pthread_join(r->rd[k].thread, NULL);
		for (unsigned k = 0; k < r->n; k++) {
			if (r->rd[k].h)
				pcap_close(r->rd[k].h);
			free(r->rd[k].buf);
		}
		free(r->rd);
	}
	free(r);
}
