// SPDX-License-Identifier: MIT
/*
 * session-c2c.c - the session's samples fed to a pebs_c2c in the same
 * pass that builds the report's tables, each taken as
 * pebs_c2c__read_perfdata takes it (lib/c2c/c2c-read.c: perf's line key from
 * the mappings of its time, "mapped", node), so that both give the same
 * table.
 *
 * With PEBS_SESSION_C2C_SHARED a line's samples wait here (a list per
 * line, keyed by perf's line key as pebs_c2c keys lines, in arrival
 * order) until the line can be shared: a second thread touches it, or
 * one of its samples has a HITM or peer snoop. Then they go to the
 * table, in order, and the line's later samples straight after. A line
 * that never qualifies is never added: pebs_c2c__sort cannot show it in
 * any display (no cross-thread writes without two threads, no HITM or
 * peer count without such a sample), and lines are counted and ranked
 * independently of each other. A recording of one thread whose events
 * carry no data source has no such line: then no sample with an address
 * is kept at all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/session.h"
#include "pebsshim/c2c.h"
#include "c2c/c2c-read.h"
#include "session/session-int.h"

#define RING 32		/* samples whose line lookups overlap */
#define QUALIFIED UINT32_MAX	/* pline.tail of a line that qualified */

/*
 * A line key packed (struct pline.word): al_addr >> 6 in the low 58
 * bits, then cpumode, by_pid, level 's' (not part of the key: the
 * first sample's mark) and a used bit (0: an empty slot).
 */
#define W_LINE		((1ULL << 58) - 1)
#define W_MODE_SHIFT	58
#define W_BY_PID	(1ULL << 61)
#define W_SHARED_FILE	(1ULL << 62)
#define W_USED		(1ULL << 63)

/* A data mapping's dso id; interned: its number is index + 1. */
struct dso_id {
	uint64_t ino, ino_generation;
	uint32_t maj, min;
};

/* A packed line key (perf's dcacheline key: pebs_c2c_dkey). */
struct pkey {
	uint64_t word;
	uint32_t pid;		/* with by_pid, else 0 */
	uint32_t dso;		/* interned dso id; 0: no mapping */
};

/* A sample, its line key, packed too. */
struct keyed {
	struct pebs_c2c_sample cs;
	struct pebs_c2c_dkey key;
	struct pkey pk;
};

/* A sample waiting for its line to qualify. */
struct pending {
	struct pebs_c2c_sample cs;
	uint32_t next;		/* index + 1 of the line's next; 0: last */
};

/* A line of the shared-only feed, by the key of its first sample. */
struct pline {
	struct pkey k;
	uint32_t first_pid, first_tid;	/* the first thread seen */
	uint32_t head, tail;	/* waiting samples (index + 1); 0: none;
				   tail QUALIFIED: samples go to the table */
};

struct ss_c2c {
	struct pebs_c2c *c2c;
	struct pebs_perfdata *pd;
	struct c2c_feed *feed;
	bool shared_only;		/* PEBS_SESSION_C2C_SHARED */
	bool no_dummy;			/* PEBS_SESSION_C2C_NO_DUMMY */
	bool none_shared;		/* ... and no line can qualify */
	struct pline *lines;		/* open addressing */
	size_t nr_lines, cap_lines;	/* cap: a power of two, or 0 */
	struct pending *wait;
	size_t nr_wait, cap_wait;
	struct dso_id *dsos;		/* interned dso ids */
	size_t nr_dsos, cap_dsos;
	uint32_t *dso_slots;		/* their numbers, open addressing */
	size_t cap_dso_slots;		/* a power of two, or 0 */
	uint32_t last_dso;		/* the last one looked up */
	bool src_seen, src_added;	/* a sample with a data source was
					   seen, was added */
	struct keyed src_wait;		/* one that waited */
	struct keyed ring[RING];	/* not yet looked up */
	unsigned int nr_ring;
};

/* Whether a sample of some event of @pd can carry a data source. */
static bool any_data_src(const struct pebs_perfdata *pd)
{
	unsigned int i, n = pebs_perfdata__nr_attrs(pd);

	for (i = 0; i < n; i++) {
		const struct perf_event_attr *a =
			pebs_perfdata__attr(pd, i, NULL, NULL);

		if (a && (a->sample_type & PERF_SAMPLE_DATA_SRC) &&
		    a->type != PERF_TYPE_SOFTWARE &&
		    a->type != PERF_TYPE_TRACEPOINT)
			return true;
	}
	return false;
}

static void ss_c2c__free(struct ss_c2c *f);

/*
 * A feed of @c for @pd (its HEADER_MEM_TOPOLOGY read); @one_thread: every
 * sample of @pd is of one thread.
 */
