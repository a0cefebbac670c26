// SPDX-License-Identifier: MIT
/*
 * objects-session.c - a session's samples name their data objects
 * (pebs_session__set_objects): the samples of the pebs-shim:alloc,
 * pebs-shim:free, pebs-shim:stack and pebs-shim:tls events
 * (lib/record/record-objects.c) fill a pebs_objects table as the session
 * replays them in time order, each allocation labelled by its site
 * against the mappings of its time, a thread's stack "[stack:TID]", its
 * TLS block of a module "[tls:TID] module" (the TLS block lies inside
 * the stack's range for a thread glibc made, and wins there, as the
 * later object); every sample
 * with a data address then gets the object that holds it at its time,
 * else its data symbol (a static variable, also in the part of .bss the
 * kernel maps anonymously), else its mapping.
 *
 * An allocation's site is the first frame of its call chain outside the
 * allocator: the C library, libstdc++, libgcc, the dynamic linker and
 * the interposer (libpebsshim-objects.so), as "function (file:line) <-
 * caller" with the line of the call (the return address - 1); without
 * DWARF lines no "(file:line)", without a symbol "file+0xoffset", and
 * without the caller's frame no "<- caller".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/objects.h"
#include "core/internal.h"
#include "perfdata/perfdata-int.h"
#include "session/session-int.h"
#include "symbols/symbols-int.h"
#include "objects/objects-int.h"

struct objs_hook {
	struct pebs_objects *objs;
	struct pebs_symbols *syms;
	struct pebs_srcline *srcl;
	/* attr indexes; UINT_MAX: none */
	unsigned int ev_alloc, ev_free, ev_stack, ev_tls;
	const char *last_static;	/* the static variable sized last */
	struct objects_fields *fields;	/* their fields (DWARF) */
};

/* the interposer's file name (an allocator frame, and its own data) */
#define INTERPOSER_DSO	"libpebsshim-objects"

static const char *const allocators[] = {
	"libc.so", "libc-", "libstdc++", "libgcc_s", "ld-linux",
	INTERPOSER_DSO,
};

static bool in_allocator(const char *dso)
{
	const char *b;

	if (!dso)
		return false;
	b = strrchr(dso, '/');
	b = b ? b + 1 : dso;
	for (size_t i = 0; i < sizeof(allocators) / sizeof(*allocators); i++)
		if (!strncmp(b, allocators[i], strlen(allocators[i])))
			return true;
	return false;
}

/* frame @ip of the sample's process as "name" or "file+0xoff" */
static void frame_name(const struct pebs_sym *sym, uint64_t ip, char *buf,
		       size_t len)
{
	if (sym->name)
		snprintf(buf, len, "%s", sym->name);
	else
		snprintf(buf, len, "%s+0x%llx", sym->dso ? core_base_name(sym->dso) :
			 "[unknown]", (unsigned long long)(sym->dso ?
			 sym->dso_offset : ip));
}

/*
 * The site of an allocation sample into @buf: "function (file:line)",
 * then " <- caller" when the stack has the caller's frame.
 */
static void site_of(struct objs_hook *h, const struct pebs_sample *s,
		    char *buf, size_t len)
{
	struct pebs_sym sym = { 0 }, first = { 0 };
	uint64_t ip = 0, first_ip = 0, caller = 0;
	const char *file;
	unsigned int line;
	bool found = false;
	size_t n;

	for (uint64_t i = 0; i < s->callchain_nr; i++) {
		uint64_t x;

		memcpy(&x, &s->callchain[i], sizeof(x));
		if (x >= (uint64_t)PERF_CONTEXT_MAX)
			continue;	/* a context marker */
		if (found) {
			caller = x;
			break;
		}
		ip = x;
		pebs_symbols__resolve(h->syms, (pid_t)s->pid, ip, &sym);
		if (!first_ip) {
			first = sym;
			first_ip = ip;
		}
		found = !in_allocator(sym.dso);
	}
	if (!found) {
		sym = first;
		ip = first_ip ? first_ip : s->ip;
	}
	frame_name(&sym, ip, buf, len);
	n = strlen(buf);
	if (sym.name && sym.dso && sym.dso[0] == '/' && sym.dso_offset &&
	    !pebs_srcline__find(h->srcl, sym.dso, sym.dso_offset - 1, &file,
				&line))
		n += (size_t)snprintf(buf + n, len - n, " (%s:%u)",
				      core_base_name(file), line);
	if (caller && n + 4 < len) {
		pebs_symbols__resolve(h->syms, (pid_t)s->pid, caller, &sym);
		memcpy(buf + n, " <- ", 5);
		frame_name(&sym, caller, buf + n + 4, len - n - 4);
	}
}

