/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/event.h - libpebsshim: events: parsing event strings into
 * perf_event_attr, lists and groups, probing.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_EVENT_H
#define PEBSSHIM_EVENT_H

#include <linux/perf_event.h>
#include "pebsshim/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Events: parsing, lists and groups, probing, fallbacks              */
/* (lib/event/event.c, lib/event/event-list.c,                        */
/* lib/event/event-mods.c)                                            */
/* ------------------------------------------------------------------ */

/* struct pebs_event flags */
#define PEBS_EVENT_PRECISE	(1u << 0) /* precise_ip > 0, or IBS */
#define PEBS_EVENT_MEMORY	(1u << 1) /* samples carry data addresses
					     (PEBS MEM_*, IBS op, faults) */
#define PEBS_EVENT_SOFTWARE	(1u << 2) /* a software event */
#define PEBS_EVENT_FALLBACK	(1u << 3) /* `auto` fell back: see note */
#define PEBS_EVENT_SYSFS	(1u << 4) /* encoded from sysfs, not libpfm4 */
#define PEBS_EVENT_TRACEPOINT	(1u << 5) /* sys:name: attr.sample_type has
					     PERF_SAMPLE_RAW, to be kept */
#define PEBS_EVENT_PRECISE_MAX	(1u << 6) /* :P: precise_ip 3, to be lowered
					     until the kernel takes it */

/*
 * The room struct pebs_event keeps for its perf_event_attr whatever the
 * size of the caller's struct perf_event_attr (128 bytes with Linux 6.1
 * headers, 136 from 6.3 on).
 */
#define PEBS_EVENT_ATTR_AREA	256
struct pebs_event {
	char name[128];		/* as the user spelled it (the event alone
				   in a list; a sysfs name= term wins) */
	char resolved[256];	/* what was encoded, fully qualified:
				   libpfm4's "skl::MEM_INST_RETIRED:..."
				   string, perf's name with the modifiers
				   that hold ("cpu-clock:u", "sched:
				   sched_switch", "r1a2b:upp") or
				   "ibs_op/term=0x1,.../mods" */
	char pmu[32];		/* libpfm4 PMU ("skl", "amd64_fam19h_zen3"),
				   "perf" (software), or the sysfs PMU */
	unsigned int flags;	/* PEBS_EVENT_* */
	union __attribute__((aligned(8))) { /* at 424 on every ABI */
		struct perf_event_attr attr; /* size, type, config,
					config1/2, precise_ip, exclude_*,
					sample_period (or freq) if given */
		/* fixed room: bytes past the library's attr must be 0 */
		uint8_t attr_area[PEBS_EVENT_ATTR_AREA];
	};
	char note[160];		/* one line for the user, or "" */
	unsigned int leader;	/* pebs_event__parse_list: index of the
				   group leader in the array (its own
				   index when it leads or is alone) */
	unsigned int nr_members; /* events in its group (1: no group) */
};
PEBS_STATIC_ASSERT(sizeof(struct perf_event_attr) <= PEBS_EVENT_ATTR_AREA,
		   "struct perf_event_attr outgrew PEBS_EVENT_ATTR_AREA");
PEBS_STATIC_ASSERT(sizeof(struct pebs_event) == 848,
		   "struct pebs_event is part of the ABI: 848 bytes");

/*
 * pebs_event__parse - encode an event string into @ev (zeroed first).
 *
 * Spellings, tried in this order:
 *  - pmu/term[=val],.../mods: a sysfs PMU as perf spells it
 *    (cpu/event=0xd0,umask=0x81/pp, ibs_op//, msr/tsc/): terms are the
 *    PMU's format/ names (value 1 if omitted), named events from its
 *    events/ directory, config=, config1=, config2=, period=, freq=,
 *    name= (replaces ev->name).
 *    IBS :u/:k need the kernel's swfilt format (set automatically).
 *  - aliases for the PMU libpfm4 detects (or LIBPFM_FORCE_PMU names):
 *    `loads`, `stores` (Intel: MEM_INST_RETIRED:ALL_LOADS/STORES on
 *    Skylake and later, MEM_UOPS_RETIRED before; precise=2), `ldlat[=N]`
 *    (MEM_TRANS_RETIRED:LOAD_LATENCY, Sandy Bridge
 *    LATENCY_ABOVE_THRESHOLD, ldlat=N into config1, default 32,
 *    precise=2); on AMD the IBS op PMU (ibs_op// from sysfs, with the
 *    load/store/latency filters the kernel offers; ev->note says what is
 *    not filtered). `auto`: PEBS/IBS loads if the kernel can open them
 *    (pebs_event__probe), else cpu-clock with PEBS_EVENT_FALLBACK and
 *    ev->note saying why ("auto: no PEBS/IBS here (...); sampling
 *    cpu-clock instead"). Modifiers u, k, period=N, freq=N, and p/pp/ppp
 *    or precise=N (loads, stores, ldlat) and ldlat=N (ldlat).
 *  - perf's generic names, encoded as perf 6.1 does: hardware (cycles,
 *    instructions, cache-misses, branch-misses, ...), software
 *    (cpu-clock, task-clock, page-faults/faults, context-switches/cs,
 *    cpu-migrations/migrations, minor-faults, major-faults,
 *    alignment-faults, emulation-faults, dummy, bpf-output,
 *    cgroup-switches), hardware caches (L1-dcache-loads,
 *    LLC-load-misses, dTLB-store-misses, ...), raw rNNNN (hex config);
 *    ev->pmu "perf" (software) or "cpu".
 *  - tracepoints sys:name from the tracefs (/sys/kernel/tracing, else
 *    /sys/kernel/debug/tracing): type PERF_TYPE_TRACEPOINT, sample_period
 *    1, attr.sample_type PERF_SAMPLE_RAW, PEBS_EVENT_TRACEPOINT.
 *  - anything else through libpfm4: MEM_INST_RETIRED:ALL_LOADS:
 *    precise=2:period=10007, skl::..., with libpfm4's modifiers (u, k,
 *    precise=N, ldlat=N, period=N, ...) or perf's letters last (:pp).
 *
 * Modifiers of every spelling: perf's letters after the last ':' (or
 * '/'), u k h (levels), G H (guest, host), I (exclude idle), p pp ppp
 * (precise_ip), P (highest precise_ip: PEBS_EVENT_PRECISE_MAX), also
 * :period=N, :freq=N, :precise=N. As in perf, the first of u/k/h
 * excludes the other levels, and perf's exclude_guest default is kept.
 * The kernel and hypervisor are then excluded only where perf's
 * evsel__fallback would exclude them after EACCES: neither user nor
 * kernel excluded (no level given, or both u and k) while
 * perf_event_paranoid > 1 without CAP_PERFMON or CAP_SYS_ADMIN;
 * ev->note says so ("cpu-clock: user space only (...)"). ev->name is
 * the string given; a list (a,b or {a,b}) is refused: see
 * pebs_event__parse_list.
 *
 * Does not open the event. Returns 0, -ENOENT (unknown event, with up to
 * five close names in pebs_errmsg(), or a PMU this machine lacks),
 * -EINVAL (bad modifier or value, named in the message), -ENODEV
 * (libpfm4 failed to initialize).
 */
