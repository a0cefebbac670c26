/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/objects.h - data objects: allocations recorded by
 * `pebs-shim record --objects` and the object that holds a data address
 * at a sample's time (lib/objects/).
 *
 * Included by <pebsshim.h>; may also be included alone.
 */
#ifndef PEBSSHIM_OBJECTS_H
#define PEBSSHIM_OBJECTS_H

#include "pebsshim/session.h"

struct pebs_c2c;

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Data objects over time (lib/objects/objects.c, objects-session.c)  */
/* ------------------------------------------------------------------ */

/*
 * The events `pebs-shim record --objects` writes (software dummies, by
 * their names in HEADER_EVENT_DESC): an allocation (ADDR its address,
 * WEIGHT its size, PERIOD the bytes it stands for, CALLCHAIN its stack)
 * a release (ADDR; PERIOD the length of an unmapped range, 1 for
 * free()), a thread's stack (ADDR, PERIOD its length; TID the thread)
 * and a thread's static TLS block of one module (ADDR, PERIOD its
 * length; IP an address in the module's code). A thread's exit is a
 * release of its stack's range.
 */
#define PEBS_OBJECTS_ALLOC_EVENT	"pebs-shim:alloc"
#define PEBS_OBJECTS_FREE_EVENT		"pebs-shim:free"
#define PEBS_OBJECTS_STACK_EVENT	"pebs-shim:stack"
#define PEBS_OBJECTS_TLS_EVENT		"pebs-shim:tls"
/* their sample ids, which name them in a file without HEADER_EVENT_DESC
   (a recording killed before its end) */
#define PEBS_OBJECTS_ALLOC_ID		0xfffffffffff00001ull
#define PEBS_OBJECTS_FREE_ID		0xfffffffffff00002ull
#define PEBS_OBJECTS_STACK_ID		0xfffffffffff00003ull
#define PEBS_OBJECTS_TLS_ID		0xfffffffffff00004ull
/* the name of the memfd behind record --objects' ring (a mapping of the
   command's: "memfd:pebs-shim-objects (deleted)") */
#define PEBS_OBJECTS_RING_NAME		"pebs-shim-objects"

/*
 * Data objects over time: allocations (address range, process, times,
 * the label of the allocation site) and the object that holds an
 * address at a time. A range freed and allocated again belongs to the
 * first object before the reallocation, to the second after it. Labels
 * are interned (equal labels are one pointer) and live as long as the
 * table. Not thread-safe.
 */
struct pebs_objects;

struct pebs_object {
	const char *site;	/* the allocation site's label */
	const char *instance;	/* "<site> #N": the Nth object of the site */
	uint64_t addr, size;
	uint64_t alloc_time, free_time;	/* free_time UINT64_MAX: live */
};

/* pebs_objects__new - an empty table. Returns 0, -EINVAL, -ENOMEM. */
PEBS_API int pebs_objects__new(struct pebs_objects **op);
PEBS_API void pebs_objects__delete(struct pebs_objects *o);
/*
 * pebs_objects__alloc - [@addr, @addr + @size) allocated in process
 * @pid at @time by @site (NULL: "[unknown site]"); an object of @pid
 * still live at @addr ends then (its free was not seen). Returns 0,
 * -EINVAL (size 0 or past the address space), -ENOMEM.
 */
PEBS_API int pebs_objects__alloc(struct pebs_objects *o, int32_t pid,
				 uint64_t addr, uint64_t size, uint64_t time,
				 const char *site);
/*
 * pebs_objects__alloc_sampled - pebs_objects__alloc of an allocation
 * tracked with probability p, which stands for @stands = @size / p bytes
 * (record --objects' PERIOD of a pebs-shim:alloc sample; @size itself
 * when every allocation is tracked): its site's instances, bytes and
 * peak_live count it @stands / @size times. Returns as
 * pebs_objects__alloc (-EINVAL too when @stands < @size).
 */
PEBS_API int pebs_objects__alloc_sampled(struct pebs_objects *o, int32_t pid,
					 uint64_t addr, uint64_t size,
					 uint64_t time, const char *site,
					 uint64_t stands);
/*
 * pebs_objects__free - at @time, the object of @pid starting at @addr
 * ends (@len 0 or 1: free()), or every object starting in
 * [@addr, @addr + @len) (munmap). Returns 0 or -EINVAL.
 */
PEBS_API int pebs_objects__free(struct pebs_objects *o, int32_t pid,
				uint64_t addr, uint64_t len, uint64_t time);
/*
 * pebs_objects__find - the object of @pid live at @addr at @time (the
 * latest allocated if several). Returns 0, -ENOENT (none), -EINVAL.
 */
PEBS_API int pebs_objects__find(struct pebs_objects *o, int32_t pid,
				uint64_t addr, uint64_t time,
				struct pebs_object *obj);
