/* test_jsonin.c - the report reader: what the writer wrote comes back, bad input is an error. */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/dirjson.h"
#include "analyze/readback/jsonin.h"
#include "analyze/report/jsonout.h"
#include "analyze/report/report.h"
#include "tests/unit/unit.h"

/*
 * A connection filled with distinct values in every member the JSON
 * carries goes through rep_jw_conn() (both layouts), ji_quote_reals(),
 * Jansson and ji_conn(), and is compared member by member: the direction
 * statistics through dirjson.h's list (what the writer writes is what is
 * compared), the rest by name, the detectors' parts by writing the
 * connection again (the same bytes). Events likewise. Then bad input:
 * truncated, wrong types, missing members, out-of-range values: an error
 * with a reason, never a crash (the sanitizer build runs this too).
 */

static struct ji_pool *pool;

/* The writer's text of c (pretty at depth 0 as --json, or compact with a
 * kind as --ndjson); the caller frees it. */
static char *write_conn(const struct sum_conn *c, bool ndjson)
{
	struct jo_writer w;
	char *s;

	jo_w_init(&w, NULL, 0, ndjson ? 0 : 1);
	rep_jw_conn(&w, c, ndjson ? "connection" : NULL);
	jo_w_raw(&w, "");
	s = strndup(w.b.p ? w.b.p : "", w.b.len);
	jo_w_free(&w);
	return s;
}

static char *write_event(const struct sum_event *e)
{
	struct jo_writer w;
	char *s;

	jo_w_init(&w, NULL, 0, 1);
	rep_jw_event(&w, e, NULL);
	s = strndup(w.b.p ? w.b.p : "", w.b.len);
	jo_w_free(&w);
	return s;
}

/* Parse text as the reader does (reals quoted first). */
static json_t *load(const char *text)
{
	size_t n;
	char *q = ji_quote_reals(text, strlen(text), &n);
	json_t *v = q ? json_loadb(q, n, 0, NULL) : NULL;
	free(q);
	return v;
}

static int read_conn(const char *text, struct sum_conn *c, char *why, size_t len)
{
	struct ji_ctx x = {.pool = pool};
	json_t *o = load(text);
	int rc;

	if (!o) {
		snprintf(why, len, "not JSON");
		return -1;
	}
	rc = ji_conn(&x, o, c);
	snprintf(why, len, "%s", x.msg);
	json_decref(o);
	return rc;
}

static void fill_dir(struct sum_dir *d, uint64_t base)
{
	uint64_t *p = &d->packets;

	/* Every uint64_t counter from packets to max_in_flight: distinct. */
	for (uint64_t *q = p; q <= &d->max_in_flight; q++)
		*q = base + (uint64_t)(q - p) * 7 + 1;
	d->mss = 1400 + (uint32_t)base;
	d->wscale = 7;
	d->min_payload = 10 + (uint32_t)base;
	d->max_payload = 1000 + (uint32_t)base;
	d->min_window = 500 + base;
	d->max_window = 65535 + base;
	d->rtt.n = 4;
	d->rtt.min_ns = 1000;
	d->rtt.max_ns = 9000;
	d->rtt.sum_ns = 4 * 5001; /* a multiple of n: the average is exact */
	d->rtt_ts.n = 3;
	d->rtt_ts.min_ns = 20;
	d->rtt_ts.max_ns = 300000001;
	d->rtt_ts.sum_ns = 3 * 123456789;
	d->first_ts = 1796033364947948123 + (int64_t)base;
	d->last_ts = d->first_ts + 5000000001;
	d->isn = 0xfffffff0u - (uint32_t)base;
	d->isn_known = true;
}

