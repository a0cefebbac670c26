// SPDX-License-Identifier: MIT
/*
 * test-filter.c - CPU lists (lib/core/cpulist.c) and sample filters
 * (lib/session/filter.c): ranges and bad tokens, --comm/--pid/--tid hiding,
 * --cpu/--time dropping, perf's --time syntax (seconds, A%-B%, N%/M),
 * events set aside before every other filter and the events sampled.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"

static void test_cpulist(void **state)
{
	uint64_t map[2];

	(void)state;
	assert_int_equal(pebs_cpulist__parse("0-3,8,64-65", 128, map), 0);
	assert_int_equal(map[0], 0x10f);
	assert_int_equal(map[1], 0x3);
	assert_int_equal(pebs_cpulist__parse("5", 128, map), 0);
	assert_int_equal(map[0], 0x20);
	assert_int_equal(map[1], 0);
	assert_int_equal(pebs_cpulist__parse("1,x", 128, map), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "'x'"));
	assert_int_equal(pebs_cpulist__parse("3-1", 128, map), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "'3-1'"));
	assert_int_equal(pebs_cpulist__parse("1,,2", 128, map), -EINVAL);
	assert_int_equal(pebs_cpulist__parse("", 128, map), -EINVAL);
	assert_int_equal(pebs_cpulist__parse("-1", 128, map), -EINVAL);
	assert_int_equal(pebs_cpulist__parse("0-128", 128, map), -ERANGE);
	assert_int_equal(pebs_cpulist__parse("99999999999999999999", 128, map),
			 -EINVAL);
}

/* walking a bitmap, and the online CPUs (never empty, CPU 0 in them) */
static void test_cpulist_next_online(void **state)
{
	static uint64_t map[PEBS_MAX_CPUS / 64];
	int c, n = 0;

	(void)state;
	assert_int_equal(pebs_cpulist__parse("3,63-64,200", 256, map), 0);
	assert_int_equal(pebs_cpulist__next(map, 256, 0), 3);
	assert_int_equal(pebs_cpulist__next(map, 256, 4), 63);
	assert_int_equal(pebs_cpulist__next(map, 256, 64), 64);
	assert_int_equal(pebs_cpulist__next(map, 256, 65), 200);
	assert_int_equal(pebs_cpulist__next(map, 256, 201), -1);
	assert_int_equal(pebs_cpulist__next(map, 200, 65), -1);
	assert_int_equal(pebs_cpulist__online(PEBS_MAX_CPUS, map), 0);
	for (c = pebs_cpulist__next(map, PEBS_MAX_CPUS, 0); c >= 0;
	     c = pebs_cpulist__next(map, PEBS_MAX_CPUS, c + 1))
		n++;
	assert_int_equal(n, sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(pebs_cpulist__next(map, PEBS_MAX_CPUS, 0), 0);
}

static void test_ids_and_cpus(void **state)
{
	struct pebs_report_sample s = { .pid = 10, .tid = 11, .cpu = 2,
					.comm = "bash" };
	struct pebs_filter *f;

	(void)state;
	assert_int_equal(pebs_filter__match(NULL, &s, 0), PEBS_FILTER_PASS);
	assert_int_equal(pebs_filter__new(&f), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	assert_int_equal(pebs_filter__comms(f, "memwalk,bash"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	s.comm = "walker";
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_HIDE);
	s.comm = NULL;
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_HIDE);
	s.comm = "bash";
	assert_int_equal(pebs_filter__pids(f, "7,10"), 0);
	assert_int_equal(pebs_filter__tids(f, "11"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	s.tid = 12;
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_HIDE);
	s.tid = 11;
	assert_int_equal(pebs_filter__cpus(f, "0-1"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_DROP);
	assert_int_equal(pebs_filter__cpus(f, "2"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	/* events: any of those given */
	assert_int_equal(pebs_filter__event(f, 70), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_DROP);
	assert_int_equal(pebs_filter__event(f, 0), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	s.event = 70;
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	s.event = 200;
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_DROP);
	s.event = 0;
	assert_int_equal(pebs_filter__pids(f, "1x"), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "'1x'"));
	assert_int_equal(pebs_filter__comms(f, ""), -EINVAL);
	assert_int_equal(pebs_filter__cpus(f, "a"), -EINVAL);
	pebs_filter__delete(f);
}

/* --dsos (a file's name or its path) and --symbols: hidden otherwise */
static void test_dsos_symbols(void **state)
{
	struct pebs_report_sample s = { .pid = 10, .tid = 11, .comm = "bash",
		.dso = "/usr/lib/x86_64-linux-gnu/libc.so.6", .sym = "memcpy" };
	struct pebs_filter *f;

	(void)state;
	assert_int_equal(pebs_filter__new(&f), 0);
	assert_int_equal(pebs_filter__dsos(f, "memwalk,[kernel.kallsyms]"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_HIDE);
	assert_int_equal(pebs_filter__option(f, "dsos", "libc.so.6"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	s.dso = "[kernel.kallsyms]";
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	s.dso = NULL;	/* in no known mapping */
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_HIDE);
	pebs_filter__delete(f);

	assert_int_equal(pebs_filter__new(&f), 0);
	s.dso = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	assert_int_equal(pebs_filter__dsos(f, "/usr/lib/x86_64-linux-gnu/libc.so.6"),
			 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	assert_int_equal(pebs_filter__symbols(f, "memset"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_HIDE);
	assert_int_equal(pebs_filter__option(f, "symbols", "memcpy"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	s.sym = NULL;	/* no symbol */
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_HIDE);
	/* the values given, as perf's elision counts them */
	assert_int_equal(pebs_filter__count(f, "dsos"), 1);
	assert_int_equal(pebs_filter__count(f, "symbols"), 2);
	assert_int_equal(pebs_filter__count(f, "comm"), 0);
	assert_int_equal(pebs_filter__count(f, "pid"), -EINVAL);
	assert_int_equal(pebs_filter__count(NULL, "comm"), -EINVAL);
	assert_int_equal(pebs_filter__symbols(f, ""), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "--symbols: give names"));
	assert_int_equal(pebs_filter__dsos(NULL, "x"), -EINVAL);
	pebs_filter__delete(f);
}

/* the options by name, as report and plot give them; ranges of ids */
static void test_option(void **state)
{
	struct pebs_report_sample s = { .pid = 10, .tid = 11, .cpu = 2,
					.comm = "bash" };
	struct pebs_filter *f;

	(void)state;
	assert_int_equal(pebs_filter__new(&f), 0);
	assert_int_equal(pebs_filter__option(f, "pid", "3,8-10"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	assert_int_equal(pebs_filter__option(f, "tid", "12-13"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_HIDE);
	assert_int_equal(pebs_filter__option(f, "tid", "11"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	assert_int_equal(pebs_filter__option(f, "comm", "sh"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_HIDE);
	assert_int_equal(pebs_filter__option(f, "comm", "bash"), 0);
	assert_int_equal(pebs_filter__option(f, "cpu", "1"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_DROP);
	assert_int_equal(pebs_filter__option(f, "cpu", "2-3"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	assert_int_equal(pebs_filter__option(f, "pid", "3-1"), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "--pid: bad id '3-1'"));
	assert_int_equal(pebs_filter__option(f, "tid", ""), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "--tid: empty"));
	assert_int_equal(pebs_filter__option(f, "time", "1,2"), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "'time'"));
	assert_int_equal(pebs_filter__option(f, NULL, "1"), -EINVAL);
	pebs_filter__delete(f);
}

/* --event by name against the Intel fixture's two events */
static void test_events(void **state)
{
	const char *src = getenv("PEBS_SRC");
	struct pebs_report_sample s = { .pid = 1, .tid = 1 };
	struct pebs_perfdata *pd;
	struct pebs_filter *f;
	char path[4096];

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/fixtures/"
		 "intel-skx-xeon8173M_ldlat64_weight-struct.perf.data",
		 src ? src : ".");
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_filter__new(&f), 0);
	assert_int_equal(pebs_filter__events(f, pd, "dummy:HG"), 0);
	s.event = 1;
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	s.event = 0;
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_DROP);
	assert_int_equal(pebs_filter__events(f, pd, "dummy:HG,"
		"MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2:mh:mg:pinned"),
		0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_PASS);
	/* a prefix of a name is not the name */
	assert_int_equal(pebs_filter__events(f, pd, "dummy"), -ENOENT);
	assert_non_null(strstr(pebs_errmsg(), "no event 'dummy'"));
	assert_int_equal(pebs_filter__events(f, pd, "dummy:HG,cycles"),
			 -ENOENT);
	assert_non_null(strstr(pebs_errmsg(), "'cycles'"));
	assert_int_equal(pebs_filter__events(f, pd, ""), -EINVAL);
	pebs_filter__delete(f);
	pebs_perfdata__close(pd);
}

static void test_time(void **state)
{
	const uint64_t first = 1000000000ull, last = 2000000000ull;
	struct pebs_report_sample s = { .pid = 1, .tid = 1 };
	struct pebs_filter *f;

	(void)state;
	assert_int_equal(pebs_filter__new(&f), 0);
	/* seconds: 1.5 s to the end */
	assert_int_equal(pebs_filter__time(f, "1.5,", first, last), 0);
	assert_int_equal(pebs_filter__match(f, &s, 1499999999),
			 PEBS_FILTER_DROP);
	assert_int_equal(pebs_filter__match(f, &s, 1500000000),
			 PEBS_FILTER_PASS);
	assert_int_equal(pebs_filter__match(f, &s, UINT64_MAX - 1),
			 PEBS_FILTER_PASS);
	/* ,1.000000001: up to one ns past 1 s */
	assert_int_equal(pebs_filter__time(f, ",1.000000001", first, last), 0);
	assert_int_equal(pebs_filter__match(f, &s, 1000000001),
			 PEBS_FILTER_PASS);
	assert_int_equal(pebs_filter__match(f, &s, 1000000002),
			 PEBS_FILTER_DROP);
	/* percentages of [first, last] */
	assert_int_equal(pebs_filter__time(f, "10%-20%,50%-60%", first, last),
			 0);
	assert_int_equal(pebs_filter__match(f, &s, 1150000000),
			 PEBS_FILTER_PASS);
	assert_int_equal(pebs_filter__match(f, &s, 1300000000),
			 PEBS_FILTER_DROP);
	assert_int_equal(pebs_filter__match(f, &s, 1550000000),
			 PEBS_FILTER_PASS);
	/* the 3rd 25 % slice: 50 %..75 % */
	assert_int_equal(pebs_filter__time(f, "25%/3", first, last), 0);
	assert_int_equal(pebs_filter__match(f, &s, 1400000000),
			 PEBS_FILTER_DROP);
	assert_int_equal(pebs_filter__match(f, &s, 1600000000),
			 PEBS_FILTER_PASS);
	/* bad ones */
	assert_int_equal(pebs_filter__time(f, "2,1", first, last), -EINVAL);
	assert_int_equal(pebs_filter__time(f, "1.2.3,", first, last),
			 -EINVAL);
	assert_int_equal(pebs_filter__time(f, "10", first, last), -EINVAL);
	assert_int_equal(pebs_filter__time(f, "20%-10%", first, last),
			 -EINVAL);
	assert_int_equal(pebs_filter__time(f, "10%/11", first, last),
			 -EINVAL);
	assert_int_equal(pebs_filter__time(f, "x%-10%", first, last),
			 -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "'x%-10%'"));
	pebs_filter__delete(f);
}

/* an event set aside: ASIDE before --cpu, --time and --event's DROP and
   --comm's HIDE; not counted among the events sampled */
static void test_aside(void **state)
{
	struct pebs_report_sample s = { .pid = 10, .tid = 11, .cpu = 2,
					.comm = "bash", .event = 1 };
	uint64_t samples[4] = { 5, 0, 3, 7 };
	struct pebs_session_stats st = { .event_samples = samples,
					 .nr_events = 4 };
	struct pebs_filter *f;
	unsigned int first = 9;

	(void)state;
	assert_int_equal(pebs_filter__aside(NULL, 1), -EINVAL);
	assert_int_equal(pebs_filter__nr_sampled(NULL, &st, &first), 3);
	assert_int_equal(first, 0);
	assert_int_equal(pebs_filter__new(&f), 0);
	assert_int_equal(pebs_filter__aside(f, 1), 0);
	assert_int_equal(pebs_filter__aside(f, 100), 0);	/* grows */
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_ASIDE);
	assert_int_equal(pebs_filter__cpus(f, "0"), 0);
	assert_int_equal(pebs_filter__event(f, 3), 0);
	assert_int_equal(pebs_filter__comms(f, "sh"), 0);
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_ASIDE);
	s.event = 100;
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_ASIDE);
	s.event = 2;	/* not aside: the other filters say */
	assert_int_equal(pebs_filter__match(f, &s, 0), PEBS_FILTER_DROP);
	/* 1 (no samples anyway) and 100 aside; --event's 3 changes nothing */
	assert_int_equal(pebs_filter__nr_sampled(f, &st, &first), 3);
	assert_int_equal(first, 0);
	assert_int_equal(pebs_filter__aside(f, 0), 0);
	assert_int_equal(pebs_filter__nr_sampled(f, &st, &first), 2);
	assert_int_equal(first, 2);
	assert_int_equal(pebs_filter__aside(f, 2), 0);
	assert_int_equal(pebs_filter__nr_sampled(f, &st, NULL), 1);
	assert_int_equal(pebs_filter__aside(f, 3), 0);
	assert_int_equal(pebs_filter__nr_sampled(f, &st, &first), 0);
	assert_int_equal(first, 0);
	pebs_filter__delete(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_cpulist_next_online),
		cmocka_unit_test(test_ids_and_cpus),
		cmocka_unit_test(test_option),
		cmocka_unit_test(test_dsos_symbols),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_aside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
