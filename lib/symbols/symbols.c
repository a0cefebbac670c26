// SPDX-License-Identifier: MIT
/*
 * symbols.c - (pid, ip) -> symbol + offset, with maps over time.
 *
 * Address spaces: per process (tgid) a sorted array of executable file
 * mappings, from /proc/<pid>/maps or MMAP/MMAP2 records fed in time
 * order (a FORK copies the parent's; an exec keeps them, as perf's
 * thread maps keep them, the new program's mappings laid over them), so
 * a lookup answers for the time reached. Files and their symbols:
 * lib/symbols/dso.c.
 * Kernel addresses (lib/symbols/symbols-kernel.c): /proc/kallsyms when the
 * recording's kernel is this one, another kernel's kallsyms copy in the
 * build-id cache (pebs_symbols__load_kernel), or taken at the first
 * kernel address looked up (syms_kernel_defer). Lookups go through a
 * direct-mapped cache of (pid, ip), emptied whenever a mapping changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim/symbols.h"
#include "symbols/dso.h"
#include "core/internal.h"
#include "symbols/symbols-int.h"

#define CACHE_BITS		12
#define CACHE_SIZE		(1u << CACHE_BITS)	/* (pid, ip) lookups */

int syms_oom(void)
{
	return core_err(-ENOMEM, "symbols: out of memory");
}

/* The mappings changed: forget the cached lookups. */
void syms_invalidate(struct pebs_symbols *syms)
{
	if (++syms->gen == 0) {		/* wrapped: empty the cache */
		memset(syms->cache, 0, CACHE_SIZE * sizeof(*syms->cache));
		syms->gen = 1;
	}
}

int pebs_symbols__new(struct pebs_symbols **symsp)
{
	struct pebs_symbols *syms;

	if (!symsp)
		return core_err(-EINVAL, "symbols: no result pointer");
	if (elf_version(EV_CURRENT) == EV_NONE)
		return core_err(-ENOTSUP, "libelf: %s", elf_errmsg(-1));
	syms = calloc(1, sizeof(*syms));
	if (!syms)
		return syms_oom();
	syms->kernel.path = strdup(KERNEL_NAME);
	syms->cache = calloc(CACHE_SIZE, sizeof(*syms->cache));
	syms->gen = 1;
	if (!syms->kernel.path || !syms->cache) {
		free(syms->kernel.path);
		free(syms->cache);
		free(syms);
		return syms_oom();
	}
	syms->kernel.loaded = true;
	*symsp = syms;
	return 0;
}

void pebs_symbols__delete(struct pebs_symbols *syms)
{
	size_t i;

	if (!syms)
		return;
	kload_cancel(syms->kload);
	for (i = 0; i < syms->nr_dsos; i++) {
		dso_free(syms->dsos[i]);
		free(syms->dsos[i]);
	}
	free(syms->dsos);
	free(syms->dso_index.slot);
	for (i = 0; i < syms->nr_procs; i++) {
		if (syms->procs[i]->data)
			free(syms->procs[i]->data->maps);
		free(syms->procs[i]->data);
		free(syms->procs[i]->maps);
		syms_unwind_free(syms->procs[i]);
		free(syms->procs[i]);
	}
	free(syms->procs);
	free(syms->proc_index.slot);
	dso_free(&syms->kernel);
	free(syms->cache);
	free(syms->unwind);
	for (i = 0; i < syms->cap_frame_names; i++)
		free(syms->frame_names[i].shown);
	free(syms->frame_names);
	free(syms->symfs);
	free(syms);
}

/*
 * The item of @x whose key is @key (hashed @h), found by @is, or the
 * empty slot it would take; @x has room (index_room)
 */
static void **index_slot(const struct syms_index *x, uint64_t h,
			 bool (*is)(const void *item, const void *key),
			 const void *key)
{
	size_t i = h & (x->cap - 1);

	while (x->slot[i] && !is(x->slot[i], key))
		i = (i + 1) & (x->cap - 1);
	return &x->slot[i];
}

