// SPDX-License-Identifier: MIT
/*
 * test-record.c - record views (lib/decode/record.c): every type decoded from
 * hand-built records, the sample_id trailer kept out of the payload,
 * and short or unterminated records refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"

/* A record: header, then @len payload bytes, 8-byte aligned. */
static struct perf_event_header *rec(void *buf, uint32_t type,
				     uint16_t misc, const void *payload,
				     size_t len)
{
	struct perf_event_header *h = buf;

	h->type = type;
	h->misc = misc;
	h->size = (uint16_t)(sizeof(*h) + len);
	memcpy(h + 1, payload, len);
	return h;
}

static void test_comm(void **state)
{
	uint64_t buf[16];
	uint32_t p[6] = { 10, 11 };
	struct pebs_record r;

	(void)state;
	memcpy(&p[2], "bash\0\0\0\0", 8);
	rec(buf, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, p, 16);
	assert_int_equal(pebs_record__decode((void *)buf, 0, &r), 0);
	assert_int_equal(r.comm.pid, 10);
	assert_int_equal(r.comm.tid, 11);
	assert_string_equal(r.comm.comm, "bash");
	assert_true(r.comm.exec);

	/* the NUL only in the sample_id trailer: refused */
	memcpy(&p[2], "abcdefgh", 8);
	p[4] = 0;
	p[5] = 0;
	rec(buf, PERF_RECORD_COMM, 0, p, 24);
	assert_int_equal(pebs_record__decode((void *)buf, 0, &r), 0);
	assert_int_equal(pebs_record__decode((void *)buf, 8, &r), -EBADMSG);
	/* shorter than pid, tid */
	rec(buf, PERF_RECORD_COMM, 0, p, 4);
	assert_int_equal(pebs_record__decode((void *)buf, 0, &r), -EBADMSG);
}

static void test_task(void **state)
{
	uint32_t p[6] = { 20, 10, 21, 11 };
	uint64_t buf[8], t = 12345;
	struct pebs_record r;

	(void)state;
	memcpy(&p[4], &t, 8);
	rec(buf, PERF_RECORD_FORK, 0, p, 24);
	assert_int_equal(pebs_record__decode((void *)buf, 0, &r), 0);
	assert_int_equal(r.task.pid, 20);
	assert_int_equal(r.task.ppid, 10);
	assert_int_equal(r.task.tid, 21);
	assert_int_equal(r.task.ptid, 11);
	assert_int_equal(r.task.time, 12345);
	rec(buf, PERF_RECORD_EXIT, 0, p, 16);
	assert_int_equal(pebs_record__decode((void *)buf, 0, &r), -EBADMSG);
}

static void test_mmap2(void **state)
{
	unsigned char p[64 + 16] = { 0 };
	uint64_t buf[16], v;
	uint32_t u;
	struct pebs_record r;

	(void)state;
	u = 30;
	memcpy(p, &u, 4);
	memcpy(p + 4, &u, 4);
	v = 0x400000;
	memcpy(p + 8, &v, 8);
	v = 0x1000;
	memcpy(p + 16, &v, 8);
	v = 0x2000;
	memcpy(p + 24, &v, 8);
	p[32] = 20;			/* build id size */
	memset(p + 36, 0xab, 20);
	u = 5;				/* PROT_READ | PROT_EXEC */
	memcpy(p + 56, &u, 4);
	memcpy(p + 64, "/bin/x", 7);
	rec(buf, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID, p, 80);
	assert_int_equal(pebs_record__decode((void *)buf, 8, &r), 0);
	assert_int_equal(r.mmap.pid, 30);
	assert_int_equal(r.mmap.start, 0x400000);
	assert_int_equal(r.mmap.len, 0x1000);
	assert_int_equal(r.mmap.pgoff, 0x2000);
	assert_int_equal(r.mmap.build_id_size, 20);
	assert_int_equal(r.mmap.build_id[19], 0xab);
	assert_int_equal(r.mmap.prot, 5);
	assert_false(r.mmap.data);
	assert_string_equal(r.mmap.filename, "/bin/x");
	/* the name cut by the trailer */
	assert_int_equal(pebs_record__decode((void *)buf, 16, &r), -EBADMSG);
	/* MMAP: the name at 32; executable unless data */
	rec(buf, PERF_RECORD_MMAP, 0, p, 40);
	memcpy((char *)(buf + 1) + 32, "/lib/y", 7);
	assert_int_equal(pebs_record__decode((void *)buf, 0, &r), 0);
	assert_string_equal(r.mmap.filename, "/lib/y");
	assert_true(r.mmap.prot & 4);
}

static void test_small_types(void **state)
{
	uint64_t buf[8], p[4] = { 7, 99, 3, 0 };
	uint32_t sw[2] = { 40, 41 };
	struct pebs_record r;

	(void)state;
	rec(buf, PERF_RECORD_LOST, 0, p, 16);
	assert_int_equal(pebs_record__decode((void *)buf, 0, &r), 0);
	assert_int_equal(r.lost.id, 7);
	assert_int_equal(r.lost.lost, 99);
	rec(buf, PERF_RECORD_LOST_SAMPLES, 0, p, 8);
	assert_int_equal(pebs_record__decode((void *)buf, 0, &r), 0);
	assert_int_equal(r.lost.lost, 7);
	rec(buf, PERF_RECORD_THROTTLE, 0, p, 24);
	assert_int_equal(pebs_record__decode((void *)buf, 0, &r), 0);
	assert_int_equal(r.throttle.time, 7);
	assert_int_equal(r.throttle.id, 99);
	assert_int_equal(r.throttle.stream_id, 3);
	rec(buf, PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT |
	    PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, sw, 8);
	assert_int_equal(pebs_record__decode((void *)buf, 0, &r), 0);
	assert_true(r.sw.out);
	assert_true(r.sw.preempt);
	assert_int_equal(r.sw.next_prev_tid, 41);
	rec(buf, PERF_RECORD_SWITCH, 0, sw, 0);
	assert_int_equal(pebs_record__decode((void *)buf, 0, &r), 0);
	assert_false(r.sw.out);
	/* perf's FINISHED_ROUND: no payload, no trailer */
	rec(buf, 68, 0, p, 0);
	assert_int_equal(pebs_record__decode((void *)buf, 8, &r), 0);
	assert_int_equal(r.type, 68);
	/* no view for samples; a record smaller than its trailer */
	rec(buf, PERF_RECORD_SAMPLE, 0, p, 8);
	assert_int_equal(pebs_record__decode((void *)buf, 0, &r), -ENOENT);
	rec(buf, PERF_RECORD_LOST, 0, p, 8);
	assert_int_equal(pebs_record__decode((void *)buf, 16, &r), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_task),
		cmocka_unit_test(test_mmap2),
		cmocka_unit_test(test_small_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
