// SPDX-License-Identifier: MIT
/*
 * fuzz-session.c - libFuzzer target for what reads a recording after
 * its parser (fuzz-perfdata): the session (records in time order,
 * threads, maps over time, record --budget's cycle marks), the data
 * objects of record --objects, c2c's lines, report's tables with their
 * sampling errors and children (and the source lines of perf's srcline
 * keys), script's lines, and the pprof and Perfetto exports. The input's first byte chooses: its low bits the
 * sort keys, 0x08 a stream (one pass, as a pipe is read), 0x10
 * children, 0x20 sampling errors, 0x40 script's lines as well, 0x80 CSV
 * (else text); its second what reads the recording: 0 (mod 3) report
 * (with c2c, objects, script; 0x40: call graphs, perf report -g, its
 * other bits their options), 1 the pprof export (0x04: split by
 * event, with every label), 2 the Perfetto export; the rest is the
 * perf.data file or stream. Everything is printed to /dev/null, as the
 * commands print it; the exports are written to a directory of their
 * own, emptied after each input.
 *
 * The files a recording names (binaries, perf maps, debug files) are
 * opened as report opens them: regular files only (lib/core/file.c); run
 * it with HOME set to an empty directory, so no build-id cache is read,
 * as fuzz.t does.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const sorts[8] = {
	"sym,dso", "pid,tid,comm", "object,object_field", "line,srcline,srcfile",
	"event,page,time", "src,mem,snoop,tlb", "object_instance,sym",
	"symbol_daddr,dso_daddr,dcacheline",
};

struct fz {
	struct pebs_session *ss;
	struct pebs_report *rep;
	struct pebs_objects *objs;
	struct pebs_script *sc;
	struct pebs_weights *w;
	FILE *out;
	bool children, graph, c2c;
	unsigned int max_stack;	/* with a graph: the frames kept */
	uint64_t samples;
	struct pebs_frame frames[PEBS_CALLCHAIN_MAX];
};

static int on_record(void *arg, const struct perf_event_header *ev)
{
	struct fz *z = arg;

	return z->sc ? pebs_script__record(z->sc, ev) : 0;
}

static int on_sample(void *arg, const struct pebs_sample *s,
		     const struct pebs_report_sample *rs)
{
	struct fz *z = arg;
	int nr;

	z->samples++;
	if (z->sc && pebs_script__sample(z->sc, pebs_session__symbols(z->ss),
					 s, rs, z->out) == -ENOMEM)
		return -ENOMEM;
	if (pebs_weights__add(z->w, rs) ||
	    (z->objs && (pebs_objects__add_sample(z->objs, rs) ||
			 (z->c2c && pebs_objects__add_line_sample(z->objs, rs)))))
		return -ENOMEM;
	if (!z->children && !z->graph)
		return pebs_report__add(z->rep, rs);
	nr = pebs_report__chain(pebs_session__symbols(z->ss), s, rs->kernel,
				z->frames, PEBS_CALLCHAIN_MAX);
	if (nr > 0 && z->graph)
		nr = (int)pebs_report__max_stack(z->frames, (unsigned int)nr,
						 z->max_stack, z->samples & 1 ?
						 PEBS_GRAPH_CALLER :
						 PEBS_GRAPH_ORDER_DEFAULT,
						 z->children, z->samples & 2);
	return pebs_report__add_chain(z->rep, rs, z->frames,
				      nr > 0 ? (unsigned int)nr : 0);
}

/* The exports' directory and file, made once; -1 on failure. */
static char out_dir[64] = "/tmp/fuzz-session-XXXXXX", out_path[96];

static void remove_dir(void)
{
	rmdir(out_dir);
}

static int export(struct pebs_perfdata *pd, uint8_t how, uint8_t mode)
{
	struct pebs_session *ss = NULL;
	struct pebs_objects *objs = NULL;
	struct pebs_export_stats st;
	unsigned int labels = 0;
	int err;

	if (!out_path[0]) {
		if (!mkdtemp(out_dir) || atexit(remove_dir))
			abort();
		snprintf(out_path, sizeof(out_path), "%s/out.pb.gz", out_dir);
	}
	err = (how & 0x08) ? pebs_session__new_stream(pd, &ss) :
			     pebs_session__new(pd, &ss);
	if (err)
		return 0;
	if (mode % 3 == 1 && !(how & 0x08) &&
	    pebs_session__use_objects(ss, 0, &objs))
		goto out;
	if (pebs_export__parse_labels("all", &labels))
		abort();
	PEBS_OPTS(pebs_export_opts, o, .output = out_path,
		  .labels = (mode & 0x04) ? labels : 0,
		  .split = (mode & 0x04) ? PEBS_EXPORT_SPLIT_EVENT :
			   PEBS_EXPORT_SPLIT_NONE);
	if (mode % 3 == 1)
		pebs_export__pprof(ss, &o, &st);
	else
		pebs_export__perfetto(ss, &o, &st);
out:
	pebs_session__delete(ss);
	pebs_objects__delete(objs);
	return 0;
}