/*
 * Room in @x for one more than its @n @items (an array of pointers),
 * keyed by @hash: doubled and refilled when it would be over half full
 */
static int index_room(struct syms_index *x, void *items, size_t n,
		      uint64_t (*hash)(const void *item))
{
	struct syms_index to = { .cap = x->cap ? x->cap * 2 : 64 };
	void **all = items;

	if ((n + 1) * 2 <= x->cap)
		return 0;
	to.slot = calloc(to.cap, sizeof(*to.slot));
	if (!to.slot)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t j = hash(all[i]) & (to.cap - 1);

		while (to.slot[j])	/* the items differ: no key test */
			j = (j + 1) & (to.cap - 1);
		to.slot[j] = all[i];
	}
	free(x->slot);
	*x = to;
	return 0;
}

static uint64_t path_hash(const char *path)
{
	return core_fnv(CORE_FNV_SEED, path, strlen(path));
}

static uint64_t dso_hash(const void *d)
{
	return path_hash(((const struct dso *)d)->path);
}

static bool dso_is(const void *d, const void *path)
{
	return !strcmp(((const struct dso *)d)->path, path);
}

struct dso *syms_dso_findnew(struct pebs_symbols *syms, const char *path)
{
	struct dso *d;
	void **slot;

	if (index_room(&syms->dso_index, syms->dsos, syms->nr_dsos,
		       dso_hash) ||
	    core_grow(&syms->dsos, &syms->cap_dsos, syms->nr_dsos + 1,
		      sizeof(*syms->dsos)))
		return NULL;
	slot = index_slot(&syms->dso_index, path_hash(path), dso_is, path);
	if (*slot)
		return *slot;
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
	d->order = (uint32_t)syms->nr_dsos;
	d->symfs = syms->symfs;
	syms->dsos[syms->nr_dsos++] = d;
	*slot = d;
	return d;
}

int pebs_symbols__dso_order(const struct pebs_symbols *syms, const char *dso)
{
	const struct dso *d;

	if (!syms || !dso)
		return -1;
	if (syms_is_kernel_name(dso))
		return 0;
	if (!syms->nr_dsos)
		return -1;
	d = *index_slot(&syms->dso_index, path_hash(dso), dso_is, dso);
	return d ? (int)d->order + 1 : -1;
}

static uint64_t pid_hash(pid_t pid)
{
	return core_fnv(CORE_FNV_SEED, &pid, sizeof(pid));
}

static uint64_t proc_hash(const void *p)
{
	return pid_hash(((const struct proc *)p)->pid);
}

static bool proc_is(const void *p, const void *pid)
{
	return ((const struct proc *)p)->pid == *(const pid_t *)pid;
}

static struct proc *proc_find(struct pebs_symbols *syms, pid_t pid)
{
	struct proc *p;

	/* samples come in runs of one process */
	if (syms->last && syms->last->pid == pid)
		return syms->last;
	if (!syms->proc_index.cap)
		return NULL;
	p = *index_slot(&syms->proc_index, pid_hash(pid), proc_is, &pid);
	return p ? syms->last = p : NULL;
}

static struct proc *proc_findnew(struct pebs_symbols *syms, pid_t pid)
{
	struct proc *p = proc_find(syms, pid);

	if (p)
		return p;
	if (index_room(&syms->proc_index, syms->procs, syms->nr_procs,
		       proc_hash) ||
	    core_grow(&syms->procs, &syms->cap_procs, syms->nr_procs + 1,
		      sizeof(*syms->procs)))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	syms->procs[syms->nr_procs++] = p;
	*index_slot(&syms->proc_index, pid_hash(pid), proc_is, &pid) = p;
	return p;
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
		return core_err(-EINVAL, "symbols: bad mapping");
	d = syms_dso_findnew(syms, path);
	p = d ? proc_findnew(syms, pid) : NULL;
	if (!p || proc_insert(p, start, start + len, pgoff, d))
		return syms_oom();
	syms_invalidate(syms);
	return 0;
}

