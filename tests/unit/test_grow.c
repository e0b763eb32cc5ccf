/* test_grow.c - growing arrays: first capacity, doubling, caps, overflow (common/grow.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/err.h"
#include "common/grow.h"
#include "tests/unit/unit.h"

static void test_cap(void)
{
	CHECK_EQ_U(grow_cap(0, 1, 16, SIZE_MAX), 16);	  /* the first capacity */
	CHECK_EQ_U(grow_cap(0, 40, 16, SIZE_MAX), 64);	  /* doubled from first */
	CHECK_EQ_U(grow_cap(16, 17, 1024, SIZE_MAX), 32); /* doubled from cap */
	CHECK_EQ_U(grow_cap(16, 100, 4, SIZE_MAX), 128);
	CHECK_EQ_U(grow_cap(16, 16, 4, SIZE_MAX), 16); /* need <= cap */
	CHECK_EQ_U(grow_cap(7, 0, 4, SIZE_MAX), 7);
	CHECK_EQ_U(grow_cap(0, 3, 0, SIZE_MAX), 4); /* no first: from 1 */
	/* Capped: a doubling past max is max; a need past max cannot be met. */
	CHECK_EQ_U(grow_cap(0, 10, 256, 100), 100);
	CHECK_EQ_U(grow_cap(64, 65, 4, 100), 100);
	CHECK_EQ_U(grow_cap(100, 101, 4, 100), 0);
	/* Doubling near the top of size_t stops at max instead of wrapping. */
	CHECK_EQ_U(grow_cap(SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 2, 4, SIZE_MAX), SIZE_MAX);
	CHECK_EQ_U(grow_cap(SIZE_MAX - 1, SIZE_MAX, 4, SIZE_MAX), SIZE_MAX);
}

/* Appending one at a time: the capacities an appender sees, contents kept. */
static void test_sequence(void)
{
	static const size_t want[] = {8, 16, 32, 64, 128};
	uint32_t *a = NULL;
	size_t n = 0, cap = 0, k = 0;

	for (uint32_t i = 0; i < 100; i++) {
		size_t before = cap;
		CHECK(GROW(a, cap, n + 1, 8) == 0);
		if (cap != before)
			CHECK_EQ_U(cap, want[k++]);
		a[n++] = i * 7;
	}
	CHECK_EQ_U(k, 5);
	CHECK_EQ_U(cap, 128);
	int same = 1;
	for (uint32_t i = 0; i < 100; i++)
		same &= a[i] == i * 7;
	CHECK(same);
	free(a);
}

static void test_no_op(void)
{
	char buf[4];
	char *p = buf; /* not heap memory: a realloc of it would crash */
	size_t cap = 4;

	CHECK(GROW(p, cap, 4, 1024) == 0);
	CHECK(GROW(p, cap, 0, 1024) == 0);
	CHECK(p == buf && cap == 4);
	void *v = buf;
	CHECK(grow_array(&v, &cap, 3, 1, 16, SIZE_MAX) == 0);
	CHECK(v == buf && cap == 4);
}

/* n * elem past SIZE_MAX fails before any allocation, touching nothing. */
static void test_overflow(void)
{
	uint64_t *a = NULL;
	size_t cap = 0;

	CHECK(GROW(a, cap, 4, 4) == 0);
	uint64_t *kept = a;
	a[0] = 42;
	CHECK(GROW(a, cap, SIZE_MAX / sizeof(*a) + 1, 4) == ERR_NOMEM);
	CHECK(a == kept && cap == 4 && a[0] == 42);
	void *v = a;
	size_t c = cap;
	CHECK(grow_array(&v, &c, SIZE_MAX / 16 + 1, 16, 4, SIZE_MAX) == ERR_NOMEM);
	CHECK(grow_array(&v, &c, SIZE_MAX, 1, 4, SIZE_MAX - 1) == ERR_NOMEM); /* need > max */
	CHECK(v == kept && c == 4);
	CHECK(grow_resize(&v, SIZE_MAX / 2 + 1, 2) == ERR_NOMEM);
	CHECK(v == kept);
	free(a);
}

/* A capacity narrower than size_t is grown only as far as it can count. */
static void test_narrow_cap(void)
{
	char *a = NULL;
	uint8_t cap = 0;

	CHECK(GROW(a, cap, 100, 64) == 0);
	CHECK_EQ_U(cap, 128);
	CHECK(GROW(a, cap, 200, 64) == 0);
	CHECK_EQ_U(cap, 255); /* not 256, which would read as 0 */
	char *kept = a;
	CHECK(GROW(a, cap, 256, 64) == ERR_NOMEM);
	CHECK(a == kept && cap == 255);
	free(a);
	cap = 128;
	a = malloc(cap);
	CHECK(a && GROW_MAX(a, cap, 129, 64, 1000) == 0); /* max above the type's: the type's */
	CHECK_EQ_U(cap, 255);
	free(a);

	unsigned *u = NULL;
	uint32_t ucap = 0;
	CHECK(GROW_MAX(u, ucap, 1, 256, 100) == 0);
	CHECK_EQ_U(ucap, 100);
	CHECK(GROW_MAX(u, ucap, 101, 256, 100) == ERR_NOMEM);
	CHECK_EQ_U(ucap, 100);
	free(u);
}

/* Arrays that share one capacity, a row of `each` elements a slot. */
static void test_resize(void)
{
	double *vals = NULL;
	int *ids = NULL;
	size_t cap = grow_cap(0, 1, 64, SIZE_MAX);

	CHECK_EQ_U(cap, 64);
	CHECK(GROW_RESIZE(ids, cap, 1) == 0 && GROW_RESIZE(vals, cap, 3) == 0);
	ids[cap - 1] = 1;
	vals[cap * 3 - 1] = 2.5;
	cap = grow_cap(cap, cap + 1, 64, SIZE_MAX);
	CHECK_EQ_U(cap, 128);
	CHECK(GROW_RESIZE(ids, cap, 1) == 0 && GROW_RESIZE(vals, cap, 3) == 0);
	CHECK(ids[63] == 1 && vals[191] == 2.5);
	ids[cap - 1] = 3;
	vals[cap * 3 - 1] = 4.5;
	double *kept = vals;
	CHECK(GROW_RESIZE(vals, SIZE_MAX / 8, 3) == ERR_NOMEM);
	CHECK(vals == kept && vals[383] == 4.5);
	/* No bytes at all is still an array (realloc(p, 0) may free p). */
	CHECK(GROW_RESIZE(ids, 0, 1) == 0 && ids != NULL);
	free(ids);
	free(vals);
}

int main(void)
{
	test_cap();
	test_sequence();
	test_no_op();
	test_overflow();
	test_narrow_cap();
	test_resize();
	return unit_done("grow");
}
