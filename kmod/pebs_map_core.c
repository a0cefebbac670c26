// SPDX-License-Identifier: GPL-2.0
/*
 * pebs_map - a read-only table, mapped by user space, of what runs on
 * each CPU, plus a per-CPU history of context switches.
 *
 * The layout is include/pebs_map.h (the only definition of the ABI).
 * This file is the core: the misc device /dev/pebs_map, the two
 * mappable regions, and pebs_map_record(), which the scheduler hook
 * (hook_tracepoint.c or hook_direct.c, picked by Kbuild) calls on every
 * switch. See pebs_map_internal.h for the seam.
 *
 * Regions (one per mmap call, read-only):
 *   offset 0            the table: header + one 64-byte slot per possible
 *                       CPU id, dma_alloc_coherent() on the module's own
 *                       platform device (a real struct device with its
 *                       DMA mask set: a misc device has none)
 *   header->hist_offset per-CPU rings of struct pebs_map_switch,
 *                       vmalloc_user()
 *
 * Init allocates and fills everything, attaches the hook, and registers
 * the misc device last, so no file can be opened before the regions
 * exist; exit undoes it in the exact reverse order.
 *
 * Every slot and its ring are written only by their own CPU, from the
 * hook (interrupts off at the sched_switch tracepoint), so writers never
 * race each other; readers use the seqcount/release protocol the ABI
 * header documents.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/capability.h>
#include <linux/cpuhotplug.h>
#include <linux/personality.h>
#include <linux/pid_namespace.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/version.h>
#include <linux/vmalloc.h>

#include "pebs_map.h"
#include "pebs_map_internal.h"

/* the table's u64 fields (seq, times) must be single, untorn stores */
#if BITS_PER_LONG != 64
#error "pebs_map needs a 64-bit kernel: its table's 64-bit fields are read without locks"
#endif

/* history entries per CPU: a power of two in this range */
#define HISTORY_MIN	64
#define HISTORY_MAX	(1U << 24)

static unsigned int history = 8192;
module_param(history, uint, 0444);
MODULE_PARM_DESC(history,
		 "switch history entries per CPU, a power of two (default 8192: ~100 ms of heavy switching)");

static ushort mode = 0400;
module_param(mode, ushort, 0444);
MODULE_PARM_DESC(mode, "permissions of /dev/pebs_map (default 0400)");

static bool unprivileged;
module_param(unprivileged, bool, 0444);
MODULE_PARM_DESC(unprivileged,
		 "let readers without CAP_PERFMON open the device (file mode and group still apply; default N)");

struct pebs_map_dev {
	struct miscdevice misc;
	struct platform_device *pdev;	/* owns the DMA allocation */
	struct pebs_map_header *table;	/* header, then the slots */
	struct pebs_map_slot *slots;
	dma_addr_t table_dma;
	size_t table_size;
	struct pebs_map_switch *hist;	/* nr_cpu_ids rings of hist_len */
	size_t hist_size;
	unsigned int hist_shift;	/* log2(hist_len) */
	int cpuhp_state;		/* pebs_map_cpu_dead()'s dynamic state */
};

static const struct file_operations pebs_map_fops;

static struct pebs_map_dev pebs_map = {
	.misc = {
		.minor = MISC_DYNAMIC_MINOR,
		.name = PEBS_MAP_NAME,
		.fops = &pebs_map_fops,
	},
};

/* vm_flags became read-only behind vm_flags_mod() in 6.3 */
static void vma_flags_mod(struct vm_area_struct *vma, vm_flags_t set,
			  vm_flags_t clear)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * Writer side of a slot (pairs with the reader's acquire of seq, copy,
 * rmb, reload of seq in lib/map/map.c): seq odd, wmb, fields, release seq
 * even. Only this CPU writes the slot, and never re-entrantly (the hook
 * runs with interrupts off; pebs_map_seed() runs in an IPI and backs off
 * when a write is in progress), so plain reads of its own fields are
 * exact.
 */
static void slot_begin(struct pebs_map_slot *slot)
{
	WRITE_ONCE(slot->seq, slot->seq + 1);
	smp_wmb();	/* odd seq before the fields; pairs with reader's rmb */
}

static void slot_end(struct pebs_map_slot *slot)
{
	/* the fields before even seq; pairs with the reader's acquire */
	smp_store_release(&slot->seq, slot->seq + 1);
}

static void slot_set_task(struct pebs_map_slot *slot, pid_t tgid, pid_t pid,
			  const char *comm)
{
	/* initial pid namespace ids; idle tasks have pid 0 and tgid 0 */
	WRITE_ONCE(slot->tgid, tgid);
	WRITE_ONCE(slot->pid, pid);
	memcpy(slot->comm, comm, PEBS_MAP_COMM_LEN);
}

/*
 * One switch of @cpu to the task @tgid/@pid/@comm: the slot and the next
 * history entry. Runs for one CPU at a time only: on that CPU from the
 * hook, or once it is dead, from pebs_map_cpu_dead().
 */
