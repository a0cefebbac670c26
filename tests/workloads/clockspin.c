// SPDX-License-Identifier: MIT
/*
 * clockspin.c - calls clock_gettime(CLOCK_MONOTONIC) in a loop for S
 * seconds (default 0.3): where the clock source allows it, the time is
 * read in the vdso, so most samples of a cpu-clock recording fall in
 * [vdso] (script-perf.t names them as perf does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 0.3;
	struct timespec ts;
	double start, t;
	unsigned long calls = 0;

	if (argc > 2 || !(secs > 0 && secs < 3600)) {
		fprintf(stderr, "usage: clockspin [SECONDS]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	start = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	do {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
		calls++;
	} while (t - start < secs);
	printf("clockspin: %lu calls\n", calls);
	return 0;
}
