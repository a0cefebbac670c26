// SPDX-License-Identifier: MIT
/*
 * test-obs-run.c - the observation loop (lib/observe/obs-run.c) over a
 * table in memory (fake-map.h): max_rows, duration, period pacing,
 * intervals, the stop flag, a callback's stop and error, bad options.
 * Needs rdtscp (skipped with the probe's reason without it).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"
#include "fake-map.h"
#include "helpers.h"

struct seen {
	size_t words;
	uint64_t rows, calls, first, last, end_prev, end_last, intervals;
	uint64_t last_tick;
	int ret;		/* on_rows' return */
	bool bad;		/* a row out of order or of the wrong thread */
};

static int on_rows(void *ctx, const uint64_t *rows, unsigned int n)
{
	struct seen *s = ctx;

	for (unsigned int i = 0; i < n; i++) {
		const uint64_t *row = rows + i * s->words;

		if (!s->rows)
			s->first = row[0];
		/* the CPU's slot says thread 6 of process 5 */
		s->bad |= row[1] < row[0] || row[0] < s->last ||
			  row[2] != 5 || row[3] != 6;
		s->last = row[0];
		s->end_prev = s->end_last;
		s->end_last = row[1];
		s->rows++;
	}
	s->calls++;
	return s->ret;
}

static int on_interval(void *ctx, uint64_t tsc)
{
	struct seen *s = ctx;

	s->bad |= tsc != s->last || tsc <= s->last_tick;
	s->last_tick = tsc;
	s->intervals++;
	return 0;
}

struct fixture {
	struct fake_map m;
	struct pebs_observer *obs;
	uint64_t hz;
};

static int setup(void **state)
{
	static struct fixture f;

	fake_map_init(&f.m);
	fake_map_switch(&f.m, 0, 100, 5, 6, "walker");
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pebs_observer__delete(f->obs);
	f->obs = NULL;
	fake_map_free(&f->m);
	return 0;
}

/* the observer of CPU 0's slot, unpinned */
static struct pebs_observer *observer(struct fixture *f)
{
	PEBS_OPTS(pebs_observer_opts, o, .map = f->m.map, .no_pin = true);

	T_NEED("rdtscp");
	assert_int_equal(pebs_observer__new(0, &o, &f->obs), 0);
	assert_int_equal(pebs_observer__add_cpu(f->obs, 0), 0);
	assert_int_equal(pebs_tsc_hz(20, &f->hz), 0);
	return f->obs;
}

static void test_max_rows(void **state)
{
	struct pebs_observer *obs = observer(*state);
	struct seen s = { .words = pebs_observer__row_words(obs) };
	uint64_t again = 0;
	PEBS_OPTS(pebs_observer_run_opts, o, .max_rows = 3000,
		  .on_rows = on_rows, .again = &again, .ctx = &s);

	assert_int_equal(pebs_observer__run(obs, &o), 0);
	assert_int_equal(s.rows, 3000);
	/* chunks of 1024 rows: 1024, 1024, 952 */
	assert_int_equal(s.calls, 3);
	assert_false(s.bad);
	assert_int_equal(again, 0);	/* nobody writes the slot */
}

static void test_duration_and_intervals(void **state)
{
	struct pebs_observer *obs = observer(*state);
	struct fixture *f = *state;
	struct seen s = { .words = pebs_observer__row_words(obs) };
	uint64_t dur = f->hz / 20;	/* 50 ms */
	PEBS_OPTS(pebs_observer_run_opts, o, .duration_cycles = dur,
		  .interval_cycles = dur / 4, .on_rows = on_rows,
		  .on_interval = on_interval, .ctx = &s);

	assert_int_equal(pebs_observer__run(obs, &o), 0);
	assert_false(s.bad);
	assert_true(s.rows > 0);
	/* ends with the first observation that ends past the deadline */
	assert_true(s.end_last >= s.first + dur);
	assert_true(s.end_prev < s.first + dur);
	/* the boundaries at 1/4, 2/4 and 3/4; the one at the end is the
	   run's end, not an interval (a loaded host may merge some) */
	assert_in_range(s.intervals, 1, 3);
}

static void test_period(void **state)
{
	struct pebs_observer *obs = observer(*state);
	struct seen s = { .words = pebs_observer__row_words(obs) };
	const uint64_t period = 200000;
	PEBS_OPTS(pebs_observer_run_opts, o, .period_cycles = period,
		  .max_rows = 200, .on_rows = on_rows, .ctx = &s);

	assert_int_equal(pebs_observer__run(obs, &o), 0);
	assert_int_equal(s.rows, 200);
	assert_false(s.bad);
	/* one observation every period from the first on */
	assert_true(s.last - s.first >= 198 * period);
}

static void test_stops(void **state)
{
	struct pebs_observer *obs = observer(*state);
	struct seen s = { .words = pebs_observer__row_words(obs) };
	volatile int stop = 1;
	PEBS_OPTS(pebs_observer_run_opts, o, .stop = &stop,
		  .on_rows = on_rows, .ctx = &s);

	/* the flag already set: not one observation */
	assert_int_equal(pebs_observer__run(obs, &o), 0);
	assert_int_equal(s.rows, 0);
	assert_int_equal(s.calls, 0);
	/* on_rows > 0 ends the run after its chunk */
	stop = 0;
	s.ret = 1;
	assert_int_equal(pebs_observer__run(obs, &o), 0);
	assert_int_equal(s.calls, 1);
	assert_int_equal(s.rows, 1024);
	/* and -errno ends it with that error */
	s.ret = -EIO;
	assert_int_equal(pebs_observer__run(obs, &o), -EIO);
	assert_int_equal(s.calls, 2);
}

static void test_bad(void **state)
{
	struct pebs_observer *obs = observer(*state);
	PEBS_OPTS(pebs_observer_run_opts, o, .period_cycles = 1);
	struct pebs_observer_run_opts unset = { .max_rows = 1 };

	assert_int_equal(pebs_observer__run(obs, &o), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "nothing ends it"));
	assert_int_equal(pebs_observer__run(obs, NULL), -EINVAL);
	assert_int_equal(pebs_observer__run(obs, &unset), -EINVAL);
	o.max_rows = 1;
	assert_int_equal(pebs_observer__run(NULL, &o), -EINVAL);
	assert_int_equal(pebs_observer__run(obs, &o), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_max_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duration_and_intervals,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_period, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
