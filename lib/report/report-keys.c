// SPDX-License-Identifier: MIT
/*
 * report-keys.c - the report's sort keys: their names, what each takes
 * from a resolved sample into a row's key fields (and which fields a
 * row of a report must keep) and the order perf prints ties in (each
 * field as perf prints it: report-field.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/report.h"
#include "core/internal.h"
#include "report/report-keys.h"

#define BIT(f)	(1u << (f))

static const char *const key_names[PEBS_REPORT_NR_KEYS] = {
	[PEBS_REPORT_PID] = "tgid", [PEBS_REPORT_TID] = "tid",
	[PEBS_REPORT_THREAD] = "pid", [PEBS_REPORT_COMM] = "comm",
	[PEBS_REPORT_DSO] = "dso",
	[PEBS_REPORT_SYM] = "sym", [PEBS_REPORT_CPU] = "cpu",
	[PEBS_REPORT_EVENT] = "event", [PEBS_REPORT_PAGE] = "page",
	[PEBS_REPORT_LINE] = "line", [PEBS_REPORT_ADDR] = "addr",
	[PEBS_REPORT_SRC] = "src", [PEBS_REPORT_SYM_DADDR] = "symbol_daddr",
	[PEBS_REPORT_DSO_DADDR] = "dso_daddr", [PEBS_REPORT_MEM] = "mem",
	[PEBS_REPORT_SNOOP] = "snoop", [PEBS_REPORT_TLB] = "tlb",
	[PEBS_REPORT_DCACHELINE] = "dcacheline",
	[PEBS_REPORT_PHYS_DADDR] = "phys_daddr",
	[PEBS_REPORT_WEIGHT] = "weight",
	[PEBS_REPORT_LOCAL_WEIGHT] = "local_weight",
	[PEBS_REPORT_LOCKED] = "locked", [PEBS_REPORT_BLOCKED] = "blocked",
	[PEBS_REPORT_LOCAL_INS_LAT] = "local_ins_lat",
	[PEBS_REPORT_OBJECT] = "object",
	[PEBS_REPORT_OBJECT_INSTANCE] = "object_instance",
	[PEBS_REPORT_OBJECT_FIELD] = "object_field",
	[PEBS_REPORT_SRCLINE] = "srcline", [PEBS_REPORT_SRCFILE] = "srcfile",
	[PEBS_REPORT_TIME] = "time",
};

uint64_t rk_src_mask(enum pebs_report_key k)
{
	union perf_mem_data_src m = { .val = 0 };

	switch (k) {
	case PEBS_REPORT_MEM:
		m.mem_lvl = 0x3fff;
		m.mem_lvl_num = 0xf;
		m.mem_remote = 1;
		m.mem_hops = 7;
		break;
	case PEBS_REPORT_SNOOP:
		m.mem_snoop = 0x1f;
		m.mem_snoopx = 3;
		break;
	case PEBS_REPORT_TLB:
		m.mem_dtlb = 0x7f;
		break;
	case PEBS_REPORT_LOCKED:
		m.mem_lock = 3;
		break;
	case PEBS_REPORT_BLOCKED:
		m.mem_blk = 7;
		break;
	default:
		return ~0ull;
	}
	return m.val;
}

const char *pebs_report__key_name(enum pebs_report_key key)
{
	return (unsigned int)key < PEBS_REPORT_NR_KEYS ? key_names[key] : NULL;
}

int pebs_report__parse_keys(const char *str, enum pebs_report_key *keys,
			    unsigned int max)
{
	unsigned int n = 0, k;
	const char *p = str;

	if (!str || !keys)
		return core_err(-EINVAL, "report: no keys");
	while (*p) {
		size_t len = strcspn(p, ",");

		for (k = 0; k < PEBS_REPORT_NR_KEYS; k++)
			if (strlen(key_names[k]) == len &&
			    !strncmp(p, key_names[k], len))
				break;
		/* perf's names for two of them */
		if (k == PEBS_REPORT_NR_KEYS && len == 6 &&
		    !strncmp(p, "symbol", 6))
			k = PEBS_REPORT_SYM;
		/* powerpc's pipeline stage cycles: perf drops the key
		   elsewhere (arch_support_sort_key), so do we */
		if (k == PEBS_REPORT_NR_KEYS &&
		    ((len == 17 && !strncmp(p, "local_p_stage_cyc", 17)) ||
		     (len == 11 && !strncmp(p, "p_stage_cyc", 11)))) {
			p += len + (p[len] == ',');
			continue;
		}
		if (k == PEBS_REPORT_NR_KEYS) {
			return core_err(-EINVAL, "unknown sort key '%.*s': use "
					"pid, tgid, tid, comm, dso, sym, cpu, "
					"event, "
					"page, line, addr, src, symbol_daddr, "
					"dso_daddr, dcacheline, mem, snoop, tlb, "
					"phys_daddr, weight, local_weight, "
					"locked, blocked, local_ins_lat, object, "
					"object_instance, object_field, srcline, "
					"srcfile or time",
					(int)len, p);
		}
		if (n == max)
			return core_err(-EINVAL, "too many sort keys: give at "
					"most %u", max);
		keys[n++] = k;
		p += len + (p[len] == ',');
	}
	if (!n)
		return core_err(-EINVAL, "no sort key: give keys such as "
				"comm,dso,sym");
	return (int)n;
}

