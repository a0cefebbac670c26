/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/observe.h - libpebsshim: the Shim-style observer, its
 * summaries and its raw file.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_OBSERVE_H
#define PEBSSHIM_OBSERVE_H

#include <stdio.h>

#include "pebsshim/map.h"
#include "pebsshim/event.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Observer (lib/observe/observer.c, lib/observe/obs-stats.c)         */
/* ------------------------------------------------------------------ */

/*
 * A Shim-style observer: the calling thread, pinned to one CPU, polls
 * the table slots of the observed CPUs and their counters in a loop,
 * bracketing each observation with rdtscp. One observation is a row of
 * uint64_t words:
 *
 *   [0] start tsc   [1] end tsc
 *   then for each observed CPU, in pebs_observer__add_cpu order:
 *   [tgid] [pid] [switches] [counter 0] ... [counter nr_events-1]
 *
 * tgid and pid are the slot's int32 values sign-extended (so -1, "never
 * seen" or "no table", reads as UINT64_MAX); switches is the slot's
 * switch count (0 without a table); counters are the raw running
 * counts (subtract consecutive rows for deltas).
 *
 * Counters are per observed CPU (perf_event_open pid -1, cpu c). rdpmc
 * reads the registers of the logical CPU that executes it, so it can
 * only serve a counter of the observer's own CPU (an SMT sibling has
 * its own registers); every other counter is read with read(2), which
 * makes the kernel IPI the observed CPU to fold the count. A counter of
 * the observer's own CPU uses rdpmc when its user page allows it
 * (cap_user_rdpmc, a non-zero index) and rdpmc proves faster than
 * read() when both are timed at open (a hypervisor may trap rdpmc);
 * the user page protocol still decides at each read, falling back to
 * read() while the event is off its counter.
 *
 * Embedding it (error handling left out):
 *
 *	PEBS_OPTS(pebs_observer_opts, opts, .map = map); // or NULL map
 *	pebs_observer__new(1, &opts, &obs);	// this thread -> CPU 1
 *	pebs_observer__add_cpu(obs, 0);		// watch CPU 0
 *	pebs_event__parse("task-clock", &ev);
 *	pebs_observer__add_event(obs, &ev);
 *	size_t n = pebs_observer__row_words(obs);
 *	uint64_t row[n];
 *	pebs_obs_stats__new(obs, 990000, 1010000, &st);
 *	while (running)
 *		if (!pebs_observer__read(obs, row, n))
 *			pebs_obs_stats__add(st, row, NULL); // or keep rows
 *	pebs_obs_stats__period(st, 0.5);	// median cycles apart
 */
struct pebs_observer;
#define PEBS_OBS_MAX_EVENTS	8	/* counters per observed CPU */
#define PEBS_OBS_CPU_HEAD	3	/* tgid, pid, switches */
struct pebs_observer_opts {
	size_t sz;
	const struct pebs_map *map; /* table to read; NULL: counters only
				       (tgid/pid read as -1) */
	bool no_pin;		/* do not pin the calling thread (tests) */
};

/*
 * pebs_cpu_has_rdtscp - whether this CPU has rdtscp, which the observer
 * needs (CPUID 0x80000001 EDX bit 27). The environment variable
 * PEBS_TEST_NO_RDTSCP=1 makes it answer false, so that the behaviour of
 * a CPU without rdtscp (pebs_observer__new() fails with -EOPNOTSUPP)
 * can be tried on any machine; the test suite's feature probe honours
 * the same variable.
 */
PEBS_API bool pebs_cpu_has_rdtscp(void);

/*
 * pebs_observer__new - an observer running on @on_cpu: pins the calling
 * thread there (unless opts->no_pin), which must then be the thread
 * calling pebs_observer__read(). @opts may be NULL. Returns 0, -EINVAL
 * (bad CPU, opts->sz unset or with unknown non-zero fields),
 * -EOPNOTSUPP (the CPU lacks rdtscp: under qemu use -cpu max), -ENOMEM,
 * or -errno from sched_setaffinity.
 */
PEBS_API int pebs_observer__new(int on_cpu,
				const struct pebs_observer_opts *opts,
				struct pebs_observer **obsp);

