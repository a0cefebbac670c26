/* SPDX-License-Identifier: MIT */
/*
 * record.h - the parts of `pebs-shim record`: tools/record-target.c
 * (targets), tools/record-out.c (outputs), tools/record-session.c (the
 * callbacks while it runs), used by tools/cmd-record.c and by nothing
 * else; attribution is the library's
 * (pebs_attrib, lib/attrib/attrib.c).
 */
#ifndef PEBS_SHIM_RECORD_H
#define PEBS_SHIM_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pebsshim.h"
#include "util.h"

#define REC_MAX_EVENTS	16

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

/* --call-graph: none, fp (-g) or dwarf (user registers and stack) */
enum rec_callgraph { REC_CG_NONE, REC_CG_FP, REC_CG_DWARF };
/* perf's default stack dump of --call-graph dwarf */
#define REC_DWARF_STACK		8192

/*
 * Error line on stderr: "pebs-shim record: <cause>: <what to do>"
 * (tools/record-target.c).
 */

/* ---- targets (tools/record-target.c) ---------------------------------- */

/*
 * rec_parse_cpus - parse a CPU list ("0-3,6") and check every CPU is
 * online. Returns 0, or -EINVAL after tool_err("record", ).
 */
int rec_parse_cpus(const char *str, struct pebs_ids *cpus);

/* rec_online_cpus - every online CPU. Returns 0 or -errno (tool_err). */
int rec_online_cpus(struct pebs_ids *cpus);

/*
 * rec_parse_pids - parse "PID[,PID...]" and check each exists. With
 * @threads, append every thread of each process (/proc/PID/task) to
 * @out; otherwise append the ids as given. Returns 0 or -errno (tool_err).
 */
int rec_parse_pids(const char *str, bool threads, struct pebs_ids *out,
		   struct pebs_ids *procs);


/* ---- attribution (lib/attrib/attrib.c) ---------------------------------------- */

/* Who a sample belongs to (as struct pebs_attrib_who). */
struct rec_who {
	int32_t tgid;		/* -1: unknown */
	int32_t tid;
};

/* ---- outputs (tools/record-out.c) ------------------------------------- */

enum rec_format { REC_FMT_PERF, REC_FMT_CSV };

struct rec_out;

struct rec_out_conf {
	enum rec_format format;
	const char *path;
	const struct pebs_event *evs;
	unsigned int nr_evs;
	/*
	 * the perf.data attr gets PERF_SAMPLE_TID although the kernel's
	 * records lack it: every record is re-encoded with the TID that
	 * attribution found
	 */
	bool add_tid;
	struct pebs_attrib *comms;	/* thread names (pebs_attrib__comm) */
	bool buildid_cache;	/* files and vdso into perf's ~/.debug */
	bool objects;		/* --objects: the pebs-shim:alloc/free events */
};

/* Create the file (so that a bad path fails before anything starts). */
int rec_out_open(const struct rec_out_conf *conf, struct rec_out **outp);
/*
 * rec_out_start - describe the opened channels (the event of each and
 * its sample ids) once they exist; @set gives the channels.
 */
int rec_out_start(struct rec_out *out, struct pebs_chanset *set,
		  const struct perf_event_attr *attrs);
/* the command line stored in the perf.data header */
int rec_out_cmdline(struct rec_out *out, int argc, const char *const *argv);
/* rec_out_meta - "key=value" in the file's pebs-shim section; 0 or -errno */
int rec_out_meta(struct rec_out *out, const char *key, const char *value);
/* synthesize COMM + MMAP2 records of a process that already runs */
int rec_out_synth_process(struct rec_out *out, pid_t pid);
int rec_out_sample(struct rec_out *out, unsigned int ev_idx,
		   const struct perf_event_attr *attr,
		   const struct pebs_sample *s,
		   const struct perf_event_header *raw,
		   const struct rec_who *who);
int rec_out_record(struct rec_out *out, const struct perf_event_attr *attr,
		   const struct perf_event_header *ev,
		   const struct rec_who *who);
/* a record written as it is (the --objects samples) */
int rec_out_raw(struct rec_out *out, const struct perf_event_header *ev);
/* the end of one pass over all rings (perf's FINISHED_ROUND) */
int rec_out_round(struct rec_out *out);
/* samples written so far (@csv_rows: the caller's count for CSV) */
uint64_t rec_out_samples(const struct rec_out *out, uint64_t csv_rows);
/* finish the file; returns 0 or -errno (tool_err) */
int rec_out_close(struct rec_out *out);
/* drop a half-written output (error before recording started) */
void rec_out_discard(struct rec_out *out);



/* ---- options (tools/record-opts.c) ------------------------------------ */

/* per-CPU rings see every task: 1 MiB each unless -m says otherwise */
#define REC_CPU_RING_PAGES	256
/*
 * a command's or process' ring per CPU: perf's default, 512 KiB (what
 * perf_event_mlock_kb allows an unprivileged user per CPU)
 */
#define REC_TASK_RING_PAGES	128
/*
 * The events and inherited threads of a CPU share one ring; threads
 * without inherit (-t, -p -i) have a ring each: without -m their pages
 * shrink (to 8 at least) to keep all rings within this many pages
 */
#define REC_TASK_RING_BUDGET	16384

enum rec_attr_mode { REC_ATTR_AUTO, REC_ATTR_TID, REC_ATTR_MAP,
		     REC_ATTR_BOTH };
/* "auto", "tid", "map", "both" */
extern const char *const rec_attr_names[];

