// SPDX-License-Identifier: MIT
/*
 * test-selftest-budget.c - the budget and objects checks' rules
 * (lib/selftest/checks-budget.c, checks-objects.c) on figures that keep
 * them and on figures that break each one, so that a wrong recording
 * fails the check; and their two workloads (budget, objects): the
 * layout, the count and the objects they print.
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
#include "selftest/selftest-int.h"

/* a recording of --budget 2% as one here gave it (page faults) */
static struct st_budget_fig good_budget(void)
{
	struct st_budget_fig f = {
		.tag = "round1", .budget = ST_BUDGET, .samples = 3931,
		.period_sum = 98791, .max_period = 83, .last_period = 25,
		.count = 98837,
		.whole = 0.01245, .controlled = 0.01137, .decided = true,
		.duty = 1, .slowdown = 1.016,
	};

	return f;
}

static unsigned int budget_rules(const struct st_budget_fig *f)
{
	struct pebs_selftest_result r = { .sz = sizeof(r) };

	return st_budget_judge(&r, f);
}

static void test_budget_judge(void **state)
{
	struct pebs_selftest_result r = { .sz = sizeof(r) };
	struct st_budget_fig f = good_budget();

	(void)state;
	assert_int_equal(st_budget_judge(&r, &f), 0);
	assert_non_null(strstr(r.details, "round1.period_sum=98791\n"));
	assert_non_null(strstr(r.details, "round1.count=98837\n"));
	assert_non_null(strstr(r.details, "round1.estimate=1.245 % whole run"));
	/* the limits themselves keep the rules */
	f.slowdown = 1 + ST_BUDGET + SLOWDOWN_POINT;
	f.controlled = ST_BUDGET;
	f.period_sum = f.count - (uint64_t)(0.02 * (double)f.count) -
		       f.last_period;
	assert_int_equal(budget_rules(&f), 0);
	/* each rule broken alone */
	f = good_budget();
	f.throttles = 1;
	assert_int_equal(budget_rules(&f), 1);
	f = good_budget();
	f.no_period = 1;
	assert_int_equal(budget_rules(&f), 1);
	f = good_budget();
	f.lost = 1;
	assert_int_equal(budget_rules(&f), 1);
	f = good_budget();
	f.period_sum = f.count - (uint64_t)(0.02 * (double)f.count) -
		       f.last_period - 1;	/* one event too few */
	assert_int_equal(budget_rules(&f), 1);
	f = good_budget();
	f.period_sum = f.count * 2;		/* periods overstated */
	assert_int_equal(budget_rules(&f), 1);
	/*
	 * a duty cycle: the weighted periods estimate the whole count
	 * (within 10 %); the sum of the enabled share's alone (unweighted,
	 * a run of the build before) fails
	 */
	f = good_budget();
	f.duty = 0.755;
	f.period_sum = 91213;
	f.count = 98835;
	f.max_period = 6738;
	f.last_period = 40;
	assert_int_equal(budget_rules(&f), 0);
	f.period_sum = 71119;			/* the windows' alone */
	assert_int_equal(budget_rules(&f), 1);
	f.period_sum = 110000;			/* 11 % over */
	assert_int_equal(budget_rules(&f), 1);
	/* one sample's period of millions after an off window (seen here) */
	f = good_budget();
	f.duty = 0.697;
	f.period_sum = 20773877;
	f.max_period = 17925156;
	assert_int_equal(budget_rules(&f), 1);
	f = good_budget();
	f.samples = 0;
	f.period_sum = 0;
	assert_int_equal(budget_rules(&f), 1);
	f = good_budget();
	f.controlled = 0.0201;			/* over the budget */
	assert_int_equal(budget_rules(&f), 1);
	f = good_budget();
	f.whole = 0.0208;	/* the start's share: record's summary too */
	assert_int_equal(budget_rules(&f), 0);
	f = good_budget();
	f.controlled = 0.0205;			/* over the budget alone */
	assert_int_equal(budget_rules(&f), 1);
	f.median_controlled = 0.018;		/* one round of three */
	assert_int_equal(budget_rules(&f), 0);
	f.median_controlled = 0.0201;		/* the median round too */
	assert_int_equal(budget_rules(&f), 1);
	f = good_budget();
	f.decided = false;			/* the controller never acted */
	assert_int_equal(budget_rules(&f), 1);
	f = good_budget();
	f.slowdown = 1.031;			/* over budget + 1 point */
	assert_int_equal(budget_rules(&f), 1);
	/* ... judged to the bare runs' spread where that is wider */
	f.noise = 0.06;
	f.slowdown = 1.059;
	assert_int_equal(budget_rules(&f), 0);
	f.slowdown = 1.061;
	assert_int_equal(budget_rules(&f), 1);
	f.noise = 0.02;				/* narrower: budget + 1 point */
	f.slowdown = 1.031;
	assert_int_equal(budget_rules(&f), 1);
	f = good_budget();
	f.status = 1;				/* the workload failed */
	assert_int_equal(budget_rules(&f), 1);
}

/* the objects check's figures as page faults here gave them */
static struct st_objects_fig good_objects(bool precise)
{
	struct st_objects_fig f = {
		.precise = precise,
		.want = { 2, 1, 1 }, .site = { 512, 256, 256 },
		.with_addr = 1483, .inside = 1024, .agree = 1024,
		.weighted = precise ? 1024 : 0, .objects = 8,
	};

