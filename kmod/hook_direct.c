// SPDX-License-Identifier: GPL-2.0
/*
 * hook_direct.c - pebs_map's scheduler hook on a kernel that carries
 * patches/0001-sched-direct-pebs-map-hook.patch (build with HOOK=direct).
 *
 * The patch makes __schedule() call pebs_sched_switch_hook(prev, next)
 * right after trace_sched_switch(), before context_switch(): on the CPU
 * that switches, runqueue locked, interrupts and preemption off, @next
 * about to run. That is the tracepoint's place without the tracepoint's
 * machinery, so it also works on kernels built without tracepoints.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#include "pebs_map.h"
#include "pebs_map_internal.h"

/*
 * The patch declares this in <linux/sched.h>; it is repeated here so the
 * module also compiles against stock headers. It loads only on a patched
 * kernel (elsewhere insmod fails with "Unknown symbol").
 */
extern void (*pebs_sched_switch_hook)(struct task_struct *prev,
				      struct task_struct *next);

const u32 pebs_map_hook_kind = PEBS_MAP_HOOK_DIRECT;

static void direct_sched_switch(struct task_struct *prev,
				struct task_struct *next)
{
	pebs_map_record(next);
}

int pebs_map_hook_register(void)
{
	/* full barrier: the table is initialized before the first call */
	if (cmpxchg(&pebs_sched_switch_hook, NULL, direct_sched_switch)) {
		pr_err("pebs_sched_switch_hook is already taken by another module\n");
		return -EBUSY;
	}
	return 0;
}

void pebs_map_hook_unregister(void)
{
	WARN_ON_ONCE(cmpxchg(&pebs_sched_switch_hook, direct_sched_switch,
			     NULL) != direct_sched_switch);
	/*
	 * The hook runs with preemption disabled, a read-side critical
	 * section for RCU: after a grace period no call is in flight.
	 */
	synchronize_rcu();
}
