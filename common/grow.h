/* grow.h - room for more in a heap array that grows as it is appended to. */
#ifndef TCPSIFT_GROW_H
#define TCPSIFT_GROW_H

#include <stddef.h>
#include <stdint.h>

/*
 * The capacity policy every appending array shares, in one place with its
 * overflow checks: the first allocation holds `first` elements, each later
 * one doubles the capacity until `need` fits, never beyond `max` (a
 * capacity that would pass max is max). The caller owns the array, its
 * capacity and its count, and frees the array; on failure the array and
 * its capacity are left as they were, still holding what they held.
 *
 * GROW(arr, cap, need, first) and GROW_MAX(..., max) take the array and
 * its capacity as lvalues (evaluated more than once, so no side effects):
 * the element size comes from the pointer, and a capacity narrower than
 * size_t (uint32_t, unsigned) is never grown past what it can hold. They
 * return 0 at once when need <= cap (no call), else 0 or ERR_NOMEM.
 */

/* The capacity for need elements grown from cap (cap when need <= cap);
 * 0 when need > max. A first of 0 counts as 1. */
size_t grow_cap(size_t cap, size_t need, size_t first, size_t max);

/* *arr reallocated to n elements of elem bytes; 0, or ERR_NOMEM (the size
 * overflows, or no memory) with *arr untouched. For arrays that share one
 * capacity: each is resized to grow_cap()'s answer before the capacity is
 * stored, so a failure leaves every one at least the old capacity. */
int grow_resize(void **arr, size_t n, size_t elem);

/* *cap made >= need by grow_cap() and grow_resize(); 0, or ERR_NOMEM
 * (need > max, the size overflows, no memory) with *arr and *cap
 * untouched. */
int grow_array(void **arr, size_t *cap, size_t need, size_t elem, size_t first, size_t max);

/* The element's size by its type: clang-tidy 14 takes sizeof(*arr) of an
 * array of pointers for a mistake (bugprone-sizeof-expression). */
#define GROW_ELEM(arr) sizeof(__typeof__(*(arr)))

#define GROW(arr, cap, need, first) GROW_MAX(arr, cap, need, first, SIZE_MAX)

#define GROW_MAX(arr, cap, need, first, max)                                                       \
	__extension__({                                                                            \
		_Static_assert((__typeof__(cap))-1 > 0, "an unsigned capacity");                   \
		size_t grow_n_ = (need), grow_c_ = (cap), grow_m_ = (max);                         \
		size_t grow_t_ = (__typeof__(cap))-1; /* what cap can hold */                      \
		int grow_rc_ = 0;                                                                  \
		if (grow_n_ > grow_c_) {                                                           \
			void *grow_p_ = (arr);                                                     \
			grow_rc_ = grow_array(&grow_p_, &grow_c_, grow_n_, GROW_ELEM(arr),         \
					      (first), grow_m_ < grow_t_ ? grow_m_ : grow_t_);     \
			if (grow_rc_ == 0) {                                                       \
				(arr) = grow_p_;                                                   \
				(cap) = (__typeof__(cap))grow_c_;                                  \
			}                                                                          \
		}                                                                                  \
		grow_rc_;                                                                          \
	})

/* arr resized to n slots of `each` elements (a small count: a row of a
 * table); 0 or ERR_NOMEM, arr untouched on failure. */
#define GROW_RESIZE(arr, n, each)                                                                  \
	__extension__({                                                                            \
		void *grow_p_ = (arr);                                                             \
		int grow_rc_ = grow_resize(&grow_p_, (n), (each)*GROW_ELEM(arr));                  \
		if (grow_rc_ == 0)                                                                 \
			(arr) = grow_p_;                                                           \
		grow_rc_;                                                                          \
	})

#endif
