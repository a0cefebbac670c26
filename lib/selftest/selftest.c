// SPDX-License-Identifier: MIT
/*
 * selftest.c - the table of `pebs-shim test`'s checks and their runner.
 * Each check ends pass, fail (with the figures that failed) or skip
 * (with the reason); a hardware check may only pass where the machine
 * has the feature, so here (no PMU) every one of them skips.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

struct check {
	const char *name;
	const char *about;
	bool hardware;
	void (*run)(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *o);
};

static const struct check checks[] = {
	{ "machine", "what this machine has: CPU, kernel, PMUs, rdpmc, "
	  "NUMA, module", false, st_check_machine },
	{ "pf-addr", "page-fault data addresses fall in the workload's "
	  "buffer", false, st_check_pf_addr },
	{ "tid", "samples are attributed to the workload's threads, each "
	  "in its own part", false, st_check_tid },
	{ "ring-loss", "a tiny ring forced to overflow counts what it "
	  "lost", false, st_check_ring_loss },
	{ "file-roundtrip", "samples written to perf.data read back the "
	  "same", false, st_check_roundtrip },
	{ "rdtscp", "rdtscp gives the current CPU and a monotonic TSC (the "
	  "observer's clock)", false, st_check_rdtscp },
	{ "precise-mem", "mem record of the known chases and stores: "
	  "addresses, levels, weights", true, st_check_precise },
	{ "sharing", "c2c record of a false- and a true-sharing pair: lines, "
	  "offsets, HITM", true, st_check_sharing },
	{ "observer-rdpmc", "the observer reads a core counter with rdpmc",
	  true, st_check_rdpmc },
	{ "module", "/dev/pebs_map's switch history names the workload's "
	  "threads", true, st_check_module },
	{ "overhead", "the chase's slowdown under pebs-shim record and perf "
	  "record, same event", false, st_check_overhead },
	{ "pf-perf", "page-fault samples and data addresses as perf record "
	  "-d has them", false, st_check_pf_perf },
	{ "report-perf", "report's top rows by symbol are perf report's",
	  false, st_check_report_perf },
	{ "known-addr", "the known workloads' buffers and threads are where "
	  "they say", false, st_check_known_addr },
	{ "module-switch", "the module's attribution agrees with the "
	  "kernel's SWITCH records", true, st_check_module_switch },
	{ "observer-residency", "the observer's residency of a thread "
	  "agrees with its schedstat", true, st_check_residency },
	{ "budget", "record --budget 2%: no throttling, the periods add "
	  "up, the estimate and the slowdown within it", false,
	  st_check_budget },
	{ "objects", "record --objects: samples resolve to the workload's "
	  "heap objects by site, in its proportions", false,
	  st_check_objects },
};

#define NR_CHECKS (sizeof(checks) / sizeof(checks[0]))

unsigned int pebs_selftest__nr(void)
{
	return NR_CHECKS;
}

const char *pebs_selftest__name(unsigned int nr)
{
	return nr >= 1 && nr <= NR_CHECKS ? checks[nr - 1].name : NULL;
}

const char *pebs_selftest__about(unsigned int nr)
{
	return nr >= 1 && nr <= NR_CHECKS ? checks[nr - 1].about : NULL;
}

bool pebs_selftest__hardware(unsigned int nr)
{
	return nr >= 1 && nr <= NR_CHECKS && checks[nr - 1].hardware;
}

unsigned int pebs_selftest__find(const char *name)
{
	unsigned int i;
	char *end;
	unsigned long n;

	if (!name || !*name)
		return 0;
	n = strtoul(name, &end, 10);
	if (!*end)
		return n >= 1 && n <= NR_CHECKS ? (unsigned int)n : 0;
	for (i = 0; i < NR_CHECKS; i++)
		if (!strcmp(checks[i].name, name))
			return i + 1;
	return 0;
}

void st_set(struct pebs_selftest_result *r, enum pebs_selftest_status st,
	    const char *fmt, ...)
{
	va_list ap;

	r->status = st;
	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
}

void st_detail(struct pebs_selftest_result *r, const char *fmt, ...)
{
	size_t used = strlen(r->details);
	va_list ap;

	if (used + 1 >= sizeof(r->details))
		return;
	va_start(ap, fmt);
	vsnprintf(r->details + used, sizeof(r->details) - used, fmt, ap);
	va_end(ap);
	used = strlen(r->details);
	if (used + 1 < sizeof(r->details) && (!used || r->details[used - 1] != '\n'))
		strcpy(r->details + used, "\n");
}

bool st_hidden(const char *name)
{
	char var[64];
	const char *v;

	snprintf(var, sizeof(var), "PEBS_TEST_NO_%s", name);
	v = getenv(var);
	return v && *v && strcmp(v, "0");
}

const char *st_no_rdtscp(void)
{
	return st_hidden("RDTSCP") ? "rdtscp hidden by PEBS_TEST_NO_RDTSCP=1" :
	       "this CPU has no rdtscp (flag missing in /proc/cpuinfo; under "
	       "qemu use -cpu max)";
}

int pebs_selftest__run(unsigned int nr, struct pebs_selftest_result *res)
{
	return pebs_selftest__run_opts(nr, NULL, res);
}

int pebs_selftest__run_opts(unsigned int nr,
			    const struct pebs_selftest_opts *o,
			    struct pebs_selftest_result *res)
{
	PEBS_OPTS(pebs_selftest_opts, dflt);
	struct timespec a, b;

	if (o && o->sz < sizeof(*o))
		return core_err(-EINVAL, "selftest: struct pebs_selftest_opts "
				"without its size (use PEBS_OPTS)");
	if (!res || res->sz < sizeof(*res))
		return core_err(-EINVAL, "selftest: no result, or an older "
				"struct pebs_selftest_result");
	if (nr < 1 || nr > NR_CHECKS)
		return core_err(-EINVAL, "selftest: no check %u (1-%zu)", nr,
				NR_CHECKS);
	memset(res, 0, sizeof(*res));
	res->sz = sizeof(*res);
	clock_gettime(CLOCK_MONOTONIC, &a);
	checks[nr - 1].run(res, o ? o : &dflt);
	clock_gettime(CLOCK_MONOTONIC, &b);
	res->seconds = (double)(b.tv_sec - a.tv_sec) +
		       (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	return 0;
}
