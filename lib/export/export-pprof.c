// SPDX-License-Identifier: MIT
/*
 * export-pprof.c - a recording as pprof profiles (pebs_export__pprof):
 * one pass of a pebs_session, each sample's call stack resolved with the
 * maps of its time into locations (addresses as file offsets in their
 * mapping, so one function of a library is one location whatever the
 * process), functions with source lines (lib/symbols/srcline.c), mappings
 * with the recorded build ids (HEADER_BUILD_ID, else the local file's),
 * and the labels asked for; split by event or by windows of sample time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-int.h"
#include "session/session-int.h"
#include "symbols/dso.h"

#define MAX_LABELS	12

static const char *const label_names[] = {
	"comm", "pid", "tid", "cpu", "data_page", "cache_line", "mem_level",
	"snoop", "tlb", "data_object", "weight",
};
#define NR_LABEL_NAMES	(sizeof(label_names) / sizeof(label_names[0]))

int pebs_export__parse_labels(const char *list, unsigned int *labels)
{
	const char *p = list;
	unsigned int i, v = 0;
	size_t len;

	if (!list || !labels)
		return core_err(-EINVAL, "export: no label list");
	while (*p) {
		len = strcspn(p, ",");
		for (i = 0; i < NR_LABEL_NAMES; i++)
			if (strlen(label_names[i]) == len &&
			    !strncmp(label_names[i], p, len))
				break;
		if (i < NR_LABEL_NAMES)
			v |= 1u << i;
		else if (len == 3 && !strncmp(p, "all", 3))
			v |= (1u << NR_LABEL_NAMES) - 1;
		else if (!(len == 4 && !strncmp(p, "none", 4)))
			return core_err(-EINVAL, "unknown label '%.*s': give "
					"comm, pid, tid, cpu, data_page, "
					"cache_line, mem_level, snoop, tlb, "
					"data_object, weight, all or none",
					(int)len, p);
		p += len + (p[len] == ',');
	}
	*labels = v;
	return 0;
}

int pebs_export__split_path(const char *output, const char *part, char *buf,
			    size_t len)
{
	static const char sfx[] = ".pb.gz";
	size_t n = strlen(output), sl = sizeof(sfx) - 1, i, o;
	bool has = n > sl && !strcmp(output + n - sl, sfx);
	char clean[256];

	for (i = 0, o = 0; part[i] && o + 1 < sizeof(clean); i++) {
		char c = part[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' ||
			  c == '-';

		clean[o++] = ok ? c : '_';
	}
	clean[o] = '\0';
	return snprintf(buf, len, "%.*s.%s%s", (int)(has ? n - sl : n),
			output, clean, has ? sfx : "");
}

/* one profile being built, and its columns */
struct prof {
	struct pebs_pprof *pp;
	int *col_period;		/* per event; -1: not in this one */
	int col_weight, col_hitm, col_remote;
	unsigned int nr_cols;
	uint64_t first, last;		/* its samples' times */
};

typedef char bid_hex[2 * BUILD_ID_MAX + 1];

struct exp {
	struct ex_src x;
	struct pebs_session *ss;
	struct pebs_srcline *sl;
	struct ex_intern dsos;		/* the files met, and */
	bid_hex *hex;			/* the build id of each */
	size_t hex_cap;
	struct prof *profs;		/* one, or one per event */
	unsigned int nr_profs;
	uint64_t window;		/* SPLIT_WINDOW: the current one */
	uint64_t t0;			/* first sample time */
};

static const char *event_name(const struct exp *e, unsigned int i, char *buf,
			      size_t len)
{
	const char *n = pebs_perfdata__attr_name(e->x.pd, i);

	if (n)
		return n;
	snprintf(buf, len, "event%u", i);
	return buf;
}

