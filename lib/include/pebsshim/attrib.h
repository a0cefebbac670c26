/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/attrib.h - libpebsshim: attribution of samples to threads
 * through the switch history.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_ATTRIB_H
#define PEBSSHIM_ATTRIB_H

#include "pebsshim/map.h"
#include "pebsshim/decode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Attribution (lib/attrib/attrib.c)                                  */
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

/* declared with PEBS_OPTS() (sz: see "Extensible structs" in <pebsshim.h>) */
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

/* pebs_attrib__set_comm - name thread @tid of process @tgid */
PEBS_API void pebs_attrib__set_comm(struct pebs_attrib *a, int32_t tgid,
				    int32_t tid, const char *comm);

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

/*
 * pebs_attrib__timeline - the switch history an engine of mode MAP or
 * BOTH reads from /dev/pebs_map (updated by pebs_attrib__round), for
 * pebs_switchrec; NULL for TID and SWITCH.
 */
PEBS_API struct pebs_timeline *pebs_attrib__timeline(struct pebs_attrib *a);

/* pebs_attrib__delete - free (held samples are dropped); NULL is ok. */
PEBS_API void pebs_attrib__delete(struct pebs_attrib *a);

/* ------------------------------------------------------------------ */
/* The module's switch history as perf records                        */
/* (lib/attrib/attrib-switch.c)                                       */
/* ------------------------------------------------------------------ */

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

/* pebs_switchrec__delete - free; NULL is allowed. */
PEBS_API void pebs_switchrec__delete(struct pebs_switchrec *sr);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_ATTRIB_H */
