// SPDX-License-Identifier: MIT
/*
 * c2c-read.c - a perf.data file fed to a pebs_c2c as perf c2c report
 * reads it, by pebs_c2c__read_perfdata and by the session's one pass
 * (lib/c2c/session-c2c.c), both through the feed here: records in time
 * order (perf's ordered events), every mapping (data ones too) over
 * time in a pebs_c2c_maps, from which each sample gets perf's line key
 * and its "mapped" (perf's sample__resolve_mem: the "No Page Map
 * Rejects" count), and each physical address its NUMA node from
 * HEADER_MEM_TOPOLOGY (perf's mem2node).
 */
#include <errno.h>
#include <stdlib.h>

#include "pebsshim/session.h"
#include "pebsshim/c2c.h"
#include "c2c/c2c-read.h"

/* Physical memory of one NUMA node (perf's mem2node phys_entry). */
struct prange {
	uint64_t start, end;
	int32_t node;
};

struct c2c_feed {
	struct pebs_perfdata *pd;
	struct pebs_c2c_maps *keys;	/* every mapping: line keys and
					   "mapped" */
	struct prange *mem;		/* HEADER_MEM_TOPOLOGY, by start */
	size_t nr_mem;
};

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
static int read_mem_topology(struct c2c_feed *f)
{
	const unsigned char *p;
	uint64_t hdr[3], nd[3], w, bit, i, words;
	size_t size, at, n = 0, cap = 0;
	const void *data;
	struct prange *v = NULL, *nv;

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
	f->mem = v;
	f->nr_mem = n;
	return 0;
}

int c2c_feed__new(struct pebs_perfdata *pd, struct c2c_feed **fp)
{
	struct c2c_feed *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->pd = pd;
	if (pebs_c2c_maps__new(&f->keys) || read_mem_topology(f)) {
		c2c_feed__free(f);
		return -ENOMEM;
	}
	*fp = f;
	return 0;
}

void c2c_feed__free(struct c2c_feed *f)
{
	if (!f)
		return;
	pebs_c2c_maps__delete(f->keys);
	free(f->mem);
	free(f);
}

int c2c_feed__record(struct c2c_feed *f, const struct perf_event_header *ev)
{
	return pebs_c2c_maps__add_record(f->keys, ev) == -ENOMEM ? -ENOMEM : 0;
}

/* The node of physical address @pa, or -1 (perf's mem2node__node). */
static int32_t node_of(const struct c2c_feed *f, uint64_t pa)
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

void c2c_feed__sample(const struct c2c_feed *f, const struct pebs_sample *s,
		      unsigned int idx, struct pebs_c2c_sample *cs)
{
	const struct perf_event_attr *attr = pebs_perfdata__attr(f->pd, idx,
								 NULL, NULL);
	int32_t node = s->phys_addr ? node_of(f, s->phys_addr) : -1;

	*cs = (struct pebs_c2c_sample){
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
		.has_node = node >= 0,
		.node = node >= 0 ? (uint32_t)node : 0,
	};
}

/* whether code address @ip lies in a kernel or a user mapping (that
 * of the sample's @cpumode asked first: mostly the one) */
static bool code_mapped(const struct c2c_feed *f, uint16_t cpumode,
			uint32_t pid, uint64_t ip)
{
	uint16_t first = cpumode == PERF_RECORD_MISC_KERNEL ?
			 PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	struct pebs_c2c_dkey k;

	pebs_c2c_maps__key(f->keys, first, pid, ip, &k);
	if (k.has_map)
		return true;
	pebs_c2c_maps__key(f->keys, first == PERF_RECORD_MISC_USER ?
			   PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
			   pid, ip, &k);
	return k.has_map;
}

/*
 * perf (ip__resolve_data, ip__resolve_ams) looks the data address up in
 * the address space of the sample's cpumode, the code address in
 * either.
 */
void c2c_feed__key(const struct c2c_feed *f, const struct perf_event_header *ev,
		   struct pebs_c2c_sample *cs, struct pebs_c2c_dkey *k)
{
	uint16_t cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	pebs_c2c_maps__key(f->keys, cpumode, cs->pid, cs->addr, k);
	cs->mapped = k->has_map && code_mapped(f, cpumode, cs->pid, cs->ip);
}

/* pebs_c2c__read_perfdata: the feed over a file, in a pass of its own */
struct c2c_reader {
	struct pebs_c2c *c2c;
	struct pebs_perfdata *pd;
	struct pebs_symbols *code;	/* the caller's, for symbols (or NULL) */
	struct c2c_feed *feed;
	uint64_t bad;			/* samples that did not decode */
};

/* one record, in time order (pebs_ordered__process) */
static int on_record(void *arg, const struct perf_event_header *ev,
		     uint64_t time)
{
	struct c2c_reader *m = arg;
	struct pebs_c2c_sample cs;
	struct pebs_c2c_dkey key;
	struct pebs_sample s;
	unsigned int idx;

	(void)time;
	if (ev->type != PERF_RECORD_SAMPLE) {
		if (c2c_feed__record(m->feed, ev))
			return -ENOMEM;
		if (m->code && pebs_symbols__add_record(m->code, ev) == -ENOMEM)
			return -ENOMEM;
		return 0;
	}
	if (pebs_perfdata__sample(m->pd, ev, &s, &idx)) {
		m->bad++;
		return 0;
	}
	c2c_feed__sample(m->feed, &s, idx, &cs);
	c2c_feed__key(m->feed, ev, &cs, &key);
	return pebs_c2c__add_keyed(m->c2c, &cs, &key);
}

int pebs_c2c__read_perfdata(struct pebs_c2c *c, struct pebs_perfdata *pd,
			    struct pebs_symbols *syms, uint64_t *undecoded)
{
	struct c2c_reader rd = { .c2c = c, .pd = pd, .code = syms };
	int err;

	if (!c || !pd)
		return core_err(-EINVAL, "c2c: no table or file");
	if (c2c_feed__new(pd, &rd.feed))
		return core_err(-ENOMEM, "c2c: out of memory");
	pebs_perfdata__rewind(pd);
	/* as perf's ordered events deliver them: a system-wide recording
	 * writes each CPU's ring in turn, so an exec's MMAPs can follow
	 * samples taken after it */
	err = pebs_ordered__process(pd, on_record, &rd, NULL);
	c2c_feed__free(rd.feed);
	if (undecoded)
		*undecoded = rd.bad;
	if (err == -ENOMEM)
		return core_err(err, "c2c: out of memory");
	/* a damaged record: the records before it were counted */
	return err < 0 ? -EBADMSG : 0;
}
