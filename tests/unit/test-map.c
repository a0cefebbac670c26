// SPDX-License-Identifier: MIT
/*
 * test-map.c - the /dev/pebs_map reader (lib/map/map.c) against tables built
 * in ordinary memory as include/pebs_map.h lays them out, with writer
 * threads that follow the kernel's write protocol (lib/core/barrier.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/barrier.h"
#include "core/internal.h"
#include "fake-map.h"

/* ---- the kernel's write protocol ---------------------------------- */

static void spin(unsigned int n)
{
	for (volatile unsigned int i = 0; i < n; i++)
		;
}

/*
 * Slot value v: every field derives from v, so a reader can tell a torn
 * copy. Fields are stored one by one, slowly, to widen the window.
 */
static void slot_write(struct pebs_map_slot *s, uint32_t v)
{
	uint32_t seq = PEBS_READ_ONCE(s->seq);
	char comm[PEBS_MAP_COMM_LEN];

	snprintf(comm, sizeof(comm), "t%u", v);
	PEBS_WRITE_ONCE(s->seq, seq + 1);
	pebs_smp_wmb();
	PEBS_WRITE_ONCE(s->tgid, (int32_t)(v & 0x3fffffff));
	spin(20);
	PEBS_WRITE_ONCE(s->pid, (int32_t)(v & 0x3fffffff));
	PEBS_WRITE_ONCE(s->switches, (uint64_t)v);
	spin(20);
	PEBS_WRITE_ONCE(s->last_switch_ns, (uint64_t)v * 1000);
	for (int i = 0; i < PEBS_MAP_COMM_LEN; i++)
		PEBS_WRITE_ONCE(s->comm[i], comm[i]);
	pebs_smp_wmb();
	PEBS_WRITE_ONCE(s->seq, seq + 2);
}

/* History entry k: time k * 10, tgid k, pid k ^ 0x5a5a. */
static void hist_push_raw(struct fake_map *f, unsigned int cpu, uint64_t time,
			  int32_t tgid, int32_t pid, unsigned int slow)
{
	struct pebs_map_slot *s = fake_map_slot(f, cpu);
	uint64_t n = PEBS_READ_ONCE(s->hist_head);
	struct pebs_map_switch *e = &f->hist[(size_t)cpu * f->len +
					     (n & (f->len - 1))];

	PEBS_WRITE_ONCE(e->time, time);
	spin(slow);
	PEBS_WRITE_ONCE(e->tgid, tgid);
	spin(slow);
	PEBS_WRITE_ONCE(e->pid, pid);
	/* publish: pairs with the reader's load_acquire(hist_head) */
	pebs_store_release(&s->hist_head, n + 1);
}

static void hist_push(struct fake_map *f, unsigned int cpu, uint64_t k,
		      unsigned int slow)
{
	hist_push_raw(f, cpu, k * 10, (int32_t)k, (int32_t)(k ^ 0x5a5a), slow);
}

static void assert_entry_k(const struct pebs_map_switch *e, uint64_t k)
{
	assert_int_equal(e->tgid, (int32_t)k);
	assert_int_equal(e->pid, (int32_t)(k ^ 0x5a5a));
	assert_int_equal(e->time, k * 10);
}

/* ---- slots --------------------------------------------------------- */

struct writer {
	struct fake_map *f;
	unsigned int cpu;
	uint64_t count;		/* history: entries pushed */
	unsigned int slow;
	/*
	 * History: the writer stays at most @ahead switches beyond the
	 * reader's published position (0: unbounded), so that it laps the
	 * reader by a few entries at most, right at the overwrite boundary.
	 */
	uint64_t ahead;
	_Atomic uint64_t reader_pos;
	_Atomic int stop;
	_Atomic int done;
};

static void *slot_writer(void *arg)
{
	struct writer *w = arg;
	uint32_t v = 1;

	while (!atomic_load(&w->stop))
		slot_write(fake_map_slot(w->f, w->cpu), v++);
	return NULL;
}

