/* test_diff.c - tcpsift diff's comparison (analyze/diff/diff.h): pairing, totals, --fail-on. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "analyze/report/failon.h"
#include "tests/unit/unit.h"

/* A connection 10.0.0.1:cport -> 10.0.0.2:80 with retr retransmissions. */
static struct sum_conn conn(uint64_t id, uint16_t cport, int64_t first, uint64_t retr)
{
	struct sum_conn c;

	memset(&c, 0, sizeof(c));
	c.id = id;
	c.client = (struct dec_addr){.family = 4, .a = {10, 0, 0, 1}};
	c.server = (struct dec_addr){.family = 4, .a = {10, 0, 0, 2}};
	c.client_port = cport;
	c.server_port = 80;
	c.first_ts = first;
	c.last_ts = first + 1000000000; /* 1 s */
	c.dir[SUM_S2C].retrans = retr;
	c.dir[SUM_S2C].fast_retrans = retr;
	c.dir[SUM_S2C].payload_bytes = 125000; /* 1 Mb/s over its second */
	return c;
}

static int metric(const struct diff *d, const char *name)
{
	return diff_metric_find(d, name, strlen(name));
}

static struct sum_event stall(uint64_t conn_id, int64_t dur_ns, uint8_t cls, bool timer_like)
{
	struct sum_event e;

	memset(&e, 0, sizeof(e));
	e.type = SUM_EV_STALL;
	e.conn = conn_id;
	e.duration_ns = dur_ns;
	e.u.stall.cls = cls;
	e.u.stall.timer_like = timer_like;
	return e;
}

/* One 4-tuple used twice on each side pairs first with first; a third
 * connection only in B; totals as the sums; events before their
 * connection (NDJSON) still count. */
static void test_tuple_pairs_in_order(void)
{
	char err[200];
	struct diff *d = diff_new(DIFF_MATCH_TUPLE, err, sizeof(err));
	struct sum_conn a1 = conn(1, 40000, 1000, 0), a2 = conn(2, 40000, 5000000000, 2);
	struct sum_conn b1 = conn(1, 40000, 1000, 0), b2 = conn(2, 40001, 2000, 0),
			b3 = conn(3, 40000, 6000000000, 9);
	struct sum_event ev = stall(3, 40000000, STALL_DELAYED_ACK, false);
	struct sum_event pause = stall(3, 200000000, STALL_SENDER_IDLE, true);

	CHECK(d != NULL);
	CHECK(diff_add_conn(d, 0, &a1) == 0 && diff_add_conn(d, 0, &a2) == 0);
	CHECK(diff_add_event(d, 1, &ev) == 0 && diff_add_event(d, 1, &pause) == 0);
	CHECK(diff_add_conn(d, 1, &b1) == 0 && diff_add_conn(d, 1, &b2) == 0 &&
	      diff_add_conn(d, 1, &b3) == 0);
	diff_set_run(d, 0, &(struct diff_run){.first_ts = 1000, .last_ts = 6000001000});
	diff_set_run(d, 1, &(struct diff_run){.first_ts = 1000, .last_ts = 7000000000});
	CHECK(diff_finish(d) == 0);

	CHECK_EQ_U(diff_npairs(d), 2);
	CHECK_EQ_U(diff_pair_at(d, 0)->a->id, 1);
	CHECK_EQ_U(diff_pair_at(d, 0)->b->id, 1);
	CHECK_EQ_U(diff_pair_at(d, 1)->a->id, 2);
	CHECK_EQ_U(diff_pair_at(d, 1)->b->id, 3); /* the second use of 40000 in B */
	CHECK_EQ_U(diff_nonly(d, 0), 0);
	CHECK_EQ_U(diff_nonly(d, 1), 1);
	CHECK_EQ_U(diff_only_at(d, 1, 0)->id, 2);

	int retr = metric(d, "retransmissions"), conns = metric(d, "connections");
	int da = metric(d, "stall_delayed_ack"), dt = metric(d, "stall_time_delayed_ack");
	int idle = metric(d, "stall_sender_idle"), tput = metric(d, "throughput");
	CHECK(retr >= 0 && conns >= 0 && da >= 0 && dt >= 0 && idle >= 0 && tput >= 0);
	CHECK(diff_totals(d, 0)[retr] == 2 && diff_totals(d, 1)[retr] == 9);
	CHECK(diff_totals(d, 0)[conns] == 2 && diff_totals(d, 1)[conns] == 3);
	CHECK(diff_totals(d, 1)[da] == 1 && fabs(diff_totals(d, 1)[dt] - 0.04) < 1e-12);
	CHECK(diff_totals(d, 1)[idle] == 0); /* a timer-like pause is not a stall */
	CHECK(diff_pair_at(d, 1)->b->v[da] == 1 && diff_pair_at(d, 1)->a->v[da] == 0);
	CHECK(fabs(diff_pair_at(d, 0)->a->v[tput] - 1e6) < 1e-6);
	CHECK(!diff_changed(diff_pair_at(d, 0)->a->v[retr], diff_pair_at(d, 0)->b->v[retr]));
	CHECK(diff_changed(diff_pair_at(d, 1)->a->v[retr], diff_pair_at(d, 1)->b->v[retr]));
	diff_free(d);
}

