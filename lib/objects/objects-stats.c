// SPDX-License-Identifier: MIT
/*
 * objects-stats.c - what the allocations and the samples say of each
 * data object (pebs_objects__stats, pebs_objects__add_sample,
 * pebs_objects__line):
 *
 * - of a heap allocation site, its objects (instances), their sizes
 *   summed and the most bytes of them live at once (a sweep over their
 *   allocation and release times, redone when the table changed), each
 *   sampled allocation counted for what it stands for (size / p bytes,
 *   1 / p objects: Horvitz-Thompson's estimates of the site's whole); of
 *   one instance, its size;
 * - per event and object label (a report row's object pointer), the
 *   weights of the samples counted, for their mean, median and 90th
 *   percentile (ranks n/2 and 9n/10 of the n sorted from 0, as
 *   pebs_weights); weights above 2^32 - 1 count as 2^32 - 1; their data
 *   sources as perf c2c counts them (pebs_c2c_stats__add_sample: local
 *   and remote are its lcl and rmt counters) and their threads (the
 *   first PEBS_OBJECTS_MAX_TIDS met, then "more"), for the sharing
 *   class;
 * - per cache line (process, address / 64), the objects its samples
 *   hit: the three first met with their counts, the others counted;
 *   with c2c's lines of the same samples, their sharing classes given
 *   to those objects, and the object each line hit most named in it.
 *
 * Both sample tables are open-addressing hashes of 16-byte keys; memory
 * is linear in the distinct keys and in the weighted samples.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/c2c.h"
#include "core/internal.h"
#include "objects/objects-int.h"

#define LINE_OBJS	3

struct key {
	uint64_t a, b;
};

/* keys to value indexes (+ 1; 0: an empty slot) */
struct khash {
	struct key *k;
	uint32_t *v;
	size_t cap, n;	/* cap: a power of two */
};

/* the samples of one (label, event) */
struct wlist {
	uint32_t *v;		/* weights */
	size_t nr, cap;
	bool sorted;
	uint64_t samples, with_src;
	struct pebs_c2c_stats src;
	uint64_t node_local, node_remote;	/* objects_node */
	int32_t tids[PEBS_OBJECTS_MAX_TIDS];
	unsigned int nr_tids;	/* PEBS_OBJECTS_MAX_TIDS + 1: more */
};

struct lobjs {
	const char *inst[LINE_OBJS], *site[LINE_OBJS];
	uint64_t n[LINE_OBJS];
	uint64_t others, total;
	unsigned int nr;	/* distinct objects, LINE_OBJS + 1: more */
};

struct ostats {
	struct khash wh, lh, sh;
	uint8_t *shv;		/* per label: its lines' sharing bits */
	size_t nsh, capsh;
	struct wlist *w;
	size_t nw, capw;
	struct lobjs *l;
	size_t nl, capl;
};

static uint64_t khash_mix(struct key k)
{
	uint64_t h = k.a * 0x9e3779b97f4a7c15ull ^ k.b;

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

static int khash_grow(struct khash *h)
{
	size_t cap = h->cap ? h->cap * 2 : 1024, i;
	struct key *k = calloc(cap, sizeof(*k));
	uint32_t *v = calloc(cap, sizeof(*v));

	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < h->cap; i++) {
		size_t j;

		if (!h->v[i])
			continue;
		for (j = khash_mix(h->k[i]) & (cap - 1); v[j];
		     j = (j + 1) & (cap - 1))
			;
		k[j] = h->k[i];
		v[j] = h->v[i];
	}
	free(h->k);
	free(h->v);
	h->k = k;
	h->v = v;
	h->cap = cap;
	return 0;
}

/* the slot of @key: v[slot] is its index + 1, or 0 (then free) */
static size_t khash_slot(const struct khash *h, struct key key)
{
	size_t j = khash_mix(key) & (h->cap - 1);

	while (h->v[j] && (h->k[j].a != key.a || h->k[j].b != key.b))
		j = (j + 1) & (h->cap - 1);
	return j;
}

static long khash_find(const struct khash *h, struct key key)
{
	size_t j;

	if (!h->cap)
		return -1;
	j = khash_slot(h, key);
	return h->v[j] ? (long)h->v[j] - 1 : -1;
}

/* @key's index, made as @next when new; -1 when out of memory */
static long khash_findnew(struct khash *h, struct key key, size_t next)
{
	size_t j;

	if ((h->n + 1) * 2 > h->cap && khash_grow(h))
		return -1;
	j = khash_slot(h, key);
	if (h->v[j])
		return (long)h->v[j] - 1;
	if (next >= UINT32_MAX)
		return -1;
	h->k[j] = key;
	h->v[j] = (uint32_t)next + 1;
	h->n++;
	return (long)next;
}

