// SPDX-License-Identifier: MIT
/*
 * symbols.c - (pid, ip) -> symbol + offset.
 *
 * Address spaces: per process (tgid) a sorted array of executable file
 * mappings, from /proc/<pid>/maps or MMAP/MMAP2 records. Files: loaded
 * once with libelf (.symtab, else .dynsym; PT_LOAD segments to turn a
 * file offset into a link-time address), functions sorted by address
 * and found by binary search. Kernel addresses: /proc/kallsyms on
 * request.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define KERNEL_START		(1ULL << 63)
#define BUILD_ID_MAX		20

struct sym {
	uint64_t start;
	uint64_t size;		/* 0: up to the next symbol */
	const char *name;
	int rank;		/* among aliases the lowest is shown */
};

struct seg {
	uint64_t offset, filesz, vaddr;
};

struct dso {
	char *path;
	bool loaded;		/* tried: syms valid (maybe empty) */
	bool is_file;		/* a path that can be opened */
	struct sym *syms;
	size_t nr_syms;
	char *names;		/* all symbol names, NUL-separated */
	struct seg *segs;
	size_t nr_segs;
	uint8_t want_bid[BUILD_ID_MAX];
	size_t want_bid_len;	/* 0: accept any local file */
};

struct mapping {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct proc {
	pid_t pid;
	struct mapping *maps;
	size_t nr, cap;
};

struct pebs_symbols {
	struct dso **dsos;
	size_t nr_dsos;
	struct proc **procs;	/* sorted by pid */
	size_t nr_procs;
	struct dso kernel;	/* "[kernel.kallsyms]" or "[kernel]" */
};

static int oom(void)
{
	return pebs_err(-ENOMEM, "symbols: out of memory");
}

int pebs_symbols__new(struct pebs_symbols **symsp)
{
	struct pebs_symbols *syms;

	if (!symsp)
		return pebs_err(-EINVAL, "symbols: no result pointer");
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pebs_err(-ENOTSUP, "libelf: %s", elf_errmsg(-1));
	syms = calloc(1, sizeof(*syms));
	if (!syms)
		return oom();
	syms->kernel.path = strdup("[kernel]");
	if (!syms->kernel.path) {
		free(syms);
		return oom();
	}
	syms->kernel.loaded = true;
	*symsp = syms;
	return 0;
}

static void dso_free(struct dso *d)
{
	free(d->path);
	free(d->syms);
	free(d->names);
	free(d->segs);
}

void pebs_symbols__delete(struct pebs_symbols *syms)
{
	size_t i;

	if (!syms)
		return;
	for (i = 0; i < syms->nr_dsos; i++) {
		dso_free(syms->dsos[i]);
		free(syms->dsos[i]);
	}
	free(syms->dsos);
	for (i = 0; i < syms->nr_procs; i++) {
		free(syms->procs[i]->maps);
		free(syms->procs[i]);
	}
	free(syms->procs);
	dso_free(&syms->kernel);
	free(syms);
}

static struct dso *dso_find(struct pebs_symbols *syms, const char *path)
{
	size_t i;

	for (i = 0; i < syms->nr_dsos; i++)
		if (!strcmp(syms->dsos[i]->path, path))
			return syms->dsos[i];
	return NULL;
}

static struct dso *dso_findnew(struct pebs_symbols *syms, const char *path)
{
	struct dso *d = dso_find(syms, path), **nd;

	if (d)
		return d;
	nd = realloc(syms->dsos, (syms->nr_dsos + 1) * sizeof(*nd));
	if (!nd)
		return NULL;
	syms->dsos = nd;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	/* [vdso], [heap], //anon, memfd:x (deleted): nothing to open */
	d->is_file = path[0] == '/' && !strstr(path, " (deleted)");
	nd[syms->nr_dsos++] = d;
	return d;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* at one address prefer a sized, global, plainly named symbol */
	if ((x->size != 0) != (y->size != 0))
		return (y->size != 0) - (x->size != 0);
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->name, y->name);
}

