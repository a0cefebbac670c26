// SPDX-License-Identifier: MIT
/*
 * obs-stats.c - Shim's trustable filter and the summaries of a stream
 * of observer rows: achieved period (a histogram exact to 0.1 %), kept
 * fraction, and per observed CPU each thread's residency and counter
 * totals. Pure arithmetic on rows: no CPU feature is touched, so it is
 * unit-tested on synthetic rows anywhere.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/observe.h"
#include "core/internal.h"

bool pebs_trustable(uint64_t begin0, uint64_t end0, uint64_t begin1,
		    uint64_t end1, uint32_t lo_ppm, uint32_t hi_ppm)
{
	unsigned __int128 db, de;

	if (begin1 <= begin0 || end1 < end0)
		return false;
	db = begin1 - begin0;
	de = end1 - end0;
	/* lo/1e6 <= de/db <= hi/1e6, without rounding */
	return de * 1000000 >= db * lo_ppm && de * 1000000 <= db * hi_ppm;
}

/*
 * Period histogram: exact below 1024 cycles, then 512 buckets per power
 * of two (relative error under 0.1 %).
 */
#define HIST_EXACT	1024
#define HIST_SUB	512
#define HIST_BUCKETS	(HIST_EXACT + 54 * HIST_SUB)

static unsigned int hist_bucket(uint64_t v)
{
	unsigned int e;

	if (v < HIST_EXACT)
		return v;
	e = 63 - __builtin_clzll(v) - 9;	/* v >> e in [512, 1024) */
	return HIST_EXACT + (e - 1) * HIST_SUB + ((v >> e) - HIST_SUB);
}

static uint64_t hist_value(unsigned int b)
{
	unsigned int e;
	uint64_t m;

	if (b < HIST_EXACT)
		return b;
	e = (b - HIST_EXACT) / HIST_SUB + 1;
	m = (b - HIST_EXACT) % HIST_SUB + HIST_SUB;
	return (m << e) + ((1ULL << e) >> 1);
}

struct thr_table {
	struct pebs_obs_thread *v;
	unsigned int n, last;
	size_t cap;
};

struct pebs_obs_stats {
	unsigned int nr_cpus, nr_events;
	size_t words;
	uint32_t lo_ppm, hi_ppm;
	bool have_prev;
	uint64_t *prev;
	uint64_t rows, kept, kept_cycles, all_cycles;
	uint64_t *hist;
	struct thr_table *thr;
};

int pebs_obs_stats__new(const struct pebs_observer *obs, uint32_t lo_ppm,
			uint32_t hi_ppm, struct pebs_obs_stats **stp)
{
	return pebs_obs_stats__new_layout(pebs_observer__nr_cpus(obs),
					  pebs_observer__nr_events(obs),
					  lo_ppm, hi_ppm, stp);
}

int pebs_obs_stats__new_layout(unsigned int nr_cpus, unsigned int nr_events,
			       uint32_t lo_ppm, uint32_t hi_ppm,
			       struct pebs_obs_stats **stp)
{
	struct pebs_obs_stats *st;

	if (lo_ppm > hi_ppm)
		return core_err(-EINVAL, "trustable bounds: low %u above high %u ppm",
				lo_ppm, hi_ppm);
	if (nr_events > PEBS_OBS_MAX_EVENTS)
		return core_err(-EINVAL, "observer rows: %u events, at most %d",
				nr_events, PEBS_OBS_MAX_EVENTS);
	st = calloc(1, sizeof(*st));
	if (!st)
		return core_err(-ENOMEM, "out of memory");
	st->nr_cpus = nr_cpus;
	st->nr_events = nr_events;
	st->words = 2 + (size_t)nr_cpus * (PEBS_OBS_CPU_HEAD + nr_events);
	st->lo_ppm = lo_ppm;
	st->hi_ppm = hi_ppm;
	st->prev = calloc(st->words, sizeof(*st->prev));
	st->hist = calloc(HIST_BUCKETS, sizeof(*st->hist));
	st->thr = calloc(st->nr_cpus ? st->nr_cpus : 1, sizeof(*st->thr));
	if (!st->prev || !st->hist || !st->thr) {
		pebs_obs_stats__delete(st);
		return core_err(-ENOMEM, "out of memory");
	}
	*stp = st;
	return 0;
}

void pebs_obs_stats__delete(struct pebs_obs_stats *st)
{
	if (!st)
		return;
	if (st->thr)
		for (unsigned int i = 0; i < st->nr_cpus; i++)
			free(st->thr[i].v);
	free(st->thr);
	free(st->hist);
	free(st->prev);
	free(st);
}

