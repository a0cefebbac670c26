// SPDX-License-Identifier: MIT
/*
 * cmd-report.c - `pebs-shim report`: summarize a perf.data recording.
 *
 * Glue over the library: a pebs_session replays the records in time
 * order (threads and maps over time) and hands each sample, resolved
 * against the state of its time, to on_sample, which filters it
 * (pebs_filter) and adds it to the pebs_report of every table (but
 * the data pages of the default text tables, summed from the cache
 * lines after the pass: pebs_report__derive_top), with its call chain's
 * frames where a table has children (perf report --children, the
 * default with call chains: pebs_report__add_chain). The library prints
 * (pebs_report_tables__print, pebs_c2c__print_summary).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"
#include "pebsshim.h"
#include "util.h"

#define MAX_TABLES	8

/* One printed table: a grouping of the samples. */
struct table {
	const char *title;
	struct pebs_report *rep;
	/* the rep whose rows this table's are made from after the pass
	   (pages from lines), or NULL: from the samples */
	const struct pebs_report *from;
};

struct report {
	const char *path;
	struct pebs_perfdata *pd;
	struct pebs_session *ss;
	const struct pebs_session_stats *st;	/* the session's counts */
	unsigned int nr_attrs;
	bool by_event;		/* samples of several events: split tables */
	bool need_data;		/* a table has symbol_daddr or dso_daddr */
	bool need_objects;	/* a table has an object key */
	bool need_srclines;	/* a table has srcline or srcfile */
	struct pebs_objects *objs;	/* then the heap objects */
	unsigned int sole_event;	/* !by_event: the event sampled */
	uint64_t bookkept;	/* record --objects' bookkeeping samples, set
				   aside by the filter (no --event) */
	uint64_t samples;
	uint64_t filtered;	/* samples the filters left out */
	uint64_t with_addr, with_src;
	struct pebs_weights *weights;	/* for their percentiles */
	unsigned int flags;	/* PEBS_ORDERED_* of the pass */
	/* options */
	unsigned int top;	/* rows per table */
	bool show_nr;		/* -n: the samples column */
	bool show_period;	/* --show-total-period: the period column */
	uint64_t quantum;	/* --time-quantum in ns, or 0: perf's */
	bool quiet;		/* -q: the rows only */
	bool mem_mode;		/* --mem-mode: weights as perf mem report */
	const char *sort;	/* --sort, or NULL: the default tables */
	enum pebs_report_format format;
	double percent_limit;	/* rows below this Overhead are not shown */
	struct pebs_filter *filter;	/* samples the tables count */
	const char *time_spec;	/* --time, set once the span is known */
	const char *events;	/* --event names, set once attrs are read */
	int header;		/* 1: --header, 2: --header-only */
	bool show_info;		/* -I: the topologies in full */
	int children;		/* --children 1, --no-children 0, else -1:
				   as perf, with call chains */
	bool cumulate;		/* tables whose keys allow it have children */
	bool errors;		/* --errors, or a budgeted recording: each
				   share's sampling error (+-pts) */
	bool chains;		/* some table has: frames resolved */
	/* -g, -G: call graphs under the rows of the --sort table, or of
	   the symbols table (none: perf's -g none) */
	struct pebs_report_graph_opts graph;
	bool graph_set;
	const char *symfs;	/* --symfs: files looked for under it */
	int max_stack;		/* --max-stack, or -1 */
	bool relative;		/* --percentage relative: shares of the
				   samples the filters keep */
	bool stats;		/* --stats: the records counted instead */
	unsigned int tasks;	/* --tasks: the tasks instead (and with
				   PEBS_TASKS_MMAPS, --mmaps: their maps) */
	bool keep_empty;	/* --no-skip-empty: zero counts too */
	struct pebs_frame frames[PEBS_CALLCHAIN_MAX];
	struct table tables[MAX_TABLES];
	struct pebs_c2c *c2c;	/* the sharing section, filled in the pass */
	struct pebs_report_feed *feed;	/* the tables' thread */
	unsigned int nr_tables;
};

enum {
	OPT_TOP = 256, OPT_STDIO, OPT_COMM, OPT_PID, OPT_TID, OPT_CPU, OPT_DSOS,
	OPT_SYMS,
	OPT_TIME, OPT_PCT, OPT_FORMAT, OPT_EVENT, OPT_MEM, OPT_HEADER,
	OPT_HEADER_ONLY, OPT_CHILDREN, OPT_NO_CHILDREN, OPT_ERRORS,
	OPT_NO_INLINE, OPT_SYMFS, OPT_MAX_STACK, OPT_PERCENTAGE,
	OPT_STATS, OPT_TASKS, OPT_MMAPS, OPT_SKIP_EMPTY, OPT_NO_SKIP_EMPTY,
	OPT_TOTAL_PERIOD, OPT_TIME_QUANTUM,
};

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

