// SPDX-License-Identifier: MIT
/*
 * test-budget-calibrate - pebs_budget__calibrate on this host with
 * cpu-clock and task-clock: a cost per sample above 0 and below 1 ms
 * (a sanity check, not a measurement), an event that does not count in
 * a spin loop (-ENODATA), bad periods (-EINVAL); and
 * pebs_budget__calibrate_faults with page-faults (a cost per event
 * at least 0 and per sample above 0, both below 1 ms), an event that
 * does not count in a page-fault loop (-ENODATA), bad arguments; and
 * pebs_budget__calibrate_off (page-faults open but disabled: at least
 * 0, below 1 ms), bad arguments; pebs_budget__calibrate_switch (a dummy,
 * per context switch; the affinity restored), bad arguments.
 */
#include <errno.h>
#include <sched.h>
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

/* calibrate_faults, or skip where perf_event_open or the machine cannot */
static int faults_or_skip(const char *name, double *event_ns,
			  double *sample_ns)
{
	struct pebs_event ev;
	int err;

	sw_event(&ev, name);
	err = pebs_budget__calibrate_faults(&ev, 0, 5, 5, event_ns, sample_ns);
	if (err == -ENOSYS || err == -EACCES || err == -EPERM ||
	    err == -ENOENT || err == -EOPNOTSUPP || err == -EAGAIN) {
		print_message("# skip: %s\n", pebs_errmsg());
		skip();
	}
	return err;
}

static void page_faults(void **state)
{
	double event_ns = -1, sample_ns = -1;

	(void)state;
	assert_int_equal(faults_or_skip("page-faults", &event_ns, &sample_ns),
			 0);
	print_message("# page-faults: %.0f ns per event, %.0f ns per sample\n",
		      event_ns, sample_ns);
	assert_true(event_ns >= 0 && event_ns < 1e6);
	assert_true(sample_ns > 0 && sample_ns < 1e6);
}

static void not_in_a_fault_loop(void **state)
{
	double event_ns = -1;

	(void)state;
	/* a page-fault loop takes no alignment faults */
	assert_int_equal(faults_or_skip("alignment-faults", &event_ns, NULL),
			 -ENODATA);
	assert_non_null(strstr(pebs_errmsg(), "page-fault loop"));
	assert_true(event_ns == -1);
}

static void bad_fault_args(void **state)
{
	struct pebs_event ev;
	double ns;

	(void)state;
	sw_event(&ev, "page-faults");
	assert_int_equal(pebs_budget__calibrate_faults(NULL, 0, 1, 1, &ns,
						       NULL), -EINVAL);
	assert_int_equal(pebs_budget__calibrate_faults(&ev, 0, 1, 1, NULL,
						       NULL), -EINVAL);
	assert_int_equal(pebs_budget__calibrate_faults(&ev, 0, 1, 65, &ns,
						       NULL), -EINVAL);
}

/*
 * pebs_budget__calibrate_off: page-faults open but disabled, against
 * bare faults (at least 0, below 1 ms: a sanity check); bad arguments
 */
static void off_cost(void **state)
{
	struct pebs_event ev;
	double off_ns = -1;
	int err;

	(void)state;
	sw_event(&ev, "page-faults");
	err = pebs_budget__calibrate_off(&ev, 0, 1, 21, &off_ns);
	if (err == -ENOSYS || err == -EACCES || err == -EPERM ||
	    err == -ENOENT || err == -EOPNOTSUPP) {
		print_message("# skip: %s\n", pebs_errmsg());
		skip();
	}
	assert_int_equal(err, 0);
	print_message("# page-faults: %.0f ns per fault while disabled\n",
		      off_ns);
	assert_true(off_ns >= 0 && off_ns < 1e6);
	assert_int_equal(pebs_budget__calibrate_off(NULL, 0, 1, 1, &off_ns),
			 -EINVAL);
	assert_int_equal(pebs_budget__calibrate_off(&ev, 0, 1, 1, NULL),
			 -EINVAL);
	assert_int_equal(pebs_budget__calibrate_off(&ev, 0, 1, 1025, &off_ns),
			 -EINVAL);
}

/*
 * pebs_budget__calibrate_switch: a dummy enabled on this thread against
 * none, per pipe round trip (at least 0, below 1 ms); the thread's
 * affinity as it was; bad arguments
 */
static void switch_cost(void **state)
{
	struct pebs_event ev;
	cpu_set_t before, after;
	double ns = -1;
	int err;

	(void)state;
	sw_event(&ev, "dummy");
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	err = pebs_budget__calibrate_switch(&ev, 11, &ns);
	if (err == -ENOSYS || err == -EACCES || err == -EPERM ||
	    err == -ENOENT || err == -EOPNOTSUPP) {
		print_message("# skip: %s\n", pebs_errmsg());
		skip();
	}
	assert_int_equal(err, 0);
	print_message("# dummy: %.0f ns per context switch\n", ns);
	assert_true(ns >= 0 && ns < 1e6);
	assert_int_equal(sched_getaffinity(0, sizeof(after), &after), 0);
	assert_true(CPU_EQUAL(&before, &after));
	assert_int_equal(pebs_budget__calibrate_switch(NULL, 1, &ns), -EINVAL);
	assert_int_equal(pebs_budget__calibrate_switch(&ev, 1, NULL), -EINVAL);
	assert_int_equal(pebs_budget__calibrate_switch(&ev, 1025, &ns),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clocks),
		cmocka_unit_test(not_in_a_spin_loop),
		cmocka_unit_test(bad_periods),
		cmocka_unit_test(page_faults),
		cmocka_unit_test(not_in_a_fault_loop),
		cmocka_unit_test(bad_fault_args),
		cmocka_unit_test(off_cost),
		cmocka_unit_test(switch_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
