/* test_dropwarn.c - when a live capture's drops warn (rate limit) and which advice they carry. */
#include <string.h>

#include "capture/live/dropwarn.h"
#include "tests/unit/unit.h"

/* One socket, 262144-byte snaplen, a 4 MiB ring, qm, 2 CPUs, one RX queue. */
static struct dw_config config(void)
{
	return (struct dw_config){.snaplen = 262144,
				  .buffer_bytes = 4u << 20,
				  .nsockets = 1,
				  .mode = RING_FANOUT_QM,
				  .ncpus = 2,
				  .rx_queues = 1,
				  .queue_option = true};
}

/* The counters after t seconds of recv packets a second of size bytes each,
 * drop of them dropped by the kernel, the reader busy a share of a CPU. */
static struct dw_counts at(double t, uint64_t recv, uint64_t drop, double size, double busy)
{
	struct dw_counts c = {.t = t,
			      .recv = (uint64_t)(recv * t),
			      .kernel = (uint64_t)(drop * t),
			      .captured = (uint64_t)((recv - drop) * t)};
	c.bytes = (uint64_t)((double)c.captured * size);
	for (unsigned k = 0; k < RING_MAX_SOCKETS; k++)
		c.cpu[k] = k == 0 ? (int64_t)(busy * t * 1e9) : -1;
	return c;
}

static void test_rate_limit(void)
{
	struct dw_config cfg = config();
	struct dw_state s;
	struct dw_warning w;
	struct dw_counts c = at(0, 0, 0, 0, 0);

	dw_start(&s, &cfg, &c);
	/* Calm: no warning, ever. */
	c = (struct dw_counts){.t = 1, .recv = 1000, .captured = 1000, .bytes = 1000 * 1500};
	CHECK(dw_step(&s, &c, false, &w) == 0);
	CHECK(!dw_active(&s));
	/* Drops start: a warning at once, over the last second. */
	c.t = 2, c.recv += 1000, c.kernel = 400, c.captured += 600, c.bytes += 600 * 1500;
	CHECK(dw_step(&s, &c, false, &w) == 1);
	CHECK_EQ_U(w.dropped, 400);
	CHECK_EQ_U(w.received, 1000);
	CHECK(w.pct > 39.9 && w.pct < 40.1);
	CHECK(w.seconds > 0.99 && w.seconds < 1.01);
	CHECK(strstr(w.text, "400 of 1000 packets dropped (40.0 %) in the last 1.0 s") != NULL);
	CHECK(dw_active(&s));
	/* They go on: nothing more until 5 s after that warning. */
	for (int k = 3; k <= 6; k++) {
		c.t = k, c.recv += 1000, c.kernel += 100;
		CHECK(dw_step(&s, &c, false, &w) == 0);
	}
	c.t = 7, c.recv += 1000, c.kernel += 100;
	CHECK(dw_step(&s, &c, false, &w) == 1);
	CHECK_EQ_U(w.dropped, 500);
	CHECK_EQ_U(w.received, 5000);
	CHECK(strstr(w.text, "in the last 5.0 s") != NULL);
	/* Quiet for 5 s: over; the next drop warns at once. */
	for (int k = 8; k <= 12; k++) {
		c.t = k, c.recv += 1000;
		CHECK(dw_step(&s, &c, false, &w) == 0);
	}
	CHECK(!dw_active(&s));
	c.t = 13, c.recv += 1000, c.kernel += 7;
	CHECK(dw_step(&s, &c, false, &w) == 1);
	CHECK_EQ_U(w.dropped, 7);
	CHECK_EQ_U(s.warnings, 3);
	/* At the end, after warnings: no more. */
	c.t = 13.5, c.kernel += 3;
	CHECK(dw_step(&s, &c, true, &w) == 0);
}

