// SPDX-License-Identifier: MIT
/*
 * test-budget-calibrate - pebs_budget__calibrate on this host with
 * cpu-clock and task-clock: a cost per sample above 0 and below 1 ms
 * (a sanity check, not a measurement), an event that does not count in
 * a spin loop (-ENODATA), bad periods (-EINVAL).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"

/* @name through the library's parser (perf's syntax) */
static void sw_event(struct pebs_event *ev, const char *name)
{
	assert_int_equal(pebs_event__parse(name, ev), 0);
}

/* calibrate, or skip when perf_event_open is not available here */
static int calibrate_or_skip(const struct pebs_event *ev, uint64_t dense,
			     uint64_t sparse, double *cost)
{
	int err = pebs_budget__calibrate(ev, dense, sparse, 10, 3, cost);

	if (err == -ENOSYS || err == -EACCES || err == -EPERM ||
	    err == -ENOENT || err == -EOPNOTSUPP) {
		print_message("# skip: %s\n", pebs_errmsg());
		skip();
	}
	if (err == -EAGAIN) {	/* the shared machine was too busy */
		print_message("# skip: %s\n", pebs_errmsg());
		skip();
	}
	return err;
}

static void clocks(void **state)
{
	static const char *const evs[] = { "cpu-clock", "task-clock" };
	struct pebs_event ev;
	unsigned int i;
	double cost;

	(void)state;
	for (i = 0; i < 2; i++) {
		sw_event(&ev, evs[i]);
		cost = -1;
		/* every 20 us against every 10 ms */
		assert_int_equal(calibrate_or_skip(&ev, 20000, 10000000,
						   &cost), 0);
		print_message("# %s: %.0f ns per sample\n", evs[i], cost);
		assert_true(cost > 0 && cost < 1e6);
	}
}

static void not_in_a_spin_loop(void **state)
{
	struct pebs_event ev;
	double cost = -1;

	(void)state;
	/* a spin loop takes no page faults */
	sw_event(&ev, "page-faults");
	assert_int_equal(calibrate_or_skip(&ev, 1, 1000, &cost), -ENODATA);
	assert_non_null(strstr(pebs_errmsg(), "cpu-clock"));
	assert_true(cost == -1);
}

static void bad_periods(void **state)
{
	struct pebs_event ev;
	double cost;

	(void)state;
	sw_event(&ev, "cpu-clock");
	assert_int_equal(pebs_budget__calibrate(&ev, 1000, 1000, 1, 1, &cost),
			 -EINVAL);
	assert_int_equal(pebs_budget__calibrate(&ev, 0, 1000, 1, 1, &cost),
			 -EINVAL);
	assert_int_equal(pebs_budget__calibrate(NULL, 10, 1000, 1, 1, &cost),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clocks),
		cmocka_unit_test(not_in_a_spin_loop),
		cmocka_unit_test(bad_periods),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