static void fill_conn(struct sum_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->id = 42;
	c->client.family = 6;
	for (int k = 0; k < 16; k++)
		c->client.a[k] = (uint8_t)(0x20 + k);
	c->server.family = 6;
	c->server.a[15] = 1;
	c->client_port = 54321;
	c->server_port = 443;
	c->roles_from_syn = true;
	c->first_ts = 1796033364947948123;
	c->last_ts = 1796033399000000001;
	c->first_input = 1;
	c->last_input = 2;
	c->vantage = 3;
	c->first_frame = 17;
	c->last_frame = 123456789012ull;
	c->state = SUM_STATE_HALF_CLOSED;
	c->wscale_known = true;
	c->sack_permitted = true;
	c->timestamps = true;
	c->handshake_rtt_ns = 850001;
	c->path.rtt_ns = 20000123;
	c->path.loop_ns[SUM_C2S] = 19950001;
	c->path.loop_ns[SUM_S2C] = 50122;
	c->queue_mask = (1ull << 0) | (1ull << 5) | (1ull << 63);
	c->queues_known = true;
	c->evicted = true;
	c->live_from = 5; /* a shard's: in the table from packet 5 to the end */
	c->live_until = UINT64_MAX;
	fill_dir(&c->dir[SUM_C2S], 0);
	fill_dir(&c->dir[SUM_S2C], 1000);
	/* Detectors: a few members each; the rewrite compares them all. */
	c->det.stall.count = 3;
	c->det.stall.time_ns = 600000007;
	c->det.stall.by_class[STALL_RTO] = 2;
	c->det.stall.hist[STALL_HIST_TIMER200] = 2;
	c->det.stall.max_ns = 400000001;
	c->det.stall.ack_delay_n = 2;
	c->det.stall.ack_delay_min_ns = 40000000;
	c->det.stall.ack_delay_max_ns = 40000002;
	c->det.stall.ack_delay_sum_ns = 80000002;
	c->det.sack.holes = 5;
	c->det.sack.hole_bytes = 7240;
	c->det.sack.recovery_time_ns = 123;
	c->det.reorder.events = 9;
	c->det.reorder.queues_known = true;
	c->det.reorder.queue_switches = 4;
	c->det.mtu.implied_mtu[1] = 65535;
	c->det.mtu.dir = 1;
	c->det.mtu.collapse = true;
	c->det.mtu.collapse_by = 1; /* stalls */
	c->det.mtu.stalls = 3;
	c->det.mtu.stall_ns = 600000007;
	c->det.mtu.misaligned_dir[1] = true;
}

/* The reading side of each kind of dirjson.h, compared. */
#define DJ_U64_C(m)	 CHECK_EQ_U(b->m, a->m);
#define DJ_BY_C(m)	 CHECK(memcmp(b->m, a->m, sizeof(a->m)) == 0);
#define DJ_RTT_C(m)	 CHECK(memcmp(&b->m, &a->m, sizeof(a->m)) == 0);
#define DJ_TS_C(m)	 CHECK(b->m == a->m);
#define DJ_U64_PKT_C(m)	 CHECK_EQ_U(b->m, a->m);
#define DJ_U32_DATA_C(m) CHECK_EQ_U(b->m, a->m);
#define DJ_U32_NZ_C(m)	 CHECK_EQ_U(b->m, a->m);
#define DJ_ISN_C(m)	 CHECK(b->m == a->m && b->isn_known == a->isn_known);
#define DJ_WSCALE_C(m)	 CHECK(b->m == a->m);
#define DJ_AVG_PAYLOAD_C(m)
#define DJ_GOODPUT_C(m)
#define DJ_THROUGHPUT_C(m)
#define DJ_SEG_PER_ACK_C(m)
#define DJ_LOSS_RATE_C(m)
#define DJ_VANTAGE_C(m)
#define DJ_C(key, kind, m) kind##_C(m)

static void compare_dir(const struct sum_dir *a, const struct sum_dir *b)
{
	SUM_DIR_JSON(DJ_C)
}

