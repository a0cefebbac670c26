/* SPDX-License-Identifier: MIT */
/*
 * pebsshim.h - libpebsshim, the public API of pebs-shim.
 *
 * Conventions (every function below follows them unless it says
 * otherwise):
 *  - Every exported name starts with pebs_ (types, functions) or PEBS_
 *    (macros). Methods of an object are pebs_<object>__<verb>.
 *  - Functions that act return 0 (or a count, where documented) on
 *    success and a negative errno on failure; they never return a bare
 *    -1 and never rely on errno. Constructors return 0 and store the
 *    new object through their last argument.
 *  - On failure the library also records a one-line, human-readable
 *    reason for the calling thread: pebs_errmsg() returns it (e.g.
 *    "/dev/pebs_map not found: load the module (insmod kmod/pebs_map.ko)").
 *    Success does not always clear it: read it only after a failure.
 *  - Predicates return bool. Getters (pebs_<object>__<field>) cannot
 *    fail. Helpers that belong to no object are plain pebs_<name>.
 *  - Objects are opaque and paired: __open/__new/__create with
 *    __close/__delete, all of which accept NULL.
 *    Plain structs are values; option structs start with a size field
 *    (sz) so that they can grow: set it with PEBS_OPTS().
 *
 * Extensible structs (how the public types stay binary compatible; as
 * libbpf's *_opts):
 *  - Option and callback structs the caller fills and the library reads
 *    (pebs_channel_opts, pebs_chanset_cbs, pebs_observer_opts,
 *    pebs_obs_raw_opts, pebs_attrib_cbs, pebs_flame_svg_opts) start
 *    with `size_t sz`, which PEBS_OPTS() sets to the size the caller
 *    was compiled with. The library reads only the first sz bytes:
 *    fields an older caller lacks read as zero (the defaults). A newer caller's larger sz is accepted when every byte
 *    past the library's struct is zero, refused with -EINVAL otherwise
 *    (a field this library cannot honour); so is sz smaller than the sz
 *    field itself (not set). New fields are only ever appended.
 *  - No public struct embeds a kernel struct whose size depends on the
 *    caller's <linux/perf_event.h> (new kernels grow perf_event_attr):
 *    struct pebs_event keeps its attr in a fixed PEBS_EVENT_ATTR_AREA
 *    (256-byte) union, so its size and layout are the same whatever
 *    headers the caller has; the area's bytes past the library's own
 *    struct perf_event_attr must be zero when an event is opened
 *    (-EINVAL). An opaque object with setters was the alternative; a
 *    value struct with a fixed area keeps `ev.attr.config` and arrays of
 *    events (pebs_event__parse_list, pebs_chanset__new) working.
 *  - A perf_event_attr passed by pointer: inputs copied whole are read
 *    up to attr->size (0: the library's size) with the same zero rule
 *    (pebs_perfdata_writer__add_attr); outputs take the caller's size
 *    (pebs_channel_attr); pointers returned into the library
 *    (pebs_channel__attr) point at PEBS_EVENT_ATTR_AREA bytes, zero
 *    past attr->size. Functions that only read fields present since
 *    PERF_ATTR_SIZE_VER5 (Linux 4.1: pebs_sample_layout__init,
 *    pebs_attr_large_pebs) take any attr of at least that size.
 *  - The sizes of the public structs are pinned: PEBS_STATIC_ASSERT
 *    below and tests/unit/test-abi.c; tests/cli/abi.t compares every
 *    type with the dump abi/libpebsshim.abi.
 */
#ifndef PEBSSHIM_H
#define PEBSSHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "pebs_map.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PEBS_API __attribute__((visibility("default")))

/*
 * Declare and zero an options (or callbacks) struct with its size set:
 *	PEBS_OPTS(pebs_channel_opts, o, .period = 20011);
 *	static const PEBS_OPTS(pebs_chanset_cbs, cbs, .on_sample = f);
 */
#define PEBS_OPTS(type, name, ...) \
	struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }

#ifdef __cplusplus
#define PEBS_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define PEBS_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* ------------------------------------------------------------------ */
/* Errors (lib/core/error.c)                                                */
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
/* The /dev/pebs_map table (lib/map/map.c)                                 */
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

/* pebs_map__close - unmap and free; NULL is allowed. */
PEBS_API void pebs_map__close(struct pebs_map *map);

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
/* pebs_timeline__delete - free; NULL is allowed. */
PEBS_API void pebs_timeline__delete(struct pebs_timeline *tl);

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

/* ------------------------------------------------------------------ */
/* Events (lib/event/event.c)                                                */
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
 * ev->note says so ("cpu-clock: user space only (...)"). ev->name is the string given; a list (a,b or {a,b}) is refused:
 * see pebs_event__parse_list.
 *
 * Does not open the event. Returns 0, -ENOENT (unknown event, with up to
 * five close names in pebs_errmsg(), or a PMU this machine lacks),
 * -EINVAL (bad modifier or value, named in the message), -ENODEV
 * (libpfm4 failed to initialize).
 */
PEBS_API int pebs_event__parse(const char *str, struct pebs_event *ev);

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

/* ------------------------------------------------------------------ */
/* Ring reader (lib/sampling/ring.c)                                            */
/* ------------------------------------------------------------------ */

struct pebs_ring;

struct pebs_ring_stats {
	uint64_t records;	/* all records read */
	uint64_t samples;	/* PERF_RECORD_SAMPLE */
	uint64_t lost;		/* sum of PERF_RECORD_LOST.lost */
	uint64_t lost_records;	/* number of PERF_RECORD_LOST records */
	uint64_t throttles;	/* PERF_RECORD_THROTTLE */
	uint64_t unthrottles;	/* PERF_RECORD_UNTHROTTLE */
	uint64_t wrapped;	/* records copied because they wrapped */
	uint64_t bad;		/* -EBADMSG: corrupt records or heads */
};

/*
 * Usage (every record of a snapshot in one pass):
 *	while (pebs_ring__read_init(ring) == 0) {
 *		while ((err = pebs_ring__next(ring, &ev)) > 0)
 *			handle(ev);	// e.g. pebs_sample__decode()
 *		pebs_ring__consume(ring);
 *	}
 */

/*
 * pebs_ring__new - a reader over a perf mmap area: @base points at the
 * struct perf_event_mmap_page. The data area is taken from the page's
 * data_offset/data_size when they are non-zero (kernels >= 4.1), else it
 * follows one page on and is @data_size bytes. Its size must be a power
 * of two. Reading starts at the page's data_tail. The mapping must be
 * writable (the reader stores data_tail). Returns 0, -EINVAL (sizes),
 * -ENOMEM.
 */
PEBS_API int pebs_ring__new(void *base, size_t data_size,
			    struct pebs_ring **ringp);
PEBS_API void pebs_ring__delete(struct pebs_ring *ring);

/*
 * pebs_ring__read_init - snapshot data_head (acquire). Returns 0, -EAGAIN
 * if there is nothing new, or -EBADMSG if data_head is more than the
 * ring size ahead of the tail (corrupt page): the reader then skips to
 * that head and publishes it as the tail.
 */
PEBS_API int pebs_ring__read_init(struct pebs_ring *ring);

/*
 * pebs_ring__next - the next record of the snapshot.
 *
 * Returns 1 and stores a pointer to the record in *ev (into the ring
 * when contiguous, into a bounce buffer when it wraps; valid until the
 * next call; 8-byte aligned when the kernel's records are), 0 at the
 * end of the snapshot, or -EBADMSG if the record is corrupt (size
 * smaller than its header, or larger than what the kernel published,
 * hence than the ring): the reader then skips to the snapshot's head and
 * the next call returns 0. Every record type is returned (SAMPLE, LOST,
 * THROTTLE, COMM, MMAP2, EXIT, SWITCH, ...); LOST, THROTTLE and
 * UNTHROTTLE are also counted in the ring's stats.
 */
PEBS_API int pebs_ring__next(struct pebs_ring *ring,
			     const struct perf_event_header **ev);

/*
 * pebs_ring__consume - publish what was read (release store of
 * data_tail), letting the kernel reuse that space. Records returned by
 * __next must not be used afterwards.
 */
PEBS_API void pebs_ring__consume(struct pebs_ring *ring);

/* pebs_ring__stats - counters since __new. */
PEBS_API const struct pebs_ring_stats *
pebs_ring__stats(const struct pebs_ring *ring);

/* ------------------------------------------------------------------ */
/* Samples (lib/decode/sample.c)                                              */
/* ------------------------------------------------------------------ */

/*
 * A decoded PERF_RECORD_SAMPLE (or the sample_id of another record).
 * Fields whose bit is not in @present are zero. Pointers point into the
 * record (valid as long as the record is).
 */
struct pebs_sample {
	uint64_t present;	/* PERF_SAMPLE_* bits stored below (not the
				   skipped READ, BRANCH_STACK, REGS_*,
				   STACK_USER, AUX) */
	uint64_t id;		/* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	uint64_t weight;	/* WEIGHT, or WEIGHT_STRUCT var1_dw */
	uint16_t weight2;	/* WEIGHT_STRUCT var2_w (e.g. retire lat.) */
	uint16_t weight3;	/* WEIGHT_STRUCT var3_w */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t callchain_nr;	/* CALLCHAIN: number of entries */
	const uint64_t *callchain; /* unaligned-safe: read with memcpy */
	uint32_t raw_size;	/* RAW: payload size */
	const void *raw;
};

/*
 * struct pebs_sample_layout - how the samples of one event are laid out,
 * prepared once from its attr (sample_type, read_format,
 * branch_sample_type, sample_regs_user/intr) so that decoding a record
 * does not re-walk the sample_type bits: when every field present has a
 * fixed size (the PEBS case) each field is read at a precomputed offset.
 * A value: copy it freely; fill it only with pebs_sample_layout__init().
 */
struct pebs_sample_layout {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t branch_sample_type;
	uint32_t regs_user_nr;	/* weight of sample_regs_user */
	uint32_t regs_intr_nr;	/* weight of sample_regs_intr */
	uint32_t read_size;	/* bytes of READ when not a group, else 0 */
	uint32_t fixed_size;	/* record size when every field is fixed
				   size, else 0 (decoded field by field) */
	uint32_t id_size;	/* bytes of a trailing sample_id */
	int16_t off[16];	/* private: field offsets (fixed layouts) */
};

/*
 * pebs_sample_layout__init - prepare @l for samples of @attr.
 * Returns 0, or -EOPNOTSUPP if sample_type (or branch_sample_type, or
 * read_format) has a bit this decoder does not know.
 */
PEBS_API int pebs_sample_layout__init(struct pebs_sample_layout *l,
				      const struct perf_event_attr *attr);

/*
 * pebs_sample__decode - decode PERF_RECORD_SAMPLE @ev with layout @l:
 * IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, WEIGHT or
 * WEIGHT_STRUCT, DATA_SRC, TRANSACTION, PHYS_ADDR, CGROUP,
 * DATA_PAGE_SIZE, CODE_PAGE_SIZE are stored; CALLCHAIN and RAW are
 * pointed at; READ, BRANCH_STACK, REGS_USER, STACK_USER, REGS_INTR and
 * AUX are skipped. Every length is checked against ev->size. Returns 0
 * or -EBADMSG (record too short or a length field overruns it).
 */
PEBS_API int pebs_sample__decode(const struct pebs_sample_layout *l,
				 const struct perf_event_header *ev,
				 struct pebs_sample *s);

/*
 * pebs_sample__decode_id - decode the sample_id that a non-sample record
 * carries at its END with attr.sample_id_all (TID, TIME, ID, STREAM_ID,
 * CPU, IDENTIFIER in that order). Returns 0 or -EBADMSG (the record is
 * shorter than its header plus the sample_id).
 */
PEBS_API int pebs_sample__decode_id(const struct pebs_sample_layout *l,
				    const struct perf_event_header *ev,
				    struct pebs_sample *s);

/*
 * pebs_sample__parse - decode a PERF_RECORD_SAMPLE laid out for
 * @sample_type alone (builds a layout per call: prefer __decode in
 * loops). Returns 0, -EBADMSG if the record is too short for its
 * sample_type, -EOPNOTSUPP if sample_type has READ, BRANCH_STACK,
 * REGS_USER or REGS_INTR (their size needs the attr: use
 * pebs_sample_layout__init) or an unknown bit.
 */
PEBS_API int pebs_sample__parse(const struct perf_event_header *ev,
				uint64_t sample_type, struct pebs_sample *s);

/*
 * pebs_sample__parse_id - decode the trailing sample_id of a non-sample
 * record (sample_id_all). Returns as pebs_sample__parse.
 */
PEBS_API int pebs_sample__parse_id(const struct perf_event_header *ev,
				   uint64_t sample_type, struct pebs_sample *s);

/* (lib/decode/data-src.c) */

/* Where a memory access was served from, normalised over both encodings. */
enum pebs_mem_level {
	PEBS_MEM_LVL_NA = 0,
	PEBS_MEM_LVL_L1,
	PEBS_MEM_LVL_LFB,	/* line fill buffer / miss address buffer */
	PEBS_MEM_LVL_L2,
	PEBS_MEM_LVL_L3,
	PEBS_MEM_LVL_L4,
	PEBS_MEM_LVL_ANY_CACHE,	/* e.g. a remote cache (see remote) */
	PEBS_MEM_LVL_RAM,	/* DRAM (see remote) */
	PEBS_MEM_LVL_PMEM,
	PEBS_MEM_LVL_CXL,
	PEBS_MEM_LVL_IO,
	PEBS_MEM_LVL_UNCACHED,
};

/*
 * A decoded data_src (union perf_mem_data_src). The strings are what
 * perf's mem-events.c prints for each column (perf >= 6.3 for the
 * level: mem_lvl_num + mem_remote + mem_hops when mem_lvl_num is set,
 * else the old mem_lvl bits).
 */
struct pebs_data_src {
	uint64_t val;
	enum pebs_mem_level level; /* lowest level named */
	bool hit, miss;		/* level hit / miss */
	bool remote;		/* mem_remote, or a REM_* mem_lvl bit */
	unsigned int hops;	/* mem_hops (0: not given) */
	bool locked;
	bool tlb_miss;
	bool load, store;
	char op[8];		/* "LOAD" "STORE" "PFETCH" "EXEC" "N/A" "No" */
	char lvl[64];		/* "L1 hit", "LFB/MAB hit", "Remote node,
				   same socket RAM hit", "N/A" ... */
	char snoop[32];		/* "None", "HitM", "Hit or Fwd", "N/A" ... */
	char tlb[64];		/* "L1 or L2 hit", "L2 miss", "N/A" ... */
	char lock[4];		/* "Yes" "No" "N/A" */
	char blk[16];		/* " N/A", " Data", " Data Addr" (as perf) */
};

/* pebs_data_src__decode - fill @d from @data_src (never fails). */
PEBS_API void pebs_data_src__decode(uint64_t data_src,
				    struct pebs_data_src *d);

/*
 * pebs_data_src__str - data_src as `perf script -F data_src` prints it
 * after the hex value, e.g.
 * "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A".
 * Returns the length snprintf would have written.
 */
PEBS_API int pebs_data_src__str(uint64_t data_src, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Channels (lib/sampling/channel.c)                                            */
/* ------------------------------------------------------------------ */

/*
 * A channel samples one event on one target (a thread, a process and
 * its children with opts.inherit, or a CPU) into its own mmap ring.
 *
 *	PEBS_OPTS(pebs_channel_opts, o, .period = 20011);
 *	struct pebs_channel *ch;
 *	const struct perf_event_header *rec;
 *	struct pebs_sample s;
 *
 *	err = pebs_channel__open(&ev, tid, -1, &o, &ch);
 *	ring = pebs_channel__ring(ch);
 *	while (pebs_ring__read_init(ring) == 0) {
 *		while (pebs_ring__next(ring, &rec) > 0)
 *			if (rec->type == PERF_RECORD_SAMPLE &&
 *			    !pebs_sample__decode(pebs_channel__layout(ch),
 *						 rec, &s))
 *				use(&s);
 *		pebs_ring__consume(ring);
 *	}
 *	pebs_channel__close(ch);
 *
 * A channel is not thread-safe: one thread reads its ring at a time.
 */
struct pebs_channel;

#define PEBS_CHANNEL_DEF_PERIOD	10007	/* no period, no freq given */
#define PEBS_CHANNEL_DEF_PAGES	64	/* data pages of a ring */
#define PEBS_CHANNEL_MAX_PAGES	(1u << 20)

/*
 * PEBS_CHANNEL_PEBS_SAMPLE: the default sample_type of a precise or
 * memory event (batchable by large PEBS on Skylake and later);
 * PEBS_CHANNEL_SW_SAMPLE: the default of every other event (software,
 * tracepoint, non-precise hardware).
 */
#define PEBS_CHANNEL_PEBS_SAMPLE \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | \
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT)
#define PEBS_CHANNEL_SW_SAMPLE \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | \
	 PERF_SAMPLE_PERIOD)

struct pebs_channel_opts {
	size_t sz;
	uint64_t sample_type;	/* 0: PEBS_CHANNEL_PEBS_SAMPLE or
				   PEBS_CHANNEL_SW_SAMPLE (see above) */
	uint64_t period;	/* fixed period; 0: the event's, else
				   PEBS_CHANNEL_DEF_PERIOD */
	uint64_t freq;		/* samples/s instead of a period (disables
				   large PEBS); not with period */
	unsigned int ring_pages; /* data pages, a power of two up to
				    PEBS_CHANNEL_MAX_PAGES; 0: default */
	unsigned int watermark;	/* wakeup after this many bytes (at most
				   the ring); 0: half the ring */
	bool inherit;		/* follow children and new threads (needs
				   cpu >= 0: one channel per CPU) */
	bool enable_on_exec;	/* start counting at exec (implies
				   disabled) */
	bool disabled;		/* open disabled (pebs_channel__enable) */
	bool context_switch;	/* PERF_RECORD_SWITCH(_CPU_WIDE) */
	bool task_records;	/* COMM (with exec), MMAP, MMAP2 with data
				   mappings, FORK/EXIT records */
	bool use_clockid;	/* TIME in clockid below (with TIME in
				   sample_type this disables large PEBS) */
	int clockid;
};

/*
 * pebs_channel_attr - the perf_event_attr pebs_channel__open would use
 * for @ev with @opts (NULL: defaults): @ev's type, config, config1/2,
 * precise_ip and exclude_* bits, plus size, sample_type, sample_id_all,
 * sample_period (or freq and sample_freq), watermark and
 * wakeup_watermark, disabled, enable_on_exec, inherit, context_switch,
 * comm/comm_exec/mmap/mmap2/mmap_data/task (task_records), use_clockid
 * and clockid. @attr is the caller's, of @attr_sz bytes (pass
 * sizeof(struct perf_event_attr)): the first min(attr_sz, the library's
 * size) are written, the rest zeroed, and attr->size says how many.
 * Returns 0, or -EINVAL (opts.sz unset or with unknown non-zero fields,
 * @ev's attr_area with unknown non-zero bytes, both period and freq,
 * ring_pages not a power of two or too large, watermark larger than the
 * ring, attr_sz below PERF_ATTR_SIZE_VER0), -E2BIG (the attr sets a
 * field past attr_sz: older kernel headers than the library's).
 */
PEBS_API int pebs_channel_attr(const struct pebs_event *ev,
			       const struct pebs_channel_opts *opts,
			       struct perf_event_attr *attr, size_t attr_sz);

/*
 * pebs_channel__open - open @ev on one target and map its ring.
 *
 * pid > 0, cpu -1: that thread (a tid); pid 0: the calling thread;
 * pid -1, cpu >= 0: everything on that CPU (needs privileges); pid > 0
 * and cpu >= 0: that thread while on that CPU, with opts.inherit also
 * the threads and children it creates from now on (the kernel refuses
 * to map the ring of an inherited event with cpu -1: -EINVAL). The fd is
 * O_CLOEXEC; the ring is mapped writable (1 + ring_pages pages) and read
 * through pebs_channel__ring(). With the default sample_type of a
 * precise event, a kernel that refuses PERF_SAMPLE_WEIGHT_STRUCT
 * (EINVAL; before 5.12) is asked once more with PERF_SAMPLE_WEIGHT.
 * @ev is copied. Returns 0, or: -EINVAL (as pebs_channel_attr, or the
 * kernel refused the attr), -ESRCH (no such pid/tid), -ENOENT/-EACCES/
 * -EOPNOTSUPP... from perf_event_open (explained by
 * pebs_perf_open_error), -EPERM from mmap (ring over
 * /proc/sys/kernel/perf_event_mlock_kb), -ENOMEM.
 */