uint32_t rk_fields(enum pebs_report_key key)
{
	switch (key) {
	case PEBS_REPORT_PID:
		return BIT(RK_PID);
	case PEBS_REPORT_TID:
	case PEBS_REPORT_THREAD:
		return BIT(RK_TID);
	case PEBS_REPORT_COMM:
		return BIT(RK_COMM) | BIT(RK_TID);
	case PEBS_REPORT_DSO:
		return BIT(RK_DSO) | BIT(RK_KERNEL);
	case PEBS_REPORT_SYM:
		return BIT(RK_SYM) | BIT(RK_KERNEL) | BIT(RK_IP) | BIT(RK_DSO);
	case PEBS_REPORT_CPU:
		return BIT(RK_CPU);
	case PEBS_REPORT_EVENT:
		return BIT(RK_EVENT);
	case PEBS_REPORT_PAGE:
	case PEBS_REPORT_LINE:
	case PEBS_REPORT_ADDR:
		return BIT(RK_ADDR);
	case PEBS_REPORT_SRC:
	case PEBS_REPORT_MEM:
	case PEBS_REPORT_SNOOP:
	case PEBS_REPORT_TLB:
	case PEBS_REPORT_LOCKED:
	case PEBS_REPORT_BLOCKED:
		return BIT(RK_DATA_SRC);
	case PEBS_REPORT_SYM_DADDR:
		return BIT(RK_ADDR) | BIT(RK_DATA_SYM) | BIT(RK_DATA_SYM_OFF) |
		       BIT(RK_KERNEL);
	case PEBS_REPORT_DSO_DADDR:
		return BIT(RK_DATA_DSO);
	case PEBS_REPORT_DCACHELINE:
		return BIT(RK_DATA_DSO) | BIT(RK_KERNEL) | BIT(RK_ADDR) |
		       BIT(RK_DATA_SYM) | BIT(RK_DATA_SYM_OFF);
	case PEBS_REPORT_PHYS_DADDR:
		return BIT(RK_PHYS);
	case PEBS_REPORT_WEIGHT:
	case PEBS_REPORT_LOCAL_WEIGHT:
		return BIT(RK_WEIGHT);
	case PEBS_REPORT_LOCAL_INS_LAT:
		return BIT(RK_INS_LAT);
	case PEBS_REPORT_OBJECT:
	case PEBS_REPORT_OBJECT_INSTANCE:
		return BIT(RK_OBJECT);
	case PEBS_REPORT_OBJECT_FIELD:
		return BIT(RK_OBJECT_FIELD);
	case PEBS_REPORT_SRCLINE:
		return BIT(RK_SRCLINE);
	case PEBS_REPORT_SRCFILE:
		return BIT(RK_SRCFILE);
	case PEBS_REPORT_TIME:
		return BIT(RK_TIME);
	default:
		return 0;
	}
}

