/* SPDX-License-Identifier: MIT */
/*
 * heat.h - the heat map's private state, shared by lib/plot/heat.c
 * (samples into granules), lib/plot/heat-ranges.c (the granules binned
 * into address ranges) and lib/plot/plot-heat.c (the picture). Not
 * installed.
 */
#ifndef PEBSSHIM_HEAT_H
#define PEBSSHIM_HEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pebsshim/symbols.h"

#define HEAT_BUCKETS	120
#define HEAT_MAX_ROWS	48	/* the rows drawn, and the range view's */

struct heat_cell {
	uint32_t bucket;
	uint64_t value;
};

/* A granule of one process: a page or a cache line. */
struct heat_unit {
	int32_t pid;
	uint32_t map;		/* index + 1 into the heat's maps, 0 none */
	uint32_t owner;		/* index + 1 into the heat's owners: the
				   one thread whose samples it has; 0
				   several (the range view only) */
	uint64_t block;		/* address >> shift */
	const char *object;	/* data_sym or data_dso, or NULL; with
				   named, the data object's label */
	bool named;		/* a data object (heap allocation, static
				   variable in .bss) named by
				   pebs_session__set_objects */
	char *label;		/* pebs_symbols__data_label's, or NULL */
	uint64_t total, samples;
	struct heat_cell *cells;
	uint32_t nr, cap;
};

/* A mapping some granule fell in, at that granule's first sample. */
struct heat_map {
	int32_t pid;
	uint64_t start, end, pgoff;
	bool file;		/* pgoff is a file offset */
	char name[256];		/* pebs_data_map__name's */
};

/* A thread some granule's samples all came from. */
struct heat_owner {
	int32_t tid;
	char comm[32];		/* "" when the sample had none */
};

/* A row of the range view: units [first, first + n) of the sorted ones. */
struct heat_range {
	int32_t pid;
	uint32_t map;		/* as the units' */
	uint32_t owner;		/* the units' one owner, else 0 */
	uint64_t start, end;	/* from the first unit to the last's end */
	size_t first, n;
	uint64_t total, samples;
};

/* The heat map: granules (lib/plot/heat.c), drawn by plot-heat.c. */
struct pebs_heat {
	unsigned int shift;	/* log2 of the granule */
	uint64_t t0, t1;
	struct heat_unit *rows;
	size_t nr_rows, cap_rows;
	uint32_t *tab;		/* (pid, block) -> row + 1 */
	size_t mask;
	uint64_t total, samples;
	struct pebs_symbols *syms;	/* labels rows, or NULL */
	unsigned int max_ranges;	/* the range view's rows; 0: fine */
	struct heat_map *maps;		/* the range view's mappings */
	size_t nr_maps, cap_maps, last_map;
	struct heat_owner *owners;	/* and its granules' threads */
	size_t nr_owners, cap_owners, last_owner;
	uint64_t lo, hi;		/* only [lo, hi) when lo < hi */
	char *only;			/* only the mappings of this name */
	struct pebs_data_map only_map;	/* the last one looked up */
	int32_t only_pid;
	bool only_hit;
	uint64_t outside;		/* samples left out by the range */
};

/* heat_oom - -ENOMEM, with the heat map's error reason */
int heat_oom(void);

/*
 * heat_bin - @units (sorted here by process, mapping, address; the
 * @maps that overlap are one: the kernel reports a mapping merged with
 * its neighbour as one MMAP2 record, so granules first touched before
 * and after it saw two) binned
 * into at most @max_rows ranges (cut first where one named data object's
 * granules meet another's or unnamed ones, each object's range never
 * merged with another's; cut also where the one thread a run of
 * granules has samples from changes: two arrays that the kernel merged
 * into one mapping, each first touched by its own thread) (more only when more mappings than
 * that have samples), in address order; @all is the heat's total (a
 * range under 1 % of it is not split). *@out is malloc'ed. Returns 0
 * or -ENOMEM.
 */
int heat_bin(struct heat_unit **units, size_t nr, unsigned int shift,
	     const struct heat_map *maps, size_t nr_maps,
	     unsigned int max_rows, uint64_t all, struct heat_range **out,
	     size_t *nr_out);

#endif /* PEBSSHIM_HEAT_H */
