// SPDX-License-Identifier: MIT
/*
 * switch-pingpong - a context-switch-heavy workload for bench/vm-switch.sh
 * (static binary /pebs/switch-pingpong in the qemu guest): two threads
 * pinned to one CPU hand a byte back and forth over two pipes, so every
 * round trip is two context switches on that CPU and nothing else.
 *
 *   switch-pingpong TRIPS [CPU]     CPU: default the highest online one
 *
 * Prints "ok trips=N cpu=C ns=ELAPSED switches_per_s=R" (CLOCK_MONOTONIC
 * around the round trips only), or "FAIL <reason>" with exit 1.
 */
#include <pthread.h>

#include "vm-map.h"

static int ab[2], ba[2];	/* main -> partner, partner -> main */
static unsigned long trips;
static unsigned int cpu;

static void *partner_main(void *arg)
{
	unsigned long i;
	char b;

	(void)arg;
	pin_to(cpu);
	for (i = 0; i < trips; i++)
		if (read(ab[0], &b, 1) != 1 || write(ba[1], &b, 1) != 1)
			fail("partner: pipe: %s", strerror(errno));
	return NULL;
}

int main(int argc, char **argv)
{
	static bool online[MAX_CPUS];
	uint64_t t0, t1;
	unsigned long i;
	pthread_t t;
	char b = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || !(trips = strtoul(argv[1], NULL, 10))) {
		fprintf(stderr, "usage: switch-pingpong TRIPS [CPU]\n");
		return 2;
	}
	cpu = argc > 2 ? strtoul(argv[2], NULL, 10)
		       : (unsigned int)read_cpulist("/sys/devices/system/cpu/online",
						    online, MAX_CPUS);
	if (pipe(ab) || pipe(ba))
		fail("pipe: %s", strerror(errno));
	pin_to(cpu);
	if (pthread_create(&t, NULL, partner_main, NULL))
		fail("pthread_create");
	/* one untimed round trip: the partner is pinned and waiting */
	if (write(ab[1], &b, 1) != 1 || read(ba[0], &b, 1) != 1)
		fail("pipe: %s", strerror(errno));
	t0 = now_ns();
	for (i = 1; i < trips; i++)
		if (write(ab[1], &b, 1) != 1 || read(ba[0], &b, 1) != 1)
			fail("pipe: %s", strerror(errno));
	t1 = now_ns();
	pthread_join(t, NULL);
	printf("ok trips=%lu cpu=%u ns=%llu switches_per_s=%.0f\n", trips - 1,
	       cpu, (unsigned long long)(t1 - t0),
	       2.0 * (trips - 1) * 1e9 / (double)(t1 - t0));
	return 0;
}
