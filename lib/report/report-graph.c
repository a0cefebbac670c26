// SPDX-License-Identifier: MIT
/*
 * report-graph.c - perf report -g: each row's call chains merged into a
 * tree (pebs_report__set_graph), as perf 6.1's util/callchain.c builds
 * a hist entry's callchain_root; lib/report/report-graph-print.c sorts
 * and prints it.
 *
 * A chain comes as perf's cursor: the frames in the order shown (caller
 * order: the root first; callee order: the leaf first), from a position
 * on. A node holds a run of frames (perf's callchain_list entries, here
 * a slice of one array) and what ended there: hit, the period of the
 * chains that end at its last frame, count, their number; and what went
 * on below: children_hit, children_count. Appending walks the tree from
 * the root: a child whose first frame matches the cursor's takes it; a
 * node matched only in part is split (perf's split_add_child: the rest
 * of its frames, its children and its hits go to a new first child),
 * and the chain's rest, if any, becomes a new child. Two frames match
 * when they are of one function (the same dso and symbol; perf compares
 * the symbol's start), or, where neither has a symbol, of one dso and
 * address (perf's CCKEY_FUNCTION).
 *
 * Nodes and frames live in two arrays of the report (indices, 0 none):
 * a row's tree, reached through the index at the end of the row, costs
 * what its distinct chains cost, not its samples. A node's children are
 * found through a hash of their first frames keyed by the node's
 * children set (cset), where perf keeps an rb-tree: a split hands the
 * set to the new node with the children, so none is keyed again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/report.h"
#include "core/opts.h"
#include "report/report-rows.h"

/* perf's CALLCHAIN_DEFAULT_OPT of perf report -g without argument */
#define PERF_DEFAULT_OPT	"graph,0.5,caller,function,percent"
#define DEFAULT_THRESHOLD	0.5

/* cursor: @nr frames from @f (the leaf first), shown from @pos on in
   callee order (@callee) or caller order */
struct cursor {
	const struct pebs_frame *f;
	unsigned int nr, pos;
	bool callee;
};

static const struct pebs_frame *cur(const struct cursor *c)
{
	if (c->pos >= c->nr)
		return NULL;
	return c->callee ? &c->f[c->pos] : &c->f[c->nr - 1 - c->pos];
}

/* whether frame @e of the tree and the cursor's @fr are one function
   (perf also compares a frame without a symbol with one that has one
   by address: the same address named one time and not another) */
static bool match(const struct rp_gframe *e, const struct pebs_frame *fr)
{
	if (e->dso != fr->dso || !e->sym != !fr->sym)
		return false;
	return e->sym ? e->sym == fr->sym : e->ip == fr->ip;
}

/* the hash of a child: its parent's children set @cset, and its first
   frame's function (match's terms) */
