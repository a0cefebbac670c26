/* SPDX-License-Identifier: MIT */
/*
 * objects-ring.h - the shared-memory ring that carries the records of
 * libpebsshim-objects.so (tools/objects/objects.c, the producers: every
 * thread of every process of the command) to the recorder
 * (lib/record/record-objects.c, the one consumer), without a system
 * call per record. Both sides include it; the logic is here, unit-tested
 * with threads in tests/unit/test-objects-ring.c.
 *
 * The recorder creates a memfd (pso_ring_bytes), maps it shared, and
 * hands its fd to the command ($PEBS_SHIM_OBJECTS_FD, no close-on-exec):
 * each process maps it once, a forked child keeps its parent's mapping,
 * an exec'd program maps it again. The first page is struct pso_ring;
 * lanes follow, each a struct pso_lane and its data (size bytes, a power
 * of two): a lane per CPU (up to PSO_LANES_MAX, CPU n writing to lane n
 * modulo their number), so that threads on two CPUs neither add to the
 * same head nor write the same lines. With one ring for all, two
 * threads recording side by side took the head's line and the slots'
 * from each other at every record (under --objects=16K, the atomic add
 * and the copy into the ring were 14 % of the command's profile, 2.5 %
 * with lanes), and bench/allocs --small 2 4000000 under --objects=all
 * took 2.73 s (3.4 s of CPU) where it takes 1.65 s (1.95 s) with lanes
 * (medians of 6 interleaved runs, 2 CPUs, 2026-11-28). The consumer
 * reads each lane in turn and the session orders their records by time
 * (a record comes in the round of its time or the next, as the kernel's
 * per-CPU rings' do).
 *
 * In a lane, a producer reserves a slot (8 bytes of control word, then
 * the record, a multiple of 8 bytes: the control word never straddles
 * the end) by an atomic add on head, waits while the slot would
 * overwrite what the consumer has not read (head - tail > size), marks
 * the slot reserved, writes the record (in two pieces across the end)
 * and publishes it by storing its control word with release. The
 * consumer reads at tail while the slot there is published (acquire),
 * and moves tail on with release. In a lane, records of one thread stay
 * in its order; records of threads come in the order of their
 * reservations. The consumer reads a lane with its own copy of the
 * size and its own lane addresses: the command may write over the
 * headers, never make the recorder read outside the ring.
 *
 * The control word holds the slot's position (bits 63-32: position / 8,
 * modulo 2^32), the producer's pid (bits 31-10: Linux pids are below
 * 2^22), the slot's length in 8-byte words (bits 9-2) and its state
 * (bits 1-0: 1 reserved, 2 published). A word whose position is not the
 * slot's is stale, from an earlier lap, or zero: the slot is reserved
 * but not marked yet. So the ring never needs zeroing, a slot left
 * unfinished by a producer that died (or jumped out of a signal
 * handler) can be skipped: by its length when marked, else by scanning
 * for the next word that names its own position, and a late write of a
 * skipped producer cannot be read as a slot of a later lap.
 *
 * A full ring: the producer spins a little, then sleeps on a futex
 * (pso_lane_wait: the lane's word @read, which the consumer bumps when it moves
 * the tail while producers wait, then wakes them), and first asks the
 * consumer to read at once (pso_ring_kick: the futex word @kick, set to
 * 1 and woken; the recorder has a thread asleep on it). Futexes of the
 * shared mapping, not descriptors: they work in every process that maps
 * the ring, across exec and PID namespaces, and a program that closes
 * or reuses descriptor numbers cannot lose or misdirect them.
 */
#ifndef PEBS_SHIM_OBJECTS_RING_H
#define PEBS_SHIM_OBJECTS_RING_H

#include <linux/futex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/objects-proto.h"

#define PSO_RING_MAGIC	0x32676e69726f7370ull	/* "psoring2" */
#define PSO_RING_HDR	4096u		/* struct pso_ring's page */
#define PSO_LANE_HDR	256u		/* struct pso_lane's lines */
/* a lane per CPU, up to this many (CPU n writes to lane n % lanes) */
#define PSO_LANES_MAX	64u
/* the data's size, all lanes': every allocation's records, or the
   sampled ones; a lane holds at least PSO_LANE_MIN */
#define PSO_RING_ALL	(16u << 20)
#define PSO_RING_SAMPLED	(1u << 20)
#define PSO_LANE_MIN	(64u << 10)
/* a slot: the control word and the largest record */
#define PSO_SLOT_MAX	(8u + (uint32_t)PSO_REC_MAX)

enum pso_state { PSO_RESERVED = 1, PSO_PUBLISHED = 2 };

struct pso_ring {
	uint64_t magic;		/* PSO_RING_MAGIC */
	uint64_t size;		/* a lane's data bytes: a power of two */
	uint32_t lanes;		/* 1 to PSO_LANES_MAX */
	uint32_t recorder;	/* the recorder's pid */
	uint32_t open;		/* 1 while the recorder reads, 0 after */
	uint32_t beat;		/* bumped by every read of the recorder */
	/* the recorder's PID namespace: the inode number of its
	   /proc/self/ns/pid (0: unknown) */
	uint64_t pidns;
	uint32_t kick __attribute__((aligned(64)));	/* futex: 1 read now */
};

