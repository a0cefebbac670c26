// SPDX-License-Identifier: MIT
/*
 * tasks-maps.c - a process's maps and perf's dsos for report --mmaps
 * (lib/session/tasks.c has the threads), as perf 6.1's maps.c and
 * dsos.c keep them:
 *
 * - a map cuts what it overlaps out of its process's maps
 *   (maps__fixup_overlappings: of the map ending after its start with
 *   the greatest start below it, and of those starting inside it, the
 *   part before keeps its offset, the part after moves it), then goes in
 *   after the maps of equal start (__maps__insert); a new process's
 *   maps are a copy of its parent's (maps__clone);
 * - a dso is one per name and id (maj, min, ino, and ino_generation
 *   when both have one; an empty id matches any, and a dso made without
 *   one takes the first it meets: dso__inject_id). Its inode is the one
 *   printed.
 *
 * Each process's maps are a treap keyed by start (priorities from a
 * xorshift of our own: input cannot shape it), O(log n) per map; at
 * most TASKS_MAX_MAPS are held in all.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "session/tasks-int.h"

int tk_oom(void)
{
	return core_err(-ENOMEM, "tasks: out of memory");
}

static size_t tk_hash(uint64_t x, size_t n)
{
	return (size_t)((x * 0x9e3779b97f4a7c15ull) >> 32) & (n - 1);
}

/* ---- hash chains: the dsos by name, the threads by tid ---- */

static int relink(struct tk_chains *c)
{
	size_t n = c->nr_heads ? c->nr_heads * 2 : 64, i, h;
	uint32_t *heads = malloc(n * sizeof(*heads));

	if (!heads)
		return tk_oom();
	memset(heads, 0xff, n * sizeof(*heads));
	for (i = 0; i < c->nr; i++) {
		if (c->next[i] == TK_OUT)
			continue;
		h = tk_hash(c->key[i], n);
		c->next[i] = heads[h];
		heads[h] = (uint32_t)i;
	}
	free(c->heads);
	c->heads = heads;
	c->nr_heads = n;
	return 0;
}

int tk_chains_add(struct tk_chains *c, uint64_t key)
{
	size_t cap = c->cap, h;

	if (c->nr == c->cap &&
	    (core_grow(&c->key, &cap, c->nr + 1, sizeof(*c->key)) ||
	     core_grow(&c->next, &c->cap, c->nr + 1, sizeof(*c->next))))
		return tk_oom();
	if (c->linked + 1 > c->nr_heads && relink(c))
		return -ENOMEM;
	h = tk_hash(key, c->nr_heads);
	c->key[c->nr] = key;
	c->next[c->nr] = c->heads[h];
	c->heads[h] = (uint32_t)c->nr++;
	c->linked++;
	return 0;
}

uint32_t tk_chains_first(const struct tk_chains *c, uint64_t key)
{
	uint32_t i;

	if (!c->nr_heads)
		return TK_NONE;
	for (i = c->heads[tk_hash(key, c->nr_heads)]; i != TK_NONE;
	     i = c->next[i])
		if (c->key[i] == key)
			return i;
	return TK_NONE;
}

uint32_t tk_chains_next(const struct tk_chains *c, uint32_t item)
{
	uint32_t i;

	for (i = c->next[item]; i != TK_NONE; i = c->next[i])
		if (c->key[i] == c->key[item])
			return i;
	return TK_NONE;
}

void tk_chains_remove(struct tk_chains *c, uint32_t item)
{
	uint32_t *pp = &c->heads[tk_hash(c->key[item], c->nr_heads)];

	while (*pp != item)
		pp = &c->next[*pp];
	*pp = c->next[item];
	c->next[item] = TK_OUT;
	c->linked--;
}

void tk_chains_free(struct tk_chains *c)
{
	free(c->heads);
	free(c->key);
	free(c->next);
}

/* ---- the treap of a process's maps ---- */

