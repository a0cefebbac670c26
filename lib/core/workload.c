// SPDX-License-Identifier: MIT
/*
 * workload.c - a command forked and held before its exec until the
 * events that watch it are open (perf's prepare/start workload): the
 * child blocks on a pipe, execs when released, and reports a failed exec
 * through a second, close-on-exec pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"

int pebs_workload__fork(char *const argv[], unsigned int flags,
			struct pebs_workload *c)
{
	int go[2], errp[2];
	pid_t pid;

	if (!c || !argv || !argv[0] || (flags & ~PEBS_WORKLOAD_STDOUT_TO_STDERR))
		return core_err(-EINVAL, "workload: no command to start");
	if (pipe2(go, O_CLOEXEC))
		goto fail;
	if (pipe2(errp, O_CLOEXEC))
		goto out_close_go;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		goto out_close_err;
	if (pid == 0) {
		char b;
		int e;

		close(go[1]);
		close(errp[0]);
		/* the parent closing go without a byte means: give up */
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		/*
		 * a recording that goes to standard output: what the command
		 * prints must not land in it (perf's evlist__prepare_workload
		 * does the same for a pipe)
		 */
		if ((flags & PEBS_WORKLOAD_STDOUT_TO_STDERR) &&
		    dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	c->pid = pid;
	c->go_fd = go[1];
	c->err_fd = errp[0];
	c->file = argv[0];
	return 0;

out_close_err:
	close(errp[0]);
	close(errp[1]);
out_close_go:
	close(go[0]);
	close(go[1]);
fail:
	return core_err(-errno, "cannot start '%s': %s: check the limits "
			"(ulimit -u)", argv[0], strerror(errno));
}

int pebs_workload__go(struct pebs_workload *c)
{
	ssize_t n;
	int e = 0;

	if (!c || c->go_fd < 0)
		return core_err(-EINVAL, "workload: no command held to release");
	if (write(c->go_fd, "g", 1) != 1) {
		e = errno;
		return core_err(-e, "cannot release '%s': %s: report a bug",
				c->file, strerror(e));
	}
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == sizeof(e)) {
		waitpid(c->pid, NULL, 0);
		c->pid = -1;
		return core_err(-e, "cannot execute '%s': %s: check the command "
				"and PATH", c->file, strerror(e));
	}
	return 0;
}

void pebs_workload__abort(struct pebs_workload *c)
{
	if (!c)
		return;
	if (c->go_fd >= 0)
		close(c->go_fd);	/* the child reads EOF and exits */
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (c->pid > 0)
		waitpid(c->pid, NULL, 0);
	c->pid = -1;
}