static int ss_c2c__new(struct pebs_c2c *c, struct pebs_perfdata *pd,
		       unsigned int flags, bool one_thread,
		       struct ss_c2c **fp)
{
	struct ss_c2c *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->c2c = c;
	f->pd = pd;
	f->shared_only = flags & PEBS_SESSION_C2C_SHARED;
	f->no_dummy = flags & PEBS_SESSION_C2C_NO_DUMMY;
	/* one thread makes no cross-thread writes, and without a data
	   source no sample has a HITM or peer snoop */
	f->none_shared = f->shared_only && one_thread && !any_data_src(pd);
	if (c2c_feed__new(pd, &f->feed)) {
		ss_c2c__free(f);
		return -ENOMEM;
	}
	*fp = f;
	return 0;
}

static void ss_c2c__free(struct ss_c2c *f)
{
	if (!f)
		return;
	c2c_feed__free(f->feed);
	big_free(f->lines, f->cap_lines, sizeof(*f->lines));
	free(f->wait);
	free(f->dsos);
	free(f->dso_slots);
	free(f);
}

/* A non-sample record (the mappings), in time order. */
static int ss_c2c__record(struct ss_c2c *f,
			  const struct perf_event_header *ev)
{
	/* none_shared: no key is asked for */
	return f->none_shared ? 0 : c2c_feed__record(f->feed, ev);
}

static int add(struct ss_c2c *f, const struct pebs_c2c_sample *cs,
	       const struct pebs_c2c_dkey *k)
{
	f->src_added |= cs->has_data_src;
	return pebs_c2c__add_keyed(f->c2c, cs, k);
}

static uint64_t dso_hash(const struct dso_id *d)
{
	uint64_t h = (((uint64_t)d->maj << 32 | d->min) ^ d->ino ^
		      (d->ino_generation << 17)) * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 29);
}

static bool same_dso(const struct dso_id *a, const struct dso_id *b)
{
	return a->ino == b->ino && a->maj == b->maj && a->min == b->min &&
	       a->ino_generation == b->ino_generation;
}

/* Slot @n (an interned number) of the table of @cap slots. */
static void dso_place(uint32_t *slots, size_t cap, const struct dso_id *d,
		      uint32_t n)
{
	size_t i;

	for (i = dso_hash(d) & (cap - 1); slots[i]; i = (i + 1) & (cap - 1))
		;
	slots[i] = n;
}

static int grow_dsos(struct ss_c2c *f)
{
	size_t cap, i;
	uint32_t *slots;

	/* the slots, twice as many, stay countable in 32 bits */
	if (f->cap_dsos > UINT32_MAX / 4 ||
	    core_grow(&f->dsos, &f->cap_dsos, f->nr_dsos + 1, sizeof(*f->dsos)))
		return -ENOMEM;
	cap = f->cap_dsos;
	slots = calloc(cap * 2, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < f->nr_dsos; i++)
		dso_place(slots, cap * 2, &f->dsos[i], (uint32_t)i + 1);
	free(f->dso_slots);
	f->dso_slots = slots;
	f->cap_dso_slots = cap * 2;
	return 0;
}

/* The number of @k's dso id (interned), 0 for no mapping, or 0 and
 * -ENOMEM in *err. Samples of one mapping follow each other: the last
 * number is tried first. */
static uint32_t dso_num(struct ss_c2c *f, const struct pebs_c2c_dkey *k,
			int *err)
{
	const struct dso_id d = { k->ino, k->ino_generation, k->maj, k->min };
	uint32_t n;
	size_t i;

	if (!k->has_map)
		return 0;
	if (f->last_dso && same_dso(&f->dsos[f->last_dso - 1], &d))
		return f->last_dso;
	for (i = f->cap_dso_slots ? dso_hash(&d) & (f->cap_dso_slots - 1) : 0;
	     f->cap_dso_slots && (n = f->dso_slots[i]);
	     i = (i + 1) & (f->cap_dso_slots - 1))
		if (same_dso(&f->dsos[n - 1], &d))
			return f->last_dso = n;
	if (f->nr_dsos == f->cap_dsos && (*err = grow_dsos(f)))
		return 0;
	f->dsos[f->nr_dsos++] = d;
	n = (uint32_t)f->nr_dsos;
	dso_place(f->dso_slots, f->cap_dso_slots, &d, n);
	return f->last_dso = n;
}

/* @k packed: what pebs_c2c tells lines apart by (and the mark). */
static int pack(struct ss_c2c *f, const struct pebs_c2c_dkey *k,
		struct pkey *p)
{
	int err = 0;

