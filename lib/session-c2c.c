// SPDX-License-Identifier: MIT
/*
 * session-c2c.c - the session's samples fed to a pebs_c2c in the same
 * pass that builds the report's tables, each as pebs_c2c__read_perfdata
 * adds it (lib/c2c-read.c): its "mapped" decided as perf's
 * sample__resolve_mem does (the data address in the kernel's mappings
 * or its process's by the sample's cpumode, the code address in
 * either), its node from its phys_addr and HEADER_MEM_TOPOLOGY (perf's
 * mem2node), and no data source for software events and tracepoints.
 * The processes' mappings are the session's (pebs_symbols keeps data
 * mappings too); the kernel's (pid -1: text and modules) are kept here.
 *
 * With PEBS_SESSION_C2C_SHARED a line's samples wait here (a list per
 * line, in arrival order) until the line can be shared: a second thread
 * touches it, or one of its samples has a HITM or peer snoop. Then they
 * go to the table, in order, and the line's later samples straight
 * after. A line that never qualifies is never added: pebs_c2c__sort
 * cannot show it in any display (no cross-thread writes without two
 * threads, no HITM or peer count without such a sample), and lines are
 * counted and ranked independently of each other. A recording of one
 * thread whose events carry no data source has no such line: then no
 * sample with an address is kept at all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

#define RING 32		/* samples whose line lookups overlap */

/* A kernel mapping; maxend: the largest end of it and those before */
struct krange {
	uint64_t start, end, maxend;
};

/* Physical memory of one NUMA node (perf's mem2node phys_entry). */
struct prange {
	uint64_t start, end;
	int32_t node;
};

/* A sample waiting for its line to qualify. */
struct pending {
	struct pebs_c2c_sample cs;
	uint32_t next;		/* index + 1 of the line's next; 0: last */
};

/* A line of the shared-only feed, keyed as pebs_c2c keys lines. */
struct pline {
	uint64_t addr;		/* line address; 0: empty slot */
	uint32_t pid;		/* 0 for kernel addresses */
	uint32_t first_pid, first_tid;	/* the first thread seen */
	uint32_t head, tail;	/* waiting samples (index + 1); 0: none */
	bool shared;		/* qualified: samples go to the table */
};

struct ss_c2c {
	struct pebs_c2c *c2c;
	struct pebs_perfdata *pd;
	bool shared_only;		/* PEBS_SESSION_C2C_SHARED */
	bool none_shared;		/* ... and no line can qualify */
	struct pline *lines;		/* open addressing */
	size_t nr_lines, cap_lines;	/* cap: a power of two, or 0 */
	struct pending *wait;
	size_t nr_wait, cap_wait;
	bool src_seen, src_added;	/* a sample with a data source was
					   seen, was added */
	struct pebs_c2c_sample src_wait;	/* one that waited */
	struct pebs_c2c_sample ring[RING];	/* not yet looked up */
	unsigned int nr_ring;
	struct krange *kmaps;		/* by start */
	size_t nr_kmaps, cap_kmaps;
	struct prange *mem;		/* HEADER_MEM_TOPOLOGY, by start */
	size_t nr_mem;
};

/*
 * Kernel mappings come in address order (perf synthesizes them so),
 * which makes an insert O(1); a hostile file costs at most MAX_KMAPS^2
 * moves: the ones past it are ignored (counted as unmapped).
 */
#define MAX_KMAPS 8192
#define LINE_MASK (~(uint64_t)63)
#define KERNEL_ADDR (1ULL << 63)