static uint32_t next_prio(struct tk_space *sp)
{
	sp->seed ^= sp->seed << 13;
	sp->seed ^= sp->seed >> 7;
	sp->seed ^= sp->seed << 17;
	return (uint32_t)sp->seed;
}

/* @n into nodes whose start is below @key (*a) and the others (*b);
   with @le, "at most @key" instead */
static void split(struct tk_map *n, uint64_t key, bool le, struct tk_map **a,
		  struct tk_map **b)
{
	if (!n) {
		*a = *b = NULL;
	} else if (n->start < key || (le && n->start == key)) {
		split(n->r, key, le, &n->r, b);
		*a = n;
	} else {
		split(n->l, key, le, a, &n->l);
		*b = n;
	}
}

static struct tk_map *merge(struct tk_map *a, struct tk_map *b)
{
	if (!a || !b)
		return a ? a : b;
	if (a->prio > b->prio) {
		a->r = merge(a->r, b);
		return a;
	}
	b->l = merge(a, b->l);
	return b;
}

/* after the maps of equal start, as perf's __maps__insert */
static void insert(struct tk_maps *m, struct tk_map *n)
{
	struct tk_map *a, *b;

	n->l = n->r = NULL;
	split(m->root, n->start, true, &a, &b);
	m->root = merge(merge(a, n), b);
}

static void free_nodes(struct tk_space *sp, struct tk_map *n)
{
	if (!n)
		return;
	free_nodes(sp, n->l);
	free_nodes(sp, n->r);
	free(n);
	sp->held--;
}

/* a copy of @from (a new priority) into *@np; -ENOSPC past the bound */
static int new_node(struct tk_space *sp, const struct tk_map *from,
		    struct tk_map **np)
{
	struct tk_map *n;

	if (sp->held >= TASKS_MAX_MAPS)
		return core_err(-ENOSPC, "tasks: more than %u maps to keep: "
				"report --tasks without --mmaps",
				TASKS_MAX_MAPS);
	n = malloc(sizeof(*n));
	if (!n)
		return tk_oom();
	*n = *from;
	n->l = n->r = NULL;
	n->prio = next_prio(sp);
	sp->held++;
	*np = n;
	return 0;
}

void tk_maps_put(struct tk_space *sp, struct tk_maps *m)
{
	if (m && !--m->refs) {
		free_nodes(sp, m->root);
		free(m);
	}
}

/*
 * perf's maps__fixup_overlappings, then the insertion of @n (a copy is
 * kept): the map ending after @n's start with the greatest start below
 * it, and those starting in [start, end), leave their parts outside @n
 * (before, then after, each).
 */
int tk_map_insert(struct tk_space *sp, struct tk_maps *m,
		  const struct tk_map *n)
{
	struct tk_map *l, *mid, *r, *p = NULL, *q, *piece;
	int err = 0;

	split(m->root, n->start, false, &l, &r);
	if (l) {			/* the last of l, if it overlaps */
		struct tk_map **pp = &l;

		while ((*pp)->r)
			pp = &(*pp)->r;
		if ((*pp)->end > n->start) {
			p = *pp;
			*pp = p->l;
		}
	}
	split(r, n->end, false, &mid, &r);
	m->root = merge(l, r);
	/* the overlapped in order, p then mid's (flattened as it goes) */
	for (q = p ? p : mid; q;) {
		struct tk_map *cur = q;

		if (cur == p) {
			q = mid;
		} else if (cur->l) {	/* rotate right: leftmost first */
			q = cur->l;
			cur->l = q->r;
			q->r = cur;
			continue;
		} else {
			q = cur->r;
		}
		if (!err && n->start > cur->start &&
		    !(err = new_node(sp, cur, &piece))) {
			piece->end = n->start;
			insert(m, piece);
		}
		if (!err && n->end < cur->end &&
		    !(err = new_node(sp, cur, &piece))) {
			piece->pgoff += n->end - cur->start;
			piece->start = n->end;
			insert(m, piece);
		}
		free(cur);
		sp->held--;
	}
	if (!err && !(err = new_node(sp, n, &piece)))
		insert(m, piece);
	return err;
}

