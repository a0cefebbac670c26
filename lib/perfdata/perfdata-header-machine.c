// SPDX-License-Identifier: MIT
/*
 * perfdata-header-machine.c - the features that describe the machine a
 * recording was made on, printed as perf 6.1's `perf report
 * --header-only` prints them (tools/perf/util/header.c): in full (-I)
 * the CPU topology (sibling lists, core, die and socket ids), the NUMA
 * nodes, the caches and the memory nodes; the PMUs' mappings and
 * capabilities, and the clock's reference time. The header and the rest:
 * perfdata-header.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pebsshim/perfdata.h"
#include "core/internal.h"
#include "perfdata/perfdata-int.h"

/* perf's string_size: the length it assumes a string takes (64-byte
   aligned), whatever the writer wrote */
static size_t string_size(const char *s)
{
	return ((strlen(s) + 1 + 63) & ~(size_t)63) + 4;
}

/*
 * The sibling lists, then the core, die and socket ids, as perf reads
 * them: it tells whether ids follow from the size the strings would
 * take 64-byte aligned, so a file whose writer aligned them otherwise
 * (Google's quipper) has "no" ids for perf, and so here.
 */
static void print_cpu_topology(const struct pebs_perfdata *pd, FILE *f)
{
	uint32_t i, avail = 0, nr_dies = 0, *ids = NULL;
	const char *sock, *thr, *dies = NULL;
	uint32_t nr_sock, nr_thr;
	struct pd_cur c, n;
	size_t size;

	if (pd_feat_cur(pd, PEBS_FEAT_NRCPUS, &n))
		avail = pd_rd32(&n);
	if (!pd_feat_cur(pd, PEBS_FEAT_CPU_TOPOLOGY, &c))
		return;
	nr_sock = pd_rd32(&c);
	sock = (const char *)c.p;
	size = 4;
	for (i = 0; i < nr_sock && !c.bad; i++)
		size += string_size(pd_rdstr(&c));
	nr_thr = pd_rd32(&c);
	thr = (const char *)c.p;
	size += 4;
	for (i = 0; i < nr_thr && !c.bad; i++)
		size += string_size(pd_rdstr(&c));
	if (c.bad)
		return;
	/* core and socket ids, then the dies, when perf sees room */
	if (pd->feat_size[PEBS_FEAT_CPU_TOPOLOGY] > size && avail) {
		ids = calloc(avail, 3 * sizeof(*ids));
		for (i = 0; ids && i < avail; i++) {
			ids[3 * i] = pd_rd32(&c);
			ids[3 * i + 1] = pd_rd32(&c);
		}
		size += 8ULL * avail;
		if (c.bad) {
			free(ids);
			ids = NULL;
		} else if (pd->feat_size[PEBS_FEAT_CPU_TOPOLOGY] > size) {
			nr_dies = pd_rd32(&c);
			dies = (const char *)c.p;
			for (i = 0; i < nr_dies && !c.bad; i++)
				pd_rdstr(&c);
			for (i = 0; ids && i < avail; i++)
				ids[3 * i + 2] = pd_rd32(&c);
		}
	}
	n.p = (const unsigned char *)sock;
	n.end = c.end;
	n.bad = false;
	for (i = 0; i < nr_sock; i++)
		fprintf(f, "# sibling sockets : %s\n", pd_rdstr(&n));
	n.p = (const unsigned char *)dies;
	for (i = 0; dies && i < nr_dies; i++)
		fprintf(f, "# sibling dies    : %s\n", pd_rdstr(&n));
	n.p = (const unsigned char *)thr;
	for (i = 0; i < nr_thr; i++)
		fprintf(f, "# sibling threads : %s\n", pd_rdstr(&n));
	for (i = 0; ids && i < avail; i++) {
		if (nr_dies)
			fprintf(f, "# CPU %u: Core ID %d, Die ID %d, Socket ID "
				"%d\n", i, (int)ids[3 * i],
				(int)ids[3 * i + 2], (int)ids[3 * i + 1]);
		else
			fprintf(f, "# CPU %u: Core ID %d, Socket ID %d\n", i,
				(int)ids[3 * i], (int)ids[3 * i + 1]);
	}
	if (!ids)
		fprintf(f, nr_dies ? "# Core ID, Die ID and Socket ID "
			"information is not available\n" : "# Core ID and "
			"Socket ID information is not available\n");
	free(ids);
}

