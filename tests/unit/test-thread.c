// SPDX-License-Identifier: MIT
/*
 * test-thread.c - threads over time (lib/session/thread.c): comm and exec, fork
 * inheriting the comm, comm history by time, tid reuse after exit,
 * interned names, the idle task, unknown threads.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"

static void comm(struct pebs_threads *t, uint32_t pid, uint32_t tid,
		 const char *name, uint64_t time)
{
	struct pebs_record r = { .type = PERF_RECORD_COMM };

	r.comm.pid = pid;
	r.comm.tid = tid;
	r.comm.comm = name;
	assert_int_equal(pebs_threads__add_record(t, &r, time), 0);
}

static void task(struct pebs_threads *t, uint32_t type, uint32_t pid,
		 uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time)
{
	struct pebs_record r = { .type = type };

	r.task.pid = pid;
	r.task.ppid = ppid;
	r.task.tid = tid;
	r.task.ptid = ptid;
	assert_int_equal(pebs_threads__add_record(t, &r, time), 0);
}

static void test_exec_and_fork(void **state)
{
	struct pebs_threads *t;

	(void)state;
	assert_int_equal(pebs_threads__new(&t), 0);
	comm(t, 100, 100, "bash", 10);
	task(t, PERF_RECORD_FORK, 101, 100, 101, 100, 20);
	assert_string_equal(pebs_threads__comm(t, 101, 101), "bash");
	assert_int_equal(pebs_threads__pid(t, 101), 101);
	comm(t, 101, 101, "memwalk", 30);		/* exec */
	assert_string_equal(pebs_threads__comm(t, 101, 101), "memwalk");
	assert_string_equal(pebs_threads__comm(t, 100, 100), "bash");
	/* history: before the exec it was bash */
	assert_string_equal(pebs_threads__comm_at(t, 101, 25), "bash");
	assert_string_equal(pebs_threads__comm_at(t, 101, 30), "memwalk");
	assert_string_equal(pebs_threads__comm_at(t, 101, 5), "bash");
	/* a thread of the process without its own COMM: the process's */
	assert_string_equal(pebs_threads__comm(t, 101, 102), "memwalk");
	/* interned: one pointer per name */
	assert_ptr_equal(pebs_threads__comm(t, 100, 100),
			 pebs_threads__comm_at(t, 101, 21));
	assert_int_equal(pebs_threads__nr(t), 2);
	pebs_threads__delete(t);
}

static void test_exit_and_reuse(void **state)
{
	struct pebs_threads *t;

	(void)state;
	assert_int_equal(pebs_threads__new(&t), 0);
	comm(t, 5, 5, "old", 1);
	task(t, PERF_RECORD_EXIT, 5, 5, 5, 5, 2);
	assert_string_equal(pebs_threads__comm(t, 5, 5), "old");
	/* a new thread with that tid, forked from an unknown parent */
	task(t, PERF_RECORD_FORK, 5, 1, 5, 1, 3);
	assert_null(pebs_threads__comm(t, 5, 5));
	/* long names cut as the kernel does (15 bytes) */
	comm(t, 5, 5, "a-very-long-command-name", 4);
	assert_string_equal(pebs_threads__comm(t, 5, 5), "a-very-long-com");
	/* the idle task and unknown threads */
	assert_string_equal(pebs_threads__comm(t, 0, 0), "swapper");
	assert_null(pebs_threads__comm(t, 77, 78));
	assert_null(pebs_threads__comm_at(t, 78, 1));
	assert_int_equal(pebs_threads__pid(t, 78), -1);
	pebs_threads__delete(t);
}

static void test_many(void **state)
{
	struct pebs_threads *t;
	char name[16];
	uint32_t i;

	(void)state;
	assert_int_equal(pebs_threads__new(&t), 0);
	for (i = 1; i <= 5000; i++) {
		snprintf(name, sizeof(name), "t%u", i % 700);
		comm(t, i, i, name, i);
	}
	assert_int_equal(pebs_threads__nr(t), 5000);
	assert_string_equal(pebs_threads__comm(t, 4999, 4999), "t99");
	assert_ptr_equal(pebs_threads__comm(t, 99, 99),
			 pebs_threads__comm(t, 799, 799));
	pebs_threads__delete(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_and_fork),
		cmocka_unit_test(test_exit_and_reuse),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
