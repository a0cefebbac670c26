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
 *  - Predicates return bool.
 *  - Objects are opaque and paired: __open/__new with __close/__delete.
 *    Plain structs are values; option structs start with a size field
 *    (sz) so that they can grow: set it with PEBS_OPTS().
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

/* Declare and zero an options struct with its size set. */
#define PEBS_OPTS(type, name, ...) \
	struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }

/* ------------------------------------------------------------------ */
/* Errors (lib/error.c)                                                */
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
/* The /dev/pebs_map table (lib/map.c)                                 */
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
 * Validates magic, ABI version and sizes. Returns 0, or -ENOENT (module
 * not loaded), -EACCES (device mode), -EPROTO (ABI version differs),
 * -EBADMSG (bad magic or sizes), or another -errno from open/mmap.
 */
PEBS_API int pebs_map__open(const char *path, struct pebs_map **mapp);

/*
 * pebs_map__from_memory - a reader over a table and history that live
 * in ordinary memory laid out as the ABI says (tests, replays). The
 * memory is not copied and must outlive the map. hist may be NULL when
 * header->hist_len is 0.
 */
PEBS_API int pebs_map__from_memory(const void *table, size_t table_size,
				   const void *hist, size_t hist_size,
				   struct pebs_map **mapp);

/* pebs_map__close - unmap and free; NULL is allowed. */
PEBS_API void pebs_map__close(struct pebs_map *map);

/* pebs_map__header - the validated header. */
PEBS_API const struct pebs_map_header *
pebs_map__header(const struct pebs_map *map);

/* pebs_map__nr_cpus - number of slots (possible CPU ids). */
PEBS_API unsigned int pebs_map__nr_cpus(const struct pebs_map *map);

/*
 * pebs_map__read_slot - take a consistent snapshot of one CPU's slot.
 *
 * Returns 0, -EINVAL if cpu is out of range, or -EAGAIN if no
 * consistent copy could be taken within a bounded number of retries.
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
 * (which may be NULL). Returns the number of entries copied, or
 * -EINVAL.
 */
PEBS_API int pebs_map__hist_read(const struct pebs_map *map, unsigned int cpu,
				 uint64_t *cursor, struct pebs_map_switch *out,
				 unsigned int max, uint64_t *lost);

/*
 * pebs_map__lookup - who ran on @cpu at @time.
 *
 * Finds the last switch on @cpu with switch time <= @time in the live
 * history. Returns 0 and fills *who, -ENOENT if @time is older than the
 * history still holds (or nothing was recorded yet), or -EINVAL.
 */
PEBS_API int pebs_map__lookup(const struct pebs_map *map, unsigned int cpu,
			      uint64_t time, struct pebs_map_switch *who);

/*
 * struct pebs_timeline - a growing user-space copy of the switch
 * histories, for attributing samples after the fact (the live history
 * only holds the last hist_len switches per CPU).
 */
struct pebs_timeline;

/* pebs_timeline__new - a timeline fed from @map (not owned). */
PEBS_API int pebs_timeline__new(const struct pebs_map *map,
				struct pebs_timeline **tlp);
PEBS_API void pebs_timeline__delete(struct pebs_timeline *tl);

/*
 * pebs_timeline__update - append the switches recorded since the last
 * call. Returns the number appended; switches overrun in the live
 * history are counted in pebs_timeline__lost().
 */
PEBS_API int pebs_timeline__update(struct pebs_timeline *tl);
PEBS_API uint64_t pebs_timeline__lost(const struct pebs_timeline *tl);

/*
 * pebs_timeline__lookup - who ran on @cpu at @time, from the copy.
 * Returns 0, -ENOENT if @time precedes the copy's first switch on that
 * CPU (or falls into a gap left by an overrun), or -EINVAL.
 */
PEBS_API int pebs_timeline__lookup(const struct pebs_timeline *tl,
				   unsigned int cpu, uint64_t time,
				   struct pebs_map_switch *who);

/* ------------------------------------------------------------------ */
/* Events (lib/event.c)                                                */
/* ------------------------------------------------------------------ */

