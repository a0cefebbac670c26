// SPDX-License-Identifier: MIT
/*
 * report-runs.c - runs of alike samples added at once: consecutive
 * samples of one thread, function and data source (most of a recording,
 * for the tables of few rows: threads, symbols, data sources) go to the
 * same row and count the same there but for their periods and weights,
 * so a run costs one key and one row update instead of one per sample.
 * Samples are alike when every field the report's key atoms are made of
 * is equal, and what every row counts (thread, event, data source, the
 * filters' marks) too: a run is then added exactly as its samples one
 * by one would be. A batch that turns out to be made of short runs
 * (every sample its own row: addresses) is left to the per-sample path.
 */
#include <errno.h>

#include "pebsshim/report.h"
#include "report/report-rows.h"

#define BIT(f)		(1u << (f))
#define PROBE		64	/* samples looked at before giving up */

/* Whether @s adds to @r's tables exactly as @p does, but for its period
   and weight. */
static bool alike(const struct pebs_report *r,
		  const struct pebs_report_sample *s,
		  const struct pebs_report_sample *p)
{
	uint32_t u = r->used;

	if (s->tid != p->tid || s->event != p->event ||
	    s->hidden != p->hidden || s->has_addr != p->has_addr ||
	    s->has_src != p->has_src || s->data_src != p->data_src ||
	    s->pid != p->pid || s->comm != p->comm || s->sym != p->sym ||
	    s->dso != p->dso || s->kernel != p->kernel ||
	    s->data_dso != p->data_dso || s->data_sym != p->data_sym ||
	    s->object != p->object || s->object_inst != p->object_inst ||
	    s->object_field != p->object_field || s->cycle != p->cycle ||
	    s->srcline != p->srcline || s->srcfile != p->srcfile)
		return false;
	/* what varies from sample to sample: only where a key has it */
	return (!(u & BIT(RK_IP)) || s->sym || s->ip == p->ip) &&
	       (!(u & BIT(RK_CPU)) || s->cpu == p->cpu) &&
	       (!(u & BIT(RK_TIME)) || s->time == p->time) &&
	       (!(u & BIT(RK_ADDR)) || s->addr == p->addr) &&
	       (!(u & BIT(RK_PHYS)) || (s->has_phys == p->has_phys &&
					s->phys_addr == p->phys_addr)) &&
	       (!(u & BIT(RK_WEIGHT)) || (s->has_weight == p->has_weight &&
					  s->weight == p->weight)) &&
	       (!(u & BIT(RK_DATA_SYM_OFF)) ||
		s->data_sym_off == p->data_sym_off);
}

size_t rp_add_runs(struct pebs_report *r, const struct pebs_report_sample *s,
		   size_t n, int *err)
{
	uint64_t a[RK_NR_FIELDS];
	size_t i = 0, j, runs = 0;
	struct rp_run u;
	uint32_t h;

	*err = 0;
	while (i < n) {
		/* short runs: the per-sample path does better */
		if (i >= PROBE && runs * 2 > i)
			return i;
		u = (struct rp_run){ 1, s[i].period, 0, 0, 0 };
		for (j = i; j < n; j++) {
			if (j > i) {
				if (!alike(r, &s[j], &s[i]))
					break;
				u.n++;
				u.period += s[j].period;
			}
			u.wsq += rp_wsq(s[j].period);
			if (s[j].has_weight) {
				u.weight_sum += s[j].weight;
				u.weight_nr++;
			}
		}
		h = rp_keyed(r, &s[i]) ? rp_make_key(r, &s[i], a) : 0;
		*err = rp_add_run(r, &s[i], a, h, &u);
		if (*err)
			return i;
		runs++;
		i = j;
	}
	return n;
}
