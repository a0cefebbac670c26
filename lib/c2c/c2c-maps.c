// SPDX-License-Identifier: MIT
/*
 * c2c-maps.c - the mappings perf c2c keys its cache lines by.
 *
 * perf c2c report groups samples into cache lines with its `dcacheline`
 * sort (sort__dcacheline_cmp, tools/perf/util/sort.c, perf 6.1): first
 * the sample's cpumode, then whether the data address lies in a mapping
 * of that cpumode's address space, then that mapping's dso id (maj, min,
 * ino, ino_generation of the MMAP2 record), then the pid, but only for
 * private anonymous user memory (not MAP_SHARED, dso id all zero), and
 * last the 64-byte line of the map-relative address al_addr (map_ip:
 * address - start + pgoff for files, the address itself for anonymous
 * memory, [heap], [stack*], /SYSV* and the kernel image).
 *
 * This file keeps those mappings over time as perf's machine does:
 * MMAP/MMAP2 of a process replace what they overlap (maps__fixup_
 * overlappings), FORK of a new process copies its parent's (unless perf
 * synthesized it, PERF_RECORD_MISC_FORK_EXEC), exec keeps
 * them (perf 6.1 drops nothing at COMM exec: later MMAPs overlap the old
 * ones), and pid -1 mappings are the kernel's ([kernel.kallsyms]_text,
 * an identity map, and modules, address - start). Like perf 6.1 it takes
 * the dso id from MMAP2's union even when the record carries a build id.
 *
 * Hostile input: a process's mappings are a sorted array; appends (the
 * order perf synthesizes them in) cost O(1), other inserts and FORK
 * copies draw on a budget of element moves (C2C_MAPS_BUDGET) and are
 * dropped past it, and the mappings held are bounded (C2C_MAPS_MAX):
 * time stays linear in the records and memory bounded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/c2c.h"
#include "core/internal.h"
#include "symbols/dso.h"

#define C2C_MAPS_MAX	(1U << 20)	/* mappings held, all processes */
#define C2C_MAPS_BUDGET	(1ULL << 26)	/* element moves, whole file */
#define MAP_SHARED_FLAG	0x01		/* MAP_SHARED */
#define MAP_HUGETLB_FLAG 0x40000	/* MAP_HUGETLB */
#define PROT_EXEC_FLAG	0x4

struct cmap {
	uint64_t start, end, pgoff, ino, ino_generation;
	uint32_t maj, min, prot, flags;
	bool identity;		/* map_ip is the identity */
};

struct cproc {
	uint32_t pid;		/* UINT32_MAX: the kernel */
	struct cmap *m;
	size_t n, cap;
};

struct pebs_c2c_maps {
	struct cproc *p;	/* open addressing by pid; pid 0 slot free */
	size_t cap, used;
	struct cproc kernel;
	size_t held;		/* mappings in all processes */
	uint64_t budget;	/* element moves left */
};

int pebs_c2c_maps__new(struct pebs_c2c_maps **mp)
{
	struct pebs_c2c_maps *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->kernel.pid = UINT32_MAX;
	m->budget = C2C_MAPS_BUDGET;
	*mp = m;
	return 0;
}

void pebs_c2c_maps__delete(struct pebs_c2c_maps *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->cap; i++)
		free(m->p[i].m);
	free(m->p);
	free(m->kernel.m);
	free(m);
}

