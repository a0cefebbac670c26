// SPDX-License-Identifier: MIT
/*
 * dso-find.c - where the ELF file of a dso (as perf says) is found, as
 * perf 6.1 looks for it: the file itself when its build id is the
 * recorded one (or none was recorded), else perf's build-id cache
 * (~/.debug/.build-id/xx/yyyy/elf, .../vdso for the vdso, or the older
 * link to the file itself), else the distribution's debug file
 * (/usr/lib/debug/.build-id/xx/yyyy.debug); and the places of a
 * separate debug file (.gnu_debuglink, perf's cache, /usr/lib/debug).
 * The symbols themselves are read by lib/symbols/dso.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pebsshim/symbols.h"
#include "symbols/dso.h"
#include "core/internal.h"

static bool elf_build_id(Elf *elf, uint8_t *bid, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &noff, &doff))) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + noff, "GNU", 4) &&
			    nh.n_descsz <= BUILD_ID_MAX) {
				memcpy(bid, (char *)data->d_buf + doff,
				       nh.n_descsz);
				*len = nh.n_descsz;
				return true;
			}
		}
	}
	return false;
}

int dso_elf_build_id(const char *path, uint8_t *bid)
{
	size_t len = 0;
	bool found;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	fd = core_open_file(path);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	found = elf && elf_kind(elf) == ELF_K_ELF &&
		elf_build_id(elf, bid, &len);
	elf_end(elf);
	close(fd);
	return found ? (int)len : -ENOENT;
}

/* The section named @name, or NULL. */
Elf_Scn *dso_elf_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) &&
		    (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	return NULL;
}

static bool debuglink(Elf *elf, char *name, size_t size)
{
	Elf_Data *data;
	GElf_Shdr sh;
	Elf_Scn *scn = dso_elf_section(elf, ".gnu_debuglink", &sh);
	size_t n;

	data = scn && sh.sh_type != SHT_NOBITS ? elf_getdata(scn, NULL) : NULL;
	if (!data || !data->d_buf || !data->d_size)
		return false;
	/* a file name, NUL, padding, a CRC32 */
	n = strnlen(data->d_buf, data->d_size);
	if (!n || n == data->d_size || n >= size || memchr(data->d_buf, '/', n))
		return false;
	memcpy(name, data->d_buf, n + 1);
	return true;
}

/* "<dir>/xx/yyyy<suffix>" for build id @bid of @len bytes. */
static void bid_path(char *buf, size_t size, const char *dir,
		     const uint8_t *bid, size_t len, const char *suffix)
{
	size_t i, off;

	off = (size_t)snprintf(buf, size, "%s/.build-id/%02x/", dir, bid[0]);
	for (i = 1; i < len && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%02x", bid[i]);
	if (off < size)
		snprintf(buf + off, size - off, "%s", suffix);
}

/*
 * Open @path as ELF into *elfp (and its fd); with @want_len, only if its
 * build id is @want. The build id found goes to @bid / *bid_len.
 */
bool dso_elf_open(const char *path, const uint8_t *want, size_t want_len,
		  Elf **elfp, int *fdp, uint8_t *bid, size_t *bid_len)
{
	int fd = core_open_file(path);
	Elf *elf;

	*bid_len = 0;
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    (!elf_build_id(elf, bid, bid_len) && want_len) ||
	    (want_len && (*bid_len != want_len ||
			  memcmp(bid, want, want_len)))) {
		elf_end(elf);
		close(fd);
		return false;
	}
	*elfp = elf;
	*fdp = fd;
	return true;
}

/* The name of a file in perf's cache: "vdso" for the vdso, else "elf". */
static const char *cache_name(const struct dso *d)
{
	return !strcmp(d->path, "[vdso]") ? "/vdso" : "/elf";
}

/* @path under @symfs (perf's __symbol__join_symfs; NULL: @path), in
   @buf; NULL when too long */
static const char *join(const char *symfs, const char *path, char *buf,
			size_t size)
{
	if (!symfs)
		return path;
	return (size_t)snprintf(buf, size, "%s%s", symfs, path) < size ?
	       buf : NULL;
}

const char *dso_file(const struct dso *d, const char *path, char *buf,
		     size_t size)
{
	return join(d->symfs, path, buf, size);
}

/* perf's build-id cache: ~/.debug, or <symfs>/.debug under a symfs
   (perf's symbol__config_symfs); 0 or -errno */
