// SPDX-License-Identifier: MIT
/*
 * c2c-read.c - feed a perf.data file to a pebs_c2c as perf c2c report
 * reads it: records in time order (perf's ordered events), each sample
 * taken as lib/c2c-feed.c says (perf's line key, "mapped", node).
 */
#include <errno.h>
#include <stdlib.h>

#include "c2c-feed.h"

struct c2c_reader {
	struct pebs_c2c *c2c;
	struct pebs_perfdata *pd;
	struct pebs_symbols *code;	/* the caller's, for symbols (or NULL) */
	struct c2c_feed *feed;
	uint64_t bad;			/* samples that did not decode */
};

/* one record, in time order (pebs_ordered__process) */
static int on_record(void *arg, const struct perf_event_header *ev,
		     uint64_t time)
{
	struct c2c_reader *m = arg;
	struct pebs_c2c_sample cs;
	struct pebs_c2c_dkey key;
	struct pebs_sample s;
	unsigned int idx;

	(void)time;
	if (ev->type != PERF_RECORD_SAMPLE) {
		if (c2c_feed__record(m->feed, ev))
			return -ENOMEM;
		if (m->code && pebs_symbols__add_record(m->code, ev) == -ENOMEM)
			return -ENOMEM;
		return 0;
	}
	if (pebs_perfdata__sample(m->pd, ev, &s, &idx)) {
		m->bad++;
		return 0;
	}
	c2c_feed__sample(m->feed, &s, idx, &cs);
	c2c_feed__key(m->feed, ev, &cs, &key);
	return pebs_c2c__add_keyed(m->c2c, &cs, &key);
}

int pebs_c2c__read_perfdata(struct pebs_c2c *c, struct pebs_perfdata *pd,
			    struct pebs_symbols *syms, uint64_t *undecoded)
{
	struct c2c_reader rd = { .c2c = c, .pd = pd, .code = syms };
	int err;

	if (!c || !pd)
		return pebs_err(-EINVAL, "c2c: no table or file");
	if (c2c_feed__new(pd, &rd.feed))
		return pebs_err(-ENOMEM, "c2c: out of memory");
	pebs_perfdata__rewind(pd);
	/* as perf's ordered events deliver them: a system-wide recording
	 * writes each CPU's ring in turn, so an exec's MMAPs can follow
	 * samples taken after it */
	err = pebs_ordered__process(pd, on_record, &rd, NULL);
	c2c_feed__free(rd.feed);
	if (undecoded)
		*undecoded = rd.bad;
	if (err == -ENOMEM)
		return pebs_err(err, "c2c: out of memory");
	/* a damaged record: the records before it were counted */
	return err < 0 ? -EBADMSG : 0;
}
