// SPDX-License-Identifier: MIT
/*
 * report-run.c - `pebs-shim report`'s pass (tools/cmd-report.c parses
 * its options): a pebs_session replays the records in time order
 * (threads and maps over time) and hands each sample, resolved against
 * the state of its time, to on_sample, which filters it (pebs_filter)
 * and adds it to the pebs_report of every table (but the data pages of
 * the default text tables, summed from the cache lines after the pass:
 * pebs_report__derive_top), with its call chain's frames where a table
 * has children (perf report --children, the default with call chains:
 * pebs_report__add_chain). The library prints
 * (pebs_report_tables__print, pebs_c2c__print_summary); --stats,
 * --tasks and --mmaps count the records instead (records).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pebsshim.h"
#include "report.h"
#include "util.h"

/* the call graph for table @title's @rep: the --sort table, else the
   symbols table; -g none: every table (perf's order without depth) */
static int set_graph(struct report *r, const char *title,
		     struct pebs_report *rep)
{
	r->graph.syms = pebs_session__symbols(r->ss);
	if (r->graph.mode == PEBS_GRAPH_NONE)
		return pebs_report__set_graph(rep, &r->graph);
	if (r->sort || !strcmp(title, "symbols")) {
		r->chains = true;
		return pebs_report__set_graph(rep, &r->graph);
	}
	return 0;
}

static int add_table(struct report *r, const char *title, const char *keys)
{
	enum pebs_report_key k[PEBS_REPORT_MAX_KEYS + 1];
	struct table *t = &r->tables[r->nr_tables];
	unsigned int needs;
	char buf[128];
	int n;

	/* with several events, each table is split by event first */
	snprintf(buf, sizeof(buf), "%s%s", r->by_event ? "event," : "", keys);
	n = pebs_report__parse_keys(buf, k, PEBS_REPORT_MAX_KEYS);
	if (n < 0 || pebs_report__new(k, (unsigned int)n, r->nr_attrs,
				      &t->rep))
		return -1;
	t->title = title;
	r->nr_tables++;
	if (r->errors && pebs_report__set_errors(t->rep))
		return -1;
	/* perf's children where its keys allow them */
	if (r->cumulate && pebs_report__can_cumulate(k, (unsigned int)n)) {
		if (pebs_report__set_children(t->rep))
			return -1;
		r->chains = true;
	}
	if (r->graph_set && set_graph(r, title, t->rep))
		return -1;
	needs = pebs_report__needs(t->rep);
	r->need_objects |= needs & PEBS_REPORT_NEEDS_OBJECTS;
	r->need_data |= needs & PEBS_REPORT_NEEDS_DATA;
	r->need_srclines |= needs & PEBS_REPORT_NEEDS_SRCLINES;
	return 0;
}

/* The default tables, or the one --sort asks for. */
static int setup_tables(struct report *r, const char *sort)
{
	if (sort)
		return add_table(r, "samples by --sort keys", sort);
	if (add_table(r, "threads", "tgid,tid,comm") ||
	    add_table(r, "symbols", "sym,dso") ||
	    add_table(r, "data pages", "page") ||
	    add_table(r, "cache lines", "line"))
		return -1;
	/* text shows the top rows only: pages are summed from the lines
	   after the pass, not looked up per sample */
	if (r->format == PEBS_REPORT_FORMAT_TEXT && r->percent_limit <= 0) {
		r->tables[2].from = r->tables[3].rep;
		/* and the lines (one key: not split by event) by sorting:
		   a million of them cost a sort, not a million lookups */
		if (!r->by_event && pebs_report__defer(r->tables[3].rep))
			return -1;
	}
	return add_table(r, "data sources", "src");
}

/* whether event @ev's samples are unwound (--call-graph dwarf) */
static bool unwound(const struct report *r, unsigned int ev)
{
	const struct perf_event_attr *a = pebs_perfdata__attr(r->pd, ev, NULL,
							      NULL);

	return a && (a->sample_type & PEBS_SAMPLE_DWARF) == PEBS_SAMPLE_DWARF;
}

