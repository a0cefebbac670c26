// SPDX-License-Identifier: MIT
/*
 * heatfaults - page faults on known data objects, a known number of
 * times each, for the heat map's labels (tests/cli/plot.t): prints its
 * pid and the objects' addresses, waits until GOFILE exists (so that a
 * recorder attached with -p sees the whole run), then drops pages with
 * MADV_DONTNEED and touches them again: the main thread's stack 24
 * times, the malloc (brk) heap 18 times, the data array `table` 12
 * times, a private mapping of this program's file 8 times, and a second
 * thread's stack 4 times. Each round faults on every page once.
 *
 *	heatfaults GOFILE
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PG	4096UL

char table[8 * PG] __attribute__((aligned(4096))) = { 1 };

/* drop the whole pages inside [p, p + n) */
static void drop(void *p, size_t n)
{
	uintptr_t a = ((uintptr_t)p + PG - 1) & ~(PG - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(PG - 1);

	if (e > a && madvise((void *)a, e - a, MADV_DONTNEED)) {
		perror("heatfaults: madvise");
		exit(1);
	}
}

static void touch(volatile char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += PG)
		p[i] = 1;
}

/* ten pages of stack below the caller: touched, then dropped */
static __attribute__((noinline)) void stack_round(void)
{
	volatile char buf[10 * PG];

	touch(buf, sizeof(buf));
	drop((char *)buf, sizeof(buf));
}

static void *thread(void *arg)
{
	int i;

	for (i = 0; i < 4; i++)
		stack_round();
	return arg;
}

int main(int argc, char **argv)
{
	char *heap = malloc(12 * PG), *file;
	FILE *f = argc == 2 ? fopen("/proc/self/exe", "r") : NULL;
	pthread_t t;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: heatfaults GOFILE\n");
		return 2;
	}
	if (!heap || !f)
		return 1;
	file = mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		    fileno(f), 0);
	if (file == MAP_FAILED)
		return 1;
	printf("%d %p %p %p\n", (int)getpid(), (void *)heap, (void *)table,
	       (void *)file);
	fflush(stdout);
	for (i = 0; access(argv[1], F_OK) && i < 30000; i++)
		usleep(1000);
	for (i = 0; i < 24; i++) {
		stack_round();
		if (i < 18) {
			touch(heap + PG, 10 * PG);
			drop(heap + PG, 10 * PG);
		}
		if (i < 12) {
			touch(table, sizeof(table));
			drop(table, sizeof(table));
		}
		if (i < 8) {
			touch(file, 8 * PG);
			drop(file, 8 * PG);
		}
	}
	if (pthread_create(&t, NULL, thread, NULL) || pthread_join(t, NULL))
		return 1;
	return 0;
}
