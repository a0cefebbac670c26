// SPDX-License-Identifier: MIT
/*
 * grow.c - the one growable array of the library: room for a number of
 * elements in an array that doubles (its first size 64), the new part
 * zeroed, so that an entry appended starts empty.
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
	memset((char *)q + *cap * size, 0, (c - *cap) * size);
	*a = q;
	*cap = c;
	return 0;
}
