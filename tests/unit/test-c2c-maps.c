// SPDX-License-Identifier: MIT
/*
 * test-c2c-maps.c - perf c2c's cache-line key (sort__dcacheline_cmp,
 * tools/perf/util/sort.c, perf 6.1) from synthetic MMAP, MMAP2 and FORK
 * records: a shared file mapping of two processes is one line, private
 * anonymous memory of two processes two lines, a private file mapping
 * one line (no pid: its dso id is not zero), kernel addresses (image,
 * module, no mapping) one address space; overlaps, FORK copies, MMAP
 * (v1) offsets, and the lines pebs_c2c makes from those keys.
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

#define SHARED	0x01
#define PRIVATE	0x02
#define RW	0x3
#define RX	0x5

static unsigned char buf[512];

/* An MMAP2 record of @pid in buf. */
static const struct perf_event_header *mmap2(uint32_t pid, uint64_t start,
					     uint64_t len, uint64_t pgoff,
					     uint32_t maj, uint64_t ino,
					     uint32_t prot, uint32_t flags,
					     const char *name)
{
	struct perf_event_header h = { .type = PERF_RECORD_MMAP2 };
	unsigned char *p = buf + sizeof(h);
	uint32_t min = 1, z32 = 0;
	uint64_t gen = 0;
	size_t n = strlen(name) + 1;

	memset(buf, 0, sizeof(buf));
	memcpy(p, &pid, 4);
	memcpy(p + 4, &pid, 4);
	memcpy(p + 8, &start, 8);
	memcpy(p + 16, &len, 8);
	memcpy(p + 24, &pgoff, 8);
	memcpy(p + 32, &maj, 4);
	memcpy(p + 36, maj ? &min : &z32, 4);
	memcpy(p + 40, &ino, 8);
	memcpy(p + 48, &gen, 8);
	memcpy(p + 56, &prot, 4);
	memcpy(p + 60, &flags, 4);
	memcpy(p + 64, name, n);
	h.size = sizeof(h) + 64 + (n + 7) / 8 * 8;
	memcpy(buf, &h, sizeof(h));
	return (const struct perf_event_header *)buf;
}

/* An MMAP (v1) record; @data sets PERF_RECORD_MISC_MMAP_DATA. */
static const struct perf_event_header *mmap1(uint32_t pid, uint64_t start,
					     uint64_t len, uint64_t pgoff,
					     bool data, const char *name)
{
	struct perf_event_header h = { .type = PERF_RECORD_MMAP };
	unsigned char *p = buf + sizeof(h);
	size_t n = strlen(name) + 1;

	memset(buf, 0, sizeof(buf));
	memcpy(p, &pid, 4);
	memcpy(p + 4, &pid, 4);
	memcpy(p + 8, &start, 8);
	memcpy(p + 16, &len, 8);
	memcpy(p + 24, &pgoff, 8);
	memcpy(p + 32, name, n);
	h.misc = data ? PERF_RECORD_MISC_MMAP_DATA : 0;
	h.size = sizeof(h) + 32 + (n + 7) / 8 * 8;
	memcpy(buf, &h, sizeof(h));
	return (const struct perf_event_header *)buf;
}

static const struct perf_event_header *fork_rec_misc(uint32_t pid,
						     uint32_t ppid,
						     uint16_t misc)
{
	struct perf_event_header h = { .type = PERF_RECORD_FORK, .misc = misc,
				       .size = sizeof(h) + 24 };
	uint32_t v[4] = { pid, ppid, pid, ppid };

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), v, sizeof(v));
	return (const struct perf_event_header *)buf;
}

static const struct perf_event_header *fork_rec(uint32_t pid, uint32_t ppid)
{
	return fork_rec_misc(pid, ppid, 0);
}

#define U PERF_RECORD_MISC_USER
#define K PERF_RECORD_MISC_KERNEL

static struct pebs_c2c_maps *new_maps(void)
{
	struct pebs_c2c_maps *m;

	assert_int_equal(pebs_c2c_maps__new(&m), 0);
	return m;
}

static void add(struct pebs_c2c_maps *m, const struct perf_event_header *ev)
{
	assert_int_equal(pebs_c2c_maps__add_record(m, ev), 0);
}

