/* grow.c - capacity growth for appending arrays: doubling, capped, overflow-checked. */
#include "common/grow.h"

#include <stdlib.h>

#include "common/err.h"

size_t grow_cap(size_t cap, size_t need, size_t first, size_t max)
{
	if (need <= cap)
		return cap;
	if (need > max)
		return 0;
	size_t n = cap ? cap : first ? first : 1;
	/* Doubling stops at max, so it cannot wrap. */
	while (n < need)
		n = n > max / 2 ? max : n * 2;
	return n < max ? n : max;
}

int grow_resize(void **arr, size_t n, size_t elem)
{
	if (elem && n > SIZE_MAX / elem)
		return ERR_NOMEM;
	size_t bytes = n * elem;
	/* realloc(p, 0) may free p and return NULL: that would be a failure
	 * that has lost the array. */
	void *p = realloc(*arr, bytes ? bytes : 1);
	if (!p)
		return ERR_NOMEM;
	*arr = p;
	return 0;
}

int grow_array(void **arr, size_t *cap, size_t need, size_t elem, size_t first, size_t max)
{
	if (need <= *cap)
		return 0;
	size_t n = grow_cap(*cap, need, first, max);
	if (!n || grow_resize(arr, n, elem) < 0)
		return ERR_NOMEM;
	*cap = n;
	return 0;
}
