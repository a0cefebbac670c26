// SPDX-License-Identifier: MIT
/*
 * chanset.c - events x targets, every ring in one epoll instance,
 * drained completely through the ring reader.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "internal.h"

struct target;

/* one channel of a target; epoll data.ptr points here */
struct slot {
	struct pebs_channel *ch;
	struct target *t;
};

struct target {
	int id;			/* pid/tid or CPU */
	bool gone;		/* EPOLLHUP seen, on_exit not yet called */
	struct slot slots[];	/* one per event */
};

struct pebs_chanset {
	struct pebs_event *evs;
	unsigned int nr_evs;
	enum pebs_target_kind kind;
	struct pebs_channel_opts opts;	/* the first event's */
	struct pebs_channel_opts rest;	/* the others': no side-band */
	int epfd;
	struct target **targets;
	unsigned int nr_targets, cap_targets;
	struct epoll_event *evbuf;	/* one per channel */
	unsigned int cap_evbuf;
	bool busy;			/* in poll/drain: no add/remove */
	/*
	 * The kernel refuses to mmap an inherited per-task event (cpu -1):
	 * with TASK targets and opts.inherit a target gets one channel per
	 * event per online CPU (as perf record does); slot i is event
	 * i % nr_evs on cpus[i / nr_evs]. per_target = nr_evs otherwise.
	 */
	unsigned int per_target;
	int *cpus;
	unsigned int nr_cpus;
};

/* PERF_RECORD_LOST: { header; u64 id; u64 lost; sample_id } */
struct lost_record {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};

/* the online CPU ids, from /sys/devices/system/cpu/online ("0-3,6") */
static int online_cpus(int **cpusp, unsigned int *nrp)
{
	char buf[4096], *p = buf, *end;
	unsigned int n = 0, cap = 0;
	int *cpus = NULL;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	bool ok;

	if (!f)
		return pebs_err(-errno, "cannot read /sys/devices/system/cpu/"
				"online: %s", strerror(errno));
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	while (ok && *p >= '0' && *p <= '9') {
		long lo = strtol(p, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi; c++) {
			if (n == cap) {
				int *v = reallocarray(cpus, cap ? 2 * cap : 64,
						      sizeof(*v));

				if (!v) {
					free(cpus);
					return pebs_err(-ENOMEM, "channel set: "
							"out of memory");
				}
				cpus = v;
				cap = cap ? 2 * cap : 64;
			}
			cpus[n++] = (int)c;
		}
		p = *end == ',' ? end + 1 : end;
	}
	if (!n) {
		free(cpus);
		return pebs_err(-EINVAL, "cannot parse /sys/devices/system/cpu/"
				"online");
	}
	*cpusp = cpus;
	*nrp = n;
	return 0;
}

int pebs_chanset__new(const struct pebs_event *evs, unsigned int nr_evs,
		      enum pebs_target_kind kind,
		      const struct pebs_channel_opts *opts,
		      struct pebs_chanset **setp)
{
	struct perf_event_attr attr;
	struct pebs_chanset *set;
	int err;

	if (!evs || !nr_evs || !setp)
		return pebs_err(-EINVAL, "channel set: no events given");
	if (kind != PEBS_TARGET_TASK && kind != PEBS_TARGET_CPU)
		return pebs_err(-EINVAL, "channel set: bad target kind %d",
				(int)kind);
	for (unsigned int i = 0; i < nr_evs; i++) {
		err = pebs_channel_attr(&evs[i], opts, &attr);
		if (err)
			return err;
	}
	set = calloc(1, sizeof(*set));
	if (!set)
		return pebs_err(-ENOMEM, "channel set: out of memory");
	set->evs = calloc(nr_evs, sizeof(*set->evs));
	if (!set->evs) {
		err = pebs_err(-ENOMEM, "channel set: out of memory");
		goto out_free;
	}
	memcpy(set->evs, evs, nr_evs * sizeof(*evs));
	set->nr_evs = nr_evs;
	set->kind = kind;
	set->opts.sz = sizeof(set->opts);
	if (opts)
		memcpy(&set->opts, opts, opts->sz < sizeof(set->opts) ?
		       opts->sz : sizeof(set->opts));
	set->opts.sz = sizeof(set->opts);
	/* side-band records once per target, as perf's tracking event */
	set->rest = set->opts;
	set->rest.task_records = false;
	set->rest.context_switch = false;
	set->per_target = nr_evs;
	if (kind == PEBS_TARGET_TASK && set->opts.inherit) {
		err = online_cpus(&set->cpus, &set->nr_cpus);
		if (err)
			goto out_free_evs;
		set->per_target = nr_evs * set->nr_cpus;
	}
	set->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (set->epfd < 0) {
		err = pebs_err(-errno, "epoll_create1: %s", strerror(errno));
		goto out_free_evs;
	}
	*setp = set;
	return 0;

out_free_evs:
	free(set->cpus);
	free(set->evs);
out_free:
	free(set);
	return err;
}

