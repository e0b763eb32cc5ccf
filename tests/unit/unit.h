/* unit.h - a minimal test harness: CHECK macros and a closing tally line. */
#ifndef TCPSIFT_UNIT_H
#define TCPSIFT_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int unit_passed, unit_failed;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (cond) {                                                                        \
			unit_passed++;                                                             \
		} else {                                                                           \
			unit_failed++;                                                             \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
		}                                                                                  \
	} while (0)

#define CHECK_EQ_U(a, b)                                                                           \
	do {                                                                                       \
		uint64_t unit_a_ = (uint64_t)(a), unit_b_ = (uint64_t)(b);                         \
		if (unit_a_ == unit_b_) {                                                          \
			unit_passed++;                                                             \
		} else {                                                                           \
			unit_failed++;                                                             \
			fprintf(stderr, "%s:%d: %s == %s failed: %" PRIu64 " != %" PRIu64 "\n",    \
				__FILE__, __LINE__, #a, #b, unit_a_, unit_b_);                     \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *unit_a_ = (a), *unit_b_ = (b);                                         \
		if (unit_a_ && unit_b_ && strcmp(unit_a_, unit_b_) == 0) {                         \
			unit_passed++;                                                             \
		} else {                                                                           \
			unit_failed++;                                                             \
			fprintf(stderr, "%s:%d: %s == \"%s\" failed: got \"%s\"\n", __FILE__,      \
				__LINE__, #a, unit_b_ ? unit_b_ : "(null)",                        \
				unit_a_ ? unit_a_ : "(null)");                                     \
		}                                                                                  \
	} while (0)

/* Print the tally every runner understands and return the exit status. */
static inline int unit_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif
