/* SPDX-License-Identifier: MIT */
/*
 * session-int.h - the session's hooks: what the modules above the session
 * (lib/c2c/session-c2c.c) register to see its records in the same pass;
 * not installed.
 */
#ifndef PEBSSHIM_SESSION_INT_H
#define PEBSSHIM_SESSION_INT_H

#include "core/internal.h"
#include "pebsshim/session.h"

/*
 * struct ss_hook_ops - a hook's functions (any may be NULL), each called
 * with the @arg it was set with. sample: a sample @s of event @idx
 * (record @ev), in time order, before the session resolves it and calls
 * the pebs_session__process callback; record: a non-sample record, in
 * time order, before the session takes it; finish: the end of a pass
 * (not after -ENOMEM). Each returns 0 or -errno with its reason set
 * (core_err), which ends the pass with that error. free: @arg is no longer
 * hooked (ss_hook__set again, pebs_session__delete).
 */
struct ss_hook_ops {
	size_t sz;		/* sizeof(struct ss_hook_ops) */
	int (*sample)(void *arg, const struct perf_event_header *ev,
		      const struct pebs_sample *s, unsigned int idx);
	int (*record)(void *arg, const struct perf_event_header *ev);
	int (*finish)(void *arg);
	void (*free)(void *arg);
	/* label: after the session resolved sample @s into @rs (one with a
	   data address), fill what the hook knows of it (rs->object) */
	void (*label)(void *arg, const struct pebs_sample *s,
		      struct pebs_report_sample *rs);
};

/*
 * ss_hook__set - hook @arg with @ops on @ss, after the hooks there, in
 * place of (after freeing) an earlier hook of the same @ops; @arg NULL:
 * only that. 0, -EINVAL (@ops of an unknown size), -ENOMEM (@arg freed
 * with ops->free).
 */
int ss_hook__set(struct pebs_session *ss, const struct ss_hook_ops *ops,
		 void *arg);

/* ss_perfdata - the recording @ss reads */
struct pebs_perfdata *ss_perfdata(const struct pebs_session *ss);

/* ss_one_thread - whether every sample of the recording is of one thread
   (known from pebs_session__new on) */
bool ss_one_thread(const struct pebs_session *ss);

#endif /* PEBSSHIM_SESSION_INT_H */
