// SPDX-License-Identifier: MIT
/*
 * objects.c - data objects over time (pebs_objects): allocations with
 * their address range, process, allocation and release times and the
 * label of their allocation site, and the lookup of the object that
 * holds an address at a time. A range freed and then allocated again
 * belongs to the first object before the reallocation and to the second
 * after it, whatever order the lookups come in.
 *
 * Objects are appended in any order; an index (sorted by start, with
 * the running maximum of the ends, so that a lookup walks back from the
 * last start at or below the address only while some earlier object
 * can still reach it) covers all but the latest TAIL objects, which a
 * lookup scans; the index is merged with the tail when it grows.
 *
 * Labels are interned: equal labels are one pointer, valid until
 * pebs_objects__delete.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/objects.h"
#include "core/internal.h"
#include "objects/objects-int.h"

#define TAIL		256
static int oom(void)
{
	return core_err(-ENOMEM, "objects: out of memory");
}

int pebs_objects__new(struct pebs_objects **op)
{
	if (!op)
		return core_err(-EINVAL, "objects: no result pointer");
	*op = calloc(1, sizeof(**op));
	return *op ? 0 : oom();
}

void pebs_objects__delete(struct pebs_objects *o)
{
	if (!o)
		return;
	for (size_t b = 0; b < STR_BUCKETS; b++)
		for (struct str *s = o->strs[b], *next; s; s = next) {
			next = s->next;
			free(s);
		}
	free(o->v);
	free(o->ord);
	free(o->mx);
	objects_stats_free(o);
	objects_numa_free(o);
	free(o);
}

static uint32_t bucket(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h % STR_BUCKETS;
}

struct str *objects_label(const struct pebs_objects *o, const char *s)
{
	struct str *e;

	for (e = o->strs[bucket(s, strlen(s))]; e; e = e->next)
		if (!strcmp(e->s, s))
			return e;
	return NULL;
}

static struct str *intern(struct pebs_objects *o, const char *s)
{
	size_t len = strlen(s);
	uint32_t h = bucket(s, len);
	struct str *e = objects_label(o, s);

	if (e)
		return e;
	e = calloc(1, sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	memcpy(e->s, s, len + 1);
	e->next = o->strs[h];
	o->strs[h] = e;
	return e;
}

static int by_start(const void *a, const void *b, void *arg)
{
	const struct obj *v = arg;
	const struct obj *x = &v[*(const size_t *)a];
	const struct obj *y = &v[*(const size_t *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) -
	       (*(const size_t *)a < *(const size_t *)b);
}

/* The tail into the index: sort it, merge, recompute the maxima. */
static int reindex(struct pebs_objects *o)
{
	size_t nt = o->n - o->nord, i, j, k;
	size_t *ord = malloc(o->n * sizeof(*ord));
	uint64_t *mx = malloc(o->n * sizeof(*mx));
	size_t *tail = malloc((nt ? nt : 1) * sizeof(*tail));

	if (!ord || !mx || !tail) {
		free(ord);
		free(mx);
		free(tail);
		return oom();
	}
	for (i = 0; i < nt; i++)
		tail[i] = o->nord + i;
	qsort_r(tail, nt, sizeof(*tail), by_start, o->v);
	for (i = j = k = 0; i < o->nord || j < nt; k++) {
		if (j == nt || (i < o->nord &&
				by_start(&o->ord[i], &tail[j], o->v) <= 0))
			ord[k] = o->ord[i++];
		else
			ord[k] = tail[j++];
		mx[k] = o->v[ord[k]].end;
		if (k && mx[k - 1] > mx[k])
			mx[k] = mx[k - 1];
	}
	free(tail);
	free(o->ord);
	free(o->mx);
	o->ord = ord;
	o->mx = mx;
	o->nord = o->n;
	return 0;
}

