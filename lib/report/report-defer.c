// SPDX-License-Identifier: MIT
/*
 * report-defer.c - a report of one address key (page, line or address)
 * built by sorting instead of hashing (pebs_report__defer): each sample
 * becomes a 12-byte entry (its key, and its thread, period and data
 * source interned as a "combo": a recording has few of them), appended
 * in arrival order. Sorting (pebs_report__sort_top) puts the entries
 * in key order with a stable radix sort, so that the samples of a row
 * follow one another in arrival order; each run is summed into a row
 * as __add would have (the same sums, thread ids in the same order),
 * and only the best n rows are kept. Derived pages (lib/report/report-derive.c)
 * are runs of the same sorted entries. A table of a million distinct
 * lines so costs sequential passes over 12 MB instead of a million
 * random lookups into 64 MB of rows and index.
 *
 * A sample that cannot be an entry (a weight, or too many combos) puts
 * the entries so far into rows, in arrival order, and the report goes
 * on as an ordinary one: the result is the same either way. So do
 * entries that turn out to be few rows (a check at CHECK_AT entries):
 * their rows cost less than the entries to come. Rows made from sorted
 * entries are made in key order, not first-seen order, but have the
 * same sums and thread ids in the same order, and no two rows of one
 * address key tie, so the order printed is the same.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/report.h"
#include "report/report-rows.h"

#define COMBO_SLOT_BITS	17
#define COMBO_SLOTS	(1u << COMBO_SLOT_BITS)
#define MAX_COMBOS	(COMBO_SLOTS / 2)
#define CHECK_AT	(1u << 20)	/* entries: 12 MiB */

/* A sample: struct rp_kv, its key and its combo (val). */

/* What else a row takes from a sample. */
struct combo {
	uint64_t period;
	int32_t tid;
	uint32_t bits;		/* RP_LOAD, RP_STORE, RP_HITM */
};

struct rp_defer {
	struct rp_kv *e;
	size_t nr, cap;
	struct combo *c;
	uint32_t nr_c;
	size_t cap_c;
	uint32_t *slots;	/* combo + 1 by hash; 0: empty */
	uint32_t last;		/* the last combo found */
	bool sorted;
	bool checked;		/* the CHECK_AT check done */
};

int pebs_report__defer(struct pebs_report *r)
{
	enum pebs_report_key k;

	/* rows with errors or graphs are kept as rows (report-error.c,
	   report-graph.c) */
	if (!r || r->defer || r->err || r->graph)
		return r ? 0 : core_err(-EINVAL, "report: none");
	k = r->keys[0];
	if (r->nr || r->samples || r->nr_keys != 1 ||
	    (k != PEBS_REPORT_PAGE && k != PEBS_REPORT_LINE &&
	     k != PEBS_REPORT_ADDR))
		return core_err(-EINVAL, "report: only a new report of one "
				"key page, line or addr can be deferred");
	r->defer = calloc(1, sizeof(*r->defer));
	if (r->defer)
		r->defer->slots = calloc(COMBO_SLOTS, sizeof(uint32_t));
	if (!r->defer || !r->defer->slots) {
		rp_defer_free(r->defer);
		r->defer = NULL;
		return core_err(-ENOMEM, "report: out of memory");
	}
	return 0;
}

void rp_defer_free(struct rp_defer *d)
{
	if (!d)
		return;
	free(d->e);
	free(d->c);
	free(d->slots);
	free(d);
}

/* The entries into rows, in arrival order; the report is no longer
   deferred. */
static int undefer(struct pebs_report *r)
{
	struct rp_defer *d = r->defer;
	struct rsum *row;
	size_t i;
	int err = 0;

	r->defer = NULL;
	for (i = 0; i < d->nr && !err; i++) {
		const struct combo *c = &d->c[d->e[i].val];
		uint64_t a = d->e[i].key;

		err = rp_add_row(r, &a, rp_hash(&a, 1), c->tid, 1, c->period,
				 c->bits, &row);
	}
	rp_defer_free(d);
	return err ? core_err(err, "report: out of memory") : 0;
}

/* The combo of @tid, @period, @bits; UINT32_MAX when there are too
   many or no memory. */
static uint32_t combo_of(struct rp_defer *d, int32_t tid, uint64_t period,
			 unsigned int bits)
{
	const struct combo *c = d->nr_c ? &d->c[d->last] : NULL;
	uint64_t h;
	uint32_t i;

	if (c && c->tid == tid && c->period == period && c->bits == bits)
		return d->last;
	h = ((uint64_t)(uint32_t)tid << 32 ^ period ^ (uint64_t)bits << 61) *
	    0x9e3779b97f4a7c15ull;
	for (i = (uint32_t)(h >> (64 - COMBO_SLOT_BITS)); d->slots[i];
	     i = (i + 1) & (COMBO_SLOTS - 1)) {
		c = &d->c[d->slots[i] - 1];
		if (c->tid == tid && c->period == period && c->bits == bits)
			return d->last = d->slots[i] - 1;
	}
	if (d->nr_c == MAX_COMBOS)
		return UINT32_MAX;
	if (core_grow(&d->c, &d->cap_c, (size_t)d->nr_c + 1, sizeof(*d->c)))
		return UINT32_MAX;
	d->c[d->nr_c] = (struct combo){ .period = period, .tid = tid,
					.bits = bits };
	d->slots[i] = ++d->nr_c;
	return d->last = d->nr_c - 1;
}

static int sort_entries(struct rp_defer *d);

/* Whether the entries (sorted: CHECK_AT of them) are of few keys. */
static bool few_keys(const struct rp_defer *d)
{
	size_t i, n = 1;

	for (i = 1; i < d->nr; i++)
		n += d->e[i].key != d->e[i - 1].key;
	return n < d->nr / 8;
}

