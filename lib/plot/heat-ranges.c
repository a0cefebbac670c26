// SPDX-License-Identifier: MIT
/*
 * heat-ranges.c - a heat map's granules (pages) binned into address
 * ranges, as DAMON's regions divide an address space: the rows a
 * researcher reads (a mapping, an array, an allocation) rather than
 * thousands of single pages.
 *
 * Each mapping that has samples (mappings that overlap as one: the
 * kernel reports an anonymous mapping merged with its neighbour as one
 * MMAP2 record) starts as one range, trimmed to its
 * first and last granule with samples (addresses in no mapping are
 * grouped by 2 MiB). While rows are left, the range with the best cut
 * is split there: the cut between two granules that most reduces the
 * squared error of the access density (value per granule, untouched
 * granules 0) fitted as one constant per side, taken only where the
 * density differs: one side at least twice as dense as the other, the
 * untouched space between them halving it, or the cut removing a
 * quarter of the error (and 2 % of the whole); else where the granules of one thread meet
 * those of another (each granule's samples from one thread: arrays
 * that the kernel merged into one mapping, each first touched by its
 * own thread). Then adjacent ranges of
 * one mapping whose densities are within a factor of two (and whose
 * gap does not halve them) and whose samples come from the same thread
 * (or both from several) are merged. Ranges under 1 % of the total
 * are not split. With data objects named (record --objects), a range
 * holding granules of several objects (or of one and unnamed ones) is
 * cut where they meet before any other cut, whatever its share, and
 * ranges of different objects are not merged: each object its rows.
 * The result does not depend on hashing or memory order: the same
 * samples give the same rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plot/heat.h"

#define UNMAPPED_SHIFT	21	/* addresses in no mapping: by 2 MiB */

struct region {
	size_t first, n;	/* units, in the sorted array */
	uint64_t total;
	size_t cut;		/* best cut: units before it go left */
	double gain;		/* its error reduction; < 0: none */
};

struct bin {
	struct heat_unit **u;
	unsigned int shift;
	uint64_t all;
	const struct heat_map *maps;
	uint32_t *gid;		/* per mapping: its cluster's first + 1 */
};

/* The group a unit belongs to: its mappings, else its 2 MiB. */
static uint64_t group(const struct bin *b, const struct heat_unit *u)
{
	if (u->map)
		return b->gid[u->map - 1];
	return (u->block >> (b->shift < UNMAPPED_SHIFT ?
			     UNMAPPED_SHIFT - b->shift : 0)) | 1ULL << 63;
}

static struct bin *sort_bin;

static int cmp_maps(const void *pa, const void *pb)
{
	const struct heat_map *a = &sort_bin->maps[*(const uint32_t *)pa];
	const struct heat_map *b = &sort_bin->maps[*(const uint32_t *)pb];

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return *(const uint32_t *)pa < *(const uint32_t *)pb ? -1 : 1;
}

/* Overlapping mappings of a process as one group: b->gid. */
static int cluster(struct bin *b, size_t nr_maps)
{
	uint32_t *idx, i, first = 0;
	uint64_t end = 0;

	b->gid = calloc(nr_maps + 1, sizeof(*b->gid));
	idx = calloc(nr_maps + 1, sizeof(*idx));
	if (!b->gid || !idx) {
		free(idx);
		return -ENOMEM;
	}
	for (i = 0; i < nr_maps; i++)
		idx[i] = i;
	sort_bin = b;
	qsort(idx, nr_maps, sizeof(*idx), cmp_maps);
	for (i = 0; i < nr_maps; i++) {
		const struct heat_map *m = &b->maps[idx[i]];

		if (!i || m->pid != b->maps[idx[first]].pid || m->start >= end) {
			first = i;
			end = m->end;
		} else if (m->end > end) {
			end = m->end;
		}
		b->gid[idx[i]] = idx[first] + 1;
	}
	free(idx);
	return 0;
}

static int cmp_units(const void *pa, const void *pb)
{
	const struct heat_unit *a = *(const struct heat_unit *const *)pa;
	const struct heat_unit *b = *(const struct heat_unit *const *)pb;
	uint64_t ga, gb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	ga = group(sort_bin, a);
	gb = group(sort_bin, b);
	if (ga != gb)
		return ga < gb ? -1 : 1;
	return a->block < b->block ? -1 : a->block > b->block;
}

static bool same_group(const struct bin *b, size_t i, size_t j)
{
	return b->u[i]->pid == b->u[j]->pid &&
	       group(b, b->u[i]) == group(b, b->u[j]);
}

