// SPDX-License-Identifier: MIT
/*
 * cmd-script.c - `pebs-shim script`: every sample of a recording, one
 * line each in time order, as perf script -F prints them, or as csv or
 * jsonl (lib/script/script.c formats; a pebs_session replays; the
 * filters are report's, pebs_filter). A pipe (-i -) is read once, as it
 * comes (pebs_session__new_stream): nothing is kept but the ordered
 * pass's round.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "pebsshim.h"
#include "util.h"

enum {
	OPT_COMM = 256, OPT_PID, OPT_TID, OPT_CPU, OPT_DSOS,
	OPT_SYMS, OPT_TIME, OPT_FORMAT,
	OPT_EVENT, OPT_SYMFS, OPT_MAX_STACK,
};

struct script {
	const char *path;
	const char *fields;
	const char *time_spec;
	const char *events;
	enum pebs_script_format fmt;
	struct pebs_perfdata *pd;
	struct pebs_session *ss;
	struct pebs_script *sc;
	struct pebs_filter *filter;
	struct pebs_objects *objs;	/* record --objects' objects */
	const char *symfs;	/* --symfs: files looked for under it */
	int max_stack;		/* --max-stack, or -1 */
};

static int on_sample(void *arg, const struct pebs_sample *s,
		     const struct pebs_report_sample *rs)
{
	struct script *sc = arg;

	if (pebs_filter__match(sc->filter, rs, s->time) != PEBS_FILTER_PASS)
		return 0;
	return pebs_script__sample(sc->sc, pebs_session__symbols(sc->ss), s,
				   rs, stdout);
}

static int on_record(void *arg, const struct perf_event_header *ev)
{
	struct script *sc = arg;

	return pebs_script__record(sc->sc, ev);
}

static int run(struct script *sc)
{
	const struct pebs_session_stats *st;
	bool stream = tool_is_stream(sc->path);
	unsigned int flags = 0;
	int err;

	if (pebs_perfdata__open(sc->path, &sc->pd)) {
		tool_err("script", "%s: give a perf.data file with -i", pebs_errmsg());
		return 1;
	}
	if (pebs_script__new(sc->pd, sc->fields, sc->fmt, &sc->sc) ||
	    (sc->max_stack >= 0 &&
	     pebs_script__set_max_stack(sc->sc, (unsigned int)sc->max_stack))) {
		tool_err("script", "%s", pebs_errmsg());
		return 2;
	}
	err = stream ? pebs_session__new_stream(sc->pd, &sc->ss) :
		       pebs_session__new(sc->pd, &sc->ss);
	if (err || pebs_session__set_records(sc->ss, on_record, sc)) {
		tool_err("script", "%s", pebs_errmsg());
		return 1;
	}
	if (tool_symfs("script", sc->ss, sc->symfs))
		return 2;
	/* a recording of record --objects: data_object names its objects */
	if (!stream && pebs_session__use_objects(sc->ss, 0, &sc->objs)) {
		tool_err("script", "%s", pebs_errmsg());
		return 1;
	}
	if (sc->events && pebs_filter__events(sc->filter, sc->pd,
					     sc->events)) {
		tool_err("script", "%s: %s", sc->path, pebs_errmsg());
		return 2;
	}
	st = pebs_session__stats(sc->ss);
	if (sc->time_spec && stream && strchr(sc->time_spec, '%')) {
		tool_err("script", "--time %s: percentages need the time span, unknown "
			   "on a pipe: give start,end in seconds, or a file",
			   sc->time_spec);
		return 2;
	}
	if (sc->time_spec && pebs_filter__time(sc->filter, sc->time_spec,
					       st->first_time,
					       st->last_time)) {
		tool_err("script", "%s", pebs_errmsg());
		return 2;
	}
	if (pebs_script__header(sc->sc, stdout))
		return 1;
	err = pebs_session__process(sc->ss, false, on_sample, sc, &flags);
	if (err == -EIO || fflush(stdout)) {
		tool_err("script", "cannot write the output: %s", strerror(errno));
		return 1;
	}
	if (err == -ENOMEM) {
		tool_err("script", "out of memory");
		return 1;
	}
	if (err < 0)
		tool_err("script", "%s: a damaged record: the samples before it were "
			   "printed", sc->path);
	tool_warn_truncated("script", sc->path, sc->pd);
	if (flags & PEBS_ORDERED_FILE_ORDER)
		tool_err("script", "%s: an event does not sample TIME: records taken "
			   "in file order", sc->path);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: pebs-shim script [-i FILE] [-F FIELDS] [--format text|csv|jsonl]\n"
"\n"
"Print every sample of a recording, one line each in time order, as\n"
"perf script does (the same fields, widths and order), or as csv (a\n"
"header row of the field names) or jsonl (one JSON object per line) for\n"
"pandas, R or DuckDB.\n"
"\n"
"  -i, --input=FILE     the recording (default pebs-shim.data; - reads a\n"
"                       pipe as it comes, in bounded memory)\n"
"  -F, --fields=LIST    comma-separated fields: perf script's comm, tid,\n"
"                       pid, time, cpu, event, ip, sym, symoff, dso, addr,\n"
"                       data_src, weight, ins_lat, period, phys_addr,\n"
"                       callchain, srcline, and pebs-shim's attr_tid (the thread\n"
"                       running on the CPU by the recording's switch\n"
"                       history), mem_level (the data source's level),\n"
"                       data_object (the data address's object, as report\n"
"                       --sort dso_daddr,symbol_daddr names it)\n"
"      --format=FMT     text (default: perf script's lines, pebs-shim's\n"
"                       fields appended as name=value), csv or jsonl\n"
"  -c, --comm=LIST      only samples of these commands (a,b; also\n"
"                       --comms, as perf)\n"
"      --dsos=LIST      only samples in these files (libc.so.6 or a path)\n"
"  -S, --symbols=LIST   only samples in these symbols\n"
"      --pid=LIST       only samples of these processes\n"
"      --tid=LIST       only samples of these threads\n"
"      --cpu=LIST       only samples on these CPUs (0-3,8)\n"
"      --event=NAMES    only samples of these events\n"
"      --time=SPEC      only samples in this time: start,end in seconds,\n"
"                       or perf's A%%-B%% and N%%/M (not on a pipe)\n"
"      --max-stack=N    print at most N frames of each call chain, the\n"
"                       innermost (perf script's)\n"
"      --symfs=DIR      look for the recorded files under DIR (perf's:\n"
"                       DIR/.debug as the build-id cache; kernel\n"
"                       addresses stay raw)\n"
"  -h, --help           this help\n"
"\n"
"-F +f,-g changes the default fields (as perf), a list without signs\n"
"replaces them. Without -F, text shows perf script's default fields for\n"
"each event, and\n"
"csv and jsonl the columns comm, pid, tid, time, cpu, event, ip, sym,\n"
"dso, addr, data_src, weight, period, phys_addr, attr_tid, mem_level,\n"
"data_object. In text a field an event's samples lack is refused, as by\n"
"perf; in csv it is empty and in jsonl null.\n"
"Exit status: 0, 1 (unreadable file, write error), 2 (usage).\n");
}

