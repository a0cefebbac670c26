// SPDX-License-Identifier: MIT
/*
 * callchain.c - a sample's call chain as resolved frames, a frame in a
 * data segment named as perf's report names it, and the frame names
 * FlameGraph's stackcollapse-perf.pl makes of `perf script`.
 *
 * PERF_SAMPLE_CALLCHAIN is a list of instruction pointers, the leaf
 * first, interleaved with PERF_CONTEXT_* markers (values from
 * PERF_CONTEXT_MAX up) that say whether the pointers after them are
 * kernel, user, hypervisor or guest ones. Markers are not frames. As in
 * perf, at most PEBS_CALLCHAIN_MAX frames are kept (perf's default
 * kernel.perf_event_max_stack). A sample without a call chain is one
 * frame: its own ip. A frame is looked up in its context's maps, as
 * perf looks it up: a kernel address among user frames (a stale frame
 * pointer's garbage) is no kernel symbol but [unknown], and so is a
 * user address among kernel frames.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/symbols.h"
#include "core/internal.h"
#include "symbols/symbols-int.h"

/* frame @ip, looked up unless !@lookup ([unknown]) */
static void resolve_one(struct pebs_symbols *syms, pid_t pid, uint64_t ip,
			bool kernel, bool lookup, struct pebs_frame *fr)
{
	struct pebs_sym sym;

	memset(&sym, 0, sizeof(sym));
	if (lookup)
		pebs_symbols__resolve(syms, pid, ip, &sym);
	fr->ip = ip;
	fr->sym = sym.name;
	fr->dso = sym.dso;
	fr->kernel = kernel;
}

static size_t name_slot(const char *sym, size_t mask)
{
	return (size_t)(((uintptr_t)sym * 0x9e3779b97f4a7c15ull) >> 17) & mask;
}

/* the slot of data symbol @sym in syms->frame_names (an empty one if
   new: at most half full), or NULL out of memory */
static struct frame_name *frame_name(struct pebs_symbols *syms,
				     const char *sym)
{
	struct frame_name *t = syms->frame_names;
	size_t cap = syms->cap_frame_names, i;

	if ((syms->nr_frame_names + 1) * 2 > cap) {
		size_t ncap = cap ? cap * 2 : 64;

		t = calloc(ncap, sizeof(*t));
		if (!t)
			return NULL;
		for (size_t j = 0; j < cap; j++) {
			if (!syms->frame_names[j].sym)
				continue;
			for (i = name_slot(syms->frame_names[j].sym, ncap - 1);
			     t[i].sym; i = (i + 1) & (ncap - 1))
				;
			t[i] = syms->frame_names[j];
		}
		free(syms->frame_names);
		syms->frame_names = t;
		syms->cap_frame_names = cap = ncap;
	}
	for (i = name_slot(sym, cap - 1); t[i].sym && t[i].sym != sym;
	     i = (i + 1) & (cap - 1))
		;
	return &t[i];
}

int pebs_callchain__data_frame(struct pebs_symbols *syms, pid_t pid,
			       struct pebs_frame *fr)
{
	struct frame_name *n;
	struct pebs_sym sym;
	int err;

	if (!syms || !fr)
		return -EINVAL;
	err = pebs_symbols__resolve_data(syms, pid, fr->ip, &sym);
	fr->dso = sym.dso;
	if (err)
		return err;
	/* perf's report keeps one entry per symbol and prints an
	   STT_OBJECT one with the offset of the entry's first address
	   (_hist_entry__sym_snprintf): the first offset named */
	n = frame_name(syms, sym.name);
	if (!n)
		return -ENOMEM;
	if (!n->sym) {
		if (asprintf(&n->shown, "%s+0x%" PRIx64, sym.name,
			     sym.offset) < 0)
			return -ENOMEM;
		n->sym = sym.name;
		syms->nr_frame_names++;
	}
	fr->sym = n->shown;
	return 0;
}

int pebs_callchain__step(uint64_t entry, int *mode, bool *lookup)
{
	if (entry < PERF_CONTEXT_MAX) {
		*lookup = *mode < 0 || (*mode == 1) == (entry >= KERNEL_START);
		return 1;
	}
	switch (entry) {
	case PERF_CONTEXT_KERNEL:
	case PERF_CONTEXT_HV:
		*mode = 1;
		return 0;
	case PERF_CONTEXT_USER:
		*mode = 0;
		return 0;
	default:	/* a guest's, or garbage: perf drops the chain */
		return -1;
	}
}

bool pebs_callchain__dropped(const struct pebs_sample *s)
{
	unsigned int n = 0;
	int mode = -1, step;
	bool lookup;
	uint64_t ip;

	for (uint64_t i = 0; s && (s->present & PERF_SAMPLE_CALLCHAIN) &&
			     i < s->callchain_nr && n < PEBS_CALLCHAIN_MAX; i++) {
		memcpy(&ip, s->callchain + i, sizeof(ip));
		step = pebs_callchain__step(ip, &mode, &lookup);
		if (step < 0)
			return true;
		n += (unsigned int)step;
	}
	return false;
}

