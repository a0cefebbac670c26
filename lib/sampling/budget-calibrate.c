// SPDX-License-Identifier: MIT
/*
 * budget-calibrate.c - what one sample of an event costs here: a spin
 * loop of a fixed number of iterations on the calling thread, sampled
 * at a sparse and at a dense period, alternately; the fastest run of
 * each tells the cost, (wall dense - wall sparse) / (samples dense -
 * samples sparse). Wall time, not the thread's CPU time: the time a
 * sample's interrupt takes is not always charged to the task.
 */
#include <errno.h>
#include <stdint.h>
#include <time.h>

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