/* Sort and drop duplicates (aliases at the same address keep one). */
static void syms_sort(struct sym *s, size_t *nr)
{
	size_t i, j = 0;

	qsort(s, *nr, sizeof(*s), sym_cmp);
	for (i = 0; i < *nr; i++) {
		if (j && s[j - 1].start == s[i].start)
			continue;
		s[j++] = s[i];
	}
	*nr = j;
}

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

int pebs_elf_build_id(const char *path, uint8_t *bid)
{
	size_t len = 0;
	bool found;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	found = elf && elf_kind(elf) == ELF_K_ELF &&
		elf_build_id(elf, bid, &len);
	elf_end(elf);
	close(fd);
	return found ? (int)len : -ENOENT;
}

/* Read the function symbols of one symbol table section. */
static int elf_read_syms(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh,
			 struct dso *d)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, i, names_len = 0, nr = 0;
	struct sym *s;
	char *names;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	s = calloc(n ? n : 1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Sym es;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &es))
			continue;
		type = GELF_ST_TYPE(es.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    es.st_shndx == SHN_UNDEF || !es.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, es.st_name);
		if (!name || !*name)
			continue;
		s[nr].start = es.st_value;
		s[nr].size = es.st_size;
		s[nr].name = name;
		/* global before weak before local; fewer leading '_' */
		s[nr].rank = (GELF_ST_BIND(es.st_info) == STB_GLOBAL ? 0 :
			      GELF_ST_BIND(es.st_info) == STB_WEAK ? 1 : 2) * 16 +
			     (int)strspn(name, "_");
		names_len += strlen(name) + 1;
		nr++;
	}
	/* copy the names out: the Elf handle is closed after loading */
	names = malloc(names_len ? names_len : 1);
	if (!names) {
		free(s);
		return -ENOMEM;
	}
	for (i = 0, names_len = 0; i < nr; i++) {
		size_t l = strlen(s[i].name) + 1;

		memcpy(names + names_len, s[i].name, l);
		s[i].name = names + names_len;
		names_len += l;
	}
	syms_sort(s, &nr);
	d->syms = s;
	d->nr_syms = nr;
	d->names = names;
	return 0;
}

static int elf_read_segs(Elf *elf, struct dso *d)
{
	size_t n, i;

	if (elf_getphdrnum(elf, &n) || !n)
		return 0;
	d->segs = calloc(n, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->nr_segs].offset = ph.p_offset;
		d->segs[d->nr_segs].filesz = ph.p_filesz;
		d->segs[d->nr_segs].vaddr = ph.p_vaddr;
		d->nr_segs++;
	}
	return 0;
}

/*
 * Load a file's symbols once. Unreadable, non-ELF or mismatching files
 * end up with no symbols (not an error for the caller: the address
 * still resolves to the file).
 */
/* The section of type @type, or NULL. */
static Elf_Scn *find_symtab(Elf *elf, unsigned int type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type &&
		    sh->sh_size)
			return scn;
	return NULL;
}

/*
 * The .symtab of the separate debug file /usr/lib/debug/.build-id/xx/
 * yyyy.debug (Debian's -dbg/-dbgsym packages), for stripped files.
 */
static int read_debug_syms(struct dso *d, const uint8_t *bid, size_t len)
{
	char path[128];
	size_t i, off;
	Elf_Scn *scn;
	GElf_Shdr sh;
	int fd, err = 0;
	Elf *elf;

	off = (size_t)snprintf(path, sizeof(path),
			       "/usr/lib/debug/.build-id/%02x/", bid[0]);
	for (i = 1; i < len; i++)
		off += (size_t)snprintf(path + off, sizeof(path) - off, "%02x",
					bid[i]);
	snprintf(path + off, sizeof(path) - off, ".debug");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		scn = find_symtab(elf, SHT_SYMTAB, &sh);
		if (scn)
			err = elf_read_syms(elf, scn, &sh, d);
	}
	elf_end(elf);
	close(fd);
	return err;
}

