// SPDX-License-Identifier: MIT
/*
 * heat.c - samples into the heat map's granules, the data of
 * lib/plot/plot-heat.c's picture.
 *
 * Samples go into granules (process, address >> granule). Samples
 * arrive in time order, so a granule's buckets are appended (or the
 * last one grows): memory is linear in the samples at worst and in
 * granules x buckets at best, and a granule's total is kept as it goes.
 * A granule keeps, for the range view, the mapping its first sample
 * fell in (pebs_symbols__data_map) and the one thread its samples came
 * from; for the fine view, its label (pebs_symbols__data_label); and the
 * data object the session named at its first sample. A range or mapping
 * (pebs_heat__set_range) leaves the samples outside it out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pebsshim/report.h"
#include "pebsshim/plot.h"
#include "plot/heat.h"
#include "plot/svg.h"

#define BUCKETS		HEAT_BUCKETS

int heat_oom(void)
{
	return core_err(-ENOMEM, "heat: out of memory");
}

int pebs_heat__new(uint64_t granule, uint64_t first_time, uint64_t last_time,
		   struct pebs_heat **hp)
{
	struct pebs_heat *h;

	if (!hp || granule < 2 || (granule & (granule - 1)))
		return core_err(-EINVAL, "heat: the granule must be a power "
				"of two (64, 4096)");
	h = calloc(1, sizeof(*h));
	if (!h)
		return heat_oom();
	h->shift = (unsigned int)__builtin_ctzll(granule);
	h->t0 = first_time;
	h->t1 = last_time > first_time ? last_time : first_time + 1;
	*hp = h;
	return 0;
}

void pebs_heat__delete(struct pebs_heat *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->nr_rows; i++) {
		free(h->rows[i].cells);
		free(h->rows[i].label);
	}
	free(h->rows);
	free(h->tab);
	free(h->maps);
	free(h->owners);
	free(h->only);
	free(h);
}

static size_t slot_of(const struct pebs_heat *h, int32_t pid, uint64_t block)
{
	uint64_t k = block * 0x9e3779b97f4a7c15ULL ^ (uint32_t)pid;

	k ^= k >> 29;
	return (size_t)(k * 0xbf58476d1ce4e5b9ULL >> 17) & h->mask;
}

static int grow(struct pebs_heat *h)
{
	size_t mask = h->mask ? h->mask * 2 + 1 : 4095, i, j;
	uint32_t *tab = calloc(mask + 1, sizeof(*tab));

	if (!tab)
		return heat_oom();
	h->mask = mask;
	for (i = 0; i < h->nr_rows; i++) {
		j = slot_of(h, h->rows[i].pid, h->rows[i].block);
		while (tab[j])
			j = (j + 1) & mask;
		tab[j] = (uint32_t)i + 1;
	}
	free(h->tab);
	h->tab = tab;
	return 0;
}

static struct heat_unit *row_of(struct pebs_heat *h, int32_t pid, uint64_t block)
{
	struct heat_unit *r;
	size_t i;

	if ((h->nr_rows + 1) * 2 > h->mask && grow(h))
		return NULL;
	for (i = slot_of(h, pid, block); h->tab[i]; i = (i + 1) & h->mask) {
		r = &h->rows[h->tab[i] - 1];
		if (r->pid == pid && r->block == block)
			return r;
	}
	if (h->nr_rows >= UINT32_MAX - 1 ||
	    core_grow(&h->rows, &h->cap_rows, h->nr_rows + 1, sizeof(*r)))
		return NULL;
	r = &h->rows[h->nr_rows];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->block = block;
	h->tab[i] = (uint32_t)++h->nr_rows;
	return r;
}

/* The mapping of @pid holding @addr as one of the heat's: its index +
   1, 0 for none, -ENOMEM. */
