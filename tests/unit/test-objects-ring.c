// SPDX-License-Identifier: MIT
/*
 * test-objects-ring.c - the objects' ring (lib/record/objects-ring.h)
 * between producers and its consumer: records of every length at every
 * offset across the end, two threads producing into a ring far smaller
 * than what they write (so they wait on a full ring) while one thread
 * consumes, each thread's records in its order and none lost; a full
 * ring gives no room until the consumer releases; slots left
 * unfinished (marked or not) are found and skipped, a published slot
 * of an impossible length is bad, and a word left by an earlier lap is
 * never read as a slot; a producer waiting on a full ring sleeps on the
 * futex (no wake-ups of its own), asks the consumer to read (kick, which
 * wakes a thread asleep on it) and is woken by the release; lanes lie
 * apart in the ring, and producers on three lanes read in turn lose
 * nothing.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "record/objects-ring.h"

#define SMALL	1024u		/* at least two of the largest slots */

/* a record of any length, on the stack */
union recbuf {
	struct pso_rec r;
	char b[PSO_REC_MAX];
};

/* a ring of @lanes lanes of @size bytes, as the recorder makes it */
static struct pso_ring *ring_new(uint64_t size, uint32_t lanes)
{
	uint64_t len = pso_ring_bytes(lanes, size);
	/* aligned_alloc: a size that is a multiple of the alignment */
	struct pso_ring *r = aligned_alloc(4096, (len + 4095) & ~(uint64_t)4095);

	assert_non_null(r);
	memset(r, 0, len);
	r->magic = PSO_RING_MAGIC;
	r->size = size;
	r->lanes = lanes;
	r->open = 1;
	for (uint32_t i = 0; i < lanes; i++)
		pso_ring_lane(r, i)->size = size;
	return r;
}

/* the slot at @tail of @l, up to its head now */
static enum pso_next next_slot(struct pso_lane *l, uint64_t tail, void *buf,
			       struct pso_slot *s)
{
	return pso_lane_next(l, l->size, tail,
			     __atomic_load_n(&l->head, __ATOMIC_ACQUIRE), buf, s);
}

/* a record of @nr_ips frames whose fields all derive from @seq */
static uint32_t make_rec(struct pso_rec *rec, uint32_t tid, uint64_t seq,
			 unsigned int nr_ips)
{
	memset(rec, 0, sizeof(*rec));
	rec->kind = PSO_ALLOC;
	rec->pid = 1000;
	rec->tid = tid;
	rec->nr_ips = (uint8_t)nr_ips;
	rec->time = seq * 3;
	rec->addr = seq;
	rec->len = seq * 7;
	rec->weight = seq + 1;
	for (unsigned int i = 0; i < nr_ips; i++)
		rec->ips[i] = seq * 100 + i;
	rec->size = (uint16_t)(sizeof(*rec) + nr_ips * 8u);
	return rec->size;
}

/* the interposer's way: reserve, wait for room, mark, put */
static void produce(struct pso_lane *r, const struct pso_rec *rec)
{
	uint32_t slot = pso_slot_len(rec->size);
	uint64_t pos = pso_lane_reserve(r, slot);

	while (!pso_lane_room(r, pos, slot))
		sched_yield();
	pso_lane_mark(r, pos, slot, rec->pid);
	pso_lane_put(r, pos, rec->pid, rec, rec->size);
}

static void check_rec(const void *buf, uint32_t tid, uint64_t seq,
		      unsigned int nr_ips)
{
	union recbuf want;

	make_rec(&want.r, tid, seq, nr_ips);
	assert_memory_equal(buf, &want, want.r.size);
}

/* the slot at *@tail holds @seq's record: read it, move past it */
static void read_rec(struct pso_lane *r, uint64_t *tail, uint32_t tid,
		     uint64_t seq, unsigned int nr_ips)
{
	uint64_t buf[PSO_SLOT_MAX / 8];
	struct pso_slot s;

	assert_int_equal(next_slot(r, *tail, buf, &s), PSO_REC);
	assert_int_equal(s.pid, 1000);
	check_rec(buf, tid, seq, nr_ips);
	*tail += s.len;
}

/* records of 0..PSO_MAX_IPS frames, one at a time: every offset, laps */
static void test_wrap(void **state)
{
	struct pso_ring *ring = ring_new(SMALL, 1);
	struct pso_lane *r = pso_ring_lane(ring, 0);
	union recbuf u;
	uint64_t buf[PSO_SLOT_MAX / 8];
	uint64_t tail = 0;
	struct pso_slot s;

	(void)state;
	for (uint64_t seq = 0; seq < 5000; seq++) {
		unsigned int n = (unsigned int)(seq * 7 % (PSO_MAX_IPS + 1));

		uint64_t was = tail;

		make_rec(&u.r, 7, seq, n);
		produce(r, &u.r);
		read_rec(r, &tail, 7, seq, n);
		assert_int_equal(tail - was, pso_slot_len(u.r.size));
		pso_lane_release(r, tail);
		assert_int_equal(next_slot(r, tail, buf, &s), PSO_NONE);
	}
	assert_true(tail > 50 * SMALL);		/* many laps */
	free(ring);
}

