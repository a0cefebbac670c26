// SPDX-License-Identifier: MIT
/*
 * test-selftest.c - the self-test's table and runner (lib/selftest/):
 * names and numbers, the runner's argument errors, the machine's
 * description (every key, "key=value" lines, -ENOSPC when cut), and the
 * PEBS_TEST_NO_* variables making the hardware checks skip, naming the
 * variable (a value of 0 hides nothing), and the workloads.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "selftest/selftest-int.h"

static void test_table(void **state)
{
	unsigned int n = pebs_selftest__nr(), i, j, hw = 0;

	(void)state;
	assert_int_equal(n, 18);
	for (i = 1; i <= n; i++) {
		char num[8];

		assert_non_null(pebs_selftest__name(i));
		assert_non_null(pebs_selftest__about(i));
		assert_int_equal(pebs_selftest__find(pebs_selftest__name(i)), i);
		snprintf(num, sizeof(num), "%u", i);
		assert_int_equal(pebs_selftest__find(num), i);
		for (j = 1; j < i; j++)
			assert_string_not_equal(pebs_selftest__name(i),
						pebs_selftest__name(j));
		hw += pebs_selftest__hardware(i);
	}
	assert_int_equal(hw, 6);
	assert_false(pebs_selftest__hardware(1));	/* machine */
	assert_true(pebs_selftest__hardware(pebs_selftest__find("module")));
	assert_null(pebs_selftest__name(0));
	assert_null(pebs_selftest__name(n + 1));
	assert_null(pebs_selftest__about(n + 1));
	assert_false(pebs_selftest__hardware(n + 1));
	assert_int_equal(pebs_selftest__find("0"), 0);
	assert_int_equal(pebs_selftest__find("19"), 0);
	assert_int_equal(pebs_selftest__find("2x"), 0);
	assert_int_equal(pebs_selftest__find("nosuch"), 0);
	assert_int_equal(pebs_selftest__find(""), 0);
	assert_int_equal(pebs_selftest__find(NULL), 0);
}

static void test_run_errors(void **state)
{
	struct pebs_selftest_result r = { .sz = sizeof(r) };

	(void)state;
	assert_int_equal(pebs_selftest__run(0, &r), -EINVAL);
	assert_int_equal(pebs_selftest__run(pebs_selftest__nr() + 1, &r),
			 -EINVAL);
	assert_int_equal(pebs_selftest__run(1, NULL), -EINVAL);
	r.sz = sizeof(r) - 1;
	assert_int_equal(pebs_selftest__run(1, &r), -EINVAL);
}

static void test_machine(void **state)
{
	static const char *const keys[] = {
		"cpu.vendor", "cpu.family", "cpu.model", "cpu.name", "kernel",
		"perf_event_paranoid", "kptr_restrict", "core_pmu", "ibs",
		"rdpmc", "rdtscp", "numa_nodes", "pebs_map", "kernel_headers",
		"hypervisor",
	};
	struct pebs_selftest_result r = { .sz = sizeof(r) };
	char buf[4096], small[16], *line, *save;
	unsigned int i;

	(void)state;
	assert_int_equal(pebs_machine__describe(buf, sizeof(buf)), 0);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char want[64];

		snprintf(want, sizeof(want), "\n%s=", keys[i]);
		if (i && !strstr(buf, want))
			fail_msg("no %s= line in:\n%s", keys[i], buf);
	}
	assert_memory_equal(buf, "cpu.vendor=", 11);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		assert_non_null(strchr(line, '='));
	assert_int_equal(pebs_machine__describe(small, sizeof(small)), -ENOSPC);
	assert_int_equal(pebs_machine__describe(NULL, 10), -EINVAL);

	/* the machine check: information, always a pass, with the lines */
	assert_int_equal(pebs_selftest__run(1, &r), 0);
	assert_int_equal(r.status, PEBS_SELFTEST_PASS);
	assert_memory_equal(r.details, "cpu.vendor=", 11);
}

/* run check @name; its status, its message in @msg */
static enum pebs_selftest_status run(const char *name, char *msg, size_t len)
{
	struct pebs_selftest_result r = { .sz = sizeof(r) };

	assert_int_equal(pebs_selftest__run(pebs_selftest__find(name), &r), 0);
	snprintf(msg, len, "%s", r.message);
	return r.status;
}

