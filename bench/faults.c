// SPDX-License-Identifier: MIT
/*
 * faults.c - a workload for the benchmarks (make bench): N page faults
 * in bounded memory. Maps CHUNK fresh anonymous pages, writes one byte
 * to each (one fault each), unmaps them, and again until N pages were
 * touched. A fixed amount of work: compare wall times. --sites: the
 * chunks come from three call sites, site_a, site_b and site_c, in the
 * proportion 4:2:1 (the budget bench's data objects, record --objects).
 *
 *	faults [--sites] N [CHUNK]	(CHUNK default 4096 pages: 16 MiB)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "count.h"

/* @k fresh pages, @v written to each, unmapped: 0, or -1 (inlined:
   each site is mmap's caller) */
static inline __attribute__((always_inline)) int touch(unsigned long k,
							long page, char v)
{
	volatile char *p = mmap(NULL, k * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("faults: mmap");
		return -1;
	}
	for (unsigned long i = 0; i < k; i++)
		p[i * page] = v;
	munmap((void *)p, k * page);
	return 0;
}

/* the three sites of --sites: each its own caller of mmap (and each
   writes its own byte: identical functions would be folded into one) */
static __attribute__((noinline)) int site_a(unsigned long k, long page)
{
	return touch(k, page, 1);
}

static __attribute__((noinline)) int site_b(unsigned long k, long page)
{
	return touch(k, page, 2);
}

static __attribute__((noinline)) int site_c(unsigned long k, long page)
{
	return touch(k, page, 3);
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long n, chunk = 4096, done = 0, round = 0;
	int sites = argc > 1 && !strcmp(argv[1], "--sites");

	argc -= sites;
	argv += sites;
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: faults [--sites] N [CHUNK]\n");
		return 2;
	}
	n = bench_count("faults", argv[1], "N");
	if (argc == 3)
		chunk = bench_count("faults", argv[2], "CHUNK");
	while (done < n) {
		unsigned long k = n - done < chunk ? n - done : chunk;
		unsigned int r = round++ % 7;
		int err;

		if (!sites)
			err = touch(k, page, (char)round);
		else
			err = r < 4 ? site_a(k, page) : r < 6 ? site_b(k, page) :
			      site_c(k, page);
		if (err)
			return 1;
		done += k;
	}
	return 0;
}
