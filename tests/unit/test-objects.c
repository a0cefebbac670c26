// SPDX-License-Identifier: MIT
/*
 * test-objects.c - data objects over time (lib/objects/objects.c) from
 * synthetic allocation, free and sample streams: a range freed and
 * allocated again by another site splits at the reallocation whatever
 * order the lookups come in, overlapping lifetimes (a lost free: the
 * latest allocation wins), munmap of a range, processes kept apart,
 * unknown addresses, labels interned, and enough objects for the index
 * to be rebuilt under the lookups.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/internal.h"

/* the site of the object at (@pid, @addr, @time), or NULL */
static const char *site_at(struct pebs_objects *o, int32_t pid,
			   uint64_t addr, uint64_t time)
{
	struct pebs_object obj;
	int err = pebs_objects__find(o, pid, addr, time, &obj);

	if (err) {
		assert_int_equal(err, -ENOENT);
		return NULL;
	}
	return obj.site;
}

static void test_realloc_split(void **state)
{
	struct pebs_objects *o;
	struct pebs_object obj;

	(void)state;
	assert_int_equal(pebs_objects__new(&o), 0);
	/* A at 0x1000-0x3000 from t=10 to 20, B on the same range from 30 */
	assert_int_equal(pebs_objects__alloc(o, 7, 0x1000, 0x2000, 10, "A"), 0);
	assert_int_equal(pebs_objects__free(o, 7, 0x1000, 0, 20), 0);
	assert_int_equal(pebs_objects__alloc(o, 7, 0x1000, 0x2000, 30, "B"), 0);
	/* lookups out of time order */
	assert_string_equal(site_at(o, 7, 0x2fff, 35), "B");
	assert_string_equal(site_at(o, 7, 0x1000, 10), "A");
	assert_string_equal(site_at(o, 7, 0x1800, 19), "A");
	assert_null(site_at(o, 7, 0x1800, 20));	/* freed, not yet reused */
	assert_null(site_at(o, 7, 0x1800, 25));
	assert_string_equal(site_at(o, 7, 0x1800, 30), "B");
	assert_null(site_at(o, 7, 0x1800, 9));	/* before A */
	assert_null(site_at(o, 7, 0x3000, 35));	/* one past the end */
	assert_null(site_at(o, 7, 0xfff, 35));
	assert_int_equal(pebs_objects__find(o, 7, 0x1800, 15, &obj), 0);
	assert_int_equal(obj.addr, 0x1000);
	assert_int_equal(obj.size, 0x2000);
	assert_int_equal(obj.alloc_time, 10);
	assert_int_equal(obj.free_time, 20);
	assert_string_equal(obj.instance, "A #1");
	assert_int_equal(pebs_objects__find(o, 7, 0x1800, 31, &obj), 0);
	assert_true(obj.free_time == UINT64_MAX);
	pebs_objects__delete(o);
}

static void test_overlap_and_pids(void **state)
{
	struct pebs_objects *o;
	struct pebs_object x, y;

	(void)state;
	assert_int_equal(pebs_objects__new(&o), 0);
	/* a big object whose free was lost, then a small one inside it */
	assert_int_equal(pebs_objects__alloc(o, 1, 0x10000, 0x10000, 5, "big"),
			 0);
	assert_int_equal(pebs_objects__alloc(o, 1, 0x14000, 0x100, 8, "small"),
			 0);
	assert_string_equal(site_at(o, 1, 0x14010, 9), "small");
	assert_string_equal(site_at(o, 1, 0x14010, 7), "big");
	assert_string_equal(site_at(o, 1, 0x18000, 9), "big");
	/* the same address in another process */
	assert_null(site_at(o, 2, 0x14010, 9));
	assert_int_equal(pebs_objects__alloc(o, 2, 0x14000, 0x10, 8, "other"),
			 0);
	assert_string_equal(site_at(o, 2, 0x14008, 9), "other");
	assert_string_equal(site_at(o, 1, 0x14008, 9), "small");
	/* a second allocation at an open object's start ends it */
	assert_int_equal(pebs_objects__alloc(o, 1, 0x10000, 0x20, 12, "again"),
			 0);
	assert_string_equal(site_at(o, 1, 0x18000, 11), "big");
	assert_null(site_at(o, 1, 0x18000, 12));
	assert_string_equal(site_at(o, 1, 0x10010, 12), "again");
	/* labels are interned; instances count per site */
	assert_int_equal(pebs_objects__alloc(o, 1, 0x90000, 0x10, 13, "small"),
			 0);
	assert_int_equal(pebs_objects__find(o, 1, 0x14000, 9, &x), 0);
	assert_int_equal(pebs_objects__find(o, 1, 0x90000, 13, &y), 0);
	assert_ptr_equal(x.site, y.site);
	assert_string_equal(x.instance, "small #1");
	assert_string_equal(y.instance, "small #2");
	assert_int_equal(pebs_objects__count(o), 5);
	pebs_objects__delete(o);
}

