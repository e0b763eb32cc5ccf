/* test_parjson.c - values rendered by several threads come out as one thread writes them. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/jsonout.h"
#include "analyze/report/parjson.h"
#include "tests/unit/unit.h"

/*
 * Items of very different sizes (a connection with a thousand findings
 * beside one with none), an error inside one of them (a NaN: ERR_USAGE),
 * counts around the round and the threshold for threads, and one to
 * sixteen threads: the bytes that would go out and the error must be the
 * single thread's.
 */

struct items {
	size_t n, bad; /* bad: the item that fails (n: none) */
	size_t *fetched;
};

static const void *item_at(void *ctx, size_t k)
{
	struct items *x = ctx;
	x->fetched[k]++;
	return (const void *)(k + 1); /* never NULL */
}

static void render(void *ctx, struct jo_writer *w, const void *item)
{
	const struct items *x = ctx;
	size_t k = (size_t)item - 1, reps = (k * 7919) % 97;

	jo_w_obj(w);
	jo_kint(w, "id", (int64_t)k);
	jo_w_key(w, "list");
	jo_w_arr(w);
	for (size_t j = 0; j < reps * (k % 5 == 0 ? 20 : 1); j++)
		jo_w_int(w, (int64_t)(j * k));
	jo_w_arr_end(w);
	if (k == x->bad)
		jo_kreal(w, "nan", NAN);
	jo_kstr(w, "s", k % 3 ? "x" : "a longer string value");
	jo_w_obj_end(w);
}

/* What pj_write() leaves to go out: the buffer up to the first error. */
static char *written(const struct jo_writer *w, size_t *len)
{
	*len = w->err ? w->err_at : w->b.len;
	char *s = malloc(*len + 1);
	memcpy(s, w->b.p ? w->b.p : "", *len);
	s[*len] = '\0';
	return s;
}

static void one_case(size_t n, size_t bad, unsigned threads)
{
	struct jo_writer a, b;
	size_t la, lb;
	size_t *fa = calloc(n + 1, sizeof(*fa)), *fb = calloc(n + 1, sizeof(*fb));
	struct items xa = {n, bad, fa}, xb = {n, bad, fb};

	jo_w_init(&a, NULL, 1u << 30, 1);
	jo_w_init(&b, NULL, 1u << 30, 1);
	jo_w_raw(&a, "[");
	jo_w_raw(&b, "[");
	int ra = pj_write(&a, n, 1, ",\n", item_at, render, &xa);
	int rb = pj_write(&b, n, threads, ",\n", item_at, render, &xb);
	char *sa = written(&a, &la), *sb = written(&b, &lb);
	bool same = ra == rb && la == lb && memcmp(sa, sb, la) == 0;
	if (!same)
		fprintf(stderr, "n %zu bad %zu threads %u: rc %d/%d, %zu/%zu bytes\n", n, bad,
			threads, ra, rb, la, lb);
	CHECK(same);
	CHECK(bad < n ? ra == ERR_USAGE : ra == 0);
	/* Each item fetched once, in order, none past the round of an error. */
	bool once = true;
	for (size_t k = 0; k < n && k <= bad; k++)
		once = once && fb[k] == 1;
	CHECK(once);
	free(sa);
	free(sb);
	free(fa);
	free(fb);
	jo_w_free(&a);
	jo_w_free(&b);
}

/* pj_for(): every item once, each thread's sum in its own place. */
struct sums {
	size_t fetched;
	uint64_t sum[PJ_MAX_THREADS];
	unsigned char *seen;
};

static const void *sum_item(void *ctx, size_t k)
{
	((struct sums *)ctx)->fetched++;
	return (const void *)(k + 1);
}

static void sum_work(void *ctx, unsigned thread, size_t k, const void *item)
{
	struct sums *x = ctx;
	x->sum[thread] += (uint64_t)(size_t)item;
	__atomic_fetch_add(&x->seen[k], 1, __ATOMIC_RELAXED);
}

static void test_for(size_t n, unsigned threads)
{
	struct sums x = {.seen = calloc(n + 1, 1)};
	unsigned used = pj_for(n, threads, sum_item, sum_work, &x);
	uint64_t total = 0;
	bool once = true;

	CHECK(used >= 1 && used <= PJ_MAX_THREADS && used <= (threads ? threads : 1));
	for (unsigned t = 0; t < PJ_MAX_THREADS; t++) {
		CHECK(t < used || x.sum[t] == 0);
		total += x.sum[t];
	}
	for (size_t k = 0; k < n; k++)
		once = once && x.seen[k] == 1;
	CHECK(once);
	CHECK_EQ_U(total, (uint64_t)n * (n + 1) / 2);
	CHECK_EQ_U(x.fetched, n);
	free(x.seen);
}

int main(void)
{
	static const size_t counts[] = {0, 1, 63, 64, 65, 511, 512, 513, 1500};
	static const unsigned threads[] = {2, 3, 16, 40};

	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
			size_t n = counts[c];
			one_case(n, n, threads[t]);
			if (n) {
				one_case(n, 0, threads[t]);
				one_case(n, n / 2, threads[t]);
				one_case(n, n - 1, threads[t]);
			}
		}
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		test_for(counts[c], 1);
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
			test_for(counts[c], threads[t]);
	}
	return unit_done("parjson");
}