/* A data mapping (heap, stack, anonymous, file data). */
static int add_data_mmap(struct pebs_symbols *syms, pid_t pid,
			 const struct pebs_record_mmap *m)
{
	struct dso *d;
	struct proc *p;

	if (!m->len || m->start + m->len < m->start)
		return 0;
	d = syms_dso_findnew(syms, m->filename);
	p = d ? proc_findnew(syms, pid) : NULL;
	if (p && !p->data) {
		p->data = calloc(1, sizeof(*p->data));
		if (p->data)
			p->data->pid = pid;
	}
	if (!p || !p->data ||
	    proc_insert(p->data, m->start, m->start + m->len, m->pgoff, d))
		return syms_oom();
	syms_invalidate(syms);
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
		return core_err(-EINVAL, "symbols: bad pid %d", pid);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f) {
		err = errno == ENOENT ? -ESRCH : -errno;
		return core_err(err, "cannot read %s: %s", path,
				strerror(-err));
	}
	p = proc_findnew(syms, pid);
	if (!p) {
		fclose(f);
		return syms_oom();
	}
	p->nr = 0;	/* re-read: the current maps replace the old */
	syms_invalidate(syms);
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

static int copy_list(const struct proc *from, struct proc *to)
{
	to->nr = 0;
	if (!from->nr)
		return 0;
	if (core_grow(&to->maps, &to->cap, from->nr, sizeof(*to->maps)))
		return syms_oom();
	memcpy(to->maps, from->maps, from->nr * sizeof(*from->maps));
	to->nr = from->nr;
	return 0;
}

static int copy_maps(struct pebs_symbols *syms, pid_t parent, pid_t child)
{
	struct proc *pp, *cp;

	pp = proc_find(syms, parent);
	if (!pp || (!pp->nr && !pp->data) || parent == child)
		return 0;
	cp = proc_findnew(syms, child);
	/* proc_findnew may move the array, not the procs themselves */
	if (!cp || copy_list(pp, cp))
		return syms_oom();
	syms_unwind_free(cp);	/* a reused pid's files */
	if (!pp->data)
		return 0;
	if (!cp->data) {
		cp->data = calloc(1, sizeof(*cp->data));
		if (!cp->data)
			return syms_oom();
		cp->data->pid = child;
	}
	return copy_list(pp->data, cp->data);
}

bool syms_is_kernel_name(const char *name)
{
	return !strncmp(name, KERNEL_NAME, sizeof(KERNEL_NAME) - 1);
}

/* The kernel's map: where _text was, and its build id if recorded. */
static int add_kernel_map(struct pebs_symbols *syms,
			  const struct pebs_record_mmap *m, uint32_t type)
{
	if (!syms_is_kernel_name(m->filename))
		return 0;
	if (type == PERF_RECORD_MMAP && !syms->kernel_text)
		syms->kernel_text = m->pgoff;	/* perf puts _text there */
	if (m->build_id_size)
		return pebs_symbols__set_build_id(syms, KERNEL_NAME,
						  m->build_id,
						  m->build_id_size);
	return 0;
}

int pebs_symbols__add_record(struct pebs_symbols *syms,
			     const struct perf_event_header *ev)
{
	struct pebs_record r;
	char jit[32];
	int err;

	if (!syms || !ev)
		return core_err(-EINVAL, "symbols: no record");
	/* the sample_id trailer cannot hold a name's NUL: size 0 is safe;
	 * a record without a view (another type, or damaged) adds nothing
	 * and leaves no message behind */
	if (pebs_record__decode(ev, 0, &r)) {
		core_err_clear();
		return 0;
	}
	switch (r.type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if ((int32_t)r.mmap.pid < 0)
			return add_kernel_map(syms, &r.mmap, r.type);
		if (r.mmap.data || !(r.mmap.prot & 4 /* PROT_EXEC */))
			return add_data_mmap(syms, (pid_t)r.mmap.pid,
					     &r.mmap);
		/* JIT code: perf's /tmp/perf-PID.map, at its addresses */
		if (dso_jit_name(r.mmap.filename, (int)r.mmap.pid, jit,
				 sizeof(jit)))
			return pebs_symbols__add_mmap(syms, (pid_t)r.mmap.pid,
						      r.mmap.start, r.mmap.len,
						      r.mmap.start, jit);
		if (r.mmap.build_id_size) {
			err = pebs_symbols__set_build_id(syms,
					r.mmap.filename, r.mmap.build_id,
					r.mmap.build_id_size);
			if (err)
				return err;
		}
		return pebs_symbols__add_mmap(syms, (pid_t)r.mmap.pid,
					      r.mmap.start, r.mmap.len,
					      r.mmap.pgoff, r.mmap.filename);
	case PERF_RECORD_FORK:
		/* a new process if pid != ppid */
		if (r.task.pid == r.task.ppid)
			return 0;
		syms_invalidate(syms);
		return copy_maps(syms, (pid_t)r.task.ppid, (pid_t)r.task.pid);
	default:	/* COMM: an exec keeps the maps, as perf's */
		return 0;
	}
}

