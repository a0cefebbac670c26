/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/c2c.h - libpebsshim: cache-line sharing, perf c2c's way.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_C2C_H
#define PEBSSHIM_C2C_H

#include <stdio.h>

#include "pebsshim/symbols.h"
#include "pebsshim/perfdata.h"
#include "pebsshim/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* struct pebs_c2c_stats and its counting: pebsshim/decode.h */

/* ------------------------------------------------------------------ */
/* Cache-line sharing, perf c2c's way (lib/c2c/c2c.c,                 */
/* lib/c2c/c2c-read.c, lib/c2c/c2c-sort.c)                            */
/* ------------------------------------------------------------------ */

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
	uint8_t size;		/* bytes accessed from addr, when known
				   (0: unknown, taken as 1 byte; perf
				   samples carry no access size) */
};

/*
 * How a line (or an offset of it) is shared, by the definitions of the
 * false-sharing literature (Sheriff, Predator, Cheetah) and of Intel's
 * and Red Hat's c2c guides. An access covers [offset, offset + size)
 * (1 byte when the sample gives no size); an access without data source
 * may be a write and counts as one.
 */
enum pebs_c2c_sharing {
	PEBS_C2C_PRIVATE = 0,	/* one thread, or readers only */
	PEBS_C2C_FALSE_SHARING = 1, /* >= 2 threads on different,
				   non-overlapping bytes, >= 1 writing:
				   a writes bytes b never touches, b
				   touches bytes a never writes */
	PEBS_C2C_TRUE_SHARING = 2, /* >= 2 threads on the same bytes,
				   >= 1 of them writing them (a writer
				   and a reader of one word included) */
	PEBS_C2C_TRUE_FALSE_SHARING = 3, /* both (TRUE | FALSE) */
};

/*
 * The evidence of a classification, the pair of accesses that costs most
 * (most HITMs, then most stores, then most accesses): thread a
 * (pid_a/tid_a) wrote at off_a; thread b accessed off_b (true sharing:
 * their bytes overlap, so off_b == off_a for 1-byte accesses; false
 * sharing: off_a's bytes are ones b never touches, off_b's ones a never
 * writes). Zero when PRIVATE.
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
	enum pebs_c2c_sharing sharing;
	struct pebs_c2c_evidence evidence;	/* of true sharing when
						   TRUE or TRUE_FALSE, else
						   of false sharing */
	bool also_false;	/* sharing == PEBS_C2C_TRUE_FALSE_SHARING */
	struct pebs_c2c_evidence false_evidence; /* when also_false */
	uint32_t id;		/* pass to pebs_c2c__for_each_offset */
	/* the data object its samples hit most (pebs_c2c__set_object),
	   NULL: not named; the instance; how many objects were hit */
	const char *object, *object_inst;
	unsigned int nr_objects;
};

/* One byte offset of a line: who touched it, from where. */
struct pebs_c2c_offset {
	uint8_t offset;		/* 0..63 */
	struct pebs_c2c_stats stats;
	uint64_t unknown;
	unsigned int nr_ips, nr_threads, nr_cpus;
	uint32_t id;		/* pass to pebs_c2c__for_each_{ip,thread,cpu} */
	enum pebs_c2c_sharing sharing;	/* the classes this offset's accesses
					   take part in (a pair of the line's
					   class with an access here) */
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
	unsigned int size;	/* widest access size seen (bytes, 0:
				   unknown, taken as 1) */
};

/* A CPU at one offset. */
struct pebs_c2c_cpu {
	uint32_t cpu;
	uint64_t samples;
};
struct pebs_c2c;

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

/* pebs_c2c__new - an empty table. Returns 0 or -ENOMEM. */
PEBS_API int pebs_c2c__new(struct pebs_c2c **cp);

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
 * pebs_c2c__set_object - name line @line_id's data object (the one its
 * samples hit most: pebs_objects__line), its instance (NULL: @object)
 * and the number of objects its samples hit, shown from then on in its
 * pebs_c2c_line; @object NULL unnames it. The strings must outlive @c.
 * Returns 0 or -EINVAL.
 */
PEBS_API int pebs_c2c__set_object(struct pebs_c2c *c, uint32_t line_id,
				  const char *object, const char *instance,
				  unsigned int nr_objects);

/*
 * pebs_c2c__line_pid - the process whose memory line @l is: its pid, or
 * for a line of a file's data (pid 0: not per process) the smallest pid
 * of the threads of its first offset; -1 when it has none. After
 * pebs_c2c__sort.
 */