bool rk_plain(enum pebs_report_key key)
{
	switch (key) {
	case PEBS_REPORT_PID:
	case PEBS_REPORT_TID:
	case PEBS_REPORT_THREAD:
	case PEBS_REPORT_CPU:
	case PEBS_REPORT_EVENT:
	case PEBS_REPORT_PAGE:
	case PEBS_REPORT_LINE:
	case PEBS_REPORT_ADDR:
	case PEBS_REPORT_SRC:
	case PEBS_REPORT_MEM:
	case PEBS_REPORT_SNOOP:
	case PEBS_REPORT_TLB:
	case PEBS_REPORT_PHYS_DADDR:
	case PEBS_REPORT_WEIGHT:
	case PEBS_REPORT_LOCAL_WEIGHT:
	case PEBS_REPORT_LOCKED:
	case PEBS_REPORT_BLOCKED:
	case PEBS_REPORT_LOCAL_INS_LAT:
	case PEBS_REPORT_TIME:
		return true;
	default:
		return false;
	}
}

uint64_t rk_plain_atom(enum pebs_report_key key,
		       const struct pebs_report_sample *s)
{
	switch (key) {
	case PEBS_REPORT_PID:
		return (uint32_t)s->pid;
	case PEBS_REPORT_TID:
	case PEBS_REPORT_THREAD:
		return (uint32_t)s->tid;
	case PEBS_REPORT_CPU:
		return s->cpu;
	case PEBS_REPORT_EVENT:
		return s->event;
	case PEBS_REPORT_PAGE:
		return s->addr & ~(uint64_t)(PAGE_4K - 1);
	case PEBS_REPORT_LINE:
		return s->addr & ~(uint64_t)(CACHE_LINE - 1);
	case PEBS_REPORT_ADDR:
		return s->addr;
	case PEBS_REPORT_PHYS_DADDR:
		return s->has_phys ? s->phys_addr : 0;
	case PEBS_REPORT_WEIGHT:
	case PEBS_REPORT_LOCAL_WEIGHT:
		return s->has_weight ? s->weight : 0;
	case PEBS_REPORT_LOCAL_INS_LAT:
		return s->ins_lat;
	case PEBS_REPORT_TIME:
		return s->time;
	default:	/* src, mem, snoop, tlb, locked, blocked */
		return s->data_src & rk_src_mask(key);
	}
}

bool rk_direct(const enum pebs_report_key *keys, unsigned int n,
	       unsigned int *flags)
{
	unsigned int i;

	*flags = 0;
	for (i = 0; i < n; i++) {
		switch (keys[i]) {
		case PEBS_REPORT_TID:
		case PEBS_REPORT_THREAD:
			*flags |= RK_HAS_TID;
			break;
		case PEBS_REPORT_DSO:
			*flags |= RK_HAS_DSO;
			break;
		case PEBS_REPORT_PID:
		case PEBS_REPORT_COMM:
		case PEBS_REPORT_SYM:
		case PEBS_REPORT_CPU:
		case PEBS_REPORT_EVENT:
			break;
		default:
			return false;
		}
	}
	return true;
}

