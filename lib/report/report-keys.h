/* SPDX-License-Identifier: MIT */
/*
 * report-keys.h - the report's keys (lib/report/report-keys.c) as lib/report/report.c
 * stores them: each key sets some fields of a pebs_report_row, and a
 * row keeps only the fields its report's keys use, as 64-bit atoms.
 * Not installed.
 */
#ifndef PEBSSHIM_REPORT_KEYS_H
#define PEBSSHIM_REPORT_KEYS_H

#include "core/internal.h"
#include "pebsshim/report.h"

#define CACHE_LINE	64
#define PAGE_4K		4096

/* The key fields of a row; those from RK_DATA_SYM on are only shown
   (not compared) unless a key compares them. */
enum rk_field {
	RK_PID, RK_TID, RK_CPU, RK_EVENT, RK_COMM, RK_DSO, RK_SYM, RK_IP,
	RK_KERNEL, RK_ADDR, RK_DATA_SRC, RK_PHYS, RK_DATA_DSO, RK_WEIGHT,
	RK_INS_LAT, RK_OBJECT, RK_OBJECT_FIELD, RK_SRCLINE, RK_SRCFILE, RK_TIME,
	RK_DATA_SYM, RK_DATA_SYM_OFF,
	RK_NR_FIELDS
};

/* rk_fields - the fields @key sets (bit n: field n). */
uint32_t rk_fields(enum pebs_report_key key);

/* rk_src_mask - the data_src bits of the mem, snoop and tlb keys. */
uint64_t rk_src_mask(enum pebs_report_key key);

/* rk_make - set the fields of @k that key @key takes from @s. */
void rk_make(enum pebs_report_key key, bool dsym_key,
	     const struct pebs_report_sample *s, struct pebs_report_row *k);

/* rk_plain - whether @key sets one field, from the sample alone; then
   rk_plain_atom is that field's atom (as rk_make then rk_get). */
bool rk_plain(enum pebs_report_key key);
uint64_t rk_plain_atom(enum pebs_report_key key,
		       const struct pebs_report_sample *s);

/*
 * rk_direct - whether a report of @keys (@n) gets its atoms field by
 * field from the sample (rk_direct_atom, with the flags *flags) rather
 * than through a pebs_report_row (rk_make then rk_get): keys pid, tid,
 * comm, dso, sym, cpu and event.
 */
#define RK_HAS_TID	1u	/* a tid key: comm does not zero the tid */
#define RK_HAS_DSO	2u	/* a dso key: sym does not zero the dso */
bool rk_direct(const enum pebs_report_key *keys, unsigned int n,
	       unsigned int *flags);

/* As rk_make of those keys (in any order) and rk_get (inline: once per
   atom per sample). */
static inline uint64_t rk_direct_atom(enum rk_field f, unsigned int flags,
				      const struct pebs_report_sample *s)
{
	switch (f) {
	case RK_PID:
		return (uint32_t)s->pid;
	case RK_TID:	/* an unknown thread is shown by its tid */
		return (flags & RK_HAS_TID) || !s->comm ? (uint32_t)s->tid : 0;
	case RK_CPU:
		return s->cpu;
	case RK_EVENT:
		return s->event;
	case RK_COMM:
		return (uintptr_t)s->comm;
	case RK_DSO:	/* no symbol: the address within its dso */
		return (flags & RK_HAS_DSO) || !s->sym ?
		       (uintptr_t)s->dso : 0;
	case RK_SYM:
		return (uintptr_t)s->sym;
	case RK_IP:
		return s->sym ? 0 : s->ip;
	case RK_KERNEL:
		return s->kernel;
	default:
		return 0;
	}
}

/* rk_get, rk_set - field @f of @row as an atom, and back. */
uint64_t rk_get(const struct pebs_report_row *row, enum rk_field f);
void rk_set(struct pebs_report_row *row, enum rk_field f, uint64_t v);

/* rk_cmp - two rows' @key, in the order perf prints ties; @x and @y
   give the fields by atom (missing fields read 0). */
typedef uint64_t (*rk_field_fn)(const void *row, enum rk_field f,
				const void *arg);
int rk_cmp(enum pebs_report_key key, const void *x, const void *y,
	   rk_field_fn get, const void *arg);

#endif /* PEBSSHIM_REPORT_KEYS_H */