static void test_slot_never_seen(void **state)
{
	struct pebs_map_snapshot snap;
	struct pebs_map *map;
	struct fake_map f;

	(void)state;
	fake_map_layout(&f, 4, 16);
	map = fake_map_open(&f);
	assert_int_equal(pebs_map__nr_cpus(map), 4);
	assert_int_equal(pebs_map__header(map)->hist_len, 16);
	assert_int_equal(pebs_map__read_slot(map, 3, &snap), 0);
	assert_int_equal(snap.cpu, 3);
	assert_int_equal(snap.tgid, -1);
	assert_int_equal(snap.pid, -1);
	assert_int_equal(snap.seq, 0);
	slot_write(fake_map_slot(&f, 2), 0);	/* idle */
	assert_int_equal(pebs_map__read_slot(map, 2, &snap), 0);
	assert_int_equal(snap.tgid, 0);
	assert_int_equal(snap.seq, 2);
	assert_string_equal(snap.comm, "t0");
	pebs_map__close(map);
	fake_map_free(&f);
}

static void test_slot_torn_reads(void **state)
{
	struct writer w = { .cpu = 1 };
	struct pebs_map_snapshot snap;
	uint64_t distinct = 0, last = 0;
	struct pebs_map *map;
	pthread_t th;
	struct fake_map f;
	char comm[PEBS_MAP_COMM_LEN];

	(void)state;
	fake_map_layout(&f, 2, 16);
	map = fake_map_open(&f);
	w.f = &f;
	assert_int_equal(pthread_create(&th, NULL, slot_writer, &w), 0);
	/* until the writer has visibly moved on many times */
	for (int i = 0; i < 100000 || distinct < 5000; i++) {
		int err = pebs_map__read_slot(map, 1, &snap);

		/* a live writer can starve us, but never tear a copy */
		if (err == -EAGAIN)
			continue;
		assert_int_equal(err, 0);
		assert_int_equal(snap.seq & 1, 0);
		if (snap.seq == 0)
			continue;	/* before the first write */
		assert_int_equal(snap.tgid, (int32_t)(snap.switches & 0x3fffffff));
		assert_int_equal(snap.pid, snap.tgid);
		assert_int_equal(snap.last_switch_ns, snap.switches * 1000);
		snprintf(comm, sizeof(comm), "t%u", (uint32_t)snap.switches);
		assert_string_equal(snap.comm, comm);
		/* seq counts writes: value v is written by write number v */
		assert_int_equal(snap.seq, snap.switches * 2);
		assert_true(snap.switches >= last);
		if (snap.switches != last)
			distinct++;
		last = snap.switches;
	}
	atomic_store(&w.stop, 1);
	pthread_join(th, NULL);
	print_message("# %llu distinct slot values seen, last %llu\n",
		      (unsigned long long)distinct, (unsigned long long)last);
	pebs_map__close(map);
	fake_map_free(&f);
}

static void test_slot_stuck_odd(void **state)
{
	struct pebs_map_snapshot snap;
	struct pebs_map *map;
	struct fake_map f;

	(void)state;
	fake_map_layout(&f, 2, 16);
	map = fake_map_open(&f);
	fake_map_slot(&f, 0)->seq = 7;	/* a writer that never finishes */
	assert_int_equal(pebs_map__read_slot(map, 0, &snap), -EAGAIN);
	assert_non_null(strstr(pebs_errmsg(), "CPU 0"));
	assert_int_equal(pebs_map__read_slot(map, 1, &snap), 0);
	pebs_map__close(map);
	fake_map_free(&f);
}

/* ---- history ------------------------------------------------------- */

static void test_hist_basic(void **state)
{
	struct pebs_map_switch out[64];
	uint64_t cursor = 0, lost = 0;
	struct pebs_map *map;
	struct fake_map f;

	(void)state;
	fake_map_layout(&f, 2, 16);
	map = fake_map_open(&f);
	assert_int_equal(pebs_map__hist_read(map, 0, &cursor, out, 64, &lost), 0);
	for (uint64_t k = 0; k < 10; k++)
		hist_push(&f, 0, k, 0);
	/* in pieces of 4 */
	assert_int_equal(pebs_map__hist_read(map, 0, &cursor, out, 4, &lost), 4);
	assert_int_equal(cursor, 4);
	for (int i = 0; i < 4; i++)
		assert_entry_k(&out[i], i);
	assert_int_equal(pebs_map__hist_read(map, 0, &cursor, out, 64, &lost), 6);
	assert_entry_k(&out[5], 9);
	assert_int_equal(cursor, 10);
	assert_int_equal(lost, 0);
	/* the other CPU saw nothing */
	cursor = 0;
	assert_int_equal(pebs_map__hist_read(map, 1, &cursor, out, 64, NULL), 0);

	/* 100 switches into 16 places: 15 stable ones remain */
	cursor = 0;
	for (uint64_t k = 10; k < 100; k++)
		hist_push(&f, 0, k, 0);
	assert_int_equal(pebs_map__hist_read(map, 0, &cursor, out, 64, &lost), 15);
	assert_int_equal(lost, 85);
	assert_int_equal(cursor, 100);
	for (int i = 0; i < 15; i++)
		assert_entry_k(&out[i], 85 + i);
	/* a cursor from the future */
	cursor = 101;
	assert_int_equal(pebs_map__hist_read(map, 0, &cursor, out, 64, &lost),
			 -EINVAL);
	pebs_map__close(map);
	fake_map_free(&f);
}

