// SPDX-License-Identifier: MIT
/*
 * attrib-threads.c - whose are the samples: sample this process's page
 * faults while two named threads fault in fresh pages, feed every
 * sample and side-band record to an attribution engine (pebs_attrib, by
 * the samples' TID) and print, per thread, its name (from the COMM
 * records the kernel sent when the threads named themselves) and its
 * sample count.
 *
 *	attrib-threads [PAGES_A [PAGES_B]]	(default 100 and 200)
 *
 * Prints one line per thread: "worker-a" and "worker-b" have at least
 * PAGES_A and PAGES_B samples (one per page; their stacks fault too).
 * Needs perf_event_paranoid <= 2 (per-CPU channels of this task).
 *
 * Shown in pebs_attrib(3).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np(), when built without make */
#endif
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pebsshim.h"

#define MAX_THREADS 64

struct worker {
	pthread_t thread;
	const char *name;
	long pages;
};

struct ctx {
	struct pebs_attrib *attrib;
	int32_t tids[MAX_THREADS];
	uint64_t samples[MAX_THREADS];
	unsigned int nr;
};

/* name the thread (a COMM record), then touch @pages fresh pages */
static void *work(void *arg)
{
	struct worker *w = arg;
	long ps = sysconf(_SC_PAGESIZE);
	char *p;

	pthread_setname_np(pthread_self(), w->name);
	p = mmap(NULL, w->pages * ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	for (long i = 0; i < w->pages; i++)
		p[i * ps] = 1;
	munmap(p, w->pages * ps);
	return NULL;
}

/* Called by the engine with each sample and whose it is. */
static int emit(void *arg, unsigned int tag, const struct pebs_sample *s,
		const struct perf_event_header *raw,
		const struct pebs_attrib_who *who)
{
	struct ctx *x = arg;
	unsigned int i;

	(void)tag, (void)s, (void)raw;
	for (i = 0; i < x->nr && x->tids[i] != who->tid; i++)
		;
	if (i == x->nr && x->nr < MAX_THREADS)
		x->tids[x->nr++] = who->tid;
	if (i < x->nr)
		x->samples[i]++;
	return 0;
}

static const PEBS_OPTS(pebs_attrib_cbs, acbs, .emit = emit);

/* Called by pebs_chanset__drain: samples and records to the engine. */
static int on_sample(void *arg, struct pebs_channel *ch,
		     const struct pebs_sample *s,
		     const struct perf_event_header *raw)
{
	struct ctx *x = arg;

	(void)ch;
	return pebs_attrib__sample(x->attrib, 0, s, raw, &acbs, x);
}

static int on_record(void *arg, struct pebs_channel *ch,
		     const struct perf_event_header *ev)
{
	struct ctx *x = arg;
	struct pebs_attrib_who who;

	/* COMM names a thread, FORK gives a new one its parent's name */
	return pebs_attrib__record(x->attrib, ev,
				   pebs_channel__attr(ch)->sample_type, &who);
}

int main(int argc, char **argv)
{
	struct worker w[2] = {
		{ .name = "worker-a", .pages = argc > 1 ? atol(argv[1]) : 100 },
		{ .name = "worker-b", .pages = argc > 2 ? atol(argv[2]) : 200 },
	};
	PEBS_OPTS(pebs_chanset_cbs, cbs, .on_sample = on_sample,
		  .on_record = on_record);
	/* every fault, COMM/FORK records, the threads created from now on */
	PEBS_OPTS(pebs_channel_opts, opts, .period = 1, .task_records = true,
		  .inherit = true);
	struct pebs_chanset *set = NULL;
	struct ctx x = { 0 };
	struct pebs_event ev;
	int err;

	err = pebs_event__parse("page-faults", &ev);
	if (!err)
		err = pebs_attrib__new(PEBS_ATTRIB_TID, NULL, 0, &x.attrib);
	if (!err)
		err = pebs_chanset__new(&ev, 1, PEBS_TARGET_TASK, &opts, &set);
	if (!err)
		err = pebs_chanset__add(set, getpid());
	if (err)
		goto out;
	for (int i = 0; i < 2; i++)
		pthread_create(&w[i].thread, NULL, work, &w[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(w[i].thread, NULL);
	err = pebs_chanset__drain(set, &cbs, &x);
	if (err >= 0)
		err = pebs_attrib__round(x.attrib, &acbs, &x);
	if (err < 0)
		goto out;
	err = 0;
	for (unsigned int i = 0; i < x.nr; i++)
		printf("%s: %" PRIu64 " samples (tid %d)\n",
		       pebs_attrib__comm(x.attrib, x.tids[i], NULL),
		       x.samples[i], x.tids[i]);
out:
	if (err)
		fprintf(stderr, "attrib-threads: %s\n", pebs_errmsg());
	pebs_chanset__delete(set);
	pebs_attrib__delete(x.attrib);
	return err ? 1 : 0;
}
