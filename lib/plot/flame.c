// SPDX-License-Identifier: MIT
/*
 * flame.c - call stacks aggregated into a tree, the data of a flame
 * graph and of FlameGraph's folded ("collapsed") stacks.
 *
 * A node is one frame name under one parent; each keeps the samples and
 * the value (period or weight) of the stacks that end there (self) and
 * of all below it (total). Frame names are interned; children are found
 * through one open-addressed table keyed by (parent, name), so adding a
 * stack of n frames costs O(n) expected time and memory grows only with
 * new nodes. Output never depends on hash order: the folded lines are
 * sorted bytewise by stack (as stackcollapse-perf.pl's `sort`), and a
 * walk visits children by name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pebsshim/plot.h"
#include "core/internal.h"

#define NONE	UINT32_MAX

struct node {
	uint32_t name;		/* index into names */
	uint32_t parent;
	uint32_t child, sibling; /* first child, next sibling */
	uint32_t depth;
	uint8_t kind;
	uint64_t self_samples, self_value;
	uint64_t samples, value; /* totals, self included */
};

struct pebs_flame {
	struct node *nodes;
	uint32_t nr_nodes;
	size_t cap_nodes;
	char **names;
	uint32_t nr_names;
	size_t cap_names;
	uint32_t *name_tab;	/* interned names: index + 1, 0 empty */
	uint32_t name_mask;
	uint32_t *node_tab;	/* (parent, name) -> node index + 1 */
	uint32_t node_mask;
};

