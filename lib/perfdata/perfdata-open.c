// SPDX-License-Identifier: MIT
/*
 * perfdata-open.c - where a perf.data recording comes from: memory, a
 * path ("-": standard input), or a descriptor. A regular file is mapped
 * (a plain file, or a pipe-mode stream saved to a file), a directory is
 * a perf record --threads recording (lib/perfdata/perfdata-dir.c), and a pipe or
 * socket must carry a pipe-mode stream, read as it comes
 * (lib/perfdata/perfdata-pipe.c). The header is parsed by lib/perfdata/perfdata-read.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pebsshim/perfdata.h"
#include "core/internal.h"
#include "perfdata/perfdata-int.h"

static int pd_new(const void *buf, size_t size, bool mapped, int fd,
		  struct pebs_perfdata **pdp)
{
	struct pebs_perfdata *pd = calloc(1, sizeof(*pd));
	int err;

	if (!pd)
		return core_err(-ENOMEM, "out of memory for a perf.data reader");
	pd->buf = buf;
	pd->size = size;
	pd->mapped = mapped;
	pd->fd = -1;
	pd->sample_id_pos = pd->other_id_pos = -1;
	if (buf) {
		err = pd_init_file(pd);
	} else {	/* a pipe: its 16-byte header was read */
		pd->hdr.magic = PEBS_PERF_MAGIC;
		pd->hdr.size = PD_PIPE_HEADER_SIZE;
		pd->fd = fd;
		err = pd_stream__new_fd(fd, &pd->stream);
		if (!err)
			err = pd_read_prologue(pd);
	}
	if (err) {
		pd->mapped = false;	/* the caller unmaps */
		pd->fd = -1;		/* and closes */
		pebs_perfdata__close(pd);
		return err;
	}
	*pdp = pd;
	return 0;
}

int pebs_perfdata__from_memory(const void *buf, size_t size,
			       struct pebs_perfdata **pdp)
{
	return pd_new(buf, size, false, -1, pdp);
}

/* prefix the last reason with @name */
int pd_with_name(int err, const char *name)
{
	char why[256];

	snprintf(why, sizeof(why), "%s", pebs_errmsg());
	return core_err(err, "%s: %s", name, why);
}

/* read exactly @n bytes: 1, 0 at the end, -errno */
static int read_full(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return 0;
		got += r;
	}
	return 1;
}

int pebs_perfdata__open_fd(int fd, struct pebs_perfdata **pdp)
{
	unsigned char h[PD_PIPE_HEADER_SIZE];
	struct stat st;
	void *buf;
	int err;

	if (fstat(fd, &st)) {
		err = core_err(-errno, "cannot stat the perf.data input: %m");
		goto out_close;
	}
	if (S_ISREG(st.st_mode)) {
		if (st.st_size < 8) {
			err = core_err(-EBADMSG, "not a perf.data file (%lld bytes)",
				       (long long)st.st_size);
			goto out_close;
		}
		buf = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (buf == MAP_FAILED) {
			err = core_err(-errno, "cannot map the perf.data input: %m");
			goto out_close;
		}
		err = pd_new(buf, st.st_size, true, -1, pdp);
		if (err)
			munmap(buf, st.st_size);
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {	/* perf record --threads */
		err = pd_dir__open(fd, pdp);
		goto out_close;
	}
	/* a pipe, a socket, a terminal: only a pipe-mode stream can come */
	err = read_full(fd, h, sizeof(h));
	if (err <= 0) {
		err = err ? core_err(err, "cannot read the perf.data stream: %s",
				     strerror(-err)) :
			    core_err(-EBADMSG, "not a perf.data stream: it ended within 16 bytes");
		goto out_close;
	}
	if (ld64(h) != PEBS_PERF_MAGIC || ld64(h + 8) != PD_PIPE_HEADER_SIZE) {
		err = core_err(-EBADMSG,
			       ld64(h) == PEBS_PERF_MAGIC ?
			       "a perf.data file, not a pipe-mode stream, comes through the pipe: give it as a file" :
			       "not a pipe-mode perf.data stream (bad magic)");
		goto out_close;
	}
	return pd_new(NULL, 0, false, fd, pdp);
out_close:
	close(fd);
	return err;
}

int pebs_perfdata__open(const char *path, struct pebs_perfdata **pdp)
{
	int fd, err;

	if (!strcmp(path, "-")) {
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return core_err(-errno, "cannot read standard input: %m");
		path = "standard input";
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return core_err(-errno, "cannot open %s: %m", path);
	}
	err = pebs_perfdata__open_fd(fd, pdp);
	return err ? pd_with_name(err, path) : 0;
}

/* copy @in to its end into an anonymous memory file; its fd or -errno */
static int spool(int in)
{
	char buf[1 << 16];
	int fd = memfd_create("pebs-shim-input", MFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf)), off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 && lseek(fd, 0, SEEK_SET) == 0)
				return fd;
			n = -errno;
			close(fd);
			return n;
		}
		while (off < n) {
			ssize_t w = write(fd, buf + off, n - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				w = w < 0 ? -errno : -EIO;
				close(fd);
				return w;
			}
			off += w;
		}
	}
}

int pebs_perfdata__open_rewindable(const char *path,
				   struct pebs_perfdata **pdp)
{
	struct stat st;
	int fd, err;

	if (strcmp(path, "-") || (!fstat(STDIN_FILENO, &st) &&
				  (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))))
		return pebs_perfdata__open(path, pdp);
	fd = spool(STDIN_FILENO);
	if (fd < 0)
		return core_err(fd, "cannot read standard input into memory: %s",
				strerror(-fd));
	err = pebs_perfdata__open_fd(fd, pdp);
	return err ? pd_with_name(err, "standard input") : 0;
}

void pebs_perfdata__close(struct pebs_perfdata *pd)
{
	if (!pd)
		return;
	for (unsigned int i = 0; i < pd->nr_attrs; i++) {
		free(pd->attrs[i].ids);
		free(pd->attrs[i].name);
	}
	free(pd->attrs);
	free(pd->idtab);
	pd_stream__free(pd->stream);
	pd_zstd__free(pd->zstd);
	pd_dir__free(pd->dir);
	free(pd->rec);
	if (pd->fd >= 0)
		close(pd->fd);
	if (pd->mapped)
		munmap((void *)pd->buf, pd->size);
	free(pd);
}
