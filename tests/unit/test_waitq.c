/* test_waitq.c - counters threads wait on (common/waitq.h): no wake-up lost, looking or asleep. */
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "common/cpus.h"
#include "common/waitq.h"
#include "tests/unit/unit.h"

enum { ROUNDS = 20000 };

/* Two threads hand a counter back and forth: main moves a, the peer b. */
struct pingpong {
	struct waitq qa, qb;
	uint64_t a, b;
	uint64_t payload[ROUNDS + 1]; /* written before a moves, read after */
	uint64_t bad;		      /* payloads the peer saw wrong */
};

static void *peer(void *arg)
{
	struct pingpong *p = arg;

	for (uint64_t i = 1; i <= ROUNDS; i++) {
		if (!waitq_wait(&p->qa, &p->a, i))
			return NULL;
		if (p->payload[i] != i * 7)
			p->bad++;
		waitq_add(&p->qb, &p->b, i);
	}
	return NULL;
}

static void pingpong(int64_t spin_ns)
{
	static struct pingpong p;
	pthread_t t;

	p = (struct pingpong){0};
	CHECK(waitq_init(&p.qa, 2) == 0 && waitq_init(&p.qb, 2) == 0);
	/* 0: every wait that is not over at once sleeps (the lock path). */
	if (spin_ns >= 0)
		p.qa.spin_ns = p.qb.spin_ns = spin_ns;
	CHECK(pthread_create(&t, NULL, peer, &p) == 0);
	uint64_t reached = 0;
	for (uint64_t i = 1; i <= ROUNDS; i++) {
		p.payload[i] = i * 7;
		waitq_store(&p.qa, &p.a, i);
		reached += waitq_wait(&p.qb, &p.b, i);
	}
	pthread_join(t, NULL);
	CHECK_EQ_U(reached, ROUNDS);
	CHECK_EQ_U(waitq_load(&p.b), ROUNDS);
	CHECK_EQ_U(p.bad, 0);
	waitq_destroy(&p.qa);
	waitq_destroy(&p.qb);
}

struct quitter {
	struct waitq q;
	uint64_t v;
	int ret;
};

static void *never(void *arg)
{
	struct quitter *x = arg;

	x->ret = waitq_wait(&x->q, &x->v, 1);
	return NULL;
}

/* A wait for a value never reached ends, false, at waitq_quit(); one
 * already reached is true whatever follows. */
static void quit(int64_t spin_ns)
{
	struct quitter x = {.ret = -1};
	pthread_t t;

	CHECK(waitq_init(&x.q, 2) == 0);
	x.q.spin_ns = spin_ns;
	CHECK(pthread_create(&t, NULL, never, &x) == 0);
	usleep(2000); /* past the looking, asleep (or looking, with a long spin) */
	waitq_quit(&x.q);
	pthread_join(t, NULL);
	CHECK_EQ_U(x.ret, 0);
	CHECK(!waitq_wait(&x.q, &x.v, 1));
	x.v = 1;
	CHECK(waitq_wait(&x.q, &x.v, 1));
	waitq_destroy(&x.q);
}

struct adders {
	struct waitq q;
	uint64_t v;
};

static void *add_one(void *arg)
{
	struct adders *x = arg;

	waitq_add(&x->q, &x->v, 2);
	return NULL;
}

/* Two threads through: the second add wakes the one waiting for both. */
static void two_adders(void)
{
	struct adders x = {0};
	pthread_t t[2];

	CHECK(waitq_init(&x.q, 3) == 0);
	x.q.spin_ns = 0;
	for (int k = 0; k < 2; k++)
		CHECK(pthread_create(&t[k], NULL, add_one, &x) == 0);
	CHECK(waitq_wait(&x.q, &x.v, 2));
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	CHECK_EQ_U(waitq_add(&x.q, &x.v, 0), 3);
	waitq_destroy(&x.q);
}

/* Looking only when each thread has a CPU: more threads than CPUs sleep
 * at once (looking would keep a CPU from the thread waited for). */
static void spin_choice(void)
{
	unsigned cpus = cpus_usable();
	struct waitq q;

	CHECK(waitq_init(&q, cpus + 1) == 0);
	CHECK_EQ_U(q.spin_ns, 0);
	waitq_destroy(&q);
	CHECK(waitq_init(&q, 1) == 0);
	CHECK_EQ_U(q.spin_ns, cpus > 1 ? WAITQ_SPIN_NS : 0);
	waitq_destroy(&q);
}

int main(void)
{
	alarm(120);   /* a lost wake-up hangs: end the test, failed, instead */
	pingpong(-1); /* as initialised: looking first on more than one CPU */
	pingpong(0);
	if (cpus_usable() > 1)
		pingpong(1000000000); /* looking only (on one CPU: a second a round) */
	quit(0);
	quit(WAITQ_SPIN_NS);
	two_adders();
	spin_choice();
	return unit_done("waitq");
}