	p->dso = dso_num(f, k, &err);
	p->pid = k->by_pid ? k->pid : 0;
	p->word = W_USED | (k->al_addr >> 6) |
		  (uint64_t)(k->cpumode & 7) << W_MODE_SHIFT |
		  (k->by_pid ? W_BY_PID : 0) |
		  (k->level == 's' ? W_SHARED_FILE : 0);
	return err;
}

/* The line key packed in @p, as pebs_c2c_maps__key made it. */
static void unpack(const struct ss_c2c *f, const struct pkey *p,
		   struct pebs_c2c_dkey *k)
{
	memset(k, 0, sizeof(*k));
	k->al_addr = (p->word & W_LINE) << 6;
	k->cpumode = p->word >> W_MODE_SHIFT & 7;
	k->by_pid = p->word & W_BY_PID;
	k->pid = p->pid;
	k->has_map = p->dso;
	k->level = 'X';
	if (!p->dso)
		return;
	k->maj = f->dsos[p->dso - 1].maj;
	k->min = f->dsos[p->dso - 1].min;
	k->ino = f->dsos[p->dso - 1].ino;
	k->ino_generation = f->dsos[p->dso - 1].ino_generation;
	k->level = k->cpumode == PERF_RECORD_MISC_KERNEL ? 'k' :
		   p->word & W_SHARED_FILE ? 's' : '.';
}

static bool same_line(const struct pkey *a, const struct pkey *b)
{
	return !((a->word ^ b->word) & ~W_SHARED_FILE) && a->pid == b->pid &&
	       a->dso == b->dso;
}

static uint64_t line_hash(const struct pkey *k)
{
	uint64_t h = ((k->word & ~W_SHARED_FILE) ^ ((uint64_t)k->pid << 32) ^
		      ((uint64_t)k->dso << 44)) * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 29);
}

static int grow_lines(struct ss_c2c *f)
{
	size_t cap = f->cap_lines ? f->cap_lines * 2 : 4096, i, j;
	struct pline *v = big_calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < f->cap_lines; i++) {
		const struct pline *l = &f->lines[i];

		if (!l->k.word)
			continue;
		for (j = line_hash(&l->k) & (cap - 1); v[j].k.word;
		     j = (j + 1) & (cap - 1))
			;
		v[j] = *l;
	}
	big_free(f->lines, f->cap_lines, sizeof(*f->lines));
	f->lines = v;
	f->cap_lines = cap;
	return 0;
}

/* The line of @s (new ones empty); NULL when out of memory. */
static struct pline *line_of(struct ss_c2c *f, const struct keyed *s)
{
	struct pline *l;
	size_t i;

	if ((f->nr_lines + 1) * 4 > f->cap_lines * 3 && grow_lines(f))
		return NULL;
	for (i = line_hash(&s->pk) & (f->cap_lines - 1);
	     f->lines[i].k.word; i = (i + 1) & (f->cap_lines - 1)) {
		l = &f->lines[i];
		if (same_line(&l->k, &s->pk))
			return l;
	}
	l = &f->lines[i];
	l->k = s->pk;
	l->first_pid = s->cs.pid;
	l->first_tid = s->cs.tid;
	f->nr_lines++;
	return l;
}

/* The waiting samples of @l into the table, in order, with the key of
 * the first (as pebs_c2c keeps it). */
static int release(struct ss_c2c *f, struct pline *l)
{
	struct pebs_c2c_dkey k;
	uint32_t i;
	int err;

	unpack(f, &l->k, &k);
	for (i = l->head; i; i = f->wait[i - 1].next) {
		err = add(f, &f->wait[i - 1].cs, &k);
		if (err)
			return err;
	}
	l->head = 0;
	l->tail = QUALIFIED;
	return 0;
}

static int wait_for_line(struct ss_c2c *f, struct pline *l,
			 const struct keyed *s)
{
	struct pending *w;

	/* a waiting sample's number + 1 is a uint32_t */
	if (f->nr_wait >= UINT32_MAX - 1 ||
	    core_grow(&f->wait, &f->cap_wait, f->nr_wait + 1, sizeof(*f->wait)))
		return -ENOMEM;
	w = &f->wait[f->nr_wait++];
	w->cs = s->cs;
	w->next = 0;
	if (l->tail)
		f->wait[l->tail - 1].next = (uint32_t)f->nr_wait;
	else
		l->head = (uint32_t)f->nr_wait;
	l->tail = (uint32_t)f->nr_wait;
	if (s->cs.has_data_src && !f->src_seen)
		f->src_wait = *s;
	return 0;
}

