/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/export.h - a recording as profiles for the tools people look
 * with: pprof's profile.proto, gzip-compressed (go tool pprof,
 * Pyroscope, Parca), and Perfetto traces (ui.perfetto.dev).
 *
 * Included by <pebsshim.h>; may also be included alone.
 */
#ifndef PEBSSHIM_EXPORT_H
#define PEBSSHIM_EXPORT_H

#include "pebsshim/report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* pprof profiles (lib/export/pprof.c, export-pprof.c)                */
/* ------------------------------------------------------------------ */


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

/* ------------------------------------------------------------------ */
/* Perfetto traces (lib/export/perfetto.c, export-perfetto.c)         */
/* ------------------------------------------------------------------ */

/*
 * pebs_export__perfetto - replay @ss (pebs_session__new or __new_stream;
 * its filter set up by the caller) into a Perfetto trace (a Trace of
 * TracePackets, uncompressed) at @o->output: thread and process
 * descriptors with their names, per-CPU sched_switch events (from the
 * module's switch history, else the kernel's switch records, else the
 * samples' threads: an instant event on the "pebs-shim" track names
 * which), each sample as a PerfSample with its interned call stack, and
 * counter tracks per CPU per millisecond (samples; loads, stores, HITM,
 * remote and mean weight where the events sample them). Timestamps are
 * the recording's, on the clock Perfetto's perf importer gives them
 * (BUILTIN_CLOCK_PERF, or the events' use_clockid). @o->labels is not
 * used; @o->split must be PEBS_EXPORT_SPLIT_NONE. The filter chooses the
 * samples; switches only by --cpu, --time, --event and the events set
 * aside (pebs_filter__aside). Written as
 * pebs_pprof__write writes (0600, renamed into place), and only when a
 * sample passed the filter (@st->files 1). Returns 0, or -errno with
 * pebs_errmsg() set (-EBADMSG: a damaged record; the trace holds the
 * records before it).
 */
PEBS_API int pebs_export__perfetto(struct pebs_session *ss,
				   const struct pebs_export_opts *o,
				   struct pebs_export_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_EXPORT_H */
