// SPDX-License-Identifier: MIT
/*
 * report.c - samples grouped by a set of sort keys, as perf report's
 * histograms: per row the samples, the sum of their periods (perf's
 * Overhead is the row's share of the period), weights, and loads,
 * stores and HitM where samples carry a data source.
 *
 * The caller resolves a sample once (comm interned by pebs_threads, dso
 * and symbol strings owned by pebs_symbols) and adds it. A row keeps
 * its sums and only the key fields its report's keys use (64-bit atoms,
 * lib/report/report-keys.c), compared by value (strings by pointer: equal
 * pointers are equal names) and hashed once per sample; what few rows
 * need (weights, thread ids beyond the first) lives in a side array,
 * taken when a row first needs it. Rows live in fixed-size chunks (no
 * copy as they grow) found through an open-addressed index, the row last
 * added to tried first
 * (runs of samples of one thread or function). No allocation per sample
 * except when the tables grow. pebs_report__row() unpacks a row into a
 * pebs_report_row. A report of one address key may instead keep its
 * samples as entries and sort them (pebs_report__defer,
 * lib/report/report-defer.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/report.h"
#include "report/report-rows.h"

#define BATCH		32	/* samples whose lookups overlap */

/* Lay out the atoms: compared fields first, the shown-only ones last. */
void rp_layout(struct pebs_report *r)
{
	uint32_t used = 0, cmp, done = 0;
	unsigned int i, f;

	for (i = 0; i < r->nr_keys; i++)
		used |= rk_fields(r->keys[i]);
	r->used = used;
	cmp = used & ~(1u << RK_DATA_SYM_OFF);
	if (!r->dsym_key)
		cmp &= ~(1u << RK_DATA_SYM);
	/* with children, the mode only shown (the first row's), as perf's
	   level: a frame in no mapping has its caller's */
	if (r->children)
		cmp &= ~(1u << RK_KERNEL);
	r->nr_atoms = 0;
	memset(r->atom_of, NO_ATOM, sizeof(r->atom_of));
	for (f = 0; f < RK_NR_FIELDS; f++)
		if (cmp & 1u << f) {
			r->field_of[r->nr_atoms] = f;
			r->atom_of[f] = (uint8_t)r->nr_atoms++;
		}
	r->nr_cmp = r->nr_atoms;
	for (f = 0; f < RK_NR_FIELDS; f++)
		if ((used & ~cmp) & 1u << f) {
			r->field_of[r->nr_atoms] = f;
			r->atom_of[f] = (uint8_t)r->nr_atoms++;
		}
	r->stride = sizeof(struct rsum) + r->nr_atoms * sizeof(uint64_t) +
		    (r->children ? sizeof(struct racc) : 0) +
		    (r->graph ? sizeof(uint64_t) : 0);
	r->direct = rk_direct(r->keys, r->nr_keys, &r->direct_flags);
	/* keys of one field each, from the sample alone: atoms made
	   without a pebs_report_row between */
	r->plain = true;
	for (i = 0; i < r->nr_keys; i++) {
		uint32_t fl = rk_fields(r->keys[i]);

		if (!rk_plain(r->keys[i]) || __builtin_popcount(fl) != 1 ||
		    (fl & done)) {
			r->plain = false;
			break;
		}
		done |= fl;
		r->plain_key[r->atom_of[__builtin_ctz(fl)]] = r->keys[i];
	}
}