/*
 * The index of @k's entry in *@v (*@n of @size bytes), appended zeroed
 * when new; -1 when out of memory.
 */
static long entry(struct khash *h, struct key k, void **v, size_t *n,
		  size_t *cap, size_t size)
{
	long i;

	if (core_grow_zero(v, cap, *n + 1, size))
		return -1;
	i = khash_findnew(h, k, *n);
	if (i >= 0 && (size_t)i == *n)
		(*n)++;
	return i;
}

void objects_stats_free(struct pebs_objects *o)
{
	struct ostats *st = o->stats;

	if (!st)
		return;
	for (size_t i = 0; i < st->nw; i++)
		free(st->w[i].v);
	free(st->w);
	free(st->l);
	free(st->wh.k);
	free(st->wh.v);
	free(st->lh.k);
	free(st->lh.v);
	free(st->sh.k);
	free(st->sh.v);
	free(st->shv);
	free(st);
}

static struct ostats *stats_of(struct pebs_objects *o)
{
	if (!o->stats)
		o->stats = calloc(1, sizeof(*o->stats));
	return o->stats;
}

static int oom(void)
{
	return core_err(-ENOMEM, "objects: out of memory");
}

static void add_tid(struct wlist *l, int32_t tid)
{
	for (unsigned int j = 0; j < l->nr_tids && j < PEBS_OBJECTS_MAX_TIDS;
	     j++)
		if (l->tids[j] == tid)
			return;
	if (l->nr_tids < PEBS_OBJECTS_MAX_TIDS)
		l->tids[l->nr_tids++] = tid;
	else
		l->nr_tids = PEBS_OBJECTS_MAX_TIDS + 1;
}

/* sample @s under (its event, @label) */
static int add_to(struct ostats *st, const char *label,
		  const struct pebs_report_sample *s, enum obj_node node)
{
	struct key k = { (uint64_t)(uintptr_t)label, s->event };
	long i = entry(&st->wh, k, (void **)&st->w, &st->nw, &st->capw,
		       sizeof(*st->w));
	struct wlist *l;

	if (i < 0)
		return oom();
	l = &st->w[i];
	l->samples++;
	add_tid(l, s->tid);
	l->node_local += node == OBJ_NODE_LOCAL;
	l->node_remote += node == OBJ_NODE_REMOTE;
	if (s->has_src) {
		l->with_src++;
		pebs_c2c_stats__add_sample(&l->src, s->data_src, s->addr,
					   true);
	}
	if (!s->has_weight)
		return 0;
	if (core_grow(&l->v, &l->cap, l->nr + 1, sizeof(*l->v)))
		return oom();
	l->v[l->nr++] = s->weight > UINT32_MAX ? UINT32_MAX :
			(uint32_t)s->weight;
	l->sorted = false;
	return 0;
}

int pebs_objects__add_sample(struct pebs_objects *o,
			     const struct pebs_report_sample *s)
{
	struct ostats *st;
	enum obj_node node;
	int err = 0;

	if (!o || !s)
		return core_err(-EINVAL, "objects: no table or sample");
	if (!s->object)
		return 0;
	st = stats_of(o);
	if (!st)
		return oom();
	node = objects_node(o, s);
	err = add_to(st, s->object, s, node);
	if (!err && s->object_inst && s->object_inst != s->object)
		err = add_to(st, s->object_inst, s, node);
	if (!err && s->object_field && s->object_field != s->object &&
	    s->object_field != s->object_inst)
		err = add_to(st, s->object_field, s, node);
	return err;
}

int pebs_objects__add_line_sample(struct pebs_objects *o,
				  const struct pebs_report_sample *s)
{
	const char *inst;
	struct ostats *st;
	struct lobjs *l;
	struct key k;
	long i;

	if (!o || !s)
		return core_err(-EINVAL, "objects: no table or sample");
	if (!s->has_addr || !s->object)
		return 0;
	st = stats_of(o);
	if (!st)
		return oom();
	k = (struct key){ s->addr >> 6, (uint32_t)s->pid };
	i = entry(&st->lh, k, (void **)&st->l, &st->nl, &st->capl,
		  sizeof(*st->l));
	if (i < 0)
		return oom();
	l = &st->l[i];
	inst = s->object_inst ? s->object_inst : s->object;
	l->total++;
	for (unsigned int j = 0; j < l->nr && j < LINE_OBJS; j++)
		if (l->inst[j] == inst) {
			l->n[j]++;
			return 0;
		}
	if (l->nr < LINE_OBJS) {
		l->inst[l->nr] = inst;
		l->site[l->nr] = s->object;
		l->n[l->nr++] = 1;
		return 0;
	}
	/* a fourth object or more: how many is not kept */
	l->nr = LINE_OBJS + 1;
	l->others++;
	return 0;
}

