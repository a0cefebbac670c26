// SPDX-License-Identifier: MIT
/*
 * report-rename.c - kernel addresses named after the pass: a session
 * whose symbols do not wait for /proc/kallsyms (pebs_symbols__kernel_nowait)
 * adds the kernel samples that come before it is read as unnamed
 * addresses, the rows a foreign kernel's samples make. Once it is read,
 * pebs_report__name_kernel looks each such row's address up and moves
 * the row under its symbol's key, merged with the row the symbol's later
 * samples made, so that the report is the one a waiting session would
 * have made: the same rows, sums and thread counts, and the same order
 * (rows are rebuilt in the order first seen).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/report.h"
#include "report/report-rows.h"

/* The symbol row @a (atoms of @r) is to be under, or NULL: not an
   unnamed kernel address, or one no kernel symbol covers. */
static const char *kernel_name(const struct pebs_report *r, const uint64_t *a,
			       struct pebs_symbols *syms)
{
	struct pebs_sym sym;
	uint64_t ip = a[r->atom_of[RK_IP]];

	if (a[r->atom_of[RK_SYM]] || !a[r->atom_of[RK_KERNEL]] ||
	    ip < KERNEL_START)
		return NULL;
	if (pebs_symbols__resolve(syms, -1, ip, &sym))
		return NULL;
	return sym.name;
}

/* Row @s of @from added to row @d of @r, as its samples would have. */
static int merge(struct pebs_report *r, struct rsum *d,
		 const struct pebs_report *from, const struct rsum *s)
{
	const struct rext *e = s->ext ? &from->exts[s->ext - 1] : NULL;
	struct rext *de;
	unsigned int j;

	d->period += s->period;
	d->samples += s->samples;
	d->loads += s->loads;
	d->stores += s->stores;
	d->hitm += s->hitm;
	if (e && e->weight_nr) {
		de = rp_row_ext(r, d);
		if (!de)
			return -ENOMEM;
		de->weight_sum += e->weight_sum;
		de->weight_nr += e->weight_nr;
	}
	if (s->nr_tids && rp_row_add_tid(r, d, s->tid0))
		return -ENOMEM;
	for (j = 1; j < s->nr_tids && j < PEBS_REPORT_MAX_TIDS; j++)
		if (rp_row_add_tid(r, d, e->tids[j - 1]))
			return -ENOMEM;
	if (s->nr_tids > PEBS_REPORT_MAX_TIDS)
		d->nr_tids = PEBS_REPORT_MAX_TIDS + 1;
	return 0;
}

/* @r's rows into @n (empty, the same keys), renamed where named. */
static int rebuild(struct pebs_report *n, const struct pebs_report *r,
		   struct pebs_symbols *syms, bool dso_key)
{
	uint64_t a[RK_NR_FIELDS];
	const char *name;
	unsigned char *d;
	size_t i;

	for (i = 0; i < r->nr; i++) {
		const unsigned char *s = row_at(r, i);

		memcpy(a, atoms((unsigned char *)s), r->nr_atoms * sizeof(*a));
		name = kernel_name(r, a, syms);
		if (name) {	/* as the key of a named sample */
			a[r->atom_of[RK_SYM]] = (uintptr_t)name;
			a[r->atom_of[RK_IP]] = 0;
			if (!dso_key)
				a[r->atom_of[RK_DSO]] = 0;
		}
		d = rp_find_row(n, a, rp_hash(a, n->nr_cmp));
		if (!d || merge(n, (struct rsum *)d, r,
				(const struct rsum *)s))
			return -ENOMEM;
	}
	return 0;
}

int pebs_report__name_kernel(struct pebs_report *r, struct pebs_symbols *syms)
{
	struct pebs_report *n, t;
	uint64_t *es, *ep;
	bool dso_key = false;
	unsigned int k;
	size_t i;
	int err;

	if (!r || !syms)
		return core_err(-EINVAL, "report: no report or symbols");
	pebs_symbols__kernel_nowait(syms, false);
	/* no symbol key, or its rows made otherwise (derived, deferred,
	   sorted, with children or errors: its frames were named as they
	   came, the session waiting): nothing to name */
	if (r->atom_of[RK_SYM] == NO_ATOM || r->nr_all || r->defer ||
	    r->order || r->children || r->err || r->graph)
		return 0;
	for (i = 0; i < r->nr; i++)
		if (kernel_name(r, atoms(row_at(r, i)), syms))
			break;
	if (i == r->nr)
		return 0;
	for (k = 0; k < r->nr_keys; k++)
		dso_key |= r->keys[k] == PEBS_REPORT_DSO;
	err = pebs_report__new(r->keys, r->nr_keys, r->nr_events, &n);
	if (err)
		return err;
	err = rebuild(n, r, syms, dso_key);
	if (err) {
		pebs_report__delete(n);
		return core_err(err, "report: out of memory");
	}
	/* @n takes @r's totals, then the two swap: the old rows go */
	es = n->ev_samples;
	ep = n->ev_period;
	n->ev_samples = r->ev_samples;
	n->ev_period = r->ev_period;
	r->ev_samples = es;
	r->ev_period = ep;
	n->samples = r->samples;
	n->period = r->period;
	t = *r;
	*r = *n;
	*n = t;
	pebs_report__delete(n);
	return 0;
}
