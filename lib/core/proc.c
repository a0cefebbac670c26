// SPDX-License-Identifier: MIT
/*
 * proc.c - the one reader of /proc's process and task lists: the
 * processes now running, the threads of a process, a thread's process
 * and its name; and of small /proc and /sys files, /proc/cpuinfo's
 * fields among them.
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

ssize_t core_read_small(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - (size_t)got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

void core_cpuinfo_field(const char *text, const char *key, char *out,
			size_t len)
{
	size_t klen = strlen(key), n;
	const char *p = text, *v, *end;

	out[0] = '\0';
	for (; *p; p = end ? end + 1 : p + strlen(p)) {
		end = strchr(p, '\n');
		if (strncmp(p, key, klen))
			continue;
		v = p + klen + strspn(p + klen, " \t");
		if (*v != ':')
			continue;
		v += 1 + strspn(v + 1, " \t");
		n = end ? (size_t)(end - v) : strlen(v);
		if (n >= len)
			n = len - 1;
		memcpy(out, v, n);
		out[n] = '\0';
		return;
	}
}
