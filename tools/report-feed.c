// SPDX-License-Identifier: MIT
/*
 * report-feed.c - the tables of `pebs-shim report` fed on a thread of
 * their own: the session (decoding, time order, threads, symbols) runs
 * on the caller's thread and fills one batch of resolved samples while
 * the feed thread adds the other to every table (pebs_report__add_batch
 * of each, in the same order as without the thread, so the tables are
 * the same). The two swap in report_feed_put, which waits for the feed
 * thread to be done with the batch before. The samples' strings (comm,
 * dso, symbol names) are interned by the session and never change, and
 * the tables are touched by the feed thread alone until
 * report_feed_finish. Without a thread (it could not start) the caller
 * adds the batch itself, as before.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "report.h"

struct report_feed {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct report *r;
	const struct pebs_report_sample *job;	/* being added, or NULL */
	size_t nr_job;
	bool stop;
	int err;		/* the first failed add (-ENOMEM) */
};

/* Batch @s of @n samples into every table fed from the samples. */
static int add_all(struct report *r, const struct pebs_report_sample *s,
		   size_t n)
{
	unsigned int i;

	for (i = 0; i < r->nr_tables; i++)
		if (!r->tables[i].from &&
		    pebs_report__add_batch(r->tables[i].rep, s, n))
			return -ENOMEM;
	return 0;
}

static void *run(void *arg)
{
	struct report_feed *f = arg;
	const struct pebs_report_sample *s;
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
		pthread_mutex_unlock(&f->mu);
		err = f->err ? 0 : add_all(f->r, s, n);
		pthread_mutex_lock(&f->mu);
		if (err)
			f->err = err;
		f->job = NULL;
		pthread_cond_broadcast(&f->cv);
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

struct report_feed *report_feed_start(struct report *r)
{
	struct report_feed *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->r = r;
	if (pthread_mutex_init(&f->mu, NULL)) {
		free(f);
		return NULL;
	}
	if (pthread_cond_init(&f->cv, NULL)) {
		pthread_mutex_destroy(&f->mu);
		free(f);
		return NULL;
	}
	if (pthread_create(&f->thread, NULL, run, f)) {
		pthread_cond_destroy(&f->cv);
		pthread_mutex_destroy(&f->mu);
		free(f);
		return NULL;
	}
	return f;
}

/* Wait (mu held) until the feed thread is done with its batch. */
static void wait_idle(struct report_feed *f)
{
	while (f->job)
		pthread_cond_wait(&f->cv, &f->mu);
}

int report_feed_put(struct report_feed *f, struct report *r,
		    const struct pebs_report_sample *s, size_t n)
{
	int err;

	if (!f)
		return add_all(r, s, n);
	pthread_mutex_lock(&f->mu);
	wait_idle(f);
	err = f->err;
	if (!err && n) {
		f->job = s;
		f->nr_job = n;
		pthread_cond_broadcast(&f->cv);
	}
	pthread_mutex_unlock(&f->mu);
	return err;
}

int report_feed_finish(struct report_feed *f)
{
	int err;

	if (!f)
		return 0;
	pthread_mutex_lock(&f->mu);
	wait_idle(f);
	f->stop = true;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	pthread_join(f->thread, NULL);
	err = f->err;
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
	free(f);
	return err;
}
