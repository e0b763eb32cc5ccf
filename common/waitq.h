/* waitq.h - a counter other threads wait on: they look a while, then sleep. */
#ifndef TCPSIFT_WAITQ_H
#define TCPSIFT_WAITQ_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * One thread moves a counter forward (a batch handed out, a worker
 * through); others wait for it to reach a value. Between threads that hand
 * each other work every few hundred microseconds a sleep costs more than
 * the wait: a futex call each way, the wake-up's inter-processor interrupt
 * (a VM exit on a virtual CPU) and the caches the idle CPU lost meanwhile.
 * So a waiter first looks at the counter for up to WAITQ_SPIN_NS (only
 * when each of the threads has a CPU of its own, of those the process may
 * run on, cpus_usable(): else looking keeps a CPU from the thread it waits
 * for), and only then sleeps on the condition variable, counted, so that a
 * mover takes the lock only when somebody sleeps.
 *
 * The counters are the caller's uint64_t, moved only by waitq_store() and
 * waitq_add() and read by waitq_load() (atomically); a waitq may serve
 * several counters. The caller owns the struct; waitq_init() before use,
 * waitq_destroy() after the last waiter is gone.
 */
#define WAITQ_SPIN_NS 500000

struct waitq {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned sleeping; /* waiters asleep on cv (under mu, read atomically) */
	bool quit;	   /* waitq_quit(): every wait returns */
	int64_t spin_ns;   /* WAITQ_SPIN_NS, or 0: more threads than CPUs */
};

/* 0, or ERR_SYSTEM (the mutex or condition variable could not be made).
 * threads: how many threads will share the CPUs (waiters and movers). */
int waitq_init(struct waitq *q, unsigned threads);
void waitq_destroy(struct waitq *q);

/* Wait until *v >= want; true, or false when waitq_quit() ended it first. */
bool waitq_wait(struct waitq *q, const uint64_t *v, uint64_t want);
/* *v = to (never less than it was), and wake whoever sleeps on q. */
void waitq_store(struct waitq *q, uint64_t *v, uint64_t to);
/* *v + 1 into *v, waking the sleepers when it reaches wake_at; the new value. */
uint64_t waitq_add(struct waitq *q, uint64_t *v, uint64_t wake_at);
/* The counter, for the thread that does not move it. */
uint64_t waitq_load(const uint64_t *v);
/* Every wait on q returns false from now on. */
void waitq_quit(struct waitq *q);

#endif