static void test_hidden(void **state)
{
	static const char *const pmu[] = { "precise-mem", "sharing",
					   "observer-rdpmc" };
	char msg[512];
	unsigned int i;

	(void)state;
	setenv("PEBS_TEST_NO_PMU", "1", 1);
	for (i = 0; i < 3; i++) {
		assert_int_equal(run(pmu[i], msg, sizeof(msg)),
				 PEBS_SELFTEST_SKIP);
		assert_string_equal(msg, "PMU hidden by PEBS_TEST_NO_PMU=1");
	}
	unsetenv("PEBS_TEST_NO_PMU");
	setenv("PEBS_TEST_NO_PRECISE", "1", 1);
	assert_int_equal(run("precise-mem", msg, sizeof(msg)),
			 PEBS_SELFTEST_SKIP);
	assert_string_equal(msg, "precise sampling hidden by "
			    "PEBS_TEST_NO_PRECISE=1");
	unsetenv("PEBS_TEST_NO_PRECISE");
	setenv("PEBS_TEST_NO_MAP", "1", 1);
	assert_int_equal(run("module", msg, sizeof(msg)), PEBS_SELFTEST_SKIP);
	assert_string_equal(msg, "/dev/pebs_map hidden by PEBS_TEST_NO_MAP=1");
	assert_int_equal(run("module-switch", msg, sizeof(msg)),
			 PEBS_SELFTEST_SKIP);
	assert_string_equal(msg, "/dev/pebs_map hidden by PEBS_TEST_NO_MAP=1");
	assert_int_equal(run("observer-residency", msg, sizeof(msg)),
			 PEBS_SELFTEST_SKIP);
	assert_string_equal(msg, "/dev/pebs_map hidden by PEBS_TEST_NO_MAP=1");
	setenv("PEBS_TEST_NO_MAP", "0", 1);	/* 0 hides nothing */
	run("module", msg, sizeof(msg));
	assert_null(strstr(msg, "PEBS_TEST_NO_MAP"));
	unsetenv("PEBS_TEST_NO_MAP");
	setenv("PEBS_TEST_NO_RDTSCP", "1", 1);
	assert_int_equal(run("rdtscp", msg, sizeof(msg)), PEBS_SELFTEST_SKIP);
	assert_string_equal(msg, "rdtscp hidden by PEBS_TEST_NO_RDTSCP=1");
	unsetenv("PEBS_TEST_NO_RDTSCP");
}

/*
 * The hardware checks' workloads, which only hardware samples: they
 * start held, report distinct tids and adjacent parts, and run to exit 0
 * once released (the chase's cycle is whole: a broken one would fault).
 */
static void test_workloads(void **state)
{
	struct st_wl w;

	(void)state;
	assert_int_equal(st_wl_start(&w, ST_CHASE, 1, 1u << 20), 0);
	assert_true(w.pid > 0 && w.tid[0] > 0 && w.tid[0] != getpid());
	assert_int_equal(w.part, 1u << 20);
	assert_int_equal(st_wl_finish(&w), 0);

	assert_int_equal(st_wl_start(&w, ST_SHARE, 2, 4096), 0);
	assert_int_equal(w.nthr, 2);
	assert_int_not_equal(w.tid[0], w.tid[1]);
	assert_int_equal(w.lo[1], w.lo[0] + 4096);
	assert_int_equal(st_wl_finish(&w), 0);

	/* killed while held: reaped, nothing left behind */
	assert_int_equal(st_wl_start(&w, ST_TOUCH, 1, 4096), 0);
	st_wl_kill(&w);
	assert_int_equal(st_wl_start(&w, ST_TOUCH, ST_MAX_THR + 1, 4096),
			 -EINVAL);
}

