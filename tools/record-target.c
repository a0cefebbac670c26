// SPDX-License-Identifier: MIT
/*
 * record-target.c - what `pebs-shim record` watches: CPU lists, pid and
 * tid lists, and a command forked and held until its events are open;
 * and tool_err("record", ), the one error line every part of record prints.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record.h"

int rec_ints_push(struct rec_ints *l, int x)
{
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 16;
		int *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = x;
	return 0;
}

void rec_ints_free(struct rec_ints *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static bool ints_has(const struct rec_ints *l, int x)
{
	for (unsigned int i = 0; i < l->n; i++)
		if (l->v[i] == x)
			return true;
	return false;
}

/* a decimal number without sign or junk; -1 if not */
static long parse_num(const char *s, char **end)
{
	long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, end, 10);
	if (errno || v > INT_MAX)
		return -1;
	return v;
}

/*
 * Parse a pid list like "10,20-22" into @out (no duplicates). Returns 0,
 * or -EINVAL with *bad pointing at the offending item.
 */
static int parse_list(const char *str, struct rec_ints *out, const char **bad)
{
	const char *p = str;

	*bad = str;
	if (!*p)
		return -EINVAL;
	while (*p) {
		char *end;
		long lo, hi;

		*bad = p;
		lo = parse_num(p, &end);
		if (lo < 0)
			return -EINVAL;
		hi = lo;
		if (*end == '-') {
			hi = parse_num(end + 1, &end);
			/* no machine has more CPUs in one range */
			if (hi < lo || hi - lo > 8192)
				return -EINVAL;
		}
		if (*end && *end != ',')
			return -EINVAL;
		for (long x = lo; x <= hi; x++)
			if (!ints_has(out, (int)x) && rec_ints_push(out, (int)x))
				return -ENOMEM;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return -EINVAL;
	}
	return 0;
}

/* the CPUs of @bits, in order, into @out */
static int push_cpus(const uint64_t *bits, struct rec_ints *out)
{
	for (int c = pebs_cpulist__next(bits, PEBS_MAX_CPUS, 0); c >= 0;
	     c = pebs_cpulist__next(bits, PEBS_MAX_CPUS, c + 1))
		if (rec_ints_push(out, c))
			return -ENOMEM;
	return 0;
}

int rec_online_cpus(struct rec_ints *cpus)
{
	static uint64_t online[PEBS_MAX_CPUS / 64];
	int err = pebs_cpulist__online(PEBS_MAX_CPUS, online);

	if (err) {
		tool_err("record", "%s", pebs_errmsg());
		return err;
	}
	return push_cpus(online, cpus);
}

int rec_parse_cpus(const char *str, struct rec_ints *cpus)
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

static bool proc_exists(int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", pid);
	return access(path, F_OK) == 0;
}

/* append the threads of @pid; -ESRCH if it is gone */
static int add_threads(int pid, struct rec_ints *out)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d))) {
		char *end;
		long tid = parse_num(de->d_name, &end);

		if (tid <= 0 || *end || ints_has(out, (int)tid))
			continue;
		err = rec_ints_push(out, (int)tid);
		if (err)
			break;
	}
	closedir(d);
	return err;
}

int rec_parse_pids(const char *str, bool threads, struct rec_ints *out,
		   struct rec_ints *procs)
{
	struct rec_ints ids = { 0 };
	const char *bad;
	int err;

	err = parse_list(str, &ids, &bad);
	if (err) {
		tool_err("record", "bad pid list '%s' at '%s': give ids like 1234,5678",
			str, bad);
		goto out_free;
	}
	for (unsigned int i = 0; i < ids.n; i++) {
		int id = ids.v[i];

		if (id == 0 || !proc_exists(id)) {
			tool_err("record", "no process or thread %d: check the id (ps -eLf)",
				id);
			err = -ESRCH;
			goto out_free;
		}
		if (procs && (err = rec_ints_push(procs, id)))
			goto out_free;
		if (!threads) {
			err = ints_has(out, id) ? 0 : rec_ints_push(out, id);
		} else {
			err = add_threads(id, out);
			if (err == -ESRCH)
				tool_err("record", "process %d exited: check the pid", id);
		}
		if (err)
			goto out_free;
	}
out_free:
	rec_ints_free(&ids);
	return err;
}

int rec_processes(struct rec_ints *pids)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	int err = 0;

	if (!d) {
		tool_err("record", "cannot list /proc: %s: is procfs mounted?",
			strerror(errno));
		return -errno;
	}
	while (!err && (de = readdir(d))) {
		char *end;
		long pid = parse_num(de->d_name, &end);

		if (pid > 0 && !*end)
			err = rec_ints_push(pids, (int)pid);
	}
	closedir(d);
	if (err)
		tool_err("record", "out of memory");
	return err;
}

pid_t rec_tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

int rec_child_fork(char **argv, bool stdout_to_stderr, struct rec_child *c)
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
		/*
		 * the recording goes to standard output: what the command
		 * prints must not land in it (perf's
		 * evlist__prepare_workload does the same for a pipe)
		 */
		if (stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
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
