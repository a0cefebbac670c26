// SPDX-License-Identifier: MIT
/*
 * cmd-c2c.c - `pebs-shim c2c report`: cache-line sharing of a recording,
 * printed as perf c2c report --stdio prints it (the counting, keying,
 * ranking, classification and printing are the library's pebs_c2c).
 *
 * The library reads the file into the table in time order
 * (pebs_c2c__read_perfdata); this file parses the options and runs it.
 * A recording of record --objects is read once more, through a session
 * naming each sample's data object (lib/objects/), and each line gets
 * the object its samples hit most (pebs_objects__c2c_name).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "pebsshim.h"
#include "util.h"

struct c2c_cmd {
	const char *path;
	enum pebs_c2c_format fmt;
	enum pebs_c2c_display display;
	bool display_set;
	bool show_all;			/* every line, not only shown ones */
	bool detail;			/* csv: the detail table */
	struct pebs_perfdata *pd;
	struct pebs_symbols *code;	/* code mappings: symbols */
	struct pebs_srcline *src;	/* source lines, or NULL */
	struct pebs_c2c *c2c;
	uint64_t bad;			/* samples that did not decode */
	/* a recording of record --objects: each line's data object */
	struct pebs_session *ss;	/* (its labels' strings) */
	struct pebs_objects *objs;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: pebs-shim c2c record [options] -- COMMAND (see c2c record --help)\n"
"       pebs-shim c2c report [-i FILE] [--stdio] [-d tot|lcl|rmt|peer|xwrites]\n"
"                            [--show-all] [--format csv|json]\n"
"                            [--table lines|detail]\n"
"Cache-line sharing of a recording, keyed, counted and ranked as perf c2c\n"
"report does (perf's labels and columns), with each shown line's offsets,\n"
"code addresses (symbol, source line), threads and CPUs and its true/false\n"
"sharing with evidence.\n"
"  -i, --input FILE     the recording (default pebs-shim.data, as report)\n"
"      --stdio          text tables (the default; accepted for perf users)\n"
"  -d, --display KIND   rank by tot (default), lcl or rmt HITM, peer snoops,\n"
"                       or xwrites: cross-thread writes (the default when\n"
"                       no sample has a data source, e.g. page faults)\n"
"      --show-all       every line with a data address, not only those\n"
"                       perf shows (shown ones first)\n"
"      --format FMT     csv: the shared line table; json: everything\n"
"      --table TABLE    csv: lines (default) or detail: one row per line,\n"
"                       offset and code address with its threads and CPUs\n");
}

static int parse_display(const char *s, enum pebs_c2c_display *d)
{
	static const char *const names[] = {
		[PEBS_C2C_TOT_HITM] = "tot", [PEBS_C2C_LCL_HITM] = "lcl",
		[PEBS_C2C_RMT_HITM] = "rmt", [PEBS_C2C_PEER] = "peer",
		[PEBS_C2C_XWRITES] = "xwrites",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*d = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_args(struct c2c_cmd *m, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "stdio", no_argument, NULL, 'S' },
		{ "display", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'F' },
		{ "show-all", no_argument, NULL, 'A' },
		{ "table", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "i:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			m->path = optarg;
			break;
		case 'S':
			m->fmt = PEBS_C2C_FORMAT_STDIO;
			break;
		case 'd':
			if (parse_display(optarg, &m->display)) {
				tool_err("c2c", "unknown display '%s': use tot, lcl, "
					"rmt, peer or xwrites", optarg);
				return 2;
			}
			m->display_set = true;
			break;
		case 'F':
			if (!strcmp(optarg, "csv")) {
				m->fmt = PEBS_C2C_FORMAT_CSV;
			} else if (!strcmp(optarg, "json")) {
				m->fmt = PEBS_C2C_FORMAT_JSON;
			} else {
				tool_err("c2c", "unknown format '%s': use csv or json",
					optarg);
				return 2;
			}
			break;
		case 'A':
			m->show_all = true;
			break;
		case 'T':
			if (strcmp(optarg, "lines") && strcmp(optarg, "detail")) {
				tool_err("c2c", "unknown table '%s': use lines or "
					"detail", optarg);
				return 2;
			}
			m->detail = !strcmp(optarg, "detail");
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			fprintf(stderr, "pebs-shim c2c: bad option: see "
				"pebs-shim c2c report --help\n");
			return 2;
		}
	}
	if (optind != argc) {
		tool_err("c2c", "unexpected argument '%s': the input is -i FILE",
			argv[optind]);
		return 2;
	}
	return 0;
}

