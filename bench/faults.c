// SPDX-License-Identifier: MIT
/*
 * faults.c - a workload for the benchmarks (make bench): N page faults
 * in bounded memory. Maps CHUNK fresh anonymous pages, writes one byte
 * to each (one fault each), unmaps them, and again until N pages were
 * touched. A fixed amount of work: compare wall times.
 *
 *	faults N [CHUNK]	(CHUNK default 4096 pages: 16 MiB)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "count.h"

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long n, chunk = 4096, done = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: faults N [CHUNK]\n");
		return 2;
	}
	n = bench_count("faults", argv[1], "N");
	if (argc == 3)
		chunk = bench_count("faults", argv[2], "CHUNK");
	while (done < n) {
		unsigned long k = n - done < chunk ? n - done : chunk;
		volatile char *p = mmap(NULL, k * page, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("faults: mmap");
			return 1;
		}
		for (unsigned long i = 0; i < k; i++)
			p[i * page] = (char)i;
		munmap((void *)p, k * page);
		done += k;
	}
	return 0;
}