static void target_close(struct pebs_chanset *set, struct target *t)
{
	for (unsigned int i = 0; i < set->per_target; i++) {
		struct pebs_channel *ch = t->slots[i].ch;

		if (!ch)
			continue;
		epoll_ctl(set->epfd, EPOLL_CTL_DEL, pebs_channel__fd(ch), NULL);
		pebs_channel__close(ch);
	}
	free(t);
}

void pebs_chanset__delete(struct pebs_chanset *set)
{
	if (!set)
		return;
	for (unsigned int i = 0; i < set->nr_targets; i++)
		target_close(set, set->targets[i]);
	close(set->epfd);
	free(set->targets);
	free(set->evbuf);
	free(set->evs);
	free(set->cpus);
	free(set);
}

static int find(const struct pebs_chanset *set, int id)
{
	for (unsigned int i = 0; i < set->nr_targets; i++)
		if (set->targets[i]->id == id)
			return (int)i;
	return -1;
}

/* make room for one more target and its channels' epoll events */
static int reserve(struct pebs_chanset *set)
{
	unsigned int need = (set->nr_targets + 1) * set->per_target;

	if (set->nr_targets == set->cap_targets) {
		unsigned int cap = set->cap_targets ? 2 * set->cap_targets : 8;
		struct target **t;

		t = reallocarray(set->targets, cap, sizeof(*t));
		if (!t)
			return pebs_err(-ENOMEM, "channel set: out of memory");
		set->targets = t;
		set->cap_targets = cap;
	}
	if (need > set->cap_evbuf) {
		struct epoll_event *e;

		e = reallocarray(set->evbuf, need, sizeof(*e));
		if (!e)
			return pebs_err(-ENOMEM, "channel set: out of memory");
		set->evbuf = e;
		set->cap_evbuf = need;
	}
	return 0;
}

int pebs_chanset__add(struct pebs_chanset *set, int target)
{
	bool cpu = set->kind == PEBS_TARGET_CPU;
	struct target *t;
	int err;

	if (set->busy)
		return pebs_err(-EBUSY, "channel set: targets cannot change "
				"inside a poll callback");
	if (find(set, target) >= 0)
		return pebs_err(-EEXIST, "%s %d is already in the set",
				cpu ? "cpu" : "pid", target);
	if (cpu ? target < 0 : target <= 0)
		return pebs_err(-EINVAL, "%s %d: not a valid target",
				cpu ? "cpu" : "pid", target);
	err = reserve(set);
	if (err)
		return err;
	t = calloc(1, sizeof(*t) + set->per_target * sizeof(t->slots[0]));
	if (!t)
		return pebs_err(-ENOMEM, "channel set: out of memory");
	t->id = target;
	for (unsigned int i = 0; i < set->per_target; i++) {
		struct epoll_event ee = { .events = EPOLLIN };
		struct slot *sl = &t->slots[i];
		int on = cpu ? target : set->cpus ? set->cpus[i / set->nr_evs] :
			 -1;

		sl->t = t;
		err = pebs_channel__open(&set->evs[i % set->nr_evs],
					 cpu ? -1 : target, on,
					 i % set->nr_evs ? &set->rest :
							   &set->opts,
					 &sl->ch);
		if (err)
			goto out_close;
		ee.data.ptr = sl;
		if (epoll_ctl(set->epfd, EPOLL_CTL_ADD,
			      pebs_channel__fd(sl->ch), &ee) < 0) {
			err = pebs_err(-errno, "epoll_ctl: %s", strerror(errno));
			goto out_close;
		}
	}
	set->targets[set->nr_targets++] = t;
	return 0;

out_close:
	target_close(set, t);
	return err;
}