static void test_order(void)
{
	char err[200];
	struct diff *d = diff_new(DIFF_MATCH_ORDER, err, sizeof(err));
	struct sum_conn a = conn(1, 40000, 1000, 0), b = conn(1, 50000, 1000, 0);

	CHECK(diff_add_conn(d, 0, &a) == 0 && diff_add_conn(d, 1, &b) == 0);
	CHECK(diff_finish(d) == 0);
	CHECK_EQ_U(diff_npairs(d), 1);
	CHECK_EQ_U(diff_nonly(d, 0) + diff_nonly(d, 1), 0);
	diff_free(d);
}

/* A connection to 10.0.0.2:sport from cport (conn()'s, another server port). */
static struct sum_conn conn_to(uint64_t id, uint16_t cport, uint16_t sport)
{
	struct sum_conn c = conn(id, cport, (int64_t)id * 1000000000, 0);

	c.server_port = sport;
	return c;
}

/* A's and B's ids of pair k, and how it was matched. */
static bool pair_is(const struct diff *d, size_t k, uint64_t a, uint64_t b, enum diff_match how)
{
	const struct diff_pair *p = k < diff_npairs(d) ? diff_pair_at(d, k) : NULL;
	return p && p->a->id == a && p->b->id == b && p->how == how;
}

/* A: :80 from 40000, 40001, 40002, :81 from 40003; B, a rerun: :80 from
 * 50000, then 40000 again (A#1's 4-tuple), 50001, :81 from 50002, and
 * :82 only in B. */
static struct diff *rerun(enum diff_match how)
{
	char err[200];
	struct diff *d = diff_new(how, err, sizeof(err));
	struct sum_conn a[] = {conn_to(1, 40000, 80), conn_to(2, 40001, 80), conn_to(3, 40002, 80),
			       conn_to(4, 40003, 81)};
	struct sum_conn b[] = {conn_to(1, 50000, 80), conn_to(2, 40000, 80), conn_to(3, 50001, 80),
			       conn_to(4, 50002, 81), conn_to(5, 50003, 82)};

	CHECK(d != NULL);
	for (size_t k = 0; d && k < sizeof(a) / sizeof(a[0]); k++)
		CHECK(diff_add_conn(d, 0, &a[k]) == 0);
	for (size_t k = 0; d && k < sizeof(b) / sizeof(b[0]); k++)
		CHECK(diff_add_conn(d, 1, &b[k]) == 0);
	CHECK(d && diff_finish(d) == 0);
	return d;
}

/* auto: the 4-tuple in both runs pairs first, wherever it comes in B;
 * the rest by server endpoint in first-packet order; tuple, endpoint and
 * order alone as they say. */
