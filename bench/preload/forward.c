// SPDX-License-Identifier: MIT
/*
 * forward.c - libforward.so, for the benchmarks (make bench): an
 * LD_PRELOAD interposer of malloc, calloc, realloc and free that only
 * calls the real functions (a tail call through a pointer from
 * dlsym(RTLD_NEXT)). The floor any such interposer pays on a call: the
 * objects bench runs it beside record --objects (whose hooks are this
 * plus a countdown and a filter test).
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

/* dlsym's calloc while resolving: a static buffer, never freed */
static char boot[4096] __attribute__((aligned(16)));
static size_t boot_used;

static int is_boot(const void *p)
{
	return (uintptr_t)p - (uintptr_t)boot < sizeof(boot);
}

__attribute__((constructor)) static void resolve(void)
{
	if (real_free)
		return;
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
}

void *malloc(size_t n)
{
	if (!real_malloc)
		resolve();
	return real_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	if (!real_calloc) {
		size_t at = boot_used;

		/* only dlsym calls it before: small, zeroed (static) */
		if (n * m > sizeof(boot) - at)
			return NULL;
		boot_used += (n * m + 15) & ~(size_t)15;
		return boot + at;
	}
	return real_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	if (!real_realloc)
		resolve();
	return real_realloc(p, n);
}

void free(void *p)
{
	if (!is_boot(p))
		real_free(p);
}
