// SPDX-License-Identifier: MIT
/*
 * test-objects.c - data objects over time (lib/objects/objects.c) from
 * synthetic allocation, free and sample streams: a range freed and
 * allocated again by another site splits at the reallocation whatever
 * order the lookups come in, overlapping lifetimes (a lost free: the
 * latest allocation wins), munmap of a range, processes kept apart,
 * unknown addresses, labels interned, and enough objects for the index
 * to be rebuilt under the lookups; and through a session
 * (pebs_session__set_objects, lib/objects/objects-session.c) over a
 * synthetic recording of loads and stores with data sources and weights
 * plus pebs-shim:alloc/free samples: per object the samples, loads,
 * stores, HITM and weights, the reallocated range split, an unknown
 * address, and the events found by id when the names are missing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "helpers.h"
#include "core/internal.h"
#include "objects/objects-int.h"

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

/* the instance label of the object at (@pid, @addr, @time), or NULL */
static const char *inst_at(struct pebs_objects *o, int32_t pid,
			   uint64_t addr, uint64_t time)
{
	struct pebs_object obj;

	return pebs_objects__find(o, pid, addr, time, &obj) ? NULL :
	       obj.instance;
}

/*
 * One address handed out again and again (malloc's way): each object
 * found at its time, in the present and in the past (the ended objects'
 * runs); then input out of time order: the open table dropped, an
 * allocation still closes the object open at its address.
 */
static void test_reuse_unordered(void **state)
{
	enum { N = 20000 };
	struct pebs_objects *o;
	char want[32];

	(void)state;
	assert_int_equal(pebs_objects__new(&o), 0);
	for (uint64_t i = 0; i < N; i++) {
		assert_int_equal(pebs_objects__alloc(o, 1, 0x1000, 0x100,
						     10 * i, "s"), 0);
		if (i % 1000 == 999) {	/* the present */
			snprintf(want, sizeof(want), "s #%llu",
				 (unsigned long long)i + 1);
			assert_string_equal(inst_at(o, 1, 0x10ff, 10 * i + 1),
					    want);
		}
		assert_int_equal(pebs_objects__free(o, 1, 0x1000, 0,
						    10 * i + 5), 0);
	}
	for (uint64_t i = 0; i < N; i += 333) {	/* the past */
		snprintf(want, sizeof(want), "s #%llu",
			 (unsigned long long)i + 1);
		assert_string_equal(inst_at(o, 1, 0x1000, 10 * i + 4), want);
		assert_null(inst_at(o, 1, 0x1000, 10 * i + 7));
	}
	/* out of order: an allocation before the latest time */
	assert_int_equal(pebs_objects__alloc(o, 1, 0x9000, 0x100, 3, "early"),
			 0);
	assert_string_equal(site_at(o, 1, 0x9010, 4), "early");
	assert_int_equal(pebs_objects__alloc(o, 1, 0x1000, 0x100, 10 * N,
					     "a"), 0);
	/* its free lost: the next allocation there ends it */
	assert_int_equal(pebs_objects__alloc(o, 1, 0x1000, 0x100,
					     10 * N + 10, "b"), 0);
	assert_string_equal(site_at(o, 1, 0x1000, 10 * N + 5), "a");
	assert_string_equal(site_at(o, 1, 0x1000, 10 * N + 15), "b");
	assert_int_equal(pebs_objects__free(o, 1, 0x1000, 0, 10 * N + 20), 0);
	assert_null(site_at(o, 1, 0x1000, 10 * N + 25));
	assert_string_equal(site_at(o, 1, 0x1000, 10 * N + 15), "b");
	assert_int_equal(pebs_objects__count(o), N + 3);
	pebs_objects__delete(o);
}

/*
 * pebs_objects__stats: a site's instances, bytes and peak of live bytes
 * (a release and an allocation at one time do not overlap), an
 * instance's size, the weights counted per event and label, and the
 * sweep redone after the table changed.
 */
