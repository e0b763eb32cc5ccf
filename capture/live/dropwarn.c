/* dropwarn.c - warn of a live capture's drops as they start, with the advice that fits. */
#include "capture/live/dropwarn.h"
#include "common/cpus.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* TPACKET_V3's own bytes per packet in the ring (tpacket3_hdr, sockaddr_ll,
 * alignment), about: what a packet costs the ring beyond its caplen. */
#define DW_RING_OVERHEAD 64
/* libpcap takes the ring size as an int: 2047 MiB a socket at most. */
#define DW_MAX_RING_MIB 2047u
/* A ring advised holds this long of the traffic: a reader off its CPU for
 * tens of milliseconds (a busy host) loses nothing. */
#define DW_HOLD_S 0.25

/* The interface's RX queues (/sys/class/net/IF/queues/rx-N); 0 unknown. */
static unsigned count_rx_queues(const char *iface)
{
	char path[128];
	unsigned n = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", iface);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strncmp(e->d_name, "rx-", 3) == 0;
	closedir(d);
	return n;
}

static void look(const struct ring *r, double now, struct dw_counts *c)
{
	struct ring_totals t;
	struct ring_sock_stats st;

	ring_stats_sum(r, &t);
	*c = (struct dw_counts){.t = now,
				.recv = t.kernel_recv,
				.kernel = t.kernel_drops,
				.ours = t.queue_drops,
				.captured = t.captured,
				.bytes = t.captured_bytes};
	for (unsigned k = 0; k < RING_MAX_SOCKETS; k++) {
		c->cpu[k] = -1;
		if (k < ring_nsockets(r)) {
			ring_stats(r, k, &st);
			c->cpu[k] = st.cpu_ns;
		}
	}
}

void dw_start(struct dw_state *s, const struct dw_config *cfg, const struct dw_counts *now)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->last = *now;
	s->base = *now;
}

void dw_init(struct dw_state *s, const struct ring_config *cfg, const struct ring *r, double now,
	     bool queue_option)
{
	struct dw_counts c;
	struct dw_config dc = {.snaplen = cfg->snaplen,
			       .buffer_bytes = cfg->buffer_bytes,
			       .nsockets = ring_nsockets(r),
			       .mode = cfg->mode,
			       .ncpus = cpus_usable(),
			       .rx_queues = count_rx_queues(cfg->iface),
			       .queue_option = queue_option};

	look(r, now, &c);
	dw_start(s, &dc, &c);
}

/* Append a piece of advice: "; " before all but the first (the text so
 * far ends in "try "). */
__attribute__((format(printf, 3, 4))) static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 2 >= len)
		return;
	if (n && buf[n - 1] != ' ')
		n += (size_t)snprintf(buf + n, len - n, "; ");
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static void add_option(char *buf, size_t len, const char *opt)
{
	size_t n = strlen(buf);
	snprintf(buf + n, len - n, "%s%s", n ? " " : "", opt);
}

/* The busiest reader's share of a CPU from a to b; -1 unknown. */
static double busiest(const struct dw_state *s, const struct dw_counts *a,
		      const struct dw_counts *b)
{
	double most = -1, secs = b->t - a->t;

	for (unsigned k = 0; k < s->cfg.nsockets && k < RING_MAX_SOCKETS && secs > 0; k++)
		if (a->cpu[k] >= 0 && b->cpu[k] >= a->cpu[k]) {
			double busy = (double)(b->cpu[k] - a->cpu[k]) / 1e9 / secs;
			if (busy > most)
				most = busy;
		}
	return most;
}