PEBS_API int pebs_channel__open(const struct pebs_event *ev, pid_t pid,
				int cpu, const struct pebs_channel_opts *opts,
				struct pebs_channel **chp);
/* pebs_channel__close - unmap the ring, close the fd, free; NULL is ok. */
PEBS_API void pebs_channel__close(struct pebs_channel *ch);
/* the perf event file descriptor (owned by the channel) */
PEBS_API int pebs_channel__fd(const struct pebs_channel *ch);
/* the target as given to __open (pid -1 for a CPU channel) */
PEBS_API pid_t pebs_channel__pid(const struct pebs_channel *ch);
/* the CPU as given to __open (-1 for any CPU) */
PEBS_API int pebs_channel__cpu(const struct pebs_channel *ch);
/*
 * the attr the event was opened with (after a WEIGHT fallback); the
 * storage is PEBS_EVENT_ATTR_AREA bytes, zero past attr->size, so a
 * caller with newer kernel headers reads its new fields as zero
 */
PEBS_API const struct perf_event_attr *
pebs_channel__attr(const struct pebs_channel *ch);
/* the channel's copy of the event it was opened with */
PEBS_API const struct pebs_event *
pebs_channel__event(const struct pebs_channel *ch);
/* the sample layout of this channel's attr, for pebs_sample__decode */
PEBS_API const struct pebs_sample_layout *
pebs_channel__layout(const struct pebs_channel *ch);
/* the reader over this channel's ring (owned by the channel) */
PEBS_API struct pebs_ring *pebs_channel__ring(struct pebs_channel *ch);
/* PERF_EVENT_IOC_ENABLE / _DISABLE (with inherit: the children too) */
PEBS_API int pebs_channel__enable(struct pebs_channel *ch);
PEBS_API int pebs_channel__disable(struct pebs_channel *ch);
/*
 * pebs_channel__set_period - PERF_EVENT_IOC_PERIOD (in freq mode: the
 * frequency). The kernel refuses a zero period, so period 0 stops
 * sampling by disabling the event; a later non-zero period re-enables
 * it unless pebs_channel__disable was called in between (and
 * pebs_channel__enable while the period is 0 keeps it stopped). A
 * running event is disabled around the change, so the new period holds
 * from the next event on (Linux 6.18 mis-counted software events whose
 * period changed while they ran). Returns
 * 0, -EINVAL (period the kernel refuses, e.g. bit 63 set or a freq
 * above kernel.perf_event_max_sample_rate), or -errno from ioctl.
 */
PEBS_API int pebs_channel__set_period(struct pebs_channel *ch,
				      uint64_t period);
/*
 * pebs_channel__id - the event id (PERF_EVENT_IOC_ID, read at open):
 * the IDENTIFIER/ID of its samples. Returns 0.
 */
PEBS_API int pebs_channel__id(const struct pebs_channel *ch, uint64_t *id);

/*
 * pebs_attr_large_pebs - whether the kernel would let an Intel CPU
 * batch PEBS records for @attr (multi-record PEBS: one interrupt per
 * buffer, not per sample), by the rules of Linux 6.1
 * (intel_pmu_hw_config, intel_pmu_large_pebs_flags, LARGE_PEBS_FLAGS)
 * for a PEBS format 3 CPU (Skylake and later, where TIME is batchable;
 * Ice Lake's adaptive PEBS additionally batches BRANCH_STACK):
 * precise_ip >= 1; no freq; no wakeup_events unless watermark;
 * sample_type within IP TID TIME ADDR ID CPU STREAM_ID DATA_SRC
 * IDENTIFIER TRANSACTION PHYS_ADDR PERIOD CODE_PAGE_SIZE WEIGHT
 * WEIGHT_STRUCT, REGS_INTR (GP registers only) and REGS_USER (GP
 * registers only, exclude_kernel); no TIME with use_clockid. The
 * kernel also needs every PEBS event on that CPU to qualify, which no
 * attr can tell. If not, and @why is not NULL, *why names the first
 * reason (a static string, e.g. "freq mode", "sample_type has
 * CALLCHAIN").
 */
PEBS_API bool pebs_attr_large_pebs(const struct perf_event_attr *attr,
				   const char **why);

/* ------------------------------------------------------------------ */
/* Channel sets (lib/sampling/chanset.c)                                        */
/* ------------------------------------------------------------------ */

/*
 * A channel set opens every event of a list on every target of a set
 * (tasks or CPUs), registers all rings in one epoll instance and
 * drains them. Not thread-safe; callbacks must not add, remove or
 * update targets (-EBUSY).
 */
struct pebs_chanset;

enum pebs_target_kind {
	PEBS_TARGET_TASK,	/* pids or tids (opts.inherit for children:
				   then one channel per event per online
				   CPU, since the kernel cannot mmap an
				   inherited event opened with cpu -1) */
	PEBS_TARGET_CPU,	/* CPUs, system-wide */
};

/*
 * Callbacks (each may be NULL), declared with PEBS_OPTS() (sz: see
 * "Extensible structs" above). A negative return stops the drain and
 * is returned by __poll/__drain; the record it was called for counts as
 * consumed. Records of one ring arrive in ring order; rings are drained
 * one after the other.
 */
struct pebs_chanset_cbs {
	size_t sz;
	/*
	 * a sample of @ch, decoded with its layout; @raw points at the
	 * record (into the ring when it does not wrap), valid during the
	 * call. Samples are never filtered (any pid/tid/cpu is delivered).
	 */
	int (*on_sample)(void *ctx, struct pebs_channel *ch,
			 const struct pebs_sample *s,
			 const struct perf_event_header *raw);
	/* every other record (COMM, MMAP2, SWITCH, EXIT, THROTTLE, LOST...) */
	int (*on_record)(void *ctx, struct pebs_channel *ch,
			 const struct perf_event_header *ev);
	/* a PERF_RECORD_LOST: @lost samples dropped (before on_record) */
	void (*on_lost)(void *ctx, struct pebs_channel *ch, uint64_t lost);
	/*
	 * @target is gone (EPOLLHUP: a task target exited, with inherit
	 * after its last child): called once, after every remaining record
	 * of its channels was delivered; its channels are then closed and
	 * it leaves the set.
	 */
	void (*on_exit)(void *ctx, int target);
};

/*
 * pebs_chanset__new - an empty set that opens every event of @evs on
 * each target added, with @opts (NULL: defaults). The events and opts
 * are copied and checked (pebs_channel_attr). Side-band records
 * (opts.task_records, opts.context_switch) are asked of the first event
 * only, as perf asks them of its tracking event, so that each arrives
 * once. Returns 0, -EINVAL, -ENOMEM, or -errno from epoll_create1.
 */
PEBS_API int pebs_chanset__new(const struct pebs_event *evs,
			       unsigned int nr_evs,
			       enum pebs_target_kind kind,
			       const struct pebs_channel_opts *opts,
			       struct pebs_chanset **setp);
/* pebs_chanset__delete - close every channel and free; NULL is ok. */
PEBS_API void pebs_chanset__delete(struct pebs_chanset *set);

/*
 * pebs_chanset__add - open every event on @target (a pid/tid, or a
 * CPU). All or nothing. Returns 0, -EEXIST (already in), -ESRCH (no
 * such pid: pebs_errmsg() names it), -EBUSY (inside a callback), or
 * -errno from pebs_channel__open.
 */
PEBS_API int pebs_chanset__add(struct pebs_chanset *set, int target);
/* Close @target's channels. Returns 0, -ENOENT (not in the set), -EBUSY. */
PEBS_API int pebs_chanset__remove(struct pebs_chanset *set, int target);
/*
 * pebs_chanset__update - make the targets exactly @targets (duplicates
 * allowed): adds the new ones first, then removes those not listed;
 * targets in both keep their channels. All or nothing: if an add
 * fails, the set is left as it was and the error returned.
 */
PEBS_API int pebs_chanset__update(struct pebs_chanset *set,
				  const int *targets, unsigned int n);

/*
 * pebs_chanset__poll - wait up to @timeout_ms (-1 forever, 0 not at
 * all) for a ring to reach its watermark or a target to go, then drain
 * every ready ring (all records up to its head at the start of the
 * drain) and report gone targets (see on_exit). Returns the number of
 * samples delivered (0 on timeout), -EINTR, -EBUSY (called from a
 * callback), or the first negative callback return; -EBADMSG (also in
 * pebs_errmsg) if a sample does not decode with its channel's layout.
 */
PEBS_API int pebs_chanset__poll(struct pebs_chanset *set, int timeout_ms,
				const struct pebs_chanset_cbs *cbs, void *ctx);

/*
 * pebs_chanset__drain - as __poll without waiting, draining every ring
 * whether or not it reached its watermark (e.g. at the end of a
 * session). Returns as __poll.
 */
PEBS_API int pebs_chanset__drain(struct pebs_chanset *set,
				 const struct pebs_chanset_cbs *cbs, void *ctx);

/* targets in the set, and their channels (events x targets x CPUs) */
PEBS_API unsigned int pebs_chanset__nr_targets(const struct pebs_chanset *set);
PEBS_API unsigned int pebs_chanset__nr_channels(const struct pebs_chanset *set);

/*
 * pebs_chanset__channel - channel @idx (0 .. nr_channels - 1; the
 * channels of one target are consecutive, in event order, and with
 * inherit event order repeats per online CPU), or NULL. Indexes change
 * when targets are added or removed.
 */
PEBS_API struct pebs_channel *pebs_chanset__channel(struct pebs_chanset *set,
						    unsigned int idx);

/* the epoll fd (for an outer event loop: readable means call __poll(0)) */
PEBS_API int pebs_chanset__epoll_fd(const struct pebs_chanset *set);

/* Enable or disable every channel. Returns 0 or the first -errno. */
PEBS_API int pebs_chanset__enable(struct pebs_chanset *set);
PEBS_API int pebs_chanset__disable(struct pebs_chanset *set);

/* ------------------------------------------------------------------ */
/* perf.data reader (lib/perfdata/perfdata-read.c)                              */
/* ------------------------------------------------------------------ */

/*
 * The on-disk format (tools/perf/Documentation/perf.data-file-format.txt),
 * little-endian only. These definitions are shared with the writer.
 *
 *   struct pebs_perf_file_header	at offset 0
 *   attrs section: header.attrs.size / header.attr_size entries of
 *	{ struct perf_event_attr (attr_size - 16 bytes);
 *	  struct pebs_perf_file_section ids; }  (ids: an array of u64)
 *   data section: records, each starting with struct perf_event_header
 *   at data.offset + data.size: one pebs_perf_file_section per feature
 *   bit set in header.features, in bit order
 */
#define PEBS_PERF_MAGIC		0x32454c4946524550ULL	/* "PERFILE2" */

struct pebs_perf_file_section {
	uint64_t offset;	/* from the start of the file */
	uint64_t size;
};

struct pebs_perf_file_header {
	uint64_t magic;		/* PEBS_PERF_MAGIC */
	uint64_t size;		/* sizeof(struct pebs_perf_file_header) */
	uint64_t attr_size;	/* one attrs entry: attr.size + 16 */
	struct pebs_perf_file_section attrs;
	struct pebs_perf_file_section data;
	struct pebs_perf_file_section event_types; /* unused, zero */
	uint64_t features[4];	/* bitmap of enum pebs_perf_feat */
};

/* Feature sections (perf's HEADER_*; tools/perf/util/header.h). */
enum pebs_perf_feat {
	PEBS_FEAT_TRACING_DATA = 1,
	PEBS_FEAT_BUILD_ID,
	PEBS_FEAT_HOSTNAME,		/* perf string */
	PEBS_FEAT_OSRELEASE,		/* perf string */
	PEBS_FEAT_VERSION,		/* perf string */
	PEBS_FEAT_ARCH,			/* perf string */
	PEBS_FEAT_NRCPUS,		/* u32 available, u32 online */
	PEBS_FEAT_CPUDESC,		/* perf string */
	PEBS_FEAT_CPUID,		/* perf string */
	PEBS_FEAT_TOTAL_MEM,		/* u64 kB */
	PEBS_FEAT_CMDLINE,		/* u32 nr, nr perf strings */
	PEBS_FEAT_EVENT_DESC,		/* u32 nr, u32 attr_size, then nr of
					   { attr, u32 nr_ids, perf string
					   name, u64 ids[nr_ids] } */
	PEBS_FEAT_CPU_TOPOLOGY,
	PEBS_FEAT_NUMA_TOPOLOGY,
	PEBS_FEAT_BRANCH_STACK,
	PEBS_FEAT_PMU_MAPPINGS,
	PEBS_FEAT_GROUP_DESC,
	PEBS_FEAT_AUXTRACE,
	PEBS_FEAT_STAT,
	PEBS_FEAT_CACHE,
	PEBS_FEAT_SAMPLE_TIME,
	PEBS_FEAT_MEM_TOPOLOGY,
	PEBS_FEAT_CLOCKID,
	PEBS_FEAT_DIR_FORMAT,
	PEBS_FEAT_BPF_PROG_INFO,
	PEBS_FEAT_BPF_BTF,
	PEBS_FEAT_COMPRESSED,
	PEBS_FEAT_CPU_PMU_CAPS,
	PEBS_FEAT_CLOCK_DATA,
	PEBS_FEAT_HYBRID_TOPOLOGY,
	PEBS_FEAT_PMU_CAPS,
	PEBS_FEAT_BITS = 256,
};
/*
 * A "perf string" is { u32 len; char str[len]; } with str NUL-padded to
 * a multiple of 8 (len counts the padding).
 */

/* Records perf itself writes into the data section (above kernel types). */
enum pebs_perf_user_record {
	PEBS_PERF_RECORD_HEADER_ATTR = 64,   /* attr (attr.size bytes), u64 ids[] */
	PEBS_PERF_RECORD_HEADER_TRACING_DATA = 66, /* u32 size; data follows */
	PEBS_PERF_RECORD_HEADER_BUILD_ID = 67,
	PEBS_PERF_RECORD_FINISHED_ROUND = 68,
	PEBS_PERF_RECORD_ID_INDEX = 69,
	PEBS_PERF_RECORD_AUXTRACE_INFO = 70,
	PEBS_PERF_RECORD_AUXTRACE = 71,	/* u64 size; data follows */
	PEBS_PERF_RECORD_THREAD_MAP = 73,
	PEBS_PERF_RECORD_CPU_MAP = 74,
	PEBS_PERF_RECORD_EVENT_UPDATE = 78,
	PEBS_PERF_RECORD_TIME_CONV = 79,
	PEBS_PERF_RECORD_HEADER_FEATURE = 80,
	PEBS_PERF_RECORD_COMPRESSED = 81,
	PEBS_PERF_RECORD_FINISHED_INIT = 82,
};

/*
 * struct pebs_perfdata - a perf.data file opened for reading (the file
 * is mapped read-only; records point into the mapping).
 *
 * Usage:
 *	struct pebs_perfdata *pd;
 *	const struct perf_event_header *ev;
 *	struct pebs_sample s;
 *	unsigned int idx;
 *
 *	err = pebs_perfdata__open(path, &pd);
 *	while ((err = pebs_perfdata__next(pd, &ev)) > 0) {
 *		if (ev->type != PERF_RECORD_SAMPLE)
 *			continue;
 *		if (pebs_perfdata__sample(pd, ev, &s, &idx) == 0)
 *			use(&s, pebs_perfdata__attr(pd, idx, NULL, NULL));
 *	}
 *	pebs_perfdata__close(pd);
 */
struct pebs_perfdata;

/*
 * pebs_perfdata__open - open and validate a perf.data file.
 *
 * Reads the header, the attrs (attr.size of any value: the first
 * min(size, sizeof(struct perf_event_attr)) bytes are copied, the rest
 * zeroed) with their ids, the feature bitmap and section table, and
 * HEADER_EVENT_DESC names when present. Returns 0, -errno from
 * open/fstat/mmap (-ENOENT, -EACCES, ...), -EBADMSG (not a perf.data
 * file, or a section lies outside the file), -EOPNOTSUPP (big-endian
 * or the old PERFFILE format). Pipe-mode streams ("-": standard input),
 * compressed records and unfinished files: see pebs_perfdata__open_fd.
 */
PEBS_API int pebs_perfdata__open(const char *path, struct pebs_perfdata **pdp);

/*
 * pebs_perfdata__from_memory - as __open, over @size bytes at @buf
 * (not copied: must outlive the reader). For tests and fuzzing.
 */
PEBS_API int pebs_perfdata__from_memory(const void *buf, size_t size,
					struct pebs_perfdata **pdp);

/* pebs_perfdata__close - unmap and free; NULL is allowed. */
PEBS_API void pebs_perfdata__close(struct pebs_perfdata *pd);

/* pebs_perfdata__header - the file header (native byte order). */
PEBS_API const struct pebs_perf_file_header *
pebs_perfdata__header(const struct pebs_perfdata *pd);

/*
 * pebs_perfdata__nr_attrs - number of events (attrs section entries plus
 * PERF_RECORD_HEADER_ATTR records seen so far by __next).
 */
PEBS_API unsigned int pebs_perfdata__nr_attrs(const struct pebs_perfdata *pd);

/*
 * pebs_perfdata__attr - event @idx: its attr (attr->size is the bytes
 * held: the file's size, at most this library's sizeof(struct
 * perf_event_attr), so the attr can go to a writer or be read up to its
 * size safely), and, if @ids is not NULL, its sample ids
 * in *ids / *nr_ids. Returns NULL if @idx is out of range. Valid until
 * close.
 */
PEBS_API const struct perf_event_attr *
pebs_perfdata__attr(const struct pebs_perfdata *pd, unsigned int idx,
		    const uint64_t **ids, size_t *nr_ids);

/*
 * pebs_perfdata__attr_name - the event's name from HEADER_EVENT_DESC
 * (e.g. "ibs_op//"), or NULL if the file has none for it.
 */
PEBS_API const char *pebs_perfdata__attr_name(const struct pebs_perfdata *pd,
					      unsigned int idx);

/* pebs_perfdata__has_feat - whether feature section @feat is present. */
PEBS_API bool pebs_perfdata__has_feat(const struct pebs_perfdata *pd,
				      unsigned int feat);

/*
 * pebs_perfdata__feat - the raw bytes of feature section @feat.
 * Returns 0, or -ENOENT if the file does not have it.
 */
PEBS_API int pebs_perfdata__feat(const struct pebs_perfdata *pd,
				 unsigned int feat, const void **data,
				 size_t *size);

/*
 * pebs_perfdata__feat_str - a feature that is one perf string (HOSTNAME,
 * OSRELEASE, VERSION, ARCH, CPUDESC, CPUID) copied NUL-terminated into
 * @buf (truncated to @len). Returns the string's length, -ENOENT
 * (absent), -EBADMSG (malformed).
 */
PEBS_API int pebs_perfdata__feat_str(const struct pebs_perfdata *pd,
				     unsigned int feat, char *buf, size_t len);

/*
 * pebs_perfdata__next - the next record of the data section.
 *
 * Returns 1 and points *ev at the record, 8-byte aligned (in the
 * mapping: valid until close; from a pipe-mode stream or a compressed
 * record, or copied because the file had it unaligned: valid until the
 * next call), 0 at the end, or
 * -EBADMSG if a record's size is smaller than its header or runs past
 * the data section (iteration stops there). The payload that follows
 * AUXTRACE and HEADER_TRACING_DATA records is skipped. HEADER_ATTR
 * records add an event (see __nr_attrs). Every record is returned,
 * including perf's own types (>= 64), except PERF_RECORD_COMPRESSED
 * (perf record -z): the records inside it are returned instead.
 */
PEBS_API int pebs_perfdata__next(struct pebs_perfdata *pd,
				 const struct perf_event_header **ev);

/* pebs_perfdata__rewind - restart __next at the first record. */
PEBS_API void pebs_perfdata__rewind(struct pebs_perfdata *pd);

/*
 * pebs_perfdata__sample - decode a PERF_RECORD_SAMPLE with the attr its
 * id (IDENTIFIER or ID) maps to (the only attr if there is one; id 0,
 * which perf writes into records it synthesizes, maps to the first, as
 * in perf), and store that attr's index in *attr_idx (may be NULL).
 * Returns 0,
 * -EINVAL (not a sample record), -ENOENT (id matches no attr),
 * -EBADMSG (record too short), -EOPNOTSUPP (sample_type not decodable).
 */