/* count lines by walking them */
static int count_line(const struct pebs_c2c_line *l, void *arg)
{
	unsigned int *n = arg;

	(void)l;
	(*n)++;
	return 0;
}

static unsigned int nr_lines(struct pebs_c2c_maps *m, uint16_t cpumode,
			     const uint32_t *pid, const uint64_t *addr,
			     unsigned int n)
{
	struct pebs_c2c_sample s = { .cpu = UINT32_MAX };
	struct pebs_c2c_dkey k;
	struct pebs_c2c *c;
	unsigned int i, lines = 0;

	assert_int_equal(pebs_c2c__new(&c), 0);
	for (i = 0; i < n; i++) {
		s.pid = s.tid = pid[i];
		s.addr = addr[i];
		pebs_c2c_maps__key(m, cpumode, pid[i], addr[i], &k);
		assert_int_equal(pebs_c2c__add_keyed(c, &s, &k), 0);
	}
	assert_true(pebs_c2c__sort(c, PEBS_C2C_XWRITES) >= 0);
	assert_int_equal(pebs_c2c__for_each_line(c, true, count_line, &lines),
			 0);
	pebs_c2c__delete(c);
	return lines;
}

static void test_shared_file(void **state)
{
	struct pebs_c2c_maps *m = new_maps();
	const uint32_t pid[] = { 100, 200 };
	const uint64_t addr[] = { 0x10048, 0x70070 };
	struct pebs_c2c_dkey a, b;

	(void)state;
	add(m, mmap2(100, 0x10000, 0x1000, 0x2000, 8, 42, RW, SHARED, "/f"));
	add(m, mmap2(200, 0x70000, 0x1000, 0x2000, 8, 42, RW, SHARED, "/f"));
	pebs_c2c_maps__key(m, U, 100, addr[0], &a);
	pebs_c2c_maps__key(m, U, 200, addr[1], &b);
	assert_true(a.has_map && !a.by_pid && a.level == 's');
	assert_int_equal(a.al_addr, 0x2048);
	assert_int_equal(b.al_addr, 0x2070);
	assert_int_equal(a.maj, 8);
	assert_int_equal(a.ino, 42);
	/* two processes, two virtual addresses: one line */
	assert_int_equal(nr_lines(m, U, pid, addr, 2), 1);
	/* an executable shared mapping is not marked 's' */
	add(m, mmap2(100, 0x20000, 0x1000, 0, 8, 43, RX, SHARED, "/x"));
	pebs_c2c_maps__key(m, U, 100, 0x20000, &a);
	assert_int_equal(a.level, '.');
	pebs_c2c_maps__delete(m);
}

static void test_private_anon(void **state)
{
	struct pebs_c2c_maps *m = new_maps();
	const uint32_t pid[] = { 100, 200, 100 };
	const uint64_t addr[] = { 0x7f0000000040, 0x7f0000000040,
				  0x7f0000000078 };
	struct pebs_c2c_dkey a;

	(void)state;
	add(m, mmap2(100, 0x7f0000000000, 0x1000, 0, 0, 0, RW, PRIVATE,
		     "//anon"));
	add(m, mmap2(200, 0x7f0000000000, 0x1000, 0, 0, 0, RW, PRIVATE,
		     "//anon"));
	pebs_c2c_maps__key(m, U, 100, addr[0], &a);
	assert_true(a.has_map && a.by_pid && a.pid == 100);
	assert_int_equal(a.al_addr, addr[0]);	/* anonymous: identity */
	assert_int_equal(a.level, '.');
	/* one address, two processes: two lines; 0x..78 is in pid 100's */
	assert_int_equal(nr_lines(m, U, pid, addr, 3), 2);
	/* [heap] and [stack] are identity maps too, whatever their pgoff */
	add(m, mmap2(100, 0x5000, 0x1000, 0x99000, 0, 0, RW, PRIVATE,
		     "[heap]"));
	pebs_c2c_maps__key(m, U, 100, 0x5010, &a);
	assert_int_equal(a.al_addr, 0x5010);
	pebs_c2c_maps__delete(m);
}

