/* clock.h - the one monotonic clock: progress lines, rates and replay pacing. */
#ifndef TCPSIFT_CLOCK_H
#define TCPSIFT_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC (never steps back with the wall clock). */
static inline double clock_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
