/* gen.c - deterministic generator of a large, realistic many-connection TCP pcap for benchmarks. */

/*
 * One discrete-event simulation drives every connection.  The capture point
 * sits on the path between the two hosts of each connection:
 *
 *   client host ---- half[CLI] ---- [capture] ---- half[SRV] ---- server host
 *               (most of the RTT)              (a LAN hop, <= 10 us)
 *
 * A packet is an EV_TX event at the time it reaches the capture point, where
 * it is written or dropped "before the capture point".  The same event then
 * becomes an EV_RX at the peer half a path later; hosts react to EV_RX and to
 * their timers by scheduling new EV_TX events.  Both directions share one
 * 10 Gb/s link at the capture point, so timestamps are monotonic with at
 * least one serialization time between records.  One binary heap orders all
 * events; events and connection slots come from tables sized at start, so
 * nothing is allocated per packet.
 *
 * The endpoints are small Linux-like TCPs: handshake with MSS, SACK-permitted,
 * timestamps and window scale; initial window 10 (RFC 6928), slow start to a
 * 64-segment cap; delayed ACK every second segment or after 40 ms, immediate
 * dup ACKs with SACK blocks for out-of-order data; fast retransmit once
 * DupThresh segments are SACKed above a hole (RFC 6675), else an RTO of
 * RTT + 200 ms.  Loss applies to first transmissions of data segments only,
 * so recovery always ends.  A reordered segment is built in its place (its
 * TSval and IP ID fit there) and reaches the capture point after 1-3 later
 * segments of its burst; a retransmission is given a fresh TSval and IP ID, so
 * the two can be told apart.
 *
 * Traffic: 88% request/response connections (think time ~100 ms, some long
 * idles with keep-alive probes), 9% paced bulk downloads, 3% paced uploads;
 * most close with FIN from either side, about 10% with RST.  Each connection
 * is given a packet budget so the totals land on --packets and --connections.
 *
 * Ground truth (drops, reorders, retransmissions, dup ACKs, keep-alives) is
 * counted as records are written, in capture order, and printed to stderr;
 * --truth lists it per frame.  A retransmission or reorder that nothing
 * captured earlier sits above looks like new data on the wire and is counted
 * as "hidden" instead.
 *
 * Checksums: IPv4 header and TCP checksums are both correct.  Payload bytes
 * are zero, so the TCP checksum only needs the pseudo-header and the TCP
 * header, which keeps it cheap and exact even when snaplen truncates.
 */

#include "bench/gensim/gen_int.h"

static const struct gen_optdef gen_optdefs[] = {
    {{"output", required_argument, NULL, 'o'}, "FILE", "write the capture to FILE, '-' for stdout"},
    {{"packets", required_argument, NULL, GEN_OPT_PACKETS}, "N", "packets to write (5000000)"},
    {{"connections", required_argument, NULL, GEN_OPT_CONNECTIONS},
     "N",
     "connections in total (20000)"},
    {{"concurrent", required_argument, NULL, GEN_OPT_CONCURRENT},
     "N",
     "at most N connections live at once (2000)"},
    {{"loss", required_argument, NULL, GEN_OPT_LOSS},
     "PCT",
     "data segments dropped before the capture point (1)"},
    {{"reorder", required_argument, NULL, GEN_OPT_REORDER},
     "PCT",
     "data segments written after 1-3 later ones (0.5)"},
    {{"ipv6", required_argument, NULL, GEN_OPT_IPV6}, "PCT", "connections over IPv6 (15)"},
    {{"seed", required_argument, NULL, GEN_OPT_SEED}, "N", "random seed (1)"},
    {{"snaplen", required_argument, NULL, GEN_OPT_SNAPLEN},
     "N",
     "bytes kept per record (96); wire length stays full"},
    {{"rtt-us", required_argument, NULL, GEN_OPT_RTT},
     "N",
     "base RTT in microseconds (200); each connection 0.5-3x that"},
    {{"wrap", no_argument, NULL, GEN_OPT_WRAP},
     NULL,
     "ISNs near 2^32 for 1 in 10 connections, so sequence numbers wrap"},
    {{"nsec", no_argument, NULL, GEN_OPT_NSEC},
     NULL,
     "nanosecond pcap magic (default microsecond)"},
    {{"truth", required_argument, NULL, GEN_OPT_TRUTH},
     "FILE",
     "list 'frame kind' per retransmission, reorder, dup ACK, keep-alive"},
    {{"help", no_argument, NULL, 'h'}, NULL, "show this help"},
};

