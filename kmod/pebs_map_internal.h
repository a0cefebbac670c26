/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pebs_map_internal.h - the seam between the module's core (pebs_map_core.c)
 * and its scheduler hook. Exactly one hook file is linked in, chosen at
 * build time by Kbuild (HOOK=tracepoint, the default, or HOOK=direct for
 * a kernel carrying patches/0001-sched-direct-pebs-map-hook.patch).
 */
#ifndef PEBS_MAP_INTERNAL_H
#define PEBS_MAP_INTERNAL_H

#include <linux/sched.h>

/*
 * pebs_map_record - called on the CPU that switches, with preemption
 * disabled, when @next is about to run there.
 */
void pebs_map_record(struct task_struct *next);

/* Attach the hook; 0 or -errno. */
int pebs_map_hook_register(void);

/* Detach the hook; when it returns, no call to pebs_map_record() runs. */
void pebs_map_hook_unregister(void);

/* PEBS_MAP_HOOK_TRACEPOINT or PEBS_MAP_HOOK_DIRECT (include/pebs_map.h) */
extern const u32 pebs_map_hook_kind;

#endif /* PEBS_MAP_INTERNAL_H */
