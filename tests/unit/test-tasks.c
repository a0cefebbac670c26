// SPDX-License-Identifier: MIT
/*
 * test-tasks.c - perf report --tasks and --mmaps (pebs_tasks) from
 * synthetic COMM, FORK and MMAP2 records, each expected text worked out
 * from perf 6.1's machine.c, thread.c, maps.c and builtin-report.c: the
 * idle thread, a thread's leader made by its COMM, perf's table order
 * (tid modulo 256, then tid), a FORK's comm and ppid, a tid used again,
 * a cycle of ppids (printed by neither), the indent's bound, a map cut
 * by another (the part after moves its offset), maps copied to a new
 * process but not on a synthesized FORK, shared by a process's threads,
 * perf's dso names and inodes.
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
#include "helpers.h"

#define HDR "#      pid      tid     ppid  comm\n"
#define IDLE "         0        0       -1 |swapper\n"
#define RX 5
#define RW 3

static uint64_t rec[64];

static void comm(struct pebs_tasks *ts, uint32_t pid, uint32_t tid,
		 const char *name)
{
	struct perf_event_header *h = (void *)rec;
	uint32_t *u = (uint32_t *)(h + 1);

	memset(rec, 0, sizeof(rec));
	h->type = PERF_RECORD_COMM;
	h->size = sizeof(*h) + 8 + 16;
	u[0] = pid;
	u[1] = tid;
	snprintf((char *)(u + 2), 16, "%s", name);
	assert_int_equal(pebs_tasks__add_record(ts, h), 0);
}

static void fork_misc(struct pebs_tasks *ts, uint32_t pid, uint32_t ppid,
		      uint32_t tid, uint32_t ptid, uint16_t misc)
{
	struct perf_event_header *h = (void *)rec;
	uint32_t *u = (uint32_t *)(h + 1);

	memset(rec, 0, sizeof(rec));
	h->type = PERF_RECORD_FORK;
	h->misc = misc;
	h->size = sizeof(*h) + 24;
	u[0] = pid;
	u[1] = ppid;
	u[2] = tid;
	u[3] = ptid;
	assert_int_equal(pebs_tasks__add_record(ts, h), 0);
}

static void fork_(struct pebs_tasks *ts, uint32_t pid, uint32_t ppid,
		  uint32_t tid, uint32_t ptid)
{
	fork_misc(ts, pid, ppid, tid, ptid, 0);
}

/* an MMAP2 of @pid/@tid with inode @ino (flags private) */
static void mmap2(struct pebs_tasks *ts, uint32_t pid, uint32_t tid,
		  uint64_t start, uint64_t len, uint64_t pgoff, uint64_t ino,
		  uint32_t prot, const char *name)
{
	unsigned char *p = (unsigned char *)rec + 8;
	uint32_t priv = 2;

	t_make_mmap2(rec, pid, start, len, pgoff, prot, 0, name);
	memcpy(p + 4, &tid, 4);
	memcpy(p + 40, &ino, 8);
	memcpy(p + 60, &priv, 4);
	assert_int_equal(pebs_tasks__add_record(ts, (void *)rec), 0);
}

/* what pebs_tasks__print writes, compared with @want */
static void expect(struct pebs_tasks *ts, const char *want)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(pebs_tasks__print(ts, f), 0);
	fclose(f);
	assert_string_equal(out, want);
	free(out);
}

static struct pebs_tasks *new_tasks(unsigned int flags)
{
	struct pebs_tasks *ts = NULL;

	assert_int_equal(pebs_tasks__new(flags, &ts), 0);
	return ts;
}

static void test_idle(void **state)
{
	struct pebs_tasks *ts = new_tasks(0);

	(void)state;
	expect(ts, HDR IDLE);
	assert_int_equal(pebs_tasks__new(2, &ts), -EINVAL);
	assert_int_equal(pebs_tasks__print(NULL, stdout), -EINVAL);
	pebs_tasks__delete(ts);
	pebs_tasks__delete(NULL);
}

