// SPDX-License-Identifier: MIT
/*
 * fuzz-perfdata.c - libFuzzer target for the perf.data reader: the input
 * is a whole file or pipe-mode stream (pebs_perfdata__from_memory);
 * every record is walked (compressed ones decompressed), samples and
 * sample_ids decoded, attrs, names (and record --budget's cycle event)
 * and features read (the NUMA and
 * memory topologies parsed); then counted as report --stats counts
 * them, and replayed into the tasks and their maps of report --mmaps
 * (pebs_tasks), both printed to /dev/null. Records and
 * features of a plain file must lie in the input; those the reader
 * copied or decompressed are read through (ASan checks their length).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim.h"
#include "perfdata/perfdata-numa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *null_out;

/* [p, p + len) lies in the input, or else is readable memory */
static void check_range(const uint8_t *data, size_t size, const void *p,
			size_t len)
{
	static volatile uint8_t sink;
	const uint8_t *q = p;

	if (q >= data && q < data + size) {
		if (len > (size_t)(data + size - q))
			abort();
		return;
	}
	for (size_t i = 0; i < len; i++)
		sink ^= q[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pebs_perfdata *pd;
	const struct perf_event_header *ev;
	struct pebs_sample s;
	unsigned int idx, guard = 0;
	char buf[64];
	struct pd_numa *numa;
	int n;

	if (pebs_perfdata__from_memory(data, size, &pd))
		return 0;
	for (unsigned int i = 0; i < pebs_perfdata__nr_attrs(pd); i++) {
		const uint64_t *ids;
		size_t nr;

		if (!pebs_perfdata__attr(pd, i, &ids, &nr))
			abort();
		for (size_t j = 0; j < nr; j++)
			guard += ids[j] == 0;
		pebs_perfdata__attr_name(pd, i);
	}
	/* record --budget's cycle event, by name or id: one of the attrs */
	if (pebs_perfdata__cycle_event(pd) >= (int)pebs_perfdata__nr_attrs(pd))
		abort();
	for (unsigned int f = 0; f < PEBS_FEAT_BITS; f++) {
		const void *p;
		size_t len;

		if (pebs_perfdata__feat(pd, f, &p, &len) == 0)
			check_range(data, size, p, len);
		pebs_perfdata__feat_str(pd, f, buf, sizeof(buf));
	}
	/* the NUMA and memory topologies (perf's cpu2node, mem2node) */
	if (pd_numa__new(pd, &numa) == 0) {
		for (uint32_t c = 0; c < 4; c++)
			guard += pd_numa__cpu_node(numa, c) < -1;
		guard += pd_numa__mem_node(numa, 0x10000000) < -1;
		pd_numa__free(numa);
	}
	for (int pass = 0; pass < 2; pass++) {
		pebs_perfdata__rewind(pd);
		while ((n = pebs_perfdata__next(pd, &ev)) > 0) {
			struct perf_event_header h;

			memcpy(&h, ev, sizeof(h));	/* may be unaligned */
			check_range(data, size, ev, h.size);
			if (h.type == PERF_RECORD_SAMPLE) {
				if (pebs_perfdata__sample(pd, ev, &s, &idx) == 0 &&
				    idx >= pebs_perfdata__nr_attrs(pd))
					abort();
			} else {
				pebs_perfdata__sample_id(pd, ev, &s, &idx);
			}
		}
	}
	/* report --stats and --mmaps */
	if (!null_out)
		null_out = fopen("/dev/null", "w");
	if (null_out) {
		struct pebs_tasks *ts;

		pebs_perfdata__rewind(pd);
		pebs_perfdata__print_stats(pd, size & 1, null_out);
		pebs_perfdata__rewind(pd);
		if (!pebs_tasks__new(PEBS_TASKS_MMAPS, &ts)) {
			if (!pebs_tasks__read(ts, pd, NULL))
				pebs_tasks__print(ts, null_out);
			pebs_tasks__delete(ts);
		}
	}
	guard += pebs_perfdata__truncated(pd);
	pebs_perfdata__close(pd);
	return (int)(guard & 0);
}
