// SPDX-License-Identifier: MIT
/*
 * report-derive.c - a report of data pages made from a report of cache
 * lines, without a second table built sample by sample: a line lies in
 * one page, so a page's sums are the sums of its lines, and its thread
 * ids the union of theirs. The lines are put in page order (a radix
 * sort of row indices: linear time), each run of lines of one page is
 * summed, and only the best rows are kept (a buffer of twice as many,
 * cut back by sorting whenever it fills). The report counts every page
 * (pebs_report__nr_rows) and keeps the first n in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/report.h"
#include "report/report-rows.h"

#define PAGE_SHIFT	12

/* Keys whose rows stand for one value each, besides the line. */
static bool value_key(enum pebs_report_key k)
{
	return k == PEBS_REPORT_PID || k == PEBS_REPORT_TID ||
	       k == PEBS_REPORT_THREAD ||
	       k == PEBS_REPORT_CPU || k == PEBS_REPORT_EVENT;
}

static int check(const struct pebs_report *r, const struct pebs_report *from)
{
	unsigned int i, lines = 0;

	if (r->nr || r->nr_all || r->samples || r->nr_keys != from->nr_keys ||
	    r->nr_events != from->nr_events)
		return -EINVAL;
	for (i = 0; i < r->nr_keys; i++) {
		if (from->keys[i] == PEBS_REPORT_LINE &&
		    r->keys[i] == PEBS_REPORT_PAGE)
			lines++;
		else if (from->keys[i] != r->keys[i] ||
			 !value_key(r->keys[i]))
			return -EINVAL;
	}
	return lines == 1 ? 0 : -EINVAL;
}

/* Atom @k of row @i of @from as sorted: an address by its page. */
static uint64_t sort_key(const struct pebs_report *from, unsigned int k,
			 uint32_t i)
{
	uint64_t v = atoms(row_at(from, i))[k];

	return from->field_of[k] == RK_ADDR ? v >> PAGE_SHIFT : v;
}

void rp_acc_tid(struct rp_acc *p, int32_t tid)
{
	unsigned int i;

	if (p->s.nr_tids > PEBS_REPORT_MAX_TIDS)
		return;
	for (i = 0; i < p->s.nr_tids; i++)
		if (p->tids[i] == tid)
			return;
	if (p->s.nr_tids < PEBS_REPORT_MAX_TIDS)
		p->tids[i] = tid;
	p->s.nr_tids++;
}

/* Line @row of @from into page @p. */
static void acc_add(const struct pebs_report *from, struct rp_acc *p,
		    const struct rsum *row)
{
	const struct rext *e = row->ext ? &from->exts[row->ext - 1] : NULL;
	unsigned int i;

	p->s.period += row->period;
	p->s.samples += row->samples;
	p->s.loads += row->loads;
	p->s.stores += row->stores;
	p->s.hitm += row->hitm;
	if (e) {
		p->weight_sum += e->weight_sum;
		p->weight_nr += e->weight_nr;
	}
	if (row->nr_tids > PEBS_REPORT_MAX_TIDS) {
		p->s.nr_tids = PEBS_REPORT_MAX_TIDS + 1;
		return;
	}
	if (row->nr_tids)
		rp_acc_tid(p, row->tid0);
	for (i = 1; i < row->nr_tids; i++)
		rp_acc_tid(p, e->tids[i - 1]);
}

void rp_keep_init(struct rp_keep *k, size_t n)
{
	memset(k, 0, sizeof(*k));
	k->n = n;
	k->max = n <= SIZE_MAX / 2 ? 2 * n : SIZE_MAX;
}

/* Whether @p surely comes after the bar (as rp_row_cmp: by period,
   samples, then the one address key): not kept, no row written. */
static bool below_bar(const struct pebs_report *r, const struct rp_keep *k,
		      const struct rp_acc *p)
{
	enum pebs_report_key key = r->keys[0];
	const struct rsum *b;

	if (!k->cut)
		return false;
	b = (const struct rsum *)row_at(r, k->bar);
	if (p->s.period != b->period)
		return p->s.period < b->period;
	if (p->s.samples != b->samples)
		return p->s.samples < b->samples;
	return r->nr_keys == 1 && (key == PEBS_REPORT_PAGE ||
				   key == PEBS_REPORT_LINE ||
				   key == PEBS_REPORT_ADDR) &&
	       p->a[0] > atoms((unsigned char *)b)[0];
}

