// SPDX-License-Identifier: MIT
/*
 * ordered.c - records in time order, as perf's ordered events
 * (tools/perf/util/ordered-events.c): records are queued with their
 * time; at each FINISHED_ROUND those up to the newest time seen before
 * the previous round are delivered, sorted by time (ties in arrival
 * order); the rest wait for the next round or the end. A record tool
 * writes a round after each pass over all its rings, so a record of the
 * current round can still precede one of the last; none can precede the
 * round before. Memory stays bounded: past max_queued records the oldest
 * half is delivered early, as perf's OE_FLUSH__HALF. Records are not
 * copied unless asked (PEBS_ORDERED_COPY, as perf's copy_on_queue for
 * pipes): they must stay valid until delivered (the mapping of a
 * perf.data file does).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/session.h"
#include "perfdata/perfdata-int.h"

#define DEFAULT_MAX_QUEUED	(1u << 20)

struct entry {
	uint64_t time;
	uint64_t seq;		/* arrival order, for ties */
	const struct perf_event_header *ev;
};

struct pebs_ordered {
	bool copy;		/* records are copies, freed once delivered */
	pebs_ordered_fn fn;
	void *arg;
	struct entry *q;	/* queued: q[head..head + nr) */
	struct entry *tmp;	/* merge space, as large as q */
	size_t head, nr, cap, max;
	size_t sorted;		/* q[0..sorted) is in order */
	uint64_t seq;
	uint64_t max_time;	/* newest time queued */
	uint64_t limit;		/* deliver up to this at the next round */
	uint64_t last_out;	/* time of the last record delivered */
	uint64_t out_of_order;	/* queued older than last_out */
};

int pebs_ordered__new(size_t max_queued, unsigned int flags,
		      pebs_ordered_fn fn, void *arg, struct pebs_ordered **op)
{
	struct pebs_ordered *o;

	if (!fn || !op)
		return core_err(-EINVAL, "ordered: no callback");
	o = calloc(1, sizeof(*o));
	if (!o)
		return core_err(-ENOMEM, "ordered: out of memory");
	o->copy = flags & PEBS_ORDERED_COPY;
	o->fn = fn;
	o->arg = arg;
	o->max = max_queued >= 2 ? max_queued : DEFAULT_MAX_QUEUED;
	*op = o;
	return 0;
}

void pebs_ordered__delete(struct pebs_ordered *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; o->copy && i < o->nr; i++)
		free((void *)o->q[o->head + i].ev);
	free(o->q);
	free(o->tmp);
	free(o);
}

static bool entry_less(const struct entry *x, const struct entry *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/* Merge the sorted runs a[0..n) and a[n..m) through tmp. */
static void merge(struct entry *a, size_t n, size_t m, struct entry *tmp)
{
	size_t i = 0, j = n, k = 0;

	if (!n || n == m || !entry_less(&a[n], &a[n - 1]))
		return;		/* already in order */
	while (i < n && j < m)
		tmp[k++] = entry_less(&a[j], &a[i]) ? a[j++] : a[i++];
	while (i < n)
		tmp[k++] = a[i++];
	memcpy(a, tmp, k * sizeof(*a));	/* a[j..m) is in place */
}

/*
 * Sort a[0..n): a natural merge sort. A round's records come as one
 * sorted run per ring (per CPU in a system-wide recording), so a round
 * of r rings costs O(n log r), and an ordered round O(n).
 */
static void sort_runs(struct entry *a, size_t n, struct entry *tmp)
{
	bool again = true;

	while (again) {
		size_t start = 0;

		again = false;
		while (start < n) {
			size_t mid = start + 1, end;

			while (mid < n && !entry_less(&a[mid], &a[mid - 1]))
				mid++;
			if (mid == n)
				break;
			end = mid + 1;
			while (end < n && !entry_less(&a[end], &a[end - 1]))
				end++;
			merge(a + start, mid - start, end - start, tmp);
			again = true;
			start = end;
		}
	}
}

/* Sort the queue: the records queued since the last sort, then merged. */
static void sort_queue(struct pebs_ordered *o)
{
	struct entry *q;

	if (!o->nr)
		return;		/* nothing queued yet: o->q may be NULL */
	q = o->q + o->head;
	sort_runs(q + o->sorted, o->nr - o->sorted, o->tmp);
	merge(q, o->sorted, o->nr, o->tmp);
	o->sorted = o->nr;
}

/* Deliver the first @n queued records (sorted). */
static int deliver(struct pebs_ordered *o, size_t n)
{
	struct entry *q;
	size_t i;
	int err = 0;

	if (!n)
		return 0;	/* o->q may be NULL */
	q = o->q + o->head;
	for (i = 0; i < n && !err; i++) {
		o->last_out = q[i].time;
		err = o->fn(o->arg, q[i].ev, q[i].time);
		if (o->copy)
			free((void *)q[i].ev);
	}
	o->head += i;
	o->nr -= i;
	o->sorted -= i;
	if (!o->nr)
		o->head = 0;
	return err;
}

/* Deliver every queued record with time <= @limit. */
static int flush_upto(struct pebs_ordered *o, uint64_t limit)
{
	size_t lo = 0, hi;

	sort_queue(o);
	hi = o->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->q[o->head + mid].time <= limit)
			lo = mid + 1;
		else
			hi = mid;
	}
	return deliver(o, lo);
}

