// SPDX-License-Identifier: MIT
/*
 * proc.c - the one reader of /proc's process and task lists: the
 * processes now running, the threads of a process, a thread's process
 * and its name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"

/* the numeric entries of directory @path appended to @out (no repeats) */
static int numeric_entries(const char *path, struct pebs_ids *out)
{
	struct dirent *de;
	int err = 0;
	DIR *d = opendir(path);

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		char *end;
		long id;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		id = strtol(de->d_name, &end, 10);
		if (!*end && id > 0 && id <= INT32_MAX)
			err = pebs_ids__add(out, (int)id);
	}
	closedir(d);
	return err;
}

int pebs_proc__pids(struct pebs_ids *out)
{
	int err;

	if (!out)
		return core_err(-EINVAL, "process list: no result list");
	err = numeric_entries("/proc", out);
	if (err && err != -ENOMEM)
		return core_err(err, "cannot list /proc: %s: is procfs mounted?",
				strerror(-err));
	return err;
}

int pebs_proc__tasks(pid_t pid, struct pebs_ids *out)
{
	char path[64];
	int err;

	if (!out || pid <= 0)
		return core_err(-EINVAL, "task list: bad pid %d", (int)pid);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	err = numeric_entries(path, out);
	if (err && err != -ENOMEM)
		return core_err(-ESRCH, "process %d is gone", (int)pid);
	return err;
}

pid_t pebs_proc__tgid(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return core_err(-ESRCH, "thread %d is gone", (int)tid);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

int pebs_proc__comm(pid_t tid, char *buf, size_t len)
{
	char path[64], name[64];
	ssize_t n;
	int fd;

	if (!buf || !len)
		return core_err(-EINVAL, "thread name: no buffer");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return core_err(-ESRCH, "thread %d is gone", (int)tid);
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return core_err(-ESRCH, "thread %d is gone", (int)tid);
	name[n] = '\0';
	name[strcspn(name, "\n")] = '\0';
	snprintf(buf, len, "%s", name);
	return 0;
}
