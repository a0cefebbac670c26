// SPDX-License-Identifier: MIT
/*
 * perfdata-header.c - a recording's header and feature sections printed
 * as perf 6.1's `perf report --header-only` prints them
 * (tools/perf/util/header.c: perf_header__fprintf_info, the print_*
 * functions of feat_ops; util/perf_event_attr_fprintf.c for the events).
 *
 * perf prints the features in bit order: HOSTNAME ... PMU_CAPS, each as
 * its print function does; TRACING_DATA and BUILD_ID have none (perf
 * prints no build ids here: `perf buildid-list` does); the topologies
 * (CPU_TOPOLOGY, NUMA_TOPOLOGY, CACHE, MEM_TOPOLOGY, HYBRID_TOPOLOGY) say
 * "info available, use -I to display" unless asked in full. Bits perf
 * 6.1 does not know are not printed (as perf: it walks its own features
 * only), so a feature of pebs-shim's own beyond them stays silent.
 * Differences, by design: BPF_PROG_INFO and BPF_BTF print nothing (perf
 * prints the programs it finds there; pebs-shim record writes none), and
 * in full HYBRID_TOPOLOGY still prints perf's one-line summary.
 *
 * Here the header, the recording's features (its command line, events,
 * groups, times) and the cursor that reads a feature section; the
 * machine's (topologies, caches, memory, PMUs, clock):
 * perfdata-header-machine.c.
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

#define LAST_FEATURE	32	/* perf 6.1's HEADER_LAST_FEATURE */

static const char *const feat_names[LAST_FEATURE] = {
	NULL, "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION",
	"ARCH", "NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE",
	"EVENT_DESC", "CPU_TOPOLOGY", "NUMA_TOPOLOGY", "BRANCH_STACK",
	"PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE", "STAT", "CACHE",
	"SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID", "DIR_FORMAT",
	"BPF_PROG_INFO", "BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS",
	"CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS",
};

uint32_t pd_rd32(struct pd_cur *c)
{
	uint32_t v = 0;

	if (c->end - c->p < 4) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, 4);
	c->p += 4;
	return v;
}

uint64_t pd_rd64(struct pd_cur *c)
{
	uint64_t v = 0;

	if (c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

const char *pd_rdstr(struct pd_cur *c)
{
	uint32_t len = pd_rd32(c);
	const char *s = (const char *)c->p;

	if (c->bad || len > (size_t)(c->end - c->p) || !len ||
	    strnlen(s, len) == len) {
		c->bad = true;
		return "";
	}
	c->p += len;
	return s;
}

bool pd_feat_cur(const struct pebs_perfdata *pd, unsigned int f,
		     struct pd_cur *c)
{
	const void *data;
	size_t size;

	if (pebs_perfdata__feat(pd, f, &data, &size))
		return false;
	c->p = data;
	c->end = c->p + size;
	c->bad = false;
	return true;
}

struct bit_name {
	uint64_t bit;
	const char *name;
};

static void print_bits(FILE *f, uint64_t v, const struct bit_name *b)
{
	bool first = true;

	for (; b->name; b++)
		if (v & b->bit) {
			fprintf(f, "%s%s", first ? "" : "|", b->name);
			first = false;
		}
}

#define B(p, n)	{ p##n, #n }
static const struct bit_name sample_bits[] = {
	B(PERF_SAMPLE_, IP), B(PERF_SAMPLE_, TID), B(PERF_SAMPLE_, TIME),
	B(PERF_SAMPLE_, ADDR), B(PERF_SAMPLE_, READ),
	B(PERF_SAMPLE_, CALLCHAIN), B(PERF_SAMPLE_, ID), B(PERF_SAMPLE_, CPU),
	B(PERF_SAMPLE_, PERIOD), B(PERF_SAMPLE_, STREAM_ID),
	B(PERF_SAMPLE_, RAW), B(PERF_SAMPLE_, BRANCH_STACK),
	B(PERF_SAMPLE_, REGS_USER), B(PERF_SAMPLE_, STACK_USER),
	B(PERF_SAMPLE_, IDENTIFIER), B(PERF_SAMPLE_, REGS_INTR),
	B(PERF_SAMPLE_, DATA_SRC), B(PERF_SAMPLE_, WEIGHT),
	B(PERF_SAMPLE_, PHYS_ADDR), B(PERF_SAMPLE_, AUX),
	B(PERF_SAMPLE_, CGROUP), B(PERF_SAMPLE_, DATA_PAGE_SIZE),
	B(PERF_SAMPLE_, CODE_PAGE_SIZE), B(PERF_SAMPLE_, WEIGHT_STRUCT),
	{ 0, NULL },
};
static const struct bit_name read_bits[] = {
	B(PERF_FORMAT_, TOTAL_TIME_ENABLED), B(PERF_FORMAT_, TOTAL_TIME_RUNNING),
	B(PERF_FORMAT_, ID), B(PERF_FORMAT_, GROUP), B(PERF_FORMAT_, LOST),
	{ 0, NULL },
};
static const struct bit_name branch_bits[] = {
	B(PERF_SAMPLE_BRANCH_, USER), B(PERF_SAMPLE_BRANCH_, KERNEL),
	B(PERF_SAMPLE_BRANCH_, HV), B(PERF_SAMPLE_BRANCH_, ANY),
	B(PERF_SAMPLE_BRANCH_, ANY_CALL), B(PERF_SAMPLE_BRANCH_, ANY_RETURN),
	B(PERF_SAMPLE_BRANCH_, IND_CALL), B(PERF_SAMPLE_BRANCH_, ABORT_TX),
	B(PERF_SAMPLE_BRANCH_, IN_TX), B(PERF_SAMPLE_BRANCH_, NO_TX),
	B(PERF_SAMPLE_BRANCH_, COND), B(PERF_SAMPLE_BRANCH_, CALL_STACK),
	B(PERF_SAMPLE_BRANCH_, IND_JUMP), B(PERF_SAMPLE_BRANCH_, CALL),
	B(PERF_SAMPLE_BRANCH_, NO_FLAGS), B(PERF_SAMPLE_BRANCH_, NO_CYCLES),
	B(PERF_SAMPLE_BRANCH_, TYPE_SAVE), B(PERF_SAMPLE_BRANCH_, HW_INDEX),
	B(PERF_SAMPLE_BRANCH_, PRIV_SAVE),
	{ 0, NULL },
};
#undef B

/* perf_event_attr__fprintf with header.c's ", name = value": the
   fields that are not zero, in perf 6.1's order */
static void print_attr(FILE *f, const struct perf_event_attr *a)
{
#define U(n, v)	do { if (v) fprintf(f, ", %s = %" PRIu64, n, \
				    (uint64_t)(v)); } while (0)
#define X(n, v)	do { if (v) fprintf(f, ", %s = %#" PRIx64, n, \
				    (uint64_t)(v)); } while (0)
