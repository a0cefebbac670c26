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
	assert_int_equal(pebs_workload__fork(argv, 0, &w), 0);
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
	assert_int_equal(pebs_workload__fork(argv, 0, &w), 0);
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
	assert_int_equal(pebs_workload__fork(argv, 0, &w), 0);
	pebs_workload__abort(&w);
	assert_int_equal(w.pid, -1);
	assert_false(exists("aborted"));
	assert_int_equal(pebs_workload__fork(NULL, 0, &w), -EINVAL);
	assert_int_equal(pebs_workload__fork(argv, 2, &w), -EINVAL);
}

/* the command's standard output goes to standard error with the flag */
static void test_stdout_to_stderr(void **state)
{
	struct pebs_workload w = PEBS_WORKLOAD_INIT;
	char *argv[] = { "sh", "-c", "echo out; echo err >&2", NULL };
	int out[2], err[2], keep_out, keep_err, status;
	char buf[64];
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe(err), 0);
	keep_out = dup(STDOUT_FILENO);
	keep_err = dup(STDERR_FILENO);
	assert_true(keep_out >= 0 && keep_err >= 0);
	fflush(NULL);
	dup2(out[1], STDOUT_FILENO);
	dup2(err[1], STDERR_FILENO);
	assert_int_equal(pebs_workload__fork(argv,
					     PEBS_WORKLOAD_STDOUT_TO_STDERR,
					     &w), 0);
	dup2(keep_out, STDOUT_FILENO);
	dup2(keep_err, STDERR_FILENO);
	close(keep_out);
	close(keep_err);
	close(out[1]);
	close(err[1]);
	assert_int_equal(pebs_workload__go(&w), 0);
	assert_int_equal(waitpid(w.pid, &status, 0), w.pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(read(out[0], buf, sizeof(buf)), 0);	/* nothing */
	n = read(err[0], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = 0;
	assert_string_equal(buf, "out\nerr\n");
	close(out[0]);
	close(err[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held_then_run),
		cmocka_unit_test(test_exec_fails),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_stdout_to_stderr),
	};
	int rc;

	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (t_rm_tree(dir))
		rc = 1;
	return rc;
}