/* Granules spanned by units [first, first + n). */
static double span(const struct bin *b, size_t first, size_t n)
{
	return (double)(b->u[first + n - 1]->block - b->u[first]->block + 1);
}

/* Densities @l and @r differ (by 2x), or @whole is half the lesser. */
static bool differ(double l, double r, double whole)
{
	double lo = l < r ? l : r, hi = l < r ? r : l;

	return hi >= 2 * lo || 2 * whole <= lo;
}

/*
 * The region's best cut, or gain -1 when it should stay whole: the cut
 * of most error reduction, taken when its sides' densities differ or it
 * removes a quarter of the error (a cold middle between two hot ends:
 * the first cut leaves one side mixed, the next separates it) and is
 * not negligible (2 % of the region's v^2/span: a few pages the
 * recording lost in an even array are no reason to cut it).
 */
/* the named object of a unit, NULL for an unnamed one */
static const char *named(const struct heat_unit *u)
{
	return u->named ? u->object : NULL;
}

/*
 * Where named objects meet (each other or unnamed granules): the cut of
 * most error reduction among those, with a gain above any density
 * cut's (at most the heat's total squared). False when the region is
 * one object's or has none.
 */
static bool object_cut(const struct bin *b, struct region *r, double base)
{
	double v = (double)r->total, vl = 0, top = (double)b->all *
						    (double)b->all + 1;
	bool found = false;
	size_t k;

	for (k = 1; k < r->n; k++) {
		const struct heat_unit *a = b->u[r->first + k - 1];
		const struct heat_unit *c = b->u[r->first + k];
		double g;

		vl += (double)a->total;
		if (named(a) == named(c))
			continue;
		g = vl * vl / span(b, r->first, k) +
		    (v - vl) * (v - vl) / span(b, r->first + k, r->n - k) -
		    base;
		g = top + (g > 0 ? g : 0);
		if (!found || g > r->gain) {
			r->gain = g;
			r->cut = k;
			found = true;
		}
	}
	return found;
}

static void best_cut(const struct bin *b, struct region *r)
{
	double v = (double)r->total, all = span(b, r->first, r->n);
	double base = v * v / all, vl = 0, sq = 0, best = 0, sse;
	size_t k, cut = 0;

	r->gain = -1;
	if (r->n < 2 || object_cut(b, r, base) || r->total * 100 < b->all)
		return;
	for (k = 0; k < r->n; k++)
		sq += (double)b->u[r->first + k]->total *
		      (double)b->u[r->first + k]->total;
	sse = sq - base;
	for (k = 1; k < r->n; k++) {
		double sl, sr, vr, g;

		vl += (double)b->u[r->first + k - 1]->total;
		vr = v - vl;
		sl = span(b, r->first, k);
		sr = span(b, r->first + k, r->n - k);
		g = vl * vl / sl + vr * vr / sr - base;
		if (g > best) {
			best = g;
			cut = k;
		}
	}
	if (!cut)
		goto owners;
	vl = 0;
	for (k = 0; k < cut; k++)
		vl += (double)b->u[r->first + k]->total;
	if (differ(vl / span(b, r->first, cut),
		   (v - vl) / span(b, r->first + cut, r->n - cut), v / all) ||
	    (best * 4 >= sse && best * 50 >= base)) {
		r->gain = best;
		r->cut = cut;
		return;
	}
owners:
	/* no cut by density: where one thread's granules meet another's */
	vl = 0;
	for (k = 1; k < r->n; k++) {
		const struct heat_unit *a = b->u[r->first + k - 1];
		const struct heat_unit *c = b->u[r->first + k];
		double g;

		vl += (double)a->total;
		if (!a->owner || !c->owner || a->owner == c->owner)
			continue;
		g = vl * vl / span(b, r->first, k) +
		    (v - vl) * (v - vl) / span(b, r->first + k, r->n - k) -
		    base;
		if (g < 0)
			g = 0;
		if (g >= r->gain) {
			r->gain = g;
			r->cut = k;
		}
	}
}

/* The one thread of units [first, first + n), or 0. */
static uint32_t owner(const struct bin *b, size_t first, size_t n)
{
	uint32_t o = b->u[first]->owner;
	size_t k;

	for (k = 1; o && k < n; k++)
		if (b->u[first + k]->owner != o)
			return 0;
	return o;
}

/* The one named object of units [first, first + n), or NULL. */
static const char *region_object(const struct bin *b, size_t first, size_t n)
{
	const char *o = named(b->u[first]);
	size_t k;

	for (k = 1; o && k < n; k++)
		if (named(b->u[first + k]) != o)
			return NULL;
	return o;
}