/* Pushes switches 0, 1, ... until told to stop; count says how many. */
static void *hist_writer(void *arg)
{
	struct writer *w = arg;
	uint64_t k;

	for (k = 0; !atomic_load(&w->stop); k++) {
		while (w->ahead && k >= atomic_load(&w->reader_pos) + w->ahead &&
		       !atomic_load(&w->stop))
			sched_yield();
		hist_push(w->f, w->cpu, k, w->slow);
	}
	w->count = k;
	atomic_store(&w->done, 1);
	return NULL;
}

/* Let the writer lap the reader: wait until it is as far ahead as allowed. */
static void wait_for_lap(struct writer *w)
{
	uint64_t until = atomic_load(&w->reader_pos) + w->ahead;

	while (PEBS_READ_ONCE(fake_map_slot(w->f, w->cpu)->hist_head) < until)
		sched_yield();
}

/*
 * A writer laps the reader: every entry returned is intact and in order,
 * none twice, and copied + lost == written exactly.
 */
static void test_hist_overrun(void **state)
{
	struct writer w = { .cpu = 1, .slow = 30, .ahead = 8 + 2 };
	uint64_t cursor = 0, lost = 0, copied = 0, next = 0, calls = 0;
	uint64_t laps = 0;
	struct pebs_map_switch out[7];
	struct pebs_map *map;
	pthread_t th;
	struct fake_map f;

	(void)state;
	fake_map_layout(&f, 2, 8);
	map = fake_map_open(&f);
	w.f = &f;
	assert_int_equal(pthread_create(&th, NULL, hist_writer, &w), 0);
	for (;;) {
		int done = atomic_load(&w.done);
		uint64_t before = lost, old = cursor;
		int n = pebs_map__hist_read(map, 1, &cursor, out,
					    1 + calls++ % 7, &lost);

		assert_true(n >= 0);
		assert_int_equal(cursor, old + (lost - before) + n);
		next += lost - before;
		for (int i = 0; i < n; i++)
			assert_entry_k(&out[i], next++);
		copied += n;
		atomic_store(&w.reader_pos, cursor);
		if (done && cursor == w.count)
			break;
		if (done)
			continue;
		if (copied >= 100000 && laps >= 200) {
			atomic_store(&w.stop, 1);
		} else if (calls % 256 == 0) {
			/* 10 ahead of us in 8 places: we lose at least 3 */
			wait_for_lap(&w);
			laps++;
		}
	}
	pthread_join(th, NULL);
	assert_true(lost >= 3 * laps);
	assert_int_equal(copied + lost, w.count);
	print_message("# history overrun: %llu copied, %llu lost, %llu calls, %llu forced laps\n",
		      (unsigned long long)copied, (unsigned long long)lost,
		      (unsigned long long)calls, (unsigned long long)laps);
	pebs_map__close(map);
	fake_map_free(&f);
}

/* ---- lookup -------------------------------------------------------- */

