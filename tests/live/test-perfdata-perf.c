// SPDX-License-Identifier: MIT
/*
 * test-perfdata-perf.c - the perf.data reader on recordings perf makes
 * here (software event cpu-clock): a pipe-mode stream read from perf
 * through a real pipe (perf record -o - | reader; also with -z), a
 * zstd-compressed file
 * (perf record -z), a directory (perf record --threads) and a file whose
 * perf was killed (data size 0). Each sample count is checked against
 * `perf script` on the same recording (the killed file, which perf 6.1
 * refuses, against a walk of its records here). Skipped without perf.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "helpers.h"
#include "pebsshim.h"

/* about half a second of shell work */
#define WORKLOAD "sh -c 'i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done'"
#define RECORD "perf record -q --no-bpf-event -e cpu-clock -F 2000 "

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pebs-perfdata-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return t_rm_tree(dir);
}

static void need_perf(void)
{
	if (system("perf record -q -e cpu-clock -o /dev/null -- true "
		   ">/dev/null 2>&1"))
		skip();
}

/* a number printed by a shell command */
static long run_count(const char *fmt, ...)
{
	char cmd[512];
	long n = -1;
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &n), 1);
	pclose(f);
	return n;
}

/* walk every record: the sample count (all decode); their ips to @ips */
static long read_all(struct pebs_perfdata *pd, FILE *ips)
{
	const struct perf_event_header *ev;
	struct pebs_sample s;
	long samples = 0;
	int r;

	while ((r = pebs_perfdata__next(pd, &ev)) > 0) {
		if (ev->type != PERF_RECORD_SAMPLE)
			continue;
		assert_int_equal(pebs_perfdata__sample(pd, ev, &s, NULL), 0);
		if (ips)
			fprintf(ips, "%llx\n", (unsigned long long)s.ip);
		samples++;
	}
	if (r)
		print_error("%s\n", pebs_errmsg());
	assert_int_equal(r, 0);
	return samples;
}

/* perf record @opts -o - | reader, tee keeping a copy for perf script */
static void pipe_with(const char *opts)
{
	struct pebs_perfdata *pd;
	long ours, perfs;
	char cmd[512];
	FILE *f;

	need_perf();
	snprintf(cmd, sizeof(cmd), RECORD "%s -o - -- " WORKLOAD
		 " 2>/dev/null | tee %s/pipe.data", opts, dir);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(pebs_perfdata__open_fd(dup(fileno(f)), &pd), 0);
	assert_true(pebs_perfdata__is_pipe(pd));
	assert_string_equal(pebs_perfdata__attr_name(pd, 0), "cpu-clock");
	ours = read_all(pd, NULL);
	assert_false(pebs_perfdata__truncated(pd));
	pebs_perfdata__close(pd);
	assert_int_equal(pclose(f), 0);
	perfs = run_count("perf script -i - -F ip < %s/pipe.data 2>/dev/null | wc -l",
			  dir);
	assert_true(ours > 0);
	assert_int_equal(ours, perfs);
}

static void test_pipe(void **state)
{
	(void)state;
	pipe_with("");
}

/* a pipe-mode stream of compressed records */
static void test_pipe_zstd(void **state)
{
	(void)state;
	if (run_count(RECORD "-z -o /dev/null -- true >/dev/null 2>&1; echo $?"))
		skip();		/* perf without zstd */
	pipe_with("-z");
}

static void test_zstd(void **state)
{
	struct pebs_perfdata *pd;
	char path[128];
	long ours, perfs;

	(void)state;
	need_perf();
	snprintf(path, sizeof(path), "%s/z.data", dir);
	if (run_count(RECORD "-z -o %s -- " WORKLOAD " >/dev/null 2>&1; echo $?",
		      path))
		skip();		/* perf without zstd */
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_true(pebs_perfdata__has_feat(pd, PEBS_FEAT_COMPRESSED));
	ours = read_all(pd, NULL);
	pebs_perfdata__close(pd);
	perfs = run_count("perf script -i %s -F ip 2>/dev/null | wc -l", path);
	assert_true(ours > 0);
	assert_int_equal(ours, perfs);
	/* perf report -D counts the COMPRESSED records this reader opened */
	assert_true(run_count("perf report -D -i %s 2>/dev/null | "
			      "awk '/^ *COMPRESSED events:/ { print $3 }'",
			      path) > 0);
}

static void test_threads(void **state)
{
	struct pebs_perfdata *pd;
	char path[128], ips[128];
	FILE *f;
	long ours, perfs;

	(void)state;
	need_perf();
	snprintf(path, sizeof(path), "%s/threads.data", dir);
	if (run_count(RECORD "--threads -o %s -- " WORKLOAD " >/dev/null 2>&1; echo $?",
		      path))
		skip();		/* perf without --threads */
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_true(pebs_perfdata__has_feat(pd, PEBS_FEAT_DIR_FORMAT));
	snprintf(ips, sizeof(ips), "%s/ours.txt", dir);
	f = fopen(ips, "w");
	assert_non_null(f);
	ours = read_all(pd, f);	/* merged in time order */
	fclose(f);
	pebs_perfdata__rewind(pd);
	assert_int_equal(read_all(pd, NULL), ours);
	pebs_perfdata__close(pd);
	perfs = run_count("perf script -i %s -F ip 2>/dev/null | wc -l", path);
	assert_true(ours > 0);
	assert_int_equal(ours, perfs);
	/* the samples in perf script's (time) order */
	assert_int_equal(run_count("perf script -i %s -F ip 2>/dev/null | "
				   "sed 's/^[ 0]*//' | cmp -s - %s; echo $?",
				   path, ips), 0);
}

/* perf record killed with SIGKILL: the header's data size stays 0 */
static void test_killed(void **state)
{
	struct pebs_perfdata *pd;
	char path[128], cmd[512];
	long ours, walked;
	pid_t pid;

	(void)state;
	need_perf();
	snprintf(path, sizeof(path), "%s/killed.data", dir);
	/* -m 1: small rings, so perf writes as it goes */
	snprintf(cmd, sizeof(cmd), "exec perf record -q -m 1 -e cpu-clock "
		 "-F 5000 -o %s -- sh -c 'end=$(($(date +%%s) + 3)); "
		 "while [ $(date +%%s) -lt $end ]; do :; done' 2>/dev/null",
		 path);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	sleep(2);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_perfdata__header(pd)->data.size, 0);
	assert_true(pebs_perfdata__truncated(pd));
	ours = read_all(pd, NULL);
	pebs_perfdata__close(pd);
	/* every whole sample record from data.offset (40) to the end */
	walked = run_count("python3 -c \"import struct,sys\n"
			   "b=open('%s','rb').read(); p=struct.unpack_from('<Q',b,40)[0]; n=0\n"
			   "while p+8<=len(b):\n"
			   "  t,m,s=struct.unpack_from('<IHH',b,p)\n"
			   "  if s<8 or p+s>len(b): break\n"
			   "  n+=t==9; p+=s\n"
			   "print(n)\" 2>/dev/null || echo -1", path);
	if (walked < 0)
		skip();		/* no python3 */
	assert_true(ours > 100);
	assert_int_equal(ours, walked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_pipe_zstd),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_killed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
