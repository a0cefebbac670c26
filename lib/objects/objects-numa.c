// SPDX-License-Identifier: MIT
/*
 * objects-numa.c - whether a sample's data lives on its CPU's NUMA node
 * (objects_node): the node holding its physical address (perf's
 * mem2node over HEADER_MEM_TOPOLOGY) against the node of the CPU that
 * took it (perf c2c's cpu2node over HEADER_NUMA_TOPOLOGY), both read by
 * lib/perfdata/perfdata-numa.c when a session hands its recording to
 * the objects (pebs_session__set_objects). A sample counts only with
 * a physical address (record --phys-data: PERF_SAMPLE_PHYS_ADDR, not 0),
 * its CPU (PERF_SAMPLE_CPU in its event's sample_type) and both inside
 * the topology, as perf c2c gives a node only then.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/internal.h"
#include "perfdata/perfdata-numa.h"
#include "objects/objects-int.h"

int objects_numa(struct pebs_objects *o, const struct pebs_perfdata *pd)
{
	unsigned int i, n = pebs_perfdata__nr_attrs(pd);
	const struct perf_event_attr *a;

	objects_numa_free(o);
	o->cpu_ev = calloc(n ? n : 1, sizeof(*o->cpu_ev));
	if (!o->cpu_ev || pd_numa__new(pd, &o->numa)) {
		objects_numa_free(o);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		a = pebs_perfdata__attr(pd, i, NULL, NULL);
		o->cpu_ev[i] = a && (a->sample_type & PERF_SAMPLE_CPU);
	}
	o->nr_cpu_ev = n;
	return 0;
}

void objects_numa_free(struct pebs_objects *o)
{
	pd_numa__free(o->numa);
	free(o->cpu_ev);
	o->numa = NULL;
	o->cpu_ev = NULL;
	o->nr_cpu_ev = 0;
}

enum obj_node objects_node(const struct pebs_objects *o,
			   const struct pebs_report_sample *s)
{
	int32_t mem, cpu;

	if (!o->numa || !s->has_phys || !s->phys_addr ||
	    s->event >= o->nr_cpu_ev || !o->cpu_ev[s->event])
		return OBJ_NODE_UNKNOWN;
	mem = pd_numa__mem_node(o->numa, s->phys_addr);
	cpu = pd_numa__cpu_node(o->numa, s->cpu);
	if (mem < 0 || cpu < 0)
		return OBJ_NODE_UNKNOWN;
	return mem == cpu ? OBJ_NODE_LOCAL : OBJ_NODE_REMOTE;
}