static void test_lookup(void **state)
{
	static const uint64_t times[] = { 100, 200, 200, 300, 1000 };
	struct pebs_map_switch who;
	struct pebs_map *map;
	struct fake_map f;

	(void)state;
	fake_map_layout(&f, 2, 8);
	map = fake_map_open(&f);
	assert_int_equal(pebs_map__lookup(map, 0, 500, &who), -ENOENT);
	for (int i = 0; i < 5; i++)
		hist_push_raw(&f, 0, times[i], 10 + i, 20 + i, 0);
	assert_int_equal(pebs_map__lookup(map, 0, 99, &who), -ENOENT);
	assert_int_equal(pebs_map__lookup(map, 0, 100, &who), 0);
	assert_int_equal(who.tgid, 10);
	assert_int_equal(who.pid, 20);
	assert_int_equal(who.time, 100);
	assert_int_equal(pebs_map__lookup(map, 0, 199, &who), 0);
	assert_int_equal(who.tgid, 10);
	/* two switches at one time: the later one ran */
	assert_int_equal(pebs_map__lookup(map, 0, 200, &who), 0);
	assert_int_equal(who.tgid, 12);
	assert_int_equal(pebs_map__lookup(map, 0, 999, &who), 0);
	assert_int_equal(who.tgid, 13);
	assert_int_equal(pebs_map__lookup(map, 0, UINT64_MAX, &who), 0);
	assert_int_equal(who.tgid, 14);
	assert_int_equal(who.time, 1000);
	assert_int_equal(pebs_map__lookup(map, 1, 500, &who), -ENOENT);

	/* wrap: switches k = 5..19 at 2000 + k; 7 stable ones: 13..19 */
	for (int k = 5; k < 20; k++)
		hist_push_raw(&f, 0, 2000 + k, k, k, 0);
	assert_int_equal(pebs_map__lookup(map, 0, 1500, &who), -ENOENT);
	assert_int_equal(pebs_map__lookup(map, 0, 2012, &who), -ENOENT);
	assert_int_equal(pebs_map__lookup(map, 0, 2013, &who), 0);
	assert_int_equal(who.tgid, 13);
	assert_int_equal(pebs_map__lookup(map, 0, 2016, &who), 0);
	assert_int_equal(who.tgid, 16);
	assert_int_equal(pebs_map__lookup(map, 0, 9999, &who), 0);
	assert_int_equal(who.tgid, 19);
	pebs_map__close(map);
	fake_map_free(&f);
}

/* Lookups against a lapping writer: right or -ENOENT/-EAGAIN, never wrong. */
static void test_lookup_concurrent(void **state)
{
	struct writer w = { .cpu = 0, .slow = 10 };
	struct pebs_map_switch who;
	uint64_t hits = 0, misses = 0;
	struct pebs_map *map;
	pthread_t th;
	struct fake_map f;

	(void)state;
	fake_map_layout(&f, 1, 16);
	map = fake_map_open(&f);
	w.f = &f;
	assert_int_equal(pthread_create(&th, NULL, hist_writer, &w), 0);
	while (hits < 100000) {
		uint64_t head = PEBS_READ_ONCE(fake_map_slot(&f, 0)->hist_head);
		uint64_t k = head > 8 ? head - 8 : 0;
		int err = pebs_map__lookup(map, 0, k * 10 + 5, &who);

		if (head < 8)
			continue;
		if (err) {
			assert_true(err == -ENOENT || err == -EAGAIN);
			misses++;
			continue;
		}
		/* k or a later switch if k + 1 was not yet written */
		assert_entry_k(&who, who.tgid);
		assert_int_equal(who.tgid, k);
		hits++;
	}
	atomic_store(&w.stop, 1);
	pthread_join(th, NULL);
	print_message("# concurrent lookups: %llu hits, %llu misses\n",
		      (unsigned long long)hits, (unsigned long long)misses);
	pebs_map__close(map);
	fake_map_free(&f);
}

/* ---- validation ---------------------------------------------------- */

static int open_mem(struct fake_map *f)
{
	struct pebs_map *map = NULL;
	int err = pebs_map__from_memory(f->table, f->table_size, f->hist,
					f->hist_size, &map);

	if (!err)
		pebs_map__close(map);
	else
		assert_null(map);
	return err;
}

