/* SPDX-License-Identifier: MIT */
/*
 * report-rows.h - a report's rows as lib/report.c stores them, shared
 * with lib/report-derive.c. Not installed.
 */
#ifndef PEBSSHIM_REPORT_ROWS_H
#define PEBSSHIM_REPORT_ROWS_H

#include "report-keys.h"

#define CHUNK_SHIFT	15		/* rows per chunk: 32768 */
#define CHUNK_ROWS	(1u << CHUNK_SHIFT)
#define MORE_TIDS	(PEBS_REPORT_MAX_TIDS - 1)
#define NO_ATOM		0xff

struct slot {
	uint32_t idx;		/* row + 1; 0: empty */
	uint32_t hash;
};

/* A row's sums (40 bytes); its key atoms follow. */
struct rsum {
	uint64_t period, samples;
	uint32_t loads, stores, hitm;
	uint32_t nr_tids;	/* as pebs_report_row's */
	int32_t tid0;
	uint32_t ext;		/* its rext at exts[ext - 1]; 0: none yet */
};

/* What few rows need: weights, and thread ids beyond the first. */
struct rext {
	uint64_t weight_sum, weight_nr;
	int32_t tids[MORE_TIDS];
};

struct pebs_report {
	enum pebs_report_key keys[PEBS_REPORT_MAX_KEYS];
	unsigned int nr_keys;
	bool need_addr, need_src;
	bool dsym_key;		/* the data symbol is a key (symbol_daddr),
				   not only shown (dcacheline) */
	uint8_t atom_of[RK_NR_FIELDS];	/* NO_ATOM: field not kept */
	enum rk_field field_of[RK_NR_FIELDS];	/* atom -> field */
	unsigned int nr_atoms, nr_cmp;	/* atoms [0, nr_cmp) are compared */
	bool plain;		/* every key rk_plain, each its own field:
				   atom i is rk_plain_atom(plain_key[i]) */
	enum pebs_report_key plain_key[RK_NR_FIELDS];
	size_t stride;		/* bytes per row */
	unsigned char **chunks;
	size_t nr, nr_chunks;
	size_t nr_all;		/* derived: rows in all, of which the first
				   nr (in order) are kept */
	struct rext *exts;	/* the rows' extensions */
	size_t nr_exts, cap_exts;
	struct slot *slots;
	size_t cap;		/* a power of two */
	uint32_t *order;	/* rows in sorted order, after __sort */
	struct pebs_report_row *view;	/* what __row returns */
	uint64_t samples, period;
	uint64_t *ev_samples, *ev_period;	/* per event */
	unsigned int nr_events;
};

static inline unsigned char *row_at(const struct pebs_report *r, size_t i)
{
	return r->chunks[i >> CHUNK_SHIFT] + (i & (CHUNK_ROWS - 1)) * r->stride;
}

static inline uint64_t *atoms(unsigned char *row)
{
	return (uint64_t *)(row + sizeof(struct rsum));
}

/* rp_new_row - a new row of key atoms @a, sums 0; NULL: out of memory. */
unsigned char *rp_new_row(struct pebs_report *r, const uint64_t *a);

/* rp_row_ext - the rext of @row, taken when first needed; NULL: out of
   memory. */
struct rext *rp_row_ext(struct pebs_report *r, struct rsum *row);

/* rp_row_cmp - rows by index (qsort_r, @arg the report): the order
   printed. */
int rp_row_cmp(const void *a, const void *b, void *arg);

#endif /* PEBSSHIM_REPORT_ROWS_H */
