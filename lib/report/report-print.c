// SPDX-License-Identifier: MIT
/*
 * report-print.c - pebs_report_tables__print: reports as the text of
 * pebs-shim report: the recording's header, the grouped tables (perf's
 * Overhead = share of the period, the samples column with -n, perf
 * report --mem-mode's header lines) and the weight percentiles; or
 * every table as CSV or JSON (report-csv.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/objects.h"
#include "pebsshim/report.h"
#include "core/internal.h"
#include "core/opts.h"
#include "report/report-print-int.h"

#define TEXT_FIELD_MAX	512	/* text: a field cut there */
#define WIDTH_MAX	48	/* wider fields are not padded */

static const char *key_title(enum pebs_report_key k)
{
	static const char *const titles[PEBS_REPORT_NR_KEYS] = {
		[PEBS_REPORT_PID] = "Tgid:Command", [PEBS_REPORT_TID] = "tid",
		[PEBS_REPORT_THREAD] = "Pid:Command",
		[PEBS_REPORT_COMM] = "Command",
		[PEBS_REPORT_DSO] = "Shared Object",
		[PEBS_REPORT_SYM] = "Symbol", [PEBS_REPORT_CPU] = "CPU",
		[PEBS_REPORT_EVENT] = "event",
		[PEBS_REPORT_PAGE] = "data page",
		[PEBS_REPORT_LINE] = "cache line",
		[PEBS_REPORT_ADDR] = "data address",
		[PEBS_REPORT_SRC] = "data source",
		[PEBS_REPORT_SYM_DADDR] = "Data Symbol",
		[PEBS_REPORT_DSO_DADDR] = "Data Object",
		[PEBS_REPORT_MEM] = "Memory access",
		[PEBS_REPORT_SNOOP] = "Snoop",
		[PEBS_REPORT_TLB] = "TLB access",
		[PEBS_REPORT_DCACHELINE] = "Data Cacheline",
		[PEBS_REPORT_PHYS_DADDR] = "Data Physical Address",
		[PEBS_REPORT_WEIGHT] = "Weight",
		[PEBS_REPORT_LOCAL_WEIGHT] = "Local Weight",
		[PEBS_REPORT_LOCKED] = "Locked",
		[PEBS_REPORT_BLOCKED] = "Blocked",
		[PEBS_REPORT_LOCAL_INS_LAT] = "Local INSTR Latency",
		[PEBS_REPORT_OBJECT] = "Data Object Site",
		[PEBS_REPORT_OBJECT_INSTANCE] = "Data Object Instance",
		[PEBS_REPORT_OBJECT_FIELD] = "Data Object Field",
		[PEBS_REPORT_SRCLINE] = "Source:Line",
		[PEBS_REPORT_SRCFILE] = "Source File",
		[PEBS_REPORT_TIME] = "Time",
	};
	return titles[k];
}

void rp_field(const struct rp_print *r, const struct pebs_report_row *row,
	      enum pebs_report_key k, char *buf, size_t len)
{
	const struct pebs_threads *th = r->o.threads;
	struct pebs_report_row t;
	const char *name;

	if (k == PEBS_REPORT_EVENT) {
		name = pebs_perfdata__attr_name(r->o.pd, row->event);
		snprintf(buf, len, "%s", name ? name : "?");
		return;
	}
	if (k == PEBS_REPORT_THREAD || k == PEBS_REPORT_PID) {
		/* perf shows the thread's comm at the end of the pass, and a
		   process's by its leader's then */
		t = *row;
		t.comm = k == PEBS_REPORT_PID ?
			 pebs_threads__comm(th, t.pid, t.pid) :
			 pebs_threads__comm(th, pebs_threads__pid(th, t.tid),
					    t.tid);
		row = &t;
	}
	pebs_report__field(row, k, buf, len);
}

bool rp_shown(const struct rp_print *r, const struct pebs_report *rep,
	      const struct pebs_report_row *row)
{
	/* with children, perf's hist_entry__get_percent_limit: Children */
	return r->o.percent_limit <= 0 ||
	       (pebs_report__children(rep) ?
		pebs_report__children_overhead(rep, row, r->o.by_event) :
		pebs_report__overhead(rep, row, r->o.by_event)) >=
	       r->o.percent_limit;
}