static uint64_t key_hash(uint32_t cset, const char *dso, const char *sym,
			 uint64_t ip)
{
	uint64_t h = cset * 0x9e3779b97f4a7c15ull;

	h ^= (uintptr_t)dso * 0xff51afd7ed558ccdull;
	h ^= sym ? (uintptr_t)sym * 0xc4ceb9fe1a85ec53ull :
		   ~(ip * 0x2545f4914f6cdd1dull);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static uint64_t node_hash(const struct rp_graph *g, uint32_t n)
{
	const struct rp_gframe *e = &g->frames[g->nodes[n].val];

	return key_hash(g->nodes[g->nodes[n].parent].cset, e->dso, e->sym,
			e->ip);
}

static void put_slot(struct rp_graph *g, uint32_t n)
{
	uint32_t mask = g->cap_slots - 1, i;

	for (i = (uint32_t)node_hash(g, n) & mask; g->slots[i];
	     i = (i + 1) & mask)
		;
	g->slots[i] = n;
}

/* child @n (its parent and frames set) into the hash: 0 or -ENOMEM */
static int keep_child(struct rp_graph *g, uint32_t n)
{
	uint32_t *old = g->slots, cap = g->cap_slots, i;

	if ((g->nr_keyed + 1) * 2 > g->cap_slots) {
		if (cap > UINT32_MAX / 4)
			return -ENOMEM;
		g->cap_slots = cap ? 2 * cap : 1024;
		g->slots = calloc(g->cap_slots, sizeof(*g->slots));
		if (!g->slots) {
			g->slots = old;
			g->cap_slots = cap;
			return -ENOMEM;
		}
		for (i = 0; i < cap; i++)
			if (old[i])
				put_slot(g, old[i]);
		free(old);
	}
	put_slot(g, n);
	g->nr_keyed++;
	return 0;
}

/* the child of @parent whose first frame is @fr's function, or 0
   (perf's rb-tree of children: a lookup, not a walk of them all) */
static uint32_t find_child(const struct rp_graph *g, uint32_t parent,
			   const struct pebs_frame *fr)
{
	uint32_t cset = g->nodes[parent].cset, mask = g->cap_slots - 1, i, s;

	if (!g->cap_slots)
		return 0;
	for (i = (uint32_t)key_hash(cset, fr->dso, fr->sym, fr->ip) & mask;
	     (s = g->slots[i]); i = (i + 1) & mask)
		if (g->nodes[g->nodes[s].parent].cset == cset &&
		    match(&g->frames[g->nodes[s].val], fr))
			return s;
	return 0;
}

/* a node of the tree (index), zeroed; 0: out of memory */
static uint32_t new_node(struct rp_graph *g)
{
	if (g->nr_nodes == UINT32_MAX || g->nr_csets == UINT32_MAX ||
	    core_grow(&g->nodes, &g->cap_nodes, (size_t)g->nr_nodes + 1,
		      sizeof(*g->nodes)))
		return 0;
	memset(&g->nodes[g->nr_nodes], 0, sizeof(g->nodes[0]));
	g->nodes[g->nr_nodes].cset = ++g->nr_csets;
	return g->nr_nodes++;
}

/* the cursor's frames from its position on into the frame array:
   their first index, 0 out of memory (index 0 is never a frame's) */
static uint32_t copy_frames(struct rp_graph *g, struct cursor *c)
{
	size_t need = (size_t)g->nr_frames + (c->nr - c->pos);
	const struct pebs_frame *fr;
	uint32_t first = g->nr_frames;

	if (need > UINT32_MAX ||
	    core_grow(&g->frames, &g->cap_frames, need, sizeof(*g->frames)))
		return 0;
	for (; (fr = cur(c)); c->pos++) {
		struct rp_gframe *e = &g->frames[g->nr_frames++];

		e->ip = fr->ip;
		e->sym = fr->sym;
		e->dso = fr->dso;
		e->kernel = fr->kernel;
	}
	return first;
}

/* perf's add_child: a child of @parent holding the cursor's rest (at
   least one frame), @period ending there; 0 out of memory */
static uint32_t add_child(struct rp_graph *g, uint32_t parent,
			  struct cursor *c, uint64_t period)
{
	uint32_t n = new_node(g), nr = c->nr - c->pos, first;
	struct rp_gnode *p;

	if (!n)
		return 0;
	first = copy_frames(g, c);
	if (!first)
		return 0;
	p = &g->nodes[parent];
	g->nodes[n].parent = parent;
	g->nodes[n].val = first;
	g->nodes[n].nval = nr;
	g->nodes[n].hit = period;
	g->nodes[n].count = 1;
	if (p->last)
		g->nodes[p->last].next = n;
	else
		p->child = n;
	p->last = n;
	return keep_child(g, n) ? 0 : n;
}

/* perf's split_add_child: @node matched in its first @k frames only;
   its rest goes to a new first child with its children and hits, and
   the cursor's rest, if any, to a second one */
static int split(struct rp_graph *g, uint32_t node, uint32_t k,
		 struct cursor *c, uint64_t period)
{
	uint32_t n = new_node(g), ch;
	struct rp_gnode *p, *s;

	if (!n)
		return -ENOMEM;
	p = &g->nodes[node];
	s = &g->nodes[n];
	*s = *p;	/* its hits, counts, children and their set */
	s->parent = node;
	s->next = 0;
	s->val += k;
	s->nval -= k;
	if (g->nr_csets == UINT32_MAX)
		return -ENOMEM;
	p->cset = ++g->nr_csets;	/* its children now: s, and the new */
	if (keep_child(g, n))
		return -ENOMEM;
	for (ch = s->child; ch; ch = g->nodes[ch].next)
		g->nodes[ch].parent = n;
	p->nval = k;
	p->child = p->last = n;
	p->children_hit = s->hit + s->children_hit;
	p->children_count = s->count + s->children_count;
	if (c->pos < c->nr) {
		p->hit = 0;
		p->count = 0;
		p->children_hit += period;
		p->children_count++;
		return add_child(g, node, c, period) ? 0 : -ENOMEM;
	}
	p->hit = period;
	p->count = 1;
	return 0;
}

/* perf's append_chain_children and append_chain, as one walk down from
   @node (a root, or a node fully matched): the cursor's rest (at least
   one frame) added under it */
static int append(struct rp_graph *g, uint32_t node, struct cursor *c,
		  uint64_t period)
{
	for (;;) {
		const struct pebs_frame *fr = cur(c);
		uint32_t ch, k;
		struct rp_gnode *n;

		ch = find_child(g, node, fr);
		g->nodes[node].children_hit += period;
		g->nodes[node].children_count++;
		if (!ch)
			return add_child(g, node, c, period) ? 0 : -ENOMEM;
		n = &g->nodes[ch];
		for (k = 0; k < n->nval && (fr = cur(c)) &&
			    match(&g->frames[n->val + k], fr); k++)
			c->pos++;
		if (k < n->nval)
			return split(g, ch, k, c, period);
		if (c->pos == c->nr) {
			n->hit += period;
			n->count++;
			return 0;
		}
		node = ch;
	}
}

/* The graph root of @row, made if new: 0 out of memory. */
static uint32_t row_root(struct pebs_report *r, unsigned char *row)
{
	uint32_t *root = row_graph(r, row);

	if (!*root)
		*root = new_node(r->graph);
	return *root;
}

int rp_graph_append(struct pebs_report *r, unsigned char *row,
		    const struct pebs_frame *frames, unsigned int nr,
		    unsigned int pos, uint64_t period)
{
	struct cursor c = {
		.f = frames, .nr = nr, .pos = pos,
		.callee = rp_graph_callee(r),
	};
	uint32_t root;

	if (pos >= nr)
		return 0;
	root = row_root(r, row);
	if (!root || append(r->graph, root, &c, period))
		return core_err(-ENOMEM, "report: out of memory");
	return 0;
}

bool rp_graph_callee(const struct pebs_report *r)
{
	return rp_order_callee(r->graph->o.order, r->children);
}

/* perf's strncmp(value, word, strlen(value)): @tok a prefix of @word */
static bool prefix(const char *tok, const char *word)
{
	return !strncmp(tok, word, strlen(tok));
}

/* One word of perf's -g argument: 1 known (and set), 0 not a word. */
static int graph_word(const char *tok, struct pebs_report_graph_opts *g)
{
	static const struct {
		const char *word;
		int what;	/* 0 mode, 1 order, 2 key, 3 value */
		int val;
	} words[] = {
		{ "graph", 0, PEBS_GRAPH_GRAPH },
		{ "flat", 0, PEBS_GRAPH_FLAT },
		{ "fractal", 0, PEBS_GRAPH_FRACTAL },
		{ "folded", 0, PEBS_GRAPH_FOLDED },
		{ "caller", 1, PEBS_GRAPH_CALLER },
		{ "callee", 1, PEBS_GRAPH_CALLEE },
		{ "function", 2, 0 },
		{ "address", 2, -1 },
		{ "srcline", 2, -1 },
		{ "branch", 2, -1 },
		{ "percent", 3, PEBS_GRAPH_PERCENT },
		{ "period", 3, PEBS_GRAPH_PERIOD },
		{ "count", 3, PEBS_GRAPH_COUNT },
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!prefix(tok, words[i].word))
			continue;
		switch (words[i].what) {
		case 0:
			g->mode = (enum pebs_graph_mode)words[i].val;
			break;
		case 1:
			g->order = (enum pebs_graph_order)words[i].val;
			break;
		case 2:
			if (words[i].val < 0)
				return core_err(-EINVAL, "-g: the sort key "
						"'%s' is not supported: "
						"use function", words[i].word);
			break;
		default:
			g->value = (enum pebs_graph_value)words[i].val;
			break;
		}
		return 1;
	}
	return 0;
}

