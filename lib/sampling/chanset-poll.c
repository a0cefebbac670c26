// SPDX-License-Identifier: MIT
/*
 * chanset-poll.c - a channel set's rings at work: the rings and who
 * shares them (one per CPU, or per task with cpu -1), the id table that
 * names the channel of each record in a shared ring (its
 * PERF_SAMPLE_IDENTIFIER), and polling: epoll_wait over every fd, each
 * ready ring drained to the head seen (a shared ring once per pass),
 * every record handed to its channel's callbacks, and targets that hung
 * up drained to their end before on_exit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "pebsshim/sampling.h"
#include "sampling/chanset.h"
#include "core/opts.h"

static struct chan_slot tomb;

/* ---- id -> slot ------------------------------------------------------ */

static unsigned int id_hash(uint64_t id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (unsigned int)id;
}

struct chan_slot *chanset_ids_find(const struct pebs_chanset *set, uint64_t id)
{
	unsigned int i;

	if (!set->ids)
		return NULL;
	for (i = id_hash(id) & set->ids_mask; set->ids[i];
	     i = (i + 1) & set->ids_mask)
		if (set->ids[i] != &tomb && set->ids[i]->id == id)
			return set->ids[i];
	return NULL;
}

void chanset_ids_put(struct pebs_chanset *set, struct chan_slot *sl)
{
	unsigned int i = id_hash(sl->id) & set->ids_mask;

	while (set->ids[i] && set->ids[i] != &tomb)
		i = (i + 1) & set->ids_mask;
	if (set->ids[i] == &tomb)
		set->ids_tomb--;
	set->ids[i] = sl;
	set->ids_used++;
	sl->in_ids = true;
}

/* room for one more id: rehash (dropping tombstones) past half full */
int chanset_ids_reserve(struct pebs_chanset *set)
{
	unsigned int cap = set->ids ? set->ids_mask + 1 : 0;
	struct chan_slot **old = set->ids;
	unsigned int ncap = 64;

	if (2 * (set->ids_used + set->ids_tomb + 1) <= cap)
		return 0;
	while (ncap < 4 * (set->ids_used + 1))
		ncap *= 2;
	set->ids = calloc(ncap, sizeof(*set->ids));
	if (!set->ids) {
		set->ids = old;
		return core_err(-ENOMEM, "channel set: out of memory");
	}
	set->ids_mask = ncap - 1;
	set->ids_used = set->ids_tomb = 0;
	for (unsigned int i = 0; i < cap; i++)
		if (old[i] && old[i] != &tomb)
			chanset_ids_put(set, old[i]);
	free(old);
	return 0;
}

void chanset_ids_del(struct pebs_chanset *set, struct chan_slot *sl)
{
	unsigned int i = id_hash(sl->id) & set->ids_mask;

	while (set->ids[i] != sl)
		i = (i + 1) & set->ids_mask;
	set->ids[i] = &tomb;
	set->ids_used--;
	set->ids_tomb++;
	sl->in_ids = false;
}

/* ---- rings ------------------------------------------------------------ */

/* the ring channels on @cpu (of @task with cpu -1) share, or NULL */
struct ring_ref *chanset_ring_find(const struct pebs_chanset *set, int cpu,
				   int task)
{
	if (!set->share)
		return NULL;
	for (unsigned int i = 0; i < set->nr_rings; i++) {
		struct ring_ref *r = set->rings[i];

		if (r->cpu == cpu && (cpu >= 0 || r->task == task))
			return r;
	}
	return NULL;
}

struct ring_ref *chanset_ring_add(struct pebs_chanset *set,
				  struct pebs_channel *owner, int cpu, int task)
{
	struct ring_ref *r;

	if (set->nr_rings == set->cap_rings) {
		unsigned int cap = set->cap_rings ? 2 * set->cap_rings : 8;
		struct ring_ref **v = reallocarray(set->rings, cap,
						   sizeof(*v));

		if (!v)
			return NULL;
		set->rings = v;
		set->cap_rings = cap;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	*r = (struct ring_ref){ .owner = owner,
				.ring = pebs_channel__ring(owner),
				.cpu = cpu, .task = task,
				.pass = set->pass };
	set->rings[set->nr_rings++] = r;
	return r;
}

/* one user fewer; the last one frees it (its owner unmapped the ring) */
void chanset_ring_release(struct pebs_chanset *set, struct ring_ref *r)
{
	if (--r->users)
		return;
	for (unsigned int i = 0; i < set->nr_rings; i++) {
		if (set->rings[i] == r) {
			set->rings[i] = set->rings[--set->nr_rings];
			break;
		}
	}
	free(r);
}

/* PERF_RECORD_LOST: { header; u64 id; u64 lost; sample_id } */
struct lost_record {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};

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
		if (!cbs->on_sample)
			return 1;
		err = pebs_sample__decode(pebs_channel__layout(ch), ev, &s);
		if (err)
			return core_err(err, "a %u-byte sample of %s does not "
					"decode with its sample_type 0x%llx",
					ev->size, pebs_channel__event(ch)->name,
					(unsigned long long)
					pebs_channel__attr(ch)->sample_type);
		err = cbs->on_sample(ctx, ch, &s, ev);
		return err < 0 ? err : 1;
	}
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
 * The channel of a record in @r: the ring's only channel, or the one its
 * PERF_SAMPLE_IDENTIFIER names (first in a sample, last in the sample_id
 * of other records); NULL for a channel no longer in the set.
 */