/* a thread's COMM makes its leader (":100"); 356 and 100 share perf's
   table slot 100, 7 comes first */
static void test_order(void **state)
{
	struct pebs_tasks *ts = new_tasks(0);

	(void)state;
	comm(ts, 100, 101, "worker");
	comm(ts, 356, 356, "late");
	comm(ts, 7, 7, "init");
	expect(ts, HDR IDLE
	       "         7        7       -1 |init\n"
	       "       100      100       -1 |:100\n"
	       "       356      356       -1 |late\n"
	       "       100      101       -1 |worker\n");
	pebs_tasks__delete(ts);
}

/* FORK: the child takes its parent's comm, its ppid is the parent's
   tid; a thread (pid 200, tid 201) forked by 200; children print in
   table order under their parent (300 % 256 is 44: first) */
static void test_fork(void **state)
{
	struct pebs_tasks *ts = new_tasks(0);

	(void)state;
	comm(ts, 100, 100, "sh");
	fork_(ts, 300, 100, 300, 100);
	fork_(ts, 200, 100, 200, 100);
	comm(ts, 200, 200, "ls");
	fork_(ts, 200, 200, 201, 200);
	expect(ts, HDR IDLE
	       "       100      100       -1 |sh\n"
	       "       300      300      100 | sh\n"
	       "       200      200      100 | ls\n"
	       "       200      201      200 |  ls\n");
	/* tid 200 forked again: the old thread is dropped, its child
	   hangs under the new one */
	fork_(ts, 200, 300, 200, 300);
	expect(ts, HDR IDLE
	       "       100      100       -1 |sh\n"
	       "       300      300      100 | sh\n"
	       "       200      200      300 |  sh\n"
	       "       200      201      200 |   ls\n");
	pebs_tasks__delete(ts);
}

/* two threads each the other's parent: neither reaches a root */
static void test_cycle(void **state)
{
	struct pebs_tasks *ts = new_tasks(0);

	(void)state;
	comm(ts, 10, 10, "a");
	comm(ts, 20, 20, "b");
	fork_(ts, 10, 20, 10, 20);
	fork_(ts, 20, 10, 20, 10);
	expect(ts, HDR IDLE);
	pebs_tasks__delete(ts);
}

/* a chain of 1100 forks: the indent stops at 1024 levels */
static void test_deep(void **state)
{
	struct pebs_tasks *ts = new_tasks(0);
	char *out = NULL, *last;
	size_t len = 0;
	FILE *f;
	uint32_t i;

	(void)state;
	comm(ts, 1, 1, "top");
	for (i = 2; i <= 1101; i++)
		fork_(ts, i, i - 1, i, i - 1);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(pebs_tasks__print(ts, f), 0);
	fclose(f);
	out[len - 1] = '\0';
	last = strrchr(out, '\n') + 1;
	assert_int_equal(strlen(last), 30 + 1024 + 3);
	assert_string_equal(last + 30 + 1024, "top");
	assert_memory_equal(last, "      1101     1101     1100 |", 30);
	free(out);
	pebs_tasks__delete(ts);
}

/*
 * Maps: one cut by another (before keeps its offset, after moves it),
 * one covering two, copied to a new process by FORK, not by a FORK perf
 * synthesized, shared by a thread of the process.
 */
