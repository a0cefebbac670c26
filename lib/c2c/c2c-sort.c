// SPDX-License-Identifier: MIT
/*
 * c2c-sort.c - rank, classify and walk the cache lines of a pebs_c2c
 * (builtin-c2c.c: resort_shared_cl_cb, he__display, the "offset,<hitm>"
 * re-sort of each line's entries).
 */
#include <errno.h>
#include <stdlib.h>

#include "pebsshim/c2c.h"
#include "c2c/c2c-int.h"

#define DISPLAY_LINE_LIMIT 0.001	/* perf: a shown line's share */

static uint64_t display_count(const struct pebs_c2c_stats *st,
			      enum pebs_c2c_display d)
{
	switch (d) {
	case PEBS_C2C_LCL_HITM:
		return st->lcl_hitm;
	case PEBS_C2C_RMT_HITM:
		return st->rmt_hitm;
	case PEBS_C2C_PEER:
		return st->tot_peer;
	default:
		return st->tot_hitm;
	}
}

static uint64_t line_key(const struct pebs_c2c *c, const struct c2c_line *l)
{
	if (c->display == PEBS_C2C_XWRITES)
		return l->xwrites;
	return display_count(&l->st, c->display);
}

/* qsort has no argument: the table being sorted */
static __thread const struct pebs_c2c *sort_c2c;

/* rank: count, most first; ties (and unshown lines) by pid, address */
static int cmp_line(const void *pa, const void *pb)
{
	const struct c2c_line *a = &sort_c2c->lines.a[*(const uint32_t *)pa];
	const struct c2c_line *b = &sort_c2c->lines.a[*(const uint32_t *)pb];
	uint64_t ka = line_key(sort_c2c, a), kb = line_key(sort_c2c, b);

	if (ka != kb)
		return ka > kb ? -1 : 1;
	if (sort_c2c->display == PEBS_C2C_XWRITES &&
	    a->st.nr_entries != b->st.nr_entries)
		return a->st.nr_entries > b->st.nr_entries ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->key.cpumode != b->key.cpumode)
		return a->key.cpumode < b->key.cpumode ? -1 : 1;
	return a->key.al_addr < b->key.al_addr ? -1 :
	       a->key.al_addr > b->key.al_addr;
}

#define for_each_off(c, l, o, oi) \
	for (o = 0; o < 64; o++) \
		if ((oi = (l)->off[o]) != C2C_NONE)

int pebs_c2c__sort(struct pebs_c2c *c, enum pebs_c2c_display display)
{
	uint32_t *order;
	uint64_t total;
	size_t i, n = c->lines.n;

	order = realloc(c->order, (n ? n : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	c->order = order;
	c->display = display;
	memset(&c->shared, 0, sizeof(c->shared));
	c->nr_shared = 0;
	for (i = 0; i < n; i++) {
		struct c2c_line *l = &c->lines.a[i];
		const struct pebs_c2c_stats *st = &l->st;

		order[i] = i;
		if (c2c_classify(c, l))
			return -ENOMEM;
		l->xwrites = l->nr_threads >= 2 ? st->store + l->unknown : 0;
		if (st->lcl_hitm || st->rmt_hitm || st->lcl_peer ||
		    st->rmt_peer) {
			c->nr_shared++;
			pebs_c2c_stats__sum(&c->shared, st);
		}
	}
	sort_c2c = c;
	qsort(order, n, sizeof(*order), cmp_line);
	sort_c2c = NULL;

	total = display_count(&c->shared, display);
	for (i = 0; i < n; i++) {
		const struct c2c_line *l = &c->lines.a[order[i]];
		uint64_t k = line_key(c, l);

		if (display == PEBS_C2C_XWRITES ? !k :
		    !total || (double)k / total < DISPLAY_LINE_LIMIT)
			break;
	}
	c->nr_shown = i;
	c->sorted = true;
	return i;
}

int pebs_c2c__for_each_line(struct pebs_c2c *c, bool all,
			    pebs_c2c_line_cb cb, void *arg)
{
	size_t i, n = all ? c->lines.n : c->nr_shown;
	struct pebs_c2c_line v;
	int r;

	if (!c->sorted)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		const struct c2c_line *l = &c->lines.a[c->order[i]];

		memset(&v, 0, sizeof(v));
		v.addr = l->addr;
		v.pid = l->pid;
		v.rank = i;
		v.stats = l->st;
		v.unknown = l->unknown;
		v.xwrites = l->xwrites;
		v.load_weight = l->load_w;
		v.load_weight_n = l->load_n;
		v.phys_addrs = l->phys;
		v.nodes = l->nodes;
		v.nr_threads = l->nr_threads;
		v.nr_offsets = l->nr_offsets;
		v.nr_cpus = l->nr_cpus;
		v.sharing = l->sharing;
		v.evidence = l->ev;
		v.also_false = l->also_false;
		v.false_evidence = l->fev;
		v.id = c->order[i];
		v.object = l->object;
		v.object_inst = l->object_inst;
		v.nr_objects = l->nr_objects;
		r = cb(&v, arg);
		if (r)
			return r;
	}
	return 0;
}

int pebs_c2c__set_object(struct pebs_c2c *c, uint32_t line_id,
			  const char *object, const char *instance,
			  unsigned int nr_objects)
{
	struct c2c_line *l;

	if (!c || line_id >= c->lines.n)
		return core_err(-EINVAL, "c2c: no line %u", line_id);
	l = &c->lines.a[line_id];
	l->object = object;
	l->object_inst = instance ? instance : object;
	l->nr_objects = object ? nr_objects : 0;
	return 0;
}

int pebs_c2c__for_each_offset(struct pebs_c2c *c, uint32_t line_id,
			      pebs_c2c_offset_cb cb, void *arg)
{
	struct pebs_c2c_offset v;
	const struct c2c_line *l;
	unsigned int o;
	uint32_t oi;
	int r;

	if (!c->sorted || line_id >= c->lines.n)
		return -EINVAL;
	l = &c->lines.a[line_id];
	for_each_off(c, l, o, oi) {
		const struct c2c_offset *p = &c->offs.a[oi];

		memset(&v, 0, sizeof(v));
		v.offset = o;
		v.stats = p->st;
		v.unknown = p->unknown;
		v.sharing = p->sharing;
		v.nr_ips = p->nr_ips;
		v.nr_threads = p->nr_threads;
		v.nr_cpus = p->nr_cpus;
		v.id = oi;
		r = cb(&v, arg);
		if (r)
			return r;
	}
	return 0;
}

/* qsort comparators of pointers to values */
static int cmp_ip(const void *pa, const void *pb)
{
	const struct pebs_c2c_ip *a = *(const struct pebs_c2c_ip *const *)pa;
	const struct pebs_c2c_ip *b = *(const struct pebs_c2c_ip *const *)pb;
	enum pebs_c2c_display d = sort_c2c->display;
	uint64_t ka, kb;

	if (d == PEBS_C2C_XWRITES) {
		ka = a->stats.store + a->unknown;
		kb = b->stats.store + b->unknown;
	} else {
		ka = display_count(&a->stats, d);
		kb = display_count(&b->stats, d);
	}
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return a->ip < b->ip ? -1 : a->ip > b->ip;
}

static int cmp_thread(const void *pa, const void *pb)
{
	const struct pebs_c2c_thread *a =
		*(const struct pebs_c2c_thread *const *)pa;
	const struct pebs_c2c_thread *b =
		*(const struct pebs_c2c_thread *const *)pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int cmp_cpu(const void *pa, const void *pb)
{
	const struct pebs_c2c_cpu *a = *(const struct pebs_c2c_cpu *const *)pa;
	const struct pebs_c2c_cpu *b = *(const struct pebs_c2c_cpu *const *)pb;

	return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
}

/*
 * Pointers to the values of one of an offset's lists, sorted with @cmp:
 * *@vp (free it) and the count, or -ENOMEM / -EINVAL.
 */
#define COLLECT(c, nodes, head, n, vp, cmp) ({				\
	const void **v_ = malloc(((n) ? (n) : 1) * sizeof(*v_));	\
	uint32_t at_ = (head);						\
	unsigned int i_ = 0;						\
									\
	if (v_) {							\
		for (; at_ != C2C_NONE && i_ < (n); i_++) {		\
			v_[i_] = &(nodes)[at_].v;			\
			at_ = (nodes)[at_].next;			\
		}							\
		sort_c2c = (c);						\
		qsort(v_, i_, sizeof(*v_), cmp);			\
		sort_c2c = NULL;					\
	}								\
	*(vp) = v_;							\
	v_ ? (int)i_ : -ENOMEM;						\
})

