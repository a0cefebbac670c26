// SPDX-License-Identifier: MIT
/*
 * buildid-cache.c - perf's build-id cache (~/.debug), written as perf
 * record 6.1 writes it (build_id_cache__add) so that perf report and
 * pebs-shim report find the recorded builds later, when the files on
 * disk have changed or never were files (the vdso):
 *
 *   ~/.debug/<real path>/<build id>/elf      the file (a hard link, or a
 *                                            copy across file systems)
 *   ~/.debug/[vdso]/<build id>/vdso          the vdso image of this boot
 *   ~/.debug/[kernel.kallsyms]/<build id>/kallsyms
 *                                            this boot's /proc/kallsyms
 *   ~/.debug/.build-id/<xx>/<rest> -> ../../<real path>/<build id>
 *
 * Every file is written under a temporary name and renamed into place,
 * never over one that is there already (the same build id is the same
 * content); a file whose build id is not the recorded one is skipped.
 * The entries of a recording's HEADER_BUILD_ID section are read here
 * too (buildid_section__next), for the resolver and for the cache's
 * writer of a whole recording (lib/perfdata/buildid-write.c).
 *
 * Modes as perf lays them out: directories 0755 less the umask, a copied
 * file its source's mode, the vdso 0600; and kallsyms 0600 too (perf's
 * copy is 0755: a world-readable copy of root's /proc/kallsyms would undo
 * kptr_restrict and KASLR).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pebsshim/symbols.h"
#include "symbols/dso.h"
#include "core/internal.h"

int buildid_dir(char *buf, size_t size)
{
	const char *home = getenv("HOME");

	/* perf's set_buildid_dir: $HOME/.debug */
	if (!home || !*home)
		return -ENOENT;
	if ((size_t)snprintf(buf, size, "%s/.debug", home) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* mkdir -p of @path's directories (not of its last component) */
static int mkdirs(char *path)
{
	char *p;

	for (p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			int err = -errno;

			*p = '/';
			return err;
		}
		*p = '/';
	}
	return 0;
}

static int copy_fd(int in, int out)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return -EIO;
	return n < 0 ? -errno : 0;
}

/*
 * @dst becomes @src (a hard link, else a copy through a temporary file
 * renamed into place, of mode @mode, or of @src's mode when @mode is 0);
 * an existing @dst is kept.
 */
static int put_file(const char *src, const char *dst, mode_t mode)
{
	char tmp[PATH_MAX];
	struct stat st;
	int in, out, err;

	if (!access(dst, F_OK) || !link(src, dst))
		return 0;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp%d", dst,
			     (int)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	in = core_open_file(src);
	if (in < 0 || fstat(in, &st)) {
		err = -errno;
		if (in >= 0)
			close(in);
		return err;
	}
	if (!mode)
		mode = st.st_mode & 07777;
	out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out >= 0 && fchmod(out, mode)) {
		err = -errno;
		close(out);
		close(in);
		unlink(tmp);
		return err;
	}
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	err = copy_fd(in, out);
	close(in);
	if (close(out) && !err)
		err = -EIO;
	if (!err && rename(tmp, dst))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static void hex(char *out, const uint8_t *bid, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", bid[i]);
}

int buildid_cache_entry(char *buf, size_t size, const char *name,
			const uint8_t *bid, size_t len, const char *leaf)
{
	char dir[PATH_MAX], sbid[2 * BUILD_ID_MAX + 1];
	int err = buildid_dir(dir, sizeof(dir));

	if (err)
		return err;
	hex(sbid, bid, len);
	return (size_t)snprintf(buf, size, "%s/%s/%s/%s", dir,
				name + (name[0] == '/'), sbid, leaf) < size ?
	       0 : -ENAMETOOLONG;
}

int buildid_section__next(const unsigned char **pp, const unsigned char *end,
			  struct buildid_entry *e)
{
	const unsigned char *p = *pp;

	/* { header, s32 pid, u8 build_id[20], u8 size, u8 pad[3], name } */
	while ((size_t)(end - p) >= sizeof(struct perf_event_header) + 28) {
		struct perf_event_header h;
		const unsigned char *bid = p + sizeof(h) + 4;
		const char *name = (const char *)bid + 24;
		size_t len = BUILD_ID_MAX, max;

		memcpy(&h, p, sizeof(h));	/* the section may be unaligned */
		if (h.size < sizeof(h) + 28 || h.size > (size_t)(end - p))
			return core_err(-EBADMSG, "HEADER_BUILD_ID: an entry "
					"of %u bytes overruns the section",
					h.size);
		if (h.misc & MISC_BUILD_ID_SIZE)
			len = bid[20];
		max = (size_t)(p + h.size - (const unsigned char *)name);
		p += h.size;
		*pp = p;
		if (len && len <= BUILD_ID_MAX && strnlen(name, max) < max) {
			memcpy(&e->pid, bid - 4, sizeof(e->pid));
			e->bid = bid;
			e->len = len;
			e->name = name;
			return 1;
		}
	}
	return 0;
}

