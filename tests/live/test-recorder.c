// SPDX-License-Identifier: MIT
/*
 * test-recorder - a whole recording through the library's recorder:
 * `sh -c 'exit 3'` sampled on page-faults into a perf.data file (new,
 * prepare, open, start, poll until the command ends, stop, close), then
 * the file read back: its samples as counted, the command's status;
 * and a command that does not exist (-ENOENT at start, nothing on disk).
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

static int new_or_skip(struct pebs_recorder_opts *o, struct pebs_recorder **r)
{
	int err = pebs_recorder__new(o, r);

	assert_int_equal(err, 0);
	err = pebs_recorder__prepare(*r);
	assert_int_equal(err, 0);
	err = pebs_recorder__open(*r);
	if (err == -EACCES || err == -EPERM || err == -ENOSYS ||
	    err == -ENOENT || err == -EOPNOTSUPP) {
		print_message("# skip: %s\n", pebs_errmsg());
		pebs_recorder__delete(*r);
		skip();
	}
	assert_int_equal(err, 0);
	return 0;
}

static void test_record(void **state)
{
	static const char *const evs[] = { "page-faults" };
	static char *const cmd[] = { "sh", "-c", "exit 3", NULL };
	char dir[] = "/tmp/test-recorder-XXXXXX", path[64];
	PEBS_OPTS(pebs_recorder_opts, o, .events = evs, .nr_events = 1,
		  .period = 1, .cmd = cmd, .attr = PEBS_RECORDER_ATTR_TID,
		  .no_buildid_cache = true);
	struct pebs_recorder *r;
	const struct pebs_recorder_stats *st;
	struct pebs_perfdata *pd;
	int n = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.data", dir);
	o.output = path;
	new_or_skip(&o, &r);
	assert_int_equal(pebs_recorder__start(r), 0);
	for (int i = 0; i < 100 && !n; i++)
		n = pebs_recorder__poll(r, 100);
	assert_int_equal(n, 1);		/* the command ended */
	assert_int_equal(pebs_recorder__stop(r, 0), 0);
	assert_int_equal(pebs_recorder__close(r), 0);
	st = pebs_recorder__stats(r);
	assert_int_equal(st->status, 3);
	assert_true(st->samples > 0);
	assert_int_equal(st->written, st->samples);
	pebs_recorder__delete(r);

	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	pebs_perfdata__close(pd);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_not_found(void **state)
{
	static const char *const evs[] = { "page-faults" };
	static char *const cmd[] = { "/nonexistent/command", NULL };
	char dir[] = "/tmp/test-recorder-XXXXXX", path[64];
	PEBS_OPTS(pebs_recorder_opts, o, .events = evs, .nr_events = 1,
		  .cmd = cmd, .attr = PEBS_RECORDER_ATTR_TID);
	struct pebs_recorder *r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.data", dir);
	o.output = path;
	new_or_skip(&o, &r);
	assert_int_equal(pebs_recorder__start(r), -ENOENT);
	pebs_recorder__delete(r);
	/* never started: the output is discarded, the disk as it was */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_not_found),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
