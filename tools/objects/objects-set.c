// SPDX-License-Identifier: MIT
/*
 * objects-set.c - the interposer's set of the addresses it tracks, so
 * that their frees are sent (libpebsshim-objects.so): a lock-free
 * open-addressing table, a filter in front of it that a free looks at
 * (interpose.h: objects_filt_has), and glibc's big chunks told by their
 * size (objects_big_chunk) so that they stay out of the filter.
 */
#include <stdbool.h>
#include <stdint.h>

#include "interpose.h"

/*
 * Every free reads objects_glibc_heap and the filter, and only the slow
 * paths write the locks and the counts: each on lines of its own (the
 * flag once shared a line with the lock, and every sampled object's two
 * writes of it cost the other core's frees a miss: 1.29x bare against
 * 1.24x, allocs --small 2 40000000 under record --objects).
 */
#define OWN_LINE	__attribute__((aligned(64)))

bool objects_glibc_heap OWN_LINE;

/* the table */
#define SET_PROBES	64
#define SET_DEAD	((uintptr_t)1)
#define SET_BIG		((uintptr_t)2)	/* an entry kept out of the filter */
#define SET_SIZE	(1u << SET_BITS)
static uintptr_t set[SET_SIZE];
/*
 * In front of it, the filter (interpose.h): a bit set while an entry of
 * the table has it. A free (nearly always of an untracked address)
 * looks at its bit, in the few lines of its thread's region that stay
 * in the nearest cache (the 512 KiB table's miss was a fifth of an
 * allocation-heavy program's time), and probes the table only when it
 * is set. Each group of the filter has its counts (a byte a bit: how
 * many entries have it, stuck at FILT_STUCK, when the bit stays set) and
 * its lock, on lines of their own: taken only to add or remove an entry,
 * so that a bit is never clear while an entry has it. One filter of 1 KiB, its bits hashed
 * from the address alone, under one lock, made every sampled object
 * move lines between the cores, and a free of another region probed
 * the table when it hit another thread's bit (allocs --small 2 40000000
 * under record --objects, 6 interleaved rounds: 1.20x bare, against
 * 1.15x with these groups).
 */
#define FILT_STUCK	UINT8_MAX
uint64_t objects_filt[FILT_GROUPS * 32] OWN_LINE;
static struct filt_group {
	bool lock;
	uint32_t big_n;		/* its big entries (objects_big_groups) */
	uint8_t n[2048];
} filt_groups[FILT_GROUPS] OWN_LINE;
uint64_t objects_big_groups OWN_LINE;

/* one big entry more (@d 1) or less (-1) in group @g (locked) */
static void big_count(struct filt_group *l, uint32_t g, int d)
{
	uint64_t bit = (uint64_t)1 << g;

	l->big_n += (uint32_t)d;
	if (d > 0 && l->big_n == 1)
		__atomic_fetch_or(&objects_big_groups, bit, __ATOMIC_RELAXED);
	else if (d < 0 && !l->big_n)
		__atomic_fetch_and(&objects_big_groups, ~bit, __ATOMIC_RELAXED);
}

/* one entry more (@d 1) or less (-1) with @a's bit, or of @a's group's
   big ones (@big) */
static void filt_count(uintptr_t a, int d, bool big)
{
	uint32_t b = objects_filt_bit(a);
	struct filt_group *l = &filt_groups[b >> 11];
	uint8_t *n = &l->n[b & 2047];
	uint64_t bit = (uint64_t)1 << (b % 64);

	objects_lock(&l->lock);
	if (big)
		big_count(l, b >> 11, d);
	else if (*n != FILT_STUCK) {
		*n = (uint8_t)(*n + d);
		if (d > 0 && *n == 1)
			__atomic_fetch_or(&objects_filt[b / 64], bit,
					  __ATOMIC_RELAXED);
		else if (d < 0 && !*n)
			__atomic_fetch_and(&objects_filt[b / 64], ~bit,
					   __ATOMIC_RELAXED);
	}
	objects_unlock(&l->lock);
}

void objects_set_add(uintptr_t a, bool big)
{
	uint32_t h = objects_set_hash(a);

	for (unsigned int i = 0; i < SET_PROBES; i++) {
		uintptr_t *s = &set[(h + i) & (SET_SIZE - 1)];
		uintptr_t v = __atomic_load_n(s, __ATOMIC_RELAXED);

		if ((v == 0 || v == SET_DEAD) &&
		    __atomic_compare_exchange_n(s, &v, big ? a | SET_BIG : a,
						false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			filt_count(a, 1, big);
			return;
		}
	}
	/* full here: its free goes unsent, a later object at the address
	   takes over in the report */
}

int objects_set_del(uintptr_t a, bool big)
{
	uint32_t h = objects_set_hash(a);
	uintptr_t want = big ? a | SET_BIG : a;

	if (!big && !objects_filt_has(a))
		return 0;
	for (unsigned int i = 0; i < SET_PROBES; i++) {
		uintptr_t *s = &set[(h + i) & (SET_SIZE - 1)];
		uintptr_t v = __atomic_load_n(s, __ATOMIC_RELAXED);

		if (v == 0)
			return 0;
		if (v == want && __atomic_compare_exchange_n(s, &v, SET_DEAD,
				false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			filt_count(a, -1, big);
			return 1;
		}
	}
	return 0;
}

/* in a fork's child: the locks as threads of the parent may have held them */
void objects_set_forked(void)
{
	for (unsigned int i = 0; i < FILT_GROUPS; i++)
		__atomic_clear(&filt_groups[i].lock, __ATOMIC_RELAXED);
}