static void test_stats(void **state)
{
	struct pebs_report_sample rs = { .has_weight = true };
	struct pebs_object_stats st;
	struct pebs_object obj;
	struct pebs_objects *o;

	(void)state;
	assert_int_equal(pebs_objects__new(&o), 0);
	/* s: 100 at t1, 50 at t2, the first freed at t3, 70 at t4 */
	assert_int_equal(pebs_objects__alloc(o, 1, 0x1000, 100, 1, "s"), 0);
	assert_int_equal(pebs_objects__alloc(o, 1, 0x2000, 50, 2, "s"), 0);
	assert_int_equal(pebs_objects__free(o, 1, 0x1000, 0, 3), 0);
	assert_int_equal(pebs_objects__alloc(o, 1, 0x3000, 70, 4, "s"), 0);
	/* q: one freed at t6 when the next is allocated */
	assert_int_equal(pebs_objects__alloc(o, 1, 0x5000, 10, 5, "q"), 0);
	assert_int_equal(pebs_objects__free(o, 1, 0x5000, 0, 6), 0);
	assert_int_equal(pebs_objects__alloc(o, 1, 0x6000, 10, 6, "q"), 0);
	assert_int_equal(pebs_objects__find(o, 1, 0x2000, 2, &obj), 0);
	assert_int_equal(pebs_objects__stats(o, 0, obj.site, &st), 0);
	assert_int_equal(st.instances, 3);
	assert_int_equal(st.bytes, 220);
	assert_int_equal(st.peak_live, 150);
	assert_int_equal(st.weights, 0);
	assert_int_equal(pebs_objects__stats(o, 0, "q", &st), 0);
	assert_int_equal(st.instances, 2);
	assert_int_equal(st.bytes, 20);
	assert_int_equal(st.peak_live, 10);
	assert_int_equal(pebs_objects__stats(o, 0, "s #2", &st), 0);
	assert_int_equal(st.instances, 1);
	assert_int_equal(st.bytes, 50);
	/* not a heap object: nothing known */
	assert_int_equal(pebs_objects__stats(o, 0, "table", &st), 0);
	assert_int_equal(st.instances, 0);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(pebs_objects__stats(o, 0, NULL, &st), 0);
	/* a fourth s while the others live: the peak grows */
	assert_int_equal(pebs_objects__alloc(o, 1, 0x4000, 1000, 7, "s"), 0);
	assert_int_equal(pebs_objects__stats(o, 0, obj.site, &st), 0);
	assert_int_equal(st.peak_live, 1120);
	/* weights 40, 10, 30, 20 of event 2 on s #2 (and so on s) */
	rs.event = 2;
	rs.object = obj.site;
	rs.object_inst = obj.instance;
	for (uint64_t w = 1; w <= 4; w++) {
		rs.weight = (w * 3 % 4 + 1) * 10;
		assert_int_equal(pebs_objects__add_sample(o, &rs), 0);
	}
	rs.has_weight = false;	/* not counted */
	assert_int_equal(pebs_objects__add_sample(o, &rs), 0);
	assert_int_equal(pebs_objects__stats(o, 2, obj.instance, &st), 0);
	assert_int_equal(st.weights, 4);
	assert_true(st.weight_mean == 25.0);
	assert_int_equal(st.weight_p50, 30);
	assert_int_equal(st.weight_p90, 40);
	assert_int_equal(pebs_objects__stats(o, 2, obj.site, &st), 0);
	assert_int_equal(st.weights, 4);
	assert_int_equal(pebs_objects__stats(o, 1, obj.site, &st), 0);
	assert_int_equal(st.weights, 0);
	assert_int_equal(pebs_objects__stats(o, 0, NULL, NULL), -EINVAL);
	assert_int_equal(pebs_objects__add_sample(o, NULL), -EINVAL);
	pebs_objects__delete(o);
}

/*
 * Sampled allocations (pebs_objects__alloc_sampled): each counted for
 * what it stands for in its site's instances, bytes and peak of live
 * bytes (Horvitz-Thompson's estimates), an instance for itself; one
 * standing for less than its size refused.
 */
static void test_stats_sampled(void **state)
{
	struct pebs_object_stats st;
	struct pebs_objects *o;

	(void)state;
	assert_int_equal(pebs_objects__new(&o), 0);
	/* t: 100 bytes standing for 400 (p = 1/4) at t1, 50 standing for
	   500 (p = 1/10) at t2, the first freed at t3; an unsampled 30 at
	   t4 (stands for itself) */
	assert_int_equal(pebs_objects__alloc_sampled(o, 1, 0x1000, 100, 1, "t",
						     400), 0);
	assert_int_equal(pebs_objects__alloc_sampled(o, 1, 0x2000, 50, 2, "t",
						     500), 0);
	assert_int_equal(pebs_objects__free(o, 1, 0x1000, 0, 3), 0);
	assert_int_equal(pebs_objects__alloc(o, 1, 0x3000, 30, 4, "t"), 0);
	assert_int_equal(pebs_objects__stats(o, 0, "t", &st), 0);
	assert_int_equal(st.instances, 4 + 10 + 1);
	assert_int_equal(st.bytes, 400 + 500 + 30);
	assert_int_equal(st.peak_live, 900);
	assert_int_equal(pebs_objects__stats(o, 0, "t #2", &st), 0);
	assert_int_equal(st.instances, 1);
	assert_int_equal(st.bytes, 50);
	assert_int_equal(pebs_objects__alloc_sampled(o, 1, 0x4000, 100, 5, "t",
						     99), -EINVAL);
	assert_int_equal(pebs_objects__count(o), 3);
	pebs_objects__delete(o);
}