static void test_bad_headers(void **state)
{
	struct pebs_map *map = NULL;
	struct fake_map f;

	(void)state;
	fake_map_layout(&f, 4, 16);
	assert_int_equal(open_mem(&f), 0);

	f.h->magic ^= 1;
	assert_int_equal(open_mem(&f), -EBADMSG);
	assert_non_null(strstr(pebs_errmsg(), "not a pebs_map table"));
	f.h->magic ^= 1;

	f.h->abi_version = 2;
	assert_int_equal(open_mem(&f), -EPROTO);
	assert_string_equal(pebs_errmsg(),
			    "pebs_map ABI version 2, this pebs-shim expects 1: rebuild the module or the tool");
	f.h->abi_version = PEBS_MAP_ABI_VERSION;

	f.h->header_size = 64;
	assert_int_equal(open_mem(&f), -EBADMSG);
	f.h->header_size = sizeof(*f.h);
	f.h->slot_size = 128;
	assert_int_equal(open_mem(&f), -EBADMSG);
	f.h->slot_size = PEBS_MAP_SLOT_SIZE;
	f.h->hist_entry_size = 24;
	assert_int_equal(open_mem(&f), -EBADMSG);
	assert_non_null(strstr(pebs_errmsg(), "sizes"));
	f.h->hist_entry_size = sizeof(struct pebs_map_switch);

	/* slots past the table, misaligned, over the header */
	f.h->slots_offset = f.table_size - 3 * PEBS_MAP_SLOT_SIZE;
	assert_int_equal(open_mem(&f), -EBADMSG);
	f.h->slots_offset = SLOTS_OFFSET + 4;
	assert_int_equal(open_mem(&f), -EBADMSG);
	f.h->slots_offset = 64;
	assert_int_equal(open_mem(&f), -EBADMSG);
	f.h->slots_offset = UINT64_MAX - 63;
	assert_int_equal(open_mem(&f), -EBADMSG);
	f.h->slots_offset = SLOTS_OFFSET;
	f.h->nr_slots = 0;
	assert_int_equal(open_mem(&f), -EBADMSG);
	f.h->nr_slots = UINT32_MAX;
	assert_int_equal(open_mem(&f), -EBADMSG);
	f.h->nr_slots = 4;
	/* the header claims more table than there is memory */
	f.h->table_size = f.table_size * 2;
	assert_int_equal(open_mem(&f), -EBADMSG);
	f.h->table_size = f.table_size;

	f.h->hist_len = 12;
	assert_int_equal(open_mem(&f), -EBADMSG);
	assert_non_null(strstr(pebs_errmsg(), "power of two"));
	f.h->hist_len = 1u << 31;
	assert_int_equal(open_mem(&f), -EBADMSG);
	f.h->hist_len = 16;
	f.h->hist_size = 4 * 16 * 16 - 1;
	assert_int_equal(open_mem(&f), -EBADMSG);
	f.h->hist_size = f.hist_size;
	/* a history but no memory for it */
	assert_int_equal(pebs_map__from_memory(f.table, f.table_size, NULL, 0,
					       &map), -EBADMSG);
	assert_int_equal(open_mem(&f), 0);

	/* too small for a header, misaligned */
	assert_int_equal(pebs_map__from_memory(f.table, 100, f.hist,
					       f.hist_size, &map), -EINVAL);
	assert_int_equal(pebs_map__from_memory(f.table + 4, f.table_size - 4,
					       f.hist, f.hist_size, &map),
			 -EINVAL);
	fake_map_free(&f);

	/* no history at all is allowed: every switch counts as lost */
	fake_map_layout(&f, 2, 0);
	assert_int_equal(pebs_map__from_memory(f.table, f.table_size, NULL, 0,
					       &map), 0);
	{
		struct pebs_map_switch out[4], who;
		uint64_t cursor = 0, lost = 0;
		struct pebs_timeline *tl;

		pebs_store_release(&fake_map_slot(&f, 1)->hist_head, 5);
		assert_int_equal(pebs_map__hist_read(map, 1, &cursor, out, 4,
						     &lost), 0);
		assert_int_equal(cursor, 5);
		assert_int_equal(lost, 5);
		assert_int_equal(pebs_map__lookup(map, 1, 0, &who), -ENOENT);
		assert_int_equal(pebs_timeline__new(map, &tl), 0);
		assert_int_equal(pebs_timeline__update(tl), 0);
		assert_int_equal(pebs_timeline__lost(tl), 0);
		pebs_timeline__delete(tl);
	}
	pebs_map__close(map);
	fake_map_free(&f);
}

static void test_cpu_range(void **state)
{
	struct pebs_map_snapshot snap;
	struct pebs_map_switch out[2], who;
	struct pebs_timeline *tl;
	uint64_t cursor = 0;
	struct pebs_map *map;
	struct fake_map f;

	(void)state;
	fake_map_layout(&f, 3, 16);
	map = fake_map_open(&f);
	assert_int_equal(pebs_map__read_slot(map, 3, &snap), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "CPU 3 not in the pebs_map table (3 CPUs)"));
	assert_int_equal(pebs_map__read_slot(map, UINT32_MAX, &snap), -EINVAL);
	assert_int_equal(pebs_map__hist_read(map, 3, &cursor, out, 2, NULL),
			 -EINVAL);
	assert_int_equal(pebs_map__lookup(map, 3, 0, &who), -EINVAL);
	assert_int_equal(pebs_timeline__new(map, &tl), 0);
	assert_int_equal(pebs_timeline__lookup(tl, 3, 0, &who), -EINVAL);
	assert_int_equal(pebs_timeline__lookup(tl, 2, 0, &who), -ENOENT);
	pebs_timeline__delete(tl);
	pebs_map__close(map);
	pebs_map__close(NULL);
	pebs_timeline__delete(NULL);
	fake_map_free(&f);
}