static void record_switch(unsigned int cpu, pid_t tgid, pid_t pid,
			  const char *comm)
{
	struct pebs_map_slot *slot = &pebs_map.slots[cpu];
	struct pebs_map_switch *e;
	u64 now = local_clock();
	u64 n = slot->hist_head;

	slot_begin(slot);
	slot_set_task(slot, tgid, pid, comm);
	WRITE_ONCE(slot->switches, slot->switches + 1);
	WRITE_ONCE(slot->last_switch_ns, now);

	e = &pebs_map.hist[((size_t)cpu << pebs_map.hist_shift) +
			   (n & ((1U << pebs_map.hist_shift) - 1))];
	WRITE_ONCE(e->time, now);
	WRITE_ONCE(e->tgid, tgid);
	WRITE_ONCE(e->pid, pid);
	/* the entry is complete before a reader can see n + 1 */
	smp_store_release(&slot->hist_head, n + 1);
	slot_end(slot);
}

void pebs_map_record(struct task_struct *next)
{
	record_switch(smp_processor_id(), next->tgid, next->pid, next->comm);
}

/*
 * CPU hotplug. A CPU going offline leaves cpu_online_mask before its
 * last switch (its stopper thread, migration/N, to its idle task), and
 * tracepoints do not fire on a CPU outside that mask (DECLARE_TRACE's
 * cpu_online() condition), so the slot would stay on migration/N. Once
 * the CPU is dead, the CPU that took it down records that last switch:
 * an offline CPU's slot reads its idle task (tgid 0, pid 0, swapper/N),
 * its history ends with that entry, and nothing changes until the CPU
 * is back and switches again. No writer races this one: the dead CPU
 * writes again only after the hotplug core has brought it back up,
 * which orders this write before that. The direct hook does see the
 * last switch: then the slot shows idle already and nothing is added.
 */
static int pebs_map_cpu_dead(unsigned int cpu)
{
	struct pebs_map_slot *slot = &pebs_map.slots[cpu];
	char comm[PEBS_MAP_COMM_LEN] = "";

	if (slot->pid == 0 && slot->tgid == 0)
		return 0;
	snprintf(comm, sizeof(comm), "swapper/%u", cpu);
	record_switch(cpu, 0, 0, comm);
	return 0;
}

/*
 * Fill the slot of this (online) CPU with the interrupted task, so that a
 * CPU that does not switch soon after the load is not reported as never
 * seen. Runs in an IPI with the hook already registered: if the hook
 * already recorded a switch here (or, with a hook that runs with
 * interrupts on, is half-way through one), its data is newer: keep it.
 * No history entry is written: the history holds switches only.
 */
static void pebs_map_seed(void *unused)
{
	struct pebs_map_slot *slot = &pebs_map.slots[smp_processor_id()];

	if (slot->switches || (slot->seq & 1))
		return;
	slot_begin(slot);
	slot_set_task(slot, current->tgid, current->pid, current->comm);
	slot_end(slot);
}

static int pebs_map_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct pebs_map_dev *pm = container_of(file->private_data,
					       struct pebs_map_dev, misc);
	unsigned long pages = vma_pages(vma);

	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	/* PROT_EXEC is refused unless the personality adds it to every
	 * PROT_READ mapping (READ_IMPLIES_EXEC); it is cleared either way */
	if ((vma->vm_flags & VM_EXEC) &&
	    !(current->personality & READ_IMPLIES_EXEC))
		return -EPERM;
	/* no later mprotect() to writable or executable, no copy on fork */
	vma_flags_mod(vma, VM_DONTCOPY | VM_DONTDUMP,
		      VM_MAYWRITE | VM_MAYEXEC | VM_EXEC);

	if (vma->vm_pgoff == 0) {
		if (pages > pm->table_size >> PAGE_SHIFT)
			return -EINVAL;
		return dma_mmap_coherent(&pm->pdev->dev, vma, pm->table,
					 pm->table_dma, pm->table_size);
	}
	if (vma->vm_pgoff == pm->table->hist_offset >> PAGE_SHIFT) {
		if (pages > pm->hist_size >> PAGE_SHIFT)
			return -EINVAL;
		return remap_vmalloc_range(vma, pm->hist, 0);
	}
	return -EINVAL;
}

/*
 * Who may read: the table shows every task of the system, as perf's
 * system-wide sampling does, so a reader needs what per-CPU perf needs,
 * CAP_PERFMON (or CAP_SYS_ADMIN), unless the module was loaded with
 * unprivileged=1, leaving access to the file's mode and group (the udev
 * rule's pebs group). The pids are those of the initial namespace, which
 * mean nothing (or something else) in another pid namespace: a reader
 * there is refused.
 */
static int pebs_map_open(struct inode *inode, struct file *file)
{
	if (task_active_pid_ns(current) != &init_pid_ns)
		return -EPERM;
	if (!unprivileged && !perfmon_capable())
		return -EPERM;
	return 0;
}

/* No ioctls: the misc core answers -ENOTTY without .unlocked_ioctl. */
static const struct file_operations pebs_map_fops = {
	.owner = THIS_MODULE,
	.open = pebs_map_open,
	.mmap = pebs_map_mmap,
	.llseek = noop_llseek,
};

