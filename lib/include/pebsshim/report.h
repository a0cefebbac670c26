/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/report.h - libpebsshim: reports: samples grouped by sort
 * keys, weights, data labels.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_REPORT_H
#define PEBSSHIM_REPORT_H

#include <stdio.h>

#include "pebsshim/symbols.h"
#include "pebsshim/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Report: samples grouped by sort keys (lib/report/report-keys.c,    */
/* lib/report/report-field.c, lib/report/report.c,                    */
/* lib/report/report-defer.c, lib/report/report-derive.c,             */
/* lib/report/report-rename.c)                                        */
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
	PEBS_REPORT_PID,	/* newer perf's tgid: per process, shown
				   as tgid:comm (its leader's last comm) */
	PEBS_REPORT_TID,	/* per thread, shown as the tid */
	PEBS_REPORT_COMM, PEBS_REPORT_DSO,
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
	PEBS_REPORT_LOCAL_WEIGHT, /* perf's local_weight: one row per
				   sample weight, shown as that weight */
	PEBS_REPORT_LOCKED,	/* perf's locked: data_src mem_lock */
	PEBS_REPORT_BLOCKED,	/* perf's blocked: data_src mem_blk */
	PEBS_REPORT_LOCAL_INS_LAT, /* perf's local_ins_lat: one row per
				   instruction latency (WEIGHT_STRUCT) */
	PEBS_REPORT_OBJECT,	/* the data object: a heap allocation site,
				   a data symbol, else the mapping */
	PEBS_REPORT_OBJECT_INSTANCE,	/* each heap object on its own */
	PEBS_REPORT_OBJECT_FIELD,	/* a static variable's field (DWARF),
					   else the object */
	PEBS_REPORT_THREAD,	/* perf's pid: per thread, shown as
				   tid:comm (the thread's last comm) */
	PEBS_REPORT_SRCLINE,	/* perf's srcline: the sample's source
				   line (pebs_session__set_srclines) */
	PEBS_REPORT_SRCFILE,	/* perf's srcfile: its source file */
	PEBS_REPORT_TIME,	/* perf's time: the sample's time slice
				   (pebs_session__set_time_quantum) */
	PEBS_REPORT_NR_KEYS
};
#define PEBS_REPORT_MAX_KEYS	16
#define PEBS_REPORT_MAX_TIDS	8	/* thread ids kept per row */

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
	uint64_t ins_lat;	/* the local_ins_lat key's */
	const char *object;	/* the object or object_instance key */
	const char *object_field;	/* the object_field key */
	/* a report with children (pebs_report__set_children): the
	   samples whose call chain holds the row's key (its Children),
	   and their period; 0 in other reports */
	uint64_t children_samples, children_period;
	const char *srcline, *srcfile;	/* the srcline, srcfile keys */
	uint64_t time;			/* the time key's slice start, ns */
};

/*
 * pebs_report__parse_keys - "comm,dso,sym" into @keys (at most @max;
 * perf's "symbol" is accepted for sym; "pid" is perf's, one row per
 * thread (PEBS_REPORT_THREAD), "tgid" one per process, "tid" one per
 * thread shown by number; data keys symbol_daddr,
 * dso_daddr, mem, snoop, tlb, dcacheline, phys_daddr; perf mem's
 * local_weight, locked, blocked, local_ins_lat, and local_p_stage_cyc /
 * p_stage_cyc, which are left out as perf leaves them out on all but
 * powerpc). Returns the number of keys, or -EINVAL with pebs_errmsg()
 * naming the bad token.
 */
PEBS_API int pebs_report__parse_keys(const char *str,
				     enum pebs_report_key *keys,
				     unsigned int max);

/*
 * perf mem report's default sort keys (perf report --mem-mode's
 * default_mem_sort_order), for pebs_report__parse_keys.
 */
#define PEBS_REPORT_MEM_SORT "local_weight,mem,sym,dso,symbol_daddr," \
	"dso_daddr,snoop,tlb,locked,blocked,local_ins_lat,local_p_stage_cyc"

/*
 * pebs_report_sample__mem_cost - make @s cost what perf report
 * --mem-mode (and so perf mem report) charges a sample: its weight, or 1
 * when it has none, in place of its period; a report of such samples
 * has the total weight as its period, and each row's Overhead is its
 * share of the weight.
 */