	return f;
}

static unsigned int objects_rules(const struct st_objects_fig *f)
{
	struct pebs_selftest_result r = { .sz = sizeof(r) };

	return st_objects_judge(&r, f);
}

static void test_objects_judge(void **state)
{
	struct pebs_selftest_result r = { .sz = sizeof(r) };
	struct st_objects_fig f = good_objects(false);

	(void)state;
	assert_int_equal(st_objects_judge(&r, &f), 0);
	assert_non_null(strstr(r.details, "objects_site_a=512 samples, 50.00 % "
			       "(want 50.00 %)\n"));
	/* page faults: 1 point; 2 off fails (on two objects) */
	f.site[0] = 532;
	f.site[2] = 236;
	assert_int_equal(objects_rules(&f), 2);
	/* the loads' sampled shares: 5 points */
	f = good_objects(true);
	f.want[0] = f.want[1] = 1;
	f.want[2] = 2;			/* loads 1:1:2 */
	f.site[0] = 276;		/* 26.95 % */
	f.site[1] = 236;		/* 23.05 % */
	f.site[2] = 512;
	assert_int_equal(objects_rules(&f), 0);
	f.site[0] = 320;		/* 29.6 %: 4.6 over; c 47.4: 2.6 under */
	f.site[1] = 200;		/* 18.5 %: 6.5 under */
	f.site[2] = 560;
	f.weighted = 1080;
	assert_int_equal(objects_rules(&f), 1);
	/* too few samples, the sites not found, weights missing */
	f = good_objects(false);
	f.site[0] = 498;
	f.site[1] = f.site[2] = 249;	/* 996 < 1000 */
	assert_int_equal(objects_rules(&f), 1);
	f = good_objects(false);
	f.agree = 1013;			/* 98.9 % inside by their site */
	assert_int_equal(objects_rules(&f), 1);
	f = good_objects(false);
	f.inside = f.agree = 0;
	assert_int_equal(objects_rules(&f), 1);
	f = good_objects(true);
	f.weighted = 1013;
	assert_int_equal(objects_rules(&f), 1);
	f = good_objects(false);
	f.weighted = 0;			/* page faults have none: no rule */
	assert_int_equal(objects_rules(&f), 0);
}

/* run workload @name with PEBS_TEST_COUNT @count (NULL: unset) */
static char *workload(const char *name, const char *count)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (count)
		setenv("PEBS_TEST_COUNT", count, 1);
	assert_int_equal(pebs_selftest__workload(name, f), 0);
	unsetenv("PEBS_TEST_COUNT");
	fclose(f);
	return buf;
}

static void test_budget_workload(void **state)
{
	struct st_layout l;
	unsigned long long faults, count;
	char *out;

	(void)state;
	out = workload("budget", "page-faults:u");
	assert_int_equal(st_layout_parse(out, &l), 0);
	assert_int_equal(l.size, 16384);
	assert_int_equal(l.nthr, 1);
	assert_int_equal(l.tid[0], getpid());	/* its main thread */
	assert_true(l.cpu_seconds > 0);
	assert_non_null(strstr(out, "\nfaults="));
	assert_int_equal(sscanf(strstr(out, "\nfaults="), "\nfaults=%llu",
				&faults), 1);
	assert_int_equal(faults, 384 * 64);
	/* the process's faults so far: at least the measured phase's */
	assert_int_equal(sscanf(strstr(out, "\ncount="), "\ncount=%llu",
				&count), 1);
	assert_true(count >= faults);
	free(out);
	out = workload("budget", "nosuch-event");
	assert_non_null(strstr(out, "\ncount_error="));
	assert_null(strstr(out, "\ncount="));
	free(out);
	out = workload("budget", NULL);
	assert_null(strstr(out, "count"));
	free(out);
}

static void test_objects_workload(void **state)
{
	unsigned long addr[3], size[3];
	unsigned int passes[3], i;
	char site[3][64], key[16];
	struct st_layout l;
	char *out;

	(void)state;
	out = workload("objects", NULL);
	assert_int_equal(st_layout_parse(out, &l), 0);
	for (i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "\nobject.%u=", i);
		assert_non_null(strstr(out, key));
		assert_int_equal(sscanf(strstr(out, key) + strlen(key),
					"%63s %lx+%lu %u", site[i], &addr[i],
					&size[i], &passes[i]), 4);
	}
	assert_string_equal(site[0], "objects_site_a");
	assert_string_equal(site[2], "objects_site_c");
	/* sizes 2:1:1, passes 1:2:4; the buffer is the first object */
	assert_int_equal(size[0], 2 * size[1]);
	assert_int_equal(size[1], size[2]);
	assert_int_equal(passes[1], 2 * passes[0]);
	assert_int_equal(passes[2], 4 * passes[0]);
	assert_int_equal(l.buf, addr[0]);
	assert_int_equal(l.size, size[0]);
	free(out);
	assert_string_equal(pebs_selftest__workload_name(7), "budget");
	assert_string_equal(pebs_selftest__workload_name(8), "objects");
	assert_null(pebs_selftest__workload_name(9));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget_judge),
		cmocka_unit_test(test_objects_judge),
		cmocka_unit_test(test_budget_workload),
		cmocka_unit_test(test_objects_workload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