static int run(struct report *r, const char *sort)
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

static void report_free(struct report *r)
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

static void usage(FILE *f)
{
	fprintf(f,
"usage: pebs-shim report [-i FILE] [--sort KEY[,KEY...]] [--top N] [-n]\n"
"                        [--stdio] [--children|--no-children] [--errors]\n"
"                        [-g OPTS|-G]\n"
"       pebs-shim report [-i FILE] --stats|--tasks|--mmaps\n"
"\n"
"Summarize a perf.data recording (pebs-shim record, perf record, perf\n"
"mem/c2c record): events, samples, lost samples, duration and the\n"
"attribution used, then tables of the hottest threads, symbols, data\n"
"pages, cache lines, cache lines shared by two or more threads, data\n"
"sources, and weight (latency) statistics where the samples have them.\n"
"Overhead is a row's share of the sampled period, as in perf report.\n"
"With samples of several events every table is split by event (shares\n"
"within each event).\n"
"\n"
"  -i, --input=FILE     the recording (default pebs-shim.data)\n"
"  -s, --sort=KEYS      one table grouped by these comma-separated keys\n"
"                       instead of the default tables: pid (perf's: a\n"
"                       thread, as tid:comm), tgid (a process), tid,\n"
"                       comm, dso, sym, cpu, event, page, line, addr,\n"
"                       src, and\n"
"                       perf's symbol_daddr, dso_daddr, dcacheline, mem,\n"
"                       snoop, tlb, phys_daddr, weight, and perf mem's\n"
"                       local_weight, locked, blocked, local_ins_lat\n"
"                       (local_p_stage_cyc: left out, as perf on x86),\n"
"                       and the data objects' object, object_instance\n"
"                       and object_field (a static struct's field),\n"
"                       and perf's srcline and srcfile (source lines)\n"
"                       and time (the samples' --time-quantum slices)\n"
"      --mem-mode       perf report --mem-mode, as perf mem report: a\n"
"                       sample costs its weight (1 without), Overhead is\n"
"                       a share of the total weight, the keys perf mem's\n"
"                       unless --sort\n"
"      --top=N          rows per table (default 10; 0: all)\n"

"  -n, --show-nr-samples  a column of sample counts (as perf report -n)\n"
"      --show-total-period  a column of each row's period (as perf)\n"
"      --stdio          plain text output (the only output; for perf\n"
"                       habits)\n"
"  -q, --quiet          the tables' rows only: no header, titles, column\n"
"                       names, \"more rows\" lines, weight percentiles\n"
"                       or shared cache lines (perf report -q)\n"
"      --no-inline      accepted for perf: inlined functions are never\n"
"                       shown as frames of their own\n"
"  -c, --comm=LIST      only samples of these commands (a,b; also\n"
"                       --comms, as perf)\n"
"  -d, --dsos=LIST      only samples in these files (libc.so.6 or a path)\n"
"  -S, --symbols=LIST   only samples in these symbols\n"
"      --pid=LIST       only samples of these processes\n"
"      --tid=LIST       only samples of these threads\n"
"      --cpu=LIST       only samples on these CPUs (0-3,8)\n"
"      --event=NAMES    only samples of these events (names as listed)\n"
"      --time-quantum=T  the time key's slices (default 100ms, as perf;\n"
"                       s, ms, us or ns)\n"
"      --time=SPEC      only samples in this time: start,end in seconds\n"
"                       (either may be empty), or perf's A%%-B%% and N%%/M\n"
"      --percent-limit=P  hide rows below P %% Overhead\n"
"      --format=FMT     text (default), csv or json: every table with\n"
"                       stable column names and all rows (see the man\n"
"                       page)\n"
"      --header         first the file's header and features, as perf\n"
"                       report --header prints them\n"
"      --header-only    only those (perf report --header-only)\n"
"      --children       perf's Children column: each row also counts the\n"
"                       samples whose call chain holds it (the default\n"
"                       for a recording with call chains, as perf; tables\n"
"                       of the keys pid, tgid, tid, comm, dso, sym, cpu,\n"
"                       event)\n"
"      --no-children    only each sample's own row (Overhead: its Self)\n"
"  -g, --call-graph=OPTS  perf's call graphs under the rows of the --sort\n"
"                       table (else the symbols table), as perf prints\n"
"                       them: perf's print_type,threshold[,print_limit],\n"
"                       order,sort_key,value (graph, fractal, flat,\n"
"                       folded or none; caller or callee; function;\n"
"                       percent, period or count); as the last word\n"
"                       perf's default graph,0.5,caller,function,percent\n"
"  -G, --inverted       call graphs in caller order (perf -G)\n"
"      --max-stack=N    keep N frames of each call chain, as perf: the\n"
"                       outermost in caller order (children's), the\n"
"                       innermost in callee order\n"
"      --percentage=relative|absolute  shares of the samples the\n"
"                       --comm, --pid, --tid, --dsos and --symbols\n"
"                       filters keep, or of all (the default), as perf\n"
"      --symfs=DIR      look for the recorded files under DIR (perf's:\n"
"                       DIR/.debug as the build-id cache; kernel\n"
"                       addresses stay raw)\n"
"      --errors         a +-pts column: each row's sampling error, one\n"
"                       standard error of its share in points, from its\n"
"                       samples' periods (and a budget's duty cycles: the\n"
"                       default for a record --budget recording)\n"
"  -I, --show-info      with them, the CPU and NUMA topologies and caches\n"
"      --stats          instead of the tables, the records counted by type\n"
"                       and per event, as perf report --stats\n"
"      --no-skip-empty  with --stats, the zero counts too\n"
"      --tasks          instead of the tables, the recorded tasks (pid,\n"
"                       tid, ppid, comm) as a tree, as perf report --tasks\n"
"      --mmaps          --tasks with each task's maps (perf --mmaps)\n"
"--comm, --pid, --tid, --dsos and --symbols hide rows but keep the total\n"
"(Overhead stays a share of all samples; a key whose filter names one\n"
"value is left out of the --sort table, as perf), --cpu, --time and\n"
"--event leave samples out.\n"
"  -h, --help           this help\n"
"\n"
"Records are processed in time order (perf's rounds), so a sample is\n"
"resolved against the threads and mappings of its time (before or after\n"
"an exec). Symbols come from the ELF files on this machine, or, when a\n"
"file's build id differs from the recorded one, from ~/.debug/.build-id\n"
"or /usr/lib/debug/.build-id; else the file is shown without symbols\n"
"(the vdso: this process's, when the recorded kernel is this host's).\n"
"Kernel symbols are resolved only when the recording's kernel build id\n"
"is this kernel's (else raw addresses, as perf). C++ and Rust names are\n"
"demangled. Data pages are 4 KiB, cache lines 64 bytes.\n"
"Exit status: 0, 1 (unreadable file), 2 (usage).\n");
}

