/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/selftest.h - the self-test (`pebs-shim test`): a table of
 * checks, each run on a built-in workload whose answer is known, ending
 * pass, fail (with the figures that failed) or skip (with the reason);
 * and the description of this machine (lib/selftest/).
 */
#ifndef PEBSSHIM_SELFTEST_H
#define PEBSSHIM_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pebsshim/core.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pebs_selftest_status {
	PEBS_SELFTEST_PASS = 0,
	PEBS_SELFTEST_FAIL = 1,
	PEBS_SELFTEST_SKIP = 2,
};

/*
 * The outcome of one check. message: the figures (pass and fail) or the
 * reason (skip), one line. details: "key=value" lines (the machine
 * check's description; the figures of the others), may be empty.
 */
struct pebs_selftest_result {
	size_t sz;
	enum pebs_selftest_status status;
	double seconds;
	char message[512];
	char details[4096];
};

/* pebs_selftest__nr - how many checks there are (numbered from 1). */
PEBS_API unsigned int pebs_selftest__nr(void);

/*
 * pebs_selftest__name/__about - check @nr's short name ("pf-addr") and
 * one-line description; NULL when @nr is out of range.
 * pebs_selftest__hardware - whether it needs a hardware PMU (or the
 * module): such a check can only pass on a machine that has it.
 */
PEBS_API const char *pebs_selftest__name(unsigned int nr);
PEBS_API const char *pebs_selftest__about(unsigned int nr);
PEBS_API bool pebs_selftest__hardware(unsigned int nr);

/*
 * pebs_selftest__find - the number of the check named @name or written
 * as a number; 0 when there is none.
 */
PEBS_API unsigned int pebs_selftest__find(const char *name);

/*
 * pebs_selftest__run - run check @nr into @res (res->sz set by the
 * caller, as PEBS_OPTS does). The workloads are forked children; files
 * go to a private directory under $TMPDIR (else /tmp), removed after.
 * Returns 0 (the outcome is in @res), -EINVAL (no such check, or @res
 * NULL or too small).
 */
PEBS_API int pebs_selftest__run(unsigned int nr,
				struct pebs_selftest_result *res);

/*
 * How checks that run commands run them. quick: fewer rounds where a
 * check repeats (overhead: 2 instead of 5). tool: the pebs-shim command
 * (record, report and the known workloads run through it); NULL: the
 * checks that need it skip. perf: the perf to compare with; NULL: "perf"
 * from PATH (PEBS_TEST_NO_PERF=1 hides it: the comparisons skip).
 */
struct pebs_selftest_opts {
	size_t sz;
	bool quick;
	const char *tool;
	const char *perf;
};

/*
 * pebs_selftest__run_opts - pebs_selftest__run with @o (NULL: the
 * defaults, as pebs_selftest__run). Returns 0, -EINVAL (also: o->sz
 * unset).
 */
PEBS_API int pebs_selftest__run_opts(unsigned int nr,
				     const struct pebs_selftest_opts *o,
				     struct pebs_selftest_result *res);

/*
 * pebs_selftest__workload - run the known workload @name in this
 * process (`pebs-shim test --workload NAME`, so that perf can run it
 * too): touch, chase-small (a pointer chase in 16 KiB, L1-sized),
 * chase-large (one far larger than the LLC), store (a streaming store
 * loop), false-share and true-share (two threads on one cache line: each
 * its own word, or both one word), and in the main thread budget (page
 * faults of a fresh mapping between pointer chases; with
 * PEBS_TEST_COUNT=EVENT also "count=N", its count of EVENT) and objects
 * (three heap objects of three allocation sites, read in known
 * proportions; "object.I=SITE ADDR+SIZE PASSES"). Prints to @out "workload=NAME",
 * "buffer=ADDR+SIZE" (where its data accesses fall), "thread.I=TID
 * ADDR+SIZE" (thread I's own part or word), then after the measured
 * phase "seconds=S". Returns 0, -EINVAL (no such workload), -ENOMEM,
 * -EIO.
 * pebs_selftest__workload_name - the name of workload @nr (from 1), NULL
 * past the last.
 */
PEBS_API int pebs_selftest__workload(const char *name, FILE *out);
PEBS_API const char *pebs_selftest__workload_name(unsigned int nr);

/*
 * pebs_machine__describe - what this machine has, as "key=value" lines
 * into @buf (@len bytes): CPU vendor, family, model and name, kernel,
 * perf_event_paranoid, kptr_restrict, the core PMUs and their caps/,
 * IBS PMUs and their caps, rdpmc mode, rdtscp, NUMA nodes,
 * /dev/pebs_map or the kernel headers to build the module,
 * virtualization. Missing files give "none" or "unknown". Returns 0,
 * -ENOSPC (cut at @len), -EINVAL.
 */
PEBS_API int pebs_machine__describe(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_SELFTEST_H */
