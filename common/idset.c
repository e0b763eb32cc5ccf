/* idset.c - a set of connection ids as sorted disjoint ranges. */
#include "common/idset.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/err.h"

struct idset_range {
	uint64_t lo, hi; /* inclusive */
};

struct idset {
	size_t n;
	struct idset_range r[]; /* sorted by lo, disjoint, not adjacent */
};

static int by_lo(const void *a, const void *b)
{
	const struct idset_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* One id at *p: digits, >= 1; advances *p. 0, or ERR_USAGE when there is none. */
static int parse_id(const char **p, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return ERR_USAGE;
	errno = 0;
	unsigned long long v = strtoull(*p, &end, 10);
	if (errno || v == 0)
		return ERR_USAGE;
	*p = end;
	*out = v;
	return 0;
}

struct idset *idset_parse(const char *list, char *errbuf, size_t errlen)
{
	size_t cap = 1;

	for (const char *c = list; *c; c++)
		cap += *c == ',';
	if (cap > IDSET_MAX_RANGES) {
		snprintf(errbuf, errlen, "'%.40s...': more than %d ids or ranges", list,
			 IDSET_MAX_RANGES);
		return NULL;
	}
	struct idset *s = malloc(sizeof(*s) + cap * sizeof(s->r[0]));

	if (!s) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	s->n = 0;
	for (const char *p = list;;) {
		struct idset_range r;

		if (parse_id(&p, &r.lo) < 0)
			goto bad;
		r.hi = r.lo;
		if (*p == '-') {
			p++;
			if (*p == '\0' || *p == ',')
				r.hi = UINT64_MAX; /* "7-": to the end */
			else if (parse_id(&p, &r.hi) < 0 || r.hi < r.lo)
				goto bad;
		}
		s->r[s->n++] = r;
		if (*p == '\0')
			break;
		if (*p++ != ',')
			goto bad;
	}
	qsort(s->r, s->n, sizeof(s->r[0]), by_lo);
	size_t w = 0;
	for (size_t i = 1; i < s->n; i++) {
		if (s->r[w].hi == UINT64_MAX || s->r[i].lo <= s->r[w].hi + 1) {
			if (s->r[i].hi > s->r[w].hi)
				s->r[w].hi = s->r[i].hi;
		} else {
			s->r[++w] = s->r[i];
		}
	}
	s->n = w + 1;
	return s;
bad:
	snprintf(errbuf, errlen,
		 "'%s': not a list of connection ids (as the report numbers them: 3, 1,4-9 or 7-)",
		 list);
	free(s);
	return NULL;
}

void idset_free(struct idset *s)
{
	free(s);
}

bool idset_has(const struct idset *s, uint64_t id)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (id < s->r[mid].lo)
			hi = mid;
		else if (id > s->r[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

uint64_t idset_count(const struct idset *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (s->r[i].hi == UINT64_MAX || s->r[i].hi - s->r[i].lo + 1 > UINT64_MAX - 1 - n)
			return UINT64_MAX;
		n += s->r[i].hi - s->r[i].lo + 1;
	}
	return n;
}

uint64_t idset_first(const struct idset *s)
{
	return s->r[0].lo;
}
