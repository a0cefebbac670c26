/* SPDX-License-Identifier: MIT */
/*
 * record-int.h - the recorder's parts (lib/record/): record.c (its life),
 * record-setup.c (events, targets, attribution, channels),
 * record-session.c (the callbacks while it runs), record-out.c (the
 * perf.data or CSV output), record-objects.c (--objects' ring),
 * record-budget.c (--budget), record-calibrate.c (its costs),
 * record-duty.c (its duty cycle), record-reopen.c (its closed events).
 * Not installed.
 */
#ifndef PEBSSHIM_RECORD_INT_H
#define PEBSSHIM_RECORD_INT_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pebsshim/record.h"
#include "pebsshim/perfdata.h"
#include "pebsshim/symbols.h"
#include "record/objects-proto.h"
#include "core/internal.h"

struct rec_out;
struct rec_objects;
struct rusage;

/* --budget's duty cycle (record-budget.c) */
struct rec_duty {
	bool off;			/* the events disabled now */
	uint64_t win_start, win_end;	/* this cycle's window, */
	uint64_t head_end;		/* and what wraps to its start */
	uint64_t win;			/* the window's length */
	uint64_t cycle_end;		/* 0: no cycle (always on) */
	uint64_t off_since;		/* when last disabled */
	uint64_t off_ns;		/* off in this interval so far */
	uint64_t off_total, t0;		/* off in all, since the start */
	uint64_t end;			/* stopped; 0: not yet */
	uint64_t windows;		/* cycles planned */
	unsigned int seed;		/* the windows' starts */
	double toggle_ns[2];		/* the recorder's CPU to close, to
					   open the events (an average) */
	double weight;			/* this cycle's samples' (1: none) */
	double carry[PEBS_RECORDER_MAX_EVENTS];	/* the periods' rounding */
	/* the periods written: this cycle's window's, the sum of their
	   squares over the cycles, and every sample's (a share's error) */
	double win_sum, sq_sum, all_sum;
	uint64_t marks;			/* PEBS_CYCLE_EVENT's samples written */
};

/* a sampled channel as opened at the start: its id is in the file */
struct rec_orig {
	uint64_t id;
	int cpu;
	pid_t pid;
	unsigned int ev;
};

/* reopened channels' ids -> the file's (record-reopen.c) */
struct rec_alias_tab {
	uint64_t *kv;			/* { id, file id } pairs, id 0 free */
	unsigned int mask, n;
};
#define REC_ALIAS_MAX	(64u << 10)	/* a perf record is at most 64 KiB */