static void test_conn_round_trip(void)
{
	struct sum_conn a, b;
	char why[200];

	fill_conn(&a);
	for (int nd = 0; nd < 2; nd++) {
		char *t1 = write_conn(&a, nd);
		CHECK(read_conn(t1, &b, why, sizeof(why)) == 0);
		CHECK_EQ_U(b.id, a.id);
		CHECK(memcmp(&b.client, &a.client, sizeof(a.client)) == 0);
		CHECK(memcmp(&b.server, &a.server, sizeof(a.server)) == 0);
		CHECK_EQ_U(b.client_port, a.client_port);
		CHECK_EQ_U(b.server_port, a.server_port);
		CHECK(b.roles_from_syn == a.roles_from_syn);
		CHECK(b.first_ts == a.first_ts && b.last_ts == a.last_ts);
		CHECK_EQ_U(b.first_input, a.first_input);
		CHECK_EQ_U(b.last_input, a.last_input);
		CHECK_EQ_U(b.vantage, a.vantage);
		CHECK_EQ_U(b.first_frame, a.first_frame);
		CHECK_EQ_U(b.last_frame, a.last_frame);
		CHECK(b.state == a.state);
		CHECK(b.wscale_known && b.sack_permitted && b.timestamps && b.evicted);
		CHECK(b.handshake_rtt_ns == a.handshake_rtt_ns);
		CHECK(memcmp(&b.path, &a.path, sizeof(a.path)) == 0);
		CHECK_EQ_U(b.queue_mask, a.queue_mask);
		CHECK_EQ_U(b.live_from, 5);
		CHECK(b.live_until == UINT64_MAX);
		compare_dir(&a.dir[0], &b.dir[0]);
		compare_dir(&a.dir[1], &b.dir[1]);
		CHECK_EQ_U(b.det.stall.count, 3);
		CHECK(b.det.stall.ack_delay_sum_ns == 80000002);
		CHECK_EQ_U(b.det.sack.holes, 5);
		CHECK_EQ_U(b.det.reorder.queue_switches, 4);
		CHECK_EQ_U(b.det.mtu.stalls, 3);
		/* Everything written comes back: the same bytes again. */
		char *t2 = write_conn(&b, nd);
		CHECK_STR(t2, t1);
		free(t1);
		free(t2);
	}
	/* Unknowns stay unknown: no packets, no RTT, no ISN, no window scale. */
	memset(&a.dir[1], 0, sizeof(a.dir[1]));
	a.dir[1].wscale = -1;
	a.handshake_rtt_ns = -1;
	a.wscale_known = false;
	a.path.loop_ns[SUM_S2C] = -1;
	a.path.rtt_ns = -1;
	char *t1 = write_conn(&a, false);
	CHECK(read_conn(t1, &b, why, sizeof(why)) == 0);
	CHECK(!b.dir[1].isn_known && b.dir[1].wscale == -1 && b.dir[1].rtt.n == 0);
	CHECK(b.handshake_rtt_ns == -1 && !b.wscale_known);
	CHECK(b.path.rtt_ns == -1 && b.path.loop_ns[SUM_S2C] == -1);
	CHECK(b.path.loop_ns[SUM_C2S] == a.path.loop_ns[SUM_C2S]);
	char *t2 = write_conn(&b, false);
	CHECK_STR(t2, t1);
	free(t1);
	free(t2);
	/* A span that ended, and none (a one-pass report's): no "live". */
	a.live_until = 77;
	t1 = write_conn(&a, true);
	CHECK(strstr(t1, "\"live\":[5,77]") != NULL);
	CHECK(read_conn(t1, &b, why, sizeof(why)) == 0);
	CHECK(b.live_from == 5 && b.live_until == 77);
	free(t1);
	a.live_from = 0;
	t1 = write_conn(&a, true);
	CHECK(strstr(t1, "\"live\"") == NULL);
	CHECK(read_conn(t1, &b, why, sizeof(why)) == 0);
	CHECK(b.live_from == 0);
	t2 = write_conn(&b, true);
	CHECK_STR(t2, t1);
	free(t1);
	free(t2);
}

/* A report from before the path's members (loop_rtt_s, path_rtt_s) still
 * reads: its path is unknown. */