/* an object key: a table with one has the object columns */
static bool obj_key(enum pebs_report_key k)
{
	return k == PEBS_REPORT_OBJECT || k == PEBS_REPORT_OBJECT_INSTANCE ||
	       k == PEBS_REPORT_OBJECT_FIELD;
}

bool rp_any_obj_key(const enum pebs_report_key *keys, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (obj_key(keys[i]))
			return true;
	return false;
}

const char *rp_obj_label(const struct pebs_report_row *row)
{
	return row->object ? row->object : row->object_field;
}

/* the columns of a text table besides Overhead and the keys' */
struct cols {
	bool children;	/* perf's Children and Self */
	bool errs;	/* +-pts */
	bool weights;	/* avg-wt: some row has weights */
	bool objs;	/* a data object's columns */
	bool mem;	/* loads, stores, hitm */
	bool numa;	/* node_local/node_remote: some counted */
	bool threads;
};

/* A table's column titles. */
static void print_columns(const struct rp_print *r, const struct cols *c,
			  const enum pebs_report_key *keys,
			  unsigned int nr_keys, const int *w)
{
	FILE *f = r->f;
	unsigned int k;

	if (c->errs)
		fprintf(f, "# +-pts: the share's sampling error, one standard error in points (from the samples' periods and a budget's windows)\n");
	if (c->children)	/* perf's Children and Self */
		fprintf(f, "%9s  %9s", "Children", "Self");
	else
		fprintf(f, "%9s", "Overhead");
	if (c->errs)
		fprintf(f, "  %6s", "+-pts");
	if (r->o.show_nr || c->objs)
		fprintf(f, "  %10s", "Samples");
	if (r->o.show_period)
		fprintf(f, "  %12s", "Period");
	if (c->weights)
		fprintf(f, "  %8s", "avg-wt");
	if (c->weights && c->objs)
		fprintf(f, "  %8s  %8s", "p50-wt", "p90-wt");
	if (c->mem)
		fprintf(f, "  %7s  %7s  %7s", "loads", "stores", "hitm");
	if (c->mem && c->objs)
		fprintf(f, "  %7s  %7s", "local", "remote");
	if (c->numa)
		fprintf(f, "  %8s  %8s", "node-lcl", "node-rmt");
	if (c->threads)
		fprintf(f, "  %7s", "threads");
	if (c->objs)
		fprintf(f, "  %-10s  %9s  %12s  %12s", "sharing", "instances",
			"bytes", "peak-live");
	for (k = 0; k < nr_keys; k++)
		fprintf(f, "  %-*s", k + 1 < nr_keys ? w[k] : 0,
		       key_title(keys[k]));
	fputc('\n', f);
}

/* A table's title lines; false when it has no samples ("(none)"). */
static bool print_title(const struct rp_print *r,
			const struct pebs_report_table *t,
			const enum pebs_report_key *keys, unsigned int nr_keys,
			uint64_t total)
{
	FILE *f = r->f;
	unsigned int k;

	fprintf(f, "\n# %s", t->title);
	for (k = 0; k < nr_keys; k++) {
		if (keys[k] == PEBS_REPORT_SRC) {
			fprintf(f, " (%" PRIu64 " samples with a data source)",
			       total);
			break;
		}
		if (keys[k] == PEBS_REPORT_LINE ||
		    keys[k] == PEBS_REPORT_PAGE ||
		    keys[k] == PEBS_REPORT_ADDR) {
			fprintf(f, " (%" PRIu64 " samples with a data address)",
			       total);
			break;
		}
	}
	if (r->o.by_event)
		fprintf(f, ", share within each event");
	fputc('\n', f);
	if (r->o.mem_mode) {	/* perf report --mem-mode's header lines */
		uint64_t weight;

		pebs_report__totals(t->rep, -1, NULL, &weight);
		fprintf(f, "# Total weight : %" PRIu64 "\n# Sort order   : %s\n",
		       weight, r->o.sort);
	}
	if (!total) {
		fprintf(f, "#   (none)\n");
		return false;
	}
	return true;
}

