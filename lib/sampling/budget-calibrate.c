// SPDX-License-Identifier: MIT
/*
 * budget-calibrate.c - what one sample of an event costs here: a spin
 * loop of a fixed number of iterations on the calling thread, sampled
 * at a sparse and at a dense period, alternately; the fastest run of
 * each tells the cost, (wall dense - wall sparse) / (samples dense -
 * samples sparse). Wall time, not the thread's CPU time: the time a
 * sample's interrupt takes is not always charged to the task.
 * pebs_budget__calibrate_faults: an event counted per occurrence in the
 * faulting thread (page faults, the tracepoints a fault passes), what
 * each occurrence costs whether sampled or not, and what a sample adds:
 * a page-fault loop bare, counted (a period never reached) and sampled,
 * in the thread's CPU time (the fault path runs in the task).
 * pebs_budget__calibrate_off: what such an event costs per page fault
 * while open but disabled (bare and disabled runs, interleaved).
 * pebs_budget__calibrate_switch: what an enabled event costs its task
 * per context switch (a pipe ping-pong on one CPU).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "pebsshim/sampling.h"
#include "core/internal.h"

#define CAL_MIN_SAMPLES	50	/* more at the dense period than sparse */

struct cal_run {
	uint64_t wall_ns;
	uint64_t samples;
};

static void spin(uint64_t iters)
{
	uint64_t x = 88172645463325252ull, i;

	for (i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : : "r"(x));	/* keep the loop */
	}
}

/* iterations that take about @run_ms here, unsampled */
static uint64_t iters_for(unsigned int run_ms)
{
	uint64_t n = 1024, t;

	for (;;) {
		t = core_mono_ns();
		spin(n);
		t = core_mono_ns() - t;
		if (t >= (uint64_t)run_ms * 250000u || n >= (1ull << 40))
			break;
		n *= 2;
	}
	return (uint64_t)((double)n * (double)run_ms * 1e6 /
			  (double)(t ? t : 1));
}

/* the samples and lost samples published in @ch's ring */
static uint64_t count_samples(struct pebs_channel *ch)
{
	struct pebs_ring *ring = pebs_channel__ring(ch);
	const struct perf_event_header *ev;
	uint64_t n = 0;

	while (pebs_ring__read_init(ring) == 0) {
		while (pebs_ring__next(ring, &ev) > 0)
			n += ev->type == PERF_RECORD_SAMPLE;
		pebs_ring__consume(ring);
	}
	return n + pebs_ring__stats(ring)->lost;
}

static int cal_run(const struct pebs_event *ev, uint64_t period,
		   uint64_t iters, struct cal_run *best)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = period, .disabled = true,
		  .sample_type = PERF_SAMPLE_IP, .ring_pages = 256);
	struct pebs_channel *ch;
	uint64_t t;
	int err;

	err = pebs_channel__open(ev, 0, -1, &o, &ch);
	if (err)
		return err;
	err = pebs_channel__enable(ch);
	if (!err) {
		t = core_mono_ns();
		spin(iters);
		t = core_mono_ns() - t;
		err = pebs_channel__disable(ch);
	}
	if (!err && (!best->wall_ns || t < best->wall_ns)) {
		best->wall_ns = t;
		best->samples = count_samples(ch);
	}
	pebs_channel__close(ch);
	return err;
}

int pebs_budget__calibrate(const struct pebs_event *ev, uint64_t dense_period,
			   uint64_t sparse_period, unsigned int run_ms,
			   unsigned int rounds, double *cost_ns)
{
	struct cal_run dense = {0}, sparse = {0};
	uint64_t iters;
	unsigned int i;
	int err;

	if (!ev || !cost_ns || !dense_period || dense_period >= sparse_period)
		return core_err(-EINVAL, "calibrate: needs an event and a dense "
				"period below the sparse one (%llu, %llu)",
				(unsigned long long)dense_period,
				(unsigned long long)sparse_period);
	iters = iters_for(run_ms ? run_ms : 20);
	for (i = 0; i < (rounds ? rounds : 3); i++) {
		err = cal_run(ev, sparse_period, iters, &sparse);
		if (!err)
			err = cal_run(ev, dense_period, iters, &dense);
		if (err)
			return err;
	}
	if (dense.samples < sparse.samples + CAL_MIN_SAMPLES)
		return core_err(-ENODATA, "calibrate: %s gave %llu samples at "
				"period %llu, %llu at %llu: it does not count "
				"in a spin loop (calibrate with cpu-clock)",
				ev->name, (unsigned long long)dense.samples,
				(unsigned long long)dense_period,
				(unsigned long long)sparse.samples,
				(unsigned long long)sparse_period);
	if (dense.wall_ns <= sparse.wall_ns)
		return core_err(-EAGAIN, "calibrate: %s: the sampled runs were "
				"not slower (%llu ns vs %llu): too noisy a "
				"machine, try again or with longer runs",
				ev->name, (unsigned long long)dense.wall_ns,
				(unsigned long long)sparse.wall_ns);
	*cost_ns = (double)(dense.wall_ns - sparse.wall_ns) /
		   (double)(dense.samples - sparse.samples);
	return 0;
}

