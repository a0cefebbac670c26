// SPDX-License-Identifier: MIT
/*
 * report.c - samples grouped by a set of sort keys, as perf report's
 * histograms: per row the samples, the sum of their periods (perf's
 * Overhead is the row's share of the period), weights, and loads,
 * stores and HitM where samples carry a data source.
 *
 * The caller resolves a sample once (comm interned by pebs_threads, dso
 * and symbol strings owned by pebs_symbols) and adds it: a row's key is
 * the values of its key fields, compared by value (strings by pointer:
 * equal pointers are equal names), hashed once per sample; rows live in
 * one array found through an open-addressed index. No allocation per
 * sample except when the tables grow.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CACHE_LINE	64
#define PAGE_4K		4096

struct slot {
	uint32_t idx;		/* row + 1; 0: empty */
	uint32_t hash;
};

struct pebs_report {
	enum pebs_report_key keys[PEBS_REPORT_MAX_KEYS];
	unsigned int nr_keys;
	bool need_addr, need_src;
	bool dsym_key;		/* the data symbol is a key (symbol_daddr),
				   not only shown (dcacheline) */
	struct pebs_report_row *rows;
	size_t nr, cap_rows;
	struct slot *slots;
	size_t cap;		/* a power of two */
	uint32_t *order;	/* rows in sorted order, after __sort */
	uint64_t samples, period;
	uint64_t *ev_samples, *ev_period;	/* per event */
	unsigned int nr_events;
};

static const char *const key_names[PEBS_REPORT_NR_KEYS] = {
	[PEBS_REPORT_PID] = "pid", [PEBS_REPORT_TID] = "tid",
	[PEBS_REPORT_COMM] = "comm", [PEBS_REPORT_DSO] = "dso",
	[PEBS_REPORT_SYM] = "sym", [PEBS_REPORT_CPU] = "cpu",
	[PEBS_REPORT_EVENT] = "event", [PEBS_REPORT_PAGE] = "page",
	[PEBS_REPORT_LINE] = "line", [PEBS_REPORT_ADDR] = "addr",
	[PEBS_REPORT_SRC] = "src", [PEBS_REPORT_SYM_DADDR] = "symbol_daddr",
	[PEBS_REPORT_DSO_DADDR] = "dso_daddr", [PEBS_REPORT_MEM] = "mem",
	[PEBS_REPORT_SNOOP] = "snoop", [PEBS_REPORT_TLB] = "tlb",
	[PEBS_REPORT_DCACHELINE] = "dcacheline",
	[PEBS_REPORT_PHYS_DADDR] = "phys_daddr",
	[PEBS_REPORT_WEIGHT] = "weight",
};

/* The data_src bits of the mem, snoop and tlb keys. */
static uint64_t src_mask(enum pebs_report_key k)
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
		return pebs_err(-EINVAL, "report: no keys");
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
		if (k == PEBS_REPORT_NR_KEYS) {
			return pebs_err(-EINVAL, "unknown sort key '%.*s': use "
					"pid, tid, comm, dso, sym, cpu, event, "
					"page, line, addr, src, symbol_daddr, "
					"dso_daddr, dcacheline, mem, snoop, tlb, "
					"phys_daddr or weight",
					(int)len, p);
		}
		if (n == max)
			return pebs_err(-EINVAL, "too many sort keys: give at "
					"most %u", max);
		keys[n++] = k;
		p += len + (p[len] == ',');
	}
	if (!n)
		return pebs_err(-EINVAL, "no sort key: give keys such as "
				"comm,dso,sym");
	return (int)n;
}

