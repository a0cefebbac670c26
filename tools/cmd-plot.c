// SPDX-License-Identifier: MIT
/*
 * cmd-plot.c - `pebs-shim plot KIND`: pictures of a recording.
 *
 * Glue: options, a pebs_session replaying the file, the report's
 * filters, and one library object per kind (pebs_flame for flame and
 * icicle, pebs_cpuplot, pebs_heat) that the samples go into and that
 * writes the SVG. The output is written to a temporary file beside
 * FILE and renamed over it only when complete, so a failure never
 * leaves a cut picture or loses an older one.
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

enum kind { K_FLAME, K_ICICLE, K_TIMELINE, K_HEAT };
enum by { BY_DEFAULT, BY_SAMPLES, BY_PERIOD, BY_WEIGHT };

static const char *const kind_names[] = { "flame", "icicle", "timeline",
					  "heat" };

enum {
	OPT_COMM = 256, OPT_PID, OPT_TID, OPT_CPU, OPT_DSOS,
	OPT_SYMS, OPT_TIME, OPT_FORMAT,
	OPT_PER_THREAD, OPT_GRANULE, OPT_BY, OPT_WIDTH, OPT_EVENT, OPT_RANGE,
	OPT_SYMFS,
};

struct plot {
	enum kind kind;
	enum by by;
	const char *path, *out, *time_spec, *events, *range;
	const char *symfs;	/* --symfs: files looked for under it */
	bool collapsed, per_thread, line_granule, fine;
	unsigned int width;
	struct pebs_perfdata *pd;
	struct pebs_session *ss;
	struct pebs_filter *filter;
	struct pebs_flame *flame;
	struct pebs_cpuplot *tl;
	struct pebs_heat *heat;
	struct pebs_objects *objs;	/* heat of record --objects: rows'
					   object labels */
	uint64_t samples, drawn, no_addr, with_weight;
	int err;
};

static uint64_t value_of(const struct plot *p,
			 const struct pebs_report_sample *rs)
{
	switch (p->by) {
	case BY_SAMPLES:
		return 1;
	case BY_WEIGHT:
		return rs->has_weight ? rs->weight : 0;
	default:
		return rs->period;
	}
}

static int on_sample(void *arg, const struct pebs_sample *s,
		     const struct pebs_report_sample *rs)
{
	struct plot *p = arg;
	int err = 0;

	p->samples++;
	/* --comm/--pid/--tid hide rows in a report; a picture leaves them
	   out, like --cpu and --time */
	if (pebs_filter__match(p->filter, rs, s->time) != PEBS_FILTER_PASS)
		return 0;
	p->drawn++;
	p->with_weight += rs->has_weight;
	switch (p->kind) {
	case K_FLAME:
	case K_ICICLE:
		err = pebs_flame__add_sample(p->flame,
					     pebs_session__symbols(p->ss), s,
					     rs, p->per_thread,
					     value_of(p, rs));
		break;
	case K_TIMELINE:
		err = pebs_cpuplot__add_sample(p->tl, s, rs);
		break;
	case K_HEAT:
		if (!rs->has_addr) {
			p->no_addr++;
			break;
		}
		err = pebs_heat__add(p->heat, s->time, rs, value_of(p, rs));
		break;
	}
	return err;
}

static const char *by_name(const struct plot *p)
{
	static const char *const names[] = { "period", "samples", "period",
					     "weight" };

	return names[p->by];
}