struct prod {
	struct pso_lane *r;
	uint32_t tid;
	uint64_t n;
};

static void *producer(void *arg)
{
	struct prod *p = arg;
	union recbuf u;

	for (uint64_t seq = 0; seq < p->n; seq++) {
		make_rec(&u.r, p->tid, seq, (unsigned int)(seq % 5));
		produce(p->r, &u.r);
	}
	return NULL;
}

/* two producers, one consumer, a ring of 4 KiB for 40 MB of records */
static void test_threads(void **state)
{
	enum { N = 200000 };
	struct pso_ring *ring = ring_new(4096, 1);
	struct pso_lane *r = pso_ring_lane(ring, 0);
	struct prod p[2] = { { r, 1, N }, { r, 2, N } };
	uint64_t next[3] = { 0 }, tail = 0, got = 0;
	uint64_t buf[PSO_SLOT_MAX / 8];
	pthread_t th[2];
	struct pso_slot s;

	(void)state;
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, producer, &p[i]),
				 0);
	while (got < 2 * N) {
		enum pso_next k = next_slot(r, tail, buf, &s);
		const struct pso_rec *rec = (const void *)buf;

		if (k != PSO_REC) {
			/* nothing yet, or a slot being written */
			assert_true(k == PSO_NONE || k == PSO_BUSY ||
				    k == PSO_HOLE);
			sched_yield();
			continue;
		}
		assert_true(rec->tid == 1 || rec->tid == 2);
		/* each thread's records in its order, none lost */
		assert_int_equal(rec->addr, next[rec->tid]);
		check_rec(buf, rec->tid, next[rec->tid],
			  (unsigned int)(next[rec->tid] % 5));
		next[rec->tid]++;
		got++;
		tail += s.len;
		pso_lane_release(r, tail);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(next_slot(r, tail, buf, &s), PSO_NONE);
	assert_int_equal(next[1], N);
	assert_int_equal(next[2], N);
	free(ring);
}

/* @r (SMALL) filled with @rec, and a slot for it reserved past: its
   position, which has no room */
static uint64_t overfill(struct pso_lane *r, const struct pso_rec *rec)
{
	uint32_t slot = pso_slot_len(rec->size);
	uint64_t pos;

	for (unsigned int i = 0; i < SMALL / slot; i++)
		produce(r, rec);
	pos = pso_lane_reserve(r, slot);
	assert_false(pso_lane_room(r, pos, slot));
	return pos;
}

/* a slot past a full ring has no room until the consumer releases */
static void test_full(void **state)
{
	struct pso_ring *ring = ring_new(SMALL, 1);
	struct pso_lane *r = pso_ring_lane(ring, 0);
	union recbuf u;
	uint64_t buf[PSO_SLOT_MAX / 8];
	uint32_t len = make_rec(&u.r, 1, 0, 0), slot = pso_slot_len(len);
	struct pso_slot s;
	uint64_t pos;

	(void)state;
	pos = overfill(r, &u.r);
	assert_int_equal(next_slot(r, 0, buf, &s), PSO_REC);
	pso_lane_release(r, s.len);
	assert_true(pso_lane_room(r, pos, slot));
	free(ring);
}

/*
 * Lanes: each inside the ring's bytes, apart from the others (a lane
 * written full leaves the next one's header and data as they were), read
 * with the consumer's own size when the lane's header says another, and
 * three producers each on its own lane, read lane by lane in turn: each
 * thread's records in its order, none lost.
 */