PEBS_API int32_t pebs_c2c__line_pid(struct pebs_c2c *c,
				    const struct pebs_c2c_line *l);

/* pebs_c2c__delete - free; NULL is allowed. */
PEBS_API void pebs_c2c__delete(struct pebs_c2c *c);

/* ------------------------------------------------------------------ */
/* perf c2c's cache-line key (lib/c2c/c2c-maps.c)                     */
/* ------------------------------------------------------------------ */

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

/* pebs_c2c_maps__delete - free; NULL is allowed. */
PEBS_API void pebs_c2c_maps__delete(struct pebs_c2c_maps *m);

/* pebs_c2c_sharing__name - "none", "false", "true" or "true+false". */
PEBS_API const char *pebs_c2c_sharing__name(enum pebs_c2c_sharing s);

/* ------------------------------------------------------------------ */
/* A pebs_c2c printed as perf c2c report does (lib/c2c/c2c-print.c,   */
/* lib/c2c/c2c-csv.c)                                                 */
/* ------------------------------------------------------------------ */

enum pebs_c2c_format {
	PEBS_C2C_FORMAT_STDIO,		/* perf c2c report --stdio's tables */
	PEBS_C2C_FORMAT_CSV,		/* one row per line */
	PEBS_C2C_FORMAT_CSV_DETAIL,	/* one row per line, offset, code address */
	PEBS_C2C_FORMAT_JSON,		/* everything, one object */
};

struct pebs_c2c_print_opts {
	size_t sz;
	enum pebs_c2c_format format;
	bool show_all;		/* every line with a data address, not only
				   the shown ones (shown ones first) */
	struct pebs_perfdata *pd;	/* the events of "c2c details"; NULL:
					   none listed */
	struct pebs_symbols *code;	/* code addresses to symbols and
					   objects; NULL: raw addresses */
	struct pebs_srcline *src;	/* source lines (with @code); NULL: none */
	const char *path;	/* JSON's "file"; NULL: null */
	uint64_t undecoded;	/* JSON's "undecoded": samples left out */
	bool objects;		/* CSV: the data object columns (a
				   recording of record --objects) */
};

/*
 * pebs_c2c__print - print @c, sorted (pebs_c2c__sort: its display is
 * the ranking printed), to @f: PEBS_C2C_FORMAT_STDIO as perf c2c report
 * --stdio (Trace Event Information, Global Shared Cache Line Event
 * Information, c2c details, the Shared Data Cache Line Table, the Shared
 * Cache Line Distribution Pareto, perf's labels and columns, with each
 * line's sharing and evidence and each offset's threads and CPUs); csv
 * with a header row and every counter by pebs_c2c_stats__field's names
 * (the detail table: each offset's whole thread and CPU lists in each of
 * its rows); JSON with totals, lines, offsets, code addresses (symbol,
 * object, source line), threads and CPUs. Nothing is cut. Returns 0,
 * -EINVAL (not sorted, a bad @opts), -ENOMEM, -EIO (@f's error flag).
 */
PEBS_API int pebs_c2c__print(struct pebs_c2c *c, FILE *f,
			     const struct pebs_c2c_print_opts *opts);

/*
 * pebs_c2c__print_summary - sort @c by HITM (by cross-thread writes when
 * no sample has a data source) and print its shown lines to @f, one row
 * each (samples, loads, stores, HITM, cross-thread writes, threads,
 * offsets, the sharing and its evidence as comm/tid@offset, comms from
 * @threads, NULL: "?"), at most @top of them: pebs-shim report's section
 * on shared cache lines. Returns 0, -EINVAL, -ENOMEM, -EIO.
 */
PEBS_API int pebs_c2c__print_summary(struct pebs_c2c *c, FILE *f,
				     const struct pebs_threads *threads,
				     unsigned int top);

/* ------------------------------------------------------------------ */
/* A session's samples into a pebs_c2c (lib/c2c/session-c2c.c)       */
/* ------------------------------------------------------------------ */

/* pebs_session__set_c2c @flags: add a line's samples once it can be shared */
#define PEBS_SESSION_C2C_SHARED	1u
/* ... and leave out the samples of software dummy events (record
   --objects' pebs-shim:alloc and pebs-shim:free: bookkeeping, not
   accesses) */
#define PEBS_SESSION_C2C_NO_DUMMY	2u

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
PEBS_API int pebs_session__set_c2c(struct pebs_session *ss,
				   struct pebs_c2c *c, unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_C2C_H */
