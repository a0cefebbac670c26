// SPDX-License-Identifier: MIT
/*
 * test-ids.c - id lists (lib/core/idlist.c): the one pid/tid list
 * grammar with ranges, repeats dropped (in O(n log n)), bad items named; the CPUs of a
 * bitmap as ids (lib/core/cpulist.c); /proc's processes and tasks
 * and names (lib/core/proc.c) against this process and a thread of its
 * own.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"

static void test_parse(void **state)
{
	static const int want[] = { 7, 1, 20, 21, 22, 3 };
	struct pebs_ids l = { 0 };

	(void)state;
	assert_int_equal(pebs_ids__parse(&l, "7,1,20-22,3,21,7"), 0);
	assert_int_equal(l.n, 6);
	assert_memory_equal(l.v, want, sizeof(want));
	assert_true(pebs_ids__has(&l, 22));
	assert_false(pebs_ids__has(&l, 23));
	/* appended to what is there, still without repeats */
	assert_int_equal(pebs_ids__parse(&l, "0,3"), 0);
	assert_int_equal(l.n, 7);
	assert_int_equal(l.v[6], 0);
	pebs_ids__free(&l);
	assert_null(l.v);
	assert_int_equal(l.n, 0);
	assert_false(pebs_ids__has(&l, 7));
	/* the widest range, and one past it */
	assert_int_equal(pebs_ids__parse(&l, "100-8292"), 0);
	assert_int_equal(l.n, 8193);
	assert_int_equal(l.v[8192], 8292);
	pebs_ids__free(&l);
	assert_int_equal(pebs_ids__parse(&l, "100-8293"), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "'100-8293'"));
	pebs_ids__free(&l);
}

/* the merge keeps order and drops repeats in linear-logarithmic time:
   a -p list of ranges that give 2 million ids (half of them repeats)
   took pebs_ids__add's scan of the list per id hours */
static void test_merge(void **state)
{
	static const int add[] = { 9, 1, 5, 1, 7, 9 }, want[] = { 5, 9, 1, 7 };
	struct pebs_ids l = { 0 };
	int many[200];
	char *list, *p;
	unsigned int k, i;

	(void)state;
	assert_int_equal(pebs_ids__push(&l, 5), 0);
	assert_int_equal(pebs_ids__push(&l, 9), 0);
	assert_int_equal(core_ids_merge(&l, add, 6), 0);
	assert_int_equal(l.n, 4);
	assert_memory_equal(l.v, want, sizeof(want));
	assert_int_equal(core_ids_merge(&l, add, 0), 0);
	assert_int_equal(l.n, 4);
	pebs_ids__free(&l);
	/* past 64 ids the sorted way: 200 ids, each of 0..49 four times,
	   49 down to 0, into a list holding 7 */
	for (i = 0; i < 200; i++)
		many[i] = 49 - (int)(i % 50);
	assert_int_equal(pebs_ids__push(&l, 7), 0);
	assert_int_equal(core_ids_merge(&l, many, 200), 0);
	assert_int_equal(l.n, 50);
	assert_int_equal(l.v[0], 7);
	for (i = 1; i < 50; i++)
		assert_int_equal(l.v[i], 49 - (int)(i - 1) - (i - 1 >= 42));
	pebs_ids__free(&l);

	/* 240 ranges of 8193 ids, each starting 4096 after the last */
	p = list = malloc(240 * 24);
	assert_non_null(list);
	for (k = 0; k < 240; k++)
		p += sprintf(p, "%s%u-%u", k ? "," : "", k * 4096 + 1,
			     k * 4096 + 8193);
	assert_int_equal(pebs_ids__parse(&l, list), 0);
	free(list);
	assert_int_equal(l.n, 239 * 4096 + 8193);
	for (i = 0; i < l.n && l.v[i] == (int)i + 1; i++)
		;
	assert_int_equal(i, l.n);
	pebs_ids__free(&l);
}

static void test_parse_bad(void **state)
{
	static const char *const bad[][2] = {
		{ "", "empty" }, { "1x", "'1x'" }, { "1,,2", "''" },
		{ "1,", "''" }, { "-1", "'-1'" }, { "5-3", "'5-3'" },
		{ "+4", "'+4'" }, { " 4", "' 4'" }, { "3-", "'3-'" },
		{ "2,99999999999", "'99999999999'" }, { "1-2-3", "'1-2-3'" },
	};
	struct pebs_ids l = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(pebs_ids__parse(&l, bad[i][0]), -EINVAL);
		if (!strstr(pebs_errmsg(), bad[i][1]))
			fail_msg("'%s': %s does not name %s", bad[i][0],
				 pebs_errmsg(), bad[i][1]);
		pebs_ids__free(&l);
	}
	assert_int_equal(pebs_ids__parse(NULL, "1"), -EINVAL);
	assert_int_equal(pebs_ids__parse(&l, NULL), -EINVAL);
	assert_int_equal(pebs_ids__push(NULL, 1), -EINVAL);
}

