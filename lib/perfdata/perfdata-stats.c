// SPDX-License-Identifier: MIT
/*
 * perfdata-stats.c - a recording's records counted by type, as perf 6.1's
 * `perf report --stats` prints them (builtin-report.c: stats_print;
 * ui/stdio/hist.c: events_stats__fprintf; util/hist.c:
 * evlist__fprintf_nr_events).
 *
 * perf counts every record its session reads (util/session.c:
 * events_stats__inc in perf_session__process_event), its own types
 * (>= 64) included: a COMPRESSED record and each record inside it, the
 * HEADER_ATTR records of a pipe. Then, per event, the SAMPLE records
 * whose id is the event's and the LOST_SAMPLES records' lost counts.
 * The names are perf's (util/event.c: perf_event__names); a type perf
 * 6.1 has no name for is not printed, as perf ("UNKNOWN"), except
 * COMPRESSED2, which perf 6.15 added and names: counted when met.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pebsshim/perfdata.h"
#include "core/internal.h"
#include "perfdata/perfdata-int.h"

#define NR_TYPES	(PEBS_PERF_RECORD_COMPRESSED2 + 1)

/* perf's perf_event__names, [0] the total */
static const char *const type_names[NR_TYPES] = {
	[0] = "TOTAL", [1] = "MMAP", [2] = "LOST", [3] = "COMM",
	[4] = "EXIT", [5] = "THROTTLE", [6] = "UNTHROTTLE", [7] = "FORK",
	[8] = "READ", [9] = "SAMPLE", [10] = "MMAP2", [11] = "AUX",
	[12] = "ITRACE_START", [13] = "LOST_SAMPLES", [14] = "SWITCH",
	[15] = "SWITCH_CPU_WIDE", [16] = "NAMESPACES", [17] = "KSYMBOL",
	[18] = "BPF_EVENT", [19] = "CGROUP", [20] = "TEXT_POKE",
	[21] = "AUX_OUTPUT_HW_ID", [64] = "ATTR", [65] = "EVENT_TYPE",
	[66] = "TRACING_DATA", [67] = "BUILD_ID", [68] = "FINISHED_ROUND",
	[69] = "ID_INDEX", [70] = "AUXTRACE_INFO", [71] = "AUXTRACE",
	[72] = "AUXTRACE_ERROR", [73] = "THREAD_MAP", [74] = "CPU_MAP",
	[75] = "STAT_CONFIG", [76] = "STAT", [77] = "STAT_ROUND",
	[78] = "EVENT_UPDATE", [79] = "TIME_CONV", [80] = "FEATURE",
	[81] = "COMPRESSED", [82] = "FINISHED_INIT", [83] = "COMPRESSED2",
};

struct counts {
	uint64_t type[NR_TYPES];
	uint64_t *samples, *lost;	/* per event (attr index) */
	unsigned int nr;		/* entries of both */
};

/* room for @pd's events, which a pipe's HEADER_ATTR records add */
static int grow_events(struct counts *c, unsigned int nr)
{
	uint64_t *s, *l;

	if (nr <= c->nr)
		return 0;
	s = realloc(c->samples, nr * sizeof(*s));
	if (!s)
		return -ENOMEM;
	c->samples = s;
	l = realloc(c->lost, nr * sizeof(*l));
	if (!l)
		return -ENOMEM;
	c->lost = l;
	for (; c->nr < nr; c->nr++)
		c->samples[c->nr] = c->lost[c->nr] = 0;
	return 0;
}

/*
 * The event a LOST_SAMPLES record counts against: its sample_id's, else
 * (no sample_id_all, one event) the first, as perf's evlist__id2evsel.
 */
static int lost_event(const struct pebs_perfdata *pd,
		      const struct perf_event_header *ev)
{
	struct pebs_sample s;
	unsigned int idx;

	if (!pebs_perfdata__sample_id(pd, ev, &s, &idx))
		return (int)idx;
	return pd->nr_attrs == 1 ? 0 : -1;
}

static int count(struct pebs_perfdata *pd, struct counts *c)
{
	const struct perf_event_header *ev;
	uint64_t comp[2] = { pd->nr_comp[0], pd->nr_comp[1] };
	struct pebs_sample s;
	unsigned int idx;
	int r, e;

	while ((r = pebs_perfdata__next(pd, &ev)) > 0) {
		if (ev->type < NR_TYPES)
			c->type[ev->type]++;
		if (grow_events(c, pd->nr_attrs))
			return core_err(-ENOMEM, "stats: out of memory");
		if (ev->type == PERF_RECORD_SAMPLE &&
		    !pebs_perfdata__sample(pd, ev, &s, &idx))
			c->samples[idx]++;
		if (ev->type == PERF_RECORD_LOST_SAMPLES && ev->size >= 16 &&
		    (e = lost_event(pd, ev)) >= 0)
			c->lost[e] += ld64((const unsigned char *)ev + 8);
	}
	c->type[PEBS_PERF_RECORD_COMPRESSED] += pd->nr_comp[0] - comp[0];
	c->type[PEBS_PERF_RECORD_COMPRESSED2] += pd->nr_comp[1] - comp[1];
	for (idx = 1; idx < NR_TYPES; idx++)
		c->type[0] += c->type[idx];
	return r;
}

static void print(const struct pebs_perfdata *pd, const struct counts *c,
		  bool skip_empty, FILE *f)
{
	uint64_t total = c->type[0];
	unsigned int i;

	fprintf(f, "\nAggregated stats:%s\n",
		pebs_perfdata__has_feat(pd, PEBS_FEAT_AUXTRACE) ?
		" (excludes AUX area (e.g. instruction trace) decoded / synthesized events)" : "");
	for (i = 0; i < NR_TYPES; i++) {
		/* COMPRESSED2, which perf 6.1 does not name, only if met */
		if (!type_names[i] || (!c->type[i] &&
		    (skip_empty || i == PEBS_PERF_RECORD_COMPRESSED2)))
			continue;
		fprintf(f, "%16s events: %10" PRIu64, type_names[i], c->type[i]);
		if (i && total)
			fprintf(f, "  (%4.1f%%)", 100.0 * c->type[i] / total);
		fputc('\n', f);
	}
	for (i = 0; i < c->nr; i++) {
		if (skip_empty && !c->samples[i] && !c->lost[i])
			continue;
		fprintf(f, "%s stats:\n", pebs_perfdata__attr_name(pd, i));
		if (c->samples[i])
			fprintf(f, "%16s events: %10" PRIu64 "\n", "SAMPLE",
				c->samples[i]);
		if (c->lost[i])
			fprintf(f, "%16s events: %10" PRIu64 "\n",
				"LOST_SAMPLES", c->lost[i]);
	}
}

int pebs_perfdata__print_stats(struct pebs_perfdata *pd, bool skip_empty,
			       FILE *f)
{
	struct counts c = { .nr = 0 };
	int r;

	if (!pd || !f)
		return core_err(-EINVAL, "stats: no recording or no output");
	r = grow_events(&c, pd->nr_attrs) ? core_err(-ENOMEM, "stats: out of memory")
					   : count(pd, &c);
	if (!r) {
		print(pd, &c, skip_empty, f);
		if (ferror(f))
			r = core_err(-EIO, "stats: cannot write the output");
	}
	free(c.samples);
	free(c.lost);
	return r;
}
