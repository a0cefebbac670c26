/* SPDX-License-Identifier: MIT */
/*
 * rdpmc.h - the x86 time-stamp and counter instructions, and the perf
 * user page protocol for reading a counter from user space; inline so
 * that the observer loop pays no call. Private to the library (tests
 * include it to drive the protocol with a fake rdpmc).
 */
#ifndef PEBSSHIM_RDPMC_H
#define PEBSSHIM_RDPMC_H

#include <errno.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "core/barrier.h"

#if !defined(__x86_64__) && !defined(__i386__)
#error "the observer needs x86 (rdtscp, rdpmc)"
#endif

/*
 * cap_user_rdpmc is bit 2 of perf_event_mmap_page.capabilities (after
 * cap_bit0 and cap_bit0_is_deprecated); the unit test checks this
 * against the uapi bitfield.
 */
#define PEBS_CAP_USER_RDPMC	(1ULL << 2)

/* lock changes seen in a row before giving up (a writer stuck midway) */
#define PEBS_RDPMC_RETRIES	1000

static inline uint64_t pebs_rdtscp(void)
{
	uint32_t lo, hi, aux;

	/* waits for earlier instructions; the clobber keeps the reads
	 * it brackets on their side of it */
	__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux)
			     : : "memory");
	return lo | (uint64_t)hi << 32;
}

static inline uint64_t pebs_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return lo | (uint64_t)hi << 32;
}

static inline uint64_t pebs_rdpmc_insn(unsigned int counter)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter)
			     : "memory");
	return lo | (uint64_t)hi << 32;
}

/* sign-extend the low @width bits of @v (width 0 or >= 64: as is) */
static inline int64_t pebs_sign_extend(uint64_t v, unsigned int width)
{
	if (!width || width >= 64)
		return (int64_t)v;
	/* arithmetic right shift of a signed value: gcc and clang */
	return (int64_t)(v << (64 - width)) >> (64 - width);
}

/*
 * pebs_rdpmc_page - the read side of <linux/perf_event.h>'s user page
 * protocol. The kernel (perf_event_update_userpage) increments lock,
 * writes index/offset/..., and increments lock again, so a copy taken
 * between two equal, even values of lock is consistent. @rdpmc runs
 * the instruction; callers pass pebs_rdpmc_insn (inlined) or a fake.
 * Returns 0 and *count, -EOPNOTSUPP (no user rdpmc now), -EAGAIN.
 */
static inline __attribute__((always_inline)) int
pebs_rdpmc_page(const struct perf_event_mmap_page *pc,
		uint64_t (*rdpmc)(unsigned int counter), uint64_t *count)
{
	for (unsigned int tries = 0; tries < PEBS_RDPMC_RETRIES; tries++) {
		/* pairs with the kernel's barrier() between the two
		 * increments; a same-CPU writer cannot be seen midway, a
		 * remote one (or a test) can: retry on odd */
		uint32_t seq = pebs_load_acquire(&pc->lock);
		uint64_t caps, pmc = 0;
		uint32_t idx;
		uint16_t width;
		int64_t offset;

		if (seq & 1)
			continue;
		caps = PEBS_READ_ONCE(pc->capabilities);
		idx = PEBS_READ_ONCE(pc->index);
		offset = PEBS_READ_ONCE(pc->offset);
		width = PEBS_READ_ONCE(pc->pmc_width);
		if ((caps & PEBS_CAP_USER_RDPMC) && idx)
			pmc = rdpmc(idx - 1);
		/* the copy above happens before the lock is checked again */
		pebs_smp_rmb();
		if (PEBS_READ_ONCE(pc->lock) != seq)
			continue;
		if (!(caps & PEBS_CAP_USER_RDPMC) || !idx)
			return -EOPNOTSUPP;
		*count = (uint64_t)offset + (uint64_t)pebs_sign_extend(pmc, width);
		return 0;
	}
	return -EAGAIN;
}

#endif /* PEBSSHIM_RDPMC_H */
