// SPDX-License-Identifier: MIT
/*
 * test-map-print.c - pebs_map__print_header and pebs_map__print on a
 * table in memory (fake-map.h): the header line, a CPU's line, idle,
 * CPUs never seen (with all or named), the CPU selection, and the
 * history with the count of switches no longer in it.
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
#include "fake-map.h"

static int setup(void **state)
{
	static struct fake_map f;

	fake_map_init(&f);
	/* CPU 0: walker, idle, walker's second thread; CPU 1 never seen */
	fake_map_switch(&f, 0, 1500000000, 5, 6, "walker");
	fake_map_switch(&f, 0, 2000000000, 0, 0, NULL);
	fake_map_switch(&f, 0, 3000000007, 5, 7, "walker");
	fake_map_slot(&f, 0)->switches = 3;	/* the module counts them */
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	fake_map_free(*state);
	return 0;
}

static char *print(const struct pebs_map *map,
		   const struct pebs_map_print_opts *o, int want)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pebs_map__print(map, f, o), want);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_header(void **state)
{
	struct fake_map *f = *state;
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	pebs_map__print_header(f->map, out);
	assert_int_equal(fclose(out), 0);
	assert_string_equal(buf, "pebs_map ABI 1: 2 CPUs, hist_len 8, clock "
			    "local_clock, hook tracepoint, pids init-ns\n");
	free(buf);
}

static void test_table(void **state)
{
	struct fake_map *f = *state;
	PEBS_OPTS(pebs_map_print_opts, o, );
	uint64_t cpu1[1] = { 1u << 1 };
	char *out;

	out = print(f->map, NULL, 0);
	assert_string_equal(out, "CPU0: tgid 5 pid 7 switches 3 comm walker\n");
	free(out);
	o.all = true;
	out = print(f->map, &o, 0);
	assert_string_equal(out, "CPU0: tgid 5 pid 7 switches 3 comm walker\n"
			    "CPU1: -\n");
	free(out);
	/* a CPU named is shown even if never seen */
	o.all = false;
	o.cpus = cpu1;
	out = print(f->map, &o, 0);
	assert_string_equal(out, "CPU1: -\n");
	free(out);
}

static void test_history(void **state)
{
	struct fake_map *f = *state;
	PEBS_OPTS(pebs_map_print_opts, o, .history = 2);
	char *out;

	out = print(f->map, &o, 0);
	assert_string_equal(out,
		"CPU0: tgid 5 pid 7 switches 3 comm walker\n"
		"  switch 1 at 2.000000000: idle\n"
		"  switch 2 at 3.000000007: tgid 5 pid 7\n");
	free(out);
	/* eight more: of 8 places the last 7 are stable; asked for 10
	   (switches 1-10), 3 are gone */
	for (int i = 0; i < 8; i++)
		fake_map_switch(f, 0, 4000000000ULL + i, 0, 0, NULL);
	fake_map_slot(f, 0)->switches = 11;
	o.history = 10;
	out = print(f->map, &o, 0);
	assert_string_equal(out, "CPU0: idle switches 11\n"
		"  (3 older switches no longer in the history)\n"
		"  switch 4 at 4.000000001: idle\n"
		"  switch 5 at 4.000000002: idle\n"
		"  switch 6 at 4.000000003: idle\n"
		"  switch 7 at 4.000000004: idle\n"
		"  switch 8 at 4.000000005: idle\n"
		"  switch 9 at 4.000000006: idle\n"
		"  switch 10 at 4.000000007: idle\n");
	free(out);
}

static void test_refused(void **state)
{
	struct fake_map *f = *state;
	PEBS_OPTS(pebs_map_print_opts, o, );

	o.sz = 2;
	free(print(f->map, &o, -EINVAL));
	assert_int_equal(pebs_map__print(NULL, stdout, NULL), -EINVAL);
	assert_int_equal(pebs_map__print(f->map, NULL, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
