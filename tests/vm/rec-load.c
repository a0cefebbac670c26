// SPDX-License-Identifier: MIT
/*
 * rec-load - a mixed multi-threaded load for the attribution test in the
 * guest (tests/vm/guest/40-record-attr.sh): more threads than CPUs, each
 * named, alternating a busy spell with a sleep so that the scheduler
 * switches often, plus one thread that only spins.
 *
 *	rec-load [--threads N] [--seconds S]	(defaults 6, 2)
 *
 * Prints "rec-load: pid=P threads=N" to stderr when all threads run.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void spin(uint64_t ns)
{
	uint64_t end = now_ns() + ns;
	volatile uint64_t x = 0;

	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i;
}

static void *worker(void *arg)
{
	long i = (long)arg;
	char name[16];
	/* thread i: busy 200 us .. 1.4 ms, then sleep 100 us .. 700 us */
	uint64_t busy = 200000 + 200000 * (uint64_t)(i % 7);
	struct timespec nap = { 0, 100000 + 100000 * (i % 7) };

	snprintf(name, sizeof(name), "load-%ld", i);
	pthread_setname_np(pthread_self(), name);
	while (!atomic_load(&stop)) {
		spin(busy);
		if (i)		/* thread 0 never sleeps */
			nanosleep(&nap, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	long n = 6;
	double seconds = 2;
	pthread_t *th;
	struct timespec ts;
	int c;

	while ((c = getopt_long(argc, argv, "n:s:", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = atol(optarg);
			break;
		case 's':
			seconds = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: rec-load [--threads N] [--seconds S]\n");
			return 2;
		}
	}
	if (n < 1 || n > 256 || !(seconds > 0)) {
		fprintf(stderr, "rec-load: bad --threads or --seconds\n");
		return 2;
	}
	th = calloc((size_t)n, sizeof(*th));
	if (!th)
		return 1;
	for (long i = 0; i < n; i++) {
		if (pthread_create(&th[i], NULL, worker, (void *)i)) {
			fprintf(stderr, "rec-load: cannot create threads\n");
			return 1;
		}
	}
	fprintf(stderr, "rec-load: pid=%d threads=%ld\n", getpid(), n);
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	atomic_store(&stop, 1);
	for (long i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	free(th);
	return 0;
}
