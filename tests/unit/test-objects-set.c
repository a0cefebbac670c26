// SPDX-License-Identifier: MIT
/*
 * test-objects-set.c - the interposer's set of tracked addresses and the
 * filter a free looks at first (tools/objects/objects-set.c, built in
 * here): an address is found while it is in, and its bit is set exactly
 * while an entry has it (two entries sharing a bit, a count stuck at its
 * top keeping the bit); big chunks stay out of the filter, their group's
 * bit set while one lives there; an address's
 * group comes from its 4 MiB region; a fork's child finds the locks
 * free; two threads adding and removing at once leave every bit clear.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/objects/objects-set.c"

#define BASE	((uintptr_t)0x7f1234000000ull)	/* 4 MiB aligned */

static bool filt_clear(void)
{
	for (size_t i = 0; i < sizeof(objects_filt) / sizeof(objects_filt[0]);
	     i++)
		if (objects_filt[i])
			return false;
	return true;
}

/* the next 16-byte aligned address after @a with @a's bit */
static uintptr_t same_bit(uintptr_t a)
{
	uint32_t b = objects_filt_bit(a);

	for (uintptr_t x = a + 16;; x += 16)
		if (objects_filt_bit(x) == b)
			return x;
}

static void test_add_del(void **state)
{
	uintptr_t a = BASE + 0x1230;

	(void)state;
	assert_false(objects_filt_has(a));
	objects_set_add(a, false);
	assert_true(objects_filt_has(a));
	assert_int_equal(objects_set_del(a + 16, false), 0);
	assert_int_equal(objects_set_del(a, false), 1);
	assert_false(objects_filt_has(a));
	assert_int_equal(objects_set_del(a, false), 0);
	assert_true(filt_clear());
}

static void test_shared_bit(void **state)
{
	uintptr_t a = BASE + 0x40, b = same_bit(a);

	(void)state;
	objects_set_add(a, false);
	objects_set_add(b, false);
	assert_int_equal(objects_set_del(a, false), 1);
	assert_true(objects_filt_has(b));	/* b still has it */
	assert_int_equal(objects_set_del(b, false), 1);
	assert_false(objects_filt_has(b));
	assert_true(filt_clear());
}

/* big chunks: out of the filter, their group's bit set while one lives */
static void test_big(void **state)
{
	uintptr_t a = BASE + 0x100000, b = BASE + 0x200000;
	uint64_t g = (uint64_t)1 << objects_filt_group(a);

	(void)state;
	assert_int_equal(objects_filt_group(a), objects_filt_group(b));
	assert_false(objects_big_groups & g);
	objects_set_add(a, true);
	assert_false(objects_filt_has(a));	/* told by its size instead */
	assert_true(objects_big_groups & g);
	objects_set_add(b, true);
	assert_int_equal(objects_set_del(a, false), 0);	/* not a small one */
	assert_int_equal(objects_set_del(a, true), 1);
	assert_true(objects_big_groups & g);	/* b lives */
	assert_int_equal(objects_set_del(a, true), 0);
	assert_int_equal(objects_set_del(b, true), 1);
	assert_false(objects_big_groups & g);
	assert_int_equal(objects_big_groups, 0);
	assert_true(filt_clear());
}

/* FILT_STUCK entries with one bit: the count stops there, the bit stays */
static void test_stuck(void **state)
{
	uintptr_t *as = calloc(FILT_STUCK + 1, sizeof(*as));
	uint32_t bit;

	(void)state;
	assert_non_null(as);
	as[0] = BASE + 0x200000;
	for (int i = 1; i <= FILT_STUCK; i++)
		as[i] = same_bit(as[i - 1]);
	bit = objects_filt_bit(as[0]);
	for (int i = 0; i < FILT_STUCK; i++)
		objects_set_add(as[i], false);
	assert_int_equal(filt_groups[bit >> 11].n[bit & 2047], FILT_STUCK);
	for (int i = 0; i < FILT_STUCK; i++)
		assert_int_equal(objects_set_del(as[i], false), 1);
	assert_true(objects_filt_has(as[0]));	/* stuck: kept set */
	/* one more with the bit, and its removal, change nothing */
	objects_set_add(as[FILT_STUCK], false);
	assert_int_equal(objects_set_del(as[FILT_STUCK], false), 1);
	assert_true(objects_filt_has(as[0]));
	/* for the tests after this one */
	filt_groups[bit >> 11].n[bit & 2047] = 0;
	objects_filt[bit / 64] &= ~((uint64_t)1 << (bit % 64));
	assert_true(filt_clear());
	free(as);
}

/* a region's addresses share a group: a thread's arena, its lines */
static void test_groups(void **state)
{
	unsigned int other = 0;

	(void)state;
	for (uintptr_t a = BASE; a < BASE + (4u << 20); a += 4096)
		assert_int_equal(objects_filt_bit(a) >> 11,
				 objects_filt_bit(BASE) >> 11);
	/* and regions spread over the groups */
	for (unsigned int i = 1; i <= 64; i++)
		other += objects_filt_bit(BASE + ((uintptr_t)i << FILT_REGION)) >>
			 11 != objects_filt_bit(BASE) >> 11;
	assert_true(other >= 56);
}

static void test_forked(void **state)
{
	(void)state;
	filt_groups[5].lock = true;
	filt_groups[FILT_GROUPS - 1].lock = true;
	objects_set_forked();
	assert_false(filt_groups[5].lock);
	assert_false(filt_groups[FILT_GROUPS - 1].lock);
}

/* two threads, each adding and removing its own addresses in one region
   (shared groups and bits), many times over */
static void *churn(void *arg)
{
	uintptr_t base = BASE + 0x300000 + (uintptr_t)arg * 16;

	for (int round = 0; round < 2000; round++) {
		for (int i = 0; i < 16; i++)
			objects_set_add(base + (uintptr_t)i * 32, false);
		for (int i = 0; i < 16; i++)
			if (!objects_set_del(base + (uintptr_t)i * 32, false) ||
			    objects_set_del(base + (uintptr_t)i * 32, false))
				return (void *)1;
	}
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t t[2];
	void *ret[2];

	(void)state;
	for (uintptr_t i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, churn, (void *)i), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], &ret[i]), 0);
		assert_null(ret[i]);
	}
	assert_true(filt_clear());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_del),
		cmocka_unit_test(test_shared_bit),
		cmocka_unit_test(test_big),
		cmocka_unit_test(test_stuck),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_forked),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