static int oom(void)
{
	return core_err(-ENOMEM, "flame: out of memory");
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static uint64_t str_hash(const char *s)
{
	return core_fnv(CORE_FNV_SEED, s, strlen(s));
}

/* Double an index table of @mask + 1 slots, rehashing by @key. */
static int grow_tab(struct pebs_flame *f, uint32_t **tabp, uint32_t *maskp,
		    uint64_t (*key)(const struct pebs_flame *, uint32_t))
{
	uint32_t nmask = *maskp ? *maskp * 2 + 1 : 1023, i, j;
	uint32_t *nt = calloc((size_t)nmask + 1, sizeof(*nt));

	if (!nt)
		return oom();
	for (i = 0; *tabp && i <= *maskp; i++) {
		if (!(*tabp)[i])
			continue;
		j = (uint32_t)key(f, (*tabp)[i] - 1) & nmask;
		while (nt[j])
			j = (j + 1) & nmask;
		nt[j] = (*tabp)[i];
	}
	free(*tabp);
	*tabp = nt;
	*maskp = nmask;
	return 0;
}

static uint64_t name_key(const struct pebs_flame *f, uint32_t idx)
{
	return str_hash(f->names[idx]);
}

static uint64_t node_key(const struct pebs_flame *f, uint32_t idx)
{
	return mix((uint64_t)f->nodes[idx].parent << 32 | f->nodes[idx].name);
}

/* The interned index of @name (added if new), or -ENOMEM. */
static int64_t intern(struct pebs_flame *f, const char *name)
{
	uint32_t i;
	char *copy;

	if ((uint64_t)f->nr_names * 2 >= f->name_mask &&
	    grow_tab(f, &f->name_tab, &f->name_mask, name_key))
		return -ENOMEM;
	i = (uint32_t)str_hash(name) & f->name_mask;
	for (; f->name_tab[i]; i = (i + 1) & f->name_mask)
		if (!strcmp(f->names[f->name_tab[i] - 1], name))
			return f->name_tab[i] - 1;
	if (core_grow(&f->names, &f->cap_names, (size_t)f->nr_names + 1,
		      sizeof(*f->names)))
		return oom();
	copy = strdup(name);
	if (!copy)
		return oom();
	f->names[f->nr_names] = copy;
	f->name_tab[i] = ++f->nr_names;
	return f->nr_names - 1;
}

static int64_t new_node(struct pebs_flame *f, uint32_t parent, uint32_t name,
			uint8_t kind)
{
	struct node *n;

	/* at most 2^31 nodes: an index stays below NONE */
	if (f->nr_nodes > INT32_MAX ||
	    core_grow(&f->nodes, &f->cap_nodes, (size_t)f->nr_nodes + 1,
		      sizeof(*f->nodes)))
		return oom();
	n = &f->nodes[f->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->parent = parent;
	n->child = NONE;
	n->kind = kind;
	if (parent != NONE) {
		n->depth = f->nodes[parent].depth + 1;
		n->sibling = f->nodes[parent].child;
		f->nodes[parent].child = f->nr_nodes;
	} else {
		n->sibling = NONE;
	}
	return f->nr_nodes++;
}

/* The child @name of @parent (made if new), or -ENOMEM. */
static int64_t child(struct pebs_flame *f, uint32_t parent, uint32_t name,
		     uint8_t kind)
{
	uint64_t key = mix((uint64_t)parent << 32 | name);
	int64_t idx;
	uint32_t i;

	if ((uint64_t)f->nr_nodes * 2 >= f->node_mask &&
	    grow_tab(f, &f->node_tab, &f->node_mask, node_key))
		return -ENOMEM;
	for (i = (uint32_t)key & f->node_mask; f->node_tab[i];
	     i = (i + 1) & f->node_mask) {
		const struct node *n = &f->nodes[f->node_tab[i] - 1];

		if (n->parent == parent && n->name == name)
			return f->node_tab[i] - 1;
	}
	idx = new_node(f, parent, name, kind);
	if (idx >= 0)
		f->node_tab[i] = (uint32_t)idx + 1;
	return idx;
}

int pebs_flame__new(struct pebs_flame **fp)
{
	struct pebs_flame *f;
	int64_t name;

	if (!fp)
		return core_err(-EINVAL, "flame: nowhere to put it");
	f = calloc(1, sizeof(*f));
	if (!f)
		return oom();
	/* node 0: the root, "all" as in flamegraph.pl */
	name = intern(f, "all");
	if (name < 0 || new_node(f, NONE, (uint32_t)name,
				 PEBS_FRAME_ROOT) < 0) {
		pebs_flame__delete(f);
		return oom();
	}
	*fp = f;
	return 0;
}

void pebs_flame__delete(struct pebs_flame *f)
{
	uint32_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr_names; i++)
		free(f->names[i]);
	free(f->names);
	free(f->name_tab);
	free(f->nodes);
	free(f->node_tab);
	free(f);
}

int pebs_flame__add(struct pebs_flame *f, const char *const *names,
		    const enum pebs_frame_kind *kinds, unsigned int n,
		    uint64_t samples, uint64_t value)
{
	uint32_t cur = 0, i;
	int64_t name, idx;

	if (!f || (n && (!names || !kinds)))
		return core_err(-EINVAL, "flame: no stack");
	if (n > PEBS_FLAME_MAX_DEPTH)
		return core_err(-E2BIG, "flame: a stack of %u frames (at most "
				"%u)", n, PEBS_FLAME_MAX_DEPTH);
	for (i = 0; i < n; i++) {
		name = intern(f, names[i]);
		if (name < 0)
			return (int)name;
		idx = child(f, cur, (uint32_t)name, (uint8_t)kinds[i]);
		if (idx < 0)
			return (int)idx;
		cur = (uint32_t)idx;
	}
	f->nodes[cur].self_samples += samples;
	f->nodes[cur].self_value += value;
	for (;;) {
		f->nodes[cur].samples += samples;
		f->nodes[cur].value += value;
		if (!cur)
			break;
		cur = f->nodes[cur].parent;
	}
	return 0;
}

void pebs_flame__totals(const struct pebs_flame *f, uint64_t *samples,
			uint64_t *value)
{
	if (samples)
		*samples = f->nodes[0].samples;
	if (value)
		*value = f->nodes[0].value;
}

size_t pebs_flame__nr_nodes(const struct pebs_flame *f)
{
	return f->nr_nodes;
}

/* ---- folded stacks ------------------------------------------------ */

/* A node's path, root excluded, as node indices from the top. */
static unsigned int path_of(const struct pebs_flame *f, uint32_t idx,
			    uint32_t *path)
{
	unsigned int n = f->nodes[idx].depth, i = n;

	while (i > 0) {
		path[--i] = idx;
		idx = f->nodes[idx].parent;
	}
	return n;
}

static const struct pebs_flame *sort_flame;

/* Compare the folded strings "a;b;c" of two nodes, bytewise. */
static int cmp_paths(const void *pa, const void *pb)
{
	const struct pebs_flame *f = sort_flame;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	uint32_t qa[PEBS_FLAME_MAX_DEPTH + 1], qb[PEBS_FLAME_MAX_DEPTH + 1];
	unsigned int na = path_of(f, a, qa), nb = path_of(f, b, qb);
	unsigned int ia = 0, ib = 0;
	const char *sa = "", *sb = "";

	/* walk both strings; ';' separates frames */
	if (na)
		sa = f->names[f->nodes[qa[0]].name];
	if (nb)
		sb = f->names[f->nodes[qb[0]].name];
	for (;;) {
		int ca, cb;

		if (*sa)
			ca = (unsigned char)*sa;
		else
			ca = ia + 1 < na ? ';' : -1;
		if (*sb)
			cb = (unsigned char)*sb;
		else
			cb = ib + 1 < nb ? ';' : -1;
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (ca < 0)
			return a < b ? -1 : a > b;
		if (*sa)
			sa++;
		else
			sa = f->names[f->nodes[qa[++ia]].name];
		if (*sb)
			sb++;
		else
			sb = f->names[f->nodes[qb[++ib]].name];
	}
}

int pebs_flame__write_collapsed(const struct pebs_flame *f, FILE *out,
				bool by_samples)
{
	uint32_t *idx, nr = 0, i, path[PEBS_FLAME_MAX_DEPTH + 1];
	unsigned int n, k;
	int err = 0;

	if (!f || !out)
		return core_err(-EINVAL, "flame: no output");
	idx = malloc(((size_t)f->nr_nodes + 1) * sizeof(*idx));
	if (!idx)
		return oom();
	for (i = 1; i < f->nr_nodes; i++)
		if (f->nodes[i].self_samples)
			idx[nr++] = i;
	sort_flame = f;
	qsort(idx, nr, sizeof(*idx), cmp_paths);
	for (i = 0; i < nr && !err; i++) {
		const struct node *nd = &f->nodes[idx[i]];

		n = path_of(f, idx[i], path);
		for (k = 0; k < n; k++)
			if (fputs(f->names[f->nodes[path[k]].name], out) < 0 ||
			    (k + 1 < n && fputc(';', out) < 0))
				err = -EIO;
		if (fprintf(out, " %llu\n", (unsigned long long)
			    (by_samples ? nd->self_samples : nd->self_value)) < 0)
			err = -EIO;
	}
	free(idx);
	return err ? core_err(err, "flame: cannot write the stacks") : 0;
}

/* ---- walking, for drawing ----------------------------------------- */

struct walk {
	const struct pebs_flame *f;
	uint64_t min;
	bool by_samples;
	pebs_flame_fn fn;
	void *arg;
	char name[32];		/* a folded run's name */
};

#define UNKNOWN	"[unknown]"

static uint64_t weight(const struct walk *w, const struct node *n)
{
	return w->by_samples ? n->samples : n->value;
}

static int cmp_names(const void *pa, const void *pb)
{
	const struct pebs_flame *f = sort_flame;
	const struct node *a = &f->nodes[*(const uint32_t *)pa];
	const struct node *b = &f->nodes[*(const uint32_t *)pb];

	return strcmp(f->names[a->name], f->names[b->name]);
}

static bool is_unknown(const struct pebs_flame *f, uint32_t idx)
{
	return !strcmp(f->names[f->nodes[idx].name], UNKNOWN);
}

/*
 * The last node of the run of "[unknown]" frames that starts at @idx:
 * each the only child of the one above, nothing ending above the last,
 * so that all have one extent (@nr: how many). Call chains that a frame
 * pointer walk lost (code without frame pointers) give such runs, up to
 * the chain's 127 frames; drawn one frame a row they would set the
 * picture's height.
 */
static uint32_t unknown_run(const struct pebs_flame *f, uint32_t idx,
			    unsigned int *nr)
{
	*nr = 1;
	if (!is_unknown(f, idx))
		return idx;
	for (;;) {
		const struct node *n = &f->nodes[idx];

		if (n->self_samples || n->child == NONE ||
		    f->nodes[n->child].sibling != NONE ||
		    !is_unknown(f, n->child))
			return idx;
		idx = n->child;
		++*nr;
	}
}

static int visit(struct walk *w, uint32_t idx, uint64_t x, unsigned int depth)
{
	const struct pebs_flame *f = w->f;
	const struct node *n = &f->nodes[idx];
	struct pebs_flame_node out = {
		.name = f->names[n->name], .kind = n->kind, .depth = depth,
		.x = x, .value = weight(w, n), .samples = n->samples,
		.self = w->by_samples ? n->self_samples : n->self_value,
		.folded = 1,
	};
	uint32_t *kids, nr = 0, c;
	uint64_t merged = 0, merged_samples = 0, cx;
	unsigned int nr_merged = 0;
	int ret;

	idx = unknown_run(f, idx, &out.folded);
	if (out.folded > 1) {
		n = &f->nodes[idx];
		snprintf(w->name, sizeof(w->name), UNKNOWN " x%u", out.folded);
		out.name = w->name;
		out.self = w->by_samples ? n->self_samples : n->self_value;
	}
	ret = w->fn(w->arg, &out);
	if (ret)
		return ret;
	for (c = n->child; c != NONE; c = f->nodes[c].sibling)
		nr++;
	if (!nr)
		return 0;
	kids = malloc(nr * sizeof(*kids));
	if (!kids)
		return oom();
	nr = 0;
	for (c = n->child; c != NONE; c = f->nodes[c].sibling)
		kids[nr++] = c;
	sort_flame = f;
	qsort(kids, nr, sizeof(*kids), cmp_names);
	/* the children by name from the left, then the narrow ones as
	   one merged block; the self part stays empty at the right (as
	   flamegraph.pl draws it) */
	cx = x;
	for (c = 0; c < nr && !ret; c++) {
		const struct node *k = &f->nodes[kids[c]];

		if (weight(w, k) < w->min || !weight(w, k)) {
			merged += weight(w, k);
			merged_samples += k->samples;
			nr_merged++;
			continue;
		}
		ret = visit(w, kids[c], cx, depth + 1);
		cx += weight(w, k);
	}
	free(kids);
	if (!ret && nr_merged && merged >= w->min && merged) {
		struct pebs_flame_node m = {
			.name = NULL, .kind = PEBS_FRAME_MERGED,
			.depth = depth + 1, .x = cx, .value = merged,
			.samples = merged_samples, .self = merged,
			.merged = nr_merged, .folded = 1,
		};

		ret = w->fn(w->arg, &m);
	}
	return ret;
}

int pebs_flame__walk(const struct pebs_flame *f, bool by_samples,
		     uint64_t min_width, pebs_flame_fn fn, void *arg)
{
	struct walk w = { .f = f, .min = min_width, .by_samples = by_samples,
			  .fn = fn, .arg = arg };

	if (!f || !fn)
		return core_err(-EINVAL, "flame: no callback");
	return visit(&w, 0, 0, 0);
}

unsigned int pebs_flame__depth(const struct pebs_flame *f)
{
	unsigned int d = 0;
	uint32_t i;

	for (i = 0; i < f->nr_nodes; i++)
		if (f->nodes[i].depth > d)
			d = f->nodes[i].depth;
	return d;
}
