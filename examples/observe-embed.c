// SPDX-License-Identifier: MIT
/*
 * observe-embed.c - embed a Shim-style observer in a program.
 *
 *	observe-embed [ROWS [EVENT]]
 *
 * This thread pins itself to the last online CPU and takes ROWS
 * (default 100000) observations of CPU 0: rdtscp, CPU 0's pebs_map slot,
 * EVENT (default task-clock) counted on CPU 0, rdtscp. It prints the
 * fraction of observations Shim's filter keeps (trustable) and the
 * median period between them. Counting on another CPU needs root (or
 * perf_event_paranoid <= 0).
 *
 * Without /dev/pebs_map it observes a stand-in table in memory
 * (pebs_map__from_memory) whose slots all say "never seen" (tgid -1):
 * the timing and the counters are real, the table is not.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim.h"

/* Shim's default band: the end/start delta ratio within 1 +- 1 % */
#define LO_PPM 990000
#define HI_PPM 1010000

/* A table with one slot per possible CPU and no history, in memory. */
static void *stand_in_table(unsigned int nr_cpus, size_t *size)
{
	struct pebs_map_header *h;

	*size = sizeof(*h) + nr_cpus * sizeof(struct pebs_map_slot);
	h = calloc(1, *size);	/* 16-byte aligned, seq 0: consistent */
	if (h)
		pebs_map_table_init(h, *size, nr_cpus, 0, 0, 0);
	return h;
}

int main(int argc, char **argv)
{
	char *end = "";
	unsigned long rows = argc > 1 ? strtoul(argv[1], &end, 10) : 100000;
	const char *name = argc > 2 ? argv[2] : "task-clock";
	int on_cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	struct pebs_map *map = NULL;
	struct pebs_observer *obs = NULL;
	struct pebs_obs_stats *st = NULL;
	struct pebs_event ev;
	uint64_t *row = NULL, prev[2] = { 0, 0 }, kept = 0, hz, med;
	void *table = NULL;
	size_t words, size;
	int err;

	if (*end || rows < 2 || rows > 100000000) {
		fprintf(stderr, "usage: observe-embed [ROWS (2..100000000) [EVENT]]\n");
		return 2;
	}
	err = pebs_map__open(NULL, &map);
	if (err == -ENOENT) {
		printf("no %s: observing a stand-in table\n", PEBS_MAP_DEVICE);
		table = stand_in_table(sysconf(_SC_NPROCESSORS_CONF), &size);
		err = table ? pebs_map__from_memory(table, size, NULL, 0, &map)
			    : -ENOMEM;
	}
	if (err)
		goto out_err;

	/* the observer: this thread on on_cpu, CPU 0 observed, one counter */
	PEBS_OPTS(pebs_observer_opts, opts, .map = map);
	err = pebs_observer__new(on_cpu, &opts, &obs);
	if (err)
		goto out_err;
	err = pebs_observer__add_cpu(obs, 0);
	if (err < 0)
		goto out_err;
	err = pebs_event__parse(name, &ev);
	if (err)
		goto out_err;
	err = pebs_observer__add_event(obs, &ev);
	if (err < 0)
		goto out_err;
	err = pebs_obs_stats__new(obs, LO_PPM, HI_PPM, &st);
	if (err)
		goto out_err;
	words = pebs_observer__row_words(obs);
	row = calloc(words, sizeof(*row));
	if (!row) {
		err = -ENOMEM;
		goto out_err;
	}

	/* the loop: observe, filter, account */
	for (unsigned long r = 0; r < rows;) {
		err = pebs_observer__read(obs, row, words);
		if (err == -EAGAIN)	/* a slot stayed mid-update: next */
			continue;
		if (err)
			goto out_err;
		/* row[0], row[1]: the rdtscp values bracketing it */
		if (r && pebs_trustable(prev[0], prev[1], row[0], row[1],
					LO_PPM, HI_PPM))
			kept++;
		prev[0] = row[0];
		prev[1] = row[1];
		/* the same filter, plus per-thread residency and counters */
		err = pebs_obs_stats__add(st, row, NULL);
		if (err < 0)
			goto out_err;
		r++;
	}

	err = pebs_tsc_hz(50, &hz);
	if (err)
		goto out_err;
	med = pebs_obs_stats__period(st, 0.5);
	printf("observer on CPU %d, CPU 0 observed, counting %s (%s)\n",
	       on_cpu, ev.name,
	       pebs_observer__counter_path(obs, 0, 0, NULL) ==
	       PEBS_COUNTER_RDPMC ? "rdpmc" : "read()");
	printf("kept %" PRIu64 " of %" PRIu64 " observations: fraction %.4f\n",
	       kept, pebs_obs_stats__rows(st),
	       (double)kept / pebs_obs_stats__rows(st));
	printf("median period %" PRIu64 " cycles (%.0f ns)\n", med,
	       med * 1e9 / hz);
	err = kept == pebs_obs_stats__kept(st) ? 0 : -EPROTO;
	if (err)
		fprintf(stderr, "observe-embed: pebs_trustable kept %" PRIu64
			", pebs_obs_stats %" PRIu64 "\n", kept,
			pebs_obs_stats__kept(st));
	goto out;

out_err:
	fprintf(stderr, "observe-embed: %s\n",
		pebs_errmsg()[0] ? pebs_errmsg() : strerror(-err));
out:
	free(row);
	pebs_obs_stats__delete(st);
	pebs_observer__delete(obs);
	pebs_map__close(map);
	free(table);
	return err ? 1 : 0;
}