/* the line of @addr in @pid, or NULL: no sample counted there */
static const struct lobjs *line_of(const struct pebs_objects *o, int32_t pid,
				   uint64_t addr)
{
	long i = o->stats ? khash_find(&o->stats->lh, (struct key){
		addr >> 6, (uint32_t)pid }) : -1;

	return i < 0 ? NULL : &o->stats->l[i];
}

int pebs_objects__line(const struct pebs_objects *o, int32_t pid,
		       uint64_t addr, struct pebs_object_line *out)
{
	const struct lobjs *l;
	unsigned int best = 0;

	if (!o || !out)
		return core_err(-EINVAL, "objects: no table or result");
	memset(out, 0, sizeof(*out));
	l = line_of(o, pid, addr);
	if (!l)
		return -ENOENT;
	for (unsigned int j = 1; j < l->nr && j < LINE_OBJS; j++)
		if (l->n[j] > l->n[best])
			best = j;
	out->site = l->site[best];
	out->instance = l->inst[best];
	out->samples = l->n[best];
	out->line_samples = l->total;
	out->nr_objects = l->nr;
	return 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

struct sweep {
	uint64_t time;
	double delta;
	struct str *site;
};

static int by_time(const void *a, const void *b)
{
	const struct sweep *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->delta > y->delta) - (x->delta < y->delta);	/* frees first */
}

/* every site's peak of live bytes: the objects' lifetimes swept */
static int sweep(struct pebs_objects *o)
{
	struct sweep *ev = malloc((o->n ? o->n : 1) * 2 * sizeof(*ev));
	size_t n = 0;

	if (!ev)
		return oom();
	for (size_t i = 0; i < o->n; i++) {
		const struct obj *b = &o->v[i];
		struct str *site = objects_label(o, b->site);

		site->peak = 0;
		site->live = 0;
		ev[n++] = (struct sweep){ b->t0, (double)b->stands, site };
		if (b->t1 != NO_END)
			ev[n++] = (struct sweep){ b->t1, -(double)b->stands,
						  site };
	}
	qsort(ev, n, sizeof(*ev), by_time);
	for (size_t i = 0; i < n; i++) {
		struct str *s = ev[i].site;

		s->live += ev[i].delta;
		if (s->live > (double)s->peak)
			s->peak = s->live < 0x1p64 ? (uint64_t)s->live :
				  UINT64_MAX;
	}
	free(ev);
	o->swept = true;
	return 0;
}

int pebs_objects__stats(struct pebs_objects *o, unsigned int event,
			const char *label, struct pebs_object_stats *out)
{
	struct str *l;
	long i;

	if (!o || !out)
		return core_err(-EINVAL, "objects: no table or result");
	memset(out, 0, sizeof(*out));
	if (!label)
		return 0;
	l = objects_label(o, label);
	if (l && l->obj) {
		const struct obj *b = &o->v[l->obj - 1];

		out->instances = 1;
		out->bytes = out->peak_live = b->size;
	} else if (l && l->instances) {
		if (!o->swept && sweep(o))
			return -ENOMEM;
		out->instances = (uint64_t)llround(l->est);
		out->bytes = l->bytes;
		out->peak_live = l->peak;
	} else if (l && l->static_size) {
		out->instances = 1;
		out->bytes = out->peak_live = l->static_size;
	}
	i = o->stats ? khash_find(&o->stats->wh, (struct key){
		(uint64_t)(uintptr_t)label, event }) : -1;
	if (i >= 0 && o->stats->w[i].nr) {
		struct wlist *w = &o->stats->w[i];
		uint64_t sum = 0;

		if (!w->sorted) {
			qsort(w->v, w->nr, sizeof(*w->v), u32_cmp);
			w->sorted = true;
		}
		for (size_t j = 0; j < w->nr; j++)
			sum += w->v[j];
		out->weights = w->nr;
		out->weight_mean = (double)sum / (double)w->nr;
		out->weight_p50 = w->v[w->nr / 2];
		out->weight_p90 = w->v[w->nr * 9 / 10];
	}
	return 0;
}