PEBS_API int pebs_perfdata__sample(const struct pebs_perfdata *pd,
				   const struct perf_event_header *ev,
				   struct pebs_sample *s,
				   unsigned int *attr_idx);

/*
 * pebs_perfdata__sample_id - decode the trailing sample_id of a kernel
 * non-sample record (COMM, MMAP2, EXIT, ...) written with sample_id_all.
 * Returns as __sample; -ENOENT also when the attr lacks sample_id_all or
 * the record is one of perf's own (type >= 64).
 */
PEBS_API int pebs_perfdata__sample_id(const struct pebs_perfdata *pd,
				      const struct perf_event_header *ev,
				      struct pebs_sample *s,
				      unsigned int *attr_idx);

/* ------------------------------------------------------------------ */
/* perf.data writer (lib/perfdata/perfdata-write.c)                             */
/* ------------------------------------------------------------------ */

/*
 * A perf.data (PERFILE2) file that perf script/report read without
 * warnings. Order of calls:
 *
 *	pebs_perfdata_writer__create(path, &w);
 *	pebs_perfdata_writer__add_attr(w, attr, ids, nr_ids, name);  (1+)
 *	pebs_perfdata_writer__set_cmdline(w, argc, argv);	(optional)
 *	pebs_perfdata_writer__synth_task(w, pid);		(per process)
 *	pebs_perfdata_writer__write(w, record);			(any record)
 *	pebs_perfdata_writer__close(w);
 *
 * Records are batched in a large buffer (one write() per buffer). The
 * header goes first and its data size is updated at every flush, so a
 * recording killed after the commit reads to its last flush; __close()
 * writes the feature sections (see "Recording files" below for the
 * list) and the final header.
 * A writer is not thread-safe; no call may be made from a signal
 * handler (the record tool sets a flag there and calls __close() from
 * its main loop).
 *
 * Records need not be in time order: perf sorts them. A record tool
 * that drains several rings should write a PERF_RECORD_FINISHED_ROUND
 * header (type 68, size 8) after each pass over all rings, as perf
 * record does, so that perf can sort in rounds.
 */
struct pebs_perfdata_writer;

/* What has been written so far. */
struct pebs_perfdata_writer_stats {
	uint64_t records;	/* records written (incl. synthesized) */
	uint64_t samples;	/* PERF_RECORD_SAMPLE */
	uint64_t lost;		/* sum of PERF_RECORD_LOST.lost */
	uint64_t bytes;		/* data section size */
	uint64_t first_time;	/* first/last sample TIME (if sampled) */
	uint64_t last_time;
};

/*
 * pebs_perfdata_writer__create - check @path and build the file unseen:
 * nothing at @path changes until __commit() or __close() (see
 * "Recording files" below). Returns 0, or -errno from open/write
 * (pebs_errmsg(): "cannot create <path>: <strerror>: ...").
 */
PEBS_API int pebs_perfdata_writer__create(const char *path,
					  struct pebs_perfdata_writer **wp);

/*
 * pebs_perfdata_writer__add_attr - declare an event: its attr (copied:
 * attr->size bytes, 0 meaning the library's sizeof(struct
 * perf_event_attr); bytes past the library's struct must be zero), the
 * sample ids
 * the kernel gave its fds (PERF_EVENT_IOC_ID; may be NULL if nr_ids is
 * 0, which is only allowed for a single event) and its name (NULL: none;
 * shown by perf as the event name). Must precede the first record.
 * With two or more events every attr needs PERF_SAMPLE_IDENTIFIER and
 * the same sample_id_all (perf cannot tell the events apart otherwise).
 * Returns 0, -EINVAL (after the first record, the rule above, attr->size
 * below PERF_ATTR_SIZE_VER0, or a non-zero byte past the library's
 * struct), -ENOMEM.
 */
PEBS_API int pebs_perfdata_writer__add_attr(struct pebs_perfdata_writer *w,
					    const struct perf_event_attr *attr,
					    const uint64_t *ids,
					    unsigned int nr_ids,
					    const char *name);

/*
 * pebs_perfdata_writer__set_cmdline - the command line stored in
 * HEADER_CMDLINE (perf report --header shows it; pebs-shim report
 * prints it). Copied. Convention: pebs-shim record stores its own argv
 * and, when it chose an attribution mode itself, appends the effective
 * one as "--attribution=<mode>", which pebs-shim report displays.
 * Returns 0, -ENOMEM.
 */
PEBS_API int pebs_perfdata_writer__set_cmdline(struct pebs_perfdata_writer *w,
					       int argc,
					       const char *const *argv);

/*
 * pebs_perfdata_writer__write - append one record (any type: SAMPLE,
 * COMM, MMAP2, LOST, SWITCH, FINISHED_ROUND, ...) as is. Samples and
 * LOST records are counted in the stats; sample TIME feeds
 * HEADER_SAMPLE_TIME. Returns 0, -EINVAL (header.size < 8 or not a
 * multiple of 8), or -errno from write().
 */
PEBS_API int pebs_perfdata_writer__write(struct pebs_perfdata_writer *w,
					 const struct perf_event_header *ev);

/*
 * pebs_perfdata_writer__synth_task - synthesize what perf needs to name
 * the threads and symbols of process @pid, which may already be running:
 * a PERF_RECORD_COMM per thread (/proc/<pid>/task/<tid>/comm) and a
 * PERF_RECORD_MMAP2 per executable mapping of /proc/<pid>/maps (with
 * pgoff, device, inode, prot, flags). When the attrs have sample_id_all
 * the records carry a sample_id trailer: the thread, TIME 0 (sorted
 * before every sample), CPU 0 and the first event's first id. Returns
 * the number of threads seen, -ESRCH if the process is gone, or -errno.
 * The writer also synthesizes the kernel map ([kernel.kallsyms]_text)
 * before the first record when an event samples the kernel and
 * /proc/kallsyms shows addresses, as perf record does.
 */
PEBS_API int pebs_perfdata_writer__synth_task(struct pebs_perfdata_writer *w,
					      pid_t pid);

/* pebs_perfdata_writer__stats - the counters so far. */
PEBS_API const struct pebs_perfdata_writer_stats *
pebs_perfdata_writer__stats(const struct pebs_perfdata_writer *w);

/*
 * pebs_perfdata_writer__close - flush, write the feature sections and
 * the final header, close the file and free @w (NULL is allowed, then
 * it returns 0). Returns 0 or the first -errno of the flush/writes (the
 * writer is freed in every case).
 */
PEBS_API int pebs_perfdata_writer__close(struct pebs_perfdata_writer *w);

/* ------------------------------------------------------------------ */
/* Symbols (lib/symbols/symbols.c)                                             */
/* ------------------------------------------------------------------ */

/*
 * Resolve (pid, ip) to symbol + offset: address spaces come from
 * /proc/<pid>/maps or from MMAP/MMAP2/FORK/COMM records; symbols from
 * the mapped file's ELF .symtab, else the .symtab of its separate debug
 * file (/usr/lib/debug/.build-id/xx/yyyy.debug), else its .dynsym,
 * loaded once per file (lazily, at the first lookup in it) and looked
 * up by binary search; among aliases at one address the global, least
 * underscored name is shown. Kernel addresses resolve through
 * /proc/kallsyms on request (pebs_symbols__load_kallsyms), else to
 * "[kernel.kallsyms]" without a symbol. A pebs_symbols is not thread-safe.
 */
struct pebs_symbols;

/* A resolved address. Strings live as long as the pebs_symbols. */
struct pebs_sym {
	const char *name;	/* symbol, or NULL if none covers ip */
	uint64_t offset;	/* ip - symbol start */
	const char *dso;	/* mapped file ("[vdso]", "[kernel.kallsyms]", ...),
				   or NULL if ip is in no known mapping */
	uint64_t dso_offset;	/* file offset of ip within dso */
};

/* pebs_symbols__new - an empty resolver. Returns 0 or -ENOMEM. */
PEBS_API int pebs_symbols__new(struct pebs_symbols **symsp);
PEBS_API void pebs_symbols__delete(struct pebs_symbols *syms);

/*
 * pebs_symbols__load_pid - (re)read /proc/<pid>/maps for process @pid
 * (a tgid). Returns the number of mappings, -ESRCH (no such process),
 * -EACCES, or -errno.
 */
PEBS_API int pebs_symbols__load_pid(struct pebs_symbols *syms, pid_t pid);

/*
 * pebs_symbols__add_mmap - add one file mapping of process @pid:
 * [start, start + len) maps @path at file offset @pgoff. A new mapping
 * replaces the part of older ones it overlaps. Returns 0, -EINVAL,
 * -ENOMEM.
 */
PEBS_API int pebs_symbols__add_mmap(struct pebs_symbols *syms, pid_t pid,
				    uint64_t start, uint64_t len,
				    uint64_t pgoff, const char *path);

/*
 * pebs_symbols__add_record - feed a record from a ring or a perf.data
 * file: MMAP and MMAP2 add mappings (data mappings, misc
 * PERF_RECORD_MISC_MMAP_DATA, are ignored), FORK of a new process
 * copies the parent's mappings, COMM with PERF_RECORD_MISC_COMM_EXEC
 * drops them. Other records are ignored. Returns 0 or -ENOMEM.
 */
PEBS_API int pebs_symbols__add_record(struct pebs_symbols *syms,
				      const struct perf_event_header *ev);

/*
 * pebs_symbols__set_build_id - the build id @path had where it was
 * recorded (HEADER_BUILD_ID, or MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID).
 * A local file with another (or no) build id then resolves to no symbol
 * instead of a wrong one: use it for recordings from other machines.
 * Returns 0, -EINVAL (size 0 or > 20), -ENOMEM.
 */
PEBS_API int pebs_symbols__set_build_id(struct pebs_symbols *syms,
					const char *path,
					const uint8_t *build_id, size_t size);

/*
 * pebs_symbols__load_kallsyms - resolve kernel addresses (ip >= 2^63)
 * through this host's /proc/kallsyms from now on; only right for
 * recordings of this boot. Without it they resolve to dso "[kernel.kallsyms]"
 * and no symbol. Returns the number of symbols, -EACCES if kallsyms
 * shows no addresses (kptr_restrict), or -errno.
 */
PEBS_API int pebs_symbols__load_kallsyms(struct pebs_symbols *syms);

/*
 * pebs_symbols__resolve - the symbol of @ip in process @pid. Returns 0
 * with sym->name set, -ENOENT with sym->dso/name set as far as known
 * (no mapping, or no symbol covers ip; sym->dso set when the mapping
 * is known), -ENOMEM (loading the file's symbols), or -EINVAL. Files
 * that cannot be read or parsed, or whose build id differs from the one
 * set, resolve to no symbol (once: the failure is cached).
 */
PEBS_API int pebs_symbols__resolve(struct pebs_symbols *syms, pid_t pid,
				   uint64_t ip, struct pebs_sym *sym);

/*
 * pebs_sym__str - "name+0xoff" (or "name" at offset 0), "[dso]+0xoff"
 * when only the mapping is known, "0x<ip>" otherwise. Returns what
 * snprintf returns.
 */