static int count_line(void *arg, const struct pebs_sample *s,
		      const struct pebs_report_sample *rs)
{
	(void)s;
	return pebs_objects__add_line_sample(arg, rs);
}

/* each line's data object, from a second pass: 0, -ENOMEM, or the
   pass's error (the lines before a damaged record are named) */
static int name_objects(struct c2c_cmd *m)
{
	int err;

	if (!pebs_objects__recorded(m->pd))
		return 0;
	if (pebs_session__new(m->pd, &m->ss) ||
	    pebs_session__use_objects(m->ss, 0, &m->objs))
		return -ENOMEM;
	err = pebs_session__process(m->ss, true, count_line, m->objs, NULL);
	if (err == -ENOMEM)
		return err;
	pebs_objects__c2c_name(m->objs, m->c2c);
	return err < 0 ? err : 0;
}

static int run(struct c2c_cmd *m)
{
	const void *data;
	size_t size;
	int err;

	err = pebs_perfdata__open_rewindable(m->path, &m->pd);
	if (err) {
		tool_err("c2c", "%s: give a perf.data file with -i", pebs_errmsg());
		return 1;
	}
	if (pebs_symbols__new(&m->code) || pebs_c2c__new(&m->c2c) ||
	    pebs_srcline__new(&m->src))
		goto out_oom;
	/* recorded build ids: a local file that differs gives no symbol
	 * (and so no source line), the kernel's only if it is this one */
	if (!pebs_perfdata__feat(m->pd, PEBS_FEAT_BUILD_ID, &data, &size) &&
	    pebs_symbols__add_build_ids(m->code, data, size) == -ENOMEM)
		goto out_oom;
	err = pebs_c2c__read_perfdata(m->c2c, m->pd, m->code, &m->bad);
	if (err == -ENOMEM)
		goto out_oom;
	pebs_symbols__load_kernel(m->code);
	if (err)	/* damaged: report the records before the damage */
		tool_err("c2c", "%s: %s: reporting the records before it", m->path,
			pebs_errmsg());
	if (!m->display_set && !pebs_c2c__has_data_src(m->c2c))
		m->display = PEBS_C2C_XWRITES;
	if (pebs_c2c__sort(m->c2c, m->display) < 0)
		goto out_oom;
	/* a damaged record: the first pass said so already */
	if (name_objects(m) == -ENOMEM)
		goto out_oom;
	if (m->bad)
		tool_err("c2c", "%" PRIu64 " samples could not be decoded and are "
			"left out", m->bad);
	PEBS_OPTS(pebs_c2c_print_opts, po, .show_all = m->show_all,
		  .pd = m->pd, .code = m->code, .src = m->src, .path = m->path,
		  .undecoded = m->bad, .objects = m->objs != NULL);
	po.format = m->fmt == PEBS_C2C_FORMAT_CSV && m->detail ?
		    PEBS_C2C_FORMAT_CSV_DETAIL : m->fmt;
	if (pebs_c2c__print(m->c2c, stdout, &po) == -ENOMEM)
		goto out_oom;
	if (fflush(stdout) || ferror(stdout)) {
		tool_err("c2c", "writing the report failed: check the output");
		return 1;
	}
	return err ? 1 : 0;

out_oom:
	tool_err("c2c", "out of memory: report a smaller file");
	return 1;
}

int cmd_c2c(int argc, char **argv)
{
	struct c2c_cmd m = { .path = "pebs-shim.data" };
	int ret;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "record"))
		return c2c_record(argc, argv);
	if (strcmp(argv[1], "report")) {
		tool_err("c2c", "unknown subcommand '%s': use pebs-shim c2c record or c2c report",
			argv[1]);
		return 2;
	}
	ret = parse_args(&m, argc - 1, argv + 1);
	if (ret)
		return ret == 1 ? 0 : ret;
	ret = run(&m);
	pebs_c2c__delete(m.c2c);
	pebs_session__delete(m.ss);
	pebs_objects__delete(m.objs);
	pebs_srcline__delete(m.src);
	pebs_symbols__delete(m.code);
	pebs_perfdata__close(m.pd);
	return ret;
}
