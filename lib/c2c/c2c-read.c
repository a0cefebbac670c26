// SPDX-License-Identifier: MIT
/*
 * c2c-read.c - a perf.data file fed to a pebs_c2c as perf c2c report
 * reads it, by pebs_c2c__read_perfdata and by the session's one pass
 * (lib/c2c/session-c2c.c), both through the feed here: records in time
 * order (perf's ordered events), every mapping (data ones too) over
 * time in a pebs_c2c_maps, from which each sample gets perf's line key
 * and its "mapped" (perf's sample__resolve_mem: the "No Page Map
 * Rejects" count), and each physical address its NUMA node from
 * HEADER_MEM_TOPOLOGY (perf's mem2node: lib/perfdata/perfdata-numa.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "pebsshim/session.h"
#include "pebsshim/c2c.h"
#include "c2c/c2c-read.h"
#include "perfdata/perfdata-numa.h"

struct c2c_feed {
	struct pebs_perfdata *pd;
	struct pebs_c2c_maps *keys;	/* every mapping: line keys and
					   "mapped" */
	struct pd_numa *numa;		/* HEADER_MEM_TOPOLOGY's nodes */
};

int c2c_feed__new(struct pebs_perfdata *pd, struct c2c_feed **fp)
{
	struct c2c_feed *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->pd = pd;
	if (pebs_c2c_maps__new(&f->keys) || pd_numa__new(pd, &f->numa)) {
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
	pd_numa__free(f->numa);
	free(f);
}

int c2c_feed__record(struct c2c_feed *f, const struct perf_event_header *ev)
{
	return pebs_c2c_maps__add_record(f->keys, ev) == -ENOMEM ? -ENOMEM : 0;
}

void c2c_feed__sample(const struct c2c_feed *f, const struct pebs_sample *s,
		      unsigned int idx, struct pebs_c2c_sample *cs)
{
	const struct perf_event_attr *attr = pebs_perfdata__attr(f->pd, idx,
								 NULL, NULL);
	int32_t node = s->phys_addr ? pd_numa__mem_node(f->numa,
							    s->phys_addr) : -1;

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
