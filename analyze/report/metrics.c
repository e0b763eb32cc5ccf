/* metrics.c - live totals for --metrics and their exposition text (Prometheus, OpenMetrics). */
#include "analyze/report/metrics.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/det_view.h"
#include "analyze/report/failon.h"
#include "analyze/report/report.h"
#include "common/err.h"
#include "common/grow.h"
#include "common/httpd.h"

/* Path RTT buckets' upper bounds: 100 us (a LAN) to 1 s (a satellite hop
 * or a bufferbloated queue), 1-2.5-5 steps, then +Inf. */
#define MX_RTT_BUCKETS 13
static const int64_t mx_rtt_le_ns[MX_RTT_BUCKETS] = {
    100000,   250000,	500000,	   1000000,   2500000,	 5000000,    10000000,
    25000000, 50000000, 100000000, 250000000, 500000000, 1000000000,
};
static const char *const mx_rtt_le[MX_RTT_BUCKETS] = {
    "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01",
    "0.025",  "0.05",	 "0.1",	   "0.25",  "0.5",    "1.0",
};

struct mx_top {
	uint64_t id, trouble;
	char client[64], server[64]; /* "[v6 address]:port" */
};

struct mx_acc {
	unsigned top_n;
	int m_stalls, m_holes; /* fo_metric_find(): the findings a connection's trouble counts */
	struct rep_totals ended, live;
	uint64_t sent_ended, sent_live;	    /* data segments (rep_totals has none) */
	uint64_t events[SUM_EV_TYPE_COUNT]; /* findings (not per-frame verdicts) by type */
	uint64_t classes[DET_VIEW_COUNT][MX_MAX_CLASSES];
	uint64_t rtt_n[MX_RTT_BUCKETS + 1]; /* by bucket, not cumulative; last: above 1 s */
	uint64_t rtt_count;
	int64_t rtt_sum_ns;
	uint32_t nlive;
	struct mx_top top[MX_TOP_MAX];
	unsigned ntop;
	struct eng_counters eng;
	struct flow_counters flows;
	struct mx_capture cap;
	/* The text of the last render. */
	char *buf;
	size_t len, size;
	bool failed;
};

struct mx_acc *mx_new(unsigned top_n, char *errbuf, size_t errlen)
{
	struct mx_acc *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	m->top_n = top_n > MX_TOP_MAX ? MX_TOP_MAX : top_n;
	m->m_stalls = fo_metric_find("stalls");
	m->m_holes = fo_metric_find("sack_holes");
	return m;
}

void mx_free(struct mx_acc *m)
{
	if (!m)
		return;
	free(m->buf);
	free(m);
}

void mx_reset(struct mx_acc *m)
{
	unsigned top_n = m->top_n;
	int m_stalls = m->m_stalls, m_holes = m->m_holes;
	char *buf = m->buf;
	size_t size = m->size;

	memset(m, 0, sizeof(*m));
	m->top_n = top_n;
	m->m_stalls = m_stalls;
	m->m_holes = m_holes;
	m->buf = buf;
	m->size = size;
}

static void on_conn(void *ctx, const struct sum_conn *c)
{
	struct mx_acc *m = ctx;

	rep_totals_add_conn(&m->ended, c);
	m->sent_ended += c->dir[SUM_C2S].data_packets + c->dir[SUM_S2C].data_packets;
	if (c->path.rtt_ns < 0)
		return;
	unsigned k = 0;
	while (k < MX_RTT_BUCKETS && c->path.rtt_ns > mx_rtt_le_ns[k])
		k++;
	m->rtt_n[k]++;
	m->rtt_count++;
	m->rtt_sum_ns += c->path.rtt_ns;
}

/* A finding as it is found: by type, and by class for a view that has
 * classes (the stall classes), as that view counts them (event_class). */