static int add_kmap(struct ss_c2c *f, uint64_t start, uint64_t len)
{
	struct krange *v;
	size_t i, at;

	if (!len || start + len < start || f->nr_kmaps == MAX_KMAPS)
		return 0;
	if (f->nr_kmaps == f->cap_kmaps) {
		size_t cap = f->cap_kmaps ? f->cap_kmaps * 2 : 64;

		v = realloc(f->kmaps, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		f->kmaps = v;
		f->cap_kmaps = cap;
	}
	for (at = f->nr_kmaps; at && f->kmaps[at - 1].start > start; at--)
		;
	memmove(f->kmaps + at + 1, f->kmaps + at,
		(f->nr_kmaps - at) * sizeof(*f->kmaps));
	f->kmaps[at].start = start;
	f->kmaps[at].end = start + len;
	f->nr_kmaps++;
	for (i = at; i < f->nr_kmaps; i++)
		f->kmaps[i].maxend = i && f->kmaps[i - 1].maxend >
			f->kmaps[i].end ? f->kmaps[i - 1].maxend :
			f->kmaps[i].end;
	return 0;
}

static bool in_kmap(const struct ss_c2c *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nr_kmaps, i;

	while (lo < hi) {	/* the first start > addr */
		i = lo + (hi - lo) / 2;
		if (f->kmaps[i].start <= addr)
			lo = i + 1;
		else
			hi = i;
	}
	return lo && f->kmaps[lo - 1].maxend > addr;
}

static int cmp_prange(const void *pa, const void *pb)
{
	const struct prange *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

static int add_prange(struct ss_c2c *f, size_t *cap, uint64_t start,
		      uint64_t size, int32_t node)
{
	struct prange *v;

	if (f->nr_mem && f->mem[f->nr_mem - 1].node == node &&
	    f->mem[f->nr_mem - 1].end == start) {
		f->mem[f->nr_mem - 1].end += size;
		return 0;
	}
	if (f->nr_mem == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;

		v = realloc(f->mem, ncap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		f->mem = v;
		*cap = ncap;
	}
	f->mem[f->nr_mem].start = start;
	f->mem[f->nr_mem].end = start + size;
	f->mem[f->nr_mem++].node = node;
	return 0;
}

/*
 * HEADER_MEM_TOPOLOGY: u64 version (1), u64 block size, u64 nr, then per
 * node u64 node, u64 size, u64 bits, u64 bitmap[(bits + 63) / 64]; bit i
 * set: block i belongs to the node. Adjacent blocks of a node merge, as
 * in perf's mem2node__init. A malformed section gives no nodes.
 */
static int read_mem_topology(struct ss_c2c *f)
{
	uint64_t hdr[3], nd[3], w, bit, i, words;
	const unsigned char *p;
	size_t size, at, cap = 0;
	const void *data;

	if (pebs_perfdata__feat(f->pd, PEBS_FEAT_MEM_TOPOLOGY, &data, &size) ||
	    size < sizeof(hdr))
		return 0;
	p = data;
	memcpy(hdr, p, sizeof(hdr));
	if (hdr[0] != 1 || !hdr[1])
		return 0;
	at = sizeof(hdr);
	for (i = 0; i < hdr[2] && size - at >= sizeof(nd); i++) {
		memcpy(nd, p + at, sizeof(nd));
		at += sizeof(nd);
		words = nd[2] / 64 + !!(nd[2] % 64);
		if (nd[0] > INT32_MAX || words > (size - at) / 8)
			break;
		for (bit = 0; bit < nd[2]; bit++) {
			memcpy(&w, p + at + bit / 64 * 8, sizeof(w));
			if ((w >> (bit % 64) & 1) &&
			    add_prange(f, &cap, bit * hdr[1], hdr[1],
				       (int32_t)nd[0]))
				return -ENOMEM;
		}
		at += words * 8;
	}
	qsort(f->mem, f->nr_mem, sizeof(*f->mem), cmp_prange);
	return 0;
}

/* The node of physical address @pa, or -1 (perf's mem2node__node). */
static int32_t node_of(const struct ss_c2c *f, uint64_t pa)
{
	size_t lo = 0, hi = f->nr_mem, i;

	while (lo < hi) {	/* the first start > pa */
		i = lo + (hi - lo) / 2;
		if (f->mem[i].start <= pa)
			lo = i + 1;
		else
			hi = i;
	}
	return lo && pa < f->mem[lo - 1].end ? f->mem[lo - 1].node : -1;
}

/* Whether a sample of some event of @pd can carry a data source. */
static bool any_data_src(const struct pebs_perfdata *pd)
{
	unsigned int i, n = pebs_perfdata__nr_attrs(pd);

	for (i = 0; i < n; i++) {
		const struct perf_event_attr *a =
			pebs_perfdata__attr(pd, i, NULL, NULL);

		if (a && (a->sample_type & PERF_SAMPLE_DATA_SRC) &&
		    a->type != PERF_TYPE_SOFTWARE &&
		    a->type != PERF_TYPE_TRACEPOINT)
			return true;
	}
	return false;
}

int ss_c2c__new(struct pebs_c2c *c, struct pebs_perfdata *pd,
		unsigned int flags, bool one_thread, struct ss_c2c **fp)
{
	struct ss_c2c *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->c2c = c;
	f->pd = pd;
	f->shared_only = flags & PEBS_SESSION_C2C_SHARED;
	/* one thread makes no cross-thread writes, and without a data
	   source no sample has a HITM or peer snoop */
	f->none_shared = f->shared_only && one_thread && !any_data_src(pd);
	if (read_mem_topology(f)) {
		ss_c2c__free(f);
		return -ENOMEM;
	}
	*fp = f;
	return 0;
}

void ss_c2c__free(struct ss_c2c *f)
{
	if (!f)
		return;
	free(f->kmaps);
	free(f->mem);
	pebs_big_free(f->lines, f->cap_lines, sizeof(*f->lines));
	free(f->wait);
	free(f);
}

int ss_c2c__record(struct ss_c2c *f, const struct perf_event_header *ev)
{
	const unsigned char *p = (const unsigned char *)(ev + 1);
	size_t name_at = ev->type == PERF_RECORD_MMAP ? 32 : 32 + 24 + 8;
	uint64_t start, len;
	int32_t pid;

	if ((ev->type != PERF_RECORD_MMAP && ev->type != PERF_RECORD_MMAP2) ||
	    ev->size < sizeof(*ev) + name_at + 1)
		return 0;
	memcpy(&pid, p, sizeof(pid));
	memcpy(&start, p + 8, sizeof(start));
	memcpy(&len, p + 16, sizeof(len));
	return pid < 0 ? add_kmap(f, start, len) : 0;
}

static int add(struct ss_c2c *f, const struct pebs_c2c_sample *cs)
{
	f->src_added |= cs->has_data_src;
	return pebs_c2c__add(f->c2c, cs);
}

static uint64_t line_hash(uint64_t addr, uint32_t pid)
{
	uint64_t h = (addr ^ ((uint64_t)pid << 40)) * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 29);
}

static int grow_lines(struct ss_c2c *f)
{
	size_t cap = f->cap_lines ? f->cap_lines * 2 : 4096, i, j;
	struct pline *v = pebs_big_calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < f->cap_lines; i++) {
		const struct pline *l = &f->lines[i];

		if (!l->addr)
			continue;
		for (j = line_hash(l->addr, l->pid) & (cap - 1); v[j].addr;
		     j = (j + 1) & (cap - 1))
			;
		v[j] = *l;
	}
	pebs_big_free(f->lines, f->cap_lines, sizeof(*f->lines));
	f->lines = v;
	f->cap_lines = cap;
	return 0;
}

static uint32_t line_pid(const struct pebs_c2c_sample *cs)
{
	return cs->addr >= KERNEL_ADDR ? 0 : cs->pid;
}

/* line 0 is the empty mark: address 0..63 are kept as line 1 */
static uint64_t line_addr(const struct pebs_c2c_sample *cs)
{
	return (cs->addr & LINE_MASK) ?: 1;
}

/* The line of @cs (new ones empty); NULL when out of memory. */
static struct pline *line_of(struct ss_c2c *f,
			     const struct pebs_c2c_sample *cs)
{
	uint32_t pid = line_pid(cs);
	uint64_t addr = line_addr(cs);
	struct pline *l;
	size_t i;

	if ((f->nr_lines + 1) * 4 > f->cap_lines * 3 && grow_lines(f))
		return NULL;
	for (i = line_hash(addr, pid) & (f->cap_lines - 1);
	     f->lines[i].addr; i = (i + 1) & (f->cap_lines - 1)) {
		l = &f->lines[i];
		if (l->addr == addr && l->pid == pid)
			return l;
	}
	l = &f->lines[i];
	l->addr = addr;
	l->pid = pid;
	l->first_pid = cs->pid;
	l->first_tid = cs->tid;
	f->nr_lines++;
	return l;
}

/* The waiting samples of @l into the table, in order. */
static int release(struct ss_c2c *f, struct pline *l)
{
	uint32_t i;
	int err;

	for (i = l->head; i; i = f->wait[i - 1].next) {
		err = add(f, &f->wait[i - 1].cs);
		if (err)
			return err;
	}
	l->head = l->tail = 0;
	l->shared = true;
	return 0;
}

static int wait_for_line(struct ss_c2c *f, struct pline *l,
			 const struct pebs_c2c_sample *cs)
{
	struct pending *w;

	if (f->nr_wait == f->cap_wait) {
		size_t cap = f->cap_wait ? f->cap_wait * 2 : 4096;

		if (cap > UINT32_MAX - 1)
			return -ENOMEM;
		w = realloc(f->wait, cap * sizeof(*w));
		if (!w)
			return -ENOMEM;
		f->wait = w;
		f->cap_wait = cap;
	}
	w = &f->wait[f->nr_wait++];
	w->cs = *cs;
	w->next = 0;
	if (l->tail)
		f->wait[l->tail - 1].next = (uint32_t)f->nr_wait;
	else
		l->head = (uint32_t)f->nr_wait;
	l->tail = (uint32_t)f->nr_wait;
	if (cs->has_data_src && !f->src_seen)
		f->src_wait = *cs;
	return 0;
}

/* A sample with an address, shared-only: add it, or let it wait. */
static int add_shared(struct ss_c2c *f, const struct pebs_c2c_sample *cs)
{
	union perf_mem_data_src d = { .val = cs->data_src };
	struct pline *l = line_of(f, cs);
	int err;

	if (!l)
		return -ENOMEM;
	if (!l->shared &&
	    ((cs->has_data_src && ((d.mem_snoop & PERF_MEM_SNOOP_HITM) ||
				   (d.mem_snoopx & PERF_MEM_SNOOPX_PEER))) ||
	     cs->pid != l->first_pid || cs->tid != l->first_tid)) {
		err = release(f, l);
		if (err)
			return err;
	}
	if (l->shared)
		return add(f, cs);
	err = wait_for_line(f, l, cs);
	f->src_seen |= cs->has_data_src;
	return err;
}

/* The samples of the ring, in order. */
static int drain(struct ss_c2c *f)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < f->nr_ring && !err; i++)
		err = add_shared(f, &f->ring[i]);
	f->nr_ring = 0;
	return err;
}