PEBS_API int pebs_sym__str(const struct pebs_sym *sym, uint64_t ip,
			   char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Observer (lib/observe/observer.c)                                           */
/* ------------------------------------------------------------------ */

/*
 * A Shim-style observer: the calling thread, pinned to one CPU, polls
 * the table slots of the observed CPUs and their counters in a loop,
 * bracketing each observation with rdtscp. One observation is a row of
 * uint64_t words:
 *
 *   [0] start tsc   [1] end tsc
 *   then for each observed CPU, in pebs_observer__add_cpu order:
 *   [tgid] [pid] [switches] [counter 0] ... [counter nr_events-1]
 *
 * tgid and pid are the slot's int32 values sign-extended (so -1, "never
 * seen" or "no table", reads as UINT64_MAX); switches is the slot's
 * switch count (0 without a table); counters are the raw running
 * counts (subtract consecutive rows for deltas).
 *
 * Counters are per observed CPU (perf_event_open pid -1, cpu c). rdpmc
 * reads the registers of the logical CPU that executes it, so it can
 * only serve a counter of the observer's own CPU (an SMT sibling has
 * its own registers); every other counter is read with read(2), which
 * makes the kernel IPI the observed CPU to fold the count. A counter of
 * the observer's own CPU uses rdpmc when its user page allows it
 * (cap_user_rdpmc, a non-zero index) and rdpmc proves faster than
 * read() when both are timed at open (a hypervisor may trap rdpmc);
 * the user page protocol still decides at each read, falling back to
 * read() while the event is off its counter.
 *
 * Embedding it (error handling left out):
 *
 *	PEBS_OPTS(pebs_observer_opts, opts, .map = map); // or NULL map
 *	pebs_observer__new(1, &opts, &obs);	// this thread -> CPU 1
 *	pebs_observer__add_cpu(obs, 0);		// watch CPU 0
 *	pebs_event__parse("task-clock", &ev);
 *	pebs_observer__add_event(obs, &ev);
 *	size_t n = pebs_observer__row_words(obs);
 *	uint64_t row[n];
 *	pebs_obs_stats__new(obs, 990000, 1010000, &st);
 *	while (running)
 *		if (!pebs_observer__read(obs, row, n))
 *			pebs_obs_stats__add(st, row, NULL); // or keep rows
 *	pebs_obs_stats__period(st, 0.5);	// median cycles apart
 */
struct pebs_observer;

#define PEBS_OBS_MAX_EVENTS	8	/* counters per observed CPU */
#define PEBS_OBS_CPU_HEAD	3	/* tgid, pid, switches */

struct pebs_observer_opts {
	size_t sz;
	const struct pebs_map *map; /* table to read; NULL: counters only
				       (tgid/pid read as -1) */
	bool no_pin;		/* do not pin the calling thread (tests) */
};

/*
 * pebs_cpu_has_rdtscp - whether this CPU has rdtscp, which the observer
 * needs (CPUID 0x80000001 EDX bit 27). The environment variable
 * PEBS_TEST_NO_RDTSCP=1 makes it answer false, so that the behaviour of
 * a CPU without rdtscp (pebs_observer__new() fails with -EOPNOTSUPP)
 * can be tried on any machine; the test suite's feature probe honours
 * the same variable.
 */
PEBS_API bool pebs_cpu_has_rdtscp(void);

/*
 * pebs_observer__new - an observer running on @on_cpu: pins the calling
 * thread there (unless opts->no_pin), which must then be the thread
 * calling pebs_observer__read(). @opts may be NULL. Returns 0, -EINVAL
 * (bad CPU, opts->sz unset or with unknown non-zero fields),
 * -EOPNOTSUPP (the CPU lacks rdtscp: under qemu use -cpu max), -ENOMEM,
 * or -errno from sched_setaffinity.
 */
PEBS_API int pebs_observer__new(int on_cpu,
				const struct pebs_observer_opts *opts,
				struct pebs_observer **obsp);

/* pebs_observer__delete - close the counters and free; NULL is allowed. */
PEBS_API void pebs_observer__delete(struct pebs_observer *obs);

/*
 * pebs_observer__add_cpu - observe @cpu: its table slot (if a map was
 * given) and every event added so far, opened on it. Returns the CPU's
 * index in a row (>= 0), -EINVAL (cpu beyond the table or the system),
 * -EEXIST, or -errno from perf_event_open (pebs_errmsg() explains).
 */
PEBS_API int pebs_observer__add_cpu(struct pebs_observer *obs,
				    unsigned int cpu);

/*
 * pebs_observer__add_event - count @ev (a counting event: sampling
 * fields are cleared) on every observed CPU, present and future.
 * Returns the event's index (>= 0), -E2BIG (more than
 * PEBS_OBS_MAX_EVENTS), -EINVAL (a non-zero byte of ev->attr_area past
 * the library's perf_event_attr), or -errno from perf_event_open/mmap.
 */
PEBS_API int pebs_observer__add_event(struct pebs_observer *obs,
				      const struct pebs_event *ev);

/* observed CPUs and events added so far (they size a row) */
PEBS_API unsigned int pebs_observer__nr_cpus(const struct pebs_observer *obs);
PEBS_API unsigned int pebs_observer__nr_events(const struct pebs_observer *obs);
/* the CPU id at row index @idx, or -EINVAL */
PEBS_API int pebs_observer__cpu(const struct pebs_observer *obs,
				unsigned int idx);
/* the CPU the observer runs on (as given to __new) */
PEBS_API int pebs_observer__on_cpu(const struct pebs_observer *obs);

/* uint64_t words in one row: 2 + nr_cpus * (PEBS_OBS_CPU_HEAD + nr_events) */
PEBS_API size_t pebs_observer__row_words(const struct pebs_observer *obs);

enum pebs_counter_path {
	PEBS_COUNTER_RDPMC,	/* user-space rdpmc via the perf user page */
	PEBS_COUNTER_READ,	/* read(2) on the event */
};

/*
 * pebs_observer__counter_path - how counter @ev_idx of observed CPU
 * @cpu_idx is read (decided when it was opened); *why (may be NULL)
 * gets a one-line reason, valid while @obs lives ("another CPU's
 * counter ...", "cap_user_rdpmc is 0 ...", "rdpmc N cycles a read,
 * read() M ..."). Returns the path, or -EINVAL.
 */
PEBS_API int pebs_observer__counter_path(const struct pebs_observer *obs,
					 unsigned int cpu_idx,
					 unsigned int ev_idx,
					 const char **why);

/*
 * pebs_observer__read - take one observation into @row (@words long):
 * rdtscp, each observed CPU's slot (a consistent seqcount copy) and
 * counters, rdtscp. Returns 0, -ENOSPC (@words too small), -EAGAIN (a
 * slot stayed inconsistent through the retries: take the next one), or
 * -errno from read(2).
 */
PEBS_API int pebs_observer__read(struct pebs_observer *obs, uint64_t *row,
				 size_t words);

/*
 * pebs_trustable - Shim's filter: is the observation ending with
 * (begin1, end1) trustable after the one ending with (begin0, end0)?
 * True iff begin1 > begin0, end1 >= end0 and lo_ppm / 1e6 <=
 * (end1 - end0) / (begin1 - begin0) <= hi_ppm / 1e6, bounds included,
 * in exact integer arithmetic (1 % tolerance: 990000, 1010000).
 */
PEBS_API bool pebs_trustable(uint64_t begin0, uint64_t end0, uint64_t begin1,
			     uint64_t end1, uint32_t lo_ppm, uint32_t hi_ppm);

/*
 * pebs_rdpmc_read - read a counter through its perf user page @pc with
 * the protocol of <linux/perf_event.h>: seqlock on lock (retried while
 * odd or changed), offset + rdpmc(index - 1) sign-extended from
 * pmc_width. @rdpmc executes the instruction (NULL: the real rdpmc;
 * tests pass a fake). Returns 0 and *count, -EOPNOTSUPP when user
 * rdpmc is not possible now (cap_user_rdpmc 0, or index 0: the event
 * is not on a counter; use read(2)), or -EAGAIN if the lock kept
 * changing.
 */
PEBS_API int pebs_rdpmc_read(const struct perf_event_mmap_page *pc,
			     uint64_t (*rdpmc)(unsigned int counter),
			     uint64_t *count);

/*
 * pebs_tsc_hz - measure the TSC frequency against CLOCK_MONOTONIC over
 * about @ms milliseconds. Returns 0 and *hz, -EINVAL, or -EOPNOTSUPP
 * (no rdtscp).
 */
PEBS_API int pebs_tsc_hz(unsigned int ms, uint64_t *hz);

/*
 * Summaries of a stream of rows: achieved period, trustable fraction,
 * and per observed CPU the residency and counter totals of each thread
 * seen, at the observer's resolution: the interval between two
 * observations goes to the thread both saw, or, when the slot's switch
 * count or thread changed in between, half to the thread seen before
 * and half to the one seen after (the switch time is unknown); counter
 * deltas go to the thread seen after. Kept intervals only, except
 * all_cycles, which shows what the trustable filter changed.
 */
struct pebs_obs_stats;

struct pebs_obs_thread {
	int32_t tgid;
	int32_t pid;		/* 0: idle; -1: no table */
	uint64_t cycles;	/* TSC cycles attributed (kept intervals) */
	uint64_t all_cycles;	/* ... over all intervals, kept or not */
	uint64_t samples;	/* kept observations that saw it */
	uint64_t counters[PEBS_OBS_MAX_EVENTS]; /* delta totals */
};

/*
 * pebs_obs_stats__new - a summary for rows of @obs, with the trustable
 * bounds @lo_ppm..@hi_ppm (see pebs_trustable). Returns 0, -EINVAL,
 * -ENOMEM.
 */
PEBS_API int pebs_obs_stats__new(const struct pebs_observer *obs,
				 uint32_t lo_ppm, uint32_t hi_ppm,
				 struct pebs_obs_stats **stp);

/*
 * pebs_obs_stats__new_layout - the same for rows of @nr_cpus observed
 * CPUs with @nr_events counters each, without an observer: for rows
 * read back from a file, or made by hand. Returns 0, -EINVAL (bounds
 * reversed, more than PEBS_OBS_MAX_EVENTS events), -ENOMEM.
 */
PEBS_API int pebs_obs_stats__new_layout(unsigned int nr_cpus,
					unsigned int nr_events,
					uint32_t lo_ppm, uint32_t hi_ppm,
					struct pebs_obs_stats **stp);
PEBS_API void pebs_obs_stats__delete(struct pebs_obs_stats *st);

/*
 * pebs_obs_stats__add - account the next row. The first row only sets
 * the reference. If @deltas is not NULL it receives nr_cpus * nr_events
 * counter deltas since the previous row. Returns 1 if the row was kept
 * (trustable), 0 if not (or the first row), -ENOMEM.
 */
PEBS_API int pebs_obs_stats__add(struct pebs_obs_stats *st,
				 const uint64_t *row, uint64_t *deltas);

/* rows seen after the first, and kept among them */
PEBS_API uint64_t pebs_obs_stats__rows(const struct pebs_obs_stats *st);
PEBS_API uint64_t pebs_obs_stats__kept(const struct pebs_obs_stats *st);
/* sum of the kept intervals, and of all intervals, in TSC cycles */
PEBS_API uint64_t pebs_obs_stats__kept_cycles(const struct pebs_obs_stats *st);
PEBS_API uint64_t pebs_obs_stats__all_cycles(const struct pebs_obs_stats *st);

/*
 * pebs_obs_stats__period - the @q quantile (0..1) of the cycles between
 * consecutive observation starts (all rows), within 0.2 %. Returns 0
 * when fewer than two rows were added.
 */
PEBS_API uint64_t pebs_obs_stats__period(const struct pebs_obs_stats *st,
					 double q);

/*
 * pebs_obs_stats__threads - the threads seen on observed CPU @cpu_idx,
 * most cycles first. Copies at most @max into @out and returns how
 * many there are in all (call with max 0 to size), -EINVAL, or -ENOMEM.
 */
PEBS_API int pebs_obs_stats__threads(const struct pebs_obs_stats *st,
				     unsigned int cpu_idx,
				     struct pebs_obs_thread *out,
				     unsigned int max);

/* ------------------------------------------------------------------ */
/* Shared rings (lib/sampling/channel.c, lib/sampling/chanset.c)                         */
/* ------------------------------------------------------------------ */

/*
 * pebs_channel__open_output - as pebs_channel__open, but the channel
 * maps no ring: its records go to the ring of @output (or of the
 * channel @output writes to) through PERF_EVENT_IOC_SET_OUTPUT, and
 * pebs_channel__ring() returns that ring. The kernel allows it between
 * events of one CPU, or of one task both opened with cpu -1, with one
 * clock. Records then tell their channel only by their id
 * (PERF_SAMPLE_IDENTIFIER). @output may be closed before this channel:
 * it then stops counting and its ring stays mapped until the last
 * channel writing to it is closed. Returns as pebs_channel__open, or
 * -EINVAL (@output NULL or refused by the kernel).
 */
PEBS_API int pebs_channel__open_output(const struct pebs_event *ev,
				       pid_t pid, int cpu,
				       const struct pebs_channel_opts *opts,
				       struct pebs_channel *output,
				       struct pebs_channel **chp);

/*
 * pebs_channel__open_member - as __open_output (@output may be NULL: a
 * ring of its own), as a member of @leader's event group (perf's {a,b}:
 * the group is scheduled onto the PMU as one). @leader must watch the
 * same @pid and @cpu. Returns as __open, or -EINVAL.
 */
PEBS_API int pebs_channel__open_member(const struct pebs_event *ev, pid_t pid,
				       int cpu,
				       const struct pebs_channel_opts *opts,
				       struct pebs_channel *output,
				       const struct pebs_channel *leader,
				       struct pebs_channel **chp);

/*
 * pebs_chanset__nr_rings - the mapped rings of the set. When every
 * event samples PERF_SAMPLE_IDENTIFIER, a channel set maps one ring per
 * CPU, as perf record does: the events of a CPU target, the events and
 * tasks of inherited task targets on one CPU, the events of a task
 * opened with cpu -1 share it; the callbacks still get each record's
 * own channel (by its id). Records of a removed target left in a
 * shared ring are dropped. Without IDENTIFIER every channel has its own
 * ring.
 */
PEBS_API unsigned int pebs_chanset__nr_rings(const struct pebs_chanset *set);

/*
 * pebs_channel__lost - the samples the kernel dropped for this event
 * (its ring was full), as counted per event since Linux 6.0: channels
 * open with PERF_FORMAT_LOST in read_format where the kernel knows it
 * (and without it where it does not). With inherit, the count is the
 * channel's own task's, not its children's. Returns 0, -EOPNOTSUPP (no
 * PERF_FORMAT_LOST here), or -errno of read.
 */
PEBS_API int pebs_channel__lost(const struct pebs_channel *ch,
				uint64_t *lost);
/*
 * pebs_channel__lost_record - perf's PERF_RECORD_LOST_SAMPLES of this
 * channel into @buf (@len bytes): the count of pebs_channel__lost and,
 * with sample_id_all, a sample_id that holds only the channel's id (as
 * perf record writes it at the end). Returns the record's size, 0 when
 * nothing was lost, -ENOSPC (@len too small; 64 bytes always do), or
 * the errors of pebs_channel__lost.
 */
PEBS_API int pebs_channel__lost_record(const struct pebs_channel *ch,
				       void *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Attribution (lib/attrib/attrib.c)                                          */
/* ------------------------------------------------------------------ */

/*
 * An attribution engine says whose each sample of a recording is, from
 * the TID the kernel wrote or from a per-CPU switch history looked up by
 * the sample's (cpu, time), checks the one against the other, and names
 * threads (COMM/FORK records, the module's table, /proc). Feed it every
 * record in ring order (__sample, __record) and call __round after each
 * pass over all rings. Not thread-safe.
 */
struct pebs_attrib;

enum pebs_attrib_mode {
	PEBS_ATTRIB_TID,	/* the sample's TID */
	PEBS_ATTRIB_MAP,	/* the module's history (samples may lack TID):
				   each sample is held until the next
				   __round, when the history covers it */
	PEBS_ATTRIB_BOTH,	/* the TID, checked against the module's */
	PEBS_ATTRIB_SWITCH,	/* the TID, checked against the
				   PERF_RECORD_SWITCH_CPU_WIDE records fed
				   to __record (no module) */
};

/* whose a sample or record is: -1 unknown */
struct pebs_attrib_who {
	int32_t tgid;
	int32_t tid;
};

struct pebs_attrib_stats {
	uint64_t samples;	/* samples fed */
	uint64_t agree;		/* checks (BOTH, SWITCH): history = TID */
	uint64_t disagree;	/* ... another thread */
	uint64_t unattributed;	/* checks or MAP lookups with no entry */
	uint64_t history_lost;	/* switches overrun in the module's
				   history before they were read */
};

/* declared with PEBS_OPTS() (sz: see "Extensible structs" above) */
struct pebs_attrib_cbs {
	size_t sz;
	/*
	 * a sample with whose it is (@tag as given to __sample); @raw is
	 * the record as it came from the ring. A negative return stops.
	 */
	int (*emit)(void *ctx, unsigned int tag, const struct pebs_sample *s,
		    const struct perf_event_header *raw,
		    const struct pebs_attrib_who *who);
	/* a check that failed: @found NULL when the history had no entry */
	void (*mismatch)(void *ctx, uint32_t cpu, uint64_t time,
			 const struct pebs_attrib_who *sample,
			 const struct pebs_attrib_who *found);
};

/*
 * pebs_attrib__new - an engine for @mode. MAP and BOTH read @map (not
 * owned; it must outlive the engine) through a timeline of their own;
 * SWITCH builds one of @nr_cpus CPUs from the switch records. Returns
 * 0, -EINVAL (bad mode, MAP/BOTH without @map, SWITCH with nr_cpus 0),
 * -ENOMEM.
 */
PEBS_API int pebs_attrib__new(enum pebs_attrib_mode mode,
			      struct pebs_map *map, unsigned int nr_cpus,
			      struct pebs_attrib **ap);
/* pebs_attrib__delete - free (held samples are dropped); NULL is ok. */
PEBS_API void pebs_attrib__delete(struct pebs_attrib *a);

/*
 * pebs_attrib__sample - a decoded sample and its record. TID, BOTH and
 * SWITCH call cbs->emit now with the sample's pid/tid (BOTH and SWITCH
 * also keep it for the check at the next __round); MAP copies it and
 * calls cbs->emit at the next __round. Returns 0, -ENOMEM, -EINVAL
 * (cbs->sz unset or with unknown non-zero fields), or emit's negative
 * return.
 */
PEBS_API int pebs_attrib__sample(struct pebs_attrib *a, unsigned int tag,
				 const struct pebs_sample *s,
				 const struct perf_event_header *raw,
				 const struct pebs_attrib_cbs *cbs, void *ctx);
/*
 * pebs_attrib__record - any other record of an event with @sample_type
 * (its sample_id layout). COMM names a thread and FORK gives the new
 * one its parent's name; SWITCH_CPU_WIDE feeds the SWITCH history.
 * *who: the task of a COMM, MMAP(2), FORK or EXIT record; in MAP the
 * history's thread at the record's (cpu, time); else { 0, 0 }. Returns
 * 0, or -EBADMSG (shorter than a header).
 */
PEBS_API int pebs_attrib__record(struct pebs_attrib *a,
				 const struct perf_event_header *ev,
				 uint64_t sample_type,
				 struct pebs_attrib_who *who);
/*
 * pebs_attrib__round - the end of a pass over all rings: read the
 * module's new history (MAP, BOTH), emit the held samples in order
 * (MAP), then run the checks (BOTH, SWITCH; cbs->mismatch for each
 * failure). Returns 0, emit's negative return, -EINVAL (cbs->sz as
 * in __sample), or -ENOMEM (history).
 */
PEBS_API int pebs_attrib__round(struct pebs_attrib *a,
				const struct pebs_attrib_cbs *cbs, void *ctx);
/* pebs_attrib__stats - the counts so far (valid until the next call) */
PEBS_API const struct pebs_attrib_stats *
pebs_attrib__stats(struct pebs_attrib *a);

/* pebs_attrib__set_comm - name thread @tid of process @tgid */
PEBS_API void pebs_attrib__set_comm(struct pebs_attrib *a, int32_t tgid,
				    int32_t tid, const char *comm);
/*
 * pebs_attrib__comm - the name of @tid: the last COMM record (or the
 * parent's, or the module's table), else /proc/<tid>/comm (kept), else
 * @fallback if not NULL or empty, else ":<tid>"; tid 0 is "swapper".
 * Valid until the next call.
 */
PEBS_API const char *pebs_attrib__comm(struct pebs_attrib *a, int32_t tid,
				       const char *fallback);
/* pebs_attrib__comm_known - whether @tid has a name without /proc */
PEBS_API bool pebs_attrib__comm_known(struct pebs_attrib *a, int32_t tid);
/*
 * pebs_attrib__load_proc - name every thread of process @pid now (from
 * /proc/<pid>/task). Returns 0, or -ESRCH (no such process).
 */
PEBS_API int pebs_attrib__load_proc(struct pebs_attrib *a, pid_t pid);

/* ------------------------------------------------------------------ */
/* Cache-line sharing, perf c2c's way (lib/c2c/c2c-stats.c, lib/c2c/c2c.c)     */
/* ------------------------------------------------------------------ */

/*
 * Counters of one set of samples, exactly as perf's c2c_decode_stats()
 * (tools/perf/util/mem-events.c, perf 6.1) defines them; the names are
 * perf's struct c2c_stats fields.
 */
struct pebs_c2c_stats {
	uint64_t nr_entries;	/* every sample ("Total records") */
	uint64_t locks;		/* mem_lock LOCKED */
	uint64_t store, st_uncache, st_noadrs, st_l1hit, st_l1miss, st_na;
	uint64_t load, ld_excl, ld_shared, ld_uncache, ld_io, ld_miss;
	uint64_t ld_noadrs, ld_fbhit, ld_l1hit, ld_l2hit, ld_llchit;
	uint64_t lcl_hitm, rmt_hitm, tot_hitm;
	uint64_t lcl_peer, rmt_peer, tot_peer;
	uint64_t rmt_hit, lcl_dram, rmt_dram;
	uint64_t blk_data, blk_addr;
	uint64_t nomap;		/* load/store whose data or code address
				   lies in no known mapping */
	uint64_t noparse;	/* neither load nor store (op N/A, ...) */
};

/*
 * pebs_c2c_stats__add_sample - count one sample into @st as
 * c2c_decode_stats() does: @data_src its PERF_SAMPLE_DATA_SRC
 * (PERF_MEM_DATA_SRC_NONE when the sample has none), @addr its data
 * address (0: none), @mapped whether both its data and code addresses
 * lie in known mappings. Returns 0 when the sample was fully decoded,
 * else -EINVAL (no address, not a load or store, or not mapped: perf's
 * -1; the counters are updated as perf does either way).
 */
PEBS_API int pebs_c2c_stats__add_sample(struct pebs_c2c_stats *st,
					uint64_t data_src, uint64_t addr,
					bool mapped);

/* pebs_c2c_stats__sum - add every counter of @add to @st (c2c_add_stats). */
PEBS_API void pebs_c2c_stats__sum(struct pebs_c2c_stats *st,
				  const struct pebs_c2c_stats *add);

/*
 * Derived counts of builtin-c2c.c: __llc_misses = lcl_dram + rmt_dram +
 * rmt_hitm + rmt_hit; __loads ("Total Loads") = llc misses + ld_fbhit +
 * ld_l1hit + ld_l2hit + ld_llchit + lcl_hitm; __records (the table's
 * "Total records") = loads + st_l1hit + st_l1miss + st_na.
 */
PEBS_API uint64_t pebs_c2c_stats__llc_misses(const struct pebs_c2c_stats *st);
PEBS_API uint64_t pebs_c2c_stats__loads(const struct pebs_c2c_stats *st);
PEBS_API uint64_t pebs_c2c_stats__records(const struct pebs_c2c_stats *st);

/* What to rank the shared cache lines by (perf c2c report -d). */
enum pebs_c2c_display {
	PEBS_C2C_TOT_HITM = 0,	/* perf's default: "Total HITMs" */
	PEBS_C2C_LCL_HITM,	/* -d lcl */
	PEBS_C2C_RMT_HITM,	/* -d rmt */
	PEBS_C2C_PEER,		/* -d peer */
	PEBS_C2C_XWRITES,	/* cross-thread writes: samples without a
				   data source (software events) */
};

/* One decoded sample, as fed to pebs_c2c__add(). */
struct pebs_c2c_sample {
	uint64_t addr;		/* data address; 0: none */
	uint64_t ip;
	uint64_t data_src;	/* valid when has_data_src */
	uint64_t weight;	/* access latency (PERF_SAMPLE_WEIGHT) */
	uint64_t period;
	uint64_t phys_addr;	/* 0: unknown */
	uint32_t node;		/* NUMA node of phys_addr, with has_node */
	bool has_node;
	uint32_t pid, tid;
	uint32_t cpu;		/* UINT32_MAX: unknown */
	bool has_data_src;	/* false: counted as data_src NONE, and the
				   access is of unknown kind (a possible
				   write, as a page fault may be) */
	bool mapped;		/* data and code address in known mappings
				   (else counted in nomap, as perf) */
};

/* How a line is shared. */
enum pebs_c2c_sharing {
	PEBS_C2C_PRIVATE = 0,	/* one thread, or nobody writes */
	PEBS_C2C_FALSE_SHARING,	/* >= 2 threads at different offsets,
				   >= 1 of them writing */
	PEBS_C2C_TRUE_SHARING,	/* one offset written by >= 2 threads */
};

/*
 * The evidence of a classification: thread a (pid_a/tid_a) wrote at
 * off_a; thread b accessed off_b (true sharing: off_b == off_a, and b
 * wrote it too; false sharing: off_b != off_a). Zero when PRIVATE.
 */
struct pebs_c2c_evidence {
	uint32_t pid_a, tid_a, pid_b, tid_b;
	uint8_t off_a, off_b;
	bool b_writes;
};

/* A cache line, as pebs_c2c__for_each_line() shows it (a value). */
struct pebs_c2c_line {
	uint64_t addr;		/* 64-byte aligned data address */
	uint32_t pid;		/* process of a user address (lines of
				   different processes are different lines,
				   as perf's anonymous memory); 0 kernel */
	unsigned int rank;	/* 0 first, in the order shown */
	struct pebs_c2c_stats stats;
	uint64_t unknown;	/* samples without a data source */
	uint64_t xwrites;	/* writes (stores, or unknown-kind accesses)
				   when >= 2 threads touch the line, else 0 */
	uint64_t load_weight, load_weight_n; /* sum, count: loads */
	uint64_t phys_addrs;	/* perf's "PA cnt": how often the physical
				   address changed from one sample (with a
				   node) to the next */
	uint64_t nodes;		/* bit n: NUMA node n (< 64) was seen */
	unsigned int nr_threads, nr_offsets, nr_cpus;
	enum pebs_c2c_sharing sharing;	/* true sharing wins */
	struct pebs_c2c_evidence evidence;	/* of sharing */
	bool also_false;	/* a true-sharing line with false sharing
				   too (other offsets, other threads) */
	struct pebs_c2c_evidence false_evidence; /* when also_false */
	uint32_t id;		/* pass to pebs_c2c__for_each_offset */
};

/* One byte offset of a line: who touched it, from where. */
struct pebs_c2c_offset {
	uint8_t offset;		/* 0..63 */
	struct pebs_c2c_stats stats;
	uint64_t unknown;
	unsigned int nr_ips, nr_threads, nr_cpus;
	uint32_t id;		/* pass to pebs_c2c__for_each_{ip,thread,cpu} */
};

/* A code address at one offset (perf's "Code address" rows). */
struct pebs_c2c_ip {
	uint64_t ip;
	uint32_t pid;		/* a process it was seen in (for symbols) */
	struct pebs_c2c_stats stats;
	uint64_t unknown;
	/* weight sums and counts as perf's mean rmt/lcl hitm and load */
	uint64_t rmt_hitm_w, rmt_hitm_n, lcl_hitm_w, lcl_hitm_n;
	uint64_t load_w, load_n;
	uint64_t pa_cnt;	/* perf's "PA cnt" of this entry */
	uint64_t nodes;		/* bit n: NUMA node n (< 64) */
	unsigned int nr_cpus;
};

/* A thread at one offset. */
struct pebs_c2c_thread {
	uint32_t pid, tid;
	uint64_t loads, stores, unknown, hitm;
};

/* A CPU at one offset. */
struct pebs_c2c_cpu {
	uint32_t cpu;
	uint64_t samples;
};

struct pebs_c2c;

/* pebs_c2c__new - an empty table. Returns 0 or -ENOMEM. */
PEBS_API int pebs_c2c__new(struct pebs_c2c **cp);
/* pebs_c2c__delete - free; NULL is allowed. */
PEBS_API void pebs_c2c__delete(struct pebs_c2c *c);

/*
 * pebs_c2c__add - account one sample: into the totals (all samples), and,
 * when it has a data address, into its line, offset, code address,
 * thread and CPU. Memory grows only with new keys (hash growth), linear
 * in the number of distinct (line, offset, ip/thread/cpu). Adding
 * after pebs_c2c__sort is allowed (sort again before iterating).
 * Returns 0 or -ENOMEM.
 */
PEBS_API int pebs_c2c__add(struct pebs_c2c *c, const struct pebs_c2c_sample *s);

/*
 * pebs_c2c__read_perfdata - add every sample of @pd to @c as perf c2c
 * report does: the records in time order (perf's ordered events; equal
 * times keep file order), MMAP/MMAP2 (data mappings included), FORK and
 * COMM exec building the address spaces that decide a sample's
 * "mapped": its data address in the kernel's mappings or its process's
 * by the sample's cpumode, its code address in either (perf's
 * sample__resolve_mem); a sample's node comes from its phys_addr and the
 * file's HEADER_MEM_TOPOLOGY (perf's mem2node); samples of software
 * events and tracepoints have no data source (their DATA_SRC, if any,
 * is "N/A"). The non-sample records also go to @syms (may be
 * NULL), for symbols. *undecoded (may be NULL) gets the number of
 * samples that did not decode. Returns 0, -ENOMEM, -EINVAL, or -EBADMSG
 * when a record is damaged (misaligned, or overrunning the data
 * section): the samples before it are added; pebs_errmsg() says where.
 */
PEBS_API int pebs_c2c__read_perfdata(struct pebs_c2c *c,
				     struct pebs_perfdata *pd,
				     struct pebs_symbols *syms,
				     uint64_t *undecoded);

/* pebs_c2c__stats - the counters of every sample added. */
PEBS_API const struct pebs_c2c_stats *pebs_c2c__stats(const struct pebs_c2c *c);

/*
 * pebs_c2c__sort - finish adding and rank the lines for @display as
 * perf c2c report does: shared lines are those with local or remote
 * HITM or peer snoops; a line is shown when its count for @display is
 * at least 0.1 % of the shared lines' total (so never when 0), ranked
 * by that count, then by address. PEBS_C2C_XWRITES shows lines with
 * cross-thread writes, ranked by them, then by records. Sorting again
 * with another display is allowed. Returns the number of lines shown,
 * or -ENOMEM.
 */
PEBS_API int pebs_c2c__sort(struct pebs_c2c *c, enum pebs_c2c_display display);

/*
 * pebs_c2c__shared - the number of shared lines (HITM or peer) and, if
 * @st is not NULL, the sum of their counters ("Global Shared Cache Line
 * Event Information"). Valid after pebs_c2c__sort.
 */
PEBS_API unsigned int pebs_c2c__shared(const struct pebs_c2c *c,
				       struct pebs_c2c_stats *st);

/* pebs_c2c__has_data_src - whether any sample carried a data source. */
PEBS_API bool pebs_c2c__has_data_src(const struct pebs_c2c *c);

/*
 * Iteration, after pebs_c2c__sort. The callback returns 0 to go on, or
 * anything else to stop: the iterator then returns that value; else 0.
 * -EINVAL for an unknown id or before sorting.
 *
 * __for_each_line visits the shown lines in rank order (@all: every
 * line with a data address, shown ones first); __for_each_offset the
 * offsets of a line in increasing order; __for_each_ip the code
 * addresses of an offset in perf's order (the display's HITM count,
 * most first, then by address); __for_each_thread and __for_each_cpu
 * in increasing pid/tid and cpu order.
 */
typedef int (*pebs_c2c_line_cb)(const struct pebs_c2c_line *l, void *arg);
typedef int (*pebs_c2c_offset_cb)(const struct pebs_c2c_offset *o, void *arg);
typedef int (*pebs_c2c_ip_cb)(const struct pebs_c2c_ip *ip, void *arg);
typedef int (*pebs_c2c_thread_cb)(const struct pebs_c2c_thread *t, void *arg);
typedef int (*pebs_c2c_cpu_cb)(const struct pebs_c2c_cpu *cpu, void *arg);

PEBS_API int pebs_c2c__for_each_line(struct pebs_c2c *c, bool all,
				     pebs_c2c_line_cb cb, void *arg);
PEBS_API int pebs_c2c__for_each_offset(struct pebs_c2c *c, uint32_t line_id,
				       pebs_c2c_offset_cb cb, void *arg);
PEBS_API int pebs_c2c__for_each_ip(struct pebs_c2c *c, uint32_t offset_id,
				   pebs_c2c_ip_cb cb, void *arg);
PEBS_API int pebs_c2c__for_each_thread(struct pebs_c2c *c, uint32_t offset_id,
				       pebs_c2c_thread_cb cb, void *arg);
PEBS_API int pebs_c2c__for_each_cpu(struct pebs_c2c *c, uint32_t offset_id,
				    pebs_c2c_cpu_cb cb, void *arg);

/* ------------------------------------------------------------------ */
/* Recording files: output paths, crash safety, pipe format            */
/* (lib/perfdata/output.c, lib/perfdata/perfdata-write.c)                                */
/* ------------------------------------------------------------------ */

/*
 * What pebs_perfdata_writer__create() now does: it refuses a path that
 * exists and is not a regular file (-EEXIST), and builds the file unseen
 * (an O_TMPFILE in the path's directory, else a hidden temporary name):
 * the path is untouched until pebs_perfdata_writer__commit() (or
 * __close(), which commits). The header is written with the first
 * record and its data size is updated after every flush, so a recording
 * killed after the commit reads up to its last flushed record; __close()
 * appends the feature sections (also CPU_TOPOLOGY, NUMA_TOPOLOGY,
 * PMU_MAPPINGS, CACHE, MEM_TOPOLOGY) and sets their bits. attrs are
 * written with PERF_ATTR_SIZE_VER7 bytes unless a later field is set.
 * HEADER_BUILD_ID also holds the kernel ([kernel.kallsyms], from
 * /sys/kernel/notes) and the vdso ([vdso]). __synth_task() also sends
 * the data mappings (misc PERF_RECORD_MISC_MMAP_DATA, "//anon" for
 * anonymous ones) when an event samples PERF_SAMPLE_ADDR, as perf
 * record -d does. Records are flushed at least once a second (at a
 * PERF_RECORD_FINISHED_ROUND) and when the 1 MiB buffer fills; a flush
 * cut short by a full disk keeps the whole records that made it.
 */

/*
 * pebs_output__check - whether @path may receive a recording: absent, or
 * a regular file. Returns 0, -EEXIST (exists and is a directory, device,
 * fifo or socket; pebs_errmsg() names which), -EINVAL (empty path) or
 * -errno from stat.
 */
PEBS_API int pebs_output__check(const char *path);

/*
 * pebs_output__backup - perf's rule for an existing output: a non-empty
 * regular file @path is renamed to "@path.old" (replacing an old one);
 * an absent or empty file is left alone. Returns 0, the errors of
 * pebs_output__check(), or -errno from rename (pebs_errmsg() names both
 * paths).
 */
PEBS_API int pebs_output__backup(const char *path);

/*
 * pebs_perfdata_writer__create_pipe - a writer of perf's pipe format on
 * @fd (perf record -o -; read by perf report -i -): a 16-byte header,
 * then a HEADER_ATTR record per event and a HEADER_FEATURE record per
 * feature known at the start (no BUILD_ID, no SAMPLE_TIME), written with
 * the first record, then the records. @fd is not closed by __close().
 * Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_perfdata_writer__create_pipe(int fd,
					       struct pebs_perfdata_writer **wp);

/*
 * pebs_perfdata_writer__commit - recording really started: write the
 * header and what is buffered, move an existing non-empty @path to
 * @path.old (pebs_output__backup) and give the file its path. Call it
 * once the events are open and the command exec'd; no-op for a pipe or
 * when already done. Returns 0 or -errno (pebs_errmsg() says which step
 * failed and names the path).
 */
PEBS_API int pebs_perfdata_writer__commit(struct pebs_perfdata_writer *w);

/*
 * pebs_perfdata_writer__discard - drop a writer without finishing it:
 * an uncommitted file never appears; a committed one stays as far as it
 * was flushed. Frees @w (NULL is allowed).
 */
PEBS_API void pebs_perfdata_writer__discard(struct pebs_perfdata_writer *w);

/* ------------------------------------------------------------------ */
/* Event lists and groups (lib/event/event-list.c)                           */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* perf.data reader: inputs perf users have (lib/perfdata/perfdata-open.c,      */
/* -next.c, -pipe.c, -zstd.c, -dir.c)                                  */
/* ------------------------------------------------------------------ */

/*
 * Besides a plain file, pebs_perfdata__open and __from_memory read:
 *  - pipe-mode streams (perf record -o -: a 16-byte header, then
 *    perf's HEADER_ATTR / HEADER_FEATURE / ... records inline up to
 *    FINISHED_INIT, read when the stream is opened, so that __attr,
 *    __attr_name and __feat work at once); __open("-") reads standard
 *    input. A stream is read as it comes, in bounded memory: a record
 *    from __next is valid only until the next call, and __rewind works
 *    on a stream saved to a file (or in memory), not on a pipe (the next
 *    __next then fails with -ESPIPE).
 *  - zstd-compressed records (perf record -z): the records inside each
 *    PERF_RECORD_COMPRESSED come out of __next, valid until its next
 *    call; the COMPRESSED records themselves are not returned. A frame
 *    that does not decompress, or to more than HEADER_COMPRESSED's
 *    mmap_len, gives -EINVAL from __next.
 *  - files perf never finished (killed perf record: the header's data
 *    size is still 0): records run to the end of the file; a last record
 *    cut short is dropped, not an error (see __truncated).
 *  - directory-format recordings (perf record --threads): @path is the
 *    directory; __next returns DIR/data's records, then those of the
 *    DIR/data.N files merged by time (each file is in time order; a
 *    record without a time keeps its place in its file).
 */

/*
 * pebs_perfdata__open_fd - as __open, on an open descriptor that the
 * reader takes over (closed on failure and by __close): a regular file
 * is mapped, a directory read as perf record --threads wrote it, and
 * anything else (a pipe, a socket) must carry a pipe-mode stream.
 * Returns as __open; -EBADMSG if a pipe carries something else,
 * -EOPNOTSUPP for a directory perf record --threads did not write.
 */
PEBS_API int pebs_perfdata__open_fd(int fd, struct pebs_perfdata **pdp);

/*
 * pebs_perfdata__open_rewindable - as __open, for callers that read the
 * recording more than once (__rewind): "-" on a pipe or socket is first
 * copied to its end into an anonymous memory file (memory grows with
 * the stream); anything else is opened as __open does. Returns as
 * __open, or -errno from reading standard input.
 */
PEBS_API int pebs_perfdata__open_rewindable(const char *path,
					    struct pebs_perfdata **pdp);

/* pebs_perfdata__is_pipe - whether the input is a pipe-mode stream. */
PEBS_API bool pebs_perfdata__is_pipe(const struct pebs_perfdata *pd);

/*
 * pebs_perfdata__truncated - whether the recording was cut short: the
 * header's data size is 0 (perf record did not finish; perf warns "Was
 * the 'perf record' command properly terminated?"), or the last record
 * read so far ran past the end of the file or stream and was dropped.
 */
PEBS_API bool pebs_perfdata__truncated(const struct pebs_perfdata *pd);

/* ------------------------------------------------------------------ */
/* Record views (lib/decode/record.c)                                         */
/* ------------------------------------------------------------------ */

/* COMM: a thread's name; exec set when it came from an exec. */
struct pebs_record_comm {
	uint32_t pid, tid;
	const char *comm;	/* in the record */
	bool exec;		/* PERF_RECORD_MISC_COMM_EXEC */
};

/* FORK and EXIT */
struct pebs_record_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* MMAP and MMAP2 (MMAP: prot is READ|EXEC, or READ|WRITE when data) */
struct pebs_record_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;	/* MMAP2 without a build id */
	uint64_t ino, ino_generation;
	uint8_t build_id[20];	/* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint8_t build_id_size;	/* 0: none */
	uint32_t prot, flags;	/* PROT_*, MAP_* */
	bool data;		/* PERF_RECORD_MISC_MMAP_DATA */
	const char *filename;	/* in the record */
};

/* LOST (id, lost) and LOST_SAMPLES (lost; id 0) */
struct pebs_record_lost {
	uint64_t id, lost;
};

/* SWITCH and SWITCH_CPU_WIDE (the other task only in the latter) */
struct pebs_record_switch {
	bool out, preempt;
	uint32_t next_prev_pid, next_prev_tid;
};

/* THROTTLE and UNTHROTTLE */
struct pebs_record_throttle {
	uint64_t time, id, stream_id;
};

/* One decoded record: the member for @type is set. */
struct pebs_record {
	uint32_t type;		/* PERF_RECORD_*, or 68 FINISHED_ROUND */
	uint16_t misc;
	union {
		struct pebs_record_comm comm;
		struct pebs_record_task task;
		struct pebs_record_mmap mmap;
		struct pebs_record_lost lost;
		struct pebs_record_switch sw;
		struct pebs_record_throttle throttle;
	};
};

/*
 * pebs_record__decode - decode the non-sample record @ev into @r. The
 * payload is @ev less its header and less @id_size bytes of sample_id
 * trailer (struct pebs_sample_layout.id_size of the file's first attr
 * when it has sample_id_all, else 0; perf's own records, type >= 64,
 * have none); decode the trailer itself with pebs_sample__decode_id.
 * Strings point into the record. Returns 0, -EBADMSG (too short for its
 * type, or a string without its NUL), -ENOENT (a type without a view:
 * SAMPLE, AUX, ...), -EINVAL.
 */
PEBS_API int pebs_record__decode(const struct perf_event_header *ev,
				 size_t id_size, struct pebs_record *r);

/* ------------------------------------------------------------------ */
/* Threads over time (lib/session/thread.c)                                    */
/* ------------------------------------------------------------------ */

/*
 * Threads of a recording, fed its records in time order: COMM sets a
 * thread's comm (also after exec), FORK makes a thread that inherits its
 * parent's comm, EXIT ends it (a later record for the tid is another
 * thread). Comm strings are interned: equal names are one pointer, valid
 * until __delete. Not thread-safe.
 */
struct pebs_threads;

/* pebs_threads__new - an empty table. Returns 0, -EINVAL, -ENOMEM. */
PEBS_API int pebs_threads__new(struct pebs_threads **tp);
PEBS_API void pebs_threads__delete(struct pebs_threads *t);

/*
 * pebs_threads__add_record - apply COMM, FORK or EXIT (decoded by
 * pebs_record__decode) at @time (the record's sample_id TIME, or 0).
 * Other types are ignored. Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_threads__add_record(struct pebs_threads *t,
				      const struct pebs_record *r,
				      uint64_t time);

/*
 * pebs_threads__comm - the current comm of @tid, else of its process
 * @pid, "swapper" for tid 0 (as perf), NULL if unknown (perf prints
 * ":<tid>").
 */
PEBS_API const char *pebs_threads__comm(const struct pebs_threads *t,
					int32_t pid, int32_t tid);

/*
 * pebs_threads__comm_at - the comm @tid had at @time (the last change at
 * or before it; the first known if @time precedes them all), "swapper"
 * for an unknown tid 0, else NULL.
 */
PEBS_API const char *pebs_threads__comm_at(const struct pebs_threads *t,
					   int32_t tid, uint64_t time);

/* pebs_threads__pid - the process of @tid, or -1 if unknown. */
PEBS_API int32_t pebs_threads__pid(const struct pebs_threads *t, int32_t tid);

/* pebs_threads__nr - the number of threads known. */
PEBS_API size_t pebs_threads__nr(const struct pebs_threads *t);

/* ------------------------------------------------------------------ */
/* Time-ordered records (lib/session/ordered.c)                                */
/* ------------------------------------------------------------------ */

/*
 * Records in time order, as perf's ordered events: queued records are
 * delivered sorted by time (ties in queue order) at each
 * FINISHED_ROUND up to the newest time seen before the previous round,
 * and all at __flush. Past max_queued records the oldest half goes out
 * early (bounded memory). Records are not copied: they must stay valid
 * until delivered. The callback returns 0 to go on, else that value
 * stops the processing and is returned.
 */
struct pebs_ordered;

/* @time of a record without one: delivered at once, in file order */
#define PEBS_ORDERED_NO_TIME	UINT64_MAX

typedef int (*pebs_ordered_fn)(void *arg, const struct perf_event_header *ev,
			       uint64_t time);

/* pebs_ordered__new flags: copy each record when queued (freed once
   delivered), for readers whose records do not stay valid (pipes,
   decompression buffers), as perf's copy_on_queue */
#define PEBS_ORDERED_COPY	(1u << 0)

/*
 * pebs_ordered__new - a queue calling @fn(@arg, record, time); max_queued
 * 0 means 1 Mi records; @flags 0 or PEBS_ORDERED_COPY. Returns 0,
 * -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_ordered__new(size_t max_queued, unsigned int flags,
			       pebs_ordered_fn fn, void *arg,
			       struct pebs_ordered **op);
PEBS_API void pebs_ordered__delete(struct pebs_ordered *o);

/*
 * pebs_ordered__queue - queue @ev of time @time (PEBS_ORDERED_NO_TIME:
 * delivered now). Returns 0, -ENOMEM, or what the callback returned.
 */
PEBS_API int pebs_ordered__queue(struct pebs_ordered *o,
				 const struct perf_event_header *ev,
				 uint64_t time);

/* pebs_ordered__round - a FINISHED_ROUND. Returns as __queue. */
PEBS_API int pebs_ordered__round(struct pebs_ordered *o);

/* pebs_ordered__flush - deliver everything queued. Returns as __queue. */
PEBS_API int pebs_ordered__flush(struct pebs_ordered *o);

/*
 * pebs_ordered__out_of_order - records queued older than one already
 * delivered (they are delivered late, at the next round).
 */
PEBS_API uint64_t pebs_ordered__out_of_order(const struct pebs_ordered *o);

/* pebs_ordered__process flags */
#define PEBS_ORDERED_FILE_ORDER	 (1u << 0) /* an event lacks TIME */
#define PEBS_ORDERED_OUT_OF_ORDER (1u << 1) /* some came after a round */

/*
 * pebs_ordered__process - every record of @pd (from where __next is) to
 * @fn in time order: a record's time is its sample TIME, or its
 * sample_id TIME (sample_id_all); records without one go at once;
 * FINISHED_ROUND (68) records bound the reordering and are not passed
 * on. If an event does not sample TIME, records go in file order and
 * PEBS_ORDERED_FILE_ORDER is set in *flags (may be NULL). Returns 0,
 * -EBADMSG (a damaged record: those before it were delivered),
 * -ENOMEM, or what the callback returned.
 */
PEBS_API int pebs_ordered__process(struct pebs_perfdata *pd,
				   pebs_ordered_fn fn, void *arg,
				   unsigned int *flags);

/* ------------------------------------------------------------------ */
/* Report: samples grouped by sort keys (lib/report/report.c)                 */
/* ------------------------------------------------------------------ */

/*
 * Samples grouped by a set of sort keys, as perf report's histograms.
 * Per row: samples, the sum of their periods (perf's Overhead is a row's
 * share of the total period), weights, and loads, stores and HitM from
 * the data source. The caller resolves each sample once (comm from
 * pebs_threads, dso and symbol from pebs_symbols: strings compare by
 * pointer, equal pointers being equal names) and adds it. Samples
 * without a data address (page, line, addr keys) or data source (src)
 * are not counted in a report that has those keys. Not thread-safe.
 */
struct pebs_report;

enum pebs_report_key {
	PEBS_REPORT_PID, PEBS_REPORT_TID, PEBS_REPORT_COMM, PEBS_REPORT_DSO,
	PEBS_REPORT_SYM, PEBS_REPORT_CPU, PEBS_REPORT_EVENT, PEBS_REPORT_PAGE,
	PEBS_REPORT_LINE, PEBS_REPORT_ADDR, PEBS_REPORT_SRC,
	PEBS_REPORT_SYM_DADDR,	/* perf's symbol_daddr: per data address */
	PEBS_REPORT_DSO_DADDR,	/* perf's dso_daddr: the data's mapping */
	PEBS_REPORT_MEM,	/* the memory level of data_src */
	PEBS_REPORT_SNOOP,	/* its snoop result */
	PEBS_REPORT_TLB,	/* its TLB result */
	PEBS_REPORT_DCACHELINE,	/* perf's dcacheline: data object + line */
	PEBS_REPORT_PHYS_DADDR,	/* perf's phys_daddr: PHYS_ADDR */
	PEBS_REPORT_WEIGHT,	/* perf's weight: one row per sample weight,
				   shown as weight x samples */
	PEBS_REPORT_NR_KEYS
};

#define PEBS_REPORT_MAX_KEYS	8
#define PEBS_REPORT_MAX_TIDS	8	/* thread ids kept per row */

/* One resolved sample. */
struct pebs_report_sample {
	int32_t pid, tid;
	uint32_t cpu;
	unsigned int event;	/* attr index */
	const char *comm;	/* NULL: unknown (shown as ":tid") */
	const char *dso;	/* file path or "[vdso]"...; NULL: unknown */
	const char *sym;	/* NULL: unresolved (shown as ip) */
	uint64_t ip;		/* unresolved: the address perf shows (in its
				   file for a mapped user address, else raw) */
	bool kernel;		/* [k], else [.] */
	bool has_addr, has_src, has_weight, has_phys;
	uint64_t addr, data_src, weight, phys_addr;
	uint64_t period;	/* PERIOD, or the attr's sample_period */
	bool hidden;		/* only in the totals (a filtered row) */
	/* the data address's object (pebs_symbols__resolve_data), for
	   the symbol_daddr and dso_daddr keys */
	const char *data_dso;	/* NULL: unknown */
	const char *data_sym;	/* NULL: no data symbol */
	uint64_t data_sym_off;
};

/* One row: its key fields (others zero) and what it sums. */
struct pebs_report_row {
	int32_t pid, tid;
	uint32_t cpu;
	unsigned int event;
	const char *comm, *dso, *sym;
	uint64_t ip;
	bool kernel;
	uint64_t addr, data_src, phys_addr;
	const char *data_dso, *data_sym;
	uint64_t data_sym_off;
	uint64_t samples, period;
	uint64_t weight_sum, weight_nr;
	uint32_t loads, stores, hitm;
	int32_t tids[PEBS_REPORT_MAX_TIDS];
	unsigned int nr_tids;	/* distinct; PEBS_REPORT_MAX_TIDS + 1: more */
	uint64_t weight;	/* the weight key: its samples' weight */
};

/*
 * pebs_report__parse_keys - "comm,dso,sym" into @keys (at most @max;
 * perf's "symbol" is accepted for sym; data keys symbol_daddr,
 * dso_daddr, mem, snoop, tlb, dcacheline, phys_daddr). Returns the number of keys, or
 * -EINVAL with pebs_errmsg() naming the bad token.
 */
PEBS_API int pebs_report__parse_keys(const char *str,
				     enum pebs_report_key *keys,
				     unsigned int max);

/* pebs_report__key_name - "comm" etc., NULL for a bad key. */
PEBS_API const char *pebs_report__key_name(enum pebs_report_key key);

/*
 * pebs_report__new - an empty report grouped by @keys (1 to
 * PEBS_REPORT_MAX_KEYS) for samples of @nr_events events (per-event
 * totals). Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_report__new(const enum pebs_report_key *keys,
			      unsigned int nr_keys, unsigned int nr_events,
			      struct pebs_report **rp);
PEBS_API void pebs_report__delete(struct pebs_report *r);

/* pebs_report__add - count one sample. Returns 0 or -ENOMEM. */
PEBS_API int pebs_report__add(struct pebs_report *r,
			      const struct pebs_report_sample *s);

/*
 * pebs_report__sort - order the rows as perf prints them: by period,
 * then samples, then the key fields ascending (rows are not moved: an
 * index is sorted). After it, no more __add.
 */
PEBS_API void pebs_report__sort(struct pebs_report *r);

/*
 * pebs_report__nr_rows, __row - the rows (NULL past the end). A row is
 * unpacked into a buffer of the report: the pointer is valid until the
 * next __row call on the same report.
 */
PEBS_API size_t pebs_report__nr_rows(const struct pebs_report *r);
PEBS_API const struct pebs_report_row *
pebs_report__row(const struct pebs_report *r, size_t i);

/*
 * pebs_report__totals - samples and period counted, of event @event or,
 * with -1, of all (either pointer may be NULL).
 */
PEBS_API void pebs_report__totals(const struct pebs_report *r, int event,
				  uint64_t *samples, uint64_t *period);

/*
 * pebs_report__overhead - perf report's Overhead of @row in percent: its
 * share of the period counted (of its own event's with @per_event), or
 * of the samples when no period was counted.
 */
PEBS_API double pebs_report__overhead(const struct pebs_report *r,
				      const struct pebs_report_row *row,
				      bool per_event);

/* pebs_report__keys - the report's keys in *keys; returns how many. */
PEBS_API unsigned int pebs_report__keys(const struct pebs_report *r,
					const enum pebs_report_key **keys);

/*
 * pebs_report__field - a row's @key field as perf prints it: comm (or
 * ":tid"), dso base name (or "[unknown]"), "[k] sym" / "[.] sym" or
 * "[.] 0x%016llx" when unresolved, cpu "%03u", event index, addresses
 * "0x..", data source; symbol_daddr "[.] sym+0xoff" or "[.] 0x%016llx",
 * dso_daddr as dso; dcacheline (the line within its data object) as
 * perf's hist_entry__dcacheline_snprintf: "[.] sym+0xoff" (the line's
 * offset from the data symbol of its first sample) or "[.] %#.16llx"
 * of the line ("[X]" in no known mapping); weight "%llu" of weight x
 * samples (perf's hist_entry__global_weight_snprintf); phys_daddr
 * "[.] %#.16llx" (0 when not sampled, as perf);
 * mem, snoop, tlb as perf's columns ("L1 hit",
 * "HitM", "L1 or L2 hit", "N/A"). Returns what snprintf returns, or
 * -EINVAL.
 */
PEBS_API int pebs_report__field(const struct pebs_report_row *row,
				enum pebs_report_key key, char *buf,
				size_t len);

/* ------------------------------------------------------------------ */
/* Symbols: recorded build ids and the kernel (lib/symbols/symbols.c)          */
/* ------------------------------------------------------------------ */

/*
 * pebs_symbols__add_build_ids - the HEADER_BUILD_ID section of a
 * perf.data file (pebs_perfdata__feat(pd, PEBS_FEAT_BUILD_ID, ...)):
 * every file's recorded build id (pebs_symbols__set_build_id), the
 * kernel's ("[kernel.kallsyms]") included. Symbols of a file whose
 * local copy differs then come from ~/.debug/.build-id or
 * /usr/lib/debug/.build-id, or are not shown. Returns the number of
 * build ids taken, -EBADMSG (an entry overruns the section), -ENOMEM.
 */
PEBS_API int pebs_symbols__add_build_ids(struct pebs_symbols *syms,
					 const void *data, size_t size);

/*
 * pebs_symbols__load_kernel - load this host's /proc/kallsyms only if
 * the recording's kernel is the running one: its build id (from
 * HEADER_BUILD_ID, or a kernel MMAP2 with a build id) equals the one in
 * /sys/kernel/notes, or, when none was recorded, the kernel map's _text
 * (perf's kernel MMAP) equals this boot's. For another kernel whose
 * build id perf's build-id cache has a kallsyms copy of
 * (~/.debug/[kernel.kallsyms]/<build id>/kallsyms, as perf record and
 * pebs-shim record leave it), that copy is loaded instead, its symbols
 * moved by the recorded _text less the copy's (perf's kallsyms__delta).
 * Otherwise kernel addresses stay unresolved (dso "[kernel.kallsyms]",
 * no symbol), as perf shows them. Returns 1 (this host's), 2 (the
 * cached copy), 0 (another kernel, or unknown), or -errno of
 * pebs_symbols__load_kallsyms.
 */
PEBS_API int pebs_symbols__load_kernel(struct pebs_symbols *syms);

/* ------------------------------------------------------------------ */
/* CPU lists (lib/core/cpulist.c)                                           */
/* ------------------------------------------------------------------ */

/*
 * pebs_cpulist__parse - "0-3,8,10-11" into @bitmap, (max_cpus + 63) / 64
 * words (cleared first; CPU c is bit c % 64 of word c / 64). Returns 0,
 * -EINVAL (a bad token, named in pebs_errmsg()), or -ERANGE (a CPU >=
 * @max_cpus).
 */
/* CPU ids a bitmap of the tools covers (Debian's NR_CPUS) */
#define PEBS_MAX_CPUS	8192

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

/* ------------------------------------------------------------------ */
/* Sample filters (lib/session/filter.c)                                       */
/* ------------------------------------------------------------------ */

/*
 * Which samples a report counts, as perf report's --comm, --pid, --tid,
 * --cpu and --time: a sample passes when it matches every filter set
 * (within one filter, any of its values).
 */
struct pebs_filter;

/* pebs_filter__new - a filter that passes everything. 0 or -ENOMEM. */
PEBS_API int pebs_filter__new(struct pebs_filter **fp);
PEBS_API void pebs_filter__delete(struct pebs_filter *f);

/*
 * pebs_filter__comms, __pids, __tids - comma-separated commands, process
 * ids, thread ids (added to those given before). Returns 0, -EINVAL
 * (pebs_errmsg() names the bad token), -ENOMEM.
 */
PEBS_API int pebs_filter__comms(struct pebs_filter *f, const char *list);
PEBS_API int pebs_filter__pids(struct pebs_filter *f, const char *list);
PEBS_API int pebs_filter__tids(struct pebs_filter *f, const char *list);

/*
 * pebs_filter__event - keep samples of event (attr index) @idx; called
 * for several, any of them. Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_filter__event(struct pebs_filter *f, unsigned int idx);

/* pebs_filter__cpus - a CPU list (pebs_cpulist__parse). Returns as it. */
PEBS_API int pebs_filter__cpus(struct pebs_filter *f, const char *list);

/*
 * pebs_filter__time - perf's --time: "start,end" in seconds of the
 * sample clock (either may be empty), or comma-separated "A%-B%" ranges
 * and "N%/M" slices (the M-th slice of N %) of [@first, @last], the
 * recording's first and last sample times in ns. Replaces an earlier
 * --time. Returns 0, -EINVAL (naming the bad part).
 */
PEBS_API int pebs_filter__time(struct pebs_filter *f, const char *spec,
			       uint64_t first, uint64_t last);

/* what pebs_filter__match says of a sample */
enum {
	PEBS_FILTER_PASS,	/* count it */
	PEBS_FILTER_HIDE,	/* --comm/--pid/--tid: in the totals only
				   (pebs_report_sample.hidden), as perf */
	PEBS_FILTER_DROP,	/* --cpu/--time/--event: not at all */
};

/*
 * pebs_filter__match - what to do with sample @s of time @time (a NULL
 * filter passes everything): PEBS_FILTER_PASS, _HIDE or _DROP.
 */
PEBS_API int pebs_filter__match(const struct pebs_filter *f,
				const struct pebs_report_sample *s,
				uint64_t time);

/* ------------------------------------------------------------------ */
/* Symbols: data addresses (lib/symbols/symbols.c)                             */
/* ------------------------------------------------------------------ */

/*
 * pebs_symbols__resolve_data - the data object of address @addr in
 * process @pid, as perf's symbol_daddr/dso_daddr: the mapping from the
 * data mappings of MMAP/MMAP2 records (perf record -d: "[heap]",
 * "[stack]", "//anon", file data), else the executable ones, gives
 * sym->dso and the file offset; a data symbol (STT_OBJECT of .symtab or
 * .dynsym) covering it gives sym->name and offset. Returns as
 * pebs_symbols__resolve.
 */
PEBS_API int pebs_symbols__resolve_data(struct pebs_symbols *syms,
					pid_t pid, uint64_t addr,
					struct pebs_sym *sym);

/* ------------------------------------------------------------------ */
/* Session: a recording replayed in time order (lib/session/session.c)         */
/* ------------------------------------------------------------------ */

/*
 * A perf.data recording replayed as perf's session does: records in
 * time order (pebs_ordered), threads (pebs_threads) and address spaces
 * (pebs_symbols, maps over time) following COMM, FORK, EXIT, MMAP and
 * MMAP2, and each sample handed to the caller resolved against the
 * state of its time (comm, dso, symbol, data object, period) as a
 * pebs_report_sample. __new scans the file once for the counts below
 * and the kernel's maps, reads HEADER_BUILD_ID, and decides whether
 * the recorded kernel is this one (pebs_symbols__load_kernel).
 */
struct pebs_session;

struct pebs_session_stats {
	uint64_t *event_samples;	/* samples per event (attr index) */
	unsigned int nr_events;		/* entries in event_samples */
	uint64_t first_time, last_time;	/* sample TIME span, ns */
	int kernel;		/* pebs_symbols__load_kernel's answer */
	/* counted by __process */
	uint64_t lost, lost_samples, throttles;
	uint64_t bad;		/* samples that did not decode */
};

/*
 * The callback: a decoded sample and its resolution. Return 0 to go on;
 * any other value stops __process and is returned.
 */
typedef int (*pebs_session_fn)(void *arg, const struct pebs_sample *s,
			       const struct pebs_report_sample *rs);

/*
 * pebs_session__new - a session over @pd (not owned; it must outlive the
 * session). Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_session__new(struct pebs_perfdata *pd,
			       struct pebs_session **sp);
PEBS_API void pebs_session__delete(struct pebs_session *ss);

/* pebs_session__stats - the counts so far (valid until __delete). */
PEBS_API const struct pebs_session_stats *
pebs_session__stats(const struct pebs_session *ss);

/* pebs_session__threads, __symbols - the session's state objects. */
PEBS_API struct pebs_threads *pebs_session__threads(struct pebs_session *ss);
PEBS_API struct pebs_symbols *pebs_session__symbols(struct pebs_session *ss);

/*
 * pebs_session__process - replay the records, calling @fn per sample;
 * with @data, data addresses are resolved too (data_dso, data_sym). Run
 * it once. *flags (may be NULL) gets pebs_ordered__process's flags.
 * Returns as pebs_ordered__process.
 */
PEBS_API int pebs_session__process(struct pebs_session *ss, bool data,
				   pebs_session_fn fn, void *arg,
				   unsigned int *flags);

/* ------------------------------------------------------------------ */
/* The observer's raw file (lib/observe/obs-raw.c)                             */
/* ------------------------------------------------------------------ */

/*
 * pebs-shim observe --raw FILE: one record per kept observation and
 * observed CPU, binary or CSV. The binary layout (little-endian):
 *
 *	header, 64 bytes: char magic[8] = "PEBSOBS\0"; u32 version (1),
 *	  header_size (64 + 64 * nr_events), record_size (32 + 8 *
 *	  nr_events), nr_events, nr_cpus; s32 observer_cpu; u64 tsc_hz,
 *	  period_cycles; u32 lo_ppm, hi_ppm; u64 reserved;
 *	then nr_events names of 64 bytes, NUL padded;
 *	then records: u64 tsc, dt; u32 cpu; s32 tgid, pid; u32 switches
 *	  (low 32 bits); u64 delta[nr_events].
 *
 * CSV: a header line "tsc,dt,cpu,tgid,pid,switches,<event>..." and one
 * line per record.
 */
#define PEBS_OBS_RAW_MAGIC	"PEBSOBS"
#define PEBS_OBS_RAW_NAME_LEN	64

struct pebs_obs_raw;

/* the header's contents (the sizes are filled by the library) */
struct pebs_obs_raw_info {
	uint32_t nr_events, nr_cpus;
	int32_t observer_cpu;
	uint64_t tsc_hz, period_cycles;
	uint32_t lo_ppm, hi_ppm;	/* trustable bounds, ppm of 1 */
	uint32_t header_size, record_size;
	char names[PEBS_OBS_MAX_EVENTS][PEBS_OBS_RAW_NAME_LEN];
};

struct pebs_obs_raw_record {
	uint64_t tsc, dt;	/* start rdtscp; cycles since the last one */
	uint32_t cpu;		/* the observed CPU */
	int32_t tgid, pid;	/* -1 never seen / no table, 0 idle */
	uint32_t switches;
	uint64_t delta[PEBS_OBS_MAX_EVENTS];	/* nr_events used */
};

struct pebs_obs_raw_opts {
	size_t sz;
	bool csv;		/* CSV instead of the binary layout */
	uint64_t max_bytes;	/* records stop at this size; 0: no limit */
};

/*
 * pebs_obs_raw__create - create (or replace) @path and write the header
 * for @info->nr_cpus CPUs (@cpus: their ids, in row order) and
 * @info->nr_events events named @info->names. @opts may be NULL.
 * Returns 0, -EINVAL (also: opts->sz unset or with unknown non-zero
 * fields), -ENOMEM, or -errno from open/write.
 */
PEBS_API int pebs_obs_raw__create(const char *path,
				  const struct pebs_obs_raw_info *info,
				  const unsigned int *cpus,
				  const struct pebs_obs_raw_opts *opts,
				  struct pebs_obs_raw **rawp);

/*
 * pebs_obs_raw__add_row - the records of one kept observation (@row as
 * pebs_observer__read() fills it, @dt cycles since the previous kept
 * one, @deltas as pebs_obs_stats__add() fills them). Returns 0, 1 when
 * the size limit was reached now (no record is written after it), or
 * -errno from write(2) (ENOSPC, EFBIG, EPIPE...).
 */
PEBS_API int pebs_obs_raw__add_row(struct pebs_obs_raw *raw,
				   const uint64_t *row, uint64_t dt,
				   const uint64_t *deltas);

/* bytes written so far (header included), and records */
PEBS_API uint64_t pebs_obs_raw__bytes(const struct pebs_obs_raw *raw);
PEBS_API uint64_t pebs_obs_raw__records(const struct pebs_obs_raw *raw);

/*
 * pebs_obs_raw__close - flush and close. Returns 0 or -errno from
 * write/close; the file is closed and @raw freed in every case. NULL is
 * allowed.
 */
PEBS_API int pebs_obs_raw__close(struct pebs_obs_raw *raw);

/*
 * pebs_obs_raw__parse_header - decode the binary header at @buf (@len
 * bytes available) into @info. Returns the header's size (records
 * follow it), -ENODATA (@len too short) or -EPROTO (not this format, or
 * inconsistent sizes).
 */
PEBS_API int pebs_obs_raw__parse_header(const void *buf, size_t len,
					struct pebs_obs_raw_info *info);

/*
 * pebs_obs_raw__parse_record - decode one record (info->record_size
 * bytes at @buf). Returns 0 or -ENODATA (@len too short).
 */
PEBS_API int pebs_obs_raw__parse_record(const struct pebs_obs_raw_info *info,
					const void *buf, size_t len,
					struct pebs_obs_raw_record *rec);
/* record (issue 12): groups in the writer (lib/perfdata/perfdata-feat.c) and   */
/* open-time fallbacks as perf's (lib/event/event-mods.c, lib/sampling/chanset.c)     */
/* ------------------------------------------------------------------ */

/*
 * pebs_perfdata_writer__add_group - events @leader .. @leader +
 * @nr_members - 1 (indexes in the order of __add_attr, added already)
 * form one group, as perf's {a,b}: written as HEADER_GROUP_DESC, which
 * perf report --group, perf evlist -g and perf report --header show.
 * @name: NULL for perf's anonymous group ("{anon_group}"). Must precede
 * the first record. Returns 0, -EINVAL (fewer than two events, events
 * not added yet, an event already in a group, after the first record),
 * -ENOMEM.
 */
PEBS_API int pebs_perfdata_writer__add_group(struct pebs_perfdata_writer *w,
					     unsigned int leader,
					     unsigned int nr_members,
					     const char *name);

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

/*
 * pebs_chanset__event - event @i (0 .. nr_evs - 1) as the set opens it
 * now, after the fallbacks above; NULL past the end.
 */
PEBS_API const struct pebs_event *
pebs_chanset__event(const struct pebs_chanset *set, unsigned int i);
/* c2c: perf's cache-line key and source lines (lib/c2c/c2c-maps.c,        */
/* lib/c2c/c2c.c, lib/symbols/srcline.c)                                           */
/* ------------------------------------------------------------------ */

/*
 * perf c2c's cache-line key of one sample (its `dcacheline` sort,
 * sort__dcacheline_cmp in tools/perf/util/sort.c, perf 6.1): samples
 * are in one line when all of these are equal: cpumode, has_map, the
 * data mapping's dso id (maj, min, ino, ino_generation), pid when
 * by_pid (private anonymous user memory: not MAP_SHARED, dso id all
 * zero), and al_addr >> 6.
 */
struct pebs_c2c_dkey {
	uint64_t al_addr;	/* map-relative data address (perf's
				   map_ip: address - start + pgoff for
				   files and modules, the address itself
				   for anonymous memory, the kernel image,
				   or no mapping) */
	uint64_t ino, ino_generation;
	uint32_t maj, min;
	uint32_t pid;		/* with by_pid, else 0 */
	uint16_t cpumode;	/* PERF_RECORD_MISC_KERNEL, _USER, ... */
	bool has_map;		/* the address is in a mapping of the
				   cpumode's address space */
	bool by_pid;
	char level;		/* perf's mark: 'k' kernel, '.' user,
				   's' shared data file mapping, 'X' no
				   mapping */
};

/*
 * The mappings perf keys lines by, over time: MMAP/MMAP2 (kernel ones
 * with pid -1), FORK copying a new process's maps (unless marked
 * PERF_RECORD_MISC_FORK_EXEC, perf's synthesized ones); exec keeps them,
 * as in perf 6.1. Bounded (about 1 M mappings; past that, or past a budget
 * of moves on hostile input, mappings are dropped). Not thread-safe.
 */
struct pebs_c2c_maps;

/* pebs_c2c_maps__new - no mappings. Returns 0 or -ENOMEM. */
PEBS_API int pebs_c2c_maps__new(struct pebs_c2c_maps **mp);
/* pebs_c2c_maps__delete - free; NULL is allowed. */
PEBS_API void pebs_c2c_maps__delete(struct pebs_c2c_maps *m);
/*
 * pebs_c2c_maps__add_record - apply MMAP, MMAP2 or FORK @ev (others and
 * damaged ones are ignored), in time order. Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_c2c_maps__add_record(struct pebs_c2c_maps *m,
				       const struct perf_event_header *ev);
/*
 * pebs_c2c_maps__key - the key of data address @addr of a sample of
 * process @pid with @cpumode (its header.misc & CPUMODE_MASK).
 */
PEBS_API void pebs_c2c_maps__key(const struct pebs_c2c_maps *m,
				 uint16_t cpumode, uint32_t pid, uint64_t addr,
				 struct pebs_c2c_dkey *k);

/*
 * pebs_c2c__add_keyed - pebs_c2c__add with perf's line key @k (from
 * pebs_c2c_maps__key). pebs_c2c__add keys a sample as "no mapping
 * known" with user addresses per process: cpumode KERNEL for addresses
 * >= 2^63 else USER, by_pid for user ones, al_addr the address.
 * Returns 0, -EINVAL or -ENOMEM.
 */
PEBS_API int pebs_c2c__add_keyed(struct pebs_c2c *c,
				 const struct pebs_c2c_sample *s,
				 const struct pebs_c2c_dkey *k);

/*
 * pebs_c2c__line_key - the key of line @line_id (pebs_c2c_line.id) into
 * *k. pebs_c2c_line.addr is the line of the virtual address of its first
 * sample (perf c2c's "Address" column). Returns 0 or -EINVAL.
 */
PEBS_API int pebs_c2c__line_key(const struct pebs_c2c *c, uint32_t line_id,
				struct pebs_c2c_dkey *k);

/*
 * pebs_c2c_stats__field - the name of counter @i (0, 1, ...: perf's
 * struct c2c_stats names, in the order of struct pebs_c2c_stats) and,
 * when @st and @v are given, its value in *@v; NULL past the last.
 */
PEBS_API const char *pebs_c2c_stats__field(const struct pebs_c2c_stats *st,
					   unsigned int i, uint64_t *v);

/*
 * Source lines of code addresses (lib/symbols/srcline.c, libdw), perf's
 * "Source:Line": an object is opened once, each (object, offset) looked
 * up once. Not thread-safe.
 */
struct pebs_srcline;

/* pebs_srcline__new - an empty cache. Returns 0, -EINVAL, -ENOMEM. */
PEBS_API int pebs_srcline__new(struct pebs_srcline **sp);
/* pebs_srcline__delete - free (closing the objects); NULL is allowed. */
PEBS_API void pebs_srcline__delete(struct pebs_srcline *s);
/*
 * pebs_srcline__find - the source file (as the DWARF line table names
 * it; valid until __delete) and line of the code at file offset @offset
 * of the ELF object @path (pebs_sym.dso and .dso_offset), from its DWARF
 * or its separate debug file (/usr/lib/debug/.build-id). Line 0 is
 * code the DWARF ties to no line of the file (perf prints "file:0").
 * Returns 0, -ENOENT (no such file, no debug info, or no line table
 * row for it), -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_srcline__find(struct pebs_srcline *s, const char *path,
				uint64_t offset, const char **file,
				unsigned int *line);
/* ---- report speed: one pass for the report and its sharing (c2c) ---- */

/*
 * pebs_session__set_c2c - during pebs_session__process, also add every
 * decoded sample to @c (NULL: stop), each as pebs_c2c__read_perfdata
 * would (its "mapped" against the mappings of its time, its node from
 * HEADER_MEM_TOPOLOGY, no data source for software events), before the
 * callback sees it: one pass over the file gives both. Call it before
 * __process; @c must outlive the pass. With PEBS_SESSION_C2C_SHARED in
 * @flags, a cache line's samples are added only once the line can be
 * shared (a second thread touches it, or a sample of it has a HITM or
 * peer snoop), its earlier ones first, in order: the lines
 * pebs_c2c__sort can show, their counts and ranks, and
 * pebs_c2c__has_data_src are as with every sample, while the other
 * lines cost about 80 bytes per sample instead of the table's entries
 * (they are then missing from pebs_c2c__stats and from
 * pebs_c2c__for_each_line's @all). Returns 0, -EINVAL, -ENOMEM.
 */
#define PEBS_SESSION_C2C_SHARED	1u
PEBS_API int pebs_session__set_c2c(struct pebs_session *ss,
				   struct pebs_c2c *c, unsigned int flags);

/*
 * pebs_report__sort_top - as pebs_report__sort, but only the first @n
 * rows are put in order; the others follow them in no particular order.
 * O(rows log n): for printing the top @n of a large table.
 */
PEBS_API void pebs_report__sort_top(struct pebs_report *r, size_t n);

/*
 * pebs_report__add_batch - pebs_report__add of @n samples in order, the
 * lookups of several overlapped (faster on tables larger than the
 * caches). Returns 0 or -ENOMEM (the samples before the failing one are
 * counted).
 */
PEBS_API int pebs_report__add_batch(struct pebs_report *r,
				    const struct pebs_report_sample *s,
				    size_t n);

/* ------------------------------------------------------------------ */
/* Plots: call chains, flame graphs, SVG (lib/symbols/callchain.c, flame.c,    */
/* svg.c, plot-flame.c, plot-timeline.c, plot-heat.c)                  */
/* ------------------------------------------------------------------ */

#include <stdio.h>

/* Frames kept per call chain: perf's default kernel.perf_event_max_stack */
#define PEBS_CALLCHAIN_MAX	127

/* What a frame's code is: it chooses the frame's colour. */
enum pebs_frame_kind {
	PEBS_FRAME_USER,	/* the program's own executable */
	PEBS_FRAME_LIB,		/* a shared library, [vdso] */
	PEBS_FRAME_KERNEL,	/* the kernel */
	PEBS_FRAME_UNKNOWN,	/* no known mapping */
	PEBS_FRAME_COMM,	/* a flame graph's command (or thread) */
	PEBS_FRAME_ROOT,	/* a flame graph's "all" */
	PEBS_FRAME_MERGED,	/* a flame graph's narrow frames, merged */
};

/* One resolved frame. Strings live as long as the pebs_symbols. */
struct pebs_frame {
	uint64_t ip;
	const char *sym;	/* NULL: no symbol covers ip */
	const char *dso;	/* NULL: ip in no known mapping */
	bool kernel;
};

/*
 * pebs_callchain__resolve - the frames of sample @s, the leaf first,
 * resolved with @syms as they are now (call it from a pebs_session
 * callback: the maps of the sample's time). PERF_CONTEXT_* markers are
 * not frames; they say which frames are kernel ones (without markers,
 * addresses from 2^63 up are). At most @max (and PEBS_CALLCHAIN_MAX)
 * frames. A sample without PERF_SAMPLE_CALLCHAIN is one frame, its ip,
 * kernel if @kernel. Returns the number of frames (>= 1) or -EINVAL.
 */
PEBS_API int pebs_callchain__resolve(struct pebs_symbols *syms,
				     const struct pebs_sample *s, bool kernel,
				     struct pebs_frame *frames,
				     unsigned int max);

/* pebs_frame__kind - kernel, library (".so" in the file's name, or a
   "[...]" mapping), the executable, or unknown. */
PEBS_API enum pebs_frame_kind pebs_frame__kind(const struct pebs_frame *fr);

/*
 * pebs_frame__folded - the frame's name as FlameGraph's
 * stackcollapse-perf.pl makes it from `perf script`: the symbol without
 * its offset, ';' turned into ':', quotes dropped, and what follows the
 * first '(' dropped (not "(anonymous namespace)", not Go's ".(T)."
 * names); without a symbol "[file]" (the mapping's base name, e.g.
 * "[libc.so.6]", "[[kernel.kallsyms]]") or "[unknown]". Returns the
 * length (0: a name the script skips, starting with '('), or -EINVAL.
 */
PEBS_API int pebs_frame__folded(const struct pebs_frame *fr, char *buf,
				size_t len);

/*
 * pebs_frame__comm - a stack's first frame as stackcollapse-perf.pl
 * makes it: @comm (":tid" when NULL, as perf script prints it) with
 * spaces turned into '_' (and ';' into ':'). Returns snprintf's value.
 */
PEBS_API int pebs_frame__comm(const char *comm, int32_t tid, char *buf,
			      size_t len);

/*
 * A flame graph's data: stacks aggregated into a tree under a root
 * "all", each node one frame name under one parent, with its samples
 * and value (period or weight; the caller chooses what it adds). Memory
 * grows with the distinct nodes only. Not thread-safe.
 */
struct pebs_flame;

/* Frames per stack (the command or thread, and a call chain) */
#define PEBS_FLAME_MAX_DEPTH	256

/* pebs_flame__new - an empty tree. Returns 0, -EINVAL, -ENOMEM. */
PEBS_API int pebs_flame__new(struct pebs_flame **fp);
PEBS_API void pebs_flame__delete(struct pebs_flame *f);

/*
 * pebs_flame__add - one stack of @n frames, the outermost first
 * (command, main, ..., leaf), each with its kind (the first time a node
 * is made it keeps it), counting @samples samples of @value. Returns 0,
 * -EINVAL, -E2BIG (more than PEBS_FLAME_MAX_DEPTH frames), -ENOMEM.
 */
PEBS_API int pebs_flame__add(struct pebs_flame *f, const char *const *names,
			     const enum pebs_frame_kind *kinds,
			     unsigned int n, uint64_t samples,
			     uint64_t value);

/* pebs_flame__totals - samples and value added (either may be NULL). */
PEBS_API void pebs_flame__totals(const struct pebs_flame *f,
				 uint64_t *samples, uint64_t *value);

/* pebs_flame__nr_nodes - nodes in the tree, the root included. */
PEBS_API size_t pebs_flame__nr_nodes(const struct pebs_flame *f);

/* pebs_flame__depth - the deepest node's depth (root 0). */
PEBS_API unsigned int pebs_flame__depth(const struct pebs_flame *f);

/*
 * pebs_flame__write_collapsed - FlameGraph's folded stacks to @out, one
 * line per distinct stack, "comm;frame;...;leaf COUNT", COUNT its
 * samples (@by_samples, as stackcollapse-perf.pl counts) or its value,
 * lines sorted bytewise by stack. Returns 0, -EINVAL, -EIO, -ENOMEM.
 */
PEBS_API int pebs_flame__write_collapsed(const struct pebs_flame *f,
					 FILE *out, bool by_samples);

/* A node as a walk shows it. */
struct pebs_flame_node {
	const char *name;	/* NULL for a merged block */
	enum pebs_frame_kind kind;
	unsigned int depth;	/* root 0 */
	uint64_t x;		/* left edge: the value left of it */
	uint64_t value;		/* width: its total (samples or value) */
	uint64_t samples;	/* its total samples */
	uint64_t self;		/* what ends here */
	unsigned int merged;	/* a merged block: how many frames */
};

typedef int (*pebs_flame_fn)(void *arg, const struct pebs_flame_node *n);

/*
 * pebs_flame__walk - every node for drawing, parents before children,
 * children left to right by name (bytewise), widths in samples
 * (@by_samples) or value. Children narrower than @min_width are not
 * visited: each parent's narrow children come after the others as one
 * merged node (when together at least @min_width). The callback returns
 * 0 to go on; another value stops the walk and is returned. Returns 0,
 * that value, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_flame__walk(const struct pebs_flame *f, bool by_samples,
			      uint64_t min_width, pebs_flame_fn fn,
			      void *arg);

/*
 * pebs_flame__add_sample - sample @s (resolved as @rs by a pebs_session,
 * from whose callback this is called, with the session's symbols) as
 * one stack: its command (pebs_frame__comm; "comm-pid/tid" with
 * @per_thread, as stackcollapse-perf.pl --tid), then its call chain
 * from the outermost frame to the leaf (pebs_frame__folded names), one
 * sample of @value. Returns as pebs_flame__add.
 */
PEBS_API int pebs_flame__add_sample(struct pebs_flame *f,
				    struct pebs_symbols *syms,
				    const struct pebs_sample *s,
				    const struct pebs_report_sample *rs,
				    bool per_thread, uint64_t value);

/* How pebs_flame__write_svg draws (PEBS_OPTS(); NULL: defaults). */
struct pebs_flame_svg_opts {
	size_t sz;
	const char *title;	/* NULL: "Flame Graph" */
	const char *subtitle;	/* NULL: none */
	const char *unit;	/* what the value is ("period", "weight") */
	unsigned int width;	/* px; 0: 1200 */
	bool icicle;		/* the root at the top */
	bool by_samples;	/* widths by samples, else by value */
	unsigned long max_elements; /* frames drawn at most; 0: 50000 */
};

/*
 * pebs_flame__write_svg - the tree as a self-contained, interactive SVG
 * flame graph (inline CSS and script: hover shows a frame's name,
 * samples and share, click zooms, a search box or "#search=REGEX" in the
 * URL highlights matching frames and writes their total share, nested
 * matches once, into the element with id "matched" and its data-share
 * attribute). Colours by kind: program red, libraries yellow, kernel
 * orange. Frames narrower than 0.1 px are merged; past max_elements
 * frames are left out (an XML comment says how many). The same tree
 * gives the same bytes. Returns 0, -EINVAL (also: o->sz unset or with
 * unknown non-zero fields), -ENOMEM, or the write error.
 */
PEBS_API int pebs_flame__write_svg(const struct pebs_flame *f, FILE *out,
				   const struct pebs_flame_svg_opts *o);

/*
 * A per-CPU timeline: thread segments from PERF_RECORD_SWITCH records
 * (__read_switches, __add_switch) or, when there are none, from the
 * samples' threads; the samples' density drawn over them. Time is cut
 * into columns, each showing the thread that had most of it, so the
 * picture's size does not grow with the recording. Not thread-safe.
 */
struct pebs_cpuplot;

/* pebs_cpuplot__new - an empty timeline. Returns 0, -EINVAL, -ENOMEM. */
PEBS_API int pebs_cpuplot__new(struct pebs_cpuplot **tp);
PEBS_API void pebs_cpuplot__delete(struct pebs_cpuplot *tl);

/*
 * pebs_cpuplot__add_switch - thread @tid of @pid switched in (or @out)
 * on @cpu at @time. Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_cpuplot__add_switch(struct pebs_cpuplot *tl,
				       uint32_t cpu, uint64_t time,
				       int32_t pid, int32_t tid, bool out);

/*
 * pebs_cpuplot__read_switches - every SWITCH and SWITCH_CPU_WIDE record
 * of @pd from where its __next is (rewind it after), placed by its
 * sample_id's CPU and TIME (records without them are skipped). Returns
 * 0, -ENOMEM.
 */
PEBS_API int pebs_cpuplot__read_switches(struct pebs_cpuplot *tl,
					  struct pebs_perfdata *pd);

/*
 * pebs_cpuplot__add_sample - a sample (with TIME and CPU; others are
 * skipped) for the density, and for the segments when there are no
 * switch records. Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_cpuplot__add_sample(struct pebs_cpuplot *tl,
				       const struct pebs_sample *s,
				       const struct pebs_report_sample *rs);

/* pebs_cpuplot__has_switches - whether segments come from switches. */
PEBS_API bool pebs_cpuplot__has_switches(const struct pebs_cpuplot *tl);

/*
 * pebs_cpuplot__write_svg - the picture: one row per CPU seen, segments
 * coloured per thread (hover: CPU, comm and tid from @threads, may be
 * NULL, and the interval in ms), a time axis in ms, a legend of the
 * threads; the title says where the segments came from. @width 0: 1200.
 * Returns 0, -EINVAL, -ENOMEM, or the write error.
 */
PEBS_API int pebs_cpuplot__write_svg(struct pebs_cpuplot *tl,
				      struct pebs_threads *threads, FILE *out,
				      const char *title, const char *subtitle,
				      unsigned int width);

/*
 * A data heat map: rows are (process, data address / granule), columns
 * 120 time buckets between the recording's first and last sample times;
 * a cell's colour is the samples or weight there (the caller's value).
 * Rows are labelled with their data object (the sample's data_sym, else
 * data_dso). Not thread-safe.
 */
struct pebs_heat;

/*
 * pebs_heat__new - an empty map of @granule bytes per row (a power of
 * two: 4096 pages, 64 cache lines) over [@first_time, @last_time].
 * Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_heat__new(uint64_t granule, uint64_t first_time,
			    uint64_t last_time, struct pebs_heat **hp);
PEBS_API void pebs_heat__delete(struct pebs_heat *h);

/*
 * pebs_heat__add - sample @rs at @time counts @value in its row (none
 * without a data address). Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_heat__add(struct pebs_heat *h, uint64_t time,
			    const struct pebs_report_sample *rs,
			    uint64_t value);

/* pebs_heat__nr_rows - the distinct rows seen. */
PEBS_API size_t pebs_heat__nr_rows(const struct pebs_heat *h);

/*
 * pebs_heat__write_svg - the picture: the 48 hottest rows (by total,
 * then address), each with its address, object and share; the rest
 * summed in one line. @width 0: 1200. Returns 0, -EINVAL, -ENOMEM, or
 * the write error.
 */
PEBS_API int pebs_heat__write_svg(struct pebs_heat *h, FILE *out,
				  const char *title, const char *subtitle,
				  unsigned int width);

/*
 * A deterministic SVG writer over a stdio stream: markup as given,
 * text escaped (the five XML characters as entities; control characters
 * XML forbids and bytes that are not UTF-8 as '?'), numbers with a fixed
 * precision. It counts drawn elements against a cap and keeps the first
 * write error for __finish.
 */
struct pebs_svg;

/*
 * pebs_svg__new - start a picture of @width x @height on @f (not owned)
 * allowing @max_elements elements (0: no cap; see __count). Returns 0,
 * -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_svg__new(FILE *f, double width, double height,
			   unsigned long max_elements, struct pebs_svg **sp);

/*
 * pebs_svg__finish - close the picture, flush, free @s. Returns 0 or
 * the first write error (-errno, e.g. -ENOSPC).
 */
PEBS_API int pebs_svg__finish(struct pebs_svg *s);

/* pebs_svg__raw, __printf - markup, written as is. */
PEBS_API void pebs_svg__raw(struct pebs_svg *s, const char *markup);
PEBS_API void pebs_svg__printf(struct pebs_svg *s, const char *fmt, ...);

/* pebs_svg__esc - text or an attribute value, escaped. */
PEBS_API void pebs_svg__esc(struct pebs_svg *s, const char *str);

/* pebs_svg__text - <text x y ATTRS>escaped str</text> */
PEBS_API void pebs_svg__text(struct pebs_svg *s, double x, double y,
			     const char *attrs, const char *str);

/* pebs_svg__rect - <rect x y width height fill/> (no newline) */
PEBS_API void pebs_svg__rect(struct pebs_svg *s, double x, double y,
			     double w, double h, const char *fill);

/*
 * pebs_svg__count - reserve @n elements: false (nothing reserved) when
 * that would pass the cap, so the caller draws less.
 */
PEBS_API bool pebs_svg__count(struct pebs_svg *s, unsigned long n);

/* pebs_svg__elements - elements reserved so far. */
PEBS_API unsigned long pebs_svg__elements(const struct pebs_svg *s);

/* pebs_svg__hash - FNV-1a of @str: a colour's stable variation. */
PEBS_API uint32_t pebs_svg__hash(const char *str);

/* pebs_svg__hsl - "hsl(H,S%,L%)" into @buf. */
PEBS_API void pebs_svg__hsl(char *buf, size_t len, unsigned int hue,
			    unsigned int sat, unsigned int light);
/* ---- report: pages derived from lines (lib/report/report-derive.c) ---- */

/*
 * pebs_report__derive_top - fill @r, a new report whose keys are those
 * of @from with its one PEBS_REPORT_LINE key as PEBS_REPORT_PAGE (the
 * other keys: pid, tid, cpu or event, the same), from the rows of
 * @from, as if @from's samples had been added to @r: the same totals,
 * sums and thread counts (the thread ids kept are in no particular
 * order). Only the first @n rows in order are kept, sorted:
 * pebs_report__nr_rows counts all, pebs_report__row is NULL from @n on.
 * Linear time in @from's rows; memory for @n rows. No more __add on
 * @r. Returns 0, -EINVAL (keys that do not match) or -ENOMEM.
 */
PEBS_API int pebs_report__derive_top(struct pebs_report *r,
				     const struct pebs_report *from,
				     size_t n);

/* ------------------------------------------------------------------ */
/* The module's switch history as perf records (lib/attrib/attrib-switch.c)   */
/* ------------------------------------------------------------------ */

/*
 * pebs_attrib__timeline - the switch history an engine of mode MAP or
 * BOTH reads from /dev/pebs_map (updated by pebs_attrib__round), for
 * pebs_switchrec; NULL for TID and SWITCH.
 */
PEBS_API struct pebs_timeline *pebs_attrib__timeline(struct pebs_attrib *a);

/*
 * A writer of a timeline fed from /dev/pebs_map as the records the kernel
 * writes for `perf record -a --switch-events`: per switch a
 * PERF_RECORD_SWITCH_CPU_WIDE with misc PERF_RECORD_MISC_SWITCH_OUT
 * (next_prev: the next task; sample_id: prev) and one without (next_prev:
 * prev; sample_id: next), both at the history's time, which is perf's
 * sample clock (local_clock()); SWITCH_OUT_PREEMPT is never set. An
 * overrun's gap becomes a PERF_RECORD_LOST (id, switches lost) at the
 * gap on its CPU, and the switch after it has no out record and prev
 * -1/-1. The records carry the sample_id_all trailer of @attr, which
 * must have TIME and CPU, no use_clockid and no context_switch (that
 * clear bit marks them as not the kernel's). Not thread-safe.
 */
struct pebs_switchrec;

struct pebs_switchrec_stats {
	uint64_t switches;	/* switches written (an out and an in each) */
	uint64_t records;	/* records written, LOST included */
	uint64_t lost;		/* switches lost to overruns (in LOST) */
};

struct pebs_switchrec_cbs {
	size_t sz;		/* sizeof(struct pebs_switchrec_cbs): PEBS_OPTS() */
	/* write @ev, whose sample_id names (@pid, @tid): -1 for LOST;
	   nonzero stops pebs_switchrec__write with that value */
	int (*write)(void *ctx, const struct perf_event_header *ev,
		     int32_t pid, int32_t tid);
};

/*
 * pebs_switchrec__new - a writer for @tl (not owned) under @attr (copied
 * what it needs). No CPU is written until pebs_switchrec__set_cpu.
 * Returns 0, -EINVAL (a timeline not fed from the module, another clock,
 * no TIME/CPU trailer, context_switch set) or -ENOMEM.
 */
PEBS_API int pebs_switchrec__new(struct pebs_timeline *tl,
				 const struct perf_event_attr *attr,
				 struct pebs_switchrec **srp);
/* pebs_switchrec__delete - free; NULL is allowed. */
PEBS_API void pebs_switchrec__delete(struct pebs_switchrec *sr);
/*
 * pebs_switchrec__set_cpu - write CPU @cpu's switches from the ones the
 * timeline gets after now (call pebs_timeline__update first), under the
 * sample id @id (the event's on that CPU). Returns 0 or -EINVAL.
 */
PEBS_API int pebs_switchrec__set_cpu(struct pebs_switchrec *sr,
				     unsigned int cpu, uint64_t id);
/*
 * pebs_switchrec__write - the switches the timeline got since the last
 * call, CPU by CPU, each CPU's in time order, through @cbs->write.
 * Returns 0, -EINVAL or what write returned.
 */
PEBS_API int pebs_switchrec__write(struct pebs_switchrec *sr,
				   const struct pebs_switchrec_cbs *cbs,
				   void *ctx);
/* pebs_switchrec__stats - the counts so far. */
PEBS_API const struct pebs_switchrec_stats *
pebs_switchrec__stats(const struct pebs_switchrec *sr);

/*
 * Where a pebs_cpuplot's thread segments come from: the module's history
 * written by pebs_switchrec (SWITCH records of an event without
 * context_switch; preferred when both kinds are present), the kernel's
 * PERF_RECORD_SWITCH(_CPU_WIDE), or the samples' TIDs.
 */
enum pebs_cpuplot_source {
	PEBS_CPUPLOT_SAMPLES,
	PEBS_CPUPLOT_KERNEL_SWITCH,
	PEBS_CPUPLOT_MODULE_SWITCH,
};

/* pebs_cpuplot__source - the segments' source, as the title names it. */
PEBS_API enum pebs_cpuplot_source
pebs_cpuplot__source(const struct pebs_cpuplot *tl);
/* ---- data objects as labels (lib/report/data-label.c), heat rows labelled ---- */

/*
 * pebs_symbols__data_label - the data object of address @addr in process
 * @pid, as the mappings of @syms stand now (a session's resolver during
 * its replay: at the sample's time), in the report's dso_daddr and
 * symbol_daddr words: "[heap]", "[stack:PID]" (the process's first
 * stack, its main thread's), "anon", a file's base name and the
 * address's file offset ("libc.so.6+0x1d4a80"), "[unknown]" outside
 * every mapping; then a data symbol covering it, " name+0xoff". Other
 * threads' stacks are "anon": the kernel names none of them. Writes at
 * most @len bytes with the NUL into @buf; returns the label's length
 * (as snprintf: @len or more when cut), -EINVAL or -ENOMEM.
 */
PEBS_API int pebs_symbols__data_label(struct pebs_symbols *syms, pid_t pid,
				      uint64_t addr, char *buf, size_t len);

/*
 * pebs_heat__set_symbols - label the rows of @h with
 * pebs_symbols__data_label(@syms) at each row's first sample (the
 * resolver must outlive the adds); NULL goes back to the samples'
 * data_sym or data_dso. Returns 0 or -EINVAL.
 */
PEBS_API int pebs_heat__set_symbols(struct pebs_heat *h,
				    struct pebs_symbols *syms);
/* ---- build-id cache, as perf record keeps it (lib/symbols/buildid-cache.c) ---- */

/*
 * pebs_buildid_cache__add - keep the file @path, whose build id is
 * @build_id (@size bytes), in perf's build-id cache ($HOME/.debug) as
 * perf record does: $HOME/.debug/<real path>/<build id>/elf (a hard link,
 * or a copy) and the link $HOME/.debug/.build-id/<xx>/<rest> to its
 * directory. @path "[vdso]" keeps this boot's vdso image as
 * $HOME/.debug/[vdso]/<build id>/vdso, "[kernel.kallsyms]" this boot's
 * /proc/kallsyms as $HOME/.debug/[kernel.kallsyms]/<build id>/kallsyms
 * (not when it hides the addresses: -EACCES). Nothing is replaced.
 * Returns 0, -ESRCH (the file on disk, or this boot's vdso or kernel,
 * has another build id), -EINVAL or another -errno.
 */
PEBS_API int pebs_buildid_cache__add(const char *path,
				     const uint8_t *build_id, size_t size);

/*
 * pebs_buildid_cache__add_perfdata - pebs_buildid_cache__add for every
 * file and the vdso of the build id table (HEADER_BUILD_ID) of the
 * recording @path, as perf record does at its end unless
 * --no-buildid-cache, the kernel's kallsyms too; files gone or rebuilt
 * since (another boot's kernel) are skipped. Returns the number cached,
 * or -errno (@path cannot be read: pebs_perfdata__open's errors).
 */
PEBS_API int pebs_buildid_cache__add_perfdata(const char *path);
/* ---- report: a table of addresses built by sorting (lib/report/report-defer.c) ---- */

/*
 * pebs_report__defer - build @r, a new report of one key
 * (PEBS_REPORT_PAGE, _LINE or _ADDR), by sorting instead of hashing:
 * each sample added costs 12 bytes until pebs_report__sort_top, which
 * sums the rows and keeps only the first n in order
 * (pebs_report__nr_rows counts all, pebs_report__row is NULL from n on;
 * pebs_report__derive_top takes its pages the same way). For a table
 * of about as many rows as samples, shown in part. A sample with a
 * weight, more than 65536 different (thread, period, data source)
 * triples, or 2^20 samples of fewer than 2^17 rows turn @r back into an
 * ordinary report: the rows are the same either way. Returns 0,
 * -EINVAL (other keys, or samples already added) or -ENOMEM.
 */
PEBS_API int pebs_report__defer(struct pebs_report *r);
/* ---- reports fed on a thread of their own (lib/report/report-feed.c) ---- */

/*
 * A pebs_report_feed adds samples to several reports on a thread of its
 * own, in batches, while the caller resolves the next ones (a
 * pebs_session's callback): the reports are the ones adding each sample
 * in place makes. Between __new and __finish only the feed touches the
 * reports, and the strings the samples point to (a session's) must stay.
 *
 * pebs_report_feed__new - a feed of the @nr reports @reps (not owned).
 * Without a thread (none could start) full batches are added in place.
 * Returns 0, -EINVAL or -ENOMEM.
 * pebs_report_feed__add - sample @s (copied) for every report. Returns 0,
 * -EINVAL (finished) or -ENOMEM (a report could not grow: the reports
 * miss samples from then on).
 * pebs_report_feed__finish - the samples left added, the thread ended:
 * the reports are the caller's again. Returns 0 or the first error.
 * pebs_report_feed__delete - finish if not yet, and free.
 */
struct pebs_report_feed;
PEBS_API int pebs_report_feed__new(struct pebs_report *const *reps,
				   unsigned int nr,
				   struct pebs_report_feed **fp);
PEBS_API int pebs_report_feed__add(struct pebs_report_feed *f,
				   const struct pebs_report_sample *s);
PEBS_API int pebs_report_feed__finish(struct pebs_report_feed *f);
PEBS_API void pebs_report_feed__delete(struct pebs_report_feed *f);
/* ---- weights and their percentiles (lib/report/report-weights.c) ---- */

/*
 * A pebs_weights keeps the weights (latency, in the PMU's cycles) of
 * samples, per event, for their summary: count, minimum, mean, the
 * weights at ranks n/2, 9n/10 and 99n/100 of the n sorted from 0
 * (median, 90th, 99th percentile) and maximum. Weights above 2^32 - 1
 * count as 2^32 - 1 (4 bytes a sample).
 *
 * pebs_weights__add - sample @s's weight, if it has one (has_weight),
 * under its event. 0, -EINVAL or -ENOMEM.
 * pebs_weights__nr - the weights added, of every event.
 * pebs_weights__summary - event @event's summary into @out: 0, -ENOENT
 * (no weight of that event: @out zeroed) or -EINVAL.
 */
struct pebs_weights;
struct pebs_weight_summary {
	uint64_t samples;	/* with a weight */
	uint64_t min, max;
	uint64_t p50, p90, p99;
	double mean;
};
PEBS_STATIC_ASSERT(sizeof(struct pebs_weight_summary) == 56,
		   "pebs_weight_summary is pinned: only append fields");
PEBS_API int pebs_weights__new(struct pebs_weights **wp);
PEBS_API void pebs_weights__delete(struct pebs_weights *w);
PEBS_API int pebs_weights__add(struct pebs_weights *w,
			       const struct pebs_report_sample *s);
PEBS_API uint64_t pebs_weights__nr(const struct pebs_weights *w);
PEBS_API int pebs_weights__summary(struct pebs_weights *w,
				   unsigned int event,
				   struct pebs_weight_summary *out);
/* ---- kernel symbols named after the pass (lib/report/report-rename.c) ---- */

/*
 * pebs_symbols__kernel_nowait - while this host's /proc/kallsyms is
 * still being read on its thread (a pebs_session reads it from the
 * first kernel address of its opening scan), resolve kernel addresses
 * unnamed (dso "[kernel.kallsyms]", no symbol: as a foreign kernel's)
 * instead of waiting for it (@nowait true), or wait (false, the
 * default). Addresses looked up once it is read are named as usual.
 */
PEBS_API void pebs_symbols__kernel_nowait(struct pebs_symbols *syms,
					  bool nowait);

/*
 * pebs_report__name_kernel - end @syms's nowait mode (waiting for
 * /proc/kallsyms if it is still being read) and move every row of @r
 * keyed by an unnamed kernel address that a kernel symbol of @syms
 * covers under that symbol, merged with its row: @r is then the report
 * that samples resolved with waiting would have made (rows, sums,
 * thread counts, order; a merged row's thread ids may be kept in
 * another order). Call it after the last __add and before
 * __sort; reports without a sym key are left as they are. Returns 0,
 * -EINVAL or -ENOMEM (@r unchanged).
 */
PEBS_API int pebs_report__name_kernel(struct pebs_report *r,
				      struct pebs_symbols *syms);

/* ---- export: pprof profiles (lib/export/pprof.c, export-pprof.c) ---- */

/*
 * A profile in pprof's format (google/pprof proto/profile.proto, gzip),
 * what go tool pprof, Pyroscope and Parca read. Samples of one stack and
 * one label set are summed into one Sample: memory grows with the
 * distinct stacks, labels and locations, not with the samples.
 */
struct pebs_pprof;

/* a sample's label: @str, else the number @num in @unit (may be NULL) */
struct pebs_pprof_label {
	const char *key;
	const char *str;
	int64_t num;
	const char *unit;
};

/* pebs_pprof__new - an empty profile. 0, -EINVAL, -ENOMEM. */
PEBS_API int pebs_pprof__new(struct pebs_pprof **pp);
PEBS_API void pebs_pprof__delete(struct pebs_pprof *p);
/* pebs_pprof__sample_type - a value column ("samples", "count"), before
   the first sample. Returns its index, -EINVAL, -ENOMEM. */
PEBS_API int pebs_pprof__sample_type(struct pebs_pprof *p, const char *type,
				     const char *unit);
/* pebs_pprof__default_type - the column pprof shows first. 0, -EINVAL. */
PEBS_API int pebs_pprof__default_type(struct pebs_pprof *p, unsigned int idx);
/* pebs_pprof__comment - a comment line (at most 8). 0, -EINVAL, -ENOMEM */
PEBS_API int pebs_pprof__comment(struct pebs_pprof *p, const char *text);
/* pebs_pprof__set_time - time_nanos and duration_nanos (0: left out) */
PEBS_API void pebs_pprof__set_time(struct pebs_pprof *p, int64_t time_ns,
				   int64_t duration_ns);
/*
 * pebs_pprof__mapping - the id (from 1) of the mapping of @file with
 * build id @build_id (hex, NULL: none); its addresses are file offsets
 * (memory_start and file_offset 0). 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_pprof__mapping(struct pebs_pprof *p, const char *file,
				 const char *build_id, uint32_t *id);
/*
 * pebs_pprof__location - the id (from 1) of the code at @addr of
 * @mapping (0: none) in function @func; *@added when new: give its
 * source line then (pebs_pprof__location_line). 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_pprof__location(struct pebs_pprof *p, uint32_t mapping,
				  uint64_t addr, const char *func,
				  uint32_t *id, bool *added);
/* pebs_pprof__location_line - location @id's function is in @file (NULL:
   unknown) at @line (0: unknown). 0, -EINVAL, -ENOMEM. */
PEBS_API int pebs_pprof__location_line(struct pebs_pprof *p, uint32_t id,
				       const char *file, unsigned int line);
/*
 * pebs_pprof__add - add @values (one per sample type) to the sample of
 * stack @locs (the leaf first) and @labels (in this order). 0, -EINVAL,
 * -ENOMEM.
 */
PEBS_API int pebs_pprof__add(struct pebs_pprof *p, const uint32_t *locs,
			     unsigned int nr_locs,
			     const struct pebs_pprof_label *labels,
			     unsigned int nr_labels, const int64_t *values);
/* pebs_pprof__nr_samples - the distinct (stack, labels) so far */
PEBS_API size_t pebs_pprof__nr_samples(const struct pebs_pprof *p);
/*
 * pebs_pprof__write - the profile, gzip-compressed, to @path: built in
 * a hidden file of mode 0600 beside it (it holds addresses), then
 * renamed over @path (which must be absent or a regular file). 0 or
 * -errno with pebs_errmsg() set.
 */
PEBS_API int pebs_pprof__write(struct pebs_pprof *p, const char *path);

/* the labels an export gives each sample (--labels) */
enum {
	PEBS_EXPORT_LABEL_COMM = 1u << 0,	/* "comm" */
	PEBS_EXPORT_LABEL_PID = 1u << 1,	/* "pid" (number) */
	PEBS_EXPORT_LABEL_TID = 1u << 2,	/* "tid" (number) */
	PEBS_EXPORT_LABEL_CPU = 1u << 3,	/* "cpu" (number) */
	PEBS_EXPORT_LABEL_PAGE = 1u << 4,	/* "data_page" 0x... (4 KiB) */
	PEBS_EXPORT_LABEL_LINE = 1u << 5,	/* "cache_line" 0x... (64 B) */
	PEBS_EXPORT_LABEL_LEVEL = 1u << 6,	/* "mem_level" "L1 hit"... */
	PEBS_EXPORT_LABEL_SNOOP = 1u << 7,	/* "snoop" "HitM"... */
	PEBS_EXPORT_LABEL_TLB = 1u << 8,	/* "tlb" "L1 or L2 hit"... */
	PEBS_EXPORT_LABEL_OBJECT = 1u << 9,	/* "data_object" "[heap]"... */
	PEBS_EXPORT_LABEL_WEIGHT = 1u << 10,	/* "weight" (cycles) */
};

/*
 * pebs_export__parse_labels - "comm,tid,mem_level" (the names above;
 * "none", "all") into *@labels. 0 or -EINVAL naming the bad one.
 */
PEBS_API int pebs_export__parse_labels(const char *list,
				       unsigned int *labels);

enum pebs_export_split {
	PEBS_EXPORT_SPLIT_NONE,		/* one profile */
	PEBS_EXPORT_SPLIT_EVENT,	/* one per event */
	PEBS_EXPORT_SPLIT_WINDOW,	/* one per window_ns of sample time */
};

struct pebs_export_opts {
	size_t sz;			/* sizeof(struct pebs_export_opts) */
	const char *output;		/* the file, or the split files' base */
	unsigned int labels;		/* PEBS_EXPORT_LABEL_* */
	enum pebs_export_split split;
	uint64_t window_ns;		/* SPLIT_WINDOW: > 0 */
	const struct pebs_filter *filter;	/* NULL: every sample */
};

struct pebs_export_stats {
	uint64_t samples;	/* met */
	uint64_t exported;	/* passed the filter */
	unsigned int files;	/* written */
};

/*
 * pebs_export__split_path - the file of split part @part ("cycles",
 * "000003"): "OUT.pb.gz" gives "OUT.<part>.pb.gz", another name
 * "NAME.<part>"; characters other than [A-Za-z0-9._-] of @part become
 * '_'. Returns what snprintf returns.
 */
PEBS_API int pebs_export__split_path(const char *output, const char *part,
				     char *buf, size_t len);

/*
 * pebs_export__pprof - replay @ss (pebs_session__new; its filter set up
 * by the caller) into pprof profiles as @o says: sample types samples
 * (count), one period column per event (named after it, the default
 * the first event's), and where the events sample them weight (cycles),
 * hitm and remote (count); the call stacks (the leaf named as
 * pebs_report's sym key), mappings with build ids, functions with
 * source lines. Split windows are written as they end, empty ones not.
 * Returns 0, or -errno with pebs_errmsg() set (-EBADMSG: a damaged
 * record; the profiles hold the records before it).
 */
PEBS_API int pebs_export__pprof(struct pebs_session *ss,
				const struct pebs_export_opts *o,
				struct pebs_export_stats *st);

/* ---- session: filter ---- */

/*
 * pebs_filter__event_names - pebs_filter__event for each of the
 * comma-separated event names @names of @pd (HEADER_EVENT_DESC), as
 * report's --event. Returns 0, -EINVAL (naming the first unknown name and
 * the recording @path, may be NULL), -ENOMEM.
 */
PEBS_API int pebs_filter__event_names(struct pebs_filter *f,
				      const struct pebs_perfdata *pd,
				      const char *names, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_H */