/* ---- an event counted per occurrence: a page-fault loop ------------ */

#define FLT_SAMPLE_EVERY	4	/* faults per sample, sampled runs */
#define FLT_COUNTED_PERIOD	(1ull << 62)	/* never reached */
#define FLT_ROUNDS		21	/* by default */
#define FLT_MAX_ROUNDS		64
#define FLT_MAX_OFF_ROUNDS	1024

static uint64_t thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* @pages fresh anonymous pages written once each (a fault each) */
static int fault_pages(unsigned long pages)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, pages * (unsigned long)page,
				PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return core_err(-errno, "calibrate: cannot map %lu pages "
				"for the page-fault loop", pages);
	for (unsigned long i = 0; i < pages; i++)
		p[i * (unsigned long)page] = (char)i;
	munmap((void *)p, pages * (unsigned long)page);
	return 0;
}

/* pages whose faults take about @run_ms of this thread's CPU */
static int pages_for(unsigned int run_ms, unsigned long *pages)
{
	unsigned long n = 256;
	uint64_t t;
	int err;

	for (;;) {
		t = thread_ns();
		err = fault_pages(n);
		t = thread_ns() - t;
		if (err)
			return err;
		if (t >= (uint64_t)run_ms * 250000u || n >= (1ul << 20))
			break;
		n *= 2;
	}
	*pages = (unsigned long)((double)n * (double)run_ms * 1e6 /
				 (double)(t ? t : 1));
	if (*pages < 256)
		*pages = 256;
	return 0;
}

/*
 * One run of @pages faults: bare (@period 0) or with @ev open on this
 * thread at @period, enabled unless @off; its CPU ns, the events counted
 * and the samples
 */
static int fault_run(const struct pebs_event *ev, uint64_t period, bool off,
		     uint64_t sample_type, unsigned long pages, uint64_t *ns,
		     uint64_t *events, uint64_t *samples)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = period, .disabled = true,
		  .sample_type = sample_type, .ring_pages = off ? 1 : 256);
	struct pebs_channel *ch = NULL;
	uint64_t t, count[5] = { 0 };
	int err;

	*events = *samples = 0;
	if (period) {
		err = pebs_channel__open(ev, 0, -1, &o, &ch);
		if (!err && !off)
			err = pebs_channel__enable(ch);
		if (err) {
			pebs_channel__close(ch);
			return err;
		}
	}
	t = thread_ns();
	err = fault_pages(pages);
	*ns = thread_ns() - t;
	if (ch) {
		if (!err)
			err = pebs_channel__disable(ch);
		/* { value, then what read_format adds } */
		if (!err && read(pebs_channel__fd(ch), count, sizeof(count)) <
		    (ssize_t)sizeof(count[0]))
			err = core_err(-EIO, "calibrate: cannot read %s's count",
				       ev->name);
		*events = count[0];
		*samples = count_samples(ch);
		pebs_channel__close(ch);
	}
	return err;
}

/* what the runs' samples carry: @st (0: the software default) without
   PERIOD, since a fixed period with a period field samples every event */