/*
 * pebs_observer__add_cpu - observe @cpu: its table slot (if a map was
 * given) and every event added so far, opened on it. Returns the CPU's
 * index in a row (>= 0), -EINVAL (cpu beyond the table or the system),
 * -EEXIST, or -errno from perf_event_open (pebs_errmsg() explains).
 */
PEBS_API int pebs_observer__add_cpu(struct pebs_observer *obs,
				    unsigned int cpu);

/*
 * pebs_observer__add_event - count @ev (a counting event: sampling
 * fields are cleared) on every observed CPU, present and future.
 * Returns the event's index (>= 0), -E2BIG (more than
 * PEBS_OBS_MAX_EVENTS), -EINVAL (a non-zero byte of ev->attr_area past
 * the library's perf_event_attr), or -errno from perf_event_open/mmap.
 */
PEBS_API int pebs_observer__add_event(struct pebs_observer *obs,
				      const struct pebs_event *ev);

/* observed CPUs and events added so far (they size a row) */
PEBS_API unsigned int pebs_observer__nr_cpus(const struct pebs_observer *obs);
PEBS_API unsigned int pebs_observer__nr_events(const struct pebs_observer *obs);

/* the CPU id at row index @idx, or -EINVAL */
PEBS_API int pebs_observer__cpu(const struct pebs_observer *obs,
				unsigned int idx);

/* the CPU the observer runs on (as given to __new) */
PEBS_API int pebs_observer__on_cpu(const struct pebs_observer *obs);

/* uint64_t words in one row: 2 + nr_cpus * (PEBS_OBS_CPU_HEAD + nr_events) */
PEBS_API size_t pebs_observer__row_words(const struct pebs_observer *obs);
enum pebs_counter_path {
	PEBS_COUNTER_RDPMC,	/* user-space rdpmc via the perf user page */
	PEBS_COUNTER_READ,	/* read(2) on the event */
};

/*
 * pebs_observer__counter_path - how counter @ev_idx of observed CPU
 * @cpu_idx is read (decided when it was opened); *why (may be NULL)
 * gets a one-line reason, valid while @obs lives ("another CPU's
 * counter ...", "cap_user_rdpmc is 0 ...", "rdpmc N cycles a read,
 * read() M ..."). Returns the path, or -EINVAL.
 */
PEBS_API int pebs_observer__counter_path(const struct pebs_observer *obs,
					 unsigned int cpu_idx,
					 unsigned int ev_idx,
					 const char **why);

/*
 * pebs_observer__read - take one observation into @row (@words long):
 * rdtscp, each observed CPU's slot (a consistent seqcount copy) and
 * counters, rdtscp. Returns 0, -ENOSPC (@words too small), -EAGAIN (a
 * slot stayed inconsistent through the retries: take the next one), or
 * -errno from read(2).
 */
PEBS_API int pebs_observer__read(struct pebs_observer *obs, uint64_t *row,
				 size_t words);

/*
 * pebs_trustable - Shim's filter: is the observation ending with
 * (begin1, end1) trustable after the one ending with (begin0, end0)?
 * True iff begin1 > begin0, end1 >= end0 and lo_ppm / 1e6 <=
 * (end1 - end0) / (begin1 - begin0) <= hi_ppm / 1e6, bounds included,
 * in exact integer arithmetic (1 % tolerance: 990000, 1010000).
 */
PEBS_API bool pebs_trustable(uint64_t begin0, uint64_t end0, uint64_t begin1,
			     uint64_t end1, uint32_t lo_ppm, uint32_t hi_ppm);

/*
 * pebs_rdpmc_read - read a counter through its perf user page @pc with
 * the protocol of <linux/perf_event.h>: seqlock on lock (retried while
 * odd or changed), offset + rdpmc(index - 1) sign-extended from
 * pmc_width. @rdpmc executes the instruction (NULL: the real rdpmc;
 * tests pass a fake). Returns 0 and *count, -EOPNOTSUPP when user
 * rdpmc is not possible now (cap_user_rdpmc 0, or index 0: the event
 * is not on a counter; use read(2)), or -EAGAIN if the lock kept
 * changing.
 */
PEBS_API int pebs_rdpmc_read(const struct perf_event_mmap_page *pc,
			     uint64_t (*rdpmc)(unsigned int counter),
			     uint64_t *count);

/*
 * pebs_tsc_hz - measure the TSC frequency against CLOCK_MONOTONIC over
 * about @ms milliseconds. Returns 0 and *hz, -EINVAL, or -EOPNOTSUPP
 * (no rdtscp).
 */