/* a new profile in @p with the columns of event @only (-1: all) */
static int prof_new(struct exp *e, struct prof *p, int only)
{
	const struct pebs_session_stats *st = pebs_session__stats(e->ss);
	char buf[32];
	unsigned int i;
	int c, first = -1;

	memset(p, 0, sizeof(*p));
	p->col_weight = p->col_hitm = p->col_remote = -1;
	p->col_period = malloc((e->x.nr_attrs + 1) * sizeof(int));
	if (!p->col_period || pebs_pprof__new(&p->pp) ||
	    pebs_pprof__sample_type(p->pp, "samples", "count") < 0)
		return core_err(-ENOMEM, "export: out of memory");
	p->nr_cols = 1;
	for (i = 0; i < e->x.nr_attrs; i++) {
		p->col_period[i] = -1;
		/* the events with samples (not perf's dummy) */
		if ((only >= 0 && i != (unsigned int)only) ||
		    (only < 0 && (i >= st->nr_events ||
				  !st->event_samples[i])))
			continue;
		c = pebs_pprof__sample_type(p->pp,
					    event_name(e, i, buf, sizeof(buf)),
					    "count");
		if (c < 0)
			return c;
		p->col_period[i] = c;
		if (first < 0)
			first = c;
	}
	if (e->x.any_weight &&
	    (p->col_weight = pebs_pprof__sample_type(p->pp, "weight",
						     "cycles")) < 0)
		return p->col_weight;
	if (e->x.any_src &&
	    ((p->col_hitm = pebs_pprof__sample_type(p->pp, "hitm",
						    "count")) < 0 ||
	     (p->col_remote = pebs_pprof__sample_type(p->pp, "remote",
						      "count")) < 0))
		return p->col_hitm < 0 ? p->col_hitm : p->col_remote;
	c = p->col_remote >= 0 ? p->col_remote : p->col_weight;
	if (c < first)
		c = first;
	if (c >= 0)
		p->nr_cols = (unsigned int)c + 1;
	if (first >= 0)
		pebs_pprof__default_type(p->pp, (unsigned int)first);
	return pebs_pprof__comment(p->pp, "pebs-shim export");
}

/* write profile @p (if it has samples) as part @part, and free it */
static int prof_write(struct exp *e, struct prof *p, const char *part)
{
	char path[4096];
	int err = 0;

	if (p->pp && pebs_pprof__nr_samples(p->pp)) {
		if (part)
			pebs_export__split_path(e->x.o->output, part, path,
						sizeof(path));
		pebs_pprof__set_time(p->pp, 0, (int64_t)(p->last - p->first));
		err = pebs_pprof__write(p->pp, part ? path : e->x.o->output);
		e->x.st->files += !err;
	}
	pebs_pprof__delete(p->pp);
	free(p->col_period);
	p->pp = NULL;
	p->col_period = NULL;
	return err;
}

/* the build id of file @dso as hex ("" if none is known): looked up once
   per file (HEADER_BUILD_ID, else the file), not per frame */
static int build_id_hex(struct exp *e, const char *dso, const char **hex)
{
	uint8_t bid[BUILD_ID_MAX];
	uint32_t id;
	bool added;
	int i, n;

	if (ex_intern__get(&e->dsos, dso, strlen(dso), &id, &added))
		return core_err(-ENOMEM, "export: out of memory");
	if (added) {
		if (core_grow(&e->hex, &e->hex_cap, (size_t)id + 1,
			      sizeof(*e->hex)))
			return core_err(-ENOMEM, "export: out of memory");
		n = ex_build_id(e->x.bids, e->x.bids_size, dso, bid);
		for (i = 0, e->hex[id][0] = '\0'; i < n; i++)
			sprintf(e->hex[id] + 2 * i, "%02x", bid[i]);
	}
	*hex = e->hex[id];
	return 0;
}

/* the location of frame @f */
static int location(struct exp *e, struct prof *p, const struct ex_frame *f,
		    uint32_t *id)
{
	const char *file = NULL, *hex = NULL;
	unsigned int line = 0;
	uint32_t map = 0;
	bool added;
	int err;

	if (f->dso) {
		err = build_id_hex(e, f->dso, &hex);
		if (!err)
			err = pebs_pprof__mapping(p->pp, f->dso, hex, &map);
		if (err)
			return err;
	}
	err = pebs_pprof__location(p->pp, map, f->addr, f->name, id, &added);
	if (err || !added)
		return err;
	if (f->dso && f->dso[0] == '/' && !f->kernel && f->named)
		pebs_srcline__find(e->sl, f->dso, f->dso_offset, &file, &line);
	return pebs_pprof__location_line(p->pp, *id, file, line);
}

/* a sample's stack as locations, the leaf first */
struct stack_locs {
	struct exp *e;
	struct prof *p;
	uint32_t *locs;
	unsigned int n;
};