int pebs_report__new(const enum pebs_report_key *keys, unsigned int nr_keys,
		     unsigned int nr_events, struct pebs_report **rp)
{
	struct pebs_report *r;
	unsigned int i;

	if (!rp || !keys || !nr_keys || nr_keys > PEBS_REPORT_MAX_KEYS)
		return pebs_err(-EINVAL, "report: give 1 to %d keys",
				PEBS_REPORT_MAX_KEYS);
	for (i = 0; i < nr_keys; i++)
		if ((unsigned int)keys[i] >= PEBS_REPORT_NR_KEYS)
			return pebs_err(-EINVAL, "report: bad key %d",
					(int)keys[i]);
	r = calloc(1, sizeof(*r));
	if (!r)
		return pebs_err(-ENOMEM, "report: out of memory");
	r->nr_events = nr_events ? nr_events : 1;
	r->ev_samples = calloc(r->nr_events, sizeof(*r->ev_samples));
	r->ev_period = calloc(r->nr_events, sizeof(*r->ev_period));
	if (!r->ev_samples || !r->ev_period) {
		pebs_report__delete(r);
		return pebs_err(-ENOMEM, "report: out of memory");
	}
	memcpy(r->keys, keys, nr_keys * sizeof(*keys));
	r->nr_keys = nr_keys;
	for (i = 0; i < nr_keys; i++) {
		r->need_addr |= keys[i] == PEBS_REPORT_PAGE ||
				keys[i] == PEBS_REPORT_LINE ||
				keys[i] == PEBS_REPORT_ADDR ||
				keys[i] == PEBS_REPORT_SYM_DADDR ||
				keys[i] == PEBS_REPORT_DSO_DADDR ||
				keys[i] == PEBS_REPORT_DCACHELINE;

		r->dsym_key |= keys[i] == PEBS_REPORT_SYM_DADDR;
		r->need_src |= keys[i] == PEBS_REPORT_SRC ||
			       keys[i] == PEBS_REPORT_MEM ||
			       keys[i] == PEBS_REPORT_SNOOP ||
			       keys[i] == PEBS_REPORT_TLB;
	}
	*rp = r;
	return 0;
}

