/* SPDX-License-Identifier: MIT */
/*
 * report.h - `pebs-shim report`'s state, shared by tools/cmd-report.c
 * (its options) and tools/report-run.c (the pass and the printing).
 */
#ifndef PEBS_SHIM_REPORT_H
#define PEBS_SHIM_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "pebsshim.h"

#define MAX_TABLES	8

/* One printed table: a grouping of the samples. */
struct table {
	const char *title;
	struct pebs_report *rep;
	/* the rep whose rows this table's are made from after the pass
	   (pages from lines), or NULL: from the samples */
	const struct pebs_report *from;
};

struct report {
	const char *path;
	struct pebs_perfdata *pd;
	struct pebs_session *ss;
	const struct pebs_session_stats *st;	/* the session's counts */
	unsigned int nr_attrs;
	bool by_event;		/* samples of several events: split tables */
	bool need_data;		/* a table has symbol_daddr or dso_daddr */
	bool need_objects;	/* a table has an object key */
	bool need_srclines;	/* a table has srcline or srcfile */
	struct pebs_objects *objs;	/* then the heap objects */
	unsigned int sole_event;	/* !by_event: the event sampled */
	uint64_t bookkept;	/* record --objects' bookkeeping samples, set
				   aside by the filter (no --event) */
	uint64_t samples;
	uint64_t filtered;	/* samples the filters left out */
	uint64_t with_addr, with_src;
	struct pebs_weights *weights;	/* for their percentiles */
	unsigned int flags;	/* PEBS_ORDERED_* of the pass */
	/* options */
	unsigned int top;	/* rows per table */
	bool show_nr;		/* -n: the samples column */
	bool show_period;	/* --show-total-period: the period column */
	uint64_t quantum;	/* --time-quantum in ns, or 0: perf's */
	bool quiet;		/* -q: the rows only */
	bool mem_mode;		/* --mem-mode: weights as perf mem report */
	const char *sort;	/* --sort, or NULL: the default tables */
	enum pebs_report_format format;
	double percent_limit;	/* rows below this Overhead are not shown */
	struct pebs_filter *filter;	/* samples the tables count */
	const char *time_spec;	/* --time, set once the span is known */
	const char *events;	/* --event names, set once attrs are read */
	int header;		/* 1: --header, 2: --header-only */
	bool show_info;		/* -I: the topologies in full */
	int children;		/* --children 1, --no-children 0, else -1:
				   as perf, with call chains */
	bool cumulate;		/* tables whose keys allow it have children */
	bool errors;		/* --errors, or a budgeted recording: each
				   share's sampling error (+-pts) */
	bool chains;		/* some table has: frames resolved */
	/* -g, -G: call graphs under the rows of the --sort table, or of
	   the symbols table (none: perf's -g none) */
	struct pebs_report_graph_opts graph;
	bool graph_set;
	const char *symfs;	/* --symfs: files looked for under it */
	int max_stack;		/* --max-stack, or -1 */
	bool relative;		/* --percentage relative: shares of the
				   samples the filters keep */
	bool stats;		/* --stats: the records counted instead */
	unsigned int tasks;	/* --tasks: the tasks instead (and with
				   PEBS_TASKS_MMAPS, --mmaps: their maps) */
	bool keep_empty;	/* --no-skip-empty: zero counts too */
	struct pebs_frame frames[PEBS_CALLCHAIN_MAX];
	struct table tables[MAX_TABLES];
	struct pebs_c2c *c2c;	/* the sharing section, filled in the pass */
	struct pebs_report_feed *feed;	/* the tables' thread */
	unsigned int nr_tables;
};

/*
 * report_run - open r->path, replay it into the tables of @sort (NULL:
 * the default tables) or count its records (--stats, --tasks, --mmaps),
 * and print: the exit status (0, 1 runtime failure, 2 usage).
 */
int report_run(struct report *r, const char *sort);

/* report_free - what report_run made, and r->filter */
void report_free(struct report *r);

#endif