static uint64_t fault_sample_type(uint64_t st)
{
	st = (st ? st : PEBS_CHANNEL_SW_SAMPLE) & ~(uint64_t)PERF_SAMPLE_PERIOD;
	return st ? st : PERF_SAMPLE_IP;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int pebs_budget__calibrate_faults(const struct pebs_event *ev,
				  uint64_t sample_type, unsigned int run_ms,
				  unsigned int rounds, double *event_ns,
				  double *sample_ns)
{
	double occ[FLT_MAX_ROUNDS], smp[FLT_MAX_ROUNDS];
	uint64_t bare, counted, sampled, ev_c, ev_s, n_s, n;
	unsigned long pages;
	unsigned int i, got = 0, want;
	int err;

	if (!ev || !event_ns || rounds > FLT_MAX_ROUNDS)
		return core_err(-EINVAL, "calibrate: needs an event, a place "
				"for its cost and at most %u rounds",
				FLT_MAX_ROUNDS);
	sample_type = fault_sample_type(sample_type);
	err = pages_for(run_ms ? run_ms : 1, &pages);
	want = rounds ? rounds : FLT_ROUNDS;
again:
	for (i = got; !err && i < want; i++) {
		/* bare, counted and sampled, in turn (each first by turns) */
		err = fault_run(ev, 0, false, 0, pages, &bare, &n, &n);
		if (!err)
			err = fault_run(ev, FLT_COUNTED_PERIOD, false,
					sample_type, pages, &counted, &ev_c, &n);
		if (!err)
			err = fault_run(ev, FLT_SAMPLE_EVERY, false, sample_type,
					pages, &sampled, &ev_s, &n_s);
		if (err)
			break;
		if (ev_c < pages / 2)
			return core_err(-ENODATA, "calibrate: %s counted %llu "
					"events in %lu page faults: it does "
					"not count in a page-fault loop",
					ev->name, (unsigned long long)ev_c,
					pages);
		occ[got] = ((double)counted - (double)bare) / (double)ev_c;
		smp[got++] = n_s ? ((double)sampled - (double)counted) /
				   (double)n_s : 0;
	}
	if (err)
		return err;
	*event_ns = median(occ, got);
	/* the default rounds' median at or under 0: more rounds, since a
	   cost of about 2 % of a fault hides in a noisy machine's spread
	   (a calibration of 0 in one of four runs of record-budget.t here,
	   2026-11-28: counting looked free, and a budget under its cost
	   was met without the duty cycle it needs); at most
	   FLT_MAX_ROUNDS */
	if (!rounds && !(*event_ns > 0) && want < FLT_MAX_ROUNDS) {
		want = FLT_MAX_ROUNDS;
		goto again;
	}
	if (*event_ns < 0)
		*event_ns = 0;	/* below what this machine's noise shows */
	if (sample_ns) {
		*sample_ns = median(smp, got);
		if (!(*sample_ns > 0))
			return core_err(-EAGAIN, "calibrate: %s: the sampled "
					"runs were not slower than the "
					"counted ones: too noisy a machine, "
					"try again or with longer runs",
					ev->name);
	}
	return 0;
}

/*
 * An event open but disabled still costs in every page fault: its open
 * keeps the kernel's static key of software events on
 * (perf_swevent_enabled[id], taken at the event's creation, dropped at
 * its free, not at PERF_EVENT_IOC_DISABLE), so each fault runs
 * ___perf_sw_event (the recursion context, the hash lookup of the CPU's
 * swevent list, its empty walk: a disabled event is not on the list).
 * Bare and disabled runs of the same faults interleaved, short, many.
 */
#define OFF_ROUNDS	61

int pebs_budget__calibrate_off(const struct pebs_event *ev,
			       uint64_t sample_type, unsigned int run_ms,
			       unsigned int rounds, double *off_ns)
{
	double d[FLT_MAX_OFF_ROUNDS];
	uint64_t bare, off, n;
	unsigned long pages;
	unsigned int i;
	int err;

	if (!ev || !off_ns || rounds > FLT_MAX_OFF_ROUNDS)
		return core_err(-EINVAL, "calibrate: needs an event, a place "
				"for its cost and at most %u rounds",
				FLT_MAX_OFF_ROUNDS);
	sample_type = fault_sample_type(sample_type);
	err = pages_for(run_ms ? run_ms : 1, &pages);
	for (i = 0; !err && i < (rounds ? rounds : OFF_ROUNDS); i++) {
		/* each first by turns */
		if (i % 2) {
			err = fault_run(ev, FLT_COUNTED_PERIOD, true,
					sample_type, pages, &off, &n, &n);
			if (!err)
				err = fault_run(ev, 0, false, 0, pages, &bare,
						&n, &n);
		} else {
			err = fault_run(ev, 0, false, 0, pages, &bare, &n, &n);
			if (!err)
				err = fault_run(ev, FLT_COUNTED_PERIOD, true,
						sample_type, pages, &off, &n,
						&n);
		}
		d[i] = ((double)off - (double)bare) / (double)pages;
	}
	if (err)
		return err;
	*off_ns = median(d, i);
	if (*off_ns < 0)
		*off_ns = 0;	/* below what this machine's noise shows */
	return 0;
}

/* ---- a context switch of a task with an enabled event ------------------ */

/*
 * A task whose perf context holds an enabled event pays at each switch
 * out and in (the context's events scheduled out and in); a recording's
 * tracking event is enabled all the time, so its tasks pay it in the off
 * windows too. Two threads pinned to the calling thread's CPU pass a
 * byte through pipes; the calling thread's CPU per round trip (one
 * switch out and in of it), bare and with @ev open and enabled on it,
 * interleaved.
 */
#define SW_ROUNDS	21
#define SW_TRIPS	200	/* round trips per run */

struct sw_pipes {
	int to[2], from[2];
};

static void *sw_echo(void *arg)
{
	struct sw_pipes *p = arg;
	char c;

	while (read(p->to[0], &c, 1) == 1 && c != 'q')
		if (write(p->from[1], &c, 1) != 1)
			break;
	return NULL;
}

/* SW_TRIPS round trips: the calling thread's CPU ns per trip */
static int sw_run(struct sw_pipes *p, double *ns)
{
	uint64_t t = thread_ns();
	char c = 'p';

	for (unsigned int i = 0; i < SW_TRIPS; i++)
		if (write(p->to[1], &c, 1) != 1 || read(p->from[0], &c, 1) != 1)
			return core_err(-EIO, "calibrate: the context-switch "
					"loop's pipe failed");
	*ns = (double)(thread_ns() - t) / SW_TRIPS;
	return 0;
}

static int sw_rounds(const struct pebs_event *ev, struct sw_pipes *p,
		     unsigned int rounds, double *d)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = FLT_COUNTED_PERIOD,
		  .ring_pages = 1, .sample_type = PERF_SAMPLE_IP);
	struct pebs_channel *ch;
	double bare, with;
	int err = 0;

	for (unsigned int i = 0; !err && i < rounds; i++) {
		err = sw_run(p, &bare);
		if (!err)
			err = pebs_channel__open(ev, 0, -1, &o, &ch);
		if (err)
			break;
		err = sw_run(p, &with);
		pebs_channel__close(ch);
		d[i] = with - bare;
	}
	return err;
}

