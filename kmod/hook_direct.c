// SPDX-License-Identifier: GPL-2.0
/*
 * hook_direct.c - pebs_map's scheduler hook on a kernel that carries
 * patches/0001-sched-direct-pebs-map-hook.patch (build with HOOK=direct).
 *
 * The patch adds a static call to __schedule(), right after
 * trace_sched_switch(), before context_switch(): on the CPU that
 * switches, runqueue locked, interrupts and preemption off, @next about
 * to run. That is the tracepoint's place without the tracepoint's
 * machinery, so it also works on kernels built without tracepoints. The
 * kernel exports only pebs_sched_switch_hook_set() and _clear(), which
 * retarget the static call: nothing writable is exported.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/sched.h>

#include "pebs_map.h"
#include "pebs_map_internal.h"

/*
 * The patch declares these in <linux/sched.h>; they are repeated here so
 * the module also compiles against stock headers. It loads only on a
 * patched kernel (elsewhere insmod fails with "Unknown symbol").
 */
int pebs_sched_switch_hook_set(void (*fn)(struct task_struct *prev,
					  struct task_struct *next));
void pebs_sched_switch_hook_clear(void (*fn)(struct task_struct *prev,
					     struct task_struct *next));

const u32 pebs_map_hook_kind = PEBS_MAP_HOOK_DIRECT;

static void direct_sched_switch(struct task_struct *prev,
				struct task_struct *next)
{
	pebs_map_record(next);
}

int pebs_map_hook_register(void)
{
	/* the table is complete: the kernel's mutex orders it before the
	 * first call (static_call_update() patches text under it) */
	int ret = pebs_sched_switch_hook_set(direct_sched_switch);

	if (ret == -EBUSY)
		pr_err("the scheduler's switch hook is taken by another module\n");
	return ret;
}

void pebs_map_hook_unregister(void)
{
	/* returns when no call to direct_sched_switch() is in flight */
	pebs_sched_switch_hook_clear(direct_sched_switch);
}