/* Adjacent @a and @b (of one group) are alike: merge them. */
static bool alike(const struct bin *b, const struct region *a,
		  const struct region *c)
{
	double da = (double)a->total / span(b, a->first, a->n);
	double dc = (double)c->total / span(b, c->first, c->n);
	double dm = (double)(a->total + c->total) /
		    span(b, a->first, a->n + c->n);

	return !differ(da, dc, dm);
}

static void split(const struct bin *b, struct region *rs, size_t *nr,
		  size_t i)
{
	struct region *r = &rs[i], *l;
	size_t k;

	memmove(r + 1, r, (*nr - i) * sizeof(*r));
	(*nr)++;
	l = r++;
	l->n = l->cut;
	r->first = l->first + l->n;
	r->n -= l->n;
	l->total = 0;
	for (k = 0; k < l->n; k++)
		l->total += b->u[l->first + k]->total;
	r->total -= l->total;
	best_cut(b, l);
	best_cut(b, r);
}

static void merge(const struct bin *b, struct region *rs, size_t *nr)
{
	size_t i = 0;

	while (i + 1 < *nr) {
		struct region *a = &rs[i], *c = &rs[i + 1];

		if (!same_group(b, a->first, c->first) || !alike(b, a, c) ||
		    owner(b, a->first, a->n) != owner(b, c->first, c->n) ||
		    region_object(b, a->first, a->n) !=
		    region_object(b, c->first, c->n)) {
			i++;
			continue;
		}
		a->n += c->n;
		a->total += c->total;
		memmove(c, c + 1, (*nr - i - 2) * sizeof(*c));
		(*nr)--;
		best_cut(b, a);
	}
}

static int cmp_hot(const void *pa, const void *pb)
{
	const struct heat_range *a = pa, *b = pb;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static int cmp_addr(const void *pa, const void *pb)
{
	const struct heat_range *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

int heat_bin(struct heat_unit **units, size_t nr, unsigned int shift,
	     const struct heat_map *maps, size_t nr_maps,
	     unsigned int max_rows, uint64_t all, struct heat_range **out,
	     size_t *nr_out)
{
	struct bin b = { units, shift, all, maps, NULL };
	struct region *rs;
	struct heat_range *hr;
	size_t nrs = 0, i, k;

	*out = NULL;
	*nr_out = 0;
	if (!nr)
		return 0;
	if (cluster(&b, nr_maps))
		return -ENOMEM;
	sort_bin = &b;
	qsort(units, nr, sizeof(*units), cmp_units);
	/* one region per group, then room for the splits */
	for (i = 0; i < nr; i++)
		if (!i || !same_group(&b, i - 1, i))
			nrs++;
	rs = calloc(nrs + max_rows + 1, sizeof(*rs));
	if (!rs) {
		free(b.gid);
		return -ENOMEM;
	}
	nrs = 0;
	for (i = 0; i < nr; i++) {
		if (!i || !same_group(&b, i - 1, i))
			rs[nrs++] = (struct region){ .first = i };
		rs[nrs - 1].n++;
		rs[nrs - 1].total += units[i]->total;
	}
	for (i = 0; i < nrs; i++)
		best_cut(&b, &rs[i]);
	while (nrs < max_rows) {
		size_t best = nrs;

		for (i = 0; i < nrs; i++)
			if (rs[i].gain >= 0 &&
			    (best == nrs || rs[i].gain > rs[best].gain))
				best = i;
		if (best == nrs)
			break;
		split(&b, rs, &nrs, best);
	}
	merge(&b, rs, &nrs);
	hr = calloc(nrs, sizeof(*hr));
	if (!hr) {
		free(rs);
		free(b.gid);
		return -ENOMEM;
	}
	for (i = 0; i < nrs; i++) {
		const struct heat_unit *f = units[rs[i].first];
		const struct heat_unit *l = units[rs[i].first + rs[i].n - 1];

		hr[i] = (struct heat_range){
			.pid = f->pid, .map = f->map,
			.owner = owner(&b, rs[i].first, rs[i].n),
			.start = f->block << shift,
			.end = (l->block + 1) << shift,
			.first = rs[i].first, .n = rs[i].n,
			.total = rs[i].total,
		};
		for (k = 0; k < rs[i].n; k++)
			hr[i].samples += units[rs[i].first + k]->samples;
	}
	free(rs);
	free(b.gid);
	/* more mappings than rows: the hottest, then in address order */
	qsort(hr, nrs, sizeof(*hr), cmp_hot);
	qsort(hr, nrs < max_rows ? nrs : max_rows, sizeof(*hr), cmp_addr);
	*out = hr;
	*nr_out = nrs;
	return 0;
}
