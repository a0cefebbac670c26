/* SPDX-License-Identifier: MIT */
/*
 * barrier.h - every memory ordering the library relies on, in one place.
 *
 * Memory shared with the kernel (perf ring buffers, the perf user page,
 * the /dev/pebs_map table) is read through these helpers only. They map
 * onto C11 atomics, as liburing's barrier.h does, so the compiler emits
 * the right fences for the target (plain loads/stores on x86, ldar/stlr
 * on arm64).
 *
 * Pairings (producer in the kernel, consumer here):
 *  - perf ring: kernel writes records, then smp_wmb + store data_head;
 *    we load_acquire(data_head) before reading records, and
 *    store_release(data_tail) after we are done with them, which pairs
 *    with the kernel's smp_mb before it reads data_tail to decide
 *    whether there is room (kernel/events/ring_buffer.c, barriers A-D).
 *  - pebs_map slots: writer makes seq odd, smp_wmb, fields, smp_wmb,
 *    seq even; we load_acquire(seq), copy, then pebs_smp_rmb() and
 *    load seq again (a seqcount read side).
 *  - pebs_map history: writer fills an entry, then store_release
 *    (hist_head); we load_acquire(hist_head), copy entries, rmb, reload.
 */
#ifndef PEBSSHIM_BARRIER_H
#define PEBSSHIM_BARRIER_H

#include <stdatomic.h>
#include <stdint.h>

#define pebs_load_acquire(p)						\
	atomic_load_explicit((_Atomic __typeof__(*(p)) *)(p),		\
			     memory_order_acquire)
#define pebs_store_release(p, v)					\
	atomic_store_explicit((_Atomic __typeof__(*(p)) *)(p), (v),	\
			      memory_order_release)
#define PEBS_READ_ONCE(x)						\
	atomic_load_explicit((_Atomic __typeof__(x) *)&(x),		\
			     memory_order_relaxed)
#define PEBS_WRITE_ONCE(x, v)						\
	atomic_store_explicit((_Atomic __typeof__(x) *)&(x), (v),	\
			      memory_order_relaxed)

/* order earlier loads before later loads (seqcount read side) */
#define pebs_smp_rmb()	atomic_thread_fence(memory_order_acquire)
/* order earlier stores before later stores (seqcount write side) */
#define pebs_smp_wmb()	atomic_thread_fence(memory_order_release)
/* full barrier */
#define pebs_smp_mb()	atomic_thread_fence(memory_order_seq_cst)
/* compiler-only barrier */
#define pebs_barrier()	atomic_signal_fence(memory_order_seq_cst)

#endif /* PEBSSHIM_BARRIER_H */