static void print_numa(const struct pebs_perfdata *pd, FILE *f)
{
	uint32_t nr, i, node;
	uint64_t total, free_kb;
	const char *cpus;
	struct pd_cur c;

	if (!pd_feat_cur(pd, PEBS_FEAT_NUMA_TOPOLOGY, &c))
		return;
	nr = pd_rd32(&c);
	for (i = 0; i < nr; i++) {
		node = pd_rd32(&c);
		total = pd_rd64(&c);
		free_kb = pd_rd64(&c);
		cpus = pd_rdstr(&c);
		if (c.bad)
			return;
		fprintf(f, "# node%u meminfo  : total = %" PRIu64 " kB, free = "
			"%" PRIu64 " kB\n", node, total, free_kb);
		fprintf(f, "# node%u cpu list : %s\n", node, cpus);
	}
}

static void print_cache(const struct pebs_perfdata *pd, FILE *f)
{
	uint32_t nr, i, level;
	const char *type, *size, *map;
	struct pd_cur c;

	if (!pd_feat_cur(pd, PEBS_FEAT_CACHE, &c))
		return;
	pd_rd32(&c);	/* version */
	nr = pd_rd32(&c);
	fprintf(f, "# CPU cache info:\n");
	for (i = 0; i < nr; i++) {
		level = pd_rd32(&c);
		pd_rd32(&c);	/* line size */
		pd_rd32(&c);	/* sets */
		pd_rd32(&c);	/* ways */
		type = pd_rdstr(&c);
		size = pd_rdstr(&c);
		map = pd_rdstr(&c);
		if (c.bad)
			return;
		fprintf(f, "#  L%d %-15s %8s [%s]\n", (int)level, type, size,
			map);
	}
}

/* MEM_TOPOLOGY: u64 version, block size, count; per node u64 node,
   bits, then a bitmap (u64 bits, words) of its memory blocks */
static void print_mem_topology(const struct pebs_perfdata *pd, FILE *f)
{
	uint64_t bsize, nr, i, node, bits, w, b, weight, start, n;
	const char unit[] = "BKMG";
	char map[512], sz[32];
	size_t len;
	struct pd_cur c, words;
	int u;

	if (!pd_feat_cur(pd, PEBS_FEAT_MEM_TOPOLOGY, &c))
		return;
	pd_rd64(&c);	/* version */
	bsize = pd_rd64(&c);
	nr = pd_rd64(&c);
	fprintf(f, "# memory nodes (nr %d, block size 0x%llx):\n", (int)nr,
		(unsigned long long)bsize);
	for (i = 0; i < nr && !c.bad; i++) {
		node = pd_rd64(&c);
		pd_rd64(&c);
		bits = pd_rd64(&c);
		words = c;
		if (bits > (uint64_t)(c.end - c.p) * 8) {
			c.bad = true;
			break;
		}
		c.p += (bits + 63) / 64 * 8;
		/* bitmap_scnprintf's ranges, unit_number__scnprintf's size */
		map[0] = 0;
		len = 0;
		weight = 0;
		for (b = 0; b < bits; b++) {
			memcpy(&w, words.p + b / 64 * 8, 8);
			if (!(w >> (b % 64) & 1))
				continue;
			start = b;
			while (b + 1 < bits) {
				memcpy(&w, words.p + (b + 1) / 64 * 8, 8);
				if (!(w >> ((b + 1) % 64) & 1))
					break;
				b++;
			}
			weight += b - start + 1;
			if (len < sizeof(map))
				len += (size_t)snprintf(map + len,
					sizeof(map) - len, start == b ?
					"%s%" PRIu64 : "%s%" PRIu64 "-%" PRIu64,
					len ? "," : "", start, b);
		}
		n = bsize * weight;
		for (u = 0; n / 1024 > 1 && u < 3; u++)
			n /= 1024;
		snprintf(sz, sizeof(sz), "%" PRIu64 "%c", n, unit[u]);
		fprintf(f, "#  %3" PRIu64 " [%s]: %s\n", node, sz, map);
	}
}

/* "name=value" pairs after @lead, or "not available" */
static void print_caps(struct pd_cur *c, uint32_t nr, const char *lead, FILE *f)
{
	const char *k, *v;
	uint32_t i;

	fputs(lead, f);
	if (!nr)
		fputs("not available", f);
	for (i = 0; i < nr && !c->bad; i++) {
		k = pd_rdstr(c);
		v = pd_rdstr(c);
		fprintf(f, "%s%s=%s", i ? ", " : "", k, v);
	}
	fputc('\n', f);
}