static void test_private_file(void **state)
{
	struct pebs_c2c_maps *m = new_maps();
	const uint32_t pid[] = { 100, 200 };
	const uint64_t addr[] = { 0x400100, 0x800100 };
	struct pebs_c2c_dkey a;

	(void)state;
	/* perf keys by pid only when the dso id is zero: a private file
	 * mapping (a .data section) of two processes is one line */
	add(m, mmap2(100, 0x400000, 0x1000, 0x3000, 8, 7, RW, PRIVATE, "/b"));
	add(m, mmap2(200, 0x800000, 0x1000, 0x3000, 8, 7, RW, PRIVATE, "/b"));
	pebs_c2c_maps__key(m, U, 100, addr[0], &a);
	assert_true(a.has_map && !a.by_pid && a.level == '.');
	assert_int_equal(a.al_addr, 0x3100);
	assert_int_equal(nr_lines(m, U, pid, addr, 2), 1);
	/* another file (another inode) at the same offset: another line */
	add(m, mmap2(200, 0x800000, 0x1000, 0x3000, 8, 9, RW, PRIVATE, "/c"));
	assert_int_equal(nr_lines(m, U, pid, addr, 2), 2);
	pebs_c2c_maps__delete(m);
}

static void test_kernel(void **state)
{
	struct pebs_c2c_maps *m = new_maps();
	const uint32_t pid[] = { 1, 2, 3 };
	const uint64_t addr[] = { 0xffff888000001000, 0xffff888000001010,
				  0xffff888000001040 };
	struct pebs_c2c_dkey a, b;

	(void)state;
	add(m, mmap1(-1, 0xffffffff81000000, 0x2000000, 0xffffffff81000000,
		     false, "[kernel.kallsyms]_text"));
	add(m, mmap1(-1, 0xffffffffc0000000, 0x4000, 0, false, "[mod]"));
	pebs_c2c_maps__key(m, K, 1, 0xffffffff82000040, &a);
	assert_true(a.has_map && !a.by_pid && a.level == 'k');
	assert_int_equal(a.al_addr, 0xffffffff82000040);	/* identity */
	pebs_c2c_maps__key(m, K, 1, 0xffffffffc0001040, &a);
	assert_true(a.has_map);
	assert_int_equal(a.al_addr, 0x1040);		/* module relative */
	/* the direct map lies in no kernel mapping: no map, no pid */
	pebs_c2c_maps__key(m, K, 1, addr[0], &a);
	assert_true(!a.has_map && !a.by_pid && a.level == 'X');
	assert_int_equal(nr_lines(m, K, pid, addr, 3), 2);
	/* a user-mode sample of the same address is another line */
	pebs_c2c_maps__key(m, U, 1, addr[0], &b);
	assert_int_equal(b.cpumode, U);
	assert_int_not_equal(a.cpumode, b.cpumode);
	pebs_c2c_maps__delete(m);
}

