/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/record.h - a recording in progress (lib/record/): the
 * channels' rings into a perf.data writer (or CSV rows), the command it
 * launched, the data objects' socket (--objects), and the figures of the
 * status line and the end summary. `pebs-shim record` is a thin command
 * over it: options in, lines out.
 *
 * Included by <pebsshim.h>; may also be included alone.
 */
#ifndef PEBSSHIM_RECORD_H
#define PEBSSHIM_RECORD_H

#include "pebsshim/sampling.h"
#include "pebsshim/attrib.h"
#include "pebsshim/objects.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The recorder (lib/record/)                                         */
/* ------------------------------------------------------------------ */

/* events of one recording, after comma lists and groups are expanded */
#define PEBS_RECORDER_MAX_EVENTS	16
/* per-CPU rings see every task: 1 MiB each unless ring_pages says */
#define PEBS_RECORDER_CPU_RING_PAGES	256
/*
 * a command's or process' ring per CPU: perf's default, 512 KiB (what
 * perf_event_mlock_kb allows an unprivileged user per CPU)
 */
#define PEBS_RECORDER_TASK_RING_PAGES	128
/*
 * The events and inherited threads of a CPU share one ring; threads
 * without inherit (tids, no_inherit) have a ring each: without
 * ring_pages their pages shrink (to 8 at least) to keep all rings
 * within this many pages
 */
#define PEBS_RECORDER_TASK_RING_BUDGET	16384
/* perf's default stack dump of --call-graph dwarf */
#define PEBS_RECORDER_DWARF_STACK	8192

enum pebs_recorder_format {
	PEBS_RECORDER_PERF,	/* perf.data (a file, or perf's pipe on "-") */
	PEBS_RECORDER_CSV,	/* one row per sample, with a header row */
};

/* who a sample belongs to (struct pebs_attrib's modes) */
enum pebs_recorder_attr {
	PEBS_RECORDER_ATTR_AUTO,	/* MAP with CPUs and the module, else TID */
	PEBS_RECORDER_ATTR_TID,		/* the TID in the sample */
	PEBS_RECORDER_ATTR_MAP,		/* /dev/pebs_map's switch history */
	PEBS_RECORDER_ATTR_BOTH,	/* the TID, checked against the map */
};

enum pebs_recorder_callgraph {
	PEBS_RECORDER_CG_NONE,
	PEBS_RECORDER_CG_FP,		/* kernel-walked call chains */
	PEBS_RECORDER_CG_DWARF,		/* user registers and stack */
};

/* pebs_recorder_attr_str - "auto", "tid", "map", "both"; NULL past them */
PEBS_API const char *pebs_recorder_attr_str(enum pebs_recorder_attr a);

/*
 * What to record, perf record's options (pebs-shim record's, see
 * pebs-shim(1)). One target: @cmd, @pids (with their threads and the
 * threads they create), @tids (those threads), @all_cpus or @cpus (a
 * CPU list; a @cmd may then bound the recording).
 */