/* "[stack:TID]", or "[tls:TID] module" of the module at the sample's ip */
static void thread_label(struct objs_hook *h, const struct pebs_sample *s,
			 bool tls, char *buf, size_t len)
{
	struct pebs_sym sym = { 0 };
	int n = snprintf(buf, len, "[%s:%u]", tls ? "tls" : "stack",
			 (unsigned int)s->tid);

	if (tls && s->ip && (size_t)n < len &&
	    !pebs_symbols__resolve(h->syms, (pid_t)s->pid, s->ip, &sym) &&
	    sym.dso)
		snprintf(buf + n, len - (size_t)n, " %s", core_base_name(sym.dso));
}

static int on_sample(void *arg, const struct perf_event_header *ev,
		     const struct pebs_sample *s, unsigned int idx)
{
	struct objs_hook *h = arg;
	char site[512];
	int err;

	(void)ev;
	if (!(s->present & PERF_SAMPLE_ADDR) || !(s->present & PERF_SAMPLE_TIME))
		return 0;
	if (idx == h->ev_alloc) {
		if (!s->weight)
			return 0;
		site_of(h, s, site, sizeof(site));
		/* PERIOD: the bytes a sampled allocation stands for */
		err = pebs_objects__alloc_sampled(h->objs, (int32_t)s->pid,
						  s->addr, s->weight, s->time,
						  site,
						  s->period > s->weight ?
						  s->period : s->weight);
		return err == -ENOMEM ?
		       core_err(err, "objects: out of memory") : 0;
	}
	if (idx == h->ev_free)
		pebs_objects__free(h->objs, (int32_t)s->pid, s->addr,
				   s->period, s->time);
	if ((idx == h->ev_stack || idx == h->ev_tls) && s->period) {
		thread_label(h, s, idx == h->ev_tls, site, sizeof(site));
		err = pebs_objects__alloc(h->objs, (int32_t)s->pid, s->addr,
					  s->period, s->time, site);
		return err == -ENOMEM ?
		       core_err(err, "objects: out of memory") : 0;
	}
	return 0;
}

#define INTERPOSER_OBJECT "[pebs-shim interposer]"

/* @dso is record --objects' own: libpebsshim-objects.so or its ring */
static bool is_interposer(const char *dso)
{
	static const char *const own[] = {
		INTERPOSER_DSO, "memfd:" PEBS_OBJECTS_RING_NAME,
	};

	for (size_t i = 0; dso && i < sizeof(own) / sizeof(*own); i++)
		if (!strncmp(core_base_name(dso), own[i], strlen(own[i])))
			return true;
	return false;
}

static void on_label(void *arg, const struct pebs_sample *s,
		     struct pebs_report_sample *rs)
{
	struct objs_hook *h = arg;
	struct pebs_object obj;
	struct pebs_sym sym;
	uint64_t size = 0;
	const char *inst;
	char field[256];

	if (!pebs_objects__find(h->objs, rs->pid, rs->addr, s->time, &obj)) {
		rs->object = rs->object_field = obj.site;
		rs->object_inst = obj.instance;
		return;
	}
	const char *dso = rs->data_dso;

	rs->object = rs->data_sym ? rs->data_sym : rs->data_dso;
	if (rs->data_sym) {
		syms_resolve_data(h->syms, (pid_t)rs->pid, rs->addr, &sym,
				  &size);
	/* a static variable in the .bss past its file's pages */
	} else if (!syms_resolve_bss(h->syms, (pid_t)rs->pid, rs->addr, &sym,
				     &size)) {
		rs->object = sym.name;
		dso = sym.dso;
	}
	rs->object_inst = rs->object_field = rs->object;
	/* the interposer's own tables and ring: one object, so named */
	if (is_interposer(dso)) {
		rs->object = objects_intern(h->objs, INTERPOSER_OBJECT);
		rs->object_inst = rs->object_field = rs->object;
		return;
	}
	/* its size for pebs_objects__stats (out of memory: unknown) */
	if (size && rs->object != h->last_static &&
	    !objects_static(h->objs, rs->object, size))
		h->last_static = rs->object;
	/* a struct's field: the instance "name.field" (object_instance) */
	if (size && sym.dso && sym.dso[0] == '/' &&
	    !objects_field(h->fields, sym.dso, sym.name, sym.offset, field,
			   sizeof(field)) &&
	    (inst = objects_intern(h->objs, field)))
		rs->object_inst = rs->object_field = inst;
}