/*
 * Load a file's symbols once: .symtab, else the .symtab of its debug
 * file, else .dynsym. Unreadable, non-ELF or mismatching files end up
 * with no symbols (not an error for the caller: the address still
 * resolves to the file).
 */
static int dso_load(struct dso *d)
{
	uint8_t bid[BUILD_ID_MAX];
	size_t bid_len = 0;
	int fd, err = 0;
	Elf_Scn *scn;
	GElf_Shdr sh;
	bool has_bid;
	Elf *elf;

	if (d->loaded)
		return 0;
	d->loaded = true;
	if (!d->is_file)
		return 0;
	fd = open(d->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out_end;
	has_bid = elf_build_id(elf, bid, &bid_len);
	if (d->want_bid_len &&
	    (!has_bid || bid_len != d->want_bid_len ||
	     memcmp(bid, d->want_bid, bid_len)))
		goto out_end;	/* another build of the file: no symbols */
	err = elf_read_segs(elf, d);
	scn = find_symtab(elf, SHT_SYMTAB, &sh);
	if (!err && scn)
		err = elf_read_syms(elf, scn, &sh, d);
	if (!err && !d->nr_syms && has_bid && bid_len) {
		free(d->syms);
		free(d->names);
		d->syms = NULL;
		d->names = NULL;
		err = read_debug_syms(d, bid, bid_len);
	}
	scn = find_symtab(elf, SHT_DYNSYM, &sh);
	if (!err && !d->nr_syms && scn) {
		free(d->syms);
		free(d->names);
		d->syms = NULL;
		d->names = NULL;
		err = elf_read_syms(elf, scn, &sh, d);
	}
out_end:
	elf_end(elf);
	close(fd);
	return err ? oom() : 0;
}

static struct sym *sym_find(struct sym *s, size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;

	/* the last symbol starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s += lo - 1;
	if (s->size && addr >= s->start + s->size)
		return NULL;
	return s;
}

static struct proc *proc_find(struct pebs_symbols *syms, pid_t pid,
			      size_t *pos)
{
	size_t lo = 0, hi = syms->nr_procs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms->procs[mid]->pid == pid) {
			*pos = mid;
			return syms->procs[mid];
		}
		if (syms->procs[mid]->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return NULL;
}

static struct proc *proc_findnew(struct pebs_symbols *syms, pid_t pid)
{
	struct proc *p, **np;
	size_t pos;

	p = proc_find(syms, pid, &pos);
	if (p)
		return p;
	np = realloc(syms->procs, (syms->nr_procs + 1) * sizeof(*np));
	if (!np)
		return NULL;
	syms->procs = np;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	memmove(np + pos + 1, np + pos, (syms->nr_procs - pos) * sizeof(*np));
	np[pos] = p;
	syms->nr_procs++;
	return p;
}

static int maps_reserve(struct proc *p, size_t n)
{
	struct mapping *m;
	size_t cap;

	if (p->nr + n <= p->cap)
		return 0;
	cap = p->cap ? p->cap * 2 : 16;
	while (cap < p->nr + n)
		cap *= 2;
	m = realloc(p->maps, cap * sizeof(*m));
	if (!m)
		return -ENOMEM;
	p->maps = m;
	p->cap = cap;
	return 0;
}

/* Insert [start, end) and cut what it overlaps out of older mappings. */
static int proc_insert(struct proc *p, uint64_t start, uint64_t end,
		       uint64_t pgoff, struct dso *dso)
{
	struct mapping *out, nm = { start, end, pgoff, dso };
	bool placed = false;
	size_t i, j = 0;

	/* at most one old mapping is split in two */
	out = malloc((p->nr + 2) * sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (i = 0; i < p->nr; i++) {
		struct mapping m = p->maps[i];

		if (m.end <= start) {
			out[j++] = m;
			continue;
		}
		if (m.start < start) {		/* keep the head */
			out[j] = m;
			out[j++].end = start;
		}
		if (!placed) {
			out[j++] = nm;
			placed = true;
		}
		if (m.end > end) {		/* keep the tail */
			if (m.start < end) {
				m.pgoff += end - m.start;
				m.start = end;
			}
			out[j++] = m;
		}
	}
	if (!placed)
		out[j++] = nm;
	free(p->maps);
	p->maps = out;
	p->nr = j;
	p->cap = i + 2;
	return 0;
}

int pebs_symbols__add_mmap(struct pebs_symbols *syms, pid_t pid,
			   uint64_t start, uint64_t len, uint64_t pgoff,
			   const char *path)
{
	struct dso *d;
	struct proc *p;

	if (!syms || !path || !len || start + len < start)
		return pebs_err(-EINVAL, "symbols: bad mapping");
	d = dso_findnew(syms, path);
	p = d ? proc_findnew(syms, pid) : NULL;
	if (!p || proc_insert(p, start, start + len, pgoff, d))
		return oom();
	return 0;
}

int pebs_symbols__load_pid(struct pebs_symbols *syms, pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int nr = 0, err = 0;
	struct proc *p;
	FILE *f;

	if (!syms || pid <= 0)
		return pebs_err(-EINVAL, "symbols: bad pid %d", pid);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f) {
		err = errno == ENOENT ? -ESRCH : -errno;
		return pebs_err(err, "cannot read %s: %s", path,
				strerror(-err));
	}
	p = proc_findnew(syms, pid);
	if (!p) {
		fclose(f);
		return oom();
	}
	p->nr = 0;	/* re-read: the current maps replace the old */
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, end, pgoff;
		char perms[8];
		int name_at = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %*u %n", &start,
			   &end, perms, &pgoff, &name_at) < 4 ||
		    perms[2] != 'x' || !line[name_at])
			continue;
		err = pebs_symbols__add_mmap(syms, pid, start, end - start,
					     pgoff, line + name_at);
		if (err)
			break;
		nr++;
	}
	free(line);
	fclose(f);
	return err ? err : nr;
}

