// SPDX-License-Identifier: MIT
/*
 * c2c-share.c - the sharing class of a cache line and of its offsets, by
 * the definitions of the false-sharing literature (Sheriff, Predator,
 * Cheetah, Feather) and of Intel's and Red Hat's c2c guides:
 *
 *   true sharing:  two threads access the same bytes of the line and at
 *                  least one of them writes them (a writer and a reader
 *                  of one counter, a flag, a seqlock's sequence word);
 *   false sharing: two threads access different, non-overlapping bytes
 *                  of the line and at least one of them writes: thread a
 *                  writes bytes thread b never touches, thread b touches
 *                  bytes thread a never writes (padding them apart would
 *                  end the traffic);
 *   both when both hold; none for one thread, or readers only.
 *
 * An access covers [offset, offset + size) of its line (the widest size
 * a thread used at that offset; 1 byte when the samples give no size).
 * An access of unknown kind (a sample without data source, e.g. a page
 * fault) may be a write and counts as one. The evidence of each class is
 * the pair of accesses that costs most: most HITMs, then most stores,
 * then most accesses.
 */
#include <errno.h>
#include <stdlib.h>

#include "c2c/c2c-int.h"

/* one (offset, thread) node of a line, with its thread's byte masks */
struct acc {
	const struct c2c_thread *t;
	uint32_t oi;
	uint8_t off;
	bool w;
	uint64_t bytes;		/* bytes this access covers */
	uint64_t ta, tw;	/* bytes its thread accesses, writes */
};

static bool writes(const struct c2c_thread *t)
{
	return t->v.stores || t->v.unknown;
}

static uint64_t span(unsigned int off, unsigned int size)
{
	unsigned int n = size ? size : 1;

	if (off + n >= 64)
		return ~0ULL << off;
	return ((1ULL << n) - 1) << off;
}

