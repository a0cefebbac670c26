// SPDX-License-Identifier: MIT
/*
 * objects - page faults on data objects of known sizes from known
 * allocation sites, for `record --objects` and `report --sort object`
 * (tests/cli/objects.t). Transparent huge pages are off for the process
 * and glibc's mmap threshold is fixed at 128 KiB (NOTES.md: it is
 * dynamic otherwise), so each allocation below is a fresh mapping whose
 * pages fault once each when written:
 *
 *	alloc_big	malloc 4 MiB	1024 faults
 *	alloc_small	calloc 1 MiB	 256 faults
 *	alloc_first	malloc 2 MiB	 512 faults, then freed
 *	alloc_second	malloc 2 MiB	 512 faults (usually the range
 *					 alloc_first had: printed)
 *	map_anon	mmap 256 KiB	  64 faults
 *	alloc_in_thread	malloc 512 KiB	 128 faults, on a second thread
 *	alloc_shared	malloc 512 KiB	 128 faults: the first half's 64 by
 *					 the main thread, the second half's
 *					 by the second thread (shared)
 *	(its stack)	64 KiB local	  16 faults, [stack:TID]
 *	tls		__thread 32 KiB	   8 faults, [tls:TID] objects (glibc
 *					 zeroes the block before the thread
 *					 starts: the thread drops its pages
 *					 and writes them again)
 *	alloc_pair	malloc 256 KiB	 128 faults: twice, each freed
 *					 before the next (2 instances,
 *					 512 KiB, at most 256 KiB live)
 *	table		static 1 MiB	 256 faults (a data symbol in the
 *					 .bss the kernel maps anonymously)
 *	rec		static struct	   6 faults: 4 in rec.tail, 2 in
 *					 rec.head (fields from DWARF)
 *	pts		static array	   6 faults: 3 in pts[].y, 3 in
 *			of 3 structs	 pts[].x
 *
 * Prints "first=ADDR second=ADDR" on standard output.
 *
 *	objects --small		instead: 200000 allocations of 1 to 1000
 *				bytes from alloc_tiny, each freed at once;
 *				prints "bytes=N", their sum
 *	objects --bad-fp	instead: a malloc called with the frame
 *				pointer register holding -16, as code built
 *				without frame pointers may leave it (x86-64;
 *				elsewhere a plain malloc); prints "bad-fp=ADDR"
 *	objects --dontunmap	instead: map_moved's mmap of 256 KiB written
 *				(64 faults), moved by remap_keep's mremap
 *				with MREMAP_DONTUNMAP, and the old range,
 *				left mapped and empty, written again (64
 *				faults in remap_keep's object); prints
 *				"old=ADDR new=ADDR"
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#define MIB	(1UL << 20)

char table[MIB] __attribute__((aligned(4096)));

struct record {
	char head[2 * 4096];
	char tail[4 * 4096];
} rec __attribute__((aligned(4096)));

struct point {
	char x[4096];
	char y[4096];
} pts[3] __attribute__((aligned(4096)));

static void *alloc_big(void)
{
	return malloc(4 * MIB);
}

static void *alloc_small(void)
{
	return calloc(1, MIB);
}

static void *alloc_first(void)
{
	return malloc(2 * MIB);
}

static void *alloc_second(void)
{
	return malloc(2 * MIB);
}

static void *alloc_tiny(size_t n)
{
	return malloc(n);
}

static int small(void)
{
	unsigned long bytes = 0;

	for (unsigned long i = 0; i < 200000; i++) {
		char *volatile p = alloc_tiny(i % 1000 + 1);

		if (!p)
			return 1;
		p[0] = 1;
		free(p);
		bytes += i % 1000 + 1;
	}
	printf("bytes=%lu\n", bytes);
	return 0;
}

static void *map_anon(void)
{
	void *p = mmap(NULL, MIB / 4, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void fill(void *p, size_t n)
{
	if (!p) {
		fputs("objects: out of memory\n", stderr);
		exit(1);
	}
	memset(p, 1, n);
}

static void *alloc_in_thread(void)
{
	return malloc(MIB / 2);
}

static void *alloc_shared(void)
{
	return malloc(MIB / 2);
}

static void *alloc_pair(void)
{
	return malloc(MIB / 4);
}

static __thread char tls[32 << 10] __attribute__((aligned(4096)));

/*
 * 64 KiB of the thread's own stack, and its TLS block, written. glibc
 * zeroed the block in pthread_create, before the thread's TLS record was
 * sent, so its pages are dropped first (whole pages of the array alone:
 * it is page-aligned and a multiple of a page) and fault again now.
 */
