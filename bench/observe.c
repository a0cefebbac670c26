// SPDX-License-Identifier: MIT
/*
 * observe.c - a benchmark (make bench): the observer's achieved
 * period in TSC cycles (one table slot + two rdtscp, no counters),
 * median and p99, against perf's minimum sampling period here (10 us).
 *
 * With /dev/pebs_map the slot is the module's; without it, slot 0 of an
 * in-memory table (pebs_map__from_memory) that a writer thread on
 * another CPU rewrites under the seqcount protocol, as the scheduler
 * hook would. Figures only: nothing is asserted. Each variant's last
 * line is "result NAME VALUE UNIT" for bench/run.sh.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim.h"
#include "core/barrier.h"

#define CMD "bench/observe"
#define ROWS 200000
#define PERF_MIN_PERIOD_NS 10000	/* perf cpu-clock floor measured here */

struct fake_table {
	struct pebs_map_header h;
	struct pebs_map_slot slot[2];
} __attribute__((aligned(64)));

static struct fake_table table;
static atomic_bool stop;
static atomic_ullong writes;

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* a "scheduler" switching tasks on CPU 0 every ~2000 cycles */
static void *writer(void *arg)
{
	struct pebs_map_slot *s = &table.slot[0];
	uint32_t seq = 0;
	int32_t tid = 1000;

	(void)arg;
	pin(0);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		uint64_t t0 = __builtin_ia32_rdtsc();

		PEBS_WRITE_ONCE(s->seq, ++seq);
		pebs_smp_wmb();
		tid = tid == 1000 ? 1001 : 1000;
		PEBS_WRITE_ONCE(s->tgid, 1000);
		PEBS_WRITE_ONCE(s->pid, tid);
		PEBS_WRITE_ONCE(s->switches, s->switches + 1);
		pebs_smp_wmb();
		PEBS_WRITE_ONCE(s->seq, ++seq);
		atomic_fetch_add_explicit(&writes, 1, memory_order_relaxed);
		while (__builtin_ia32_rdtsc() - t0 < 2000)
			;
	}
	return NULL;
}

static void fake_table_init(void)
{
	memset(&table, 0, sizeof(table));
	pebs_map_table_init(&table.h, sizeof(table), 2, 0, 0,
			    PEBS_MAP_HOOK_TRACEPOINT);
}

static inline uint64_t rdtscp(void)
{
	unsigned int aux;

	return __builtin_ia32_rdtscp(&aux);
}

/* the inlined equivalent of pebs_map__read_slot: seq, tgid, pid only */
static inline int inline_slot(const struct pebs_map_slot *s, uint64_t *w)
{
	for (int i = 0; i < 1000; i++) {
		uint32_t seq = pebs_load_acquire(&s->seq);
		int32_t tgid, pid;

		if (seq & 1)
			continue;
		tgid = PEBS_READ_ONCE(s->tgid);
		pid = PEBS_READ_ONCE(s->pid);
		pebs_smp_rmb();
		if (PEBS_READ_ONCE(s->seq) == seq) {
			w[0] = (uint64_t)(int64_t)tgid;
			w[1] = (uint64_t)(int64_t)pid;
			w[2] = 0;
			return 0;
		}
	}
	return -EAGAIN;
}

/*
 * The TSC's step: back-to-back rdtscp deltas cluster around a few
 * values (neighbours within 2 cycles are one cluster: a step of 26.5
 * shows as 79 and 80); the smallest distance between two clusters is
 * the counter's granularity (AMD Zen advances the TSC at the 100 MHz
 * reference clock, ~26.5 cycles at a time). Returns 0 when only one
 * cluster was frequent.
 */
static double tsc_step(void)
{
	static unsigned int hist[4096];
	double center = 0, prev_center = 0, step = 0, weight = 0;
	unsigned int last = 0;
	uint64_t prev = rdtscp();

	memset(hist, 0, sizeof(hist));
	for (int i = 0; i < 200000; i++) {
		uint64_t t = rdtscp();

		if (t - prev < 4096)
			hist[t - prev]++;
		prev = t;
	}
	for (unsigned int v = 1; v <= 4096; v++) {
		bool frequent = v < 4096 && hist[v] >= 200;	/* 0.1 % */

		if (frequent && weight && v - last <= 2) {
			center += (v - center) * hist[v] / (weight + hist[v]);
			weight += hist[v];
			last = v;
			continue;
		}
		/* a cluster ends: compare it with the one before */
		if (weight) {
			if (prev_center && (!step || center - prev_center < step))
				step = center - prev_center;
			prev_center = center;
			weight = 0;
		}
		if (frequent) {
			center = v;
			weight = hist[v];
			last = v;
		}
	}
	return step;
}

enum variant { V_API, V_INLINE, V_TSC };

/* where pebs_observer__run's chunks go: the next rows of the buffer */
struct fill {
	uint64_t *rows;
	size_t words;
	unsigned int n;
};

static int fill_rows(void *ctx, const uint64_t *rows, unsigned int n)
{
	struct fill *f = ctx;

	memcpy(f->rows + (size_t)f->n * f->words, rows,
	       (size_t)n * f->words * sizeof(*rows));
	f->n += n;
	return 0;
}

