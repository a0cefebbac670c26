// SPDX-License-Identifier: MIT
/*
 * perfdata-numa.c - a recording's NUMA topology as perf c2c reads it:
 * each physical address's node from HEADER_MEM_TOPOLOGY (perf's
 * mem2node, util/mem2node.c) and each CPU's node from
 * HEADER_NUMA_TOPOLOGY (perf's process_numa_topology, then builtin-c2c's
 * cpu2node). Shared by c2c (its Node column) and objects (node_local,
 * node_remote). Lookups are binary searches over sorted ranges; memory
 * is linear in the section's size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata/perfdata-numa.h"

/* Physical memory of one NUMA node (perf's mem2node phys_entry), or
 * the CPUs [start, end) of one. */
struct range {
	uint64_t start, end;
	int32_t node;
};

struct ranges {
	struct range *v;
	size_t n, cap;
};

struct pd_numa {
	struct ranges mem, cpu;	/* each by start */
};

static int cmp_range(const void *pa, const void *pb)
{
	const struct range *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* [start, end) is on @node: merged with the last range when it
 * continues it on the same node (perf's mem2node__init). */
static int add(struct ranges *r, uint64_t start, uint64_t end, int32_t node)
{
	if (r->n && r->v[r->n - 1].node == node &&
	    r->v[r->n - 1].end == start) {
		r->v[r->n - 1].end = end;
		return 0;
	}
	if (core_grow(&r->v, &r->cap, r->n + 1, sizeof(*r->v)))
		return -ENOMEM;
	r->v[r->n++] = (struct range){ start, end, node };
	return 0;
}

/*
 * HEADER_MEM_TOPOLOGY: u64 version (1), u64 block size, u64 nr, then per
 * node u64 node, u64 size, u64 bits, u64 bitmap[(bits + 63) / 64]; bit i
 * set: block i belongs to the node. Nodes after a malformed one are
 * left out.
 */
static int read_mem(const struct pebs_perfdata *pd, struct ranges *r)
{
	const unsigned char *p;
	uint64_t hdr[3], nd[3], w, bit, i, words;
	size_t size, at;
	const void *data;

	if (pebs_perfdata__feat(pd, PEBS_FEAT_MEM_TOPOLOGY, &data, &size) ||
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
			    add(r, bit * hdr[1], (bit + 1) * hdr[1],
				(int32_t)nd[0]))
				return -ENOMEM;
		}
		at += words * 8;
	}
	if (r->n)	/* qsort: no NULL base, even for none */
		qsort(r->v, r->n, sizeof(*r->v), cmp_range);
	return 0;
}

/*
 * HEADER_NUMA_TOPOLOGY (perf's write_numa_topology): u32 nr, then per
 * node u32 node, u64 MemTotal kB, u64 MemFree kB, its CPU list as a
 * perf string (u32 length with the NUL's padding, the chars). A CPU
 * takes the node id of the section (perf c2c's cpu2node takes the
 * node's index, the same on every machine with nodes 0..n-1); a list
 * that does not parse leaves its node without CPUs.
 */
static int read_cpus(const struct pebs_perfdata *pd, struct ranges *r)
{
	uint64_t set[PEBS_MAX_CPUS / 64];
	const unsigned char *p;
	uint32_t nr, node, len, i;
	size_t size, at = 4;
	const void *data;
	char *list;
	int c, err;

	if (pebs_perfdata__feat(pd, PEBS_FEAT_NUMA_TOPOLOGY, &data, &size) ||
	    size < 4)
		return 0;
	p = data;
	memcpy(&nr, p, 4);
	for (i = 0; i < nr && size - at >= 24; i++) {
		memcpy(&node, p + at, 4);
		memcpy(&len, p + at + 20, 4);
		at += 24;
		if (len > size - at || node > INT32_MAX)
			break;
		list = strndup((const char *)p + at, len);
		if (!list)
			return -ENOMEM;
		at += len;
		err = pebs_cpulist__parse(list, PEBS_MAX_CPUS, set);
		free(list);
		if (err)
			continue;
		for (c = pebs_cpulist__next(set, PEBS_MAX_CPUS, 0); c >= 0;
		     c = pebs_cpulist__next(set, PEBS_MAX_CPUS, c + 1))
			if (add(r, (uint64_t)c, (uint64_t)c + 1, (int32_t)node))
				return -ENOMEM;
	}
	if (r->n)	/* qsort: no NULL base, even for none */
		qsort(r->v, r->n, sizeof(*r->v), cmp_range);
	return 0;
}

int pd_numa__new(const struct pebs_perfdata *pd, struct pd_numa **np)
{
	struct pd_numa *n = calloc(1, sizeof(*n));

	if (!n || read_mem(pd, &n->mem) || read_cpus(pd, &n->cpu)) {
		pd_numa__free(n);
		return -ENOMEM;
	}
	*np = n;
	return 0;
}

void pd_numa__free(struct pd_numa *n)
{
	if (!n)
		return;
	free(n->mem.v);
	free(n->cpu.v);
	free(n);
}

/* the node of the range holding @x, or -1 (perf's mem2node__node) */
static int32_t lookup(const struct ranges *r, uint64_t x)
{
	size_t lo = 0, hi = r->n, i;

	while (lo < hi) {	/* the first start > x */
		i = lo + (hi - lo) / 2;
		if (r->v[i].start <= x)
			lo = i + 1;
		else
			hi = i;
	}
	return lo && x < r->v[lo - 1].end ? r->v[lo - 1].node : -1;
}

int32_t pd_numa__mem_node(const struct pd_numa *n, uint64_t pa)
{
	return n ? lookup(&n->mem, pa) : -1;
}

int32_t pd_numa__cpu_node(const struct pd_numa *n, uint32_t cpu)
{
	return n ? lookup(&n->cpu, cpu) : -1;
}
