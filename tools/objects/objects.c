// SPDX-License-Identifier: MIT
/*
 * objects.c - libpebsshim-objects.so, preloaded by `pebs-shim record
 * --objects` into the command it runs: the heap and anonymous-memory
 * allocations of the command, with their call stacks, to the recorder
 * (lib/record/objects-proto.h) through the ring in shared memory whose
 * fd is in $PEBS_SHIM_OBJECTS_FD (lib/record/objects-ring.h): no system
 * call per record.
 *
 * Interposed: malloc, calloc, realloc, reallocarray, free,
 * posix_memalign, aligned_alloc, memalign, valloc, pvalloc, and mmap,
 * munmap, mremap (anonymous mappings; munmap and mremap of any range
 * end what they cover; the old range a mremap with MREMAP_DONTUNMAP
 * leaves mapped, empty, is a new object of that mremap's caller). C++ new and delete reach malloc and free.
 *
 * - Bootstrap: the real functions come from dlsym(RTLD_NEXT); dlsym may
 *   call calloc meanwhile, served from a static buffer (never freed).
 * - Reentrancy: a thread-local guard; what the hooks call (dlsym,
 *   pthread_getattr_np once per thread) reaches the real allocator
 *   untracked. The hook path itself never allocates: a record is built
 *   on the stack, a slot of the ring reserved by an atomic add, the
 *   record copied in and published by a store. Its one lock (a spin
 *   lock, objects-set.c) is taken only under the guard, to add or remove
 *   a tracked address, so a signal handler's hooks never wait on it.
 * - Threads: per-thread state is thread-local; the set of tracked
 *   addresses and its filter's bits change under a lock per group of
 *   regions (reset in a fork's child).
 * - fork: the child keeps the ring's mapping (shared memory: it writes
 *   into the same ring) and reseeds its sampler (atfork); exec:
 *   LD_PRELOAD and the fd variable stay in the environment, the fd has
 *   no close-on-exec, so an exec'd program is preloaded again and maps
 *   the ring again (through the recorder's fd, /proc/PID/fd/FD, when
 *   its own was closed).
 * - A full ring: the producer spins a little, then asks the recorder to
 *   read now and sleeps on the ring's futex until it has
 *   (lib/record/objects-ring.h); nothing is dropped. Every 10 ms of
 *   waiting without a read it checks that the recorder lives: once the
 *   recorder closed the ring (the recording ended) or died, tracking
 *   stops in every process of the command.
 * - PID namespaces: a process in another than the recorder's (a child
 *   of unshare --pid, a container) knows only its namespace's pids, and
 *   /proc there shows no other. Its records say so (the namespace's
 *   inode number), each thread's first waits until the recorder has read
 *   it, and the recorder, which sees the thread alive then, translates
 *   its pid and tid to those of the samples (/proc/PID/status, NSpid).
 *
 * Cost bound: allocations of PSO_THRESHOLD bytes or more are always
 * tracked; smaller ones are sampled by bytes as jemalloc does: a
 * thread draws an exponential countdown of mean PSO_INTERVAL bytes,
 * and the allocation that exhausts it is tracked, so an allocation of
 * s bytes is tracked with probability p = 1 - exp(-s/interval) and
 * stands for s/p bytes. PEBS_SHIM_OBJECTS=all tracks every allocation.
 *
 * Call stacks: frame pointers, walked from the hook's own frame while
 * each next frame lies above the last one and below the thread's stack
 * top. It costs a few loads per frame (no unwind tables, no locks),
 * but stops at the first function built without frame pointers
 * (Debian builds glibc and most libraries without them: a stack ends
 * where the program calls into such a library, and a program itself
 * built without them gives its direct caller only).
 *
 * Fast paths: malloc and calloc take the bytes from the thread's
 * countdown and tail-call the real function unless the countdown runs
 * out or the size reaches the threshold; free looks at one bit of a
 * filter of the tracked addresses (whose lines each thread's own
 * tracked objects change) and tail-calls free_fast: the real free, or
 * the slow path before resolving and with --objects=all. The boot
 * buffer's addresses have their bits set for good. Everything else
 * (resolving, recording, --objects=all) is in the slow paths. The free
 * hook is a hash of the address's region, one load and a test. On
 * allocs --small 2 40000000 (user CPU, 6 interleaved rounds, quiet): an
 * interposer that only forwards (bench/preload/forward.c) costs 1.037x
 * bare, these hooks 1.070x, the malloc hook's countdown alone (free
 * forwarding) 1.068x; with a multiplicative hash of the bit in the
 * group 1.082x; with a test of a "switch" and of the boot buffer, and
 * glibc's chunk size word telling the big chunks, 1.105x.
 * The objects tracked cost ~0.3 us each, the recorder's share included
 * (stack walk, clock_gettime, a slot of the ring, the set, and the
 * recorder's write; allocs --small under --objects=16K, profiled).
 * --objects=all costs 260-400 ns per allocation (with a socket and a
 * send(2) per record it was ~1.8-2 us): the stack walk, two clock_gettime
 * (37 ns each here), two copies into the ring, and waiting on a full ring
 * for the recorder, whose cost per record is writing its ~70-byte sample
 * into perf.data.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/objects-ring.h"
#include "interpose.h"

#define EXPORT __attribute__((visibility("default")))

struct real {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int (*munmap)(void *, size_t);
	void *(*mremap)(void *, size_t, size_t, int, ...);
};

static struct real real;
static int resolved;		/* 0 none, 1 resolving, 2 done */
struct pso_ring *objects_ring;
static int track_all;
/*
 * The free fast path's switch, set once resolved (before: every call
 * goes the slow way, which resolves), and not with --objects=all: a
 * free of an address the tracked set cannot hold goes through free_fast
 * straight to the real function. The allocations' is the thread's
 * countdown: 0 until its first slow path, which resolves, and left at 0
 * with --objects=all.
 */
