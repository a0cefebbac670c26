/* SPDX-License-Identifier: MIT */
/*
 * session.h - what lib/session/session.c shares with lib/c2c/session-c2c.c and
 * lib/symbols/symbols.c; not installed.
 */
#ifndef PEBSSHIM_SESSION_H
#define PEBSSHIM_SESSION_H

#include "core/internal.h"

/* The c2c feed of a session (lib/c2c/session-c2c.c). */
struct ss_c2c;

/*
 * ss_c2c__new - a feed of @c for @pd (its HEADER_MEM_TOPOLOGY read);
 * @one_thread: every sample of @pd is of one thread.
 */
int ss_c2c__new(struct pebs_c2c *c, struct pebs_perfdata *pd,
		unsigned int flags, bool one_thread, struct ss_c2c **fp);
void ss_c2c__free(struct ss_c2c *f);

/* ss_c2c__record - a non-sample record (the mappings), in time order. */
int ss_c2c__record(struct ss_c2c *f, const struct perf_event_header *ev);

/*
 * ss_c2c__sample - add sample @s of event @idx (record @ev) to the c2c
 * table, keyed and "mapped" with the mappings of its time.
 */
int ss_c2c__sample(struct ss_c2c *f, const struct perf_event_header *ev,
		   const struct pebs_sample *s, unsigned int idx);

/*
 * pd_release - the pages of @pd's mapping in [from, to) (file offsets;
 * the partial pages at the ends stay) are not needed now: dropped from
 * the process (read again from the page cache if touched). Does nothing
 * for less than PD_RELEASE_MIN bytes or input that is not a mapped
 * file. Returns the offset released up to (@to, or @from when nothing
 * was done), for the next call (lib/perfdata/perfdata-next.c).
 */
#define PD_RELEASE_MIN	(4u << 20)
uint64_t pd_release(const struct pebs_perfdata *pd, uint64_t from,
		    uint64_t to);

/*
 * pebs_big_calloc, pebs_big_free - zeroed memory for a large table read
 * at random (huge pages when large; lib/core/bigmem.c); free it with the
 * same @n and @size. NULL when out of memory.
 */
void *pebs_big_calloc(size_t n, size_t size);
void pebs_big_free(void *p, size_t n, size_t size);

/*
 * syms_kernel_start - when the recorded kernel is this host's (as known
 * so far: the build ids read), read /proc/kallsyms on a thread while the
 * caller goes on; pebs_symbols__load_kernel waits for it, checks again
 * and takes its symbols (lib/symbols/symbols.c). Without a thread the load
 * happens there as before.
 */
void syms_kernel_start(struct pebs_symbols *syms);

/*
 * syms_kernel_defer - pebs_symbols__load_kernel without the wait: the
 * same answer (1: the kernel is this host's and /proc/kallsyms shows its
 * symbols; 2: another kernel's copy is in the build-id cache; 0 or
 * -errno), but the symbols are taken only when a kernel address is
 * first looked up: from the thread of syms_kernel_start if one runs
 * (waiting for it then), else read then; never if none is.
 * kallsyms_probe - 1 if /proc/kallsyms lists a text symbol with its
 * address, else -errno (lib/symbols/kallsyms.c).
 */
int syms_kernel_defer(struct pebs_symbols *syms);
int kallsyms_probe(void);
/* syms_kernel_limit - kload_limit of the thread of syms_kernel_start */
void syms_kernel_limit(struct pebs_symbols *syms, uint64_t max);

/*
 * kload_start - start reading /proc/kallsyms on a thread; NULL if none
 * could start (lib/symbols/kallsyms.c). kload_finish - wait for it and
 * move its symbols into @kernel (as pebs_dso_load_kallsyms would have
 * loaded them there): its answer. kload_cancel - wait for it and drop
 * them (NULL: nothing). Both free @k.
 */
struct dso;
struct kload;
struct kload *kload_start(uint64_t limit);
/* kload_ready - whether the thread is done (kload_finish will not wait) */
bool kload_ready(struct kload *k);
/* kload_limit - only kernel addresses up to @max will be looked up: the
   thread may stop reading past them, leaving the table right below
   dso.syms_end (lib/symbols/kallsyms.c); kload_start's @limit is the first such
   (UINT64_MAX: read all) */
void kload_limit(struct kload *k, uint64_t max);
int kload_finish(struct kload *k, struct dso *kernel);
void kload_cancel(struct kload *k);

/* ss_c2c__finish - at the end of the pass (PEBS_SESSION_C2C_SHARED). */
int ss_c2c__finish(struct ss_c2c *f);

/*
 * A session's sample hook (lib/objects/objects-session.c sets it, the
 * session knows nothing of objects): @sample sees each decoded sample
 * (attr index @idx) before it is resolved (0 or -ENOMEM), @label adds to
 * a resolved sample that has a data address; @free ends @arg with the
 * session or the next ss_set_hook.
 */
struct ss_hook {
	int (*sample)(void *arg, const struct pebs_sample *s,
		      unsigned int idx);
	void (*label)(void *arg, const struct pebs_sample *s,
		      struct pebs_report_sample *rs);
	void (*free)(void *arg);
	void *arg;
};
void ss_set_hook(struct pebs_session *ss, const struct ss_hook *h);
struct pebs_perfdata *ss_perfdata(struct pebs_session *ss);

#endif /* PEBSSHIM_SESSION_H */