void pebs_report__delete(struct pebs_report *r)
{
	if (!r)
		return;
	free(r->rows);
	free(r->slots);
	free(r->order);
	free(r->ev_samples);
	free(r->ev_period);
	free(r);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

/* The key fields of @s for the report's keys; the rest stay zero. */
static void make_key(const struct pebs_report *r,
		     const struct pebs_report_sample *s,
		     struct pebs_report_row *k, uint64_t *hash)
{
	uint64_t h = 0;
	unsigned int i;

	memset(k, 0, sizeof(*k));
	for (i = 0; i < r->nr_keys; i++) {
		uint64_t v = 0;

		switch (r->keys[i]) {
		case PEBS_REPORT_PID:
			v = (uint32_t)(k->pid = s->pid);
			break;
		case PEBS_REPORT_TID:
			v = (uint32_t)(k->tid = s->tid);
			break;
		case PEBS_REPORT_COMM:
			k->comm = s->comm;
			/* an unknown thread is shown by its tid */
			k->tid = s->comm ? k->tid : s->tid;
			v = s->comm ? (uintptr_t)s->comm : (uint32_t)s->tid;
			break;
		case PEBS_REPORT_DSO:
			k->dso = s->dso;
			k->kernel = s->kernel;
			v = (uintptr_t)s->dso ^ s->kernel;
			break;
		case PEBS_REPORT_SYM:
			k->sym = s->sym;
			k->kernel = s->kernel;
			/* no symbol: the address (within its dso), as perf */
			k->ip = s->sym ? 0 : s->ip;
			k->dso = s->sym ? k->dso : s->dso;
			v = s->sym ? (uintptr_t)s->sym : s->ip;
			break;
		case PEBS_REPORT_CPU:
			v = k->cpu = s->cpu;
			break;
		case PEBS_REPORT_EVENT:
			v = k->event = s->event;
			break;
		case PEBS_REPORT_PAGE:
			v = k->addr = s->addr & ~(uint64_t)(PAGE_4K - 1);
			break;
		case PEBS_REPORT_LINE:
			v = k->addr = s->addr & ~(uint64_t)(CACHE_LINE - 1);
			break;
		case PEBS_REPORT_ADDR:
			v = k->addr = s->addr;
			break;
		case PEBS_REPORT_SRC:
		case PEBS_REPORT_MEM:
		case PEBS_REPORT_SNOOP:
		case PEBS_REPORT_TLB:
			v = s->data_src & src_mask(r->keys[i]);
			k->data_src |= v;
			break;
		case PEBS_REPORT_SYM_DADDR:
			/* per address, as perf; shown by its data symbol */
			v = k->addr = s->addr;
			k->data_sym = s->data_sym;
			k->data_sym_off = s->data_sym_off;
			k->kernel = s->kernel;
			break;
		case PEBS_REPORT_DSO_DADDR:
			k->data_dso = s->data_dso;
			v = (uintptr_t)s->data_dso;
			break;
		case PEBS_REPORT_DCACHELINE:
			/* the line within its data object, as perf; shown
			   by the data symbol of its first sample, the
			   offset from the symbol's start to the line */
			k->data_dso = s->data_dso;
			k->kernel = s->kernel;
			k->addr = s->addr & ~(uint64_t)(CACHE_LINE - 1);
			if (!r->dsym_key && s->data_sym) {
				k->data_sym = s->data_sym;
				k->data_sym_off = k->addr -
					(s->addr - s->data_sym_off);
			}
			v = k->addr ^ (uintptr_t)s->data_dso;
			break;
		case PEBS_REPORT_WEIGHT:
			/* perf's he->weight: the sample's (0: none) */
			v = k->weight = s->has_weight ? s->weight : 0;
			break;
		case PEBS_REPORT_PHYS_DADDR:
			/* 0 without PHYS_ADDR, as perf; one row per
			   address whatever the mode */
			v = k->phys_addr = s->has_phys ? s->phys_addr : 0;
			break;
		default:
			break;
		}
		h = mix(h, v);
	}
	/* spread the bits: keys such as page addresses share low bits */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	*hash = h;
}

static bool same_key(const struct pebs_report *r,
		     const struct pebs_report_row *a,
		     const struct pebs_report_row *b)
{
	return a->pid == b->pid && a->tid == b->tid && a->comm == b->comm &&
	       a->dso == b->dso && a->sym == b->sym && a->ip == b->ip &&
	       a->kernel == b->kernel && a->cpu == b->cpu &&
	       a->event == b->event && a->addr == b->addr &&
	       a->data_src == b->data_src && a->data_dso == b->data_dso &&
	       (!r->dsym_key || a->data_sym == b->data_sym) &&
	       a->phys_addr == b->phys_addr && a->weight == b->weight;
}

static int grow_index(struct pebs_report *r)
{
	size_t cap = r->cap ? r->cap * 2 : 256, i;
	struct slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < r->cap; i++) {
		size_t j;

		if (!r->slots[i].idx)
			continue;
		for (j = r->slots[i].hash & (cap - 1); slots[j].idx;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = r->slots[i];
	}
	free(r->slots);
	r->slots = slots;
	r->cap = cap;
	return 0;
}

static struct pebs_report_row *find_row(struct pebs_report *r,
					const struct pebs_report_row *k,
					uint32_t h)
{
	size_t mask, i;

	if ((r->nr + 1) * 2 > r->cap && grow_index(r))
		return NULL;
	mask = r->cap - 1;
	for (i = h & mask; r->slots[i].idx; i = (i + 1) & mask)
		if (r->slots[i].hash == h &&
		    same_key(r, &r->rows[r->slots[i].idx - 1], k))
			return &r->rows[r->slots[i].idx - 1];
	if (r->nr == r->cap_rows) {
		size_t cap = r->cap_rows ? r->cap_rows + r->cap_rows / 2 : 128;
		struct pebs_report_row *rows =
			realloc(r->rows, cap * sizeof(*rows));

		if (!rows)
			return NULL;
		r->rows = rows;
		r->cap_rows = cap;
	}
	r->rows[r->nr] = *k;
	r->slots[i].idx = (uint32_t)++r->nr;
	r->slots[i].hash = h;
	return &r->rows[r->nr - 1];
}

static void row_add_tid(struct pebs_report_row *row, int32_t tid)
{
	unsigned int i;

	for (i = 0; i < row->nr_tids && i < PEBS_REPORT_MAX_TIDS; i++)
		if (row->tids[i] == tid)
			return;
	if (row->nr_tids < PEBS_REPORT_MAX_TIDS)
		row->tids[row->nr_tids] = tid;
	if (row->nr_tids <= PEBS_REPORT_MAX_TIDS)
		row->nr_tids++;
}

static void add_totals(struct pebs_report *r,
		       const struct pebs_report_sample *s)
{
	r->samples++;
	r->period += s->period;
	if (s->event < r->nr_events) {
		r->ev_samples[s->event]++;
		r->ev_period[s->event] += s->period;
	}
}

int pebs_report__add(struct pebs_report *r,
		     const struct pebs_report_sample *s)
{
	union perf_mem_data_src src = { .val = s->data_src };
	struct pebs_report_row k, *row;
	uint64_t h;

	if ((r->need_addr && !s->has_addr) || (r->need_src && !s->has_src))
		return 0;
	if (s->hidden) {
		add_totals(r, s);
		return 0;
	}
	make_key(r, s, &k, &h);
	row = find_row(r, &k, (uint32_t)(h ^ (h >> 32)));
	if (!row)
		return pebs_err(-ENOMEM, "report: out of memory");
	row->samples++;
	row->period += s->period;
	if (s->has_weight) {
		row->weight_sum += s->weight;
		row->weight_nr++;
	}
	if (s->has_src) {
		row->loads += !!(src.mem_op & PERF_MEM_OP_LOAD);
		row->stores += !!(src.mem_op & PERF_MEM_OP_STORE);
		row->hitm += (src.mem_snoop & PERF_MEM_SNOOP_HITM) ||
			     (src.mem_snoopx & PERF_MEM_SNOOPX_PEER);
	}
	row_add_tid(row, s->tid);
	add_totals(r, s);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* Strings as printed; an unknown one (NULL) after the known. */
static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b;
	return strcmp(a, b);
}

/* Two rows on one key, in the order perf prints ties (ascending). */
static int key_cmp(const struct pebs_report_row *x,
		   const struct pebs_report_row *y, enum pebs_report_key k)
{
	int c;

	switch (k) {
	case PEBS_REPORT_PID:
		return cmp_u64((uint32_t)x->pid, (uint32_t)y->pid);
	case PEBS_REPORT_TID:
		return cmp_u64((uint32_t)x->tid, (uint32_t)y->tid);
	case PEBS_REPORT_COMM:
		c = cmp_str(x->comm, y->comm);
		return c ? c : cmp_u64((uint32_t)x->tid, (uint32_t)y->tid);
	case PEBS_REPORT_DSO:
		return cmp_str(x->dso ? base_name(x->dso) : NULL,
			       y->dso ? base_name(y->dso) : NULL);
	case PEBS_REPORT_SYM:
		c = cmp_str(x->sym, y->sym);
		return c ? c : cmp_u64(x->ip, y->ip);
	case PEBS_REPORT_CPU:
		return cmp_u64(x->cpu, y->cpu);
	case PEBS_REPORT_EVENT:
		return cmp_u64(x->event, y->event);
	case PEBS_REPORT_SRC:
	case PEBS_REPORT_MEM:
	case PEBS_REPORT_SNOOP:
	case PEBS_REPORT_TLB:
		return cmp_u64(x->data_src & src_mask(k),
			       y->data_src & src_mask(k));
	case PEBS_REPORT_DSO_DADDR:
		return cmp_str(x->data_dso ? base_name(x->data_dso) : NULL,
			       y->data_dso ? base_name(y->data_dso) : NULL);
	case PEBS_REPORT_PHYS_DADDR:
		return cmp_u64(x->phys_addr, y->phys_addr);
	case PEBS_REPORT_DCACHELINE:
		c = cmp_u64(x->addr, y->addr);
		return c ? c : cmp_str(x->data_dso, y->data_dso);
	case PEBS_REPORT_WEIGHT:
		/* perf's sort__weight_cmp is left - right: heavier first */
		return cmp_u64(y->weight, x->weight);
	default:
		return cmp_u64(x->addr, y->addr);
	}
}

/* Rows (by index) by period, then samples, then their keys as perf. */
static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct pebs_report *r = arg;
	const struct pebs_report_row *x = &r->rows[*(const uint32_t *)a];
	const struct pebs_report_row *y = &r->rows[*(const uint32_t *)b];
	unsigned int i;
	int c;

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	for (i = 0; i < r->nr_keys; i++) {
		c = key_cmp(x, y, r->keys[i]);
		if (c)
			return c;
	}
	return 0;
}