struct pebs_recorder_opts {
	size_t sz;
	const char *const *events;	/* event strings (perf's -e); */
	unsigned int nr_events;		/* 0: "auto" */
	uint64_t period;		/* -c; 0: each event's default */
	uint64_t freq;			/* -F; 0: a period */
	unsigned int ring_pages;	/* -m; 0: a default for the target */
	const char *output;		/* a path, or "-": standard output */
	enum pebs_recorder_format format;
	enum pebs_recorder_attr attr;
	enum pebs_recorder_callgraph callgraph;
	uint32_t stack_size;		/* dwarf: user stack bytes per sample */
	bool data_addr;			/* -d: PERF_SAMPLE_ADDR on every event */
	bool weight;			/* -W: PERF_SAMPLE_WEIGHT_STRUCT */
	bool phys_data;			/* PERF_SAMPLE_PHYS_ADDR */
	bool data_page_size;		/* PERF_SAMPLE_DATA_PAGE_SIZE */
	bool all_user, all_kernel;	/* every event: user or kernel only */
	bool no_inherit;		/* not the threads created later */
	bool switch_events;		/* the kernel's PERF_RECORD_SWITCH */
	bool no_switch_history;		/* the module's history not in the file */
	bool no_buildid_cache;		/* no ~/.debug at the end */
	bool objects, objects_all;	/* the command's data objects
					   (sampled by bytes, or all) */
	bool all_cpus;			/* every online CPU */
	const char *cpus;		/* a CPU list ("0-3,6") */
	const char *pids, *tids;	/* "PID[,PID-PID...]" */
	char *const *cmd;		/* the command (NULL-terminated) */
	/* the command line stored in the file (perf's HEADER_CMDLINE) */
	int argc;
	const char *const *argv;
	/*
	 * a check of the attribution that failed (BOTH, or the switch
	 * baseline): @found NULL when the history had no entry; may be NULL
	 */
	void (*mismatch)(void *ctx, uint32_t cpu, uint64_t time,
			 const struct pebs_attrib_who *sample,
			 const struct pebs_attrib_who *found);
	void *ctx;
	/*
	 * an overhead budget: the share of the sampled CPU time (0.02 for
	 * 2 %) the estimated cost of sampling stays under (0: none); see
	 * "Overhead budgets" below
	 */
	double budget;
	/*
	 * --budget's costs measured at the start are kept in this file
	 * (NULL: measured every time), per machine and event; with
	 * @recalibrate measured again (and kept) even when it has them
	 */
	const char *cal_cache;
	bool recalibrate;
	/*
	 * @objects: the mean bytes between sampled small allocations, 1 to
	 * PEBS_RECORDER_OBJECTS_MAX (0: 512 KiB, jemalloc's default)
	 */
	uint64_t objects_interval;
};
#define PEBS_RECORDER_OBJECTS_MAX	(1ull << 30)

/* the figures of the status line and the end summary */
struct pebs_recorder_stats {
	uint64_t samples;	/* read from the rings */
	uint64_t written;	/* samples in the output (after __close) */
	uint64_t lost;		/* samples lost (the kernel's count) */
	uint64_t throttles;	/* PERF_RECORD_THROTTLE records */
	uint64_t wakeups;	/* polls that found samples */
	uint64_t obj_allocs;	/* --objects: allocations written, */
	uint64_t obj_frees;	/* releases written, */
	uint64_t obj_bad;	/* malformed records dropped */
	int status;		/* after __stop: the command's exit status
				   (time(1)'s rule, 128+N for signal N) */
	uint32_t obj_lost;	/* --objects: unfinished records skipped
				   (a process died writing one) */
	uint64_t obj_threads;	/* --objects: threads whose stacks came (0:
				   no process ran the interposer) */
};

struct pebs_recorder;

/*
 * pebs_recorder__new - check @opts: the events (perf's grammar, comma
 * lists, groups), the target (CPUs online, pids and tids existing).
 * Nothing opens yet. Returns 0, -EINVAL (a bad event, list or
 * combination), -ESRCH (no such process or thread), -ENOMEM.
 */
PEBS_API int pebs_recorder__new(const struct pebs_recorder_opts *opts,
				struct pebs_recorder **rp);

/*
 * pebs_recorder__prepare - choose the attribution (the module's history
 * when asked, or by AUTO with CPUs), check the output's path (the file
 * appears only once recording runs) and, with objects, prepare the
 * socket and the environment the command inherits (LD_PRELOAD of
 * libpebsshim-objects.so: $PEBS_SHIM_OBJECTS_LIB, beside the program,
 * else the installed one). Returns 0 or -errno.
 */
PEBS_API int pebs_recorder__prepare(struct pebs_recorder *r);

/*
 * pebs_recorder__attr - event @i's attr as it will go to the kernel
 * (after __prepare), or as it was opened (after __open: perf's
 * fallbacks applied), @size bytes of it into @attr (zero past the
 * library's struct). Returns 0, -EINVAL.
 */
PEBS_API int pebs_recorder__attr(const struct pebs_recorder *r,
				 unsigned int i, struct perf_event_attr *attr,
				 size_t size);

/*
 * pebs_recorder__open - open the channels, fork the command (held before
 * its exec), describe the events and the running processes in the
 * output, and enable the events (a command's at its exec). Returns 0
 * or -errno (-ESRCH: the tid or every thread of the pids exited).
 */
PEBS_API int pebs_recorder__open(struct pebs_recorder *r);

/*
 * pebs_recorder__start - let the command exec (nothing without one).
 * Returns 0, -ENOENT (not found), or another -errno (cannot exec).
 */
PEBS_API int pebs_recorder__start(struct pebs_recorder *r);