/* the objects of @pid holding @addr: @fn(o, index, arg) for each */
static void each_at(struct pebs_objects *o, int32_t pid, uint64_t addr,
		    void (*fn)(struct pebs_objects *, size_t, void *),
		    void *arg)
{
	size_t lo = 0, hi = o->nord;

	/* the first index entry starting above addr */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (o->v[o->ord[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && o->mx[lo] > addr) {
		const struct obj *b = &o->v[o->ord[lo]];

		if (b->pid == pid && addr < b->end)
			fn(o, o->ord[lo], arg);
	}
	for (size_t i = o->nord; i < o->n; i++) {
		const struct obj *b = &o->v[i];

		if (b->pid == pid && b->start <= addr && addr < b->end)
			fn(o, i, arg);
	}
}

struct find {
	uint64_t time;
	size_t best;
	bool found;
};

/* live at the time, the latest allocated wins (a missed free) */
static void pick(struct pebs_objects *o, size_t i, void *arg)
{
	struct find *f = arg;
	const struct obj *b = &o->v[i];

	if (b->t0 <= f->time && f->time < b->t1 &&
	    (!f->found || b->t0 >= o->v[f->best].t0)) {
		f->best = i;
		f->found = true;
	}
}

struct end {
	uint64_t time, start, len;	/* len 0: the object at start */
};

static void close_obj(struct pebs_objects *o, size_t i, void *arg)
{
	const struct end *e = arg;
	struct obj *b = &o->v[i];

	if (b->t1 != NO_END || b->t0 > e->time)
		return;
	if (e->len ? b->start < e->start || b->start >= e->start + e->len :
		     b->start != e->start)
		return;
	b->t1 = e->time;
	o->swept = false;
}

static int maybe_reindex(struct pebs_objects *o)
{
	return o->n - o->nord >= TAIL ? reindex(o) : 0;
}

int pebs_objects__alloc(struct pebs_objects *o, int32_t pid, uint64_t addr,
			uint64_t size, uint64_t time, const char *site)
{
	struct end e = { .time = time, .start = addr };
	struct str *s, *inst;
	char buf[1024];
	struct obj *b;

	if (!o || !size || addr + size < addr)
		return core_err(-EINVAL, "objects: bad allocation %#llx+%llu",
				(unsigned long long)addr,
				(unsigned long long)size);
	if (!site)
		site = "[unknown site]";
	/* an object still open at this address lost its free */
	each_at(o, pid, addr, close_obj, &e);
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 1024;
		struct obj *v = realloc(o->v, cap * sizeof(*v));

		if (!v)
			return oom();
		o->v = v;
		o->cap = cap;
	}
	s = intern(o, site);
	if (!s)
		return oom();
	snprintf(buf, sizeof(buf), "%s #%u", s->s, ++s->instances);
	inst = intern(o, buf);
	if (!inst)
		return oom();
	s->bytes += size;
	inst->obj = o->n + 1;
	o->swept = false;
	b = &o->v[o->n++];
	*b = (struct obj){ .start = addr, .end = addr + size, .t0 = time,
			   .t1 = NO_END, .size = size, .site = s->s,
			   .inst = inst->s, .pid = pid };
	return maybe_reindex(o);
}

int pebs_objects__free(struct pebs_objects *o, int32_t pid, uint64_t addr,
		       uint64_t len, uint64_t time)
{
	struct end e = { .time = time, .start = addr,
			 .len = len > 1 ? len : 0 };
	size_t lo = 0, hi;

	if (!o)
		return core_err(-EINVAL, "objects: no table");
	if (!e.len) {
		each_at(o, pid, addr, close_obj, &e);
		return 0;
	}
	/* an unmapped range: every open object starting in it */
	hi = o->nord;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (o->v[o->ord[mid]].start < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < o->nord && o->v[o->ord[lo]].start < addr + len; lo++)
		if (o->v[o->ord[lo]].pid == pid)
			close_obj(o, o->ord[lo], &e);
	for (size_t i = o->nord; i < o->n; i++)
		if (o->v[i].pid == pid)
			close_obj(o, i, &e);
	return 0;
}

int pebs_objects__find(struct pebs_objects *o, int32_t pid, uint64_t addr,
		       uint64_t time, struct pebs_object *obj)
{
	struct find f = { .time = time };
	const struct obj *b;

	if (!o || !obj)
		return core_err(-EINVAL, "objects: no table or result");
	each_at(o, pid, addr, pick, &f);
	if (!f.found)
		return -ENOENT;
	b = &o->v[f.best];
	*obj = (struct pebs_object){ .site = b->site, .instance = b->inst,
				     .addr = b->start, .size = b->size,
				     .alloc_time = b->t0,
				     .free_time = b->t1 };
	return 0;
}

const char *objects_intern(struct pebs_objects *o, const char *s)
{
	struct str *e = intern(o, s);

	return e ? e->s : NULL;
}

int objects_static(struct pebs_objects *o, const char *label, uint64_t size)
{
	struct str *s = intern(o, label);

	if (!s)
		return oom();
	if (!s->obj && !s->instances)
		s->static_size = size;
	return 0;
}

size_t pebs_objects__count(const struct pebs_objects *o)
{
	return o ? o->n : 0;
}