void pebs_report__sort(struct pebs_report *r)
{
	size_t i;

	/* the index is not needed any more (no more __add): reuse it */
	free(r->order);
	r->order = malloc((r->nr ? r->nr : 1) * sizeof(*r->order));
	if (!r->order)
		return;		/* rows stay in the order first seen */
	for (i = 0; i < r->nr; i++)
		r->order[i] = (uint32_t)i;
	/* sort indices, not the (large) rows */
	qsort_r(r->order, r->nr, sizeof(*r->order), row_cmp, r);
	free(r->slots);
	r->slots = NULL;
	r->cap = 0;
}

size_t pebs_report__nr_rows(const struct pebs_report *r)
{
	return r->nr;
}

const struct pebs_report_row *pebs_report__row(const struct pebs_report *r,
					       size_t i)
{
	if (i >= r->nr)
		return NULL;
	return &r->rows[r->order ? r->order[i] : i];
}

void pebs_report__totals(const struct pebs_report *r, int event,
			 uint64_t *samples, uint64_t *period)
{
	bool one = event >= 0 && (unsigned int)event < r->nr_events;

	if (samples)
		*samples = one ? r->ev_samples[event] : r->samples;
	if (period)
		*period = one ? r->ev_period[event] : r->period;
}

double pebs_report__overhead(const struct pebs_report *r,
			     const struct pebs_report_row *row, bool per_event)
{
	uint64_t samples, period;

	pebs_report__totals(r, per_event ? (int)row->event : -1, &samples,
			    &period);
	if (period)
		return 100.0 * (double)row->period / (double)period;
	return samples ? 100.0 * (double)row->samples / (double)samples : 0;
}

