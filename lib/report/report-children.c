// SPDX-License-Identifier: MIT
/*
 * report-children.c - perf report --children: cumulative entries, as
 * perf 6.1's hist_entry_iter with hist_iter_cumulative (util/hist.c).
 *
 * A sample counts in its own row (Self, as pebs_report__add) and in the
 * row of each frame of its call chain (Children): the frame's key is
 * the sample's with the frame's dso, symbol, address and mode in place
 * of the sample's own (perf's fill_callchain_info; an unresolved frame
 * keeps its raw address where the sample's own row has the address
 * within its file, so that perf's two rows are two here too). Each row
 * counts a sample once: perf's he_cache, the rows met in this sample
 * (its own first, then the frames from the root on), skips a key met
 * before, so a recursive function's row is not counted for each of its
 * frames and no row passes 100 %.
 *
 * perf orders rows by Children, then "caller above callee": between two
 * rows first counted from the same thread, the one whose call chains
 * reach deeper (callchain_root.max_depth: the frames from its first
 * frame, in caller order, to the leaf; a sample's own row, the whole
 * chain) comes first; then by Self and the keys as without children.
 * A row's racc (after its atoms) holds the Children samples and period
 * and that depth.
 */
#include <errno.h>
#include <string.h>

#include "pebsshim/report.h"
#include "report/report-rows.h"

bool pebs_report__can_cumulate(const enum pebs_report_key *keys,
			       unsigned int n)
{
	unsigned int flags;

	/* the keys of code: those rk_direct takes from the sample alone */
	return keys && n && rk_direct(keys, n, &flags);
}

int pebs_report__set_children(struct pebs_report *r)
{
	if (!r)
		return core_err(-EINVAL, "report: no report");
	if (r->children)
		return 0;
	if (!pebs_report__can_cumulate(r->keys, r->nr_keys))
		return core_err(-EINVAL, "report: children need keys of code "
				"(pid, tgid, tid, comm, dso, sym, cpu, "
				"event): "
				"drop the data keys");
	if (r->nr || r->samples || r->defer || r->nr_all)
		return core_err(-EINVAL, "report: children are set before "
				"the first sample");
	r->children = true;
	rp_layout(r);
	return 0;
}

bool pebs_report__children(const struct pebs_report *r)
{
	return r && r->children;
}

int rp_acc_cmp(const struct pebs_report *r, const unsigned char *x,
	       const unsigned char *y)
{
	const struct racc *ax = row_acc(r, x), *ay = row_acc(r, y);
	const struct rsum *sx = (const struct rsum *)x;
	const struct rsum *sy = (const struct rsum *)y;

	if (ax->period != ay->period)
		return ax->period < ay->period ? 1 : -1;
	/* perf's __hpp__sort_acc: a->thread == b->thread, with call
	   chains used (not -g none), the callchain order caller
	   (children's default): the deeper first; callee: the shallower */
	if (r->no_depth || sx->tid0 != sy->tid0 || ax->depth == ay->depth)
		return 0;
	if (r->graph && rp_graph_callee(r))
		return ax->depth < ay->depth ? -1 : 1;
	return ax->depth < ay->depth ? 1 : -1;
}

/* @row counted in a sample's children: @depth frames from its first
   frame to the chain's end in the order shown (perf's max_depth). */
static int count(struct pebs_report *r, unsigned char *row,
		 const struct pebs_report_sample *s, uint64_t depth)
{
	struct racc *acc = row_acc(r, row);

	if (rp_row_add_tid(r, (struct rsum *)row, s->tid))
		return -ENOMEM;
	acc->samples++;
	acc->period += s->period;
	if (depth > acc->depth)
		acc->depth = depth;
	return 0;
}

/* Whether @row is among the @n rows @seen. */
static bool met(unsigned char *const *seen, unsigned int n,
		const unsigned char *row)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (seen[i] == row)
			return true;
	return false;
}

/* The sample's own row: as pebs_report__add, with its whole chain of
   @nr @frames in its graph, and its children. */
static int add_self(struct pebs_report *r, const struct pebs_report_sample *s,
		    const struct pebs_frame *frames, unsigned int nr,
		    unsigned char **rowp)
{
	uint64_t a[RK_NR_FIELDS];
	struct rsum *row;
	struct rext *e;
	uint32_t h = rp_make_key(r, s, a);

	if (rp_add_row(r, a, h, s->tid, 1, s->period, rp_src_bits(s), &row))
		return -ENOMEM;
	if (s->has_weight) {
		e = rp_row_ext(r, row);
		if (!e)
			return -ENOMEM;
		e->weight_sum += s->weight;
		e->weight_nr++;
	}
	*rowp = (unsigned char *)row;
	if (r->graph && rp_graph_append(r, *rowp, frames, nr, 0, s->period))
		return -ENOMEM;
	return r->children ? count(r, *rowp, s, nr) : 0;
}