/* pebs_objects__count - objects added so far */
PEBS_API size_t pebs_objects__count(const struct pebs_objects *o);
/*
 * pebs_session__set_objects - during pebs_session__process, feed @o
 * (NULL: stop) from the samples of PEBS_OBJECTS_ALLOC_EVENT and
 * PEBS_OBJECTS_FREE_EVENT (by name, else by their sample ids), each
 * allocation's site being the first frame of its call chain outside the
 * C library, libstdc++, the dynamic linker and the interposer, as
 * "function (file:line) <- caller"; and give each sample with a data
 * address its object (pebs_report_sample.object, .object_inst): the
 * heap object live there at the sample's time, else the data symbol,
 * else the mapping. Call it before __process; @o must outlive the pass.
 * Returns 0 or -EINVAL.
 */
PEBS_API int pebs_session__set_objects(struct pebs_session *ss,
				       struct pebs_objects *o);

/*
 * What the allocations and the samples counted say of one object label
 * (pebs_objects__stats): a heap allocation site's objects (instances),
 * their sizes summed (bytes) and the most bytes of them live at once
 * (peak_live), each sampled allocation counted for what it stands for
 * (pebs_objects__alloc_sampled: estimates of the site's whole, the
 * instances rounded); an instance's size (instances 1); all zero for a label
 * that is no heap object (a data symbol, a mapping). Then the weights
 * of the samples of the event counted under the label
 * (pebs_objects__add_sample): how many, their mean, median and 90th
 * percentile (ranks n/2 and 9n/10 of the n sorted from 0).
 */
struct pebs_object_stats {
	uint64_t instances, bytes, peak_live;
	uint64_t weights;
	double weight_mean;
	uint64_t weight_p50, weight_p90;
};

/*
 * pebs_objects__add_sample - count @s (labelled by
 * pebs_session__set_objects; none: nothing), its weight, data source
 * and thread, under its event and its object, and its object instance
 * when that is another label. Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_objects__add_sample(struct pebs_objects *o,
				      const struct pebs_report_sample *s);
/*
 * pebs_objects__stats - the stats of @label (a pebs_report_sample's
 * object or object_inst pointer: weights are kept by pointer) for
 * samples of @event into @st. Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_objects__stats(struct pebs_objects *o, unsigned int event,
				 const char *label,
				 struct pebs_object_stats *st);

/*
 * How a data object was shared (pebs_object_access.sharing): by one
 * thread (private: every sample counted under it is one thread's), or by
 * several (shared); a shared object one of whose cache lines
 * pebs_objects__line_sharing marked true or false sharing (perf c2c's
 * line, classified as pebs_c2c_line.sharing: over all the line's
 * samples, those of other objects on it included) is that.
 */
enum pebs_object_sharing {
	PEBS_OBJECT_UNSAMPLED = 0,	/* no sample counted */
	PEBS_OBJECT_PRIVATE,
	PEBS_OBJECT_SHARED,
	PEBS_OBJECT_FALSE_SHARING,
	PEBS_OBJECT_TRUE_SHARING,
	PEBS_OBJECT_TRUE_FALSE_SHARING,
};

/*
 * Where the samples of the event counted under one object label were
 * served and who took them (pebs_objects__access): the samples, those
 * with a data source, of them the local and remote accesses as perf
 * c2c splits them (pebs_c2c_stats__add_sample: local = lcl_hitm +
 * lcl_peer + lcl_dram, a load served by a cache of another core of its
 * node or by its node's memory; remote = rmt_hitm + rmt_hit + rmt_dram,
 * one served by another node's cache or memory: mem_lvl's REM_* bits or
 * mem_remote), the distinct threads (PEBS_OBJECTS_MAX_TIDS + 1: more)
 * and the sharing class; node_local and node_remote: of the samples with
 * a physical address (record --phys-data) and a CPU, those whose address
 * lies on the NUMA node of their CPU and those on another node (the
 * node of the address from HEADER_MEM_TOPOLOGY as perf's mem2node, the
 * CPU's from HEADER_NUMA_TOPOLOGY as perf c2c's cpu2node), read from the
 * recording pebs_session__set_objects was given; a sample outside
 * either topology counts in neither. The two splits are independent:
 * data_src says which cache or memory served a load, the physical
 * address where the data's memory lives.
 */
#define PEBS_OBJECTS_MAX_TIDS	8
struct pebs_object_access {
	uint64_t samples, with_src;
	uint64_t local, remote;
	unsigned int threads;
	enum pebs_object_sharing sharing;
	uint64_t node_local, node_remote;
};

/*
 * pebs_objects__access - of the samples of @event counted under @label
 * (pebs_objects__add_sample) into @acc (zero: none). Returns 0 or
 * -EINVAL.
 */