/* a load's data source: level bits @lvl, snoop @snoop */
static uint64_t load_src(uint64_t lvl, uint64_t snoop)
{
	union perf_mem_data_src d = { .mem_op = PERF_MEM_OP_LOAD,
				      .mem_lvl = PERF_MEM_LVL_HIT | lvl,
				      .mem_snoop = snoop };

	return d.val;
}

/* pebs_objects__access: local and remote as perf c2c splits them, the
   threads and the sharing class */
static void test_access(void **state)
{
	const uint64_t srcs[] = {
		load_src(PERF_MEM_LVL_LOC_RAM, PERF_MEM_SNOOP_NONE), /* lcl */
		load_src(PERF_MEM_LVL_L3, PERF_MEM_SNOOP_HITM),	/* lcl hitm */
		load_src(PERF_MEM_LVL_REM_RAM1, PERF_MEM_SNOOP_NONE), /* rmt */
		load_src(PERF_MEM_LVL_REM_CCE1, PERF_MEM_SNOOP_HITM), /* rmt
								       hitm */
		load_src(PERF_MEM_LVL_L1, PERF_MEM_SNOOP_NONE),	/* neither */
		(union perf_mem_data_src){ .mem_op = PERF_MEM_OP_NA,	/* a */
			.mem_lvl = PERF_MEM_LVL_NA }.val, /* software event's */
	};
	struct pebs_report_sample rs = { .has_addr = true, .addr = 0x1000,
					 .tid = 7, .object = "x",
					 .object_inst = "x #1" };
	struct pebs_object_access a;
	struct pebs_objects *o;

	(void)state;
	assert_int_equal(pebs_objects__new(&o), 0);
	assert_int_equal(pebs_objects__access(o, 0, "x", &a), 0);
	assert_int_equal(a.sharing, PEBS_OBJECT_UNSAMPLED);
	assert_string_equal(pebs_object_sharing__name(a.sharing), "-");
	for (size_t i = 0; i < sizeof(srcs) / sizeof(*srcs); i++) {
		rs.has_src = true;
		rs.data_src = srcs[i];
		assert_int_equal(pebs_objects__add_sample(o, &rs), 0);
	}
	rs.has_src = false;	/* a sample without data source */
	assert_int_equal(pebs_objects__add_sample(o, &rs), 0);
	assert_int_equal(pebs_objects__access(o, 0, "x", &a), 0);
	assert_int_equal(a.samples, 7);
	assert_int_equal(a.with_src, 6);
	assert_int_equal(a.local, 2);
	assert_int_equal(a.remote, 2);
	assert_int_equal(a.threads, 1);
	assert_int_equal(a.sharing, PEBS_OBJECT_PRIVATE);
	assert_string_equal(pebs_object_sharing__name(a.sharing), "private");
	/* the instance counts the same; another event none */
	assert_int_equal(pebs_objects__access(o, 0, "x #1", &a), 0);
	assert_int_equal(a.remote, 2);
	assert_int_equal(pebs_objects__access(o, 1, "x", &a), 0);
	assert_int_equal(a.samples, 0);
	/* a second thread: shared; nine: more than kept */
	for (int32_t t = 8; t < 17; t++) {
		rs.tid = t;
		assert_int_equal(pebs_objects__add_sample(o, &rs), 0);
		assert_int_equal(pebs_objects__access(o, 0, "x", &a), 0);
		assert_int_equal(a.sharing, PEBS_OBJECT_SHARED);
	}
	assert_int_equal(a.threads, PEBS_OBJECTS_MAX_TIDS + 1);
	assert_string_equal(pebs_object_sharing__name(a.sharing), "shared");
	assert_int_equal(pebs_objects__access(o, 0, "x", NULL), -EINVAL);
	/* its line (and private y's) true sharing, then false too (c2c's
	   classes): x takes them, y stays private */
	assert_int_equal(pebs_objects__line_sharing(o, 0, 0x1000, 2), -ENOENT);
	assert_int_equal(pebs_objects__add_line_sample(o, &rs), 0);
	rs.object = rs.object_inst = "y";
	rs.addr = 0x1020;
	assert_int_equal(pebs_objects__add_sample(o, &rs), 0);
	assert_int_equal(pebs_objects__add_line_sample(o, &rs), 0);
	assert_int_equal(pebs_objects__line_sharing(o, 0, 0x1000, 0), 0);
	assert_int_equal(pebs_objects__access(o, 0, "x", &a), 0);
	assert_int_equal(a.sharing, PEBS_OBJECT_SHARED);
	assert_int_equal(pebs_objects__line_sharing(o, 0, 0x103f, 2), 0);
	assert_int_equal(pebs_objects__access(o, 0, "x", &a), 0);
	assert_string_equal(pebs_object_sharing__name(a.sharing), "true");
	assert_int_equal(pebs_objects__access(o, 0, "x #1", &a), 0);
	assert_int_equal(a.sharing, PEBS_OBJECT_TRUE_SHARING);
	assert_int_equal(pebs_objects__line_sharing(o, 0, 0x1000, 1), 0);
	assert_int_equal(pebs_objects__access(o, 0, "x", &a), 0);
	assert_string_equal(pebs_object_sharing__name(a.sharing),
			    "true+false");
	assert_int_equal(pebs_objects__access(o, 0, "y", &a), 0);
	assert_int_equal(a.sharing, PEBS_OBJECT_PRIVATE);
	assert_int_equal(pebs_objects__line_sharing(o, 0, 0x1000, 4),
			 -EINVAL);
	pebs_objects__delete(o);
}