static void test_overlap_fork_v1(void **state)
{
	struct pebs_c2c_maps *m = new_maps();
	struct pebs_c2c_dkey a;

	(void)state;
	/* a file mapping cut in three by a later anonymous one */
	add(m, mmap2(100, 0x10000, 0x3000, 0x5000, 8, 1, RW, PRIVATE, "/f"));
	add(m, mmap2(100, 0x11000, 0x1000, 0, 0, 0, RW, PRIVATE, "//anon"));
	pebs_c2c_maps__key(m, U, 100, 0x10010, &a);
	assert_int_equal(a.al_addr, 0x5010);
	pebs_c2c_maps__key(m, U, 100, 0x11010, &a);
	assert_true(a.by_pid && a.al_addr == 0x11010);
	pebs_c2c_maps__key(m, U, 100, 0x12010, &a);
	assert_int_equal(a.ino, 1);
	assert_int_equal(a.al_addr, 0x7010);	/* the right part's offset */
	pebs_c2c_maps__key(m, U, 100, 0x13000, &a);
	assert_false(a.has_map);
	/* a new process starts with its parent's maps, then its own */
	add(m, fork_rec(300, 100));
	pebs_c2c_maps__key(m, U, 300, 0x10010, &a);
	assert_int_equal(a.al_addr, 0x5010);
	add(m, mmap2(300, 0x10000, 0x1000, 0, 0, 0, RW, PRIVATE, "//anon"));
	pebs_c2c_maps__key(m, U, 300, 0x10010, &a);
	assert_true(a.by_pid && a.pid == 300);
	pebs_c2c_maps__key(m, U, 100, 0x10010, &a);
	assert_int_equal(a.ino, 1);		/* the parent is untouched */
	/* a FORK perf synthesized (FORK_EXEC: its MMAPs follow) copies
	 * nothing, as perf's machine__process_fork_event */
	add(m, fork_rec(500, 100));
	add(m, fork_rec_misc(501, 100, PERF_RECORD_MISC_FORK_EXEC));
	pebs_c2c_maps__key(m, U, 500, 0x10010, &a);
	assert_true(a.has_map);
	pebs_c2c_maps__key(m, U, 501, 0x10010, &a);
	assert_false(a.has_map);
	/* a thread (FORK within the process) changes nothing */
	add(m, fork_rec(100, 100));
	pebs_c2c_maps__key(m, U, 100, 0x11010, &a);
	assert_true(a.by_pid);
	/* MMAP (v1): no dso id, so by pid; offsets as the file's */
	add(m, mmap1(400, 0x600000, 0x2000, 0x1000, true, "/lib.so"));
	pebs_c2c_maps__key(m, U, 400, 0x601008, &a);
	assert_true(a.has_map && a.by_pid && a.pid == 400);
	assert_int_equal(a.al_addr, 0x2008);
	/* guest and hypervisor samples have no maps here */
	pebs_c2c_maps__key(m, PERF_RECORD_MISC_HYPERVISOR, 400, 0x601008, &a);
	assert_false(a.has_map);
	assert_int_equal(pebs_c2c_maps__add_record(m, NULL), -EINVAL);
	pebs_c2c_maps__delete(m);
}

static int first_id(const struct pebs_c2c_line *l, void *arg)
{
	*(uint32_t *)arg = l->id;
	return 1;
}

static void test_legacy_key(void **state)
{
	struct pebs_c2c_sample s = { .cpu = UINT32_MAX, .pid = 7, .tid = 7,
				     .addr = 0x1234 };
	struct pebs_c2c_dkey k;
	struct pebs_c2c *c;
	uint32_t id = UINT32_MAX;

	(void)state;
	assert_int_equal(pebs_c2c__new(&c), 0);
	assert_int_equal(pebs_c2c__add(c, &s), 0);
	assert_true(pebs_c2c__sort(c, PEBS_C2C_XWRITES) >= 0);
	assert_int_equal(pebs_c2c__for_each_line(c, true, first_id, &id), 1);
	assert_int_equal(pebs_c2c__line_key(c, id, &k), 0);
	assert_true(k.by_pid && k.pid == 7 && k.cpumode == U && !k.has_map);
	assert_int_equal(k.al_addr, 0x1200);
	assert_int_equal(pebs_c2c__line_key(c, id + 1, &k), -EINVAL);
	assert_int_equal(pebs_c2c__add_keyed(c, &s, NULL), -EINVAL);
	pebs_c2c__delete(c);
}

/* hostile input: many processes forking a big map list stays bounded */
static void test_bounded(void **state)
{
	struct pebs_c2c_maps *m = new_maps();
	struct pebs_c2c_dkey a;
	unsigned int i;

	(void)state;
	for (i = 0; i < 4096; i++)	/* backwards: every insert moves */
		add(m, mmap2(1, 0x100000000 - (uint64_t)i * 0x1000, 0x1000,
			     0, 8, i + 1, RW, PRIVATE, "/f"));
	for (i = 2; i < 40000; i++)
		add(m, fork_rec(i, 1));
	pebs_c2c_maps__key(m, U, 1, 0x100000000, &a);
	assert_int_equal(a.ino, 1);
	pebs_c2c_maps__delete(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_file),
		cmocka_unit_test(test_private_anon),
		cmocka_unit_test(test_private_file),
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_overlap_fork_v1),
		cmocka_unit_test(test_legacy_key),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
