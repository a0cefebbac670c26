/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/session.h - libpebsshim: a recording replayed: threads, time
 * order, filters, the session.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_SESSION_H
#define PEBSSHIM_SESSION_H

#include "pebsshim/decode.h"
#include "pebsshim/symbols.h"
#include "pebsshim/perfdata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Threads over time (lib/session/thread.c)                           */
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
 * @pid (not for tid -1, a task already unhashed: perf's ":-1"),
 * "swapper" for tid 0 (as perf), NULL if unknown (perf prints
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

/* pebs_threads__delete - free; NULL is allowed. */
PEBS_API void pebs_threads__delete(struct pebs_threads *t);

/* ------------------------------------------------------------------ */
/* Time-ordered records (lib/session/ordered.c)                       */
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

/* pebs_ordered__delete - free; NULL is allowed. */
PEBS_API void pebs_ordered__delete(struct pebs_ordered *o);

/* ---- session: the recorded tasks (lib/session/tasks.c) ---- */

/*
 * The tasks of a recording and their maps, as perf 6.1's machine keeps
 * them, for `perf report --tasks` and `--mmaps`: threads made by COMM,
 * FORK, EXIT (and MMAP/MMAP2 with PEBS_TASKS_MMAPS) with their pid,
 * ppid and current comm, each process's user maps with perf's overlap
 * rules and dso names. Fed records in time order. Not thread-safe.
 */
struct pebs_tasks;

#define PEBS_TASKS_MMAPS	1u	/* keep the maps (perf's --mmaps) */

/*
 * pebs_tasks__new - the idle thread 0/0 "swapper" alone, as perf's
 * session starts. @flags: 0 or PEBS_TASKS_MMAPS. Returns 0, -EINVAL,
 * -ENOMEM.
 */
PEBS_API int pebs_tasks__new(unsigned int flags, struct pebs_tasks **tp);

/*
 * pebs_tasks__add_record - apply COMM, FORK, EXIT, MMAP or MMAP2 (user
 * maps); other types and damaged records are skipped. Returns 0,
 * -EINVAL, -ENOMEM, -ENOSPC (more maps than the bound: see the man
 * page).
 */
PEBS_API int pebs_tasks__add_record(struct pebs_tasks *ts,
				    const struct perf_event_header *ev);

/*
 * pebs_tasks__read - every record of @pd from where __next is, in time
 * order (pebs_ordered__process; *flags as there, may be NULL). Returns
 * as __add_record, or pebs_ordered__process's errors.
 */
PEBS_API int pebs_tasks__read(struct pebs_tasks *ts,
			      struct pebs_perfdata *pd, unsigned int *flags);

/*
 * pebs_tasks__print - perf's tree: "#      pid      tid     ppid  comm",
 * then each thread (perf's order: tid modulo 256, then tid) under its
 * parent, one more space per level, and with PEBS_TASKS_MMAPS its
 * process's maps under it ("start-end rwxp pgoff ino name"). Returns 0,
 * -EINVAL, -ENOMEM, -ENOENT (a thread's parent is gone: perf fails
 * too), -EIO.
 */
PEBS_API int pebs_tasks__print(struct pebs_tasks *ts, FILE *f);

/* pebs_tasks__delete - free; NULL is allowed. */
PEBS_API void pebs_tasks__delete(struct pebs_tasks *ts);

/* ------------------------------------------------------------------ */
/* Resolved samples, as a session delivers them                       */
/* ------------------------------------------------------------------ */

/*
 * One resolved sample: what pebs_session__process gives its callback
 * (pebs_session_fn), what a filter judges (pebs_filter__match), and what
 * reports and plots count (pebs_report__add, pebs_flame__add_sample...).
 */
struct pebs_report_sample {
	int32_t pid, tid;
	uint32_t cpu;		/* UINT32_MAX: not sampled (perf's -1) */
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
	uint64_t ins_lat;	/* WEIGHT_STRUCT var2_w (perf's ins_lat) */
	/* the data object (pebs_session__set_objects), for the object and
	   object_instance keys: a heap object's site and instance label,
	   else data_sym, else data_dso */
	const char *object, *object_inst;
	/* the field of a static variable of struct, union or array type
	   holding the address ("rec.tail", "pts[].x": DWARF), else the
	   object: the object_field key */
	const char *object_field;
	/* the duty cycle of a budgeted recording the sample is in, from 1
	   on (PEBS_CYCLE_EVENT); 0: none (the events were always on) */
	uint32_t cycle;
	/* with pebs_session__set_srclines, perf's srcline and srcfile of
	   the sample's ip ("memwalk.c:128", "memwalk.c"; without a line
	   "sym+OFFSET" and ""), else NULL */
	const char *srcline, *srcfile;
	/* the sample's TIME rounded down to the session's time quantum
	   (pebs_session__set_time_quantum; perf's hist_time), 0 without
	   TIME: the time key's */
	uint64_t time;
};

/* ------------------------------------------------------------------ */
/* Sample filters (lib/session/filter.c)                              */
/* ------------------------------------------------------------------ */

/*
 * Which samples a report counts, as perf report's --comm, --pid, --tid,
 * --cpu and --time: a sample passes when it matches every filter set
 * (within one filter, any of its values).
 */
struct pebs_filter;

/* what pebs_filter__match says of a sample */
enum {
	PEBS_FILTER_PASS,	/* count it */
	PEBS_FILTER_HIDE,	/* --comm/--pid/--tid/--dsos/--symbols: in
				   the totals only
				   (pebs_report_sample.hidden), as perf */
	PEBS_FILTER_DROP,	/* --cpu/--time/--event: not at all */
	PEBS_FILTER_ASIDE,	/* an event set aside (pebs_filter__aside):
				   no sample of the report, counted apart */
};

/* pebs_filter__new - a filter that passes everything. 0 or -ENOMEM. */
PEBS_API int pebs_filter__new(struct pebs_filter **fp);

/*
 * pebs_filter__comms, __pids, __tids - comma-separated commands, process
 * ids, thread ids (added to those given before; ids as pebs_ids__parse
 * takes them, ranges too). Returns 0, -EINVAL (pebs_errmsg() names the
 * bad token), -ENOMEM.
 */
PEBS_API int pebs_filter__comms(struct pebs_filter *f, const char *list);
PEBS_API int pebs_filter__pids(struct pebs_filter *f, const char *list);
PEBS_API int pebs_filter__tids(struct pebs_filter *f, const char *list);

/*
 * pebs_filter__dsos, __symbols - perf report's --dsos and --symbols:
 * comma-separated mapped files (by the file's name, "libc.so.6", or its
 * path; "[kernel.kallsyms]") and symbol names (as shown); a sample of
 * another file or symbol, or of none, is hidden (PEBS_FILTER_HIDE).
 * Added to those given before. Returns 0, -EINVAL (an empty list),
 * -ENOMEM.
 */
PEBS_API int pebs_filter__dsos(struct pebs_filter *f, const char *list);
PEBS_API int pebs_filter__symbols(struct pebs_filter *f, const char *list);

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

/*
 * pebs_filter__match - what to do with sample @s of time @time (a NULL
 * filter passes everything): PEBS_FILTER_PASS, _HIDE or _DROP.
 */
PEBS_API int pebs_filter__match(const struct pebs_filter *f,
				const struct pebs_report_sample *s,
				uint64_t time);

/* pebs_filter__delete - free; NULL is allowed. */
PEBS_API void pebs_filter__delete(struct pebs_filter *f);

/* ------------------------------------------------------------------ */
/* Session: a recording replayed in time order                        */
/* (lib/session/session.c)                                            */
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
	uint64_t cycles;	/* duty cycles begun (PEBS_CYCLE_EVENT's
				   samples, by the scan; a stream's so far) */
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

/*
 * pebs_session__set_srclines - with @on, each sample's source line is
 * resolved (libdw, the file's DWARF or its separate debug file) as
 * perf's srcline and srcfile keys show it, into the report sample's
 * srcline and srcfile (interned strings, valid until __delete): the
 * file's base name and line, else the symbol and the offset in it
 * ("sym+15", decimal), else "DSO[ADDR]", "??:0" outside any mapping;
 * srcfile "" where there is no line. Set before __process. Returns 0,
 * -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_session__set_srclines(struct pebs_session *ss, bool on);

/*
 * pebs_session__set_time_quantum - the length in ns of the time slices
 * of the report samples' time (perf's --time-quantum; 100 ms, perf's,
 * unless set). Returns 0, -EINVAL (0: perf refuses it too).
 */
PEBS_API int pebs_session__set_time_quantum(struct pebs_session *ss,
					    uint64_t ns);

/* pebs_session__delete - free; NULL is allowed. */
PEBS_API void pebs_session__delete(struct pebs_session *ss);

/* ---- session: streaming and the other records (lib/session/session.c) ---- */

/*
 * pebs_session__new_stream - a session that reads @pd once, for input
 * that cannot be read twice (a pipe): no first pass, so the stats fill
 * as __process goes (first_time, last_time, event_samples), and the
 * kernel's symbols are decided at the first kernel address from the
 * build ids and kernel maps met by then. Memory stays bounded by the
 * ordered pass's rounds. Returns as __new.
 */
PEBS_API int pebs_session__new_stream(struct pebs_perfdata *pd,
				      struct pebs_session **sp);

/* a non-sample record, in time order, before the session applies it;
   a nonzero return stops __process and is returned */
typedef int (*pebs_session_record_fn)(void *arg,
				      const struct perf_event_header *ev);

/* pebs_session__set_records - call @fn (NULL: none) for every non-sample
   record during __process. Returns 0 or -EINVAL. */
PEBS_API int pebs_session__set_records(struct pebs_session *ss,
				       pebs_session_record_fn fn, void *arg);

/* ---- session: filter options ---- */

/*
 * pebs_filter__events - perf report's --event NAME[,NAME]: keep the
 * samples of the events of @pd so named (HEADER_EVENT_DESC). Returns 0,
 * -ENOENT (@pd has no event of a name given, named in pebs_errmsg()),
 * -EINVAL or -ENOMEM.
 */
PEBS_API int pebs_filter__events(struct pebs_filter *f,
				 const struct pebs_perfdata *pd,
				 const char *names);

/*
 * pebs_filter__option - the value @arg of option @name: "comm", "pid",
 * "tid", "cpu", "dsos" or "symbols" (pebs_filter__comms, __pids, __tids,
 * __cpus, __dsos, __symbols), as perf report's --comm, --pid, --tid,
 * --cpu, --dsos and --symbols. Returns as those, or -EINVAL for another
 * name.
 */
PEBS_API int pebs_filter__option(struct pebs_filter *f, const char *name,
				 const char *arg);

/*
 * pebs_filter__count - how many values option @name ("comm", "dsos" or
 * "symbols") was given, as pebs_filter__option took them (perf elides a
 * --sort key whose filter names one). Returns it, or -EINVAL for another
 * name.
 */
PEBS_API int pebs_filter__count(const struct pebs_filter *f,
				const char *name);

/*
 * pebs_filter__aside - set the samples of event (attr index) @idx aside:
 * pebs_filter__match says PEBS_FILTER_ASIDE of them before any other
 * filter (as report does with record --objects' bookkeeping,
 * pebs_filter__aside_objects). Returns 0, -EINVAL, -ENOMEM.
 * pebs_filter__nr_sampled - how many events of @st have samples and are
 * not set aside by @f (NULL: none is), whatever pebs_filter__event
 * keeps; *@first (may be NULL) the first of them, 0 if none.
 */
PEBS_API int pebs_filter__aside(struct pebs_filter *f, unsigned int idx);
PEBS_API unsigned int
pebs_filter__nr_sampled(const struct pebs_filter *f,
			const struct pebs_session_stats *st,
			unsigned int *first);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_SESSION_H */