static void on_event(void *ctx, const struct sum_event *e)
{
	struct mx_acc *m = ctx;

	if ((unsigned)e->type >= SUM_EV_TYPE_COUNT)
		return;
	m->events[e->type]++;
	int v = det_view_index_of_event(e->type);
	if (v < 0 || !det_views[v]->nclasses || !det_views[v]->event_class)
		return;
	int cls = det_views[v]->event_class(e);
	if (cls >= 0 && cls < MX_MAX_CLASSES)
		m->classes[v][cls]++;
}

struct sum_sink mx_sink(struct mx_acc *m)
{
	return (struct sum_sink){.conn = on_conn, .event = on_event, .ctx = m};
}

void mx_live_begin(struct mx_acc *m)
{
	memset(&m->live, 0, sizeof(m->live));
	m->sent_live = 0;
	m->nlive = 0;
	m->ntop = 0;
}

/* Its trouble so far: segments lost (retransmissions not proven spurious),
 * stalls and SACK holes. */
static uint64_t trouble(const struct mx_acc *m, const struct sum_conn *c)
{
	struct rep_totals one = {0};
	uint64_t n = sum_lost_segments(&c->dir[SUM_C2S]) + sum_lost_segments(&c->dir[SUM_S2C]);

	det_totals_add_conn(&one.det, c);
	if (m->m_stalls >= 0)
		n += (uint64_t)fo_metric_value((unsigned)m->m_stalls, &one);
	if (m->m_holes >= 0)
		n += (uint64_t)fo_metric_value((unsigned)m->m_holes, &one);
	return n;
}

/* Keep c in the top (most trouble first, then the lower id) if it is. */
static void top_offer(struct mx_acc *m, const struct sum_conn *c, uint64_t t)
{
	unsigned k = m->ntop;

	while (k > 0 && (m->top[k - 1].trouble < t ||
			 (m->top[k - 1].trouble == t && m->top[k - 1].id > c->id)))
		k--;
	if (k >= m->top_n)
		return;
	unsigned last = m->ntop < m->top_n ? m->ntop : m->top_n - 1;
	memmove(&m->top[k + 1], &m->top[k], (last - k) * sizeof(m->top[0]));
	if (m->ntop < m->top_n)
		m->ntop++;
	struct mx_top *e = &m->top[k];
	e->id = c->id;
	e->trouble = t;
	rep_format_endpoint(&c->client, c->client_port, e->client, sizeof(e->client));
	rep_format_endpoint(&c->server, c->server_port, e->server, sizeof(e->server));
}

void mx_live_conn(void *ctx, const struct sum_conn *c)
{
	struct mx_acc *m = ctx;

	m->nlive++;
	rep_totals_add_conn(&m->live, c);
	m->sent_live += c->dir[SUM_C2S].data_packets + c->dir[SUM_S2C].data_packets;
	if (!m->top_n)
		return;
	uint64_t t = trouble(m, c);
	if (t)
		top_offer(m, c, t);
}

void mx_set_counters(struct mx_acc *m, const struct eng_counters *eng,
		     const struct flow_counters *flows)
{
	m->eng = *eng;
	m->flows = *flows;
}

void mx_set_capture(struct mx_acc *m, const struct mx_capture *cap)
{
	m->cap = *cap;
}

const char *mx_content_type(bool openmetrics)
{
	return openmetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
			   : "text/plain; version=0.0.4; charset=utf-8";
}

/* ---- the text ---- */

__attribute__((format(printf, 2, 3))) static void out(struct mx_acc *m, const char *fmt, ...)
{
	va_list ap;

	for (;;) {
		size_t room = m->size - m->len;
		va_start(ap, fmt);
		int n = vsnprintf(m->buf ? m->buf + m->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			m->failed = true;
			return;
		}
		if ((size_t)n < room) {
			m->len += (size_t)n;
			return;
		}
		if (GROW(m->buf, m->size, m->len + (size_t)n + 1, 16384) < 0) {
			m->failed = true;
			return;
		}
	}
}

