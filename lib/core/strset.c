// SPDX-License-Identifier: MIT
/*
 * strset.c - a set of strings, each kept once: the interned comms of a
 * recording's threads, the files a writer saw mapped. Open addressing
 * on core_fnv, linear probing, at most half full; a string's copy lives
 * until core_strset_free.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

static size_t slot(const char *s, size_t mask)
{
	return (size_t)core_fnv(CORE_FNV_SEED, s, strlen(s)) & mask;
}

/* twice the slots, every string moved: 0, or -1 out of memory */
static int grow(struct core_strset *set)
{
	size_t cap = set->cap ? set->cap * 2 : 256, i, j;
	char **tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -1;
	for (i = 0; i < set->cap; i++) {
		if (!set->tab[i])
			continue;
		for (j = slot(set->tab[i], cap - 1); tab[j]; j = (j + 1) & (cap - 1))
			;
		tab[j] = set->tab[i];
	}
	free(set->tab);
	set->tab = tab;
	set->cap = cap;
	return 0;
}

const char *core_strset_add(struct core_strset *set, const char *s)
{
	size_t mask, i;

	if ((set->nr + 1) * 2 > set->cap && grow(set))
		return NULL;
	mask = set->cap - 1;
	for (i = slot(s, mask); set->tab[i]; i = (i + 1) & mask)
		if (!strcmp(set->tab[i], s))
			return set->tab[i];
	set->tab[i] = strdup(s);
	if (set->tab[i])
		set->nr++;
	return set->tab[i];
}

void core_strset_free(struct core_strset *set)
{
	for (size_t i = 0; i < set->cap; i++)
		free(set->tab[i]);
	free(set->tab);
	memset(set, 0, sizeof(*set));
}
