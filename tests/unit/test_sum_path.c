/* test_sum_path.c - unit tests of what a summary says about the path: vantage side, loss rate. */
#include "analyze/engine/summary.h"
#include "tests/unit/unit.h"

static struct sum_path path(int64_t client_ns, int64_t server_ns)
{
	struct sum_path p;

	sum_path_unknown(&p);
	p.loop_ns[SUM_C2S] = client_ns;
	p.loop_ns[SUM_S2C] = server_ns;
	return p;
}

static void test_vantage_side(void)
{
	/* The receiver-side capture of client -> server data: 227 us
	 * to the server, 20 ms to the client. */
	struct sum_path p = path(20000000, 227000);
	CHECK_EQ_U(sum_vantage_side(&p, SUM_C2S), SUM_VANTAGE_RECEIVER);
	CHECK_EQ_U(sum_vantage_side(&p, SUM_S2C), SUM_VANTAGE_SENDER);
	CHECK_STR(sum_vantage_name(sum_vantage_side(&p, SUM_C2S)), "receiver-side");
	/* Next to the client: the other way round. */
	p = path(3000, 45000000);
	CHECK_EQ_U(sum_vantage_side(&p, SUM_C2S), SUM_VANTAGE_SENDER);
	CHECK_EQ_U(sum_vantage_side(&p, SUM_S2C), SUM_VANTAGE_RECEIVER);
	/* 5 ms and 45 ms: exactly a tenth of the path is not near. */
	p = path(5000000, 45000000);
	CHECK_EQ_U(sum_vantage_side(&p, SUM_C2S), SUM_VANTAGE_MIDDLE);
	CHECK_EQ_U(sum_vantage_side(&p, SUM_S2C), SUM_VANTAGE_MIDDLE);
	CHECK_STR(sum_vantage_name(SUM_VANTAGE_MIDDLE), "middle");
	p = path(4900000, 45000000);
	CHECK_EQ_U(sum_vantage_side(&p, SUM_C2S), SUM_VANTAGE_SENDER);
	/* A loop unknown: unknown, both ways. */
	p = path(-1, 45000000);
	CHECK_EQ_U(sum_vantage_side(&p, SUM_C2S), SUM_VANTAGE_UNKNOWN);
	CHECK_EQ_U(sum_vantage_side(&p, SUM_S2C), SUM_VANTAGE_UNKNOWN);
	CHECK_STR(sum_vantage_name(SUM_VANTAGE_UNKNOWN), "unknown");
	/* No overflow at the largest loops. */
	p = path(INT64_MAX, INT64_MAX / 20);
	CHECK_EQ_U(sum_vantage_side(&p, SUM_C2S), SUM_VANTAGE_RECEIVER);
}

static void test_loss_rate(void)
{
	struct sum_dir d;

	memset(&d, 0, sizeof(d));
	CHECK(sum_loss_rate(&d) < 0); /* no data: unknown */
	/* Sender-side: 100 originals and 4 retransmissions captured, one of
	 * them spurious: 3 lost of 104 sent. */
	d.data_packets = 104;
	d.retrans = 4;
	d.spurious_retrans = 1;
	CHECK_EQ_U(sum_lost_segments(&d), 3);
	CHECK_EQ_U(sum_sent_segments(&d), 104);
	CHECK(sum_loss_rate(&d) == 3.0 / 104);
	/* Receiver-side, the same transfer: 97 originals and 4
	 * retransmissions arrived; 3 of those filled gaps of originals lost
	 * upstream (lost_upstream is part of retrans), which never passed
	 * here: the same rate. Gaps opened do not count again. */
	d.data_packets = 101;
	d.lost_upstream = 3;
	d.lost_segments = 3;
	CHECK_EQ_U(sum_sent_segments(&d), 104);
	CHECK(sum_loss_rate(&d) == 3.0 / 104);
	/* Both directions: the table's one column. */
	struct sum_conn c;
	memset(&c, 0, sizeof(c));
	CHECK(sum_conn_loss_rate(&c) < 0);
	c.dir[SUM_S2C] = d;
	c.dir[SUM_C2S].data_packets = 96;
	CHECK(sum_conn_loss_rate(&c) == 3.0 / 200);
}

/* The parts of an evicted and resumed connection: the smaller of what
 * each knew. */
static void test_merge_path(void)
{
	struct sum_conn a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.path = path(-1, 300000);
	a.path.rtt_ns = -1;
	b.path = path(20000000, 400000);
	b.path.rtt_ns = 20400000;
	sum_conn_merge(&a, &b);
	CHECK(a.path.loop_ns[SUM_C2S] == 20000000 && a.path.loop_ns[SUM_S2C] == 300000);
	CHECK(a.path.rtt_ns == 20400000);
}

int main(void)
{
	test_vantage_side();
	test_loss_rate();
	test_merge_path();
	return unit_done("sum_path");
}
