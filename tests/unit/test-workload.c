// SPDX-License-Identifier: MIT
/*
 * test-workload.c - a command held before its exec (lib/core/workload.c):
 * it does not run before pebs_workload__go, runs after it, a failed
 * exec comes back as its errno, and an aborted one never runs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"
#include "helpers.h"

static char dir[] = "/tmp/test-workload.XXXXXX";

/* sh -c "echo ran > DIR/@name" */
static void run_argv(char *cmd, size_t len, const char *name,
		     char *argv[4])
{
	snprintf(cmd, len, "echo ran > %s/%s", dir, name);
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = cmd;
	argv[3] = NULL;
}

static bool exists(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void test_held_then_run(void **state)
{
	struct pebs_workload w = PEBS_WORKLOAD_INIT;
	char cmd[256], *argv[4];
	int status;

	(void)state;
	run_argv(cmd, sizeof(cmd), "go", argv);
	assert_int_equal(pebs_workload__fork(argv, &w), 0);
	assert_true(w.pid > 0);
	usleep(100000);
	assert_false(exists("go"));	/* held */
	assert_int_equal(pebs_workload__go(&w), 0);
	assert_int_equal(waitpid(w.pid, &status, 0), w.pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(exists("go"));
	w.pid = -1;
	pebs_workload__abort(&w);	/* nothing left: a no-op */
	/* released once only */
	assert_int_equal(pebs_workload__go(&w), -EINVAL);
}

static void test_exec_fails(void **state)
{
	struct pebs_workload w = PEBS_WORKLOAD_INIT;
	char *argv[] = { "/nonexistent/pebs-no-such-command", NULL };

	(void)state;
	assert_int_equal(pebs_workload__fork(argv, &w), 0);
	assert_int_equal(pebs_workload__go(&w), -ENOENT);
	assert_non_null(strstr(pebs_errmsg(), "cannot execute "
			       "'/nonexistent/pebs-no-such-command'"));
	assert_int_equal(w.pid, -1);	/* reaped */
	pebs_workload__abort(&w);
}

static void test_abort(void **state)
{
	struct pebs_workload w = PEBS_WORKLOAD_INIT;
	char cmd[256], *argv[4];

	(void)state;
	run_argv(cmd, sizeof(cmd), "aborted", argv);
	assert_int_equal(pebs_workload__fork(argv, &w), 0);
	pebs_workload__abort(&w);
	assert_int_equal(w.pid, -1);
	assert_false(exists("aborted"));
	assert_int_equal(pebs_workload__fork(NULL, &w), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held_then_run),
		cmocka_unit_test(test_exec_fails),
		cmocka_unit_test(test_abort),
	};
	int rc;

	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (t_rm_tree(dir))
		rc = 1;
	return rc;
}