static void test_cpulist_ids(void **state)
{
	static const int want[] = { 0, 1, 2, 3, 8, 64, 127 };
	struct pebs_ids l = { 0 };
	uint64_t map[2];

	(void)state;
	assert_int_equal(pebs_cpulist__parse("0-3,8,64,127", 128, map), 0);
	assert_int_equal(pebs_ids__push(&l, 500), 0);
	assert_int_equal(pebs_cpulist__ids(map, 128, &l), 0);
	assert_int_equal(l.n, 8);
	assert_int_equal(l.v[0], 500);
	assert_memory_equal(l.v + 1, want, sizeof(want));
	pebs_ids__free(&l);
	/* bits beyond max_cpus are not CPUs */
	assert_int_equal(pebs_cpulist__ids(map, 64, &l), 0);
	assert_int_equal(l.n, 5);
	pebs_ids__free(&l);
	assert_int_equal(pebs_cpulist__ids(NULL, 64, &l), -EINVAL);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int thread_tid, thread_done;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	pthread_setname_np(pthread_self(), "ids-thread");
	thread_tid = (int)syscall(SYS_gettid);
	pthread_cond_broadcast(&cond);
	while (!thread_done)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void test_proc(void **state)
{
	struct pebs_ids l = { 0 };
	char comm[32];
	pthread_t thr;

	(void)state;
	assert_int_equal(pthread_create(&thr, NULL, thread_main, NULL), 0);
	pthread_mutex_lock(&lock);
	while (!thread_tid)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);

	assert_int_equal(pebs_proc__tasks(getpid(), &l), 0);
	assert_int_equal(l.n, 2);
	assert_true(pebs_ids__has(&l, getpid()));
	assert_true(pebs_ids__has(&l, thread_tid));
	/* again: nothing new */
	assert_int_equal(pebs_proc__tasks(getpid(), &l), 0);
	assert_int_equal(l.n, 2);
	pebs_ids__free(&l);
	assert_int_equal(pebs_proc__tgid(thread_tid), getpid());
	assert_int_equal(pebs_proc__comm(thread_tid, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "ids-thread");
	assert_int_equal(pebs_proc__comm(thread_tid, comm, 4), 0);
	assert_string_equal(comm, "ids");
	assert_int_equal(pebs_proc__tgid(getpid()), getpid());

	assert_int_equal(pebs_proc__pids(&l), 0);
	assert_true(pebs_ids__has(&l, getpid()));
	assert_true(pebs_ids__has(&l, 1));
	/* processes only: the thread has no entry of its own in /proc */
	assert_false(pebs_ids__has(&l, thread_tid));
	pebs_ids__free(&l);

	pthread_mutex_lock(&lock);
	thread_done = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	assert_int_equal(pthread_join(thr, NULL), 0);

	/* pid_max is at most 2^22: this one is never there */
	assert_int_equal(pebs_proc__tasks(1 << 23, &l), -ESRCH);
	assert_int_equal(l.n, 0);
	assert_int_equal(pebs_proc__tgid(1 << 23), -ESRCH);
	assert_int_equal(pebs_proc__comm(1 << 23, comm, sizeof(comm)), -ESRCH);
	assert_string_equal(comm, "ids");	/* unchanged */
	assert_int_equal(pebs_proc__tasks(0, &l), -EINVAL);
}

/* core_grow: doubles from 64, keeps what was there, refuses a size that
   overflows and leaves the array as it was; core_grow_zero zeroes the
   new part */
static void test_grow(void **state)
{
	uint32_t *v = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(core_grow(&v, &cap, 0, sizeof(*v)), 0);
	assert_null(v);
	assert_int_equal(core_grow_zero(&v, &cap, 1, sizeof(*v)), 0);
	assert_int_equal(cap, 64);
	for (size_t i = 0; i < 64; i++) {
		assert_int_equal(v[i], 0);
		v[i] = (uint32_t)i + 1;
	}
	assert_int_equal(core_grow(&v, &cap, 64, sizeof(*v)), 0);
	assert_int_equal(cap, 64);
	assert_int_equal(core_grow_zero(&v, &cap, 300, sizeof(*v)), 0);
	assert_int_equal(cap, 512);
	for (size_t i = 0; i < 512; i++)
		assert_int_equal(v[i], i < 64 ? i + 1 : 0);
	assert_int_equal(core_grow(&v, &cap, 513, sizeof(*v)), 0);
	assert_int_equal(cap, 1024);
	for (size_t i = 0; i < 64; i++)
		assert_int_equal(v[i], i + 1);
	assert_int_equal(core_grow(&v, &cap, SIZE_MAX / 2, sizeof(*v)),
			 -ENOMEM);
	assert_int_equal(core_grow(&v, &cap, SIZE_MAX, 1), -ENOMEM);
	assert_int_equal(cap, 1024);
	assert_int_equal(v[63], 64);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_cpulist_ids),
		cmocka_unit_test(test_proc),
		cmocka_unit_test(test_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