/* the object_field key: a row per field under its object */
static void test_field_key(void **state)
{
	enum pebs_report_key keys[2];
	struct pebs_report_sample rs = { .has_addr = true, .period = 1,
					 .object = "rec",
					 .object_inst = "rec.tail",
					 .object_field = "rec.tail" };
	const struct pebs_report_row *row;
	struct pebs_report *r;
	char buf[64];

	(void)state;
	assert_int_equal(pebs_report__parse_keys("object,object_field", keys,
						 2), 2);
	assert_int_equal(keys[1], PEBS_REPORT_OBJECT_FIELD);
	assert_string_equal(pebs_report__key_name(keys[1]), "object_field");
	assert_int_equal(pebs_report__new(keys, 2, 1, &r), 0);
	assert_int_equal(pebs_report__add(r, &rs), 0);
	assert_int_equal(pebs_report__add(r, &rs), 0);
	rs.object_inst = rs.object_field = "rec.head";
	assert_int_equal(pebs_report__add(r, &rs), 0);
	pebs_report__sort(r);
	assert_int_equal(pebs_report__nr_rows(r), 2);
	row = pebs_report__row(r, 0);
	assert_int_equal(row->samples, 2);
	assert_string_equal(row->object, "rec");
	pebs_report__field(row, PEBS_REPORT_OBJECT_FIELD, buf, sizeof(buf));
	assert_string_equal(buf, "rec.tail");
	row = pebs_report__row(r, 1);
	assert_int_equal(row->samples, 1);
	pebs_report__field(row, PEBS_REPORT_OBJECT_FIELD, buf, sizeof(buf));
	assert_string_equal(buf, "rec.head");
	pebs_report__delete(r);
}

/* pebs_objects__line: a line's objects, the most hit first, and a
   line of more than three objects */
static void test_lines(void **state)
{
	static const char *const labels[] = { "a", "b", "c", "d" };
	struct pebs_report_sample rs = { .has_addr = true, .pid = 4 };
	struct pebs_object_line l;
	struct pebs_objects *o;

	(void)state;
	assert_int_equal(pebs_objects__new(&o), 0);
	assert_int_equal(pebs_objects__line(o, 4, 0x1000, &l), -ENOENT);
	/* line 0x1000: a once, b twice; line 0x1040: a, b, c, d */
	for (unsigned int i = 0; i < 3; i++) {
		rs.addr = 0x1000 + i * 8;
		rs.object = rs.object_inst = labels[i ? 1 : 0];
		assert_int_equal(pebs_objects__add_line_sample(o, &rs), 0);
	}
	for (unsigned int i = 0; i < 4; i++) {
		rs.addr = 0x1040 + i;
		rs.object = rs.object_inst = labels[i];
		assert_int_equal(pebs_objects__add_line_sample(o, &rs), 0);
	}
	rs.object = NULL;	/* no object: not counted */
	assert_int_equal(pebs_objects__add_line_sample(o, &rs), 0);
	assert_int_equal(pebs_objects__line(o, 4, 0x103f, &l), 0);
	assert_string_equal(l.site, "b");
	assert_int_equal(l.samples, 2);
	assert_int_equal(l.line_samples, 3);
	assert_int_equal(l.nr_objects, 2);
	assert_int_equal(pebs_objects__line(o, 4, 0x1040, &l), 0);
	assert_string_equal(l.site, "a");
	assert_int_equal(l.line_samples, 4);
	assert_int_equal(l.nr_objects, 4);
	/* another process's line */
	assert_int_equal(pebs_objects__line(o, 5, 0x1000, &l), -ENOENT);
	assert_int_equal(pebs_objects__line(o, 4, 0x1000, NULL), -EINVAL);
	pebs_objects__delete(o);
}

