// SPDX-License-Identifier: MIT
/*
 * c2c-lines.c - the cache lines of a perf.data recording, as perf c2c
 * report counts them: the load/store summary of every sample, the
 * number of shared lines (HITM or peer snoops), then every line with a
 * data address, ranked as perf ranks the shared ones by total HITM.
 *
 *	c2c-lines [FILE]	(default perf.data; record one with
 *				 `perf c2c record` or `pebs-shim record`)
 *
 * Shown in pebs_c2c(3).
 */
#include <inttypes.h>
#include <stdio.h>

#include "pebsshim.h"

/* Called by pebs_c2c__for_each_line for each line, in rank order. */
static int print_line(const struct pebs_c2c_line *l, void *arg)
{
	static const char *const sharing[] = { "private", "false sharing",
					       "true sharing" };

	(void)arg;
	printf("line %#" PRIx64 " pid %u: %" PRIu64 " records, %" PRIu64
	       " hitm, %u threads, %u offsets, %s\n", l->addr, l->pid,
	       pebs_c2c_stats__records(&l->stats), l->stats.tot_hitm,
	       l->nr_threads, l->nr_offsets, sharing[l->sharing]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "perf.data";
	const struct pebs_c2c_stats *st;
	struct pebs_perfdata *pd = NULL;
	struct pebs_c2c *c2c = NULL;
	uint64_t undecoded = 0;
	int err, shown;

	err = pebs_perfdata__open(path, &pd);
	if (!err)
		err = pebs_c2c__new(&c2c);
	/* every sample, in time order, with the file's mappings */
	if (!err)
		err = pebs_c2c__read_perfdata(c2c, pd, NULL, &undecoded);
	if (err)
		goto out;
	st = pebs_c2c__stats(c2c);
	printf("records %" PRIu64 ", loads %" PRIu64 " (L1 %" PRIu64
	       ", fill buffer %" PRIu64 ", L2 %" PRIu64 ", LLC %" PRIu64
	       ", LLC misses %" PRIu64 "), stores %" PRIu64 ", locked %"
	       PRIu64 ", undecoded %" PRIu64 "\n",
	       pebs_c2c_stats__records(st), pebs_c2c_stats__loads(st),
	       st->ld_l1hit, st->ld_fbhit, st->ld_l2hit, st->ld_llchit,
	       pebs_c2c_stats__llc_misses(st), st->store, st->locks,
	       undecoded);
	shown = pebs_c2c__sort(c2c, PEBS_C2C_TOT_HITM);
	if (shown < 0) {
		err = shown;
		goto out;
	}
	printf("shared lines %u, shown %d\n", pebs_c2c__shared(c2c, NULL),
	       shown);
	err = pebs_c2c__for_each_line(c2c, true, print_line, NULL);
out:
	if (err)
		fprintf(stderr, "c2c-lines: %s\n", pebs_errmsg());
	pebs_c2c__delete(c2c);
	pebs_perfdata__close(pd);
	return err ? 1 : 0;
}