/* struct pebs_event flags */
#define PEBS_EVENT_PRECISE	(1u << 0) /* precise_ip > 0 (PEBS/IBS) */
#define PEBS_EVENT_MEMORY	(1u << 1) /* samples carry data addresses */
#define PEBS_EVENT_SOFTWARE	(1u << 2) /* a software event */
#define PEBS_EVENT_FALLBACK	(1u << 3) /* `auto` fell back: see note */
#define PEBS_EVENT_SYSFS	(1u << 4) /* encoded from sysfs, not libpfm4 */

struct pebs_event {
	char name[64];		/* as the user spelled it */
	char resolved[256];	/* what was encoded, fully qualified */
	char pmu[32];		/* PMU name: "skl", "perf", "ibs_op", ... */
	unsigned int flags;	/* PEBS_EVENT_* */
	struct perf_event_attr attr; /* type, config, config1, precise_ip,
					exclude_*, sample_period if given */
	char note[160];		/* one line for the user, or "" */
};

/*
 * pebs_event__parse - encode an event string into @ev.
 *
 * Accepts libpfm4 names with modifiers (MEM_INST_RETIRED:ALL_LOADS:u,
 * :precise=N, :ldlat=N, :period=N), perf's software event names
 * (cpu-clock, task-clock, page-faults, ...), sysfs PMU spellings
 * (pmu/term=val,.../ such as ibs_op//), and the aliases `loads`,
 * `stores`, `ldlat[=N]` (load latency, default threshold 32) and `auto`
 * (PEBS loads where the CPU has them, else cpu-clock, with ev->note
 * saying so). Does not open the event. Returns 0, -ENOENT (unknown
 * event or PMU; pebs_errmsg() lists close names), -EINVAL (bad modifier
 * or value).
 */
PEBS_API int pebs_event__parse(const char *str, struct pebs_event *ev);

/*
 * pebs_event__probe - check that the running kernel can open @ev
 * (a disabled counting event on the calling thread). Returns 0,
 * -ENOENT (no such PMU here: "this CPU/VM has no <pmu> PMU; use auto or
 * a software event"), -EACCES/-EPERM (names perf_event_paranoid and its
 * value), -EINVAL/-EOPNOTSUPP (e.g. precise_ip not supported).
 */
PEBS_API int pebs_event__probe(const struct pebs_event *ev);

/*
 * pebs_perf_open_error - turn a perf_event_open failure into a
 * one-line message in pebs_errmsg() and return -err unchanged.
 */
PEBS_API int pebs_perf_open_error(const struct pebs_event *ev, int err);

/* ------------------------------------------------------------------ */
/* Ring reader (lib/ring.c)                                            */
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
};

/*
 * pebs_ring__new - a reader over a perf mmap area: @base points at the
 * struct perf_event_mmap_page, the data area follows at data_offset
 * (or one page on) and is @data_size bytes, a power of two. The mapping
 * must be writable (the reader stores data_tail). Returns 0, -EINVAL.
 */
PEBS_API int pebs_ring__new(void *base, size_t data_size,
			    struct pebs_ring **ringp);
PEBS_API void pebs_ring__delete(struct pebs_ring *ring);

/*
 * pebs_ring__read_init - snapshot data_head (acquire). Returns 0, or
 * -EAGAIN if there is nothing new.
 */
PEBS_API int pebs_ring__read_init(struct pebs_ring *ring);

/*
 * pebs_ring__next - the next record of the snapshot.
 *
 * Returns 1 and stores a pointer to the record in *ev (into the ring
 * when contiguous, into a bounce buffer when it wraps; valid until the
 * next call), 0 at the end of the snapshot, or -EBADMSG if the record
 * is corrupt (size smaller than its header or larger than the ring):
 * the reader then skips to the snapshot's head. LOST and THROTTLE
 * records are counted in the ring's stats and still returned.
 */
PEBS_API int pebs_ring__next(struct pebs_ring *ring,
			     const struct perf_event_header **ev);

/* pebs_ring__consume - publish what was read (release data_tail). */
PEBS_API void pebs_ring__consume(struct pebs_ring *ring);

PEBS_API const struct pebs_ring_stats *
pebs_ring__stats(const struct pebs_ring *ring);