static int64_t map_of(struct pebs_heat *h, int32_t pid, uint64_t addr)
{
	struct pebs_data_map dm;
	struct heat_map *m;
	size_t i;

	if (!h->syms || pebs_symbols__data_map(h->syms, pid, addr, &dm))
		return 0;
	for (i = 0; i < h->nr_maps; i++) {
		/* the last one found first: granules come in runs */
		m = &h->maps[(h->last_map + i) % h->nr_maps];
		if (m->pid == pid && m->start == dm.start && m->end == dm.end) {
			h->last_map = (h->last_map + i) % h->nr_maps;
			return (int64_t)h->last_map + 1;
		}
	}
	if (core_grow(&h->maps, &h->cap_maps, h->nr_maps + 1, sizeof(*m)))
		return -ENOMEM;
	m = &h->maps[h->nr_maps];
	m->pid = pid;
	m->start = dm.start;
	m->end = dm.end;
	m->pgoff = dm.pgoff;
	m->file = dm.dso && dm.dso[0] == '/' && dm.dso[1] != '/';
	pebs_data_map__name(&dm, pid, m->name, sizeof(m->name));
	h->last_map = h->nr_maps++;
	return (int64_t)h->nr_maps;
}

/* Thread @tid as one of the heat's owners: its index + 1, -ENOMEM. */
static int64_t owner_of(struct pebs_heat *h, int32_t tid, const char *comm)
{
	struct heat_owner *o;
	size_t i;

	for (i = 0; i < h->nr_owners; i++) {
		o = &h->owners[(h->last_owner + i) % h->nr_owners];
		if (o->tid != tid)
			continue;
		/* the thread's latest name (pthread_setname_np) */
		if (comm && strcmp(o->comm, comm))
			snprintf(o->comm, sizeof(o->comm), "%s", comm);
		h->last_owner = (h->last_owner + i) % h->nr_owners;
		return (int64_t)h->last_owner + 1;
	}
	if (core_grow(&h->owners, &h->cap_owners, h->nr_owners + 1,
		      sizeof(*o)))
		return -ENOMEM;
	o = &h->owners[h->nr_owners];
	o->tid = tid;
	snprintf(o->comm, sizeof(o->comm), "%s", comm ? comm : "");
	h->last_owner = h->nr_owners++;
	return (int64_t)h->nr_owners;
}

/* @addr of @pid is in the range of pebs_heat__set_range. */
static bool in_range(struct pebs_heat *h, int32_t pid, uint64_t addr)
{
	struct pebs_data_map *m = &h->only_map;
	char name[256];
	const char *base;

	if (h->lo < h->hi)
		return addr >= h->lo && addr < h->hi;
	if (!h->only)
		return true;
	if (pid == h->only_pid && m->end && addr >= m->start && addr < m->end)
		return h->only_hit;
	h->only_pid = pid;
	if (!h->syms || pebs_symbols__data_map(h->syms, pid, addr, m)) {
		memset(m, 0, sizeof(*m));
		return false;
	}
	pebs_data_map__name(m, pid, name, sizeof(name));
	base = m->dso ? strrchr(m->dso, '/') : NULL;
	h->only_hit = !strcmp(name, h->only) ||
		      (m->dso && !strcmp(m->dso, h->only)) ||
		      (base && base[1] && !strcmp(base + 1, h->only)) ||
		      (!strcmp(h->only, "[stack]") &&
		       !strncmp(name, "[stack:", 7));
	return h->only_hit;
}