int pebs_callchain__resolve(struct pebs_symbols *syms,
			    const struct pebs_sample *s, bool kernel,
			    struct pebs_frame *frames, unsigned int max)
{
	unsigned int n = 0;
	uint64_t i, ip;
	int mode = -1, step;	/* mode -1: none seen (by address) */
	bool lookup;

	if (!syms || !s || !frames || !max)
		return core_err(-EINVAL, "callchain: nothing to resolve");
	if (max > PEBS_CALLCHAIN_MAX)
		max = PEBS_CALLCHAIN_MAX;
	if (!(s->present & PERF_SAMPLE_CALLCHAIN) || !s->callchain_nr) {
		resolve_one(syms, (pid_t)s->pid, s->ip, kernel, true,
			    &frames[0]);
		return 1;
	}
	for (i = 0; i < s->callchain_nr && n < max; i++) {
		memcpy(&ip, s->callchain + i, sizeof(ip));
		step = pebs_callchain__step(ip, &mode, &lookup);
		if (step < 0) {
			n = 0;	/* corrupt: dropped, as perf drops it */
			break;
		}
		if (!step)
			continue;	/* a context marker */
		resolve_one(syms, (pid_t)s->pid, ip,
			    mode < 0 ? ip >= KERNEL_START : mode == 1,
			    lookup, &frames[n++]);
	}
	if (!n) {	/* only markers, or dropped: the sample's own ip */
		resolve_one(syms, (pid_t)s->pid, s->ip, kernel, true,
			    &frames[0]);
		n = 1;
	}
	return (int)n;
}

enum pebs_frame_kind pebs_frame__kind(const struct pebs_frame *fr)
{
	const char *base;

	if (fr->kernel)
		return PEBS_FRAME_KERNEL;
	if (!fr->dso)
		return PEBS_FRAME_UNKNOWN;
	if (fr->dso[0] == '[')	/* [vdso], [vsyscall], [jit] ... */
		return PEBS_FRAME_LIB;
	base = strrchr(fr->dso, '/');
	base = base ? base + 1 : fr->dso;
	return strstr(base, ".so") ? PEBS_FRAME_LIB : PEBS_FRAME_USER;
}

/* Append @src[0..n) to buf at *o (bounded, NUL-terminated). */
static void put(char *buf, size_t len, size_t *o, const char *src, size_t n)
{
	if (*o + 1 >= len)
		return;
	if (n > len - 1 - *o)
		n = len - 1 - *o;
	memcpy(buf + *o, src, n);
	*o += n;
	buf[*o] = '\0';
}

/*
 * Does @name look like a Go method ("net/http.(*Client).Do"):
 * stackcollapse's /\.\(.*\)\./?
 */
static bool go_like(const char *name)
{
	const char *p = strstr(name, ".(");

	return p && strstr(p + 2, ").");
}

int pebs_frame__folded(const struct pebs_frame *fr, char *buf, size_t len)
{
	const char *name = fr->sym, *cut = NULL, *p, *base;
	size_t o = 0, i, n;

	if (!buf || !len)
		return -EINVAL;
	buf[0] = '\0';
	if (!name) {
		/* perf script: "[unknown] (dso)"; the script names the
		   module instead, "[libc.so.6]", when it is known */
		if (!fr->dso)
			return (int)snprintf(buf, len, "[unknown]");
		base = strrchr(fr->dso, '/');
		base = base ? base + 1 : fr->dso;
		return (int)snprintf(buf, len, "[%s]", base);
	}
	/* the script skips names that start with '(' (process names) */
	if (name[0] == '(')
		return 0;
	/* tidy_generic: what follows the first '(' is noise (arguments),
	   except "(anonymous namespace)" and Go method names */
	if (!go_like(name)) {
		for (p = name; (p = strchr(p, '(')) != NULL; p++)
			if (strncmp(p, "(anonymous namespace)", 21)) {
				cut = p;
				break;
			}
	}
	n = cut ? (size_t)(cut - name) : strlen(name);
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (c == '"' || c == '\'')
			continue;
		if (c == ';')
			c = ':';
		put(buf, len, &o, &c, 1);
	}
	return (int)o;
}

int pebs_frame__comm(const char *comm, int32_t tid, char *buf, size_t len)
{
	size_t i;
	int n;

	if (!buf || !len)
		return -EINVAL;
	/* perf script prints ":tid" for a thread without a comm */
	n = comm ? snprintf(buf, len, "%s", comm) :
		   snprintf(buf, len, ":%d", tid);
	/* stackcollapse: spaces become '_' (and ';' would split) */
	for (i = 0; buf[i]; i++)
		if (buf[i] == ' ')
			buf[i] = '_';
		else if (buf[i] == ';')
			buf[i] = ':';
	return n;
}
