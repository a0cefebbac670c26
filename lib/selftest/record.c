// SPDX-License-Identifier: MIT
/*
 * record.c - the self-test's recordings: one channel per thread of a
 * held workload, opened before it starts and read after it ended.
 */
#include <errno.h>
#include <string.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

void st_sw_event(struct pebs_event *ev, uint64_t config, const char *name)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	snprintf(ev->resolved, sizeof(ev->resolved), "%s", name);
	strcpy(ev->pmu, "perf");
	ev->flags = PEBS_EVENT_SOFTWARE;
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.size = sizeof(ev->attr);
	ev->attr.config = config;
	/*
	 * the workloads fault from user space: :u keeps every sample they
	 * make and lets a user run the checks at perf_event_paranoid 2
	 */
	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
}

/*
 * Open @ev on each of @w's threads. On failure (the caller ends the
 * workload) @r says why: skip when perf_event_open is not allowed or not
 * supported here, fail otherwise. Returns 0 or -1.
 */
int st_rec_open(struct st_rec *rec, const struct st_wl *w,
		const struct pebs_event *ev,
		const struct pebs_channel_opts *o,
		struct pebs_selftest_result *r)
{
	unsigned int i;
	int err;

	memset(rec, 0, sizeof(*rec));
	for (i = 0; i < w->nthr; i++) {
		err = pebs_channel__open(ev, w->tid[i], -1, o, &rec->ch[i]);
		if (!err) {
			rec->n++;
			continue;
		}
		if (err == -EACCES || err == -EPERM || err == -ENOENT ||
		    err == -ENOSYS || err == -EOPNOTSUPP)
			st_set(r, PEBS_SELFTEST_SKIP, "cannot open %s here: %s",
			       ev->name, pebs_errmsg());
		else
			st_set(r, PEBS_SELFTEST_FAIL, "opening %s on thread %d: "
			       "%s", ev->name, (int)w->tid[i], pebs_errmsg());
		st_rec_close(rec);
		return -1;
	}
	return 0;
}

/* every sample of every channel, in order per channel */
void st_rec_drain(struct st_rec *rec, st_sample_fn fn, void *arg)
{
	unsigned int i;

	for (i = 0; i < rec->n; i++) {
		struct pebs_ring *ring = pebs_channel__ring(rec->ch[i]);
		const struct pebs_sample_layout *lay =
			pebs_channel__layout(rec->ch[i]);
		const struct perf_event_header *ev;
		struct pebs_sample s;

		if (pebs_ring__read_init(ring))
			continue;
		while (pebs_ring__next(ring, &ev) > 0)
			if (ev->type == PERF_RECORD_SAMPLE &&
			    !pebs_sample__decode(lay, ev, &s))
				fn(arg, i, ev, &s);
		pebs_ring__consume(ring);
	}
}

void st_rec_close(struct st_rec *rec)
{
	unsigned int i;

	for (i = 0; i < rec->n; i++)
		pebs_channel__close(rec->ch[i]);
	rec->n = 0;
}
