/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * pebs_map.h - the ABI of /dev/pebs_map, shared by the kernel module
 * (kmod/pebs_map_core.c) and user space (lib/map/map.c). This is the only
 * definition of the layout; both sides include this file.
 *
 * The device exports two read-only regions, each mapped with its own
 * mmap() call at the offset the header gives:
 *
 *   offset 0            the table: struct pebs_map_header, then one
 *                       64-byte struct pebs_map_slot per possible CPU
 *                       (nr_slots == nr_cpu_ids) at slots_offset.
 *                       DMA-coherent memory (dma_alloc_coherent on the
 *                       module's platform device): ordinary cacheable
 *                       memory on x86, coherent between the kernel writer
 *                       and every reader's mapping, so the barriers below
 *                       are all a reader needs.
 *   hist_offset         the switch history: for each CPU c, hist_len
 *                       entries of struct pebs_map_switch at
 *                       hist_offset + c * hist_len * hist_entry_size.
 *
 * Slots. Each slot is written only by its own CPU, from the scheduler
 * hook, with interrupts disabled. The writer makes seq odd, issues a
 * write barrier (smp_wmb), stores the fields (WRITE_ONCE), then makes seq
 * even again with a release store. A reader loads seq with acquire
 * semantics, copies the slot, issues a read barrier (an acquire fence:
 * smp_rmb in the kernel's terms, so the copy completes before the second
 * load), and loads seq again; the copy is consistent iff both loads saw
 * the same even value. The pairs: the writer's wmb with the reader's read
 * barrier, the writer's release with the reader's first acquire.
 *
 *   tgid/pid   the task now running on that CPU, as numbered in the
 *              initial pid namespace (what perf reports for a
 *              system-wide session opened from the initial namespace).
 *              -1 if the CPU was never seen switching (or does not
 *              exist), 0 for the idle task. An offline CPU's slot
 *              reads its idle task (tgid 0, pid 0, swapper/N), the
 *              last switch recorded when it went down, frozen until the
 *              CPU is back.
 *
 * History. hist_head in the slot counts every switch ever recorded on
 * that CPU. The entry of switch number n lives at index n % hist_len
 * (hist_len is a power of two). The writer fills the entry, then
 * publishes hist_head = n + 1 with release semantics; it only moves
 * forward and never waits for readers. A reader that wants entries
 * [cursor, head) loads hist_head (acquire), copies the entries, then
 * loads hist_head again: any entry n <= head_again - hist_len may have
 * been overwritten while it was copied and must be discarded as
 * overrun (while hist_head == h the writer may already be filling entry
 * h, at the place of entry h - hist_len). So a full history holds
 * hist_len - 1 stable entries, [head - hist_len + 1, head).
 *
 * Clock. time fields are in the clock named by header->clock.
 * PEBS_MAP_CLOCK_LOCAL is the kernel's local_clock() in ns, the same
 * clock perf uses for PERF_SAMPLE_TIME unless use_clockid is set, so a
 * sample's (cpu, time) can be looked up in that CPU's history.
 */
#ifndef _UAPI_PEBS_MAP_H
#define _UAPI_PEBS_MAP_H

#include <linux/types.h>

#define PEBS_MAP_DEVICE		"/dev/pebs_map"
#define PEBS_MAP_NAME		"pebs_map"

/* "PEBSMAP\0" read as a little-endian __u64 */
#define PEBS_MAP_MAGIC		0x0050414d53424550ULL
#define PEBS_MAP_ABI_VERSION	1

#define PEBS_MAP_SLOT_SIZE	64
#define PEBS_MAP_COMM_LEN	16

/* header->clock */
#define PEBS_MAP_CLOCK_LOCAL	1	/* local_clock(), ns: perf's default */

/* header->hook */
#define PEBS_MAP_HOOK_TRACEPOINT 1	/* sched_switch tracepoint probe */
#define PEBS_MAP_HOOK_DIRECT	2	/* patches/: direct hook in __schedule */

/* header->pid_ns */
#define PEBS_MAP_PIDNS_INIT	1	/* ids as seen from init_pid_ns */

struct pebs_map_header {
	__u64 magic;		/* PEBS_MAP_MAGIC */
	__u32 abi_version;	/* PEBS_MAP_ABI_VERSION */
	__u32 header_size;	/* sizeof(struct pebs_map_header) */
	__u32 nr_slots;		/* one per possible CPU id: nr_cpu_ids */
	__u32 slot_size;	/* PEBS_MAP_SLOT_SIZE */
	__u64 slots_offset;	/* byte offset of slot 0 in the table region */
	__u64 table_size;	/* size of the table region (page multiple) */
	__u64 hist_offset;	/* mmap offset of the history region */
	__u64 hist_size;	/* size of the history region (page multiple) */
	__u32 hist_len;		/* entries per CPU, a power of two */
	__u32 hist_entry_size;	/* sizeof(struct pebs_map_switch) */
	__u32 clock;		/* PEBS_MAP_CLOCK_* */
	__u32 hook;		/* PEBS_MAP_HOOK_* */
	__u32 pid_ns;		/* PEBS_MAP_PIDNS_* */
	__u32 __reserved0;
	__u64 __reserved[6];
};

struct pebs_map_slot {
	__u32 seq;		/* odd while the slot is being written */
	__s32 tgid;		/* -1: never seen; 0: idle */
	__s32 pid;		/* thread id; -1: never seen; 0: idle */
	__u32 cpu;		/* the slot's own CPU id */
	__u64 switches;		/* switches recorded on this CPU */
	__u64 last_switch_ns;	/* time of the last switch (header->clock) */
	__u64 hist_head;	/* switches ever written to the history */
	char comm[PEBS_MAP_COMM_LEN]; /* comm of the running thread */
	__u64 __reserved;
};

struct pebs_map_switch {
	__u64 time;		/* when the thread was switched in */
	__s32 tgid;		/* the thread switched in: 0 idle */
	__s32 pid;
};

#ifdef __cplusplus
#define PEBS_MAP_ASSERT(c, m) static_assert(c, m)
#else
#define PEBS_MAP_ASSERT(c, m) _Static_assert(c, m)
#endif
PEBS_MAP_ASSERT(sizeof(struct pebs_map_header) == 128, "header is 128 bytes");
PEBS_MAP_ASSERT(sizeof(struct pebs_map_slot) == PEBS_MAP_SLOT_SIZE,
		"a slot is one 64-byte cache line");
PEBS_MAP_ASSERT(sizeof(struct pebs_map_switch) == 16,
		"a history entry is 16 bytes");
#undef PEBS_MAP_ASSERT

/*
 * pebs_map_table_init - fill a zeroed table region of @table_size bytes:
 * the header, @nr_slots slots right after it, each "never seen"
 * (tgid = pid = -1), and a history of @hist_len entries per CPU in
 * @hist_size bytes at offset @table_size (0, 0: none). The module fills
 * its table with it; user space, tables in ordinary memory (tests,
 * stand-ins for pebs_map__from_memory).
 */
static inline void pebs_map_table_init(struct pebs_map_header *h,
				       __u64 table_size, __u32 nr_slots,
				       __u64 hist_size, __u32 hist_len,
				       __u32 hook)
{
	struct pebs_map_slot *slot = (struct pebs_map_slot *)(h + 1);
	__u32 c;

	h->magic = PEBS_MAP_MAGIC;
	h->abi_version = PEBS_MAP_ABI_VERSION;
	h->header_size = sizeof(*h);
	h->nr_slots = nr_slots;
	h->slot_size = sizeof(*slot);
	h->slots_offset = sizeof(*h);
	h->table_size = table_size;
	h->hist_offset = table_size;
	h->hist_size = hist_size;
	h->hist_len = hist_len;
	h->hist_entry_size = sizeof(struct pebs_map_switch);
	h->clock = PEBS_MAP_CLOCK_LOCAL;
	h->hook = hook;
	h->pid_ns = PEBS_MAP_PIDNS_INIT;
	for (c = 0; c < nr_slots; c++) {
		slot[c].tgid = -1;
		slot[c].pid = -1;
		slot[c].cpu = c;
	}
}

#endif /* _UAPI_PEBS_MAP_H */
