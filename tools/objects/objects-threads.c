// SPDX-License-Identifier: MIT
/*
 * objects-threads.c - the threads of a command run by `record --objects`
 * as data objects, inside libpebsshim-objects.so: each thread's stack
 * (PSO_STACK) and its static TLS block of each module (PSO_TLS), sent
 * from the thread itself when it starts (pthread_create is interposed:
 * the new thread runs a trampoline first), for the main thread when the
 * interposer starts and for a forked child's thread in the child; a
 * thread's exit (a key destructor: it also runs on pthread_exit) sends
 * the release of its stack's range, which ends its TLS blocks too
 * (glibc puts them at the top of the stack it allocates).
 *
 * The stack is pthread_getattr_np's (the main thread's: its top down by
 * RLIMIT_STACK), the TLS blocks dl_iterate_phdr's dlpi_tls_data and
 * PT_TLS size; the interposer's own TLS is left out. Threads made by
 * clone(2) directly are not seen.
 *
 * A forked child never calls dl_iterate_phdr: glibc (2.36) does not
 * reset the loader's lock in a fork's child, so when another thread of
 * the parent held it at the fork (in its own dl_iterate_phdr: a thread
 * starting under the interposer, a C++ exception being thrown), the
 * child would wait for it forever (it did, in the atfork handler, for
 * a program that forks while other threads start). Each module's static
 * TLS block lies at the same offset from every thread's pthread_self(),
 * so the offsets seen in the parent give the child's threads theirs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "record/objects-proto.h"
#include "interpose.h"

#define EXPORT __attribute__((visibility("default")))

typedef int create_fn(pthread_t *, const pthread_attr_t *,
		      void *(*)(void *), void *);

static create_fn *real_create;
static pthread_key_t exit_key;
static int key_made;		/* 0 no, 1 making, 2 made */
static uintptr_t own_code;	/* an address in the interposer's code */

struct start {
	void *(*fn)(void *);
	void *arg;
};

/* the modules' TLS blocks seen so far, by their offset from a thread's
   pthread_self(): tls_n published (release) once its entry is written */
#define TLS_MODS	64
static struct tls_mod {
	uintptr_t code;		/* names the module */
	intptr_t off;
	size_t len;
} tls_mods[TLS_MODS];
static unsigned int tls_n;
static bool tls_lock;
static bool forked;		/* a fork's child: no dl_iterate_phdr */

static intptr_t self_addr(void)
{
	return (intptr_t)pthread_self();
}

/* the module of @code has its block at @off (inside objects_enter) */
static void tls_remember(uintptr_t code, intptr_t off, size_t len)
{
	unsigned int n = __atomic_load_n(&tls_n, __ATOMIC_ACQUIRE), i;

	for (i = 0; i < n; i++)
		if (tls_mods[i].code == code)
			return;
	objects_lock(&tls_lock);
	n = __atomic_load_n(&tls_n, __ATOMIC_RELAXED);
	for (i = 0; i < n && tls_mods[i].code != code; i++)
		;
	if (i == n && n < TLS_MODS) {
		tls_mods[n] = (struct tls_mod){ code, off, len };
		__atomic_store_n(&tls_n, n + 1, __ATOMIC_RELEASE);
	}
	objects_unlock(&tls_lock);
}

/* the module's static TLS block for this thread, named by its code */
static int tls_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t code = 0;
	size_t len = 0;

	(void)arg;
	if (size < sizeof(*info) || !info->dlpi_tls_data)
		return 0;
	for (unsigned int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_TLS)
			len = ph->p_memsz;
		else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
			 !code) {
			code = info->dlpi_addr + ph->p_vaddr;
			if (own_code >= code && own_code - code < ph->p_memsz)
				return 0;	/* the interposer's */
		}
	}
	if (len) {
		objects_emit_range(PSO_TLS, info->dlpi_tls_data, len, code);
		tls_remember(code, (intptr_t)info->dlpi_tls_data - self_addr(),
			     len);
	}
	return 0;
}

/* this thread's TLS blocks: dl_iterate_phdr's, in a fork's child the
   offsets seen before the fork */
static void tls_blocks(void)
{
	unsigned int n = __atomic_load_n(&tls_n, __ATOMIC_ACQUIRE);

	if (!__atomic_load_n(&forked, __ATOMIC_RELAXED)) {
		dl_iterate_phdr(tls_one, NULL);
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		objects_emit_range(PSO_TLS,
				   (const void *)(self_addr() + tls_mods[i].off),
				   tls_mods[i].len, tls_mods[i].code);
}

static void thread_end(void *v)
{
	uintptr_t lo, hi;

	(void)v;
	if (!objects_enter())
		return;
	objects_stack(&lo, &hi);
	if (hi > lo)
		objects_emit_range(PSO_FREE, (const void *)lo, hi - lo, 0);
	objects_leave();
}

void objects_thread_begin(void)
{
	uintptr_t lo, hi;
	int expect = 0;

	if (!objects_enter())
		return;
	if (__atomic_compare_exchange_n(&key_made, &expect, 1, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		own_code = (uintptr_t)&objects_thread_begin;
		__atomic_store_n(&key_made, pthread_key_create(&exit_key,
					thread_end) ? 0 : 2, __ATOMIC_RELEASE);
	}
	objects_stack(&lo, &hi);
	if (hi > lo)
		objects_emit_range(PSO_STACK, (const void *)lo, hi - lo, 0);
	tls_blocks();
	if (__atomic_load_n(&key_made, __ATOMIC_ACQUIRE) == 2)
		pthread_setspecific(exit_key, &key_made);
	objects_sync();
	objects_leave();
}

void objects_thread_forked(void)
{
	__atomic_store_n(&forked, true, __ATOMIC_RELAXED);
	objects_thread_begin();	/* the child's thread is its own */
}

/* free @s, untracked as its allocation was */
static void drop(struct start *s)
{
	int in = objects_enter();

	free(s);
	if (in)
		objects_leave();
}

static void *trampoline(void *p)
{
	struct start s = *(struct start *)p;

	drop(p);
	objects_thread_begin();
	return s.fn(s.arg);
}

EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	struct start *s = NULL;
	int err;

	if (objects_enter()) {
		if (!real_create)
			real_create = (create_fn *)dlsym(RTLD_NEXT,
							 "pthread_create");
		s = malloc(sizeof(*s));	/* untracked */
		objects_leave();
	} else if (!real_create) {
		real_create = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
	}
	if (!real_create) {
		drop(s);
		return EAGAIN;
	}
	if (!s)
		return real_create(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	err = real_create(th, attr, trampoline, s);
	if (err)
		drop(s);
	return err;
}
