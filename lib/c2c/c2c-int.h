/* SPDX-License-Identifier: MIT */
/* c2c-int.h - the pebs_c2c table, shared by lib/c2c/c2c.c and lib/c2c/c2c-sort.c. */
#ifndef PEBSSHIM_C2C_INT_H
#define PEBSSHIM_C2C_INT_H

#include "core/internal.h"
#include "pebsshim/c2c.h"

#define C2C_NONE	UINT32_MAX
#define LINE_SHIFT	6

/* what perf stores in a sample without PERF_SAMPLE_DATA_SRC */
#define C2C_DATA_SRC_NONE \
	(PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) | \
	 PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA) | PERF_MEM_S(LVLNUM, NA))

/* hash key kinds, in the top 4 bits of the first word */
enum { K_LINE, K_LTHREAD, K_LCPU, K_IP, K_THREAD, K_CPU, K_IPCPU,
       K_DSOA, K_DSOB, K_DSOC };
/* interned dso ids: at most this many nodes (the line key has 24 bits) */
#define C2C_MAX_DSO	((1U << 24) - 1)
#define KIND(k, parent)	(((uint64_t)(k) << 60) | (parent))

/* one slot: key (a, b) and value, in one cache line's quarter */
struct c2c_slot {
	uint64_t a, b;
	uint32_t val;		/* C2C_NONE: empty slot */
};

struct c2c_hash {
	struct c2c_slot *s;
	size_t cap, n;		/* cap: a power of two, or 0 */
};

struct c2c_line {
	uint64_t addr;
	uint32_t pid;
	struct pebs_c2c_dkey key;	/* perf's dcacheline key */
	uint32_t off[64];	/* offset node per byte offset, or C2C_NONE */
	struct pebs_c2c_stats st;
	uint64_t unknown, load_w, load_n;
	uint64_t phys, last_phys, nodes;	/* perf's PA cnt, nodeset */
	unsigned int nr_threads, nr_offsets, nr_cpus;
	/* computed by sort */
	uint64_t xwrites;
	enum pebs_c2c_sharing sharing;
	struct pebs_c2c_evidence ev, fev;	/* fev: false sharing, when
						   true sharing too */
	bool also_false;
	/* named by pebs_c2c__set_object */
	const char *object, *object_inst;
	unsigned int nr_objects;
};

struct c2c_offset {
	uint8_t off;
	struct pebs_c2c_stats st;
	uint64_t unknown;
	enum pebs_c2c_sharing sharing;	/* computed by sort */
	uint32_t ips, threads, cpus;	/* list heads */
	unsigned int nr_ips, nr_threads, nr_cpus;
};

struct c2c_ipnode {
	struct pebs_c2c_ip v;
	uint64_t last_phys;
	uint32_t next;
};

struct c2c_thread {
	struct pebs_c2c_thread v;
	uint32_t next;
};

struct c2c_cpu {
	struct pebs_c2c_cpu v;
	uint32_t next;
};

#define C2C_VEC(type) struct { type *a; size_t n, cap; }

struct pebs_c2c {
	struct pebs_c2c_stats st;
	struct c2c_hash h;
	uint32_t nr_dso;	/* interned dso id nodes */
	C2C_VEC(struct c2c_line) lines;
	C2C_VEC(struct c2c_offset) offs;
	C2C_VEC(struct c2c_ipnode) ips;
	C2C_VEC(struct c2c_thread) threads;
	C2C_VEC(struct c2c_cpu) cpus;
	uint32_t *order;	/* line indices, shown ones first */
	size_t nr_shown;
	bool sorted, has_data_src;
	enum pebs_c2c_display display;
	unsigned int nr_shared;
	struct pebs_c2c_stats shared;
	void *scratch;		/* c2c-share.c's nodes of one line */
	size_t scratch_n;
};

/* c2c-share.c: the sharing class of @l and of its offsets (sort) */
int c2c_classify(struct pebs_c2c *c, struct c2c_line *l);

#endif /* PEBSSHIM_C2C_INT_H */
