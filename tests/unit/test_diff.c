/* test_diff.c - tcpsift diff's comparison (analyze/report/diff.h): pairing, totals, --fail-on. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/report/diff.h"
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
	test_fail_on();
	return unit_done("diff");
}