/* --budget (record-budget.c) */
struct rec_budget {
	struct pebs_budget *b;		/* NULL: no budget */
	double cost[PEBS_RECORDER_MAX_EVENTS];	/* kernel ns per sample */
	bool proxy[PEBS_RECORDER_MAX_EVENTS];	/* cost of another event's */
	double event_cost[PEBS_RECORDER_MAX_EVENTS];	/* ns per event */
	bool event_proxy[PEBS_RECORDER_MAX_EVENTS];	/* page-faults' */
	double off_cost[PEBS_RECORDER_MAX_EVENTS];	/* ns per event, off */
	uint64_t period[PEBS_RECORDER_MAX_EVENTS];	/* as set */
	bool freq[PEBS_RECORDER_MAX_EVENTS];	/* a software event: freq mode */
	double max_rate;			/* samples/s of a channel */
	/* this interval's samples, their periods' sum (and a slot for the
	   tracking event, which never samples) */
	uint64_t samples[PEBS_RECORDER_MAX_EVENTS + 1];
	uint64_t events[PEBS_RECORDER_MAX_EVENTS + 1];
	uint64_t count[PEBS_RECORDER_MAX_EVENTS];	/* counters, last read */
	uint64_t t_last, self_last, cpu_last;	/* at its start */
	uint64_t sw_last;			/* context switches */
	uint64_t iv_off;	/* the last interval's off time, ns */
	/* events per ns while enabled, the last interval that had any */
	double on_rate[PEBS_RECORDER_MAX_EVENTS];
	uint64_t end_cpu;	/* the command's CPU ns when reaped, 0: not */
	int cpu_fd;		/* the command's task-clock counter + 1, 0:
				   none (its CPU time from /proc then) */
	int sw_fd;		/* its context-switches counter + 1, 0:
				   none (each thread's from /proc then) */
	struct core_switches sw_seen;	/* -p/-t's threads' (/proc) */
	/* the periods the samples carried, per event (0, 0: none) */
	uint64_t carried_min[PEBS_RECORDER_MAX_EVENTS + 1];
	uint64_t carried_max[PEBS_RECORDER_MAX_EVENTS + 1];
	double switch_cost;			/* ns per switch */
	struct rec_duty duty;
	/* the off windows close the events (record-reopen.c) */
	bool closes;
	uint64_t closed[PEBS_RECORDER_MAX_EVENTS];	/* closed channels'
							   counts */
	struct rec_orig *orig;		/* the start's sampled channels */
	unsigned int nr_orig;
	struct rec_alias_tab alias[2];	/* this window's, the one before */
	void *patch;			/* a record with its id replaced */
	void *with_period;		/* a sample with its period added */
	/* the file's layouts of each event's samples */
	struct pebs_sample_layout layout[PEBS_RECORDER_MAX_EVENTS];
	bool reopen_due;		/* a period changed: open again */
	/* the calibration (record-calibrate.c) */
	uint64_t cal_ns;		/* measuring, wall ns */
	bool cal_measured;		/* a cost was measured now */
	int64_t cal_cached_at;		/* the oldest cached one's time */
	char cal_note[192];		/* why a measurement was not cached */
};

/* the recorder's thread's CPUs (record-place.c) */
struct rec_place {
	cpu_set_t allowed;		/* its affinity at the start */
	struct pebs_ids cpus;		/* the same as ids */
	uint64_t at_ns;			/* the last look (0: none yet) */
	int64_t busy;			/* their busy ticks then */
	uint64_t own_ns;		/* the recorder's CPU time then */
	bool narrowed;			/* off the CPU it was on */
	bool off;			/* one CPU, or no /proc/stat */
};

struct pebs_recorder {
	struct pebs_recorder_opts o;
	bool per_cpu;			/* all_cpus or cpus */
	unsigned int nr_evs;

	/* setup: the events, then with @tracking the tracking event */
	struct pebs_event evs[PEBS_RECORDER_MAX_EVENTS + 1];
	struct perf_event_attr attrs[PEBS_RECORDER_MAX_EVENTS + 1];
	bool tracking;			/* evs[nr_evs]: --budget's dummy */
	struct pebs_channel_opts copts;	/* the channels' options */
	enum pebs_recorder_attr attr;	/* TID, MAP or BOTH */
	bool switch_baseline;		/* no module: SWITCH_CPU_WIDE */
	bool prepared, opened, closed;
	struct pebs_map *map;
	struct pebs_attrib *attrib;
	struct pebs_switchrec *swrec;	/* the history into the file */
	struct rec_out *out;
	struct rec_objects *objs;	/* objects, or NULL */
	struct pebs_chanset *set;
	struct pebs_workload child;
	bool child_running;
	struct pebs_ids targets;	/* CPUs, or pids/tids to open */
	struct pebs_ids procs;		/* pids' processes, to see them end */
	struct pebs_ids gone;		/* targets whose LOST_SAMPLES went out */
	unsigned int targets_left;

	/* channel -> event index cache */
	const struct pebs_channel *last_ch;
	unsigned int last_ev;

	struct rec_budget bud;
	struct rec_place place;