/* ---- through a session ---------------------------------------------- */

#define MEM_ST	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | \
		 PERF_SAMPLE_DATA_SRC)

static void put(struct pebs_perfdata_writer *w, uint64_t *r, size_t size)
{
	assert_int_equal(t_write_sample(w, r, size), 0);
}

static void write_access(struct pebs_perfdata_writer *w, uint64_t time,
			 uint64_t addr, uint64_t weight, uint64_t src)
{
	uint64_t r[8] = { 0, 7, 0x401234, (uint64_t)50 << 32 | 50, time, addr,
			  weight, src };

	put(w, r, sizeof(r));
}

static void write_alloc(struct pebs_perfdata_writer *w, uint64_t time,
			uint64_t addr, uint64_t size, uint64_t ip)
{
	assert_int_equal(t_write_alloc(w, time, addr, size, ip), 0);
}

static void write_free(struct pebs_perfdata_writer *w, uint64_t time,
		       uint64_t addr)
{
	uint64_t r[7] = { 0, PEBS_OBJECTS_FREE_ID, 0, (uint64_t)50 << 32 | 50,
			  time, addr, 1 };

	put(w, r, sizeof(r));
}

/* a thread's stack (@tls: a TLS block) or its end (@len 0: @addr's
   range of @end bytes released) */
static void write_thread(struct pebs_perfdata_writer *w, uint64_t id,
			 uint64_t time, uint64_t addr, uint64_t len)
{
	uint64_t r[7] = { 0, id, 0, (uint64_t)51 << 32 | 50, time, addr,
			  len };

	put(w, r, sizeof(r));
}

/* a data source: a load or store, with a HITM snoop or not */
static uint64_t src(bool load, bool hitm)
{
	union perf_mem_data_src d = { .val = 0 };

	d.mem_op = load ? PERF_MEM_OP_LOAD : PERF_MEM_OP_STORE;
	d.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3;
	d.mem_snoop = hitm ? PERF_MEM_SNOOP_HITM : PERF_MEM_SNOOP_NONE;
	return d.val;
}

/*
 * Object A (site ip 0x401000) at 0x10000 from t=10, freed at t=30; the
 * range allocated again by B (ip 0x402000) at t=40. Three loads in A
 * (weights 100, 200, 300, one HITM), two stores in B, one load nowhere.
 * Thread 51's stack [0x200000, 0x210000) from t=5 with its TLS block
 * [0x20f000, 0x20f800) inside from t=6, both ended by the stack's
 * release at t=70: a load in each before, one in the stack's range
 * after (nowhere).
 */
static void write_recording(const char *path, bool names)
{
	struct perf_event_attr mem = {
		.size = sizeof(mem), .type = PERF_TYPE_RAW, .config = 0x1cd,
		.sample_period = 1, .sample_type = MEM_ST, .sample_id_all = 1,
	};
	struct perf_event_attr dummy = t_alloc_attr();
	struct pebs_perfdata_writer *w;
	uint64_t id = 7;

	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &mem, &id, 1,
							names ? "loads" : NULL), 0);
	id = PEBS_OBJECTS_ALLOC_ID;
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &dummy, &id, 1,
			 names ? PEBS_OBJECTS_ALLOC_EVENT : NULL), 0);
	dummy.sample_type &= ~(uint64_t)(PERF_SAMPLE_CALLCHAIN |
					 PERF_SAMPLE_WEIGHT);
	id = PEBS_OBJECTS_FREE_ID;
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &dummy, &id, 1,
			 names ? PEBS_OBJECTS_FREE_EVENT : NULL), 0);
	id = PEBS_OBJECTS_STACK_ID;
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &dummy, &id, 1,
			 names ? PEBS_OBJECTS_STACK_EVENT : NULL), 0);
	id = PEBS_OBJECTS_TLS_ID;
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &dummy, &id, 1,
			 names ? PEBS_OBJECTS_TLS_EVENT : NULL), 0);
	write_thread(w, PEBS_OBJECTS_STACK_ID, 5, 0x200000, 0x10000);
	write_thread(w, PEBS_OBJECTS_TLS_ID, 6, 0x20f000, 0x800);
	write_alloc(w, 10, 0x10000, 0x1000, 0x401000);
	write_access(w, 20, 0x10010, 100, src(true, false));
	write_access(w, 21, 0x10ff8, 200, src(true, true));
	write_access(w, 22, 0x10400, 300, src(true, false));
	write_access(w, 25, 0x201000, 7, src(true, false));	/* stack */
	write_access(w, 26, 0x20f100, 9, src(true, false));	/* TLS */
	write_free(w, 30, 0x10000);
	write_access(w, 35, 0x10010, 50, src(true, false));	/* freed */
	write_alloc(w, 40, 0x10000, 0x1000, 0x402000);
	write_access(w, 50, 0x10020, 0, src(false, false));
	write_access(w, 51, 0x10fff, 0, src(false, false));
	write_access(w, 60, 0x99999000, 10, src(true, false));
	write_thread(w, PEBS_OBJECTS_FREE_ID, 70, 0x200000, 0x10000);
	write_access(w, 75, 0x201000, 0, src(true, false));	/* nowhere */
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
}

