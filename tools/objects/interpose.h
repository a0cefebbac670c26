/* SPDX-License-Identifier: MIT */
/*
 * interpose.h - what the interposer's allocation hooks (objects.c) give
 * its thread tracking (objects-threads.c), inside libpebsshim-objects.so.
 */
#ifndef PEBS_SHIM_INTERPOSE_H
#define PEBS_SHIM_INTERPOSE_H

#include <stddef.h>
#include <stdint.h>

/*
 * objects_enter - 1 when objects are tracked and this thread is not
 * inside a hook already: then its hooks are off (what it calls reaches
 * the real allocator untracked) until objects_leave; else 0.
 */
int objects_enter(void);
void objects_leave(void);
/* send a record of @kind for [@addr, @addr + @len), ips[0] @at (if not
   0); inside objects_enter */
void objects_emit_range(int kind, const void *addr, size_t len,
			uintptr_t at);
/* the calling thread's stack [*@lo, *@hi) (0, 0: unknown) */
void objects_stack(uintptr_t *lo, uintptr_t *hi);

/* objects-threads.c: the calling thread's stack and TLS blocks sent */
void objects_thread_begin(void);

#endif /* PEBS_SHIM_INTERPOSE_H */
