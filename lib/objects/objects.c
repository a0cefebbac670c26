// SPDX-License-Identifier: MIT
/*
 * objects.c - data objects over time (pebs_objects): allocations with
 * their address range, process, allocation and release times and the
 * label of their allocation site, and the lookup of the object that
 * holds an address at a time. A range freed and then allocated again
 * belongs to the first object before the reallocation and to the second
 * after it, whatever order the lookups come in.
 *
 * Objects are appended in any order; an index covers all but the
 * latest TAIL objects, which a lookup scans. The index is O(log n) runs
 * sorted by start, each with the running maximum of its ends, so that a
 * lookup walks back from the last start at or below the address only
 * while some earlier object can still reach it; the tail becomes a run
 * when full, and runs of like sizes merge. While allocations and frees
 * come in time order, a table of the open objects by address closes an
 * object without any walk.
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
#define FIRST_BUCKETS	4096
#define FIRST_OPEN	1024

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
	for (size_t b = 0; b < o->nr_buckets; b++)
		for (struct str *s = o->strs[b], *next; s; s = next) {
			next = s->next;
			free(s);
		}
	free(o->strs);
	free(o->v);
	for (unsigned int i = 0; i < o->live.n; i++) {
		free(o->live.r[i].ord);
		free(o->live.r[i].mx);
	}
	for (unsigned int i = 0; i < o->past.n; i++) {
		free(o->past.r[i].ord);
		free(o->past.r[i].mx);
	}
	free(o->open);
	objects_stats_free(o);
	objects_numa_free(o);
	free(o);
}

static uint32_t str_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static struct str *lookup(const struct pebs_objects *o, const char *s,
			  uint32_t h)
{
	struct str *e;

	if (!o->nr_buckets)
		return NULL;
	for (e = o->strs[h & (o->nr_buckets - 1)]; e; e = e->next)
		if (e->hash == h && !strcmp(e->s, s))
			return e;
	return NULL;
}

struct str *objects_label(const struct pebs_objects *o, const char *s)
{
	return lookup(o, s, str_hash(s, strlen(s)));
}

/* twice the buckets (a label each on average at most: an instance's
   label per object makes millions) */
static int grow_strs(struct pebs_objects *o)
{
	size_t nb = o->nr_buckets ? o->nr_buckets * 2 : FIRST_BUCKETS;
	struct str **t = calloc(nb, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t b = 0; b < o->nr_buckets; b++)
		for (struct str *e = o->strs[b], *next; e; e = next) {
			next = e->next;
			e->next = t[e->hash & (nb - 1)];
			t[e->hash & (nb - 1)] = e;
		}
	free(o->strs);
	o->strs = t;
	o->nr_buckets = nb;
	return 0;
}

static struct str *intern(struct pebs_objects *o, const char *s)
{
	size_t len = strlen(s);
	uint32_t h = str_hash(s, len);
	struct str *e = lookup(o, s, h);