int pebs_report__add_chain(struct pebs_report *r,
			   const struct pebs_report_sample *s,
			   const struct pebs_frame *frames, unsigned int nr)
{
	unsigned char *seen[PEBS_CALLCHAIN_MAX + 1], *row;
	struct pebs_report_sample t;
	uint64_t a[RK_NR_FIELDS];
	unsigned int n = 0, i, k;
	bool callee;

	if (!r || !s || (nr && !frames))
		return core_err(-EINVAL, "report: no report or sample");
	if (!r->children && !r->graph)
		return pebs_report__add(r, s);
	if (nr > PEBS_CALLCHAIN_MAX)
		nr = PEBS_CALLCHAIN_MAX;
	rp_add_totals(r, s->event, 1, s->period);
	if (!rp_keyed(r, s))	/* hidden: in the totals only */
		return r->err ? rp_err_add(r, NULL, s, s->period,
					   rp_wsq(s->period)) : 0;
	if (add_self(r, s, frames, nr, &seen[n++]) ||
	    (r->err && rp_err_add(r, (struct rsum *)seen[0], s, s->period,
				  rp_wsq(s->period))))
		return core_err(-ENOMEM, "report: out of memory");
	if (!r->children)
		return 0;
	/* the frames in perf's cursor order (k: the position there),
	   caller first unless the graph is shown callee first; a frame in
	   no mapping keeps the mode of the one before (perf's
	   fill_callchain_info leaves its addr_location's level as it was:
	   the sample's own first); a row takes the chain from its frame
	   on (perf's cursor snapshot) */
	callee = r->graph && rp_graph_callee(r);
	t = *s;
	for (k = 0; k < nr; k++) {
		i = callee ? k : nr - 1 - k;
		t.ip = frames[i].ip;
		t.sym = frames[i].sym;
		t.dso = frames[i].dso;
		if (t.dso)
			t.kernel = frames[i].kernel;
		row = rp_find_row(r, a, rp_make_key(r, &t, a));
		if (!row)
			return core_err(-ENOMEM, "report: out of memory");
		if (met(seen, n, row))
			continue;
		seen[n++] = row;
		if (count(r, row, s, nr - k) ||
		    (r->graph &&
		     rp_graph_append(r, row, frames, nr, k, s->period)))
			return core_err(-ENOMEM, "report: out of memory");
	}
	return 0;
}

int pebs_report__chain(struct pebs_symbols *syms, const struct pebs_sample *s,
		       bool kernel, struct pebs_frame *frames, unsigned int max)
{
	int nr = pebs_callchain__resolve(syms, s, kernel, frames, max);
	int i;

	/* perf's thread maps hold every mapping recorded, not only the
	   executable ones, and a dso's symbols its data objects too: a
	   user frame outside those (a broken stack's return address into
	   a data segment or the stack) is in the mapping that holds it,
	   named by the data symbol there */
	for (i = 0; i < nr; i++)
		if (!frames[i].dso && !frames[i].kernel &&
		    frames[i].ip < KERNEL_START &&
		    pebs_callchain__data_frame(syms, (pid_t)s->pid,
					       &frames[i]) == -ENOMEM)
			return core_err(-ENOMEM, "report: out of memory");
	return nr;
}

unsigned int pebs_report__max_stack(struct pebs_frame *frames,
				    unsigned int nr, unsigned int max,
				    enum pebs_graph_order order, bool children,
				    bool unwound)
{
	bool caller = !rp_order_callee(order, children);
	unsigned int k = 0, u;

	if (!frames || nr <= max)
		return nr;
	if (!unwound) {	/* one chain */
		if (caller)
			memmove(frames, frames + nr - max,
				max * sizeof(*frames));
		return max;
	}
	/* dwarf: the kernel's part, then the unwound frames */
	while (k < nr && frames[k].kernel)
		k++;
	u = nr - k < max ? nr - k : max;
	if (k > max) {
		if (caller)
			memmove(frames, frames + k - max,
				max * sizeof(*frames));
		memmove(frames + max, frames + k, u * sizeof(*frames));
		k = max;
	}
	return k + u;
}

double pebs_report__children_overhead(const struct pebs_report *r,
				      const struct pebs_report_row *row,
				      bool per_event)
{
	uint64_t samples, period;

	if (!r || !row || !r->children)
		return 0;
	pebs_report__totals(r, per_event ? (int)row->event : -1, &samples,
			    &period);
	if (period)
		return 100.0 * (double)row->children_period / (double)period;
	return samples ? 100.0 * (double)row->children_samples /
			 (double)samples : 0;
}
