/* clock.h - the clocks: monotonic seconds for progress and pacing, nanoseconds for capture. */
#ifndef TCPSIFT_CLOCK_H
#define TCPSIFT_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Nanoseconds in a second: the unit of pkt.ts_ns and of clock_ns(). */
#define CLOCK_NS_PER_S 1000000000LL

/*
 * The range of pkt.ts_ns: [0, CLOCK_TS_MAX] ns since the Unix epoch, 1970 to
 * 2262-04-11T23:47:16.854775807Z. A file can claim times outside it (a
 * pcapng tick count times its resolution, plus if_tsoffset, reaches 2^70 ns
 * and beyond; a negative offset goes before 1970): readers saturate them
 * onto its ends and flag the packet (PKT_HAVE_TS_CLAMPED) rather than wrap
 * them modulo 2^64, so that every difference of two capture times fits in
 * an int64 and the engine's arithmetic stays defined.
 */
#define CLOCK_TS_MAX INT64_MAX

/* An exact time in ns as a pkt.ts_ns: saturated into [0, CLOCK_TS_MAX];
 * *clamped set to true when it had to be (left alone otherwise). */
static inline int64_t clock_ts_sat(__int128 ns, bool *clamped)
{
	if (ns < 0) {
		*clamped = true;
		return 0;
	}
	if (ns > CLOCK_TS_MAX) {
		*clamped = true;
		return CLOCK_TS_MAX;
	}
	return (int64_t)ns;
}

/*
 * a + b and a * b on times and spans (ns), saturated at INT64_MAX (or
 * INT64_MIN): a deadline past the end of time never comes, a total of
 * absurd spans stays absurd. Differences of two capture times need neither:
 * both lie in [0, CLOCK_TS_MAX]. Sums, multiples of an RTT and time plus
 * span do.
 */
static inline int64_t clock_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t clock_sat_mul(int64_t a, int64_t k)
{
	int64_t r;

	if (__builtin_mul_overflow(a, k, &r))
		return (a < 0) != (k < 0) ? INT64_MIN : INT64_MAX;
	return r;
}

/* Nanoseconds on clock c: CLOCK_REALTIME for capture time (as pkt.ts_ns),
 * CLOCK_MONOTONIC for intervals and deadlines. */
static inline int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * CLOCK_NS_PER_S + ts.tv_nsec;
}

/* Seconds on CLOCK_MONOTONIC (never steps back with the wall clock). */
static inline double clock_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
