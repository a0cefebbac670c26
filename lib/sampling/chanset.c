// SPDX-License-Identifier: MIT
/*
 * chanset.c - events x targets, every ring in one epoll instance,
 * drained completely through the ring reader. As perf record does, the
 * channels of one CPU share one ring (PERF_EVENT_IOC_SET_OUTPUT): every
 * event of a CPU target, every event and task of inherited task targets
 * on that CPU, every event of a task opened with cpu -1. Each record
 * names its channel by its PERF_SAMPLE_IDENTIFIER (the id table here;
 * polling and draining in lib/sampling/chanset-poll.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "pebsshim/sampling.h"
#include "sampling/chanset.h"
#include "core/opts.h"

/* the online CPU ids, in order */
static int online_cpus(int **cpusp, unsigned int *nrp)
{
	static uint64_t bits[PEBS_MAX_CPUS / 64];
	struct pebs_ids cpus = { 0 };
	int err;

	err = pebs_cpulist__online(PEBS_MAX_CPUS, bits);
	if (!err)
		err = pebs_cpulist__ids(bits, PEBS_MAX_CPUS, &cpus);
	if (err) {
		pebs_ids__free(&cpus);
		return err;
	}
	*cpusp = cpus.v;
	*nrp = cpus.n;
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
		return core_err(-EINVAL, "channel set: no events given");
	if (kind != PEBS_TARGET_TASK && kind != PEBS_TARGET_CPU)
		return core_err(-EINVAL, "channel set: bad target kind %d",
				(int)kind);
	set = calloc(1, sizeof(*set));
	if (!set)
		return core_err(-ENOMEM, "channel set: out of memory");
	set->share = true;
	for (unsigned int i = 0; i < nr_evs; i++) {
		err = pebs_channel_attr(&evs[i], opts, &attr, sizeof(attr));
		if (err)
			goto out_free;
		if (!(attr.sample_type & PERF_SAMPLE_IDENTIFIER))
			set->share = false;
	}
	set->evs = calloc(nr_evs, sizeof(*set->evs));
	if (!set->evs) {
		err = core_err(-ENOMEM, "channel set: out of memory");
		goto out_free;
	}
	memcpy(set->evs, evs, nr_evs * sizeof(*evs));
	set->nr_evs = nr_evs;
	set->kind = kind;
	/* checked by pebs_channel_attr above */
	opts_copy(&set->opts, sizeof(set->opts), opts,
		  "pebs_channel_opts");
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
		err = core_err(-errno, "epoll_create1: %s", strerror(errno));
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

/*
 * perf's evsel__fallback (pebs_event__fallback): the event changes for
 * every later open too. A name another event has already stays as
 * typed (channels find their event by name).
 */
static bool fallback(struct pebs_chanset *set, unsigned int ev, int err)
{
	struct pebs_event *e = &set->evs[ev];
	char name[sizeof(e->name)];

	memcpy(name, e->name, sizeof(name));
	if (!pebs_event__fallback(e, err))
		return false;
	for (unsigned int i = 0; i < set->nr_evs; i++)
		if (i != ev && !strcmp(set->evs[i].name, e->name))
			memcpy(e->name, name, sizeof(name));
	return true;
}

/* what perf keeps once an open succeeded: the lowered precise_ip, ... */
static void keep_retries(struct pebs_event *e,
			 const struct perf_event_attr *opened)
{
	e->attr.precise_ip = opened->precise_ip;
	e->attr.exclude_guest = opened->exclude_guest;
	e->attr.exclude_host = opened->exclude_host;
}

/*
 * Open event @ev of target @t on @cpu into slot @sl: onto the ring its
 * CPU (or task) already has, else a ring of its own.
 */
static int slot_open(struct pebs_chanset *set, struct target *t,
		     struct chan_slot *sl, unsigned int ev, int cpu,
		     const struct pebs_channel *leader)
{
	const struct pebs_channel_opts *o = ev == set->tracking ? &set->opts :
					    &set->rest;
	bool is_cpu = set->kind == PEBS_TARGET_CPU;
	pid_t pid = is_cpu ? -1 : t->id;
	struct ring_ref *r = chanset_ring_find(set, cpu, t->id);
	int err;

	sl->t = t;
	if (set->share && (err = chanset_ids_reserve(set)))
		return err;
	do {
		if (leader)
			err = pebs_channel__open_member(&set->evs[ev], pid, cpu,
							o, r ? r->owner : NULL,
							leader, &sl->ch);
		else if (r)
			err = pebs_channel__open_output(&set->evs[ev], pid, cpu,
							o, r->owner, &sl->ch);
		else
			err = pebs_channel__open(&set->evs[ev], pid, cpu, o,
						 &sl->ch);
	} while (err && fallback(set, ev, err));
	if (err)
		return err;
	keep_retries(&set->evs[ev], pebs_channel__attr(sl->ch));
	if (!r && !(r = chanset_ring_add(set, sl->ch, cpu, t->id)))
		return core_err(-ENOMEM, "channel set: out of memory");
	sl->r = r;
	r->users++;
	pebs_channel__id(sl->ch, &sl->id);
	if (set->share)
		chanset_ids_put(set, sl);
	return 0;
}

static void target_close(struct pebs_chanset *set, struct target *t)
{
	for (unsigned int i = 0; i < set->per_target; i++) {
		struct chan_slot *sl = &t->slots[i];

		if (!sl->ch)
			continue;
		epoll_ctl(set->epfd, EPOLL_CTL_DEL, pebs_channel__fd(sl->ch),
			  NULL);
		if (sl->in_ids)
			chanset_ids_del(set, sl);
		/* an owner closed before its ring's users stays mapped */
		pebs_channel__close(sl->ch);
		if (sl->r)
			chanset_ring_release(set, sl->r);
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
	free(set->rings);
	free(set->ids);
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
			return core_err(-ENOMEM, "channel set: out of memory");
		set->targets = t;
		set->cap_targets = cap;
	}
	if (need > set->cap_evbuf) {
		struct epoll_event *e;

		e = reallocarray(set->evbuf, need, sizeof(*e));
		if (!e)
			return core_err(-ENOMEM, "channel set: out of memory");
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
		return core_err(-EBUSY, "channel set: targets cannot change "
				"inside a poll callback");
	if (find(set, target) >= 0)
		return core_err(-EEXIST, "%s %d is already in the set",
				cpu ? "cpu" : "pid", target);
	if (cpu ? target < 0 : target <= 0)
		return core_err(-EINVAL, "%s %d: not a valid target",
				cpu ? "cpu" : "pid", target);
	err = reserve(set);
	if (err)
		return err;
	t = calloc(1, sizeof(*t) + set->per_target * sizeof(t->slots[0]));
	if (!t)
		return core_err(-ENOMEM, "channel set: out of memory");
	t->id = target;
	for (unsigned int i = 0; i < set->per_target; i++) {
		struct epoll_event ee = { .events = EPOLLIN };
		struct chan_slot *sl = &t->slots[i];
		int on = cpu ? target : set->cpus ? set->cpus[i / set->nr_evs] :
			 -1;

		unsigned int ev = i % set->nr_evs, lead = set->evs[ev].leader;
		bool member = set->evs[ev].nr_members > 1 && lead < ev;

		/* a group member opens after its leader, on its task/CPU */
		err = slot_open(set, t, sl, ev, on,
				member ? t->slots[i - ev + lead].ch : NULL);
		if (err)
			goto out_close;
		/*
		 * Every fd, also those without a ring of their own: polling
		 * one consumes its ring's wakeup, and EPOLLHUP is per event.
		 */
		ee.data.ptr = sl;
		if (epoll_ctl(set->epfd, EPOLL_CTL_ADD,
			      pebs_channel__fd(sl->ch), &ee) < 0) {
			err = core_err(-errno, "epoll_ctl: %s", strerror(errno));
			goto out_close;
		}
	}
	set->targets[set->nr_targets++] = t;
	return 0;

out_close:
	target_close(set, t);
	return err;
}

void chanset_remove_at(struct pebs_chanset *set, unsigned int i)
{
	target_close(set, set->targets[i]);
	set->targets[i] = set->targets[--set->nr_targets];
}

int pebs_chanset__remove(struct pebs_chanset *set, int target)
{
	int i;

	if (set->busy)
		return core_err(-EBUSY, "channel set: targets cannot change "
				"inside a poll callback");
	i = find(set, target);
	if (i < 0)
		return core_err(-ENOENT, "%d is not in the set", target);
	chanset_remove_at(set, (unsigned int)i);
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
		return core_err(-EBUSY, "channel set: targets cannot change "
				"inside a poll callback");
	if (n && !targets)
		return core_err(-EINVAL, "channel set: targets is NULL");
	/* adds are appended after the old targets: undo them on failure */
	for (unsigned int i = 0; i < n; i++) {
		if (find(set, targets[i]) >= 0)
			continue;
		err = pebs_chanset__add(set, targets[i]);
		if (err) {
			while (set->nr_targets > old)
				chanset_remove_at(set, set->nr_targets - 1);
			return err;
		}
	}
	for (unsigned int i = set->nr_targets; i-- > 0;)
		if (!listed(targets, n, set->targets[i]->id))
			chanset_remove_at(set, i);
	return 0;
}

int pebs_chanset__set_tracking(struct pebs_chanset *set, unsigned int ev)
{
	if (!set || ev >= set->nr_evs)
		return core_err(-EINVAL, "channel set: no event %u to track "
				"with (%u events)", ev, set ? set->nr_evs : 0);
	if (set->nr_targets)
		return core_err(-EBUSY, "channel set: the tracking event is "
				"chosen before the first target is added");
	set->tracking = ev;
	return 0;
}

unsigned int pebs_chanset__nr_targets(const struct pebs_chanset *set)
{
	return set->nr_targets;
}

unsigned int pebs_chanset__nr_channels(const struct pebs_chanset *set)
{
	return set->nr_targets * set->per_target;
}

unsigned int pebs_chanset__nr_rings(const struct pebs_chanset *set)
{
	return set->nr_rings;
}

struct pebs_channel *pebs_chanset__channel(struct pebs_chanset *set,
					   unsigned int idx)
{
	if (idx >= set->nr_targets * set->per_target)
		return NULL;
	return set->targets[idx / set->per_target]->
		slots[idx % set->per_target].ch;
}

const struct pebs_event *pebs_chanset__event(const struct pebs_chanset *set,
					     unsigned int i)
{
	return set && i < set->nr_evs ? &set->evs[i] : NULL;
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
