// SPDX-License-Identifier: MIT
/*
 * report-feed.c - samples added to several reports on a thread of their
 * own: the caller (a pebs_session's callback: decoding, time order,
 * threads, symbols) fills one batch while the thread adds the other to
 * every report (pebs_report__add_batch, in the order given, so the
 * reports are the ones adding in place makes). The two batches swap
 * when one is full, after the thread is done with the other. The
 * samples' strings (comm, dso, symbol names: a session's, interned)
 * must not change before pebs_report_feed__finish, and only the thread
 * touches the reports until then. Without a thread (none could start),
 * a full batch is added in place. When a report has children
 * (pebs_report__set_children), a batch also holds its samples' call
 * chains (pebs_report_feed__add_chain; also for graphs,
 * pebs_report__set_graph): each sample's frames, copied
 * into the batch's frames, for pebs_report__add_chain.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/report.h"
#include "core/internal.h"

/* samples handed over at once: few hand-overs, each of which may wait
   for a wake-up; 1 MiB a batch */
#define BATCH		8192
/* frames of a batch's call chains: handed over sooner when full (4 MiB) */
#define FRAMES		(128 * 1024)

/* A batch's call chains: sample i's frames are frames[off[i],
   off[i + 1]). */
struct chains {
	uint32_t *off;		/* BATCH + 1 */
	struct pebs_frame *frames;	/* FRAMES */
};

struct pebs_report_feed {
	struct pebs_report **reps;
	unsigned int nr_reps;
	struct pebs_report_sample *fill;	/* the caller's batch */
	struct pebs_report_sample *spare;	/* the thread's */
	size_t nr_fill;
	bool chains;		/* a report has children or graphs: the
				   batches' call chains are kept */
	struct chains cfill, cspare, cjob;	/* as fill, spare, job */
	bool threaded, finished;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const struct pebs_report_sample *job;	/* being added, or NULL */
	size_t nr_job;
	bool stop;
	int err;		/* the first failed add (-ENOMEM) */
};

/* whether @r takes each sample's call chain (pebs_report__add_chain) */
static bool takes_chains(const struct pebs_report *r)
{
	return pebs_report__children(r) || pebs_report__graph(r);
}

/* Batch @s of @n samples (their chains @c when kept) into every
   report. */
static int add_all(struct pebs_report_feed *f,
		   const struct pebs_report_sample *s, size_t n,
		   const struct chains *c)
{
	unsigned int i;
	size_t j;

	for (i = 0; i < f->nr_reps; i++) {
		if (!f->chains || !takes_chains(f->reps[i])) {
			if (pebs_report__add_batch(f->reps[i], s, n))
				return -ENOMEM;
			continue;
		}
		for (j = 0; j < n; j++)
			if (pebs_report__add_chain(f->reps[i], &s[j],
						   c->frames + c->off[j],
						   c->off[j + 1] - c->off[j]))
				return -ENOMEM;
	}
	return 0;
}