static void test_lanes(void **state)
{
	enum { N = 100000, LANES = 3 };
	struct pso_ring *ring = ring_new(SMALL, LANES);
	struct prod p[LANES];
	uint64_t next[LANES + 1] = { 0 }, tail[LANES] = { 0 }, got = 0;
	uint64_t buf[PSO_SLOT_MAX / 8];
	pthread_t th[LANES];
	struct pso_slot s;
	union recbuf u;
	char *end = (char *)ring + pso_ring_bytes(LANES, SMALL);

	(void)state;
	for (uint32_t i = 0; i < LANES; i++) {
		struct pso_lane *l = pso_ring_lane(ring, i);

		assert_true((char *)l >= (char *)ring + PSO_RING_HDR);
		assert_true(pso_lane_data(l) + l->size <= end);
		if (i)
			assert_ptr_equal(pso_lane_data(pso_ring_lane(ring, i - 1)) +
					 SMALL, (char *)l);
	}
	make_rec(&u.r, 1, 0, PSO_MAX_IPS);
	overfill(pso_ring_lane(ring, 1), &u.r);
	assert_int_equal(pso_ring_lane(ring, 2)->size, SMALL);
	assert_int_equal(pso_ring_lane(ring, 2)->head, 0);
	assert_int_equal(next_slot(pso_ring_lane(ring, 0), 0, buf, &s), PSO_NONE);
	assert_int_equal(next_slot(pso_ring_lane(ring, 2), 0, buf, &s), PSO_NONE);
	/* the lane's size written over (the command owns the memory): the
	   consumer's own size still reads its first record, inside it */
	pso_ring_lane(ring, 1)->size = (uint64_t)1 << 40;
	assert_int_equal(pso_lane_next(pso_ring_lane(ring, 1), SMALL, 0,
				       pso_ring_lane(ring, 1)->head, buf, &s),
			 PSO_REC);
	check_rec(buf, 1, 0, PSO_MAX_IPS);
	free(ring);

	ring = ring_new(4096, LANES);
	for (uint32_t i = 0; i < LANES; i++) {
		p[i] = (struct prod){ pso_ring_lane(ring, i), i + 1, N };
		assert_int_equal(pthread_create(&th[i], NULL, producer, &p[i]),
				 0);
	}
	while (got < LANES * N) {
		for (uint32_t i = 0; i < LANES; i++) {
			struct pso_lane *l = pso_ring_lane(ring, i);
			const struct pso_rec *rec = (const void *)buf;

			if (next_slot(l, tail[i], buf, &s) != PSO_REC) {
				sched_yield();
				continue;
			}
			assert_int_equal(rec->tid, i + 1);
			assert_int_equal(rec->addr, next[rec->tid]);
			next[rec->tid]++;
			got++;
			tail[i] += s.len;
			pso_lane_release(l, tail[i]);
		}
	}
	for (uint32_t i = 0; i < LANES; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(next[i + 1], N);
		assert_int_equal(next_slot(pso_ring_lane(ring, i), tail[i], buf,
					   &s), PSO_NONE);
	}
	free(ring);
}

struct sleeper {
	struct pso_ring *ring;
	struct pso_lane *r;
	uint64_t target;
	int tid;
	int waits;		/* pso_ring_wait calls until it was read */
	int done;
	uint32_t kicked;	/* the kick word, as its listener woke */
};

