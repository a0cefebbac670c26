/* SPDX-License-Identifier: MIT */
/*
 * chanset.h - the channel set's private parts, shared by lib/sampling/chanset.c
 * (events x targets: creating, opening with perf's fallbacks, adding and
 * removing targets) and lib/sampling/chanset-poll.c (rings, the id table, epoll,
 * draining the rings, delivering records).
 * Not installed.
 */
#ifndef PEBSSHIM_CHANSET_H
#define PEBSSHIM_CHANSET_H

#include <stdbool.h>
#include <stdint.h>

#include "core/internal.h"
#include "pebsshim/sampling.h"

struct target;

/* a mapped ring and the channels that write to it */
struct ring_ref {
	struct pebs_channel *owner;	/* maps it; alive while users > 0 */
	struct pebs_ring *ring;
	int cpu;			/* -1: the ring of one task ... */
	int task;			/* ... this one */
	unsigned int users;		/* open channels of the set on it */
	unsigned int pass;		/* the last drain pass that read it */
};

/* one channel of a target; epoll data.ptr points here */
struct chan_slot {
	struct pebs_channel *ch;
	struct target *t;
	struct ring_ref *r;		/* NULL until the channel is set up */
	uint64_t id;
	bool in_ids;			/* in the id table */
};

struct target {
	int id;			/* pid/tid or CPU */
	bool gone;		/* EPOLLHUP seen, on_exit not yet called */
	struct chan_slot slots[];	/* one per event */
};

struct pebs_chanset {
	struct pebs_event *evs;
	unsigned int nr_evs;
	enum pebs_target_kind kind;
	struct pebs_channel_opts opts;	/* the tracking event's */
	struct pebs_channel_opts rest;	/* the others': no side-band */
	unsigned int tracking;		/* pebs_chanset__set_tracking; 0 */
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
	/*
	 * Shared rings need PERF_SAMPLE_IDENTIFIER in every event (to
	 * tell whose each record is): @share says whether they have it.
	 */
	bool share;
	struct ring_ref **rings;
	unsigned int nr_rings, cap_rings;
	unsigned int pass;
	/* id -> slot, open addressing (NULL free, &tomb deleted) */
	struct chan_slot **ids;
	unsigned int ids_mask, ids_used, ids_tomb;
};

/*
 * The id table (lib/sampling/chanset-poll.c): chanset_ids_find - the slot of
 * sample id @id, NULL if none; _reserve - room for one more (0 or
 * -ENOMEM); _put, _del - add or drop @sl by its id.
 */
struct chan_slot *chanset_ids_find(const struct pebs_chanset *set, uint64_t id);
int chanset_ids_reserve(struct pebs_chanset *set);
void chanset_ids_put(struct pebs_chanset *set, struct chan_slot *sl);
void chanset_ids_del(struct pebs_chanset *set, struct chan_slot *sl);

/*
 * Rings (lib/sampling/chanset-poll.c): chanset_ring_find - the ring a channel on
 * @cpu (or of task @task with cpu -1) writes to, NULL if none yet;
 * _add - @owner's new ring (NULL: out of memory); _release - one user
 * fewer, the last one unmaps it.
 */
struct ring_ref *chanset_ring_find(const struct pebs_chanset *set, int cpu,
				   int task);
struct ring_ref *chanset_ring_add(struct pebs_chanset *set,
				  struct pebs_channel *owner, int cpu,
				  int task);
void chanset_ring_release(struct pebs_chanset *set, struct ring_ref *r);
/* close target @i and drop it from the set (lib/sampling/chanset.c) */
void chanset_remove_at(struct pebs_chanset *set, unsigned int i);

#endif /* PEBSSHIM_CHANSET_H */
