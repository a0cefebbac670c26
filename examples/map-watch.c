// SPDX-License-Identifier: MIT
/*
 * map-watch.c - read the pebs_map table: who runs on each CPU, then
 * CPU 0's context switches for one second.
 *
 *	map-watch [TABLE]
 *
 * TABLE defaults to /dev/pebs_map (load the module first: insmod
 * kmod/pebs_map.ko); a file laid out as the device replays a saved
 * table. Without the module it prints the library's one-line reason and
 * exits 1.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "pebsshim.h"

static void print_slot(const struct pebs_map *map, unsigned int cpu)
{
	struct pebs_map_snapshot s;

	/* a seqcount copy: retried while the CPU rewrites its slot */
	if (pebs_map__read_slot(map, cpu, &s)) {
		printf("cpu %u: %s\n", cpu, pebs_errmsg());
		return;
	}
	if (s.tgid < 0) {
		printf("cpu %u: never seen switching\n", cpu);
		return;
	}
	printf("cpu %u: tgid %d pid %d comm %.*s switches %" PRIu64
	       " last switch %" PRIu64 " ns history head %" PRIu64 "\n",
	       cpu, s.tgid, s.pid, PEBS_MAP_COMM_LEN,
	       s.tgid ? s.comm : "[idle]", s.switches, s.last_switch_ns,
	       s.hist_head);
}

int main(int argc, char **argv)
{
	const struct pebs_map_header *h;
	struct pebs_map_snapshot s0;
	struct pebs_map_switch sw[64];
	struct pebs_map *map;
	uint64_t cursor, lost = 0, seen = 0;
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	int err;

	err = pebs_map__open(argc > 1 ? argv[1] : NULL, &map);
	if (err) {
		fprintf(stderr, "map-watch: %s\n", pebs_errmsg());
		return 1;
	}
	h = pebs_map__header(map);
	printf("%u CPUs, %u history entries each, hook %s\n",
	       pebs_map__nr_cpus(map), h->hist_len,
	       h->hook == PEBS_MAP_HOOK_DIRECT ? "direct" : "tracepoint");
	for (unsigned int cpu = 0; cpu < pebs_map__nr_cpus(map); cpu++)
		print_slot(map, cpu);
	if (!h->hist_len)
		goto out;

	/*
	 * Follow CPU 0. The cursor is a switch number: start 4 before the
	 * head to show the last few switches, then only new ones.
	 */
	if (pebs_map__read_slot(map, 0, &s0)) {
		fprintf(stderr, "map-watch: %s\n", pebs_errmsg());
		err = 1;
		goto out;
	}
	cursor = s0.hist_head > 4 ? s0.hist_head - 4 : 0;
	for (int i = 0; i < 10; i++) {
		int n;

		/* copies what is new; entries overwritten meanwhile: lost */
		while ((n = pebs_map__hist_read(map, 0, &cursor, sw, 64,
						&lost)) > 0) {
			for (int k = 0; k < n; k++)
				printf("cpu 0 at %llu ns: tgid %d pid %d%s\n",
				       (unsigned long long)sw[k].time, sw[k].tgid, sw[k].pid,
				       sw[k].tgid ? "" : " (idle)");
			seen += n;
		}
		if (n < 0) {
			fprintf(stderr, "map-watch: %s\n", pebs_errmsg());
			err = 1;
			goto out;
		}
		nanosleep(&tick, NULL);
	}
	printf("cpu 0: %" PRIu64 " switches followed, %" PRIu64 " lost\n",
	       seen, lost);
out:
	pebs_map__close(map);
	return err ? 1 : 0;
}
