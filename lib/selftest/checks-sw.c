// SPDX-License-Identifier: MIT
/*
 * checks-sw.c - the checks software events can answer, so they run on
 * every machine: page-fault data addresses, attribution by thread, ring
 * loss accounting, the perf.data round trip, and the machine itself.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

#define PAGE 4096u

void st_check_machine(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *opts)
{
	(void)opts;
	if (pebs_machine__describe(r->details, sizeof(r->details)))
		st_set(r, PEBS_SELFTEST_FAIL, "%s", pebs_errmsg());
	else
		st_set(r, PEBS_SELFTEST_PASS, "described (information only)");
}

/* page faults of a touch workload: what each thread's samples say */
struct faults {
	const struct st_wl *w;
	unsigned int pages;		/* per thread */
	unsigned char *seen;		/* [thread * pages + page] */
	uint64_t samples, inside, other_part, wrong_tid, twice;
	uint64_t hash;			/* of (tid, addr, time, ip) in order */
};

/* FNV-1a step over what a round trip must keep of a sample */
static uint64_t fold(uint64_t h, const struct pebs_sample *s)
{
	h = (h ^ s->tid) * 0x100000001b3ULL;
	h = (h ^ s->addr) * 0x100000001b3ULL;
	h = (h ^ s->time) * 0x100000001b3ULL;
	return (h ^ s->ip) * 0x100000001b3ULL;
}

static void on_fault(void *arg, unsigned int thr,
		     const struct perf_event_header *ev,
		     const struct pebs_sample *s)
{
	struct faults *f = arg;
	unsigned int i;

	(void)ev;
	f->samples++;
	f->hash = fold(f->hash, s);
	if (s->tid != (uint32_t)f->w->tid[thr])
		f->wrong_tid++;
	for (i = 0; i < f->w->nthr; i++) {
		uintptr_t lo = f->w->lo[i];
		size_t pg;

		if (s->addr < lo || s->addr >= lo + f->w->part)
			continue;
		if (i != thr) {
			f->other_part++;
			return;
		}
		pg = (s->addr - lo) / PAGE;
		if (f->seen[i * f->pages + pg]++)
			f->twice++;
		f->inside++;
		return;
	}
}

/* pages never sampled, over every thread's part */
static uint64_t unseen(const struct faults *f)
{
	uint64_t n = 0, i;

	for (i = 0; i < (uint64_t)f->w->nthr * f->pages; i++)
		n += !f->seen[i];
	return n;
}

/*
 * Record page-faults (period 1, data addresses) on a touch workload of
 * @nthr threads of @pages pages each into @f; @ring_pages per channel.
 * Returns 0, or -1 with @r set (skip or fail).
 */
static int record_faults(struct pebs_selftest_result *r, unsigned int nthr,
			 unsigned int pages, unsigned int ring_pages,
			 struct st_wl *w, struct st_rec *rec, struct faults *f)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .ring_pages = ring_pages,
		  .sample_type = PEBS_CHANNEL_SW_SAMPLE);
	struct pebs_event ev;
	int err;

	memset(f, 0, sizeof(*f));
	st_sw_event(&ev, PERF_COUNT_SW_PAGE_FAULTS, "page-faults");
	err = st_wl_start(w, ST_TOUCH, nthr, (size_t)pages * PAGE);
	if (err) {
		st_set(r, PEBS_SELFTEST_FAIL, "cannot start the workload: %s",
		       strerror(-err));
		return -1;
	}
	if (st_rec_open(rec, w, &ev, &o, r)) {
		st_wl_kill(w);
		return -1;
	}
	if (st_wl_finish(w)) {
		st_set(r, PEBS_SELFTEST_FAIL, "the workload did not exit 0");
		st_rec_close(rec);
		return -1;
	}
	f->w = w;
	f->pages = pages;
	f->seen = calloc((size_t)nthr * pages, 1);
	if (!f->seen) {
		st_set(r, PEBS_SELFTEST_FAIL, "out of memory");
		st_rec_close(rec);
		return -1;
	}
	st_rec_drain(rec, on_fault, f);
	return 0;
}

