/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/map.h - libpebsshim: the /dev/pebs_map table of the kernel
 * module, and timelines of its switch histories.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_MAP_H
#define PEBSSHIM_MAP_H

#include "pebs_map.h"
#include "pebsshim/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The /dev/pebs_map table (lib/map/map.c)                            */
/* ------------------------------------------------------------------ */

struct pebs_map;

/* A consistent copy of one CPU's slot. */
struct pebs_map_snapshot {
	uint32_t cpu;
	int32_t tgid;		/* -1 never seen, 0 idle */
	int32_t pid;
	uint32_t seq;		/* the (even) sequence value of the copy */
	uint64_t switches;
	uint64_t last_switch_ns;
	uint64_t hist_head;
	char comm[PEBS_MAP_COMM_LEN];
};

/*
 * pebs_map__open - open and map the table (path NULL: /dev/pebs_map).
 *
 * @path may also name a regular file laid out as the device (the table
 * at offset 0, the history at header->hist_offset): tests and replays.
 * Maps both regions read-only and closes the descriptor (the mappings
 * keep the module pinned until pebs_map__close). Validates magic, ABI
 * version, sizes and offsets. Returns 0, or -ENOENT (module not loaded),
 * -EACCES (device mode), -EPROTO (ABI version differs), -EBADMSG (bad
 * magic, sizes or offsets; a file too short), -ENODEV (neither a device
 * nor a file), or another -errno from open/mmap.
 */
PEBS_API int pebs_map__open(const char *path, struct pebs_map **mapp);

/*
 * pebs_map__from_memory - a reader over a table and history that live
 * in ordinary memory laid out as the ABI says (tests, replays). The
 * memory is not copied and must outlive the map; both pointers must be
 * 8-byte aligned. hist may be NULL when header->hist_len is 0
 * (header->hist_offset is ignored). Returns 0, -EINVAL (table too small
 * for a header, or misaligned), or the validation errors of
 * pebs_map__open (-EBADMSG, -EPROTO).
 */
PEBS_API int pebs_map__from_memory(const void *table, size_t table_size,
				   const void *hist, size_t hist_size,
				   struct pebs_map **mapp);

/* pebs_map__header - the validated header (a copy taken at open). */
PEBS_API const struct pebs_map_header *
pebs_map__header(const struct pebs_map *map);

/* pebs_map__nr_cpus - number of slots (possible CPU ids). */
PEBS_API unsigned int pebs_map__nr_cpus(const struct pebs_map *map);

/*
 * pebs_map__read_slot - take a consistent snapshot of one CPU's slot.
 *
 * Seqcount read side: retries while the writer is mid-update (spinning,
 * then yielding), so snap->comm is always NUL-terminated and every field
 * belongs to the same update. Thread-safe, no allocation. Returns 0,
 * -EINVAL if cpu is out of range, or -EAGAIN if no consistent copy
 * could be taken within a bounded number of retries (10000).
 */
PEBS_API int pebs_map__read_slot(const struct pebs_map *map, unsigned int cpu,
				 struct pebs_map_snapshot *snap);

/*
 * pebs_map__hist_read - copy the switches of @cpu from *cursor on.
 *
 * *cursor is a switch number (start with 0, or a snapshot's hist_head to
 * see only new switches). Copies at most @max entries in order and
 * advances *cursor past them. Entries lost to the writer (overwritten
 * before they were read) are skipped; their number is added to *lost
 * (which may be NULL). All lost entries precede the copied ones, so
 * after a call *cursor == old cursor + lost + copied. A full history
 * holds hist_len - 1 readable entries (the writer may be rewriting the
 * oldest). Returns the number of entries copied (0: nothing new, or
 * the writer kept overtaking the copy), or -EINVAL (cpu out of range,
 * *cursor past the head).
 */
PEBS_API int pebs_map__hist_read(const struct pebs_map *map, unsigned int cpu,
				 uint64_t *cursor, struct pebs_map_switch *out,
				 unsigned int max, uint64_t *lost);

/*
 * pebs_map__lookup - who ran on @cpu at @time.
 *
 * Finds the last switch on @cpu with switch time <= @time in the live
 * history, by binary search (O(log hist_len), no allocation). Returns 0
 * and fills *who (tgid 0: idle), -ENOENT if @time is older than the
 * history still holds (or nothing was recorded yet; no message is set,
 * this is the per-sample path), -EAGAIN if the writer kept overtaking
 * the search, or -EINVAL (cpu out of range).
 */
PEBS_API int pebs_map__lookup(const struct pebs_map *map, unsigned int cpu,
			      uint64_t time, struct pebs_map_switch *who);

/* pebs_map__close - unmap and free; NULL is allowed. */
PEBS_API void pebs_map__close(struct pebs_map *map);

