// SPDX-License-Identifier: MIT
/*
 * c2c.c - per cache line sharing statistics, perf c2c report's way.
 *
 * Every sample is counted into the totals (pebs_c2c_stats__add_sample);
 * one with a data address also into its 64-byte line, the byte offset
 * within the line, and per offset into the code address, the thread
 * and the CPU. All nodes live in growable arrays and are found through
 * one open-addressing hash of (kind | parent, key) pairs, so a sample
 * allocates nothing unless it brings a new key.
 *
 * Lines are keyed as perf's dcacheline sort keys them (struct
 * pebs_c2c_dkey, lib/c2c/c2c-maps.c): cpumode, the data mapping's dso id,
 * the pid for private anonymous memory, and the map-relative line.
 */
#include <errno.h>
#include <stdlib.h>

#include "pebsshim/c2c.h"
#include "c2c/c2c-int.h"

#define VEC_PUSH(v) \
	((v).n >= C2C_NONE - 1 || \
	 core_grow(&(v).a, &(v).cap, (v).n + 1, sizeof(*(v).a)) ? C2C_NONE : \
	 (uint32_t)(v).n++)

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return x;
}

static int hash_resize(struct c2c_hash *h)
{
	size_t ncap = h->cap ? h->cap * 2 : 1024, i, j;
	struct c2c_slot *ns = malloc(ncap * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (j = 0; j < ncap; j++)
		ns[j].val = C2C_NONE;
	for (i = 0; i < h->cap; i++) {
		if (h->s[i].val == C2C_NONE)
			continue;
		j = mix(h->s[i].a, h->s[i].b) & (ncap - 1);
		while (ns[j].val != C2C_NONE)
			j = (j + 1) & (ncap - 1);
		ns[j] = h->s[i];
	}
	free(h->s);
	h->s = ns;
	h->cap = ncap;
	return 0;
}

/*
 * The slot of key (a, b): *slot is its value, or C2C_NONE if the key is
 * new, in which case the caller must store a value there. Returns 0 or
 * -ENOMEM.
 */
static int hash_slot(struct c2c_hash *h, uint64_t a, uint64_t b,
		     uint32_t **slot)
{
	struct c2c_slot *e;
	size_t i;

	if ((h->n + 1) * 4 > h->cap * 3 && hash_resize(h))
		return -ENOMEM;
	i = mix(a, b) & (h->cap - 1);
	for (e = &h->s[i]; e->val != C2C_NONE && (e->a != a || e->b != b);
	     e = &h->s[i])
		i = (i + 1) & (h->cap - 1);
	if (e->val == C2C_NONE) {
		e->a = a;
		e->b = b;
		h->n++;
	}
	*slot = &e->val;
	return 0;
}

/* Whether (a, b) is new; it is remembered (value 0). */
static int hash_first(struct c2c_hash *h, uint64_t a, uint64_t b)
{
	uint32_t *slot;

	if (hash_slot(h, a, b, &slot))
		return -ENOMEM;
	if (*slot != C2C_NONE)
		return 0;
	*slot = 0;
	return 1;
}

int pebs_c2c__new(struct pebs_c2c **cp)
{
	struct pebs_c2c *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	*cp = c;
	return 0;
}

void pebs_c2c__delete(struct pebs_c2c *c)
{
	if (!c)
		return;
	free(c->h.s);
	free(c->lines.a);
	free(c->offs.a);
	free(c->ips.a);
	free(c->threads.a);
	free(c->scratch);
	free(c->cpus.a);
	free(c->order);
	free(c);
}

/*
 * The number (1...) of a dso id, interned in three steps (maj:min, ino,
 * ino_generation) so that every step's key fits the hash; 0 when it
 * has no mapping, C2C_NONE when out of memory or numbers.
 */
static uint32_t dso_num(struct pebs_c2c *c, const struct pebs_c2c_dkey *k)
{
	const uint64_t part[3] = { (uint64_t)k->maj << 32 | k->min, k->ino,
				   k->ino_generation };
	uint32_t *slot, at = 0;
	unsigned int i;

	if (!k->has_map)
		return 0;
	for (i = 0; i < 3; i++) {
		if (hash_slot(&c->h, KIND(K_DSOA + i, at), part[i], &slot))
			return C2C_NONE;
		if (*slot == C2C_NONE) {
			if (c->nr_dso == C2C_MAX_DSO)
				return C2C_NONE;
			*slot = ++c->nr_dso;
		}
		at = *slot;
	}
	return at;
}

/* perf's dcacheline key: cpumode, dso, pid (when by_pid), al_addr line */
static uint32_t line_get(struct pebs_c2c *c, const struct pebs_c2c_sample *s,
			 const struct pebs_c2c_dkey *k)
{
	uint32_t pid = k->by_pid ? k->pid : 0, dso = dso_num(c, k), *slot, i;
	uint64_t addr = s->addr & ~((1ULL << LINE_SHIFT) - 1);
	struct c2c_line *l;

	if (dso == C2C_NONE ||
	    hash_slot(&c->h, KIND(K_LINE, (uint64_t)(k->cpumode & 7) << 57 |
				  (uint64_t)k->by_pid << 56 |
				  (uint64_t)dso << 32 | pid),
		      k->al_addr >> LINE_SHIFT, &slot))
		return C2C_NONE;
	if (*slot != C2C_NONE)
		return *slot;
	i = VEC_PUSH(c->lines);
	if (i == C2C_NONE)
		return C2C_NONE;
	l = &c->lines.a[i];
	memset(l, 0, sizeof(*l));
	memset(l->off, 0xff, sizeof(l->off));
	l->addr = addr;
	l->pid = pid;
	l->key = *k;
	l->key.pid = pid;
	l->key.al_addr = k->al_addr & ~((1ULL << LINE_SHIFT) - 1);
	*slot = i;
	return i;
}

static uint32_t offset_get(struct pebs_c2c *c, uint32_t li, uint8_t off)
{
	uint32_t i = c->lines.a[li].off[off];
	struct c2c_offset *o;

	if (i != C2C_NONE)
		return i;
	i = VEC_PUSH(c->offs);
	if (i == C2C_NONE)
		return C2C_NONE;
	o = &c->offs.a[i];
	memset(o, 0, sizeof(*o));
	o->off = off;
	o->ips = o->threads = o->cpus = C2C_NONE;
	c->lines.a[li].off[off] = i;
	c->lines.a[li].nr_offsets++;
	return i;
}

static uint32_t ip_get(struct pebs_c2c *c, uint32_t oi,
		       const struct pebs_c2c_sample *s)
{
	struct c2c_offset *o;
	struct c2c_ipnode *n;
	uint32_t *slot, i;

	if (hash_slot(&c->h, KIND(K_IP, oi), s->ip, &slot))
		return C2C_NONE;
	if (*slot != C2C_NONE)
		return *slot;
	i = VEC_PUSH(c->ips);
	if (i == C2C_NONE)
		return C2C_NONE;
	o = &c->offs.a[oi];
	n = &c->ips.a[i];
	memset(n, 0, sizeof(*n));
	n->v.ip = s->ip;
	n->v.pid = s->pid;
	n->next = o->ips;
	o->ips = i;
	o->nr_ips++;
	*slot = i;
	return i;
}

static uint32_t thread_get(struct pebs_c2c *c, uint32_t oi,
			   const struct pebs_c2c_sample *s)
{
	struct c2c_offset *o;
	struct c2c_thread *t;
	uint32_t *slot, i;

	if (hash_slot(&c->h, KIND(K_THREAD, oi),
		      (uint64_t)s->pid << 32 | s->tid, &slot))
		return C2C_NONE;
	if (*slot != C2C_NONE)
		return *slot;
	i = VEC_PUSH(c->threads);
	if (i == C2C_NONE)
		return C2C_NONE;
	o = &c->offs.a[oi];
	t = &c->threads.a[i];
	memset(t, 0, sizeof(*t));
	t->v.pid = s->pid;
	t->v.tid = s->tid;
	t->next = o->threads;
	o->threads = i;
	o->nr_threads++;
	*slot = i;
	return i;
}

static uint32_t cpu_get(struct pebs_c2c *c, uint32_t oi, uint32_t cpu)
{
	struct c2c_offset *o;
	struct c2c_cpu *n;
	uint32_t *slot, i;

	if (hash_slot(&c->h, KIND(K_CPU, oi), cpu, &slot))
		return C2C_NONE;
	if (*slot != C2C_NONE)
		return *slot;
	i = VEC_PUSH(c->cpus);
	if (i == C2C_NONE)
		return C2C_NONE;
	o = &c->offs.a[oi];
	n = &c->cpus.a[i];
	n->v.cpu = cpu;
	n->v.samples = 0;
	n->next = o->cpus;
	o->cpus = i;
	o->nr_cpus++;
	*slot = i;
	return i;
}

/* perf's compute_stats: the weight goes to the first class it has. */
static void ip_weight(struct pebs_c2c_ip *ip, const struct pebs_c2c_stats *one,
		      uint64_t w)
{
	if (one->rmt_hitm) {
		ip->rmt_hitm_w += w;
		ip->rmt_hitm_n++;
	} else if (one->lcl_hitm) {
		ip->lcl_hitm_w += w;
		ip->lcl_hitm_n++;
	} else if (one->load && !one->rmt_peer && !one->lcl_peer) {
		ip->load_w += w;
		ip->load_n++;
	}
}

/*
 * perf's nodeset and "PA cnt" of an entry (c2c_he__set_node: changes of
 * the physical address, counted for samples whose node is known).
 */
static void set_node(const struct pebs_c2c_sample *s, uint64_t *nodes,
		     uint64_t *pa_cnt, uint64_t *last)
{
	if (!s->phys_addr || !s->has_node)
		return;
	if (s->node < 64)
		*nodes |= 1ULL << s->node;
	if (s->phys_addr != *last) {
		(*pa_cnt)++;
		*last = s->phys_addr;
	}
}

/* The per-line distinct sets: threads, CPUs; nodes. */
static int line_sets(struct pebs_c2c *c, uint32_t li,
		     const struct pebs_c2c_sample *s)
{
	struct c2c_line *l = &c->lines.a[li];
	int r;

	r = hash_first(&c->h, KIND(K_LTHREAD, li),
		       (uint64_t)s->pid << 32 | s->tid);
	if (r < 0)
		return r;
	l->nr_threads += r;
	if (s->cpu != UINT32_MAX) {
		r = hash_first(&c->h, KIND(K_LCPU, li), s->cpu);
		if (r < 0)
			return r;
		l->nr_cpus += r;
	}
	set_node(s, &l->nodes, &l->phys, &l->last_phys);
	return 0;
}

int pebs_c2c__add(struct pebs_c2c *c, const struct pebs_c2c_sample *s)
{
	bool kernel = s->addr >= KERNEL_START;
	struct pebs_c2c_dkey k = {
		.al_addr = s->addr,
		.cpumode = kernel ? PERF_RECORD_MISC_KERNEL :
				    PERF_RECORD_MISC_USER,
		.by_pid = !kernel,
		.pid = kernel ? 0 : s->pid,
		.level = kernel ? 'k' : '.',
	};

	return pebs_c2c__add_keyed(c, s, &k);
}

int pebs_c2c__add_keyed(struct pebs_c2c *c, const struct pebs_c2c_sample *s,
			const struct pebs_c2c_dkey *k)
{
	uint64_t dsrc = s->has_data_src ? s->data_src : C2C_DATA_SRC_NONE;
	struct pebs_c2c_stats one = { 0 };
	uint32_t li, oi, ii, ti, ci;
	struct c2c_thread *t;
	struct c2c_offset *o;
	struct c2c_line *l;
	bool unknown = !s->has_data_src;
	int r;

	if (!c || !s || !k)
		return -EINVAL;
	pebs_c2c_stats__add_sample(&one, dsrc, s->addr, s->mapped);
	pebs_c2c_stats__sum(&c->st, &one);
	c->has_data_src |= s->has_data_src;
	c->sorted = false;
	if (!s->addr)
		return 0;

	li = line_get(c, s, k);
	if (li == C2C_NONE)
		return -ENOMEM;
	oi = offset_get(c, li, s->addr & ((1U << LINE_SHIFT) - 1));
	if (oi == C2C_NONE)
		return -ENOMEM;
	ii = ip_get(c, oi, s);
	ti = ii == C2C_NONE ? C2C_NONE : thread_get(c, oi, s);
	if (ti == C2C_NONE)
		return -ENOMEM;
	if (s->cpu != UINT32_MAX) {
		ci = cpu_get(c, oi, s->cpu);
		if (ci == C2C_NONE)
			return -ENOMEM;
		c->cpus.a[ci].v.samples++;
		r = hash_first(&c->h, KIND(K_IPCPU, ii), s->cpu);
		if (r < 0)
			return r;
		c->ips.a[ii].v.nr_cpus += r;
	}
	r = line_sets(c, li, s);
	if (r)
		return r;

	l = &c->lines.a[li];
	o = &c->offs.a[oi];
	t = &c->threads.a[ti];
	pebs_c2c_stats__sum(&l->st, &one);
	pebs_c2c_stats__sum(&o->st, &one);
	pebs_c2c_stats__sum(&c->ips.a[ii].v.stats, &one);
	ip_weight(&c->ips.a[ii].v, &one, s->weight);
	set_node(s, &c->ips.a[ii].v.nodes, &c->ips.a[ii].v.pa_cnt,
		 &c->ips.a[ii].last_phys);
	if (one.load) {
		l->load_w += s->weight;
		l->load_n++;
	}
	l->unknown += unknown;
	o->unknown += unknown;
	c->ips.a[ii].v.unknown += unknown;
	t->v.loads += one.load;
	t->v.stores += one.store;
	t->v.unknown += unknown;
	t->v.hitm += one.tot_hitm;
	if (s->size > t->v.size)
		t->v.size = s->size;
	return 0;
}

const struct pebs_c2c_stats *pebs_c2c__stats(const struct pebs_c2c *c)
{
	return &c->st;
}

bool pebs_c2c__has_data_src(const struct pebs_c2c *c)
{
	return c->has_data_src;
}

unsigned int pebs_c2c__shared(const struct pebs_c2c *c,
			      struct pebs_c2c_stats *st)
{
	if (st)
		*st = c->shared;
	return c->nr_shared;
}

int pebs_c2c__line_key(const struct pebs_c2c *c, uint32_t line_id,
		       struct pebs_c2c_dkey *k)
{
	if (!c || !k || line_id >= c->lines.n)
		return -EINVAL;
	*k = c->lines.a[line_id].key;
	return 0;
}