void st_check_pf_addr(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *opts)
{
	const unsigned int pages = 1024;
	struct st_wl w;
	struct st_rec rec;
	struct faults f;
	double share;
	uint64_t miss;
	(void)opts;

	if (record_faults(r, 1, pages, 64, &w, &rec, &f))
		return;
	miss = unseen(&f);
	share = f.samples ? 100.0 * (double)f.inside / (double)f.samples : 0;
	st_detail(r, "buffer=%#lx+%zu", (unsigned long)w.lo[0], w.part);
	st_detail(r, "samples=%llu", (unsigned long long)f.samples);
	st_detail(r, "inside=%llu", (unsigned long long)f.inside);
	st_detail(r, "pages_unseen=%llu", (unsigned long long)miss);
	if (share >= 99.0 && !miss && !f.twice)
		st_set(r, PEBS_SELFTEST_PASS, "%llu of %llu data addresses "
		       "(%.1f %%) in the buffer, each of its %u pages once",
		       (unsigned long long)f.inside,
		       (unsigned long long)f.samples, share, pages);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "%llu of %llu data addresses "
		       "(%.1f %%, want >= 99 %%) in the buffer; %llu of its "
		       "%u pages never sampled, %llu sampled twice",
		       (unsigned long long)f.inside,
		       (unsigned long long)f.samples, share,
		       (unsigned long long)miss, pages,
		       (unsigned long long)f.twice);
	free(f.seen);
	st_rec_close(&rec);
}

void st_check_tid(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *opts)
{
	const unsigned int pages = 512;
	struct st_wl w;
	struct st_rec rec;
	struct faults f;
	uint64_t miss;
	(void)opts;

	if (record_faults(r, 2, pages, 32, &w, &rec, &f))
		return;
	miss = unseen(&f);
	st_detail(r, "tids=%d,%d", (int)w.tid[0], (int)w.tid[1]);
	st_detail(r, "samples=%llu", (unsigned long long)f.samples);
	st_detail(r, "wrong_tid=%llu", (unsigned long long)f.wrong_tid);
	st_detail(r, "other_part=%llu", (unsigned long long)f.other_part);
	if (!f.wrong_tid && !f.other_part && !miss && !f.twice)
		st_set(r, PEBS_SELFTEST_PASS, "%llu samples of threads %d and "
		       "%d: every tid right, each of the %u pages of each part "
		       "once, by its own thread",
		       (unsigned long long)f.samples, (int)w.tid[0],
		       (int)w.tid[1], pages);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "%llu samples: %llu with another "
		       "tid than their thread's, %llu in the other thread's "
		       "part, %llu pages never sampled, %llu twice",
		       (unsigned long long)f.samples,
		       (unsigned long long)f.wrong_tid,
		       (unsigned long long)f.other_part,
		       (unsigned long long)miss, (unsigned long long)f.twice);
	free(f.seen);
	st_rec_close(&rec);
}

void st_check_ring_loss(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *opts)
{
	const unsigned int pages = 4096;
	struct st_wl w;
	struct st_rec rec;
	struct faults f;
	uint64_t lost = 0;
	int err;
	(void)opts;

	/* one data page holds about 64 samples: the rest must be lost */
	if (record_faults(r, 1, pages, 1, &w, &rec, &f))
		return;
	err = pebs_channel__lost(rec.ch[0], &lost);
	st_detail(r, "samples=%llu", (unsigned long long)f.samples);
	st_detail(r, "lost=%llu", (unsigned long long)lost);
	if (err == -EOPNOTSUPP)
		st_set(r, PEBS_SELFTEST_SKIP, "this kernel counts no lost "
		       "samples per event (PERF_FORMAT_LOST: Linux 6.0)");
	else if (err)
		st_set(r, PEBS_SELFTEST_FAIL, "reading the lost count: %s",
		       strerror(-err));
	else if (lost && f.samples + lost >= pages)
		st_set(r, PEBS_SELFTEST_PASS, "%u pages faulted into a 1-page "
		       "ring: %llu samples read + %llu lost >= %u",
		       pages, (unsigned long long)f.samples,
		       (unsigned long long)lost, pages);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "%u pages faulted into a 1-page "
		       "ring: %llu samples read + %llu lost, want lost > 0 and "
		       "a sum >= %u", pages, (unsigned long long)f.samples,
		       (unsigned long long)lost, pages);
	free(f.seen);
	st_rec_close(&rec);
}

/* the samples of a channel written as they were read */
struct copy {
	struct pebs_perfdata_writer *wr;
	int err;
	struct faults *f;
};

static void on_copy(void *arg, unsigned int thr,
		    const struct perf_event_header *ev,
		    const struct pebs_sample *s)
{
	struct copy *c = arg;

	on_fault(c->f, thr, ev, s);
	if (!c->err)
		c->err = pebs_perfdata_writer__write(c->wr, ev);
}

/* a sample read back: counted and hashed into @arg */
static void on_read(void *arg, const struct pebs_sample *s)
{
	struct faults *g = arg;

	g->samples++;
	g->hash = fold(g->hash, s);
}