int pebs_ordered__queue(struct pebs_ordered *o,
			const struct perf_event_header *ev, uint64_t time)
{
	struct entry *e;
	int err;

	if (!o || !ev)
		return core_err(-EINVAL, "ordered: no record");
	if (time == PEBS_ORDERED_NO_TIME)
		return o->fn(o->arg, ev, time);	/* at once, as perf */
	if (o->nr == o->max) {
		sort_queue(o);
		err = deliver(o, o->nr / 2);
		if (err)
			return err;
	}
	if (o->head + o->nr == o->cap && o->head) {
		/* the delivered front makes room */
		memmove(o->q, o->q + o->head, o->nr * sizeof(*o->q));
		o->head = 0;
	}
	if (o->nr == o->cap) {
		size_t cap = o->cap;	/* q's copy: tmp grows the same */

		if (core_grow(&o->q, &cap, o->nr + 1, sizeof(*o->q)) ||
		    core_grow(&o->tmp, &o->cap, o->nr + 1, sizeof(*o->tmp)))
			return core_err(-ENOMEM, "ordered: out of memory");
	}
	if (o->copy) {
		void *c = malloc(ev->size);

		if (!c)
			return core_err(-ENOMEM, "ordered: out of memory");
		ev = memcpy(c, ev, ev->size);
	}
	if (time < o->last_out)
		o->out_of_order++;
	e = &o->q[o->head + o->nr++];
	e->time = time;
	e->seq = o->seq++;
	e->ev = ev;
	if (time > o->max_time)
		o->max_time = time;
	return 0;
}

int pebs_ordered__round(struct pebs_ordered *o)
{
	int err;

	if (!o)
		return core_err(-EINVAL, "ordered: none");
	err = flush_upto(o, o->limit);
	o->limit = o->max_time;
	return err;
}

int pebs_ordered__flush(struct pebs_ordered *o)
{
	if (!o)
		return core_err(-EINVAL, "ordered: none");
	return flush_upto(o, UINT64_MAX - 1);
}

/*
 * The file offset of the oldest record still queued (the records of a
 * mapped file are not copies), or @pos when none is.
 */
static uint64_t oldest_queued(const struct pebs_ordered *o,
			      const struct pebs_perfdata *pd, uint64_t pos)
{
	const unsigned char *low = pd->buf + pos;
	size_t i;

	for (i = 0; i < o->nr; i++) {
		const unsigned char *p = (const void *)o->q[o->head + i].ev;

		if (p >= pd->buf && p < low)
			low = p;
	}
	return (uint64_t)(low - pd->buf);
}

/* From now on the queue holds copies: those queued so far (still in
   the mapping) are copied too, so that every entry is freed alike. */