static void *sleeper(void *p)
{
	struct sleeper *w = p;

	__atomic_store_n(&w->tid, (int)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	do
		w->waits++;
	while (!pso_lane_wait(w->ring, w->r, w->target, 900000000l));
	__atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* the consumer's side of kick: asleep on it until a producer asks */
static void *listener(void *p)
{
	struct sleeper *w = p;
	struct timespec ts = { .tv_sec = 5 };

	pso_futex(&w->ring->kick, FUTEX_WAIT, 0, &ts);
	__atomic_store_n(&w->kicked, __atomic_load_n(&w->ring->kick,
						    __ATOMIC_SEQ_CST),
			 __ATOMIC_SEQ_CST);
	return NULL;
}

/* the thread's voluntary context switches (its sleeps and wake-ups) */
static long switches(int tid)
{
	char path[64], line[256];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * A full ring: the waiting producer kicks the consumer (its listener
 * wakes, the word 1), sleeps without waking (a poll of 50 us woke it
 * thousands of times a second) and is woken by the release, long
 * before its 900 ms timeout, in its first wait.
 */
static void test_sleep(void **state)
{
	struct pso_ring *ring = ring_new(SMALL, 1);
	struct pso_lane *r = pso_ring_lane(ring, 0);
	struct sleeper w = { .ring = ring, .r = r };
	union recbuf u;
	uint64_t buf[PSO_SLOT_MAX / 8];
	uint32_t len = make_rec(&u.r, 1, 0, 0), slot = pso_slot_len(len);
	struct pso_slot s;
	pthread_t th, li;
	uint64_t pos, t0;
	long before;

	(void)state;
	pos = overfill(r, &u.r);
	w.target = pos + slot - r->size;
	assert_int_equal(pthread_create(&li, NULL, listener, &w), 0);
	usleep(20000);		/* the listener asleep first */
	assert_int_equal(pthread_create(&th, NULL, sleeper, &w), 0);
	for (t0 = ms_now(); !__atomic_load_n(&r->waiters, __ATOMIC_SEQ_CST) &&
	     ms_now() - t0 < 2000;)
		usleep(1000);
	assert_int_equal(__atomic_load_n(&r->waiters, __ATOMIC_SEQ_CST), 1);
	pthread_join(li, NULL);
	assert_int_equal(w.kicked, 1);
	before = switches(w.tid);
	usleep(100000);
	assert_in_range(switches(w.tid) - before, 0, 3);
	assert_int_equal(__atomic_load_n(&w.done, __ATOMIC_SEQ_CST), 0);
	assert_int_equal(next_slot(r, 0, buf, &s), PSO_REC);
	t0 = ms_now();
	pso_lane_release(r, s.len);
	while (!__atomic_load_n(&w.done, __ATOMIC_SEQ_CST) &&
	       ms_now() - t0 < 2000)
		usleep(1000);
	assert_in_range(ms_now() - t0, 0, 300);
	pthread_join(th, NULL);
	assert_int_equal(w.waits, 1);
	assert_int_equal(r->waiters, 0);
	free(ring);
}

/*
 * An unfinished slot: marked (its length and pid known: skipped by its
 * length), then one never marked (found by the next word naming its own
 * position); the records after each are read.
 */
static void test_holes(void **state)
{
	struct pso_ring *ring = ring_new(SMALL, 1);
	struct pso_lane *r = pso_ring_lane(ring, 0);
	union recbuf u;
	uint64_t buf[PSO_SLOT_MAX / 8];
	uint32_t len = make_rec(&u.r, 1, 0, 3), slot = pso_slot_len(len);
	uint64_t tail = 0, pos;
	struct pso_slot s;

	(void)state;
	pos = pso_lane_reserve(r, slot);
	pso_lane_mark(r, pos, slot, 4321);
	make_rec(&u.r, 1, 1, 0);
	produce(r, &u.r);
	assert_int_equal(next_slot(r, tail, buf, &s), PSO_BUSY);
	assert_int_equal(s.len, slot);
	assert_int_equal(s.pid, 4321);
	tail += s.len;
	read_rec(r, &tail, 1, 1, 0);

	pos = pso_lane_reserve(r, slot);	/* never marked */
	assert_int_equal(pos, tail);
	make_rec(&u.r, 1, 2, 1);
	produce(r, &u.r);
	assert_int_equal(next_slot(r, tail, buf, &s), PSO_HOLE);
	tail = pso_lane_resync(r, r->size, tail);
	assert_int_equal(tail, pos + slot);
	read_rec(r, &tail, 1, 2, 1);
	/* a hole at the head: the scan stops there */
	pos = pso_lane_reserve(r, slot);
	assert_int_equal(next_slot(r, tail, buf, &s), PSO_HOLE);
	assert_int_equal(pso_lane_resync(r, r->size, tail), pos + slot);
	free(ring);
}

/* a late word of an earlier lap, slots of impossible lengths */
static void test_stale_bad(void **state)
{
	struct pso_ring *ring = ring_new(SMALL, 1);
	struct pso_lane *r = pso_ring_lane(ring, 0);
	union recbuf u;
	uint64_t buf[PSO_SLOT_MAX / 8];
	uint32_t len = make_rec(&u.r, 1, 0, 0);
	struct pso_slot s;

	(void)state;
	/* published at 0 on the first lap, read at SMALL on the second */
	pso_lane_put(r, 0, 1000, &u.r, len);
	r->head = r->tail = SMALL;
	pso_lane_reserve(r, pso_slot_len(len));
	assert_int_equal(next_slot(r, SMALL, buf, &s), PSO_HOLE);
	/* a slot in no state a producer sets */
	*pso_lane_ctl(r, SMALL, SMALL) = pso_ctl(SMALL, 1000, pso_slot_len(len),
					  PSO_RESERVED | PSO_PUBLISHED);
	assert_int_equal(next_slot(r, SMALL, buf, &s), PSO_BAD);
	assert_int_equal(s.len, pso_slot_len(len));
	/* too short for a record, or longer than what was reserved: no
	   slot at all */
	*pso_lane_ctl(r, SMALL, SMALL) = pso_ctl(SMALL, 1000, 16, PSO_PUBLISHED);
	assert_int_equal(next_slot(r, SMALL, buf, &s), PSO_HOLE);
	*pso_lane_ctl(r, SMALL, SMALL) = pso_ctl(SMALL, 1000, pso_slot_len(len) + 8,
					  PSO_PUBLISHED);
	assert_int_equal(next_slot(r, SMALL, buf, &s), PSO_HOLE);
	free(ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_lanes),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_sleep),
		cmocka_unit_test(test_holes),
		cmocka_unit_test(test_stale_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