static size_t pid_hash(uint32_t pid, size_t cap)
{
	return (size_t)((pid * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
}

/* The process @pid (pid + 1 is stored: 0 marks a free slot). */
static struct cproc *proc_find(const struct pebs_c2c_maps *m, uint32_t pid)
{
	size_t i;

	if (pid == UINT32_MAX)
		return (struct cproc *)&m->kernel;
	if (!m->cap)
		return NULL;
	for (i = pid_hash(pid, m->cap); m->p[i].pid; i = (i + 1) & (m->cap - 1))
		if (m->p[i].pid == pid + 1)
			return &m->p[i];
	return NULL;
}

static struct cproc *proc_get(struct pebs_c2c_maps *m, uint32_t pid)
{
	struct cproc *p = proc_find(m, pid), *np;
	size_t i, j, ncap;

	if (p)
		return p;
	if ((m->used + 1) * 2 > m->cap) {
		ncap = m->cap ? m->cap * 2 : 64;
		np = calloc(ncap, sizeof(*np));
		if (!np)
			return NULL;
		for (i = 0; i < m->cap; i++) {
			if (!m->p[i].pid)
				continue;
			j = pid_hash(m->p[i].pid - 1, ncap);
			while (np[j].pid)
				j = (j + 1) & (ncap - 1);
			np[j] = m->p[i];
		}
		free(m->p);
		m->p = np;
		m->cap = ncap;
	}
	for (i = pid_hash(pid, m->cap); m->p[i].pid; i = (i + 1) & (m->cap - 1))
		;
	m->p[i].pid = pid + 1;
	m->used++;
	return &m->p[i];
}

static int reserve(struct pebs_c2c_maps *m, struct cproc *p, size_t more)
{
	if (m->held + more > C2C_MAPS_MAX)
		return -ENOSPC;
	return core_grow(&p->m, &p->cap, p->n + more, sizeof(*p->m));
}

/* Take @n element moves from the budget; false when it is spent. */
static bool spend(struct pebs_c2c_maps *m, uint64_t n)
{
	if (n > m->budget)
		return false;
	m->budget -= n;
	return true;
}

/* The index of the first mapping of @p ending after @addr. */
static size_t first_after(const struct cproc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n, i;

	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if (p->m[i].end <= addr)
			lo = i + 1;
		else
			hi = i;
	}
	return lo;
}

/*
 * Insert @nm into @p: what it overlaps is cut away (a mapping that
 * covers it on both sides is split in two, the right part keeping its
 * file offset). -ENOSPC when the limits say no (the mapping is
 * dropped), -ENOMEM.
 */
static int insert(struct pebs_c2c_maps *m, struct cproc *p,
		  const struct cmap *nm)
{
	size_t at = first_after(p, nm->start), end, keep;
	struct cmap left, right;
	bool has_left = false, has_right = false;
	int err;

	/* the mappings [at, end) overlap nm */
	for (end = at; end < p->n && p->m[end].start < nm->end; end++)
		;
	if (at < end && p->m[at].start < nm->start) {
		left = p->m[at];
		left.end = nm->start;
		has_left = true;
	}
	if (at < end && p->m[end - 1].end > nm->end) {
		right = p->m[end - 1];
		if (!right.identity)
			right.pgoff += nm->end - right.start;
		right.start = nm->end;
		has_right = true;
	}
	keep = has_left + 1 + has_right;	/* what replaces [at, end) */
	if (keep > end - at) {
		err = reserve(m, p, keep - (end - at));
		if (err)
			return err;
	}
	if (end < p->n && !spend(m, p->n - end))
		return -ENOSPC;
	memmove(p->m + at + keep, p->m + end, (p->n - end) * sizeof(*p->m));
	m->held = m->held + keep - (end - at);
	p->n = p->n + keep - (end - at);
	if (has_left)
		p->m[at++] = left;
	p->m[at++] = *nm;
	if (has_right)
		p->m[at] = right;
	return 0;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int add_mmap(struct pebs_c2c_maps *m, const struct perf_event_header *ev)
{
	const unsigned char *p = (const unsigned char *)(ev + 1);
	struct pebs_record r;
	struct cmap nm = { 0 };
	struct cproc *proc;
	const char *name;
	bool kernel;

	if (pebs_record__decode(ev, 0, &r))
		return 0;	/* damaged: as perf, skipped */
	name = r.mmap.filename;
	if (!r.mmap.len || r.mmap.start + r.mmap.len < r.mmap.start)
		return 0;
	kernel = (int32_t)r.mmap.pid == -1;
	nm.start = r.mmap.start;
	nm.end = r.mmap.start + r.mmap.len;
	nm.pgoff = r.mmap.pgoff;
	nm.prot = r.mmap.prot;
	if (ev->type == PERF_RECORD_MMAP2) {
		/* perf 6.1 reads the id from the union, build id or not */
		nm.maj = ld32(p + 32);
		nm.min = ld32(p + 36);
		nm.ino = ld64(p + 40);
		nm.ino_generation = ld64(p + 48);
		nm.flags = r.mmap.flags;
	} else if (!kernel) {
		nm.prot = r.mmap.data ? 0 : PROT_EXEC_FLAG;
	}
	if (kernel) {
		/* the kernel image is an identity map, modules start at
		 * offset 0 (map__new2); neither has a dso id */
		memset(&nm, 0, sizeof(nm));
		nm.start = r.mmap.start;
		nm.end = r.mmap.start + r.mmap.len;
		nm.identity = starts(name, "[kernel.kallsyms]");
		proc = &m->kernel;
	} else {
		nm.identity = dso_anon_name(name) ||
			      (nm.flags & MAP_HUGETLB_FLAG);
		proc = proc_get(m, r.mmap.pid);
		if (!proc)
			return -ENOMEM;
	}
	if (nm.identity)
		nm.pgoff = 0;
	return insert(m, proc, &nm) == -ENOMEM ? -ENOMEM : 0;
}

/* FORK of a new process: it starts with a copy of its parent's maps. */
static int add_fork(struct pebs_c2c_maps *m, const struct perf_event_header *ev)
{
	const struct cproc *parent;
	struct pebs_record r;
	struct cproc *child;

	/* perf marks the FORKs it synthesizes for running tasks (their
	 * MMAPs follow): those start empty (machine__process_fork_event) */
	if (pebs_record__decode(ev, 0, &r) || r.task.pid == r.task.ppid ||
	    (ev->misc & PERF_RECORD_MISC_FORK_EXEC))
		return 0;
	parent = proc_find(m, r.task.ppid);
	if (!parent || !parent->n || r.task.pid == UINT32_MAX ||
	    r.task.ppid == UINT32_MAX)
		return 0;
	child = proc_get(m, r.task.pid);
	if (!child)
		return -ENOMEM;
	parent = proc_find(m, r.task.ppid);	/* proc_get may move it */
	if (child == parent)
		return 0;
	m->held -= child->n;
	child->n = 0;
	if (!spend(m, parent->n))
		return 0;
	switch (reserve(m, child, parent->n)) {
	case 0:
		break;
	case -ENOMEM:
		return -ENOMEM;
	default:
		return 0;
	}
	memcpy(child->m, parent->m, parent->n * sizeof(*child->m));
	child->n = parent->n;
	m->held += child->n;
	return 0;
}

int pebs_c2c_maps__add_record(struct pebs_c2c_maps *m,
			      const struct perf_event_header *ev)
{
	if (!m || !ev)
		return -EINVAL;
	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return add_mmap(m, ev);
	case PERF_RECORD_FORK:
		return add_fork(m, ev);
	default:
		return 0;
	}
}

void pebs_c2c_maps__key(const struct pebs_c2c_maps *m, uint16_t cpumode,
			uint32_t pid, uint64_t addr, struct pebs_c2c_dkey *k)
{
	const struct cproc *p = NULL;
	const struct cmap *map = NULL;
	size_t i;

	memset(k, 0, sizeof(*k));
	k->cpumode = cpumode;
	k->al_addr = addr;
	k->level = cpumode == PERF_RECORD_MISC_KERNEL ? 'k' : '.';
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		p = &m->kernel;
	else if (cpumode == PERF_RECORD_MISC_USER)
		p = proc_find(m, pid);
	if (p) {
		i = first_after(p, addr);
		if (i < p->n && p->m[i].start <= addr)
			map = &p->m[i];
	}
	if (!map) {
		k->level = 'X';
		return;
	}
	k->has_map = true;
	k->maj = map->maj;
	k->min = map->min;
	k->ino = map->ino;
	k->ino_generation = map->ino_generation;
	if (!map->identity)
		k->al_addr = addr - map->start + map->pgoff;
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		return;
	if (!(map->flags & MAP_SHARED_FLAG) && !k->maj && !k->min &&
	    !k->ino && !k->ino_generation) {
		k->by_pid = true;
		k->pid = pid;
	} else if (!(map->prot & PROT_EXEC_FLAG) &&
		   (map->flags & MAP_SHARED_FLAG) &&
		   (k->maj || k->min || k->ino || k->ino_generation)) {
		k->level = 's';
	}
}