int pebs_report_graph__parse(const char *arg,
			     struct pebs_report_graph_opts *g)
{
	char buf[256], *save = NULL, *tok, *end, *s;
	bool threshold = false;
	unsigned long v;
	int w;

	if (!g || !g->sz)
		return core_err(-EINVAL, "-g: no options (use PEBS_OPTS)");
	if (!arg)
		arg = PERF_DEFAULT_OPT;
	if (strlen(arg) >= sizeof(buf))
		return core_err(-EINVAL, "-g: '%.32s...' is too long", arg);
	strcpy(buf, arg);
	for (s = buf; (tok = strtok_r(s, ",", &save)); s = NULL) {
		if (prefix(tok, "none")) {
			g->mode = PEBS_GRAPH_NONE;
			return 0;
		}
		w = graph_word(tok, g);
		if (w < 0)
			return w;
		if (w)
			continue;
		if (!threshold) {	/* perf: the first number */
			g->threshold = strtod(tok, &end);
			if (end == tok || *end || !(g->threshold >= 0))
				return core_err(-EINVAL, "-g: '%s' is no "
						"mode, order, key, value or "
						"threshold (see -h)", tok);
			g->has_threshold = true;
			threshold = true;
			continue;
		}
		errno = 0;
		v = strtoul(tok, &end, 0);	/* then the print limit */
		if (end == tok || *end || errno || v > UINT32_MAX ||
		    *tok == '-')
			return core_err(-EINVAL, "-g: '%s' is no print "
					"limit (a number of branches)", tok);
		g->print_limit = (unsigned int)v;
	}
	return 0;
}

