/* SPDX-License-Identifier: MIT */
/*
 * fake-map.h - a /dev/pebs_map table and switch history in memory, laid
 * out by the library's own pebs_map_table_init, for the unit tests of
 * its readers (test-map.c, test-attrib.c, test-switchrec.c): any number
 * of CPUs and history entries (fake_map_layout), or NR_CPUS CPUs of
 * HIST_LEN entries with a reader (fake_map_init). Include after
 * cmocka.h and internal.h.
 */
#ifndef PEBS_TEST_FAKE_MAP_H
#define PEBS_TEST_FAKE_MAP_H

#define PAGE		4096
#define SLOTS_OFFSET	128
#define NR_CPUS		2
#define HIST_LEN	8

struct fake_map {
	unsigned char *table;
	size_t table_size;
	struct pebs_map_switch *hist;
	size_t hist_size;
	struct pebs_map_header *h;
	unsigned int nr, len;	/* CPUs, history entries per CPU */
	struct pebs_map *map;	/* fake_map_init's reader */
};

static inline size_t fake_map_round(size_t n)
{
	return (n + PAGE - 1) & ~(size_t)(PAGE - 1);
}

/* a table of @nr CPUs and @len history entries each (0: no history),
   without a reader */
static inline void fake_map_layout(struct fake_map *f, unsigned int nr,
				   unsigned int len)
{
	memset(f, 0, sizeof(*f));
	f->nr = nr;
	f->len = len;
	f->table_size = fake_map_round(SLOTS_OFFSET + nr * PEBS_MAP_SLOT_SIZE);
	f->table = aligned_alloc(PAGE, f->table_size);
	assert_non_null(f->table);
	memset(f->table, 0, f->table_size);
	f->hist_size = fake_map_round((size_t)nr * len * sizeof(*f->hist));
	if (f->hist_size) {
		f->hist = aligned_alloc(PAGE, f->hist_size);
		assert_non_null(f->hist);
		memset(f->hist, 0, f->hist_size);
	}
	f->h = (struct pebs_map_header *)f->table;
	pebs_map_table_init(f->h, f->table_size, nr, f->hist_size, len,
			    PEBS_MAP_HOOK_TRACEPOINT);
}

/* a reader of the table as it is now */
static inline struct pebs_map *fake_map_open(struct fake_map *f)
{
	struct pebs_map *map = NULL;

	assert_int_equal(pebs_map__from_memory(f->table, f->table_size,
					       f->hist, f->hist_size, &map), 0);
	return map;
}

/* NR_CPUS CPUs of HIST_LEN entries, with its reader in f->map */
static inline void fake_map_init(struct fake_map *f)
{
	fake_map_layout(f, NR_CPUS, HIST_LEN);
	f->map = fake_map_open(f);
}

static inline struct pebs_map_slot *fake_map_slot(struct fake_map *f,
						  unsigned int cpu)
{
	return (struct pebs_map_slot *)(f->table + SLOTS_OFFSET +
					cpu * PEBS_MAP_SLOT_SIZE);
}

/* @cpu switched to (tgid, pid) at @time; its slot names it @comm (NULL:
   left as it was) */
static inline void fake_map_switch(struct fake_map *f, unsigned int cpu,
				   uint64_t time, int32_t tgid, int32_t pid,
				   const char *comm)
{
	struct pebs_map_slot *s = fake_map_slot(f, cpu);
	uint64_t n = s->hist_head;

	f->hist[cpu * f->len + (n & (f->len - 1))] =
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
