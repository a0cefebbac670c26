// SPDX-License-Identifier: MIT
/*
 * timeline.c - a growing user-space copy of the pebs_map switch
 * histories (lib/map/map.c), per CPU in time order, for attributing samples
 * after the fact; or one fed by hand (pebs_timeline__new_empty), from
 * recorded switches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/map.h"
#include "map/map-int.h"
#include "map/timeline-int.h"

/* Entries the timeline copies per pebs_map__hist_read() call. */
#define TL_BATCH		512

/*
 * A gap left by an overrun is stored as a marker entry with tgid == -1
 * (the module never records -1) and the number of switches lost in its
 * pid (timeline-int.h): lookups that land on it find no owner.
 */
#define GAP_TGID	TIMELINE_GAP_TGID

struct tl_cpu {
	struct pebs_map_switch *e;	/* sorted by time */
	size_t n, cap;
	uint64_t cursor;		/* next switch number to copy */
};

struct pebs_timeline {
	const struct pebs_map *map;
	uint64_t lost;
	struct pebs_map_switch batch[TL_BATCH];
	unsigned int nr_cpus;
	struct tl_cpu cpu[];
};

static struct pebs_timeline *tl_alloc(unsigned int nr_cpus)
{
	struct pebs_timeline *tl;

	tl = calloc(1, sizeof(*tl) + nr_cpus * sizeof(tl->cpu[0]));
	if (!tl) {
		core_err(-ENOMEM, "pebs_timeline: out of memory");
		return NULL;
	}
	tl->nr_cpus = nr_cpus;
	return tl;
}

int pebs_timeline__new(const struct pebs_map *map, struct pebs_timeline **tlp)
{
	unsigned int nr = map->nr_slots;
	struct pebs_timeline *tl = tl_alloc(nr);

	if (!tl)
		return -ENOMEM;
	tl->map = map;
	for (unsigned int c = 0; c < nr; c++) {
		uint64_t head = pebs_load_acquire(&map_slot(map, c)->hist_head);

		/* start with what the live history still holds */
		tl->cpu[c].cursor = map->hist_len ? hist_oldest(map, head) :
				    head;
	}
	*tlp = tl;
	return 0;
}

int pebs_timeline__new_empty(unsigned int nr_cpus, struct pebs_timeline **tlp)
{
	struct pebs_timeline *tl;

	if (!nr_cpus)
		return core_err(-EINVAL, "pebs_timeline: no CPUs");
	tl = tl_alloc(nr_cpus);
	if (!tl)
		return -ENOMEM;
	*tlp = tl;
	return 0;
}

void pebs_timeline__delete(struct pebs_timeline *tl)
{
	if (!tl)
		return;
	for (unsigned int c = 0; c < tl->nr_cpus; c++)
		free(tl->cpu[c].e);
	free(tl);
}

static int tl_reserve(struct tl_cpu *tc, size_t more)
{
	if (core_grow(&tc->e, &tc->cap, tc->n + more, sizeof(*tc->e)))
		return core_err(-ENOMEM, "pebs_timeline: out of memory (%zu switches)",
				tc->n + more);
	return 0;
}

