/* cpus.h - the CPUs this process may run on. */
#ifndef TCPSIFT_CPUS_H
#define TCPSIFT_CPUS_H

#include <sched.h>

/* The CPUs of this process's affinity mask (taskset, a cgroup's cpuset),
 * not the machine's: at least 1 (also when the mask cannot be read). */
static inline unsigned cpus_usable(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	int n = CPU_COUNT(&set);
	return n > 0 ? (unsigned)n : 1;
}

#endif