int pebs_report__new(const enum pebs_report_key *keys, unsigned int nr_keys,
		     unsigned int nr_events, struct pebs_report **rp)
{
	struct pebs_report *r;
	unsigned int i;

	if (!rp || !keys || !nr_keys || nr_keys > PEBS_REPORT_MAX_KEYS)
		return core_err(-EINVAL, "report: give 1 to %d keys",
				PEBS_REPORT_MAX_KEYS);
	for (i = 0; i < nr_keys; i++)
		if ((unsigned int)keys[i] >= PEBS_REPORT_NR_KEYS)
			return core_err(-EINVAL, "report: bad key %d",
					(int)keys[i]);
	r = calloc(1, sizeof(*r));
	if (!r)
		return core_err(-ENOMEM, "report: out of memory");
	r->nr_events = nr_events ? nr_events : 1;
	r->ev_samples = calloc(r->nr_events, sizeof(*r->ev_samples));
	r->ev_period = calloc(r->nr_events, sizeof(*r->ev_period));
	r->view = malloc(sizeof(*r->view));
	if (!r->ev_samples || !r->ev_period || !r->view) {
		pebs_report__delete(r);
		return core_err(-ENOMEM, "report: out of memory");
	}
	memcpy(r->keys, keys, nr_keys * sizeof(*keys));
	r->nr_keys = nr_keys;
	for (i = 0; i < nr_keys; i++) {
		r->need_addr |= keys[i] == PEBS_REPORT_PAGE ||
				keys[i] == PEBS_REPORT_LINE ||
				keys[i] == PEBS_REPORT_ADDR ||
				keys[i] == PEBS_REPORT_SYM_DADDR ||
				keys[i] == PEBS_REPORT_DSO_DADDR ||
				keys[i] == PEBS_REPORT_DCACHELINE ||
				keys[i] == PEBS_REPORT_OBJECT ||
				keys[i] == PEBS_REPORT_OBJECT_INSTANCE ||
				keys[i] == PEBS_REPORT_OBJECT_FIELD;
		r->dsym_key |= keys[i] == PEBS_REPORT_SYM_DADDR;
		r->need_src |= keys[i] == PEBS_REPORT_SRC ||
			       keys[i] == PEBS_REPORT_MEM ||
			       keys[i] == PEBS_REPORT_SNOOP ||
			       keys[i] == PEBS_REPORT_TLB;
	}
	rp_layout(r);
	*rp = r;
	return 0;
}

void pebs_report__delete(struct pebs_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_chunks; i++)
		if (i)
			big_free(r->chunks[i], CHUNK_ROWS, r->stride);
		else
			free(r->chunks[i]);
	free(r->chunks);
	rp_defer_free(r->defer);
	rp_err_free(r);
	rp_graph_free(r);
	free(r->exts);
	big_free(r->slots, r->cap, sizeof(*r->slots));
	free(r->order);
	free(r->view);
	free(r->ev_samples);
	free(r->ev_period);
	free(r);
}

uint32_t rp_hash(const uint64_t *a, unsigned int n)
{
	uint64_t h = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = (h ^ a[i]) * 0x9e3779b97f4a7c15ull;
	/* spread the bits: keys such as page addresses share low bits */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (uint32_t)(h ^ (h >> 32));
}