/* what an export left: the directory emptied */
static void clean(void)
{
	DIR *d = out_path[0] ? opendir(out_dir) : NULL;
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum pebs_report_key keys[PEBS_REPORT_MAX_KEYS];
	struct pebs_report_table table;
	struct pebs_perfdata *pd = NULL;
	struct pebs_c2c *c2c = NULL;
	struct fz z = { 0 };
	unsigned int flags = 0, needs;
	uint8_t how;
	int n, err;

	if (size < 2)
		return 0;
	how = data[0];
	if (pebs_perfdata__from_memory(data + 2, size - 2, &pd))
		return 0;
	if (data[1] % 3) {
		export(pd, how, data[1]);
		clean();
		pebs_perfdata__close(pd);
		return 0;
	}
	z.out = fopen("/dev/null", "w");
	n = pebs_report__parse_keys(sorts[how & 7], keys, PEBS_REPORT_MAX_KEYS);
	if (!z.out || n <= 0)
		abort();
	err = (how & 0x08) ? pebs_session__new_stream(pd, &z.ss) :
			     pebs_session__new(pd, &z.ss);
	if (err)
		goto out;
	if (pebs_session__set_records(z.ss, on_record, &z) ||
	    pebs_weights__new(&z.w) ||
	    pebs_report__new(keys, (unsigned int)n,
			     pebs_perfdata__nr_attrs(pd), &z.rep))
		goto out;
	if ((how & 0x20) && pebs_report__set_errors(z.rep))
		abort();	/* a new report takes errors */
	z.children = (how & 0x10) &&
		     pebs_report__can_cumulate(keys, (unsigned int)n);
	if (z.children && pebs_report__set_children(z.rep))
		goto out;
	/* the second byte's 0x40: call graphs (its other bits: their mode,
	   order, value, threshold and the frames kept) */
	z.graph = data[1] & 0x40;
	if (z.graph) {
		PEBS_OPTS(pebs_report_graph_opts, g,
			  .mode = (enum pebs_graph_mode)(data[1] / 3 % 4),
			  .order = (enum pebs_graph_order)(data[1] >> 3 & 1 ?
				PEBS_GRAPH_CALLEE : PEBS_GRAPH_ORDER_DEFAULT),
			  .value = (enum pebs_graph_value)(data[1] / 12 % 3),
			  .threshold = data[1] & 0x80 ? 0 : 0.5,
			  .has_threshold = true, .print_limit = data[1] & 0x20,
			  .syms = data[1] & 0x10 ? NULL :
				  pebs_session__symbols(z.ss));

		if (pebs_report__set_graph(z.rep, &g))
			abort();	/* a new report takes a graph */
		z.max_stack = data[1] & 0x04 ? 3 : PEBS_CALLCHAIN_MAX;
	}
	if ((how & 0x40) &&
	    pebs_script__new(pd, NULL, (how & 0x80) ? PEBS_SCRIPT_CSV :
			     PEBS_SCRIPT_TEXT, &z.sc))
		goto out;
	needs = pebs_report__needs(z.rep);
	if (pebs_session__set_srclines(z.ss, needs & PEBS_REPORT_NEEDS_SRCLINES))
		goto out;
	z.c2c = pebs_c2c__new(&c2c) == 0 &&
		pebs_session__set_c2c(z.ss, c2c, PEBS_SESSION_C2C_SHARED) == 0;
	if (((needs & PEBS_REPORT_NEEDS_OBJECTS) || (how & 0x40)) &&
	    !(how & 0x08) &&
	    pebs_session__use_objects(z.ss, PEBS_OBJECTS_ANY_RECORDING,
				      &z.objs))
		goto out;
	pebs_symbols__kernel_nowait(pebs_session__symbols(z.ss),
				    !z.children && !(how & 0x20));
	err = pebs_session__process(z.ss, needs & PEBS_REPORT_NEEDS_DATA,
				    on_sample, &z, &flags);
	if (err == -ENOMEM || pebs_report__name_kernel(z.rep,
						      pebs_session__symbols(z.ss)))
		goto out;
	pebs_report__sort(z.rep);
	for (size_t i = 0; i < pebs_report__nr_rows(z.rep); i++) {
		double e = pebs_report__share_error(z.rep, i);

		/* a share's error: -1 (none), else at most sqrt(5) x 100
		   points (the samples outside cycles add at most the total
		   squared to the variance, the cycles' estimator 4 times) */
		if (e != -1 && !(e >= 0 && e <= 224))
			abort();
	}
	if (z.objs && z.c2c && pebs_objects__c2c_sharing(z.objs, c2c))
		goto out;
	table.title = "fuzz";
	table.rep = z.rep;
	PEBS_OPTS(pebs_report_print_opts, o,
		  .format = (how & 0x80) ? PEBS_REPORT_FORMAT_CSV :
			    PEBS_REPORT_FORMAT_TEXT,
		  .path = "fuzz", .pd = pd, .stats = pebs_session__stats(z.ss),
		  .tables = &table, .nr_tables = 1, .top = 20,
		  .sort = sorts[how & 7], .weights = z.w,
		  .samples = z.samples, .flags = flags, .objs = z.objs);
	if (pebs_report_tables__print(z.out, &o) == -EINVAL)
		abort();
	if (z.c2c)
		pebs_c2c__print_summary(c2c, z.out,
					pebs_session__threads(z.ss), 10);
out:
	pebs_script__delete(z.sc);
	pebs_report__delete(z.rep);
	pebs_weights__delete(z.w);
	pebs_session__delete(z.ss);
	pebs_objects__delete(z.objs);
	pebs_c2c__delete(c2c);
	pebs_perfdata__close(pd);
	if (z.out)
		fclose(z.out);
	return 0;
}