unsigned int pebs_report__keys(const struct pebs_report *r,
			       const enum pebs_report_key **keys)
{
	*keys = r->keys;
	return r->nr_keys;
}

int pebs_report__field(const struct pebs_report_row *row,
		       enum pebs_report_key key, char *buf, size_t len)
{
	struct pebs_data_src ds;

	switch (key) {
	case PEBS_REPORT_PID:
		return snprintf(buf, len, "%d", row->pid);
	case PEBS_REPORT_TID:
		return snprintf(buf, len, "%d", row->tid);
	case PEBS_REPORT_COMM:
		return row->comm ? snprintf(buf, len, "%s", row->comm) :
				   snprintf(buf, len, ":%d", row->tid);
	case PEBS_REPORT_DSO:
		return snprintf(buf, len, "%s",
				row->dso ? base_name(row->dso) : "[unknown]");
	case PEBS_REPORT_SYM:
		/* perf: "[k] name", "[.] 0x<address, 16 digits>" */
		if (row->sym)
			return snprintf(buf, len, "[%c] %s",
					row->kernel ? 'k' : '.', row->sym);
		return snprintf(buf, len, "[%c] 0x%016llx",
				row->kernel ? 'k' : '.',
				(unsigned long long)row->ip);
	case PEBS_REPORT_CPU:
		return snprintf(buf, len, "%03u", row->cpu);
	case PEBS_REPORT_EVENT:
		return snprintf(buf, len, "%u", row->event);
	case PEBS_REPORT_PAGE:
	case PEBS_REPORT_LINE:
	case PEBS_REPORT_ADDR:
		return snprintf(buf, len, "0x%llx",
				(unsigned long long)row->addr);
	case PEBS_REPORT_SRC:
		return pebs_data_src__str(row->data_src, buf, len);
	case PEBS_REPORT_PHYS_DADDR:
		/* perf's "%#.16llx": 0 prints without "0x" */
		return snprintf(buf, len, "[%c] %#.16llx",
				row->kernel ? 'k' : '.',
				(unsigned long long)row->phys_addr);
	case PEBS_REPORT_DCACHELINE:
		/* perf's _hist_entry__sym_snprintf of the line: an
		   STT_OBJECT as sym+0xoff, else the address; a line in no
		   known mapping is marked [X] */
		if (row->data_sym)
			return snprintf(buf, len, "[%c] %s+0x%llx",
					row->kernel ? 'k' : '.', row->data_sym,
					(unsigned long long)row->data_sym_off);
		return snprintf(buf, len, "[%c] %#.16llx", !row->data_dso ?
				'X' : row->kernel ? 'k' : '.',
				(unsigned long long)row->addr);
	case PEBS_REPORT_WEIGHT:
		/* perf's "Weight": he->weight * he->stat.nr_events */
		return snprintf(buf, len, "%llu",
				(unsigned long long)(row->weight *
						     row->samples));
	case PEBS_REPORT_SYM_DADDR:
		if (row->data_sym)
			return snprintf(buf, len, "[%c] %s+0x%llx",
					row->kernel ? 'k' : '.', row->data_sym,
					(unsigned long long)row->data_sym_off);
		return snprintf(buf, len, "[%c] 0x%016llx",
				row->kernel ? 'k' : '.',
				(unsigned long long)row->addr);
	case PEBS_REPORT_DSO_DADDR:
		return snprintf(buf, len, "%s", row->data_dso ?
				base_name(row->data_dso) : "[unknown]");
	case PEBS_REPORT_MEM:
	case PEBS_REPORT_SNOOP:
	case PEBS_REPORT_TLB:
		pebs_data_src__decode(row->data_src, &ds);
		return snprintf(buf, len, "%s", key == PEBS_REPORT_MEM ?
				ds.lvl : key == PEBS_REPORT_SNOOP ? ds.snoop :
				ds.tlb);
	default:
		return pebs_err(-EINVAL, "report: bad key %d", (int)key);
	}
}
