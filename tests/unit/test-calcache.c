// SPDX-License-Identifier: MIT
/*
 * test-calcache - record --budget's cache of the costs it measured
 * (lib/record/record-calibrate.c): the machine read from /proc's texts,
 * a key that changes with every part of the machine and of the event,
 * and the file: stored and found, 0600 in 0700 directories made for it,
 * replaced atomically with no temporary file left, one line per key,
 * bounded, malformed and hostile lines ignored, an unwritable place an
 * error that leaves nothing behind.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "record/record-int.h"

static const char cpuinfo[] =
	"processor\t: 0\n"
	"vendor_id\t: AuthenticAMD\n"
	"model name\t: AMD EPYC 7B13\n"
	"flags\t\t: fpu vme de pse tsc msr\n"
	"\n"
	"processor\t: 1\n"
	"model name\t: another\n"
	"flags\t\t: fpu\n";

static void machine(struct rec_cal_machine *m)
{
	rec_cal_machine_parse(m, "0f4e6a4e-1111-2222-3333-444455556666\n",
			      "6.1.0-18-amd64", cpuinfo, 2);
}

static void test_machine(void **state)
{
	struct rec_cal_machine m, n;

	(void)state;
	machine(&m);
	assert_string_equal(m.boot_id, "0f4e6a4e-1111-2222-3333-444455556666");
	assert_string_equal(m.release, "6.1.0-18-amd64");
	/* the first CPU's model and flags */
	assert_string_equal(m.model, "AMD EPYC 7B13");
	rec_cal_machine_parse(&n, "x", "r",
			      "model name\t: AMD EPYC 7B13\nflags\t: fpu vme de pse tsc msr\n",
			      2);
	assert_true(m.flags == n.flags);
	rec_cal_machine_parse(&n, "x", "r", "flags\t: fpu vme\n", 2);
	assert_true(m.flags != n.flags);
	/* no such lines (another architecture): empty, no crash */
	rec_cal_machine_parse(&n, "", "r", "garbage\nmodel name without colon\n", 1);
	assert_string_equal(n.model, "");
	assert_string_equal(n.boot_id, "");
}

static void test_key(void **state)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_PAGE_FAULTS };
	struct perf_event_attr b;
	struct rec_cal_machine m, n;
	uint64_t k;

	(void)state;
	machine(&m);
	k = rec_cal_key(&m, "faults", &a, 0x1234);
	assert_true(k == rec_cal_key(&m, "faults", &a, 0x1234));
	/* every part of the machine */
	n = m;
	n.boot_id[0] = '1';
	assert_true(k != rec_cal_key(&n, "faults", &a, 0x1234));
	n = m;
	strcpy(n.release, "6.1.0-19-amd64");
	assert_true(k != rec_cal_key(&n, "faults", &a, 0x1234));
	n = m;
	strcpy(n.model, "AMD EPYC 9B14");
	assert_true(k != rec_cal_key(&n, "faults", &a, 0x1234));
	n = m;
	n.flags ^= 1;
	assert_true(k != rec_cal_key(&n, "faults", &a, 0x1234));
	n = m;
	n.nr_cpus = 4;
	assert_true(k != rec_cal_key(&n, "faults", &a, 0x1234));
	/* the method and every part of the event */
	assert_true(k != rec_cal_key(&m, "spin", &a, 0x1234));
	assert_true(k != rec_cal_key(&m, "faults", &a, 0x1235));
	b = a;
	b.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
	assert_true(k != rec_cal_key(&m, "faults", &b, 0x1234));
	b = a;
	b.type = PERF_TYPE_TRACEPOINT;
	assert_true(k != rec_cal_key(&m, "faults", &b, 0x1234));
	b = a;
	b.exclude_kernel = 1;
	assert_true(k != rec_cal_key(&m, "faults", &b, 0x1234));
	b = a;
	b.precise_ip = 2;
	assert_true(k != rec_cal_key(&m, "faults", &b, 0x1234));
	/* not the period: the same event sampled otherwise costs the same */
	b = a;
	b.sample_period = 4000;
	assert_true(k == rec_cal_key(&m, "faults", &b, 0x1234));
}

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test-calcache.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static unsigned int entries(const char *path)
{
	char line[256];
	unsigned int n = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += line[0] != '#';
	fclose(f);
	return n;
}