/* The mapping of @p covering @addr, or NULL. */
static const struct mapping *find_map(const struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p ? p->nr : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else if (p->maps[mid].start > addr)
			hi = mid;
		else
			return &p->maps[mid];
	}
	return NULL;
}

struct proc *syms_proc(struct pebs_symbols *syms, pid_t pid)
{
	return proc_find(syms, pid);
}

const struct mapping *syms_map_at(const struct proc *p, uint64_t addr)
{
	return find_map(p, addr);
}

static int resolve(struct pebs_symbols *syms, pid_t pid, uint64_t ip,
		   struct pebs_sym *sym)
{
	const struct mapping *m;
	struct proc *p;
	struct sym *s;
	uint64_t va;

	memset(sym, 0, sizeof(*sym));
	if (ip >= KERNEL_START) {
		if (syms->kernel_lazy && !syms_kernel_pending(syms) &&
		    syms_kernel_now(syms) == -ENOMEM)
			return -ENOMEM;
		if (syms->kernel.syms_end && ip >= syms->kernel.syms_end &&
		    syms_kernel_all(syms) == -ENOMEM)
			return -ENOMEM;
		sym->dso = syms->kernel.path;
		sym->dso_offset = ip;
		s = dso_find_sym(syms->kernel.syms, syms->kernel.nr_syms,
				 ip);
		if (!s)
			return -ENOENT;
		sym->name = s->name;
		sym->offset = ip - s->start;
		return 0;
	}
	p = proc_find(syms, pid);
	m = find_map(p, ip);
	if (!m)
		return -ENOENT;
	sym->dso = m->dso->path;
	sym->dso_offset = ip - m->start + m->pgoff;
	if (syms_dso_load(syms, m->dso))
		return -ENOMEM;
	if (!dso_file_to_vaddr(m->dso, sym->dso_offset, &va))
		return -ENOENT;
	s = dso_find_sym(m->dso->syms, m->dso->nr_syms, va);
	if (!s)
		return -ENOENT;
	sym->name = s->name;
	sym->offset = va - s->start;
	return 0;
}

int pebs_symbols__resolve(struct pebs_symbols *syms, pid_t pid, uint64_t ip,
			  struct pebs_sym *sym)
{
	struct cached *c;
	uint64_t h;

	if (!syms || !sym)
		return -EINVAL;
	h = (ip ^ ((uint64_t)(uint32_t)pid << 24)) * 0x9e3779b97f4a7c15ull;
	c = &syms->cache[h >> (64 - CACHE_BITS)];
	if (c->gen == syms->gen && c->ip == ip && c->pid == pid) {
		*sym = c->sym;
		return c->ret;
	}
	c->ret = resolve(syms, pid, ip, sym);
	/* a kernel address left unnamed while kallsyms is being read
	   (pebs_symbols__kernel_nowait) is not remembered */
	if (c->ret == -ENOMEM || (ip >= KERNEL_START && syms->kernel_lazy)) {
		c->gen = 0;
		return c->ret;
	}
	c->sym = *sym;
	c->ip = ip;
	c->pid = pid;
	c->gen = syms->gen;
	return c->ret;
}

