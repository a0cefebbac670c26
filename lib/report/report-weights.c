// SPDX-License-Identifier: MIT
/*
 * report-weights.c - the weights (latency, in the PMU's cycles) of a
 * recording's samples, per event, and their summary: count, minimum,
 * mean, median, 90th and 99th percentiles, maximum. A weight is kept in
 * 32 bits (larger ones count as 2^32 - 1: no PMU reports such a load
 * latency); the percentiles are the weights at ranks n/2, 9n/10 and
 * 99n/100 of the n sorted from 0, as pebs-shim report has always
 * printed them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/report.h"
#include "core/internal.h"

/* The weights of one event's samples. */
struct wlist {
	uint32_t *v;
	size_t nr, cap;
	bool sorted;
};

struct pebs_weights {
	struct wlist *ev;	/* per event */
	unsigned int nr_ev;
	uint64_t nr;		/* weights in all */
};

int pebs_weights__new(struct pebs_weights **wp)
{
	if (!wp)
		return core_err(-EINVAL, "weights: nowhere to put them");
	*wp = calloc(1, sizeof(**wp));
	return *wp ? 0 : core_err(-ENOMEM, "weights: out of memory");
}

void pebs_weights__delete(struct pebs_weights *w)
{
	unsigned int i;

	if (!w)
		return;
	for (i = 0; i < w->nr_ev; i++)
		free(w->ev[i].v);
	free(w->ev);
	free(w);
}

/* Event @e's list, made if new; NULL when out of memory. */
static struct wlist *list_of(struct pebs_weights *w, unsigned int e)
{
	if (e >= w->nr_ev) {
		struct wlist *n;

		if (e >= UINT32_MAX / 2)
			return NULL;
		n = realloc(w->ev, (e + 1) * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + w->nr_ev, 0, (e + 1 - w->nr_ev) * sizeof(*n));
		w->ev = n;
		w->nr_ev = e + 1;
	}
	return &w->ev[e];
}

int pebs_weights__add(struct pebs_weights *w,
		      const struct pebs_report_sample *s)
{
	struct wlist *l;

	if (!w || !s)
		return core_err(-EINVAL, "weights: no sample");
	if (!s->has_weight)
		return 0;
	l = list_of(w, s->event);
	if (!l)
		return core_err(-ENOMEM, "weights: out of memory");
	if (core_grow(&l->v, &l->cap, l->nr + 1, sizeof(*l->v)))
		return core_err(-ENOMEM, "weights: out of memory");
	l->v[l->nr++] = s->weight > UINT32_MAX ? UINT32_MAX :
			(uint32_t)s->weight;
	l->sorted = false;
	w->nr++;
	return 0;
}

uint64_t pebs_weights__nr(const struct pebs_weights *w)
{
	return w ? w->nr : 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int pebs_weights__summary(struct pebs_weights *w, unsigned int event,
			  struct pebs_weight_summary *out)
{
	struct wlist *l;
	uint64_t sum = 0;
	size_t i, n;

	if (!w || !out)
		return core_err(-EINVAL, "weights: none");
	memset(out, 0, sizeof(*out));
	if (event >= w->nr_ev || !w->ev[event].nr)
		return -ENOENT;
	l = &w->ev[event];
	n = l->nr;
	if (!l->sorted) {
		qsort(l->v, n, sizeof(*l->v), u32_cmp);
		l->sorted = true;
	}
	for (i = 0; i < n; i++)
		sum += l->v[i];
	out->samples = n;
	out->min = l->v[0];
	out->mean = (double)sum / (double)n;
	out->p50 = l->v[n / 2];
	out->p90 = l->v[n * 9 / 10];
	out->p99 = l->v[n * 99 / 100];
	out->max = l->v[n - 1];
	return 0;
}