void rk_make(enum pebs_report_key key, bool dsym_key,
	     const struct pebs_report_sample *s, struct pebs_report_row *k)
{
	switch (key) {
	case PEBS_REPORT_PID:
		k->pid = s->pid;
		break;
	case PEBS_REPORT_TID:
	case PEBS_REPORT_THREAD:
		k->tid = s->tid;
		break;
	case PEBS_REPORT_COMM:
		k->comm = s->comm;
		/* an unknown thread is shown by its tid */
		k->tid = s->comm ? k->tid : s->tid;
		break;
	case PEBS_REPORT_DSO:
		k->dso = s->dso;
		k->kernel = s->kernel;
		break;
	case PEBS_REPORT_SYM:
		k->sym = s->sym;
		k->kernel = s->kernel;
		/* no symbol: the address (within its dso), as perf */
		k->ip = s->sym ? 0 : s->ip;
		k->dso = s->sym ? k->dso : s->dso;
		break;
	case PEBS_REPORT_CPU:
		k->cpu = s->cpu;
		break;
	case PEBS_REPORT_EVENT:
		k->event = s->event;
		break;
	case PEBS_REPORT_PAGE:
		k->addr = s->addr & ~(uint64_t)(PAGE_4K - 1);
		break;
	case PEBS_REPORT_LINE:
		k->addr = s->addr & ~(uint64_t)(CACHE_LINE - 1);
		break;
	case PEBS_REPORT_ADDR:
		k->addr = s->addr;
		break;
	case PEBS_REPORT_SRC:
	case PEBS_REPORT_MEM:
	case PEBS_REPORT_SNOOP:
	case PEBS_REPORT_TLB:
	case PEBS_REPORT_LOCKED:
	case PEBS_REPORT_BLOCKED:
		k->data_src |= s->data_src & rk_src_mask(key);
		break;
	case PEBS_REPORT_SYM_DADDR:
		/* per address, as perf; shown by its data symbol */
		k->addr = s->addr;
		k->data_sym = s->data_sym;
		k->data_sym_off = s->data_sym_off;
		k->kernel = s->kernel;
		break;
	case PEBS_REPORT_DSO_DADDR:
		k->data_dso = s->data_dso;
		break;
	case PEBS_REPORT_DCACHELINE:
		/* the line within its data object, as perf; shown by the
		   data symbol of its first sample, the offset from the
		   symbol's start to the line */
		k->data_dso = s->data_dso;
		k->kernel = s->kernel;
		k->addr = s->addr & ~(uint64_t)(CACHE_LINE - 1);
		if (!dsym_key && s->data_sym) {
			k->data_sym = s->data_sym;
			k->data_sym_off = k->addr - (s->addr - s->data_sym_off);
		}
		break;
	case PEBS_REPORT_PHYS_DADDR:
		/* 0 without PHYS_ADDR, as perf; one row per address
		   whatever the mode */
		k->phys_addr = s->has_phys ? s->phys_addr : 0;
		break;
	case PEBS_REPORT_WEIGHT:
	case PEBS_REPORT_LOCAL_WEIGHT:
		/* perf's he->weight: the sample's (0: none) */
		k->weight = s->has_weight ? s->weight : 0;
		break;
	case PEBS_REPORT_LOCAL_INS_LAT:
		k->ins_lat = s->ins_lat;
		break;
	case PEBS_REPORT_OBJECT:
		k->object = s->object;
		break;
	case PEBS_REPORT_OBJECT_INSTANCE:
		k->object = s->object_inst;
		break;
	case PEBS_REPORT_OBJECT_FIELD:
		k->object_field = s->object_field;
		break;
	case PEBS_REPORT_SRCLINE:
		k->srcline = s->srcline;
		break;
	case PEBS_REPORT_SRCFILE:
		k->srcfile = s->srcfile;
		break;
	case PEBS_REPORT_TIME:
		k->time = s->time;
		break;
	default:
		break;
	}
}

uint64_t rk_get(const struct pebs_report_row *row, enum rk_field f)
{
	switch (f) {
	case RK_PID:
		return (uint32_t)row->pid;
	case RK_TID:
		return (uint32_t)row->tid;
	case RK_CPU:
		return row->cpu;
	case RK_EVENT:
		return row->event;
	case RK_COMM:
		return (uintptr_t)row->comm;
	case RK_DSO:
		return (uintptr_t)row->dso;
	case RK_SYM:
		return (uintptr_t)row->sym;
	case RK_IP:
		return row->ip;
	case RK_KERNEL:
		return row->kernel;
	case RK_ADDR:
		return row->addr;
	case RK_DATA_SRC:
		return row->data_src;
	case RK_PHYS:
		return row->phys_addr;
	case RK_DATA_DSO:
		return (uintptr_t)row->data_dso;
	case RK_WEIGHT:
		return row->weight;
	case RK_INS_LAT:
		return row->ins_lat;
	case RK_OBJECT:
		return (uintptr_t)row->object;
	case RK_OBJECT_FIELD:
		return (uintptr_t)row->object_field;
	case RK_SRCLINE:
		return (uintptr_t)row->srcline;
	case RK_SRCFILE:
		return (uintptr_t)row->srcfile;
	case RK_TIME:
		return row->time;
	case RK_DATA_SYM:
		return (uintptr_t)row->data_sym;
	case RK_DATA_SYM_OFF:
		return row->data_sym_off;
	default:
		return 0;
	}
}