static int tl_update_cpu(struct pebs_timeline *tl, unsigned int c)
{
	const struct pebs_map *map = tl->map;
	struct tl_cpu *tc = &tl->cpu[c];
	uint64_t head, lost;
	int n, added = 0, err;

	/* stop at the head seen now, so a busy CPU cannot keep us here */
	head = pebs_load_acquire(&map_slot(map, c)->hist_head);
	while (tc->cursor < head) {
		uint64_t want = head - tc->cursor;

		lost = 0;
		n = pebs_map__hist_read(map, c, &tc->cursor, tl->batch,
					want < TL_BATCH ? want : TL_BATCH,
					&lost);
		if (n < 0)
			return n;
		/* +1: room for a gap marker */
		err = tl_reserve(tc, n + 1);
		if (err)
			return err;
		if (lost) {
			tl->lost += lost;
			if (tc->n && tc->e[tc->n - 1].tgid != GAP_TGID) {
				uint64_t t = tc->e[tc->n - 1].time;

				/* the last known owner ran at least at t */
				tc->e[tc->n++] = (struct pebs_map_switch) {
					.time = t < UINT64_MAX ? t + 1 : t,
					.tgid = GAP_TGID,
					.pid = 0,
				};
			}
			if (tc->n) {
				struct pebs_map_switch *g = &tc->e[tc->n - 1];
				uint64_t sum = (uint64_t)g->pid + lost;

				g->pid = sum > INT32_MAX ? INT32_MAX :
							   (int32_t)sum;
			}
		}
		if (n == 0)
			break;
		/* keep a marker no later than the switch that ends the gap */
		if (tc->n && tc->e[tc->n - 1].tgid == GAP_TGID &&
		    tc->e[tc->n - 1].time > tl->batch[0].time)
			tc->e[tc->n - 1].time = tl->batch[0].time;
		memcpy(&tc->e[tc->n], tl->batch, n * sizeof(tl->batch[0]));
		tc->n += n;
		added += n;
	}
	return added;
}

int pebs_timeline__update(struct pebs_timeline *tl)
{
	int total = 0, n;

	if (!tl->map)
		return 0;	/* fed by pebs_timeline__add */
	for (unsigned int c = 0; c < tl->nr_cpus; c++) {
		n = tl_update_cpu(tl, c);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

uint64_t pebs_timeline__lost(const struct pebs_timeline *tl)
{
	return tl->lost;
}

static int tl_bad_cpu(const struct pebs_timeline *tl, unsigned int cpu)
{
	if (tl->map)
		return map_bad_cpu(tl->map, cpu);
	return core_err(-EINVAL, "CPU %u not in the timeline (%u CPUs)", cpu,
			tl->nr_cpus);
}

int pebs_timeline__add(struct pebs_timeline *tl, unsigned int cpu,
		       const struct pebs_map_switch *sw)
{
	struct tl_cpu *tc;
	size_t i;
	int err;

	if (tl->map)
		return core_err(-EINVAL, "pebs_timeline__add: this timeline is fed from its pebs_map");
	if (cpu >= tl->nr_cpus)
		return tl_bad_cpu(tl, cpu);
	tc = &tl->cpu[cpu];
	err = tl_reserve(tc, 1);
	if (err)
		return err;
	/* one CPU's records come in time order; keep the copy sorted anyway */
	for (i = tc->n; i > 0 && tc->e[i - 1].time > sw->time; i--)
		tc->e[i] = tc->e[i - 1];
	tc->e[i] = *sw;
	tc->n++;
	return 0;
}

int pebs_timeline__lookup(const struct pebs_timeline *tl, unsigned int cpu,
			  uint64_t time, struct pebs_map_switch *who)
{
	const struct tl_cpu *tc;
	size_t l, r, m;

	if (cpu >= tl->nr_cpus)
		return tl_bad_cpu(tl, cpu);
	tc = &tl->cpu[cpu];
	/* the first switch later than @time */
	l = 0;
	r = tc->n;
	while (l < r) {
		m = l + (r - l) / 2;
		if (tc->e[m].time <= time)
			l = m + 1;
		else
			r = m;
	}
	if (l == 0 || tc->e[l - 1].tgid == GAP_TGID)
		return -ENOENT;
	*who = tc->e[l - 1];
	return 0;
}

/* ---- for lib/attrib/attrib-switch.c (timeline-int.h) ------------------------- */

const struct pebs_map *timeline_map(const struct pebs_timeline *tl)
{
	return tl->map;
}

unsigned int timeline_nr_cpus(const struct pebs_timeline *tl)
{
	return tl->nr_cpus;
}

const struct pebs_map_switch *timeline_entries(const struct pebs_timeline *tl,
					       unsigned int cpu, size_t *nr)
{
	*nr = tl->cpu[cpu].n;
	return tl->cpu[cpu].e;
}
