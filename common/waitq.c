/* waitq.c - a counter other threads wait on: they look a while, then sleep. */
#include "common/waitq.h"
#include "common/cpus.h"
#include "common/err.h"

#include <time.h>

/* What a looking thread does between two looks. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#else
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int waitq_init(struct waitq *q, unsigned threads)
{
	unsigned cpus = cpus_usable();

	*q = (struct waitq){0};
	if (pthread_mutex_init(&q->mu, NULL) != 0)
		return ERR_SYSTEM;
	if (pthread_cond_init(&q->cv, NULL) != 0) {
		pthread_mutex_destroy(&q->mu);
		return ERR_SYSTEM;
	}
	q->spin_ns = cpus > 1 && threads <= cpus ? WAITQ_SPIN_NS : 0;
	return 0;
}

void waitq_destroy(struct waitq *q)
{
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
}

uint64_t waitq_load(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_ACQUIRE);
}

/* Whether *v reached want within q->spin_ns: the clock read every 64
 * pauses (a pause is some 10 to 150 cycles, by processor). */
static bool look(const struct waitq *q, const uint64_t *v, uint64_t want)
{
	int64_t until = 0;

	for (unsigned i = 1;; i++) {
		if (waitq_load(v) >= want)
			return true;
		if (__atomic_load_n(&q->quit, __ATOMIC_RELAXED))
			return false;
		if (i % 64 == 0) {
			int64_t t = now_ns();
			if (!until)
				until = t + q->spin_ns;
			else if (t >= until)
				return false;
		}
		cpu_relax();
	}
}

bool waitq_wait(struct waitq *q, const uint64_t *v, uint64_t want)
{
	if (q->spin_ns && look(q, v, want))
		return true;
	pthread_mutex_lock(&q->mu);
	/* Sequentially consistent with the mover's store and load: either it
	 * sees this thread counted, or this thread sees its value. */
	__atomic_add_fetch(&q->sleeping, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(v, __ATOMIC_SEQ_CST) < want && !q->quit)
		pthread_cond_wait(&q->cv, &q->mu);
	__atomic_sub_fetch(&q->sleeping, 1, __ATOMIC_RELAXED);
	bool reached = __atomic_load_n(v, __ATOMIC_ACQUIRE) >= want;
	pthread_mutex_unlock(&q->mu);
	return reached;
}

static void wake(struct waitq *q)
{
	if (__atomic_load_n(&q->sleeping, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&q->mu);
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
	}
}

void waitq_store(struct waitq *q, uint64_t *v, uint64_t to)
{
	__atomic_store_n(v, to, __ATOMIC_SEQ_CST);
	wake(q);
}

uint64_t waitq_add(struct waitq *q, uint64_t *v, uint64_t wake_at)
{
	uint64_t now = __atomic_add_fetch(v, 1, __ATOMIC_SEQ_CST);

	if (now == wake_at)
		wake(q);
	return now;
}

void waitq_quit(struct waitq *q)
{
	pthread_mutex_lock(&q->mu);
	__atomic_store_n(&q->quit, true, __ATOMIC_SEQ_CST);
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}