static void remove_at(struct pebs_chanset *set, unsigned int i)
{
	target_close(set, set->targets[i]);
	set->targets[i] = set->targets[--set->nr_targets];
}

int pebs_chanset__remove(struct pebs_chanset *set, int target)
{
	int i;

	if (set->busy)
		return pebs_err(-EBUSY, "channel set: targets cannot change "
				"inside a poll callback");
	i = find(set, target);
	if (i < 0)
		return pebs_err(-ENOENT, "%d is not in the set", target);
	remove_at(set, (unsigned int)i);
	return 0;
}

static bool listed(const int *targets, unsigned int n, int id)
{
	for (unsigned int i = 0; i < n; i++)
		if (targets[i] == id)
			return true;
	return false;
}

int pebs_chanset__update(struct pebs_chanset *set, const int *targets,
			 unsigned int n)
{
	unsigned int old = set->nr_targets;
	int err;

	if (set->busy)
		return pebs_err(-EBUSY, "channel set: targets cannot change "
				"inside a poll callback");
	if (n && !targets)
		return pebs_err(-EINVAL, "channel set: targets is NULL");
	/* adds are appended after the old targets: undo them on failure */
	for (unsigned int i = 0; i < n; i++) {
		if (find(set, targets[i]) >= 0)
			continue;
		err = pebs_chanset__add(set, targets[i]);
		if (err) {
			while (set->nr_targets > old)
				remove_at(set, set->nr_targets - 1);
			return err;
		}
	}
	for (unsigned int i = set->nr_targets; i-- > 0;)
		if (!listed(targets, n, set->targets[i]->id))
			remove_at(set, i);
	return 0;
}

/*
 * Deliver one record. Returns 1 for a sample delivered, 0 for another
 * record, or a negative callback return / -EBADMSG.
 */
static int deliver(struct pebs_channel *ch, const struct perf_event_header *ev,
		   const struct pebs_chanset_cbs *cbs, void *ctx)
{
	struct pebs_sample s;
	int err;

	if (ev->type == PERF_RECORD_SAMPLE) {
		if (!cbs || !cbs->on_sample)
			return 1;
		err = pebs_sample__decode(pebs_channel__layout(ch), ev, &s);
		if (err)
			return pebs_err(err, "a %u-byte sample of %s does not "
					"decode with its sample_type 0x%llx",
					ev->size, pebs_channel__event(ch)->name,
					(unsigned long long)
					pebs_channel__attr(ch)->sample_type);
		err = cbs->on_sample(ctx, ch, &s, ev);
		return err < 0 ? err : 1;
	}
	if (!cbs)
		return 0;
	if (ev->type == PERF_RECORD_LOST && cbs->on_lost &&
	    ev->size >= sizeof(struct lost_record)) {
		struct lost_record lr;

		/* a wrapped record sits in a bounce buffer: copy to align */
		memcpy(&lr, ev, sizeof(lr));
		cbs->on_lost(ctx, ch, lr.lost);
	}
	if (cbs->on_record) {
		err = cbs->on_record(ctx, ch, ev);
		if (err < 0)
			return err;
	}
	return 0;
}

/*
 * Drain one ring: every record up to the head seen at the start; with
 * @all, again until it is empty (the producer is gone).
 */
static int drain_ring(struct pebs_channel *ch, bool all,
		      const struct pebs_chanset_cbs *cbs, void *ctx,
		      int *delivered)
{
	struct pebs_ring *ring = pebs_channel__ring(ch);
	const struct perf_event_header *ev;
	int err, ret;

	do {
		err = pebs_ring__read_init(ring);
		if (err == -EAGAIN)
			return 0;
		if (err)
			return err;
		while ((err = pebs_ring__next(ring, &ev)) > 0) {
			ret = deliver(ch, ev, cbs, ctx);
			if (ret < 0) {
				err = ret;
				break;
			}
			*delivered += ret;
		}
		/* what was read is consumed, even when a callback failed */
		pebs_ring__consume(ring);
		if (err < 0)
			return err;
	} while (all);
	return 0;
}