static int write_picture(void *arg, FILE *f)
{
	struct plot *p = arg;
	const char *ev = p->events;
	char title[512], sub[512];

	if (p->collapsed)
		return pebs_flame__write_collapsed(p->flame, f,
						   p->by == BY_SAMPLES);
	if (!ev && pebs_perfdata__nr_attrs(p->pd) == 1)
		ev = pebs_perfdata__attr_name(p->pd, 0);
	snprintf(sub, sizeof(sub), "%s: %" PRIu64 " samples%s%s%s%s",
		 p->path, p->drawn, ev ? " of " : "", ev ? ev : "",
		 p->kind == K_TIMELINE ? ", dark bars: sample density" :
		 p->kind == K_HEAT ? ", colour by " : ", widths by ",
		 p->kind == K_TIMELINE ? "" : by_name(p));
	switch (p->kind) {
	case K_FLAME:
	case K_ICICLE: {
		struct pebs_flame_svg_opts o = {
			.sz = sizeof(o),
			.title = p->kind == K_ICICLE ? "Icicle Graph"
						     : "Flame Graph",
			.subtitle = sub, .unit = by_name(p),
			.width = p->width, .icicle = p->kind == K_ICICLE,
			.by_samples = p->by == BY_SAMPLES,
		};

		return pebs_flame__write_svg(p->flame, f, &o);
	}
	case K_TIMELINE:
		snprintf(title, sizeof(title), "Timeline");
		return pebs_cpuplot__write_svg(p->tl, pebs_session__threads(p->ss),
						f, title, sub, p->width);
	default:
		snprintf(title, sizeof(title), "Data heat map: %s%s%s",
			 !p->fine ? "address ranges" :
			 p->line_granule ? "cache lines" : "pages",
			 p->range ? " of " : "", p->range ? p->range : "");
		return pebs_heat__write_svg(p->heat, f, title, sub, p->width);
	}
}

/* stdout, or FILE replaced whole: a failure keeps what FILE was */
static int output(struct plot *p)
{
	int err = strcmp(p->out, "-") ?
		  pebs_output__replace(p->out, write_picture, p) :
		  write_picture(p, stdout);

	if (err)
		tool_err("plot", "%s", pebs_errmsg());
	return err ? 1 : 0;
}