/* ------------------------------------------------------------------ */
/* The table as pebs-shim map prints it (lib/map/map-print.c)         */
/* ------------------------------------------------------------------ */

/*
 * pebs_map__print_header - one line to @f: "pebs_map ABI V: N CPUs,
 * hist_len H, clock C, hook K, pids init-ns|other-ns".
 */
PEBS_API void pebs_map__print_header(const struct pebs_map *map, FILE *f);

struct pebs_map_print_opts {
	size_t sz;
	const uint64_t *cpus;	/* these CPUs only (a bitmap as
				   pebs_cpulist__parse fills it, of
				   pebs_map__nr_cpus bits or more), each
				   printed even if never seen switching;
				   NULL: every CPU */
	bool all;		/* also CPUs never seen switching ("-") */
	unsigned int history;	/* each CPU's last switches shown */
};

/*
 * pebs_map__print - one line per CPU to @f: "CPU0: tgid T pid P
 * switches S comm C" ("idle" for tgid 0; "CPU1: -" for a CPU never seen
 * switching, only with @all or @cpus), then with @history its last
 * switches ("  switch N at S.NNNNNNNNN: tgid T pid P", time in the
 * table's clock, and a line counting those no longer in the history).
 * Returns 0, -EINVAL, -ENOMEM, or pebs_map__read_slot's and
 * pebs_map__hist_read's errors.
 */
PEBS_API int pebs_map__print(const struct pebs_map *map, FILE *f,
			     const struct pebs_map_print_opts *opts);

/* ------------------------------------------------------------------ */
/* Timelines: the switch histories copied as they grow                */
/* (lib/map/timeline.c)                                               */
/* ------------------------------------------------------------------ */

/*
 * struct pebs_timeline - a growing user-space copy of the switch
 * histories, for attributing samples after the fact (the live history
 * only holds the last hist_len - 1 switches per CPU). Call
 * pebs_timeline__update often enough (more often than hist_len
 * switches per CPU) to lose nothing. Not thread-safe: update and look
 * up from one thread, or lock around it. Memory grows by 16 bytes per
 * switch copied.
 */
struct pebs_timeline;

/*
 * pebs_timeline__new - a timeline fed from @map (not owned; it must
 * outlive the timeline). It starts with what the live history still
 * holds. Returns 0 or -ENOMEM.
 */
PEBS_API int pebs_timeline__new(const struct pebs_map *map,
				struct pebs_timeline **tlp);

/*
 * pebs_timeline__new_empty - a timeline of @nr_cpus CPUs fed by the
 * caller with pebs_timeline__add, e.g. from PERF_RECORD_SWITCH_CPU_WIDE
 * records where the module is not loaded; __update appends nothing to
 * it. Returns 0, -EINVAL (nr_cpus 0) or -ENOMEM.
 */
PEBS_API int pebs_timeline__new_empty(unsigned int nr_cpus,
				      struct pebs_timeline **tlp);

/*
 * pebs_timeline__add - a switch-in on @cpu: @sw->time, and who came in
 * (tgid 0: idle; tgid -1 marks a gap, as after an overrun). Kept in
 * time order when records of a CPU come out of order. Returns 0,
 * -EINVAL (cpu out of range, or a timeline fed from a pebs_map), or
 * -ENOMEM.
 */
PEBS_API int pebs_timeline__add(struct pebs_timeline *tl, unsigned int cpu,
				const struct pebs_map_switch *sw);

/*
 * pebs_timeline__update - append the switches recorded since the last
 * call (up to the heads seen when it starts). Returns the number
 * appended, or -ENOMEM; switches overrun in the live history before
 * they were copied are counted in pebs_timeline__lost() and leave a
 * gap (see pebs_timeline__lookup).
 */
PEBS_API int pebs_timeline__update(struct pebs_timeline *tl);

/* pebs_timeline__lost - switches lost to overruns since __new. */
PEBS_API uint64_t pebs_timeline__lost(const struct pebs_timeline *tl);

/*
 * pebs_timeline__lookup - who ran on @cpu at @time, from the copy.
 *
 * Binary search, O(log n), no allocation, no message on -ENOENT (the
 * per-sample path). Returns 0 and fills *who (the switch that brought
 * the thread in; tgid 0: idle), -ENOENT if @time precedes the copy's
 * first switch on that CPU or falls into a gap left by an overrun
 * (after the last switch copied before the loss and before the first
 * switch copied after it), or -EINVAL (cpu out of range).
 */
PEBS_API int pebs_timeline__lookup(const struct pebs_timeline *tl,
				   unsigned int cpu, uint64_t time,
				   struct pebs_map_switch *who);

/* pebs_timeline__delete - free; NULL is allowed. */
PEBS_API void pebs_timeline__delete(struct pebs_timeline *tl);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_MAP_H */