static int stack_frame(void *arg, const struct ex_frame *f)
{
	struct stack_locs *sl = arg;

	return location(sl->e, sl->p, f, &sl->locs[sl->n++]);
}

static unsigned int labels(struct exp *e, const struct pebs_report_sample *r,
			   struct pebs_pprof_label *l, char bufs[][256])
{
	unsigned int w = e->x.o->labels, n = 0;
	struct pebs_data_src d;

#define NUM(k, v, u) \
	do { \
		l[n].key = k; l[n].str = NULL; l[n].num = v; l[n].unit = u; \
		n++; \
	} while (0)
#define STR(k) \
	do { l[n].key = k; l[n].str = bufs[n]; l[n].unit = NULL; n++; } \
	while (0)
	if (w & PEBS_EXPORT_LABEL_COMM) {
		if (r->comm)
			snprintf(bufs[n], 256, "%s", r->comm);
		else
			snprintf(bufs[n], 256, ":%d", (int)r->tid);
		STR("comm");
	}
	if (w & PEBS_EXPORT_LABEL_PID)
		NUM("pid", r->pid, "pid");
	if (w & PEBS_EXPORT_LABEL_TID)
		NUM("tid", r->tid, "tid");
	if ((w & PEBS_EXPORT_LABEL_CPU) && r->cpu != UINT32_MAX)
		NUM("cpu", r->cpu, "cpu");
	if ((w & PEBS_EXPORT_LABEL_PAGE) && r->has_addr) {
		snprintf(bufs[n], 256, "0x%" PRIx64, r->addr & ~(uint64_t)4095);
		STR("data_page");
	}
	if ((w & PEBS_EXPORT_LABEL_LINE) && r->has_addr) {
		snprintf(bufs[n], 256, "0x%" PRIx64, r->addr & ~(uint64_t)63);
		STR("cache_line");
	}
	if (r->has_src && (w & (PEBS_EXPORT_LABEL_LEVEL |
				PEBS_EXPORT_LABEL_SNOOP |
				PEBS_EXPORT_LABEL_TLB))) {
		pebs_data_src__decode(r->data_src, &d);
		if (w & PEBS_EXPORT_LABEL_LEVEL) {
			snprintf(bufs[n], 256, "%s", d.lvl);
			STR("mem_level");
		}
		if (w & PEBS_EXPORT_LABEL_SNOOP) {
			snprintf(bufs[n], 256, "%s", d.snoop);
			STR("snoop");
		}
		if (w & PEBS_EXPORT_LABEL_TLB) {
			snprintf(bufs[n], 256, "%s", d.tlb);
			STR("tlb");
		}
	}
	/* the data object the session named (record --objects: a heap
	   object's site, a thread's stack), else the data symbol or map */
	if ((w & PEBS_EXPORT_LABEL_OBJECT) && r->has_addr &&
	    (r->object ? snprintf(bufs[n], 256, "%s", r->object) :
	     pebs_symbols__data_label(e->x.syms, r->pid, r->addr, bufs[n],
				      256)) >= 0)
		STR("data_object");
	if ((w & PEBS_EXPORT_LABEL_WEIGHT) && r->has_weight)
		NUM("weight", (int64_t)r->weight, "cycles");
#undef NUM
#undef STR
	return n;
}

/* the profile of sample @s: the window's (writing the one before), the
   event's, or the one */
static int prof_of(struct exp *e, const struct pebs_sample *s,
		   const struct pebs_report_sample *r, struct prof **pp)
{
	char part[32];
	uint64_t w;
	int err;

	if (e->x.o->split == PEBS_EXPORT_SPLIT_EVENT) {
		*pp = &e->profs[r->event < e->x.nr_attrs ? r->event : 0];
		return (*pp)->pp ? 0 : prof_new(e, *pp, (int)r->event);
	}
	*pp = &e->profs[0];
	if (e->x.o->split == PEBS_EXPORT_SPLIT_WINDOW) {
		w = s->time > e->t0 ? (s->time - e->t0) / e->x.o->window_ns : 0;
		if ((*pp)->pp && w != e->window) {
			snprintf(part, sizeof(part), "%06" PRIu64, e->window);
			err = prof_write(e, *pp, part);
			if (err)
				return err;
		}
		e->window = w;
	}
	return (*pp)->pp ? 0 : prof_new(e, *pp, -1);
}