PEBS_API int pebs_tsc_hz(unsigned int ms, uint64_t *hz);

/* pebs_observer__delete - close the counters and free; NULL is allowed. */
PEBS_API void pebs_observer__delete(struct pebs_observer *obs);

/* ------------------------------------------------------------------ */
/* Observation summaries (lib/observe/obs-stats.c)                    */
/* ------------------------------------------------------------------ */

/*
 * Summaries of a stream of rows: achieved period, trustable fraction,
 * and per observed CPU the residency and counter totals of each thread
 * seen, at the observer's resolution: the interval between two
 * observations goes to the thread both saw, or, when the slot's switch
 * count or thread changed in between, half to the thread seen before
 * and half to the one seen after (the switch time is unknown); counter
 * deltas go to the thread seen after. Kept intervals only, except
 * all_cycles, which shows what the trustable filter changed.
 */
struct pebs_obs_stats;
struct pebs_obs_thread {
	int32_t tgid;
	int32_t pid;		/* 0: idle; -1: no table */
	uint64_t cycles;	/* TSC cycles attributed (kept intervals) */
	uint64_t all_cycles;	/* ... over all intervals, kept or not */
	uint64_t samples;	/* kept observations that saw it */
	uint64_t counters[PEBS_OBS_MAX_EVENTS]; /* delta totals */
};

/*
 * pebs_obs_stats__new - a summary for rows of @obs, with the trustable
 * bounds @lo_ppm..@hi_ppm (see pebs_trustable). Returns 0, -EINVAL,
 * -ENOMEM.
 */
PEBS_API int pebs_obs_stats__new(const struct pebs_observer *obs,
				 uint32_t lo_ppm, uint32_t hi_ppm,
				 struct pebs_obs_stats **stp);

/*
 * pebs_obs_stats__new_layout - the same for rows of @nr_cpus observed
 * CPUs with @nr_events counters each, without an observer: for rows
 * read back from a file, or made by hand. Returns 0, -EINVAL (bounds
 * reversed, more than PEBS_OBS_MAX_EVENTS events), -ENOMEM.
 */
PEBS_API int pebs_obs_stats__new_layout(unsigned int nr_cpus,
					unsigned int nr_events,
					uint32_t lo_ppm, uint32_t hi_ppm,
					struct pebs_obs_stats **stp);

/*
 * pebs_obs_stats__add - account the next row. The first row only sets
 * the reference. If @deltas is not NULL it receives nr_cpus * nr_events
 * counter deltas since the previous row. Returns 1 if the row was kept
 * (trustable), 0 if not (or the first row), -ENOMEM.
 */
PEBS_API int pebs_obs_stats__add(struct pebs_obs_stats *st,
				 const uint64_t *row, uint64_t *deltas);

/* rows seen after the first, and kept among them */
PEBS_API uint64_t pebs_obs_stats__rows(const struct pebs_obs_stats *st);
PEBS_API uint64_t pebs_obs_stats__kept(const struct pebs_obs_stats *st);

/* sum of the kept intervals, and of all intervals, in TSC cycles */
PEBS_API uint64_t pebs_obs_stats__kept_cycles(const struct pebs_obs_stats *st);
PEBS_API uint64_t pebs_obs_stats__all_cycles(const struct pebs_obs_stats *st);

/*
 * pebs_obs_stats__period - the @q quantile (0..1) of the cycles between
 * consecutive observation starts (all rows), within 0.2 %. Returns 0
 * when fewer than two rows were added.
 */
PEBS_API uint64_t pebs_obs_stats__period(const struct pebs_obs_stats *st,
					 double q);

/*
 * pebs_obs_stats__threads - the threads seen on observed CPU @cpu_idx,
 * most cycles first. Copies at most @max into @out and returns how
 * many there are in all (call with max 0 to size), -EINVAL, or -ENOMEM.
 */
PEBS_API int pebs_obs_stats__threads(const struct pebs_obs_stats *st,
				     unsigned int cpu_idx,
				     struct pebs_obs_thread *out,
				     unsigned int max);

/* pebs_obs_stats__delete - free; NULL is allowed. */
PEBS_API void pebs_obs_stats__delete(struct pebs_obs_stats *st);