/* ------------------------------------------------------------------ */
/* Samples (lib/sample.c)                                              */
/* ------------------------------------------------------------------ */

/* A decoded PERF_RECORD_SAMPLE (or the sample_id of another record). */
struct pebs_sample {
	uint64_t present;	/* PERF_SAMPLE_* bits that were decoded */
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
	uint64_t data_page_size;
};

/*
 * pebs_sample__parse - decode a PERF_RECORD_SAMPLE laid out for
 * @sample_type. Returns 0, -EBADMSG if the record is too short for its
 * sample_type, -EOPNOTSUPP if sample_type has a bit this decoder does
 * not handle.
 */
PEBS_API int pebs_sample__parse(const struct perf_event_header *ev,
				uint64_t sample_type, struct pebs_sample *s);

/*
 * pebs_sample__parse_id - decode the trailing sample_id of a non-sample
 * record (sample_id_all). Returns as pebs_sample__parse.
 */
PEBS_API int pebs_sample__parse_id(const struct perf_event_header *ev,
				   uint64_t sample_type, struct pebs_sample *s);

/* A decoded data_src (union perf_mem_data_src). Strings are static. */
struct pebs_data_src {
	const char *op;		/* "load", "store", "prefetch", "exec", "N/A" */
	const char *level;	/* "L1 hit", "LFB/MAB hit", "L3 miss", ... */
	const char *snoop;	/* "none", "hit", "HitM", "miss", "N/A" */
	const char *tlb;	/* "L1 or L2 hit", "walk miss", "N/A" ... */
	bool locked;
	bool remote;
};

PEBS_API void pebs_data_src__decode(uint64_t data_src,
				    struct pebs_data_src *d);

/*
 * pebs_data_src__str - data_src as perf mem prints it, e.g.
 * "LOAD|L1 hit|SNP none|TLB L1 or L2 hit|LCK No". Returns the length
 * snprintf would have written.
 */