/* The mapping of @pid holding data address @addr, or NULL: the data
   mappings first; code and rodata live in the text ones. */
static const struct mapping *data_mapping(struct pebs_symbols *syms,
					  pid_t pid, uint64_t addr)
{
	const struct mapping *m;
	struct proc *p;

	p = proc_find(syms, pid);
	m = find_map(p ? p->data : NULL, addr);
	return m ? m : find_map(p, addr);
}

int pebs_symbols__resolve_data(struct pebs_symbols *syms, pid_t pid,
				uint64_t addr, struct pebs_sym *sym)
{
	return syms_resolve_data(syms, pid, addr, sym, NULL);
}

int syms_resolve_data(struct pebs_symbols *syms, pid_t pid, uint64_t addr,
		      struct pebs_sym *sym, uint64_t *size)
{
	const struct mapping *m;
	struct sym *s;
	uint64_t va;

	if (!syms || !sym)
		return -EINVAL;
	memset(sym, 0, sizeof(*sym));
	m = data_mapping(syms, pid, addr);
	if (!m)
		return -ENOENT;
	sym->dso = m->dso->path;
	sym->dso_offset = addr - m->start + m->pgoff;
	if (syms_dso_load(syms, m->dso))
		return -ENOMEM;
	if (!dso_file_to_vaddr(m->dso, sym->dso_offset, &va))
		return -ENOENT;
	s = dso_find_sym(m->dso->dsyms, m->dso->nr_dsyms, va);
	if (!s)
		return -ENOENT;
	sym->name = s->name;
	sym->offset = va - s->start;
	if (size)
		*size = s->size;
	return 0;
}

int pebs_symbols__data_map(struct pebs_symbols *syms, pid_t pid,
			   uint64_t addr, struct pebs_data_map *map)
{
	const struct mapping *m;

	if (!syms || !map)
		return -EINVAL;
	memset(map, 0, sizeof(*map));
	m = data_mapping(syms, pid, addr);
	if (!m)
		return -ENOENT;
	map->start = m->start;
	map->end = m->end;
	map->pgoff = m->pgoff;
	map->dso = m->dso->path;
	return 0;
}

/* a file of its own, not "//anon", "[heap]" or a deleted file */
static bool real_file(const struct dso *d)
{
	return d->is_file && d->path[1] != '/';
}

int syms_resolve_bss(struct pebs_symbols *syms, pid_t pid, uint64_t addr,
		     struct pebs_sym *sym, uint64_t *size)
{
	const struct mapping *m, *prev;
	const struct seg *seg = NULL;
	struct proc *p, *d;
	struct sym *s;
	uint64_t end, va;

	memset(sym, 0, sizeof(*sym));
	p = proc_find(syms, pid);
	d = p ? p->data : NULL;
	m = find_map(d, addr);
	if (!m || real_file(m->dso) || m == d->maps)
		return -ENOENT;
	prev = m - 1;
	if (prev->end != m->start || !real_file(prev->dso))
		return -ENOENT;
	if (syms_dso_load(syms, prev->dso))
		return -ENOMEM;
	/* the last segment with bytes in the file mapping below: .bss
	   continues its .data in the ELF's addresses */
	end = prev->pgoff + (prev->end - prev->start);
	for (size_t i = 0; i < prev->dso->nr_segs; i++) {
		const struct seg *g = &prev->dso->segs[i];

		if (g->offset < end && g->offset + g->filesz > prev->pgoff)
			seg = g;
	}
	if (!seg)
		return -ENOENT;
	va = addr - prev->start + prev->pgoff - seg->offset + seg->vaddr;
	s = dso_find_sym(prev->dso->dsyms, prev->dso->nr_dsyms, va);
	if (!s)
		return -ENOENT;
	sym->dso = prev->dso->path;
	sym->dso_offset = addr - m->start + m->pgoff;
	sym->name = s->name;
	sym->offset = va - s->start;
	*size = s->size;
	return 0;
}
