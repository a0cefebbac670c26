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
	const char *p = str, *tok;

	if (!l || !str)
		return core_err(-EINVAL, "id list: nothing to parse");
	if (!*p)
		return core_err(-EINVAL, "empty id list: give ids such as "
				"1234,20-22");
	for (;;) {
		long lo, hi;
		int err;

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
			if ((err = pebs_ids__add(l, (int)id)))
				return err;
		if (!*p)
			return 0;
		p++;
	}
bad:
	return core_err(-EINVAL, "bad id '%.*s': give ids such as 1234,20-22",
			(int)strcspn(tok, ","), tok);
}