/* A sample with an address, shared-only: add it, or let it wait. */
static int add_shared(struct ss_c2c *f, const struct keyed *s)
{
	const struct pebs_c2c_sample *cs = &s->cs;
	union perf_mem_data_src d = { .val = cs->data_src };
	struct pline *l = line_of(f, s);
	int err;

	if (!l)
		return -ENOMEM;
	if (l->tail != QUALIFIED &&
	    ((cs->has_data_src && ((d.mem_snoop & PERF_MEM_SNOOP_HITM) ||
				   (d.mem_snoopx & PERF_MEM_SNOOPX_PEER))) ||
	     cs->pid != l->first_pid || cs->tid != l->first_tid)) {
		err = release(f, l);
		if (err)
			return err;
	}
	if (l->tail == QUALIFIED)
		return add(f, cs, &s->key);
	err = wait_for_line(f, l, s);
	f->src_seen |= cs->has_data_src;
	return err;
}

/* The samples of the ring, in order. */
static int drain(struct ss_c2c *f)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < f->nr_ring && !err; i++)
		err = add_shared(f, &f->ring[i]);
	f->nr_ring = 0;
	return err;
}

/* At the end of the pass (PEBS_SESSION_C2C_SHARED). */
static int ss_c2c__finish(struct ss_c2c *f)
{
	/* the display follows whether any sample had a data source: one
	   waiting line with one tells the table (a whole line, as exact
	   as any other) */
	struct pline *l;
	int err = drain(f);

	if (err)
		return err;
	if (!f->src_seen || f->src_added)
		return 0;
	l = line_of(f, &f->src_wait);
	return l ? release(f, l) : -ENOMEM;
}

/*
 * Add sample @s of event @idx (record @ev) to the c2c table, keyed and
 * "mapped" with the mappings of its time.
 */
static int ss_c2c__sample(struct ss_c2c *f,
			  const struct perf_event_header *ev,
			  const struct pebs_sample *s, unsigned int idx)
{
	struct keyed *k = &f->ring[f->nr_ring];
	const struct perf_event_attr *a;

	/* a dummy event's samples are bookkeeping (record --objects') */
	if (f->no_dummy && (a = pebs_perfdata__attr(f->pd, idx, NULL, NULL)) &&
	    a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY)
		return 0;
	/* a line that no other thread shares: nothing to count */
	if (f->none_shared && (s->present & PERF_SAMPLE_ADDR) && s->addr)
		return 0;
	c2c_feed__sample(f->feed, s, idx, &k->cs);
	if (!k->cs.addr)	/* no line, and the counts never ask
				   "mapped" (perf's -1 first) */
		return add(f, &k->cs, &k->key);
	c2c_feed__key(f->feed, ev, &k->cs, &k->key);
	if (!f->shared_only)
		return add(f, &k->cs, &k->key);
	if (pack(f, &k->key, &k->pk))
		return -ENOMEM;
	/* in order, RING at a time, their lines fetched first */
	if (f->cap_lines)
		__builtin_prefetch(&f->lines[line_hash(&k->pk) &
					     (f->cap_lines - 1)]);
	f->nr_ring++;
	return f->nr_ring == RING ? drain(f) : 0;
}

/* The feed as the session's hook: a failure is out of memory. */
static int oom(void)
{
	return core_err(-ENOMEM, "session: out of memory");
}

static int hook_sample(void *arg, const struct perf_event_header *ev,
		       const struct pebs_sample *s, unsigned int idx)
{
	return ss_c2c__sample(arg, ev, s, idx) ? oom() : 0;
}

static int hook_record(void *arg, const struct perf_event_header *ev)
{
	return ss_c2c__record(arg, ev) ? oom() : 0;
}

static int hook_finish(void *arg)
{
	return ss_c2c__finish(arg) ? oom() : 0;
}

static void hook_free(void *arg)
{
	ss_c2c__free(arg);
}

static const struct ss_hook_ops c2c_hook = {
	.sz = sizeof(c2c_hook),
	.sample = hook_sample,
	.record = hook_record,
	.finish = hook_finish,
	.free = hook_free,
};

int pebs_session__set_c2c(struct pebs_session *ss, struct pebs_c2c *c,
			  unsigned int flags)
{
	struct ss_c2c *f;
	int err;

	if (!ss || (flags & ~(PEBS_SESSION_C2C_SHARED |
			    PEBS_SESSION_C2C_NO_DUMMY)))
		return core_err(-EINVAL, "session: bad c2c flags");
	err = ss_hook__set(ss, &c2c_hook, NULL);	/* the earlier feed */
	if (err || !c)
		return err;
	/* one thread and no data source: no line can be shared */
	if (ss_c2c__new(c, ss_perfdata(ss), flags, ss_one_thread(ss), &f))
		return oom();
	return ss_hook__set(ss, &c2c_hook, f);
}
