/* SPDX-License-Identifier: MIT */
/*
 * selftest-int.h - private to lib/selftest: the forked workloads whose
 * answers are known, and the checks' helpers.
 */
#ifndef PEBSSHIM_SELFTEST_INT_H
#define PEBSSHIM_SELFTEST_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "pebsshim.h"

#define ST_MAX_THR 4

enum st_kind {
	ST_TOUCH,	/* each thread writes a byte per page of its part */
	ST_CHASE,	/* each thread chases pointers around its part */
	ST_SHARE,	/* the threads increment one word (true sharing) */
	ST_STORE,	/* each thread stores through its part, passes times */
	ST_FALSE_SHARE,	/* each thread increments its own word of one line */
};

/*
 * A forked workload, held before it starts: its threads' tids and the
 * part of the buffer each one uses are known before a sample is taken
 * (the child reports them), so that what the samples say can be
 * compared with them.
 */
struct st_wl {
	pid_t pid;
	int go_fd;
	unsigned int nthr;
	pid_t tid[ST_MAX_THR];
	uintptr_t lo[ST_MAX_THR];	/* thread i's part: [lo, lo + part) */
	size_t part;
};

/* workload.c */
int st_wl_start(struct st_wl *w, enum st_kind kind, unsigned int nthr,
		size_t part);
int st_wl_go(struct st_wl *w);		/* release it: 0 or -1 (killed) */
int st_wl_finish(struct st_wl *w);	/* go, wait: 0 or -1 (message) */
void st_wl_kill(struct st_wl *w);
size_t st_large_size(void);	/* a buffer far larger than the LLC */
/* a pointer chase around [p, p + size) (size / 64 a power of two) */
void st_chase_build(char *p, size_t size);
void st_chase_run(char *p, uint64_t steps);
/* a workload's measured phase: wall and process CPU time */
struct st_clock {
	struct timespec wall, cpu;
};
void st_clock_start(struct st_clock *c);
void st_clock_print(const struct st_clock *c, FILE *out);
/* the workloads that run in their main thread (checks-budget.c,
   checks-objects.c), as pebs_selftest__workload: 0 or -errno */
int st_wl_budget(FILE *out);
int st_wl_objects(FILE *out);

/*
 * A known workload's layout as it printed it (pebs_selftest__workload):
 * the buffer its data accesses fall in, each thread's tid and own part
 * (its word, for the sharing pairs), the measured phase's seconds.
 */
struct st_layout {
	uintptr_t buf;
	size_t size;
	unsigned int nthr;
	pid_t tid[ST_MAX_THR];
	uintptr_t lo[ST_MAX_THR];
	size_t len[ST_MAX_THR];
	double seconds, cpu_seconds;	/* the measured phase's, wall and CPU */
};
int st_layout_parse(const char *out, struct st_layout *l); /* 0, -EINVAL */

/* spawn.c: a command with its output captured and a deadline */
struct st_run {
	int status;		/* exit status; -1: killed or by a signal */
	bool timed_out;
	char out[65536];	/* standard output (cut) */
	char err[4096];		/* standard error (cut) */
};
int st_spawn(char *const argv[], double timeout, struct st_run *run);
const char *st_last_line(const char *s, char *line, size_t len);

/* analysis.c: what a recording of a known workload says */
enum st_level {
	ST_LVL_L1, ST_LVL_LFB, ST_LVL_L2, ST_LVL_L3, ST_LVL_RAM,
	ST_LVL_REMOTE, ST_LVL_OTHER, ST_LVL_NR
};
enum st_sharing { ST_PRIVATE, ST_FALSE_SHARING, ST_TRUE_SHARING };

#define ST_LINE_TIDS 4
/* one cache line's accesses: by which threads, at which 8-byte words */
struct st_line {
	uint64_t line;			/* its address */
	uint64_t samples, hitm;
	bool used, more_tids;
	unsigned int ntid;
	uint32_t tid[ST_LINE_TIDS];
	uint8_t words[ST_LINE_TIDS];	/* the words thread i touched */
	uint32_t word_tid[8];		/* the first thread of each word */
	uint8_t word_seen, word_shared;	/* words touched; by >= 2 threads */
};