#define GEN_NOPTS (sizeof(gen_optdefs) / sizeof(gen_optdefs[0]))

/* --- output --- */

static int out_flush(struct gen_out *o)
{
	size_t off = 0;

	while (off < o->len && !o->err) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);
		if (n == -1) {
			if (errno != EINTR)
				o->err = errno;
			continue;
		}
		off += (size_t)n;
	}
	o->len = 0;
	return o->err ? -1 : 0;
}

/* Room for n bytes at the end of the buffer; valid until the next call. */
uint8_t *gen_out_reserve(struct gen_out *o, size_t n)
{
	if (o->cap - o->len < n)
		out_flush(o);
	return o->buf + o->len;
}

void gen_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void gen_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* pcap file and record headers are in host byte order; readers detect it by the magic. */
static void out_pcap_header(struct gen_out *o, const struct gen_opts *opt)
{
	uint8_t *p = gen_out_reserve(o, 24);
	uint32_t magic = opt->nsec ? 0xa1b23c4du : 0xa1b2c3d4u;
	uint16_t major = 2, minor = 4;
	uint32_t zero = 0, snap = opt->snaplen, linktype = 1; /* LINKTYPE_ETHERNET */

	memcpy(p, &magic, 4);
	memcpy(p + 4, &major, 2);
	memcpy(p + 6, &minor, 2);
	memcpy(p + 8, &zero, 4);
	memcpy(p + 12, &zero, 4);
	memcpy(p + 16, &snap, 4);
	memcpy(p + 20, &linktype, 4);
	o->len += 24;
}

/* --- event pool and heap --- */

uint32_t gen_ev_alloc(struct gen *g)
{
	if (!g->pool_nfree) {
		/* GEN_EV_PER_CONN bounds what one connection can have queued: a bug. */
		fprintf(stderr, "gen: event pool exhausted\n");
		abort();
	}
	return g->pool_free[--g->pool_nfree];
}

void gen_ev_free(struct gen *g, uint32_t idx)
{
	g->pool_free[g->pool_nfree++] = idx;
}

static int hent_before(const struct gen_hent *a, const struct gen_hent *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	return (int32_t)(a->tie - b->tie) < 0;
}

void gen_heap_push(struct gen *g, uint64_t t, uint32_t idx)
{
	struct gen_hent h = {.t = t, .idx = idx, .tie = g->tie++};
	uint32_t i = g->heap_n++;

	while (i) {
		uint32_t parent = (i - 1) / 2;
		if (!hent_before(&h, &g->heap[parent]))
			break;
		g->heap[i] = g->heap[parent];
		i = parent;
	}
	g->heap[i] = h;
}

static struct gen_hent heap_pop(struct gen *g)
{
	struct gen_hent top = g->heap[0];
	struct gen_hent last = g->heap[--g->heap_n];
	uint32_t i = 0, n = g->heap_n;

	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && hent_before(&g->heap[c + 1], &g->heap[c]))
			c++;
		if (!hent_before(&g->heap[c], &last))
			break;
		g->heap[i] = g->heap[c];
		i = c;
	}
	if (n)
		g->heap[i] = last;
	return top;
}

uint32_t gen_conn_slot(const struct gen *g, const struct gen_conn *c)
{
	return (uint32_t)(c - g->conns);
}

/* --- timers --- */

