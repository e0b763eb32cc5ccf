/* test_metrics.c - --metrics' exposition text from fixed totals, against golden files. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/metrics.h"
#include "tests/unit/unit.h"

/*
 * The golden files hold the text a fixed run renders, Prometheus text
 * format and OpenMetrics. TCPSIFT_UPDATE_GOLDEN=1 writes them again
 * instead (a reviewer reads the diff). Run from the source tree's top,
 * as tests/run_unit.sh does.
 */
#define GOLDEN_PROM "tests/unit/golden/metrics.prom"
#define GOLDEN_OM   "tests/unit/golden/metrics.om"

static void addr4(struct dec_addr *a, uint8_t last)
{
	memset(a, 0, sizeof(*a));
	a->family = 4;
	a->a[0] = 10;
	a->a[3] = last;
}

static void conn(struct sum_conn *c, uint64_t id, uint16_t cport)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	addr4(&c->client, 2);
	addr4(&c->server, 1);
	c->client_port = cport;
	c->server_port = 5001;
	c->state = SUM_STATE_CLOSED;
	sum_path_unknown(&c->path);
}

/* Three connections end (two with a path RTT), four findings arrive (a
 * timer-like pause among them: not a stall), three are live. */
static void feed(struct mx_acc *m)
{
	struct sum_sink s = mx_sink(m);
	struct sum_conn c;

	conn(&c, 1, 40001);
	c.dir[SUM_S2C].retrans = 6;
	c.dir[SUM_S2C].fast_retrans = 3;
	c.dir[SUM_S2C].rto_retrans = 1;
	c.dir[SUM_S2C].tlp_retrans = 1;
	c.dir[SUM_S2C].spurious_retrans = 1;
	c.dir[SUM_C2S].dup_acks = 9;
	c.dir[SUM_S2C].data_packets = 100;
	c.path.rtt_ns = 3000000; /* 3 ms */
	s.conn(s.ctx, &c);
	conn(&c, 2, 40002);
	c.path.rtt_ns = 150000; /* 150 us */
	s.conn(s.ctx, &c);
	conn(&c, 3, 40003);
	c.path.rtt_ns = 2500000000; /* above every bucket */
	s.conn(s.ctx, &c);

	struct sum_event e = {.type = SUM_EV_STALL, .conn = 1, .dir = SUM_S2C};
	e.u.stall.cls = STALL_DELAYED_ACK;
	s.event(s.ctx, &e);
	e.u.stall.timer_like = true;
	s.event(s.ctx, &e);
	s.event(s.ctx, &(struct sum_event){.type = SUM_EV_SACK_HOLE, .conn = 1});
	s.event(s.ctx, &(struct sum_event){.type = SUM_EV_ZERO_WINDOW, .conn = 2});

	mx_live_begin(m);
	conn(&c, 4, 40004);
	c.state = SUM_STATE_OPEN;
	c.dir[SUM_S2C].retrans = c.dir[SUM_S2C].fast_retrans = 2;
	mx_live_conn(m, &c);
	conn(&c, 5, 40005);
	c.state = SUM_STATE_OPEN;
	c.client.family = c.server.family = 6;
	c.client.a[0] = c.server.a[0] = 0xfd;
	c.client.a[3] = c.server.a[3] = 0;
	c.client.a[15] = 2;
	c.server.a[15] = 1;
	c.dir[SUM_S2C].retrans = c.dir[SUM_S2C].rto_retrans = 7;
	mx_live_conn(m, &c);
	conn(&c, 6, 40006); /* one lost segment and two stalls: 3, more than 4's 2 */
	c.state = SUM_STATE_OPEN;
	c.dir[SUM_C2S].retrans = 1;
	c.det.stall.count = 2;
	mx_live_conn(m, &c);
	conn(&c, 7, 40007); /* no trouble: never in the gauge */
	c.state = SUM_STATE_OPEN;
	mx_live_conn(m, &c);

	struct eng_counters eng = {.packets = 1000, .wire_bytes = 1234567, .malformed_total = 2};
	struct flow_counters flows = {.created = 7, .live = 4};
	mx_set_counters(m, &eng, &flows);
	mx_set_capture(m, &(struct mx_capture){.known = true, 1, 2, 3});
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0) {
		long n = ftell(f);
		if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
			*len = fread(buf, 1, (size_t)n, f);
			buf[*len] = '\0';
		}
	}
	fclose(f);
	return buf;
}