/* the Intel fixture: a recording without the objects' events */
static struct pebs_perfdata *open_fixture(void)
{
	const char *src = getenv("PEBS_SRC");
	struct pebs_perfdata *pd;
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", src ? src : ".",
		 "intel-skx-xeon8173M_ldlat64_weight-struct.perf.data");
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	return pd;
}

/* write_recording's file (@names: with event names), opened; the name
   is gone at once */
static struct pebs_perfdata *open_recording(bool names)
{
	char path[] = "/tmp/test-objects.XXXXXX";
	struct pebs_perfdata *pd;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	write_recording(path, names);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	unlink(path);
	return pd;
}

struct pass {
	struct pebs_report *r;
	struct pebs_objects *o;
};

static int add_loads(void *arg, const struct pebs_sample *s,
		     const struct pebs_report_sample *rs)
{
	struct pass *p = arg;

	(void)s;
	if (rs->event)
		return 0;
	assert_int_equal(pebs_objects__add_sample(p->o, rs), 0);
	assert_int_equal(pebs_objects__add_line_sample(p->o, rs), 0);
	return pebs_report__add(p->r, rs);
}

static const struct pebs_report_row *row_of(struct pebs_report *r,
					    const char *object)
{
	char buf[256];

	for (size_t i = 0; i < pebs_report__nr_rows(r); i++) {
		const struct pebs_report_row *row = pebs_report__row(r, i);

		pebs_report__field(row, PEBS_REPORT_OBJECT, buf, sizeof(buf));
		if (!strcmp(buf, object))
			return row;
	}
	print_error("no row %s\n", object);
	return NULL;
}

static void session_objects(bool names)
{
	enum pebs_report_key key = PEBS_REPORT_OBJECT;
	const struct pebs_report_row *a, *b, *u, *t;
	struct pebs_object_stats st;
	struct pebs_object_line l;
	struct pebs_perfdata *pd;
	struct pebs_session *ss;
	struct pebs_objects *o;
	struct pebs_report *r;

	pd = open_recording(names);
	assert_true(pebs_objects__recorded(pd));
	/* the loads are accesses; allocations, releases, stacks and TLS
	   blocks not */
	assert_false(pebs_objects__event(pd, 0));
	assert_true(pebs_objects__event(pd, 1));
	assert_true(pebs_objects__event(pd, 2));
	assert_true(pebs_objects__event(pd, 3));
	assert_true(pebs_objects__event(pd, 4));
	assert_false(pebs_objects__event(pd, 5));
	assert_int_equal(pebs_session__new(pd, &ss), 0);
	assert_int_equal(pebs_objects__new(&o), 0);
	assert_int_equal(pebs_session__set_objects(ss, o), 0);
	assert_int_equal(pebs_report__new(&key, 1, 3, &r), 0);
	assert_int_equal(pebs_session__process(ss, true, add_loads,
					       &(struct pass){ r, o }, NULL), 0);
	assert_int_equal(pebs_objects__count(o), 4);
	pebs_report__sort(r);
	/* A, B, the stack, the TLS block, the freed ranges (no mapping:
	   unknown) with the unknown load */
	assert_int_equal(pebs_report__nr_rows(r), 5);
	t = row_of(r, "[stack:51]");
	assert_non_null(t);
	assert_int_equal(t->samples, 1);
	assert_int_equal(t->weight_sum, 7);
	t = row_of(r, "[tls:51]");
	assert_non_null(t);
	assert_int_equal(t->samples, 1);
	assert_int_equal(t->weight_sum, 9);
	a = row_of(r, "[unknown]+0x401000");
	assert_non_null(a);
	assert_int_equal(a->samples, 3);
	assert_int_equal(a->loads, 3);
	assert_int_equal(a->stores, 0);
	assert_int_equal(a->hitm, 1);
	assert_int_equal(a->weight_sum, 600);
	assert_int_equal(pebs_objects__stats(o, 0, a->object, &st), 0);
	assert_int_equal(st.instances, 1);
	assert_int_equal(st.bytes, 0x1000);
	assert_int_equal(st.weights, 3);
	assert_int_equal(st.weight_p50, 200);
	assert_int_equal(st.weight_p90, 300);
	/* both lines held A, then B (the freed access has no object) */
	assert_int_equal(pebs_objects__line(o, 50, 0x10ff8, &l), 0);
	assert_int_equal(l.nr_objects, 2);
	assert_int_equal(l.line_samples, 2);
	assert_ptr_equal(l.site, a->object);
	assert_int_equal(pebs_objects__line(o, 50, 0x10000, &l), 0);
	assert_int_equal(l.nr_objects, 2);
	b = row_of(r, "[unknown]+0x402000");
	assert_non_null(b);
	assert_int_equal(b->samples, 2);
	assert_int_equal(b->stores, 2);
	assert_int_equal(b->loads, 0);
	u = row_of(r, "[unknown]");
	assert_non_null(u);
	assert_int_equal(u->samples, 3);
	assert_int_equal(u->weight_sum, 60);
	pebs_report__delete(r);
	pebs_session__delete(ss);
	pebs_objects__delete(o);
	pebs_perfdata__close(pd);
}