int pebs_budget__calibrate_switch(const struct pebs_event *ev,
				  unsigned int rounds, double *switch_ns)
{
	double d[FLT_MAX_OFF_ROUNDS];
	struct sw_pipes p = { { -1, -1 }, { -1, -1 } };
	cpu_set_t old, one;
	pthread_t echo;
	char q = 'q';
	int err, cpu = sched_getcpu();

	if (!ev || !switch_ns || rounds > FLT_MAX_OFF_ROUNDS)
		return core_err(-EINVAL, "calibrate: needs an event, a place "
				"for its cost and at most %u rounds",
				FLT_MAX_OFF_ROUNDS);
	rounds = rounds ? rounds : SW_ROUNDS;
	if (sched_getaffinity(0, sizeof(old), &old) || cpu < 0)
		return core_err(-errno, "calibrate: sched_getaffinity: %s",
				strerror(errno));
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	/* the echo thread is made on the same CPU: every trip switches */
	if (sched_setaffinity(0, sizeof(one), &one))
		return core_err(-errno, "calibrate: sched_setaffinity: %s",
				strerror(errno));
	if (pipe2(p.to, O_CLOEXEC) || pipe2(p.from, O_CLOEXEC)) {
		err = core_err(-errno, "calibrate: pipe: %s", strerror(errno));
		goto out;
	}
	err = -pthread_create(&echo, NULL, sw_echo, &p);
	if (err) {
		core_err(err, "calibrate: pthread_create: %s", strerror(-err));
		goto out;
	}
	err = sw_rounds(ev, &p, rounds, d);
	if (write(p.to[1], &q, 1) != 1) {
		close(p.to[1]);		/* EOF ends it then */
		p.to[1] = -1;
	}
	pthread_join(echo, NULL);
	if (!err) {
		*switch_ns = median(d, rounds);
		if (*switch_ns < 0)
			*switch_ns = 0;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (p.to[i] >= 0)
			close(p.to[i]);
		if (p.from[i] >= 0)
			close(p.from[i]);
	}
	sched_setaffinity(0, sizeof(old), &old);
	return err;
}
