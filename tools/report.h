/* SPDX-License-Identifier: MIT */
/*
 * report.h - `pebs-shim report`: the state cmd-report.c fills from the
 * library (threads, symbols, grouped tables) and report-print.c prints.
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
	bool need_objects;	/* a table has object or object_instance */
	struct pebs_objects *objs;	/* then the heap objects */
	unsigned int sole_event;	/* !by_event: the event sampled */
	uint64_t samples;
	uint64_t filtered;	/* samples the filters left out */
	uint64_t with_addr, with_src;
	struct pebs_weights *weights;	/* for their percentiles */
	unsigned int flags;	/* PEBS_ORDERED_* of the pass */
	/* options */
	unsigned int top;	/* rows per table */
	bool show_nr;		/* -n: the samples column */
	bool mem_mode;		/* --mem-mode: weights as perf mem report */
	const char *sort;	/* --sort, or NULL: the default tables */
	enum { FMT_TEXT, FMT_CSV, FMT_JSON } format;
	double percent_limit;	/* rows below this Overhead are not shown */
	struct pebs_filter *filter;	/* samples the tables count */
	const char *time_spec;	/* --time, set once the span is known */
	const char *events;	/* --event names, set once attrs are read */
	int header;		/* 1: --header, 2: --header-only */
	bool show_info;		/* -I: the topologies in full */
	struct table tables[MAX_TABLES];
	struct pebs_c2c *c2c;	/* the sharing section, filled in the pass */
	struct pebs_report_feed *feed;	/* the tables' thread */
	unsigned int nr_tables;
};

/* report-print.c */
void report_field(const struct report *r, const struct pebs_report_row *row,
		  enum pebs_report_key k, char *buf, size_t len);
void report_print_header(const struct report *r);
void report_print_table(const struct report *r, struct table *t);
void report_print_weights(struct report *r);
int report_print_sharing(const struct report *r);

/* report-format.c: --format=csv|json */
void report_print_csv(const struct report *r);
void report_print_json(const struct report *r);

#endif /* PEBS_SHIM_REPORT_H */
