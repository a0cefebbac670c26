// SPDX-License-Identifier: MIT
/*
 * file.c - the one opener of the files a recording names: the mapped
 * objects, their debug files and build-id cache copies, perf's
 * /tmp/perf-PID.map, a kallsyms copy, the DWARF of a variable's fields.
 * Their names come from the recording (or from the build-id cache a
 * recording leads to), so what is there now may be anything: a FIFO or
 * a device left where a recorded binary was, or named by a hostile
 * perf.data, would block open(2) or read(2) forever and report with it.
 * Such a name is opened without blocking (O_NONBLOCK) and kept only when
 * it is a regular file. perf report reads such a recording without
 * stalling too (perf 6.1, checked: a recorded program replaced by a
 * FIFO).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"

int core_open_file(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

FILE *core_fopen_file(const char *path)
{
	int fd = core_open_file(path);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "re");
	if (!f)
		close(fd);
	return f;
}