/* Cut the member "key" (its value an object without objects in it, or a
 * scalar; not the last member) out of a written connection. */
static void cut_member(char *t, const char *key)
{
	char name[64];

	snprintf(name, sizeof(name), "\"%s\":", key);
	char *p = strstr(t, name);
	if (!p)
		return;
	char *v = p + strlen(name);
	char *q = *v == '{' ? strchr(v, '}') : v;
	q = q ? strchr(q, ',') : NULL;
	if (q)
		memmove(p, q + 1, strlen(q + 1) + 1);
}

static void test_conn_without_path(void)
{
	struct sum_conn a, b;
	char why[200];

	fill_conn(&a);
	char *t = write_conn(&a, true); /* compact: "key":value */
	cut_member(t, "loop_rtt_s");
	cut_member(t, "path_rtt_s");
	CHECK(strstr(t, "loop_rtt") == NULL && strstr(t, "path_rtt") == NULL);
	CHECK(strstr(t, "\"mss\":{") != NULL); /* the members around them stay */
	CHECK(read_conn(t, &b, why, sizeof(why)) == 0);
	CHECK(b.path.rtt_ns == -1 && b.path.loop_ns[0] == -1 && b.path.loop_ns[1] == -1);
	CHECK_EQ_U(b.id, a.id);
	free(t);
}

static void test_event_round_trip(void)
{
	struct sum_event es[5], b;
	struct ji_ctx x = {.pool = pool};

	memset(es, 0, sizeof(es));
	for (int k = 0; k < 5; k++) {
		es[k].conn = 7;
		es[k].dir = 1;
		es[k].ts = 1796033364947948123 + k;
		es[k].duration_ns = k ? 200000001 : -1;
		es[k].input = 1;
		es[k].frame_first = 10;
		es[k].frame_last = 20;
		es[k].bytes = 1448;
		es[k].rel_seq = 99;
		es[k].queue_switch = -1;
	}
	es[0].type = SUM_EV_RETRANS;
	es[0].u.frame.kind = SUM_RTX_TLP;
	es[0].u.frame.spurious = true;
	es[0].frame_last = 10;
	es[1].type = SUM_EV_CAPTURE_LOSS;
	es[1].segments = 3;
	es[2].type = SUM_EV_STALL;
	es[2].u.stall.cls = STALL_DELAYED_ACK;
	es[2].u.stall.reason = "the receiver held its ACK";
	es[2].u.stall.evidence = "a pure ACK after 40 ms";
	es[2].u.stall.ack_delay_ns = 40000001;
	es[3].type = SUM_EV_REORDER;
	es[3].by = SUM_BY_TSVAL;
	es[3].extent = 2;
	es[3].queue_switch = 1;
	es[4].type = SUM_EV_OUT_OF_ORDER;
	es[4].by = SUM_BY_IPID;
	es[4].extent = 5;
	es[4].frame_last = 10;
	for (int k = 0; k < 5; k++) {
		char *t1 = write_event(&es[k]);
		json_t *o = load(t1);
		CHECK(o && ji_event(&x, o, &b) == 0);
		CHECK(b.type == es[k].type && b.conn == 7 && b.ts == es[k].ts);
		CHECK(b.duration_ns == es[k].duration_ns);
		char *t2 = write_event(&b);
		CHECK_STR(t2, t1);
		free(t1);
		free(t2);
		json_decref(o);
	}
	/* Interned: the same reason, the same pointer (the text groups by it). */
	char *t = write_event(&es[2]);
	json_t *o = load(t);
	struct sum_event c;
	CHECK(ji_event(&x, o, &b) == 0 && ji_event(&x, o, &c) == 0);
	CHECK(b.u.stall.reason == c.u.stall.reason);
	json_decref(o);
	free(t);
}