static unsigned int files_in(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	unsigned int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_file(void **state)
{
	struct rec_cal_entry e = { .when = 1795770599, .v = { 91.5, 651.25 } };
	struct rec_cal_entry got;
	char path[200], sub[128];
	struct stat st;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	snprintf(path, sizeof(path), "%s/costs", sub);
	assert_int_equal(rec_cal_lookup(path, 1, &got), -ENOENT);
	/* the directories made 0700, the file 0600 */
	assert_int_equal(rec_cal_store(path, 0xabcdef0123456789ull, &e), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(rec_cal_lookup(path, 0xabcdef0123456789ull, &got), 0);
	assert_true(got.when == e.when);
	assert_true(got.v[0] == 91.5 && got.v[1] == 651.25);
	assert_int_equal(rec_cal_lookup(path, 0xabcdef0123456788ull, &got),
			 -ENOENT);
	/* another key beside it; the same key replaced, not repeated */
	e.v[0] = -1;	/* an event that does not fire: kept as -1 */
	assert_int_equal(rec_cal_store(path, 2, &e), 0);
	e.v[0] = 100.25;
	e.when++;
	assert_int_equal(rec_cal_store(path, 0xabcdef0123456789ull, &e), 0);
	assert_int_equal(entries(path), 2);
	assert_int_equal(rec_cal_lookup(path, 0xabcdef0123456789ull, &got), 0);
	assert_true(got.v[0] == 100.25 && got.when == e.when);
	assert_int_equal(rec_cal_lookup(path, 2, &got), 0);
	assert_true(got.v[0] == -1);
	/* renamed into place: nothing else in the directory */
	assert_int_equal(files_in(sub), 1);
	/* bounded: the newest 128 lines */
	for (uint64_t k = 100; k < 300; k++)
		assert_int_equal(rec_cal_store(path, k, &e), 0);
	assert_int_equal(entries(path), 128);
	assert_int_equal(rec_cal_lookup(path, 299, &got), 0);
	assert_int_equal(rec_cal_lookup(path, 172, &got), 0);
	assert_int_equal(rec_cal_lookup(path, 171, &got), -ENOENT);
}

static void test_hostile(void **state)
{
	struct rec_cal_entry e = { .when = 5, .v = { 1, 2 } }, got;
	char path[128], bad[128];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/hostile", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "0000000000000001 0 1 2\n"		/* time 0 */
		   "0000000000000002 7 nan 2\n"		/* not finite */
		   "0000000000000003 7 1 -2\n"		/* negative */
		   "00000000000004 7 1 2\n"		/* short key */
		   "0000000000000005 7 1\n"		/* a value short */
		   "zzzzzzzzzzzzzzzz 7 1 2\n"
		   "0000000000000009 7 1 2 junk\n"	/* trailing */
		   " 000000000000009 7 1 2\n"		/* leading blank */
		   "0000000000000006 7 1 2\n");		/* the good one */
	for (int i = 0; i < 5000; i++)
		fputc('x', f);				/* a long line */
	fputc('\n', f);
	fclose(f);
	for (uint64_t k = 1; k <= 9; k++)
		if (k != 6 && k != 8)
			assert_int_equal(rec_cal_lookup(path, k, &got), -ENOENT);
	assert_int_equal(rec_cal_lookup(path, 6, &got), 0);
	assert_true(got.when == 7 && got.v[0] == 1 && got.v[1] == 2);
	/* a store keeps the good line only, and its own */
	assert_int_equal(rec_cal_store(path, 8, &e), 0);
	assert_int_equal(entries(path), 2);
	/* a directory where the file's directory should be: an error, and
	   nothing left behind */
	snprintf(bad, sizeof(bad), "%s/hostile/costs", dir);
	assert_int_equal(rec_cal_store(bad, 8, &e), -ENOTDIR);
	assert_int_equal(entries(path), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