static void timer_queue(struct gen *g, struct gen_conn *c, int tm, uint64_t t)
{
	uint32_t idx = gen_ev_alloc(g);
	struct gen_ev *e = &g->pool[idx];

	e->conn = gen_conn_slot(g, c);
	e->gen = c->gen;
	e->kind = GEN_EV_TIMER;
	e->note = (uint8_t)tm;
	c->tm[tm].queued_at = t;
	gen_heap_push(g, t, idx);
}

void gen_timer_arm(struct gen *g, struct gen_conn *c, int tm, uint64_t deadline)
{
	struct gen_timer *x = &c->tm[tm];

	x->deadline = deadline;
	if (!x->queued_at || x->queued_at > deadline)
		timer_queue(g, c, tm, deadline);
}

/* An event for timer tm popped at t: 1 if the timer expires now. */
int gen_timer_expired(struct gen *g, struct gen_conn *c, int tm, uint64_t t)
{
	struct gen_timer *x = &c->tm[tm];

	if (t != x->queued_at)
		return 0; /* superseded by an earlier event */
	x->queued_at = 0;
	if (!x->deadline)
		return 0;
	if (x->deadline > t) {
		timer_queue(g, c, tm, x->deadline);
		return 0;
	}
	x->deadline = 0;
	return 1;
}

/* --- driver --- */

static void gen_free(struct gen *g)
{
	if (!g)
		return;
	free(g->out.buf);
	free(g->pool);
	free(g->pool_free);
	free(g->heap);
	free(g->conns);
	free(g->slot_free);
	free(g);
}

/* Allocates every table up front; NULL with errbuf filled on failure. */
static struct gen *gen_new(const struct gen_opts *o, int fd, char *errbuf, size_t errlen)
{
	struct gen *g = calloc(1, sizeof(*g));

	if (!g)
		goto err;
	g->o = o;
	rng_seed(&g->rng, o->seed);
	g->out.fd = fd;
	g->out.cap = GEN_OUTBUF;
	g->nslots = (uint32_t)(o->concurrent < o->connections ? o->concurrent : o->connections);
	g->pool_cap = g->nslots * GEN_EV_PER_CONN;
	g->out.buf = malloc(g->out.cap);
	g->pool = calloc(g->pool_cap, sizeof(*g->pool));
	g->pool_free = malloc(g->pool_cap * sizeof(*g->pool_free));
	g->heap = malloc(g->pool_cap * sizeof(*g->heap));
	g->conns = calloc(g->nslots, sizeof(*g->conns));
	g->slot_free = malloc(g->nslots * sizeof(*g->slot_free));
	if (!g->out.buf || !g->pool || !g->pool_free || !g->heap || !g->conns || !g->slot_free)
		goto err;
	/* LIFO free lists, highest index at the bottom, so hot entries get reused. */
	for (uint32_t i = 0; i < g->pool_cap; i++)
		g->pool_free[i] = g->pool_cap - 1 - i;
	g->pool_nfree = g->pool_cap;
	for (uint32_t i = 0; i < g->nslots; i++)
		g->slot_free[i] = g->nslots - 1 - i;
	g->slot_nfree = g->nslots;
	return g;
err:
	snprintf(errbuf, errlen, "out of memory for %" PRIu64 " concurrent connections",
		 o->concurrent);
	gen_free(g);
	return NULL;
}

static void gen_run(struct gen *g)
{
	out_pcap_header(&g->out, g->o);
	for (uint32_t i = 0; i < g->nslots; i++)
		gen_conn_assign(g, GEN_NS_US + rng_below(&g->rng, GEN_RAMP_NS));

	while (g->st.packets < g->o->packets && g->heap_n && !g->out.err) {
		struct gen_hent h = heap_pop(g);
		struct gen_ev *e = &g->pool[h.idx];
		struct gen_conn *c = &g->conns[e->conn];

		if (c->gen != e->gen || !c->live) {
			gen_ev_free(g, h.idx);
			continue;
		}
		switch (e->kind) {
		case GEN_EV_TX:
			gen_on_tx(g, c, h.idx, h.t); /* takes over the entry */
			break;
		case GEN_EV_RX:
			gen_on_rx(g, c, e, h.t);
			gen_ev_free(g, h.idx);
			break;
		default:
			gen_on_timer(g, c, e->note, h.t);
			gen_ev_free(g, h.idx);
			break;
		}
	}
	out_flush(&g->out);
}