static int run(struct pebs_observer *obs, enum variant v,
	       const struct pebs_map_slot *slot, uint64_t *rows,
	       uint64_t hz, const char *what, const char *key)
{
	size_t words = pebs_observer__row_words(obs);
	struct fill fill = { .rows = rows, .words = words };
	PEBS_OPTS(pebs_observer_run_opts, ro, .max_rows = ROWS,
		  .on_rows = fill_rows, .ctx = &fill);
	struct pebs_obs_stats *st;
	uint64_t med, p99;
	int err = 0;

	/* the library's loop; the other variants are what it is measured
	   against, each a loop of its own */
	if (v == V_API)
		err = pebs_observer__run(obs, &ro);
	for (unsigned int n = 0; v != V_API && n < ROWS;) {
		uint64_t *row = rows + n * words;

		if (v == V_INLINE) {
			row[0] = rdtscp();
			err = inline_slot(slot, row + 2);
			row[1] = rdtscp();
		} else {
			row[0] = rdtscp();
			row[2] = row[3] = row[4] = 0;
			row[1] = rdtscp();
			err = 0;
		}
		if (err == -EAGAIN)
			continue;
		if (err)
			return err;
		n++;
	}
	if (err)
		return err;
	err = pebs_obs_stats__new(obs, 990000, 1010000, &st);
	if (err)
		return err;
	for (unsigned int n = 0; n < ROWS && err >= 0; n++)
		err = pebs_obs_stats__add(st, rows + n * words, NULL);
	if (err < 0) {
		pebs_obs_stats__delete(st);
		return err;
	}
	med = pebs_obs_stats__period(st, 0.5);
	p99 = pebs_obs_stats__period(st, 0.99);
	printf("  %-34s median %5llu cycles (%5.1f ns)  p99 %6llu cycles  trustable %5.1f %%  %5.0fx finer than perf\n",
	       what, (unsigned long long)med, med * 1e9 / hz,
	       (unsigned long long)p99,
	       100.0 * pebs_obs_stats__kept(st) / pebs_obs_stats__rows(st),
	       med ? PERF_MIN_PERIOD_NS * 1e-9 * hz / med : 0.0);
	printf("result %s %llu cycles\n", key, (unsigned long long)med);
	pebs_obs_stats__delete(st);
	return 0;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int on_cpu = ncpu > 1 ? 1 : 0, err, rc = 1;
	struct pebs_observer *obs = NULL;
	struct pebs_map *map = NULL;
	const struct pebs_map_slot *slot = NULL;
	bool fake = false, writing = false;
	pthread_t thr;
	uint64_t hz, *rows = NULL;
	double step;

	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			printf("usage: observe\n\n"
			       "The observer's period in TSC cycles: rdtscp, one table slot\n"
			       "(CPU 0's), rdtscp; no counters. Uses /dev/pebs_map when the\n"
			       "module is loaded, else an in-memory table rewritten by a\n"
			       "writer thread. Compares with perf's 10 us minimum period.\n");
			return 0;
		}
		fprintf(stderr, CMD ": unexpected argument '%s': see --help\n",
			argv[1]);
		return 2;
	}
	if (!pebs_cpu_has_rdtscp()) {
		printf("observer period: skipped, this CPU has no rdtscp (under qemu use -cpu max)\n");
		return 0;
	}
	err = pebs_tsc_hz(200, &hz);
	if (err)
		goto out_err;
	err = pebs_map__open(NULL, &map);
	if (err == -ENOENT) {
		fake_table_init();
		err = pebs_map__from_memory(&table, sizeof(table), NULL, 0, &map);
		if (err)
			goto out_err;
		fake = true;
		slot = &table.slot[0];
		atomic_store(&stop, false);
		if (pthread_create(&thr, NULL, writer, NULL)) {
			fprintf(stderr, CMD ": cannot start the writer thread\n");
			goto out;
		}
		writing = true;
	} else if (err) {
		goto out_err;
	}
	PEBS_OPTS(pebs_observer_opts, opts, .map = map);
	err = pebs_observer__new(on_cpu, &opts, &obs);
	if (err)
		goto out_err;
	err = pebs_observer__add_cpu(obs, 0);
	if (err < 0)
		goto out_err;
	rows = calloc(ROWS, pebs_observer__row_words(obs) * sizeof(*rows));
	if (!rows) {
		fprintf(stderr, CMD ": out of memory\n");
		goto out;
	}
	printf("observer on CPU %d reading CPU 0's slot of %s\n", on_cpu,
	       fake ? "an in-memory table (no /dev/pebs_map here: pebs_map__from_memory, a writer thread on CPU 0 switching tasks every ~2000 cycles)"
		    : PEBS_MAP_DEVICE);
	printf("TSC %.1f MHz (against CLOCK_MONOTONIC); perf's minimum period here, 10 us = %.0f cycles; %d rows each:\n",
	       hz / 1e6, PERF_MIN_PERIOD_NS * 1e-9 * hz, ROWS);
	step = tsc_step();
	if (step)
		printf("TSC step: ~%.1f cycles between rdtscp values: a 1 %% trustable band needs periods over ~%.0f cycles; below that the kept fraction measures the step, not the observer\n",
		       step, step * 100);
	else
		printf("TSC step: not resolved (back-to-back rdtscp deltas take one value)\n");
	err = run(obs, V_API, slot, rows, hz, "pebs_observer__read (map call)",
		  "observer-period");
	if (!err && fake)
		err = run(obs, V_INLINE, slot, rows, hz,
			  "inlined slot read (tgid, pid)",
			  "observer-period-inline");
	if (!err)
		err = run(obs, V_TSC, slot, rows, hz,
			  "two rdtscp only (the floor)", "rdtscp-pair");
	if (err)
		goto out_err;
	if (fake)
		printf("writer updates during the runs: %llu\n",
		       (unsigned long long)atomic_load(&writes));
	rc = 0;
	goto out;

out_err:
	fprintf(stderr, CMD ": %s\n", pebs_errmsg());
out:
	if (writing) {
		atomic_store(&stop, true);
		pthread_join(thr, NULL);
	}
	free(rows);
	pebs_observer__delete(obs);
	pebs_map__close(map);
	return rc;
}