static void test_session(void **state)
{
	(void)state;
	session_objects(true);
}

/* a killed recording has no event names: the ids tell the events */
static void test_session_no_names(void **state)
{
	(void)state;
	session_objects(false);
}

/* a static variable of this test's own DWARF for objects_field */
typedef struct {
	int a;
	struct {
		char pad[6];
		const short s[3];
	} in;
	union {
		long l;
		char c[16];
	} u;
} elem_t;

struct {
	long head;
	elem_t e[4];
	char tail[32];
} field_var = { .head = 1 };

static void test_field(void **state)
{
	static const struct { size_t off; const char *want; } cases[] = {
		{ 0, "field_var.head" },
		{ 8, "field_var.e[].a" },	/* e[0].a */
		{ 8 + sizeof(elem_t) + offsetof(elem_t, in),
		  "field_var.e[].in.pad" },
		{ 8 + 2 * sizeof(elem_t) + offsetof(elem_t, in.s) + 1,
		  "field_var.e[].in.s" },
		/* a union: its first member holding the byte */
		{ 8 + 3 * sizeof(elem_t) + offsetof(elem_t, u),
		  "field_var.e[].u.l" },
		{ 8 + 3 * sizeof(elem_t) + offsetof(elem_t, u) + 8,
		  "field_var.e[].u.c" },
		{ 8 + 4 * sizeof(elem_t) + 31, "field_var.tail" },
	};
	struct objects_fields *f;
	char buf[256];

	(void)state;
	assert_int_equal(objects_fields__new(&f), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		assert_int_equal(objects_field(f, "/proc/self/exe", "field_var",
					       cases[i].off, buf, sizeof(buf)),
				 0);
		assert_string_equal(buf, cases[i].want);
	}
	/* past its end, an unknown variable, no DWARF, too short a buffer */
	assert_int_equal(objects_field(f, "/proc/self/exe", "field_var",
				       sizeof(field_var), buf, sizeof(buf)),
			 -ENOENT);
	assert_int_equal(objects_field(f, "/proc/self/exe", "no_such_var", 0,
				       buf, sizeof(buf)), -ENOENT);
	assert_int_equal(objects_field(f, "/dev/null", "field_var", 0, buf,
				       sizeof(buf)), -ENOENT);
	assert_int_equal(objects_field(f, "/proc/self/exe", "field_var", 8,
				       buf, 12), -ENOENT);
	objects_fields__delete(f);
	(void)field_var;
}

static int no_op(void *arg, const struct pebs_sample *s,
		 const struct pebs_report_sample *rs)
{
	(void)arg;
	(void)s;
	(void)rs;
	return 0;
}

/* the c2c feed's PEBS_SESSION_C2C_NO_DUMMY leaves the 6 bookkeeping
   samples (allocations, releases, stacks, TLS) out, the 10 accesses in */