static int run(struct plot *p)
{
	const struct pebs_session_stats *st;
	unsigned int flags = 0;
	int err;

	if (pebs_perfdata__open_rewindable(p->path, &p->pd)) {
		tool_err("plot", "%s: give a perf.data file with -i", pebs_errmsg());
		return 1;
	}
	if (p->kind == K_TIMELINE) {
		/* the switch records first (the session skips them) */
		err = pebs_cpuplot__new(&p->tl);
		err = err ?: pebs_cpuplot__read_switches(p->tl, p->pd);
		if (err) {
			tool_err("plot", "%s", pebs_errmsg());
			return 1;
		}
		pebs_perfdata__rewind(p->pd);
	}
	if (pebs_session__new(p->pd, &p->ss)) {
		tool_err("plot", "%s", pebs_errmsg());
		return 1;
	}
	if (tool_symfs("plot", p->ss, p->symfs))
		return 2;
	st = pebs_session__stats(p->ss);
	if (p->events && pebs_filter__events(p->filter, p->pd, p->events)) {
		tool_err("plot", "%s: %s", p->path, pebs_errmsg());
		return 2;
	}
	if (p->time_spec && pebs_filter__time(p->filter, p->time_spec,
					      st->first_time, st->last_time)) {
		tool_err("plot", "%s", pebs_errmsg());
		return 2;
	}
	if (p->kind == K_HEAT &&
	    pebs_heat__new(p->line_granule ? 64 : 4096, st->first_time,
			   st->last_time, &p->heat)) {
		tool_err("plot", "%s", pebs_errmsg());
		return 1;
	}
	/* rows named as the session's maps stand at their first sample */
	if (p->heat)
		pebs_heat__set_symbols(p->heat, pebs_session__symbols(p->ss));
	/* and by their data objects when record --objects saw them */
	if (p->heat && pebs_session__use_objects(p->ss, 0, &p->objs)) {
		tool_err("plot", "%s", pebs_errmsg());
		return 1;
	}
	/* and the allocations and releases are no accesses: set aside */
	if (p->objs && pebs_filter__aside_objects(p->filter, p->pd)) {
		tool_err("plot", "%s", pebs_errmsg());
		return 1;
	}
	if (p->heat && ((!p->fine && pebs_heat__set_ranges(p->heat, 0)) ||
			(p->range && pebs_heat__set_range(p->heat, p->range)))) {
		tool_err("plot", "%s", pebs_errmsg());
		return 2;
	}
	if ((p->kind == K_FLAME || p->kind == K_ICICLE) &&
	    pebs_flame__new(&p->flame)) {
		tool_err("plot", "%s", pebs_errmsg());
		return 1;
	}
	err = pebs_session__process(p->ss, p->kind == K_HEAT, on_sample, p,
				    &flags);
	if (err == -ENOMEM) {
		tool_err("plot", "out of memory: plot a smaller file or part (--time)");
		return 1;
	}
	if (err < 0)
		tool_err("plot", "%s: a damaged record: plotting the records before it",
			 p->path);
	tool_warn_truncated("plot", p->path, p->pd);
	if (p->by == BY_WEIGHT && p->drawn && !p->with_weight) {
		tool_err("plot", "%s: no sample has a weight: give --by=period or "
			 "--by=samples, or record a latency event (ldlat)",
			 p->path);
		return 1;
	}
	if (p->kind == K_HEAT && p->drawn == p->no_addr && p->no_addr)
		tool_err("plot", "%s: no sample has a data address: record with -d "
			 "(PERF_SAMPLE_ADDR) or a memory event", p->path);
	return output(p);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: pebs-shim plot KIND [-i FILE] [-o OUT] [options]\n"
"\n"
"Pictures of a recording, as self-contained SVG files to open in a\n"
"browser (as perf timechart is beside perf report). KIND is:\n"
"  flame      a flame graph of the call chains (record -g; without them\n"
"             one level of symbols); hover, click to zoom, search\n"
"  icicle     the same, upside down (the root at the top)\n"
"  timeline   one row per CPU: which thread ran when (from the\n"
"             PERF_RECORD_SWITCH records of record --switch-events,\n"
"             else from the samples' threads), sample density over it\n"
"  heat       data address ranges x time: the mappings (heap, stacks,\n"
"             anonymous memory, files) cut where their access density\n"
"             differs, each row's share; or single pages or lines\n"
"\n"
"  -i, --input=FILE     the recording (default pebs-shim.data)\n"
"  -o, --output=OUT     where to write (default pebs-shim-KIND.svg, or\n"
"                       standard output with --format=collapsed; - is\n"
"                       standard output)\n"
"      --format=FMT     svg (default) or collapsed: FlameGraph's folded\n"
"                       stacks \"comm;frame;...;leaf COUNT\" (flame only)\n"
"      --by=WHAT        samples, period or weight: what widths, counts\n"
"                       and colours add up (default: period for SVG,\n"
"                       samples for collapsed, as stackcollapse-perf.pl)\n"
"      --per-thread     flame: one tower per thread (comm-pid/tid)\n"
"      --granule=G      heat: rows of single pages (4 KiB) or lines (64\n"
"                       bytes), the hottest first, not ranges\n"
"      --range=R        heat: only ADDR-ADDR (hex) or one mapping's name\n"
"                       ([heap], [stack], anon, libc.so.6)\n"
"      --width=PX       picture width (default 1200)\n"
"      --comm=LIST, --pid=LIST, --tid=LIST, --cpu=LIST, --dsos=LIST,\n"
"      --symbols=LIST, --time=SPEC,\n"
"      --event=NAMES\n"
"                       only these samples (as pebs-shim report; left\n"
"                       out of the picture and of its totals)\n"
"      --symfs=DIR      look for the recorded files under DIR (as\n"
"                       pebs-shim report)\n"
"  -h, --help           this help\n"
"Exit status: 0, 1 (unreadable input, unwritable output), 2 (usage).\n");
}

static int parse_kind(struct plot *p, const char *arg)
{
	unsigned int i;

	for (i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(arg, kind_names[i])) {
			p->kind = (enum kind)i;
			return 0;
		}
	tool_err("plot", "unknown kind '%s': give flame, icicle, timeline or heat",
		 arg);
	return -1;
}