static const struct c2c_offset *offset_of(const struct pebs_c2c *c,
					  uint32_t offset_id)
{
	if (!c->sorted || offset_id >= c->offs.n)
		return NULL;
	return &c->offs.a[offset_id];
}

int pebs_c2c__for_each_ip(struct pebs_c2c *c, uint32_t offset_id,
			  pebs_c2c_ip_cb cb, void *arg)
{
	const struct c2c_offset *o = offset_of(c, offset_id);
	const void **v;
	int n, i, r = 0;

	if (!o)
		return -EINVAL;
	n = COLLECT(c, c->ips.a, o->ips, o->nr_ips, &v, cmp_ip);
	for (i = 0; i < n && !r; i++)
		r = cb(v[i], arg);
	free(v);
	return n < 0 ? n : r;
}

int pebs_c2c__for_each_thread(struct pebs_c2c *c, uint32_t offset_id,
			      pebs_c2c_thread_cb cb, void *arg)
{
	const struct c2c_offset *o = offset_of(c, offset_id);
	const void **v;
	int n, i, r = 0;

	if (!o)
		return -EINVAL;
	n = COLLECT(c, c->threads.a, o->threads, o->nr_threads, &v,
		    cmp_thread);
	for (i = 0; i < n && !r; i++)
		r = cb(v[i], arg);
	free(v);
	return n < 0 ? n : r;
}

/* a thread's pid + 1 (the first: the smallest) */
static int thread_pid(const struct pebs_c2c_thread *t, void *arg)
{
	(void)arg;
	return (int)t->pid + 1;
}

/* the first offset's (+ 1) */
static int offset_pid(const struct pebs_c2c_offset *o, void *arg)
{
	return pebs_c2c__for_each_thread(arg, o->id, thread_pid, NULL);
}

int32_t pebs_c2c__line_pid(struct pebs_c2c *c, const struct pebs_c2c_line *l)
{
	int r;

	if (l->pid)
		return (int32_t)l->pid;
	r = pebs_c2c__for_each_offset(c, l->id, offset_pid, c);
	return r > 0 ? r - 1 : -1;
}

int pebs_c2c__for_each_cpu(struct pebs_c2c *c, uint32_t offset_id,
			   pebs_c2c_cpu_cb cb, void *arg)
{
	const struct c2c_offset *o = offset_of(c, offset_id);
	const void **v;
	int n, i, r = 0;

	if (!o)
		return -EINVAL;
	n = COLLECT(c, c->cpus.a, o->cpus, o->nr_cpus, &v, cmp_cpu);
	for (i = 0; i < n && !r; i++)
		r = cb(v[i], arg);
	free(v);
	return n < 0 ? n : r;
}