static void free_slow(void *p);
static void (*free_fast)(void *) = free_slow;
static double interval = PSO_INTERVAL;
uint32_t objects_pid;
uint32_t objects_pidns;

/* calloc of dlsym while resolving (its addresses' filter bits set for
   good: their frees take the slow path) */
static char boot_buf[16384] __attribute__((aligned(16)));
static size_t boot_used;

static TLS int guard;
TLS uint32_t objects_tid;
static TLS int64_t countdown;	/* bytes to the next sample */
static TLS uint64_t rng;

static void *boot_alloc(size_t n)
{
	size_t at = __atomic_fetch_add(&boot_used, (n + 15) & ~(size_t)15,
				       __ATOMIC_RELAXED);

	if (at + n > sizeof(boot_buf))
		return NULL;
	objects_set_pin((uintptr_t)(boot_buf + at));
	return boot_buf + at;
}

static inline bool is_boot(const void *p)
{
	return (uintptr_t)p - (uintptr_t)boot_buf < sizeof(boot_buf);
}

static void reseed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
	      ((uint64_t)objects_tid << 40) ^ 0x9e3779b97f4a7c15ull;
}

static int64_t draw(void);

/*
 * The process's PID namespace when it is not the recorder's (a fork's
 * child of a process that called unshare(CLONE_NEWPID), what a
 * container runs): its inode number, else 0 (so too without /proc).
 */
static uint32_t pidns(void)
{
	struct stat st;

	if (!objects_ring || !objects_ring->pidns ||
	    stat("/proc/self/ns/pid", &st) ||
	    (uint64_t)st.st_ino == objects_ring->pidns)
		return 0;
	return (uint32_t)st.st_ino;
}

static void on_fork_child(void)
{
	objects_set_forked();
	objects_pid = (uint32_t)getpid();
	objects_pidns = pidns();
	objects_tid = objects_pid;
	reseed();
	countdown = track_all ? 0 : draw();
	objects_thread_forked();
}