/*
 * Cache @src (holding build id @bid) as "@name/<bid>/@leaf" and link
 * .build-id/<xx>/<rest> to its directory.
 */
static int cache_put(const char *name, const char *leaf, const char *src,
		     mode_t mode, const uint8_t *bid, size_t len)
{
	char dir[PATH_MAX], file[PATH_MAX], lnk[PATH_MAX], target[PATH_MAX];
	char sbid[2 * BUILD_ID_MAX + 1];
	int err;

	err = buildid_cache_entry(file, sizeof(file), name, bid, len,
				       leaf) ?: buildid_dir(dir, sizeof(dir));
	if (err)
		return err;
	hex(sbid, bid, len);
	if ((size_t)snprintf(lnk, sizeof(lnk), "%s/.build-id/%.2s/%s", dir,
			     sbid, sbid + 2) >= sizeof(lnk) ||
	    (size_t)snprintf(target, sizeof(target), "../..%s%s/%s",
			     name[0] == '/' ? "" : "/", name, sbid) >=
	    sizeof(target))
		return -ENAMETOOLONG;
	err = mkdirs(file);
	if (!err)
		err = put_file(src, file, mode);
	if (!err)
		err = mkdirs(lnk);
	if (!err && symlink(target, lnk) && errno != EEXIST)
		err = -errno;
	return err;
}

int buildid_write_vdso(int fd)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long long start, end;
	char line[256];
	bool found = false;
	FILE *f;
	int err = 0;

	f = fopen("/proc/self/maps", "re");
	if (!base || !f) {
		if (f)
			fclose(f);
		return -ENOENT;
	}
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "[vdso]") &&
			sscanf(line, "%llx-%llx", &start, &end) == 2 &&
			start == base && end > start;
	fclose(f);
	if (!found)
		return -ENOENT;
	if (write(fd, (const void *)(uintptr_t)start, (size_t)(end - start)) !=
	    (ssize_t)(end - start))
		err = -EIO;
	return err;
}

/* The vdso, if this boot's has build id @bid. */
static int cache_vdso(const uint8_t *bid, size_t len)
{
	uint8_t got[BUILD_ID_MAX];
	char tmp[] = "/tmp/pebs-vdso.XXXXXX";
	int fd, err, n;

	/* a private file of a fresh name (not one another user made) */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = buildid_write_vdso(fd);
	if (close(fd) && !err)
		err = -EIO;
	n = err ? err : dso_elf_build_id(tmp, got);
	if (n >= 0 && ((size_t)n != len || memcmp(got, bid, len)))
		n = -ESRCH;	/* another boot's vdso */
	err = n < 0 ? n : cache_put("[vdso]", "vdso", tmp, 0600, bid, len);
	unlink(tmp);
	return err;
}

/* This boot's /proc/kallsyms, if the recorded kernel (@bid) is this
   one and its addresses show (perf caches no kptr_restrict'ed copy). */
static int cache_kallsyms(const uint8_t *bid, size_t len)
{
	uint8_t host[BUILD_ID_MAX];
	int n = kallsyms_host_build_id(host);

	if (n < 0)
		return n;
	if ((size_t)n != len || memcmp(host, bid, len))
		return -ESRCH;
	n = kallsyms_probe();
	if (n < 0)
		return n;
	return cache_put(KERNEL_NAME, "kallsyms", "/proc/kallsyms", 0600, bid,
			 len);
}

int pebs_buildid_cache__add(const char *path, const uint8_t *build_id,
			    size_t size)
{
	uint8_t got[BUILD_ID_MAX];
	char real[PATH_MAX];
	int n;

	if (!path || !build_id || !size || size > BUILD_ID_MAX)
		return core_err(-EINVAL, "build-id cache: bad file or build id");
	if (!strcmp(path, "[vdso]"))
		n = cache_vdso(build_id, size);
	else if (!strcmp(path, KERNEL_NAME))
		n = cache_kallsyms(build_id, size);
	else if (path[0] != '/' || !realpath(path, real))
		n = -ENOENT;
	else if ((n = dso_elf_build_id(real, got)) >= 0)
		n = (size_t)n != size || memcmp(got, build_id, size) ? -ESRCH :
		    cache_put(real, "elf", real, 0, build_id, size);
	if (n == -ESRCH)
		return core_err(n, "build-id cache: %s is not the recorded "
				"build", path);
	return n < 0 ? core_err(n, "build-id cache: cannot cache %s: %s",
				path, strerror(-n)) : 0;
}
