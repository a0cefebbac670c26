// SPDX-License-Identifier: MIT
/*
 * cpulist.c - the one parser of CPU lists ("0-3,8,10-11", as in
 * /sys/devices/system/cpu/online and perf's -C), into a bitmap.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

/* A decimal CPU number at *p (advanced past it). */
static int cpu_number(const char **p, unsigned long *cpu)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	*cpu = strtoul(*p, &end, 10);
	if (errno)
		return -EINVAL;
	*p = end;
	return 0;
}

int pebs_cpulist__parse(const char *str, unsigned int max_cpus,
			uint64_t *bitmap)
{
	const char *p = str, *tok;
	unsigned long lo, hi, c;
	size_t words;

	if (!str || !bitmap || !max_cpus)
		return core_err(-EINVAL, "cpu list: nothing to parse");
	words = (max_cpus + 63) / 64;
	memset(bitmap, 0, words * sizeof(*bitmap));
	if (!*p)
		return core_err(-EINVAL, "empty cpu list: give CPUs such as "
				"0-3,8");
	for (;;) {
		tok = p;
		if (cpu_number(&p, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (cpu_number(&p, &hi) || hi < lo)
				goto bad;
		}
		if (*p != ',' && *p)
			goto bad;
		if (hi >= max_cpus)
			return core_err(-ERANGE, "cpu list: '%.*s' is beyond the "
					"%u CPUs: give CPUs 0-%u",
					(int)(p - tok), tok, max_cpus,
					max_cpus - 1);
		for (c = lo; c <= hi; c++)
			bitmap[c / 64] |= 1ull << (c % 64);
		if (!*p)
			return 0;
		p++;
	}
bad:
	return core_err(-EINVAL, "cpu list: bad token '%.*s': give CPUs such "
			"as 0-3,8", (int)strcspn(tok, ","), tok);
}

int pebs_cpulist__online(unsigned int max_cpus, uint64_t *bitmap)
{
	static const char path[] = "/sys/devices/system/cpu/online";
	char buf[4096];
	FILE *f = fopen(path, "re");
	int err;

	if (!f)
		return core_err(-errno, "cannot read %s: %s: is sysfs mounted?",
				path, strerror(errno));
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return core_err(-EIO, "cannot read %s: empty", path);
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	err = pebs_cpulist__parse(buf, max_cpus, bitmap);
	if (err)
		return core_err(err, "%s: '%s': %s", path, buf, pebs_errmsg());
	return 0;
}

int pebs_cpulist__next(const uint64_t *bitmap, unsigned int max_cpus,
		       int from)
{
	for (unsigned int c = from < 0 ? 0 : from; c < max_cpus; c++) {
		uint64_t w = bitmap[c / 64] >> (c % 64);

		if (!w) {
			c |= 63;	/* the rest of this word is empty */
			continue;
		}
		c += __builtin_ctzll(w);
		return c < max_cpus ? (int)c : -1;
	}
	return -1;
}

int pebs_cpulist__ids(const uint64_t *bitmap, unsigned int max_cpus,
		      struct pebs_ids *out)
{
	int err = 0;

	if (!bitmap || !out)
		return core_err(-EINVAL, "cpu list: nothing to list");
	for (int c = pebs_cpulist__next(bitmap, max_cpus, 0); c >= 0 && !err;
	     c = pebs_cpulist__next(bitmap, max_cpus, c + 1))
		err = pebs_ids__push(out, c);
	return err;
}
