// SPDX-License-Identifier: MIT
/*
 * thread.c - threads over time: tid -> process, comm history (COMM, also
 * from exec), FORK (the child inherits its parent's comm), EXIT.
 *
 * Comm strings are interned: equal names share one pointer that lives
 * as long as the object, so a report can key rows on the pointer. The
 * thread table is open-addressed on the tid; records are fed in time
 * order and every lookup answers for the time reached so far, except
 * pebs_threads__comm_at, which searches a thread's history.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/session.h"
#include "core/internal.h"

#define COMM_MAX	16	/* TASK_COMM_LEN, what the kernel records */

struct comm_change {
	uint64_t time;
	const char *comm;
};

struct thread {
	int32_t tid, pid;	/* pid -1: not known yet */
	bool used, exited;
	const char *comm;	/* current; NULL: none seen */
	struct comm_change *hist;
	uint32_t nr_hist, cap_hist;
};

struct pebs_threads {
	struct thread *tab;
	size_t cap, nr;		/* cap: a power of two */
	struct core_strset names;	/* the comms, interned */
};

static uint32_t hash_u32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352d;
	x ^= x >> 15;
	x *= 0x846ca68b;
	return x ^ (x >> 16);
}

static int oom(void)
{
	return core_err(-ENOMEM, "threads: out of memory");
}

int pebs_threads__new(struct pebs_threads **tp)
{
	struct pebs_threads *t;

	if (!tp)
		return core_err(-EINVAL, "threads: no result pointer");
	t = calloc(1, sizeof(*t));
	if (!t)
		return oom();
	*tp = t;
	return 0;
}

void pebs_threads__delete(struct pebs_threads *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->cap; i++)
		free(t->tab[i].hist);
	core_strset_free(&t->names);
	free(t->tab);
	free(t);
}

/* The interned copy of @comm (cut to COMM_MAX - 1 bytes), or NULL. */
static const char *intern(struct pebs_threads *t, const char *comm)
{
	char buf[COMM_MAX];

	snprintf(buf, sizeof(buf), "%s", comm);
	return core_strset_add(&t->names, buf);
}

static struct thread *lookup(const struct pebs_threads *t, int32_t tid)
{
	size_t mask, i;

	if (!t->cap)
		return NULL;
	mask = t->cap - 1;
	for (i = hash_u32((uint32_t)tid) & mask; t->tab[i].used;
	     i = (i + 1) & mask)
		if (t->tab[i].tid == tid)
			return &t->tab[i];
	return NULL;
}

static struct thread *findnew(struct pebs_threads *t, int32_t tid)
{
	struct thread *th = lookup(t, tid);
	size_t mask, i;

	if (th)
		return th;
	if ((t->nr + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct thread *n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (i = 0; i < t->cap; i++) {
			size_t j;

			if (!t->tab[i].used)
				continue;
			for (j = hash_u32((uint32_t)t->tab[i].tid) & (cap - 1);
			     n[j].used; j = (j + 1) & (cap - 1))
				;
			n[j] = t->tab[i];
		}
		free(t->tab);
		t->tab = n;
		t->cap = cap;
	}
	mask = t->cap - 1;
	for (i = hash_u32((uint32_t)tid) & mask; t->tab[i].used;
	     i = (i + 1) & mask)
		;
	th = &t->tab[i];
	th->used = true;
	th->tid = tid;
	th->pid = -1;
	t->nr++;
	return th;
}

static int set_comm(struct pebs_threads *t, struct thread *th,
		    const char *comm, uint64_t time)
{
	const char *c = intern(t, comm);

	if (!c)
		return oom();
	if (th->nr_hist == th->cap_hist) {
		uint32_t cap = th->cap_hist ? th->cap_hist * 2 : 2;
		struct comm_change *h = realloc(th->hist, cap * sizeof(*h));

		if (!h)
			return oom();
		th->hist = h;
		th->cap_hist = cap;
	}
	th->hist[th->nr_hist].time = time;
	th->hist[th->nr_hist++].comm = c;
	th->comm = c;
	return 0;
}

/* A tid used again after its EXIT is another thread: forget the old. */
static void reuse(struct thread *th)
{
	th->exited = false;
	th->comm = NULL;
	th->nr_hist = 0;
	th->pid = -1;
}

int pebs_threads__add_record(struct pebs_threads *t,
			     const struct pebs_record *r, uint64_t time)
{
	struct thread *th, *parent;
	const char *comm;

	if (!t || !r)
		return core_err(-EINVAL, "threads: no record");
	switch (r->type) {
	case PERF_RECORD_COMM:
		th = findnew(t, (int32_t)r->comm.tid);
		if (!th)
			return oom();
		if (th->exited)
			reuse(th);
		th->pid = (int32_t)r->comm.pid;
		return set_comm(t, th, r->comm.comm, time);
	case PERF_RECORD_FORK:
		parent = lookup(t, (int32_t)r->task.ptid);
		comm = parent ? parent->comm : NULL;
		th = findnew(t, (int32_t)r->task.tid);
		if (!th)
			return oom();
		reuse(th);
		th->pid = (int32_t)r->task.pid;
		return comm ? set_comm(t, th, comm, time) : 0;
	case PERF_RECORD_EXIT:
		th = lookup(t, (int32_t)r->task.tid);
		if (th)
			th->exited = true;
		return 0;
	default:
		return 0;
	}
}

const char *pebs_threads__comm(const struct pebs_threads *t, int32_t pid,
			       int32_t tid)
{
	const struct thread *th;

	if (!t)
		return NULL;
	th = lookup(t, tid);
	if (th && th->comm)
		return th->comm;
	/* tid -1: the kernel's for a task already unhashed (a sample of
	   its last switch in do_exit); perf's thread of tid -1 has no comm
	   (":-1"), not its process's */
	th = pid != tid && tid != -1 ? lookup(t, pid) : NULL;
	if (th && th->comm)
		return th->comm;
	return tid == 0 ? "swapper" : NULL;	/* the idle task, as perf */
}

const char *pebs_threads__comm_at(const struct pebs_threads *t, int32_t tid,
				  uint64_t time)
{
	const struct thread *th;
	uint32_t lo = 0, hi;

	if (!t)
		return NULL;
	th = lookup(t, tid);
	if (!th || !th->nr_hist)
		return tid == 0 ? "swapper" : NULL;
	/* the last change at or before @time, else the first */
	hi = th->nr_hist;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (th->hist[mid].time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return th->hist[lo ? lo - 1 : 0].comm;
}

int32_t pebs_threads__pid(const struct pebs_threads *t, int32_t tid)
{
	const struct thread *th = t ? lookup(t, tid) : NULL;

	return th ? th->pid : -1;
}

size_t pebs_threads__nr(const struct pebs_threads *t)
{
	return t ? t->nr : 0;
}