/* Kernel drops: what would keep more (see dropwarn.h). */
static void advise_kernel(const struct dw_state *s, const struct dw_counts *a,
			  const struct dw_counts *b, struct dw_warning *w)
{
	const struct dw_config *c = &s->cfg;
	uint64_t captured = b->captured - a->captured, recv = w->received;
	double mean = captured ? (double)(b->bytes - a->bytes) / (double)captured : c->snaplen;
	double busy = busiest(s, a, b);
	char opt[48];

	bool cut = c->snaplen > DW_HEADER_SNAPLEN && mean > 2 * DW_HEADER_SNAPLEN;
	if (cut) {
		add(w->text, sizeof(w->text),
		    "-s %u (headers are all tcpsift reads; packets kept %.0f bytes each on "
		    "average)",
		    DW_HEADER_SNAPLEN, mean);
		snprintf(opt, sizeof(opt), "-s %u", DW_HEADER_SNAPLEN);
		add_option(w->options, sizeof(w->options), opt);
	}
	/* What the offered traffic costs the ring a second, per socket. */
	double per_s = (mean + DW_RING_OVERHEAD) * (double)recv / (w->seconds > 0 ? w->seconds : 1);
	double hold_s = per_s > 0 ? (double)c->buffer_bytes * c->nsockets / per_s : 1e9;
	/* Four times larger, or enough for DW_HOLD_S of it, within libpcap's limit. */
	uint64_t mib = (c->buffer_bytes * c->nsockets) >> 20, max = DW_MAX_RING_MIB * c->nsockets;
	uint64_t want = mib * 4 > 4 ? mib * 4 : 4;
	double need = per_s * DW_HOLD_S / (1 << 20);
	if (cut) /* sized for the packets -s keeps */
		need = need * (DW_HEADER_SNAPLEN + DW_RING_OVERHEAD) / (mean + DW_RING_OVERHEAD);
	if (need > (double)want)
		want = need < (double)max ? (uint64_t)need + 1 : max;
	if (want > max)
		want = max;
	if ((busy < DW_BUSY || hold_s < 1.0) && want > mib) {
		char held[32];
		if (hold_s < 1e-3)
			snprintf(held, sizeof(held), "%.0f us", hold_s * 1e6);
		else if (hold_s < 1.0)
			snprintf(held, sizeof(held), "%.0f ms", hold_s * 1e3);
		else
			snprintf(held, sizeof(held), "%.1f s", hold_s);
		add(w->text, sizeof(w->text),
		    "-B %" PRIu64 " (the kernel ring, %" PRIu64 " MiB, holds %s of this traffic)",
		    want, mib, held);
		snprintf(opt, sizeof(opt), "-B %" PRIu64, want);
		add_option(w->options, sizeof(w->options), opt);
	}
	/* --fanout N: a socket per CPU (qm: per RX queue at most), 64 at most. */
	unsigned n = c->ncpus;
	bool qm_one = c->mode == RING_FANOUT_QM && c->rx_queues <= 1;
	if (c->mode == RING_FANOUT_QM && c->rx_queues > 1 && c->rx_queues < n)
		n = c->rx_queues;
	if (n > RING_MAX_SOCKETS)
		n = RING_MAX_SOCKETS;
	if (busy >= DW_BUSY && n > c->nsockets) {
		add(w->text, sizeof(w->text),
		    "--fanout %u%s (a reader thread is busy %.0f %% of a CPU; %u CPUs%s)", n,
		    qm_one ? " --fanout-mode hash" : "", busy * 100, c->ncpus,
		    qm_one ? "; one RX queue, so qm would keep one socket busy" : "");
		snprintf(opt, sizeof(opt), "--fanout %u%s", n, qm_one ? " --fanout-mode hash" : "");
		add_option(w->options, sizeof(w->options), opt);
	}
}

/* The warning for the interval a -> b. */
static void describe(const struct dw_state *s, const struct dw_counts *a, const struct dw_counts *b,
		     struct dw_warning *w)
{
	memset(w, 0, sizeof(*w));
	w->kernel = b->kernel - a->kernel;
	w->ours = b->ours - a->ours;
	w->dropped = w->kernel + w->ours;
	/* ps_recv counts what passed the filter, kernel drops included; the
	 * readers publish it five times a second, so it may lag a little. */
	w->received = b->recv - a->recv;
	if (w->received < w->dropped)
		w->received = w->dropped;
	w->pct = w->received ? 100.0 * (double)w->dropped / (double)w->received : 0;
	w->seconds = b->t - a->t;

	char why[96];
	if (w->kernel && w->ours)
		snprintf(why, sizeof(why),
			 "kernel ring full %" PRIu64 ", tcpsift's queue full %" PRIu64, w->kernel,
			 w->ours);
	else
		snprintf(why, sizeof(why), "%s",
			 w->kernel ? "the kernel ring full" : "tcpsift's queue full");
	snprintf(w->text, sizeof(w->text),
		 "%" PRIu64 " of %" PRIu64
		 " packets dropped (%.1f %%) in the last %.1f s, %s: try ",
		 w->dropped, w->received, w->pct, w->seconds, why);
	size_t start = strlen(w->text);
	if (w->kernel)
		advise_kernel(s, a, b, w);
	if (w->ours)
		add(w->text, sizeof(w->text),
		    "a faster output: the writer (disk, pipe%s) is slower than the traffic%s",
		    s->cfg.queue_option ? ", --analyze" : "",
		    s->cfg.queue_option ? "; --queue-mib holds longer bursts" : "");
	if (strlen(w->text) == start)
		add(w->text, sizeof(w->text),
		    "a narrower filter (-f): the options already fit and this host cannot keep up");
}

int dw_step(struct dw_state *s, const struct dw_counts *cur, bool final, struct dw_warning *out)
{
	struct dw_counts prev = s->last;
	s->last = *cur;
	bool grew = cur->kernel + cur->ours > prev.kernel + prev.ours;
	bool since = cur->kernel + cur->ours > s->base.kernel + s->base.ours;

	if (final) {
		if (s->warnings || !since)
			return 0;
		describe(s, &s->base, cur, out);
	} else if (!s->active) {
		if (!grew) {
			s->base = *cur;
			return 0;
		}
		describe(s, &prev, cur, out); /* drops start: the last look's interval */
		s->active = true;
	} else {
		if (cur->t - s->last_warn < DW_EVERY_S)
			return 0;
		if (!since) { /* a quiet DW_EVERY_S: the next drop warns at once */
			s->active = false;
			s->base = *cur;
			return 0;
		}
		describe(s, &s->base, cur, out);
	}
	s->base = *cur;
	s->last_warn = cur->t;
	s->warnings++;
	return 1;
}

int dw_check(struct dw_state *s, const struct ring *r, double now, bool final,
	     struct dw_warning *out)
{
	struct dw_counts cur;

	if (!final && now - s->last.t < 1.0)
		return 0;
	look(r, now, &cur);
	return dw_step(s, &cur, final, out);
}