/* a timeline without a map, fed from switch records (record's baseline) */
static void test_timeline_fed(void **state)
{
	static const struct pebs_map_switch sw[] = {
		{ 100, 10, 11 }, { 300, 0, 0 }, { 200, 20, 21 },  /* late */
		{ 400, -1, -1 },	/* a gap */
		{ 500, 30, 31 },
	};
	struct pebs_timeline *tl;
	struct pebs_map_switch who;
	struct pebs_map *map;
	struct fake_map f;

	(void)state;
	assert_int_equal(pebs_timeline__new_empty(0, &tl), -EINVAL);
	assert_int_equal(pebs_timeline__new_empty(2, &tl), 0);
	assert_int_equal(pebs_timeline__lookup(tl, 1, UINT64_MAX, &who),
			 -ENOENT);
	for (size_t i = 0; i < ARRAY_SIZE(sw); i++)
		assert_int_equal(pebs_timeline__add(tl, 1, &sw[i]), 0);
	assert_int_equal(pebs_timeline__add(tl, 2, &sw[0]), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "CPU 2 not in the timeline (2 CPUs)"));
	assert_int_equal(pebs_timeline__update(tl), 0);
	assert_int_equal(pebs_timeline__lookup(tl, 1, 99, &who), -ENOENT);
	assert_int_equal(pebs_timeline__lookup(tl, 1, 100, &who), 0);
	assert_int_equal(who.pid, 11);
	assert_int_equal(pebs_timeline__lookup(tl, 1, 250, &who), 0);
	assert_int_equal(who.pid, 21);	/* the late record sorted in */
	assert_int_equal(pebs_timeline__lookup(tl, 1, 399, &who), 0);
	assert_int_equal(who.tgid, 0);	/* idle */
	assert_int_equal(pebs_timeline__lookup(tl, 1, 450, &who), -ENOENT);
	assert_int_equal(pebs_timeline__lookup(tl, 1, UINT64_MAX, &who), 0);
	assert_int_equal(who.time, 500);
	assert_int_equal(who.pid, 31);
	assert_int_equal(pebs_timeline__lookup(tl, 0, UINT64_MAX, &who),
			 -ENOENT);
	pebs_timeline__delete(tl);

	/* a map's timeline is fed from the map alone */
	fake_map_layout(&f, 1, 16);
	map = fake_map_open(&f);
	assert_int_equal(pebs_timeline__new(map, &tl), 0);
	assert_int_equal(pebs_timeline__add(tl, 0, &sw[0]), -EINVAL);
	pebs_timeline__delete(tl);
	pebs_map__close(map);
	fake_map_free(&f);
}

/* ---- regular files ------------------------------------------------- */

static void write_file(const char *path, struct fake_map *f, size_t cut)
{
	FILE *fp = fopen(path, "w");
	size_t total = f->h->hist_offset + f->hist_size;
	unsigned char *buf = calloc(1, total);

	assert_non_null(fp);
	assert_non_null(buf);
	memcpy(buf, f->table, f->table_size);
	memcpy(buf + f->h->hist_offset, f->hist, f->hist_size);
	assert_int_equal(fwrite(buf, 1, total - cut, fp), total - cut);
	assert_int_equal(fclose(fp), 0);
	free(buf);
}

