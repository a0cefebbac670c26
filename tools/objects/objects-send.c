// SPDX-License-Identifier: MIT
/*
 * objects-send.c - the interposer's records (libpebsshim-objects.so):
 * the calling thread's stack bounds and its stack walk by frame
 * pointers, a record built on the stack, stamped with CLOCK_MONOTONIC
 * and put into the recorder's ring (lib/record/objects-ring.h), waiting
 * on its futex when the ring is full.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "interpose.h"

extern void *__libc_stack_end;

static TLS uintptr_t stack_lo, stack_hi;	/* the thread's stack */

/*
 * The thread's stack, found once (guarded: glibc may allocate): the main
 * thread's from __libc_stack_end down by RLIMIT_STACK (at most 1 GiB), a
 * thread's from pthread_getattr_np.
 */
static void stack_bounds(void)
{
	pthread_attr_t a;
	struct rlimit rl;
	void *lo;
	size_t len;

	if (stack_hi)
		return;
	if (objects_tid == objects_pid) {
		stack_hi = (uintptr_t)__libc_stack_end;
		len = 8u << 20;
		if (!getrlimit(RLIMIT_STACK, &rl))
			len = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1u << 30 ?
			      1u << 30 : rl.rlim_cur;
		stack_lo = stack_hi > len ? stack_hi - len : 0;
	} else if (!pthread_getattr_np(pthread_self(), &a)) {
		if (!pthread_attr_getstack(&a, &lo, &len)) {
			stack_lo = (uintptr_t)lo;
			stack_hi = (uintptr_t)lo + len;
		}
		pthread_attr_destroy(&a);
	}
}

/* whether a frame's two words at @fp lie in the thread's stack (no
   overflow: a frame pointer a program without them left may be any
   value, -16 too) */
static bool in_stack(uintptr_t fp)
{
	return stack_hi >= 16 && fp >= stack_lo && fp <= stack_hi - 16;
}

/*
 * The return addresses from @frame up, while each frame lies in the
 * thread's stack above the last: memory there is mapped. A hook running
 * on another stack (sigaltstack, a coroutine's) gives its caller only.
 */
static unsigned int walk(const void *frame, uint64_t *ips)
{
	uintptr_t fp = (uintptr_t)frame;
	unsigned int n = 0;

	stack_bounds();
	if (!in_stack(fp)) {
		ips[0] = ((const uintptr_t *)fp)[1];	/* our own frame */
		return ips[0] != 0;
	}
	while (n < PSO_MAX_IPS && !(fp & 7) && in_stack(fp)) {
		uintptr_t next = ((const uintptr_t *)fp)[0];
		uintptr_t ret = ((const uintptr_t *)fp)[1];

		if (!ret)
			break;
		ips[n++] = ret;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* a wait's sleep between looks at the recorder's life */
#define WAIT_NS		10000000l
/* in a PID namespace the recorder is not seen: it is taken for dead once
   it has not read for this long */
#define BEAT_NS		10000000000ull

/*
 * Whether the recorder closed the ring or died: kill(2) says it of the
 * recorder's pid, except in another PID namespace, where that pid names
 * no process or another: there, its reads stopped for BEAT_NS.
 */
static bool recorder_gone(void)
{
	static TLS uint32_t beat;
	static TLS uint64_t since;
	uint32_t b;
	uint64_t now;

	if (!objects_tracking())
		return true;
	if (!objects_pidns)
		return kill((pid_t)objects_ring->recorder, 0) && errno == ESRCH;
	b = __atomic_load_n(&objects_ring->beat, __ATOMIC_RELAXED);
	now = now_ns();
	if (b != beat || !since) {
		beat = b;
		since = now;
	}
	return now - since > BEAT_NS;
}

/*
 * Wait for the recorder to read lane @l up to @target: spin a little,
 * then sleep on the lane's futex (having asked the recorder to read
 * now), checking its life at each WAIT_NS without a read; false (and
 * tracking stopped for every process of the command) once it closed the
 * ring or died.
 */
static bool wait_tail(struct pso_lane *l, uint64_t target)
{
	int saved = errno;
	bool ok = true;

	for (unsigned int i = 0; i < 100; i++) {
		if (pso_lane_read_to(l, target))
			goto out;
		__builtin_ia32_pause();
	}
	while (!pso_lane_wait(objects_ring, l, target, WAIT_NS)) {
		if (recorder_gone()) {
			__atomic_store_n(&objects_ring->open, 0, __ATOMIC_RELAXED);
			ok = false;
			break;
		}
	}
out:
	errno = saved;
	return ok;
}

union rec {
	struct pso_rec r;
	char b[PSO_REC_MAX];
};

/* @u's head but its size, time and stack */
static void head(union rec *u, int kind, const void *addr, size_t len,
		 uint64_t weight)
{
	if (!objects_tid)
		objects_tid = (uint32_t)syscall(SYS_gettid);
	u->r.kind = (uint8_t)kind;
	u->r.pid = objects_pid;
	u->r.tid = objects_tid;
	u->r.pidns = objects_pidns;
	u->r.addr = (uintptr_t)addr;
	u->r.len = len;
	u->r.weight = weight;
}

/* a slot's owner for the recorder's kill(2): 0 (unknown) when our pid
   is another namespace's */
static inline uint32_t owner(void)
{
	return objects_pidns ? 0 : objects_pid;
}

/* the lane of the CPU the thread runs on (any, should it move now) */
static struct pso_lane *lane(void)
{
	int cpu = sched_getcpu();

	return pso_ring_lane(objects_ring, cpu >= 0 ?
			     (uint32_t)cpu % objects_ring->lanes : 0);
}

/* @u, its head and stack filled, into the ring */
static void put(union rec *u)
{
	struct pso_lane *l = lane();
	uint32_t slot;
	uint64_t pos;

	u->r.size = (uint16_t)(sizeof(u->r) + u->r.nr_ips * 8u);
	slot = pso_slot_len(u->r.size);
	pos = pso_lane_reserve(l, slot);
	if (!pso_lane_room(l, pos, slot) && !wait_tail(l, pos + slot - l->size))
		return;
	pso_lane_mark(l, pos, slot, owner());
	/* stamped once in the lane: records come nearly in time order */
	u->r.time = now_ns();
	pso_lane_put(l, pos, owner(), u, u->r.size);
}

void objects_emit(int kind, const void *addr, size_t len, uint64_t weight,
		  const void *frame)
{
	union rec u;

	head(&u, kind, addr, len, weight);
	u.r.nr_ips = frame ? (uint8_t)walk(frame, u.r.ips) : 0;
	put(&u);
}

void objects_emit_range(int kind, const void *addr, size_t len,
			uintptr_t at)
{
	union rec u;

	head(&u, kind, addr, len, len);
	u.r.ips[0] = at;
	u.r.nr_ips = at != 0;
	put(&u);
}

void objects_stack(uintptr_t *lo, uintptr_t *hi)
{
	if (!objects_tid)
		objects_tid = (uint32_t)syscall(SYS_gettid);
	stack_bounds();
	*lo = stack_lo;
	*hi = stack_hi;
}

void objects_sync(void)
{
	if (!objects_pidns)
		return;
	for (uint32_t i = 0; i < objects_ring->lanes; i++) {
		struct pso_lane *l = pso_ring_lane(objects_ring, i);

		if (!wait_tail(l, __atomic_load_n(&l->head, __ATOMIC_ACQUIRE)))
			return;
	}
}
