/* SPDX-License-Identifier: MIT */
/*
 * interpose.h - what the files of libpebsshim-objects.so give each
 * other: the allocation hooks (objects.c), the records they send
 * (objects-send.c), the set of tracked addresses (objects-set.c) and the
 * thread tracking (objects-threads.c). Nothing here is exported.
 */
#ifndef PEBS_SHIM_INTERPOSE_H
#define PEBS_SHIM_INTERPOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/objects-ring.h"

#pragma GCC visibility push(hidden)

/* initial-exec: a preloaded library's TLS is static, and no access
   goes through __tls_get_addr */
#define TLS __thread __attribute__((tls_model("initial-exec")))

/* a spin lock, taken only inside objects_enter (a signal handler's hooks
   never wait on it) */
static inline void objects_lock(bool *l)
{
	while (__atomic_test_and_set(l, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}

static inline void objects_unlock(bool *l)
{
	__atomic_clear(l, __ATOMIC_RELEASE);
}

/* objects.c: the recorder's ring (NULL: not tracking), the process's
   pid and the thread's tid (0 until its first record), and the inode
   number of its PID namespace when not the recorder's (else 0) */
extern struct pso_ring *objects_ring;
extern uint32_t objects_pid;
extern uint32_t objects_pidns;
extern TLS uint32_t objects_tid;

static inline bool objects_tracking(void)
{
	return objects_ring &&
	       __atomic_load_n(&objects_ring->open, __ATOMIC_RELAXED);
}

/*
 * objects_enter - 1 when objects are tracked and this thread is not
 * inside a hook already: then its hooks are off (what it calls reaches
 * the real allocator untracked) until objects_leave; else 0.
 */
int objects_enter(void);
void objects_leave(void);

/* objects-send.c: a record of @kind for [@addr, @addr + @len) standing
   for @weight bytes, its stack walked from @frame (NULL: none) */
void objects_emit(int kind, const void *addr, size_t len, uint64_t weight,
		  const void *frame);
/* the same, ips[0] @at (if not 0); inside objects_enter */
void objects_emit_range(int kind, const void *addr, size_t len,
			uintptr_t at);
/* the calling thread's stack [*@lo, *@hi) (0, 0: unknown) */
void objects_stack(uintptr_t *lo, uintptr_t *hi);
/* in another PID namespace than the recorder's: wait until the recorder
   has read what the process sent (it then sees the thread alive, and
   learns its pids in its own namespace) */
void objects_sync(void);

/*
 * objects-set.c: the addresses tracked, so that their frees are sent. A
 * free looks at the filter first (objects_filt_has), and takes the slow
 * way to the table only when the address's bit is set. The filter is
 * FILT_GROUPS groups of 2048 bits (four cache lines): an address's group
 * comes from its 4 MiB region (hashed), its bit in the group from the
 * address's bits 4-14 (a multiplicative hash there cost 1 % more on a
 * loop of small allocations). A
 * thread allocates from its own arena (glibc's), so the lines its
 * tracked objects set and clear are the lines its own frees read: the
 * other cores' frees do not miss on them.
 */
#define FILT_GROUPS	64
#define FILT_REGION	22	/* log2 of a region's bytes */
extern uint64_t objects_filt[FILT_GROUPS * 32];

/* @a's group in the filter (of 64), and its bit */
static inline uint32_t objects_filt_group(uintptr_t a)
{
	return (uint32_t)((a >> FILT_REGION) * 0x9e3779b1u) >> 26;
}

static inline uint32_t objects_filt_bit(uintptr_t a)
{
	return objects_filt_group(a) << 11 | (uint32_t)(a >> 4 & 2047);
}

static inline bool objects_filt_has(uintptr_t a)
{
	uint32_t b = objects_filt_bit(a);

	return __atomic_load_n(&objects_filt[b / 64], __ATOMIC_RELAXED) >>
	       (b % 64) & 1;
}

/* @a into the set */
void objects_set_add(uintptr_t a);
/* whether @a was in the set (and no longer is) */
int objects_set_del(uintptr_t a);
/* @a's bit set for good (an address no real free may take) */
void objects_set_pin(uintptr_t a);
/* in a fork's child */
void objects_set_forked(void);

/* objects-threads.c: the calling thread's stack and TLS blocks sent */
void objects_thread_begin(void);
/* the same in a fork's child, which is one from now on */
void objects_thread_forked(void);

#pragma GCC visibility pop

#endif /* PEBS_SHIM_INTERPOSE_H */
