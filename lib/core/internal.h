/* SPDX-License-Identifier: MIT */
/* internal.h - helpers shared by the library's .c files; not installed. */
#ifndef PEBSSHIM_INTERNAL_H
#define PEBSSHIM_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "pebsshim.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The lowest kernel address, as the library tells kernel from user
 * addresses without the kernel's maps: x86-64's kernel half, as perf's
 * machine__get_kernel_start assumes before it knows the kernel's map.
 */
#define KERNEL_START	(1ULL << 63)

/* Unaligned little-endian-host loads from records and files. */
static inline uint64_t ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t ld16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * pebs_err - record a one-line reason for the calling thread and return
 * @err (a negative errno) so that callers can write
 *	return pebs_err(-ENOENT, "%s not found: ...", path);
 */
int pebs_err(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* pebs_err_clear - forget the last reason (on success paths). */
void pebs_err_clear(void);

/*
 * Events: sysfs PMUs (lib/event/event-sysfs.c).
 * pebs_sysfs_root - where PMUs are listed, /sys/bus/event_source/devices
 * unless pebs_sysfs_set_root() pointed it elsewhere (tests build a fake
 * tree; NULL restores the default; not thread-safe, set it before use).
 * pebs_sysfs_has - whether <root>/<pmu>[/<file>] exists (file may be NULL).
 * pebs_sysfs_encode - encode "pmu/term=val,.../mods" into @ev (see
 * pebs_event__parse); returns 0, -ENOENT (no such PMU) or -EINVAL.
 */
const char *pebs_sysfs_root(void);
void pebs_sysfs_set_root(const char *root);
bool pebs_sysfs_has(const char *pmu, const char *file);
int pebs_sysfs_encode(const char *str, struct pebs_event *ev);

/*
 * Events: libpfm4 (lib/event/event-pfm.c), initialized once per process on
 * first use. pebs_pfm_core_pmu - short name of the i-th core PMU libpfm4
 * detected (or was forced to), NULL past the last. pebs_pfm_try - encode
 * quietly, returning the libpfm4 error code. pebs_pfm_encode - encode
 * with messages: -ENOENT (unknown, close names listed), -EINVAL (bad
 * modifier named), -ENODEV (libpfm4 failed to initialize).
 * pebs_event_builtin_name (lib/event/event.c) - aliases and software names,
 * "" for a gap, NULL at the end: suggestion candidates.
 */
const char *pebs_pfm_core_pmu(unsigned int i);
int pebs_pfm_try(const char *str, struct pebs_event *ev);
int pebs_pfm_encode(const char *str, struct pebs_event *ev);
const char *pebs_event_builtin_name(unsigned int i);

/*
 * pebs_big_calloc, pebs_big_free - zeroed memory for a large table read
 * at random (huge pages when large; lib/core/bigmem.c); free it with the
 * same @n and @size. NULL when out of memory.
 */
void *pebs_big_calloc(size_t n, size_t size);
void pebs_big_free(void *p, size_t n, size_t size);

#endif /* PEBSSHIM_INTERNAL_H */