/*
 * perf's elision (sort__setup_elide): a --sort key whose filter names
 * one value (--comm, --dsos, --symbols) is left out of the text table,
 * unless no key would be left. True with the keys left in @buf.
 */
static bool elide(const struct report *r, const enum pebs_report_key *keys,
		  unsigned int n, char *buf, size_t len)
{
	size_t o = 0;
	bool any = false;

	if (r->format != PEBS_REPORT_FORMAT_TEXT || !n)
		return false;
	buf[0] = '\0';
	for (unsigned int i = 0; i < n; i++) {
		const char *list = keys[i] == PEBS_REPORT_COMM ? "comm" :
				   keys[i] == PEBS_REPORT_DSO ? "dsos" :
				   keys[i] == PEBS_REPORT_SYM ? "symbols" : NULL;

		if (list && pebs_filter__count(r->filter, list) == 1) {
			any = true;
			continue;
		}
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s",
				      o ? "," : "", pebs_report__key_name(keys[i]));
	}
	return any && buf[0] && o < len;
}

/* perf's parse_time_quantum: N with s, ms, us, ns or nothing (ns) */
static int parse_quantum(const char *arg, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t mul; } units[] = {
		{ "", 1 }, { "s", 1000000000 }, { "ms", 1000000 },
		{ "us", 1000 }, { "ns", 1 },
	};
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (end == arg || errno || !v || arg[0] == '-')
		return -1;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (v > UINT64_MAX / units[i].mul)
				return -1;
			*ns = v * units[i].mul;
			return 0;
		}
	return -1;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "show-nr-samples", no_argument, NULL, 'n' },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
		TOOL_FILTER_OPTIONS,
		{ "percent-limit", required_argument, NULL, OPT_PCT },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "mem-mode", no_argument, NULL, OPT_MEM },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
		{ "show-info", no_argument, NULL, 'I' },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
		{ "errors", no_argument, NULL, OPT_ERRORS },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "inverted", no_argument, NULL, 'G' },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "percentage", required_argument, NULL, OPT_PERCENTAGE },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "show-total-period", no_argument, NULL, OPT_TOTAL_PERIOD },
		{ "time-quantum", required_argument, NULL, OPT_TIME_QUANTUM },
		{ "tasks", no_argument, NULL, OPT_TASKS },
		{ "mmaps", no_argument, NULL, OPT_MMAPS },
		{ "skip-empty", no_argument, NULL, OPT_SKIP_EMPTY },
		{ "no-skip-empty", no_argument, NULL, OPT_NO_SKIP_EMPTY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report r = { .path = "pebs-shim.data", .top = 0,
			    .children = -1, .max_stack = -1,
			    .graph.sz = sizeof(struct pebs_report_graph_opts) };
	enum pebs_report_key keys[PEBS_REPORT_MAX_KEYS];
	char elided[256];
	const char *sort = NULL;
	char *end;
	uint64_t v;
	int c, n, ret;
	bool graph_last = false;

	if (pebs_filter__new(&r.filter)) {
		tool_err("report", "%s", pebs_errmsg());
		return 1;
	}
	/* perf's -g takes the next word, or its default when last */
	if (argc > 1 && (!strcmp(argv[argc - 1], "-g") ||
			 !strcmp(argv[argc - 1], "--call-graph"))) {
		graph_last = true;
		argc--;
	}
	while ((c = getopt_long(argc, argv, "i:s:nqIc:d:S:g:Gh", opts,
				NULL)) != -1) {
		switch (c) {
		case 'i':
			r.path = optarg;
			break;
		case 's':
			sort = optarg;
			break;
		case OPT_TOP:
			r.top = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || !*optarg || optarg[0] == '-') {
				tool_err("report", "bad row count '%s': give a number",
					   optarg);
				goto out_usage;
			}
			if (!r.top || r.top == ~0u)
				r.top = ~0u;	/* 0: all */
			break;
		case 'n':
			r.show_nr = true;
			break;
		case OPT_STDIO:
		case OPT_NO_INLINE:
			break;
		case 'q':
			r.quiet = true;
			break;
		case 'c':
		case 'd':
		case 'S':
			c = c == 'c' ? OPT_COMM : c == 'd' ? OPT_DSOS : OPT_SYMS;
			/* fall through */
		case OPT_COMM:
		case OPT_PID:
		case OPT_TID:
		case OPT_CPU:
		case OPT_DSOS:
		case OPT_SYMS:
			if (pebs_filter__option(r.filter,
					tool_filter_names[c - OPT_COMM],
					optarg)) {
				tool_err("report", "%s", pebs_errmsg());
				goto out_usage;
			}
			break;
		case OPT_TIME:
			r.time_spec = optarg;
			break;
		case OPT_EVENT:
			r.events = optarg;
			break;
		case OPT_MEM:
			r.mem_mode = true;
			break;
		case OPT_HEADER:
			r.header = r.header ? r.header : 1;
			break;
		case OPT_HEADER_ONLY:
			r.header = 2;
			break;
		case 'I':
			r.show_info = true;
			break;
		case OPT_CHILDREN:
			r.children = 1;
			break;
		case OPT_NO_CHILDREN:
			r.children = 0;
			break;
		case OPT_ERRORS:
			r.errors = true;
			break;
		case 'g':
			if (pebs_report_graph__parse(optarg, &r.graph)) {
				tool_err("report", "%s", pebs_errmsg());
				goto out_usage;
			}
			r.graph_set = true;
			break;
		case OPT_SYMFS:
			r.symfs = optarg;
			break;
		case OPT_PERCENTAGE:
			if (!strcmp(optarg, "relative")) {
				r.relative = true;
			} else if (!strcmp(optarg, "absolute")) {
				r.relative = false;
			} else {
				tool_err("report", "bad --percentage '%s': give "
					 "relative or absolute", optarg);
				goto out_usage;
			}
			break;
		case OPT_STATS:
			r.stats = true;
			break;
		case OPT_TOTAL_PERIOD:
			r.show_period = true;
			break;
		case OPT_TIME_QUANTUM:
			if (parse_quantum(optarg, &r.quantum)) {
				tool_err("report", "bad --time-quantum '%s': give "
					 "a time such as 100ms (s, ms, us or "
					 "ns; ns without a unit), not 0", optarg);
				goto out_usage;
			}
			break;
		case OPT_TASKS:
		case OPT_MMAPS:
			r.tasks |= 1u << 8 | (c == OPT_MMAPS ? PEBS_TASKS_MMAPS : 0);
			break;
		case OPT_SKIP_EMPTY:
		case OPT_NO_SKIP_EMPTY:
			r.keep_empty = c == OPT_NO_SKIP_EMPTY;
			break;
		case OPT_MAX_STACK:
			if (!tool_parse_u64(optarg, &v) ||
			    v > PEBS_CALLCHAIN_MAX) {
				tool_err("report", "bad --max-stack '%s': give the "
					 "frames to keep, 0 to %d", optarg,
					 PEBS_CALLCHAIN_MAX);
				goto out_usage;
			}
			r.max_stack = (int)v;
			break;
		case 'G':	/* perf's --inverted: caller order */
			r.graph.order = PEBS_GRAPH_CALLER;
			r.graph_set = true;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "csv")) {
				r.format = PEBS_REPORT_FORMAT_CSV;
			} else if (!strcmp(optarg, "json")) {
				r.format = PEBS_REPORT_FORMAT_JSON;
			} else if (!strcmp(optarg, "text")) {
				r.format = PEBS_REPORT_FORMAT_TEXT;
			} else {
				tool_err("report", "unknown --format '%s': give text, "
					   "csv or json", optarg);
				goto out_usage;
			}
			break;
		case OPT_PCT:
			r.percent_limit = strtod(optarg, &end);
			if (end == optarg || *end || r.percent_limit < 0 ||
			    r.percent_limit > 100) {
				tool_err("report", "bad --percent-limit '%s': give a "
					   "percentage such as 0.5", optarg);
				goto out_usage;
			}
			/* perf: the graph's threshold too, unless a later
			   -g sets one */
			r.graph.threshold = r.percent_limit;
			r.graph.has_threshold = true;
			break;
		case 'h':
			usage(stdout);
			report_free(&r);
			return 0;
		default:
			fprintf(stderr, "pebs-shim report: bad option: see "
				"pebs-shim report --help\n");
			goto out_usage;
		}
	}
	if (optind != argc) {
		tool_err("report", "unexpected argument '%s': the input is -i FILE",
			   argv[optind]);
		goto out_usage;
	}
	if (r.stats && r.tasks) {	/* perf's words */
		tool_err("report", "--tasks and --mmaps can't be used together "
			 "with --stats: give one");
		goto out_usage;
	}
	if (graph_last) {
		pebs_report_graph__parse(NULL, &r.graph);
		r.graph_set = true;
	}
	if (r.graph_set && r.graph.mode != PEBS_GRAPH_NONE &&
	    r.format != PEBS_REPORT_FORMAT_TEXT) {
		tool_err("report", "-g: call graphs are printed in text only: "
			 "drop --format or -g");
		goto out_usage;
	}
	/* perf report --mem-mode: perf mem's keys unless --sort */
	if (r.mem_mode && !sort)
		sort = PEBS_REPORT_MEM_SORT;
	r.sort = sort;
	/* 10 rows of text; csv and json have every row */
	if (!r.top)
		r.top = r.format == PEBS_REPORT_FORMAT_TEXT ? 10 : ~0u;
	/* one key fewer than the maximum: "event," may go first */
	n = sort ? pebs_report__parse_keys(sort, keys,
					   PEBS_REPORT_MAX_KEYS - 1) : 0;
	if (n < 0) {
		tool_err("report", "%s", pebs_errmsg());
		goto out_usage;
	}
	/* --children with keys perf does not cumulate (it has no data key
	   without --mem-mode, and --mem-mode has no children) */
	if (r.children == 1 && sort && !r.mem_mode &&
	    !pebs_report__can_cumulate(keys, (unsigned int)n)) {
		tool_err("report", "--children: '%s' has keys that are not "
			 "code (children cumulate pid, tgid, tid, comm, dso, sym, "
			 "cpu, event only): give those keys or --no-children",
			 sort);
		goto out_usage;
	}
	if (elide(&r, keys, (unsigned int)n, elided, sizeof(elided)))
		r.sort = sort = elided;
	ret = run(&r, sort);
	report_free(&r);
	return ret;

out_usage:
	report_free(&r);
	return 2;
}
