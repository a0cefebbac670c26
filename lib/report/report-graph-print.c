// SPDX-License-Identifier: MIT
/*
 * report-graph-print.c - a row's call graph (lib/report/report-graph.c)
 * sorted and printed as perf 6.1 prints it under a hist entry
 * (util/callchain.c's sort_chain_*, ui/stdio/hist.c's
 * callchain__fprintf_*), to the byte:
 *
 * - graph: each node's children by their period (theirs and below),
 *   the largest first, those under the threshold's share of the
 *   event's period left out; fractal: of the parent's period below, and
 *   a "[...]" branch for what was left out; flat and folded: every node
 *   where chains end, by the period ending there, each chain whole;
 * - the margins and "|" columns of perf's stdio printer: a column's bar
 *   stays while a later sibling is to come (perf keeps them in the bits
 *   of an int, shifted by the depth: past 32 levels they wrap, here as
 *   on x86);
 * - a single chain holding all of the row's period is printed after
 *   "---" without percentages; with --sort beginning "sym" its first
 *   frame, the row's own, is left out.
 *
 * Branches of equal period are in perf's order: of one file, the higher
 * address first; of two, by the order perf made its dso objects
 * (pebs_symbols__dso_order), where they lie in memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "pebsshim/report.h"
#include "report/report-rows.h"

struct gp {
	FILE *f;
	const struct rp_graph *g;
	uint64_t min_hit;	/* graph, flat, folded: the threshold */
	double frac;		/* fractal: the threshold, a fraction */
	bool err;		/* out of memory */
};

/* A child in a sorted list: its key, its place among its siblings, its
   file's place in perf's order of them (lower first). */
struct kid {
	uint64_t key;
	uint32_t pos, node;
	int64_t file;
};

/* perf's callchain_cumul_hits and callchain_cumul_counts */
static uint64_t cumul(const struct rp_gnode *n)
{
	return n->hit + n->children_hit;
}

static uint32_t cumul_count(const struct rp_gnode *n)
{
	return n->count + n->children_count;
}

/*
 * Ties by perf's input order (a new chain goes left of one whose dso
 * object, then symbol start or address, is lower): by file (files()),
 * then in one file the higher address first (a symbol's start is in the
 * order of the addresses in it), then as they came. @arg: the graph.
 */