PEBS_API int pebs_objects__access(const struct pebs_objects *o,
				  unsigned int event, const char *label,
				  struct pebs_object_access *acc);
/*
 * pebs_object_sharing__name - "private", "shared", "false", "true",
 * "true+false"; "-" for none
 */
PEBS_API const char *pebs_object_sharing__name(enum pebs_object_sharing s);
/*
 * pebs_objects__line_sharing - the cache line of @addr in @pid (as
 * pebs_objects__add_line_sample counted it) is shared as @sharing: bit 0
 * false sharing, bit 1 true sharing (pebs_c2c_sharing's values); the
 * objects counted on it (its first three instances and their sites)
 * take it. Returns 0, -ENOENT (no sample counted on that line),
 * -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_objects__line_sharing(struct pebs_objects *o, int32_t pid,
					uint64_t addr, unsigned int sharing);

/* The objects a cache line's samples hit (pebs_objects__line). */
struct pebs_object_line {
	const char *site, *instance;	/* the object hit most (the first
					   met of equals) */
	uint64_t samples;	/* the line's samples on it */
	uint64_t line_samples;	/* the line's samples with an object */
	unsigned int nr_objects;	/* distinct instances; 4: 4 or more */
};

/*
 * pebs_objects__add_line_sample - count labelled sample @s (one with a
 * data address) on its cache line (its process, address / 64) under
 * its object instance. Returns 0, -EINVAL, -ENOMEM.
 * pebs_objects__line - the objects of the line of @addr in @pid into
 * @line. Returns 0, -ENOENT (no sample counted there), -EINVAL.
 */
PEBS_API int pebs_objects__add_line_sample(struct pebs_objects *o,
					   const struct pebs_report_sample *s);
PEBS_API int pebs_objects__line(const struct pebs_objects *o, int32_t pid,
				uint64_t addr, struct pebs_object_line *line);
/*
 * pebs_objects__c2c_sharing - sort @c (perf c2c's HITM display, or
 * cross-thread writes without data sources) and give each of its lines
 * that is not private its sharing class (pebs_objects__line_sharing,
 * in the line's process: pebs_c2c__line_pid). @c was fed the samples
 * @o counted with pebs_objects__add_line_sample. Returns 0, -EINVAL,
 * -ENOMEM.
 * pebs_objects__c2c_name - name each line of @c (sorted) by the object
 * its samples hit most (pebs_objects__line, shown as
 * pebs_objects__short_label: pebs_c2c__set_object). @o must outlive
 * @c's use of the names. Returns 0 or -EINVAL.
 * pebs_objects__short_label - @label as report and c2c show it: an
 * object that is a mapped file's path by its base name.
 */
PEBS_API int pebs_objects__c2c_sharing(struct pebs_objects *o,
				       struct pebs_c2c *c);
PEBS_API int pebs_objects__c2c_name(const struct pebs_objects *o,
				    struct pebs_c2c *c);
PEBS_API const char *pebs_objects__short_label(const char *label);
/*
 * pebs_objects__recorded - whether @pd has the PEBS_OBJECTS_ALLOC_EVENT
 * event (by name, else by its sample id): a recording of `record
 * --objects`.
 */
PEBS_API bool pebs_objects__recorded(const struct pebs_perfdata *pd);
/*
 * pebs_objects__event - whether event (attr index) @idx of @pd is
 * PEBS_OBJECTS_ALLOC_EVENT, _FREE_EVENT, _STACK_EVENT or _TLS_EVENT (by
 * name, or a software dummy by its sample id): bookkeeping of `record
 * --objects`, not accesses (report's tables, plot heat leave them out).
 */
PEBS_API bool pebs_objects__event(const struct pebs_perfdata *pd,
				  unsigned int idx);

/*
 * pebs_session__use_objects - when the recording of @ss is one of
 * `record --objects` (pebs_objects__recorded), or any recording with
 * PEBS_OBJECTS_ANY_RECORDING in @flags (its objects then being data
 * symbols and mappings), a new table (pebs_objects__new) set on @ss
 * (pebs_session__set_objects) into *@op, for the caller to delete after
 * the session; else *@op NULL. Returns 0, -EINVAL, -ENOMEM (*@op NULL).
 */
#define PEBS_OBJECTS_ANY_RECORDING	1u
PEBS_API int pebs_session__use_objects(struct pebs_session *ss,
				       unsigned int flags,
				       struct pebs_objects **op);
/*
 * pebs_filter__aside_objects - when @pd is a recording of `record
 * --objects`, set its bookkeeping events (pebs_objects__event) aside in
 * @f (pebs_filter__aside): report's tables and export's profiles and
 * traces leave them out unless --event names them, plot heat always.
 * Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_filter__aside_objects(struct pebs_filter *f,
					const struct pebs_perfdata *pd);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_OBJECTS_H */