/* Whether the @n atoms at @x and @y are equal (n is small: no call). */
static bool same_atoms(const uint64_t *x, const uint64_t *y, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

/* The key atoms of @s for the report's keys, and their hash. */
uint32_t rp_make_key(const struct pebs_report *r,
		     const struct pebs_report_sample *s, uint64_t *a)
{
	struct pebs_report_row k;
	unsigned int i;

	if (r->plain) {
		for (i = 0; i < r->nr_atoms; i++)
			a[i] = rk_plain_atom(r->plain_key[i], s);
	} else if (r->direct) {
		for (i = 0; i < r->nr_atoms; i++)
			a[i] = rk_direct_atom(r->field_of[i], r->direct_flags,
					      s);
	} else {
		memset(&k, 0, sizeof(k));
		for (i = 0; i < r->nr_keys; i++)
			rk_make(r->keys[i], r->dsym_key, s, &k);
		for (i = 0; i < r->nr_atoms; i++)
			a[i] = rk_get(&k, r->field_of[i]);
	}
	/* the last row's key again (samples of one thread, one
	   function...): its hash is known */
	if (r->last && same_atoms(atoms((unsigned char *)r->last), a,
				  r->nr_cmp))
		return r->last_hash;
	return rp_hash(a, r->nr_cmp);
}

static int grow_index(struct pebs_report *r)
{
	size_t cap = r->cap ? r->cap * 2 : 256, i;
	struct row_slot *slots = big_calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < r->cap; i++) {
		size_t j;

		if (!r->slots[i].idx)
			continue;
		for (j = r->slots[i].hash & (cap - 1); slots[j].idx;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = r->slots[i];
	}
	big_free(r->slots, r->cap, sizeof(*r->slots));
	r->slots = slots;
	r->cap = cap;
	return 0;
}

unsigned char *rp_new_row(struct pebs_report *r, const uint64_t *a)
{
	unsigned char *row;

	if (r->nr >= UINT32_MAX - 1)
		return NULL;
	if (r->nr == r->nr_chunks * CHUNK_ROWS) {
		unsigned char **c = realloc(r->chunks, (r->nr_chunks + 1) *
					    sizeof(*c));

		if (!c)
			return NULL;
		r->chunks = c;
		/* a large table's chunks in huge pages, for lookups */
		c[r->nr_chunks] = r->nr_chunks ?
			big_calloc(CHUNK_ROWS, r->stride) :
			malloc(CHUNK_ROWS * r->stride);
		if (!c[r->nr_chunks])
			return NULL;
		r->nr_chunks++;
	}
	row = row_at(r, r->nr++);
	memset(row, 0, sizeof(struct rsum));
	memcpy(atoms(row), a, r->nr_atoms * sizeof(*a));
	if (r->children)
		memset(row_acc(r, row), 0, sizeof(struct racc));
	if (r->graph)
		*row_graph(r, row) = 0;
	return row;
}

unsigned char *rp_find_row(struct pebs_report *r, const uint64_t *a,
			   uint32_t h)
{
	size_t mask, i;
	unsigned char *row;

	if (r->last && h == r->last_hash &&
	    same_atoms(atoms((unsigned char *)r->last), a, r->nr_cmp))
		return (unsigned char *)r->last;
	/* at most 3/4 full */
	if ((r->nr + 1) * 4 > r->cap * 3 && grow_index(r))
		return NULL;
	mask = r->cap - 1;
	for (i = h & mask; r->slots[i].idx; i = (i + 1) & mask) {
		if (r->slots[i].hash != h)
			continue;
		row = row_at(r, r->slots[i].idx - 1);
		if (same_atoms(atoms(row), a, r->nr_cmp))
			goto found;
	}
	row = rp_new_row(r, a);
	if (!row)
		return NULL;
	r->slots[i].idx = (uint32_t)r->nr;
	r->slots[i].hash = h;
found:
	r->last = (struct rsum *)row;
	r->last_hash = h;
	return row;
}

struct rext *rp_row_ext(struct pebs_report *r, struct rsum *row)
{
	if (!row->ext) {
		/* row->ext, the number + 1, is a uint32_t */
		if (r->nr_exts >= UINT32_MAX - 1 ||
		    core_grow(&r->exts, &r->cap_exts, r->nr_exts + 1,
			      sizeof(*r->exts)))
			return NULL;
		memset(&r->exts[r->nr_exts], 0, sizeof(*r->exts));
		row->ext = (uint32_t)++r->nr_exts;
	}
	return &r->exts[row->ext - 1];
}

/* Thread ids: the first in the row, up to MORE_TIDS more in its rext. */
int rp_row_add_tid(struct pebs_report *r, struct rsum *row, int32_t tid)
{
	unsigned int i, kept;
	struct rext *e;

	if (!row->nr_tids) {
		row->tid0 = tid;
		row->nr_tids = 1;
		return 0;
	}
	if (row->tid0 == tid || row->nr_tids > PEBS_REPORT_MAX_TIDS)
		return 0;
	kept = row->nr_tids - 1;
	e = row->ext ? &r->exts[row->ext - 1] : NULL;
	for (i = 0; i < kept; i++)
		if (e->tids[i] == tid)
			return 0;
	if (kept == MORE_TIDS) {	/* one more than kept */
		row->nr_tids++;
		return 0;
	}
	e = rp_row_ext(r, row);
	if (!e)
		return -ENOMEM;
	e->tids[kept] = tid;
	row->nr_tids++;
	return 0;
}

void rp_add_totals(struct pebs_report *r, unsigned int event, uint64_t n,
		   uint64_t period)
{
	r->samples += n;
	r->period += period;
	if (event < r->nr_events) {
		r->ev_samples[event] += n;
		r->ev_period[event] += period;
	}
}

unsigned int rp_src_bits(const struct pebs_report_sample *s)
{
	union perf_mem_data_src src = { .val = s->data_src };

	if (!s->has_src)
		return 0;
	return (src.mem_op & PERF_MEM_OP_LOAD ? RP_LOAD : 0) |
	       (src.mem_op & PERF_MEM_OP_STORE ? RP_STORE : 0) |
	       ((src.mem_snoop & PERF_MEM_SNOOP_HITM) ||
		(src.mem_snoopx & PERF_MEM_SNOOPX_PEER) ? RP_HITM : 0);
}

int rp_add_row(struct pebs_report *r, const uint64_t *a, uint32_t h,
	       int32_t tid, uint64_t n, uint64_t period, unsigned int bits,
	       struct rsum **rowp)
{
	struct rsum *row = (struct rsum *)rp_find_row(r, a, h);

	if (!row || rp_row_add_tid(r, row, tid))
		return -ENOMEM;
	row->samples += n;
	row->period += period;
	row->loads += bits & RP_LOAD ? n : 0;
	row->stores += bits & RP_STORE ? n : 0;
	row->hitm += bits & RP_HITM ? n : 0;
	*rowp = row;
	return 0;
}

int rp_add_run(struct pebs_report *r, const struct pebs_report_sample *s,
	       const uint64_t *a, uint32_t h, const struct rp_run *u)
{
	struct rsum *row = NULL;
	struct rext *e;

	if ((r->need_addr && !s->has_addr) || (r->need_src && !s->has_src))
		return 0;
	if (!s->hidden) {
		if (rp_add_row(r, a, h, s->tid, u->n, u->period,
			       rp_src_bits(s), &row))
			return core_err(-ENOMEM, "report: out of memory");
		if (u->weight_nr) {
			e = rp_row_ext(r, row);
			if (!e)
				return core_err(-ENOMEM, "report: out of memory");
			e->weight_sum += u->weight_sum;
			e->weight_nr += u->weight_nr;
		}
	}
	rp_add_totals(r, s->event, u->n, u->period);
	return r->err ? rp_err_add(r, row, s, u->period, u->wsq) : 0;
}

/* Add @s, of key @a (hash @h) when keyed: a run of one. */
static int add_one(struct pebs_report *r, const struct pebs_report_sample *s,
		   const uint64_t *a, uint32_t h)
{
	const struct rp_run u = {
		.n = 1, .period = s->period,
		.weight_sum = s->has_weight ? s->weight : 0,
		.weight_nr = s->has_weight,
		.wsq = rp_wsq(s->period),
	};

	return rp_add_run(r, s, a, h, &u);
}

int pebs_report__add(struct pebs_report *r,
		     const struct pebs_report_sample *s)
{
	uint64_t a[RK_NR_FIELDS];
	uint32_t h;
	int err;

	if (r->children || r->graph)	/* a sample without chain */
		return pebs_report__add_chain(r, s, NULL, 0);
	if (r->defer && rp_keyed(r, s)) {
		/* an entry: its one atom, no hash */
		err = rp_defer_add(r, s, rk_plain_atom(r->keys[0], s));
		if (err <= 0)
			return err;
	}
	h = rp_keyed(r, s) ? rp_make_key(r, s, a) : 0;
	return add_one(r, s, a, h);
}

/*
 * In batches: the keys first, the index slots they hash to fetched,
 * then their rows, then the adds, so that the cache misses of a large
 * table overlap instead of following one another.
 */
int pebs_report__add_batch(struct pebs_report *r,
			   const struct pebs_report_sample *s, size_t n)
{
	uint64_t a[BATCH][RK_NR_FIELDS];
	uint32_t h[BATCH];
	size_t i, m, mask;
	int err = 0;

	for (; n && (r->defer || r->children || r->graph); n--, s++) {
		/* entries: no lookups to overlap */
		err = pebs_report__add(r, s);
		if (err)
			return err;
	}
	/* runs of alike samples at once, as long as they are long */
	m = n ? rp_add_runs(r, s, n, &err) : 0;
	if (err)
		return err;
	for (n -= m, s += m; n; n -= m, s += m) {
		m = n < BATCH ? n : BATCH;
		mask = r->cap - 1;
		for (i = 0; i < m; i++) {
			h[i] = rp_keyed(r, &s[i]) ?
			       rp_make_key(r, &s[i], a[i]) : 0;
			if (r->cap)
				__builtin_prefetch(&r->slots[h[i] & mask]);
		}
		for (i = 0; i < m && r->cap; i++) {
			const struct row_slot *sl = &r->slots[h[i] & mask];

			if (sl->idx && sl->hash == h[i])
				__builtin_prefetch(row_at(r, sl->idx - 1));
		}
		for (i = 0; i < m; i++) {
			err = add_one(r, &s[i], a[i], h[i]);
			if (err)
				return err;
		}
	}
	return 0;
}

/* A field of a packed row, for rk_cmp. */
static uint64_t packed_field(const void *row, enum rk_field f,
			     const void *arg)
{
	const struct pebs_report *r = arg;

	if (r->atom_of[f] == NO_ATOM)
		return 0;
	return atoms((unsigned char *)row)[r->atom_of[f]];
}

/* Rows (by index) by period, then samples, then their keys as perf,
   then first seen first. */
int rp_row_cmp(const void *a, const void *b, void *arg)
{
	const struct pebs_report *r = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	unsigned char *x = row_at(r, i), *y = row_at(r, j);
	const struct rsum *sx = (const struct rsum *)x;
	const struct rsum *sy = (const struct rsum *)y;
	unsigned int k;
	int c;

	if (r->children && (c = rp_acc_cmp(r, x, y)))
		return c;
	if (sx->period != sy->period)
		return sx->period < sy->period ? 1 : -1;
	if (sx->samples != sy->samples)
		return sx->samples < sy->samples ? 1 : -1;
	for (k = 0; k < r->nr_keys; k++) {
		c = rk_cmp(r->keys[k], x, y, packed_field, r);
		if (c)
			return c;
	}
	return (i > j) - (i < j);
}

/* Sift down in a heap of @n indices whose top is the last in order. */
static void sift(uint32_t *heap, size_t n, size_t i, struct pebs_report *r)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		uint32_t t;

		if (l < n && rp_row_cmp(&heap[l], &heap[m], r) > 0)
			m = l;
		if (l + 1 < n && rp_row_cmp(&heap[l + 1], &heap[m], r) > 0)
			m = l + 1;
		if (m == i)
			return;
		t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

/*
 * The first @n rows in order at the front of r->order (a heap of the n
 * best seen, the rest behind it), in O(rows log n).
 */
static void select_top(struct pebs_report *r, size_t n)
{
	uint32_t *o = r->order, t;
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift(o, n, i, r);
	for (i = n; i < r->nr; i++) {
		if (rp_row_cmp(&o[i], &o[0], r) >= 0)
			continue;
		t = o[0];
		o[0] = o[i];
		o[i] = t;
		sift(o, n, 0, r);
	}
}

void pebs_report__sort_top(struct pebs_report *r, size_t n)
{
	size_t i;

	if (r->nr_all)
		return;		/* derived: its rows are in order */
	rp_err_finish(r);
	if (r->defer && !rp_defer_rows(r, n))
		return;
	free(r->order);
	r->order = malloc((r->nr ? r->nr : 1) * sizeof(*r->order));
	if (!r->order)
		return;		/* rows stay in the order first seen */
	for (i = 0; i < r->nr; i++)
		r->order[i] = (uint32_t)i;
	if (n && n < r->nr / 4) {
		select_top(r, n);
		qsort_r(r->order, n, sizeof(*r->order), rp_row_cmp, r);
	} else {
		/* sort indices, not the rows */
		qsort_r(r->order, r->nr, sizeof(*r->order), rp_row_cmp, r);
	}
	/* no more __add */
	big_free(r->slots, r->cap, sizeof(*r->slots));
	r->slots = NULL;
	r->cap = 0;
}

void pebs_report__sort(struct pebs_report *r)
{
	pebs_report__sort_top(r, SIZE_MAX);
}

size_t pebs_report__nr_rows(const struct pebs_report *r)
{
	return r->nr_all > r->nr ? r->nr_all : r->nr;
}

const struct pebs_report_row *pebs_report__row(const struct pebs_report *r,
					       size_t i)
{
	struct pebs_report_row *v = r->view;
	const struct rext *e;
	const struct rsum *s;
	const uint64_t *a;
	unsigned int k;

	if (i >= r->nr)
		return NULL;
	s = (const struct rsum *)row_at(r, r->order ? r->order[i] : i);
	a = atoms((unsigned char *)s);
	memset(v, 0, sizeof(*v));
	for (k = 0; k < r->nr_atoms; k++)
		rk_set(v, r->field_of[k], a[k]);
	v->samples = s->samples;
	v->period = s->period;
	e = s->ext ? &r->exts[s->ext - 1] : NULL;
	if (e) {
		v->weight_sum = e->weight_sum;
		v->weight_nr = e->weight_nr;
	}
	v->loads = s->loads;
	v->stores = s->stores;
	v->hitm = s->hitm;
	v->nr_tids = s->nr_tids;
	if (r->children) {
		v->children_samples = row_acc(r, (const unsigned char *)s)->samples;
		v->children_period = row_acc(r, (const unsigned char *)s)->period;
	}
	if (s->nr_tids)
		v->tids[0] = s->tid0;
	for (k = 1; k < s->nr_tids && k < PEBS_REPORT_MAX_TIDS; k++)
		v->tids[k] = e->tids[k - 1];
	return v;
}

void pebs_report__totals(const struct pebs_report *r, int event,
			 uint64_t *samples, uint64_t *period)
{
	bool one = event >= 0 && (unsigned int)event < r->nr_events;

	if (samples)
		*samples = one ? r->ev_samples[event] : r->samples;
	if (period)
		*period = one ? r->ev_period[event] : r->period;
}

double pebs_report__overhead(const struct pebs_report *r,
			     const struct pebs_report_row *row, bool per_event)
{
	uint64_t samples, period;

	pebs_report__totals(r, per_event ? (int)row->event : -1, &samples,
			    &period);
	if (period)
		return 100.0 * (double)row->period / (double)period;
	return samples ? 100.0 * (double)row->samples / (double)samples : 0;
}

unsigned int pebs_report__keys(const struct pebs_report *r,
			       const enum pebs_report_key **keys)
{
	*keys = r->keys;
	return r->nr_keys;
}

unsigned int pebs_report__needs(const struct pebs_report *r)
{
	unsigned int i, needs = 0;
	enum pebs_report_key k;

	for (i = 0; r && i < r->nr_keys; i++) {
		k = r->keys[i];
		if (k == PEBS_REPORT_OBJECT ||
		    k == PEBS_REPORT_OBJECT_INSTANCE ||
		    k == PEBS_REPORT_OBJECT_FIELD)
			needs |= PEBS_REPORT_NEEDS_OBJECTS |
				 PEBS_REPORT_NEEDS_DATA;
		if (k == PEBS_REPORT_SYM_DADDR || k == PEBS_REPORT_DSO_DADDR ||
		    k == PEBS_REPORT_DCACHELINE)
			needs |= PEBS_REPORT_NEEDS_DATA;
		if (k == PEBS_REPORT_SRCLINE || k == PEBS_REPORT_SRCFILE)
			needs |= PEBS_REPORT_NEEDS_SRCLINES;
	}
	return needs;
}