static void *run(void *arg)
{
	struct pebs_report_feed *f = arg;
	const struct pebs_report_sample *s;
	struct chains c;
	size_t n;
	int err;

	pthread_mutex_lock(&f->mu);
	for (;;) {
		while (!f->job && !f->stop)
			pthread_cond_wait(&f->cv, &f->mu);
		if (!f->job)
			break;
		s = f->job;
		n = f->nr_job;
		c = f->cjob;
		pthread_mutex_unlock(&f->mu);
		err = f->err ? 0 : add_all(f, s, n, &c);
		pthread_mutex_lock(&f->mu);
		if (err)
			f->err = err;
		f->job = NULL;
		pthread_cond_broadcast(&f->cv);
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

static int chains_new(struct chains *c)
{
	c->off = malloc((BATCH + 1) * sizeof(*c->off));
	c->frames = malloc(FRAMES * sizeof(*c->frames));
	if (!c->off || !c->frames)
		return -ENOMEM;
	c->off[0] = 0;
	return 0;
}

static void feed_free(struct pebs_report_feed *f)
{
	free(f->reps);
	free(f->fill);
	free(f->spare);
	free(f->cfill.off);
	free(f->cfill.frames);
	free(f->cspare.off);
	free(f->cspare.frames);
	free(f);
}

/* Start the thread: false if it cannot (then batches are added in
   place). */
static bool start(struct pebs_report_feed *f)
{
	if (pthread_mutex_init(&f->mu, NULL))
		return false;
	if (pthread_cond_init(&f->cv, NULL)) {
		pthread_mutex_destroy(&f->mu);
		return false;
	}
	if (pthread_create(&f->thread, NULL, run, f)) {
		pthread_cond_destroy(&f->cv);
		pthread_mutex_destroy(&f->mu);
		return false;
	}
	return true;
}

int pebs_report_feed__new(struct pebs_report *const *reps, unsigned int nr,
			  struct pebs_report_feed **fp)
{
	struct pebs_report_feed *f;
	unsigned int i;

	if (!fp || (nr && !reps))
		return core_err(-EINVAL, "report feed: no reports");
	for (i = 0; i < nr; i++)
		if (!reps[i])
			return core_err(-EINVAL, "report feed: report %u is "
					"NULL", i);
	f = calloc(1, sizeof(*f));
	if (!f)
		return core_err(-ENOMEM, "report feed: out of memory");
	for (i = 0; i < nr; i++)
		f->chains |= takes_chains(reps[i]);
	f->reps = malloc((nr ? nr : 1) * sizeof(*f->reps));
	f->fill = malloc(BATCH * sizeof(*f->fill));
	f->spare = malloc(BATCH * sizeof(*f->spare));
	if (!f->reps || !f->fill || !f->spare ||
	    (f->chains && (chains_new(&f->cfill) ||
			   chains_new(&f->cspare)))) {
		feed_free(f);
		return core_err(-ENOMEM, "report feed: out of memory");
	}
	if (nr)
		memcpy(f->reps, reps, nr * sizeof(*reps));
	f->nr_reps = nr;
	f->threaded = start(f);
	*fp = f;
	return 0;
}

/* The caller's batch to the thread (or added in place), once the
   batch before is added; the other batch is the caller's then. */
static int hand_over(struct pebs_report_feed *f)
{
	struct pebs_report_sample *t = f->fill;
	struct chains c = f->cfill;
	size_t n = f->nr_fill;
	int err;

	f->nr_fill = 0;
	if (!f->threaded)
		return add_all(f, t, n, &c);
	pthread_mutex_lock(&f->mu);
	while (f->job)
		pthread_cond_wait(&f->cv, &f->mu);
	err = f->err;
	if (!err && n) {
		f->job = t;
		f->nr_job = n;
		f->cjob = c;
		f->fill = f->spare;
		f->spare = t;
		f->cfill = f->cspare;
		f->cspare = c;
		pthread_cond_broadcast(&f->cv);
	}
	pthread_mutex_unlock(&f->mu);
	return err;
}

int pebs_report_feed__add(struct pebs_report_feed *f,
			  const struct pebs_report_sample *s)
{
	return pebs_report_feed__add_chain(f, s, NULL, 0);
}

int pebs_report_feed__add_chain(struct pebs_report_feed *f,
				const struct pebs_report_sample *s,
				const struct pebs_frame *frames,
				unsigned int nr)
{
	uint32_t at;

	if (!f || !s || f->finished || (nr && !frames))
		return core_err(-EINVAL, "report feed: none, or finished");
	if (!f->chains)
		nr = 0;
	if (nr > PEBS_CALLCHAIN_MAX)
		nr = PEBS_CALLCHAIN_MAX;
	/* no room for the frames: the batch goes first */
	if (f->chains && f->cfill.off[f->nr_fill] + nr > FRAMES &&
	    hand_over(f))
		return core_err(-ENOMEM, "report: out of memory");
	if (f->chains) {
		at = f->cfill.off[f->nr_fill];
		if (nr)
			memcpy(f->cfill.frames + at, frames,
			       nr * sizeof(*frames));
		f->cfill.off[f->nr_fill + 1] = at + nr;
	}
	f->fill[f->nr_fill++] = *s;
	if (f->nr_fill < BATCH)
		return 0;
	return hand_over(f) ? core_err(-ENOMEM, "report: out of memory") :
			      0;
}

int pebs_report_feed__finish(struct pebs_report_feed *f)
{
	int err;

	if (!f)
		return core_err(-EINVAL, "report feed: none");
	if (f->finished)
		return f->err;
	err = hand_over(f);
	f->finished = true;
	if (f->threaded) {
		pthread_mutex_lock(&f->mu);
		while (f->job)
			pthread_cond_wait(&f->cv, &f->mu);
		f->stop = true;
		pthread_cond_broadcast(&f->cv);
		pthread_mutex_unlock(&f->mu);
		pthread_join(f->thread, NULL);
		pthread_cond_destroy(&f->cv);
		pthread_mutex_destroy(&f->mu);
		f->threaded = false;
		err = err ?: f->err;
	}
	f->err = err;
	return err ? core_err(err, "report: out of memory") : 0;
}

void pebs_report_feed__delete(struct pebs_report_feed *f)
{
	if (!f)
		return;
	if (!f->finished)
		pebs_report_feed__finish(f);
	feed_free(f);
}
