/* test_clock.c - the time range of pkt.ts_ns and the saturating arithmetic on times
 * (common/clock.h). */
#include <stdint.h>

#include "common/clock.h"
#include "tests/unit/unit.h"

static void test_ts_sat(void)
{
	bool c = false;

	CHECK_EQ_U(clock_ts_sat(0, &c), 0);
	CHECK(!c);
	CHECK_EQ_U(clock_ts_sat(CLOCK_TS_MAX, &c), (uint64_t)CLOCK_TS_MAX);
	CHECK(!c);
	CHECK_EQ_U(clock_ts_sat((__int128)CLOCK_TS_MAX + 1, &c), (uint64_t)CLOCK_TS_MAX);
	CHECK(c);
	c = false;
	CHECK_EQ_U(clock_ts_sat(-1, &c), 0);
	CHECK(c);
	c = false;
	/* 2^60 us: 2^70 ns, the case, and the 128-bit extremes. */
	CHECK_EQ_U(clock_ts_sat((__int128)1000 << 60, &c), (uint64_t)CLOCK_TS_MAX);
	CHECK(c);
	c = false;
	CHECK_EQ_U(clock_ts_sat((__int128)UINT64_MAX * CLOCK_NS_PER_S +
				    (__int128)INT64_MAX * CLOCK_NS_PER_S,
				&c),
		   (uint64_t)CLOCK_TS_MAX);
	CHECK(c);
	c = false;
	CHECK_EQ_U(clock_ts_sat((__int128)INT64_MIN * CLOCK_NS_PER_S, &c), 0);
	CHECK(c);
	/* Classic pcap's last time fits: (2^32 - 1) s + 999999 us. */
	c = false;
	CHECK_EQ_U(clock_ts_sat((__int128)0xFFFFFFFFll * CLOCK_NS_PER_S + 999999000, &c),
		   4294967295999999000ull);
	CHECK(!c);
}

static void test_sat_add_mul(void)
{
	CHECK_EQ_U(clock_sat_add(1, 2), 3);
	CHECK_EQ_U(clock_sat_add(INT64_MAX, 1), (uint64_t)INT64_MAX);
	CHECK_EQ_U(clock_sat_add(INT64_MAX - 5, INT64_MAX), (uint64_t)INT64_MAX);
	CHECK_EQ_U((uint64_t)clock_sat_add(INT64_MIN, -1), (uint64_t)INT64_MIN);
	CHECK_EQ_U((uint64_t)clock_sat_add(5, -7), (uint64_t)-2);
	CHECK_EQ_U(clock_sat_add(INT64_MAX, INT64_MIN), (uint64_t)-1);
	CHECK_EQ_U(clock_sat_mul(3, 4), 12);
	CHECK_EQ_U(clock_sat_mul((int64_t)1 << 62, 4), (uint64_t)INT64_MAX);
	CHECK_EQ_U(clock_sat_mul(INT64_MAX, 2), (uint64_t)INT64_MAX);
	CHECK_EQ_U((uint64_t)clock_sat_mul(INT64_MIN, 2), (uint64_t)INT64_MIN);
	CHECK_EQ_U((uint64_t)clock_sat_mul(-((int64_t)1 << 62), 4), (uint64_t)INT64_MIN);
	CHECK_EQ_U(clock_sat_mul(0, INT64_MAX), 0);
}

int main(void)
{
	test_ts_sat();
	test_sat_add_mul();
	return unit_done("clock");
}