struct pso_lane {
	uint64_t size;		/* its data bytes: the ring's size */
	/* bytes ever reserved, and ever read: each on its own line */
	uint64_t head __attribute__((aligned(64)));
	uint64_t tail __attribute__((aligned(64)));
	uint32_t read;		/* futex: bumped when tail moved for waiters */
	uint32_t waiters;	/* producers asleep on @read */
};

static inline long pso_futex(uint32_t *word, int op, uint32_t val,
			     const struct timespec *ts)
{
	/* not FUTEX_PRIVATE_FLAG: the word is in memory shared by processes */
	return syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

/* the bytes of a ring of @lanes lanes of @size bytes */
static inline uint64_t pso_ring_bytes(uint32_t lanes, uint64_t size)
{
	return PSO_RING_HDR + (uint64_t)lanes * (PSO_LANE_HDR + size);
}

/* lane @i of @r (below r->lanes) */
static inline struct pso_lane *pso_ring_lane(struct pso_ring *r, uint32_t i)
{
	return (struct pso_lane *)((char *)r + PSO_RING_HDR +
				   (uint64_t)i * (PSO_LANE_HDR + r->size));
}

static inline char *pso_lane_data(struct pso_lane *l)
{
	return (char *)l + PSO_LANE_HDR;
}

/* the control word at @pos of lane @l, of @size bytes: the producers'
   l->size, the consumer's own copy (the command may write over a lane's
   header, the recorder must not read outside the lane for it) */
static inline uint64_t *pso_lane_ctl(struct pso_lane *l, uint64_t size,
				     uint64_t pos)
{
	return (uint64_t *)(pso_lane_data(l) + (pos & (size - 1)));
}

static inline uint64_t pso_ctl(uint64_t pos, uint32_t pid, uint32_t slot,
			       enum pso_state st)
{
	return (pos >> 3) << 32 | (uint64_t)(pid & 0x3fffff) << 10 |
	       (uint64_t)(slot >> 3 & 0xff) << 2 | st;
}

/* the slot's length for a record of @len bytes (a multiple of 8) */
static inline uint32_t pso_slot_len(uint32_t len)
{
	return 8 + len;
}

/* ---- producer -------------------------------------------------------- */

/* reserve @slot bytes: the slot's position, to wait on with _room */
static inline uint64_t pso_lane_reserve(struct pso_lane *l, uint32_t slot)
{
	return __atomic_fetch_add(&l->head, slot, __ATOMIC_RELAXED);
}

/* whether the slot at @pos fits: what it covers has been read */
static inline bool pso_lane_room(struct pso_lane *l, uint64_t pos,
				 uint32_t slot)
{
	return pos + slot - __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE) <=
	       l->size;
}

/* whether the consumer has read up to @target */
static inline bool pso_lane_read_to(struct pso_lane *l, uint64_t target)
{
	return (int64_t)(__atomic_load_n(&l->tail, __ATOMIC_SEQ_CST) -
			 target) >= 0;
}

/* ask the consumer to read now: the first asker since its last wake-up
   wakes it */
static inline void pso_ring_kick(struct pso_ring *r)
{
	if (!__atomic_exchange_n(&r->kick, 1, __ATOMIC_SEQ_CST))
		pso_futex(&r->kick, FUTEX_WAKE, 1, NULL);
}

/*
 * pso_lane_wait - sleep until the consumer has read lane @l of @r up to
 * @target (a slot's room: its end less the lane's size), or @timeout_ns
 * passed, having kicked it; whether it has. The consumer's release sees the
 * waiter counted before the tail is read here, or this sees its tail.
 */
static inline bool pso_lane_wait(struct pso_ring *r, struct pso_lane *l,
				 uint64_t target, long timeout_ns)
{
	uint32_t seq = __atomic_load_n(&l->read, __ATOMIC_SEQ_CST);
	struct timespec ts = { .tv_nsec = timeout_ns };
	bool done;

	__atomic_fetch_add(&l->waiters, 1, __ATOMIC_SEQ_CST);
	done = pso_lane_read_to(l, target);
	if (!done) {
		pso_ring_kick(r);
		pso_futex(&l->read, FUTEX_WAIT, seq, &ts);
		done = pso_lane_read_to(l, target);
	}
	__atomic_fetch_sub(&l->waiters, 1, __ATOMIC_SEQ_CST);
	return done;
}

/* copy @len bytes to the ring at @pos, in two pieces across its end */
static inline void pso_lane_copy_in(struct pso_lane *l, uint64_t pos,
				    const void *src, uint32_t len)
{
	uint64_t at = pos & (l->size - 1);
	uint64_t first = l->size - at < len ? l->size - at : len;

	memcpy(pso_lane_data(l) + at, src, first);
	memcpy(pso_lane_data(l), (const char *)src + first, len - first);
}