#define F(n)	U(#n, a->n)
	F(type);
	F(size);
	X("config", a->config);
	U("{ sample_period, sample_freq }", a->sample_period);
	if (a->sample_type) {
		fputs(", sample_type = ", f);
		print_bits(f, a->sample_type, sample_bits);
	}
	if (a->read_format) {
		fputs(", read_format = ", f);
		print_bits(f, a->read_format, read_bits);
	}
	F(disabled); F(inherit); F(pinned); F(exclusive); F(exclude_user);
	F(exclude_kernel); F(exclude_hv); F(exclude_idle); F(mmap); F(comm);
	F(freq); F(inherit_stat); F(enable_on_exec); F(task); F(watermark);
	F(precise_ip); F(mmap_data); F(sample_id_all); F(exclude_host);
	F(exclude_guest); F(exclude_callchain_kernel);
	F(exclude_callchain_user); F(mmap2); F(comm_exec); F(use_clockid);
	F(context_switch); F(write_backward); F(namespaces); F(ksymbol);
	F(bpf_event); F(aux_output); F(cgroup); F(text_poke); F(build_id);
	F(inherit_thread); F(remove_on_exec); F(sigtrap);
	U("{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	F(bp_type);
	X("{ bp_addr, config1 }", a->bp_addr);
	X("{ bp_len, config2 }", a->bp_len);
	if (a->branch_sample_type) {
		fputs(", branch_sample_type = ", f);
		print_bits(f, a->branch_sample_type, branch_bits);
	}
	X("sample_regs_user", a->sample_regs_user);
	F(sample_stack_user);
	if (a->clockid)
		fprintf(f, ", clockid = %" PRId64, (int64_t)a->clockid);
	X("sample_regs_intr", a->sample_regs_intr);
	F(aux_watermark); F(sample_max_stack); F(aux_sample_size);
	F(sig_data);
#undef F
#undef X
#undef U
}