/* ------------------------------------------------------------------ */
/* What pebs-shim observe prints (lib/observe/obs-print.c)           */
/* ------------------------------------------------------------------ */

/*
 * pebs_observer__print_setup - one line saying which path the counters
 * take (rdpmc, read(), a mix, each with its first reason, or "none"),
 * one saying the observer's CPU, the observed CPUs and @table (the
 * table's path, or what replaces it), to @f.
 */
PEBS_API void pebs_observer__print_setup(const struct pebs_observer *obs,
					 FILE *f, const char *table);

struct pebs_obs_print_opts {
	size_t sz;
	const struct pebs_event *events;	/* the observer's events, in
						   the order added (names;
						   cycles and instructions
						   give IPC); may be NULL
						   without events */
	uint64_t tsc_hz;	/* the TSC's rate (pebs_tsc_hz): required */
	double secs;		/* the span observed so far */
	double tolerance;	/* the trustable band, percent */
};

/*
 * pebs_obs_stats__print - the summary of @st, rows of @obs, to @f:
 * observations and span, resolution (median and p99 period, cycles and
 * ns), period quantiles, the trustable fraction and band, and per
 * observed CPU each thread (tid, tgid, share of the kept and of all
 * intervals, comm from /proc, "[idle]" for 0, "-" without a table;
 * samples, cycles, each counter, IPC when cycles and instructions are
 * counted, else a line saying how to get it). Returns 0, -EINVAL (no
 * tsc_hz, events missing, a bad @opts), -ENOMEM; a write error is left
 * in @f's error flag.
 */
PEBS_API int pebs_obs_stats__print(const struct pebs_obs_stats *st,
				   const struct pebs_observer *obs, FILE *f,
				   const struct pebs_obs_print_opts *opts);

/* ------------------------------------------------------------------ */
/* The observer's raw file (lib/observe/obs-raw.c)                    */
/* ------------------------------------------------------------------ */

/*
 * pebs-shim observe --raw FILE: one record per kept observation and
 * observed CPU, binary or CSV. The binary layout (little-endian):
 *
 *	header, 64 bytes: char magic[8] = "PEBSOBS\0"; u32 version (1),
 *	  header_size (64 + 64 * nr_events), record_size (32 + 8 *
 *	  nr_events), nr_events, nr_cpus; s32 observer_cpu; u64 tsc_hz,
 *	  period_cycles; u32 lo_ppm, hi_ppm; u64 reserved;
 *	then nr_events names of 64 bytes, NUL padded;
 *	then records: u64 tsc, dt; u32 cpu; s32 tgid, pid; u32 switches
 *	  (low 32 bits); u64 delta[nr_events].
 *
 * CSV: a header line "tsc,dt,cpu,tgid,pid,switches,<event>..." and one
 * line per record.
 */
#define PEBS_OBS_RAW_MAGIC	"PEBSOBS"
#define PEBS_OBS_RAW_NAME_LEN	64
struct pebs_obs_raw;

/* the header's contents (the sizes are filled by the library) */
struct pebs_obs_raw_info {
	uint32_t nr_events, nr_cpus;
	int32_t observer_cpu;
	uint64_t tsc_hz, period_cycles;
	uint32_t lo_ppm, hi_ppm;	/* trustable bounds, ppm of 1 */
	uint32_t header_size, record_size;
	char names[PEBS_OBS_MAX_EVENTS][PEBS_OBS_RAW_NAME_LEN];
};
struct pebs_obs_raw_record {
	uint64_t tsc, dt;	/* start rdtscp; cycles since the last one */
	uint32_t cpu;		/* the observed CPU */
	int32_t tgid, pid;	/* -1 never seen / no table, 0 idle */
	uint32_t switches;
	uint64_t delta[PEBS_OBS_MAX_EVENTS];	/* nr_events used */
};
struct pebs_obs_raw_opts {
	size_t sz;
	bool csv;		/* CSV instead of the binary layout */
	uint64_t max_bytes;	/* records stop at this size; 0: no limit */
};

/*
 * pebs_obs_raw__create - create (or replace) @path and write the header
 * for @info->nr_cpus CPUs (@cpus: their ids, in row order) and
 * @info->nr_events events named @info->names. @opts may be NULL.
 * Returns 0, -EINVAL (also: opts->sz unset or with unknown non-zero
 * fields), -ENOMEM, or -errno from open/write.
 */
