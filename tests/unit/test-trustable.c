// SPDX-License-Identifier: MIT
/*
 * test-trustable.c - Shim's trustable filter (pebs_trustable) on
 * synthetic timestamp sequences, and the observer summaries built on it
 * (pebs_obs_stats: kept fraction, period quantiles, per-thread
 * residency and counter totals) on synthetic rows. No observer and no
 * CPU feature: it runs the same on every machine.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim.h"

#define LO 990000	/* the default 1 % tolerance */
#define HI 1010000

static void test_steady_accepted(void **state)
{
	uint64_t b = 1000000, e = b + 60;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		/* period 150..249 cycles, read time always 60 */
		uint64_t nb = b + 150 + i % 100, ne = nb + 60;

		assert_true(pebs_trustable(b, e, nb, ne, LO, HI));
		b = nb;
		e = ne;
	}
}

static void test_gap_and_stretch_rejected(void **state)
{
	(void)state;
	/* interrupted inside the observation: the end is late */
	assert_false(pebs_trustable(0, 60, 1000, 1060 + 5000, LO, HI));
	/* the previous observation was the stretched one: its end was
	 * late, so this end delta is short */
	assert_false(pebs_trustable(0, 5060, 1000, 1060, LO, HI));
	/* interrupted between observations: both deltas grow alike, the
	 * observation itself is sound (Shim keeps it) */
	assert_true(pebs_trustable(0, 60, 100000, 100060, LO, HI));
	/* time going backwards or standing still is never trustable */
	assert_false(pebs_trustable(1000, 1060, 1000, 1060, LO, HI));
	assert_false(pebs_trustable(1000, 1060, 900, 960, LO, HI));
	assert_false(pebs_trustable(1000, 1060, 2000, 1050, LO, HI));
}

static void test_boundary_inclusive(void **state)
{
	(void)state;
	/* start delta 1000: end deltas 990..1010 are within 1 % */
	assert_true(pebs_trustable(0, 0, 1000, 1010, LO, HI));
	assert_false(pebs_trustable(0, 0, 1000, 1011, LO, HI));
	assert_true(pebs_trustable(0, 0, 1000, 990, LO, HI));
	assert_false(pebs_trustable(0, 0, 1000, 989, LO, HI));
	/* 0.5 %: exactly 201000 / 200000 is in, one cycle more is out */
	assert_true(pebs_trustable(0, 0, 200000, 201000, 995000, 1005000));
	assert_false(pebs_trustable(0, 0, 200000, 201001, 995000, 1005000));
	/* 0 %: only equal deltas */
	assert_true(pebs_trustable(5, 10, 105, 110, 1000000, 1000000));
	assert_false(pebs_trustable(5, 10, 105, 111, 1000000, 1000000));
	/* no overflow with huge TSC values and deltas */
	assert_true(pebs_trustable(1ULL << 62, 1ULL << 62, 1ULL << 63,
				   (1ULL << 63) + (1ULL << 60) / 100, LO, HI));
	assert_false(pebs_trustable(0, 0, 1ULL << 63, (1ULL << 63) +
				    (1ULL << 63) / 50, LO, HI));
}

static void test_stats_residency(void **state)
{
	struct pebs_obs_thread th[4];
	struct pebs_obs_stats *st;
	uint64_t row[5] = { 0 }, t = 1000, sw = 0;
	int kept = 0;

	(void)state;
	/* rows of one observed CPU without counters: 5 words */
	assert_int_equal(pebs_obs_stats__new_layout(1, 0, LO, HI, &st), 0);
	/* 1000 observations 100 cycles apart: tid 11 sees 700 of them,
	 * tid 22 300, and one gap where the observation itself took
	 * 10000 cycles (rejected, not attributed). The slot's switch
	 * count moves with each change of thread. */
	for (int i = 0; i <= 1000; i++) {
		bool gap = i == 500;
		uint64_t pid = i % 10 < 7 ? 11 : 22;

		if (i && pid != row[3])
			sw++;
		row[0] = t;
		row[1] = t + 40 + (gap ? 10000 : 0);
		row[2] = 10;			/* tgid */
		row[3] = pid;
		row[4] = sw;			/* switches */
		kept += pebs_obs_stats__add(st, row, NULL);
		t += gap ? 10100 : 100;
	}
	/* the gap row and the one after it compare against a late end */
	assert_int_equal(pebs_obs_stats__rows(st), 1000);
	assert_int_equal(pebs_obs_stats__kept(st), 998);
	assert_int_equal(kept, 998);
	assert_int_equal(pebs_obs_stats__kept_cycles(st), 998 * 100);
	assert_int_equal(pebs_obs_stats__period(st, 0.5), 100);
	assert_int_equal(pebs_obs_stats__period(st, 0.99), 100);
	/* above 1024 cycles the histogram is exact within 0.1 % */
	assert_in_range(pebs_obs_stats__period(st, 1.0), 10090, 10110);
	assert_int_equal(pebs_obs_stats__threads(st, 0, NULL, 0), 2);
	assert_int_equal(pebs_obs_stats__threads(st, 0, th, 4), 2);
	/* most cycles first */
	assert_int_equal(th[0].pid, 11);
	assert_int_equal(th[0].tgid, 10);
	assert_int_equal(th[1].pid, 22);
	/* rows 1..1000 minus 500 (tid 11) and 501 (tid 11) */
	assert_int_equal(th[0].samples, 700 - 2);
	assert_int_equal(th[1].samples, 300);
	/* per 10 rows: 6 whole intervals and two halves (the switches
	 * 11 -> 22 and 22 -> 11) for tid 11; minus row 500 (a switch,
	 * 50 each) and row 501 (100 to tid 11) */
	assert_int_equal(th[0].cycles, 70000 - 50 - 100);
	assert_int_equal(th[1].cycles, 30000 - 50);
	/* unfiltered, row 501's interval is 10100 cycles long */
	assert_int_equal(th[0].all_cycles, 80000);
	assert_int_equal(th[1].all_cycles, 30000);
	assert_int_equal(pebs_obs_stats__all_cycles(st), 110000);
	assert_int_equal(pebs_obs_stats__threads(st, 1, th, 4), -EINVAL);
	/* a short buffer still gets the top threads */
	assert_int_equal(pebs_obs_stats__threads(st, 0, th, 1), 2);
	assert_int_equal(th[0].pid, 11);
	pebs_obs_stats__delete(st);
}