static int print_table(const struct rp_print *r,
			const struct pebs_report_table *t)
{
	FILE *f = r->f;
	const struct pebs_report *rep = t->rep;
	const enum pebs_report_key *keys;
	unsigned int nr_keys, k;
	int w[PEBS_REPORT_MAX_KEYS] = { 0 };
	struct cols c = { .children = pebs_report__children(rep),
			  .errs = pebs_report__errors(rep), .threads = true };
	double se;
	struct pebs_object_stats os;
	struct pebs_object_access oa;
	size_t i, nr = pebs_report__nr_rows(rep), n, printed;
	bool graph, skip_first;
	int err;
	uint64_t total;
	char fb[TEXT_FIELD_MAX];

	nr_keys = pebs_report__keys(rep, &keys);
	for (k = 0; k < nr_keys; k++) {
		c.threads &= keys[k] != PEBS_REPORT_TID &&
			   keys[k] != PEBS_REPORT_THREAD;	/* else 1 */
		c.mem |= r->o.with_src && (keys[k] == PEBS_REPORT_LINE ||
				       keys[k] == PEBS_REPORT_PAGE ||
				       keys[k] == PEBS_REPORT_ADDR);
		/* a data object's columns (lib/objects/objects-stats.c) */
		c.objs |= r->o.objs && obj_key(keys[k]);
	}
	c.mem |= c.objs && r->o.with_src;
	pebs_report__totals(rep, -1, &total, NULL);
	/* perf leaves a single chain's first frame out under --sort
	   sym... (the default tables: a table whose first key is sym) */
	graph = pebs_report__graph(rep);
	skip_first = r->o.sort ? !strncmp(r->o.sort, "sym", 3) :
		     nr_keys > (unsigned int)r->o.by_event &&
		     keys[r->o.by_event] == PEBS_REPORT_SYM;
	if (r->o.quiet && t != r->o.tables)
		fputc('\n', f);	/* -q: tables a blank line apart */
	if (!r->o.quiet && !print_title(r, t, keys, nr_keys, total))
		return 0;
	if (!total)
		return 0;
	/* widths and columns from the rows that will be printed */
	for (k = 0; k < nr_keys; k++)
		w[k] = (int)strlen(key_title(keys[k]));
	for (i = 0, n = 0; i < nr && n < r->o.top; i++) {
		const struct pebs_report_row *row = pebs_report__row(rep, i);

		if (!rp_shown(r, rep, row))
			continue;
		n++;
		c.weights |= row->weight_nr != 0;
		if (c.objs && !pebs_objects__access(r->o.objs, r->o.by_event ?
			row->event : r->o.sole_event, rp_obj_label(row), &oa))
			c.numa |= oa.node_local || oa.node_remote;
		for (k = 0; k < nr_keys; k++) {
			int l;

			rp_field(r, row, keys[k], fb, sizeof(fb));
			l = (int)strlen(fb);
			w[k] = l > w[k] && l <= WIDTH_MAX ? l : w[k];
		}
	}
	if (!r->o.quiet)
		print_columns(r, &c, keys, nr_keys, w);
	for (i = 0, printed = 0, n = 0; i < nr; i++) {
		const struct pebs_report_row *row;

		if (printed == r->o.top && r->o.percent_limit <= 0) {
			n += nr - i;	/* every row is shown: counted */
			break;
		}
		row = pebs_report__row(rep, i);
		if (!rp_shown(r, rep, row))
			continue;
		n++;
		if (printed == r->o.top)
			continue;
		printed++;
		if (c.children)
			fprintf(f, "%8.2f%%  ", pebs_report__children_overhead(
				rep, row, r->o.by_event));
		fprintf(f, "%8.2f%%", pebs_report__overhead(rep, row, r->o.by_event));
		if (c.errs && (se = pebs_report__share_error(rep, i)) >= 0)
			fprintf(f, "  %6.2f", se);
		else if (c.errs)
			fprintf(f, "  %6s", "-");
		if (r->o.show_nr || c.objs)
			fprintf(f, "  %10" PRIu64, row->samples);
		if (r->o.show_period)
			fprintf(f, "  %12" PRIu64, row->period);
		if (c.weights && row->weight_nr)
			fprintf(f, "  %8.1f", (double)row->weight_sum /
			       (double)row->weight_nr);
		else if (c.weights)
			fprintf(f, "  %8s", "-");
		if (c.objs) {
			unsigned int ev = r->o.by_event ? row->event :
					  r->o.sole_event;

			pebs_objects__stats(r->o.objs, ev, rp_obj_label(row),
					    &os);
			pebs_objects__access(r->o.objs, ev, rp_obj_label(row),
					     &oa);
		}
		if (c.weights && c.objs && os.weights)
			fprintf(f, "  %8" PRIu64 "  %8" PRIu64, os.weight_p50,
				os.weight_p90);
		else if (c.weights && c.objs)
			fprintf(f, "  %8s  %8s", "-", "-");
		if (c.mem)
			fprintf(f, "  %7u  %7u  %7u", row->loads, row->stores,
			       row->hitm);
		if (c.mem && c.objs)
			fprintf(f, "  %7" PRIu64 "  %7" PRIu64, oa.local,
				oa.remote);
		if (c.numa)
			fprintf(f, "  %8" PRIu64 "  %8" PRIu64, oa.node_local,
				oa.node_remote);
		if (c.threads && row->nr_tids > PEBS_REPORT_MAX_TIDS)
			fprintf(f, "  %6u+", PEBS_REPORT_MAX_TIDS);
		else if (c.threads)
			fprintf(f, "  %7u", row->nr_tids);
		if (c.objs)
			fprintf(f, "  %-10s",
				pebs_object_sharing__name(oa.sharing));
		if (c.objs && os.instances)
			fprintf(f, "  %9" PRIu64 "  %12" PRIu64 "  %12" PRIu64,
				os.instances, os.bytes, os.peak_live);
		else if (c.objs)
			fprintf(f, "  %9s  %12s  %12s", "-", "-", "-");
		for (k = 0; k < nr_keys; k++) {
			rp_field(r, row, keys[k], fb, sizeof(fb));
			fprintf(f, "  %-*s", k + 1 < nr_keys ? w[k] : 0, fb);
		}
		fputc('\n', f);
		if (graph && (err = pebs_report__print_graph(rep, i,
				r->o.by_event, skip_first, f)))
			return err;
	}
	if (n > printed && !r->o.quiet)
		fprintf(f, "%9s  (%zu more rows: --top to show more)\n", "...",
		       n - printed);
	return 0;
}