PEBS_API int pebs_obs_raw__create(const char *path,
				  const struct pebs_obs_raw_info *info,
				  const unsigned int *cpus,
				  const struct pebs_obs_raw_opts *opts,
				  struct pebs_obs_raw **rawp);

/*
 * pebs_obs_raw__add_row - the records of one kept observation (@row as
 * pebs_observer__read() fills it, @dt cycles since the previous kept
 * one, @deltas as pebs_obs_stats__add() fills them). Returns 0, 1 when
 * the size limit was reached now (no record is written after it), or
 * -errno from write(2) (ENOSPC, EFBIG, EPIPE...).
 */
PEBS_API int pebs_obs_raw__add_row(struct pebs_obs_raw *raw,
				   const uint64_t *row, uint64_t dt,
				   const uint64_t *deltas);

/* bytes written so far (header included), and records */
PEBS_API uint64_t pebs_obs_raw__bytes(const struct pebs_obs_raw *raw);
PEBS_API uint64_t pebs_obs_raw__records(const struct pebs_obs_raw *raw);

/*
 * pebs_obs_raw__parse_header - decode the binary header at @buf (@len
 * bytes available) into @info. Returns the header's size (records
 * follow it), -ENODATA (@len too short) or -EPROTO (not this format, or
 * inconsistent sizes).
 */
PEBS_API int pebs_obs_raw__parse_header(const void *buf, size_t len,
					struct pebs_obs_raw_info *info);

/*
 * pebs_obs_raw__parse_record - decode one record (info->record_size
 * bytes at @buf). Returns 0 or -ENODATA (@len too short).
 */
PEBS_API int pebs_obs_raw__parse_record(const struct pebs_obs_raw_info *info,
					const void *buf, size_t len,
					struct pebs_obs_raw_record *rec);

/*
 * pebs_obs_raw__close - flush and close. Returns 0 or -errno from
 * write/close; the file is closed and @raw freed in every case. NULL is
 * allowed.
 */
PEBS_API int pebs_obs_raw__close(struct pebs_obs_raw *raw);

/* ---- observe: the observation loop ---- */

/*
 * struct pebs_observer_run_opts - what pebs_observer__run does (set sz
 * with PEBS_OPTS). The run ends when @duration_cycles TSC cycles have
 * passed since the first observation's start, when @max_rows
 * observations were taken, when *@stop (a sig_atomic_t flag a signal
 * handler sets) is non-zero, or when a callback returns > 0; at least
 * one of the first three must be given.
 */
struct pebs_observer_run_opts {
	size_t sz;
	uint64_t period_cycles;	  /* one observation every N TSC cycles
				     (spin on rdtsc); 0: as fast as it goes */
	uint64_t duration_cycles; /* 0: no time limit */
	uint64_t max_rows;	  /* 0: no row limit */
	uint64_t interval_cycles; /* on_interval every N cycles; 0: never */
	const volatile int *stop; /* non-zero ends the run; NULL: none */
	uint64_t *again;	  /* if set, counts the reads skipped with
				     -EAGAIN (a slot stuck mid-update) */
	/*
	 * on_rows - the @n observations taken since the last call (rows of
	 * pebs_observer__row_words words, valid during the call). Return 0
	 * to go on, > 0 to end the run, -errno to end it with that error.
	 */
	int (*on_rows)(void *ctx, const uint64_t *rows, unsigned int n);
	/*
	 * on_interval - once the last row passed an interval boundary
	 * (@tsc: its start), unless the run ends with that chunk. Returns
	 * as on_rows.
	 */
	int (*on_interval)(void *ctx, uint64_t tsc);
	void *ctx;
};

/*
 * pebs_observer__run - the TSC-paced observation loop of pebs-shim
 * observe: pebs_observer__read into chunks of 1024 rows, nothing else
 * while a chunk fills (reads that return -EAGAIN are skipped, and do
 * not stop the clock); between chunks @opts->on_rows and, at interval
 * boundaries, on_interval. Returns 0 when the run ended (duration,
 * max_rows, stop or a callback's > 0), -EINVAL (no observer, bad
 * opts, nothing that ends the run), -ENOMEM, -errno of a read, or a
 * callback's -errno.
 */
PEBS_API int pebs_observer__run(struct pebs_observer *obs,
				const struct pebs_observer_run_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_OBSERVE_H */