static void script_free(struct script *sc)
{
	pebs_session__delete(sc->ss);
	pebs_objects__delete(sc->objs);
	pebs_script__delete(sc->sc);
	pebs_filter__delete(sc->filter);
	pebs_perfdata__close(sc->pd);
}

int cmd_script(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "fields", required_argument, NULL, 'F' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		TOOL_FILTER_OPTIONS,
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct script sc = { .path = "pebs-shim.data", .max_stack = -1 };
	uint64_t v;
	int c, ret;

	if (pebs_filter__new(&sc.filter)) {
		tool_err("script", "%s", pebs_errmsg());
		return 1;
	}
	while ((c = getopt_long(argc, argv, "i:F:c:S:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			sc.path = optarg;
			break;
		case 'F':
			sc.fields = optarg;
			break;
		case OPT_SYMFS:
			sc.symfs = optarg;
			break;
		case OPT_MAX_STACK:
			if (!tool_parse_u64(optarg, &v) || v > INT_MAX) {
				tool_err("script", "bad --max-stack '%s': give the "
					 "frames to print (0 or more)", optarg);
				goto out_usage;
			}
			sc.max_stack = (int)v;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "csv")) {
				sc.fmt = PEBS_SCRIPT_CSV;
			} else if (!strcmp(optarg, "jsonl")) {
				sc.fmt = PEBS_SCRIPT_JSONL;
			} else if (!strcmp(optarg, "text")) {
				sc.fmt = PEBS_SCRIPT_TEXT;
			} else {
				tool_err("script", "unknown --format '%s': give text, "
					   "csv or jsonl", optarg);
				goto out_usage;
			}
			break;
		case 'c':
		case 'S':
			c = c == 'c' ? OPT_COMM : OPT_SYMS;
			/* fall through */
		case OPT_COMM:
		case OPT_PID:
		case OPT_TID:
		case OPT_CPU:
		case OPT_DSOS:
		case OPT_SYMS:
			if (pebs_filter__option(sc.filter,
					tool_filter_names[c - OPT_COMM],
					optarg)) {
				tool_err("script", "%s", pebs_errmsg());
				goto out_usage;
			}
			break;
		case OPT_TIME:
			sc.time_spec = optarg;
			break;
		case OPT_EVENT:
			sc.events = optarg;
			break;
		case 'h':
			usage(stdout);
			script_free(&sc);
			return 0;
		default:
			fprintf(stderr, "pebs-shim script: bad option: see "
				"pebs-shim script --help\n");
			goto out_usage;
		}
	}
	if (optind != argc) {
		tool_err("script", "unexpected argument '%s': the input is -i FILE",
			   argv[optind]);
		goto out_usage;
	}
	ret = run(&sc);
	script_free(&sc);
	return ret;

out_usage:
	script_free(&sc);
	return 2;
}