	/* counts */
	struct pebs_recorder_stats st;
	uint64_t csv_rows;
	uint64_t lost_ring;		/* the rings' own count */
	uint64_t lost_kernel;		/* in the LOST_SAMPLES written */
	int write_err;			/* the output's, from emit() */
	int err;			/* the first error while running */
};

/*
 * rec_err - core_err with a message that may quote pebs_errmsg() (it is
 * formatted apart first). Returns @err.
 */
int rec_err(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- setup (record-setup.c) ---------------------------------------- */

/* every event string into r->evs with record's periods and settings */
int rec_parse_events(struct pebs_recorder *r);
/* the CPUs, or the pids' threads, or the tids, into r->targets */
int rec_parse_targets(struct pebs_recorder *r);
/* rec_sample_type - what a sample of @ev carries */
uint64_t rec_sample_type(const struct pebs_recorder *r,
			 const struct pebs_event *ev);
/* the attribution and its engine */
int rec_choose_attr(struct pebs_recorder *r);
/* the channels' options (r->copts) and ring size */
void rec_channel_opts(struct pebs_recorder *r);
unsigned int rec_ring_pages(const struct pebs_recorder *r);
/* the channel set, the command forked, every target added */
int rec_open_channels(struct pebs_recorder *r);
/* the running processes (CPUs: all; pids/tids: theirs) described */
int rec_synth_procs(struct pebs_recorder *r);

/* ---- while it runs (record-session.c) ------------------------------ */

/*
 * rec_ev_of - the index in r->evs of @ch's event (cached per channel):
 * r->nr_evs for the tracking event's
 */
unsigned int rec_ev_of(struct pebs_recorder *r, const struct pebs_channel *ch);
/* the channel set's callbacks: samples and records to the output */
extern const struct pebs_chanset_cbs rec_chanset_cbs;
/*
 * rec_count_lost - st.lost: the kernel's per-event count (what
 * LOST_SAMPLES says, and perf's Total Lost Samples) also holds the
 * samples whose LOST record was still pending when the ring went away;
 * the larger of the two
 */
void rec_count_lost(struct pebs_recorder *r);
/* the LOST_SAMPLES of @target's channels (-1: of every channel left) */
int rec_write_lost_of(struct pebs_recorder *r, int target);
/* the module's switch history into the file from now on (CPUs, perf) */
int rec_start_switchrec(struct pebs_recorder *r);
/* held samples, the switch history, the objects, then FINISHED_ROUND */
int rec_end_round(struct pebs_recorder *r);
/* what the rings hold read (pebs_chanset__drain), then rec_end_round */
int rec_drain_round(struct pebs_recorder *r);

/* ---- the budget (record-budget.c) --------------------------------- */

/*
 * the tracking event with --budget (evs[nr_evs], r->tracking; in
 * record-setup.c): a software dummy carrying the side-band records,
 * never disabled by the duty cycle
 */
int rec_budget_track(struct pebs_recorder *r);
/* the events the channel set opens: nr_evs, and the tracking event */
static inline unsigned int rec_nr_open(const struct pebs_recorder *r)
{
	return r->nr_evs + r->tracking;
}

/*
 * each event's cost per sample measured, the controller made, and each
 * event's first period (a clock's from the model: it counts one event
 * per ns of CPU, so its rate is known before it runs)
 */
int rec_budget_calibrate(struct pebs_recorder *r);
/* the periods as opened given to the controller; the interval starts */
int rec_budget_start(struct pebs_recorder *r);
/* an interval over: fed to the controller, its periods applied */
int rec_budget_tick(struct pebs_recorder *r);
/* the recording over: its last, partial interval into the totals */
int rec_budget_final(struct pebs_recorder *r);
/* what the budget holds open closed (pebs_recorder__delete) */
void rec_budget_close(struct pebs_recorder *r);
/* the command reaped with @ru: its CPU time for the last interval */
void rec_budget_reaped(struct pebs_recorder *r, const struct rusage *ru);

/* ---- the costs, measured or cached (record-calibrate.c) ------------- */

/* what makes a machine's costs its own (rec_cal_key) */
struct rec_cal_machine {
	char boot_id[40];		/* /proc/sys/kernel/random/boot_id */
	char release[65];		/* uname -r */
	char model[128];		/* /proc/cpuinfo's first model name */
	uint64_t flags;			/* a hash of its first flags line */
	unsigned int nr_cpus;		/* online */
};

/* a cached measurement: its time (unix s) and its two values */
struct rec_cal_entry {
	int64_t when;
	double v[2];
};

/* @m from the texts of /proc (@boot_id's first line; @cpuinfo whole) */
void rec_cal_machine_parse(struct rec_cal_machine *m, const char *boot_id,
			   const char *release, const char *cpuinfo,
			   unsigned int nr_cpus);
/* the cache's key of @a sampling @sample_type measured by @method on @m */
uint64_t rec_cal_key(const struct rec_cal_machine *m, const char *method,
		     const struct perf_event_attr *a, uint64_t sample_type);
/* the newest entry of @key in the cache file @path; 0 or -ENOENT */
int rec_cal_lookup(const char *path, uint64_t key, struct rec_cal_entry *e);
/* ... in the cache file's text @text (each line at most REC_CAL_LINE) */
int rec_cal_find(const char *text, uint64_t key, struct rec_cal_entry *e);
/*
 * rec_cal_compose - the file to write into @out (REC_CAL_FILE_MAX
 * bytes): a comment, the well-formed lines of @text of other keys (the
 * newest REC_CAL_LINES - 1), then @e as @key's line; returns its length
 */
#define REC_CAL_LINES		128
#define REC_CAL_LINE		128
#define REC_CAL_FILE_MAX	((REC_CAL_LINES + 1) * REC_CAL_LINE)
size_t rec_cal_compose(const char *text, uint64_t key,
		       const struct rec_cal_entry *e, char *out);
/* @e as @key's entry of @path, rewritten atomically (0600); 0 or -errno */
int rec_cal_store(const char *path, uint64_t key,
		  const struct rec_cal_entry *e);
/*
 * rec_cal_swevent - event @i, counted per occurrence: its costs per
 * event, per sample and per event while disabled (page-faults' @pf,
 * { 0 } until measured, when it does not fire in page faults); rec_cal_event - another event's cost
 * per sample (cpu-clock's @clk, 0 until measured, when it does not count
 * in a spin loop). Both from the cache when it has them.
 */
int rec_cal_swevent(struct pebs_recorder *r, unsigned int i, double pf[3]);
int rec_cal_event(struct pebs_recorder *r, unsigned int i, double *clk);
/* what a context switch of a task with the tracking event enabled costs */
int rec_cal_switch(struct pebs_recorder *r);

/* ---- the duty cycle (record-budget.c) ------------------------------ */

/* always on, no cycle yet; the time starts */
void rec_duty_begin(struct pebs_recorder *r, uint64_t now);
/* the events on or off as the cycle at pebs_budget__duty says */
int rec_duty_step(struct pebs_recorder *r, uint64_t now);
/*
 * a sample of event @ev read in a window of the duty cycle: its period
 * (in @s and in *@raw, then a copy) multiplied by the window's weight,
 * the inverse of the chance it covers an instant of its cycle; 0, or
 * -EBADMSG, -ENOMEM
 */
int rec_duty_weigh(struct pebs_recorder *r, unsigned int ev,
		   struct pebs_sample *s, const struct perf_event_header **raw);
/* @timeout_ms shortened to the next toggle (-1: none) */
int rec_duty_timeout(const struct pebs_recorder *r, int timeout_ms);
/* the events' off time since the last call (an interval's) */
uint64_t rec_duty_off_ns(struct pebs_recorder *r, uint64_t now);
/* the events stopped: the share enabled so far is final */
void rec_duty_stop(struct pebs_recorder *r);
/* after the last drain: the header's note of the share, the windows and
   a share's sampling error at worst, if there was a cycle */
int rec_duty_meta(struct pebs_recorder *r);
/* the PEBS_CYCLE_EVENT's attr, with the clock and sample_id_all of
   @like: the cycles' starts, for the rows' sampling errors */
int rec_duty_attr(struct pebs_perfdata_writer *w,
		  const struct perf_event_attr *like);

/* ---- the off windows' closed events (record-reopen.c) --------------- */

/* whether the off windows close the events (bud.closes), the start's
   channels noted */
int rec_reopen_init(struct pebs_recorder *r);
/* the events opened on what is sampled now, at their periods, enabled */
int rec_reopen_open(struct pebs_recorder *r);
/* the events stopped, their records written, their counts kept, closed */
int rec_reopen_close(struct pebs_recorder *r);
void rec_reopen_free(struct pebs_recorder *r);
/* @ev (of a channel of @attr) as the file knows it: a reopened
   channel's id replaced by the start's (a copy), else @ev */
const struct perf_event_header *rec_alias(struct pebs_recorder *r,
					  const struct perf_event_attr *attr,
					  const struct perf_event_header *ev);
/* where PERF_SAMPLE_PERIOD sits in a sample of @sample_type, bytes from
   its header's start */
size_t rec_period_at(uint64_t sample_type);
/*
 * a sample of a channel opened at a fixed period without
 * PERF_SAMPLE_PERIOD (pebs_chanset__open_event) as the file's attr has
 * it: *@raw a copy with the period added, @s decoded from it; 0 (else
 * unchanged) or -EBADMSG, -ENOMEM
 */
int rec_period_in(struct pebs_recorder *r, unsigned int ev,
		  const struct pebs_channel *ch, struct pebs_sample *s,
		  const struct perf_event_header **raw);
/* @ch's PERF_RECORD_LOST_SAMPLES, if it lost any (record-session.c) */
int rec_write_lost(struct pebs_recorder *r, struct pebs_channel *ch);

/* ---- the output (record-out.c) ------------------------------------- */

struct rec_who {
	int32_t tgid;		/* -1: unknown */
	int32_t tid;
};

struct rec_out_conf {
	enum pebs_recorder_format format;
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
	bool objects;		/* the pebs-shim:alloc/free events */
	bool cycles;		/* the pebs-shim:cycle event (--budget) */
};

/* Check the path (a bad one fails before anything starts). */
int rec_out_open(const struct rec_out_conf *conf, struct rec_out **outp);
/* the opened channels' events and sample ids (the kernel's @attrs) */
int rec_out_start(struct rec_out *out, struct pebs_chanset *set,
		  const struct perf_event_attr *attrs);
int rec_out_cmdline(struct rec_out *out, int argc, const char *const *argv);
/* a software dummy event of @sample_type, sample id @id, named @name,
   with the clock and sample_id_all of @like: record's own events
   (the objects', the duty cycle's) */
int rec_out_dummy(struct pebs_perfdata_writer *w,
		  const struct perf_event_attr *like, uint64_t sample_type,
		  uint64_t id, const char *name);
/* "key=value" in the file's pebs-shim section */
int rec_out_meta(struct rec_out *out, const char *key, const char *value);
/* COMM + MMAP2 records of a process that already runs */
int rec_out_synth_process(struct rec_out *out, pid_t pid);
int rec_out_sample(struct rec_out *out, unsigned int ev_idx,
		   const struct perf_event_attr *attr,
		   const struct pebs_sample *s,
		   const struct perf_event_header *raw,
		   const struct rec_who *who);
int rec_out_record(struct rec_out *out, const struct perf_event_attr *attr,
		   const struct perf_event_header *ev,
		   const struct rec_who *who);
/* a record of time @time written as it is (the objects' samples) */
int rec_out_raw(struct rec_out *out, const struct perf_event_header *ev,
		uint64_t time);
/* a sample read of time @time (every one, as it is read: one held by
   attribution is written later); rec_out_max_time - the newest time
   seen: of those, and, with conf.cycles, of the side-band and raw
   records written */
void rec_out_saw_time(struct rec_out *out, uint64_t time);
uint64_t rec_out_max_time(const struct rec_out *out);
/* the end of one pass over all rings (perf's FINISHED_ROUND) */
int rec_out_round(struct rec_out *out);
/* samples written so far (@csv_rows: the caller's count for CSV) */
uint64_t rec_out_samples(const struct rec_out *out, uint64_t csv_rows);
int rec_out_close(struct rec_out *out);
/* drop a half-written output (error before recording started) */
void rec_out_discard(struct rec_out *out);

/* ---- data objects (record-objects.c) ------------------------------- */

/* the ring and the environment the command inherits */
int rec_objects_prepare(struct pebs_recorder *r);
/* the command runs: drop record's fd of the ring, read it from now on */
void rec_objects_started(struct pebs_recorder *r);
/* what the ring holds, as samples */
int rec_objects_drain(struct pebs_recorder *r);
/* whether there is a ring to read (every rec_objects_wait_ms) */
bool rec_objects_on(const struct pebs_recorder *r);
/* how long to wait before the next read: 1 ms to 16, longer while the
   reads find the ring nearly empty */
int rec_objects_wait_ms(const struct pebs_recorder *r);
/*
 * rec_objects_stop - the last drain: it waits a little for unfinished
 * records, counts those it skips, and tells the producers to stop.
 */
int rec_objects_stop(struct pebs_recorder *r);
/* the largest sample of an object: header, 7 fields, a full stack */
#define REC_OBJ_SAMPLE_MAX	((8 + 2 + PSO_MAX_IPS) * 8)
/*
 * rec_objects_sample - the interposer's record @msg of @len bytes as a
 * sample of pebs-shim:alloc or pebs-shim:free into @buf (@size bytes).
 * Returns its size, 0 for a malformed record.
 */
size_t rec_objects_sample(const void *msg, size_t len, uint64_t *buf,
			  size_t size);
/* the two events, with the clock and sample_id_all of @like */
int rec_objects_attrs(struct pebs_perfdata_writer *w,
		      const struct perf_event_attr *like);
void rec_objects_free(struct pebs_recorder *r);
/* the eventfd the ring's waker writes when a producer asks for a read
   (-1: none), and its reset once woken */
int rec_objects_wake_fd(const struct pebs_recorder *r);
void rec_objects_woken(struct pebs_recorder *r);

/* ---- data objects of a PID namespace (record-objects-ns.c) --------- */

struct rec_objects_ns;
struct pso_rec;
/*
 * rec_objects_ns_fix - @rec's pid and tid, of the PID namespace it names
 * (rec->pidns), as the recorder's namespace numbers them, if its thread
 * is found (a table in *@t, made on the first call; /proc scanned once
 * per namespace and @drain, the count of the ring's drains); 0 or
 * -ENOMEM.
 */
int rec_objects_ns_fix(struct rec_objects_ns **t, struct pso_rec *rec,
		       uint32_t drain);
void rec_objects_ns_free(struct rec_objects_ns *t);

/* ---- the recorder's CPU (record-place.c) -------------------------- */

/* the recorder's own CPU time, all its threads (user + system), ns
   (record-budget.c) */
uint64_t rec_self_ns(void);

/* whether CPUs whose @busy_ticks (the recorder's own left out) over a
   period of @ticks each left less than half a CPU idle */
bool rec_place_all_busy(int64_t busy_ticks, unsigned int ncpus, double ticks);
/* every PLACE_NS: off the CPU it is on while its CPUs are all busy */
void rec_place_tick(struct pebs_recorder *r);
/* its affinity as at the start */
void rec_place_end(struct pebs_recorder *r);

#endif /* PEBSSHIM_RECORD_INT_H */