static void print_pmu_caps(const struct pebs_perfdata *pd, FILE *f)
{
	uint32_t nr, i, nc;
	struct pd_cur c, start;
	char lead[320];

	if (!pd_feat_cur(pd, PEBS_FEAT_PMU_CAPS, &c))
		return;
	nr = pd_rd32(&c);
	for (i = 0; i < nr && !c.bad; i++) {
		/* the PMU's name follows its capabilities */
		nc = pd_rd32(&c);
		start = c;
		for (uint32_t j = 0; j < 2 * nc && !c.bad; j++)
			pd_rdstr(&c);
		snprintf(lead, sizeof(lead), "# %s pmu capabilities: ",
			 pd_rdstr(&c));
		if (c.bad)
			return;
		print_caps(&start, nc, lead, f);
	}
}

static void print_pmu_mappings(const struct pebs_perfdata *pd, FILE *f)
{
	uint32_t nr, i, type;
	const char *name;
	struct pd_cur c;

	if (!pd_feat_cur(pd, PEBS_FEAT_PMU_MAPPINGS, &c))
		return;
	nr = pd_rd32(&c);
	if (!nr) {
		fprintf(f, "# pmu mappings: not available\n");
		return;
	}
	for (i = 0; i < nr; i++) {
		type = pd_rd32(&c);
		name = pd_rdstr(&c);
		if (c.bad) {
			fprintf(f, "\n# pmu mappings: unable to read\n");
			return;
		}
		fprintf(f, "%s%s = %" PRIu32, i ? ", " : "# pmu mappings: ",
			name, type);
	}
	fputc('\n', f);
}

/* util/clockid.c's names (the first of each clock) */
static const char *clockid_name(uint32_t id)
{
	switch (id) {
	case CLOCK_MONOTONIC: return "monotonic";
	case CLOCK_MONOTONIC_RAW: return "monotonic_raw";
	case CLOCK_REALTIME: return "realtime";
	case CLOCK_BOOTTIME: return "boottime";
	case CLOCK_TAI: return "tai";
	default: return "(not found)";
	}
}

static void print_clock_data(const struct pebs_perfdata *pd, FILE *f)
{
	uint64_t tod, clk;
	char date[64], tstr[96];
	struct tm tm;
	time_t sec;
	uint32_t id;
	struct pd_cur c;

	if (!pd_feat_cur(pd, PEBS_FEAT_CLOCK_DATA, &c))
		return;
	pd_rd32(&c);	/* version */
	id = pd_rd32(&c);
	tod = pd_rd64(&c);
	clk = pd_rd64(&c);
	if (c.bad)
		return;
	sec = (time_t)(tod / 1000000000);
	if (!localtime_r(&sec, &tm)) {
		snprintf(tstr, sizeof(tstr), "<error>");
	} else {
		strftime(date, sizeof(date), "%F %T", &tm);
		snprintf(tstr, sizeof(tstr), "%s.%06d", date,
			 (int)(tod % 1000000000 / 1000));
	}
	fprintf(f, "# clockid: %s (%u)\n", clockid_name(id), id);
	fprintf(f, "# reference time: %s = %ld.%06d (TOD) = %ld.%09ld (%s)\n",
		tstr, (long)sec, (int)(tod % 1000000000 / 1000),
		(long)(clk / 1000000000), (long)(clk % 1000000000),
		clockid_name(id));
}

bool pd_print_machine(const struct pebs_perfdata *pd, unsigned int ft,
		      FILE *f)
{
	struct pd_cur c;

	switch (ft) {
	case PEBS_FEAT_CPU_TOPOLOGY:
		print_cpu_topology(pd, f);
		return true;
	case PEBS_FEAT_NUMA_TOPOLOGY:
		print_numa(pd, f);
		return true;
	case PEBS_FEAT_CACHE:
		print_cache(pd, f);
		return true;
	case PEBS_FEAT_MEM_TOPOLOGY:
		print_mem_topology(pd, f);
		return true;
	case PEBS_FEAT_PMU_MAPPINGS:
		print_pmu_mappings(pd, f);
		return true;
	case PEBS_FEAT_CPU_PMU_CAPS:
		if (pd_feat_cur(pd, ft, &c))
			print_caps(&c, pd_rd32(&c), "# cpu pmu capabilities: ",
				   f);
		return true;
	case PEBS_FEAT_CLOCK_DATA:
		print_clock_data(pd, f);
		return true;
	case PEBS_FEAT_PMU_CAPS:
		print_pmu_caps(pd, f);
		return true;
	default:	/* HYBRID_TOPOLOGY: perf's summary line */
		return false;
	}
}