/*
 * The recorder's ring behind @fd, mapped once (a fork's child keeps the
 * mapping), or NULL: not a ring of the recorder (the fd is another file
 * that took its number) or one it has closed.
 */
static struct pso_ring *map_ring(int fd)
{
	struct pso_ring h;
	struct stat st;
	void *p;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    h.magic != PSO_RING_MAGIC || !h.open || h.size < 2 * PSO_SLOT_MAX ||
	    (h.size & (h.size - 1)) || !h.lanes || h.lanes > PSO_LANES_MAX ||
	    (uint64_t)st.st_size != pso_ring_bytes(h.lanes, h.size))
		return NULL;
	p = (void *)syscall(SYS_mmap, NULL, (size_t)st.st_size,
			    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

/*
 * The ring when the process lost its fd (a program that closes every fd
 * before an exec, Python's subprocess): the recorder's, as
 * /proc/RECORDER/fd/@fd (the same file; refused to another user).
 */
static struct pso_ring *map_recorders(int fd)
{
	const char *pid = getenv(PSO_ENV_RECORDER);
	struct pso_ring *r;
	char path[64];
	int own;

	if (!pid || !*pid || fd < 0 ||
	    snprintf(path, sizeof(path), "/proc/%d/fd/%d", atoi(pid), fd) >=
	    (int)sizeof(path))
		return NULL;
	own = open(path, O_RDWR | O_CLOEXEC);
	if (own < 0)
		return NULL;
	r = map_ring(own);
	close(own);
	return r;
}

static void resolve(void)
{
	int expect = 0;
	const char *env;

	if (!__atomic_compare_exchange_n(&resolved, &expect, 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE) != 2)
			;	/* another thread resolves: dlsym is quick */
		return;
	}
#define SYM(f) (real.f = (__typeof__(real.f))dlsym(RTLD_NEXT, #f))
	SYM(malloc); SYM(calloc); SYM(realloc);
	SYM(free); SYM(posix_memalign); SYM(aligned_alloc); SYM(memalign);
	SYM(valloc); SYM(pvalloc); SYM(mmap); SYM(munmap); SYM(mremap);
#undef SYM
	env = getenv(PSO_ENV_FD);
	if (env && *env) {
		objects_ring = map_ring(atoi(env));
		if (!objects_ring)
			objects_ring = map_recorders(atoi(env));
	}
	env = getenv(PSO_ENV_MODE);
	if (env && !strcmp(env, "all"))
		track_all = 1;
	else if (env && atof(env) >= 1)
		interval = atof(env);
	objects_pid = (uint32_t)getpid();
	objects_pidns = pidns();
	if (!track_all)
		__atomic_store_n(&free_fast, real.free, __ATOMIC_RELEASE);
	__atomic_store_n(&resolved, 2, __ATOMIC_RELEASE);
	if (objects_ring) {
		guard++;
		pthread_atfork(NULL, NULL, on_fork_child);
		guard--;
		objects_thread_begin();	/* the main thread's */
	}
}

__attribute__((constructor)) static void init(void)
{
	if (!resolved)
		resolve();
}

static inline int ready(void)
{
	if (__builtin_expect(__atomic_load_n(&resolved, __ATOMIC_ACQUIRE) == 2,
			     1))
		return 1;
	if (!resolved)
		resolve();
	return resolved == 2;
}

int objects_enter(void)
{
	if (guard || !ready() || !objects_tracking())
		return 0;
	guard++;
	return 1;
}

void objects_leave(void)
{
	guard--;
}

static double uniform(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((double)((rng * 0x2545f4914f6cdd1dull) >> 11) + 0.5) *
	       (1.0 / 9007199254740992.0);
}

/* bytes to the next sample: exponential, of mean interval */
static int64_t draw(void)
{
	return (int64_t)(-log(uniform()) * interval) + 1;
}

