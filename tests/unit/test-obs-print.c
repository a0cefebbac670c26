// SPDX-License-Identifier: MIT
/*
 * test-obs-print.c - pebs_observer__print_setup and pebs_obs_stats__print
 * on an observer of a table in memory (fake-map.h) and hand-made rows:
 * the setup lines, the counts, the trustable fraction, each thread's
 * share of the kept and of all intervals (a switch splits an interval
 * in halves), "[idle]" and "?" for a thread gone; bad options refused.
 * Needs rdtscp for the observer (skipped with the probe's reason).
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

#define GONE	2147483000	/* a pid no system has */

struct fixture {
	struct fake_map m;
	struct pebs_observer *obs;
	struct pebs_obs_stats *st;
};

static int setup(void **state)
{
	static struct fixture f;

	fake_map_init(&f.m);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pebs_obs_stats__delete(f->st);
	pebs_observer__delete(f->obs);
	f->st = NULL;
	f->obs = NULL;
	fake_map_free(&f->m);
	return 0;
}

/* an observer of CPU 0's slot, unpinned, and four rows of it */
static void observe(struct fixture *f)
{
	PEBS_OPTS(pebs_observer_opts, o, .map = f->m.map, .no_pin = true);
	/* begin, end; tgid, pid, switches */
	static const uint64_t rows[4][5] = {
		{ 1000, 1010, GONE, GONE, 0 },
		{ 2000, 2010, GONE, GONE, 0 },	/* kept: 1000 to GONE */
		{ 3000, 3010, 0, 0, 1 },	/* kept, switched: halves */
		{ 4000, 4500, 0, 0, 1 },	/* not trustable: all only */
	};

	T_NEED("rdtscp");
	assert_int_equal(pebs_observer__new(0, &o, &f->obs), 0);
	assert_int_equal(pebs_observer__add_cpu(f->obs, 0), 0);
	/* 1 % band: 990000..1010000 ppm */
	assert_int_equal(pebs_obs_stats__new(f->obs, 990000, 1010000, &f->st),
			 0);
	assert_int_equal(pebs_obs_stats__add(f->st, rows[0], NULL), 0);
	assert_int_equal(pebs_obs_stats__add(f->st, rows[1], NULL), 1);
	assert_int_equal(pebs_obs_stats__add(f->st, rows[2], NULL), 1);
	assert_int_equal(pebs_obs_stats__add(f->st, rows[3], NULL), 0);
}

static void test_setup_line(void **state)
{
	struct fixture *f = *state;
	char *buf = NULL;
	size_t len;
	FILE *out;

	observe(f);
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	pebs_observer__print_setup(f->obs, out, "the.table");
	assert_int_equal(fclose(out), 0);
	assert_string_equal(buf, "counters: none (table only)\n"
			    "observer on CPU 0, observing CPU 0; table "
			    "the.table\n");
	free(buf);
}

static void test_summary(void **state)
{
	struct fixture *f = *state;
	PEBS_OPTS(pebs_obs_print_opts, o, .tsc_hz = 1000000, .secs = 0.004,
		  .tolerance = 1);
	char *buf = NULL;
	size_t len;
	FILE *out;

	observe(f);
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	assert_int_equal(pebs_obs_stats__print(f->st, f->obs, out, &o), 0);
	assert_int_equal(fclose(out), 0);
	assert_non_null(strstr(buf,
		"observations: 4 in 0.004 s; TSC 1.0 MHz\n"
		"resolution: median "));
	assert_non_null(strstr(buf,
		"trustable: 2 of 3 (66.67 %) within 99.00..101.00 %\n"
		"cpu 0: 2 threads; share of the 0.002 s of kept intervals "
		"(of all 0.003 s)\n"
		"  cpu 0 tid 2147483000 tgid 2147483000:  75.00 % (all  50.00 %)"
		" ?                1 samples 1500 cycles\n"
		"  cpu 0 tid 0 tgid 0:  25.00 % (all  50.00 %) [idle]"
		"           1 samples 500 cycles\n"
		"IPC per thread: "));
	free(buf);
}

static void test_refused(void **state)
{
	struct fixture *f = *state;
	PEBS_OPTS(pebs_obs_print_opts, o, .secs = 1);

	observe(f);
	/* no TSC rate */
	assert_int_equal(pebs_obs_stats__print(f->st, f->obs, stdout, &o),
			 -EINVAL);
	o.tsc_hz = 1000;
	o.sz = 3;
	assert_int_equal(pebs_obs_stats__print(f->st, f->obs, stdout, &o),
			 -EINVAL);
	assert_int_equal(pebs_obs_stats__print(NULL, f->obs, stdout, NULL),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_setup_line, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