/* mark the slot at @pos (once it has room): its length and owner */
static inline void pso_lane_mark(struct pso_lane *l, uint64_t pos,
				 uint32_t slot, uint32_t pid)
{
	__atomic_store_n(pso_lane_ctl(l, l->size, pos),
			 pso_ctl(pos, pid, slot, PSO_RESERVED),
			 __ATOMIC_RELAXED);
}

/* write the record @rec of @len bytes into the marked slot at @pos and
   publish it */
static inline void pso_lane_put(struct pso_lane *l, uint64_t pos,
				uint32_t pid, const void *rec, uint32_t len)
{
	pso_lane_copy_in(l, pos + 8, rec, len);
	__atomic_store_n(pso_lane_ctl(l, l->size, pos),
			 pso_ctl(pos, pid, pso_slot_len(len), PSO_PUBLISHED),
			 __ATOMIC_RELEASE);
}

/* ---- consumer -------------------------------------------------------- */

enum pso_next {
	PSO_NONE,	/* nothing reserved past @tail */
	PSO_REC,	/* a published record, copied out */
	PSO_BUSY,	/* reserved and marked: being written by @pid */
	PSO_HOLE,	/* reserved, not marked yet */
	PSO_BAD,	/* a slot in an impossible state: skip it */
};

struct pso_slot {
	uint32_t len;		/* the slot's bytes (PSO_REC, _BUSY, _BAD; else 0) */
	uint32_t pid;		/* its producer (0: unknown) */
};

/*
 * pso_lane_next - the slot at @tail (the consumer's position) of lane
 * @l, of @size bytes (the consumer's copy), whose head the consumer read
 * as @head (a snapshot, so that the producers' line is read once a
 * drain, not once a record): a published record is copied into @buf
 * (PSO_SLOT_MAX bytes: producers may still write to the lane, the copy
 * is what gets checked and used), its length in @s->len (the record's
 * is @s->len - 8).
 */
static inline enum pso_next pso_lane_next(struct pso_lane *l, uint64_t size,
					  uint64_t tail, uint64_t head,
					  void *buf, struct pso_slot *s)
{
	uint64_t ctl;
	uint64_t at, first;

	s->len = s->pid = 0;
	if (tail >= head)
		return PSO_NONE;
	ctl = __atomic_load_n(pso_lane_ctl(l, size, tail), __ATOMIC_ACQUIRE);
	if (ctl >> 32 != ((tail >> 3) & 0xffffffffu) || !(ctl & 3))
		return PSO_HOLE;
	s->len = (uint32_t)(ctl >> 2 & 0xff) << 3;
	s->pid = (uint32_t)(ctl >> 10 & 0x3fffff);
	if (s->len > head - tail ||
	    s->len < pso_slot_len(sizeof(struct pso_rec)) ||
	    s->len > PSO_SLOT_MAX) {
		/* not a slot a producer made: the ring was written over */
		s->len = s->pid = 0;
		return PSO_HOLE;
	}
	if ((ctl & 3) == 3)
		return PSO_BAD;
	if ((ctl & 3) == PSO_RESERVED)
		return PSO_BUSY;
	at = (tail + 8) & (size - 1);
	first = size - at < s->len - 8 ? size - at : s->len - 8;
	memcpy(buf, pso_lane_data(l) + at, first);
	memcpy((char *)buf + first, pso_lane_data(l), s->len - 8 - first);
	return PSO_REC;
}

/*
 * pso_lane_resync - past a hole at @tail of lane @l (of @size bytes, the
 * consumer's copy) whose producer never marked it: the next position up
 * to the head (at most a lane further) whose word names itself as a
 * marked or published slot, or the head.
 */
static inline uint64_t pso_lane_resync(struct pso_lane *l, uint64_t size,
				       uint64_t tail)
{
	uint64_t head = __atomic_load_n(&l->head, __ATOMIC_ACQUIRE);
	uint64_t end = head - tail > size ? tail + size : head;
	uint64_t pos;

	for (pos = tail + 8; pos < end; pos += 8) {
		uint64_t ctl = __atomic_load_n(pso_lane_ctl(l, size, pos),
					       __ATOMIC_ACQUIRE);

		if (ctl >> 32 == ((pos >> 3) & 0xffffffffu) &&
		    (ctl & 3) && (ctl & 3) != 3)
			return pos;
	}
	return end;
}

/* hand the bytes up to @tail back to the producers, waking those
   asleep in pso_lane_wait */
static inline void pso_lane_release(struct pso_lane *l, uint64_t tail)
{
	__atomic_store_n(&l->tail, tail, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&l->waiters, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_add(&l->read, 1, __ATOMIC_SEQ_CST);
		pso_futex(&l->read, FUTEX_WAKE, INT32_MAX, NULL);
	}
}

#endif /* PEBS_SHIM_OBJECTS_RING_H */
