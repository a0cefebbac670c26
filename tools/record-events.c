// SPDX-License-Identifier: MIT
/*
 * record-events.c - pebs-shim record's events: each -e parsed as perf
 * reads it, the periods and callchain settings of record's options, and
 * what each sample carries.
 */
#include <errno.h>
#include <string.h>
#include <asm/perf_regs.h>

#include "pebsshim.h"
#include "record.h"

/*
 * perf's user registers of --call-graph dwarf (PERF_REGS_MASK of
 * tools/perf/arch/x86/include/perf_regs.h): all but the segment ones
 */
#define DWARF_REGS_MASK \
	(((1ULL << PERF_REG_X86_64_MAX) - 1) & \
	 ~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) | \
	   (1ULL << PERF_REG_X86_FS) | (1ULL << PERF_REG_X86_GS)))
/* default period of cpu-clock/task-clock: 250 us, perf's 4 kHz */
#define CLOCK_PERIOD_NS	250000

static bool is_fault_event(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_PAGE_FAULTS ||
		a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

/*
 * What each sample carries: the batchable set (large PEBS stays
 * possible), a data address where the event has one, and the memory
 * fields of PEBS/IBS. TID goes away with --attr=map.
 */
uint64_t rec_sample_type(const struct rec_opts *o, enum rec_attr_mode attr,
			 const struct pebs_event *ev)
{
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		      PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;

	if ((ev->flags & PEBS_EVENT_MEMORY) || is_fault_event(&ev->attr) ||
	    ev->attr.type == PERF_TYPE_BREAKPOINT)
		st |= PERF_SAMPLE_ADDR;
	if ((ev->flags & PEBS_EVENT_MEMORY) && (ev->flags & PEBS_EVENT_PRECISE))
		st |= PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	/* -W: the x86 weight of perf record -W (arch_evsel__set_sample_weight) */
	if (o->weight)
		st = (st & ~(uint64_t)PERF_SAMPLE_WEIGHT) |
		     PERF_SAMPLE_WEIGHT_STRUCT;
	if (o->phys_data)
		st |= PERF_SAMPLE_PHYS_ADDR;
	if (o->data_page_size)
		st |= PERF_SAMPLE_DATA_PAGE_SIZE;
	/* -d: every event (perf record -d) */
	if (o->data_addr)
		st |= PERF_SAMPLE_ADDR;
	/*
	 * with an address, a data source as perf record -d samples it (the
	 * kernel reports "not available" for software events): perf mem
	 * and perf c2c need the field
	 */
	if (st & PERF_SAMPLE_ADDR)
		st |= PERF_SAMPLE_DATA_SRC;
	if (o->freq)
		st |= PERF_SAMPLE_PERIOD;
	/* a tracepoint's fields (perf record -e sys:name samples them) */
	if (ev->flags & PEBS_EVENT_TRACEPOINT)
		st |= PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD;
	if (o->callgraph != REC_CG_NONE)
		st |= PERF_SAMPLE_CALLCHAIN;
	if (o->callgraph == REC_CG_DWARF)
		st |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	if (attr == REC_ATTR_MAP)
		st &= ~(uint64_t)PERF_SAMPLE_TID;
	return st;
}

/*
 * Each -e as perf reads it (pebs_event__parse_list: comma lists,
 * {a,b} groups, opened as groups by the channel set) into @evs;
 * o->nr_evs becomes the number of events.
 */
int rec_parse_events(struct rec_opts *o, struct pebs_event *evs)
{
	unsigned int nr = 0;

	for (unsigned int s = 0; s < o->nr_evs; s++) {
		unsigned int first = nr;

		if (pebs_event__parse_list(o->evstrs[s], evs,
					   REC_MAX_EVENTS, &nr)) {
			tool_err("record", "%s", pebs_errmsg());
			return -EINVAL;
		}
		for (unsigned int i = first; i < nr; i++) {
			for (unsigned int j = 0; j < i; j++) {
				if (!strcmp(evs[i].name, evs[j].name)) {
					tool_err("record", "event '%s' given twice: give each event once",
						evs[i].name);
					return -EINVAL;
				}
			}
		}
	}
	o->nr_evs = nr;
	for (unsigned int i = 0; i < nr; i++) {
		struct pebs_event *ev = &evs[i];

		/* perf's --all-user / --all-kernel over the modifiers */
		if (o->all_user || o->all_kernel) {
			ev->attr.exclude_kernel = o->all_user;
			ev->attr.exclude_user = o->all_kernel;
		}

		/* the library's default period is for hardware events */
		if (!o->period && !o->freq && !ev->attr.sample_period &&
		    ev->attr.type == PERF_TYPE_SOFTWARE &&
		    (ev->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		     ev->attr.config == PERF_COUNT_SW_TASK_CLOCK))
			ev->attr.sample_period = CLOCK_PERIOD_NS;
		if (o->callgraph == REC_CG_DWARF) {
			/* perf's evsel__config_callchain() for dwarf */
			ev->attr.sample_regs_user = DWARF_REGS_MASK;
			ev->attr.sample_stack_user = o->stack_size;
			ev->attr.exclude_callchain_user = 1;
		}
	}
	return 0;
}
