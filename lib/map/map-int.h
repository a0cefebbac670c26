/* SPDX-License-Identifier: MIT */
/*
 * map-int.h - the pebs_map reader's object, shared by lib/map/map.c (the table
 * and its histories) and lib/map/timeline.c; not installed.
 */
#ifndef PEBSSHIM_MAP_INT_H
#define PEBSSHIM_MAP_INT_H

#include "core/barrier.h"
#include "core/internal.h"
#include "pebsshim/map.h"

struct pebs_map {
	struct pebs_map_header hdr;	/* validated copy */
	const unsigned char *table;	/* slots at table + hdr.slots_offset */
	const unsigned char *hist;	/* CPU c at hist + c * hist_len * 16 */
	size_t table_map_len;		/* mmap lengths; 0: not ours */
	size_t hist_map_len;
	unsigned int nr_slots;
	uint64_t hist_len;		/* entries per CPU (0: no history) */
};

static inline const struct pebs_map_slot *
map_slot(const struct pebs_map *map, unsigned int cpu)
{
	return (const struct pebs_map_slot *)(map->table +
		map->hdr.slots_offset + (size_t)cpu * PEBS_MAP_SLOT_SIZE);
}

/*
 * The oldest switch number still safe to copy when hist_head == @head.
 * The writer fills entry number head (at the place of head - hist_len)
 * before it publishes head + 1, so a full history holds hist_len - 1
 * stable entries.
 */
static inline uint64_t hist_oldest(const struct pebs_map *map, uint64_t head)
{
	return head >= map->hist_len ? head - map->hist_len + 1 : 0;
}

/* map_bad_cpu - the error for a CPU not in @map's table. */
int map_bad_cpu(const struct pebs_map *map, unsigned int cpu);

#endif /* PEBSSHIM_MAP_INT_H */
