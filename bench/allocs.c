// SPDX-License-Identifier: MIT
/*
 * allocs.c - an allocation-heavy workload for the benchmarks (make
 * bench): THREADS threads each make N allocations and frees. Each
 * thread keeps a ring of 4096 live blocks; every step frees a block
 * and replaces it with one of 16-1039 bytes (its first byte written),
 * and one step in 256 makes a block of 128 KiB instead (one the
 * object tracker always follows; --small: none, only small blocks, the
 * workload issue 24 names). A fixed amount of work, the same sizes every
 * run (a fixed seed per thread): compare wall times.
 *
 *	allocs [--small] THREADS N
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count.h"

#define RING	4096
#define BIG	(128 * 1024)

static unsigned long steps;
static int small_only;

/* xorshift64: the same sequence every run */
static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void *run(void *arg)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL * ((uintptr_t)arg + 1);
	char **ring = calloc(RING, sizeof(*ring));
	unsigned long i;

	if (!ring)
		return (void *)1;
	for (i = 0; i < steps; i++) {
		uint64_t r = next(&x);
		size_t slot = r % RING;
		size_t len = small_only || r >> 56 ? 16 + (r >> 12) % 1024 : BIG;

		free(ring[slot]);
		ring[slot] = malloc(len);
		if (!ring[slot])
			return (void *)1;
		ring[slot][0] = (char)i;
	}
	for (i = 0; i < RING; i++)
		free(ring[i]);
	free(ring);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long nt, t;
	pthread_t *th;
	int bad = 0;

	if (argc > 1 && !strcmp(argv[1], "--small")) {
		small_only = 1;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: allocs [--small] THREADS N\n");
		return 2;
	}
	nt = bench_count("allocs", argv[1], "THREADS");
	steps = bench_count("allocs", argv[2], "N");
	th = calloc(nt, sizeof(*th));
	if (!th)
		return 1;
	for (t = 0; t < nt; t++)
		if (pthread_create(&th[t], NULL, run, (void *)(uintptr_t)t)) {
			fprintf(stderr, "allocs: cannot start thread %lu\n", t);
			return 1;
		}
	for (t = 0; t < nt; t++) {
		void *rv;

		pthread_join(th[t], &rv);
		bad |= rv != NULL;
	}
	free(th);
	return bad;
}