static void print_weights(const struct rp_print *r)
{
	FILE *f = r->f;
	struct pebs_weight_summary w;
	unsigned int e;

	if (!pebs_weights__nr(r->o.weights))
		return;
	fprintf(f, "\n# weight (latency, cycles as the PMU reports it) of %" PRIu64
	       " samples with one\n", pebs_weights__nr(r->o.weights));
	fprintf(f, "%10s %10s %10s %10s %10s %10s %10s  %s\n", "min", "mean",
	       "p50", "p90", "p99", "max", "samples", "event");
	for (e = 0; e < r->nr_attrs; e++) {
		const char *name = pebs_perfdata__attr_name(r->o.pd, e);

		if (pebs_weights__summary(r->o.weights, e, &w))
			continue;
		fprintf(f, "%10" PRIu64 " %10.1f %10" PRIu64 " %10" PRIu64 " %10"
		       PRIu64 " %10" PRIu64 " %10" PRIu64 "  %s\n", w.min,
		       w.mean, w.p50, w.p90, w.p99, w.max, w.samples,
		       name ? name : "?");
	}
}

/*
 * The attribution pebs-shim record used: "attribution" in the file's
 * pebs-shim section (pebs_perfdata__meta), or, in files of older
 * versions, the --attr option of the stored command line (before any
 * "--"; record inserted --attr=MODE after "record" when auto chose), or
 * the --attribution=MODE appended at the very end.
 */
static const char *cmdline_attribution(const char **argv, uint32_t argc)
{
	const char *found = NULL;
	bool opts = true;
	uint32_t i;

	if (argc < 2 || strcmp(argv[1], "record"))
		return NULL;
	if (!strncmp(argv[argc - 1], "--attribution=", 14))
		return argv[argc - 1] + 14;
	for (i = 2; i < argc && opts; i++) {
		if (!strncmp(argv[i], "--attr=", 7))
			found = argv[i] + 7;
		else if (!strcmp(argv[i], "--attr") && i + 1 < argc)
			found = argv[i + 1];
		else if (!strcmp(argv[i], "--"))
			opts = false;
	}
	return found;
}

