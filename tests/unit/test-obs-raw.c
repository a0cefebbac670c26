// SPDX-License-Identifier: MIT
/*
 * test-obs-raw.c - the observer's raw file (lib/observe/obs-raw.c): binary
 * records written and read back field by field, the CSV form, the size
 * limit (whole records only, then 1), write errors, and the parser's
 * refusals (short, bad magic, other version, inconsistent sizes).
 */
#include <errno.h>
#include <fcntl.h>
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
#include "core/internal.h"

static const unsigned int cpus[2] = { 3, 7 };

static void info_init(struct pebs_obs_raw_info *in)
{
	memset(in, 0, sizeof(*in));
	in->nr_cpus = 2;
	in->nr_events = 2;
	in->observer_cpu = 1;
	in->tsc_hz = 2400000000ULL;
	in->lo_ppm = 950000;
	in->hi_ppm = 1050000;
	strcpy(in->names[0], "task-clock");
	strcpy(in->names[1], "cpu-clock");
}

/* a row as pebs_observer__read fills it: tsc, end, then per CPU
 * tgid, pid, switches and the counters; deltas per CPU and event */
static void row_init(uint64_t *row, uint64_t *deltas, uint64_t tsc)
{
	uint64_t r[2 + 2 * (PEBS_OBS_CPU_HEAD + 2)] = {
		tsc, tsc + 10, 100, 101, 5, 0, 0, (uint64_t)-1, (uint64_t)-1,
		0x100000007ULL, 0, 0,
	};

	memcpy(row, r, sizeof(r));
	deltas[0] = 11;
	deltas[1] = 12;
	deltas[2] = 21;
	deltas[3] = 22;
}

static char *slurp(const char *path, size_t *len)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	assert_true(n >= 0);
	*len = (size_t)n;
	return buf;
}

static void test_binary_round_trip(void **state)
{
	char path[] = "/tmp/test-obs-raw.XXXXXX";
	struct pebs_obs_raw_info in, out;
	struct pebs_obs_raw_record rec;
	struct pebs_obs_raw *raw;
	uint64_t row[12], d[4];
	size_t len;
	char *b;
	int fd, hs;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	info_init(&in);
	assert_int_equal(pebs_obs_raw__create(path, &in, cpus, NULL, &raw), 0);
	row_init(row, d, 1000);
	assert_int_equal(pebs_obs_raw__add_row(raw, row, 40, d), 0);
	row_init(row, d, 2000);
	assert_int_equal(pebs_obs_raw__add_row(raw, row, 1000, d), 0);
	assert_int_equal(pebs_obs_raw__records(raw), 4);
	assert_int_equal(pebs_obs_raw__bytes(raw), 64 + 128 + 4 * 48);
	assert_int_equal(pebs_obs_raw__close(raw), 0);

	b = slurp(path, &len);
	unlink(path);
	assert_int_equal(len, 64 + 128 + 4 * 48);
	assert_memory_equal(b, "PEBSOBS", 8);
	hs = pebs_obs_raw__parse_header(b, len, &out);
	assert_int_equal(hs, 192);
	assert_int_equal(out.nr_cpus, 2);
	assert_int_equal(out.nr_events, 2);
	assert_int_equal(out.observer_cpu, 1);
	assert_int_equal(out.tsc_hz, 2400000000ULL);
	assert_int_equal(out.lo_ppm, 950000);
	assert_int_equal(out.hi_ppm, 1050000);
	assert_int_equal(out.record_size, 48);
	assert_string_equal(out.names[0], "task-clock");
	assert_string_equal(out.names[1], "cpu-clock");

	assert_int_equal(pebs_obs_raw__parse_record(&out, b + hs, len - hs,
						    &rec), 0);
	assert_int_equal(rec.tsc, 1000);
	assert_int_equal(rec.dt, 40);
	assert_int_equal(rec.cpu, 3);
	assert_int_equal(rec.tgid, 100);
	assert_int_equal(rec.pid, 101);
	assert_int_equal(rec.switches, 5);
	assert_int_equal(rec.delta[0], 11);
	assert_int_equal(rec.delta[1], 12);
	assert_int_equal(pebs_obs_raw__parse_record(&out, b + hs + 48,
						    len - hs - 48, &rec), 0);
	assert_int_equal(rec.cpu, 7);
	assert_int_equal(rec.tgid, -1);
	assert_int_equal(rec.pid, -1);
	assert_int_equal(rec.switches, 7);	/* low 32 bits */
	assert_int_equal(rec.delta[0], 21);
	assert_int_equal(rec.delta[1], 22);
	assert_int_equal(pebs_obs_raw__parse_record(&out, b + hs + 144,
						    len - hs - 144, &rec), 0);
	assert_int_equal(rec.tsc, 2000);
	assert_int_equal(rec.dt, 1000);
	/* a record cut short */
	assert_int_equal(pebs_obs_raw__parse_record(&out, b + hs, 47, &rec),
			 -ENODATA);
}

