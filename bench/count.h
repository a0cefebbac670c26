/* SPDX-License-Identifier: MIT */
/*
 * count.h - the benchmarks' workloads' one argument grammar: a positive
 * count (decimal, 0x hex or 0 octal, as strtoul reads it). A bad one is
 * a line naming the program, the argument and the fix, and exit 2.
 */
#ifndef BENCH_COUNT_H
#define BENCH_COUNT_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static inline unsigned long bench_count(const char *prog, const char *s,
					const char *what)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || !v) {
		fprintf(stderr, "%s: bad %s '%s': give a positive count\n",
			prog, what, s);
		exit(2);
	}
	return v;
}

#endif