static void test_final(void)
{
	struct dw_config cfg = config();
	struct dw_state s;
	struct dw_warning w;
	struct dw_counts c = at(0, 0, 0, 0, 0);

	/* A capture shorter than a look that dropped: one warning at the end. */
	dw_start(&s, &cfg, &c);
	c = at(0.4, 10000, 2000, 1500, 0.1);
	CHECK(dw_step(&s, &c, true, &w) == 1);
	CHECK_EQ_U(w.dropped, 800);
	/* One that did not: none. */
	dw_start(&s, &cfg, &(struct dw_counts){0});
	c = at(0.4, 10000, 0, 1500, 0.1);
	CHECK(dw_step(&s, &c, true, &w) == 0);
}

/* The warning for one second of the given traffic on cfg. */
static struct dw_warning advise(struct dw_config cfg, uint64_t recv, uint64_t drop, double size,
				double busy)
{
	struct dw_state s;
	struct dw_warning w;
	struct dw_counts c = at(0, 0, 0, 0, 0);

	memset(&w, 0, sizeof(w));
	dw_start(&s, &cfg, &c);
	c = at(1, recv, drop, size, busy);
	CHECK(dw_step(&s, &c, false, &w) == 1);
	return w;
}

static void test_advice(void)
{
	struct dw_config cfg = config();
	struct dw_warning w;

	/* Full 64 KiB frames through a 4 MiB ring, the reader idle: -s 128, and
	 * a ring sized for 250 ms of 128-byte packets (here 4x: 16). */
	w = advise(cfg, 100000, 80000, 65536, 0.2);
	CHECK_STR(w.options, "-s 128 -B 16");
	CHECK(strstr(w.text, "the kernel ring full: try -s 128 (headers are all") != NULL);
	CHECK(strstr(w.text, "-B 16 (the kernel ring, 4 MiB, holds ") != NULL);
	/* Headers only already (2 M packets a second: 92 MiB hold 250 ms of
	 * them), a saturated reader, 2 CPUs, one RX queue:
	 * --fanout 2 in hash mode (qm would keep one socket busy), and -B for
	 * a ring under a second of the traffic. */
	cfg.snaplen = 128;
	w = advise(cfg, 2000000, 500000, 128, 0.95);
	CHECK_STR(w.options, "-B 92 --fanout 2 --fanout-mode hash");
	CHECK(strstr(w.text, "a reader thread is busy 95 % of a CPU; 2 CPUs; one RX queue") !=
	      NULL);
	/* qm with 4 RX queues on 8 CPUs: a socket per queue, qm kept. */
	cfg.ncpus = 8, cfg.rx_queues = 4;
	w = advise(cfg, 2000, 500, 128, 0.95);
	CHECK_STR(w.options, "--fanout 4");
	/* Already a socket per CPU, a ring holding seconds: nothing to change. */
	cfg.nsockets = 4, cfg.ncpus = 4, cfg.buffer_bytes = 256u << 20;
	w = advise(cfg, 2000, 500, 128, 0.95);
	CHECK_STR(w.options, "");
	CHECK(strstr(w.text, "try a narrower filter (-f)") != NULL);
	/* A ring at libpcap's limit is not advised larger. */
	cfg = config();
	cfg.snaplen = 128, cfg.buffer_bytes = 2047ull << 20;
	w = advise(cfg, 20000000, 5000000, 128, 0.2);
	CHECK(strstr(w.options, "-B") == NULL);
	/* tcpsift's own queue full: the output is too slow. */
	cfg = config();
	struct dw_state s;
	struct dw_counts c = at(0, 0, 0, 0, 0);
	dw_start(&s, &cfg, &c);
	c = (struct dw_counts){
	    .t = 1, .recv = 1000, .ours = 300, .captured = 1000, .bytes = 1500000};
	CHECK(dw_step(&s, &c, false, &w) == 1);
	CHECK(strstr(w.text, "300 of 1000 packets dropped (30.0 %) in the last 1.0 s, tcpsift's "
			     "queue full: try a faster output") != NULL);
	CHECK(strstr(w.text, "--queue-mib") != NULL);
}

int main(void)
{
	test_rate_limit();
	test_final();
	test_advice();
	return unit_done("test_dropwarn");
}