static void test_auto(void)
{
	struct diff *d = rerun(DIFF_MATCH_AUTO);

	CHECK_EQ_U(diff_npairs(d), 4);
	CHECK(pair_is(d, 0, 1, 2, DIFF_MATCH_TUPLE));
	CHECK(pair_is(d, 1, 2, 1, DIFF_MATCH_ENDPOINT));
	CHECK(pair_is(d, 2, 3, 3, DIFF_MATCH_ENDPOINT));
	CHECK(pair_is(d, 3, 4, 4, DIFF_MATCH_ENDPOINT));
	CHECK_EQ_U(diff_npairs_by(d, DIFF_MATCH_TUPLE), 1);
	CHECK_EQ_U(diff_npairs_by(d, DIFF_MATCH_ENDPOINT), 3);
	CHECK_EQ_U(diff_nonly(d, 0), 0);
	CHECK(diff_nonly(d, 1) == 1 && diff_only_at(d, 1, 0)->id == 5);
	diff_free(d);

	d = rerun(DIFF_MATCH_TUPLE);
	CHECK(diff_npairs(d) == 1 && pair_is(d, 0, 1, 2, DIFF_MATCH_TUPLE));
	CHECK(diff_nonly(d, 0) == 3 && diff_nonly(d, 1) == 4);
	CHECK(diff_only_at(d, 1, 0)->id == 1 && diff_only_at(d, 1, 1)->id == 3);
	diff_free(d);

	d = rerun(DIFF_MATCH_ENDPOINT);
	CHECK_EQ_U(diff_npairs(d), 4);
	for (unsigned k = 0; k < 4; k++)
		CHECK(pair_is(d, k, k + 1, k + 1, DIFF_MATCH_ENDPOINT));
	diff_free(d);

	d = rerun(DIFF_MATCH_ORDER);
	CHECK(diff_npairs(d) == 4 && pair_is(d, 3, 4, 4, DIFF_MATCH_ORDER));
	CHECK(diff_nonly(d, 1) == 1 && diff_only_at(d, 1, 0)->id == 5);
	diff_free(d);

	CHECK(diff_match_find("auto") == DIFF_MATCH_AUTO &&
	      diff_match_find("order") == DIFF_MATCH_ORDER);
	CHECK(diff_match_find("nope") < 0);
}

/* limited_by: each direction's dominant limit and share, the run's over
 * every direction's time, and the class shares as run-only metrics. */
static void test_limited_by(void)
{
	char err[200];
	struct diff *d = diff_new(DIFF_MATCH_AUTO, err, sizeof(err));
	struct sum_conn a = conn(1, 40000, 1000, 0), b = conn(1, 41000, 1000, 0);

	a.det.limit.d[SUM_S2C].ns[LIMIT_CONGESTION] = 300;
	a.det.limit.d[SUM_S2C].ns[LIMIT_RECEIVER_WINDOW] = 100;
	b.det.limit.d[SUM_S2C].ns[LIMIT_CONGESTION] = 100;
	b.det.limit.d[SUM_S2C].ns[LIMIT_RECEIVER_WINDOW] = 300;
	b.det.limit.d[SUM_C2S].ns[LIMIT_SENDER_APP] = 400;
	CHECK(diff_add_conn(d, 0, &a) == 0 && diff_add_conn(d, 1, &b) == 0 && diff_finish(d) == 0);
	CHECK_EQ_U(diff_nlabels(d), 1);
	CHECK(!strcmp(diff_label_key(d, 0), "limited_by"));
	const struct diff_pair *p = diff_pair_at(d, 0);
	const struct diff_label *la = diff_conn_label(d, p->a, 0, SUM_S2C),
				*lb = diff_conn_label(d, p->b, 0, SUM_S2C);
	CHECK(!strcmp(diff_label_class(d, 0, la->cls), "congestion") && la->share == 0.75);
	CHECK(!strcmp(diff_label_class(d, 0, lb->cls), "receiver_window") && lb->share == 0.75);
	CHECK(diff_label_changed(la, lb));
	CHECK(diff_conn_label(d, p->a, 0, SUM_C2S)->cls == -1);
	CHECK(!strcmp(diff_label_class(d, 0, -1), "none"));
	/* The run: B's 800 ns, half of it the client's sending application. */
	CHECK(!strcmp(diff_label_class(d, 0, diff_run_label(d, 1, 0)->cls), "sender_app"));
	CHECK(diff_run_label(d, 1, 0)->share == 0.5);
	int cong = metric(d, "limited_by_congestion");
	CHECK(cong >= 0 && diff_metric(d, (unsigned)cong)->run_only);
	CHECK(diff_totals(d, 0)[cong] == 0.75 && diff_totals(d, 1)[cong] == 0.125);
	diff_free(d);
}