static int drain_target(struct target *t, unsigned int nr_slots, bool all,
			const struct pebs_chanset_cbs *cbs, void *ctx,
			int *delivered)
{
	int err;

	for (unsigned int i = 0; i < nr_slots; i++) {
		err = drain_ring(t->slots[i].ch, all, cbs, ctx, delivered);
		if (err)
			return err;
	}
	return 0;
}

static int poll_set(struct pebs_chanset *set, int timeout_ms, bool every,
		    const struct pebs_chanset_cbs *cbs, void *ctx)
{
	struct epoll_event one;
	struct epoll_event *evs = set->cap_evbuf ? set->evbuf : &one;
	int max = set->cap_evbuf ? (int)set->cap_evbuf : 1;
	int delivered = 0;
	int n, err = 0;

	if (set->busy)
		return pebs_err(-EBUSY, "channel set: poll/drain called from "
				"its own callback");
	n = epoll_wait(set->epfd, evs, max, timeout_ms);
	if (n < 0)
		return pebs_err(-errno, "epoll_wait: %s", strerror(errno));
	set->busy = true;
	/* a hung-up target is drained to the end below, then reported */
	for (int i = 0; i < n; i++)
		if (evs[i].events & EPOLLHUP)
			((struct slot *)evs[i].data.ptr)->t->gone = true;
	if (every) {
		for (unsigned int i = 0; i < set->nr_targets && !err; i++)
			if (!set->targets[i]->gone)
				err = drain_target(set->targets[i],
						   set->per_target, false, cbs,
						   ctx, &delivered);
	} else {
		for (int i = 0; i < n && !err; i++) {
			struct slot *sl = evs[i].data.ptr;

			if (!sl->t->gone && (evs[i].events & EPOLLIN))
				err = drain_ring(sl->ch, false, cbs, ctx,
						 &delivered);
		}
	}
	for (unsigned int i = set->nr_targets; i-- > 0 && !err;) {
		struct target *t = set->targets[i];

		if (!t->gone)
			continue;
		err = drain_target(t, set->per_target, true, cbs, ctx,
				   &delivered);
		if (err)
			break;
		if (cbs && cbs->on_exit)
			cbs->on_exit(ctx, t->id);
		remove_at(set, i);
	}
	set->busy = false;
	return err ? err : delivered;
}

int pebs_chanset__poll(struct pebs_chanset *set, int timeout_ms,
		       const struct pebs_chanset_cbs *cbs, void *ctx)
{
	return poll_set(set, timeout_ms, false, cbs, ctx);
}

int pebs_chanset__drain(struct pebs_chanset *set,
			const struct pebs_chanset_cbs *cbs, void *ctx)
{
	return poll_set(set, 0, true, cbs, ctx);
}

unsigned int pebs_chanset__nr_targets(const struct pebs_chanset *set)
{
	return set->nr_targets;
}

unsigned int pebs_chanset__nr_channels(const struct pebs_chanset *set)
{
	return set->nr_targets * set->per_target;
}

struct pebs_channel *pebs_chanset__channel(struct pebs_chanset *set,
					   unsigned int idx)
{
	if (idx >= set->nr_targets * set->per_target)
		return NULL;
	return set->targets[idx / set->per_target]->
		slots[idx % set->per_target].ch;
}

int pebs_chanset__epoll_fd(const struct pebs_chanset *set)
{
	return set->epfd;
}

static int for_each_channel(struct pebs_chanset *set,
			    int (*fn)(struct pebs_channel *ch))
{
	int err, first = 0;

	for (unsigned int i = 0; i < set->nr_targets; i++)
		for (unsigned int j = 0; j < set->per_target; j++) {
			err = fn(set->targets[i]->slots[j].ch);
			if (err && !first)
				first = err;
		}
	return first;
}

int pebs_chanset__enable(struct pebs_chanset *set)
{
	return for_each_channel(set, pebs_channel__enable);
}

int pebs_chanset__disable(struct pebs_chanset *set)
{
	return for_each_channel(set, pebs_channel__disable);
}
