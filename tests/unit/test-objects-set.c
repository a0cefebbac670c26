// SPDX-License-Identifier: MIT
/*
 * test-objects-set.c - the interposer's set of tracked addresses and the
 * filter a free looks at first (tools/objects/objects-set.c, built in
 * here): an address is found while it is in, and its bit is set exactly
 * while an entry has it (two entries sharing a bit, a count stuck at its
 * top keeping the bit); a pinned bit stays; entries whose probes
 * overlap stay found whatever the order of removal, leaving the table
 * empty (no tombstones); a full group refuses more; an address's group
 * comes from its 4 MiB region; a fork's child finds the locks free; two
 * threads adding and removing at once leave every bit clear.
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
	objects_set_add(a);
	assert_true(objects_filt_has(a));
	assert_int_equal(objects_set_del(a + 16), 0);
	assert_int_equal(objects_set_del(a), 1);
	assert_false(objects_filt_has(a));
	assert_int_equal(objects_set_del(a), 0);
	assert_true(filt_clear());
}

static void test_shared_bit(void **state)
{
	uintptr_t a = BASE + 0x40, b = same_bit(a);

	(void)state;
	objects_set_add(a);
	objects_set_add(b);
	assert_int_equal(objects_set_del(a), 1);
	assert_true(objects_filt_has(b));	/* b still has it */
	assert_int_equal(objects_set_del(b), 1);
	assert_false(objects_filt_has(b));
	assert_true(filt_clear());
}

static bool table_empty(void)
{
	for (unsigned int g = 0; g < FILT_GROUPS; g++) {
		if (filt_groups[g].used)
			return false;
		for (unsigned int i = 0; i < GROUP_SLOTS; i++)
			if (filt_groups[g].set[i])
				return false;
	}
	return true;
}

/* the next 16-byte aligned address after @a whose home slot is @d
   after @a's */
static uintptr_t home_after(uintptr_t a, uint32_t d)
{
	for (uintptr_t x = a + 16;; x += 16)
		if (set_home(x) == ((set_home(a) + d) & (GROUP_SLOTS - 1)) &&
		    objects_filt_group(x) == objects_filt_group(a))
			return x;
}

/*
 * Three runs of entries sharing a home slot, each run's home the slot
 * after the last's (so the runs interleave; in the third pass they wrap
 * past the table's end), removed in three orders: each stays found until its removal,
 * and the table ends empty (a removal shifts back, leaves no tombstone).
 */
static void test_probes(void **state)
{
	enum { N = 24 };
	static const unsigned int step[] = { 1, 7, 13 };
	uintptr_t as[N];
	uintptr_t wrap = BASE + 0x10;

	(void)state;
	while (set_home(wrap) != GROUP_SLOTS - 2)
		wrap += 16;
	for (unsigned int o = 0; o < 3; o++) {
		as[0] = o == 2 ? wrap : BASE + 0x50;
		for (int i = 1; i < N; i++)	/* 3 homes, 8 entries each */
			as[i] = home_after(as[i - 1], i % 8 ? 0 : 1);
		for (int i = 0; i < N; i++)
			objects_set_add(as[i]);
		assert_int_equal(filt_groups[objects_filt_group(as[0])].used, N);
		for (unsigned int k = 0, i = 0; k < N; k++, i = (i + step[o]) % N) {
			/* every one not yet removed is still found */
			uint32_t b = objects_filt_bit(as[i]);
			struct filt_group *l = &filt_groups[b >> 11];

			for (unsigned int j = 0; j < N; j++) {
				uint32_t s = set_find(l, as[j]);
				bool gone = false;

				for (unsigned int m = 0, x = 0; m < k; m++, x = (x + step[o]) % N)
					gone |= x == j;
				assert_int_equal(l->set[s] == as[j], !gone);
			}
			assert_int_equal(objects_set_del(as[i]), 1);
		}
		assert_true(table_empty());
		assert_true(filt_clear());
	}
}

/* a group takes GROUP_FULL entries, then refuses (their frees unsent) */
static void test_full(void **state)
{
	uintptr_t a = BASE + 0x100000;
	uint32_t g = objects_filt_group(a);

	(void)state;
	for (unsigned int i = 0; i < GROUP_FULL; i++)
		objects_set_add(a + i * 16);
	assert_int_equal(filt_groups[g].used, GROUP_FULL);
	objects_set_add(a + GROUP_FULL * 16);
	assert_int_equal(filt_groups[g].used, GROUP_FULL);
	assert_int_equal(objects_set_del(a + GROUP_FULL * 16), 0);
	for (unsigned int i = 0; i < GROUP_FULL; i++)
		assert_int_equal(objects_set_del(a + i * 16), 1);
	assert_true(table_empty());
	assert_true(filt_clear());
}

/* a pinned bit stays set, whatever comes and goes with it */
static void test_pin(void **state)
{
	uintptr_t a = BASE + 0x2000, b = same_bit(a);
	uint32_t bit = objects_filt_bit(a);

	(void)state;
	objects_set_add(b);
	objects_set_pin(a);
	assert_true(objects_filt_has(a));
	assert_int_equal(objects_set_del(a), 0);	/* not in the table */
	assert_int_equal(objects_set_del(b), 1);
	assert_true(objects_filt_has(a));
	filt_groups[bit >> 11].n[bit & 2047] = 0;
	objects_filt[bit / 64] &= ~((uint64_t)1 << (bit % 64));
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
		objects_set_add(as[i]);
	assert_int_equal(filt_groups[bit >> 11].n[bit & 2047], FILT_STUCK);
	for (int i = 0; i < FILT_STUCK; i++)
		assert_int_equal(objects_set_del(as[i]), 1);
	assert_true(objects_filt_has(as[0]));	/* stuck: kept set */
	/* one more with the bit, and its removal, change nothing */
	objects_set_add(as[FILT_STUCK]);
	assert_int_equal(objects_set_del(as[FILT_STUCK]), 1);
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
			objects_set_add(base + (uintptr_t)i * 32);
		for (int i = 0; i < 16; i++)
			if (!objects_set_del(base + (uintptr_t)i * 32) ||
			    objects_set_del(base + (uintptr_t)i * 32))
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
		cmocka_unit_test(test_probes),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_pin),
		cmocka_unit_test(test_stuck),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_forked),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
