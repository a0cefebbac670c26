/* SPDX-License-Identifier: MIT */
/*
 * timeline-int.h - what lib/attrib/attrib-switch.c reads of a pebs_timeline
 * (lib/map/timeline.c); not installed, not exported.
 */
#ifndef PEBSSHIM_TIMELINE_INT_H
#define PEBSSHIM_TIMELINE_INT_H

#include "core/internal.h"
#include "pebsshim/map.h"

/*
 * An overrun's gap in a CPU's entries: tgid TIMELINE_GAP_TGID, time no
 * later than the switch after the gap, pid the switches lost there.
 */
#define TIMELINE_GAP_TGID	(-1)

/* timeline_map - the map @tl is fed from; NULL if fed by hand */
const struct pebs_map *timeline_map(const struct pebs_timeline *tl);
unsigned int timeline_nr_cpus(const struct pebs_timeline *tl);
/*
 * timeline_entries - CPU @cpu's entries in time order (*nr of them),
 * valid until the next pebs_timeline__update or __add. @cpu must be
 * below timeline_nr_cpus.
 */
const struct pebs_map_switch *timeline_entries(const struct pebs_timeline *tl,
					       unsigned int cpu, size_t *nr);

#endif /* PEBSSHIM_TIMELINE_INT_H */