/* the opts: NULL is the defaults; a struct without its size is refused */
static void test_opts(void **state)
{
	struct pebs_selftest_result r = { .sz = sizeof(r) };
	struct pebs_selftest_opts bad = { 0 };
	PEBS_OPTS(pebs_selftest_opts, o, .tool = "/nonexistent/pebs-shim");
	unsigned int ov = pebs_selftest__find("overhead");

	(void)state;
	assert_int_not_equal(ov, 0);
	assert_int_equal(pebs_selftest__run_opts(1, &bad, &r), -EINVAL);
	/* no command to run: the checks that run commands skip */
	assert_int_equal(pebs_selftest__run_opts(ov, NULL, &r), 0);
	assert_int_equal(r.status, PEBS_SELFTEST_SKIP);
	assert_non_null(strstr(r.message, "no pebs-shim command"));
	/* perf hidden: skip, naming the variable */
	setenv("PEBS_TEST_NO_PERF", "1", 1);
	assert_int_equal(pebs_selftest__run_opts(ov, &o, &r), 0);
	assert_int_equal(r.status, PEBS_SELFTEST_SKIP);
	assert_non_null(strstr(r.message, "PEBS_TEST_NO_PERF=1"));
	unsetenv("PEBS_TEST_NO_PERF");
	/* a perf that is not there: skip, saying so */
	o.perf = "/nonexistent/perf";
	assert_int_equal(pebs_selftest__run_opts(ov, &o, &r), 0);
	assert_int_equal(r.status, PEBS_SELFTEST_SKIP);
	assert_non_null(strstr(r.message, "no perf to compare with"));
}

/* commands: output and status captured, a deadline kills the group */
static void test_spawn(void **state)
{
	char *sh[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *slow[] = { "/bin/sh", "-c", "sleep 30 & sleep 30", NULL };
	char *none[] = { "/nonexistent/cmd", NULL };
	struct st_run *run = malloc(sizeof(*run));
	char line[64];

	(void)state;
	assert_non_null(run);
	assert_int_equal(st_spawn(sh, 10, run), 0);
	assert_int_equal(run->status, 3);
	assert_false(run->timed_out);
	assert_string_equal(run->out, "out\n");
	assert_string_equal(st_last_line(run->err, line, sizeof(line)), "err");
	assert_int_equal(st_spawn(slow, 0.2, run), 0);
	assert_true(run->timed_out);
	assert_int_equal(run->status, -1);
	assert_int_equal(st_spawn(none, 1, run), -ENOENT);
	free(run);
}

/* a known workload's printed layout, and reading it back */
static void test_layout(void **state)
{
	struct st_layout l;
	char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	assert_int_equal(pebs_selftest__workload("false-share", f), 0);
	fclose(f);
	assert_int_equal(st_layout_parse(buf, &l), 0);
	assert_int_equal(l.nthr, 2);
	assert_int_equal(l.size, 64);
	assert_int_equal(l.lo[0], l.buf);		/* word 0 */
	assert_int_equal(l.lo[1], l.buf + 32);	/* word 4, same line */
	assert_int_equal(l.len[1], 8);
	assert_int_not_equal(l.tid[0], l.tid[1]);
	assert_true(l.seconds >= 0);
	assert_int_equal(st_layout_parse("buffer=0x1000+64\n", &l), -EINVAL);
	assert_int_equal(pebs_selftest__workload("nosuch", stdout), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "true-share"));
	assert_string_equal(pebs_selftest__workload_name(1), "touch");
	assert_null(pebs_selftest__workload_name(9));
	/* far larger than the LLC, a power of two within bounds */
	assert_true(st_large_size() >= (64u << 20));
	assert_true(st_large_size() <= (256u << 20));
	assert_int_equal(st_large_size() & (st_large_size() - 1), 0);
}

/*
 * observer-residency's yardstick and rule: this thread's schedstat
 * grows with its CPU time (a 100 ms busy loop, clock_gettime's thread
 * CPU clock beside it), and the tolerance is 5 % + 2 periods + 2 ms.
 */
static void test_residency(void **state)
{
	struct timespec a, b;
	uint64_t s0, s1;
	volatile unsigned long x = 0;
	double cpu, sched;
	pid_t tid = (pid_t)syscall(SYS_gettid);

	(void)state;
	assert_true(st_schedstat(getpid(), tid, &s0));
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (unsigned int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		cpu = (double)(b.tv_sec - a.tv_sec) +
		      (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	} while (cpu < 0.1);
	assert_true(st_schedstat(getpid(), tid, &s1));
	sched = (double)(s1 - s0) / 1e9;
	if (!st_residency_ok(cpu, sched, 0))
		fail_msg("thread CPU time %.6f s, schedstat %.6f s", cpu, sched);
	assert_false(st_schedstat(getpid(), 1 << 30, &s1));
	assert_true(st_residency_ok(1.0, 1.04, 0));
	assert_false(st_residency_ok(1.0, 1.06, 0));
	assert_true(st_residency_ok(1.0, 1.06, 0.005));	/* 2 periods */
	assert_false(st_residency_ok(0.001, 0, 0));		/* never ran */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_run_errors),
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_workloads),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_spawn),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_residency),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