struct rec_opts {
	const char *evstrs[REC_MAX_EVENTS];
	unsigned int nr_evs;
	uint64_t period, freq;
	unsigned int pages;
	const char *output;
	enum rec_format format;
	double duration;
	enum rec_attr_mode attr_req;
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
	enum rec_callgraph callgraph;
	uint32_t stack_size;		/* --call-graph dwarf,SIZE */
	bool all_cpus;
	const char *cpu_list, *pid_list, *tid_list;
	char **cmd;
	bool per_cpu;			/* -a or -C */
	bool no_buildid_cache;		/* -N: no ~/.debug at the end */
	bool objects, objects_all;	/* --objects[=all] */
};

/*
 * rec_parse_args - parse record's options into @o (zeroed by the
 * caller) and check they fit together. Returns 0, -1 after printing
 * --help, or REC_EXIT_USAGE after tool_err("record", ).
 */
int rec_parse_args(struct rec_opts *o, int argc, char **argv);

/* ---- events (tools/record-events.c) ---------------------------------- */

/*
 * rec_parse_events - every -e of @o (comma lists, groups) into
 * @evs (REC_MAX_EVENTS), with record's periods and callchain settings;
 * o->nr_evs becomes the number of events. Returns 0 or -EINVAL (tool_err).
 */
int rec_parse_events(struct rec_opts *o, struct pebs_event *evs);

/* rec_sample_type - what a sample of @ev carries under @o and @attr */
uint64_t rec_sample_type(const struct rec_opts *o, enum rec_attr_mode attr,
			 const struct pebs_event *ev);

/*
 * What the user sees (tools/record-out.c): rec_status_line - the
 * terminal's status line (elapsed, samples, rate, lost, MB written of
 * @path); rec_summary - perf record's end summary and record's own line
 * (samples, lost, throttles, the attribution used and its agreement,
 * how the command ended; @stopped: by record's signal).
 */
struct rec_counts {
	uint64_t written, lost, throttles, wakeups;
};
void rec_status_line(const char *path, uint64_t samples, uint64_t lost,
		     uint64_t t0, uint64_t now, uint64_t *last_t,
		     uint64_t *last_n);
void rec_summary(const char *path, const struct rec_counts *c,
		 enum rec_attr_mode attr, bool switch_baseline,
		 const struct pebs_attrib_stats *st, int child_status,
		 bool stopped);

/*
 * rec_print_attr - @a as perf record -vv prints an attr before opening it
 * (tools/record-attr.c): perf's field names and order, non-zero fields.
 */
void rec_print_attr(FILE *f, const struct perf_event_attr *a);

/* ---- the recorder (tools/cmd-record.c, tools/record-session.c) -------- */

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

/* The state of one `pebs-shim record` run. */
struct record {
	struct rec_opts o;

	/* setup */
	struct pebs_event evs[REC_MAX_EVENTS];
	struct perf_event_attr attrs[REC_MAX_EVENTS];
	enum rec_attr_mode attr;	/* TID, MAP or BOTH */
	bool switch_baseline;		/* no module: SWITCH_CPU_WIDE */
	struct pebs_map *map;
	struct pebs_attrib *attrib;
	struct pebs_switchrec *swrec;	/* the history into the file */
	struct rec_out *out;
	struct rec_objects *objs;	/* --objects, or NULL */
	struct pebs_chanset *set;
	struct pebs_workload child;
	struct pebs_ids targets;	/* CPUs, or pids/tids to open */
	struct pebs_ids procs;		/* -p processes, to see them end */
	struct pebs_ids gone;		/* targets whose LOST_SAMPLES went out */
	unsigned int targets_left;

	/* channel -> event index cache */
	const struct pebs_channel *last_ch;
	unsigned int last_ev;

	/* counts */
	uint64_t samples, csv_rows, written, lost, throttles;
	uint64_t lost_kernel;		/* in the LOST_SAMPLES written */
	uint64_t wakeups;		/* polls that found samples */
	int write_err;			/* the output's, from emit() */
	int err;
};

/* rec_ev_of - the index in rec->evs of @ch's event (cached per channel) */
unsigned int rec_ev_of(struct record *rec, const struct pebs_channel *ch);
/* the channel set's callbacks: samples and records to the output */
extern const struct pebs_chanset_cbs rec_chanset_cbs;
/*
 * rec_write_lost_of - the PERF_RECORD_LOST_SAMPLES of @target's channels
 * (-1: of every channel not written yet), before they go. 0 or -errno.
 */
int rec_write_lost_of(struct record *rec, int target);
/*
 * rec_start_switchrec - the module's switch history into the file from
 * now on (-a/-C, perf.data, with the module; else nothing). 0 or -errno
 * (said with tool_err).
 */
int rec_start_switchrec(struct record *rec);
/*
 * rec_end_round - the end of a pass over the rings: held samples and the
 * switch history out, then the round's FINISHED_ROUND. 0 or -errno (said).
 */
int rec_end_round(struct record *rec);

/* ---- data objects (tools/record-objects.c) ---------------------------- */

struct rec_objects;
/*
 * rec_objects_prepare - with --objects, the pipe and the environment
 * (LD_PRELOAD, the fd) the command inherits; before it is forked.
 * 0 or -errno (said with tool_err).
 */
int rec_objects_prepare(struct record *rec);
/* rec_objects_started - the command runs: drop record's write end */
void rec_objects_started(struct record *rec);
/* rec_objects_drain - what the pipe holds, as samples. 0 or -errno. */
int rec_objects_drain(struct record *rec);
/* rec_objects_attrs - the pebs-shim:alloc and pebs-shim:free events, with
   the clock and sample_id_all of @like. 0 or -errno. */
int rec_objects_attrs(struct pebs_perfdata_writer *w,
		      const struct perf_event_attr *like);
void rec_objects_summary(const struct record *rec);
void rec_objects_free(struct record *rec);

#endif /* PEBS_SHIM_RECORD_H */