static void on_stack(void)
{
	char local[64 << 10] __attribute__((aligned(4096)));

	fill(local, sizeof(local));
	madvise(tls, sizeof(tls), MADV_DONTNEED);
	fill(tls, sizeof(tls));
	__asm__ volatile("" : : "r"(local) : "memory");
}

/* @arg: alloc_shared's object, whose second half it writes */
static void *thread_main(void *arg)
{
	void *p = alloc_in_thread();

	fill(p, MIB / 2);
	free(p);
	fill((char *)arg + MIB / 4, MIB / 4);
	on_stack();
	return NULL;
}

/*
 * malloc(@n) with %rbp -16: a frame pointer walk that adds 16 to it
 * wraps to 0. On a stack of its own alignment, below the red zone.
 */
static void *malloc_bad_fp(size_t n)
{
#ifdef __x86_64__
	void *p;

	__asm__ volatile("mov %%rsp, %%r12\n\t"
			 "sub $128, %%rsp\n\t"
			 "and $-16, %%rsp\n\t"
			 "push %%rbp\n\t"
			 "push %%rbp\n\t"
			 "mov $-16, %%rbp\n\t"
			 "call malloc@PLT\n\t"
			 "pop %%rbp\n\t"
			 "pop %%rbp\n\t"
			 "mov %%r12, %%rsp"
			 : "=a"(p), "+D"(n)
			 :
			 : "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "r12",
			   "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
			   "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
			   "xmm13", "xmm14", "xmm15", "memory", "cc");
	return p;
#else
	return malloc(n);
#endif
}

static void *map_moved(void)
{
	void *p = mmap(NULL, MIB / 4, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void *remap_keep(void *p)
{
	/* the kernel reads new_address (a hint) with MREMAP_DONTUNMAP */
	return mremap(p, MIB / 4, MIB / 4, MREMAP_MAYMOVE | MREMAP_DONTUNMAP,
		      NULL);
}

static int dontunmap(void)
{
	void *old, *moved;

	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	old = map_moved();
	fill(old, MIB / 4);
	moved = remap_keep(old);
	if (moved == MAP_FAILED) {
		perror("objects: mremap MREMAP_DONTUNMAP");
		return 1;
	}
	fill(old, MIB / 4);
	printf("old=%p new=%p\n", old, moved);
	munmap(old, MIB / 4);
	munmap(moved, MIB / 4);
	return 0;
}

int main(int argc, char **argv)
{
	void *big, *little, *first, *second, *map, *shared;
	pthread_t th;

	if (argc > 1 && !strcmp(argv[1], "--small"))
		return small();
	if (argc > 1 && !strcmp(argv[1], "--dontunmap"))
		return dontunmap();
	if (argc > 1 && !strcmp(argv[1], "--bad-fp")) {
		void *p = malloc_bad_fp(100);

		printf("bad-fp=%p\n", p);
		free(p);
		return !p;
	}
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	big = alloc_big();
	fill(big, 4 * MIB);
	little = alloc_small();
	fill(little, MIB);
	first = alloc_first();
	fill(first, 2 * MIB);
	printf("first=%p ", first);
	free(first);
	second = alloc_second();
	fill(second, 2 * MIB);
	map = map_anon();
	fill(map, MIB / 4);
	fill(table, MIB);
	fill(rec.tail, sizeof(rec.tail));
	fill(rec.head, sizeof(rec.head));
	for (int i = 0; i < 3; i++)
		fill(pts[i].y, sizeof(pts[i].y));
	for (int i = 0; i < 3; i++)
		fill(pts[i].x, sizeof(pts[i].x));
	shared = alloc_shared();
	fill(shared, MIB / 4);
	if (pthread_create(&th, NULL, thread_main, shared) ||
	    pthread_join(th, NULL)) {
		fputs("objects: cannot run a thread\n", stderr);
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		void *p = alloc_pair();

		fill(p, MIB / 4);
		free(p);
	}
	printf("second=%p\n", second);
	free(big);
	free(little);
	free(second);
	free(shared);
	munmap(map, MIB / 4);
	return 0;
}
