// SPDX-License-Identifier: MIT
/*
 * bigmem.c - zeroed memory for large hash tables that are read at
 * random (the report's row index, the sharing feed's lines): mapped on
 * its own and, when large, aligned to and advised for transparent huge
 * pages, so that a lookup costs a cache miss and not a TLB miss too.
 * The memory is untouched (not resident) until used.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "core/internal.h"

#define HUGE_SIZE	(2u << 20)

void *big_calloc(size_t n, size_t size)
{
	size_t len, extra;
	uintptr_t p, a;
	void *m;

	if (size && n > SIZE_MAX / size - HUGE_SIZE)
		return NULL;
	len = n * size;
	if (len < HUGE_SIZE) {
		m = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return m == MAP_FAILED ? NULL : m;
	}
	/* a 2 MiB aligned start: map more, cut the ends off */
	len = (len + HUGE_SIZE - 1) & ~(size_t)(HUGE_SIZE - 1);
	m = mmap(NULL, len + HUGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	p = (uintptr_t)m;
	a = (p + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1);
	if (a > p)
		munmap(m, a - p);
	extra = HUGE_SIZE - (a - p);
	if (extra)
		munmap((void *)(a + len), extra);
	madvise((void *)a, len, MADV_HUGEPAGE);
	return (void *)a;
}

void big_free(void *p, size_t n, size_t size)
{
	size_t len = n * size;

	if (!p)
		return;
	if (len >= HUGE_SIZE)
		len = (len + HUGE_SIZE - 1) & ~(size_t)(HUGE_SIZE - 1);
	munmap(p, len ? len : 1);
}
