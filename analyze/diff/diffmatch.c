/* diffmatch.c - tcpsift diff's pairing: sorted merges by 4-tuple and by server endpoint, or
 * first-packet order. */
#include "analyze/diff/diffmatch.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

typedef int dm_cmp_fn(const struct diff_conn *a, const struct diff_conn *b);

static int id_cmp(const struct diff_conn *a, const struct diff_conn *b)
{
	return (a->id > b->id) - (a->id < b->id);
}

static int addr_cmp(const struct dec_addr *a, const struct dec_addr *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	return memcmp(a->a, b->a, sizeof(a->a));
}

static int endpoint_cmp(const struct diff_conn *a, const struct diff_conn *b)
{
	int r = addr_cmp(&a->server, &b->server);

	if (r)
		return r;
	return (a->server_port > b->server_port) - (a->server_port < b->server_port);
}

static int tuple_cmp(const struct diff_conn *a, const struct diff_conn *b)
{
	int r = addr_cmp(&a->client, &b->client);

	if (r)
		return r;
	if (a->client_port != b->client_port)
		return a->client_port < b->client_port ? -1 : 1;
	return endpoint_cmp(a, b);
}

/* qsort()'s comparators over arrays of pointers: the key, then first packet. */
static int by_tuple(const void *pa, const void *pb)
{
	const struct diff_conn *const *a = pa, *const *b = pb;
	int r = tuple_cmp(*a, *b);
	return r ? r : id_cmp(*a, *b);
}

static int by_endpoint(const void *pa, const void *pb)
{
	const struct diff_conn *const *a = pa, *const *b = pb;
	int r = endpoint_cmp(*a, *b);
	return r ? r : id_cmp(*a, *b);
}

static int by_id(const void *pa, const void *pb)
{
	const struct diff_conn *const *a = pa, *const *b = pb;
	return id_cmp(*a, *b);
}

static int pair_by_a(const void *pa, const void *pb)
{
	const struct diff_pair *a = pa, *b = pb;
	return id_cmp(a->a, b->a);
}

/* NOLINTBEGIN(bugprone-sizeof-expression): arrays of pointers */
static void sort_ptrs(const struct diff_conn **v, size_t n, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp);
}
/* NOLINTEND(bugprone-sizeof-expression) */

/* x[*nx] and y[*ny], both sorted by cmp then first packet: equal keys
 * pair in order, k-th with k-th; what is left stays in x and y, in the
 * same order (written over what was read). */
static void merge(const struct diff_conn **x, size_t *nx, const struct diff_conn **y, size_t *ny,
		  dm_cmp_fn *cmp, enum diff_match how, struct diffmatch_out *o)
{
	size_t i = 0, j = 0, lx = 0, ly = 0;

	while (i < *nx && j < *ny) {
		int r = cmp(x[i], y[j]);
		if (r == 0)
			o->pairs[o->npairs++] = (struct diff_pair){x[i++], y[j++], how};
		else if (r < 0)
			x[lx++] = x[i++];
		else
			y[ly++] = y[j++];
	}
	while (i < *nx)
		x[lx++] = x[i++];
	while (j < *ny)
		y[ly++] = y[j++];
	*nx = lx;
	*ny = ly;
}

void diffmatch_free(struct diffmatch_out *out)
{
	free(out->pairs);
	free(out->only[0]);
	free(out->only[1]);
	memset(out, 0, sizeof(*out));
}

int diffmatch_pair(enum diff_match how, const struct diff_conn *a, size_t na,
		   const struct diff_conn *b, size_t nb, struct diffmatch_out *out)
{
	size_t n = na < nb ? na : nb;
	const struct diff_conn **x, **y;

	memset(out, 0, sizeof(*out));
	/* NOLINTBEGIN(bugprone-sizeof-expression): arrays of pointers */
	out->pairs = malloc((n ? n : 1) * sizeof(*out->pairs));
	x = out->only[0] = malloc((na ? na : 1) * sizeof(*x));
	y = out->only[1] = malloc((nb ? nb : 1) * sizeof(*y));
	/* NOLINTEND(bugprone-sizeof-expression) */
	if (!out->pairs || !x || !y) {
		diffmatch_free(out);
		return ERR_NOMEM;
	}
	for (size_t k = 0; k < na; k++)
		x[k] = &a[k];
	for (size_t k = 0; k < nb; k++)
		y[k] = &b[k];
	if (how == DIFF_MATCH_ORDER) {
		for (size_t k = 0; k < n; k++)
			out->pairs[out->npairs++] =
			    (struct diff_pair){x[k], y[k], DIFF_MATCH_ORDER};
		memmove(x, x + n, (na - n) * sizeof(*x));
		memmove(y, y + n, (nb - n) * sizeof(*y));
		na -= n;
		nb -= n;
	}
	if (how == DIFF_MATCH_AUTO || how == DIFF_MATCH_TUPLE) {
		sort_ptrs(x, na, by_tuple);
		sort_ptrs(y, nb, by_tuple);
		merge(x, &na, y, &nb, tuple_cmp, DIFF_MATCH_TUPLE, out);
	}
	if (how == DIFF_MATCH_AUTO || how == DIFF_MATCH_ENDPOINT) {
		sort_ptrs(x, na, by_endpoint);
		sort_ptrs(y, nb, by_endpoint);
		merge(x, &na, y, &nb, endpoint_cmp, DIFF_MATCH_ENDPOINT, out);
	}
	if (out->npairs > 1)
		qsort(out->pairs, out->npairs, sizeof(*out->pairs), pair_by_a);
	sort_ptrs(x, na, by_id);
	sort_ptrs(y, nb, by_id);
	out->nonly[0] = na;
	out->nonly[1] = nb;
	return 0;
}