static void print_event_desc(const struct pebs_perfdata *pd, FILE *f)
{
	struct perf_event_attr a;
	uint32_t nre, sz, nr, i, j;
	const char *name;
	struct pd_cur c;

	if (!pd_feat_cur(pd, PEBS_FEAT_EVENT_DESC, &c))
		return;
	nre = pd_rd32(&c);
	sz = pd_rd32(&c);
	if (c.bad || sz < PERF_ATTR_SIZE_VER0) {
		fprintf(f, "# event desc: not available or unable to read\n");
		return;
	}
	for (i = 0; i < nre; i++) {
		if ((size_t)(c.end - c.p) < sz)
			break;
		memset(&a, 0, sizeof(a));
		memcpy(&a, c.p, sz < sizeof(a) ? sz : sizeof(a));
		c.p += sz;
		nr = pd_rd32(&c);
		name = pd_rdstr(&c);
		if (c.bad || nr > (size_t)(c.end - c.p) / 8)
			break;
		fprintf(f, "# event : name = %s, ", name);
		if (nr) {
			fprintf(f, ", id = {");
			for (j = 0; j < nr; j++)
				fprintf(f, "%s %" PRIu64, j ? "," : "",
					pd_rd64(&c));
			fprintf(f, " }");
		}
		print_attr(f, &a);
		fputc('\n', f);
	}
}

/* perf escapes a quote in an argument as \' */
static void print_cmdline(const struct pebs_perfdata *pd, FILE *f)
{
	const char *s;
	uint32_t nr, i;
	struct pd_cur c;

	if (!pd_feat_cur(pd, PEBS_FEAT_CMDLINE, &c))
		return;
	nr = pd_rd32(&c);
	fprintf(f, "# cmdline : ");
	for (i = 0; i < nr && !c.bad; i++) {
		s = pd_rdstr(&c);
		if (c.bad)
			break;
		for (; *s; s++)
			fputs(*s == '\'' ? "\\'" : (char[2]){ *s, 0 }, f);
		fputc(' ', f);
	}
	fputc('\n', f);
}

static void print_group_desc(const struct pebs_perfdata *pd, FILE *f)
{
	uint32_t nr, i, j, leader, members;
	const char *name, *ev;
	struct pd_cur c;

	if (!pd_feat_cur(pd, PEBS_FEAT_GROUP_DESC, &c))
		return;
	nr = pd_rd32(&c);
	for (i = 0; i < nr; i++) {
		name = pd_rdstr(&c);
		leader = pd_rd32(&c);
		members = pd_rd32(&c);
		if (c.bad || members < 2)
			continue;
		if (!strcmp(name, "{anon_group}"))
			name = "";
		for (j = 0; j < members; j++) {
			ev = pebs_perfdata__attr_name(pd, leader + j);
			fprintf(f, j ? ",%s" : "# group: %s{%s", j ? ev : name,
				ev ? ev : "");
		}
		fprintf(f, "}\n");
	}
}

static void usec(char *buf, size_t len, uint64_t t)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, t / 1000000000,
		 t % 1000000000 / 1000);
}

