// SPDX-License-Identifier: MIT
/*
 * symbols-kernel.c - what the resolver knows of the recording's builds:
 * build ids (HEADER_BUILD_ID, pebs_symbols__set_build_id) that make a
 * changed file be looked up in the build-id cache, and the kernel's
 * symbols, from /proc/kallsyms only when the recorded kernel is this
 * host's (its build id, or else its _text), read on a thread
 * (lib/symbols/kallsyms.c) or at the first kernel address; and perf's
 * --symfs (pebs_symbols__set_symfs), under which no file of this host's
 * names the kernel or the vdso.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim/symbols.h"
#include "symbols/symbols-int.h"

int pebs_symbols__set_build_id(struct pebs_symbols *syms, const char *path,
			       const uint8_t *build_id, size_t size)
{
	struct dso *d;

	if (!syms || !path || !build_id || !size || size > BUILD_ID_MAX)
		return core_err(-EINVAL, "symbols: bad build id for %s",
				path ? path : "(null)");
	if (syms_is_kernel_name(path)) {
		memcpy(syms->kernel_bid, build_id, size);
		syms->kernel_bid_len = size;
		return 0;
	}
	d = syms_dso_findnew(syms, path);
	if (!d)
		return syms_oom();
	memcpy(d->want_bid, build_id, size);
	d->want_bid_len = size;
	if (d->loaded) {
		/* checked against the file again on the next lookup; the
		   names stay: rows may hold them */
		free(d->syms);
		free(d->dsyms);
		free(d->segs);
		dso_retire(d, d->names);
		dso_retire(d, d->pnames);
		dso_retire(d, d->dnames);
		d->syms = d->dsyms = NULL;
		d->names = d->pnames = d->dnames = NULL;
		d->segs = NULL;
		d->nr_syms = d->nr_dsyms = d->nr_segs = 0;
		d->loaded = false;
	}
	syms_invalidate(syms);
	return 0;
}

int pebs_symbols__add_build_ids(struct pebs_symbols *syms, const void *data,
				size_t size)
{
	const unsigned char *p = data, *end = p ? p + size : NULL;
	struct buildid_entry e;
	int nr = 0, ret, err;

	if (!syms || (!data && size))
		return core_err(-EINVAL, "symbols: no build id section");
	while ((ret = buildid_section__next(&p, end, &e)) > 0) {
		if (e.name[0] != '/' && !syms_is_kernel_name(e.name) &&
		    strcmp(e.name, "[vdso]"))
			continue;	/* not in perf's cache */
		err = pebs_symbols__set_build_id(syms, e.name, e.bid, e.len);
		if (err)
			return err;
		nr++;
	}
	return ret < 0 ? ret : nr;
}

bool syms_same_kernel(const struct pebs_symbols *syms)
{
	uint8_t bid[BUILD_ID_MAX];
	int n;

	/* perf with --symfs reads no local kernel file, nor its own
	   vdso (a file in /tmp, looked for under the symfs) */
	if (syms->symfs)
		return false;
	if (syms->kernel_bid_len) {
		n = kallsyms_host_build_id(bid);
		return n > 0 && (size_t)n == syms->kernel_bid_len &&
		       !memcmp(bid, syms->kernel_bid, (size_t)n);
	}
	/* no build id recorded: the kernel map must be where it is */
	return syms->kernel_text &&
	       syms->kernel_text == kallsyms_host_text();
}

/* A [vdso] may be this host's, read from this process's (host_vdso). */
static void vdso_host(const struct pebs_symbols *syms, struct dso *d)
{
	if (!d->loaded && !d->is_file && !strcmp(d->path, "[vdso]"))
		d->host_vdso = syms_same_kernel(syms);
}

int syms_dso_load(const struct pebs_symbols *syms, struct dso *d)
{
	vdso_host(syms, d);
	return dso_load(d);
}

bool syms_dso_open(const struct pebs_symbols *syms, struct dso *d,
		   Elf **elfp, int *fdp, uint8_t *bid, size_t *bid_len)
{
	vdso_host(syms, d);
	return dso_open(d, elfp, fdp, bid, bid_len);
}

/* perf's copy of the recorded kernel's kallsyms in the build-id cache
   (perf record's, or ours): true with its path in @path */
static bool cached_kallsyms(const struct pebs_symbols *syms, char *path,
			    size_t len)
{
	/* perf: "do not try local files if a symfs was given" */
	return !syms->symfs && syms->kernel_bid_len &&
	       !buildid_cache_entry(path, len, KERNEL_NAME,
				    syms->kernel_bid, syms->kernel_bid_len,
				    "kallsyms") &&
	       !access(path, R_OK);
}