/* --fail-on on the change: a difference, a relative change, from 0
 * (+infinity), the aliases, and the errors; analyze's grammar keeps
 * refusing '%'. */
static void test_fail_on(void)
{
	char err[1200], which[200];
	struct fo_expr e;
	struct diff *d = diff_new(DIFF_MATCH_TUPLE, err, sizeof(err));
	struct sum_conn a = conn(1, 40000, 1000, 4), b = conn(1, 40000, 1000, 6);

	CHECK(diff_add_conn(d, 0, &a) == 0 && diff_add_conn(d, 1, &b) == 0);
	diff_set_run(d, 0, &(struct diff_run){.first_ts = 1000, .last_ts = 1000001000});
	diff_set_run(d, 1, &(struct diff_run){.first_ts = 1000, .last_ts = 2000001000});
	CHECK(diff_finish(d) == 0);

	CHECK(diff_fail_parse(d, "retransmissions>+1", &e, err, sizeof(err)) == 0);
	CHECK(diff_fail_match(d, &e, which, sizeof(which)));
	CHECK(strstr(which, "retransmissions>1") == which);
	CHECK(diff_fail_parse(d, "retransmissions>+2", &e, err, sizeof(err)) == 0);
	CHECK(!diff_fail_match(d, &e, which, sizeof(which)));
	CHECK(diff_fail_parse(d, "retransmissions>=+50%", &e, err, sizeof(err)) == 0);
	CHECK(diff_fail_match(d, &e, which, sizeof(which)));
	CHECK(diff_fail_parse(d, "throughput<-40%", &e, err, sizeof(err)) == 0);
	CHECK(diff_fail_match(d, &e, which, sizeof(which))); /* half the rate: -50% */
	CHECK(diff_fail_parse(d, "throughput<-60%,stall_time_s>+10%", &e, err, sizeof(err)) == 0);
	CHECK(!diff_fail_match(d, &e, which, sizeof(which)));
	CHECK(diff_fail_parse(d, "fast>+1000%", &e, err, sizeof(err)) == 0);
	CHECK(!diff_fail_match(d, &e, which, sizeof(which)));
	CHECK(diff_fail_parse(d, "stall>0", &e, err, sizeof(err)) == 0);
	CHECK(diff_fail_parse(d, "nope>0", &e, err, sizeof(err)) < 0);
	CHECK(strstr(err, "unknown metric 'nope'") && strstr(err, "stall_time_delayed_ack"));
	CHECK(diff_fail_parse(d, "retransmissions>%", &e, err, sizeof(err)) < 0);
	CHECK(diff_fail_parse(d, "", &e, err, sizeof(err)) < 0);
	CHECK(fo_parse("retransmissions>10%", &e, err, sizeof(err)) < 0);
	CHECK(fo_parse("retransmissions>10", &e, err, sizeof(err)) == 0 && !e.t[0].percent);
	diff_free(d);

	/* From nothing to something is +infinity percent. */
	d = diff_new(DIFF_MATCH_TUPLE, err, sizeof(err));
	a = conn(1, 40000, 1000, 0);
	b = conn(1, 40000, 1000, 1);
	CHECK(diff_add_conn(d, 0, &a) == 0 && diff_add_conn(d, 1, &b) == 0 && diff_finish(d) == 0);
	CHECK(diff_fail_parse(d, "retransmissions>+1000000%", &e, err, sizeof(err)) == 0);
	CHECK(diff_fail_match(d, &e, which, sizeof(which)));
	CHECK(isnan(diff_pct(0, 1)) && diff_pct(0, 0) == 0 && diff_pct(4, 6) == 50);
	diff_free(d);
}

int main(void)
{
	test_tuple_pairs_in_order();
	test_order();
	test_auto();
	test_limited_by();
	test_fail_on();
	return unit_done("diff");
}