	if (e)
		return e;
	if (o->nr_strs >= o->nr_buckets && grow_strs(o))
		return NULL;
	e = calloc(1, sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	memcpy(e->s, s, len + 1);
	e->hash = h;
	e->next = o->strs[h & (o->nr_buckets - 1)];
	o->strs[h & (o->nr_buckets - 1)] = e;
	o->nr_strs++;
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

/* @ord (@n objects sorted by start; @out takes it, freed on failure)
   into @out, its running maxima of the ends computed */
static int run_take(const struct obj *v, size_t *ord, size_t n,
		    struct run *out)
{
	uint64_t *mx = malloc((n ? n : 1) * sizeof(*mx));

	if (!mx) {
		free(ord);
		return oom();
	}
	for (size_t k = 0; k < n; k++) {
		mx[k] = v[ord[k]].end;
		if (k && mx[k - 1] > mx[k])
			mx[k] = mx[k - 1];
	}
	*out = (struct run){ .ord = ord, .mx = mx, .n = n };
	return 0;
}

/* sorted @a and @b merged by start into @out */
static int merge_runs(const struct obj *v, const size_t *a, size_t na,
		      const size_t *b, size_t nb, struct run *out)
{
	size_t n = na + nb, i = 0, j = 0;
	size_t *ord = malloc((n ? n : 1) * sizeof(*ord));

	if (!ord)
		return oom();
	for (size_t k = 0; k < n; k++)
		if (j == nb || (i < na && by_start(&a[i], &b[j], (void *)v) <= 0))
			ord[k] = a[i++];
		else
			ord[k] = b[j++];
	return run_take(v, ord, n, out);
}

static void free_run(struct run *r)
{
	free(r->ord);
	free(r->mx);
}

/* @m's objects that ended by @t into @past, the others into @live (both
   sorted: subsequences of @m) */
static int split_run(const struct obj *v, const struct run *m, uint64_t t,
		     struct run *live, struct run *past)
{
	size_t *l = malloc((m->n ? m->n : 1) * sizeof(*l)), nl = 0, np = 0;
	size_t *p = malloc((m->n ? m->n : 1) * sizeof(*p));
	int err;

	if (!l || !p) {
		free(l);
		free(p);
		return oom();
	}
	for (size_t i = 0; i < m->n; i++)
		if (v[m->ord[i]].t1 <= t)
			p[np++] = m->ord[i];
		else
			l[nl++] = m->ord[i];
	err = run_take(v, l, nl, live);
	if (err) {
		free(p);
		return err;
	}
	err = run_take(v, p, np, past);
	if (err)
		free_run(live);
	return err;
}

/*
 * @r onto @set, then its last two runs merged while the last is at
 * least half the one before it: the sizes at least double from the
 * last to the first, so a set has O(log n) runs and an object is merged
 * O(log n) times (one index merged with every tail made the table
 * quadratic: 1.9 M objects took minutes). A merge of the live set moves
 * the objects that ended by the latest time to the past set.
 */
static int push_run(struct pebs_objects *o, struct runs *set, struct run r)
{
	struct run m, live, past;
	int err;

	set->r[set->n++] = r;
	while (set->n >= 2 && set->r[set->n - 2].n <= 2 * set->r[set->n - 1].n) {
		err = merge_runs(o->v, set->r[set->n - 2].ord,
				 set->r[set->n - 2].n, set->r[set->n - 1].ord,
				 set->r[set->n - 1].n, &m);
		if (err)
			return err;
		if (set == &o->live) {
			err = split_run(o->v, &m, o->last_time, &live, &past);
			free_run(&m);
			if (err)
				return err;
			m = live;
		}
		free_run(&set->r[set->n - 2]);
		free_run(&set->r[set->n - 1]);
		set->n--;
		set->r[set->n - 1] = m;
		if (!m.n)
			free_run(&set->r[--set->n]);
		if (set == &o->live) {
			if (!past.n) {
				free_run(&past);
				continue;
			}
			if (o->horizon < o->last_time)
				o->horizon = o->last_time;
			err = push_run(o, &o->past, past);
			if (err)
				return err;
		}
	}
	return 0;
}

/* the tail into a run of its own, onto the live set */
static int reindex(struct pebs_objects *o)
{
	size_t nt = o->n - o->nord;
	size_t *tail = malloc((nt ? nt : 1) * sizeof(*tail));
	struct run r;
	int err;

	if (!tail)
		return oom();
	for (size_t i = 0; i < nt; i++)
		tail[i] = o->nord + i;
	qsort_r(tail, nt, sizeof(*tail), by_start, o->v);
	err = run_take(o->v, tail, nt, &r);
	if (err)
		return err;
	o->nord = o->n;
	return push_run(o, &o->live, r);
}

/* the first entry of @u starting above @addr (@above), or at or above */
static size_t first_from(const struct pebs_objects *o, const struct run *u,
			 uint64_t addr, bool above)
{
	size_t lo = 0, hi = u->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t st = o->v[u->ord[mid]].start;

		if (above ? st <= addr : st < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the objects of run set @set of @pid holding @addr: @fn(o, index, arg) */
static void set_at(struct pebs_objects *o, const struct runs *set,
		   int32_t pid, uint64_t addr,
		   void (*fn)(struct pebs_objects *, size_t, void *),
		   void *arg)
{
	for (unsigned int r = 0; r < set->n; r++) {
		const struct run *u = &set->r[r];
		size_t lo = first_from(o, u, addr, true);

		while (lo-- > 0 && u->mx[lo] > addr) {
			const struct obj *b = &o->v[u->ord[lo]];

			if (b->pid == pid && addr < b->end)
				fn(o, u->ord[lo], arg);
		}
	}
}

/* the objects of @pid holding @addr (with @past, the ended ones too):
   @fn(o, index, arg) for each */
static void each_at(struct pebs_objects *o, int32_t pid, uint64_t addr,
		    bool past,
		    void (*fn)(struct pebs_objects *, size_t, void *),
		    void *arg)
{
	set_at(o, &o->live, pid, addr, fn, arg);
	if (past)
		set_at(o, &o->past, pid, addr, fn, arg);
	for (size_t i = o->nord; i < o->n; i++) {
		const struct obj *b = &o->v[i];

		if (b->pid == pid && b->start <= addr && addr < b->end)
			fn(o, i, arg);
	}
}

/*
 * The open objects by (pid, start), while allocations and frees come in
 * time order (a session's pass): an allocation or a free finds the open
 * object at its address at once. Walking every object that ever held
 * the address (each_at) cost an allocation the number of objects its
 * address had held: quadratic where malloc hands one address out again
 * and again. Out of order, the table is dropped and each_at closes.
 */
static size_t open_home(const struct pebs_objects *o, int32_t pid,
			uint64_t start)
{
	uint64_t h = (start ^ (uint64_t)(uint32_t)pid << 40) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ h >> 31) & (o->open_cap - 1);
}

/* the slot of @pid's open object at @start, or the empty one for it */
static size_t open_find(const struct pebs_objects *o, int32_t pid,
			uint64_t start)
{
	size_t i = open_home(o, pid, start);

	while (o->open[i]) {
		const struct obj *b = &o->v[o->open[i] - 1];

		if (b->pid == pid && b->start == start)
			break;
		i = (i + 1) & (o->open_cap - 1);
	}
	return i;
}

/* room for one more: at most half full */
static int open_reserve(struct pebs_objects *o)
{
	size_t cap = o->open_cap ? o->open_cap * 2 : FIRST_OPEN, *old = o->open;
	size_t old_cap = o->open_cap;

	if ((o->open_n + 1) * 2 <= o->open_cap)
		return 0;
	o->open = calloc(cap, sizeof(*o->open));
	if (!o->open) {
		o->open = old;
		return oom();
	}
	o->open_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i]) {
			const struct obj *b = &o->v[old[i] - 1];

			o->open[open_find(o, b->pid, b->start)] = old[i];
		}
	free(old);
	return 0;
}

/* object @i is no longer open: out of the table (backward shift) */
static void open_del(struct pebs_objects *o, size_t i)
{
	size_t m = o->open_cap - 1, at, j, k;

	if (!o->open_cap)
		return;
	at = open_find(o, o->v[i].pid, o->v[i].start);
	if (o->open[at] != i + 1)
		return;
	o->open[at] = 0;
	o->open_n--;
	for (j = (at + 1) & m; o->open[j]; j = (j + 1) & m) {
		const struct obj *b = &o->v[o->open[j] - 1];

		k = open_home(o, b->pid, b->start);
		/* j's entry may move back to at unless its home lies in
		   (at, j] */
		if (at <= j ? (k <= at || k > j) : (k <= at && k > j)) {
			o->open[at] = o->open[j];
			o->open[j] = 0;
			at = j;
		}
	}
}

/* an allocation or a free at @time: out of order, drop the table */
static void in_order(struct pebs_objects *o, uint64_t time)
{
	if (time >= o->last_time) {
		o->last_time = time;
		return;
	}
	o->unordered = true;
	free(o->open);
	o->open = NULL;
	o->open_cap = o->open_n = 0;
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
	open_del(o, i);
}

/* the object at @e's start closed (ordered: the open one there) */
static void close_at(struct pebs_objects *o, int32_t pid,
		     const struct end *e)
{
	size_t at;

	if (o->unordered) {
		each_at(o, pid, e->start, false, close_obj, (void *)e);
		return;
	}
	if (!o->open_cap)
		return;
	at = open_find(o, pid, e->start);
	if (o->open[at])
		close_obj(o, o->open[at] - 1, (void *)e);
}

static int maybe_reindex(struct pebs_objects *o)
{
	return o->n - o->nord >= TAIL ? reindex(o) : 0;
}

int pebs_objects__alloc(struct pebs_objects *o, int32_t pid, uint64_t addr,
			uint64_t size, uint64_t time, const char *site)
{
	return pebs_objects__alloc_sampled(o, pid, addr, size, time, site,
					   size);
}

int pebs_objects__alloc_sampled(struct pebs_objects *o, int32_t pid,
				uint64_t addr, uint64_t size, uint64_t time,
				const char *site, uint64_t stands)
{
	struct end e = { .time = time, .start = addr };
	struct str *s, *inst;
	char buf[1024];
	struct obj *b;

	if (!o || !size || addr + size < addr || stands < size)
		return core_err(-EINVAL, "objects: bad allocation %#llx+%llu "
				"(standing for %llu bytes)",
				(unsigned long long)addr,
				(unsigned long long)size,
				(unsigned long long)stands);
	if (!site)
		site = "[unknown site]";
	in_order(o, time);
	/* an object still open at this address lost its free */
	close_at(o, pid, &e);
	if (!o->unordered && open_reserve(o))
		return oom();
	if (core_grow(&o->v, &o->cap, o->n + 1, sizeof(*o->v)))
		return oom();
	s = intern(o, site);
	if (!s)
		return oom();
	snprintf(buf, sizeof(buf), "%s #%u", s->s, ++s->instances);
	inst = intern(o, buf);
	if (!inst)
		return oom();
	/* 2^64 bytes are never allocated: a damaged file's sum saturates */
	s->bytes = s->bytes + stands < s->bytes ? UINT64_MAX :
		   s->bytes + stands;
	s->est += (double)stands / (double)size;
	inst->obj = o->n + 1;
	o->swept = false;
	b = &o->v[o->n++];
	*b = (struct obj){ .start = addr, .end = addr + size, .t0 = time,
			   .t1 = NO_END, .size = size, .stands = stands,
			   .site = s->s,
			   .inst = inst->s, .pid = pid };
	if (!o->unordered) {
		o->open[open_find(o, pid, addr)] = o->n;
		o->open_n++;
	}
	return maybe_reindex(o);
}

int pebs_objects__free(struct pebs_objects *o, int32_t pid, uint64_t addr,
		       uint64_t len, uint64_t time)
{
	struct end e = { .time = time, .start = addr,
			 .len = len > 1 ? len : 0 };

	if (!o)
		return core_err(-EINVAL, "objects: no table");
	in_order(o, time);
	if (!e.len) {
		close_at(o, pid, &e);
		return 0;
	}
	/* an unmapped range: every open object starting in it */
	for (unsigned int r = 0; r < o->live.n; r++) {
		const struct run *u = &o->live.r[r];
		size_t lo = first_from(o, u, addr, false);

		for (; lo < u->n && o->v[u->ord[lo]].start < addr + len; lo++)
			if (o->v[u->ord[lo]].pid == pid)
				close_obj(o, u->ord[lo], &e);
	}
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
	each_at(o, pid, addr, time < o->horizon, pick, &f);
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