static int tie_cmp(const void *a, const void *b, void *arg)
{
	const struct rp_graph *g = arg;
	const struct kid *x = a, *y = b;
	const struct rp_gframe *fx, *fy;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	fx = &g->frames[g->nodes[x->node].val];
	fy = &g->frames[g->nodes[y->node].val];
	if (fx->ip != fy->ip)
		return fx->ip > fy->ip ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * The files of @n kids placed: by pebs_symbols__dso_order, the one made
 * later first (the kernel's, made first, last; no file's after it);
 * without the order, the kernel's last and the others by where their
 * names lie in memory, higher first (as perf by its objects').
 */
static void files(const struct gp *p, struct kid *k, uint32_t n)
{
	const struct rp_graph *g = p->g;
	uint32_t i;

	for (i = 0; i < n; i++) {
		const struct rp_gframe *f = &g->frames[g->nodes[k[i].node].val];

		if (g->o.syms)
			k[i].file = f->dso ? -(int64_t)pebs_symbols__dso_order(
						g->o.syms, f->dso) : 1;
		else
			k[i].file = f->kernel ? INT64_MAX :
				    -(int64_t)((uintptr_t)f->dso >> 1);
	}
}

/* by key, the largest first, then tie_cmp */
static int kid_cmp(const void *a, const void *b, void *arg)
{
	const struct kid *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return tie_cmp(a, b, arg);
}

/* flat and folded: by key, then in the order met (perf's post-order
   walk of its input tree) */
static int flat_cmp(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* the children of @node shown, sorted (*@nr of them; NULL: none, or
   out of memory: p->err) */
static struct kid *kids(struct gp *p, uint32_t node, uint32_t *nr)
{
	const struct rp_gnode *n = &p->g->nodes[node];
	uint64_t min = p->min_hit;
	struct kid *k = NULL, *t;
	uint32_t ch, cap = 0, pos = 0;

	*nr = 0;
	if (p->g->o.mode == PEBS_GRAPH_FRACTAL)
		min = (uint64_t)ceil((double)n->children_hit * p->frac);
	for (ch = n->child; ch; ch = p->g->nodes[ch].next, pos++) {
		if (cumul(&p->g->nodes[ch]) < min)
			continue;
		if (*nr == cap) {
			cap = cap ? 2 * cap : 8;
			t = realloc(k, cap * sizeof(*k));
			if (!t) {
				free(k);
				p->err = true;
				*nr = 0;
				return NULL;
			}
			k = t;
		}
		k[*nr].key = cumul(&p->g->nodes[ch]);
		k[*nr].pos = pos;
		k[(*nr)++].node = ch;
	}
	if (*nr > 1) {
		files(p, k, *nr);
		qsort_r(k, *nr, sizeof(*k), kid_cmp, (void *)p->g);
	}
	return k;
}

static void name(struct gp *p, const struct rp_gframe *e)
{
	if (e->sym)
		fputs(e->sym, p->f);
	else
		fprintf(p->f, "%#" PRIx64, e->ip);
}

/* perf's callchain_node__fprintf_value: @period and @count of a node
   against @total */
static void value(struct gp *p, uint64_t period, uint32_t count,
		  uint64_t total)
{
	switch (p->g->o.value) {
	case PEBS_GRAPH_PERIOD:
		fprintf(p->f, "%" PRIu64, period);
		break;
	case PEBS_GRAPH_COUNT:
		fprintf(p->f, "%u", count);
		break;
	default:
		fprintf(p->f, "%.2f%%", total ? (double)period * 100.0 /
				       (double)total : 0.0);
		break;
	}
}

static void margin(struct gp *p, int lm)
{
	fprintf(p->f, "%*s", 12 + lm, "");
}

/* perf's 1 << i in an int: the shift count taken mod 32, as x86 does */
static uint32_t bit(int i)
{
	return 1u << (i & 31);
}

/* perf's ipchain__fprintf_graph: frame @e (NULL: "[...]") of a node of
   @period and @count, its @j-th */
static void ipchain(struct gp *p, uint64_t period, uint32_t count,
		    const struct rp_gframe *e, int depth, uint32_t mask,
		    uint32_t j, uint64_t total, int lm)
{
	int i;

	margin(p, lm);
	for (i = 0; i < depth; i++) {
		fputc(mask & bit(i) ? '|' : ' ', p->f);
		if (!j && i == depth - 1) {
			fputs("--", p->f);
			value(p, period, count, total);
			fputs("--", p->f);
		} else {
			fputs("          ", p->f);
		}
	}
	if (e)
		name(p, e);
	else
		fputs("[...]", p->f);
	fputc('\n', p->f);
}

/* perf's __callchain__fprintf_graph: the children of @node below
   @depth; returns whether it printed */
static bool graph_kids(struct gp *p, uint32_t node, uint64_t total,
		       int depth, uint32_t mask, int lm)
{
	const struct rp_graph *g = p->g;
	bool rel = g->o.mode == PEBS_GRAPH_FRACTAL;
	uint32_t nr, x, j, counted = 0, new_mask = mask, last = 0;
	uint64_t remaining = total;
	struct kid *k = kids(p, node, &nr);
	int i;

	for (x = 0; x < nr; x++) {
		const struct rp_gnode *c = &g->nodes[k[x].node];

		last = k[x].node;
		remaining -= cumul(c);
		counted += cumul_count(c);
		if (x + 1 == nr && (!rel || !remaining))
			new_mask &= ~bit(depth - 1);
		/* the separator keeps the older mask */
		margin(p, lm);
		for (i = 0; i < depth; i++)
			fputs(mask & bit(i) ? "|          " : "           ",
			      p->f);
		fputc('\n', p->f);
		for (j = 0; j < c->nval; j++)
			ipchain(p, cumul(c), cumul_count(c),
				&g->frames[c->val + j], depth, new_mask, j,
				total, lm);
		graph_kids(p, k[x].node, rel ? c->children_hit : total,
			   depth + 1, new_mask | bit(depth), lm);
		if (x + 1 == g->o.print_limit)
			break;
	}
	free(k);
	if (rel && remaining && remaining != total) {
		uint32_t count = 0;

		if (g->o.value == PEBS_GRAPH_COUNT && last) {
			count = g->nodes[g->nodes[last].parent].children_count -
				counted;
			if (!count)
				return nr != 0;
		}
		new_mask &= ~bit(depth - 1);
		ipchain(p, remaining, count, NULL, depth, new_mask, 0, total,
			lm);
		return true;
	}
	return nr != 0;
}

/* perf's callchain__fprintf_graph for the tree at @root */
static void graph(struct gp *p, uint32_t root, uint64_t total,
		  uint64_t parent, bool skip_first)
{
	const struct rp_graph *g = p->g;
	bool printed = false;
	uint32_t nr, j, shown = 0;
	struct kid *k = kids(p, root, &nr);
	int lm = 0;

	if (nr == 1 && cumul(&g->nodes[k[0].node]) == parent) {
		const struct rp_gnode *c = &g->nodes[k[0].node];

		for (j = 0; j < c->nval; j++) {
			if (!j && skip_first)
				continue;
			if (!printed) {
				margin(p, lm);
				fputs("|\n", p->f);
				margin(p, lm);
				fputs("---", p->f);
				lm += 3;
				printed = true;
			} else {
				margin(p, lm);
			}
			name(p, &g->frames[c->val + j]);
			fputc('\n', p->f);
			if (++shown == g->o.print_limit)
				break;
		}
		root = k[0].node;
	}
	free(k);
	if (g->o.mode == PEBS_GRAPH_FRACTAL)
		total = parent;
	if (graph_kids(p, root, total, 1, 1, lm) || printed)
		fputc('\n', p->f);
}

/* the frames from the root to @node, perf's __callchain__fprintf_flat
   (@folded: __callchain__fprintf_folded) */
static void path(struct gp *p, uint32_t node, bool folded, bool *first)
{
	const struct rp_gnode *n = &p->g->nodes[node];
	uint32_t j;

	if (!node)
		return;
	path(p, n->parent, folded, first);
	for (j = 0; j < n->nval; j++) {
		if (folded)
			fputs(*first ? "" : ";", p->f);
		else
			fputs("                ", p->f);
		name(p, &p->g->frames[n->val + j]);
		if (!folded)
			fputc('\n', p->f);
		*first = false;
	}
}

/* the nodes where chains end (hit at least the threshold), each after
   its children in perf's input order (its __sort_chain_flat); 0 or
   -ENOMEM */
static int ends(struct gp *p, uint32_t node, struct kid **k, uint32_t *nr,
		uint32_t *cap)
{
	const struct rp_gnode *n = &p->g->nodes[node];
	struct kid *c = NULL, *t;
	uint32_t ch, nc = 0, i;

	for (ch = n->child; ch; ch = p->g->nodes[ch].next)
		nc++;
	if (nc && !(c = malloc(nc * sizeof(*c))))
		return -ENOMEM;
	for (ch = n->child, i = 0; ch; ch = p->g->nodes[ch].next, i++)
		c[i] = (struct kid){ .pos = i, .node = ch };
	if (nc > 1) {
		files(p, c, nc);
		qsort_r(c, nc, sizeof(*c), tie_cmp, (void *)p->g);
	}
	for (i = 0; i < nc; i++)
		if (ends(p, c[i].node, k, nr, cap)) {
			free(c);
			return -ENOMEM;
		}
	free(c);
	if (!n->hit || n->hit < p->min_hit)
		return 0;
	if (*nr == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		t = realloc(*k, *cap * sizeof(**k));
		if (!t)
			return -ENOMEM;
		*k = t;
	}
	(*k)[*nr].key = n->hit;
	(*k)[*nr].pos = *nr;
	(*k)[(*nr)++].node = node;
	return 0;
}

/* perf's callchain__fprintf_flat and callchain__fprintf_folded */
static void flat(struct gp *p, uint32_t root, uint64_t total)
{
	bool folded = p->g->o.mode == PEBS_GRAPH_FOLDED, first;
	struct kid *k = NULL;
	uint32_t nr = 0, cap = 0, x;

	if (ends(p, root, &k, &nr, &cap)) {
		free(k);
		p->err = true;
		return;
	}
	if (nr > 1)
		qsort(k, nr, sizeof(*k), flat_cmp);
	for (x = 0; x < nr; x++) {
		const struct rp_gnode *n = &p->g->nodes[k[x].node];

		first = true;
		if (folded) {
			value(p, n->hit, n->count, total);
			fputc(' ', p->f);
		} else {
			fputs("           ", p->f);
			value(p, cumul(n), cumul_count(n), total);
			fputc('\n', p->f);
		}
		path(p, k[x].node, folded, &first);
		fputc('\n', p->f);
		if (x + 1 == p->g->o.print_limit)
			break;
	}
	free(k);
}

int pebs_report__print_graph(const struct pebs_report *r, size_t i,
			     bool per_event, bool skip_first, FILE *f)
{
	const struct pebs_report_row *row;
	const unsigned char *raw;
	uint64_t total, parent;
	uint32_t root;
	struct gp p;

	if (!r || !r->graph || !f || i >= r->nr)
		return core_err(-EINVAL, "report: no graph or row");
	raw = row_at(r, r->order ? r->order[i] : i);
	root = *row_graph(r, raw);
	if (!root)
		return 0;
	row = pebs_report__row(r, i);
	pebs_report__totals(r, per_event ? (int)row->event : -1, NULL,
			    &total);
	parent = r->children ? row->children_period : row->period;
	p = (struct gp){
		.f = f, .g = r->graph,
		/* perf: callchain_total * (min_percent / 100), a u64 */
		.min_hit = (uint64_t)((double)total *
				      (r->graph->o.threshold / 100)),
		.frac = r->graph->o.threshold / 100.0,
	};
	if (p.g->o.mode == PEBS_GRAPH_FRACTAL)
		p.min_hit = 0;
	if (p.g->o.mode == PEBS_GRAPH_FLAT || p.g->o.mode == PEBS_GRAPH_FOLDED)
		flat(&p, root, total);
	else
		graph(&p, root, total, parent, skip_first);
	if (p.err)
		return core_err(-ENOMEM, "report: out of memory");
	return ferror(f) ? core_err(-EIO, "report: cannot write the graph") :
			   0;
}
