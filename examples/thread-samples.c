// SPDX-License-Identifier: MIT
/*
 * thread-samples.c - the samples of a perf.data recording per command,
 * as `perf report --sort comm` counts them: the records in time order
 * (pebs_ordered__process), COMM, FORK and EXIT records decoded
 * (pebs_record__decode) into a thread table (pebs_threads), and each
 * sample named by the comm its thread had at the sample's time.
 *
 *	thread-samples [FILE]	(default perf.data)
 *
 * Prints one line per command, most samples first: the count, the
 * command (":TID" when the recording never named the thread).
 *
 * Shown in pebs_ordered(3) and pebs_threads(3).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim.h"

#define MAX_ROWS 4096

struct row {
	const char *comm;	/* interned by the table: compare pointers */
	int32_t tid;		/* when comm is NULL */
	uint64_t samples;
};

struct ctx {
	struct pebs_perfdata *pd;
	struct pebs_threads *threads;
	size_t id_size;		/* the sample_id trailer of other records */
	struct row rows[MAX_ROWS];
	unsigned int nr_rows;
	uint64_t undecoded;
};

static void count(struct ctx *x, const char *comm, int32_t tid)
{
	for (unsigned int i = 0; i < x->nr_rows; i++)
		if (x->rows[i].comm == comm && (comm || x->rows[i].tid == tid)) {
			x->rows[i].samples++;
			return;
		}
	if (x->nr_rows < MAX_ROWS)
		x->rows[x->nr_rows++] = (struct row){ comm, tid, 1 };
}

/* Called by pebs_ordered__process for each record, in time order. */
static int one(void *arg, const struct perf_event_header *ev, uint64_t time)
{
	struct ctx *x = arg;
	struct pebs_sample s;
	struct pebs_record r;

	if (ev->type == PERF_RECORD_SAMPLE) {
		if (pebs_perfdata__sample(x->pd, ev, &s, NULL)) {
			x->undecoded++;
			return 0;
		}
		count(x, pebs_threads__comm_at(x->threads, (int32_t)s.tid,
					       s.time), (int32_t)s.tid);
		return 0;
	}
	/* perf's own records (type >= 64) carry no sample_id */
	if (pebs_record__decode(ev, ev->type < 64 ? x->id_size : 0, &r))
		return 0;	/* a type without a view: not a thread's */
	return pebs_threads__add_record(x->threads, &r,
					time == PEBS_ORDERED_NO_TIME ? 0 : time);
}

static int by_samples(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->samples != y->samples ? (x->samples < y->samples ? 1 : -1)
					: 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "perf.data";
	const struct perf_event_attr *attr;
	struct pebs_sample_layout layout;
	struct ctx *x = calloc(1, sizeof(*x));
	unsigned int flags = 0;
	int err = -ENOMEM;

	if (!x)
		goto out;
	err = pebs_perfdata__open(path, &x->pd);
	if (!err)
		err = pebs_threads__new(&x->threads);
	if (err)
		goto out;
	/* the trailer other records carry with sample_id_all */
	attr = pebs_perfdata__attr(x->pd, 0, NULL, NULL);
	if (attr && attr->sample_id_all &&
	    !pebs_sample_layout__init(&layout, attr))
		x->id_size = layout.id_size;
	err = pebs_ordered__process(x->pd, one, x, &flags);
	if (err)
		goto out;
	qsort(x->rows, x->nr_rows, sizeof(*x->rows), by_samples);
	for (unsigned int i = 0; i < x->nr_rows; i++) {
		if (x->rows[i].comm)
			printf("%8" PRIu64 "  %s\n", x->rows[i].samples,
			       x->rows[i].comm);
		else
			printf("%8" PRIu64 "  :%d\n", x->rows[i].samples,
			       x->rows[i].tid);
	}
	printf("%zu threads, %" PRIu64 " undecoded samples%s\n",
	       pebs_threads__nr(x->threads), x->undecoded,
	       flags & PEBS_ORDERED_FILE_ORDER ? ", in file order (no TIME)"
					       : "");
out:
	if (err)
		fprintf(stderr, "thread-samples: %s\n", pebs_errmsg()[0] ?
			pebs_errmsg() : strerror(-err));
	if (x) {
		pebs_threads__delete(x->threads);
		pebs_perfdata__close(x->pd);
		free(x);
	}
	return err ? 1 : 0;
}