/*
 * pebs_recorder__poll - wait up to @timeout_ms for a ring to fill, then
 * read every ring into the output and end the round. Returns 0, 1 when
 * the recording is over (the command exited, the processes or threads
 * are gone), or -errno.
 */
PEBS_API int pebs_recorder__poll(struct pebs_recorder *r, int timeout_ms);

/*
 * pebs_recorder__stop - disable the events, end the command if it still
 * runs (SIGTERM), read what is left and write each channel's lost
 * count. @stop_sig: the signal that stopped the recording (0: none),
 * which sets stats' status to 128+@stop_sig. Returns 0 or -errno.
 */
PEBS_API int pebs_recorder__stop(struct pebs_recorder *r, int stop_sig);

/*
 * pebs_recorder__close - finish the output (as perf record, its files
 * into the build-id cache). Returns 0 or -errno.
 */
PEBS_API int pebs_recorder__close(struct pebs_recorder *r);

/* the figures so far; valid until the next call on @r */
PEBS_API const struct pebs_recorder_stats *
pebs_recorder__stats(const struct pebs_recorder *r);

/* the events (as opened, after __open), and how many */
PEBS_API unsigned int pebs_recorder__nr_events(const struct pebs_recorder *r);
PEBS_API const struct pebs_event *
pebs_recorder__event(const struct pebs_recorder *r, unsigned int i);

/*
 * pebs_recorder__attribution - the attribution used (TID, MAP or BOTH
 * after __prepare), and whether the switch records are a baseline
 * (AUTO with CPUs and no module: TID checked against
 * PERF_RECORD_SWITCH_CPU_WIDE).
 */
PEBS_API enum pebs_recorder_attr
pebs_recorder__attribution(const struct pebs_recorder *r, bool *baseline);

/* the attribution engine (thread names, its statistics) */
PEBS_API struct pebs_attrib *pebs_recorder__attrib(struct pebs_recorder *r);
/* the data pages of each ring (after __prepare) */
PEBS_API unsigned int pebs_recorder__ring_pages(const struct pebs_recorder *r);
/* the channel set (after __open) */
PEBS_API struct pebs_chanset *pebs_recorder__chanset(struct pebs_recorder *r);
/* the module's switch history written into the file, or NULL */
PEBS_API const struct pebs_switchrec_stats *
pebs_recorder__switchrec_stats(const struct pebs_recorder *r);

/*
 * Overhead budgets (opts.budget): __open measures what one sample of
 * each event costs here (pebs_budget__calibrate with cpu-clock's
 * periods 20 us and 2 ms; an event that does not count in a spin loop
 * takes cpu-clock's cost) and makes a
 * pebs_budget controller with one channel per event: floor the period
 * opts.period (-c), maximum rate opts.freq (-F) and half the kernel's
 * perf_event_max_sample_rate (so that it never throttles), ceiling the
 * period that keeps PEBS_BUDGET_MIN_RATE samples per second of the
 * event. The events are then opened with a period (not a frequency)
 * and PERF_SAMPLE_PERIOD. Every 200 ms __poll feeds it the interval's
 * samples of each event, the CPU time of what is sampled (the command
 * with its reaped children, the pids' processes or the tids' threads
 * from /proc/PID/stat; the CPUs' busy time from /proc/stat) and the
 * recorder's own (getrusage), and applies the periods it returns to
 * every channel of the event (PERF_EVENT_IOC_PERIOD; an event that
 * refuses keeps its period and is reported fixed to the controller).
 *
 * An event the kernel counts in software (page faults, tracepoints, but
 * not the clocks) costs at each occurrence, sampled or not: its costs
 * per event and per sample are measured in a page-fault loop
 * (pebs_budget__calibrate_faults; an event that does not fire there
 * takes page-faults'), and the controller keeps the minimum rate when
 * counting alone exceeds the budget (pebs_budget__floor).
 *
 * pebs_recorder__budget - the controller (its stats per event, its
 * estimate), NULL without a budget; pebs_recorder__sample_cost - event
 * @i's measured cost per sample in ns (*@proxy: another event's:
 * page-faults' when pebs_recorder__event_cost's proxy is, else
 * cpu-clock's), 0 without a budget; pebs_recorder__event_cost - what
 * each event of @i costs, sampled or not, in ns (*@proxy:
 * page-faults'), 0 for the clocks, hardware events and without a
 * budget.
 */