static void test_munmap_range(void **state)
{
	struct pebs_objects *o;

	(void)state;
	assert_int_equal(pebs_objects__new(&o), 0);
	assert_int_equal(pebs_objects__alloc(o, 3, 0x100000, 0x4000, 1, "m1"),
			 0);
	assert_int_equal(pebs_objects__alloc(o, 3, 0x104000, 0x4000, 2, "m2"),
			 0);
	assert_int_equal(pebs_objects__alloc(o, 3, 0x108000, 0x4000, 3, "m3"),
			 0);
	/* unmapping the first two ends them, not the third */
	assert_int_equal(pebs_objects__free(o, 3, 0x100000, 0x8000, 10), 0);
	assert_null(site_at(o, 3, 0x100010, 11));
	assert_null(site_at(o, 3, 0x104010, 11));
	assert_string_equal(site_at(o, 3, 0x108010, 11), "m3");
	assert_string_equal(site_at(o, 3, 0x104010, 9), "m2");
	/* a free of an address no object starts at changes nothing */
	assert_int_equal(pebs_objects__free(o, 3, 0x108010, 0, 12), 0);
	assert_string_equal(site_at(o, 3, 0x108010, 13), "m3");
	pebs_objects__delete(o);
}

static void test_bad_input(void **state)
{
	struct pebs_objects *o;
	struct pebs_object obj;

	(void)state;
	assert_int_equal(pebs_objects__new(NULL), -EINVAL);
	assert_int_equal(pebs_objects__new(&o), 0);
	assert_int_equal(pebs_objects__alloc(o, 1, 0x1000, 0, 1, "z"),
			 -EINVAL);
	assert_int_equal(pebs_objects__alloc(o, 1, UINT64_MAX - 4, 16, 1, "w"),
			 -EINVAL);
	assert_int_equal(pebs_objects__alloc(o, 1, 0x1000, 8, 1, NULL), 0);
	assert_string_equal(site_at(o, 1, 0x1000, 1), "[unknown site]");
	assert_int_equal(pebs_objects__find(o, 1, 0x1000, 1, NULL), -EINVAL);
	assert_int_equal(pebs_objects__find(NULL, 1, 0x1000, 1, &obj),
			 -EINVAL);
	assert_int_equal(pebs_objects__free(NULL, 1, 0x1000, 0, 1), -EINVAL);
	pebs_objects__delete(o);
	pebs_objects__delete(NULL);
}

/*
 * Many objects (the index is rebuilt every few hundred) reusing a few
 * addresses from alternating sites, checked against the expected owner
 * at every time, with lookups interleaved with the additions.
 */
static void test_many(void **state)
{
	enum { N = 5000, SLOTS = 37 };
	static const char *const sites[] = { "even", "odd" };
	struct pebs_objects *o;

	(void)state;
	assert_int_equal(pebs_objects__new(&o), 0);
	for (uint64_t i = 0; i < N; i++) {
		uint64_t addr = 0x400000 + (i % SLOTS) * 0x1000;

		/* object i lives in [10i + 1, 10i + 1 + 10 * SLOTS - 5) */
		if (i >= SLOTS)
			assert_int_equal(pebs_objects__free(o, 1,
					 addr, 0, 10 * i - 4), 0);
		assert_int_equal(pebs_objects__alloc(o, 1, addr, 0x800,
						     10 * i + 1, sites[i & 1]),
				 0);
		if (i > SLOTS && i % 97 == 0) {
			uint64_t j = i - SLOTS + 3;
			uint64_t a = 0x400000 + (j % SLOTS) * 0x1000;

			assert_string_equal(site_at(o, 1, a + 0x10, 10 * j + 5),
					    sites[j & 1]);
		}
	}
	for (uint64_t j = 0; j < N; j += 7) {
		uint64_t a = 0x400000 + (j % SLOTS) * 0x1000;

		assert_string_equal(site_at(o, 1, a + 0x7ff, 10 * j + 1),
				    sites[j & 1]);
		if (j + SLOTS < N) {
			/* between its free and the next allocation there */
			assert_null(site_at(o, 1, a, 10 * (j + SLOTS) - 2));
		}
		assert_null(site_at(o, 1, a + 0x800, 10 * j + 2));
	}
	pebs_objects__delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_realloc_split),
		cmocka_unit_test(test_overlap_and_pids),
		cmocka_unit_test(test_munmap_range),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
