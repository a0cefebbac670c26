// SPDX-License-Identifier: MIT
/*
 * test-strset.c - core_strset (lib/core/strset.c): equal strings are one
 * copy (one pointer), distinct ones distinct, every string still found
 * after the table has grown many times, the copies not the caller's
 * buffers, and a freed set empty and usable again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/internal.h"

#define N	5000	/* past 256 slots: the table grows five times */

static void test_once(void **state)
{
	struct core_strset set = { 0 };
	char buf[32];
	const char *a, *b;

	(void)state;
	snprintf(buf, sizeof(buf), "walker");
	a = core_strset_add(&set, buf);
	assert_non_null(a);
	assert_ptr_not_equal(a, buf);	/* a copy */
	snprintf(buf, sizeof(buf), "streamer");
	b = core_strset_add(&set, buf);
	assert_ptr_not_equal(a, b);
	assert_string_equal(a, "walker");
	assert_ptr_equal(core_strset_add(&set, "walker"), a);
	assert_ptr_equal(core_strset_add(&set, "streamer"), b);
	assert_ptr_not_equal(core_strset_add(&set, ""), a);
	assert_int_equal(set.nr, 3);
	core_strset_free(&set);
	assert_int_equal(set.nr, 0);
	assert_null(set.tab);
	assert_string_equal(core_strset_add(&set, "again"), "again");
	core_strset_free(&set);
}

static void test_grow(void **state)
{
	struct core_strset set = { 0 };
	const char **first = calloc(N, sizeof(*first));
	char buf[32];
	size_t found = 0;

	(void)state;
	assert_non_null(first);
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "/usr/lib/lib%d.so", i);
		first[i] = core_strset_add(&set, buf);
		assert_non_null(first[i]);
	}
	assert_int_equal(set.nr, N);
	assert_true(set.cap >= 2 * N);
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "/usr/lib/lib%d.so", i);
		assert_ptr_equal(core_strset_add(&set, buf), first[i]);
	}
	assert_int_equal(set.nr, N);
	for (size_t i = 0; i < set.cap; i++)
		found += set.tab[i] != NULL;
	assert_int_equal(found, N);
	core_strset_free(&set);
	free(first);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_once),
		cmocka_unit_test(test_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