void st_check_roundtrip(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *opts)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .ring_pages = 64,
		  .sample_type = PEBS_CHANNEL_SW_SAMPLE);
	char dir[512], path[600];
	struct faults f = { 0 }, g = { 0 };
	struct copy c = { .f = &f };
	struct pebs_event ev;
	struct st_rec rec;
	struct st_wl w;
	uint64_t id = 0;
	int err;
	(void)opts;

	if (st_tmpdir(r, dir, sizeof(dir)))
		return;
	snprintf(path, sizeof(path), "%s/roundtrip.data", dir);
	st_sw_event(&ev, PERF_COUNT_SW_PAGE_FAULTS, "page-faults");
	err = st_wl_start(&w, ST_TOUCH, 1, 256 * PAGE);
	if (err) {
		st_set(r, PEBS_SELFTEST_FAIL, "cannot start the workload: %s",
		       strerror(-err));
		goto out_dir;
	}
	if (st_rec_open(&rec, &w, &ev, &o, r)) {
		st_wl_kill(&w);
		goto out_dir;
	}
	if (st_wl_finish(&w)) {
		st_set(r, PEBS_SELFTEST_FAIL, "the workload did not exit 0");
		goto out_rec;
	}
	f.w = &w;
	f.pages = 256;
	f.seen = calloc(256, 1);
	err = f.seen ? pebs_perfdata_writer__create(path, &c.wr) : -ENOMEM;
	if (!err)
		err = pebs_channel__id(rec.ch[0], &id);
	if (!err)
		err = pebs_perfdata_writer__add_attr(c.wr,
				pebs_channel__attr(rec.ch[0]), &id, 1,
				ev.name);
	if (!err) {
		st_rec_drain(&rec, on_copy, &c);
		err = c.err;
	}
	if (c.wr) {
		int e = pebs_perfdata_writer__close(c.wr);

		err = err ? err : e;
	}
	if (!err)
		err = st_scan(path, on_read, &g);
	st_detail(r, "written=%llu", (unsigned long long)f.samples);
	st_detail(r, "read=%llu", (unsigned long long)g.samples);
	if (err)
		st_set(r, PEBS_SELFTEST_FAIL, "writing or reading %s: %s", path,
		       pebs_errmsg());
	else if (f.samples >= 256 && g.samples == f.samples &&
		 g.hash == f.hash)
		st_set(r, PEBS_SELFTEST_PASS, "%llu samples written and read "
		       "back with the same tid, address, time and ip, in order",
		       (unsigned long long)g.samples);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "%llu samples written (want >= "
		       "256), %llu read back, %s", (unsigned long long)f.samples,
		       (unsigned long long)g.samples, g.hash == f.hash ?
		       "same contents" : "contents differ");
	free(f.seen);
	unlink(path);
out_rec:
	st_rec_close(&rec);
out_dir:
	rmdir(dir);
}

static uint64_t rdtscp_aux(uint32_t *aux)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(*aux)
			     : : "memory");
	return lo | (uint64_t)hi << 32;
}

void st_check_rdtscp(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *opts)
{
	uint64_t reads = 0, agree = 0, back = 0, last = 0, hz = 0;
	int last_cpu = -1;
	struct timespec a, b;
	double ms = 0;
	(void)opts;

	if (!pebs_cpu_has_rdtscp()) {
		st_set(r, PEBS_SELFTEST_SKIP, "%s", st_no_rdtscp());
		return;
	}
	/* 50 ms of reads: TSC_AUX names the CPU sched_getcpu() says */
	clock_gettime(CLOCK_MONOTONIC, &a);
	while (ms < 50) {
		int c0 = sched_getcpu(), c1;
		uint32_t aux;
		uint64_t t = rdtscp_aux(&aux);

		c1 = sched_getcpu();
		if (c0 == c1) {
			reads++;
			agree += (aux & 0xfff) == (uint32_t)c0;
			/* monotonic on one CPU (TSCs of two may differ) */
			back += c0 == last_cpu && t < last;
			last = t;
			last_cpu = c0;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		ms = (double)(b.tv_sec - a.tv_sec) * 1e3 +
		     (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	}
	pebs_tsc_hz(20, &hz);
	st_detail(r, "reads=%llu", (unsigned long long)reads);
	st_detail(r, "tsc_hz=%llu", (unsigned long long)hz);
	if (reads && agree == reads && !back && hz)
		st_set(r, PEBS_SELFTEST_PASS, "%llu reads: TSC_AUX gave the "
		       "current CPU every time, the TSC never went back on a CPU, "
		       "%.3f GHz", (unsigned long long)reads, (double)hz / 1e9);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "%llu reads: TSC_AUX gave the "
		       "current CPU %llu times, the TSC went back %llu times, "
		       "TSC rate %llu Hz", (unsigned long long)reads,
		       (unsigned long long)agree, (unsigned long long)back,
		       (unsigned long long)hz);
}