enum mx_type {
	MX_COUNTER = 0,
	MX_GAUGE,
	MX_HISTOGRAM,
	MX_TYPE_COUNT,
};

/*
 * A metric family's descriptors. OpenMetrics 1.0 names a counter's family
 * without its _total suffix (the sample has it) and says the unit in a
 * UNIT line, which the family name must end with; the Prometheus text
 * format names the sample in HELP and TYPE and has no UNIT.
 */
static void family(struct mx_acc *m, bool om, const char *name, enum mx_type type, const char *unit,
		   const char *help)
{
	static const char *const types[MX_TYPE_COUNT] = {"counter", "gauge", "histogram"};
	const char *total = type == MX_COUNTER && !om ? "_total" : "";

	out(m, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, total, help, name, total, types[type]);
	if (om && unit)
		out(m, "# UNIT %s %s\n", name, unit);
}

static void u64(struct mx_acc *m, const char *name, const char *labels, uint64_t v)
{
	out(m, "%s%s%s%s %" PRIu64 "\n", name, labels ? "{" : "", labels ? labels : "",
	    labels ? "}" : "", v);
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static void render_packets(struct mx_acc *m, bool om)
{
	family(m, om, "tcpsift_packets", MX_COUNTER, NULL, "Packets analysed.");
	u64(m, "tcpsift_packets_total", NULL, m->eng.packets);
	family(m, om, "tcpsift_wire_bytes", MX_COUNTER, "bytes",
	       "Bytes of the packets analysed, as on the wire.");
	u64(m, "tcpsift_wire_bytes_total", NULL, m->eng.wire_bytes);
	family(m, om, "tcpsift_malformed_packets", MX_COUNTER, NULL,
	       "Packets rejected by the decoder.");
	u64(m, "tcpsift_malformed_packets_total", NULL, m->eng.malformed_total);
	if (m->cap.known) {
		family(m, om, "tcpsift_capture_drops", MX_COUNTER, NULL,
		       "Packets the capture lost, by where: the kernel's ring, the interface, "
		       "tcpsift's hand-off queue.");
		u64(m, "tcpsift_capture_drops_total", "where=\"kernel\"", m->cap.kernel_drops);
		u64(m, "tcpsift_capture_drops_total", "where=\"interface\"", m->cap.if_drops);
		u64(m, "tcpsift_capture_drops_total", "where=\"tcpsift\"", m->cap.our_drops);
	}
	family(m, om, "tcpsift_tcp_connections", MX_GAUGE, NULL, "TCP connections by state.");
	u64(m, "tcpsift_tcp_connections", "state=\"live\"", m->nlive);
	family(m, om, "tcpsift_tcp_connections_created", MX_COUNTER, NULL,
	       "TCP connections seen since the start.");
	u64(m, "tcpsift_tcp_connections_created_total", NULL, m->flows.created);
}

/* The retransmissions by kind (sum_retrans_kind_name()): a connection's
 * kinds are exclusive, so "other" is what the three named ones leave.
 * Where gRPC's TCP metrics (proposal A80, from Linux's tcp_info) have a
 * name for the same count, it is theirs: packets_sent (tcpi_data_segs_out:
 * data segments, retransmissions included), packets_spurious_retransmitted,
 * connections_created; rate(retransmissions) / rate(packets_sent) is the
 * share lost. */
static void render_retrans(struct mx_acc *m, bool om)
{
	const struct rep_totals *e = &m->ended, *l = &m->live;
	uint64_t n[SUM_RTX_KIND_COUNT] = {
	    [SUM_RTX_FAST] = e->fast + l->fast,
	    [SUM_RTX_RTO] = e->rto + l->rto,
	    [SUM_RTX_TLP] = e->tlp + l->tlp,
	};
	n[SUM_RTX_OTHER] =
	    sub0(e->retrans + l->retrans, n[SUM_RTX_FAST] + n[SUM_RTX_RTO] + n[SUM_RTX_TLP]);
	char lab[48];

	family(m, om, "tcpsift_tcp_retransmissions", MX_COUNTER, NULL,
	       "Retransmitted segments by kind: fast (dup ACKs or SACK recovery), rto, tlp "
	       "(loss probes), other.");
	for (unsigned k = 0; k < SUM_RTX_KIND_COUNT; k++) {
		snprintf(lab, sizeof(lab), "kind=\"%s\"", sum_retrans_kind_name(k));
		u64(m, "tcpsift_tcp_retransmissions_total", lab, n[k]);
	}
	family(m, om, "tcpsift_tcp_packets_sent", MX_COUNTER, NULL,
	       "Data segments sent, retransmissions included.");
	u64(m, "tcpsift_tcp_packets_sent_total", NULL, m->sent_ended + m->sent_live);
	family(m, om, "tcpsift_tcp_packets_spurious_retransmitted", MX_COUNTER, NULL,
	       "Retransmissions of bytes already acknowledged or D-SACKed.");
	u64(m, "tcpsift_tcp_packets_spurious_retransmitted_total", NULL, e->spurious + l->spurious);
	family(m, om, "tcpsift_tcp_duplicate_acks", MX_COUNTER, NULL, "Duplicate ACKs.");
	u64(m, "tcpsift_tcp_duplicate_acks_total", NULL, e->dup_acks + l->dup_acks);
}

/* Findings as their events arrive: the headline ones under their own
 * names, every kind in tcpsift_tcp_findings_total{type} (sum_event_name:
 * the JSON's event types, a fixed set). A view with classes (the stall
 * detector's) gets a family named by its connection key, by class. */
static void render_findings(struct mx_acc *m, bool om)
{
	char name[96], lab[80], help[96];

	for (unsigned v = 0; v < DET_VIEW_COUNT; v++) {
		const struct det_view *dv = det_views[v];
		if (!dv->nclasses || !dv->conn_key || !dv->class_name)
			continue;
		snprintf(name, sizeof(name), "tcpsift_tcp_%s", dv->conn_key);
		snprintf(help, sizeof(help), "Findings of the %s detector by class.", dv->name);
		family(m, om, name, MX_COUNTER, NULL, help);
		snprintf(name, sizeof(name), "tcpsift_tcp_%s_total", dv->conn_key);
		for (unsigned k = 0; k < dv->nclasses && k < MX_MAX_CLASSES; k++) {
			snprintf(lab, sizeof(lab), "class=\"%s\"", dv->class_name(k));
			u64(m, name, lab, m->classes[v][k]);
		}
	}
	family(m, om, "tcpsift_tcp_sack_holes", MX_COUNTER, NULL,
	       "Holes in receivers' SACK scoreboards.");
	u64(m, "tcpsift_tcp_sack_holes_total", NULL, m->events[SUM_EV_SACK_HOLE]);
	family(m, om, "tcpsift_tcp_zero_windows", MX_COUNTER, NULL,
	       "Zero-window episodes: a receiver advertised no room until it reopened.");
	u64(m, "tcpsift_tcp_zero_windows_total", NULL, m->events[SUM_EV_ZERO_WINDOW]);
	family(m, om, "tcpsift_tcp_findings", MX_COUNTER, NULL,
	       "Findings by type, as in analyze --json's events.");
	for (unsigned t = 0; t < SUM_EV_TYPE_COUNT; t++) {
		if (sum_event_is_frame(t))
			continue;
		snprintf(lab, sizeof(lab), "type=\"%s\"", sum_event_name(t));
		u64(m, "tcpsift_tcp_findings_total", lab, m->events[t]);
	}
}

static void render_rtt(struct mx_acc *m, bool om)
{
	char lab[32];
	uint64_t cum = 0;

	family(m, om, "tcpsift_tcp_path_rtt_seconds", MX_HISTOGRAM, "seconds",
	       "Round trip of each ended connection's path, end to end.");
	for (unsigned k = 0; k <= MX_RTT_BUCKETS; k++) {
		cum += m->rtt_n[k];
		snprintf(lab, sizeof(lab), "le=\"%s\"", k < MX_RTT_BUCKETS ? mx_rtt_le[k] : "+Inf");
		u64(m, "tcpsift_tcp_path_rtt_seconds_bucket", lab, cum);
	}
	out(m, "tcpsift_tcp_path_rtt_seconds_sum %" PRId64 ".%09" PRId64 "\n",
	    m->rtt_sum_ns / 1000000000, m->rtt_sum_ns % 1000000000);
	u64(m, "tcpsift_tcp_path_rtt_seconds_count", NULL, m->rtt_count);
}

static void render_top(struct mx_acc *m, bool om)
{
	char lab[192];

	family(m, om, "tcpsift_tcp_connection_trouble", MX_GAUGE, NULL,
	       "Live connections with the most trouble so far (lost segments, stalls, SACK "
	       "holes), the top few only.");
	/* Endpoints are addresses and ports: nothing to escape in a label. */
	for (unsigned k = 0; k < m->ntop; k++) {
		const struct mx_top *t = &m->top[k];
		snprintf(lab, sizeof(lab), "conn=\"%" PRIu64 "\",client=\"%s\",server=\"%s\"",
			 t->id, t->client, t->server);
		u64(m, "tcpsift_tcp_connection_trouble", lab, t->trouble);
	}
}

int mx_render(struct mx_acc *m, bool openmetrics, const char **body, size_t *len)
{
	m->len = 0;
	m->failed = false;
	render_packets(m, openmetrics);
	render_retrans(m, openmetrics);
	render_findings(m, openmetrics);
	render_rtt(m, openmetrics);
	render_top(m, openmetrics);
	if (openmetrics)
		out(m, "# EOF\n");
	if (m->failed)
		return ERR_NOMEM;
	*body = m->buf;
	*len = m->len;
	return 0;
}

/* ---- the server ---- */

struct mx_server {
	struct mx_acc *acc;
	struct httpd *http;
	void (*refresh)(void *ctx, struct mx_acc *m);
	void *ctx;
};

int mx_server_new(const char *addr, unsigned top_n, struct mx_server **out, char *errbuf,
		  size_t errlen)
{
	struct mx_server *s = calloc(1, sizeof(*s));
	int rc = ERR_NOMEM;

	*out = NULL;
	if (!s) {
		snprintf(errbuf, errlen, "out of memory");
		return ERR_NOMEM;
	}
	s->acc = mx_new(top_n, errbuf, errlen);
	if (!s->acc)
		goto err;
	rc = httpd_new(addr, "/metrics", &s->http, errbuf, errlen);
	if (rc < 0)
		goto err;
	*out = s;
	return 0;
err:
	mx_server_free(s);
	return rc;
}

struct mx_acc *mx_server_acc(struct mx_server *s)
{
	return s->acc;
}

const char *mx_server_addr(const struct mx_server *s)
{
	return httpd_addr(s->http);
}

static int serve(void *ctx, const struct httpd_req *req, const char **body, size_t *len,
		 const char **ctype)
{
	struct mx_server *s = ctx;

	s->refresh(s->ctx, s->acc);
	*ctype = mx_content_type(req->openmetrics);
	return mx_render(s->acc, req->openmetrics, body, len);
}

int mx_server_poll(struct mx_server *s, void (*refresh)(void *ctx, struct mx_acc *m), void *ctx)
{
	s->refresh = refresh;
	s->ctx = ctx;
	return httpd_poll(s->http, serve, s);
}

void mx_server_free(struct mx_server *s)
{
	if (!s)
		return;
	httpd_free(s->http);
	mx_free(s->acc);
	free(s);
}