static void golden(const char *path, const char *body, size_t len)
{
	if (getenv("TCPSIFT_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "wb");
		CHECK(f && fwrite(body, 1, len, f) == len);
		if (f)
			fclose(f);
		return;
	}
	size_t glen = 0;
	char *g = slurp(path, &glen);
	CHECK(g != NULL);
	if (!g)
		return;
	CHECK_EQ_U(len, glen);
	if (len != glen || memcmp(body, g, len) != 0) {
		size_t k = 0;
		while (k < len && k < glen && body[k] == g[k])
			k++;
		fprintf(stderr, "%s differs at byte %zu: got \"%.60s\"\n", path, k, body + k);
		CHECK(0);
	}
	free(g);
}

/* promtool (Prometheus's own linter) on the text format, when installed:
 * it parses the Prometheus text format only. */
static void promtool(const char *body, size_t len)
{
	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		fprintf(stderr, "test_metrics: no promtool, text not linted\n");
		return;
	}
	FILE *p = popen("promtool check metrics >&2", "w");
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_EQ_U(fwrite(body, 1, len, p), len);
	CHECK_EQ_U(pclose(p), 0);
}

static void test_render(void)
{
	char err[128];
	struct mx_acc *m = mx_new(2, err, sizeof(err));
	const char *body = NULL;
	size_t len = 0;

	CHECK(m != NULL);
	if (!m)
		return;
	feed(m);
	CHECK_EQ_U(mx_render(m, false, &body, &len), 0);
	CHECK(len > 0 && strlen(body) == len);
	CHECK(strstr(body, "# EOF") == NULL);
	CHECK(strstr(body, "# TYPE tcpsift_packets_total counter\n") != NULL);
	golden(GOLDEN_PROM, body, len);
	promtool(body, len);

	/* OpenMetrics: family names without _total, units, # EOF last. */
	CHECK_EQ_U(mx_render(m, true, &body, &len), 0);
	CHECK(len > 6 && strcmp(body + len - 6, "# EOF\n") == 0);
	CHECK(strstr(body, "# TYPE tcpsift_packets counter\n") != NULL);
	CHECK(strstr(body, "# UNIT tcpsift_tcp_path_rtt_seconds seconds\n") != NULL);
	golden(GOLDEN_OM, body, len);
	CHECK_STR(mx_content_type(true),
		  "application/openmetrics-text; version=1.0.0; charset=utf-8");
	CHECK_STR(mx_content_type(false), "text/plain; version=0.0.4; charset=utf-8");
	mx_free(m);
}

/* A scrape forgets the last one's live connections; what ended stays. */
static void test_live_pass(void)
{
	char err[128];
	struct mx_acc *m = mx_new(MX_TOP_MAX + 5, err, sizeof(err));
	const char *body;
	size_t len;

	CHECK(m != NULL);
	if (!m)
		return;
	feed(m);
	mx_live_begin(m);
	CHECK_EQ_U(mx_render(m, false, &body, &len), 0);
	CHECK(strstr(body, "tcpsift_tcp_connections{state=\"live\"} 0\n") != NULL);
	CHECK(strstr(body, "tcpsift_tcp_retransmissions_total{kind=\"fast\"} 3\n") != NULL);
	CHECK(strstr(body, "tcpsift_tcp_connection_trouble{") == NULL);
	/* Many troubled connections: the gauge keeps the cap, most trouble first. */
	for (uint64_t id = 10; id < 10 + 3 * MX_TOP_MAX; id++) {
		struct sum_conn c;
		conn(&c, id, (uint16_t)(40000 + id));
		c.dir[SUM_S2C].retrans = id;
		mx_live_conn(m, &c);
	}
	CHECK_EQ_U(mx_render(m, false, &body, &len), 0);
	size_t n = 0;
	for (const char *p = body; (p = strstr(p, "\ntcpsift_tcp_connection_trouble{")); p++)
		n++;
	CHECK_EQ_U(n, MX_TOP_MAX);
	char first[96];
	snprintf(first, sizeof(first), "tcpsift_tcp_connection_trouble{conn=\"%u\",",
		 10 + 3 * MX_TOP_MAX - 1);
	CHECK(strstr(body, first) != NULL);
	mx_free(m);
}

int main(void)
{
	test_render();
	test_live_pass();
	return unit_done("test_metrics");
}
