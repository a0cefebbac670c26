/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/core.h - libpebsshim: errors, option structs, CPU lists:
 * what every module uses.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_CORE_H
#define PEBSSHIM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks what libpebsshim exports (it is built with -fvisibility=hidden). */
#define PEBS_API __attribute__((visibility("default")))

/*
 * Declare and zero an options (or callbacks) struct with its size set:
 *	PEBS_OPTS(pebs_channel_opts, o, .period = 20011);
 *	static const PEBS_OPTS(pebs_chanset_cbs, cbs, .on_sample = f);
 */
#define PEBS_OPTS(type, name, ...) \
	struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }

/* Pins the size of a public struct (C11 and C++11). */
#ifdef __cplusplus
#define PEBS_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define PEBS_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* ------------------------------------------------------------------ */
/* Errors (lib/core/error.c)                                          */
/* ------------------------------------------------------------------ */

/*
 * pebs_errmsg - the reason for the calling thread's last failure.
 *
 * Returns a one-line message (no trailing newline) naming the cause and
 * what to do, or "" if nothing failed yet. Valid until the next library
 * call in this thread.
 */
PEBS_API const char *pebs_errmsg(void);

/* ------------------------------------------------------------------ */
/* CPU lists (lib/core/cpulist.c)                                     */
/* ------------------------------------------------------------------ */

/* CPU ids a bitmap of the tools covers (Debian's NR_CPUS) */
#define PEBS_MAX_CPUS	8192

/*
 * pebs_cpulist__parse - "0-3,8,10-11" into @bitmap, (max_cpus + 63) / 64
 * words (cleared first; CPU c is bit c % 64 of word c / 64). Returns 0,
 * -EINVAL (a bad token, named in pebs_errmsg()), or -ERANGE (a CPU >=
 * @max_cpus).
 */
PEBS_API int pebs_cpulist__parse(const char *str, unsigned int max_cpus,
				 uint64_t *bitmap);

/*
 * pebs_cpulist__online - the online CPUs (/sys/devices/system/cpu/online)
 * into @bitmap as pebs_cpulist__parse fills it. Returns 0 or -errno, the
 * file named in pebs_errmsg().
 */
PEBS_API int pebs_cpulist__online(unsigned int max_cpus, uint64_t *bitmap);

/*
 * pebs_cpulist__next - the first CPU >= @from (0 for the first) set in
 * @bitmap, or -1: for (c = next(b, n, 0); c >= 0; c = next(b, n, c + 1)).
 */
PEBS_API int pebs_cpulist__next(const uint64_t *bitmap, unsigned int max_cpus,
				int from);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_CORE_H */