PEBS_API void pebs_report_sample__mem_cost(struct pebs_report_sample *s);

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

/* pebs_report__add - count one sample. Returns 0 or -ENOMEM. */
PEBS_API int pebs_report__add(struct pebs_report *r,
			      const struct pebs_report_sample *s);

/*
 * pebs_report__add_batch - pebs_report__add of @n samples in order, the
 * lookups of several overlapped (faster on tables larger than the
 * caches). Returns 0 or -ENOMEM (the samples before the failing one are
 * counted).
 */
PEBS_API int pebs_report__add_batch(struct pebs_report *r,
				    const struct pebs_report_sample *s,
				    size_t n);

/*
 * pebs_report__name_kernel - end @syms's nowait mode (waiting for
 * /proc/kallsyms if it is still being read) and move every row of @r
 * keyed by an unnamed kernel address that a kernel symbol of @syms
 * covers under that symbol, merged with its row: @r is then the report
 * that samples resolved with waiting would have made (rows, sums,
 * thread counts, order; a merged row's thread ids may be kept in
 * another order). Call it after the last __add and before
 * __sort; reports without a sym key, and reports with children
 * (pebs_report__set_children: resolve their frames waiting), are left
 * as they are. Returns 0,
 * -EINVAL or -ENOMEM (@r unchanged).
 */
PEBS_API int pebs_report__name_kernel(struct pebs_report *r,
				      struct pebs_symbols *syms);

/*
 * pebs_report__sort - order the rows as perf prints them: by period,
 * then samples, then the key fields ascending (rows are not moved: an
 * index is sorted). After it, no more __add.
 */
PEBS_API void pebs_report__sort(struct pebs_report *r);

/*
 * pebs_report__sort_top - as pebs_report__sort, but only the first @n
 * rows are put in order; the others follow them in no particular order.
 * O(rows log n): for printing the top @n of a large table.
 */