struct st_mem {
	const struct st_layout *l;	/* NULL: no buffer to count in */
	uint64_t samples, with_addr, inside;
	uint64_t thr_with_addr, thr_inside;	/* of the layout's threads */
	uint64_t with_src, loads, stores, hitm;
	uint64_t level[ST_LVL_NR];	/* loads by the level that served */
	uint64_t *w;			/* weights (at most 2^20) */
	size_t nw, capw;
	struct st_line *lines;		/* 2^16 slots, allocated on use */
	uint64_t lines_dropped;
};
void st_mem_init(struct st_mem *m, const struct st_layout *l);
void st_mem_add(struct st_mem *m, const struct pebs_sample *s);
int st_mem_scan(const char *path, struct st_mem *m);
/* each sample of the recording @path to @fn (not record --budget's
   PEBS_CYCLE_EVENT: the cycles' starts): 0 or -errno */
int st_scan(const char *path,
	    void (*fn)(void *arg, const struct pebs_sample *s), void *arg);
/* ... and each other record to @other (may be NULL) */
int st_scan_records(const char *path,
		    void (*fn)(void *arg, const struct pebs_sample *s),
		    void (*other)(void *arg, const struct perf_event_header *ev),
		    void *arg);
double st_mem_inside(const struct st_mem *m);	/* % of with_addr */
double st_mem_thr_inside(const struct st_mem *m); /* % of thr_with_addr */
double st_mem_level_share(const struct st_mem *m, enum st_level l);
uint64_t st_mem_weight_median(struct st_mem *m);	/* lower middle */
const struct st_line *st_mem_line(const struct st_mem *m, uint64_t addr);
const struct st_line *st_mem_top_line(const struct st_mem *m);
enum st_sharing st_line_sharing(const struct st_line *s);
enum st_level st_level_of(uint64_t data_src);
const char *st_level_name(enum st_level l);
void st_mem_free(struct st_mem *m);

/* record.c: one channel per workload thread, and reading them back */
struct st_rec {
	unsigned int n;
	struct pebs_channel *ch[ST_MAX_THR];
};
typedef void (*st_sample_fn)(void *arg, unsigned int thr,
			     const struct perf_event_header *ev,
			     const struct pebs_sample *s);
int st_rec_open(struct st_rec *rec, const struct st_wl *w,
		const struct pebs_event *ev,
		const struct pebs_channel_opts *o,
		struct pebs_selftest_result *r);
void st_rec_drain(struct st_rec *rec, st_sample_fn fn, void *arg);
void st_rec_close(struct st_rec *rec);
void st_sw_event(struct pebs_event *ev, uint64_t config, const char *name);

/* machine.c */
bool st_read_line(const char *path, char *val, size_t len);
bool st_cpu_flag(const char *flag);