static int on_sample(void *arg, const struct pebs_sample *s,
		     const struct pebs_report_sample *r)
{
	struct exp *e = arg;
	struct pebs_pprof_label l[MAX_LABELS];
	struct stack_locs sl;
	char bufs[MAX_LABELS][256];
	uint32_t locs[PEBS_CALLCHAIN_MAX];
	int64_t v[32] = { 0 };
	union perf_mem_data_src src = { .val = r->data_src };
	struct pebs_data_src d;
	unsigned int n, nl;
	struct prof *p;
	int err;

	e->x.st->samples++;
	if (pebs_filter__match(e->x.o->filter, r, s->time) != PEBS_FILTER_PASS)
		return 0;
	e->x.st->exported++;
	err = prof_of(e, s, r, &p);
	if (err)
		return err;
	sl = (struct stack_locs){ .e = e, .p = p, .locs = locs };
	err = ex_stack(e->x.syms, s, r, stack_frame, &sl);
	if (err)
		return err;
	n = sl.n;
	nl = labels(e, r, l, bufs);
	v[0] = 1;
	if (r->event < e->x.nr_attrs && p->col_period[r->event] >= 0)
		v[p->col_period[r->event]] = (int64_t)r->period;
	if (p->col_weight >= 0 && r->has_weight)
		v[p->col_weight] = (int64_t)r->weight;
	if (p->col_hitm >= 0 && r->has_src) {
		pebs_data_src__decode(r->data_src, &d);
		v[p->col_hitm] = (src.mem_snoop & PERF_MEM_SNOOP_HITM) ||
				 (src.mem_snoopx & PERF_MEM_SNOOPX_PEER);
		v[p->col_remote] = d.remote;
	}
	if (!p->first)
		p->first = s->time;
	p->last = s->time;
	return pebs_pprof__add(p->pp, locs, n, l, nl, v);
}

int pebs_export__pprof(struct pebs_session *ss,
		       const struct pebs_export_opts *o,
		       struct pebs_export_stats *st)
{
	struct exp e = { .ss = ss };
	char part[32], buf[32];
	unsigned int i;
	int err, werr;

	if (!ss || !o || o->sz < sizeof(*o) || !o->output ||
	    (o->split == PEBS_EXPORT_SPLIT_WINDOW && !o->window_ns) ||
	    o->split > PEBS_EXPORT_SPLIT_WINDOW)
		return core_err(-EINVAL, "export: no session, output or "
				"window length");
	ex_src__init(&e.x, ss, o, st);
	e.t0 = pebs_session__stats(ss)->first_time;
	e.nr_profs = o->split == PEBS_EXPORT_SPLIT_EVENT ? e.x.nr_attrs : 1;
	e.profs = calloc(e.nr_profs ? e.nr_profs : 1, sizeof(*e.profs));
	if (!e.profs || pebs_srcline__new(&e.sl)) {
		free(e.profs);
		return core_err(-ENOMEM, "export: out of memory");
	}
	err = pebs_session__process(ss, !!(o->labels &
					   PEBS_EXPORT_LABEL_OBJECT),
				    on_sample, &e, NULL);
	if (err == -ENOMEM)
		core_err(err, "export: out of memory");
	for (i = 0; i < e.nr_profs; i++) {
		const char *partp = NULL;

		if (err && err != -EBADMSG) {	/* nothing written */
			pebs_pprof__delete(e.profs[i].pp);
			free(e.profs[i].col_period);
			continue;
		}
		if (o->split == PEBS_EXPORT_SPLIT_EVENT)
			partp = event_name(&e, i, buf, sizeof(buf));
		else if (o->split == PEBS_EXPORT_SPLIT_WINDOW) {
			snprintf(part, sizeof(part), "%06" PRIu64, e.window);
			partp = part;
		}
		werr = prof_write(&e, &e.profs[i], partp);
		if (werr && (!err || err == -EBADMSG))
			err = werr;
	}
	free(e.profs);
	free(e.hex);
	ex_intern__free(&e.dsos);
	pebs_srcline__delete(e.sl);
	if (err == -EBADMSG)
		core_err(err, "a damaged record: the profiles hold the "
			 "samples before it");
	return err;
}
