/* clock.h - the clocks: monotonic seconds for progress and pacing, nanoseconds for capture. */
#ifndef TCPSIFT_CLOCK_H
#define TCPSIFT_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds in a second: the unit of pkt.ts_ns and of clock_ns(). */
#define CLOCK_NS_PER_S 1000000000LL

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