int pebs_heat__add(struct pebs_heat *h, uint64_t time,
		   const struct pebs_report_sample *rs, uint64_t value)
{
	uint32_t b = 0;
	struct heat_unit *r;

	if (!h || !rs)
		return core_err(-EINVAL, "heat: no sample");
	if (!rs->has_addr)
		return 0;
	if (!in_range(h, rs->pid, rs->addr)) {
		h->outside++;
		return 0;
	}
	if (time > h->t0)
		b = time >= h->t1 ? BUCKETS - 1 :
		    (uint32_t)((double)(time - h->t0) / (double)(h->t1 - h->t0)
			       * BUCKETS);
	if (b >= BUCKETS)
		b = BUCKETS - 1;
	r = row_of(h, rs->pid, rs->addr >> h->shift);
	if (!r)
		return heat_oom();
	if (!r->samples && h->max_ranges) {
		int64_t m = map_of(h, rs->pid, rs->addr);
		int64_t o = owner_of(h, rs->tid, rs->comm);

		if (m < 0 || o < 0)
			return heat_oom();
		r->map = (uint32_t)m;
		r->owner = (uint32_t)o;
	} else if (r->owner && h->owners[r->owner - 1].tid != rs->tid) {
		r->owner = 0;	/* several threads */
	} else if (!r->samples && h->syms) {
		char buf[384];
		int n = pebs_symbols__data_label(h->syms, rs->pid, rs->addr,
						 buf, sizeof(buf));

		if (n == -ENOMEM)
			return heat_oom();
		if (n > 0 && !(r->label = strdup(buf)))
			return heat_oom();
	}
	/* a data object named by pebs_session__set_objects (a heap
	   allocation, a static variable in .bss), else the data symbol */
	if (!r->samples && rs->object && rs->object != rs->data_sym &&
	    rs->object != rs->data_dso) {
		r->object = rs->object;
		r->named = true;
	}
	if (!r->object)
		r->object = rs->data_sym ? rs->data_sym : rs->data_dso;
	/* in time order a row's last bucket is the one to grow; a late
	   sample (out of order) searches back */
	if (r->nr && r->cells[r->nr - 1].bucket == b) {
		r->cells[r->nr - 1].value += value;
	} else {
		uint32_t i = r->nr;

		while (i > 0 && r->cells[i - 1].bucket > b)
			i--;
		if (i > 0 && r->cells[i - 1].bucket == b) {
			r->cells[i - 1].value += value;
		} else {
			if (r->nr == r->cap) {
				uint32_t cap = r->cap ? r->cap * 2 : 4;
				struct heat_cell *c = realloc(r->cells,
							  cap * sizeof(*c));

				if (!c)
					return heat_oom();
				r->cells = c;
				r->cap = cap;
			}
			memmove(r->cells + i + 1, r->cells + i,
				(r->nr - i) * sizeof(*r->cells));
			r->cells[i] = (struct heat_cell){ b, value };
			r->nr++;
		}
	}
	r->total += value;
	r->samples++;
	h->total += value;
	h->samples++;
	return 0;
}

int pebs_heat__set_ranges(struct pebs_heat *h, unsigned int max_rows)
{
	if (!h || max_rows > 4096)
		return core_err(-EINVAL, "heat: at most 4096 rows of ranges");
	h->max_ranges = max_rows ? max_rows : HEAT_MAX_ROWS;
	return 0;
}

int pebs_heat__set_range(struct pebs_heat *h, const char *spec)
{
	unsigned long long lo, hi;
	int end = 0;

	if (!h || !spec || !*spec)
		return core_err(-EINVAL, "heat: an empty range: give "
				"ADDR-ADDR (hex) or a mapping's name");
	free(h->only);
	h->only = NULL;
	h->lo = h->hi = 0;
	if (spec[0] >= '0' && spec[0] <= '9') {
		if (sscanf(spec, "%llx-%llx%n", &lo, &hi, &end) != 2 ||
		    spec[end] || !strchr(spec, '-') ||
		    !(strchr(spec, '-')[1] >= '0' &&
		      strchr(spec, '-')[1] <= '9'))
			return core_err(-EINVAL, "heat: bad range '%s': give "
					"ADDR-ADDR in hex (0x7f0000000000-"
					"0x7f0000100000) or a mapping's name "
					"([heap], anon, libc.so.6)", spec);
		if (lo >= hi)
			return core_err(-EINVAL, "heat: the range %s is empty: "
					"give START-END with START < END", spec);
		h->lo = lo;
		h->hi = hi;
		return 0;
	}
	h->only = strdup(spec);
	return h->only ? 0 : heat_oom();
}

int pebs_heat__set_symbols(struct pebs_heat *h, struct pebs_symbols *syms)
{
	if (!h)
		return core_err(-EINVAL, "heat: no map");
	h->syms = syms;
	return 0;
}

size_t pebs_heat__nr_rows(const struct pebs_heat *h)
{
	return h->nr_rows;
}