/* ---- dsos: perf's one per name and id ---- */

static bool id_empty(uint32_t maj, uint32_t min, uint64_t ino, uint64_t gen)
{
	return !maj && !min && !ino && !gen;
}

/* the dso of @name with that id (perf's dso_id__cmp), made if none */
int tk_dso_findnew(struct tk_space *sp, const char *name, uint32_t maj,
		   uint32_t min, uint64_t ino, uint64_t gen, uint32_t *idx)
{
	const char *nm = core_strset_add(&sp->names, name);
	bool empty = id_empty(maj, min, ino, gen);
	struct tk_dso *d;
	uint32_t i;

	if (!nm)
		return tk_oom();
	for (i = tk_chains_first(&sp->dchains, (uintptr_t)nm); i != TK_NONE;
	     i = tk_chains_next(&sp->dchains, i)) {
		d = &sp->d[i];
		if (!empty && !id_empty(d->maj, d->min, d->ino, d->gen) &&
		    (d->maj != maj || d->min != min || d->ino != ino ||
		     (gen && d->gen && d->gen != gen)))
			continue;
		if (!empty && id_empty(d->maj, d->min, d->ino, d->gen)) {
			d->maj = maj;	/* perf's dso__inject_id */
			d->min = min;
			d->ino = ino;
			d->gen = gen;
		}
		*idx = i;
		return 0;
	}
	if (core_grow(&sp->d, &sp->cap_d, sp->nr_d + 1, sizeof(*sp->d)) ||
	    tk_chains_add(&sp->dchains, (uintptr_t)nm))
		return tk_oom();
	sp->d[sp->nr_d] = (struct tk_dso){ .name = nm, .maj = maj, .min = min,
					   .ino = ino, .gen = gen };
	*idx = (uint32_t)sp->nr_d++;
	return 0;
}

/* perf's maps__clone: each of @n's maps (in order) after equal starts */
static int copy_nodes(struct tk_space *sp, struct tk_maps *to,
		     const struct tk_map *n)
{
	struct tk_map *c;
	int err;

	if (!n)
		return 0;
	if ((err = copy_nodes(sp, to, n->l)) || (err = new_node(sp, n, &c)))
		return err;
	insert(to, c);
	return copy_nodes(sp, to, n->r);
}

int tk_maps_copy(struct tk_space *sp, struct tk_maps *to,
		 const struct tk_maps *from)
{
	return copy_nodes(sp, to, from->root);
}

/* perf's maps__fprintf_task: in order */
static void print_nodes(const struct tk_space *sp, const struct tk_map *n,
		       int indent, FILE *f)
{
	if (!n)
		return;
	print_nodes(sp, n->l, indent, f);
	fprintf(f, "%*s  %" PRIx64 "-%" PRIx64 " %c%c%c%c %08" PRIx64 " %" PRIu64
		" %s\n", indent, "", n->start, n->end,
		n->prot & TK_READ ? 'r' : '-', n->prot & TK_WRITE ? 'w' : '-',
		n->prot & TK_EXEC ? 'x' : '-', n->flags & 0x01 /* MAP_SHARED */ ? 's' : 'p',
		n->pgoff, sp->d[n->dso].ino, sp->d[n->dso].name);
	print_nodes(sp, n->r, indent, f);
}

void tk_maps_print(const struct tk_space *sp, const struct tk_maps *m,
		   int indent, FILE *f)
{
	print_nodes(sp, m->root, indent, f);
}

int tk_maps_new(struct tk_maps **mp)
{
	*mp = calloc(1, sizeof(**mp));
	if (!*mp)
		return tk_oom();
	(*mp)->refs = 1;
	return 0;
}

void tk_space_free(struct tk_space *sp)
{
	free(sp->d);
	tk_chains_free(&sp->dchains);
	core_strset_free(&sp->names);
}