static struct pebs_channel *record_channel(const struct pebs_chanset *set,
					   const struct ring_ref *r,
					   const struct perf_event_header *ev)
{
	const unsigned char *p = (const unsigned char *)ev;
	struct chan_slot *sl;

	if (!set->share)
		return r->owner;
	if (ev->size < sizeof(*ev) + sizeof(uint64_t))
		return NULL;
	sl = chanset_ids_find(set, ld64(ev->type == PERF_RECORD_SAMPLE ?
				p + sizeof(*ev) : p + ev->size - 8));
	return sl ? sl->ch : NULL;
}

/*
 * Drain one ring: every record up to the head seen at the start; with
 * @all, again until it is empty (its producers are gone).
 */
static int drain_ring(struct pebs_chanset *set, struct ring_ref *r, bool all,
		      const struct pebs_chanset_cbs *cbs, void *ctx,
		      int *delivered)
{
	const struct perf_event_header *ev;
	struct pebs_channel *ch;
	int err, ret;

	r->pass = set->pass;
	do {
		err = pebs_ring__read_init(r->ring);
		if (err == -EAGAIN)
			return 0;
		if (err)
			return err;
		while ((err = pebs_ring__next(r->ring, &ev)) > 0) {
			ch = record_channel(set, r, ev);
			if (!ch)
				continue;	/* of a removed target */
			ret = deliver(ch, ev, cbs, ctx);
			if (ret < 0) {
				err = ret;
				break;
			}
			*delivered += ret;
		}
		/* what was read is consumed, even when a callback failed */
		pebs_ring__consume(r->ring);
		if (err < 0)
			return err;
	} while (all);
	return 0;
}

/*
 * The rings of a target that is gone, to their end: a ring only it
 * wrote to until empty; a shared one once more (its other writers may
 * go on, and what the gone ones wrote came before their EPOLLHUP).
 */
static int drain_target(struct pebs_chanset *set, struct target *t,
			const struct pebs_chanset_cbs *cbs, void *ctx,
			int *delivered)
{
	int err;

	set->pass++;
	for (unsigned int i = 0; i < set->per_target; i++) {
		struct ring_ref *r = t->slots[i].r;
		unsigned int mine = 0;

		if (!r || r->pass == set->pass)
			continue;	/* its event closed, or drained */
		for (unsigned int j = 0; j < set->per_target; j++)
			mine += t->slots[j].r == r;
		err = drain_ring(set, r, r->users == mine, cbs, ctx,
				 delivered);
		if (err)
			return err;
	}
	return 0;
}

static int poll_set(struct pebs_chanset *set, int timeout_ms, bool every,
		    const struct pebs_chanset_cbs *user_cbs, void *ctx)
{
	struct pebs_chanset_cbs copy;
	const struct pebs_chanset_cbs *cbs = &copy;
	struct epoll_event one;
	struct epoll_event *evs = set->cap_evbuf ? set->evbuf : &one;
	int max = set->cap_evbuf ? (int)set->cap_evbuf : 1;
	int delivered = 0;
	int n, err = 0;

	if (set->busy)
		return core_err(-EBUSY, "channel set: poll/drain called from "
				"its own callback");
	/* the caller's table of any size (sz): absent callbacks are NULL */
	err = opts_copy(&copy, sizeof(copy), user_cbs, "pebs_chanset_cbs");
	if (err)
		return err;
	n = epoll_wait(set->epfd, evs, max, timeout_ms);
	if (n < 0)
		return core_err(-errno, "epoll_wait: %s", strerror(errno));
	set->busy = true;
	set->pass++;
	/* a hung-up target is drained to the end below, then reported */
	for (int i = 0; i < n; i++)
		if (evs[i].events & EPOLLHUP)
			((struct chan_slot *)evs[i].data.ptr)->t->gone = true;
	if (every) {
		for (unsigned int i = 0; i < set->nr_rings && !err; i++)
			err = drain_ring(set, set->rings[i], false, cbs, ctx,
					 &delivered);
	} else {
		/* one fd of a shared ring stands for all of them */
		for (int i = 0; i < n && !err; i++) {
			struct chan_slot *sl = evs[i].data.ptr;

			if ((evs[i].events & EPOLLIN) &&
			    sl->r->pass != set->pass)
				err = drain_ring(set, sl->r, false, cbs, ctx,
						 &delivered);
		}
	}
	for (unsigned int i = set->nr_targets; i-- > 0 && !err;) {
		struct target *t = set->targets[i];

		if (!t->gone)
			continue;
		err = drain_target(set, t, cbs, ctx, &delivered);
		if (err)
			break;
		if (cbs->on_exit)
			cbs->on_exit(ctx, t->id);
		chanset_remove_at(set, i);
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
