/* SPDX-License-Identifier: MIT */
/*
 * fake-map.h - a /dev/pebs_map table and switch history in memory, laid
 * out by the library's own pebs_map_table_init, for the unit tests of
 * its readers (test-attrib.c, test-switchrec.c): NR_CPUS CPUs of
 * HIST_LEN history entries each. Include after cmocka.h and internal.h.
 */
#ifndef PEBS_TEST_FAKE_MAP_H
#define PEBS_TEST_FAKE_MAP_H

#define PAGE		4096
#define SLOTS_OFFSET	128
#define NR_CPUS		2
#define HIST_LEN	8

struct fake_map {
	unsigned char *table;
	struct pebs_map_switch *hist;
	struct pebs_map *map;
};

static inline void fake_map_init(struct fake_map *f)
{
	f->table = aligned_alloc(PAGE, PAGE);
	f->hist = aligned_alloc(PAGE, PAGE);
	assert_non_null(f->table);
	assert_non_null(f->hist);
	memset(f->table, 0, PAGE);
	memset(f->hist, 0, PAGE);
	pebs_map_table_init((struct pebs_map_header *)f->table, PAGE, NR_CPUS,
			    PAGE, HIST_LEN, PEBS_MAP_HOOK_TRACEPOINT);
	assert_int_equal(pebs_map__from_memory(f->table, PAGE, f->hist, PAGE,
					       &f->map), 0);
}

/* @cpu switched to (tgid, pid) at @time; its slot names it @comm (NULL:
   left as it was) */
static inline void fake_map_switch(struct fake_map *f, unsigned int cpu,
				   uint64_t time, int32_t tgid, int32_t pid,
				   const char *comm)
{
	struct pebs_map_slot *s = (struct pebs_map_slot *)
		(f->table + SLOTS_OFFSET + cpu * PEBS_MAP_SLOT_SIZE);
	uint64_t n = s->hist_head;

	f->hist[cpu * HIST_LEN + (n & (HIST_LEN - 1))] =
		(struct pebs_map_switch){ time, tgid, pid };
	s->seq += 2;
	s->tgid = tgid;
	s->pid = pid;
	if (comm)
		snprintf(s->comm, sizeof(s->comm), "%s", comm);
	s->hist_head = n + 1;
}

static inline void fake_map_free(struct fake_map *f)
{
	pebs_map__close(f->map);
	free(f->table);
	free(f->hist);
}

#endif
