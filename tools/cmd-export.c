// SPDX-License-Identifier: MIT
/*
 * cmd-export.c - `pebs-shim export`: a recording as pprof profiles or
 * a Perfetto trace.
 *
 * Options and glue: the filters as report's (pebs_filter), then
 * pebs_export__pprof (lib/export/export-pprof.c) or
 * pebs_export__perfetto (lib/export/export-perfetto.c) does the pass; a
 * Perfetto export of a pipe reads it once as it comes.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "pebsshim.h"
#include "util.h"

enum {
	OPT_COMM = 256, OPT_PID, OPT_TID, OPT_CPU, OPT_DSOS,
	OPT_SYMS, OPT_TIME, OPT_EVENT,
	OPT_FORMAT, OPT_LABELS, OPT_SPLIT, OPT_SYMFS,
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: pebs-shim export --format pprof [-i FILE] -o OUT.pb.gz\n"
"                        [--labels LIST] [--split event|window=SECONDS]\n"
"                        [--comm|--pid|--tid|--cpu|--time|--event ...]\n"
"       pebs-shim export --format perfetto [-i FILE] -o OUT.perfetto-trace\n"
"                        [--comm|--pid|--tid|--cpu|--time|--event ...]\n"
"\n"
"Write a recording as a gzip-compressed pprof profile (profile.proto),\n"
"what go tool pprof, Pyroscope, Parca and Grafana read: sample types\n"
"samples (count), one per event with its sampled period (the default:\n"
"the first event's), and where the events sample them weight (cycles),\n"
"hitm and remote (count); call stacks with demangled function names,\n"
"source lines and mappings with build ids, so pprof needs no binaries.\n"
"Or a Perfetto trace (ui.perfetto.dev): threads and processes named,\n"
"sched_switch per CPU (from the module's switch history, else switch\n"
"records, else the samples' threads), the samples with their call\n"
"stacks, and per-CPU counters per millisecond (samples, loads, stores,\n"
"HITM, remote, mean weight).\n"
"\n"
"  -i, --input=FILE     the recording (default pebs-shim.data)\n"
"  -o, --output=FILE    the profile (created 0600; an existing regular\n"
"                       file is replaced once the profile is complete)\n"
"      --format=FORMAT  pprof or perfetto\n"
"      --labels=LIST    (pprof) per-sample labels: comm, pid, tid, cpu,\n"
"                       data_page, cache_line, mem_level, snoop, tlb,\n"
"                       data_object, weight, all, none (the default:\n"
"                       labels multiply the number of samples)\n"
"      --split=HOW      (pprof) event: one profile per event, OUT.<event>.pb.gz;\n"
"                       window=SECONDS: one per SECONDS of sample time\n"
"                       from the first sample, OUT.<NNNNNN>.pb.gz (the\n"
"                       window's number; empty windows are not written)\n"
"      --comm=LIST, --pid=LIST, --tid=LIST, --cpu=LIST, --dsos=LIST,\n"
"      --symbols=LIST, --event=NAMES,\n"
"      --time=SPEC      only these samples (as pebs-shim report; samples\n"
"                       of other commands, processes, threads are left\n"
"                       out, not kept in the totals; a Perfetto trace's\n"
"                       switches only by --cpu, --time, --event)\n"
"      --symfs=DIR      look for the recorded files under DIR (as\n"
"                       pebs-shim report; source lines still from the\n"
"                       files' own paths)\n"
"  -h, --help           this help\n"
"Exit status: 0, 1 (unreadable input, unwritable output), 2 (usage).\n");
}

static int parse_split(const char *arg, struct pebs_export_opts *o)
{
	char *end;
	double s;

	if (!strcmp(arg, "event")) {
		o->split = PEBS_EXPORT_SPLIT_EVENT;
		return 0;
	}
	if (!strncmp(arg, "window=", 7)) {
		s = strtod(arg + 7, &end);
		if (end != arg + 7 && !*end && s >= 0.001 && s <= 1e9) {
			o->split = PEBS_EXPORT_SPLIT_WINDOW;
			o->window_ns = (uint64_t)(s * 1e9);
			return 0;
		}
	}
	tool_err("export", "bad --split '%s': give event or window=SECONDS (at least "
		   "0.001)", arg);
	return -1;
}

static int run(const char *path, const char *events, const char *time_spec,
	       const char *symfs, struct pebs_export_opts *o, bool perfetto)
{
	struct pebs_perfdata *pd = NULL;
	struct pebs_session *ss = NULL;
	struct pebs_objects *objs = NULL;
	struct pebs_export_stats st;
	const struct pebs_session_stats *sst;
	bool stream = perfetto && tool_is_stream(path);
	int err, ret = 1;

	if (stream && time_spec && strchr(time_spec, '%')) {
		tool_err("export", "--time %s: percentages need the time span, "
			 "unknown on a pipe: give start,end in seconds, or a "
			 "file", time_spec);
		return 2;
	}
	if ((stream ? pebs_perfdata__open(path, &pd) :
		      pebs_perfdata__open_rewindable(path, &pd))) {
		tool_err("export", "%s: give a perf.data file with -i", pebs_errmsg());
		return 1;
	}
	if ((stream ? pebs_session__new_stream(pd, &ss) :
		      pebs_session__new(pd, &ss))) {
		tool_err("export", "%s", pebs_errmsg());
		goto out;
	}
	if (tool_symfs("export", ss, symfs)) {
		ret = 2;
		goto out;
	}
	/* a recording of record --objects: data_object names its objects */
	if (!perfetto && pebs_session__use_objects(ss, 0, &objs)) {
		tool_err("export", "%s", pebs_errmsg());
		goto out;
	}
	sst = pebs_session__stats(ss);
	if (events && pebs_filter__events((struct pebs_filter *)o->filter,
					  pd, events)) {
		tool_err("export", "%s: %s", path, pebs_errmsg());
		ret = 2;
		goto out;
	}
	if (time_spec && pebs_filter__time((struct pebs_filter *)o->filter,
					   time_spec, sst->first_time,
					   sst->last_time)) {
		tool_err("export", "%s", pebs_errmsg());
		ret = 2;
		goto out;
	}
	/* record --objects: its bookkeeping is no sample of the profiles
	   (unless --event) */
	if (!events && pebs_filter__aside_objects((struct pebs_filter *)o->filter,
						  pd)) {
		tool_err("export", "out of memory");
		goto out;
	}
	err = perfetto ? pebs_export__perfetto(ss, o, &st) :
			 pebs_export__pprof(ss, o, &st);
	if (err == -EBADMSG) {
		tool_err("export", "%s: %s", path, pebs_errmsg());
	} else if (err) {
		tool_err("export", "%s", pebs_errmsg());
		goto out;
	}
	tool_warn_truncated("export", path, pd);
	if (!st.files)
		tool_err("export", "%s: no sample%s: nothing written", path,
			   st.samples ? " passed the filters" : "s");
	ret = st.files ? 0 : 1;