static int copy_maps(struct pebs_symbols *syms, pid_t parent, pid_t child)
{
	struct proc *pp, *cp;
	size_t pos;

	pp = proc_find(syms, parent, &pos);
	if (!pp || !pp->nr || parent == child)
		return 0;
	cp = proc_findnew(syms, child);
	/* proc_findnew may move the array, not the procs themselves */
	if (!cp || maps_reserve(cp, pp->nr))
		return oom();
	memcpy(cp->maps, pp->maps, pp->nr * sizeof(*pp->maps));
	cp->nr = pp->nr;
	return 0;
}

int pebs_symbols__add_record(struct pebs_symbols *syms,
			     const struct perf_event_header *ev)
{
	const uint32_t *u32 = (const uint32_t *)(ev + 1);
	const uint64_t *u64;
	const char *name;
	size_t pos, max;
	struct proc *p;

	if (!syms || !ev)
		return pebs_err(-EINVAL, "symbols: no record");
	switch (ev->type) {
	case PERF_RECORD_MMAP:
		/* pid, tid, addr, len, pgoff, filename */
		if (ev->size < sizeof(*ev) + 8 + 24 + 1 ||
		    (ev->misc & PERF_RECORD_MISC_MMAP_DATA))
			return 0;
		u64 = (const uint64_t *)(u32 + 2);
		name = (const char *)(u64 + 3);
		max = ev->size - (size_t)(name - (const char *)ev);
		if (strnlen(name, max) == max || (int32_t)u32[0] < 0)
			return 0;	/* kernel map, or unterminated */
		return pebs_symbols__add_mmap(syms, (pid_t)u32[0], u64[0],
					      u64[1], u64[2], name);
	case PERF_RECORD_MMAP2:
		/* pid, tid, addr, len, pgoff, maj/min/ino/gen or build id,
		 * prot, flags, filename */
		if (ev->size < sizeof(*ev) + 8 + 24 + 24 + 8 + 1 ||
		    (ev->misc & PERF_RECORD_MISC_MMAP_DATA))
			return 0;
		u64 = (const uint64_t *)(u32 + 2);
		name = (const char *)(u64 + 3) + 24 + 8;
		max = ev->size - (size_t)(name - (const char *)ev);
		if (strnlen(name, max) == max || (int32_t)u32[0] < 0)
			return 0;
		if (!(((const uint32_t *)(u64 + 6))[0] & 4 /* PROT_EXEC */))
			return 0;
		if (ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			const uint8_t *b = (const uint8_t *)(u64 + 3);

			/* u8 size, u8 reserved[3], u8 build_id[20] */
			if (b[0] && b[0] <= BUILD_ID_MAX &&
			    pebs_symbols__set_build_id(syms, name, b + 4,
						       b[0]))
				return -ENOMEM;
		}
		return pebs_symbols__add_mmap(syms, (pid_t)u32[0], u64[0],
					      u64[1], u64[2], name);
	case PERF_RECORD_FORK:
		/* pid, ppid, tid, ptid, time: a new process if pid != ppid */
		if (ev->size < sizeof(*ev) + 16 || u32[0] == u32[1])
			return 0;
		return copy_maps(syms, (pid_t)u32[1], (pid_t)u32[0]);
	case PERF_RECORD_COMM:
		if (!(ev->misc & PERF_RECORD_MISC_COMM_EXEC) ||
		    ev->size < sizeof(*ev) + 8)
			return 0;
		p = proc_find(syms, (pid_t)u32[0], &pos);
		if (p)
			p->nr = 0;	/* exec: a new address space */
		return 0;
	default:
		return 0;
	}
}

