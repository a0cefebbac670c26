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
 * paths write the lock and the counts: each on lines of its own (the
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
#define FILT_SIZE	(1u << FILT_BITS)
static uintptr_t set[SET_SIZE];
/*
 * In front of it, a filter: a bit for each of FILT_SIZE hash buckets, set
 * while the bucket holds an entry. A free (nearly always of an untracked
 * address) looks at its bit, 1 KiB that stays in the nearest cache (the
 * 512 KiB table's miss was a fifth of an allocation-heavy program's
 * time, a byte a bucket's 8 KiB still missed), and probes the table only
 * when it is set. The buckets' counts (a byte each: a bucket's entries
 * have their home in its 8 slots and lie within SET_PROBES of it, so at
 * most 71) and the bits change under a lock, taken only to add or
 * remove an entry: a bit is never clear while its bucket holds one.
 */
uint64_t objects_filt[FILT_SIZE / 64] OWN_LINE;
static uint8_t filt_n[FILT_SIZE] OWN_LINE;
static bool filt_lock OWN_LINE;
_Static_assert((SET_SIZE / FILT_SIZE) + SET_PROBES - 1 <= UINT8_MAX,
	       "a bucket's count fits its byte");

/* one entry more (@d 1) or less (-1) in @h's bucket */
static void filt_count(uint32_t h, int d)
{
	uint32_t b = h >> (SET_BITS - FILT_BITS);
	uint64_t bit = (uint64_t)1 << (b % 64);

	while (__atomic_test_and_set(&filt_lock, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
	filt_n[b] = (uint8_t)(filt_n[b] + d);
	if (d > 0 && filt_n[b] == 1)
		__atomic_fetch_or(&objects_filt[b / 64], bit,
				  __ATOMIC_RELAXED);
	else if (d < 0 && !filt_n[b])
		__atomic_fetch_and(&objects_filt[b / 64], ~bit,
				   __ATOMIC_RELAXED);
	__atomic_clear(&filt_lock, __ATOMIC_RELEASE);
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
			if (!big)
				filt_count(h, 1);
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

	if (!big && !objects_filt_has(h))
		return 0;
	for (unsigned int i = 0; i < SET_PROBES; i++) {
		uintptr_t *s = &set[(h + i) & (SET_SIZE - 1)];
		uintptr_t v = __atomic_load_n(s, __ATOMIC_RELAXED);

		if (v == 0)
			return 0;
		if (v == want && __atomic_compare_exchange_n(s, &v, SET_DEAD,
				false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			if (!big)
				filt_count(h, -1);
			return 1;
		}
	}
	return 0;
}

/* in a fork's child: the lock as a thread of the parent may have held it */
void objects_set_forked(void)
{
	__atomic_clear(&filt_lock, __ATOMIC_RELAXED);
}