static struct pebs_obs_thread *thr_get(struct thr_table *t, int32_t tgid,
				       int32_t pid)
{
	struct pebs_obs_thread *th;

	/* the thread seen last is by far the most likely */
	if (t->n && t->v[t->last].pid == pid && t->v[t->last].tgid == tgid)
		return &t->v[t->last];
	for (unsigned int i = 0; i < t->n; i++) {
		if (t->v[i].pid == pid && t->v[i].tgid == tgid) {
			t->last = i;
			return &t->v[i];
		}
	}
	if (core_grow(&t->v, &t->cap, (size_t)t->n + 1, sizeof(*t->v)))
		return NULL;
	th = &t->v[t->n];
	memset(th, 0, sizeof(*th));
	th->tgid = tgid;
	th->pid = pid;
	t->last = t->n++;
	return th;
}

int pebs_obs_stats__add(struct pebs_obs_stats *st, const uint64_t *row,
			uint64_t *deltas)
{
	const uint64_t *p = st->prev, *w = row + 2, *pw = p + 2;
	uint64_t dt;
	bool keep;

	if (!st->have_prev) {
		memcpy(st->prev, row, st->words * sizeof(*row));
		st->have_prev = true;
		if (deltas)
			memset(deltas, 0, (size_t)st->nr_cpus * st->nr_events *
			       sizeof(*deltas));
		return 0;
	}
	st->rows++;
	dt = row[0] > p[0] ? row[0] - p[0] : 0;	/* never backwards */
	st->hist[hist_bucket(dt)]++;
	keep = pebs_trustable(p[0], p[1], row[0], row[1], st->lo_ppm,
			      st->hi_ppm);
	for (unsigned int i = 0; i < st->nr_cpus; i++) {
		bool switched = w[2] != pw[2] || w[0] != pw[0] || w[1] != pw[1];
		uint64_t own = switched ? dt - dt / 2 : dt;
		struct pebs_obs_thread *th;

		if (switched) {
			/*
			 * The CPU switched inside the interval, at a time the
			 * observer cannot see: half of it to each side.
			 */
			th = thr_get(&st->thr[i], (int32_t)pw[0], (int32_t)pw[1]);
			if (!th)
				return core_err(-ENOMEM, "out of memory");
			th->all_cycles += dt / 2;
			if (keep)
				th->cycles += dt / 2;
		}
		th = thr_get(&st->thr[i], (int32_t)w[0], (int32_t)w[1]);
		if (!th)
			return core_err(-ENOMEM, "out of memory");
		th->all_cycles += own;
		if (keep) {
			th->cycles += own;
			th->samples++;
		}
		for (unsigned int e = 0; e < st->nr_events; e++) {
			uint64_t d = w[PEBS_OBS_CPU_HEAD + e] -
				     pw[PEBS_OBS_CPU_HEAD + e];

			if (deltas)
				deltas[i * st->nr_events + e] = d;
			if (keep)
				th->counters[e] += d;
		}
		w += PEBS_OBS_CPU_HEAD + st->nr_events;
		pw += PEBS_OBS_CPU_HEAD + st->nr_events;
	}
	st->all_cycles += dt;
	if (keep) {
		st->kept++;
		st->kept_cycles += dt;
	}
	memcpy(st->prev, row, st->words * sizeof(*row));
	return keep;
}

uint64_t pebs_obs_stats__rows(const struct pebs_obs_stats *st)
{
	return st->rows;
}

uint64_t pebs_obs_stats__kept(const struct pebs_obs_stats *st)
{
	return st->kept;
}

uint64_t pebs_obs_stats__kept_cycles(const struct pebs_obs_stats *st)
{
	return st->kept_cycles;
}

uint64_t pebs_obs_stats__all_cycles(const struct pebs_obs_stats *st)
{
	return st->all_cycles;
}

uint64_t pebs_obs_stats__period(const struct pebs_obs_stats *st, double q)
{
	uint64_t rank, seen = 0;

	if (!st->rows)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	rank = (uint64_t)(q * st->rows + 0.999999);
	if (rank < 1)
		rank = 1;
	for (unsigned int b = 0; b < HIST_BUCKETS; b++) {
		seen += st->hist[b];
		if (seen >= rank)
			return hist_value(b);
	}
	return hist_value(HIST_BUCKETS - 1);
}

static int thr_cmp(const void *a, const void *b)
{
	const struct pebs_obs_thread *x = a, *y = b;

	if (x->cycles != y->cycles)
		return x->cycles < y->cycles ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int pebs_obs_stats__threads(const struct pebs_obs_stats *st,
			    unsigned int cpu_idx, struct pebs_obs_thread *out,
			    unsigned int max)
{
	const struct thr_table *t;

	if (cpu_idx >= st->nr_cpus || (max && !out))
		return -EINVAL;
	t = &st->thr[cpu_idx];
	if (!max)
		return t->n;
	if (max >= t->n) {
		memcpy(out, t->v, t->n * sizeof(*out));
		qsort(out, t->n, sizeof(*out), thr_cmp);
	} else {
		struct pebs_obs_thread *all = malloc(t->n * sizeof(*all));

		if (!all)
			return core_err(-ENOMEM, "out of memory");
		memcpy(all, t->v, t->n * sizeof(*all));
		qsort(all, t->n, sizeof(*all), thr_cmp);
		memcpy(out, all, max * sizeof(*out));
		free(all);
	}
	return t->n;
}
