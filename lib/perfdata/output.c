// SPDX-License-Identifier: MIT
/*
 * output.c - where a recording goes on disk, by perf's rules: a path
 * that exists must be a regular file, which is kept as PATH.old when it
 * is not empty (perf's check_backup in util/data.c), and a new file is
 * built unseen (O_TMPFILE, else a hidden temporary name in the same
 * directory) and linked in only once recording really started.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pebsshim/perfdata.h"
#include "perfdata/perfdata-write.h"

static const char *file_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a fifo" :
	       S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int pebs_output__check(const char *path)
{
	struct stat st;

	if (!path || !*path)
		return core_err(-EINVAL, "no output path given: give one "
				"with -o");
	if (stat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		return core_err(-errno, "cannot use %s: %s: choose another "
				"path", path, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return core_err(-EEXIST, "%s exists and is %s: give the path "
				"of a new or regular file", path,
				file_kind(st.st_mode));
	return 0;
}

int pebs_output__backup(const char *path)
{
	char old[PATH_MAX];
	struct stat st;
	int err = pebs_output__check(path);

	if (err)
		return err;
	if (stat(path, &st) || !st.st_size)
		return 0;	/* absent or empty: nothing to keep */
	if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old))
		return core_err(-ENAMETOOLONG, "%s.old: name too long: choose "
				"a shorter path", path);
	if (rename(path, old))
		return core_err(-errno, "cannot move %s to %s: %s: remove or "
				"rename %s", path, old, strerror(errno), old);
	return 0;
}

int pebs_output__replace(const char *path,
			 int (*write)(void *ctx, FILE *f), void *ctx)
{
	char *tmp = NULL, why[256];
	FILE *f = NULL;
	mode_t mask;
	int fd, err;

	if (!write)
		return core_err(-EINVAL, "output: nothing to write");
	/* a device or fifo is not replaced by a file (rename would) */
	err = pebs_output__check(path);
	if (err)
		return err;
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return core_err(-ENOMEM, "output: out of memory");
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		err = core_err(-errno, "cannot create %s: %s: give a writable "
			       "path", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tmp);
		return err;
	}
	core_err_clear();
	err = write(ctx, f);
	if (fclose(f) && !err)
		err = -errno;
	/* mkstemp makes 0600: the output is as readable as other files
	   (the umask is read by setting it, then set back) */
	mask = umask(0);
	umask(mask);
	if (!err && chmod(tmp, 0666 & ~mask))
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		snprintf(why, sizeof(why), "%s", pebs_errmsg()[0] ?
			 pebs_errmsg() : strerror(-err));
		unlink(tmp);
		err = core_err(err, "cannot write %s: %s (%s left unchanged)",
			       path, why, path);
	}
	free(tmp);
	return err;
}

/* the directory part of @path in @dir */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* An unnamed file in @path's directory, else a hidden named one. */
int wr_open_tmp(struct pebs_perfdata_writer *w)
{
	char dir[PATH_MAX];
	const char *base = strrchr(w->path, '/');
	size_t len;

	dir_of(w->path, dir, sizeof(dir));
	/* 0600 whatever the umask, as perf creates perf.data: a recording
	   holds data and (as root) kernel addresses, command lines */
	w->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (w->fd >= 0) {
		w->tmpfile = true;
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	base = base ? base + 1 : w->path;
	len = strlen(dir) + strlen(base) + 32;
	w->tmp_path = malloc(len);
	if (!w->tmp_path)
		return -ENOMEM;
	snprintf(w->tmp_path, len, "%s/.%s.pebs-shim.XXXXXX", dir, base);
	w->fd = mkostemp(w->tmp_path, O_CLOEXEC);
	if (w->fd < 0) {
		free(w->tmp_path);
		w->tmp_path = NULL;
		return -errno;
	}
	return 0;
}

/* Link the temporary file in at the path (replacing an empty file). */
int wr_link_in(struct pebs_perfdata_writer *w)
{
	char proc[64];

	if (w->tmp_path)
		return rename(w->tmp_path, w->path) ? -errno : 0;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", w->fd);
	for (int tries = 0; tries < 2; tries++) {
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, w->path,
			    AT_SYMLINK_FOLLOW))
			return 0;
		if (errno == ENOENT && !linkat(w->fd, "", AT_FDCWD, w->path,
					       AT_EMPTY_PATH))
			return 0;
		if (errno != EEXIST || pebs_output__check(w->path) ||
		    unlink(w->path))
			break;
	}
	return -errno;
}