/* bytes this allocation stands for if tracked, else 0 */
static uint64_t sample(size_t len)
{
	double p;

	if (track_all || len >= PSO_THRESHOLD)
		return len;
	if (!rng) {
		reseed();
		countdown = draw();
	}
	countdown -= (int64_t)len;
	if (countdown > 0)
		return 0;
	countdown = draw();
	p = -expm1(-(double)len / interval);
	return p > 0 ? (uint64_t)((double)len / p + 0.5) : len;
}

/* @p of @len bytes standing for @w tracked (inside objects_enter): into
   the set (its free to be sent) and the ring */
static void track(const void *p, size_t len, uint64_t w, const void *frame)
{
	if (!track_all)
		objects_set_add((uintptr_t)p);
	objects_emit(PSO_ALLOC, p, len, w, frame);
}

static void on_new(const void *p, size_t len, const void *frame)
{
	uint64_t w;

	if (!p || guard)
		return;
	if (!objects_tracking()) {
		countdown = INT64_MAX;	/* the fast path from now on */
		return;
	}
	guard++;
	w = sample(len);
	if (w)
		track(p, len, w, frame);
	guard--;
}

/* whether @p's release was sent */
static bool on_free(const void *p)
{
	bool sent = false;

	if (!p || guard || !objects_tracking())
		return false;
	guard++;
	if (track_all || objects_set_del((uintptr_t)p)) {
		objects_emit(PSO_FREE, p, 0, 0, NULL);
		sent = true;
	}
	guard--;
	return sent;
}

/*
 * A realloc that failed left @old allocated, though its release was sent
 * before (it must come before the allocator may hand the range to
 * another thread): @old is tracked again, an object of its usable size
 * from @frame's caller (its bytes counted once more).
 */
static void on_kept(const void *old, const void *frame)
{
	size_t len;

	if (guard || !objects_tracking())
		return;
	guard++;
	len = malloc_usable_size((void *)old);
	track(old, len, len, frame);
	guard--;
}

/* munmap and mremap's old range: always said (they are rare) */
static void on_unmap(const void *p, size_t len)
{
	if (guard || !objects_tracking())
		return;
	guard++;
	objects_set_del((uintptr_t)p);
	objects_emit(PSO_FREE, p, len, 0, NULL);
	guard--;
}

/*
 * The frame a hook's stack walk starts from: the slow paths are entered
 * by a tail call from the hook, so their own frame returns to the
 * hook's caller (were they called, the hook's frame comes first, and
 * the report skips the interposer's frames).
 */
#define FRAME __builtin_frame_address(0)

/*
 * The fast path of an allocation of @n bytes: true (and the bytes taken
 * from the thread's countdown) when it is not sampled, so the hook
 * only calls the real function (a tail call). False: the slow path
 * decides (the countdown untouched: it counts the bytes again), and so
 * for @n of the threshold or more, once the countdown is exhausted, and
 * while it is 0: in a thread before its first slow path (which resolves
 * the real functions, so the fast path never sees them unresolved) and
 * with --objects=all. Under the guard (the hooks' own calls) either way
 * is untracked.
 */
static inline bool unsampled(size_t n)
{
	int64_t left = countdown - (int64_t)n;

	if (__builtin_expect(n < PSO_THRESHOLD && left > 0, 1)) {
		countdown = left;
		return true;
	}
	return false;
}

static __attribute__((noinline)) void *malloc_slow(size_t n)
{
	void *p;

	if (!ready())
		return boot_alloc(n);
	p = real.malloc(n);
	on_new(p, n, FRAME);
	return p;
}

EXPORT void *malloc(size_t n)
{
	if (unsampled(n))
		return real.malloc(n);
	return malloc_slow(n);
}

static __attribute__((noinline)) void *calloc_slow(size_t n, size_t m)
{
	void *p;

	if (!ready()) {
		size_t b;

		/* static: zeroed */
		return __builtin_mul_overflow(n, m, &b) ? NULL : boot_alloc(b);
	}
	p = real.calloc(n, m);
	on_new(p, n * m, FRAME);
	return p;
}