static void test_open_file(void **state)
{
	char path[] = "/tmp/test-map-XXXXXX";
	struct pebs_map_snapshot snap;
	struct pebs_map_switch out[16], who;
	uint64_t cursor = 0, lost = 0;
	struct pebs_map *map = NULL;
	struct fake_map f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	fake_map_layout(&f, 2, 256);	/* history of 8 KiB: two pages */
	slot_write(fake_map_slot(&f, 1), 77);
	for (uint64_t k = 0; k < 300; k++)
		hist_push(&f, 1, k, 0);
	write_file(path, &f, 0);

	assert_int_equal(pebs_map__open(path, &map), 0);
	assert_string_equal(pebs_errmsg(), "");
	assert_int_equal(pebs_map__nr_cpus(map), 2);
	assert_int_equal(pebs_map__header(map)->hist_offset, f.table_size);
	assert_int_equal(pebs_map__read_slot(map, 0, &snap), 0);
	assert_int_equal(snap.tgid, -1);
	assert_int_equal(pebs_map__read_slot(map, 1, &snap), 0);
	assert_int_equal(snap.tgid, 77);
	assert_string_equal(snap.comm, "t77");
	assert_int_equal(snap.hist_head, 300);
	cursor = 290;
	assert_int_equal(pebs_map__hist_read(map, 1, &cursor, out, 16, &lost), 10);
	assert_int_equal(lost, 0);
	for (int i = 0; i < 10; i++)
		assert_entry_k(&out[i], 290 + i);
	assert_int_equal(pebs_map__lookup(map, 1, 455, &who), 0);
	assert_entry_k(&who, 45);
	assert_int_equal(pebs_map__lookup(map, 1, 435, &who), -ENOENT);
	pebs_map__close(map);

	/* a file cut short of its history */
	write_file(path, &f, 1);
	map = NULL;
	assert_int_equal(pebs_map__open(path, &map), -EBADMSG);
	assert_null(map);
	/* shorter than a header */
	assert_int_equal(truncate(path, 100), 0);
	assert_int_equal(pebs_map__open(path, &map), -EBADMSG);
	assert_non_null(strstr(pebs_errmsg(), "too short"));
	/* history not at a page boundary */
	f.h->hist_offset = f.table_size + 8;
	write_file(path, &f, 0);
	f.h->hist_offset = f.table_size;
	assert_int_equal(pebs_map__open(path, &map), -EBADMSG);
	assert_non_null(strstr(pebs_errmsg(), "page aligned"));
	unlink(path);

	assert_int_equal(pebs_map__open(path, &map), -ENOENT);
	assert_non_null(strstr(pebs_errmsg(), "not found"));
	assert_int_equal(pebs_map__open("/tmp", &map), -ENODEV);
	fake_map_free(&f);
}

static void test_open_device_absent(void **state)
{
	struct pebs_map *map = NULL;
	struct stat st;

	(void)state;
	if (stat(PEBS_MAP_DEVICE, &st) == 0)
		skip();	/* the module is loaded here */
	assert_int_equal(pebs_map__open(NULL, &map), -ENOENT);
	assert_string_equal(pebs_errmsg(),
			    "/dev/pebs_map not found: load the module (insmod kmod/pebs_map.ko or scripts/pebs-map-load)");
	assert_null(map);
}

/* ---- timeline ------------------------------------------------------ */

static void test_timeline(void **state)
{
	struct pebs_map_switch who;
	struct pebs_timeline *tl;
	struct pebs_map *map;
	struct fake_map f;

	(void)state;
	fake_map_layout(&f, 2, 8);
	map = fake_map_open(&f);
	/* switches 0..2 happened before the timeline: it still gets them */
	for (uint64_t k = 0; k < 3; k++)
		hist_push(&f, 0, k, 0);
	assert_int_equal(pebs_timeline__new(map, &tl), 0);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 5, &who), -ENOENT);
	assert_int_equal(pebs_timeline__update(tl), 3);
	for (uint64_t k = 3; k < 7; k++)
		hist_push(&f, 0, k, 0);
	assert_int_equal(pebs_timeline__update(tl), 4);
	assert_int_equal(pebs_timeline__update(tl), 0);
	assert_int_equal(pebs_timeline__lost(tl), 0);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 0, &who), 0);
	assert_entry_k(&who, 0);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 39, &who), 0);
	assert_entry_k(&who, 3);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 40, &who), 0);
	assert_entry_k(&who, 4);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 1000, &who), 0);
	assert_entry_k(&who, 6);
	assert_int_equal(pebs_timeline__lookup(tl, 1, 1000, &who), -ENOENT);

	/* overrun: 7..29 written, only 23..29 survive: 7..22 lost */
	for (uint64_t k = 7; k < 30; k++)
		hist_push(&f, 0, k, 0);
	assert_int_equal(pebs_timeline__update(tl), 7);
	assert_int_equal(pebs_timeline__lost(tl), 16);
	/* switch 6 began at 60, then the unknown: the gap is (60, 230) */
	assert_int_equal(pebs_timeline__lookup(tl, 0, 60, &who), 0);
	assert_entry_k(&who, 6);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 61, &who), -ENOENT);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 150, &who), -ENOENT);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 229, &who), -ENOENT);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 230, &who), 0);
	assert_entry_k(&who, 23);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 299, &who), 0);
	assert_entry_k(&who, 29);
	/* old history is kept after the live window moved on */
	assert_int_equal(pebs_timeline__lookup(tl, 0, 25, &who), 0);
	assert_entry_k(&who, 2);

	/* a loss with nothing new after it leaves the end unknown */
	for (uint64_t k = 30; k < 50; k++)
		hist_push(&f, 0, k, 0);
	assert_int_equal(pebs_timeline__update(tl), 7);
	assert_int_equal(pebs_timeline__lost(tl), 16 + 13);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 305, &who), -ENOENT);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 425, &who), -ENOENT);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 435, &who), 0);
	assert_entry_k(&who, 43);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 495, &who), 0);
	assert_entry_k(&who, 49);

	/* a gap closed by a switch at the very time of the one before it */
	for (uint64_t k = 50; k < 60; k++)
		hist_push_raw(&f, 0, 490, (int32_t)k, 0, 0);
	assert_int_equal(pebs_timeline__update(tl), 7);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 490, &who), 0);
	assert_int_equal(who.tgid, 59);
	assert_int_equal(pebs_timeline__lookup(tl, 0, 489, &who), 0);
	assert_entry_k(&who, 48);
	pebs_timeline__delete(tl);
	pebs_map__close(map);
	fake_map_free(&f);
}