/* A sample resolved by the session: into every table (in batches). */
static int on_sample(void *arg, const struct pebs_sample *s,
		     const struct pebs_report_sample *res)
{
	struct report *r = arg;
	struct pebs_report_sample hidden, cost;
	int m = pebs_filter__match(r->filter, res, s->time), nr;

	/* allocations and releases are no accesses (unless --event) */
	if (m == PEBS_FILTER_ASIDE) {
		r->bookkept++;
		return 0;
	}
	r->samples++;
	switch (m) {
	case PEBS_FILTER_DROP:
		r->filtered++;
		return 0;
	case PEBS_FILTER_HIDE:	/* in the totals only */
		if (r->relative) {	/* perf's total_non_filtered */
			r->filtered++;
			return 0;
		}
		hidden = *res;
		hidden.hidden = true;
		res = &hidden;
		r->filtered++;
		break;
	default:
		break;
	}
	if (r->mem_mode) {
		cost = *res;
		pebs_report_sample__mem_cost(&cost);
		res = &cost;
	}
	r->with_addr += res->has_addr;
	/* a source that says something (not a software event's N/A) */
	r->with_src += res->has_src && pebs_data_src__known(res->data_src);
	if (pebs_weights__add(r->weights, res) ||
	    (r->objs && !res->hidden &&
	     (pebs_objects__add_sample(r->objs, res) ||
	      (r->c2c && pebs_objects__add_line_sample(r->objs, res)))))
		return -ENOMEM;
	if (r->chains && !res->hidden) {
		/* the frames of the sample's time, for the children */
		nr = pebs_report__chain(pebs_session__symbols(r->ss), s,
					res->kernel, r->frames,
					PEBS_CALLCHAIN_MAX);
		if (nr == -ENOMEM)
			return -ENOMEM;
		if (r->max_stack >= 0 && nr > 0)
			nr = (int)pebs_report__max_stack(r->frames,
				(unsigned int)nr, (unsigned int)r->max_stack,
				r->graph.order, r->cumulate,
				unwound(r, res->event));
		return pebs_report_feed__add_chain(r->feed, res, r->frames,
						   nr > 0 ? (unsigned int)nr :
						   0);
	}
	return pebs_report_feed__add(r->feed, res);
}

/* Whether some event samples @type (PERF_SAMPLE_ADDR: else no line can
   be shared: no sharing section, no c2c table fed). */
static bool any_sample_type(const struct report *r, uint64_t type)
{
	const struct perf_event_attr *a;
	unsigned int i;

	for (i = 0; i < r->nr_attrs; i++) {
		a = pebs_perfdata__attr(r->pd, i, NULL, NULL);
		if (a && (a->sample_type & type))
			return true;
	}
	return false;
}

/* --header, --header-only: the features as perf prints them, with the
   file's modification time as perf's "captured on" */
static int print_header(struct report *r)
{
	struct stat st;
	int ok = !strcmp(r->path, "-") ? fstat(STDIN_FILENO, &st) :
		 stat(r->path, &st);

	if (pebs_perfdata__print_header(r->pd, stdout, ok ? 0 : st.st_mtime,
					r->show_info ? PEBS_HEADER_FULL : 0)) {
		tool_err("report", "cannot write the header: %s",
			 strerror(errno));
		return 1;
	}
	return 0;
}

static void print_tables(const struct report *r)
{
	struct pebs_report_table t[MAX_TABLES];
	unsigned int i;

	for (i = 0; i < r->nr_tables; i++) {
		t[i].title = r->tables[i].title;
		t[i].rep = r->tables[i].rep;
	}
	PEBS_OPTS(pebs_report_print_opts, o, .format = r->format,
		  .path = r->path, .pd = r->pd, .stats = r->st, .tables = t,
		  .nr_tables = r->nr_tables, .top = r->top,
		  .percent_limit = r->percent_limit, .show_nr = r->show_nr,
		  .quiet = r->quiet, .show_period = r->show_period,
		  .by_event = r->by_event, .mem_mode = r->mem_mode,
		  .sort = r->sort, .weights = r->weights, .samples = r->samples,
		  .filtered = r->filtered, .with_addr = r->with_addr,
		  .with_src = r->with_src, .flags = r->flags, .objs = r->objs,
		  .sole_event = r->sole_event, .bookkeeping = r->bookkept,
		  .threads = pebs_session__threads(r->ss));
	pebs_report_tables__print(stdout, &o);
}

