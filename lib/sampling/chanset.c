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
		     const struct pebs_channel *leader, uint64_t period)
{
	const struct pebs_channel_opts *o = ev == set->tracking ? &set->opts :
					    &set->rest;
	struct pebs_channel_opts fixed;
	bool is_cpu = set->kind == PEBS_TARGET_CPU;
	pid_t pid = is_cpu ? -1 : t->id;
	struct ring_ref *r = chanset_ring_find(set, cpu, t->id);
	int err;

	/* pebs_chanset__open_event's fixed period, samples without it */
	if (period) {
		fixed = *o;
		fixed.period = period;
		fixed.freq = 0;
		fixed.sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
		o = &fixed;
	}
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

/* a slot's channel closed, the slot empty (open again by slot_add) */
static void slot_close(struct pebs_chanset *set, struct chan_slot *sl)
{
	if (!sl->ch)
		return;
	epoll_ctl(set->epfd, EPOLL_CTL_DEL, pebs_channel__fd(sl->ch), NULL);
	if (sl->in_ids)
		chanset_ids_del(set, sl);
	/* an owner closed before its ring's users stays mapped */
	pebs_channel__close(sl->ch);
	if (sl->r)
		chanset_ring_release(set, sl->r);
	sl->ch = NULL;
	sl->r = NULL;
}

static void target_close(struct pebs_chanset *set, struct target *t)
{
	for (unsigned int i = 0; i < set->per_target; i++)
		slot_close(set, &t->slots[i]);
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

/*
 * Slot @i of @t opened (a group member after its leader, on its task or
 * CPU) and polled: every fd, also those without a ring of their own:
 * polling one consumes its ring's wakeup, and EPOLLHUP is per event.
 */
static int slot_add(struct pebs_chanset *set, struct target *t, unsigned int i,
		    uint64_t period)
{
	struct epoll_event ee = { .events = EPOLLIN };
	struct chan_slot *sl = &t->slots[i];
	int on = set->kind == PEBS_TARGET_CPU ? t->id :
		 set->cpus ? set->cpus[i / set->nr_evs] : -1;
	unsigned int ev = i % set->nr_evs, lead = set->evs[ev].leader;
	bool member = set->evs[ev].nr_members > 1 && lead < ev;
	int err;

	if (member && !t->slots[i - ev + lead].ch)
		return core_err(-EINVAL, "channel set: %s opens after its "
				"group leader %s", set->evs[ev].name,
				set->evs[lead].name);
	err = slot_open(set, t, sl, ev, on,
			member ? t->slots[i - ev + lead].ch : NULL, period);
	if (err)
		return err;
	ee.data.ptr = sl;
	if (epoll_ctl(set->epfd, EPOLL_CTL_ADD, pebs_channel__fd(sl->ch),
		      &ee) < 0)
		return core_err(-errno, "epoll_ctl: %s", strerror(errno));
	return 0;
}

/* the checks of a call that adds or removes channels */
static int can_change(const struct pebs_chanset *set, int target)
{
	bool cpu = set->kind == PEBS_TARGET_CPU;

	if (set->busy)
		return core_err(-EBUSY, "channel set: targets cannot change "
				"inside a poll callback");
	if (cpu ? target < 0 : target <= 0)
		return core_err(-EINVAL, "%s %d: not a valid target",
				cpu ? "cpu" : "pid", target);
	return 0;
}

/* a new target @id, its slots empty (not in the set yet) */
static int target_new(struct pebs_chanset *set, int id, struct target **tp)
{
	int err = reserve(set);

	if (err)
		return err;
	*tp = calloc(1, sizeof(**tp) + set->per_target * sizeof((*tp)->slots[0]));
	if (!*tp)
		return core_err(-ENOMEM, "channel set: out of memory");
	(*tp)->id = id;
	return 0;
}

int pebs_chanset__add(struct pebs_chanset *set, int target)
{
	unsigned int n = set->nr_evs;
	struct target *t;
	int err = can_change(set, target);

	if (err)
		return err;
	if (find(set, target) >= 0)
		return core_err(-EEXIST, "%s %d is already in the set",
				set->kind == PEBS_TARGET_CPU ? "cpu" : "pid",
				target);
	err = target_new(set, target, &t);
	if (err)
		return err;
	for (unsigned int i = 0; i < set->per_target; i++) {
		/*
		 * in each CPU's block of slots the tracking event first: the
		 * ring is its, and outlives the others' channels
		 * (pebs_chanset__close_event)
		 */
		unsigned int k = i % n, track = set->tracking;

		err = slot_add(set, t, i - k + (!k ? track : k <= track ? k - 1 : k),
			       0);
		if (err)
			goto out_close;
	}
	set->targets[set->nr_targets++] = t;
	return 0;

out_close:
	target_close(set, t);
	return err;
}

int pebs_chanset__close_event(struct pebs_chanset *set, unsigned int ev)
{
	if (set->busy)
		return core_err(-EBUSY, "channel set: targets cannot change "
				"inside a poll callback");
	if (ev >= set->nr_evs)
		return core_err(-EINVAL, "channel set: no event %u (%u events)",
				ev, set->nr_evs);
	for (unsigned int i = set->nr_targets; i-- > 0;) {
		struct target *t = set->targets[i];
		bool left = false;

		for (unsigned int j = 0; j < set->per_target; j++) {
			if (j % set->nr_evs == ev)
				slot_close(set, &t->slots[j]);
			left |= t->slots[j].ch != NULL;
		}
		if (!left)
			chanset_remove_at(set, i);
	}
	return 0;
}

int pebs_chanset__open_event(struct pebs_chanset *set, unsigned int ev,
			     int target, uint64_t period)
{
	int i, err = can_change(set, target);
	struct target *t;

	if (err)
		return err;
	if (ev >= set->nr_evs)
		return core_err(-EINVAL, "channel set: no event %u (%u events)",
				ev, set->nr_evs);
	i = find(set, target);
	if (i >= 0)
		t = set->targets[i];
	else if ((err = target_new(set, target, &t)))
		return err;
	for (unsigned int j = ev; j < set->per_target; j += set->nr_evs) {
		if (t->slots[j].ch)
			continue;
		err = slot_add(set, t, j, period);
		if (err)
			break;
	}
	if (err && i >= 0) {
		/* all or nothing: the event's slots as they were (empty) */
		for (unsigned int j = ev; j < set->per_target; j += set->nr_evs)
			slot_close(set, &t->slots[j]);
		return err;
	}
	if (err) {
		target_close(set, t);
		return err;
	}
	if (i < 0)
		set->targets[set->nr_targets++] = t;
	return 0;
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
			if (!set->targets[i]->slots[j].ch)
				continue;	/* its event closed */
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