/* The cached kallsyms of another kernel (cached_kallsyms):
   SYMS_KERNEL_CACHED, or 0 if there is none, or -errno. */
static int load_cached(struct pebs_symbols *syms)
{
	char path[PATH_MAX];
	int err;

	if (!cached_kallsyms(syms, path, sizeof(path)))
		return 0;
	syms_invalidate(syms);
	err = dso_load_kallsyms_file(&syms->kernel, path,
				     syms->kernel_text);
	return err < 0 ? err : SYMS_KERNEL_CACHED;
}

void syms_kernel_start(struct pebs_symbols *syms)
{
	if (!syms->kload && syms_same_kernel(syms))
		syms->kload = kload_start(UINT64_MAX);	/* NULL: later,
							   in place */
}

int pebs_symbols__load_kernel(struct pebs_symbols *syms)
{
	struct kload *k;
	int err;

	if (!syms)
		return core_err(-EINVAL, "symbols: none");
	k = syms->kload;
	syms->kload = NULL;
	syms->kernel_lazy = 0;
	if (!syms_same_kernel(syms)) {
		kload_cancel(k);
		return load_cached(syms);
	}
	syms_invalidate(syms);
	err = k ? kload_finish(k, &syms->kernel) :
	      dso_load_kallsyms(&syms->kernel);
	return err < 0 ? err : SYMS_KERNEL_HOST;
}

int syms_kernel_defer(struct pebs_symbols *syms)
{
	char path[PATH_MAX];
	int ret = syms_same_kernel(syms) ? kallsyms_probe() :
		  cached_kallsyms(syms, path, sizeof(path)) ?
		  SYMS_KERNEL_CACHED : 0;

	syms->kernel_lazy = ret > 0 ? ret : 0;
	if (!syms->kernel_lazy) {
		kload_cancel(syms->kload);
		syms->kload = NULL;
	}
	syms_invalidate(syms);
	return ret;
}

/* The kernel's symbols at the first kernel address looked up after
   syms_kernel_defer: the thread's (syms_kernel_start), or read now. */
int syms_kernel_now(struct pebs_symbols *syms)
{
	struct kload *k = syms->kload;
	int from = syms->kernel_lazy;

	syms->kload = NULL;
	syms->kernel_lazy = 0;
	if (from == SYMS_KERNEL_CACHED)
		return load_cached(syms);
	return k ? kload_finish(k, &syms->kernel) :
	       dso_load_kallsyms(&syms->kernel);
}

int syms_kernel_all(struct pebs_symbols *syms)
{
	int err;

	syms->kernel.syms_end = 0;
	syms_invalidate(syms);
	err = dso_load_kallsyms(&syms->kernel);
	if (err < 0)
		syms->kernel.nr_syms = 0;	/* the part is no answer above */
	return err < 0 ? err : 0;
}

void syms_kernel_limit(struct pebs_symbols *syms, uint64_t max)
{
	if (syms->kload)
		kload_limit(syms->kload, max);
}

bool syms_kernel_pending(struct pebs_symbols *syms)
{
	return syms->kernel_nowait && syms->kload && !kload_ready(syms->kload);
}

void pebs_symbols__kernel_nowait(struct pebs_symbols *syms, bool nowait)
{
	if (syms)
		syms->kernel_nowait = nowait;
}

int pebs_symbols__set_symfs(struct pebs_symbols *syms, const char *dir)
{
	size_t i;
	char *s;

	if (!syms || !dir || !*dir)
		return core_err(-EINVAL, "--symfs: give a directory");
	for (i = 0; i < syms->nr_dsos; i++)
		if (syms->dsos[i]->loaded)
			return core_err(-EINVAL, "symbols: the symfs is set "
					"before the first lookup");
	/* perf's symbol__init: a symfs of "/" is none */
	s = realpath(dir, NULL);
	if (s && !strcmp(s, "/")) {
		free(s);
		s = NULL;
	} else {
		free(s);
		s = strdup(dir);	/* as given, as perf joins it */
		if (!s)
			return syms_oom();
	}
	free(syms->symfs);
	syms->symfs = s;
	for (i = 0; i < syms->nr_dsos; i++)
		syms->dsos[i]->symfs = s;
	kload_cancel(syms->kload);
	syms->kload = NULL;
	syms->kernel_lazy = 0;
	syms_invalidate(syms);
	return 0;
}

int pebs_symbols__load_kallsyms(struct pebs_symbols *syms)
{
	if (!syms)
		return core_err(-EINVAL, "symbols: none");
	kload_cancel(syms->kload);
	syms->kload = NULL;
	syms->kernel_lazy = 0;
	syms_invalidate(syms);
	return dso_load_kallsyms(&syms->kernel);
}