static void test_c2c_no_dummy(void **state)
{
	char path[] = "/tmp/test-objects.XXXXXX";
	int fd = mkstemp(path);
	uint64_t n[2];

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_recording(path, true);
	for (unsigned int i = 0; i < 2; i++) {
		struct pebs_perfdata *pd;
		struct pebs_session *ss;
		struct pebs_c2c *c;

		assert_int_equal(pebs_perfdata__open(path, &pd), 0);
		assert_int_equal(pebs_session__new(pd, &ss), 0);
		assert_int_equal(pebs_c2c__new(&c), 0);
		assert_int_equal(pebs_session__set_c2c(ss, c, i ?
				 PEBS_SESSION_C2C_NO_DUMMY : 0), 0);
		assert_int_equal(pebs_session__process(ss, false, no_op, NULL,
						       NULL), 0);
		n[i] = pebs_c2c__stats(c)->nr_entries;
		pebs_session__delete(ss);
		pebs_c2c__delete(c);
		pebs_perfdata__close(pd);
	}
	assert_int_equal(n[0], 16);
	assert_int_equal(n[1], 10);
	unlink(path);
}

/* a recording without the objects' events (a fixture): none */
static void test_not_recorded(void **state)
{
	struct pebs_perfdata *pd = open_fixture();

	(void)state;
	assert_false(pebs_objects__recorded(pd));
	assert_false(pebs_objects__recorded(NULL));
	assert_false(pebs_objects__event(pd, 0));
	assert_false(pebs_objects__event(pd, 1));	/* a dummy: not ours */
	assert_false(pebs_objects__event(NULL, 0));
	pebs_perfdata__close(pd);
}

/* pebs_session__use_objects: a table only for a recording of record
   --objects (or any with PEBS_OBJECTS_ANY_RECORDING), fed by the pass */
static void test_use_objects(void **state)
{
	struct pebs_perfdata *pd = open_recording(true);
	struct pebs_session *ss;
	struct pebs_objects *o = (struct pebs_objects *)1;

	(void)state;
	assert_int_equal(pebs_session__new(pd, &ss), 0);
	assert_int_equal(pebs_session__use_objects(NULL, 0, &o), -EINVAL);
	assert_null(o);
	assert_int_equal(pebs_session__use_objects(ss, 0, NULL), -EINVAL);
	assert_int_equal(pebs_session__use_objects(ss, 0, &o), 0);
	assert_non_null(o);
	assert_int_equal(pebs_session__process(ss, true, no_op, NULL, NULL),
			 0);
	assert_int_equal(pebs_objects__count(o), 4);
	pebs_session__delete(ss);
	pebs_objects__delete(o);
	pebs_perfdata__close(pd);

	pd = open_fixture();
	assert_int_equal(pebs_session__new(pd, &ss), 0);
	assert_int_equal(pebs_session__use_objects(ss, 0, &o), 0);
	assert_null(o);
	assert_int_equal(pebs_session__use_objects(ss,
				PEBS_OBJECTS_ANY_RECORDING, &o), 0);
	assert_non_null(o);
	pebs_session__delete(ss);
	pebs_objects__delete(o);
	pebs_perfdata__close(pd);
}

/* pebs_filter__aside_objects: the bookkeeping events (1 to 4) set aside
   in a recording of record --objects, none in another */
static void test_aside_objects(void **state)
{
	struct pebs_report_sample s = { .pid = 50, .tid = 50 };
	/* the events by their ids */
	struct pebs_perfdata *pd = open_recording(false);
	struct pebs_filter *f;

	(void)state;
	assert_int_equal(pebs_filter__new(&f), 0);
	assert_int_equal(pebs_filter__aside_objects(NULL, pd), -EINVAL);
	assert_int_equal(pebs_filter__aside_objects(f, NULL), -EINVAL);
	assert_int_equal(pebs_filter__aside_objects(f, pd), 0);
	for (s.event = 0; s.event < 6; s.event++)
		assert_int_equal(pebs_filter__match(f, &s, 0),
				 s.event >= 1 && s.event <= 4 ?
				 PEBS_FILTER_ASIDE : PEBS_FILTER_PASS);
	pebs_filter__delete(f);
	pebs_perfdata__close(pd);

	pd = open_fixture();
	assert_int_equal(pebs_filter__new(&f), 0);
	assert_int_equal(pebs_filter__aside_objects(f, pd), 0);
	for (s.event = 0; s.event < 3; s.event++)
		assert_int_equal(pebs_filter__match(f, &s, 0),
				 PEBS_FILTER_PASS);
	pebs_filter__delete(f);
	pebs_perfdata__close(pd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_realloc_split),
		cmocka_unit_test(test_overlap_and_pids),
		cmocka_unit_test(test_munmap_range),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_reuse_unordered),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_stats_sampled),
		cmocka_unit_test(test_access),
		cmocka_unit_test(test_field_key),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_not_recorded),
		cmocka_unit_test(test_field),
		cmocka_unit_test(test_session),
		cmocka_unit_test(test_session_no_names),
		cmocka_unit_test(test_c2c_no_dummy),
		cmocka_unit_test(test_use_objects),
		cmocka_unit_test(test_aside_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