int pebs_objects__access(const struct pebs_objects *o, unsigned int event,
			 const char *label, struct pebs_object_access *out)
{
	const struct wlist *w;
	long i;

	if (!o || !out)
		return core_err(-EINVAL, "objects: no table or result");
	memset(out, 0, sizeof(*out));
	i = o->stats && label ? khash_find(&o->stats->wh, (struct key){
		(uint64_t)(uintptr_t)label, event }) : -1;
	if (i < 0)
		return 0;
	w = &o->stats->w[i];
	out->samples = w->samples;
	out->with_src = w->with_src;
	out->local = w->src.lcl_hitm + w->src.lcl_peer + w->src.lcl_dram;
	out->remote = w->src.rmt_hitm + w->src.rmt_hit + w->src.rmt_dram;
	out->node_local = w->node_local;
	out->node_remote = w->node_remote;
	out->threads = w->nr_tids;
	out->sharing = w->nr_tids > 1 ? PEBS_OBJECT_SHARED :
		       PEBS_OBJECT_PRIVATE;
	/* shared, with a line of true or false sharing */
	i = khash_find(&o->stats->sh, (struct key){
		(uint64_t)(uintptr_t)label, 0 });
	if (w->nr_tids > 1 && i >= 0 && o->stats->shv[i])
		out->sharing = PEBS_OBJECT_SHARED + o->stats->shv[i];
	return 0;
}

/* @sharing's bits on @label */
static int mark(struct ostats *st, const char *label, unsigned int sharing)
{
	long i = entry(&st->sh, (struct key){ (uint64_t)(uintptr_t)label, 0 },
		       (void **)&st->shv, &st->nsh, &st->capsh,
		       sizeof(*st->shv));

	if (i < 0)
		return oom();
	st->shv[i] |= (uint8_t)sharing;
	return 0;
}

int pebs_objects__line_sharing(struct pebs_objects *o, int32_t pid,
			       uint64_t addr, unsigned int sharing)
{
	const struct lobjs *l;

	if (!o || sharing > 3)
		return core_err(-EINVAL, "objects: no table, or a sharing "
				"class past true+false");
	l = line_of(o, pid, addr);
	if (!l)
		return -ENOENT;
	for (unsigned int j = 0; sharing && j < l->nr && j < LINE_OBJS; j++)
		if (mark(o->stats, l->site[j], sharing) ||
		    mark(o->stats, l->inst[j], sharing))
			return -ENOMEM;
	return 0;
}

/* a line's class on the objects counted on it */
static int line_sharing(const struct pebs_c2c_line *l, void *arg)
{
	void **a = arg;
	int err = l->sharing == PEBS_C2C_PRIVATE ? 0 :
		  pebs_objects__line_sharing(a[0], pebs_c2c__line_pid(a[1], l),
					     l->addr, l->sharing);

	return err == -ENOMEM ? err : 0;
}

int pebs_objects__c2c_sharing(struct pebs_objects *o, struct pebs_c2c *c)
{
	void *arg[2] = { o, c };

	if (!o || !c)
		return core_err(-EINVAL, "objects: no table or no lines");
	if (pebs_c2c__sort(c, pebs_c2c__has_data_src(c) ? PEBS_C2C_TOT_HITM :
			   PEBS_C2C_XWRITES) < 0)
		return oom();
	return pebs_c2c__for_each_line(c, true, line_sharing, arg);
}

const char *pebs_objects__short_label(const char *label)
{
	const char *b = label && label[0] == '/' ? strrchr(label, '/') : NULL;

	return b && b[1] ? b + 1 : label;
}

static int name_line(const struct pebs_c2c_line *l, void *arg)
{
	void **a = arg;
	struct pebs_object_line ol;

	if (!pebs_objects__line(a[0], pebs_c2c__line_pid(a[1], l), l->addr,
				&ol))
		pebs_c2c__set_object(a[1], l->id,
				     pebs_objects__short_label(ol.site),
				     pebs_objects__short_label(ol.instance),
				     ol.nr_objects);
	return 0;
}

int pebs_objects__c2c_name(const struct pebs_objects *o, struct pebs_c2c *c)
{
	void *arg[2] = { (void *)o, c };

	if (!o || !c)
		return core_err(-EINVAL, "objects: no table or no lines");
	return pebs_c2c__for_each_line(c, true, name_line, arg);
}

const char *pebs_object_sharing__name(enum pebs_object_sharing s)
{
	switch (s) {
	case PEBS_OBJECT_PRIVATE:
		return "private";
	case PEBS_OBJECT_SHARED:
		return "shared";
	case PEBS_OBJECT_FALSE_SHARING:
		return "false";
	case PEBS_OBJECT_TRUE_SHARING:
		return "true";
	case PEBS_OBJECT_TRUE_FALSE_SHARING:
		return "true+false";
	default:
		return "-";
	}
}
