// SPDX-License-Identifier: MIT
/*
 * c2c-read.c - feed a perf.data file to a pebs_c2c as perf c2c report
 * reads it: records in time order (perf's ordered events), every
 * mapping (data ones too) in a pebs_c2c_maps, from which each sample
 * gets perf's line key and its "mapped" (perf's sample__resolve_mem:
 * the "No Page Map Rejects" count).
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

/* Physical memory of one NUMA node (perf's mem2node phys_entry). */
struct prange {
	uint64_t start, end;
	int32_t node;
};

struct c2c_reader {
	struct pebs_c2c *c2c;
	struct pebs_perfdata *pd;
	struct pebs_symbols *code;	/* the caller's, for symbols (or NULL) */
	struct pebs_c2c_maps *keys;	/* every mapping: line keys and
					   "mapped" */
	uint64_t bad;			/* samples that did not decode */
	struct prange *mem;		/* HEADER_MEM_TOPOLOGY, by start */
	size_t nr_mem;
};

static int add_record(struct c2c_reader *m, const struct perf_event_header *ev)
{
	if (pebs_c2c_maps__add_record(m->keys, ev) == -ENOMEM)
		return -ENOMEM;
	if (m->code && pebs_symbols__add_record(m->code, ev) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

/* whether code address @ip lies in a kernel or a user mapping */
static bool code_mapped(const struct c2c_reader *m, uint32_t pid, uint64_t ip)
{
	struct pebs_c2c_dkey k;

	pebs_c2c_maps__key(m->keys, PERF_RECORD_MISC_KERNEL, pid, ip, &k);
	if (k.has_map)
		return true;
	pebs_c2c_maps__key(m->keys, PERF_RECORD_MISC_USER, pid, ip, &k);
	return k.has_map;
}

static int cmp_prange(const void *pa, const void *pb)
{
	const struct prange *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * HEADER_MEM_TOPOLOGY: u64 version (1), u64 block size, u64 nr, then per
 * node u64 node, u64 size, u64 bits, u64 bitmap[(bits + 63) / 64]; bit i
 * set: block i belongs to the node. Adjacent blocks of a node merge, as
 * in perf's mem2node__init. A malformed section gives no nodes.
 */
static int read_mem_topology(struct c2c_reader *m)
{
	const unsigned char *p;
	uint64_t hdr[3], nd[3], w, bit, i, words;
	size_t size, at, n = 0, cap = 0;
	const void *data;
	struct prange *v = NULL, *nv;

	if (pebs_perfdata__feat(m->pd, PEBS_FEAT_MEM_TOPOLOGY, &data, &size) ||
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
			if (!(w >> (bit % 64) & 1))
				continue;
			if (n && v[n - 1].node == (int32_t)nd[0] &&
			    v[n - 1].end == bit * hdr[1]) {
				v[n - 1].end += hdr[1];
				continue;
			}
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[n].start = bit * hdr[1];
			v[n].end = v[n].start + hdr[1];
			v[n++].node = (int32_t)nd[0];
		}
		at += words * 8;
	}
	qsort(v, n, sizeof(*v), cmp_prange);
	m->mem = v;
	m->nr_mem = n;
	return 0;
}

/* The node of physical address @pa, or -1 (perf's mem2node__node). */
static int32_t node_of(const struct c2c_reader *m, uint64_t pa)
{
	size_t lo = 0, hi = m->nr_mem, i;

	while (lo < hi) {	/* the first start > pa */
		i = lo + (hi - lo) / 2;
		if (m->mem[i].start <= pa)
			lo = i + 1;
		else
			hi = i;
	}
	return lo && pa < m->mem[lo - 1].end ? m->mem[lo - 1].node : -1;
}

/*
 * perf (ip__resolve_data, ip__resolve_ams) looks the data address up in
 * the address space of the sample's cpumode, the code address in
 * either.
 */
static int add_sample(struct c2c_reader *m, const struct perf_event_header *ev,
		      const struct pebs_sample *s, unsigned int idx)
{
	const struct perf_event_attr *attr = pebs_perfdata__attr(m->pd, idx,
								 NULL, NULL);
	int32_t node;
	struct pebs_c2c_dkey key;
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

	node = s->phys_addr ? node_of(m, s->phys_addr) : -1;
	cs.has_node = node >= 0;
	cs.node = cs.has_node ? (uint32_t)node : 0;
	/* the line key's mapping is perf's data map (the sample's mode) */
	pebs_c2c_maps__key(m->keys, ev->misc & PERF_RECORD_MISC_CPUMODE_MASK,
			   s->pid, cs.addr, &key);
	cs.mapped = key.has_map && code_mapped(m, s->pid, s->ip);
	return pebs_c2c__add_keyed(m->c2c, &cs, &key);
}

/* one record, in time order (pebs_ordered__process) */
static int on_record(void *arg, const struct perf_event_header *ev,
		     uint64_t time)
{
	struct c2c_reader *m = arg;
	struct pebs_sample s;
	unsigned int idx;

	(void)time;
	if (ev->type != PERF_RECORD_SAMPLE)
		return add_record(m, ev);
	if (pebs_perfdata__sample(m->pd, ev, &s, &idx)) {
		m->bad++;
		return 0;
	}
	return add_sample(m, ev, &s, idx);
}

int pebs_c2c__read_perfdata(struct pebs_c2c *c, struct pebs_perfdata *pd,
			    struct pebs_symbols *syms, uint64_t *undecoded)
{
	struct c2c_reader rd = { .c2c = c, .pd = pd, .code = syms };
	struct c2c_reader *m = &rd;
	int err;

	if (!c || !pd)
		return pebs_err(-EINVAL, "c2c: no table or file");
	if (pebs_c2c_maps__new(&rd.keys) || read_mem_topology(m)) {
		pebs_c2c_maps__delete(rd.keys);
		return pebs_err(-ENOMEM, "c2c: out of memory");
	}
	pebs_perfdata__rewind(pd);
	/* as perf's ordered events deliver them: a system-wide recording
	 * writes each CPU's ring in turn, so an exec's MMAPs can follow
	 * samples taken after it */
	err = pebs_ordered__process(pd, on_record, m, NULL);
	free(rd.mem);
	pebs_c2c_maps__delete(rd.keys);
	if (undecoded)
		*undecoded = rd.bad;
	if (err == -ENOMEM)
		return pebs_err(err, "c2c: out of memory");
	/* a damaged record: the records before it were counted */
	return err < 0 ? -EBADMSG : 0;
}