/* text with the first "from" replaced by "to": a hand-made bad input. */
static char *patch(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t n = strlen(text) + strlen(to) + 1;
	char *s = malloc(n);

	if (!at) {
		snprintf(s, n, "%s", text);
		return s;
	}
	snprintf(s, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return s;
}

static void test_bad_conns(void)
{
	struct sum_conn a, b;
	char why[200];
	static const char *const bad[][2] = {
	    {"\"id\":42", "\"id\":\"42\""},		      /* wrong type */
	    {"\"id\":42,", ""},				      /* missing */
	    {"\"id\":42", "\"id\":0"},			      /* no such id */
	    {"\"state\":\"half_closed\"", "\"state\":\"x\""}, /* not a name */
	    {"\"client\":\"", "\"client\":\"::1]"},	      /* not an endpoint */
	    {"\"queues\":[0,5,63]", "\"queues\":[64]"},	      /* no such queue */
	    {"\"vantage\":3", "\"vantage\":65536"},	      /* beyond 16 bits */
	    {"\"vantage\":3", "\"vantage\":-1"},
	    {"\"frames\":[17,", "\"frames\":[17,1,"},			       /* not a pair */
	    {"\"last_ts\":1796033399.000000001", "\"last_ts\":1.0000000001"},  /* below ns */
	    {"\"last_ts\":1796033399.000000001", "\"last_ts\":-1.5"},	       /* negative */
	    {"\"last_ts\":1796033399.000000001", "\"last_ts\":99999999999.0"}, /* beyond int64 */
	    {"\"samples\":4", "\"samples\":0"},				       /* rtt */
	    {"\"avg_s\":0.000005001", "\"avg_s\":9223372036.0"},	       /* overflow */
	    {"\"stalls\":{", "\"stalls\":[{"},				       /* a detector */
	    {"\"mtu_findings\":{", "\"mtu_findingz\":{"},
	    {"\"live\":[5,null]", "\"live\":[0,null]"}, /* packets count from 1 */
	    {"\"live\":[5,null]", "\"live\":[5,4]"},	/* left before it came */
	    {"\"live\":[5,null]", "\"live\":[5]"},	/* not a pair */
	    {"\"live\":[5,null]", "\"live\":{}"},
	};

	fill_conn(&a);
	char *good = write_conn(&a, true);
	CHECK(read_conn(good, &b, why, sizeof(why)) == 0);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		char *t = patch(good, bad[k][0], bad[k][1]);
		CHECK(strcmp(t, good) != 0); /* the patch applied */
		int rc = read_conn(t, &b, why, sizeof(why));
		CHECK(rc < 0);
		CHECK(rc == 0 || why[0]);
		if (rc == 0)
			fprintf(stderr, "accepted: %s -> %s\n", bad[k][0], bad[k][1]);
		free(t);
	}
	/* Every truncation of the line: never accepted, never a crash. */
	size_t n = strlen(good);
	unsigned refused = 0;
	for (size_t cut = 0; cut < n; cut++) {
		char *t = strndup(good, cut);
		refused += read_conn(t, &b, why, sizeof(why)) < 0;
		free(t);
	}
	CHECK_EQ_U(refused, n);
	/* Not an object at all. */
	CHECK(read_conn("[1,2]", &b, why, sizeof(why)) < 0);
	CHECK(read_conn("7", &b, why, sizeof(why)) < 0);
	free(good);
}

static void test_quote_reals(void)
{
	static const char in[] = "{\"a\":1.5,\"b\":\"x 2.5 \\\"3.0\",\"c\":[-0.25,7,1e3],\"d\":-3}";
	size_t n;
	char *q = ji_quote_reals(in, strlen(in), &n);
	CHECK_STR(q,
		  "{\"a\":\"1.5\",\"b\":\"x 2.5 \\\"3.0\",\"c\":[\"-0.25\",7,\"1e3\"],\"d\":-3}");
	CHECK_EQ_U(n, strlen(q));
	free(q);
}

int main(void)
{
	pool = ji_pool_new();
	test_quote_reals();
	test_conn_round_trip();
	test_conn_without_path();
	test_event_round_trip();
	test_bad_conns();
	ji_pool_free(pool);
	return unit_done("jsonin");
}