static void gen_summary(const struct gen *g)
{
	const struct gen_stats *st = &g->st;
	double secs = (double)(st->last_t - st->first_t) / 1e9;

	fprintf(stderr,
		"gen: packets=%" PRIu64 " ipv6_packets=%" PRIu64 " connections=%" PRIu64
		" ipv6_connections=%" PRIu64 " closed_fin=%" PRIu64 " closed_rst=%" PRIu64
		" open_at_end=%" PRIu64 " peak_live=%" PRIu64 " wrapped_isn=%" PRIu64 "\n",
		st->packets, st->v6_packets, st->started, st->v6_conns, st->closed_fin,
		st->closed_rst, g->live, st->peak_live, st->wrapped);
	fprintf(stderr,
		"gen: segments_dropped=%" PRIu64 " segments_reordered=%" PRIu64
		" retransmissions=%" PRIu64 " (fast=%" PRIu64 " rto=%" PRIu64 ") dup_acks=%" PRIu64
		" keepalives=%" PRIu64 "\n"
		"gen: not visible as such in the capture: retransmissions_hidden=%" PRIu64
		" reorders_hidden=%" PRIu64 "\n",
		st->dropped, st->reordered, st->retx_fast + st->retx_rto, st->retx_fast,
		st->retx_rto, st->dupacks, st->keepalives, st->retx_hidden, st->reorder_hidden);
	fprintf(
	    stderr,
	    "gen: capture_seconds=%.3f avg_gbps=%.2f avg_pkt_bytes=%.0f avg_link_wait_ns=%.0f\n",
	    secs, secs > 0 ? (double)st->wire_bytes * 8 / secs / 1e9 : 0.0,
	    st->packets ? (double)st->wire_bytes / (double)st->packets : 0.0,
	    st->packets ? (double)st->link_wait_ns / (double)st->packets : 0.0);
	if (st->packets < g->o->packets)
		fprintf(stderr,
			"gen: warning: every connection finished after %" PRIu64 " of %" PRIu64
			" packets\n",
			st->packets, g->o->packets);
}

/* --- options --- */

static void usage(FILE *f)
{
	fprintf(f, "usage: gen -o FILE [options]\n"
		   "Writes a deterministic classic pcap of many concurrent TCP connections\n"
		   "and prints the ground truth (drops, reorders, retransmissions) to stderr.\n\n");
	for (size_t i = 0; i < GEN_NOPTS; i++) {
		const struct gen_optdef *d = &gen_optdefs[i];
		char left[40];
		if (d->opt.val < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", d->opt.val, d->opt.name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", d->opt.name, d->arg ? " " : "",
				 d->arg ? d->arg : "");
		fprintf(f, "  %-26s %s\n", left, d->help);
	}
}