/* One feature as perf prints it; @full: -I */
static void print_feat(const struct pebs_perfdata *pd, unsigned int ft,
		       bool full, FILE *f)
{
	char buf[4096], a[32], b[32];
	uint64_t x, y;
	struct pd_cur c;

	switch (ft) {
	case PEBS_FEAT_HOSTNAME: case PEBS_FEAT_OSRELEASE:
	case PEBS_FEAT_VERSION: case PEBS_FEAT_ARCH:
	case PEBS_FEAT_CPUDESC: case PEBS_FEAT_CPUID:
		if (pebs_perfdata__feat_str(pd, ft, buf, sizeof(buf)) < 0)
			return;
		fprintf(f, "# %s : %s\n",
			ft == PEBS_FEAT_HOSTNAME ? "hostname" :
			ft == PEBS_FEAT_OSRELEASE ? "os release" :
			ft == PEBS_FEAT_VERSION ? "perf version" :
			ft == PEBS_FEAT_ARCH ? "arch" :
			ft == PEBS_FEAT_CPUDESC ? "cpudesc" : "cpuid", buf);
		return;
	case PEBS_FEAT_NRCPUS:
		if (!pd_feat_cur(pd, ft, &c))
			return;
		x = pd_rd32(&c);	/* available */
		y = pd_rd32(&c);	/* online */
		fprintf(f, "# nrcpus online : %u\n# nrcpus avail : %u\n",
			(unsigned int)y, (unsigned int)x);
		return;
	case PEBS_FEAT_TOTAL_MEM:
		if (pd_feat_cur(pd, ft, &c))
			fprintf(f, "# total memory : %llu kB\n",
				(unsigned long long)pd_rd64(&c));
		return;
	case PEBS_FEAT_CMDLINE:
		print_cmdline(pd, f);
		return;
	case PEBS_FEAT_EVENT_DESC:
		print_event_desc(pd, f);
		return;
	case PEBS_FEAT_BRANCH_STACK:
		fprintf(f, "# contains samples with branch stack\n");
		return;
	case PEBS_FEAT_GROUP_DESC:
		print_group_desc(pd, f);
		return;
	case PEBS_FEAT_AUXTRACE:
		fprintf(f, "# contains AUX area data (e.g. instruction "
			"trace)\n");
		return;
	case PEBS_FEAT_STAT:
		fprintf(f, "# contains stat data\n");
		return;
	case PEBS_FEAT_SAMPLE_TIME:
		if (!pd_feat_cur(pd, ft, &c))
			return;
		x = pd_rd64(&c);
		y = pd_rd64(&c);
		usec(a, sizeof(a), x);
		usec(b, sizeof(b), y);
		fprintf(f, "# time of first sample : %s\n# time of last sample "
			": %s\n# sample duration : %10.3f ms\n", a, b,
			(double)(y - x) / 1e6);
		return;
	case PEBS_FEAT_CLOCKID:
		if (pd_feat_cur(pd, ft, &c))
			fprintf(f, "# clockid frequency: %" PRIu64 " MHz\n",
				pd_rd64(&c) * 1000);
		return;
	case PEBS_FEAT_DIR_FORMAT:
		if (pd_feat_cur(pd, ft, &c))
			fprintf(f, "# directory data version : %" PRIu64 "\n",
				pd_rd64(&c));
		return;
	case PEBS_FEAT_COMPRESSED:
		if (!pd_feat_cur(pd, ft, &c))
			return;
		pd_rd32(&c);	/* version */
		x = pd_rd32(&c);	/* type: 1 zstd */
		y = pd_rd32(&c);	/* level */
		fprintf(f, "# compressed : %s, level = %d, ratio = %d\n",
			x == 1 ? "Zstd" : "Unknown", (int)y, (int)pd_rd32(&c));
		return;
	case PEBS_FEAT_PMU_MAPPINGS: case PEBS_FEAT_CPU_PMU_CAPS:
	case PEBS_FEAT_CLOCK_DATA: case PEBS_FEAT_PMU_CAPS:
		pd_print_machine(pd, ft, f);
		return;
	case PEBS_FEAT_CPU_TOPOLOGY: case PEBS_FEAT_NUMA_TOPOLOGY:
	case PEBS_FEAT_CACHE: case PEBS_FEAT_MEM_TOPOLOGY:
	case PEBS_FEAT_HYBRID_TOPOLOGY:
		if (!full || !pd_print_machine(pd, ft, f))
			fprintf(f, "# %s info available, use -I to display\n",
				feat_names[ft]);
		return;
	default:	/* TRACING_DATA, BUILD_ID, BPF_*: nothing, as perf */
		return;
	}
}

int pebs_perfdata__print_header(const struct pebs_perfdata *pd, FILE *f,
				time_t captured, unsigned int flags)
{
	const struct pebs_perf_file_header *h;
	unsigned int ft;
	char when[64];

	if (!pd || !f || (flags & ~PEBS_HEADER_FULL))
		return core_err(-EINVAL, "header: no file or bad flags");
	h = &pd->hdr;
	fprintf(f, "# ========\n");
	if (captured && ctime_r(&captured, when))
		fprintf(f, "# captured on    : %s", when);
	fprintf(f, "# header version : 1\n");
	fprintf(f, "# data offset    : %" PRIu64 "\n", h->data.offset);
	fprintf(f, "# data size      : %" PRIu64 "\n", h->data.size);
	fprintf(f, "# feat offset    : %" PRIu64 "\n",
		pd->stream ? 0 : h->data.offset + h->data.size);
	/* a pipe: perf closes the header here, then prints the features
	   as their records come */
	if (pd->stream)
		fprintf(f, "# ========\n#\n");
	for (ft = 1; ft < LAST_FEATURE; ft++)
		if (pebs_perfdata__has_feat(pd, ft))
			print_feat(pd, ft, flags & PEBS_HEADER_FULL, f);
	if (!pd->stream) {
		fprintf(f, "# missing features: ");
		for (ft = 1; ft < LAST_FEATURE; ft++)
			if (!pebs_perfdata__has_feat(pd, ft))
				fprintf(f, "%s ", feat_names[ft]);
		fputc('\n', f);
		fprintf(f, "# ========\n#\n");
	}
	return ferror(f) ? core_err(-EIO, "header: write error") : 0;
}
