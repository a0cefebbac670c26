// SPDX-License-Identifier: MIT
/*
 * stack.c - what every export takes from a recording: its session's
 * objects and what its events sample (ex_src); a sample's call stack as
 * frames (the leaf first, named as pebs_report's sym key names it), each
 * resolved with the maps of its time into a file, an address in that
 * file and a function; and the build id of a file (the recorded one,
 * HEADER_BUILD_ID, else the local file's).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "export/export-int.h"
#include "session/session-int.h"
#include "symbols/dso.h"

void ex_src__init(struct ex_src *x, struct pebs_session *ss,
		  const struct pebs_export_opts *o,
		  struct pebs_export_stats *st)
{
	const struct perf_event_attr *a;
	unsigned int i;

	memset(x, 0, sizeof(*x));
	x->o = o;
	x->st = st ? st : &x->dummy;
	memset(x->st, 0, sizeof(*x->st));
	x->pd = ss_perfdata(ss);
	x->syms = pebs_session__symbols(ss);
	x->nr_attrs = pebs_perfdata__nr_attrs(x->pd);
	if (pebs_perfdata__feat(x->pd, PEBS_FEAT_BUILD_ID, &x->bids,
				&x->bids_size))
		x->bids = NULL;
	for (i = 0; i < x->nr_attrs; i++) {
		a = pebs_perfdata__attr(x->pd, i, NULL, NULL);
		if (!a)
			continue;
		x->any_weight |= !!(a->sample_type &
				    (PERF_SAMPLE_WEIGHT |
				     PERF_SAMPLE_WEIGHT_STRUCT));
		x->any_src |= !!(a->sample_type & PERF_SAMPLE_DATA_SRC);
	}
}

int ex_build_id(const void *bids, size_t bids_size, const char *dso,
		uint8_t *bid)
{
	const unsigned char *p = bids, *end = p ? p + bids_size : NULL;
	struct buildid_entry be;
	int n;

	while (p && buildid_section__next(&p, end, &be) > 0)
		if (!strcmp(be.name, dso)) {
			memcpy(bid, be.bid, be.len);
			return (int)be.len;
		}
	if (dso[0] != '/')
		return 0;
	n = dso_elf_build_id(dso, bid);
	return n > 0 ? n : 0;
}

/* frame @f of @ip, looked up if @lookup (@res: the sample's own, named
   as in @res) */
static void frame(struct pebs_symbols *syms, pid_t pid, uint64_t ip,
		  bool kernel, bool lookup,
		  const struct pebs_report_sample *res, struct ex_frame *f)
{
	struct pebs_sym sym;

	memset(&sym, 0, sizeof(sym));
	if (lookup)	/* else in none of its context's maps */
		pebs_symbols__resolve(syms, pid, ip, &sym);
	if (res) {		/* the report's sym key */
		sym.name = res->sym;
		kernel = res->kernel;
	}
	f->dso = sym.dso;
	f->dso_offset = sym.dso_offset;
	f->kernel = kernel;
	f->addr = sym.dso && !kernel ? sym.dso_offset : ip;
	f->named = sym.name != NULL;
	f->name = sym.name;
	if (!f->name) {
		snprintf(f->hex, sizeof(f->hex), "0x%016" PRIx64,
			 res ? res->ip : f->addr);
		f->name = f->hex;
	}
}

/*
 * The walk of callchain.c (pebs_callchain__step: a frame outside its
 * context's maps [unknown], a corrupt chain dropped after the leaf). The
 * leaf is the sample's own ip, named as the report names it, so that an
 * export's flat shares are report --sort sym's: a chain that starts
 * elsewhere (a precise PEBS ip is not the interrupted one the chain
 * starts at) gets it in front.
 */
int ex_stack(struct pebs_symbols *syms, const struct pebs_sample *s,
	     const struct pebs_report_sample *res, ex_frame_fn fn, void *arg)
{
	struct ex_frame f;
	unsigned int n = 1;
	uint64_t i, ip;
	int mode = -1, step, err;
	bool lookup;

	frame(syms, res->pid, s->ip, res->kernel, true, res, &f);
	err = fn(arg, &f);
	if (pebs_callchain__dropped(s))
		return err;	/* the leaf alone */
	for (i = 0; !err && (s->present & PERF_SAMPLE_CALLCHAIN) &&
		    i < s->callchain_nr && n < PEBS_CALLCHAIN_MAX; i++) {
		memcpy(&ip, s->callchain + i, sizeof(ip));
		step = pebs_callchain__step(ip, &mode, &lookup);
		if (step <= 0)
			continue;	/* a context marker */
		if (n == 1 && ip == s->ip)
			continue;	/* the chain's first: the leaf */
		frame(syms, res->pid, ip,
		      mode < 0 ? ip >= KERNEL_START : mode == 1, lookup, NULL,
		      &f);
		n++;
		err = fn(arg, &f);
	}
	return err;
}