int pebs_symbols__set_build_id(struct pebs_symbols *syms, const char *path,
			       const uint8_t *build_id, size_t size)
{
	struct dso *d;

	if (!syms || !path || !build_id || !size || size > BUILD_ID_MAX)
		return pebs_err(-EINVAL, "symbols: bad build id for %s",
				path ? path : "(null)");
	d = dso_findnew(syms, path);
	if (!d)
		return oom();
	memcpy(d->want_bid, build_id, size);
	d->want_bid_len = size;
	if (d->loaded) {
		/* checked against the file again on the next lookup */
		free(d->syms);
		free(d->names);
		free(d->segs);
		d->syms = NULL;
		d->names = NULL;
		d->segs = NULL;
		d->nr_syms = d->nr_segs = 0;
		d->loaded = false;
	}
	return 0;
}

int pebs_symbols__load_kallsyms(struct pebs_symbols *syms)
{
	struct dso *k = &syms->kernel;
	size_t nr = 0, cap = 0, names_len = 0, names_cap = 0, i;
	char line[512];
	struct sym *s = NULL;
	char *names = NULL;
	int err = 0;
	FILE *f;

	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return pebs_err(-errno, "cannot read /proc/kallsyms: %s",
				strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];
		size_t l;

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    (type != 't' && type != 'T' && type != 'w' &&
		     type != 'W') || !addr)
			continue;
		l = strlen(name) + 1;
		if (nr == cap || names_len + l > names_cap) {
			struct sym *ns;
			char *nn;

			cap = cap ? cap * 2 : 4096;
			names_cap = names_cap ? names_cap * 2 : 65536;
			ns = realloc(s, cap * sizeof(*s));
			if (ns)
				s = ns;
			nn = ns ? realloc(names, names_cap) : NULL;
			if (!nn) {
				err = -ENOMEM;
				break;
			}
			names = nn;
		}
		s[nr].start = addr;
		s[nr].size = 0;
		s[nr].rank = (type == 'T' ? 0 : type == 'W' || type == 'w' ?
			      16 : 32) + (int)strspn(name, "_");
		/* an offset for now: names may still move */
		s[nr].name = (const char *)(uintptr_t)names_len;
		memcpy(names + names_len, name, l);
		names_len += l;
		nr++;
	}
	fclose(f);
	if (err) {
		free(s);
		free(names);
		return oom();
	}
	if (!nr) {
		free(s);
		free(names);
		return pebs_err(-EACCES, "/proc/kallsyms shows no addresses: "
				"run as root or lower kernel.kptr_restrict");
	}
	for (i = 0; i < nr; i++)
		s[i].name = names + (uintptr_t)s[i].name;
	syms_sort(s, &nr);
	free(k->syms);
	free(k->names);
	k->syms = s;
	k->nr_syms = nr;
	k->names = names;
	free(k->path);
	k->path = strdup("[kernel.kallsyms]");
	if (!k->path)
		return oom();
	return (int)nr;
}