static void print_cmdline(const struct rp_print *r)
{
	FILE *f = r->f;
	const char *argv[256], *p, *end, *attribution;
	const void *data;
	char mode[32];
	uint32_t nr, len, i, n = 0;
	size_t size;

	if (pebs_perfdata__feat(r->o.pd, PEBS_FEAT_CMDLINE, &data, &size) ||
	    size < 4)
		return;
	p = data;
	end = p + size;
	memcpy(&nr, p, 4);
	p += 4;
	fprintf(f, "# command   :");
	for (i = 0; i < nr && n < 256 && p + 4 <= end; i++) {
		memcpy(&len, p, 4);
		if (len > (size_t)(end - p - 4) || !len ||
		    strnlen(p + 4, len) == len)
			break;
		argv[n++] = p + 4;
		fprintf(f, " %s", p + 4);
		p += 4 + len;
	}
	fputc('\n', f);
	attribution = pebs_perfdata__meta(r->o.pd, "attribution", mode,
					  sizeof(mode)) > 0 ? mode :
		      cmdline_attribution(argv, n);
	if (attribution)
		fprintf(f, "# attribution: %s (as recorded by pebs-shim record)\n",
		       attribution);
	/* record --budget: the periods moved, each sample carries its own */
	if (pebs_perfdata__meta(r->o.pd, "budget", mode, sizeof(mode)) > 0)
		fprintf(f, "# budget     : %s of the sampled CPU time (pebs-shim record --budget: periods adapted, each sample carries its own)\n",
			mode);
	/* ... met by a duty cycle: the events on in random windows */
	if (pebs_perfdata__meta(r->o.pd, "duty", mode, sizeof(mode)) > 0) {
		char win[32] = "", err[32];
		double se = 0;

		if (pebs_perfdata__meta(r->o.pd, "windows", win,
					sizeof(win)) <= 0)
			snprintf(win, sizeof(win), "?");
		fprintf(f, "# duty cycle : events enabled %s of the time, in %s windows (--budget: counting them costs more; in random windows, each sample's period weighted by its cycle over its window, so that the periods stand for the whole run and the shares stay unbiased, within the sampling error of that many windows)\n",
			mode, win);
		/*
		 * each window seeing one phase: a share is then a mean of
		 * windows each 0 or 1 (record: rec_duty_meta, with the
		 * windows' weights); a file without it, 50 / sqrt(windows),
		 * the same for windows that weigh alike
		 */
		if (pebs_perfdata__meta(r->o.pd, "share_error", err,
					sizeof(err)) > 0)
			se = strtod(err, NULL);
		else if ((se = strtod(win, NULL)) >= 1)
			se = 50 / sqrt(se);
		if (se > 0)
			fprintf(f, "# shares     : a share's sampling error is up to about +-%.2f points (one standard error where each window sees one phase of the program, 50 / sqrt(windows) when they weigh alike; less where its phases are shorter than a window)\n",
				se);
	}
}

