// SPDX-License-Identifier: MIT
/*
 * grow.c - the one growable array of the library: room for a number of
 * elements in an array that doubles (its first size 64); core_grow_zero
 * zeroes the new part, for arrays whose entries start empty (counters
 * added to). core_grow leaves it as realloc does: a large array's new
 * pages stay untouched, not resident, until used.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

int core_grow(void *arrp, size_t *cap, size_t need, size_t size)
{
	void **a = arrp;
	size_t c = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (!size || c > SIZE_MAX / size)
		return -ENOMEM;
	q = realloc(*a, c * size);
	if (!q)
		return -ENOMEM;
	*a = q;
	*cap = c;
	return 0;
}

int core_grow_zero(void *arrp, size_t *cap, size_t need, size_t size)
{
	size_t old = *cap;
	int err = core_grow(arrp, cap, need, size);

	if (!err && *cap > old)
		memset(*(char **)arrp + old * size, 0, (*cap - old) * size);
	return err;
}