/* File offset -> link-time address through the PT_LOAD segments. */
static bool file_to_vaddr(const struct dso *d, uint64_t off, uint64_t *va)
{
	size_t i;

	for (i = 0; i < d->nr_segs; i++) {
		const struct seg *s = &d->segs[i];

		if (off >= s->offset && off < s->offset + s->filesz) {
			*va = off - s->offset + s->vaddr;
			return true;
		}
	}
	return false;
}

int pebs_symbols__resolve(struct pebs_symbols *syms, pid_t pid, uint64_t ip,
			  struct pebs_sym *sym)
{
	const struct mapping *m = NULL;
	struct proc *p;
	struct sym *s;
	uint64_t va;
	size_t pos, lo, hi;

	if (!syms || !sym)
		return -EINVAL;
	memset(sym, 0, sizeof(*sym));
	if (ip >= KERNEL_START) {
		sym->dso = syms->kernel.path;
		sym->dso_offset = ip;
		s = sym_find(syms->kernel.syms, syms->kernel.nr_syms, ip);
		if (!s)
			return -ENOENT;
		sym->name = s->name;
		sym->offset = ip - s->start;
		return 0;
	}
	p = proc_find(syms, pid, &pos);
	if (!p)
		return -ENOENT;
	lo = 0;
	hi = p->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= ip) {
			lo = mid + 1;
		} else if (p->maps[mid].start > ip) {
			hi = mid;
		} else {
			m = &p->maps[mid];
			break;
		}
	}
	if (!m)
		return -ENOENT;
	sym->dso = m->dso->path;
	sym->dso_offset = ip - m->start + m->pgoff;
	if (dso_load(m->dso))
		return -ENOMEM;
	if (!file_to_vaddr(m->dso, sym->dso_offset, &va))
		return -ENOENT;
	s = sym_find(m->dso->syms, m->dso->nr_syms, va);
	if (!s)
		return -ENOENT;
	sym->name = s->name;
	sym->offset = va - s->start;
	return 0;
}

int pebs_sym__str(const struct pebs_sym *sym, uint64_t ip, char *buf,
		  size_t len)
{
	const char *base;

	if (sym->name)
		return sym->offset ?
		       snprintf(buf, len, "%s+0x%llx", sym->name,
				(unsigned long long)sym->offset) :
		       snprintf(buf, len, "%s", sym->name);
	if (sym->dso) {
		base = strrchr(sym->dso, '/');
		base = base ? base + 1 : sym->dso;
		return snprintf(buf, len, "%s%s%s+0x%llx",
				*base == '[' ? "" : "[", base,
				*base == '[' ? "" : "]",
				(unsigned long long)sym->dso_offset);
	}
	return snprintf(buf, len, "0x%llx", (unsigned long long)ip);
}