static void print_header(const struct rp_print *r)
{
	FILE *f = r->f;
	char host[256], rel[256], cpu[256];
	int cycle = pebs_perfdata__cycle_event(r->o.pd);
	unsigned int i;

	fprintf(f, "# pebs-shim report of %s\n", r->o.path);
	if (pebs_perfdata__feat_str(r->o.pd, PEBS_FEAT_HOSTNAME, host,
				    sizeof(host)) < 0)
		snprintf(host, sizeof(host), "?");
	if (pebs_perfdata__feat_str(r->o.pd, PEBS_FEAT_OSRELEASE, rel,
				    sizeof(rel)) < 0)
		snprintf(rel, sizeof(rel), "?");
	if (pebs_perfdata__feat_str(r->o.pd, PEBS_FEAT_CPUDESC, cpu,
				    sizeof(cpu)) < 0)
		snprintf(cpu, sizeof(cpu), "?");
	fprintf(f, "# recorded on: %s, Linux %s, %s\n", host, rel, cpu);
	print_cmdline(r);
	for (i = 0; i < r->nr_attrs; i++) {
		const struct perf_event_attr *a =
			pebs_perfdata__attr(r->o.pd, i, NULL, NULL);
		const char *name = pebs_perfdata__attr_name(r->o.pd, i);

		fprintf(f, "# event %u   : %s (type %u, config 0x%llx", i,
		       name ? name : "?", a->type,
		       (unsigned long long)a->config);
		if (a->config1)
			fprintf(f, ", config1 0x%llx",
			       (unsigned long long)a->config1);
		fprintf(f, ", %s %llu", a->freq ? "freq" : "period",
		       (unsigned long long)a->sample_period);
		if (a->precise_ip)
			fprintf(f, ", precise_ip %u", a->precise_ip);
		/* record --budget's (the session's own, not delivered) */
		if ((int)i == cycle)
			fprintf(f, "): %" PRIu64 " duty cycles begun (the samples' cycles, for +-pts)\n",
				r->o.stats->cycles);
		else
			fprintf(f, "): %" PRIu64 " samples\n",
				i < r->o.stats->nr_events ?
				r->o.stats->event_samples[i] : 0);
	}
	fprintf(f, "# samples   : %" PRIu64 " (%" PRIu64 " with a data address, "
	       "%" PRIu64 " with a data source, %" PRIu64 " with a weight)\n",
	       r->o.samples, r->o.with_addr, r->o.with_src,
	       pebs_weights__nr(r->o.weights));
	fprintf(f, "# lost      : %" PRIu64 " samples in LOST records",
	       r->o.stats->lost);
	if (r->o.stats->lost_samples)
		fprintf(f, ", %" PRIu64 " in LOST_SAMPLES", r->o.stats->lost_samples);
	fprintf(f, "; %" PRIu64 " throttle events\n", r->o.stats->throttles);
	if (r->o.stats->last_time)
		fprintf(f, "# duration  : %.3f ms (first to last sample)\n",
		       (double)(r->o.stats->last_time - r->o.stats->first_time) / 1e6);
	fprintf(f, "# kernel    : %s\n", r->o.stats->kernel == 2 ?
	       "another build (symbols from its kallsyms in the build-id "
	       "cache)" : r->o.stats->kernel > 0 ?
	       "this host's (symbols from /proc/kallsyms)" :
	       "not recorded, another build or --symfs: kernel "
	       "addresses stay raw");
	if (r->o.flags & PEBS_ORDERED_FILE_ORDER)
		fprintf(f, "# order     : file order (an event does not sample "
		       "TIME)\n");
	if (r->o.filtered)
		fprintf(f, "# filtered  : %" PRIu64 " samples left out of the "
		       "tables\n", r->o.filtered);
	if (r->o.bookkeeping)
		fprintf(f, "# objects   : %" PRIu64 " samples of "
			PEBS_OBJECTS_ALLOC_EVENT " and " PEBS_OBJECTS_FREE_EVENT
			" (record --objects' allocations) left out of the "
			"tables: --event names them\n", r->o.bookkeeping);
	if (r->o.stats->bad)
		fprintf(f, "# undecoded : %" PRIu64 " samples\n", r->o.stats->bad);
}

int pebs_report_tables__print(FILE *f,
			      const struct pebs_report_print_opts *opts)
{
	struct rp_print r = { .f = f };
	unsigned int i;
	int err;

	err = opts_copy(&r.o, sizeof(r.o), opts, "pebs_report_print_opts");
	if (err)
		return err;
	if (!f || !r.o.path || !r.o.pd || !r.o.stats ||
	    (r.o.nr_tables && !r.o.tables))
		return core_err(-EINVAL, "report print: give the stream, the "
				"file's path, its pebs_perfdata, the session's "
				"stats and the tables");
	for (i = 0; i < r.o.nr_tables; i++)
		if (!r.o.tables[i].rep || !r.o.tables[i].title)
			return core_err(-EINVAL, "report print: table %u has "
					"no report or no title", i);
	if (!r.o.top)
		r.o.top = UINT_MAX;
	r.nr_attrs = pebs_perfdata__nr_attrs(r.o.pd);
	r.obj_cols = rp_any_objects(&r);
	r.children_cols = rp_any_table(&r, pebs_report__children);
	r.err_cols = rp_any_table(&r, pebs_report__errors);
	r.tail_cols = rp_tail_cols(&r);
	switch (r.o.format) {
	case PEBS_REPORT_FORMAT_TEXT:
		if (!r.o.quiet)
			print_header(&r);
		for (i = 0; i < r.o.nr_tables; i++) {
			err = print_table(&r, &r.o.tables[i]);
			if (err)
				return err;
		}
		if (!r.o.sort && !r.o.quiet)
			print_weights(&r);
		break;
	case PEBS_REPORT_FORMAT_CSV:
		rp_print_csv(&r);
		break;
	case PEBS_REPORT_FORMAT_JSON:
		rp_print_json(&r);
		break;
	default:
		return core_err(-EINVAL, "report print: unknown format %d: use "
				"a PEBS_REPORT_FORMAT_ value", (int)r.o.format);
	}
	return ferror(f) ? core_err(-EIO, "report print: writing failed") : 0;
}