/* selftest.c */
void st_set(struct pebs_selftest_result *r, enum pebs_selftest_status st,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void st_detail(struct pebs_selftest_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* checks-sw.c / checks-hw.c: one function per check */
void st_check_machine(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *o);
void st_check_pf_addr(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *o);
void st_check_tid(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *o);
void st_check_ring_loss(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *o);
void st_check_roundtrip(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *o);
void st_check_rdtscp(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *o);
void st_check_precise(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *o);
void st_check_sharing(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *o);
void st_check_rdpmc(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *o);
void st_check_module(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *o);
void st_check_overhead(struct pebs_selftest_result *r,
		       const struct pebs_selftest_opts *o);
void st_check_pf_perf(struct pebs_selftest_result *r,
		      const struct pebs_selftest_opts *o);
void st_check_report_perf(struct pebs_selftest_result *r,
			  const struct pebs_selftest_opts *o);
void st_check_known_addr(struct pebs_selftest_result *r,
			 const struct pebs_selftest_opts *o);
void st_check_module_switch(struct pebs_selftest_result *r,
			    const struct pebs_selftest_opts *o);
void st_check_residency(struct pebs_selftest_result *r,
			const struct pebs_selftest_opts *o);
void st_check_budget(struct pebs_selftest_result *r,
		     const struct pebs_selftest_opts *o);
void st_check_objects(struct pebs_selftest_result *r,
		      const struct pebs_selftest_opts *o);

/*
 * checks-mem.c: replay recording @path's samples against its
 * PERF_RECORD_SWITCH_CPU_WIDE records (lib/attrib's SWITCH check):
 * agree, disagree, unattributed into @out. 0 or -errno.
 */
int st_switch_agree(const char *path, struct pebs_attrib_stats *out);
bool st_switch_ok(const struct pebs_attrib_stats *st);	/* >= 99 % agree */

/* checks-hw.c: a precise memory PMU here; its load event (@r: why not) */
bool st_have_precise(struct pebs_selftest_result *r);
bool st_mem_event(struct pebs_selftest_result *r, bool c2c,
		  struct pebs_event *ev);
/* ... as an event string for record, Intel's load latency threshold
   set to 3 so that L1 hits count (as precise-mem's --ldlat 3) */
bool st_load_event(struct pebs_selftest_result *r, char *buf, size_t len);
/* /dev/pebs_map is there (and not hidden); else @r skips, saying why */
bool st_have_map(struct pebs_selftest_result *r);
/* ... and opened into @map; else @r skips (no access) or fails */
bool st_open_map(struct pebs_selftest_result *r, struct pebs_map **map);
/* thread @tid of @pid's time on a CPU so far, in ns (false: gone) */
bool st_schedstat(pid_t pid, pid_t tid, uint64_t *run_ns);
/* an observed residency agrees with schedstat's (seconds) */
bool st_residency_ok(double observed, double sched, double period);

/* spawn.c: the commands a check runs, and their private directory */
const char *st_perf(const struct pebs_selftest_opts *o,
		    struct pebs_selftest_result *r);
bool st_tool(const struct pebs_selftest_opts *o,
	     struct pebs_selftest_result *r);
int st_tmpdir(struct pebs_selftest_result *r, char *dir, size_t len);
void st_rmtmp(const char *dir);

/* checks-perf.c: a check's commands, and where recordings go */
struct st_cmds {
	const struct pebs_selftest_opts *o;
	const char *perf;
	char dir[512];
	struct st_run *run;
};
int st_cmds_init(struct pebs_selftest_result *r,
		 const struct pebs_selftest_opts *o, bool need_perf,
		 struct st_cmds *c);
extern const char *const st_pf_args[];	/* page faults -d, period 1 */
/* median, min and max of @n values (sorted in place) */
void st_spread(double *v, unsigned int n, double *med, double *lo,
	       double *hi);
int st_reports_agree(struct pebs_selftest_result *r, struct st_cmds *c,
		     const char *path, const char *tag, unsigned int *rows,
		     unsigned int *agree, char *top, size_t top_len);
void st_cmds_done(struct st_cmds *c);
void st_wl_argv(struct st_cmds *c, int who, const char *const *args,
		const char *out, const char *wl, char **argv);
int st_run_wl(struct pebs_selftest_result *r, struct st_cmds *c,
	      char *const argv[], struct st_layout *l);
int st_record_wl(struct pebs_selftest_result *r, struct st_cmds *c, int who,
		 const char *const *args, const char *wl, const char *path,
		 struct st_layout *l, struct st_mem *m);

/*
 * checks-budget.c: what one recording of record --budget says, and the
 * workload's slowdown; the rules it breaks (st_budget_judge), each
 * figure into @r's details under @tag
 */
#define ST_BUDGET 0.02		/* record --budget 2% */
#define SLOWDOWN_POINT 0.01	/* the slowdown's margin over the budget */
struct st_budget_fig {
	char tag[16];
	double budget;
	uint64_t samples, no_period, period_sum, max_period, last_period;
	uint64_t count;			/* the event's, from its counters */
	uint64_t throttles, lost;
	double whole, controlled;	/* estimates: whole run, controlled */
	double median_controlled;	/* of all the rounds (0: this one's
					   judged alone) */
	bool decided;			/* the controller decided once */
	double duty;
	double slowdown;		/* CPU time recorded / bare */
	double noise;			/* the bare runs' spread: max / min
					   - 1 (0: one run) */
	int status;			/* the command's exit status */
};
unsigned int st_budget_judge(struct pebs_selftest_result *r,
			     const struct st_budget_fig *f);

/*
 * checks-objects.c: the objects workload's objects as it printed them
 * and what the samples with data addresses said of them; the rules
 * broken (st_objects_judge), the figures into @r's details
 */
#define ST_OBJECTS 3
struct st_objects_fig {
	bool precise;			/* loads (else page faults) */
	uintptr_t lo[ST_OBJECTS];	/* object i: [lo, lo + len) */
	size_t len[ST_OBJECTS];
	double want[ST_OBJECTS];	/* its expected weight in the shares */
	uint64_t site[ST_OBJECTS];	/* samples resolved to its site */
	uint64_t with_addr, inside, agree; /* inside one, by its own site */
	uint64_t weighted;		/* of site[]: with a weight */
	size_t objects;			/* allocations in the recording */
};
unsigned int st_objects_judge(struct pebs_selftest_result *r,
			      const struct st_objects_fig *f);

/* the hidden feature: PEBS_TEST_NO_<name>=1 */
bool st_hidden(const char *name);
/* why rdtscp is not there: hidden, or the CPU lacks it */
const char *st_no_rdtscp(void);

#endif