static int parse_opt(struct plot *p, int c)
{
	char *end;

	switch (c) {
	case 'i':
		p->path = optarg;
		return 0;
	case 'o':
		p->out = optarg;
		return 0;
	case OPT_COMM:
	case OPT_PID:
	case OPT_TID:
	case OPT_CPU:
	case OPT_DSOS:
	case OPT_SYMS:
		if (!pebs_filter__option(p->filter,
					  tool_filter_names[c - OPT_COMM],
					  optarg))
			return 0;
		tool_err("plot", "%s", pebs_errmsg());
		return -1;
	case OPT_TIME:
		p->time_spec = optarg;
		return 0;
	case OPT_EVENT:
		p->events = optarg;
		return 0;
	case OPT_PER_THREAD:
		p->per_thread = true;
		return 0;
	case OPT_FORMAT:
		if (strcmp(optarg, "svg") && strcmp(optarg, "collapsed"))
			break;
		p->collapsed = !strcmp(optarg, "collapsed");
		return 0;
	case OPT_GRANULE:
		if (strcmp(optarg, "page") && strcmp(optarg, "line"))
			break;
		p->line_granule = !strcmp(optarg, "line");
		p->fine = true;
		return 0;
	case OPT_RANGE:
		p->range = optarg;
		return 0;
	case OPT_SYMFS:
		p->symfs = optarg;
		return 0;
	case OPT_BY:
		if (!strcmp(optarg, "samples"))
			p->by = BY_SAMPLES;
		else if (!strcmp(optarg, "period"))
			p->by = BY_PERIOD;
		else if (!strcmp(optarg, "weight"))
			p->by = BY_WEIGHT;
		else
			break;
		return 0;
	case OPT_WIDTH:
		p->width = (unsigned int)strtoul(optarg, &end, 10);
		if (*end || p->width < 200 || p->width > 100000)
			break;
		return 0;
	default:
		fprintf(stderr, "pebs-shim plot: bad option: see pebs-shim "
			"plot --help\n");
		return -1;
	}
	tool_err("plot", "bad value '%s': see pebs-shim plot --help", optarg);
	return -1;
}

static void plot_free(struct plot *p)
{
	pebs_flame__delete(p->flame);
	pebs_cpuplot__delete(p->tl);
	pebs_heat__delete(p->heat);
	pebs_objects__delete(p->objs);	/* after the rows naming them */
	pebs_session__delete(p->ss);
	pebs_filter__delete(p->filter);
	pebs_perfdata__close(p->pd);
}

int cmd_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		TOOL_FILTER_OPTIONS,
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "granule", required_argument, NULL, OPT_GRANULE },
		{ "range", required_argument, NULL, OPT_RANGE },
		{ "by", required_argument, NULL, OPT_BY },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct plot p = { .path = "pebs-shim.data" };
	static char def_out[64];
	int c, ret = 2;

	if (argc >= 2 && (!strcmp(argv[1], "-h") ||
			  !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2 || argv[1][0] == '-') {
		tool_err("plot", "no kind: give flame, icicle, timeline or heat "
			 "(pebs-shim plot --help)");
		return 2;
	}
	if (parse_kind(&p, argv[1]))
		return 2;
	if (pebs_filter__new(&p.filter)) {
		tool_err("plot", "%s", pebs_errmsg());
		return 1;
	}
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "i:o:h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			ret = 0;
			goto out;
		}
		if (parse_opt(&p, c))
			goto out;
	}
	if (optind != argc) {
		tool_err("plot", "unexpected argument '%s': the input is -i FILE",
			 argv[optind]);
		goto out;
	}
	if (p.collapsed && p.kind != K_FLAME && p.kind != K_ICICLE) {
		tool_err("plot", "--format=collapsed is for flame and icicle: drop it "
			 "or plot flame");
		goto out;
	}
	if (p.by == BY_DEFAULT)
		p.by = p.collapsed ? BY_SAMPLES : BY_PERIOD;
	if (!p.out) {
		snprintf(def_out, sizeof(def_out), "pebs-shim-%s.svg",
			 kind_names[p.kind]);
		p.out = p.collapsed ? "-" : def_out;
	}
	ret = run(&p);
out:
	plot_free(&p);
	return ret;
}