/*
 * A writer laps the timeline: what it copied is exact, lost is exact,
 * and lookups inside a gap find nobody.
 */
static void test_timeline_concurrent(void **state)
{
	struct writer w = { .cpu = 1, .slow = 0, .ahead = 32 + 5 };
	struct pebs_map_switch who;
	uint64_t copied = 0, gaps = 0, updates = 0;
	struct pebs_timeline *tl;
	struct pebs_map *map;
	unsigned char *have;
	pthread_t th;
	struct fake_map f;

	(void)state;
	fake_map_layout(&f, 2, 32);
	map = fake_map_open(&f);
	w.f = &f;
	assert_int_equal(pebs_timeline__new(map, &tl), 0);
	assert_int_equal(pthread_create(&th, NULL, hist_writer, &w), 0);
	while (updates < 20000) {
		assert_true(pebs_timeline__update(tl) >= 0);
		/* the timeline's cursor is at most the head now */
		atomic_store(&w.reader_pos,
			     PEBS_READ_ONCE(fake_map_slot(&f, 1)->hist_head));
		/* now and then, 37 ahead in 32 places: we lose at least 6 */
		if (++updates % 100 == 0)
			wait_for_lap(&w);
	}
	atomic_store(&w.stop, 1);
	pthread_join(th, NULL);
	assert_true(pebs_timeline__update(tl) >= 0);

	have = calloc(w.count, 1);
	assert_non_null(have);
	for (uint64_t k = 0; k < w.count; k++) {
		int err = pebs_timeline__lookup(tl, 1, k * 10, &who);

		if (err) {
			assert_int_equal(err, -ENOENT);
			continue;
		}
		assert_entry_k(&who, k);
		have[k] = 1;
		copied++;
	}
	assert_int_equal(copied + pebs_timeline__lost(tl), w.count);
	assert_true(have[w.count - 1]);
	assert_true(pebs_timeline__lost(tl) >= 6 * (updates / 100));
	for (uint64_t k = 0; k < w.count; k++) {
		bool known = have[k] && (k + 1 == w.count || have[k + 1]);
		int err = pebs_timeline__lookup(tl, 1, k * 10 + 5, &who);

		if (known) {
			assert_int_equal(err, 0);
			assert_entry_k(&who, k);
		} else {
			assert_int_equal(err, -ENOENT);
			gaps += have[k];
		}
	}
	print_message("# timeline: %llu copied, %llu lost, %llu gaps, %llu updates\n",
		      (unsigned long long)copied,
		      (unsigned long long)pebs_timeline__lost(tl),
		      (unsigned long long)gaps, (unsigned long long)updates);
	free(have);
	pebs_timeline__delete(tl);
	pebs_map__close(map);
	fake_map_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_never_seen),
		cmocka_unit_test(test_slot_torn_reads),
		cmocka_unit_test(test_slot_stuck_odd),
		cmocka_unit_test(test_hist_basic),
		cmocka_unit_test(test_hist_overrun),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_lookup_concurrent),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_cpu_range),
		cmocka_unit_test(test_open_file),
		cmocka_unit_test(test_open_device_absent),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_timeline_concurrent),
		cmocka_unit_test(test_timeline_fed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