static int cmp_acc(const void *pa, const void *pb)
{
	const struct acc *a = pa, *b = pb;

	if (a->t->v.pid != b->t->v.pid)
		return a->t->v.pid < b->t->v.pid ? -1 : 1;
	if (a->t->v.tid != b->t->v.tid)
		return a->t->v.tid < b->t->v.tid ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static bool same_thread(const struct acc *a, const struct acc *b)
{
	return a->t->v.pid == b->t->v.pid && a->t->v.tid == b->t->v.tid;
}

/* the cost of a pair: HITMs, then stores (and possible writes), then all */
struct cost {
	uint64_t hitm, st, all;
};

static struct cost pair_cost(const struct acc *a, const struct acc *b)
{
	const struct pebs_c2c_thread *x = &a->t->v, *y = &b->t->v;

	return (struct cost){
		.hitm = x->hitm + y->hitm,
		.st = x->stores + x->unknown + y->stores + y->unknown,
		.all = x->loads + x->stores + x->unknown +
		       y->loads + y->stores + y->unknown,
	};
}

static bool costlier(const struct cost *a, const struct cost *b)
{
	if (a->hitm != b->hitm)
		return a->hitm > b->hitm;
	if (a->st != b->st)
		return a->st > b->st;
	return a->all > b->all;
}

static void evidence(struct pebs_c2c_evidence *ev, const struct acc *a,
		     const struct acc *b)
{
	ev->pid_a = a->t->v.pid;
	ev->tid_a = a->t->v.tid;
	ev->off_a = a->off;
	ev->pid_b = b->t->v.pid;
	ev->tid_b = b->t->v.tid;
	ev->off_b = b->off;
	ev->b_writes = b->w;
}

/* the (offset, thread) nodes of @l into @v, with their threads' masks */
static size_t gather(struct pebs_c2c *c, const struct c2c_line *l,
		     struct acc *v)
{
	const struct c2c_thread *t;
	size_t n = 0, i, j;
	uint64_t ta, tw;
	unsigned int o;

	for (o = 0; o < 64; o++) {
		uint32_t oi = l->off[o];

		if (oi == C2C_NONE)
			continue;
		c->offs.a[oi].sharing = PEBS_C2C_PRIVATE;
		for (t = c->offs.a[oi].threads == C2C_NONE ? NULL :
		     &c->threads.a[c->offs.a[oi].threads]; t;
		     t = t->next == C2C_NONE ? NULL : &c->threads.a[t->next])
			v[n++] = (struct acc){
				.t = t, .oi = oi, .off = o, .w = writes(t),
				.bytes = span(o, t->v.size),
			};
	}
	qsort(v, n, sizeof(*v), cmp_acc);
	for (i = 0; i < n; i = j) {
		ta = tw = 0;
		for (j = i; j < n && same_thread(&v[i], &v[j]); j++) {
			ta |= v[j].bytes;
			tw |= v[j].w ? v[j].bytes : 0;
		}
		for (j = i; j < n && same_thread(&v[i], &v[j]); j++) {
			v[j].ta = ta;
			v[j].tw = tw;
		}
	}
	return n;
}

static size_t line_nodes(const struct pebs_c2c *c, const struct c2c_line *l)
{
	size_t n = 0;
	unsigned int o;

	for (o = 0; o < 64; o++)
		if (l->off[o] != C2C_NONE)
			n += c->offs.a[l->off[o]].nr_threads;
	return n;
}

static void mark(struct pebs_c2c *c, const struct acc *a, const struct acc *b,
		 enum pebs_c2c_sharing s)
{
	c->offs.a[a->oi].sharing |= s;
	c->offs.a[b->oi].sharing |= s;
}

int c2c_classify(struct pebs_c2c *c, struct c2c_line *l)
{
	struct cost best_t = { 0 }, best_f = { 0 }, k;
	bool t = false, f = false;
	struct acc *v, *a, *b;
	size_t n, i, j;

	l->sharing = PEBS_C2C_PRIVATE;
	l->also_false = false;
	memset(&l->ev, 0, sizeof(l->ev));
	memset(&l->fev, 0, sizeof(l->fev));
	n = line_nodes(c, l);
	if (n > c->scratch_n) {
		v = realloc(c->scratch, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->scratch = v;
		c->scratch_n = n;
	}
	v = c->scratch;
	n = gather(c, l, v);
	if (l->nr_threads < 2)
		return 0;
	for (i = 0; i < n; i++) {
		a = &v[i];
		if (!a->w)
			continue;
		for (j = 0; j < n; j++) {
			b = &v[j];
			if (same_thread(a, b))
				continue;
			k = pair_cost(a, b);
			if (a->bytes & b->bytes) {
				mark(c, a, b, PEBS_C2C_TRUE_SHARING);
				if (!t || costlier(&k, &best_t)) {
					evidence(&l->ev, a, b);
					best_t = k;
				}
				t = true;
			} else if (!(a->bytes & b->ta) && !(b->bytes & a->tw)) {
				mark(c, a, b, PEBS_C2C_FALSE_SHARING);
				if (!f || costlier(&k, &best_f)) {
					evidence(&l->fev, a, b);
					best_f = k;
				}
				f = true;
			}
		}
	}
	if (t && f) {
		l->sharing = PEBS_C2C_TRUE_FALSE_SHARING;
		l->also_false = true;
	} else if (t) {
		l->sharing = PEBS_C2C_TRUE_SHARING;
	} else if (f) {
		l->sharing = PEBS_C2C_FALSE_SHARING;
		l->ev = l->fev;
		memset(&l->fev, 0, sizeof(l->fev));
	}
	return 0;
}

const char *pebs_c2c_sharing__name(enum pebs_c2c_sharing s)
{
	switch (s) {
	case PEBS_C2C_FALSE_SHARING:
		return "false";
	case PEBS_C2C_TRUE_SHARING:
		return "true";
	case PEBS_C2C_TRUE_FALSE_SHARING:
		return "true+false";
	default:
		return "none";
	}
}
