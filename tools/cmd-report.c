// SPDX-License-Identifier: MIT
/*
 * cmd-report.c - `pebs-shim report`: summarize a perf.data recording.
 * Here its options (perf report's, and pebs-shim's tables, formats and
 * keys), checked and turned into a struct report; tools/report-run.c
 * replays the file and prints.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "pebsshim.h"
#include "report.h"
#include "util.h"

enum {
	OPT_TOP = 256, OPT_STDIO, OPT_COMM, OPT_PID, OPT_TID, OPT_CPU, OPT_DSOS,
	OPT_SYMS,
	OPT_TIME, OPT_PCT, OPT_FORMAT, OPT_EVENT, OPT_MEM, OPT_HEADER,
	OPT_HEADER_ONLY, OPT_CHILDREN, OPT_NO_CHILDREN, OPT_ERRORS,
	OPT_NO_INLINE, OPT_SYMFS, OPT_MAX_STACK, OPT_PERCENTAGE,
	OPT_STATS, OPT_TASKS, OPT_MMAPS, OPT_SKIP_EMPTY, OPT_NO_SKIP_EMPTY,
	OPT_TOTAL_PERIOD, OPT_TIME_QUANTUM,
};

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
	ret = report_run(&r, sort);
	report_free(&r);
	return ret;

out_usage:
	report_free(&r);
	return 2;
}
