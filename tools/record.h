/* SPDX-License-Identifier: MIT */
/*
 * record.h - the command `pebs-shim record` over the library's recorder
 * (struct pebs_recorder, lib/record/): tools/record-opts.c (its
 * options), tools/cmd-record.c (the loop), tools/record-print.c (what
 * the user sees), tools/record-attr.c (-vv's attrs), used by
 * tools/mem-record.c (mem record, c2c record) too.
 */
#ifndef PEBS_SHIM_RECORD_H
#define PEBS_SHIM_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pebsshim.h"
#include "util.h"

/*
 * Exit status of `pebs-shim record` (man/pebs-shim.1, EXIT STATUS): the
 * command's own (128+N when a signal N killed it, or when SIGINT,
 * SIGTERM or SIGHUP stopped the recording), else one of these.
 */
#define REC_EXIT_USAGE		123	/* bad option, event, target or value */
#define REC_EXIT_SETUP		124	/* could not start (events, file) */
#define REC_EXIT_RUNTIME	125	/* failed while recording */
#define REC_EXIT_NOEXEC		126	/* the command cannot be executed */
#define REC_EXIT_NOTFOUND	127	/* the command was not found */

/* ---- options (tools/record-opts.c) ------------------------------------ */

struct rec_opts {
	const char *evstrs[PEBS_RECORDER_MAX_EVENTS];
	unsigned int nr_evs;
	uint64_t period, freq;
	unsigned int pages;
	const char *output;
	enum pebs_recorder_format format;
	double duration;
	enum pebs_recorder_attr attr_req;
	int verbose;
	bool quiet;
	bool data_addr;			/* -d: PERF_SAMPLE_ADDR on every event */
	bool weight;			/* -W: PERF_SAMPLE_WEIGHT_STRUCT */
	bool phys_data;			/* --phys-data: PERF_SAMPLE_PHYS_ADDR */
	bool data_page_size;		/* --data-page-size */
	bool all_user, all_kernel;	/* --all-user, --all-kernel */
	bool no_inherit;
	bool switch_events;
	bool no_switch_history;		/* module history not in the file */
	enum pebs_recorder_callgraph callgraph;
	uint32_t stack_size;		/* --call-graph dwarf,SIZE */
	bool all_cpus;
	const char *cpu_list, *pid_list, *tid_list;
	char **cmd;
	bool per_cpu;			/* -a or -C */
	bool no_buildid_cache;		/* -N: no ~/.debug at the end */
	bool objects, objects_all;	/* --objects[=all|BYTES] */
	uint64_t objects_interval;	/* --objects=BYTES; 0: 512 KiB */
	double budget;			/* --budget: a share, 0: none */
	bool recalibrate;		/* --recalibrate */
	/* the costs' cache: $XDG_CACHE_HOME or ~/.cache; "" if neither */
	char cal_cache[4096];
};

/*
 * rec_parse_args - parse record's options into @o (zeroed by the
 * caller) and check they fit together. Returns 0, -1 after printing
 * --help, or REC_EXIT_USAGE after tool_err("record", ).
 */
int rec_parse_args(struct rec_opts *o, int argc, char **argv);

/* ---- what the user sees (tools/record-print.c) ------------------------ */

/*
 * rec_status_line - the terminal's status line: elapsed time since @t0,
 * samples, their rate since *@last_t, lost, MB written to o->output, and
 * under a budget the estimated overhead and each event's period range
 */
void rec_status_line(struct pebs_recorder *r, const struct rec_opts *o,
		     uint64_t t0, uint64_t now, uint64_t *last_t,
		     uint64_t *last_n);
/*
 * rec_summary - perf record's end summary and record's own lines
 * (samples, lost, throttles, the attribution used and its agreement,
 * how the command ended; @stopped: by record's signal; the module's
 * switch history; the objects; the budget: its estimate, each event's
 * period range and cost per sample, and per event for an event
 * counted per occurrence)
 */
void rec_summary(struct pebs_recorder *r, const struct rec_opts *o,
		 bool stopped);
/*
 * rec_budget_floor - with --budget, one line when no period meets the
 * budget: the events whose period could move, the least they cost
 * (pebs_budget__floor: counting each event, and the minimum rate), and
 * the duty cycle that met it, or that it could not be met even at the
 * least duty (also with -q)
 */
void rec_budget_floor(struct pebs_recorder *r, const struct rec_opts *o);
/* -v: a sample whose history entry names another thread, or none */
void rec_print_mismatch(void *ctx, uint32_t cpu, uint64_t time,
			const struct pebs_attrib_who *sample,
			const struct pebs_attrib_who *found);
/* -v: each event as opened, and the channels */
void rec_print_events(struct pebs_recorder *r, bool per_cpu);

/*
 * rec_print_attr - @a as perf record -vv prints an attr before opening it
 * (tools/record-attr.c): perf's field names and order, non-zero fields.
 */
void rec_print_attr(FILE *f, const struct perf_event_attr *a);

/* ---- the command (tools/cmd-record.c) --------------------------------- */

/*
 * The command line stored in the recording: @argv as typed after
 * "pebs-shim" ("record ...", or "mem record ..." and "c2c record ...",
 * tools/mem-record.c).
 */
struct rec_line {
	int argc;
	char **argv;
};

/*
 * rec_main - pebs-shim record with @argv ("record" and its options),
 * storing @line as the command line. Returns the exit status.
 */
int rec_main(int argc, char **argv, const struct rec_line *line);

#endif /* PEBS_SHIM_RECORD_H */
