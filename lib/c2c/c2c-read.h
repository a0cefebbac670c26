/* SPDX-License-Identifier: MIT */
/*
 * c2c-read.h - one perf.data sample as perf c2c report sees it (lib/
 * c2c-read.c), shared by pebs_c2c__read_perfdata and the session's
 * one-pass feed (lib/c2c/session-c2c.c); not installed.
 */
#ifndef PEBSSHIM_C2C_READ_H
#define PEBSSHIM_C2C_READ_H

#include "core/internal.h"
#include "pebsshim/c2c.h"

struct c2c_feed;

/*
 * c2c_feed__new - a feed for @pd: no mappings yet, its
 * HEADER_MEM_TOPOLOGY read. Returns 0 or -ENOMEM.
 */
int c2c_feed__new(struct pebs_perfdata *pd, struct c2c_feed **fp);
/* c2c_feed__free - free; NULL is allowed. */
void c2c_feed__free(struct c2c_feed *f);

/*
 * c2c_feed__record - a non-sample record, in time order (MMAP, MMAP2,
 * FORK change the mappings; the others are ignored). 0 or -ENOMEM.
 */
int c2c_feed__record(struct c2c_feed *f, const struct perf_event_header *ev);

/*
 * c2c_feed__sample - sample @s of event @idx as a pebs_c2c_sample *@cs:
 * its node from phys_addr (perf's mem2node), no data source for
 * software events and tracepoints; "mapped" is left false.
 */
void c2c_feed__sample(const struct c2c_feed *f, const struct pebs_sample *s,
		      unsigned int idx, struct pebs_c2c_sample *cs);

/*
 * c2c_feed__key - perf's line key *@k of @cs (record @ev: its cpumode)
 * with the mappings of now, and cs->mapped as perf's
 * sample__resolve_mem decides it (the "No Page Map Rejects" count).
 */
void c2c_feed__key(const struct c2c_feed *f, const struct perf_event_header *ev,
		   struct pebs_c2c_sample *cs, struct pebs_c2c_dkey *k);

#endif /* PEBSSHIM_C2C_READ_H */