int ss_c2c__finish(struct ss_c2c *f)
{
	/* the display follows whether any sample had a data source: one
	   waiting line with one tells the table (a whole line, as exact
	   as any other) */
	struct pline *l;
	int err = drain(f);

	if (err)
		return err;
	if (!f->src_seen || f->src_added)
		return 0;
	l = line_of(f, &f->src_wait);
	return l ? release(f, l) : -ENOMEM;
}

/* @addr in the kernel's mappings, or else in process @pid's */
static bool in_mapping(const struct ss_c2c *f, struct pebs_symbols *syms,
		       bool kernel, uint32_t pid, uint64_t addr)
{
	return kernel ? in_kmap(f, addr) :
			pebs_symbols__mapped(syms, (pid_t)pid, addr);
}

int ss_c2c__sample(struct ss_c2c *f, struct pebs_symbols *syms,
		   const struct perf_event_header *ev,
		   const struct pebs_sample *s, unsigned int idx)
{
	const struct perf_event_attr *attr = pebs_perfdata__attr(f->pd, idx,
								 NULL, NULL);
	bool kernel = (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		      PERF_RECORD_MISC_KERNEL;
	int32_t node;
	struct pebs_c2c_sample cs = {
		.addr = s->present & PERF_SAMPLE_ADDR ? s->addr : 0,
		.ip = s->ip,
		.data_src = s->data_src,
		/* software events and tracepoints only carry "N/A" */
		.has_data_src = (s->present & PERF_SAMPLE_DATA_SRC) && attr &&
				attr->type != PERF_TYPE_SOFTWARE &&
				attr->type != PERF_TYPE_TRACEPOINT,
		.weight = s->weight,
		.period = s->period,
		.phys_addr = s->phys_addr,
		.pid = s->pid,
		.tid = s->tid,
		.cpu = s->present & PERF_SAMPLE_CPU ? s->cpu : UINT32_MAX,
	};

	node = s->phys_addr ? node_of(f, s->phys_addr) : -1;
	cs.has_node = node >= 0;
	cs.node = cs.has_node ? (uint32_t)node : 0;
	if (f->none_shared && cs.addr)
		return 0;
	/* without an address the counts never ask (perf's -1 first) */
	cs.mapped = cs.addr &&
		    in_mapping(f, syms, kernel, s->pid, cs.addr) &&
		    (in_mapping(f, syms, true, s->pid, s->ip) ||
		     in_mapping(f, syms, false, s->pid, s->ip));
	if (!f->shared_only || !cs.addr)
		return add(f, &cs);
	/* in order, RING at a time, their lines fetched first */
	if (f->cap_lines)
		__builtin_prefetch(&f->lines[line_hash(line_addr(&cs),
						       line_pid(&cs)) &
					     (f->cap_lines - 1)]);
	f->ring[f->nr_ring++] = cs;
	return f->nr_ring == RING ? drain(f) : 0;
}