int rp_keep_row(struct pebs_report *r, struct rp_keep *k,
		const struct rp_acc *p)
{
	struct rsum *row;
	struct rext *e;
	uint32_t ext;

	r->nr_all++;
	if (!k->n || below_bar(r, k, p))
		return 0;
	if (k->m == r->nr) {		/* no free row: a new one */
		if (core_grow(&r->order, &k->cap, r->nr + 1,
			      sizeof(*r->order)))
			return -ENOMEM;
		if (!rp_new_row(r, p->a))
			return -ENOMEM;
		r->order[k->m] = (uint32_t)(r->nr - 1);
	}
	row = (struct rsum *)row_at(r, r->order[k->m]);
	memcpy(atoms((unsigned char *)row), p->a, r->nr_atoms * sizeof(*p->a));
	ext = row->ext;
	*row = p->s;
	row->ext = ext;
	row->tid0 = p->tids[0];
	if (p->weight_nr || p->s.nr_tids > 1) {
		e = rp_row_ext(r, row);
		if (!e)
			return -ENOMEM;
		e->weight_sum = p->weight_sum;
		e->weight_nr = p->weight_nr;
		memcpy(e->tids, p->tids + 1, sizeof(e->tids));
	} else if (row->ext) {
		memset(&r->exts[row->ext - 1], 0, sizeof(*r->exts));
	}
	/* no better than the n-th best so far: its row stays free */
	if (k->cut && rp_row_cmp(&r->order[k->m], &k->bar, r) > 0)
		return 0;
	if (++k->m == k->max) {		/* the best n stay */
		qsort_r(r->order, k->m, sizeof(*r->order), rp_row_cmp, r);
		k->m = k->n;
		k->cut = true;
		k->bar = r->order[k->n - 1];
	}
	return 0;
}

/* The runs of one page in @e (@n lines of @from: their rows) into @r. */
static int sum_pages(struct pebs_report *r, const struct pebs_report *from,
		     const struct rp_kv *e, size_t n, struct rp_keep *k)
{
	size_t i, len = from->nr_cmp * sizeof(uint64_t);
	struct rp_acc p;
	unsigned int j;
	uint64_t a[RK_NR_FIELDS];
	int err;

	memset(&p, 0, sizeof(p));
	for (i = 0; i < n; i++) {
		const unsigned char *row = row_at(from, e[i].val);

		memcpy(a, atoms((unsigned char *)row), len);
		for (j = 0; j < from->nr_cmp; j++)
			if (from->field_of[j] == RK_ADDR)
				a[j] &= ~(uint64_t)(PAGE_4K - 1);
		if (i && memcmp(a, p.a, len)) {
			err = rp_keep_row(r, k, &p);
			if (err)
				return err;
			memset(&p, 0, sizeof(p));
		}
		memcpy(p.a, a, len);
		acc_add(from, &p, (const struct rsum *)row);
	}
	return n ? rp_keep_row(r, k, &p) : 0;
}

void rp_keep_end(struct pebs_report *r, struct rp_keep *k)
{
	if (k->m)
		qsort_r(r->order, k->m, sizeof(*r->order), rp_row_cmp, r);
	r->nr = k->m < k->n ? k->m : k->n;
}

/* The pages of @from's rows (put in page order) into @r through @k. */
static int pages_of_rows(struct pebs_report *r, const struct pebs_report *from,
			 struct rp_keep *k)
{
	struct rp_kv *e, *tmp, *t;
	uint32_t (*hist)[RP_RADIX_BUCKETS];
	size_t i, n = from->nr;
	unsigned int a;
	int err = -ENOMEM;

	e = malloc((n ? n : 1) * sizeof(*e));
	tmp = malloc((n ? n : 1) * sizeof(*tmp));
	hist = malloc(RP_RADIX_DIGITS * sizeof(*hist));
	if (e && tmp && hist) {
		for (i = 0; i < n; i++)
			e[i].val = (uint32_t)i;
		/* by each atom, stably, the first last: runs of one page
		   follow one another */
		for (a = from->nr_cmp; a-- > 0;) {
			for (i = 0; i < n; i++)
				e[i].key = sort_key(from, a, e[i].val);
			t = rp_radix(e, tmp, n, hist);
			if (t != e) {
				tmp = e;
				e = t;
			}
		}
		err = sum_pages(r, from, e, n, k);
	}
	free(e);
	free(tmp);
	free(hist);
	return err;
}

int pebs_report__derive_top(struct pebs_report *r,
			    const struct pebs_report *from, size_t n)
{
	struct rp_keep k;
	int err;

	if (!r || !from || check(r, from))
		return core_err(-EINVAL, "report: derive pages from a new "
				"report of lines with the same other keys "
				"(pid, tgid, tid, cpu, event)");
	rp_keep_init(&k, n);
	err = from->defer ? rp_defer_pages(r, from, &k) :
	      pages_of_rows(r, from, &k);
	if (err == -EINVAL)
		return core_err(err, "report: sort the deferred report of "
				"lines (pebs_report__sort_top) first");
	if (err)
		return core_err(err, "report: out of memory");
	rp_keep_end(r, &k);
	r->samples = from->samples;
	r->period = from->period;
	memcpy(r->ev_samples, from->ev_samples,
	       r->nr_events * sizeof(*r->ev_samples));
	memcpy(r->ev_period, from->ev_period,
	       r->nr_events * sizeof(*r->ev_period));
	return 0;
}