static int cache_dir(const char *symfs, char *buf, size_t size)
{
	if (!symfs)
		return buildid_dir(buf, size);
	return (size_t)snprintf(buf, size, "%s/.debug", symfs) < size ? 0 :
	       -ENAMETOOLONG;
}

/*
 * The file with @d's recorded build id: the file itself (under the
 * symfs), else a copy in perf's cache (~/.debug/.build-id/xx/yyyy/elf,
 * .../vdso for the vdso, or the older link to the file itself), else
 * the distribution's debug file (under the symfs). A name that is no
 * file ([vdso]) is found in the cache only.
 */
static bool find_file(const struct dso *d, Elf **elfp, int *fdp,
		      uint8_t *bid, size_t *bid_len)
{
	char path[PATH_MAX], dir[PATH_MAX], in[PATH_MAX];
	const char *f = d->is_file ? dso_file(d, d->path, in, sizeof(in)) :
			NULL;

	if (f && dso_elf_open(f, d->want_bid, d->want_bid_len, elfp, fdp, bid,
			      bid_len))
		return true;
	if (!d->want_bid_len)
		return false;
	if (!cache_dir(d->symfs, dir, sizeof(dir))) {
		bid_path(path, sizeof(path), dir, d->want_bid,
			 d->want_bid_len, cache_name(d));
		if (dso_elf_open(path, d->want_bid, d->want_bid_len, elfp, fdp,
			     bid, bid_len))
			return true;
		bid_path(path, sizeof(path), dir, d->want_bid,
			 d->want_bid_len, "");
		if (dso_elf_open(path, d->want_bid, d->want_bid_len, elfp, fdp,
			     bid, bid_len))
			return true;
	}
	bid_path(path, sizeof(path), "/usr/lib/debug", d->want_bid,
		 d->want_bid_len, ".debug");
	f = dso_file(d, path, in, sizeof(in));
	return f && dso_elf_open(f, d->want_bid, d->want_bid_len, elfp, fdp,
				 bid, bid_len);
}

/*
 * This process's vdso image, for the [vdso] of a recording of this
 * host's kernel that no cache holds: perf report reads its own
 * (vdso__dso_findnew). With a recorded build id it must match.
 */
static bool host_vdso(const struct dso *d, Elf **elfp, int *fdp,
		      uint8_t *bid, size_t *bid_len)
{
	char path[64];
	bool ok = false;
	int fd;

	if (!d->host_vdso)
		return false;
	fd = memfd_create("pebs-shim-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!buildid_write_vdso(fd))
		ok = dso_elf_open(path, d->want_bid, d->want_bid_len, elfp,
				  fdp, bid, bid_len);
	close(fd);	/* the ELF keeps its own fd */
	return ok;
}

bool dso_debug_candidate(const char *path, const char *symfs, Elf *elf,
			 const uint8_t *bid, size_t len, unsigned int i,
			 char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	char link[256], dir[PATH_MAX], in[PATH_MAX];
	const char *root;
	int dl = slash ? (int)(slash - path) : 0;

	buf[0] = '\0';
	if (i < 4) {
		if (path[0] != '/' || !debuglink(elf, link, sizeof(link)))
			return true;
		/* i 0: the name alone (perf's "%.0s%s": the current
		   directory) */
		snprintf(buf, size, i == 0 ? "%.*s%s" : i == 1 ? "%.*s/%s" :
			 i == 2 ? "%.*s/.debug/%s" : "/usr/lib/debug%.*s/%s",
			 i == 0 ? 0 : dl, path, link);
		if (!strcmp(buf, path))
			buf[0] = '\0';
		return true;
	}
	if (i == 4) {
		if (len && !cache_dir(symfs, dir, sizeof(dir)))
			bid_path(buf, size, dir, bid, len, "/debug");
		return true;
	}
	if (i == 5) {
		root = join(symfs, "/usr/lib/debug", in, sizeof(in));
		if (len && root)
			bid_path(buf, size, root, bid, len, ".debug");
		return true;
	}
	return false;
}

bool dso_open(const struct dso *d, Elf **elfp, int *fdp, uint8_t *bid,
	      size_t *bid_len)
{
	return find_file(d, elfp, fdp, bid, bid_len) ||
	       host_vdso(d, elfp, fdp, bid, bid_len);
}