static void hook_free(void *arg)
{
	struct objs_hook *h = arg;

	pebs_srcline__delete(h->srcl);
	objects_fields__delete(h->fields);
	free(h);
}

static const struct ss_hook_ops objs_hook_ops = {
	.sz = sizeof(objs_hook_ops),
	.sample = on_sample,
	.label = on_label,
	.free = hook_free,
};

bool pebs_objects__event(const struct pebs_perfdata *pd, unsigned int idx)
{
	const char *name = pd ? pebs_perfdata__attr_name(pd, idx) : NULL;
	const struct perf_event_attr *a;
	const uint64_t *ids;
	size_t nr;

	if (name && (!strcmp(name, PEBS_OBJECTS_ALLOC_EVENT) ||
		     !strcmp(name, PEBS_OBJECTS_FREE_EVENT) ||
		     !strcmp(name, PEBS_OBJECTS_STACK_EVENT) ||
		     !strcmp(name, PEBS_OBJECTS_TLS_EVENT)))
		return true;
	a = pd ? pebs_perfdata__attr(pd, idx, &ids, &nr) : NULL;
	return a && a->type == PERF_TYPE_SOFTWARE &&
	       a->config == PERF_COUNT_SW_DUMMY && nr == 1 &&
	       ids[0] >= PEBS_OBJECTS_ALLOC_ID && ids[0] <= PEBS_OBJECTS_TLS_ID;
}

bool pebs_objects__recorded(const struct pebs_perfdata *pd)
{
	return pd && pd_attr_named(pd, PEBS_OBJECTS_ALLOC_EVENT,
				   PEBS_OBJECTS_ALLOC_ID) != UINT32_MAX;
}

int pebs_session__set_objects(struct pebs_session *ss, struct pebs_objects *o)
{
	struct pebs_perfdata *pd;
	struct objs_hook *h;

	if (!ss)
		return core_err(-EINVAL, "session: no session");
	if (!o)
		return ss_hook__set(ss, &objs_hook_ops, NULL);
	pd = ss_perfdata(ss);
	h = calloc(1, sizeof(*h));
	if (!h || objects_numa(o, pd) || pebs_srcline__new(&h->srcl) ||
	    objects_fields__new(&h->fields)) {
		if (h)
			pebs_srcline__delete(h->srcl);
		free(h);
		return core_err(-ENOMEM, "session: out of memory");
	}
	h->objs = o;
	h->syms = pebs_session__symbols(ss);
	h->ev_alloc = pd_attr_named(pd, PEBS_OBJECTS_ALLOC_EVENT,
				    PEBS_OBJECTS_ALLOC_ID);
	h->ev_free = pd_attr_named(pd, PEBS_OBJECTS_FREE_EVENT,
				   PEBS_OBJECTS_FREE_ID);
	h->ev_stack = pd_attr_named(pd, PEBS_OBJECTS_STACK_EVENT,
				    PEBS_OBJECTS_STACK_ID);
	h->ev_tls = pd_attr_named(pd, PEBS_OBJECTS_TLS_EVENT,
				  PEBS_OBJECTS_TLS_ID);
	return ss_hook__set(ss, &objs_hook_ops, h);
}

int pebs_session__use_objects(struct pebs_session *ss, unsigned int flags,
			      struct pebs_objects **op)
{
	int err;

	if (!op)
		return core_err(-EINVAL, "objects: no result pointer");
	*op = NULL;
	if (!ss)
		return core_err(-EINVAL, "session: no session");
	if (!(flags & PEBS_OBJECTS_ANY_RECORDING) &&
	    !pebs_objects__recorded(ss_perfdata(ss)))
		return 0;
	err = pebs_objects__new(op);
	if (!err)
		err = pebs_session__set_objects(ss, *op);
	if (err) {
		pebs_objects__delete(*op);
		*op = NULL;
	}
	return err;
}

int pebs_filter__aside_objects(struct pebs_filter *f,
			       const struct pebs_perfdata *pd)
{
	unsigned int i, n;
	int err;

	if (!f || !pd)
		return core_err(-EINVAL, "filter: no filter or recording");
	if (!pebs_objects__recorded(pd))
		return 0;
	n = pebs_perfdata__nr_attrs(pd);
	for (i = 0; i < n; i++) {
		if (!pebs_objects__event(pd, i))
			continue;
		err = pebs_filter__aside(f, i);
		if (err)
			return err;
	}
	return 0;
}