int rp_defer_add(struct pebs_report *r, const struct pebs_report_sample *s,
		 uint64_t key)
{
	struct rp_defer *d = r->defer;
	uint32_t c;

	if (d->sorted)
		return core_err(-EINVAL, "report: no samples after sorting");
	if (s->has_weight)
		return undefer(r) ?: 1;
	c = combo_of(d, s->tid, s->period, rp_src_bits(s));
	if (c == UINT32_MAX)
		return undefer(r) ?: 1;
	if (d->nr == CHECK_AT && !d->checked) {
		d->checked = true;
		if (sort_entries(d) || few_keys(d))
			return undefer(r) ?: 1;
		d->sorted = false;	/* more to come */
	}
	if (core_grow(&d->e, &d->cap, d->nr + 1, sizeof(*d->e)))
		return undefer(r) ?: 1;
	d->e[d->nr].key = key;
	d->e[d->nr++].val = c;
	rp_add_totals(r, s->event, 1, s->period);
	return 0;
}

/*
 * The run: the entries whose key is at most every later one's, in
 * ascending order. How many are out of it (few after a sweep through
 * memory, whatever was touched before).
 */
static size_t out_of_run(const struct rp_kv *e, size_t n)
{
	uint64_t min = UINT64_MAX;
	size_t i, m = 0;

	for (i = n; i--; ) {
		if (e[i].key <= min)
			min = e[i].key;
		else
			m++;
	}
	return m;
}

/*
 * The entries of @d sorted with @m of them out of the run: the run
 * moves to the end of d->e, the others to @tmp (2m + 1 entries), where
 * they are sorted, and both are merged from the start. An entry of the
 * run is at most every later key, so none of the run with an out
 * entry's key came before it: on a tie the out entry goes first, and
 * the sort stays stable.
 */
static void sort_run(struct rp_defer *d, struct rp_kv *tmp, size_t m,
		     uint32_t (*hist)[RP_RADIX_BUCKETS])
{
	struct rp_kv *e = d->e, *o;
	uint64_t min = UINT64_MAX;
	size_t i, a = d->nr, j = m, w;

	for (i = d->nr; i--; ) {
		if (e[i].key <= min) {
			min = e[i].key;
			e[--a] = e[i];
		} else {
			tmp[--j] = e[i];
		}
	}
	o = rp_radix(tmp, tmp + m, m, hist);
	for (w = 0; j < m; w++) {
		if (a == d->nr || o[j].key <= e[a].key)
			e[w] = o[j++];
		else
			e[w] = e[a++];
	}
}

/* The entries by key, stably (a radix sort, or a merge of the few out
   of an ascending run). */
static int sort_entries(struct rp_defer *d)
{
	uint32_t (*hist)[RP_RADIX_BUCKETS];
	struct rp_kv *tmp, *e;
	size_t m;

	if (d->sorted || d->nr < 2) {
		d->sorted = true;
		return 0;
	}
	m = out_of_run(d->e, d->nr);
	hist = malloc(RP_RADIX_DIGITS * sizeof(*hist));
	tmp = malloc((m < d->nr / 8 ? 2 * m + 1 : d->nr) * sizeof(*tmp));
	if (!hist || !tmp) {
		free(hist);
		free(tmp);
		return -ENOMEM;
	}
	if (m < d->nr / 8) {
		sort_run(d, tmp, m, hist);
	} else {
		e = rp_radix(d->e, tmp, d->nr, hist);
		if (e != d->e) {
			tmp = d->e;
			d->e = e;
		}
	}
	free(tmp);
	free(hist);
	d->sorted = true;
	return 0;
}

/* Sample @c into @p, as __add counts it into a row. */
static void acc_combo(struct rp_acc *p, const struct combo *c)
{
	p->s.samples++;
	p->s.period += c->period;
	p->s.loads += !!(c->bits & RP_LOAD);
	p->s.stores += !!(c->bits & RP_STORE);
	p->s.hitm += !!(c->bits & RP_HITM);
	rp_acc_tid(p, c->tid);
}

/* The runs of entries of one key under @mask into @r through @k. */
static int sum_runs(struct pebs_report *r, const struct rp_defer *d,
		    uint64_t mask, struct rp_keep *k)
{
	struct rp_acc p;
	size_t i;
	int err;

	memset(&p, 0, sizeof(p));
	for (i = 0; i < d->nr; i++) {
		uint64_t key = d->e[i].key & mask;

		if (i && key != p.a[0]) {
			err = rp_keep_row(r, k, &p);
			if (err)
				return err;
			/* the rest is unused (a[0] is set below) */
			memset(&p.s, 0, sizeof(p.s));
			memset(p.tids, 0, sizeof(p.tids));
		}
		p.a[0] = key;
		acc_combo(&p, &d->c[d->e[i].val]);
	}
	return d->nr ? rp_keep_row(r, k, &p) : 0;
}

int rp_defer_rows(struct pebs_report *r, size_t n)
{
	struct rp_keep k;
	int err;

	if (sort_entries(r->defer)) {
		err = undefer(r);
		return err ? err : -ENOMEM;
	}
	rp_keep_init(&k, n);
	err = sum_runs(r, r->defer, ~0ull, &k);
	if (err)
		return core_err(err, "report: out of memory");
	rp_keep_end(r, &k);
	return 0;
}

int rp_defer_pages(struct pebs_report *r, const struct pebs_report *from,
		   struct rp_keep *k)
{
	if (!from->defer->sorted)
		return -EINVAL;
	return sum_runs(r, from->defer, ~(uint64_t)(PAGE_4K - 1), k);
}