static void test_maps(void **state)
{
	struct pebs_tasks *ts = new_tasks(PEBS_TASKS_MMAPS);

	(void)state;
	comm(ts, 100, 100, "a");
	mmap2(ts, 100, 100, 0x10000, 0x5000, 0x1000, 11, RX, "/lib/x.so");
	mmap2(ts, 100, 100, 0x20000, 0x1000, 0, 12, RW, "/lib/y.so");
	mmap2(ts, 100, 100, 0x12000, 0x1000, 0, 13, RW, "/lib/z.so");
	expect(ts, HDR IDLE
	       "       100      100       -1 |a\n"
	       "                                10000-12000 r-xp 00001000 11 /lib/x.so\n"
	       "                                12000-13000 rw-p 00000000 13 /lib/z.so\n"
	       "                                13000-15000 r-xp 00004000 11 /lib/x.so\n"
	       "                                20000-21000 rw-p 00000000 12 /lib/y.so\n");
	/* [0x12800, 0x20800) takes z's end, x's after part and y's start */
	mmap2(ts, 100, 100, 0x12800, 0xe000, 0, 14, RX, "/lib/w.so");
	fork_(ts, 200, 100, 200, 100);
	fork_misc(ts, 300, 100, 300, 100, PERF_RECORD_MISC_FORK_EXEC);
	fork_(ts, 100, 100, 101, 100);
	mmap2(ts, 300, 300, 0x1000, 0x1000, 0, 15, RX, "/bin/c");
	expect(ts, HDR IDLE
	       "       100      100       -1 |a\n"
	       "                                10000-12000 r-xp 00001000 11 /lib/x.so\n"
	       "                                12000-12800 rw-p 00000000 13 /lib/z.so\n"
	       "                                12800-20800 r-xp 00000000 14 /lib/w.so\n"
	       "                                20800-21000 rw-p 00000800 12 /lib/y.so\n"
	       "       300      300      100 | a\n"
	       "                                 1000-2000 r-xp 00000000 15 /bin/c\n"
	       "       100      101      100 | a\n"
	       "                                 10000-12000 r-xp 00001000 11 /lib/x.so\n"
	       "                                 12000-12800 rw-p 00000000 13 /lib/z.so\n"
	       "                                 12800-20800 r-xp 00000000 14 /lib/w.so\n"
	       "                                 20800-21000 rw-p 00000800 12 /lib/y.so\n"
	       "       200      200      100 | a\n"
	       "                                 10000-12000 r-xp 00001000 11 /lib/x.so\n"
	       "                                 12000-12800 rw-p 00000000 13 /lib/z.so\n"
	       "                                 12800-20800 r-xp 00000000 14 /lib/w.so\n"
	       "                                 20800-21000 rw-p 00000800 12 /lib/y.so\n");
	pebs_tasks__delete(ts);
}

/*
 * perf's names: anonymous executable memory is /tmp/perf-PID.map, not
 * executable it stays //anon; [vdso] has offset 0; a dso met first
 * without an inode takes the one met later for the same name; without
 * PEBS_TASKS_MMAPS an MMAP2 makes no thread.
 */
static void test_names(void **state)
{
	struct pebs_tasks *ts = new_tasks(PEBS_TASKS_MMAPS);
	struct pebs_tasks *plain = new_tasks(0);

	(void)state;
	mmap2(ts, 50, 50, 0x1000, 0x1000, 0, 0, RX, "//anon");
	mmap2(ts, 50, 50, 0x2000, 0x1000, 0, 0, RW, "//anon");
	mmap2(ts, 50, 50, 0x3000, 0x1000, 0x9000, 0, RX, "[vdso]");
	mmap2(ts, 50, 50, 0x4000, 0x1000, 0, 0, RX, "/bin/p");
	mmap2(ts, 50, 50, 0x5000, 0x1000, 0x1000, 77, RX, "/bin/p");
	mmap2(plain, 50, 50, 0x4000, 0x1000, 0, 0, RX, "/bin/p");
	expect(ts, HDR IDLE
	       "        50       50       -1 |:50\n"
	       "                                1000-2000 r-xp 00000000 0 /tmp/perf-50.map\n"
	       "                                2000-3000 rw-p 00000000 0 //anon\n"
	       "                                3000-4000 r-xp 00000000 0 [vdso]\n"
	       "                                4000-5000 r-xp 00000000 77 /bin/p\n"
	       "                                5000-6000 r-xp 00001000 77 /bin/p\n");
	expect(plain, HDR IDLE);
	pebs_tasks__delete(ts);
	pebs_tasks__delete(plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_maps),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