PEBS_API int pebs_event__parse(const char *str, struct pebs_event *ev);

/*
 * pebs_event__parse_list - parse one -e argument as perf reads it:
 * events separated by commas ("cpu-clock,page-faults"), groups
 * "{a,b}" and "{a,b}:mods" (the modifiers apply to every member over
 * its own), each event in any spelling of pebs_event__parse; a comma
 * inside pmu/a=1,b=2/ belongs to that event. Appends to @evs from index
 * *@nr (in: the events already there, usually 0; out: the new total),
 * at most @max in all. Each event's name is its own text ("{a:u,b}:k"
 * gives "a:u" and "b"); evs[i].leader is the index in @evs of its
 * group's leader (i itself outside a group) and nr_members the group's
 * size (1 outside a group): open the leader first, then each member
 * with the leader's fd as group_fd.
 * Returns 0; -EINVAL (bad syntax, named), -E2BIG (more than @max), or
 * pebs_event__parse's errors; *@nr and evs[0..*nr) are then unchanged.
 */
PEBS_API int pebs_event__parse_list(const char *str, struct pebs_event *evs,
				    unsigned int max, unsigned int *nr);

/*
 * pebs_event__probe - check that the running kernel can open @ev: a
 * disabled event on the calling thread (counting; precise events as
 * sampling events with their period or 65536, since IBS cannot count),
 * closed again at once. Returns 0, -EINVAL (not parsed, or a non-zero
 * byte of ev->attr_area past the library's perf_event_attr), or the
 * -errno of perf_event_open with pebs_errmsg() set by
 * pebs_perf_open_error().
 */
PEBS_API int pebs_event__probe(const struct pebs_event *ev);

/*
 * pebs_perf_open_error - explain a perf_event_open failure of @ev (may be
 * NULL) in one line in pebs_errmsg(). @err is the errno, positive or
 * negative; returns it negative. ENOENT/ENODEV: "this CPU/VM has no
 * <pmu> PMU (<event>): use -e auto or a software event such as
 * cpu-clock"; EACCES/EPERM: perf_event_paranoid's value and what to do;
 * EINVAL/EOPNOTSUPP with precise_ip > 0: "precise_ip=N not supported
 * here ...: lower :precise"; EMFILE, EBUSY, ESRCH, E2BIG and others.
 */
PEBS_API int pebs_perf_open_error(const struct pebs_event *ev, int err);

/*
 * Every channel open retries as perf's evsel__open does: with :P
 * (PEBS_EVENT_PRECISE_MAX) precise_ip is lowered one by one down to 0
 * until the kernel takes it; on EINVAL the attr drops, newest first,
 * PERF_FORMAT_LOST, WEIGHT_STRUCT (for WEIGHT), then exclude_guest and
 * exclude_host. A channel set also applies pebs_event__fallback and
 * opens again; the event then stays changed for every later open.
 *
 * pebs_event__fallback - perf's evsel__fallback, for @ev that failed to
 * open with @err (errno or -errno): cycles becomes cpu-clock on ENOENT,
 * ENXIO or ENODEV (no PMU; the name becomes "cpu-clock" with the attr's
 * modifiers, the period 250000 ns unless one was given); EACCES with
 * the kernel not excluded and perf_event_paranoid > 1 excludes kernel
 * and hypervisor and appends perf's "u" to the name. ev->note gets
 * perf's message ("The cycles event is not supported, trying to fall
 * back to cpu-clock-ticks"). Returns true when @ev changed (open it
 * again), false otherwise (@ev unchanged).
 */
PEBS_API bool pebs_event__fallback(struct pebs_event *ev, int err);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_EVENT_H */