void rk_set(struct pebs_report_row *row, enum rk_field f, uint64_t v)
{
	switch (f) {
	case RK_PID:
		row->pid = (int32_t)v;
		break;
	case RK_TID:
		row->tid = (int32_t)v;
		break;
	case RK_CPU:
		row->cpu = (uint32_t)v;
		break;
	case RK_EVENT:
		row->event = (unsigned int)v;
		break;
	case RK_COMM:
		row->comm = (const char *)(uintptr_t)v;
		break;
	case RK_DSO:
		row->dso = (const char *)(uintptr_t)v;
		break;
	case RK_SYM:
		row->sym = (const char *)(uintptr_t)v;
		break;
	case RK_IP:
		row->ip = v;
		break;
	case RK_KERNEL:
		row->kernel = v != 0;
		break;
	case RK_ADDR:
		row->addr = v;
		break;
	case RK_DATA_SRC:
		row->data_src = v;
		break;
	case RK_PHYS:
		row->phys_addr = v;
		break;
	case RK_DATA_DSO:
		row->data_dso = (const char *)(uintptr_t)v;
		break;
	case RK_WEIGHT:
		row->weight = v;
		break;
	case RK_INS_LAT:
		row->ins_lat = v;
		break;
	case RK_OBJECT:
		row->object = (const char *)(uintptr_t)v;
		break;
	case RK_OBJECT_FIELD:
		row->object_field = (const char *)(uintptr_t)v;
		break;
	case RK_SRCLINE:
		row->srcline = (const char *)(uintptr_t)v;
		break;
	case RK_SRCFILE:
		row->srcfile = (const char *)(uintptr_t)v;
		break;
	case RK_TIME:
		row->time = v;
		break;
	case RK_DATA_SYM:
		row->data_sym = (const char *)(uintptr_t)v;
		break;
	case RK_DATA_SYM_OFF:
		row->data_sym_off = v;
		break;
	default:
		break;
	}
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* perf's _sort__addr_cmp: the sign of (int64_t)(b - a), so that
   addresses 2^63 or more apart (a garbage frame's) order as in perf */
static int cmp_addr(uint64_t a, uint64_t b)
{
	int64_t d = (int64_t)(b - a);

	return (d < 0) - (d > 0);
}

/* Strings as printed; an unknown one (NULL) after the known. */
static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b;
	return strcmp(a, b);
}

static int cmp_base(uint64_t a, uint64_t b)
{
	const char *x = (const char *)(uintptr_t)a;
	const char *y = (const char *)(uintptr_t)b;

	return cmp_str(x ? core_base_name(x) : NULL, y ? core_base_name(y) : NULL);
}

#define FX(f)	get(x, f, arg)
#define FY(f)	get(y, f, arg)

/* an unknown comm as perf names (and so orders) it: ":tid" */
static const char *comm_name(uint64_t comm, uint64_t tid, char *buf,
			     size_t len)
{
	if (comm)
		return (const char *)(uintptr_t)comm;
	snprintf(buf, len, ":%d", (int)(int32_t)tid);
	return buf;
}

int rk_cmp(enum pebs_report_key k, const void *x, const void *y,
	   rk_field_fn get, const void *arg)
{
	uint64_t m;
	int c;

	switch (k) {
	case PEBS_REPORT_PID:
		return cmp_u64(FX(RK_PID), FY(RK_PID));
	case PEBS_REPORT_TID:
	case PEBS_REPORT_THREAD:
		return cmp_u64(FX(RK_TID), FY(RK_TID));
	case PEBS_REPORT_COMM: {
		char bx[16], by[16];

		c = strcmp(comm_name(FX(RK_COMM), FX(RK_TID), bx, sizeof(bx)),
			   comm_name(FY(RK_COMM), FY(RK_TID), by, sizeof(by)));
		return c ? c : cmp_u64(FX(RK_TID), FY(RK_TID));
	}
	case PEBS_REPORT_DSO:
		return cmp_base(FX(RK_DSO), FY(RK_DSO));
	case PEBS_REPORT_SYM:
		c = cmp_str((const char *)(uintptr_t)FX(RK_SYM),
			    (const char *)(uintptr_t)FY(RK_SYM));
		return c ? c : cmp_addr(FX(RK_IP), FY(RK_IP));
	case PEBS_REPORT_CPU:
		return cmp_u64(FX(RK_CPU), FY(RK_CPU));
	case PEBS_REPORT_EVENT:
		return cmp_u64(FX(RK_EVENT), FY(RK_EVENT));
	case PEBS_REPORT_MEM:
		/* perf's sort__lvl_cmp orders by mem_lvl alone */
		c = cmp_u64(FX(RK_DATA_SRC) >> PERF_MEM_LVL_SHIFT & 0x3fff,
			    FY(RK_DATA_SRC) >> PERF_MEM_LVL_SHIFT & 0x3fff);
		if (c)
			return c;
		/* fall through */
	case PEBS_REPORT_SRC:
	case PEBS_REPORT_SNOOP:
	case PEBS_REPORT_TLB:
	case PEBS_REPORT_LOCKED:
	case PEBS_REPORT_BLOCKED:
		m = rk_src_mask(k);
		return cmp_u64(FX(RK_DATA_SRC) & m, FY(RK_DATA_SRC) & m);
	case PEBS_REPORT_DSO_DADDR:
		return cmp_base(FX(RK_DATA_DSO), FY(RK_DATA_DSO));
	case PEBS_REPORT_PHYS_DADDR:
		return cmp_u64(FX(RK_PHYS), FY(RK_PHYS));
	case PEBS_REPORT_DCACHELINE:
		c = cmp_u64(FX(RK_ADDR), FY(RK_ADDR));
		return c ? c : cmp_str((const char *)(uintptr_t)FX(RK_DATA_DSO),
				       (const char *)(uintptr_t)FY(RK_DATA_DSO));
	case PEBS_REPORT_WEIGHT:
	case PEBS_REPORT_LOCAL_WEIGHT:
		/* perf's sort__weight_cmp is left - right: heavier first */
		return cmp_u64(FY(RK_WEIGHT), FX(RK_WEIGHT));
	case PEBS_REPORT_LOCAL_INS_LAT:
		return cmp_u64(FY(RK_INS_LAT), FX(RK_INS_LAT));
	case PEBS_REPORT_OBJECT:
	case PEBS_REPORT_OBJECT_INSTANCE:
		return cmp_str((const char *)(uintptr_t)FX(RK_OBJECT),
			       (const char *)(uintptr_t)FY(RK_OBJECT));
	case PEBS_REPORT_OBJECT_FIELD:
		return cmp_str((const char *)(uintptr_t)FX(RK_OBJECT_FIELD),
			       (const char *)(uintptr_t)FY(RK_OBJECT_FIELD));
	case PEBS_REPORT_SRCLINE:	/* perf: strcmp(right, left) */
		return cmp_str((const char *)(uintptr_t)FX(RK_SRCLINE),
			       (const char *)(uintptr_t)FY(RK_SRCLINE));
	case PEBS_REPORT_SRCFILE:
		return cmp_str((const char *)(uintptr_t)FX(RK_SRCFILE),
			       (const char *)(uintptr_t)FY(RK_SRCFILE));
	case PEBS_REPORT_TIME:	/* perf: right - left, the earlier first */
		return cmp_u64(FX(RK_TIME), FY(RK_TIME));
	default:
		return cmp_u64(FX(RK_ADDR), FY(RK_ADDR));
	}
}

/* perf's iter_add_single_mem_entry: "cost = sample->weight; if (!cost)
   cost = 1; ... sample->period = cost" */
void pebs_report_sample__mem_cost(struct pebs_report_sample *s)
{
	s->period = s->has_weight && s->weight ? s->weight : 1;
}