int pebs_report__set_graph(struct pebs_report *r,
			   const struct pebs_report_graph_opts *g)
{
	struct rp_graph *gr;

	if (!r || !g)
		return core_err(-EINVAL, "report: no report or graph");
	if (r->nr || r->samples || r->nr_all || r->graph)
		return core_err(-EINVAL, "report: the graph is set before "
				"the first sample");
	if (r->defer)
		return core_err(-EINVAL, "report: no graph for a deferred "
				"report");
	gr = calloc(1, sizeof(*gr));
	if (!gr)
		return core_err(-ENOMEM, "report: out of memory");
	if (opts_copy(&gr->o, sizeof(gr->o), g, "pebs_report_graph_opts") ||
	    gr->o.mode > PEBS_GRAPH_NONE || gr->o.order > PEBS_GRAPH_CALLEE ||
	    gr->o.value > PEBS_GRAPH_COUNT || !(gr->o.threshold >= 0)) {
		free(gr);
		return core_err(-EINVAL, "report: a bad graph option");
	}
	if (!gr->o.has_threshold)
		gr->o.threshold = DEFAULT_THRESHOLD;
	/* perf's -g none: no chains kept, and no depth to tie by */
	if (gr->o.mode == PEBS_GRAPH_NONE) {
		free(gr);
		r->no_depth = true;
		return 0;
	}
	gr->nr_nodes = gr->nr_frames = 1;	/* index 0: none */
	r->graph = gr;
	rp_layout(r);
	return 0;
}

bool pebs_report__graph(const struct pebs_report *r)
{
	return r && r->graph;
}

void rp_graph_free(struct pebs_report *r)
{
	if (!r->graph)
		return;
	free(r->graph->nodes);
	free(r->graph->frames);
	free(r->graph->slots);
	free(r->graph);
	r->graph = NULL;
}
