/* test_idset.c - --conn lists: parsing, merging and membership (common/idset.h). */
#include <stdint.h>
#include <stdio.h>

#include "common/idset.h"
#include "tests/unit/unit.h"

static struct idset *parse(const char *s)
{
	char err[160];

	return idset_parse(s, err, sizeof(err));
}

static void test_single_and_ranges(void)
{
	struct idset *s = parse("3");

	CHECK(s && idset_has(s, 3) && !idset_has(s, 2) && !idset_has(s, 4));
	CHECK_EQ_U(idset_count(s), 1);
	idset_free(s);
	s = parse("9-12,1,4-5,11-20,6");
	CHECK(s);
	for (uint64_t id = 0; id < 25; id++)
		CHECK_EQ_U(idset_has(s, id),
			   id == 1 || (id >= 4 && id <= 6) || (id >= 9 && id <= 20));
	CHECK_EQ_U(idset_count(s), 1 + 3 + 12);
	CHECK_EQ_U(idset_first(s), 1);
	idset_free(s);
	s = parse("7-,2");
	CHECK(s && idset_has(s, 7) && idset_has(s, UINT64_MAX) && !idset_has(s, 6) &&
	      idset_has(s, 2));
	CHECK_EQ_U(idset_count(s), UINT64_MAX);
	idset_free(s);
}

static void test_rejects(void)
{
	static const char *const bad[] = {
	    "", "0", "a", "1,", "1,,2", "5-3", "-3", "1 2", "1-2-3", "+1", "99999999999999999999"};
	char err[160];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		struct idset *s = idset_parse(bad[i], err, sizeof(err));

		CHECK(s == NULL);
		CHECK(err[0] != '\0');
		idset_free(s);
	}
}

int main(void)
{
	test_single_and_ranges();
	test_rejects();
	return unit_done("idset");
}