PEBS_API void pebs_report__sort_top(struct pebs_report *r, size_t n);

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
 * ":tid"), pid "tid:comm" (the row's comm, else ":tid"), tgid
 * "tgid:comm" (the row's comm, else ""), dso base name (or
 * "[unknown]"), "[k] sym" / "[.] sym" or "[.] 0x%016llx" when
 * unresolved, cpu "%.3d" (-001: not sampled), event index, addresses
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

/* pebs_report__delete - free; NULL is allowed. */
PEBS_API void pebs_report__delete(struct pebs_report *r);

/*
 * pebs_report__needs - what the keys of @r (NULL: none) need of the
 * session's pass: PEBS_REPORT_NEEDS_DATA, the data addresses resolved
 * (pebs_session__process's @data: symbol_daddr, dso_daddr, dcacheline
 * and the object keys), and PEBS_REPORT_NEEDS_OBJECTS, the samples'
 * data objects (pebs_session__use_objects: object, object_instance,
 * object_field), and PEBS_REPORT_NEEDS_SRCLINES, the samples' source
 * lines (pebs_session__set_srclines: srcline, srcfile).
 */
#define PEBS_REPORT_NEEDS_DATA		1u
#define PEBS_REPORT_NEEDS_OBJECTS	2u
#define PEBS_REPORT_NEEDS_SRCLINES	4u
PEBS_API unsigned int pebs_report__needs(const struct pebs_report *r);

/*
 * Children, perf report --children's cumulative entries
 * (lib/report/report-children.c): a sample counts in its own row (Self)
 * and, once per sample however often its call chain holds it, in the
 * row of each of its call chain's frames (Children: the sample's
 * thread, comm, cpu and event with the frame's dso, symbol and
 * address; a frame without a symbol is keyed by its raw address, as in
 * perf). Rows are ordered by Children, then, between two rows first
 * counted from one thread, the one deeper in the call chains first
 * (perf's "caller above callee"), then as pebs_report__sort orders
 * them.
 *
 * pebs_report__can_cumulate - whether keys @keys (@n) allow children:
 * only pid, tgid, tid, comm, dso, sym, cpu and event (perf cumulates no
 * data key: its memory keys come with --mem-mode, which has none).
 * pebs_report__set_children - children for @r, before its first __add:
 * 0, or -EINVAL (keys that do not allow it, or rows added already).
 * pebs_report__children - whether @r has children.
 */
PEBS_API bool pebs_report__can_cumulate(const enum pebs_report_key *keys,
					unsigned int n);
PEBS_API int pebs_report__set_children(struct pebs_report *r);
PEBS_API bool pebs_report__children(const struct pebs_report *r);

/*
 * pebs_report__add_chain - count sample @s with its call chain's @nr
 * frames @frames, the leaf first (pebs_callchain__resolve; nr 0: no
 * chain). In a report without children, as pebs_report__add; __add and
 * __add_batch on a report with children count a sample without chain.
 * Returns 0 or -ENOMEM.
 */
PEBS_API int pebs_report__add_chain(struct pebs_report *r,
				    const struct pebs_report_sample *s,
				    const struct pebs_frame *frames,
				    unsigned int nr);

/*
 * pebs_report__chain - the call chain's frames of sample @s (the leaf
 * first) as perf's cumulative entries see them, for
 * pebs_report__add_chain: pebs_callchain__resolve's (@kernel, @frames,
 * @max as there; call it from a pebs_session callback), but a user frame
 * in no executable mapping is in the mapping that holds it, named by the
 * data symbol there (pebs_callchain__data_frame: a data segment, the
 * stack, when the recording has their MMAP records, as perf's maps have
 * them). Returns the number of frames, -EINVAL or -ENOMEM.
 */
PEBS_API int pebs_report__chain(struct pebs_symbols *syms,
				const struct pebs_sample *s, bool kernel,
				struct pebs_frame *frames, unsigned int max);

/*
 * pebs_report__children_overhead - perf's Children of @row in percent:
 * its children_period's share of the period counted (as
 * pebs_report__overhead's); 0 in a report without children.
 */
PEBS_API double pebs_report__children_overhead(const struct pebs_report *r,
					       const struct pebs_report_row *row,
					       bool per_event);

/* ------------------------------------------------------------------ */
/* Call graphs (lib/report/report-graph.c, report-graph-print.c)      */
/* ------------------------------------------------------------------ */

/*
 * perf report -g: under each row, the call chains of its samples as a
 * tree (perf 6.1's util/callchain.c and ui/stdio/hist.c). A row's
 * chains are merged from the root of the order shown: a frame matches
 * another of the same function (dso and symbol), or of the same
 * address where either has no symbol. In a report with children a
 * frame's row takes the chain from that frame on (its callees in
 * caller order, its callers in callee order), as perf's cumulative
 * entries; the sample's own row, the whole chain.
 */
enum pebs_graph_mode {
	PEBS_GRAPH_GRAPH,	/* perf's graph: percentages of the total */
	PEBS_GRAPH_FRACTAL,	/* of the parent's */
	PEBS_GRAPH_FLAT,	/* each chain whole, one line a frame */
	PEBS_GRAPH_FOLDED,	/* each chain on a line, frames ';' apart */
	PEBS_GRAPH_NONE,	/* no graph (perf's -g none) */
};

enum pebs_graph_order {
	PEBS_GRAPH_ORDER_DEFAULT,	/* caller with children, else callee */
	PEBS_GRAPH_CALLER,
	PEBS_GRAPH_CALLEE,
};

enum pebs_graph_value {
	PEBS_GRAPH_PERCENT,
	PEBS_GRAPH_PERIOD,
	PEBS_GRAPH_COUNT,
};

struct pebs_report_graph_opts {
	size_t sz;
	enum pebs_graph_mode mode;
	enum pebs_graph_order order;
	enum pebs_graph_value value;
	double threshold;	/* percent: branches below are not shown */
	bool has_threshold;	/* else perf's 0.5 */
	unsigned int print_limit;	/* branches a node shows; 0: all */
	/* the files' order (pebs_symbols__dso_order: perf's order of its
	   dso objects, which orders branches of equal value); NULL: the
	   kernel's last, others by where their names lie in memory */
	const struct pebs_symbols *syms;
};

/*
 * pebs_report_graph__parse - perf report -g's argument into @g (an
 * initialized struct: what the string does not name stays):
 * print_type,threshold[,print_limit],order,sort_key,value as perf 6.1
 * parses it (each word may be cut short; "none" ends it; the first
 * number is the threshold, the second the print limit; the sort key
 * "function" only). NULL: perf's default "graph,0.5,caller,function,
 * percent". Returns 0, or -EINVAL with pebs_errmsg() naming the token.
 */
PEBS_API int pebs_report_graph__parse(const char *arg,
				      struct pebs_report_graph_opts *g);

/*
 * pebs_report__set_graph - keep each row's call graph as @g says (mode
 * NONE: none, and perf's -g none: rows with children tie by the keys,
 * not by their chains' depth), before the first __add; samples then go
 * through pebs_report__add_chain. Returns 0, or -EINVAL (rows added
 * already, a bad @g, or a deferred report).
 * pebs_report__graph - whether @r keeps call graphs.
 */
PEBS_API int pebs_report__set_graph(struct pebs_report *r,
				    const struct pebs_report_graph_opts *g);
PEBS_API bool pebs_report__graph(const struct pebs_report *r);

/*
 * pebs_report__print_graph - the call graph of sorted row @i to @f as
 * perf report --stdio prints it under the row (graph: branches below
 * the threshold's share of the period left out, fractal: of the
 * parent's; a blank line after); percentages of the row's event's
 * period with @per_event, else of all. @skip_first: perf's first frame
 * left out of a single chain when --sort begins with "sym". After
 * __sort. Returns 0, -EINVAL, -ENOMEM, or -EIO (a write failed).
 */
PEBS_API int pebs_report__print_graph(const struct pebs_report *r, size_t i,
				      bool per_event, bool skip_first,
				      FILE *f);

/*
 * pebs_report__max_stack - the @nr @frames of a sample (the leaf first:
 * pebs_report__chain's) cut to what perf report --max-stack @max keeps,
 * the kept ones moved to the front; returns their number. perf counts a
 * chain's frames in the order it shows them (-g's @order, else caller
 * with @children, callee without): in caller order the @max outermost,
 * in callee order the @max innermost; the user frames of an @unwound
 * sample (--call-graph dwarf: its event samples PEBS_SAMPLE_DWARF) are
 * the innermost @max in either order (perf's unwinder stops there), its
 * kernel frames as the others.
 */
PEBS_API unsigned int pebs_report__max_stack(struct pebs_frame *frames,
					     unsigned int nr, unsigned int max,
					     enum pebs_graph_order order,
					     bool children, bool unwound);

/* ------------------------------------------------------------------ */
/* Sampling errors (lib/report/report-error.c)                        */
/* ------------------------------------------------------------------ */

/*
 * pebs_report__set_errors - @r, a new report (before __add and
 * __defer: a deferred report then stays an ordinary one), keeps what
 * each row's share needs for its sampling error: the samples' periods
 * (each of about 1 in period events) and, in a budgeted recording's
 * duty cycles (pebs_report_sample.cycle, in time order), how the row's
 * periods move from cycle to cycle. Returns 0, -EINVAL, -ENOMEM.
 * pebs_report__errors - whether @r keeps them (and its rows are not
 * derived ones).
 */
PEBS_API int pebs_report__set_errors(struct pebs_report *r);
PEBS_API bool pebs_report__errors(const struct pebs_report *r);

/*
 * pebs_report__share_error - the sampling error of the share of its
 * event's period (pebs_report__overhead with per_event) that sorted row
 * @i has, one standard error in points (the man page says how it is
 * estimated); -1 when not known: no errors kept, a derived row, a row
 * of several events, a recording of one cycle, an event whose periods
 * add up past 2^64 (a damaged file). After __sort or __sort_top.
 */
PEBS_API double pebs_report__share_error(const struct pebs_report *r,
					 size_t i);

/* ------------------------------------------------------------------ */
/* Data objects as labels (lib/report/data-label.c)                   */
/* ------------------------------------------------------------------ */

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
 * pebs_data_map__name - the mapping's name as report's dso_daddr names
 * it: "[heap]", "[stack:PID]" (the main thread's stack of @pid), "anon",
 * a file's base name. Returns snprintf's value, or -EINVAL.
 */
PEBS_API int pebs_data_map__name(const struct pebs_data_map *map, pid_t pid,
				 char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Reports fed on a thread of their own (lib/report/report-feed.c)    */
/* ------------------------------------------------------------------ */

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

/* pebs_report_feed__delete - free; NULL is allowed. */
PEBS_API void pebs_report_feed__delete(struct pebs_report_feed *f);

/*
 * pebs_report_feed__add_chain - sample @s with the @nr frames of its call
 * chain (both copied; pebs_report__add_chain) for every report: the
 * frames count in the reports with children. Returns 0, -EINVAL or
 * -ENOMEM.
 */
PEBS_API int pebs_report_feed__add_chain(struct pebs_report_feed *f,
					 const struct pebs_report_sample *s,
					 const struct pebs_frame *frames,
					 unsigned int nr);

/* ------------------------------------------------------------------ */
/* Weights and their percentiles (lib/report/report-weights.c)        */
/* ------------------------------------------------------------------ */

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

/* pebs_weights__delete - free; NULL is allowed. */
PEBS_API void pebs_weights__delete(struct pebs_weights *w);
PEBS_API int pebs_weights__add(struct pebs_weights *w,
			       const struct pebs_report_sample *s);
PEBS_API uint64_t pebs_weights__nr(const struct pebs_weights *w);
PEBS_API int pebs_weights__summary(struct pebs_weights *w,
				   unsigned int event,
				   struct pebs_weight_summary *out);

/* ------------------------------------------------------------------ */
/* Reports printed as pebs-shim report prints them                    */
/* (lib/report/report-print.c)                                        */
/* ------------------------------------------------------------------ */

enum pebs_report_format {
	PEBS_REPORT_FORMAT_TEXT,
	PEBS_REPORT_FORMAT_CSV,
	PEBS_REPORT_FORMAT_JSON,
};

/* One printed table: a titled report, its rows sorted. */
struct pebs_report_table {
	const char *title;
	const struct pebs_report *rep;
};

struct pebs_objects;

struct pebs_report_print_opts {
	size_t sz;
	enum pebs_report_format format;
	const char *path;		/* the recording's name (required) */
	struct pebs_perfdata *pd;	/* its events and header (required) */
	const struct pebs_session_stats *stats;	/* the pass's (required) */
	const struct pebs_report_table *tables;
	unsigned int nr_tables;
	unsigned int top;		/* rows per table; 0: all */
	double percent_limit;		/* rows below this Overhead hidden */
	bool show_nr;			/* text: the Samples column (-n) */
	bool by_event;			/* Overhead within each event */
	bool mem_mode;			/* text: perf report --mem-mode's
					   header lines */
	const char *sort;		/* the one table's --sort keys; NULL:
					   the default tables, then the
					   weights' percentiles */
	struct pebs_weights *weights;	/* text: their count and
					   percentiles; NULL: none */
	uint64_t samples;		/* the samples of the pass */
	uint64_t filtered;		/* of them, left out by filters */
	uint64_t with_addr, with_src;	/* with a data address, source */
	unsigned int flags;		/* PEBS_ORDERED_* of the pass */
	struct pebs_objects *objs;	/* a table by object or
					   object_instance: its columns
					   (p50/p90 weight, instances, bytes,
					   peak live); NULL: none */
	unsigned int sole_event;	/* !by_event: the event sampled */
	uint64_t bookkeeping;		/* text: samples of record --objects'
					   pebs-shim:alloc/free left out of
					   the tables (a header line) */
	const struct pebs_threads *threads; /* the pass's, at its end: the
					   pid key's comm, each thread's
					   last, and tgid's, its leader's
					   (as perf); NULL: unknown */
	bool quiet;			/* text: the tables' rows only, a
					   blank line apart (perf report
					   -q) */
	bool show_period;		/* text: the Period column after
					   Samples (perf's
					   --show-total-period: the row's
					   own period) */
};

/*
 * pebs_report_tables__print - print the tables of @opts to @f as
 * pebs-shim report does. PEBS_REPORT_FORMAT_TEXT: the recording's header
 * (host, kernel, CPU, command line and attribution, each event with its
 * samples, the sample counts, lost samples, duration, the kernel's
 * symbols, order, filtered and undecoded samples), then each table
 * (Overhead, with show_nr the samples, the mean weight, loads, stores
 * and HITM of tables by data address, threads, then the keys; at most
 * top rows and those over percent_limit, "N more rows" after), then,
 * without sort, the weight percentiles per event; with quiet only the
 * tables' rows, a blank line between tables. CSV: one header line,
 * then one line per row of every table (the key columns the table is not
 * grouped by left empty); JSON: one object with the file, the counts and
 * each table's keys and rows. Returns 0, -EINVAL (a required field
 * missing, a bad format or @opts), -EIO (@f's error flag).
 */
PEBS_API int pebs_report_tables__print(FILE *f,
				       const struct pebs_report_print_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_REPORT_H */