static int parse_u64(const char *name, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi) {
		fprintf(stderr,
			"gen: --%s: want an integer in %" PRIu64 "..%" PRIu64 ", got '%s'\n", name,
			lo, hi, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_pct(const char *name, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0 && v <= 100)) {
		fprintf(stderr, "gen: --%s: want a percentage in 0..100, got '%s'\n", name, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* Fills o; returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct gen_opts *o)
{
	struct option longopts[GEN_NOPTS + 1];
	uint64_t v;
	int c;

	memset(longopts, 0, sizeof(longopts));
	for (size_t i = 0; i < GEN_NOPTS; i++)
		longopts[i] = gen_optdefs[i].opt;
	*o = (struct gen_opts){
	    .packets = 5000000,
	    .connections = 20000,
	    .concurrent = 2000,
	    .loss = 1,
	    .reorder = 0.5,
	    .ipv6 = 15,
	    .seed = 1,
	    .snaplen = 96,
	    .rtt_us = 200,
	};
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case 'h':
			usage(stdout);
			return GEN_EXIT_OK;
		case GEN_OPT_PACKETS:
			bad = parse_u64("packets", optarg, 1, UINT64_MAX / 2, &o->packets);
			break;
		case GEN_OPT_CONNECTIONS:
			bad = parse_u64("connections", optarg, 1, UINT32_MAX, &o->connections);
			break;
		case GEN_OPT_CONCURRENT:
			bad = parse_u64("concurrent", optarg, 1, 1000000, &o->concurrent);
			break;
		case GEN_OPT_LOSS:
			bad = parse_pct("loss", optarg, &o->loss);
			break;
		case GEN_OPT_REORDER:
			bad = parse_pct("reorder", optarg, &o->reorder);
			break;
		case GEN_OPT_IPV6:
			bad = parse_pct("ipv6", optarg, &o->ipv6);
			break;
		case GEN_OPT_SEED:
			bad = parse_u64("seed", optarg, 0, UINT64_MAX, &o->seed);
			break;
		case GEN_OPT_SNAPLEN:
			bad = parse_u64("snaplen", optarg, 60, GEN_SNAPLEN_MAX, &v);
			o->snaplen = (uint32_t)v;
			break;
		case GEN_OPT_RTT:
			bad = parse_u64("rtt-us", optarg, 20, 10000000, &v);
			o->rtt_us = (uint32_t)v;
			break;
		case GEN_OPT_WRAP:
			o->wrap = 1;
			break;
		case GEN_OPT_NSEC:
			o->nsec = 1;
			break;
		case GEN_OPT_TRUTH:
			o->truth = optarg;
			break;
		default:
			usage(stderr);
			return GEN_EXIT_USAGE;
		}
		if (bad)
			return GEN_EXIT_USAGE;
	}
	if (optind != argc || !o->out) {
		fprintf(stderr, "gen: %s\n",
			o->out ? "unexpected argument" : "-o FILE is required");
		usage(stderr);
		return GEN_EXIT_USAGE;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct gen_opts o;
	struct gen *g;
	char err[160];
	int fd, rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (!strcmp(o.out, "-")) {
		if (isatty(STDOUT_FILENO)) {
			fprintf(stderr, "gen: refusing to write a capture to a terminal\n");
			return GEN_EXIT_USAGE;
		}
		fd = STDOUT_FILENO;
	} else {
		fd = open(o.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd == -1) {
			fprintf(stderr, "gen: %s: %s\n", o.out, strerror(errno));
			return GEN_EXIT_OUTPUT;
		}
	}
	g = gen_new(&o, fd, err, sizeof(err));
	if (!g) {
		fprintf(stderr, "gen: %s\n", err);
		return GEN_EXIT_OUTPUT;
	}
	if (o.truth) {
		g->truth = fopen(o.truth, "we");
		if (!g->truth) {
			fprintf(stderr, "gen: %s: %s\n", o.truth, strerror(errno));
			gen_free(g);
			return GEN_EXIT_OUTPUT;
		}
	}
	gen_run(g);
	rc = GEN_EXIT_OK;
	if (g->truth && fclose(g->truth) == EOF) {
		fprintf(stderr, "gen: %s: %s\n", o.truth, strerror(errno));
		rc = GEN_EXIT_OUTPUT;
	}
	g->truth = NULL;
	if (g->out.err) {
		fprintf(stderr, "gen: %s: %s\n", o.out, strerror(g->out.err));
		rc = GEN_EXIT_OUTPUT;
	}
	if (fd != STDOUT_FILENO && close(fd) == -1 && rc == GEN_EXIT_OK) {
		fprintf(stderr, "gen: %s: %s\n", o.out, strerror(errno));
		rc = GEN_EXIT_OUTPUT;
	}
	gen_summary(g);
	gen_free(g);
	return rc;
}