static int to_copies(struct pebs_ordered *o)
{
	void **c = malloc((o->nr ? o->nr : 1) * sizeof(*c));
	size_t i, j;

	if (!c)
		return core_err(-ENOMEM, "ordered: out of memory");
	for (i = 0; i < o->nr; i++)
		if (!(c[i] = malloc(o->q[o->head + i].ev->size))) {
			for (j = 0; j < i; j++)
				free(c[j]);
			free(c);
			return core_err(-ENOMEM, "ordered: out of memory");
		}
	for (i = 0; i < o->nr; i++) {
		struct entry *e = &o->q[o->head + i];

		e->ev = memcpy(c[i], e->ev, e->ev->size);
	}
	free(c);
	o->copy = true;
	return 0;
}

uint64_t pebs_ordered__out_of_order(const struct pebs_ordered *o)
{
	return o ? o->out_of_order : 0;
}

/* Whether every event samples TIME: else the file order is all there is. */
static bool all_timed(const struct pebs_perfdata *pd)
{
	unsigned int i, n = pebs_perfdata__nr_attrs(pd);

	for (i = 0; i < n; i++) {
		const struct perf_event_attr *a =
			pebs_perfdata__attr(pd, i, NULL, NULL);

		if (!a || !(a->sample_type & PERF_SAMPLE_TIME))
			return false;
	}
	return n > 0;
}

static uint64_t record_time(const struct pebs_perfdata *pd,
			    const struct perf_event_header *ev)
{
	struct pebs_sample s;
	int err;

	if (ev->type == PERF_RECORD_SAMPLE)
		err = pebs_perfdata__sample(pd, ev, &s, NULL);
	else
		err = pebs_perfdata__sample_id(pd, ev, &s, NULL);
	if (err || !(s.present & PERF_SAMPLE_TIME))
		return PEBS_ORDERED_NO_TIME;
	return s.time;
}

int pebs_ordered__process(struct pebs_perfdata *pd, pebs_ordered_fn fn,
			  void *arg, unsigned int *flags)
{
	const struct perf_event_header *ev;
	struct pebs_ordered *o;
	uint64_t released;
	int ret, err = 0;

	if (!pd || !fn)
		return core_err(-EINVAL, "ordered: no file");
	released = pd->data_start;
	if (flags)
		*flags = 0;
	if (!all_timed(pd)) {
		if (flags)
			*flags |= PEBS_ORDERED_FILE_ORDER;
		while ((ret = pebs_perfdata__next(pd, &ev)) > 0 && !err)
			err = fn(arg, ev, PEBS_ORDERED_NO_TIME);
		return err ? err : ret;
	}
	/* a stream's and a decompressed record's buffers are reused by the
	 * next call: those records are copied while queued */
	err = pebs_ordered__new(0, pebs_perfdata__is_pipe(pd) ||
				pebs_perfdata__has_feat(pd, PEBS_FEAT_COMPRESSED) ?
				PEBS_ORDERED_COPY : 0, fn, arg, &o);
	if (err)
		return err;
	while (!err && (ret = pebs_perfdata__next(pd, &ev)) > 0) {
		if (ev->type == PEBS_PERF_RECORD_FINISHED_ROUND) {
			err = pebs_ordered__round(o);
			/* what was delivered is not read again */
			if (pd->mapped && pd->pos - released >= PD_RELEASE_MIN)
				released = pd_release(pd, released,
						oldest_queued(o, pd, pd->pos));
		} else {
			/* a record not 8-byte aligned in the file (perf
			 * inject -b writes 100-byte BUILD_ID records) comes
			 * in the reader's one buffer, reused by the next call */
			if (!o->copy && (const void *)ev == pd->rec)
				err = to_copies(o);
			if (!err)
				err = pebs_ordered__queue(o, ev,
							  record_time(pd, ev));
		}
	}
	if (ret < 0 && !err) {
		/* the reader's reason outlives the records still queued */
		char why[256];

		snprintf(why, sizeof(why), "%s", pebs_errmsg());
		err = pebs_ordered__flush(o);
		if (!err)
			core_err(ret, "%s", why);
	} else if (!err) {
		err = pebs_ordered__flush(o);
	}
	if (!err && flags && o->out_of_order)
		*flags |= PEBS_ORDERED_OUT_OF_ORDER;
	pebs_ordered__delete(o);
	return err ? err : ret;
}