static int __init pebs_map_init(void)
{
	struct pebs_map_dev *pm = &pebs_map;
	struct device *dev;
	int ret;

	BUILD_BUG_ON(TASK_COMM_LEN != PEBS_MAP_COMM_LEN);
	BUILD_BUG_ON(sizeof(struct pebs_map_header) % SMP_CACHE_BYTES);

	if (!is_power_of_2(history) || history < HISTORY_MIN ||
	    history > HISTORY_MAX) {
		pr_err("history=%u: must be a power of two from %u to %u (e.g. 8192)\n",
		       history, HISTORY_MIN, HISTORY_MAX);
		return -EINVAL;
	}
	if (mode & ~0777) {
		pr_err("mode=%#o: only permission bits (0777) are allowed\n",
		       mode);
		return -EINVAL;
	}

	pm->pdev = platform_device_register_simple(PEBS_MAP_NAME,
						   PLATFORM_DEVID_NONE,
						   NULL, 0);
	if (IS_ERR(pm->pdev)) {
		ret = PTR_ERR(pm->pdev);
		pr_err("cannot register the platform device: %d\n", ret);
		return ret;
	}
	dev = &pm->pdev->dev;
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret) {
		dev_err(dev, "cannot set a 64-bit DMA mask: %d\n", ret);
		goto out_unregister_pdev;
	}
	pm->table_size = PAGE_ALIGN(sizeof(*pm->table) +
				    (size_t)nr_cpu_ids *
				    sizeof(struct pebs_map_slot));
	pm->table = dma_alloc_coherent(dev, pm->table_size, &pm->table_dma,
				       GFP_KERNEL);
	if (!pm->table) {
		ret = -ENOMEM;
		goto out_unregister_pdev;
	}
	pm->slots = (struct pebs_map_slot *)(pm->table + 1);

	/* SIZE_MAX on overflow; refuse sizes vmalloc would warn about */
	pm->hist_size = array3_size(nr_cpu_ids, history,
				    sizeof(struct pebs_map_switch));
	if (pm->hist_size > (totalram_pages() << PAGE_SHIFT) / 2) {
		pr_err("history=%u: %u CPUs x %u entries would need more than half the RAM\n",
		       history, nr_cpu_ids, history);
		ret = -EINVAL;
		goto out_free_table;
	}
	pm->hist = vmalloc_user(pm->hist_size);
	if (!pm->hist) {
		ret = -ENOMEM;
		goto out_free_table;
	}
	pm->hist_size = PAGE_ALIGN(pm->hist_size);
	pm->hist_shift = ilog2(history);
	pebs_map_table_init(pm->table, pm->table_size, nr_cpu_ids,
			    pm->hist_size, history, pebs_map_hook_kind);

	ret = pebs_map_hook_register();
	if (ret) {
		dev_err(dev, "cannot attach the scheduler hook: %d\n", ret);
		goto out_free_hist;
	}
	on_each_cpu(pebs_map_seed, NULL, 1);
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "pebs_map:dead",
					NULL, pebs_map_cpu_dead);
	if (ret < 0) {
		dev_err(dev, "cannot add a CPU hotplug state: %d\n", ret);
		goto out_unregister_hook;
	}
	pm->cpuhp_state = ret;

	/* last: from here on the device can be opened and mapped */
	pm->misc.mode = mode;
	pm->misc.parent = dev;
	ret = misc_register(&pm->misc);
	if (ret) {
		dev_err(dev, "cannot register misc device %s: %d\n",
			PEBS_MAP_NAME, ret);
		goto out_remove_cpuhp;
	}
	dev_info(dev, "%u slots (%zu-byte table), history %u per CPU (%zu bytes)\n",
		 nr_cpu_ids, pm->table_size, history, pm->hist_size);
	return 0;

out_remove_cpuhp:
	cpuhp_remove_state_nocalls(pm->cpuhp_state);
out_unregister_hook:
	pebs_map_hook_unregister();
out_free_hist:
	vfree(pm->hist);
out_free_table:
	dma_free_coherent(dev, pm->table_size, pm->table, pm->table_dma);
out_unregister_pdev:
	platform_device_unregister(pm->pdev);
	return ret;
}

/*
 * Unload runs only when no file is open and nothing is mapped (both pin
 * the module through fops.owner): the exact reverse of init. The device
 * goes first, so nothing can open it any more; the hook waits for
 * running probes before the memory goes.
 */
static void __exit pebs_map_exit(void)
{
	struct pebs_map_dev *pm = &pebs_map;

	misc_deregister(&pm->misc);
	cpuhp_remove_state_nocalls(pm->cpuhp_state);
	pebs_map_hook_unregister();
	vfree(pm->hist);
	dma_free_coherent(&pm->pdev->dev, pm->table_size, pm->table,
			  pm->table_dma);
	platform_device_unregister(pm->pdev);
}

module_init(pebs_map_init);
module_exit(pebs_map_exit);

MODULE_DESCRIPTION("pebs-shim: mappable per-CPU table of running threads and switch history");
MODULE_AUTHOR("pebs-shim developers");
MODULE_LICENSE("GPL");
