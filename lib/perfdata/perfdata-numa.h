/* SPDX-License-Identifier: MIT */
/*
 * perfdata-numa.h - a recording's NUMA topology as perf c2c reads it
 * (lib/perfdata/perfdata-numa.c): the node of a physical address from
 * HEADER_MEM_TOPOLOGY (perf's mem2node) and the node of a CPU from
 * HEADER_NUMA_TOPOLOGY (perf c2c's cpu2node), for c2c's Node column and
 * the objects' node_local/node_remote; not installed.
 */
#ifndef PEBSSHIM_PERFDATA_NUMA_H
#define PEBSSHIM_PERFDATA_NUMA_H

#include "core/internal.h"
#include "pebsshim/perfdata.h"

struct pd_numa;

/*
 * pd_numa__new - the topology of @pd: a missing or malformed section
 * gives no nodes (each lookup then -1), as perf, which then has no
 * mem2node or cpu2node. Returns 0 or -ENOMEM.
 */
int pd_numa__new(const struct pebs_perfdata *pd, struct pd_numa **np);
/* pd_numa__free - free; NULL is allowed. */
void pd_numa__free(struct pd_numa *n);
/* pd_numa__mem_node - the node of physical address @pa, or -1 */
int32_t pd_numa__mem_node(const struct pd_numa *n, uint64_t pa);
/* pd_numa__cpu_node - the node whose CPU list holds @cpu, or -1 */
int32_t pd_numa__cpu_node(const struct pd_numa *n, uint32_t cpu);

#endif /* PEBSSHIM_PERFDATA_NUMA_H */
