/* SPDX-License-Identifier: MIT */
/*
 * tasks-int.h - what lib/session/tasks.c (perf's threads and their tree)
 * shares with lib/session/tasks-maps.c (a process's maps and perf's
 * dsos); not installed.
 */
#ifndef PEBSSHIM_TASKS_INT_H
#define PEBSSHIM_TASKS_INT_H

#include <stdio.h>

#include "core/internal.h"

#define TASKS_MAX_MAPS	(1u << 22)	/* maps held, all processes */
#define TK_NONE		UINT32_MAX
#define TK_READ		1		/* PROT_READ, _WRITE, _EXEC */
#define TK_WRITE	2
#define TK_EXEC		4

/* one map, a node of its process's treap */
struct tk_map {
	uint64_t start, end, pgoff;
	uint32_t prot, flags;
	uint32_t dso;			/* index in struct tk_space */
	uint32_t prio;
	struct tk_map *l, *r;
};

/* a process's maps, shared by its threads */
struct tk_maps {
	struct tk_map *root;
	uint32_t refs;
};

struct tk_dso {
	const char *name;		/* interned */
	uint32_t maj, min;
	uint64_t ino, gen;
};

/*
 * Items 0, 1, ... (a table's indexes) found by a 64-bit key: chains of
 * a hash table at most one item per head, each item's key and link kept
 * here. An item removed stays out.
 */
struct tk_chains {
	uint32_t *heads;		/* nr_heads: a power of two */
	size_t nr_heads;
	uint64_t *key;			/* per item */
	uint32_t *next;			/* per item; TK_OUT: removed */
	size_t cap, nr, linked;		/* room, items, of them linked */
};
#define TK_OUT		(UINT32_MAX - 1)

/* tk_chains_add - item @nr (the next index) of @key: 0 or -ENOMEM */
int tk_chains_add(struct tk_chains *c, uint64_t key);
/* tk_chains_first - the first item of @key, or TK_NONE */
uint32_t tk_chains_first(const struct tk_chains *c, uint64_t key);
/* tk_chains_next - the item of @item's key after it, or TK_NONE */
uint32_t tk_chains_next(const struct tk_chains *c, uint32_t item);
/* tk_chains_remove - @item (linked) out of its chain */
void tk_chains_remove(struct tk_chains *c, uint32_t item);
void tk_chains_free(struct tk_chains *c);

/* the maps' and dsos' common state, and the interned names */
struct tk_space {
	struct tk_dso *d;
	size_t nr_d, cap_d;
	struct tk_chains dchains;	/* the dsos by name */
	struct core_strset names;	/* dso names, comms */
	size_t held;			/* maps in all processes */
	uint64_t seed;			/* the treaps' priorities */
};

int tk_oom(void);

/* tk_maps_new - empty maps, one reference: 0 or -ENOMEM */
int tk_maps_new(struct tk_maps **mp);
/* tk_maps_put - drop a reference (NULL is allowed) */
void tk_maps_put(struct tk_space *sp, struct tk_maps *m);
/*
 * tk_map_insert - perf's maps__fixup_overlappings and insertion of a
 * copy of @n (its start, end, pgoff, prot, flags, dso). 0, -ENOMEM,
 * -ENOSPC (TASKS_MAX_MAPS held).
 */
int tk_map_insert(struct tk_space *sp, struct tk_maps *m,
		  const struct tk_map *n);
/* tk_maps_copy - perf's maps__clone: @from's maps into @to */
int tk_maps_copy(struct tk_space *sp, struct tk_maps *to,
		 const struct tk_maps *from);
/* tk_dso_findnew - perf's dso of @name and id, made if none */
int tk_dso_findnew(struct tk_space *sp, const char *name, uint32_t maj,
		   uint32_t min, uint64_t ino, uint64_t gen, uint32_t *idx);
/* tk_maps_print - perf's maps__fprintf_task, each line indented */
void tk_maps_print(const struct tk_space *sp, const struct tk_maps *m,
		   int indent, FILE *f);
/* tk_space_free - the dsos and names */
void tk_space_free(struct tk_space *sp);

#endif
