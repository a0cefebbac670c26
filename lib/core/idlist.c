// SPDX-License-Identifier: MIT
/*
 * idlist.c - a growable list of ids (pids, tids, CPUs) and the one
 * parser of id lists ("1234,20-22": decimal ids and inclusive ranges,
 * comma-separated), as perf's -p/-t and report's --pid/--tid take them.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

/* the widest range one item may give */
#define IDS_MAX_RANGE	8192

int pebs_ids__push(struct pebs_ids *l, int id)
{
	if (!l)
		return core_err(-EINVAL, "id list: none");
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 16;
		int *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return core_err(-ENOMEM, "id list: out of memory");
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = id;
	return 0;
}

bool pebs_ids__has(const struct pebs_ids *l, int id)
{
	for (unsigned int i = 0; l && i < l->n; i++)
		if (l->v[i] == id)
			return true;
	return false;
}

int pebs_ids__add(struct pebs_ids *l, int id)
{
	return pebs_ids__has(l, id) ? 0 : pebs_ids__push(l, id);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* an id and where it was given, ordered by both */
struct id_at {
	int id;
	unsigned int at;
};

static int cmp_id_at(const void *a, const void *b)
{
	const struct id_at *x = a, *y = b;

	if (x->id != y->id)
		return (x->id > y->id) - (x->id < y->id);
	return (x->at > y->at) - (x->at < y->at);
}

/*
 * Each id of @add[0..@n) that @l does not hold and that came first among
 * its repeats, appended in @add's order: sorted copies, O(m log m) for m
 * ids in all, where pebs_ids__add one id at a time scans @l for each
 * (quadratic: a /proc of 30,000 processes, a -p list of many ranges).
 * A few ids into a long list (a process's threads into a command's) are
 * still added one at a time: sorting the list for each call would cost
 * more than the scans.
 */
int core_ids_merge(struct pebs_ids *l, const int *add, unsigned int n)
{
	int *old = NULL;
	struct id_at *by = NULL;
	bool *keep = NULL;
	unsigned int i, n_old = l->n;
	int err = 0;

	if (n <= 64) {
		for (i = 0; !err && i < n; i++)
			err = pebs_ids__add(l, add[i]);
		return err;
	}
	old = malloc((n_old ? n_old : 1) * sizeof(*old));
	by = malloc(n * sizeof(*by));
	keep = calloc(n, sizeof(*keep));
	if (!old || !by || !keep) {
		err = core_err(-ENOMEM, "id list: out of memory");
		goto out;
	}
	if (n_old) {
		memcpy(old, l->v, n_old * sizeof(*old));
		qsort(old, n_old, sizeof(*old), cmp_int);
	}
	for (i = 0; i < n; i++)
		by[i] = (struct id_at){ add[i], i };
	qsort(by, n, sizeof(*by), cmp_id_at);
	for (i = 0; i < n; i++)
		keep[by[i].at] = (!i || by[i - 1].id != by[i].id) &&
				 !bsearch(&by[i].id, old, n_old, sizeof(*old),
					  cmp_int);
	for (i = 0; !err && i < n; i++)
		if (keep[i])
			err = pebs_ids__push(l, add[i]);
out:
	free(old);
	free(by);
	free(keep);
	return err;
}

void pebs_ids__free(struct pebs_ids *l)
{
	if (!l)
		return;
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* a decimal id at *p without sign (advanced past it); -1 if none */
static long id_number(const char **p)
{
	char *end;
	long v;

	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v > INT_MAX)
		return -1;
	*p = end;
	return v;
}

int pebs_ids__parse(struct pebs_ids *l, const char *str)
{
	struct pebs_ids got = { 0 };	/* every id given, then merged */
	const char *p = str, *tok;
	int err;

	if (!l || !str)
		return core_err(-EINVAL, "id list: nothing to parse");
	if (!*p)
		return core_err(-EINVAL, "empty id list: give ids such as "
				"1234,20-22");
	for (;;) {
		long lo, hi;

		tok = p;
		lo = hi = id_number(&p);
		if (lo < 0)
			goto bad;
		if (*p == '-') {
			p++;
			hi = id_number(&p);
			if (hi < lo || hi - lo > IDS_MAX_RANGE)
				goto bad;
		}
		if (*p && *p != ',')
			goto bad;
		for (long id = lo; id <= hi; id++)
			if ((err = pebs_ids__push(&got, (int)id)))
				goto out;
		if (!*p) {
			err = core_ids_merge(l, got.v, got.n);
			goto out;
		}
		p++;
	}
bad:
	err = core_err(-EINVAL, "bad id '%.*s': give ids such as 1234,20-22",
		       (int)strcspn(tok, ","), tok);
out:
	pebs_ids__free(&got);
	return err;
}
