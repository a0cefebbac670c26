// SPDX-License-Identifier: MIT
/*
 * obs-run.c - the observation loop: pebs_observer__read as fast as it
 * goes (or one every period_cycles TSC cycles), rows into a chunk, and
 * between chunks the caller's on_rows (filtering, summing, writing) and
 * on_interval; until the duration has passed, max_rows rows were taken,
 * the stop flag is set or a callback says stop. The hot loop does
 * nothing else, so the pauses stay between chunks.
 */
#include <errno.h>
#include <stdlib.h>

#include "pebsshim/observe.h"
#include "core/internal.h"
#include "core/opts.h"

/* rows between the callbacks: small, so the pauses stay short */
#define CHUNK_ROWS	1024

struct run {
	struct pebs_observer_run_opts o;
	uint64_t deadline, stop_at, next_print, next, rows;
};

/* the first row sets the deadline and the first interval */
static void start(struct run *r, uint64_t tsc)
{
	const struct pebs_observer_run_opts *o = &r->o;

	r->deadline = o->duration_cycles ? tsc + o->duration_cycles : UINT64_MAX;
	r->next_print = o->interval_cycles ? tsc + o->interval_cycles : 0;
	r->stop_at = r->next_print && r->next_print < r->deadline ?
		     r->next_print : r->deadline;
}

/*
 * Fill @rows with up to CHUNK_ROWS observations. Returns how many, with
 * *done set when the run is over; or -errno of a read.
 */
static int chunk(struct run *r, struct pebs_observer *obs, uint64_t *rows,
		 size_t words, bool *done)
{
	const struct pebs_observer_run_opts *o = &r->o;
	unsigned int n = 0;
	int err;

	while (n < CHUNK_ROWS) {
		uint64_t *row = rows + n * words;

		if (o->period_cycles) {
			uint64_t now;

			do
				now = __builtin_ia32_rdtsc();
			while (now < r->next);
			r->next = r->next + o->period_cycles > now ?
				  r->next + o->period_cycles :
				  now + o->period_cycles;
		}
		if (o->stop && *o->stop) {
			*done = true;
			break;
		}
		err = pebs_observer__read(obs, row, words);
		if (err == -EAGAIN) {
			/* a slot stuck mid-update must not stop time */
			if (o->again)
				(*o->again)++;
			if (r->rows && __builtin_ia32_rdtsc() >= r->deadline) {
				*done = true;
				break;
			}
			continue;
		}
		if (err)
			return err;
		if (!r->rows++)
			start(r, row[0]);
		n++;
		if (o->max_rows && r->rows >= o->max_rows) {
			*done = true;
			break;
		}
		if (row[1] >= r->stop_at) {
			*done = row[1] >= r->deadline;
			break;
		}
	}
	return n;
}

int pebs_observer__run(struct pebs_observer *obs,
		       const struct pebs_observer_run_opts *opts)
{
	struct run r = { 0 };
	uint64_t *rows, t_last = 0;
	size_t words;
	int err;

	if (!obs)
		return core_err(-EINVAL, "observer run: no observer");
	err = opts_copy(&r.o, sizeof(r.o), opts,
			     "pebs_observer_run_opts");
	if (err)
		return err;
	if (!r.o.duration_cycles && !r.o.max_rows && !r.o.stop)
		return core_err(-EINVAL, "observer run: nothing ends it: give "
				"duration_cycles, max_rows or stop");
	words = pebs_observer__row_words(obs);
	rows = calloc(CHUNK_ROWS, words * sizeof(*rows));
	if (!rows)
		return core_err(-ENOMEM, "observer run: out of memory");
	for (bool done = false; !done;) {
		int n = chunk(&r, obs, rows, words, &done);

		if (n < 0) {
			err = n;
			break;
		}
		if (!n)
			continue;
		t_last = rows[(n - 1) * words];
		if (r.o.on_rows) {
			err = r.o.on_rows(r.o.ctx, rows, n);
			if (err < 0)
				break;
			done |= err > 0;
			err = 0;
		}
		if (r.next_print && t_last >= r.next_print && !done) {
			if (r.o.on_interval) {
				err = r.o.on_interval(r.o.ctx, t_last);
				if (err < 0)
					break;
				done |= err > 0;
				err = 0;
			}
			while (r.next_print <= t_last)
				r.next_print += r.o.interval_cycles;
			r.stop_at = r.next_print < r.deadline ? r.next_print :
				    r.deadline;
		}
	}
	free(rows);
	return err;
}