PEBS_API int pebs_data_src__str(uint64_t data_src, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Channels (lib/channel.c)                                            */
/* ------------------------------------------------------------------ */

struct pebs_channel;

struct pebs_channel_opts {
	size_t sz;
	uint64_t sample_type;	/* 0: the default batchable set */
	uint64_t period;	/* fixed period; 0: the event's or default */
	uint64_t freq;		/* samples/s instead of a period (disables
				   large PEBS) */
	unsigned int ring_pages; /* data pages, power of two; 0: default */
	unsigned int watermark;	/* wakeup after this many bytes; 0: half
				   the ring */
	bool inherit;		/* follow children and new threads */
	bool enable_on_exec;	/* start counting at exec */
	bool disabled;		/* open disabled (pebs_channel__enable) */
	bool context_switch;	/* PERF_RECORD_SWITCH(_CPU_WIDE) */
	bool task_records;	/* COMM, MMAP2, FORK/EXIT records */
	bool use_clockid;	/* TIME in clockid below */
	int clockid;
};

/*
 * pebs_channel__open - open @ev on one target and map its ring.
 * pid > 0 and cpu == -1: a thread/process; pid == -1 and cpu >= 0: a
 * CPU; pid == 0: the caller. Returns 0 or a -errno from perf_event_open
 * or mmap (pebs_errmsg() explains it).
 */
PEBS_API int pebs_channel__open(const struct pebs_event *ev, pid_t pid,
				int cpu, const struct pebs_channel_opts *opts,
				struct pebs_channel **chp);
PEBS_API void pebs_channel__close(struct pebs_channel *ch);
PEBS_API int pebs_channel__fd(const struct pebs_channel *ch);
PEBS_API pid_t pebs_channel__pid(const struct pebs_channel *ch);
PEBS_API int pebs_channel__cpu(const struct pebs_channel *ch);
PEBS_API const struct perf_event_attr *
pebs_channel__attr(const struct pebs_channel *ch);
PEBS_API const struct pebs_event *
pebs_channel__event(const struct pebs_channel *ch);
PEBS_API struct pebs_ring *pebs_channel__ring(struct pebs_channel *ch);
PEBS_API int pebs_channel__enable(struct pebs_channel *ch);
PEBS_API int pebs_channel__disable(struct pebs_channel *ch);
/* period 0 disables sampling, as in the kernel */
PEBS_API int pebs_channel__set_period(struct pebs_channel *ch,
				      uint64_t period);
PEBS_API int pebs_channel__id(const struct pebs_channel *ch, uint64_t *id);

/*
 * pebs_attr_large_pebs - whether the kernel will let the CPU batch PEBS
 * records for @attr (multi-record PEBS: one interrupt per buffer). If
 * not, and @why is not NULL, *why names the first reason.
 */
PEBS_API bool pebs_attr_large_pebs(const struct perf_event_attr *attr,
				   const char **why);

/* ------------------------------------------------------------------ */
/* Channel sets (lib/chanset.c)                                        */
/* ------------------------------------------------------------------ */

struct pebs_chanset;

enum pebs_target_kind {
	PEBS_TARGET_TASK,	/* pids or tids (opts.inherit for children) */
	PEBS_TARGET_CPU,	/* CPUs, system-wide */
};

struct pebs_chanset_cbs {
	/* a sample; raw points at the record (valid during the call) */
	int (*on_sample)(void *ctx, struct pebs_channel *ch,
			 const struct pebs_sample *s,
			 const struct perf_event_header *raw);
	/* any other record (COMM, MMAP2, SWITCH, EXIT, THROTTLE, LOST...) */
	int (*on_record)(void *ctx, struct pebs_channel *ch,
			 const struct perf_event_header *ev);
	/* @lost samples were dropped by the kernel on this channel */
	void (*on_lost)(void *ctx, struct pebs_channel *ch, uint64_t lost);
	/* a task target is gone (EPOLLHUP): reported once, then closed */
	void (*on_exit)(void *ctx, int target);
};

/*
 * pebs_chanset__new - an empty set that opens every event of @evs on
 * each target added. The events are copied.
 */
PEBS_API int pebs_chanset__new(const struct pebs_event *evs,
			       unsigned int nr_evs,
			       enum pebs_target_kind kind,
			       const struct pebs_channel_opts *opts,
			       struct pebs_chanset **setp);
PEBS_API void pebs_chanset__delete(struct pebs_chanset *set);

/* Returns 0, -EEXIST (already in), -ESRCH (no such pid), or -errno. */
PEBS_API int pebs_chanset__add(struct pebs_chanset *set, int target);
/* Returns 0 or -ENOENT (not in the set). */
PEBS_API int pebs_chanset__remove(struct pebs_chanset *set, int target);
/* Make the set's targets exactly @targets. Returns 0 or -errno. */
PEBS_API int pebs_chanset__update(struct pebs_chanset *set,
				  const int *targets, unsigned int n);

/*
 * pebs_chanset__poll - wait up to @timeout_ms (-1 forever, 0 not at
 * all) for data, then drain every ready ring, calling @cbs. Returns the
 * number of samples delivered, or -errno (a callback's negative return
 * stops the drain and is returned).
 */
PEBS_API int pebs_chanset__poll(struct pebs_chanset *set, int timeout_ms,
				const struct pebs_chanset_cbs *cbs, void *ctx);

/* Drain every ring without waiting (e.g. at the end of a session). */
PEBS_API int pebs_chanset__drain(struct pebs_chanset *set,
				 const struct pebs_chanset_cbs *cbs, void *ctx);

PEBS_API unsigned int pebs_chanset__nr_targets(const struct pebs_chanset *set);
PEBS_API unsigned int pebs_chanset__nr_channels(const struct pebs_chanset *set);

/* pebs_chanset__for_each_channel-style access */
PEBS_API struct pebs_channel *pebs_chanset__channel(struct pebs_chanset *set,
						    unsigned int idx);

/* Enable or disable every channel. */
PEBS_API int pebs_chanset__enable(struct pebs_chanset *set);
PEBS_API int pebs_chanset__disable(struct pebs_chanset *set);

/* ------------------------------------------------------------------ */
/* perf.data files (lib/perfdata.c)                                    */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* Observer (lib/observer.c)                                           */
/* ------------------------------------------------------------------ */

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_H */