static void test_stats_period_quantiles(void **state)
{
	struct pebs_obs_stats *st;
	uint64_t row[5] = { 0, 0, 0, 0, 0 }, t = 0, p99;

	(void)state;
	assert_int_equal(pebs_obs_stats__new_layout(1, 0, LO, HI, &st), 0);
	assert_int_equal(pebs_obs_stats__period(st, 0.5), 0);
	/* 98 % at 150 cycles, 2 % at 123456: p99 lands on the slow ones */
	for (int i = 0; i <= 10000; i++) {
		row[0] = row[1] = t;
		pebs_obs_stats__add(st, row, NULL);
		t += i % 50 == 0 ? 123456 : 150;
	}
	assert_int_equal(pebs_obs_stats__period(st, 0.5), 150);
	p99 = pebs_obs_stats__period(st, 0.99);
	assert_in_range(p99, 123456 - 123456 / 500, 123456 + 123456 / 500);
	pebs_obs_stats__delete(st);
	assert_int_equal(pebs_obs_stats__new_layout(1, 0, HI, LO, &st), -EINVAL);
	assert_int_equal(pebs_obs_stats__new_layout(1, PEBS_OBS_MAX_EVENTS + 1,
						    LO, HI, &st), -EINVAL);
}

/* counter deltas per observed CPU, and the threads of the second CPU */
static void test_stats_two_cpus_counters(void **state)
{
	/* 2 CPUs x (tgid, pid, switches, one counter) after the TSC pair */
	uint64_t row[2 + 2 * 4] = { 0 }, d[2], t = 0;
	struct pebs_obs_thread th[2];
	struct pebs_obs_stats *st;

	(void)state;
	assert_int_equal(pebs_obs_stats__new_layout(2, 1, LO, HI, &st), 0);
	for (int i = 0; i <= 100; i++) {
		row[0] = t;
		row[1] = t + 30;
		row[2] = row[3] = 5;		/* CPU A: tid 5 throughout */
		row[5] = 1000 + 3ULL * i;	/* counts 3 per row */
		row[6] = row[7] = 9;		/* CPU B: tid 9 throughout */
		row[9] = 7ULL * i;		/* counts 7 per row */
		assert_in_range(pebs_obs_stats__add(st, row, d), 0, 1);
		if (i) {
			assert_int_equal(d[0], 3);
			assert_int_equal(d[1], 7);
		}
		t += 200;
	}
	assert_int_equal(pebs_obs_stats__kept(st), 100);
	assert_int_equal(pebs_obs_stats__threads(st, 1, th, 2), 1);
	assert_int_equal(th[0].pid, 9);
	assert_int_equal(th[0].cycles, 100 * 200);
	assert_int_equal(th[0].counters[0], 700);
	assert_int_equal(pebs_obs_stats__threads(st, 0, th, 2), 1);
	assert_int_equal(th[0].counters[0], 300);
	pebs_obs_stats__delete(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_accepted),
		cmocka_unit_test(test_gap_and_stretch_rejected),
		cmocka_unit_test(test_boundary_inclusive),
		cmocka_unit_test(test_stats_residency),
		cmocka_unit_test(test_stats_period_quantiles),
		cmocka_unit_test(test_stats_two_cpus_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