static void test_csv_and_limit(void **state)
{
	char path[] = "/tmp/test-obs-raw.XXXXXX";
	PEBS_OPTS(pebs_obs_raw_opts, o, .csv = true, .max_bytes = 120);
	struct pebs_obs_raw_info in;
	struct pebs_obs_raw *raw;
	uint64_t row[12], d[4];
	size_t len;
	char *b;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	info_init(&in);
	assert_int_equal(pebs_obs_raw__create(path, &in, cpus, &o, &raw), 0);
	row_init(row, d, 1000);
	/* header line 50 bytes, the first row's lines 26 + 33: 109; the
	 * next row's first line would pass 120 bytes: 1, nothing after */
	assert_int_equal(pebs_obs_raw__add_row(raw, row, 40, d), 0);
	assert_int_equal(pebs_obs_raw__add_row(raw, row, 40, d), 1);
	assert_int_equal(pebs_obs_raw__add_row(raw, row, 40, d), 0);
	assert_int_equal(pebs_obs_raw__records(raw), 2);
	assert_int_equal(pebs_obs_raw__bytes(raw), 109);
	assert_int_equal(pebs_obs_raw__close(raw), 0);
	b = slurp(path, &len);
	unlink(path);
	b[len] = '\0';
	assert_string_equal(b,
			    "tsc,dt,cpu,tgid,pid,switches,task-clock,cpu-clock\n"
			    "1000,40,3,100,101,5,11,12\n"
			    "1000,40,7,-1,-1,4294967303,21,22\n");
}

static void test_errors(void **state)
{
	struct pebs_obs_raw_info in, out;
	struct pebs_obs_raw *raw;
	char h[192];
	int fd;

	(void)state;
	info_init(&in);
	assert_int_equal(pebs_obs_raw__create("/nonexistent/dir/x", &in, cpus,
					      NULL, &raw), -ENOENT);
	in.nr_events = PEBS_OBS_MAX_EVENTS + 1;
	assert_int_equal(pebs_obs_raw__create("/dev/null", &in, cpus, NULL,
					      &raw), -EINVAL);
	info_init(&in);
	in.nr_cpus = 0;
	assert_int_equal(pebs_obs_raw__create("/dev/null", &in, cpus, NULL,
					      &raw), -EINVAL);
	/* a write error at the first flush: /dev/full */
	info_init(&in);
	fd = open("/dev/full", O_WRONLY);
	if (fd >= 0) {
		close(fd);
		assert_int_equal(pebs_obs_raw__create("/dev/full", &in, cpus,
						      NULL, &raw), -ENOSPC);
	}
	assert_int_equal(pebs_obs_raw__close(NULL), 0);

	/* the parser: a valid header, then each field broken */
	memset(h, 0, sizeof(h));
	memcpy(h, "PEBSOBS", 8);
	memcpy(h + 8, &(uint32_t){ 1 }, 4);
	memcpy(h + 12, &(uint32_t){ 192 }, 4);
	memcpy(h + 16, &(uint32_t){ 48 }, 4);
	memcpy(h + 20, &(uint32_t){ 2 }, 4);
	memcpy(h + 24, &(uint32_t){ 1 }, 4);
	memset(h + 64, 'x', 128);	/* names without a NUL: cut at 63 */
	assert_int_equal(pebs_obs_raw__parse_header(h, sizeof(h), &out), 192);
	assert_int_equal(strlen(out.names[1]), 63);
	assert_int_equal(pebs_obs_raw__parse_header(h, 63, &out), -ENODATA);
	assert_int_equal(pebs_obs_raw__parse_header(h, 191, &out), -ENODATA);
	h[0] = 'X';
	assert_int_equal(pebs_obs_raw__parse_header(h, sizeof(h), &out),
			 -EPROTO);
	assert_non_null(strstr(pebs_errmsg(), "bad magic"));
	h[0] = 'P';
	memcpy(h + 8, &(uint32_t){ 2 }, 4);
	assert_int_equal(pebs_obs_raw__parse_header(h, sizeof(h), &out),
			 -EPROTO);
	memcpy(h + 8, &(uint32_t){ 1 }, 4);
	memcpy(h + 16, &(uint32_t){ 56 }, 4);
	assert_int_equal(pebs_obs_raw__parse_header(h, sizeof(h), &out),
			 -EPROTO);
	memcpy(h + 16, &(uint32_t){ 48 }, 4);
	memcpy(h + 20, &(uint32_t){ 0x40000002 }, 4);
	assert_int_equal(pebs_obs_raw__parse_header(h, sizeof(h), &out),
			 -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binary_round_trip),
		cmocka_unit_test(test_csv_and_limit),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
