// SPDX-License-Identifier: MIT
/*
 * record-target.c - what `pebs-shim record` watches: CPU lists, pid and
 * tid lists (checked against /proc), and a command forked and held until
 * its events are open.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record.h"

/* the CPUs of @bits into @out; 0 or -ENOMEM after tool_err */
static int push_cpus(const uint64_t *bits, struct pebs_ids *out)
{
	int err = pebs_cpulist__ids(bits, PEBS_MAX_CPUS, out);

	if (err)
		tool_err("record", "%s", pebs_errmsg());
	return err;
}

int rec_online_cpus(struct pebs_ids *cpus)
{
	static uint64_t online[PEBS_MAX_CPUS / 64];
	int err = pebs_cpulist__online(PEBS_MAX_CPUS, online);

	if (err) {
		tool_err("record", "%s", pebs_errmsg());
		return err;
	}
	return push_cpus(online, cpus);
}

int rec_parse_cpus(const char *str, struct pebs_ids *cpus)
{
	static uint64_t want[PEBS_MAX_CPUS / 64], online[PEBS_MAX_CPUS / 64];
	int c, err;

	err = pebs_cpulist__parse(str, PEBS_MAX_CPUS, want);
	if (err) {
		tool_err("record", "%s", pebs_errmsg());
		return -EINVAL;
	}
	err = pebs_cpulist__online(PEBS_MAX_CPUS, online);
	if (err) {
		tool_err("record", "%s", pebs_errmsg());
		return err;
	}
	for (c = pebs_cpulist__next(want, PEBS_MAX_CPUS, 0); c >= 0;
	     c = pebs_cpulist__next(want, PEBS_MAX_CPUS, c + 1)) {
		if (!(online[c / 64] >> (c % 64) & 1)) {
			tool_err("record", "CPU %d is not online: pick CPUs from /sys/devices/system/cpu/online",
				c);
			return -EINVAL;
		}
	}
	return push_cpus(want, cpus);
}

int rec_parse_pids(const char *str, bool threads, struct pebs_ids *out,
		   struct pebs_ids *procs)
{
	struct pebs_ids ids = { 0 };
	int err;

	err = pebs_ids__parse(&ids, str);
	if (err) {
		tool_err("record", "bad pid list '%s': %s", str, pebs_errmsg());
		goto out_free;
	}
	for (unsigned int i = 0; i < ids.n; i++) {
		int id = ids.v[i];

		if (id == 0 || pebs_proc__tgid(id) < 0) {
			tool_err("record", "no process or thread %d: check the id (ps -eLf)",
				id);
			err = -ESRCH;
			goto out_free;
		}
		if (procs && (err = pebs_ids__push(procs, id)))
			goto out_free;
		if (!threads) {
			err = pebs_ids__add(out, id);
		} else {
			err = pebs_proc__tasks(id, out);
			if (err == -ESRCH)
				tool_err("record", "process %d exited: check the pid", id);
		}
		if (err)
			goto out_free;
	}
out_free:
	pebs_ids__free(&ids);
	return err;
}

int rec_child_fork(char **argv, struct rec_child *c)
{
	int go[2], errp[2];
	pid_t pid;

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
	tool_err("record", "cannot start '%s': %s: check the limits (ulimit -u)",
		argv[0], strerror(errno));
	return -errno;
}

int rec_child_go(struct rec_child *c)
{
	ssize_t n;
	int e = 0;

	if (write(c->go_fd, "g", 1) != 1) {
		e = errno;
		tool_err("record", "cannot release '%s': %s: report a bug", c->file,
			strerror(e));
		return -e;
	}
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == sizeof(e)) {
		tool_err("record", "cannot execute '%s': %s: check the command and PATH",
			c->file, strerror(e));
		waitpid(c->pid, NULL, 0);
		c->pid = -1;
		return -e;
	}
	return 0;
}

void rec_child_abort(struct rec_child *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);	/* the child reads EOF and exits */
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (c->pid > 0)
		waitpid(c->pid, NULL, 0);
	c->pid = -1;
}
