// SPDX-License-Identifier: MIT
/*
 * objects-set.c - the interposer's set of the addresses it tracks, so
 * that their frees are sent (libpebsshim-objects.so): a table per group
 * of 4 MiB regions, and in front of it a filter that every free looks
 * at (interpose.h: objects_filt_has) and that only a tracked address's
 * add or removal writes.
 */
#include <stdbool.h>
#include <stdint.h>

#include "interpose.h"

/*
 * A group's table: open addressing with linear probing inside the
 * group, an entry's removal shifting back the entries after it (no
 * tombstones: a probe for an address not there ends at the first empty
 * slot, however many objects came and went), at most GROUP_FULL entries.
 * A thread allocates from its own arena (glibc's), so its adds and
 * removals touch the lines of its own groups: one table for the whole
 * process (512 KiB, hashed from the address alone, with tombstones) was
 * a cache miss per removal, the biggest cost of a tracked object
 * (allocs --small 2 20000000 under record --objects=16K: 7 % of the
 * time in its removal).
 *
 * The filter: a bit per address hash, set while an entry has it. Each
 * group's counts (a byte a bit: how many entries have it, stuck at
 * FILT_STUCK, when the bit stays set), its table and its lock are on
 * lines of their own, and are changed only under the lock: a bit is
 * never clear while an entry has it. The filter's lines are the only
 * ones every free reads.
 */
#define OWN_LINE	__attribute__((aligned(64)))
#define GROUP_SLOTS	2048
#define GROUP_FULL	(GROUP_SLOTS * 3 / 4)
#define FILT_STUCK	UINT8_MAX

uint64_t objects_filt[FILT_GROUPS * 32] OWN_LINE;
static struct filt_group {
	bool lock;
	uint32_t used;			/* entries in the table */
	uint8_t n[2048];		/* the filter's counts */
	uintptr_t set[GROUP_SLOTS] OWN_LINE;
} filt_groups[FILT_GROUPS] OWN_LINE;

/* @a's home slot in its group's table */
static uint32_t set_home(uintptr_t a)
{
	return (uint32_t)((a >> 4) * 0x9e3779b1u) >> 21;
}

/* one entry more (@d 1) or less (-1) with filter bit @b (locked) */
static void filt_count(struct filt_group *l, uint32_t b, int d)
{
	uint8_t *n = &l->n[b & 2047];
	uint64_t bit = (uint64_t)1 << (b % 64);

	if (*n == FILT_STUCK)
		return;
	*n = (uint8_t)(*n + d);
	if (d > 0 && *n == 1)
		__atomic_fetch_or(&objects_filt[b / 64], bit, __ATOMIC_RELAXED);
	else if (d < 0 && !*n)
		__atomic_fetch_and(&objects_filt[b / 64], ~bit, __ATOMIC_RELAXED);
}

/* @a's slot in @l's table, or the empty slot that ends its probe */
static uint32_t set_find(const struct filt_group *l, uintptr_t a)
{
	uint32_t i = set_home(a);

	while (l->set[i] && l->set[i] != a)
		i = (i + 1) & (GROUP_SLOTS - 1);
	return i;
}

/* slot @i emptied, the entries after it moved back to where their
   probe finds them */
static void set_remove(struct filt_group *l, uint32_t i)
{
	uint32_t j = i;

	for (;;) {
		uint32_t k;

		j = (j + 1) & (GROUP_SLOTS - 1);
		if (!l->set[j])
			break;
		k = set_home(l->set[j]);
		/* j's entry stays if its home lies cyclically in (i, j] */
		if (i <= j ? i < k && k <= j : i < k || k <= j)
			continue;
		l->set[i] = l->set[j];
		i = j;
	}
	l->set[i] = 0;
}

void objects_set_add(uintptr_t a)
{
	uint32_t b = objects_filt_bit(a);
	struct filt_group *l = &filt_groups[b >> 11];
	uint32_t i;

	objects_lock(&l->lock);
	i = set_find(l, a);
	/* full: its free goes unsent, a later object at the address takes
	   over in the report */
	if (!l->set[i] && l->used < GROUP_FULL) {
		l->set[i] = a;
		l->used++;
		filt_count(l, b, 1);
	}
	objects_unlock(&l->lock);
}

int objects_set_del(uintptr_t a)
{
	uint32_t b = objects_filt_bit(a);
	struct filt_group *l = &filt_groups[b >> 11];
	uint32_t i;
	int found;

	if (!objects_filt_has(a))
		return 0;
	objects_lock(&l->lock);
	i = set_find(l, a);
	found = l->set[i] != 0;
	if (found) {
		set_remove(l, i);
		l->used--;
		filt_count(l, b, -1);
	}
	objects_unlock(&l->lock);
	return found;
}

void objects_set_pin(uintptr_t a)
{
	uint32_t b = objects_filt_bit(a);
	struct filt_group *l = &filt_groups[b >> 11];

	objects_lock(&l->lock);
	filt_count(l, b, 1);
	l->n[b & 2047] = FILT_STUCK;
	objects_unlock(&l->lock);
}

/* in a fork's child: the locks as threads of the parent may have held them */
void objects_set_forked(void)
{
	for (unsigned int i = 0; i < FILT_GROUPS; i++)
		__atomic_clear(&filt_groups[i].lock, __ATOMIC_RELAXED);
}