/* --stats, --tasks, --mmaps: the records counted, or the tasks */
static int records(struct report *r)
{
	struct pebs_tasks *ts = NULL;
	unsigned int flags = 0;
	int err;

	if (r->stats) {
		err = pebs_perfdata__print_stats(r->pd, !r->keep_empty, stdout);
	} else {
		err = pebs_tasks__new(r->tasks & PEBS_TASKS_MMAPS, &ts);
		if (!err)
			err = pebs_tasks__read(ts, r->pd, &flags);
		if (!err)
			err = pebs_tasks__print(ts, stdout);
		pebs_tasks__delete(ts);
	}
	if (err) {
		tool_err("report", "%s: %s", r->path, pebs_errmsg());
		return 1;
	}
	if (flags & PEBS_ORDERED_FILE_ORDER)
		tool_err("report", "%s: an event does not sample TIME: records taken "
			   "in file order", r->path);
	tool_warn_truncated("report", r->path, r->pd);
	return 0;
}

int report_run(struct report *r, const char *sort)
{
	struct pebs_report *fed[MAX_TABLES];
	unsigned int i, n;
	int err, ferr;
	char buf[32];

	err = r->header == 2 ? pebs_perfdata__open(r->path, &r->pd) :
			       pebs_perfdata__open_rewindable(r->path, &r->pd);
	if (err) {
		tool_err("report", "%s: give a perf.data file with -i", pebs_errmsg());
		return 1;
	}
	if (r->header && print_header(r))
		return 1;
	if (r->header == 2)
		return 0;
	if (r->stats || r->tasks)
		return records(r);
	if (pebs_session__new(r->pd, &r->ss)) {
		tool_err("report", "%s", pebs_errmsg());
		return 1;
	}
	if (tool_symfs("report", r->ss, r->symfs))
		return 2;
	if (r->quantum)
		pebs_session__set_time_quantum(r->ss, r->quantum);
	r->st = pebs_session__stats(r->ss);
	/* record --objects' allocations, releases, stacks and TLS blocks are
	   left out of the tables and of the split by event, unless --event
	   names them */
	if (!r->events && pebs_filter__aside_objects(r->filter, r->pd))
		goto out_oom;
	/* samples of several events: split tables */
	r->by_event = pebs_filter__nr_sampled(r->filter, r->st,
					      &r->sole_event) > 1;
	/* HEADER_ATTR records may have added events */
	r->nr_attrs = pebs_perfdata__nr_attrs(r->pd);
	/* perf's default: children when the samples have call chains, but
	   not in --mem-mode, nor of a pipe-mode stream (perf 6.1 decides
	   before it has read the stream's events; --children here has
	   them) */
	r->cumulate = r->children && !r->mem_mode &&
		      (r->children == 1 || !pebs_perfdata__is_pipe(r->pd)) &&
		      any_sample_type(r, PERF_SAMPLE_CALLCHAIN);
	/* record --budget: periods that moved, windows of a duty cycle
	   (the cycles' starts tell a killed recording without its meta) */
	r->errors |= pebs_perfdata__meta(r->pd, "budget", buf, sizeof(buf)) > 0 ||
		     r->st->cycles;
	/* perf: "Selected -g ... But no callchain" */
	if (r->graph_set && r->graph.mode != PEBS_GRAPH_NONE &&
	    !any_sample_type(r, PERF_SAMPLE_CALLCHAIN)) {
		tool_err("report", "%s: -g: the samples have no call chains: "
			 "record with -g (or --call-graph dwarf)", r->path);
		return 2;
	}
	if (pebs_weights__new(&r->weights) || setup_tables(r, sort))
		goto out_oom;	/* the keys were checked before */

	if (r->events && pebs_filter__events(r->filter, r->pd, r->events)) {
		tool_err("report", "%s: %s", r->path, pebs_errmsg());
		return 2;
	}
	if (r->time_spec && pebs_filter__time(r->filter, r->time_spec,
					      r->st->first_time,
					      r->st->last_time)) {
		tool_err("report", "%s", pebs_errmsg());
		return 2;
	}
	/* the sharing section (text, default tables), or the objects'
	   lines' sharing classes, in the same pass */
	if (((!sort && r->format == PEBS_REPORT_FORMAT_TEXT) ||
	     r->need_objects) && any_sample_type(r, PERF_SAMPLE_ADDR) &&
	    (pebs_c2c__new(&r->c2c) ||
	     pebs_session__set_c2c(r->ss, r->c2c, PEBS_SESSION_C2C_SHARED |
				   (pebs_objects__recorded(r->pd) ?
				    PEBS_SESSION_C2C_NO_DUMMY : 0))))
		goto out_oom;
	if (pebs_session__set_srclines(r->ss, r->need_srclines))
		goto out_oom;
	/* heap objects from the pebs-shim:alloc/free samples of the pass */
	if (r->need_objects &&
	    pebs_session__use_objects(r->ss, PEBS_OBJECTS_ANY_RECORDING,
				      &r->objs))
		goto out_oom;
	/* the tables fed from the samples, on a thread of their own */
	for (i = 0, n = 0; i < r->nr_tables; i++)
		if (!r->tables[i].from)
			fed[n++] = r->tables[i].rep;
	if (pebs_report_feed__new(fed, n, &r->feed))
		goto out_oom;
	/* kernel samples met before /proc/kallsyms is read are named
	   after the pass (pebs_report__name_kernel), not waited for; but
	   call chains' frames are named as they come, and rows with
	   sampling errors keep their cycles, which a merge cannot */
	pebs_symbols__kernel_nowait(pebs_session__symbols(r->ss),
				    !r->chains && !r->errors &&
				    !r->need_srclines);
	err = pebs_session__process(r->ss, r->need_data, on_sample, r,
				    &r->flags);
	ferr = pebs_report_feed__finish(r->feed);
	if (err == -ENOMEM || ferr)
		goto out_oom;
	if (err < 0)
		tool_err("report", "%s: a damaged record: reporting the records before "
			   "it", r->path);
	tool_warn_truncated("report", r->path, r->pd);
	for (i = 0; i < r->nr_tables; i++)
		if (!r->tables[i].from &&
		    pebs_report__name_kernel(r->tables[i].rep,
					     pebs_session__symbols(r->ss)))
			goto out_oom;
	if (r->flags & PEBS_ORDERED_FILE_ORDER)
		tool_err("report", "%s: an event does not sample TIME: records taken "
			   "in file order", r->path);
	/* without --percent-limit the text shows the first --top rows:
	   only those need an order */
	for (i = 0; i < r->nr_tables; i++)
		if (!r->tables[i].from)
			pebs_report__sort_top(r->tables[i].rep,
					      r->format == PEBS_REPORT_FORMAT_TEXT &&
					      r->percent_limit <= 0 ? r->top :
					      SIZE_MAX);
	for (i = 0; i < r->nr_tables; i++)
		if (r->tables[i].from &&
		    pebs_report__derive_top(r->tables[i].rep,
					    r->tables[i].from, r->top))
			goto out_oom;
	/* the objects' sharing classes from c2c's lines */
	if (r->objs && r->c2c && pebs_objects__c2c_sharing(r->objs, r->c2c))
		goto out_oom;
	print_tables(r);
	if (r->format != PEBS_REPORT_FORMAT_TEXT)
		return 0;
	/* who shares a cache line: perf c2c's rules (lib/c2c/c2c.c); not
	   a table of perf's: left out by -q */
	if (!sort && !r->quiet && r->c2c && r->with_addr &&
	    pebs_c2c__print_summary(r->c2c, stdout,
				    pebs_session__threads(r->ss),
				    r->top) == -ENOMEM)
		goto out_oom;
	return 0;

out_oom:
	tool_err("report", "out of memory: report a smaller file");
	return 1;
}

void report_free(struct report *r)
{
	unsigned int i;

	pebs_report_feed__delete(r->feed);	/* before the tables */
	for (i = 0; i < r->nr_tables; i++)
		pebs_report__delete(r->tables[i].rep);
	pebs_weights__delete(r->weights);
	pebs_session__delete(r->ss);
	pebs_objects__delete(r->objs);	/* the rows' object labels */
	pebs_c2c__delete(r->c2c);
	pebs_filter__delete(r->filter);
	pebs_perfdata__close(r->pd);
}
