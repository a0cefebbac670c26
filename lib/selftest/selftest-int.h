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
#include <sys/types.h>

#include "pebsshim.h"

#define ST_MAX_THR 4

enum st_kind {
	ST_TOUCH,	/* each thread writes a byte per page of its part */
	ST_CHASE,	/* each thread chases pointers around its part */
	ST_SHARE,	/* the threads increment one shared cache line */
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
int st_wl_finish(struct st_wl *w);	/* go, wait: 0 or -1 (message) */
void st_wl_kill(struct st_wl *w);

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
void st_check_machine(struct pebs_selftest_result *r);
void st_check_pf_addr(struct pebs_selftest_result *r);
void st_check_tid(struct pebs_selftest_result *r);
void st_check_ring_loss(struct pebs_selftest_result *r);
void st_check_roundtrip(struct pebs_selftest_result *r);
void st_check_rdtscp(struct pebs_selftest_result *r);
void st_check_precise(struct pebs_selftest_result *r);
void st_check_hitm(struct pebs_selftest_result *r);
void st_check_rdpmc(struct pebs_selftest_result *r);
void st_check_module(struct pebs_selftest_result *r);

/* the hidden feature: PEBS_TEST_NO_<name>=1 */
bool st_hidden(const char *name);
/* why rdtscp is not there: hidden, or the CPU lacks it */
const char *st_no_rdtscp(void);

#endif