EXPORT void *calloc(size_t n, size_t m)
{
	size_t b;

	if (!__builtin_mul_overflow(n, m, &b) && unsampled(b))
		return real.calloc(n, m);
	return calloc_slow(n, m);
}

static __attribute__((noinline)) void free_slow(void *p)
{
	if (!p || is_boot(p))
		return;
	if (!ready())
		return;		/* cannot happen: nothing real to free */
	on_free(p);
	real.free(p);
}

/* the fast path: an address whose filter bit is clear is not tracked
   (NULL's bit may be set: free_slow takes it) */
EXPORT void free(void *p)
{
	if (__builtin_expect(!objects_filt_has((uintptr_t)p), 1))
		return __atomic_load_n(&free_fast, __ATOMIC_ACQUIRE)(p);
	free_slow(p);
}

EXPORT void *realloc(void *old, size_t n)
{
	bool sent;
	void *p;

	if (is_boot(old)) {
		size_t have = (size_t)(boot_buf + sizeof(boot_buf) -
				       (char *)old);

		p = malloc(n);
		if (p)
			memcpy(p, old, n < have ? n : have);
		return p;
	}
	if (!ready())
		return boot_alloc(n);
	sent = on_free(old);
	p = real.realloc(old, n);
	if (!p && n && sent)
		on_kept(old, FRAME);
	on_new(p, n, FRAME);
	return p;
}

/* glibc's reallocarray calls realloc (interposed: each array was once
   recorded twice); a tail call, so the stack is the caller's */
EXPORT void *reallocarray(void *old, size_t n, size_t m)
{
	size_t b;

	if (__builtin_mul_overflow(n, m, &b)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(old, b);
}

EXPORT int posix_memalign(void **pp, size_t align, size_t n)
{
	int err;

	if (!ready())
		return ENOMEM;
	err = real.posix_memalign(pp, align, n);
	if (!err)
		on_new(*pp, n, FRAME);
	return err;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	if (!ready())
		return NULL;
	p = real.aligned_alloc(align, n);
	on_new(p, n, FRAME);
	return p;
}

EXPORT void *memalign(size_t align, size_t n)
{
	void *p;

	if (!ready())
		return NULL;
	p = real.memalign(align, n);
	on_new(p, n, FRAME);
	return p;
}

EXPORT void *valloc(size_t n)
{
	void *p;

	if (!ready())
		return NULL;
	p = real.valloc(n);
	on_new(p, n, FRAME);
	return p;
}

EXPORT void *pvalloc(size_t n)
{
	void *p;

	if (!ready())
		return NULL;
	p = real.pvalloc(n);
	on_new(p, n, FRAME);
	return p;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	void *p;

	if (!ready())
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd,
				       off);
	p = real.mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS))
		on_new(p, len, FRAME);
	return p;
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
		    off_t off) __attribute__((alias("mmap")));

EXPORT int munmap(void *addr, size_t len)
{
	int err;

	if (!ready())
		return (int)syscall(SYS_munmap, addr, len);
	err = real.munmap(addr, len);
	if (!err)
		on_unmap(addr, len);
	return err;
}

EXPORT void *mremap(void *old, size_t old_len, size_t len, int flags, ...)
{
	void *p, *to = NULL;
	va_list ap;

	/* the kernel reads new_address with either flag (a hint without
	   MREMAP_FIXED), as glibc's wrapper passes it */
	if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) {
		va_start(ap, flags);
		to = va_arg(ap, void *);
		va_end(ap);
	}
	if (!ready())
		return MAP_FAILED;
	p = real.mremap(old, old_len, len, flags, to);
	if (p != MAP_FAILED) {
		on_unmap(old, old_len);
		/* MREMAP_DONTUNMAP moved the pages but left the old range
		   mapped, empty: an object of its own, from this call */
		if (flags & MREMAP_DONTUNMAP)
			on_new(old, old_len, FRAME);
		on_new(p, len, FRAME);
	}
	return p;
}
