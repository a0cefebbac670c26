// SPDX-License-Identifier: MIT
/*
 * spawn.c - the commands the self-test compares with: pebs-shim record
 * and report, perf record and report, the workloads. Each runs in its
 * own process group with its output captured (bounded) and a deadline,
 * after which the whole group is killed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

extern char **environ;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* append what @fd has to @buf (@len bytes, kept NUL-terminated) */
static bool drain(int fd, char *buf, size_t len, size_t *used)
{
	char tmp[4096];
	ssize_t n = read(fd, tmp, sizeof(tmp));
	size_t keep;

	if (n <= 0)
		return n < 0 && errno == EINTR;
	keep = (size_t)n < len - 1 - *used ? (size_t)n : len - 1 - *used;
	memcpy(buf + *used, tmp, keep);
	*used += keep;
	buf[*used] = 0;
	return true;
}

int st_spawn(char *const argv[], double timeout, struct st_run *run)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int out[2], err[2], status, e;
	size_t used[2] = { 0, 0 };
	struct pollfd pf[2];
	double end = now() + timeout;
	pid_t pid;

	memset(run, 0, sizeof(*run));
	run->status = -1;
	if (pipe2(out, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		e = -errno;
		close(out[0]);
		close(out[1]);
		return e;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
					 O_RDONLY, 0);
	posix_spawnattr_init(&at);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	e = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(out[1]);
	close(err[1]);
	if (e) {
		close(out[0]);
		close(err[0]);
		return -e;
	}
	pf[0] = (struct pollfd){ .fd = out[0], .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = err[0], .events = POLLIN };
	while (pf[0].fd >= 0 || pf[1].fd >= 0) {
		double left = end - now();
		int i;

		if (left <= 0) {
			run->timed_out = true;
			kill(-pid, SIGKILL);
			break;
		}
		if (poll(pf, 2, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			break;
		for (i = 0; i < 2; i++)
			if (pf[i].fd >= 0 && pf[i].revents &&
			    !drain(pf[i].fd, i ? run->err : run->out,
				   i ? sizeof(run->err) : sizeof(run->out),
				   &used[i])) {
				close(pf[i].fd);
				pf[i].fd = -1;
			}
	}
	if (pf[0].fd >= 0)
		close(pf[0].fd);
	if (pf[1].fd >= 0)
		close(pf[1].fd);
	if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		run->status = WEXITSTATUS(status);
	return 0;
}

/* the last non-empty line of @s, at most @len - 1 bytes, into @line */
const char *st_last_line(const char *s, char *line, size_t len)
{
	const char *end = s + strlen(s), *start;

	while (end > s && end[-1] == '\n')
		end--;
	for (start = end; start > s && start[-1] != '\n'; start--)
		;
	snprintf(line, len, "%.*s", (int)(end - start), start);
	return line;
}

/*
 * The perf to compare with: @o's, else "perf" from PATH, when `perf
 * --version` runs; else NULL with @r set to skip, saying why.
 */
const char *st_perf(const struct pebs_selftest_opts *o,
		    struct pebs_selftest_result *r)
{
	const char *perf = o->perf ? o->perf : "perf";
	char *argv[] = { (char *)perf, "--version", NULL };
	struct st_run *run;
	int err;

	if (st_hidden("PERF")) {
		st_set(r, PEBS_SELFTEST_SKIP,
		       "perf hidden by PEBS_TEST_NO_PERF=1: nothing to compare with");
		return NULL;
	}
	run = malloc(sizeof(*run));
	err = run ? st_spawn(argv, 20, run) : -ENOMEM;
	if (err || run->status) {
		st_set(r, PEBS_SELFTEST_SKIP, "no perf to compare with: '%s "
		       "--version' %s (Debian: apt install linux-perf)", perf,
		       err ? strerror(-err) : "failed");
		perf = NULL;
	}
	free(run);
	return perf;
}

/* whether @o names the pebs-shim command; else @r skips, saying why */
bool st_tool(const struct pebs_selftest_opts *o,
	     struct pebs_selftest_result *r)
{
	if (o->tool && *o->tool)
		return true;
	st_set(r, PEBS_SELFTEST_SKIP, "no pebs-shim command to run (struct "
	       "pebs_selftest_opts.tool): run it as pebs-shim test");
	return false;
}

/* a private directory (0700) under $TMPDIR, else /tmp: 0 or -1 (@r) */
int st_tmpdir(struct pebs_selftest_result *r, char *dir, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(dir, len, "%s/pebs-shim-test.XXXXXX", tmp);
	if (mkdtemp(dir))
		return 0;
	st_set(r, PEBS_SELFTEST_FAIL, "cannot create a directory in %s: %s: "
	       "set TMPDIR to a writable directory", tmp, strerror(errno));
	return -1;
}

/* remove st_tmpdir's directory and the files the check wrote in it */
void st_rmtmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_type == DT_REG)
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}