out:
	pebs_session__delete(ss);
	pebs_objects__delete(objs);	/* after the session's hook */
	pebs_perfdata__close(pd);
	return ret;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "labels", required_argument, NULL, OPT_LABELS },
		{ "split", required_argument, NULL, OPT_SPLIT },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		TOOL_FILTER_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pebs_export_opts o = { .sz = sizeof(o) };
	const char *path = "pebs-shim.data", *events = NULL, *tspec = NULL;
	const char *format = NULL, *symfs = NULL;
	bool perfetto, labels = false;
	struct pebs_filter *f;
	int c, err, ret = 2;

	if (pebs_filter__new(&f)) {
		tool_err("export", "%s", pebs_errmsg());
		return 1;
	}
	o.filter = f;
	while ((c = getopt_long(argc, argv, "i:o:h", opts, NULL)) != -1) {
		err = 0;
		switch (c) {
		case 'i':
			path = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case OPT_FORMAT:
			format = optarg;
			break;
		case OPT_LABELS:
			labels = true;
			err = pebs_export__parse_labels(optarg, &o.labels);
			break;
		case OPT_SPLIT:
			if (parse_split(optarg, &o))
				goto out;
			break;
		case OPT_SYMFS:
			symfs = optarg;
			break;
		case OPT_COMM:
		case OPT_PID:
		case OPT_TID:
		case OPT_CPU:
		case OPT_DSOS:
		case OPT_SYMS:
			err = pebs_filter__option(f,
					tool_filter_names[c - OPT_COMM],
					optarg);
			break;
		case OPT_TIME:
			tspec = optarg;
			break;
		case OPT_EVENT:
			events = optarg;
			break;
		case 'h':
			usage(stdout);
			ret = 0;
			goto out;
		default:
			fprintf(stderr, "pebs-shim export: bad option: see "
				"pebs-shim export --help\n");
			goto out;
		}
		if (err) {
			tool_err("export", "%s", pebs_errmsg());
			goto out;
		}
	}
	if (optind != argc) {
		tool_err("export", "unexpected argument '%s': the input is -i FILE",
			   argv[optind]);
		goto out;
	}
	if (!format || (strcmp(format, "pprof") && strcmp(format, "perfetto"))) {
		tool_err("export", "%s --format%s%s: give --format pprof or "
			 "--format perfetto", format ? "unknown" : "no",
			 format ? " " : "", format ? format : "");
		goto out;
	}
	perfetto = !strcmp(format, "perfetto");
	if (perfetto && (labels || o.split != PEBS_EXPORT_SPLIT_NONE)) {
		tool_err("export", "--%s is pprof's: a Perfetto trace has no "
			 "labels and is one file", labels ? "labels" : "split");
		goto out;
	}
	if (!o.output) {
		tool_err("export", "no output file: give one with -o %s",
			 perfetto ? "OUT.perfetto-trace" : "OUT.pb.gz");
		goto out;
	}
	ret = run(path, events, tspec, symfs, &o, perfetto);
out:
	pebs_filter__delete(f);
	return ret;
}