PEBS_API const struct pebs_budget *
pebs_recorder__budget(const struct pebs_recorder *r);
PEBS_API double pebs_recorder__sample_cost(const struct pebs_recorder *r,
					   unsigned int i, bool *proxy);
PEBS_API double pebs_recorder__event_cost(const struct pebs_recorder *r,
					  unsigned int i, bool *proxy);

/*
 * pebs_recorder__duty - the share of the recording's time so far the
 * events were enabled (the duty cycle, pebs_budget__duty: when counting
 * them alone costs more than the budget they are enabled in windows,
 * one per cycle of 25 ms at a random place in it; a cycle is longer
 * when opening and closing the events would take more than a quarter
 * of the budget or a window would be under 2 ms, at most 1 s: the least
 * duty is PEBS_RECORDER_MIN_DUTY), 1 without a budget; with @windows,
 * the number of cycles run
 */
#define PEBS_RECORDER_MIN_DUTY	0.002
PEBS_API double pebs_recorder__duty(const struct pebs_recorder *r,
				    uint64_t *windows);

/*
 * pebs_recorder__calibration - where the budget's costs came from:
 * NONE without a budget; CACHED, all from opts.cal_cache (*@when: the
 * oldest one's measurement, unix seconds); MEASURED now (*@ns: how long
 * measuring took, wall ns) and kept in the cache; UNCACHED, measured and
 * not kept (*@why: the reason: no cache given, no boot id to tell the
 * machine apart, or the file's error). @when, @ns, @why may be NULL.
 */
enum pebs_recorder_cal {
	PEBS_RECORDER_CAL_NONE,
	PEBS_RECORDER_CAL_CACHED,
	PEBS_RECORDER_CAL_MEASURED,
	PEBS_RECORDER_CAL_UNCACHED,
};
PEBS_API enum pebs_recorder_cal
pebs_recorder__calibration(const struct pebs_recorder *r, int64_t *when,
			   uint64_t *ns, const char **why);

/*
 * pebs_recorder__off_cost - what each event of @i costs while it is
 * disabled (pebs_budget__calibrate_off: page-faults' when
 * pebs_recorder__event_cost's proxy is), in ns; 0 for the clocks,
 * hardware events and without a budget
 */
PEBS_API double pebs_recorder__off_cost(const struct pebs_recorder *r,
					unsigned int i);

/*
 * pebs_recorder__switch_cost - what a context switch of a sampled task
 * costs with the tracking event enabled (pebs_budget__calibrate_switch
 * with the dummy), in ns; 0 without a budget
 */
PEBS_API double pebs_recorder__switch_cost(const struct pebs_recorder *r);

/*
 * The budget's controller interval: the recorder feeds it every 200 ms
 * of the recording (pebs_recorder__poll), then the rest at the stop
 * (pebs_recorder__stop: a final interval, counted in the totals only,
 * pebs_budget__totals). Its first decision comes at the end of its
 * first interval with samples: until then the events run at their
 * starting periods.
 */
#define PEBS_RECORDER_BUDGET_INTERVAL_NS	200000000ull

/*
 * pebs_recorder__carried - the smallest and largest period the samples
 * of event @i carried (0, 0: none, or without a budget); true when @i
 * runs in freq mode under the budget (an event counted per occurrence):
 * its periods are then the kernel's (the event rate over the frequency,
 * from 1 at its start), not those the controller aimed at
 * (pebs_budget__stats), until the events are opened again
 * (pebs_recorder__closes): then the fixed periods set
 */
PEBS_API bool pebs_recorder__carried(const struct pebs_recorder *r,
				     unsigned int i, uint64_t *min,
				     uint64_t *max);

/*
 * pebs_recorder__closes - whether the duty cycle's off windows close the
 * sampled events (and each window opens them again on every thread of
 * what is sampled, at the periods set last), so that they cost nothing
 * there: pebs_recorder__off_cost is then what they would have cost
 * disabled, and the controller counts 0. True under a budget (event
 * groups included: a leader opens before its members).
 */
PEBS_API bool pebs_recorder__closes(const struct pebs_recorder *r);

/*
 * pebs_recorder__delete - free; a recorder not closed discards its
 * output (the disk as it was) and ends a command never started. NULL
 * is ok.
 */
PEBS_API void pebs_recorder__delete(struct pebs_recorder *r);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_RECORD_H */
