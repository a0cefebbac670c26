// SPDX-License-Identifier: GPL-2.0
/*
 * hook_tracepoint.c - pebs_map's scheduler hook on an unpatched kernel:
 * a probe on the sched:sched_switch tracepoint.
 *
 * The tracepoint fires in __schedule() before context_switch(), with the
 * runqueue locked and interrupts off, on the CPU that switches, and its
 * @next argument is the task about to run there: exactly what
 * pebs_map_record() wants. __tracepoint_sched_switch is not exported, so
 * the tracepoint is found by name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/version.h>
#include <trace/events/sched.h>

#include "pebs_map.h"
#include "pebs_map_internal.h"

const u32 pebs_map_hook_kind = PEBS_MAP_HOOK_TRACEPOINT;

static struct tracepoint *sched_switch_tp;

/*
 * The probe must match TP_PROTO of sched_switch exactly: 5.18 added
 * prev_state, 4.4 added preempt. pebs_map_hook_register() passes it to
 * check_trace_callback_type_sched_switch(), so a kernel whose prototype
 * differs fails the build instead of the kernel.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
static void probe_sched_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state)
#else
static void probe_sched_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next)
#endif
{
	pebs_map_record(next);
}

static void find_sched_switch(struct tracepoint *tp, void *priv)
{
	struct tracepoint **found = priv;

	if (!strcmp(tp->name, "sched_switch"))
		*found = tp;
}

int pebs_map_hook_register(void)
{
	check_trace_callback_type_sched_switch(probe_sched_switch);
	for_each_kernel_tracepoint(find_sched_switch, &sched_switch_tp);
	if (!sched_switch_tp) {
		pr_err("no sched_switch tracepoint in this kernel\n");
		return -ENOENT;
	}
	return tracepoint_probe_register(sched_switch_tp, probe_sched_switch,
					 NULL);
}

void pebs_map_hook_unregister(void)
{
	tracepoint_probe_unregister(sched_switch_tp, probe_sched_switch, NULL);
	/* wait until no CPU is still inside probe_sched_switch() */
	tracepoint_synchronize_unregister();
}
