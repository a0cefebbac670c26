/* SPDX-License-Identifier: MIT */
/*
 * objects-int.h - the objects table's layout, shared by objects.c (the
 * objects over time) and objects-stats.c (what the samples and the
 * allocations say of each object).
 */
#ifndef PEBSSHIM_OBJECTS_INT_H
#define PEBSSHIM_OBJECTS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "pebsshim/objects.h"

#define NO_END		UINT64_MAX
#define MAX_RUNS	64

struct obj {
	uint64_t start, end;	/* [start, end) */
	uint64_t t0, t1;	/* live in [t0, t1) */
	uint64_t size;
	uint64_t stands;	/* the bytes it stands for (>= size: a
				   sampled allocation's size / p) */
	const char *site, *inst;
	int32_t pid;
};

/* an interned label: a site's, or an instance's (obj: its object + 1) */
struct str {
	struct str *next;
	uint32_t hash;
	unsigned int instances;	/* objects of this site so far */
	size_t obj;		/* an instance label's object + 1; 0: a site */
	double est;		/* the objects they stand for: stands / size
				   summed (instances where none was sampled) */
	uint64_t bytes;		/* the bytes they stand for, summed */
	uint64_t peak;		/* most of those live at once */
	double live;		/* the sweep's running sum */
	uint64_t static_size;	/* a static variable's (objects_static) */
	char s[];
};

struct ostats;			/* objects-stats.c */

/* a sorted run of the index: its objects by start, and mx[i] the
   highest end of ord[0..i] */
struct run {
	size_t *ord;
	uint64_t *mx;
	size_t n;
};

/* runs whose sizes at least double from the last to the first */
struct runs {
	struct run r[MAX_RUNS];
	unsigned int n;
};

struct pebs_objects {
	struct obj *v;
	size_t n, cap;
	/* v's first nord: those that may be live at the latest time, and
	   those that ended before horizon (a lookup of a time at or after
	   it never needs them) */
	struct runs live, past;
	uint64_t horizon;
	size_t nord;
	/* the open objects by (pid, start): index + 1, 0 empty */
	size_t *open;
	size_t open_cap, open_n;
	uint64_t last_time;	/* of the latest alloc or free */
	bool unordered;		/* one came before another's time */
	bool swept;		/* str.peak is up to date */
	struct ostats *stats;	/* the samples' weights, lines */
	struct pd_numa *numa;	/* the recording's nodes (objects_numa) */
	bool *cpu_ev;		/* per event: samples carry their CPU */
	unsigned int nr_cpu_ev;
	struct str **strs;	/* nr_buckets chains, a power of two */
	size_t nr_buckets, nr_strs;
};

/* the interned label equal to @s, or NULL */
struct str *objects_label(const struct pebs_objects *o, const char *s);
/* @label is a static variable of @size bytes: 0 or -ENOMEM */
int objects_static(struct pebs_objects *o, const char *label, uint64_t size);
/* @s interned (equal strings one pointer, as long as @o), or NULL */
const char *objects_intern(struct pebs_objects *o, const char *s);

/* objects-field.c: static variables' fields from DWARF */
struct objects_fields;
int objects_fields__new(struct objects_fields **fp);
void objects_fields__delete(struct objects_fields *f);
/*
 * objects_field - "name.member[].member" of byte @off of the static
 * variable @name of ELF file @path into @buf: 0, or -ENOENT (no DWARF,
 * no such variable, no member there, or @len too short).
 */
int objects_field(struct objects_fields *f, const char *path,
		  const char *name, uint64_t off, char *buf, size_t len);

/*
 * objects_numa - the samples of @pd count node_local/node_remote by its
 * HEADER_MEM_TOPOLOGY and HEADER_NUMA_TOPOLOGY (replacing a previous
 * recording's): 0 or -ENOMEM.
 */
int objects_numa(struct pebs_objects *o, const struct pebs_perfdata *pd);
/* objects_numa_free - free what objects_numa set */
void objects_numa_free(struct pebs_objects *o);
/*
 * objects_node - where sample @s's physical address lives for its CPU:
 * OBJ_NODE_LOCAL (the node holding phys_addr is the node of the CPU),
 * OBJ_NODE_REMOTE, or OBJ_NODE_UNKNOWN (no physical address, no CPU,
 * or either outside the topology).
 */
enum obj_node { OBJ_NODE_UNKNOWN, OBJ_NODE_LOCAL, OBJ_NODE_REMOTE };
enum obj_node objects_node(const struct pebs_objects *o,
			   const struct pebs_report_sample *s);

/* free what objects-stats.c holds */
void objects_stats_free(struct pebs_objects *o);

#endif /* PEBSSHIM_OBJECTS_INT_H */
